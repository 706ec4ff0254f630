/**
 * The SQL parser: node-sql-parser's per-dialect builds, loaded on first use (each is ~300 KB of generated
 * code; a call with no SQL in it never pays for one). Why this parser: see the commit that added it and
 * docs/mcp.md — it covers the three dialects agents send (PostgreSQL, MySQL, SQLite) in one synchronous
 * JavaScript API, where the real PostgreSQL parser (libpg-query, WASM) covers one dialect and loads
 * asynchronously.
 */
import { createRequire } from 'node:module';

export const SQL_DIALECTS = ['postgresql', 'mysql', 'sqlite'] as const;
export type SqlDialect = (typeof SQL_DIALECTS)[number];

export interface SqlParser {
  astify(sql: string, options: { database: string }): unknown;
}

const parsers = new Map<SqlDialect, SqlParser>();

export function loadParser(dialect: SqlDialect): SqlParser {
  let parser = parsers.get(dialect);
  if (parser === undefined) {
    const load = createRequire(typeof __filename === 'string' ? __filename : import.meta.url);
    const mod = load(`node-sql-parser/build/${dialect}`) as { Parser: new () => SqlParser };
    parser = new mod.Parser();
    parsers.set(dialect, parser);
  }
  return parser;
}
