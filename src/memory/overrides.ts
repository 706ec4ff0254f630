/**
 * Explicit overrides (`hookwise override`): a human's standing decision for a pattern of calls, stored in
 * the decision store like any record (tier `override`, subject `Tool` or `Tool(pattern)`).
 *
 * Patterns: for Bash, a glob over each segment's normalized text (`*` any text, `?` one character:
 * `npm run *`, `git push origin feature/*`); for file tools, a path glob over the root-relative path (or
 * the absolute path outside the root: `*` within a directory, `**` across); for other tools, a glob over the
 * subject (a URL, a query, the input's JSON). No pattern: every call of the tool.
 *
 * Two tiers, one rule (they are one module because they are one concept):
 *   - `overrideTightenTier` runs before the policy tiers: a deny or ask override always applies —
 *     tightening is always safe, even over what the policy allows;
 *   - `overrideAllowTier` runs after them and before the cache: an allow override decides what the policy
 *     left open, and beats remembered decisions. It never lifts a sensitive path, a pack or rule deny/ask,
 *     or a role's deny_write — those decided earlier.
 * A Bash call is allowed by overrides only if every segment matches an allow override; any segment matching
 * a deny/ask override tightens the whole call.
 */
import type { CascadeContext, Tier } from '../cascade.js';
import { decision, type Decision } from '../core/decision.js';
import { mergeScopes } from '../policy/scopes.js';
import { lazyRe2, type RE2 } from '../util/re2.js';
import { xxh3Hex } from '../util/xxhash.js';
import { describeRecord, recordSource } from './cache.js';
import { ANY_ROLE, type LoadedRecord } from './store.js';

export interface CompiledOverride {
  record: LoadedRecord;
  tool: string;
  /** The pattern as written, if any. */
  pattern?: string;
  /** Full-match matcher of the pattern (RE2, compiled on first use). */
  matcher?: () => RE2;
}

const SUBJECT = /^([A-Za-z0-9_.*-]+)(?:\((.*)\))?$/s;

/** `Tool` or `Tool(pattern)`: the stored form of an override. */
export function overrideSubject(tool: string, pattern?: string): string {
  return pattern === undefined ? tool : `${tool}(${pattern})`;
}

export function parseOverrideSubject(subject: string): { tool: string; pattern?: string } | undefined {
  const m = SUBJECT.exec(subject);
  if (m === null) return undefined;
  return m[2] === undefined ? { tool: m[1]! } : { tool: m[1]!, pattern: m[2] };
}

/** The store key of an override: one identity per (tool, pattern), so a newer override replaces it. */
export function overrideKey(tool: string, pattern?: string): string {
  return `override:${xxh3Hex(overrideSubject(tool, pattern))}`;
}

const escape = (c: string): string => (/[\\^$.|?*+()[\]{}]/.test(c) ? `\\${c}` : c);

/** A command or text glob: `*` any text, `?` one character. */
export function textGlobSource(glob: string): string {
  let out = '';
  for (const c of glob) out += c === '*' ? '.*' : c === '?' ? '.' : escape(c);
  return `^${out}$`;
}

/** A path glob: `**` across directories, `*` and `?` within one. */
export function pathGlobSource(glob: string): string {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      const slash = glob[i + 2] === '/';
      out += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else out += c === '*' ? '[^/]*' : c === '?' ? '[^/]' : escape(c);
  }
  return `^${out}$`;
}

const FILE_ACTIONS = new Set(['write', 'read']);

export function compileOverride(record: LoadedRecord, fileTool: (tool: string) => boolean): CompiledOverride | undefined {
  const parsed = parseOverrideSubject(record.subject);
  if (parsed === undefined) return undefined;
  if (parsed.pattern === undefined) return { record, tool: parsed.tool };
  const source = fileTool(parsed.tool) ? pathGlobSource(parsed.pattern) : textGlobSource(parsed.pattern);
  return { record, tool: parsed.tool, pattern: parsed.pattern, matcher: lazyRe2(source) };
}

/** The texts an override pattern is matched against, one per part of the call (segment, path). */
function partsOf(ctx: CascadeContext): string[] {
  const { call } = ctx;
  if (call.action === 'shell') return ctx.memory?.subject()?.segments ?? [];
  if (FILE_ACTIONS.has(call.action)) return ctx.paths.map((p) => p.relative ?? p.absolute);
  const text = ctx.memory?.subject()?.text;
  return text === undefined ? [] : [text];
}

/** Per part of the call, the effective override (or undefined where none matches). */
function matchParts(ctx: CascadeContext): (LoadedRecord | undefined)[] {
  const overrides = ctx.memory?.view.overrides ?? [];
  if (overrides.length === 0) return [];
  const role = ctx.role.role.name;
  const applicable = overrides.filter((o) => (o.tool === ctx.call.tool || o.tool === '*') && (o.record.role === role || o.record.role === ANY_ROLE));
  if (applicable.length === 0) return [];
  const parts = partsOf(ctx);
  if (parts.length === 0) {
    // Nothing to match a pattern against (an unparseable command): only a tool-wide override applies.
    return [mergeScopes(applicable.filter((o) => o.matcher === undefined).map((o) => o.record))];
  }
  return parts.map((part) => mergeScopes(applicable.filter((o) => o.matcher === undefined || o.matcher().test(part)).map((o) => o.record)));
}

function overrideDecision(r: LoadedRecord, ctx: CascadeContext): Decision {
  return decision(r.verdict, 'override', `override ${r.subject}: ${describeRecord(r)} set it to ${r.verdict}`, {
    id: `override:${r.subject}`,
    source: recordSource(r, ctx.projectRoot),
  });
}

export const overrideTightenTier: Tier = {
  name: 'override',
  decide(ctx) {
    const strict = mergeScopes(matchParts(ctx).filter((r): r is LoadedRecord => r !== undefined && r.verdict !== 'allow'));
    return strict === undefined ? undefined : overrideDecision(strict, ctx);
  },
};

export const overrideAllowTier: Tier = {
  name: 'override',
  decide(ctx) {
    const parts = matchParts(ctx);
    if (parts.length === 0 || parts.some((r) => r?.verdict !== 'allow')) return undefined;
    return overrideDecision(parts[0]!, ctx);
  },
};
