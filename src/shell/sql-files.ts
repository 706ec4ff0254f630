/**
 * The SQL files a command's database clients read (`psql -f F`, `mysql < F`, `cat F | sqlite3 db`, and the
 * files `\i F` / `.read F` include), read here at the edge so that the database pack can judge their
 * statements without I/O (src/sql/files.ts). Only a regular file inside the project, reached without a
 * symbolic link as its last step, of at most MAX_SQL_FILE_BYTES, is read; anything else is recorded with
 * why, and the pack asks. The text is sanitized before it leaves this module. The work is bounded by counts
 * (files, include depth, bytes), never by time.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync } from 'node:fs';
import { posix } from 'node:path';
import { resolvePath, type PathContext } from '../paths/canonical.js';
import { sqlClientInputs } from '../policy/packs/database.js';
import { sanitize } from '../sanitize/index.js';
import {
  includesOf,
  MAX_INCLUDE_DEPTH,
  MAX_SQL_FILE_BYTES,
  MAX_SQL_FILES,
  sqlFileKey,
  type SqlFile,
} from '../sql/files.js';
import { hasFreshTempMarker } from './fresh-temp.js';
import { remotePlace } from './remote.js';
import type { ReadTarget } from './effects.js';
import type { Segment } from './types.js';

export interface SqlFilesRead {
  /** By sqlFileKey: what the pack looks up. */
  files: Map<string, SqlFile>;
  /** Each file a client reads, as a read the sensitive-read rules judge (absolute where it was resolved). */
  reads: ReadTarget[];
}

interface Pending {
  key: string;
  word: string;
  /** The directory a relative name is taken from; undefined when it is only known at run time. */
  base: string | undefined;
  depth: number;
  /** The segment whose process opens the file (the client, or the command feeding its stdin). */
  openedBy: Segment;
}

const RUN_TIME = /[$`]/;

/** A file the command writes (canonical), and the segment that writes it. */
export interface WrittenFile {
  segment: number;
  absolute: string;
}

/**
 * The SQL files of every database client segment; undefined when the command has none. A file the command
 * itself writes first (`echo … > q.sql && psql -f q.sql`) is not read: what is there now is not what runs.
 */
export function readSqlFiles(
  segments: readonly Segment[],
  ctx: PathContext,
  written: readonly WrittenFile[] = [],
): SqlFilesRead | undefined {
  const files = new Map<string, SqlFile>();
  const reads: ReadTarget[] = [];
  let count = 0;
  segments.forEach((segment, index) => {
    const inputs = sqlClientInputs(segments, index);
    if (inputs === undefined) return;
    const base = segmentDirectory(segment, ctx);
    const pending: Pending[] = inputs.files.map(({ word, openedBy }) => ({
      key: sqlFileKey(index, word),
      word,
      // `cd sub && docker exec -i db psql < q.sql`: the shell opens q.sql in sub, where the docker client runs.
      base: openedBy === segment ? base : segmentDirectory(openedBy, ctx),
      depth: 0,
      openedBy,
    }));
    // Includes are opened by the client, wherever the file that names them came from.
    for (const text of inputs.texts)
      for (const include of includesOf(text, inputs.dialect))
        pending.push({ key: sqlFileKey(index, include.word), word: include.word, base, depth: 1, openedBy: segment });
    const via = segment.name;
    while (pending.length > 0) {
      const next = pending.shift()!;
      if (files.has(next.key)) continue;
      const shown = sanitize(next.word).text;
      if (++count > MAX_SQL_FILES) {
        files.set(next.key, { shown, problem: `the command reads more than ${MAX_SQL_FILES} SQL files` });
        continue;
      }
      // `ssh host psql -f F`, `docker exec db psql -f F`: F is over there; a file of that name here says nothing.
      const elsewhere = elsewhereProblem(next.openedBy);
      if (elsewhere !== undefined) {
        files.set(next.key, { shown, problem: elsewhere });
        continue;
      }
      const path = lexicalPath(next.word, next.base, ctx.home);
      if (path !== undefined) reads.push({ segment: index, path, via, recursive: false });
      const read =
        path === undefined
          ? runTimeProblem(next.word, next.base)
          : readSqlFile(path, ctx, (absolute) => written.some((w) => w.segment <= index && w.absolute === absolute));
      files.set(next.key, 'text' in read ? { shown, text: read.text } : { shown, problem: read.problem });
      if (!('text' in read) || next.depth >= MAX_INCLUDE_DEPTH) continue;
      for (const include of includesOf(read.text, inputs.dialect)) {
        pending.push(
          include.relative
            ? {
                key: sqlFileKey(index, include.word, next.key),
                word: include.word,
                base: posix.dirname(path!),
                depth: next.depth + 1,
                openedBy: segment,
              }
            : {
                key: sqlFileKey(index, include.word),
                word: include.word,
                base,
                depth: next.depth + 1,
                openedBy: segment,
              },
        );
      }
    }
  });
  return count === 0 ? undefined : { files, reads };
}

/** Why a file that segment opens cannot be read here, when it runs elsewhere. */
function elsewhereProblem(segment: Segment): string | undefined {
  const place = remotePlace(segment);
  if (place === undefined) return undefined;
  if (place.kind === 'ssh') return 'it is read on another machine (through ssh), not this one';
  return `it is read inside the container ${sanitize(place.name).text} (${place.via}), not on this machine: hookwise cannot read it`;
}

/** The directory the segment runs in, absolute; undefined when only known at run time (`cd $DIR`). */
function segmentDirectory(segment: Segment, ctx: PathContext): string | undefined {
  if (segment.flags.cwdUnknown === true) return undefined;
  if (segment.cwd === undefined) return ctx.cwd;
  const cwd = expandHome(segment.cwd, ctx.home);
  return RUN_TIME.test(cwd) || hasFreshTempMarker(cwd) ? undefined : posix.resolve(ctx.cwd, cwd);
}

function expandHome(word: string, home: string): string {
  return word === '~' || word.startsWith('~/') ? home + word.slice(1) : word;
}

/** The file's absolute path as written (no link followed yet); undefined when it is only known at run time. */
function lexicalPath(word: string, base: string | undefined, home: string): string | undefined {
  if (RUN_TIME.test(word) || hasFreshTempMarker(word)) return undefined;
  const expanded = expandHome(word, home);
  if (posix.isAbsolute(expanded)) return posix.normalize(expanded);
  return base === undefined ? undefined : posix.resolve(base, expanded);
}

function runTimeProblem(word: string, base: string | undefined): { problem: string } {
  return RUN_TIME.test(word) || hasFreshTempMarker(word) || base !== undefined
    ? { problem: 'its name is only known when the command runs' }
    : { problem: 'the directory it is read from is only known when the command runs' };
}

function readSqlFile(
  path: string,
  ctx: PathContext,
  writtenFirst: (absolute: string) => boolean,
): { text: string } | { problem: string } {
  const resolved = resolvePath(path, ctx);
  if (resolved.unknown !== undefined) return { problem: `hookwise cannot tell where it leads (${resolved.unknown})` };
  if (resolved.relative === null) return { problem: 'it is outside the project' };
  if (writtenFirst(resolved.absolute)) return { problem: 'the command writes it before it is read' };
  let fd: number;
  try {
    const link = lstatSync(path, { throwIfNoEntry: false });
    if (link === undefined) return { problem: 'it does not exist' };
    if (link.isSymbolicLink()) return { problem: 'it is a symbolic link' };
    if (!link.isFile()) return { problem: 'it is not a regular file' };
    // Opened where it resolved, without following a link put there since (O_NOFOLLOW), nor waiting on a FIFO.
    fd = openSync(resolved.absolute, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    return { problem: `it cannot be read (${(error as NodeJS.ErrnoException).code ?? 'an unexpected error'})` };
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { problem: 'it is not a regular file' };
    if (stat.size > MAX_SQL_FILE_BYTES)
      return { problem: `it is ${stat.size} bytes, more than the ${MAX_SQL_FILE_BYTES} hookwise reads` };
    // One byte more than the limit: a file that grew since the fstat is caught, not cut.
    const buffer = Buffer.alloc(MAX_SQL_FILE_BYTES + 1);
    let n = 0;
    for (;;) {
      const got = readSync(fd, buffer, n, buffer.length - n, n);
      if (got === 0) break;
      n += got;
      if (n === buffer.length) return { problem: `it is more than the ${MAX_SQL_FILE_BYTES} bytes hookwise reads` };
    }
    const text = buffer.toString('utf8', 0, n);
    if (text.includes('\u0000')) return { problem: 'it is not text' };
    return { text: sanitize(text).text };
  } catch (error) {
    return { problem: `it cannot be read (${(error as NodeJS.ErrnoException).code ?? 'an unexpected error'})` };
  } finally {
    closeSync(fd);
  }
}
