/**
 * The machine's confinement runtime for decision time: the probe (probe.ts) runs bubblewrap once, 0.1–0.25 s,
 * which no hook call should pay. Its verdict is kept in the private runtime directory (`cache/confine.json`,
 * 0600, owner-checked like every cache) with what it depends on — the bwrap binary (path, size, mtime, inode),
 * the kernel release, hookwise's version — and is probed again when one of them changes. A daemon keeps it in
 * memory. "Not available" is cached too (with its reason), so a machine without bubblewrap asks at once.
 *
 * Trusting the cache cannot open the walls: the wrapped command itself fails to start when bubblewrap cannot
 * build them, and a failed start runs nothing.
 */
import { statSync } from 'node:fs';
import { release } from 'node:os';
import { join } from 'node:path';
import { VERSION } from '../core/version.js';
import { ensurePrivateDir, readOwnedFile, writeFileAtomic } from '../util/fs-safe.js';
import { probeConfinement, which, type ProbeReport } from './probe.js';
import type { ConfineRuntime } from './wrap.js';

export type RuntimeVerdict = { available: true; runtime: ConfineRuntime } | { available: false; reason: string };

interface CacheFile {
  stamp: string;
  verdict: RuntimeVerdict;
}

const memo = new Map<string, RuntimeVerdict>();

/** What the verdict depends on; a different stamp means probe again. */
function stampOf(bwrap: string | undefined): string {
  let binary = 'none';
  if (bwrap !== undefined) {
    try {
      const st = statSync(bwrap);
      binary = `${bwrap}:${st.size}:${st.mtimeMs}:${st.ino}`;
    } catch {
      binary = `${bwrap}:gone`;
    }
  }
  return [VERSION, release(), process.arch, binary].join('|');
}

/** Confinement on this machine, probed at most once per stamp (per process, then per runtime directory). */
export function confineRuntime(
  runtimeDir: string,
  probe: (runtimeDir: string) => ProbeReport = (dir) => probeConfinement({ runtimeDir: dir }),
): RuntimeVerdict {
  // The bwrap the probe uses (the stamp must follow the same binary).
  const stamp = stampOf(which('bwrap', process.env));
  const key = `${runtimeDir}\0${stamp}`;
  const known = memo.get(key);
  if (known !== undefined) return known;
  const file = join(runtimeDir, 'cache', 'confine.json');
  const cached = readCache(file, stamp);
  if (cached !== undefined) {
    memo.set(key, cached);
    return cached;
  }
  const report = probe(runtimeDir);
  const verdict: RuntimeVerdict = report.available
    ? { available: true, runtime: report.runtime }
    : { available: false, reason: `${report.reason} (${report.fix})` };
  memo.set(key, verdict);
  try {
    ensurePrivateDir(join(runtimeDir, 'cache'));
    writeFileAtomic(file, JSON.stringify({ stamp, verdict } satisfies CacheFile), { mode: 0o600 });
  } catch {
    // A cache that cannot be written costs the next process a probe, nothing else.
  }
  return verdict;
}

function readCache(file: string, stamp: string): RuntimeVerdict | undefined {
  try {
    const raw = readOwnedFile(file, 'confinement cache');
    if (raw === undefined) return undefined;
    const parsed = JSON.parse(raw.toString('utf8')) as Partial<CacheFile>;
    if (parsed.stamp !== stamp || typeof parsed.verdict !== 'object' || parsed.verdict === null) return undefined;
    const v = parsed.verdict as Partial<{ available: boolean; runtime: Partial<ConfineRuntime>; reason: string }>;
    if (v.available === false && typeof v.reason === 'string') return { available: false, reason: v.reason };
    const r = v.runtime;
    if (
      v.available !== true ||
      r === undefined ||
      typeof r.bwrap !== 'string' ||
      typeof r.shell !== 'string' ||
      typeof r.lockFile !== 'string' ||
      typeof r.userns !== 'boolean' ||
      (r.arch !== 'x64' && r.arch !== 'arm64')
    )
      return undefined;
    return { available: true, runtime: r as ConfineRuntime };
  } catch {
    return undefined; // unreadable, foreign or corrupt: probe again
  }
}

/** For tests: forget what this process probed. */
export function resetConfineRuntime(): void {
  memo.clear();
}
