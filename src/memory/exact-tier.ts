/**
 * Tier 1 — the exact decision cache (memory/cache.ts): a remembered decision for exactly this call.
 *
 * Tri-state: an allow or deny hit decides; an **ask** hit also decides — it goes straight to a human and
 * skips every similarity and supervisor tier, because ask is the verdict that must never converge.
 */
import { decision, type Decision } from '../core/decision.js';
import type { SyncTier } from '../core/tier.js';
import type { MemoryTierContext } from './context.js';
import { describeRecord, recordSource } from './cache.js';
import { WALLS_HIT_RULE } from '../confine/wall-hits.js';

function judgeExact(ctx: MemoryTierContext): Decision | undefined {
  const memory = ctx.memory;
  if (memory === undefined || memory.view.empty) return undefined;
  const key = memory.key();
  if (key === undefined) return undefined;
  const hit = memory.view.lookup(key, ctx.role.role.name);
  if (hit === undefined) return undefined;
  const verdictText =
    hit.verdict === 'ask' ? 'always asks a human about' : hit.verdict === 'allow' ? 'allowed' : 'denied';
  // A wall hit's ask says what the walls stopped; a human's approval at the prompt replaces it (memory/learn.ts).
  const walls = hit.decided_by === 'confine' && hit.verdict === 'ask';
  const text = walls
    ? `remembered: ${describeRecord(hit)}: ${hit.reason}`
    : `remembered: ${describeRecord(hit)} ${verdictText} exactly this call`;
  return decision(hit.verdict, 'exact-cache', text, {
    id: walls ? WALLS_HIT_RULE : `memory:${hit.key}`,
    source: recordSource(hit, ctx.projectRoot),
  });
}

export const exactCacheTier: SyncTier<MemoryTierContext> = { name: 'exact-cache', decide: judgeExact };
