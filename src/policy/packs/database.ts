/**
 * Destructive database statements sent through a database CLI: as an argument (`psql -c`, `mysql -e`,
 * `sqlite3 db "…"`, `mongosh --eval`, `redis-cli FLUSHALL`), as a here-string, or on stdin from a
 * visible producer (`echo "DROP TABLE t" | psql`, `cat <<EOF | mysql`). Only text that reaches a
 * database client is inspected — `grep "DROP TABLE" schema.sql` and `git commit -m "drop table"` are data.
 * SQL is read by the SQL classifier (src/sql/classify.ts: a real parser, statement by statement, comments and
 * literals understood) — the same one that judges MCP tools' SQL fields. Dropping or truncating data → deny
 * (irreversible); DELETE without WHERE and dropping other objects → ask; administration (grants, roles,
 * extensions, server settings, COPY … PROGRAM, functions that reach the server's files or processes) → ask;
 * SQL the classifier cannot read (or a client command that runs programs or files, `\!`, `.shell`) → ask.
 * SQL files (`psql -f x.sql`, `mysql < x.sql`) are not read: their content is not visible here.
 */
import type { Segment } from '../../shell/types.js';
import { lazyRe2 } from '../../util/re2.js';
import { scan, upstreamOf } from './argv.js';
import { definePack, type PackEnv, type PackFinding } from './types.js';
import { classifySql, type StatementClass } from '../../sql/classify.js';
import type { SqlDialect } from '../../sql/parser.js';

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

/** The strictest finding among SQL texts sent to a client of `dialect`, statement by statement. */
function sqlFinding(texts: string[], dialect: SqlDialect): PackFinding<RuleId> | undefined {
  let found: { rank: number; finding: PackFinding<RuleId> } | undefined;
  for (const text of texts) {
    if (text.trim() === '') continue;
    const sql = classifySql(text, dialect);
    const rules: RuleId[] =
      sql.problem !== undefined ? ['sql-unknown'] : sql.statements.map(ruleOf).filter((r) => r !== undefined);
    for (const rule of rules) {
      const rank = RULE_ORDER.indexOf(rule);
      if (found === undefined || rank < found.rank) found = { rank, finding: { rule, detail: summarize(text) } };
    }
  }
  return found?.finding;
}

/** Strictest first: the first rule of a text's statements is the one reported. */
const RULE_ORDER: readonly RuleId[] = [
  'drop-database',
  'drop-table',
  'truncate',
  'delete-all',
  'drop-object',
  'sql-admin',
  'sql-unknown',
];

function ruleOf(s: StatementClass): RuleId | undefined {
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
function stdinTexts(segment: Segment, env: PackEnv): string[] {
  const fed = (s: Segment): string[] => {
    const out = s.redirects.filter((r) => r.op === '<<<').map((r) => r.target);
    const heredocs = s.redirects.filter((r) => r.op === '<<' || r.op === '<<-');
    if (heredocs.length > 0) out.push(s.stdin ?? heredocs.map((r) => r.target).join('\n'));
    return out;
  };
  const texts = fed(segment);
  for (const producer of upstreamOf(env.segments, env.index)) {
    if (producer.name === 'echo' || producer.name === 'printf') texts.push(producer.argv.slice(1).join(' '));
    texts.push(...fed(producer));
  }
  return texts;
}

const SQL_CLIENTS: Readonly<Record<string, { withValue: string[]; sql: string[] }>> = {
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
    ],
    sql: ['e', 'execute'],
  },
  mariadb: {
    withValue: ['e', 'execute', 'h', 'host', 'P', 'port', 'u', 'user', 'D', 'database', 'S', 'socket'],
    sql: ['e', 'execute'],
  },
  'clickhouse-client': {
    withValue: ['q', 'query', 'h', 'host', 'port', 'u', 'user', 'd', 'database'],
    sql: ['q', 'query'],
  },
  sqlcmd: { withValue: ['Q', 'q', 'S', 'U', 'P', 'd', 'i', 'o'], sql: ['Q', 'q'] },
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

function sqlite(segment: Segment): string[] {
  // sqlite3 [OPTIONS] FILE [SQL…]: options are single-dash words; -cmd takes the next word as SQL.
  const sql: string[] = [];
  let file: string | undefined;
  for (let i = 1; i < segment.argv.length; i++) {
    const word = segment.argv[i]!;
    if (word === '-cmd') sql.push(segment.argv[++i] ?? '');
    else if (word.startsWith('-')) continue;
    else if (file === undefined) file = word;
    else sql.push(word);
  }
  return sql;
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
    const flushed = stdinTexts(segment, env).find((t) => FLUSH().test(t));
    return flushed === undefined ? undefined : { rule: 'flush', detail: summarize(flushed) };
  }
  if (name === 'mongosh' || name === 'mongo') {
    const args = scan(segment.argv, {
      withValue: ['eval', 'host', 'port', 'u', 'username', 'p', 'password', 'authenticationDatabase', 'f', 'file'],
    });
    return firstFinding([...(args.values.get('eval') ?? []), ...stdinTexts(segment, env)], MONGO_CHECKS);
  }
  let sql: string[] | undefined;
  let dialect: SqlDialect = 'postgresql';
  if (name === 'sqlite3' || name === 'sqlite' || name === 'duckdb') {
    sql = sqlite(segment);
    dialect = 'sqlite';
  } else if (name === 'cockroach' && segment.argv[1] === 'sql') {
    const args = scan(segment.argv, {
      from: 2,
      withValue: ['e', 'execute', 'url', 'host', 'database', 'd', 'user', 'u'],
    });
    sql = [...(args.values.get('e') ?? []), ...(args.values.get('execute') ?? [])];
  } else {
    const client = SQL_CLIENTS[name];
    if (client === undefined) return undefined;
    if (name === 'mysql' || name === 'mariadb') dialect = 'mysql';
    const args = scan(segment.argv, { withValue: client.withValue });
    sql = client.sql.flatMap((key) => args.values.get(key) ?? []);
  }
  return sqlFinding([...sql, ...stdinTexts(segment, env)], dialect);
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
