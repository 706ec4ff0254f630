/**
 * The unsent tail of an append-only JSONL log that rotates by renaming (audit/log.ts: `audit.jsonl` →
 * `audit.1.jsonl` → …): the outbox of what a daemon sends to the team's store. Where sending got to is a
 * position — the inode of the file and a byte offset in it — which a rename keeps, so a rotation between two
 * pushes loses nothing: the old file is finished under its new name, then the newer ones from their start.
 * Each line comes with its own position, which names it in the store (a replay inserts nothing).
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { isAbsent, statIfPresent } from '../util/fs-safe.js';

export interface TailPosition {
  ino: number;
  offset: number;
}

export interface TailChunk {
  /** The complete lines of the chunk, each with where it starts. */
  lines: { ino: number; offset: number; text: string }[];
  /** Where sending stands once this chunk is in the store. */
  next: TailPosition;
}

/** A chunk's bytes at most: bounds the memory one push takes. */
const READ_CHUNK = 1024 * 1024;

/**
 * The chunks past `at`, oldest first, in `generations` (oldest file first; absent ones skipped). Where the
 * file `at` names is gone (rotated out) or there is no position yet, everything present is the tail.
 */
export function* unsentChunks(generations: readonly string[], at: TailPosition | undefined): Generator<TailChunk> {
  const files = generations.flatMap((path) => {
    const st = statIfPresent(path);
    return st === undefined ? [] : [{ path, ino: st.ino, size: st.size }];
  });
  let from = at === undefined ? -1 : files.findIndex((f) => f.ino === at.ino);
  let offset = 0;
  if (from >= 0)
    offset = at!.offset <= files[from]!.size ? at!.offset : 0; // shrunk (truncated): from its start
  else from = 0;
  for (let i = from; i < files.length; i++, offset = 0) {
    const file = files[i]!;
    while (offset < file.size) {
      const chunk = readFrom(file.path, offset, Math.min(READ_CHUNK, file.size - offset));
      if (chunk.length === 0) break; // gone or shrunk since the stat
      const end = chunk.lastIndexOf(0x0a);
      if (end < 0) {
        // A line still being written in the live file: next time. In a rotated file (or past a chunk's length,
        // which no writer of ours makes) it is a torn line that never ends: past it.
        if (chunk.length < READ_CHUNK && i === files.length - 1) return;
        offset += chunk.length;
        continue;
      }
      const lines: TailChunk['lines'] = [];
      let start = 0;
      while (start <= end) {
        const nl = chunk.indexOf(0x0a, start);
        const text = chunk.subarray(start, nl).toString('utf8');
        if (text.trim() !== '') lines.push({ ino: file.ino, offset: offset + start, text });
        start = nl + 1;
      }
      offset += end + 1;
      yield { lines, next: { ino: file.ino, offset } };
    }
    // Past a file's end, sending stands at the start of the next one (nothing of it sent yet).
    if (i + 1 < files.length) yield { lines: [], next: { ino: files[i + 1]!.ino, offset: 0 } };
  }
}

/** Bytes past `at` in the generations: what the outbox still holds. */
export function unsentBytes(generations: readonly string[], at: TailPosition | undefined): number {
  let n = 0;
  let found = at === undefined;
  const sizes = generations.flatMap((path) => {
    const st = statIfPresent(path);
    return st === undefined ? [] : [st];
  });
  if (!found && !sizes.some((st) => st.ino === at!.ino)) found = true;
  for (const st of sizes) {
    if (!found) {
      if (st.ino !== at!.ino) continue;
      found = true;
      n += at!.offset <= st.size ? st.size - at!.offset : st.size;
      continue;
    }
    n += st.size;
  }
  return n;
}

function readFrom(file: string, offset: number, length: number): Buffer {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    if (isAbsent(error)) return Buffer.alloc(0);
    throw error;
  }
  try {
    const buf = Buffer.alloc(length);
    const n = readSync(fd, buf, 0, length, offset);
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}
