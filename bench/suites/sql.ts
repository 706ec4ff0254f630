/**
 * The SQL classifier (src/sql/classify.ts), in process with the parser warm: what one statement costs an MCP
 * SQL field or a `psql -c` (split, parse with node-sql-parser, walk the tree), and a five-statement migration
 * script (per call: divide by five for a statement). The first call of a process also loads the dialect's
 * parser (~300 KB of generated code): `sql.classify.cold-load` measures that once per dialect.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCommand } from '../../src/shell/parse.js';
import { readSqlFiles } from '../../src/shell/sql-files.js';
import { classifySql } from '../../src/sql/classify.js';
import { runInProcess } from '../in-process.js';
import { summarize } from '../stats.js';
import type { BenchSize, Measurement, Suite } from '../suite.js';

export const SQL_SELECT =
  "SELECT o.id, o.total, c.email FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.state = 'paid' AND o.created_at > now() - interval '7 days' ORDER BY o.total DESC LIMIT 20";

export const SQL_SCRIPT = [
  'BEGIN',
  'CREATE TABLE audit_log (id serial primary key, at timestamptz not null default now(), note text)',
  "INSERT INTO audit_log (note) VALUES ('migration 42')",
  "UPDATE settings SET value = 'on' WHERE key = 'audit'",
  'COMMIT',
].join(';\n');

export const sqlSuite: Suite = {
  name: 'sql',
  measures: ['sql.classify.statement', 'sql.classify.script', 'sql.classify.cold-load', 'sql.file.read'],
  run: async ({ size }) => [...(await measureSqlClassifier(size)), ...(await measureSqlFileRead(size))],
};

/**
 * The edge's read of `psql -f db/migrate.sql` (shell/sql-files.ts) on a real file in a temp project: resolve,
 * lstat, open, read, sanitize, find includes — what a SQL file adds before the classifier (sql.classify.script)
 * judges its statements. The command is parsed once, untimed: the parse is the shell's own row.
 */
async function measureSqlFileRead(size: BenchSize): Promise<Measurement[]> {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'hookwise-bench-sql-')));
  try {
    const root = join(base, 'project');
    mkdirSync(join(root, 'db'), { recursive: true });
    writeFileSync(join(root, 'db', 'migrate.sql'), `${SQL_SCRIPT};\n`);
    const parsed = parseCommand('psql -d app -f db/migrate.sql');
    if (!parsed.ok) throw new Error('sql bench: the psql command does not parse');
    const ctx = { projectRoot: root, home: base, cwd: root };
    const read = readSqlFiles(parsed.segments, ctx);
    if (read === undefined || ![...read.files.values()].every((f) => 'text' in f))
      throw new Error('sql bench: the SQL file was not read');
    return await runInProcess([{ id: 'sql.file.read', batch: 1, fn: () => readSqlFiles(parsed.segments, ctx) }], size);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

/** The suite's rows; `hookwise bench --eval-mcp` reports them too. */
export async function measureSqlClassifier(size: BenchSize): Promise<Measurement[]> {
  if (classifySql(SQL_SELECT).class !== 'read') throw new Error('sql bench: the SELECT is not classified read');
  if (classifySql(SQL_SCRIPT).class !== 'schema') throw new Error('sql bench: the script is not classified schema');
  const warm = await runInProcess(
    [
      { id: 'sql.classify.statement', batch: 1, fn: () => classifySql(SQL_SELECT) },
      { id: 'sql.classify.script', batch: 1, fn: () => classifySql(SQL_SCRIPT) },
    ],
    size,
  );
  return [...warm, coldLoad()];
}

/** Loading a dialect's parser afresh (a hook process's first SQL): the module cache is bypassed. */
function coldLoad(): Measurement {
  const load = createRequire(typeof __filename === 'string' ? __filename : import.meta.url);
  const samples: number[] = [];
  for (const dialect of ['postgresql', 'mysql', 'sqlite']) {
    const path = load.resolve(`node-sql-parser/build/${dialect}`);
    delete load.cache[path];
    const started = process.hrtime.bigint();
    const mod = load(path) as { Parser: new () => { astify(s: string, o: object): unknown } };
    new mod.Parser().astify('SELECT 1', { database: dialect });
    samples.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return { id: 'sql.classify.cold-load', ...summarize(samples) };
}
