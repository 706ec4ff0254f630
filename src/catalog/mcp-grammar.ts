/**
 * The vocabulary of the MCP catalogue (src/catalog/mcp/<server>.yml, compiled at build time into
 * mcp-table.generated.ts): what each tool of a server does, and what each field of its input is. The
 * program catalogue's value kinds (grammar.ts) are reused where they fit; MCP inputs add their own.
 */
import { VALUE_KINDS } from './grammar.js';
import { SQL_DIALECTS, type SqlDialect } from '../sql/parser.js';

/** What a tool does apart from the fields judged one by one. */
export const MCP_EFFECTS = [
  'none', // computes only (time, sequential thinking)
  'reads-local', // reads this machine's files or a local store (paths are judged like Read/Glob)
  'writes-local', // writes this machine's files or a local store (paths are judged like Write)
  'reads-remote', // reads a service or the web (URLs are judged like WebFetch)
  'writes-remote', // changes something elsewhere: an issue, a pull request, a page's form
  'executes', // runs code or commands the call carries
] as const;
export type McpEffect = (typeof MCP_EFFECTS)[number];

/** The program catalogue's kinds, plus SQL, identifiers (names and ids of things) and flags (booleans). */
export const MCP_FIELD_KINDS = [...VALUE_KINDS, 'sql', 'identifier', 'flag'] as const;
export type McpFieldKind = (typeof MCP_FIELD_KINDS)[number];

/**
 * Kinds whose value never changes what a call does to the machine or the world beyond its effect: a
 * search query, a note's body, a count. A human's approval of a call carries over to calls that differ only
 * in these (memory/subject.ts). Everything else is judged every time.
 */
export const FREE_KINDS: ReadonlySet<McpFieldKind> = new Set(['text', 'pattern', 'number', 'enum', 'flag']);

export interface McpToolEntry {
  effect: McpEffect;
  /** Every field the tool takes: a call with a field not listed here is not this tool (closed world). */
  fields: Record<string, McpFieldKind>;
}

export interface McpServerEntry {
  /** The catalogue's name for the server (the file's name). */
  server: string;
  /** Other names users give the server in their MCP config. */
  aliases: string[];
  /** The SQL dialect of its SQL fields. */
  dialect?: SqlDialect;
  /** The server's schema or docs the entry was written from. */
  source: string;
  /** The entry file, relative to the repository. */
  file: string;
  tools: Record<string, McpToolEntry>;
}

export { SQL_DIALECTS };
