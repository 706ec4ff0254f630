/**
 * SQL that a database client reads from files: `psql -f F`, `psql < F`, `sqlite3 db < F`, `mysql < F`, and the
 * client commands that include a file from SQL text (`\i F`, `\ir F`, `\include F`, `.read F`, mysql's
 * `source F` and `\. F`). The
 * edge (shell/sql-files.ts) reads each file once, bounded; the classifier then judges its statements as if they
 * had been written on the command line. Both sides name a file by the same key (sqlFileKey), so the pure side
 * never touches the file system. Pure.
 */
import type { SqlDialect } from './parser.js';
import { MAX_SQL_BYTES, splitSql, type SplitStatement } from './split.js';

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
 * shell command), a `:variable` (known only at run time), sqlite3's `.read '|cmd'` (runs a program) or
 * `~user/…` (another user's home, which the client expands) are not includes, and stay unknown to the
 * classifier. psql and sqlite3 take a quoted name without its quotes; the mysql client's `source F` and `\. F`
 * take the rest of the line as it is (client/mysql.cc com_source), quotes included — no plain word then.
 */
export function includeOf(command: string): SqlInclude | undefined {
  const line = command.trim();
  const client = CLIENT_INCLUDE.exec(line);
  const source = client === null ? MYSQL_SOURCE.exec(line) : null;
  const name = client?.[1] ?? (source === null ? undefined : 'source');
  let word = client?.[2] ?? source?.[1];
  if (name === undefined || word === undefined) return undefined;
  if (name !== '\\.' && name !== 'source' && /^'[^']*'$|^"[^"]*"$/.test(word)) word = word.slice(1, -1);
  if (!/^[\w./~+@,=-]+$/.test(word) || word === '-' || /^~[^/]/.test(word)) return undefined;
  return { word, relative: name === '\\ir' || name === '\\include_relative' };
}

const CLIENT_INCLUDE = /^(\\ir|\\include_relative|\\i|\\include|\\\.|\.read)\s+(\S+)\s*$/;
/** The name is what follows the first space (client/mysql.cc com_source); the command word is any case. */
const MYSQL_SOURCE = /^source \s*(\S+)\s*$/i;

/**
 * The file a statement includes, if it is a client command that does: a command line of its own (`\i F`,
 * `.read F`, mysql's `source F` alone on its line), or — for mysql, whose client looks for its commands at the
 * start of every statement — `source F;` with no comment inside it (a comment there is part of the name the
 * client reads, or not, depending on its options).
 */
export function includeOfStatement(s: SplitStatement, dialect: SqlDialect): SqlInclude | undefined {
  if (s.kind === 'meta') return includeOf(s.text);
  if (dialect !== 'mysql' || s.commented === true || !/^source /i.test(s.text)) return undefined;
  return includeOf(s.text);
}

/** The files a SQL text includes, in order (a text that does not split includes nothing: it is unknown anyway). */
export function includesOf(text: string, dialect: SqlDialect): SqlInclude[] {
  const split = splitSql(text, dialect);
  if (!split.ok) return [];
  const out: SqlInclude[] = [];
  for (const s of split.statements) {
    const include = includeOfStatement(s, dialect);
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
