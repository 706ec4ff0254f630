import { spawn } from 'node:child_process';
import { buildSync } from 'esbuild';
import { chmodSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSalt, saltPath, userSalt } from '../../src/util/salt.js';
import { makeProject } from '../support/project.js';

describe('the user salt', () => {
  it('is made once: 32 random bytes as hex, 0600, the same on every later use', () => {
    const p = makeProject();
    expect(readSalt(p.runtimeDir)).toBeUndefined();
    const salt = userSalt(p.runtimeDir);
    expect(salt).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(saltPath(p.runtimeDir)).mode & 0o777).toBe(0o600);
    expect(userSalt(p.runtimeDir)).toBe(salt);
    expect(userSalt(makeProject().runtimeDir)).not.toBe(salt);
  });

  it('one others may write, a link, or a damaged one is replaced, never used', () => {
    const p = makeProject();
    const salt = userSalt(p.runtimeDir);
    const path = saltPath(p.runtimeDir);
    chmodSync(path, 0o666);
    const second = userSalt(p.runtimeDir);
    expect(second).not.toBe(salt);
    writeFileSync(path, 'abc\n', { mode: 0o600 });
    expect(userSalt(p.runtimeDir)).toMatch(/^[0-9a-f]{64}$/);
    const elsewhere = join(p.home, 'known-salt');
    writeFileSync(elsewhere, `${'1'.repeat(64)}\n`, { mode: 0o600 });
    rmSync(path);
    symlinkSync(elsewhere, path);
    expect(userSalt(p.runtimeDir)).not.toBe('1'.repeat(64));
    expect(readFileSync(elsewhere, 'utf8')).toBe(`${'1'.repeat(64)}\n`);
  });

  it('processes making it at the same time agree on one', async () => {
    const p = makeProject();
    const bundle = join(p.home, 'salt.cjs');
    buildSync({
      entryPoints: [join(import.meta.dirname, '../../src/util/salt.ts')],
      bundle: true,
      format: 'cjs',
      platform: 'node',
      outfile: bundle,
      logLevel: 'silent',
    });
    const outs = await Promise.all(
      Array.from(
        { length: 12 },
        () =>
          new Promise<string>((resolve) => {
            const child = spawn(process.execPath, [
              '-e',
              `process.stdout.write(require(${JSON.stringify(bundle)}).userSalt(${JSON.stringify(p.runtimeDir)}))`,
            ]);
            let out = '';
            child.stdout.on('data', (d: Buffer) => (out += d.toString()));
            child.on('close', () => resolve(out));
          }),
      ),
    );
    expect(new Set(outs)).toEqual(new Set([readSalt(p.runtimeDir)]));
  });
});
