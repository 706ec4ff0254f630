/**
 * The V8 code cache is code: a damaged one used to crash every hook call (SIGSEGV) or silently change what
 * ran, and never healed. Now a cache is used only when it is whole (both mirrored copies equal) and ours;
 * otherwise the bundle compiles from source and the run writes a good cache again.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Script } from 'node:vm';
import { afterAll, describe, expect, it } from 'vitest';
import { codeCachePath, decodeCodeCache, encodeCodeCache, loadWithCodeCache } from '../../src/util/code-cache.js';
import { makeProject } from '../support/project.js';

const REPO = join(import.meta.dirname, '..', '..');

describe('code cache file format', () => {
  const payload = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 31) & 0xff));

  it('round-trips', () => {
    expect(decodeCodeCache(encodeCodeCache(payload))?.equals(payload)).toBe(true);
  });

  it('rejects a flipped bit anywhere, a cut-short file, an empty or foreign file', () => {
    const file = encodeCodeCache(payload);
    for (const at of [0, 5, 8, 100, 8 + 4095, 8 + 4096, file.length - 1]) {
      const damaged = Buffer.from(file);
      damaged[at]! ^= 0x04;
      expect(decodeCodeCache(damaged), `bit flipped at ${at}`).toBeUndefined();
    }
    expect(decodeCodeCache(file.subarray(0, file.length - 1))).toBeUndefined();
    expect(decodeCodeCache(file.subarray(0, 8 + 4096))).toBeUndefined();
    expect(decodeCodeCache(Buffer.alloc(0))).toBeUndefined();
    expect(decodeCodeCache(payload)).toBeUndefined(); // a raw V8 cache (the old format)
  });
});

describe('a damaged code cache next to the built CLI', () => {
  // A private copy of dist/ (inside the repository, so its require() calls find node_modules): tests in
  // parallel use the real dist/ and its cache.
  mkdirSync(join(REPO, 'node_modules', '.cache'), { recursive: true });
  const dir = mkdtempSync(join(REPO, 'node_modules', '.cache', 'code-cache-test-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const dist = join(dir, 'dist');
  cpSync(join(REPO, 'dist'), dist, {
    recursive: true,
    filter: (src) => !src.endsWith('.v8cache') && !src.endsWith('.map'),
  });
  const cache = codeCachePath(join(dist, 'hook.cjs'));

  const check = (p: ReturnType<typeof makeProject>, env: NodeJS.ProcessEnv = {}) => {
    const r = spawnSync(process.execPath, [join(dist, 'hookwise.cjs'), 'check', '--host', 'claude'], {
      input: JSON.stringify(p.pre('Bash', { command: 'git push --force origin main' })),
      env: { ...p.env, HOOKWISE_DAEMON: 'off', ...env },
      encoding: 'utf8',
    });
    return { status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
  };

  it('is never run: the call is decided from source and the cache is written whole again', () => {
    const p = makeProject();
    p.register('s1', 'coder');
    const first = check(p);
    expect(first).toMatchObject({ status: 0, stderr: '' });
    expect(first.stdout).toMatch(/"permissionDecision":"deny"/);
    const good = readFileSync(cache);
    expect(decodeCodeCache(good)).toBeDefined();

    // Damage spread over the payload's first copy: what a bad sector or a stray write does.
    const damaged = Buffer.from(good);
    for (let at = 64; at < damaged.length / 2; at += 997) damaged[at]! ^= 0xff;
    writeFileSync(cache, damaged);
    const second = check(p);
    expect(second).toMatchObject({ status: 0, signal: null, stderr: '' });
    expect(second.stdout).toBe(first.stdout);
    expect(decodeCodeCache(readFileSync(cache))).toBeDefined(); // healed

    // A cache others may write is not used either (and is replaced).
    writeFileSync(cache, damaged);
    chmodSync(cache, 0o666);
    expect(check(p)).toMatchObject({ status: 0, signal: null, stdout: first.stdout });
  });

  it('is rewritten after a run only when missing, rejected, or refreshed (the build warms it that way)', () => {
    const p = makeProject();
    p.register('s1', 'coder');
    check(p);
    // A rewrite is a rename over the file: a new inode.
    const inode = statSync(cache).ino;
    expect(check(p).stdout).toMatch(/"permissionDecision":"deny"/);
    expect(statSync(cache).ino).toBe(inode);
    const refreshed = check(p, { HOOKWISE_CODE_CACHE: 'refresh' });
    expect(refreshed).toMatchObject({ status: 0, stderr: '' });
    expect(statSync(cache).ino).not.toBe(inode);
    expect(decodeCodeCache(readFileSync(cache))).toBeDefined();
    expect(check(p).stdout).toBe(refreshed.stdout);
  });
});

describe('loading a bundle', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookwise-code-cache-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // Built bundles are pure ASCII and decode as Latin-1; any other text must still read as UTF-8.
  it.each([
    ['pure ASCII', 'plain text'],
    ['not ASCII', 'caf\u00e9 \u2192 \u{1f512}'],
  ])('runs a %s bundle with its text intact, from source and then from the cache it wrote', (_kind, text) => {
    const bundle = join(dir, `${text.length}.cjs`);
    writeFileSync(bundle, `module.exports = { text: ${JSON.stringify(text)}, literal: '${text}' };\n`, 'utf8');
    const load = () => loadWithCodeCache(bundle, createRequire(bundle), { writeCache: false });
    expect(load()).toEqual({ text, literal: text });
    writeFileSync(
      codeCachePath(bundle),
      encodeCodeCache(
        new Script(
          `(function (exports, require, module, __filename, __dirname) {${readFileSync(bundle, 'utf8')}\n})`,
        ).createCachedData(),
      ),
    );
    expect(load()).toEqual({ text, literal: text });
  });
});
