/** The executable's V8 code cache is an optimization only: a missing, stale or corrupt cache never changes a decision. */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeProject, type TestProject } from '../support/project.js';

const DIST = join(import.meta.dirname, '..', '..', 'dist');
const CACHE = `hook.${process.version}.${process.arch}.v8cache`;

function copyDist(to: string): void {
  mkdirSync(to, { recursive: true });
  for (const f of readdirSync(DIST).filter((f) => f.endsWith('.cjs'))) copyFileSync(join(DIST, f), join(to, f));
}

describe('launcher code cache', () => {
  it('a corrupt cache is rejected by V8, the decision is unchanged, and the cache is rewritten', () => {
    const p = makeProject();
    p.register('s1', 'coder');
    const dist = join(p.home, 'dist');
    copyDist(dist);
    writeFileSync(join(dist, CACHE), Buffer.from('not a v8 code cache at all'.repeat(100)));
    const payload = JSON.stringify(p.pre('Write', { file_path: join(p.root, 'tests/a.ts'), content: '' }));
    const r = spawnSync(process.execPath, [join(dist, 'hookwise.cjs'), 'check'], {
      input: payload,
      env: p.env,
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
    expect(readFileSync(join(dist, CACHE)).toString()).not.toMatch(/not a v8 code cache/);
    // …and the rewritten cache is accepted and gives the same answer.
    const again = spawnSync(process.execPath, [join(dist, 'hookwise.cjs'), 'check'], {
      input: payload,
      env: p.env,
      encoding: 'utf8',
    });
    expect(again.stdout).toBe(r.stdout);
  });

  it('a corrupt parser-bundle cache does not change a Bash decision', () => {
    const p = makeProject();
    p.register('s1', 'coder');
    // Inside the repository, so the copied bundles still resolve tree-sitter from its node_modules.
    const cache = join(import.meta.dirname, '..', '..', 'node_modules', '.cache');
    mkdirSync(cache, { recursive: true });
    const dist = mkdtempSync(join(cache, 'hookwise-launcher-'));
    copyDist(dist);
    const shellCache = `shell.${process.version}.${process.arch}.v8cache`;
    writeFileSync(join(dist, shellCache), Buffer.from('garbage'.repeat(500)));
    const payload = JSON.stringify(p.pre('Bash', { command: 'git status && echo x > tests/a.ts' }));
    const r = spawnSync(process.execPath, [join(dist, 'hookwise.cjs'), 'check'], {
      input: payload,
      env: p.env,
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
    expect(readFileSync(join(dist, shellCache)).toString()).not.toMatch(/garbage/);
    rmSync(dist, { recursive: true, force: true });
  });

  it('works from a read-only install directory (no cache written)', () => {
    const p = makeProject();
    p.register('s1', 'coder');
    const dist = join(p.home, 'ro-dist');
    copyDist(dist);
    chmodSync(dist, 0o555);
    try {
      const payload = JSON.stringify(p.pre('Write', { file_path: join(p.root, 'src/a.ts'), content: '' }));
      const r = spawnSync(process.execPath, [join(dist, 'hookwise.cjs'), 'check'], {
        input: payload,
        env: p.env,
        encoding: 'utf8',
      });
      expect(r.status, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).hookSpecificOutput.permissionDecision).toBe('allow');
      // root ignores directory permissions; only assert the no-cache case where it applies
      if (process.getuid?.() !== 0) expect(existsSync(join(dist, CACHE))).toBe(false);
    } finally {
      chmodSync(dist, 0o755);
    }
  });
});

describe('what a decision loads', () => {
  // Node's stream, net and crypto modules cost milliseconds each to load; an ordinary call needs none of them.
  const HEAVY = ['net', 'stream', 'crypto', 'http'];

  it.each([
    ['Write', (p: TestProject) => ({ file_path: join(p.root, 'src/a.ts'), content: 'export {};\n' })],
    ['Bash', () => ({ command: 'git status --short && rg -n TODO src' })],
  ])('a %s decision loads none of them', (tool, input) => {
    const p = makeProject();
    p.register('s1', 'coder');
    const probe = p.write('probe.cjs', PROBE);
    const out = join(p.home, 'loaded.json');
    const r = spawnSync(process.execPath, ['--require', probe, join(DIST, 'hookwise.cjs'), 'check'], {
      input: JSON.stringify(p.pre(tool, input(p))),
      env: { ...p.env, HOOKWISE_DAEMON: 'off', PROBE_OUT: out },
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).hookSpecificOutput.permissionDecision).toBe('allow');
    const loaded = JSON.parse(readFileSync(out, 'utf8')) as string[];
    expect(loaded).toContain('NativeModule fs'); // the probe saw the process's modules
    expect(loaded.filter((m) => HEAVY.some((h) => m === `NativeModule ${h}`))).toEqual([]);
  });
});

describe('native addons of a Bash decision', () => {
  // The files the build found are loaded by path (src/util/native-addons.ts): no node-gyp-build, no package.json
  // read, no node_modules walk; elsewhere (a copy of dist/ without node_modules beside it) the packages' own
  // loaders find them and the decision is the same.
  const decide = (dist: string) => {
    const p = makeProject();
    p.register('s1', 'coder');
    const probe = p.write('probe.cjs', REQUIRE_CACHE_PROBE);
    const out = join(p.home, 'required.json');
    const r = spawnSync(process.execPath, ['--require', probe, join(dist, 'hookwise.cjs'), 'check'], {
      input: JSON.stringify(p.pre('Bash', { command: 'git status --short && echo x > src/a.ts' })),
      env: { ...p.env, HOOKWISE_DAEMON: 'off', PROBE_OUT: out },
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    const required = (JSON.parse(readFileSync(out, 'utf8')) as string[]).map((f) => f.split('\\').join('/'));
    return { decision: JSON.parse(r.stdout).hookSpecificOutput.permissionDecision as string, required };
  };
  const nodeGypBuild = (f: string) => f.includes('/node-gyp-build/');
  const packageCode = (f: string) =>
    /\/node_modules\/(tree-sitter|tree-sitter-bash|@node-rs\/[^/]+)\/[^/]+\.(js|json)$/.test(f);

  it('the built dist/ loads each addon from its file', () => {
    const { decision, required } = decide(DIST);
    expect(decision).toBe('allow');
    // tree-sitter, its Bash grammar and xxhash by the build's paths; re2 (a pack's pattern) through its package.
    const addons = required.filter((f) => f.endsWith('.node'));
    expect(addons.filter((f) => !f.includes('/node_modules/re2/'))).toHaveLength(3);
    expect(required.filter((f) => nodeGypBuild(f) || packageCode(f))).toEqual([]);
  });

  it("a dist/ elsewhere falls back to the packages' loaders with the same decision", () => {
    // Inside the repository, so node_modules is still found above it, but not where the build found it.
    const cache = join(import.meta.dirname, '..', '..', 'node_modules', '.cache');
    mkdirSync(cache, { recursive: true });
    const dist = mkdtempSync(join(cache, 'hookwise-native-'));
    try {
      cpSync(DIST, dist, { recursive: true }); // the catalogue's data too
      const { decision, required } = decide(dist);
      expect(decision).toBe('allow');
      expect(required.some(nodeGypBuild)).toBe(true);
    } finally {
      rmSync(dist, { recursive: true, force: true });
    }
  });
});

describe('the bundles', () => {
  // tree-sitter's JavaScript patches the one native binding and keeps the buffers it writes nodes into: two
  // copies in a process (the CLI parses with its own code and loads shell.cjs too) garble each other's trees.
  it("hold tree-sitter's JavaScript once, in tree-sitter.cjs, which the others require", () => {
    const bundles = readdirSync(DIST).filter((f) => f.endsWith('.cjs'));
    const holding = bundles.filter((f) =>
      readFileSync(join(DIST, f), 'utf8').includes('initializeLanguageNodeClasses'),
    );
    expect(holding).toEqual(['tree-sitter.cjs']);
    for (const f of ['shell.cjs', 'cli.cjs'])
      expect(readFileSync(join(DIST, f), 'utf8')).toContain('require("./tree-sitter.cjs")');
  });

  // One non-ASCII character makes a source a two-byte string, decoded on Node's slow UTF-8 path at every start.
  it.each(['hookwise.cjs', 'hook.cjs', 'shell.cjs'])('%s is pure ASCII', (file) => {
    const bytes = readFileSync(join(DIST, file));
    expect(bytes.findIndex((b) => b > 0x7f)).toBe(-1);
  });
});

/** Writes Node's list of loaded built-in modules to $PROBE_OUT when the process exits. */
const PROBE = `process.on('exit', () => require('fs').writeFileSync(process.env.PROBE_OUT, JSON.stringify(process.moduleLoadList)));\n`;

/** Writes the files in require's cache (every module and addon loaded by path) to $PROBE_OUT at exit. */
const REQUIRE_CACHE_PROBE = `process.on('exit', () => require('fs').writeFileSync(process.env.PROBE_OUT, JSON.stringify(Object.keys(require.cache))));\n`;

describe('a crashing hook process', () => {
  // Hosts treat any exit status but 0 and 2 as a non-blocking error and run the tool: a crash must exit 2.
  it.each([
    ['throws while the bundle loads', 'throw new Error("boom at load");\n'],
    ['throws later, outside any promise', 'setTimeout(() => { throw new Error("boom in a callback"); }, 0);\n'],
  ])('blocks the call (exit 2, a message) when it %s', (_name, injected) => {
    const p = makeProject();
    p.register('s1', 'coder');
    const dist = join(p.home, 'crash-dist');
    copyDist(dist);
    const bundle = join(dist, 'hook.cjs');
    writeFileSync(bundle, injected + readFileSync(bundle, 'utf8'));
    const payload = JSON.stringify(p.pre('Write', { file_path: join(p.root, 'src/a.ts'), content: '' }));
    const r = spawnSync(process.execPath, [join(dist, 'hookwise.cjs'), 'check'], {
      input: payload,
      env: { ...p.env, HOOKWISE_DAEMON: 'off' },
      encoding: 'utf8',
    });
    // Exit 2 blocks whatever stdout holds: the hosts read the JSON decision only on exit 0.
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/hookwise: .*boom/);
  });
});
