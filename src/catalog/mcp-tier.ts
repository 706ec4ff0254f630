/**
 * The MCP tier: an MCP call judged field by field, by the catalogue entry it matches (mcp-call.ts) or, for
 * an unknown tool, by what its values look like. Hookwise's own MCP tools are the tool-policy tier's.
 *
 *   - a role's `mcp.deny` glob → deny; the `rules:` that name the tool are weighed as for any tool;
 *   - paths like a Read/Glob (path-read, dir) or a Write (path-write), through path policy: sensitive paths
 *     ask, the role's globs apply;
 *   - URLs like a WebFetch: cloud metadata addresses are denied, other schemes than http(s) asked; any other
 *     URL passes to memory (remembered by origin, so one approval covers a site);
 *   - SQL by class (sql/classify.ts) against the role's `mcp.sql` (read by default): up to it → allowed;
 *     row writes and schema changes above it → pass (a human, then memory of that exact statement);
 *     administration and SQL hookwise cannot read → ask, every time;
 *   - code and commands → pass (never allowed on knowledge; an approval covers that exact code only);
 *   - identifiers, text, patterns, numbers, flags: nothing to judge here.
 * Then the tool's effect: computing and reading (none, reads-local, reads-remote) is allowed once every
 * field is; writing locally is allowed when every path it writes is; writing elsewhere or executing passes
 * to memory and a human — unless the role's `mcp.allow` names the tool (the user's own config only).
 * An entry mapped by a project file never allows (only its asks and denies count).
 *
 * An unknown tool (no entry): sensitive paths, metadata URLs and SQL past row writes are caught here; the rest
 * passes to memory, where an approval covers calls that differ only in free text (memory/subject.ts).
 */
import { isIP } from '../util/ip.js';
import { decision, stricter, type Decision } from '../core/decision.js';
import type { SyncTier } from '../core/tier.js';
import type { PolicyContext } from '../policy/context.js';
import type { ResolvedPath } from '../core/tool-call.js';
import { normalizeRequestHost, specialAddress } from '../confine/allowlist.js';
import { judgeRead, judgeSensitiveRead, judgeWrite } from '../policy/path-policy.js';
import { DEFAULT_ROLE_MCP, SQL_CEILINGS, toolGlobSource, type RoleMcp, type ToolGlob } from '../policy/mcp-settings.js';
import { judgeTool } from '../policy/rules.js';
import type { SqlClass } from '../sql/classify.js';
import type { McpContext, McpField, PreparedMcp } from './mcp-call.js';

export type McpTierContext = PolicyContext & McpContext;

const BUILT_IN = 'built-in (MCP catalogue)';

/** Each field's judgement, for the tier and for `explain`: a decision, undecided (passes on), or nothing to judge. */
export function fieldVerdicts(ctx: McpTierContext, mcp: PreparedMcp): { field: McpField; verdict: FieldVerdict }[] {
  const settings: RoleMcp = ctx.role.role.mcp ?? DEFAULT_ROLE_MCP;
  return mcp.fields.map((field) => ({ field, verdict: judgeField(field, ctx, settings) }));
}

/** A field's judgement: a decision, or undecided (the call passes on unless something stricter decides). */
export type FieldVerdict = Decision | 'undecided' | undefined;

export const mcpTier: SyncTier<McpTierContext> = {
  name: 'mcp',
  decide(ctx) {
    const mcp = ctx.mcp;
    if (mcp === undefined) return undefined;
    return judgeMcp(ctx, mcp);
  },
};

export function judgeMcp(ctx: McpTierContext, mcp: PreparedMcp): Decision | undefined {
  const role = ctx.role.role;
  const settings: RoleMcp = role.mcp ?? DEFAULT_ROLE_MCP;
  const tool = ctx.call.tool;
  const denied = globMatch(settings.deny, tool);
  if (denied !== undefined)
    return decision('deny', 'mcp', `role "${role.name}" may not use ${tool} (mcp.deny "${denied.glob}")`, {
      id: `role:${role.name}:mcp_deny:${denied.glob}`,
      source: denied.source,
    });
  const hints = hintsFor(ctx, tool);
  if (hints.destructive !== undefined)
    return decision(
      'ask',
      'mcp',
      `${tool} is annotated destructive (destructiveHint, ${hints.destructive}): a human confirms every call`,
      { id: 'mcp:annotation:destructive', source: hints.destructive },
    );
  const rules = judgeTool(ctx.call, ctx.policy);
  let strict: Decision | undefined;
  let undecided = false;
  const allowedFields: string[] = [];
  for (const { verdict: v } of fieldVerdicts(ctx, mcp)) {
    if (v === 'undecided') undecided = true;
    else if (v !== undefined && v.verdict !== 'allow') strict = stricter(strict, v);
    else if (v !== undefined) allowedFields.push(v.reason);
  }
  if (strict !== undefined) return stricter(strict, rules);
  const allowed = globMatch(settings.allow, tool);
  const match = mcp.match;
  if (match === undefined) {
    if (allowed !== undefined && !undecided) return stricter(roleAllow(role.name, tool, allowed), rules);
    return rules;
  }
  const effect = match.tool.effect;
  const writesPaths = mcp.fields.some((f) => f.kind === 'path-write');
  const needsHuman = effect === 'writes-remote' || effect === 'executes' || (effect === 'writes-local' && !writesPaths);
  // A tool annotated as not read-only, or as reaching an open world the entry does not say it reaches, is not
  // allowed on the entry's knowledge: annotations only tighten.
  const tightened =
    hints.writes !== undefined || (hints.openWorld !== undefined && (effect === 'none' || effect === 'reads-local'));
  if (undecided || (needsHuman && allowed === undefined) || !match.trusted || (tightened && allowed === undefined))
    return rules;
  if (needsHuman) return stricter(roleAllow(role.name, tool, allowed!), rules);
  const what = `${match.entry.server}.${mcp.name.tool}`;
  return stricter(
    decision(
      'allow',
      'mcp',
      `${tool} is ${what} (${EFFECT_TEXT[effect]}), and every field of this call is allowed for role "${role.name}"${allowedFields.length === 0 ? '' : ` (${allowedFields.join('; ')})`}`,
      {
        id: `mcp:${match.entry.server}:${mcp.name.tool}`,
        source: match.entry.file,
      },
    ),
    rules,
  );
}

const EFFECT_TEXT = {
  none: 'computes only',
  'reads-local': 'reads local files',
  'writes-local': 'writes local files',
  'reads-remote': 'reads a service or the web',
  'writes-remote': 'changes something elsewhere',
  executes: 'runs code',
} as const;

function roleAllow(role: string, tool: string, glob: ToolGlob): Decision {
  return decision(
    'allow',
    'mcp',
    `role "${role}" may use ${tool} (mcp.allow "${glob.glob}"); every judged field of this call is allowed`,
    {
      id: `role:${role}:mcp_allow:${glob.glob}`,
      source: glob.source,
    },
  );
}

/** Where each tightening annotation of this tool was written; hints that would loosen are ignored. */
function hintsFor(ctx: McpTierContext, tool: string): { destructive?: string; writes?: string; openWorld?: string } {
  const out: { destructive?: string; writes?: string; openWorld?: string } = {};
  for (const a of ctx.policy.mcp?.annotations ?? []) {
    if (!globMatch([a], tool)) continue;
    if (a.hints.destructiveHint === true) out.destructive ??= a.source;
    if (a.hints.readOnlyHint === false) out.writes ??= a.source;
    if (a.hints.openWorldHint === true) out.openWorld ??= a.source;
  }
  return out;
}

const globCache = new Map<string, RegExp>();

function globMatch(globs: readonly ToolGlob[], tool: string): ToolGlob | undefined {
  return globs.find((g) => {
    let re = globCache.get(g.glob);
    if (re === undefined) globCache.set(g.glob, (re = new RegExp(toolGlobSource(g.glob))));
    return re.test(tool);
  });
}

function judgeField(field: McpField, ctx: McpTierContext, settings: RoleMcp): FieldVerdict {
  const prefix = (d: Decision | undefined): Decision | undefined =>
    d === undefined ? undefined : { ...d, tier: 'mcp', reason: `${field.name}: ${d.reason}` };
  switch (field.kind) {
    case 'path-read':
    case 'dir':
    case 'path-write': {
      const paths = field.paths ?? [];
      if (field.guessed) return all(paths, (p) => prefix(guessedPath(p, ctx)), true);
      const judge =
        field.kind === 'path-write'
          ? (p: ResolvedPath) => judgeWrite(p, ctx)
          : (p: ResolvedPath) => judgeRead(p, ctx, field.kind === 'dir');
      return all(paths, (p) => prefix(judge(p)), false);
    }
    case 'url':
    case 'host':
      return all(field.values, (v) => judgeUrl(v, field), false);
    case 'sql':
      return judgeSql(field, settings);
    case 'code':
    case 'program':
    case 'process':
    case 'unknown':
      return field.values.length === 0 && field.kind !== 'unknown' ? undefined : 'undecided';
    case 'identifier':
      // An unknown tool's identifiers are remembered by value (memory/subject.ts); nothing to judge here.
      return undefined;
    case 'text':
    case 'pattern':
    case 'number':
    case 'enum':
    case 'flag':
      return undefined;
  }
}

/**
 * The strictest of the values' judgements. A value no tier decides leaves the field undecided — for an
 * entry's fields, or for any value at all when `quietWhenUndecided` (an unknown tool's guessed paths: only
 * a sensitive path decides there, the rest is memory's).
 */
function all<T>(
  values: readonly T[],
  judge: (v: T) => Decision | undefined,
  quietWhenUndecided: boolean,
): FieldVerdict {
  let out: Decision | undefined;
  let undecided = false;
  for (const v of values) {
    const d = judge(v);
    if (d === undefined) undecided = true;
    out = stricter(out, d);
  }
  if (out !== undefined && out.verdict !== 'allow') return out;
  if (undecided) return quietWhenUndecided ? undefined : 'undecided';
  return out;
}

/** An unknown tool's path-like value: only what needs a human whatever the tool does (credentials, hookwise's state). */
function guessedPath(path: ResolvedPath, ctx: McpTierContext): Decision | undefined {
  const write = judgeWrite(path, ctx);
  if (write !== undefined && write.verdict === 'ask') return write;
  return judgeSensitiveRead(path, ctx, false);
}

/** Cloud instance metadata: credentials for the machine's role, one request away. */
const METADATA_NAMES = new Set(['metadata.google.internal', 'metadata', 'metadata.azure.com', 'instance-data']);
const METADATA_ADDRESSES = new Set([
  '169.254.169.254',
  '169.254.170.2',
  '100.100.100.200',
  'fd00:ec2::254',
  '192.0.0.192',
]);
/** A host name that spells an address (169.254.169.254.nip.io): it can resolve anywhere the spelling says. */
const SPELLED_ADDRESS = /(?:^|[.-])\d{1,3}[.-]\d{1,3}[.-]\d{1,3}[.-]\d{1,3}(?:[.-]|$)/;

function judgeUrl(value: string, field: McpField): Decision | undefined {
  const where = `${field.name}: ${value.length > 80 ? `${value.slice(0, 77)}…` : value}`;
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:/i.test(value) ? value : `https://${value}`);
  } catch {
    return decision('ask', 'mcp', `${where} is not a URL hookwise can read, so a human decides`, {
      id: 'mcp:url-unreadable',
      source: BUILT_IN,
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return decision(
      'ask',
      'mcp',
      `${where} is a ${url.protocol} URL (not http or https): a human decides what it reaches`,
      {
        id: 'mcp:url-scheme',
        source: BUILT_IN,
      },
    );
  const host = normalizeRequestHost(url.hostname) ?? url.hostname.toLowerCase();
  if (METADATA_NAMES.has(host) || METADATA_ADDRESSES.has(host) || specialAddress(host) === 'link-local')
    return decision(
      'deny',
      'mcp',
      `${where} is the cloud instance metadata service (${host}), which hands out the machine's credentials. Read what you need from the provider's documented APIs instead`,
      { id: 'mcp:url-metadata', source: BUILT_IN },
    );
  if (SPELLED_ADDRESS.test(host) && isIP(host) === 0)
    return decision(
      'ask',
      'mcp',
      `${where}: the host name ${host} spells an address, which can point anywhere (cloud metadata included), so a human decides`,
      {
        id: 'mcp:url-spelled-address',
        source: BUILT_IN,
      },
    );
  if (specialAddress(host) === 'unspecified' || specialAddress(host) === 'multicast')
    return decision('ask', 'mcp', `${where} names ${host}, not an ordinary host, so a human decides`, {
      id: 'mcp:url-special',
      source: BUILT_IN,
    });
  return undefined; // an ordinary URL: like a WebFetch, memory or a human decides (remembered by origin)
}

function judgeSql(field: McpField, settings: RoleMcp): FieldVerdict {
  const sql = field.sql;
  if (sql === undefined) return 'undecided';
  const kinds = sql.statements.map((s) => s.kind).join('; ');
  const why = sql.problem ?? sql.statements.find((s) => s.class === sql.class)?.why;
  const text = `${field.name}: ${sql.class === 'unknown' ? CLASS_TEXT.unknown : `${CLASS_TEXT[sql.class]} (${kinds})`}${why === undefined ? '' : ` — ${why}`}`;
  const ref = (id: string) => ({ id: `mcp:sql:${id}`, source: BUILT_IN });
  switch (sql.class) {
    case 'admin':
      return decision('ask', 'mcp', `${text}: administration always needs a human`, ref('admin'));
    case 'unknown':
      // An unknown tool's text that only looked like SQL is remembered by value; an entry's SQL field is asked.
      return field.guessed ? 'undecided' : decision('ask', 'mcp', `${text}, so a human decides`, ref('unknown'));
    case 'read':
    case 'row-write':
    case 'schema': {
      // An unknown tool may not run its text at all: reads and row writes are remembered by value, the rest passes.
      if (field.guessed) return sql.class === 'schema' ? 'undecided' : undefined;
      const ceiling = settings.sql.ceiling;
      if (SQL_CEILINGS.indexOf(ceiling) >= SQL_CEILINGS.indexOf(sql.class))
        return decision('allow', 'mcp', `${text}, within the role's SQL class (mcp.sql: ${ceiling})`, {
          id: `mcp:sql:${sql.class}`,
          source: settings.sql.source,
        });
      return 'undecided';
    }
  }
}

const CLASS_TEXT: Record<SqlClass, string> = {
  read: 'SQL that only reads',
  'row-write': 'SQL that writes rows',
  schema: 'SQL that changes the schema',
  admin: 'SQL that administers the server',
  unknown: 'SQL hookwise cannot classify',
};
