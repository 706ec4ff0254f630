/**
 * The cascade: the tiers in order, and the loop that runs them. Each tier returns a decision or passes
 * (undefined). The first decision ends the cascade; a call no tier decides ends as `ask` — never a silent
 * allow. The optional trace sink sees every step, so `explain` and `check` run the same code.
 *
 * Order: the stateful modules (safemode, circuit breaker: they only deny edits and writes), tightening overrides, the policy tiers (path policy, shell, MCP tools by field, rules and packs), then allow overrides
 * and decision memory (exact cache, Jaccard, embedding). Later tiers (supervisor, queue) go after memory.
 * The supervisor (tier 3) is reached only by calls no earlier tier decided.
 */
import { decision, type Decision } from '../core/decision.js';
import type { Tier, TraceStep } from '../core/tier.js';
import type { CascadeContext } from './context.js';
import { exactCacheTier } from '../memory/exact-tier.js';
import { overrideAllowTier, overrideTightenTier } from '../memory/override-tiers.js';
import { jaccardTier } from '../memory/similar.js';
import { pathPolicyTier } from '../policy/path-policy.js';
import { isShellOwnForm } from '../policy/packs/read-only.js';
import { rulesTier } from '../policy/rules.js';
import { toolPolicyTier } from '../policy/tool-policy.js';
import { shellTier } from '../shell/tier.js';
import { mcpTier } from '../catalog/mcp-tier.js';
import { moduleTier } from '../modules/tier.js';
import { embeddingTier } from '../embed/tier.js';
import { supervisionNote, supervisorTier } from '../supervisor/tier.js';

export const CASCADE: readonly Tier<CascadeContext>[] = [
  moduleTier,
  toolPolicyTier,
  overrideTightenTier,
  pathPolicyTier,
  shellTier,
  mcpTier,
  rulesTier,
  overrideAllowTier,
  exactCacheTier,
  jaccardTier,
  embeddingTier,
  supervisorTier,
];

/**
 * Runs the tiers in order. Synchronous while every tier answers synchronously (no promise on the hot
 * path); from the first tier that returns a promise on, the rest run asynchronously.
 */
export function runCascade(
  ctx: CascadeContext,
  tiers: readonly Tier<CascadeContext>[] = CASCADE,
  trace?: (step: TraceStep) => void,
): Decision | Promise<Decision> {
  for (let i = 0; i < tiers.length; i++) {
    const tier = tiers[i]!;
    const result = tier.decide(ctx);
    if (result instanceof Promise) return finishAsync(ctx, tiers, i, result, trace);
    trace?.({ tier: tier.name, ...(tier.step === undefined ? {} : { step: tier.step }), decision: result });
    if (result !== undefined) return result;
  }
  return fallback(ctx, trace);
}

async function finishAsync(
  ctx: CascadeContext,
  tiers: readonly Tier<CascadeContext>[],
  from: number,
  pending: Promise<Decision | undefined>,
  trace?: (step: TraceStep) => void,
): Promise<Decision> {
  let result = await pending;
  for (let i = from; ;) {
    trace?.({
      tier: tiers[i]!.name,
      ...(tiers[i]!.step === undefined ? {} : { step: tiers[i]!.step }),
      decision: result,
    });
    if (result !== undefined) return result;
    if (++i >= tiers.length) return fallback(ctx, trace);
    result = await tiers[i]!.decide(ctx);
  }
}

/**
 * The first word of a shell call the catalogue could not account for, as the reason says it (short): not the
 * shell's own `cd` or assignment (no program's grammar), but the word after it (`cd "$D" && cat credentials`).
 */
function firstUnknown(ctx: CascadeContext): string | undefined {
  const shell = ctx.shell;
  const segments = shell?.parse.segments ?? [];
  const why = shell?.catalog.find((m, i) => m.unaccounted !== undefined && !isShellOwnForm(segments[i]?.name ?? ''))
    ?.unaccounted?.why;
  return why === undefined ? undefined : why.length > 160 ? `${why.slice(0, 159)}…` : why;
}

function fallback(ctx: CascadeContext, trace?: (step: TraceStep) => void): Decision {
  const unknown = firstUnknown(ctx);
  let d = decision(
    'ask',
    'default',
    `no tier decided this ${ctx.call.tool} call for role "${ctx.role.role.name}"${unknown === undefined ? '' : ` (effect unknown: ${unknown})`}, so a human decides`,
  );
  // A supervisor that answered without deciding leaves its answer for the human; one that failed, why.
  const s = ctx.supervision;
  if (s !== undefined) {
    d = { ...d, reason: `${d.reason}; ${supervisionNote(s, ctx.policy.supervisor.confidence)}` };
    if (s.kind === 'answer') d.recommendation = { decision: s.decision, confidence: s.confidence, reason: s.reason };
  }
  trace?.({ tier: 'default', decision: d });
  return d;
}
