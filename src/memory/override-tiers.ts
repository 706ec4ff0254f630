/**
 * The override tiers (overrides themselves: memory/overrides.ts).
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
import { decision, type Decision } from '../core/decision.js';
import type { SyncTier } from '../core/tier.js';
import type { MemoryTierContext } from './context.js';
import { mergeScopes } from '../policy/scopes.js';
import { describeRecord, recordSource } from './cache.js';
import { ANY_ROLE, type LoadedRecord } from './store.js';

const FILE_ACTIONS = new Set(['write', 'read']);

/** The texts an override pattern is matched against, one per part of the call (segment, path). */
function partsOf(ctx: MemoryTierContext): string[] {
  const { call } = ctx;
  if (call.action === 'shell') return ctx.memory?.subject()?.segments ?? [];
  if (FILE_ACTIONS.has(call.action)) return ctx.paths.map((p) => p.relative ?? p.absolute);
  const text = ctx.memory?.subject()?.text;
  return text === undefined ? [] : [text];
}

/** Per part of the call, the effective override (or undefined where none matches). */
function matchParts(ctx: MemoryTierContext): (LoadedRecord | undefined)[] {
  const overrides = ctx.memory?.view.overrides ?? [];
  if (overrides.length === 0) return [];
  const role = ctx.role.role.name;
  const applicable = overrides.filter(
    (o) => (o.tool === ctx.call.tool || o.tool === '*') && (o.record.role === role || o.record.role === ANY_ROLE),
  );
  if (applicable.length === 0) return [];
  const parts = partsOf(ctx);
  if (parts.length === 0) {
    // Nothing to match a pattern against (an unparseable command): only a tool-wide override applies.
    return [mergeScopes(applicable.filter((o) => o.matcher === undefined).map((o) => o.record))];
  }
  return parts.map((part) =>
    mergeScopes(applicable.filter((o) => o.matcher === undefined || o.matcher().test(part)).map((o) => o.record)),
  );
}

function overrideDecision(r: LoadedRecord, ctx: MemoryTierContext): Decision {
  return decision(r.verdict, 'override', `override ${r.subject}: ${describeRecord(r)} set it to ${r.verdict}`, {
    id: `override:${r.subject}`,
    source: recordSource(r, ctx.projectRoot),
  });
}

export const overrideTightenTier: SyncTier<MemoryTierContext> = {
  name: 'override',
  step: 'override (deny/ask)',
  decide(ctx) {
    const strict = mergeScopes(
      matchParts(ctx).filter((r): r is LoadedRecord => r !== undefined && r.verdict !== 'allow'),
    );
    return strict === undefined ? undefined : overrideDecision(strict, ctx);
  },
};

export const overrideAllowTier: SyncTier<MemoryTierContext> = {
  name: 'override',
  step: 'override (allow)',
  decide(ctx) {
    const parts = matchParts(ctx);
    if (parts.length === 0 || parts.some((r) => r?.verdict !== 'allow')) return undefined;
    return overrideDecision(parts[0]!, ctx);
  },
};
