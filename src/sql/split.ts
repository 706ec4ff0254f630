/**
 * SQL text → statements, before any parser sees it: comments are dropped, string literals (single-quoted,
 * dollar-quoted, E'…'), quoted identifiers ("…", `…`, […]) are kept whole, and `;` outside them ends a
 * statement. psql backslash commands and sqlite3 dot commands (a line of their own) are statements of their
 * own kind. What a database would run but a parser would not see is refused, never guessed: MySQL's
 * executable comments (`/*! … *\/`), an unterminated literal or comment.
 *
 * MySQL's client reads its text differently in three ways that decide what runs (client/mysql.cc read_and_execute,
 * add_line), so with `dialect` mysql: a line that starts a statement with `source` and holds no `;` is the
 * client's command, taken raw (comments and all: it names a file); `--` starts a comment only before a space or
 * the end of a line (`--\! cmd` is two minus signs, then a shell command); and a backslash outside a literal is
 * a client command wherever it stands — `\g` / `\G` end a statement, `\N` is NULL, any other is refused.
 *
 * The work is bounded by the input's size (one pass, at most MAX_SQL_BYTES characters, MAX_STATEMENTS
 * statements), never by time.
 */
import type { SqlDialect } from './parser.js';

/** Longer SQL is not split or parsed: it is unknown (and so asked). */
export const MAX_SQL_BYTES = 64 * 1024;
/** More statements than this in one call are unknown as a whole. */
export const MAX_STATEMENTS = 200;

export type SplitStatement =
  /** `commented`: a comment was dropped from inside the statement (after its first word). */
  | { kind: 'sql'; text: string; commented?: true }
  /** `\d users`, `\copy …`, `\! cmd` (psql) or `.tables`, `.shell cmd` (sqlite3): the client's own command line. */
  | { kind: 'meta'; text: string };

export type SplitResult = { ok: true; statements: SplitStatement[] } | { ok: false; problem: string };

const META_START = /^[ \t]*([\\.])/;
/** mysql's `source FILE` on a line of its own (no `;` on it): the client takes the rest of the line as the name. */
const MYSQL_SOURCE_LINE = /^[ \t]*source\b[^;\n]*$/i;

export function splitSql(sql: string, dialect?: SqlDialect): SplitResult {
  if (sql.length > MAX_SQL_BYTES)
    return { ok: false, problem: `the SQL is ${sql.length} characters, more than the ${MAX_SQL_BYTES} judged` };
  const mysql = dialect === 'mysql';
  const statements: SplitStatement[] = [];
  let current = '';
  let commented = false;
  const push = (): boolean => {
    const text = current.trim();
    current = '';
    if (text !== '') statements.push(commented ? { kind: 'sql', text, commented } : { kind: 'sql', text });
    commented = false;
    return statements.length <= MAX_STATEMENTS;
  };
  const dropComment = (): void => {
    if (current.trim() !== '') commented = true;
    current += ' ';
  };
  let i = 0;
  const n = sql.length;
  while (i < n) {
    // A client command is a line of its own, at the start of a statement.
    if (current.trim() === '' && (i === 0 || sql[i - 1] === '\n')) {
      const head = sql.slice(i, i + 64);
      const meta = META_START.exec(head);
      const end = sql.indexOf('\n', i);
      const line = sql.slice(i, end === -1 ? n : end);
      if (
        (meta !== null && (meta[1] === '\\' || /^[ \t]*\.[a-z]/i.test(head))) ||
        (mysql && MYSQL_SOURCE_LINE.test(line))
      ) {
        statements.push({ kind: 'meta', text: line.trim() });
        if (statements.length > MAX_STATEMENTS) return tooMany();
        current = '';
        i = end === -1 ? n : end + 1;
        continue;
      }
    }
    const c = sql[i]!;
    const next = sql[i + 1];
    if (c === '-' && next === '-' && (!mysql || i + 2 >= n || /\s/.test(sql[i + 2]!))) {
      const end = sql.indexOf('\n', i);
      i = end === -1 ? n : end;
      dropComment();
      continue;
    }
    if (c === '#' && isHashComment(sql, i)) {
      const end = sql.indexOf('\n', i);
      i = end === -1 ? n : end;
      dropComment();
      continue;
    }
    if (mysql && c === '\\') {
      // Outside a literal the mysql client reads a backslash as its own command, even mid-line.
      if (next === 'g' || next === 'G') {
        if (!push()) return tooMany();
        i += 2;
        continue;
      }
      if (next !== 'N')
        return {
          ok: false,
          problem: `the mysql client runs \\${next ?? ''} inside a statement as its own command (\\! runs a shell command, \\. a file): hookwise does not judge it`,
        };
    }
    if (c === '/' && next === '*') {
      if (sql[i + 2] === '!')
        return {
          ok: false,
          problem: 'a MySQL executable comment (/*! … */) runs as SQL: hookwise does not judge what it hides',
        };
      // PostgreSQL nests block comments; the others end at the first */. Nesting is the stricter reading
      // only if it ends later — an unterminated comment is refused either way.
      let depth = 1;
      let j = i + 2;
      while (j < n && depth > 0) {
        if (sql[j] === '/' && sql[j + 1] === '*') {
          depth++;
          j += 2;
        } else if (sql[j] === '*' && sql[j + 1] === '/') {
          depth--;
          j += 2;
        } else j++;
      }
      if (depth > 0) return { ok: false, problem: 'a block comment is not closed' };
      // The flat reading (first */) must agree, or a database would run what the nested reading hides.
      const flatEnd = sql.indexOf('*/', i + 2) + 2;
      if (flatEnd !== j && /\S/.test(sql.slice(flatEnd, j)))
        return { ok: false, problem: 'nested block comments read differently by different databases' };
      i = j;
      dropComment();
      continue;
    }
    if (c === "'" || c === '"' || c === '`') {
      const end = closeQuote(sql, i, c, c === "'" && isEscapeString(sql, i));
      if (end === -1) return { ok: false, problem: `a ${c} literal or identifier is not closed` };
      current += sql.slice(i, end + 1);
      i = end + 1;
      continue;
    }
    if (c === '$') {
      const tag = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i, i + 70));
      if (tag !== null && !/[A-Za-z0-9_]/.test(sql[i - 1] ?? '')) {
        const end = sql.indexOf(tag[0], i + tag[0].length);
        if (end === -1) return { ok: false, problem: `a dollar-quoted string (${tag[0]}) is not closed` };
        current += sql.slice(i, end + tag[0].length);
        i = end + tag[0].length;
        continue;
      }
    }
    if (c === ';') {
      if (!push()) return tooMany();
      i++;
      continue;
    }
    current += c;
    i++;
  }
  if (!push()) return tooMany();
  return { ok: true, statements };
}

function tooMany(): SplitResult {
  return { ok: false, problem: `more than ${MAX_STATEMENTS} statements in one call` };
}

/** `#` starts a comment in MySQL; in PostgreSQL it is an operator (`a # b`). A `#` after space or at a line start reads as a comment: the stricter reading drops nothing a database would run, since a PostgreSQL `#` operand left out only makes a parse fail. */
function isHashComment(sql: string, i: number): boolean {
  const before = sql[i - 1];
  return before === undefined || before === '\n' || before === ' ' || before === '\t' || before === ';';
}

/** PostgreSQL's E'…' strings take backslash escapes; MySQL's '…' do too. Both readings are tried by closeQuote. */
function isEscapeString(sql: string, i: number): boolean {
  const before = sql[i - 1];
  return (before === 'E' || before === 'e') && !/[A-Za-z0-9_]/.test(sql[i - 2] ?? '');
}

/**
 * The index of the quote that closes the literal opened at `start`, or -1. A doubled quote is an escaped one.
 * Backslash escapes (MySQL strings, PostgreSQL E'…') are honoured where they could end the literal later,
 * and a literal that closes at different places under the two readings is refused (-1): the statement
 * boundaries would differ between databases.
 */
function closeQuote(sql: string, start: number, quote: string, escapes: boolean): number {
  const plain = scanQuote(sql, start, quote, false);
  if (quote === '`') return plain;
  const withEscapes = scanQuote(sql, start, quote, true);
  if (escapes) return withEscapes;
  return plain === withEscapes ? plain : -1;
}

function scanQuote(sql: string, start: number, quote: string, backslash: boolean): number {
  for (let j = start + 1; j < sql.length; j++) {
    const c = sql[j];
    if (backslash && c === '\\') {
      j++;
      continue;
    }
    if (c === quote) {
      if (sql[j + 1] === quote) {
        j++;
        continue;
      }
      return j;
    }
  }
  return -1;
}
