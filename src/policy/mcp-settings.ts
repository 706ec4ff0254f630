/**
 * The MCP settings as the cascade reads them (compiled policy): server mappings, annotations, a role's MCP
 * globs and SQL class. Kept apart from their schema and merge (mcp-config.ts), which need the YAML parser:
 * the hook's hot path loads this, never that.
 */

export const SQL_CEILINGS = ['none', 'read', 'row-write', 'schema'] as const;
export type SqlCeiling = (typeof SQL_CEILINGS)[number];
export const DEFAULT_SQL_CEILING: SqlCeiling = 'read';

/** A configured server name that is never matched to an entry. */
export const NO_ENTRY = 'none';

export interface McpHints {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  openWorldHint?: boolean;
  idempotentHint?: boolean;
}

export interface McpServerMapping {
  entry: string;
  source: string;
  /** From the user's own file: the entry's allows apply. From a project file: only its asks and denies. */
  trusted: boolean;
}

/** A server's MCP tool annotations, as a config passes them (a server can lie: they only ever tighten). */
export interface McpAnnotation {
  glob: string;
  hints: McpHints;
  source: string;
}

export interface McpSettings {
  servers: Record<string, McpServerMapping>;
  annotations: McpAnnotation[];
}

export interface ToolGlob {
  glob: string;
  source: string;
}

export interface RoleMcp {
  allow: ToolGlob[];
  deny: ToolGlob[];
  sql: { ceiling: SqlCeiling; source: string };
}

export const DEFAULT_ROLE_MCP: RoleMcp = {
  allow: [],
  deny: [],
  sql: { ceiling: DEFAULT_SQL_CEILING, source: 'built-in' },
};

/** `mcp__github__*` → a regex source over the whole tool name (`*` any run of characters, `?` one). */
export function toolGlobSource(glob: string): string {
  return `^${glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.')}$`;
}
