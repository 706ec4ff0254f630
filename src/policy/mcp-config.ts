/**
 * The config side of MCP (issue 29): which catalogue entry a configured server is, and what a role may do
 * with MCP tools.
 *
 *   mcp:                       # policy.yml or ~/.config/hookwise/config.yml
 *     servers:
 *       fs: filesystem         # the server named "fs" in your MCP config is the catalogue's filesystem server
 *       notes: none            # never match "notes" to an entry: its tools are unknown, learned per tool
 *
 *   roles:
 *     coder:
 *       mcp:
 *         deny: ["mcp__github__merge_pull_request"]  # globs over the tool name: denied for this role
 *         allow: ["mcp__github__create_*"]           # a write elsewhere allowed without asking (fields still judged)
 *         sql: read                                   # the strictest SQL class run without a human: none | read | row-write | schema
 *
 *     annotations:             # MCP tool annotations (readOnlyHint, destructiveHint, openWorldHint) by tool glob:
 *       "mcp__notes__*": { destructiveHint: true }   # they only tighten: a server can lie
 *
 * Trust: a project file may map a server, but a call it maps is never allowed on the entry's knowledge (only
 * its asks and denies apply): a cloned repository cannot turn an unknown server into a known read-only one.
 * A role's `mcp.allow` and an `sql` above `read` count only from the user's file; a project may deny and
 * lower the SQL class.
 */
import { mcpServers } from '../catalog/mcp-table.generated.js';
import { closest, type Diagnostic, type Schema } from './schema.js';
import {
  NO_ENTRY,
  SQL_CEILINGS,
  type McpAnnotation,
  type McpHints,
  type McpServerMapping,
  type McpSettings,
  type RoleMcp,
  type SqlCeiling,
  type ToolGlob,
} from './mcp-settings.js';

const GLOBS: Schema = { type: 'list', of: { type: 'string', nonEmpty: true } };

const HINT: Schema = { type: 'boolean' };

export const MCP_POLICY_SCHEMA: Schema = {
  type: 'object',
  fields: {
    annotations: {
      type: 'map',
      of: {
        type: 'object',
        fields: { readOnlyHint: HINT, destructiveHint: HINT, openWorldHint: HINT, idempotentHint: HINT },
      },
      keyPattern: /^mcp__[A-Za-z0-9_.*?-]+$/,
      keyHint: 'an MCP tool name or glob, e.g. mcp__notes__* or mcp__db__run_sql',
    },
    servers: {
      type: 'map',
      of: { type: 'string', nonEmpty: true },
      keyPattern: /^[A-Za-z0-9][A-Za-z0-9_.-]*$/,
      keyHint: 'the server name as in your MCP config (letters, digits, ., - and _)',
    },
  },
};

export const ROLE_MCP_SCHEMA: Schema = {
  type: 'object',
  fields: { allow: GLOBS, deny: GLOBS, sql: { type: 'enum', values: SQL_CEILINGS } },
};

export interface RawMcpConfig {
  servers?: Record<string, string>;
  annotations?: Record<string, McpHints>;
}
export interface RawRoleMcp {
  allow?: string[];
  deny?: string[];
  sql?: SqlCeiling;
}

export interface McpSource {
  label: string;
  lines: Map<string, number>;
  trusted: boolean;
  raw: { mcp?: RawMcpConfig };
}

type Report = (
  severity: Diagnostic['severity'],
  source: McpSource,
  field: string,
  problem: string,
  suggestion?: string,
) => void;

export function mergeMcpServers(sources: readonly McpSource[], report: Report): McpSettings {
  const servers: Record<string, McpServerMapping> = {};
  // Annotations only tighten (docs/mcp.md), so every scope's count.
  const annotations: McpAnnotation[] = sources.flatMap((source) =>
    Object.entries(source.raw.mcp?.annotations ?? {}).map(([glob, hints]) => ({
      glob,
      hints,
      source: `${source.label}:${source.lines.get(`mcp.annotations.${glob}`) ?? 1}`,
    })),
  );
  for (const source of sources) {
    for (const [name, entry] of Object.entries(source.raw.mcp?.servers ?? {})) {
      const field = `mcp.servers.${name}`;
      const entryNames = mcpServers().map((s) => s.server);
      if (entry !== NO_ENTRY && !entryNames.includes(entry)) {
        const near = closest(entry, entryNames);
        report(
          'error',
          source,
          field,
          `"${entry}" is not a server in hookwise's MCP catalogue (${entryNames.join(', ')}; or ${NO_ENTRY})`,
          near === undefined ? undefined : `did you mean "${near}"?`,
        );
        continue;
      }
      const held = servers[name];
      // The user's mapping stands over a project's; a project cannot re-map a server the user mapped.
      if (held !== undefined && held.trusted && !source.trusted) {
        if (held.entry !== entry)
          report('warning', source, field, `ignored: ~/.config/hookwise/config.yml maps "${name}" to ${held.entry}`);
        continue;
      }
      servers[name] = { entry, source: `${source.label}:${source.lines.get(field) ?? 1}`, trusted: source.trusted };
    }
  }
  return { servers, annotations };
}

/** A role's MCP settings after one scope's `roles.<name>.mcp`; what a project may not loosen is dropped with a warning. */
export function mergeRoleMcp(held: RoleMcp, raw: RawRoleMcp, source: McpSource, base: string, report: Report): RoleMcp {
  const at = (field: string): string => `${source.label}:${source.lines.get(field) ?? 1}`;
  const globs = (key: 'allow' | 'deny'): ToolGlob[] =>
    (raw[key] ?? []).flatMap((glob, i) => {
      const field = `${base}.mcp.${key}[${i}]`;
      if (!glob.startsWith('mcp__')) {
        report(
          'error',
          source,
          field,
          `"${glob}" is not an MCP tool glob`,
          'MCP tools are named mcp__<server>__<tool>, e.g. mcp__github__*',
        );
        return [];
      }
      return [{ glob, source: at(field) }];
    });
  const out: RoleMcp = { allow: held.allow, deny: [...held.deny, ...globs('deny')], sql: held.sql };
  if (raw.allow !== undefined) {
    if (source.trusted) out.allow = globs('allow');
    else
      report(
        'warning',
        source,
        `${base}.mcp.allow`,
        'ignored: a project file cannot allow MCP tools without asking',
        'set it in ~/.config/hookwise/config.yml',
      );
  }
  if (raw.sql !== undefined) {
    const looser = SQL_CEILINGS.indexOf(raw.sql) > SQL_CEILINGS.indexOf(held.sql.ceiling);
    if (looser && !source.trusted)
      report(
        'warning',
        source,
        `${base}.mcp.sql`,
        `ignored: "${raw.sql}" runs more SQL without a human than "${held.sql.ceiling}", and a project file can only tighten`,
        'set it in ~/.config/hookwise/config.yml',
      );
    else out.sql = { ceiling: raw.sql, source: at(`${base}.mcp.sql`) };
  }
  return out;
}
