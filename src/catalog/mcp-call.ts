/**
 * An MCP call read against the catalogue, at the edge (before the cascade, which does no I/O): which
 * server and tool it is, the catalogue entry it matches — if any — and each input field with its kind.
 * Path values are canonicalized like a Read's (symlinks resolved), SQL values classified (sql/classify.ts).
 *
 * Matching (docs/mcp.md, "How a call is matched"): a tool name `mcp__<server>__<tool>` (Claude Code; a plugin's
 * server is `plugin_<plugin>_<server>`) matches an entry when
 *   - the server is mapped to the entry in config (`mcp.servers`), or, unmapped, is the entry's name or an alias;
 *   - the entry has the tool; and
 *   - every field of the input is one the entry lists for the tool (closed world: an unknown field means a
 *     different tool behind the same name, so the call is judged as an unknown tool).
 * An unknown tool's fields get a kind from their values (guessKind): free text stays free, anything that looks
 * like a path, URL, SQL, code or an identifier is judged every time.
 */
import type { ResolvedPath, ToolCall } from '../core/tool-call.js';
import { resolvePath, type PathContext } from '../paths/canonical.js';
import { classifySql, type SqlClassification } from '../sql/classify.js';
import type { McpServerMapping } from '../policy/mcp-settings.js';
import { NO_ENTRY } from '../policy/mcp-settings.js';
import { mcpServers } from './mcp-table.generated.js';
import type { McpFieldKind, McpServerEntry, McpToolEntry } from './mcp-grammar.js';

export interface McpToolName {
  server: string;
  tool: string;
}

export interface McpMatch {
  entry: McpServerEntry;
  tool: McpToolEntry;
  /** How the server name led to the entry. */
  via: 'name' | 'config';
  /** Where the mapping was written (config) or the entry file (name). */
  source: string;
  /** False when a project file mapped the server: the entry's knowledge may only tighten (mcp-config.ts). */
  trusted: boolean;
}

export interface McpField {
  name: string;
  kind: McpFieldKind;
  /** The field's string values (an array's elements, an object's leaves), as sent. */
  values: string[];
  /** The kind was guessed from the values (an unknown tool), not read from an entry. */
  guessed: boolean;
  /** SQL fields: what the SQL does. */
  sql?: SqlClassification;
  /** Path fields: the values canonicalized. */
  paths?: ResolvedPath[];
}

/** The slice of the cascade's context the mcp tier reads: the call read against the catalogue (at the edge). */
export interface McpContext {
  mcp?: PreparedMcp;
}

export interface PreparedMcp {
  name: McpToolName;
  match?: McpMatch;
  /** Why no entry matched (shown by explain). */
  unmatched: string | undefined;
  fields: McpField[];
}

/** String leaves read per call at most, and nesting depth: past either, the field is of unknown kind. */
export const MAX_LEAVES = 2000;
export const MAX_DEPTH = 16;

const TOOL_NAME = /^mcp__(.+?)__(.+)$/;

export function mcpToolName(tool: string): McpToolName | undefined {
  const m = TOOL_NAME.exec(tool);
  return m === null ? undefined : { server: m[1]!, tool: m[2]! };
}

let byName: Map<string, McpServerEntry> | undefined;
let byServer: Map<string, McpServerEntry> | undefined;

/** The catalogue's servers by every name and alias, and by entry name (built on the first MCP call). */
function serverMaps(): { byName: Map<string, McpServerEntry>; byServer: Map<string, McpServerEntry> } {
  if (byName === undefined || byServer === undefined) {
    byName = new Map();
    for (const entry of mcpServers()) for (const name of [entry.server, ...entry.aliases]) byName.set(name, entry);
    byServer = new Map(mcpServers().map((e) => [e.server, e]));
  }
  return { byName, byServer };
}

/** The names a server may go by: itself, and for a Claude Code plugin's server (`plugin_<plugin>_<server>`) each tail. */
function serverNames(server: string): string[] {
  const names = [server];
  if (server.startsWith('plugin_')) {
    const parts = server.slice('plugin_'.length).split('_');
    for (let i = 1; i < parts.length; i++) names.push(parts.slice(i).join('_'));
  }
  return names;
}

export function lookupMcp(
  name: McpToolName,
  input: Record<string, unknown>,
  servers: Readonly<Record<string, McpServerMapping>>,
): { match: McpMatch } | { unmatched: string } {
  let entry: McpServerEntry | undefined;
  let via: McpMatch['via'] = 'name';
  let source = '';
  let trusted = true;
  for (const server of serverNames(name.server)) {
    const mapped = servers[server];
    if (mapped !== undefined) {
      if (mapped.entry === NO_ENTRY)
        return { unmatched: `${mapped.source} says server "${server}" has no catalogue entry` };
      entry = serverMaps().byServer.get(mapped.entry);
      via = 'config';
      source = mapped.source;
      trusted = mapped.trusted;
      break;
    }
    const named = serverMaps().byName.get(server);
    if (named !== undefined) {
      entry = named;
      source = named.file;
      break;
    }
  }
  if (entry === undefined)
    return { unmatched: `no catalogue entry for server "${name.server}" (map it with mcp.servers)` };
  const tool = entry.tools[name.tool];
  if (tool === undefined)
    return { unmatched: `the catalogue's ${entry.server} server (${entry.file}) has no tool "${name.tool}"` };
  const unknown = Object.keys(input).filter((f) => !Object.hasOwn(tool.fields, f));
  if (unknown.length > 0)
    return {
      unmatched: `the catalogue's ${entry.server}.${name.tool} takes no field ${unknown.map((f) => `"${f}"`).join(', ')}: a different tool under the same name`,
    };
  return { match: { entry, tool, via, source, trusted } };
}

/** What a tier needs to read an MCP call: the server mappings (compiled policy). */
export interface McpPolicy {
  mcp: { servers: Readonly<Record<string, McpServerMapping>> };
}

export function prepareMcp(call: ToolCall, policy: McpPolicy, pathContext: PathContext): PreparedMcp | undefined {
  const name = mcpToolName(call.tool);
  if (name === undefined) return undefined;
  const found = lookupMcp(name, call.input, policy.mcp?.servers ?? {});
  const match = 'match' in found ? found.match : undefined;
  const budget = { leaves: MAX_LEAVES };
  const fields: McpField[] = [];
  for (const [field, value] of Object.entries(call.input).sort(([a], [b]) => a.localeCompare(b))) {
    const values: string[] = [];
    const complete = leaves(value, values, 0, budget);
    const entryKind = match?.tool.fields[field];
    const kind: McpFieldKind = !complete ? 'unknown' : (entryKind ?? guessKinds(values));
    const out: McpField = { name: field, kind, values, guessed: entryKind === undefined };
    if (kind === 'sql') out.sql = classifySqlValues(values, match?.entry.dialect);
    if (kind === 'path-read' || kind === 'path-write' || kind === 'dir')
      out.paths = values.filter((v) => v !== '').map((v) => resolvePath(v, pathContext));
    fields.push(out);
  }
  return { name, match, unmatched: 'unmatched' in found ? found.unmatched : undefined, fields };
}

function classifySqlValues(values: string[], dialect: McpServerEntry['dialect']): SqlClassification {
  if (values.length === 1) return classifySql(values[0]!, dialect);
  return classifySql(values.join(';\n'), dialect);
}

/** Collects the string leaves of a value; false when the value is deeper or larger than judged. */
function leaves(value: unknown, out: string[], depth: number, budget: { leaves: number }): boolean {
  if (depth > MAX_DEPTH) return false;
  if (typeof value === 'string') {
    if (--budget.leaves < 0) return false;
    out.push(value);
    return true;
  }
  if (Array.isArray(value)) return value.every((v) => leaves(v, out, depth + 1, budget));
  if (value !== null && typeof value === 'object')
    return Object.values(value).every((v) => leaves(v, out, depth + 1, budget));
  return true; // numbers, booleans, null: free
}

/** Guessed kinds, strictest first: a field is as strict as its strictest value. */
const GUESS_ORDER: readonly McpFieldKind[] = ['code', 'sql', 'url', 'path-write', 'identifier', 'number', 'text'];

function guessKinds(values: readonly string[]): McpFieldKind {
  let best: McpFieldKind = 'text';
  for (const v of values) {
    const kind = guessKind(v);
    if (GUESS_ORDER.indexOf(kind) < GUESS_ORDER.indexOf(best)) best = kind;
  }
  return best;
}

const URLISH = /^[a-z][a-z0-9+.-]*:\/\/|^www\./i;
const SQLISH =
  /^\s*(?:select|insert|update|delete|create|alter|drop|truncate|with|grant|revoke|merge|copy|pragma|explain|replace|upsert|attach|vacuum|call|do)\b[\s\S]*\b(?:from|into|table|set|values|database|schema|on|to|as|where|index|view|role|extension|user)\b/i;
const PATHISH = /^(?:[~/]|\.{1,2}[/\\]|[A-Za-z]:[\\/])|[/\\]|^[\w.-]+\.[A-Za-z0-9]{1,8}$|^\.[\w.-]+$/;
/** Shell or script in a value: substitutions, chaining, a pipe into an interpreter, a command word after `:` or `;`. */
const CODEISH =
  /\$\(|`|&&|\|\||\|\s*(?:sh|bash|zsh|python3?|node|perl|ruby)\b|=>|\n[\s\S]*[{};]|(?:^|[;:]\s*)(?:curl|wget|rm|sudo|bash|sh|chmod|chown|nc|ssh|scp|eval|exec|python3?|node|powershell|iex)\s/i;
/** SQL spliced into text after a quote or a semicolon (an injection), wherever it starts. */
const SQL_SPLICED =
  /['";]\s*(?:drop|delete|truncate|insert|update|alter|grant|revoke|create|select|union|exec|attach|copy)\b/i;

/**
 * The kind an unknown tool's string value looks like. Only free text (words with spaces, no code or SQL in
 * them) and numbers are free; a single word is an identifier (a name, an id: judged every time).
 */
export function guessKind(value: string): McpFieldKind {
  const v = value.trim();
  if (v === '') return 'text';
  if (URLISH.test(v)) return 'url';
  if (SQLISH.test(v) || SQL_SPLICED.test(v)) return 'sql';
  if (/\s/.test(v)) return CODEISH.test(v) ? 'code' : 'text';
  if (/^-?\d+(?:\.\d+)?$/.test(v)) return 'number';
  if (PATHISH.test(v)) return 'path-write';
  return 'identifier';
}
