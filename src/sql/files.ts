/**
 * SQL that a database client reads from files: `psql -f F`, `psql < F`, `sqlite3 db < F`, `mysql < F`, and the
 * client commands that include a file from SQL text (`\i F`, `\ir F`, `\include F`, `\. F`, `.read F`). The
 * edge (shell/sql-files.ts) reads each file once, bounded; the classifier then judges its statements as if they
 * had been written on the command line. Both sides name a file by the same key (sqlFileKey), so the pure side
 * never touches the file system. Pure.
 */
import { MAX_SQL_BYTES, splitSql } from './split.js';

/** What the edge found at a file a client reads SQL from: its (sanitized) text, or why it was not read. */
export type SqlFile = { shown: string; text: string } | { shown: string; problem: string };

/** The files one shell call's database clients read, by sqlFileKey. */
export type SqlFiles = ReadonlyMap<string, SqlFile>;

/** Files read for one call at most (a file that includes others counts each). */
export const MAX_SQL_FILES = 16;
/** Includes followed inside included files at most this deep (`a.sql` → `\i b.sql` → …). */
export const MAX_INCLUDE_DEPTH = 4;
/** The largest SQL file read: the classifier judges no more than this in one text. */
export const MAX_SQL_FILE_BYTES = MAX_SQL_BYTES;

export interface SqlInclude {
  /** The file as written after the client command. */
  word: string;
  /** `\ir` / `\include_relative`: relative to the including file's directory, not the client's. */
  relative: boolean;
}

/**
 * A client command line that includes a file. The name must be one plain word: a backtick (psql runs it as a
 * shell command), a `:variable` (known only at run time) or sqlite3's `.read '|cmd'` (runs a program) are not
 * includes, and stay unknown to the classifier.
 */
export function includeOf(meta: string): SqlInclude | undefined {
  const m = /^(\\ir|\\include_relative|\\i|\\include|\\\.|\.read)\s+(\S+)\s*$/.exec(meta.trim());
  if (m === null) return undefined;
  let word = m[2]!;
  if (/^'[^']*'$|^"[^"]*"$/.test(word)) word = word.slice(1, -1);
  if (!/^[\w./~+@,=-]+$/.test(word) || word === '-') return undefined;
  return { word, relative: m[1] === '\\ir' || m[1] === '\\include_relative' };
}

/** The files a SQL text includes, in order (a text that does not split includes nothing: it is unknown anyway). */
export function includesOf(text: string): SqlInclude[] {
  const split = splitSql(text);
  if (!split.ok) return [];
  const out: SqlInclude[] = [];
  for (const s of split.statements) {
    if (s.kind !== 'meta') continue;
    const include = includeOf(s.text);
    if (include !== undefined) out.push(include);
  }
  return out;
}

/**
 * How the edge and the classifier name a file: the segment that reads it, the key of the file it is relative
 * to (`\ir` inside a file; none for `-f`, `<`, `\i`: those are relative to the client's directory), and the
 * word as written.
 */
export function sqlFileKey(segment: number, word: string, relativeTo?: string): string {
  return `${segment}\u0000${relativeTo ?? ''}\u0000${word}`;
}
