/** Read all of stdin synchronously, refusing more than `limit` bytes. */
import { fstatSync, readSync, statSync } from 'node:fs';
import { HookwiseError } from '../core/errors.js';
import { sleepSync } from '../util/fs-safe.js';

/**
 * What the launcher's thin client (cli/thin-client.ts) learnt before it handed over to the full CLI: the
 * payload it already read from stdin (which cannot be read twice) and what became of asking the daemon.
 * A global slot, because the launcher and the hook bundle are separate bundles with their own modules.
 */
export interface Handover {
  payload?: string;
  error?: unknown;
  daemon: 'absent' | 'unusable';
}

const HANDOVER = Symbol.for('hookwise.handover');
type Slot = { [HANDOVER]?: Handover };

export function handOver(h: Handover): void {
  (globalThis as Slot)[HANDOVER] = h;
}

/** The launcher's handover, if any (left in place: the hook command and the daemon client both read it). */
export function handover(): Handover | undefined {
  return (globalThis as Slot)[HANDOVER];
}

export function readStdin(limit: number): string {
  const h = handover();
  if (h !== undefined && (h.payload !== undefined || h.error !== undefined)) {
    if (h.error !== undefined) throw h.error;
    return h.payload!;
  }
  const chunks: Buffer[] = [];
  let total = 0;
  const buffer = Buffer.allocUnsafe(64 * 1024);
  for (;;) {
    let n: number;
    try {
      n = readSync(0, buffer, 0, buffer.length, null);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN') {
        sleepSync(2); // non-blocking pipe with no data yet
        continue;
      }
      if (code === 'EOF') break;
      throw error;
    }
    if (n === 0) break;
    total += n;
    if (total > limit) {
      throw new HookwiseError(
        'INPUT_TOO_LARGE',
        `hook payload on stdin is larger than ${limit} bytes; refusing to judge a call hookwise cannot read whole`,
      );
    }
    chunks.push(Buffer.from(buffer.subarray(0, n)));
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A terminal on stdin means a person ran `hookwise check` by hand. Not node:tty's isatty nor
 * process.stdin.isTTY: either loads the tty/net/stream modules, ~5 ms on every hook call. A character
 * device other than /dev/null is a terminal for our purposes.
 */
export function stdinIsTerminal(): boolean {
  const stdin = fstatSync(0);
  return stdin.isCharacterDevice() && stdin.rdev !== statSync('/dev/null').rdev;
}
