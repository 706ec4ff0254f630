/** Read all of stdin synchronously, refusing more than `limit` bytes. */
import { readSync } from 'node:fs';
import { HookwiseError } from '../core/errors.js';
import { sleepSync } from '../util/fs-safe.js';

export function readStdin(limit: number): string {
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
      throw new HookwiseError('INPUT_TOO_LARGE', `hook payload on stdin is larger than ${limit} bytes; refusing to judge a call hookwise cannot read whole`);
    }
    chunks.push(Buffer.from(buffer.subarray(0, n)));
  }
  return Buffer.concat(chunks).toString('utf8');
}
