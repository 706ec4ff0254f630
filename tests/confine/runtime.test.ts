/** The confinement runtime is probed once per machine state and cached privately; a bad cache is never trusted. */
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ProbeReport } from '../../src/confine/probe.js';
import { confineRuntime, resetConfineRuntime } from '../../src/confine/runtime.js';

const dirs: string[] = [];
afterEach(() => {
  resetConfineRuntime();
  while (dirs.length > 0) rmSync(dirs.pop()!, { recursive: true, force: true });
});
function runtimeDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hookwise-rt-'));
  dirs.push(dir);
  return dir;
}

const available = (dir: string): ProbeReport => ({
  available: true,
  runtime: {
    bwrap: '/usr/bin/bwrap',
    shell: '/bin/bash',
    lockFile: join(dir, 'confine.lock'),
    arch: 'x64',
    userns: true,
  },
  bwrapVersion: 'test',
  confirmed: [],
  warnings: [],
  ms: 1,
});
const missing = (): ProbeReport => ({
  available: false,
  failure: 'bwrap-missing',
  reason: 'bubblewrap (bwrap) is not installed',
  fix: 'install bubblewrap',
  ms: 1,
});

describe('confineRuntime', () => {
  it('probes once, then answers from memory and, in a new process, from the private cache file', () => {
    const dir = runtimeDir();
    let probes = 0;
    const probe = (d: string): ProbeReport => (probes++, available(d));
    expect(confineRuntime(dir, probe).available).toBe(true);
    expect(confineRuntime(dir, probe).available).toBe(true);
    expect(probes).toBe(1);
    resetConfineRuntime(); // a new process
    expect(confineRuntime(dir, probe).available).toBe(true);
    expect(probes).toBe(1);
    expect(statSync(join(dir, 'cache', 'confine.json')).mode & 0o777).toBe(0o600);
  });

  it('keeps "not available" with its reason, so a machine without bubblewrap asks at once', () => {
    const dir = runtimeDir();
    const verdict = confineRuntime(dir, missing);
    expect(verdict).toEqual({ available: false, reason: 'bubblewrap (bwrap) is not installed (install bubblewrap)' });
  });

  it("probes again when the cache is corrupt, stamped for another machine state, or not the user's private file", () => {
    const dir = runtimeDir();
    let probes = 0;
    const probe = (d: string): ProbeReport => (probes++, available(d));
    confineRuntime(dir, probe);
    const file = join(dir, 'cache', 'confine.json');
    for (const bad of [
      '{ not json',
      JSON.stringify({ stamp: 'another kernel', verdict: { available: false, reason: 'x' } }),
      JSON.stringify({
        stamp: JSON.parse(readFileSync(file, 'utf8')).stamp,
        verdict: { available: true, runtime: { bwrap: 1 } },
      }),
    ]) {
      resetConfineRuntime();
      writeFileSync(file, bad, { mode: 0o600 });
      expect(confineRuntime(dir, probe).available).toBe(true);
    }
    // A valid cache that others may write is not trusted either.
    resetConfineRuntime();
    const good = JSON.stringify({
      stamp: JSON.parse(readFileSync(file, 'utf8')).stamp as string,
      verdict: { available: false, reason: 'planted' },
    });
    writeFileSync(file, good);
    chmodSync(file, 0o666);
    expect(confineRuntime(dir, probe).available).toBe(true);
    expect(probes).toBe(5);
  });
});
