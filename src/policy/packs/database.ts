/**
 * Destructive database statements sent through a database CLI: as an argument (`psql -c`, `mysql -e`,
 * `sqlite3 db "…"`, `mongosh --eval`, `redis-cli FLUSHALL`), as a here-string, or on stdin from a
 * visible producer (`echo "DROP TABLE t" | psql`, `cat <<EOF | mysql`). Only text that reaches a
 * database client is inspected — `grep "DROP TABLE" schema.sql` and `git commit -m "drop table"` are data.
 * Dropping or truncating data → deny (irreversible); DELETE without WHERE and dropping other objects → ask.
 * SQL files (`psql -f x.sql`, `mysql < x.sql`) are not read: their content is not visible here.
 */
import type { Segment } from '../../shell/types.js';
import { lazyRe2 } from '../../util/re2.js';
import { scan, upstreamOf } from './argv.js';
import { definePack, type PackEnv, type PackFinding } from './types.js';

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
} as const;
type RuleId = keyof typeof RULES;

const SQL_CHECKS: readonly (readonly [RuleId, () => { test(s: string): boolean }])[] = [
  ['drop-database', lazyRe2('(?i)\\bdrop\\s+(?:database|schema)\\b')],
  ['drop-table', lazyRe2('(?i)\\bdrop\\s+(?:temporary\\s+)?table\\b')],
  ['truncate', lazyRe2('(?i)\\btruncate\\s+\\S')],
  ['flush', lazyRe2('(?i)\\bflush(?:all|db)\\b')],
  ['delete-all', lazyRe2('(?im)\\bdelete\\s+from\\s+[^\\s;]+\\s*(?:;|$)')],
  [
    'drop-object',
    lazyRe2(
      '(?i)\\bdrop\\s+(?:index|view|materialized|function|procedure|trigger|sequence|type|user|role|extension|column|constraint|owned|policy)\\b',
    ),
  ],
];

const MONGO_CHECKS: readonly (readonly [RuleId, () => { test(s: string): boolean }])[] = [
  ['drop-database', lazyRe2('\\bdropDatabase\\s*\\(')],
  ['drop-table', lazyRe2('\\.drop\\s*\\(\\s*\\)')],
  ['delete-all', lazyRe2('\\b(?:deleteMany|remove)\\s*\\(\\s*\\{\\s*\\}\\s*\\)')],
];

/** SQL with its single-quoted literals blanked, so `SELECT 'drop table'` is not a DROP. */
function withoutLiterals(sql: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i]!;
    if (c === "'") {
      if (inString && sql[i + 1] === "'") {
        i++; // '' is an escaped quote inside a literal
        continue;
      }
      inString = !inString;
      out += ' ';
      continue;
    }
    out += inString ? ' ' : c;
  }
  return out;
}

function firstFinding(texts: string[], checks: typeof SQL_CHECKS, strip: boolean): PackFinding<RuleId> | undefined {
  for (const [rule, pattern] of checks) {
    for (const raw of texts) {
      const text = strip ? withoutLiterals(raw) : raw;
      if (pattern().test(text)) return { rule, detail: summarize(raw) };
    }
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

/** Here-strings and heredoc bodies (when the parser exposes them) feeding this segment. */
function stdinTexts(segment: Segment, env: PackEnv): string[] {
  const texts = segment.redirects.filter((r) => r.op === '<<<' || r.op === '<<' || r.op === '<<-').map((r) => r.target);
  for (const producer of upstreamOf(env.segments, env.index)) {
    if (producer.name === 'echo' || producer.name === 'printf') texts.push(producer.argv.slice(1).join(' '));
    texts.push(
      ...producer.redirects.filter((r) => r.op === '<<<' || r.op === '<<' || r.op === '<<-').map((r) => r.target),
    );
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
    return firstFinding(
      stdinTexts(segment, env),
      SQL_CHECKS.filter(([rule]) => rule === 'flush'),
      false,
    );
  }
  if (name === 'mongosh' || name === 'mongo') {
    const args = scan(segment.argv, {
      withValue: ['eval', 'host', 'port', 'u', 'username', 'p', 'password', 'authenticationDatabase', 'f', 'file'],
    });
    return firstFinding([...(args.values.get('eval') ?? []), ...stdinTexts(segment, env)], MONGO_CHECKS, false);
  }
  let sql: string[] | undefined;
  if (name === 'sqlite3' || name === 'sqlite' || name === 'duckdb') sql = sqlite(segment);
  else if (name === 'cockroach' && segment.argv[1] === 'sql') {
    const args = scan(segment.argv, {
      from: 2,
      withValue: ['e', 'execute', 'url', 'host', 'database', 'd', 'user', 'u'],
    });
    sql = [...(args.values.get('e') ?? []), ...(args.values.get('execute') ?? [])];
  } else {
    const client = SQL_CLIENTS[name];
    if (client === undefined) return undefined;
    const args = scan(segment.argv, { withValue: client.withValue });
    sql = client.sql.flatMap((key) => args.values.get(key) ?? []);
  }
  return firstFinding([...sql, ...stdinTexts(segment, env)], SQL_CHECKS, true);
}

export const databasePack = definePack<RuleId>({
  name: 'database',
  kind: 'guard',
  description:
    'DROP / TRUNCATE / FLUSHALL / DELETE without WHERE sent through psql, mysql, sqlite3, redis-cli, mongosh … (arguments and visible stdin)',
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
