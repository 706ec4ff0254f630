/**
 * Destructive database statements sent through a database CLI: as an argument (`psql -c`, `mysql -e`,
 * `sqlite3 db "…"`, `mongosh --eval`, `redis-cli FLUSHALL`), as a here-string, or on stdin from a
 * visible producer (`echo "DROP TABLE t" | psql`, `cat <<EOF | mysql`). Only text that reaches a
 * database client is inspected — `grep "DROP TABLE" schema.sql` and `git commit -m "drop table"` are data.
 * SQL is read by the SQL classifier (src/sql/classify.ts: a real parser, statement by statement, comments and
 * literals understood) — the same one that judges MCP tools' SQL fields. Dropping or truncating data → deny
 * (irreversible); DELETE without WHERE and dropping other objects → ask; administration (grants, roles,
 * extensions, server settings, COPY … PROGRAM, functions that reach the server's files or processes) → ask;
 * SQL the classifier cannot read (or a client command that runs programs, `\!`, `.shell`) → ask.
 * SQL files (`psql -f x.sql`, `mysql < x.sql`, `cat x.sql | sqlite3 db`, `\i x.sql`) are read at the edge
 * (shell/sql-files.ts, bounded) and judged statement by statement like SQL on the command line; a file that
 * was not read (a link, too large, outside the project, missing) → ask, naming it.
 */
import type { Segment } from '../../shell/types.js';
import { lazyRe2 } from '../../util/re2.js';
import { scan, upstreamOf } from './argv.js';
import { definePack, type PackEnv, type PackFinding } from './types.js';
import { classifySql, type IncludeStatements, type StatementClass } from '../../sql/classify.js';
import type { SqlDialect } from '../../sql/parser.js';
import { MAX_INCLUDE_DEPTH, MAX_SQL_FILES, sqlFileKey, type SqlFiles } from '../../sql/files.js';

const RULES = {
  'drop-database': {
    verdict: 'deny',
    message:
      'drops a whole database or schema, with every table and row in it. Nothing brings it back but a backup. A human runs this by hand, after checking which server it points at.',
  },
  'drop-table': {
    verdict: 'deny',
    message:
      'drops a table or collection and all its rows, irreversibly. Write a migration a human reviews, or rename the table first so it can be restored.',
  },
  truncate: {
    verdict: 'deny',
    message:
      'truncates a table, deleting every row without a way back. Use DELETE … WHERE on the rows you mean, inside a transaction.',
  },
  flush: {
    verdict: 'deny',
    message:
      'deletes every key in the Redis database (or all of them). Delete the keys you mean (UNLINK / SCAN + DEL on a prefix).',
  },
  'delete-all': {
    verdict: 'ask',
    message:
      'deletes every row (DELETE without WHERE / deleteMany({})). Add a WHERE clause, or run it in a transaction you can roll back; a human confirms.',
  },
  'drop-object': {
    verdict: 'ask',
    message:
      'drops a database object (index, view, column, function, user, …). A human confirms; prefer a reviewed migration.',
  },
  'sql-admin': {
    verdict: 'ask',
    message:
      "administers the database server (grants, roles, extensions, server settings, COPY … PROGRAM, or a function that reaches the server's files, processes or other servers). A human confirms.",
  },
  'sql-file': {
    verdict: 'ask',
    message:
      'runs SQL from a file hookwise could not read safely, so it cannot tell what it changes. A human confirms; or run the SQL from a regular file inside the project that the command does not itself write.',
  },
  'sql-unknown': {
    verdict: 'ask',
    message:
      'sends SQL hookwise cannot read (or a client command that runs programs or files), so it cannot tell what it changes. A human confirms.',
  },
} as const;
type RuleId = keyof typeof RULES;

const FLUSH = lazyRe2('(?i)\\bflush(?:all|db)\\b');

const MONGO_CHECKS: readonly (readonly [RuleId, () => { test(s: string): boolean }])[] = [
  ['drop-database', lazyRe2('\\bdropDatabase\\s*\\(')],
  ['drop-table', lazyRe2('\\.drop\\s*\\(\\s*\\)')],
  ['delete-all', lazyRe2('\\b(?:deleteMany|remove)\\s*\\(\\s*\\{\\s*\\}\\s*\\)')],
];

/** A file a SQL client reads SQL from, as written, and the segment whose process opens it. */
export interface SqlClientFile {
  word: string;
  /**
   * The client itself (`-f F`), or the shell command that feeds its stdin (`< F`, `cat F |`): where that one
   * runs (here, or on another machine or in a container: `flags.remote`) is where the file is.
   */
  openedBy: Segment;
}

/** What a SQL client segment runs: SQL texts (arguments, stdin) and the files it reads SQL from, as written. */
export interface SqlClientInputs {
  dialect: SqlDialect;
  texts: string[];
  files: SqlClientFile[];
  /** Why its statements cannot be told apart as hookwise splits them (a delimiter of its own): then unknown. */
  unsplittable?: string;
}

/** The strictest finding among a client's SQL, statement by statement (files from the edge, `env.sqlFiles`). */
function sqlFinding(inputs: SqlClientInputs, env: PackEnv): PackFinding<RuleId> | undefined {
  let found: { rank: number; finding: PackFinding<RuleId> } | undefined;
  const consider = (rule: RuleId | undefined, detail: () => string): void => {
    if (rule === undefined) return;
    const rank = RULE_ORDER.indexOf(rule);
    if (found === undefined || rank < found.rank) found = { rank, finding: { rule, detail: detail() } };
  };
  if (inputs.unsplittable !== undefined) return { rule: 'sql-unknown', detail: inputs.unsplittable };
  const files = new FileStatements(env.index, env.sqlFiles, inputs.dialect);
  for (const text of inputs.texts) {
    if (text.trim() === '') continue;
    const sql = classifySql(text, inputs.dialect, files.includer(0));
    if (sql.problem !== undefined) consider('sql-unknown', () => summarize(text));
    else
      for (const s of sql.statements)
        consider(ruleOf(s), () => (s.file === undefined ? summarize(text) : fileDetail(s)));
  }
  for (const { word } of inputs.files)
    for (const s of files.of(sqlFileKey(env.index, word), word, 0)) consider(ruleOf(s), () => fileDetail(s));
  return found?.finding;
}

function fileDetail(s: StatementClass): string {
  return `${s.file ?? 'a file'}: ${s.unread === true ? (s.why ?? 'not read') : s.kind}`;
}

/**
 * The statements of the SQL files one segment reads, from the text the edge read. Includes are followed a
 * bounded number of times in all (a file that includes itself ends there), never by time.
 */
class FileStatements {
  private expanded = 0;
  constructor(
    private readonly segment: number,
    private readonly files: SqlFiles | undefined,
    private readonly dialect: SqlDialect,
  ) {}

  includer(depth: number, fromKey?: string): IncludeStatements {
    return (include) =>
      this.of(sqlFileKey(this.segment, include.word, include.relative ? fromKey : undefined), include.word, depth + 1);
  }

  of(key: string, word: string, depth: number): StatementClass[] {
    const unread = (why: string, shown = word): StatementClass[] => [
      { class: 'unknown', kind: 'file', why, unread: true, file: shown },
    ];
    if (depth > MAX_INCLUDE_DEPTH) return unread(`it includes files nested more than ${MAX_INCLUDE_DEPTH} deep`);
    if (++this.expanded > MAX_SQL_FILES) return unread(`the command reads more than ${MAX_SQL_FILES} SQL files`);
    const file = this.files?.get(key);
    if (file === undefined) return unread('hookwise did not read it');
    if ('problem' in file) return unread(file.problem, file.shown);
    const sql = classifySql(file.text, this.dialect, this.includer(depth, key));
    if (sql.problem !== undefined) return [{ class: 'unknown', kind: 'file', why: sql.problem, file: file.shown }];
    return sql.statements.map((s) => (s.file === undefined ? { ...s, file: file.shown } : s));
  }
}

/** Strictest first: the first rule of a text's statements is the one reported. */
const RULE_ORDER: readonly RuleId[] = [
  'drop-database',
  'drop-table',
  'truncate',
  'delete-all',
  'drop-object',
  'sql-admin',
  'sql-file',
  'sql-unknown',
];

function ruleOf(s: StatementClass): RuleId | undefined {
  if (s.unread === true) return 'sql-file';
  const kind = s.kind.replace(/^explain analyze /, '');
  if (/^drop (?:database|schema)\b/.test(kind)) return 'drop-database';
  if (/^drop (?:temporary |temp )?table\b|^drop (?:temporary|temp)$/.test(kind)) return 'drop-table';
  if (/^truncate\b/.test(kind)) return 'truncate';
  if (/^delete\b/.test(kind) && s.everyRow === true) return 'delete-all';
  if (/^drop\b/.test(kind) || s.dropsPart === true) return 'drop-object';
  if (s.class === 'admin') return 'sql-admin';
  if (s.class === 'unknown') return 'sql-unknown';
  return undefined;
}

function firstFinding(texts: string[], checks: typeof MONGO_CHECKS): PackFinding<RuleId> | undefined {
  for (const [rule, pattern] of checks) {
    for (const raw of texts) if (pattern().test(raw)) return { rule, detail: summarize(raw) };
  }
  return undefined;
}

function summarize(text: string): string {
  const oneLine = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .join(' ');
  return oneLine.length > 80 ? `${oneLine.slice(0, 79)}…` : oneLine;
}

/**
 * Here-strings and heredoc bodies feeding this segment or a visible producer. The parser keeps a heredoc's
 * body as the segment's stdin and its delimiter (`SQL`) as the redirect's target: the body is what runs.
 */
function stdinTexts(segments: readonly Segment[], index: number): string[] {
  const segment = segments[index]!;
  const fed = (s: Segment): string[] => {
    const out = s.redirects.filter((r) => r.op === '<<<').map((r) => r.target);
    const heredocs = s.redirects.filter((r) => r.op === '<<' || r.op === '<<-');
    if (heredocs.length > 0) out.push(s.stdin ?? heredocs.map((r) => r.target).join('\n'));
    return out;
  };
  const texts = fed(segment);
  for (const producer of upstreamOf(segments, index)) {
    if (producer.name === 'echo' || producer.name === 'printf') texts.push(producer.argv.slice(1).join(' '));
    texts.push(...fed(producer));
  }
  return texts;
}

/** Per client: options that take a value, those whose value is SQL, those whose value is a file of SQL. */
const SQL_CLIENTS: Readonly<Record<string, { withValue: string[]; sql: string[]; files: string[] }>> = {
  psql: {
    withValue: [
      'c',
      'command',
      'd',
      'dbname',
      'h',
      'host',
      'p',
      'port',
      'U',
      'username',
      'f',
      'file',
      'v',
      'set',
      'variable',
      'o',
      'output',
      'P',
      'pset',
      'L',
      'log-file',
      'F',
      'R',
      'T',
    ],
    sql: ['c', 'command'],
    files: ['f', 'file'],
  },
  mysql: {
    withValue: [
      'e',
      'execute',
      'h',
      'host',
      'P',
      'port',
      'u',
      'user',
      'D',
      'database',
      'S',
      'socket',
      'default-character-set',
      'delimiter',
    ],
    sql: ['e', 'execute'],
    files: [],
  },
  mariadb: {
    withValue: ['e', 'execute', 'h', 'host', 'P', 'port', 'u', 'user', 'D', 'database', 'S', 'socket', 'delimiter'],
    sql: ['e', 'execute'],
    files: [],
  },
  'clickhouse-client': {
    withValue: ['q', 'query', 'queries-file', 'h', 'host', 'port', 'u', 'user', 'd', 'database'],
    sql: ['q', 'query'],
    files: ['queries-file'],
  },
  sqlcmd: { withValue: ['Q', 'q', 'S', 'U', 'P', 'd', 'i', 'o'], sql: ['Q', 'q'], files: ['i'] },
};

const REDIS_CLIENTS = new Set(['redis-cli', 'valkey-cli', 'keydb-cli']);
const REDIS_WITH_VALUE = [
  'h',
  'p',
  'a',
  'n',
  'u',
  's',
  'r',
  'i',
  'd',
  'user',
  'pass',
  'askpass',
  'cacert',
  'cert',
  'key',
  'sni',
  'eval',
];

function sqlite(segment: Segment): { sql: string[]; files: string[] } {
  // sqlite3 [OPTIONS] FILE [SQL…]: options are single-dash words; -cmd takes the next word as SQL, -init a file of it.
  const sql: string[] = [];
  const files: string[] = [];
  let database: string | undefined;
  for (let i = 1; i < segment.argv.length; i++) {
    const word = segment.argv[i]!;
    if (word === '-cmd') sql.push(segment.argv[++i] ?? '');
    else if (word === '-init') files.push(segment.argv[++i] ?? '');
    else if (word.startsWith('-')) continue;
    else if (database === undefined) database = word;
    else sql.push(word);
  }
  return { sql, files };
}

/**
 * Files a segment's stdin comes from: `< F`, and the files of a visible `cat F … |` producer (or of the local
 * `docker exec -i db` that forwards its stdin to the client in the container).
 */
function stdinFiles(segments: readonly Segment[], index: number): SqlClientFile[] {
  const fromRedirects = (s: Segment): SqlClientFile[] =>
    s.redirects
      .filter((r) => r.op === '<' && (r.fd === undefined || r.fd === 0))
      .map((r) => ({ word: r.target, openedBy: s }));
  const files = fromRedirects(segments[index]!);
  for (const producer of upstreamOf(segments, index)) {
    if (producer.name === 'cat')
      files.push(...scan(producer.argv).positionals.map((p) => ({ word: p.text, openedBy: producer })));
    files.push(...fromRedirects(producer));
  }
  return files.filter((f) => f.word !== '-');
}

/**
 * What a SQL client segment runs: its SQL arguments and stdin, and the files it reads SQL from — the same
 * answer for the edge, which reads the files, and for the pack, which judges them. Undefined: not a SQL client.
 */
export function sqlClientInputs(segments: readonly Segment[], index: number): SqlClientInputs | undefined {
  const segment = segments[index]!;
  const name = segment.name;
  let texts: string[];
  const opened: string[] = [];
  let dialect: SqlDialect = 'postgresql';
  if (name === 'sqlite3' || name === 'sqlite' || name === 'duckdb') {
    const args = sqlite(segment);
    texts = args.sql;
    opened.push(...args.files);
    dialect = 'sqlite';
  } else if (name === 'cockroach' && segment.argv[1] === 'sql') {
    const args = scan(segment.argv, {
      from: 2,
      withValue: ['e', 'execute', 'url', 'host', 'database', 'd', 'user', 'u', 'f', 'file'],
    });
    texts = [...(args.values.get('e') ?? []), ...(args.values.get('execute') ?? [])];
    opened.push(...(args.values.get('f') ?? []), ...(args.values.get('file') ?? []));
  } else {
    const client = SQL_CLIENTS[name];
    if (client === undefined) return undefined;
    const mysql = name === 'mysql' || name === 'mariadb';
    if (mysql) dialect = 'mysql';
    const args = scan(mysql ? segment.argv.map(mysqlOption) : segment.argv, { withValue: client.withValue });
    texts = client.sql.flatMap((key) => args.values.get(key) ?? []);
    opened.push(...client.files.flatMap((key) => args.values.get(key) ?? []));
    if (mysql && (args.values.has('delimiter') || args.flags.has('delimiter')))
      return { dialect, texts, files: [], unsplittable: MYSQL_DELIMITER };
  }
  texts.push(...stdinTexts(segments, index));
  const files = opened.filter((f) => f !== '-').map((word) => ({ word, openedBy: segment }));
  return { dialect, texts, files: [...files, ...stdinFiles(segments, index)] };
}

const MYSQL_DELIMITER =
  'a --delimiter of its own: the mysql client ends statements (and reads the names `source` takes) where hookwise does not split them';

/**
 * The mysql client takes any unambiguous prefix of a long option (`--exec=…` is `--execute=…`): the ones whose
 * value is SQL or changes how it splits are written out, so a prefix never hides them. Broader than the client
 * (which refuses an ambiguous prefix) only ever judges more.
 */
function mysqlOption(word: string): string {
  const m = /^--([a-z-]+)(=[\s\S]*)?$/.exec(word);
  if (m === null) return word;
  for (const full of ['execute', 'delimiter'])
    if (m[1]!.length >= 2 && full.startsWith(m[1]!)) return `--${full}${m[2] ?? ''}`;
  return word;
}

function classifyDatabase(segment: Segment, env: PackEnv): PackFinding<RuleId> | undefined {
  const name = segment.name;
  if (name === 'dropdb') return { rule: 'drop-database', detail: segment.argv.slice(1).join(' ') };
  if (name === 'mysqladmin') {
    const positionals = scan(segment.argv, { withValue: ['h', 'P', 'u', 'S'] }).positionals.map((p) =>
      p.text.toLowerCase(),
    );
    return positionals.includes('drop')
      ? { rule: 'drop-database', detail: segment.argv.slice(1).join(' ') }
      : undefined;
  }
  if (REDIS_CLIENTS.has(name)) {
    // The first word after the options is the Redis command (`GET flushall` reads a key named flushall).
    const words = scan(segment.argv, { withValue: REDIS_WITH_VALUE }).positionals.map((p) => p.text);
    const command = words[0]?.toUpperCase();
    if (command === 'FLUSHALL' || command === 'FLUSHDB') return { rule: 'flush', detail: words.join(' ') };
    const flushed = stdinTexts(env.segments, env.index).find((t) => FLUSH().test(t));
    return flushed === undefined ? undefined : { rule: 'flush', detail: summarize(flushed) };
  }
  if (name === 'mongosh' || name === 'mongo') {
    const args = scan(segment.argv, {
      withValue: ['eval', 'host', 'port', 'u', 'username', 'p', 'password', 'authenticationDatabase', 'f', 'file'],
    });
    return firstFinding([...(args.values.get('eval') ?? []), ...stdinTexts(env.segments, env.index)], MONGO_CHECKS);
  }
  const inputs = sqlClientInputs(env.segments, env.index);
  return inputs === undefined ? undefined : sqlFinding(inputs, env);
}

export const databasePack = definePack<RuleId>({
  name: 'database',
  kind: 'guard',
  description:
    'DROP / TRUNCATE / FLUSHALL / DELETE without WHERE, administration and unreadable SQL sent through psql, mysql, sqlite3, redis-cli, mongosh … (arguments and visible stdin; SQL by a real parser)',
  commands: [
    'psql',
    'mysql',
    'mariadb',
    'sqlite3',
    'sqlite',
    'duckdb',
    'clickhouse-client',
    'sqlcmd',
    'cockroach',
    'redis-cli',
    'valkey-cli',
    'keydb-cli',
    'mongosh',
    'mongo',
    'dropdb',
    'mysqladmin',
  ],
  rules: RULES,
  classify: classifyDatabase,
});
