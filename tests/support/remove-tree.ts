/**
 * Removing a test's temp tree when hookwise processes it started may still be alive.
 *
 * A hook call can start a daemon (detached) in the tree's runtime dir, and a confined run can leave a
 * child behind; either may write its last lines while the tree is being removed (ENOTEMPTY). So: kill
 * every process of ours whose command line or environment names the tree, then remove it, again until
 * it is gone. A tree that still cannot be removed is reported, not thrown: the test's assertions ran.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';

const RETRYABLE = new Set(['ENOTEMPTY', 'EBUSY', 'EPERM', 'EMFILE', 'ENFILE']);

/** Pids (not this process) whose cmdline or environ mentions `base`; Linux /proc only, else none. */
function processesNaming(base: string): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid || pid === process.ppid) continue;
    for (const file of ['cmdline', 'environ']) {
      try {
        if (readFileSync(`/proc/${entry}/${file}`, 'latin1').includes(base)) {
          found.push(pid);
          break;
        }
      } catch {
        // gone, or not ours to read
      }
    }
  }
  return found;
}

function killAll(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

export function removeTestTree(base: string, attempts = 30): void {
  for (let attempt = 1; ; attempt++) {
    killAll(processesNaming(base));
    try {
      rmSync(base, { recursive: true, force: true });
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? '';
      if (!RETRYABLE.has(code) || attempt >= attempts) {
        process.stderr.write(`test cleanup: could not remove ${base} (${code || String(error)})\n`);
        return;
      }
      pause(100);
    }
  }
}
