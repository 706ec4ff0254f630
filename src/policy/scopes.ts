/**
 * How remembered decisions from several scopes combine for one call: DENY > ASK > ALLOW, whatever scope
 * each comes from. A deny or ask anywhere (org, user, project, role-specific or `*`, session) beats an
 * allow anywhere else — so a project-scope entry, which arrives through git from anyone with commit
 * access, can never weaken an org or user deny or ask: the most it can do is add an allow for what nobody
 * else decided, or tighten.
 *
 * Within one scope the store already resolved each (key, role) to its newest record (a human changing
 * their mind); this is only the merge across scopes and roles. Among equally strict entries the one from
 * the most authoritative scope is reported (org, then user, project, session), then the newest.
 */
import { strictness, type Verdict } from '../core/decision.js';
import type { StoreScope } from '../memory/store.js';

/** Authority for provenance among equally strict entries: higher reports first. */
export const SCOPE_AUTHORITY: Record<StoreScope, number> = { org: 4, user: 3, project: 2, session: 1 };

export interface ScopedVerdict {
  verdict: Verdict;
  scope: StoreScope;
  ts: string;
}

/** Does `a` take precedence over `b`? */
export function outranks(a: ScopedVerdict, b: ScopedVerdict): boolean {
  const byVerdict = strictness(a.verdict) - strictness(b.verdict);
  if (byVerdict !== 0) return byVerdict > 0;
  const byScope = SCOPE_AUTHORITY[a.scope] - SCOPE_AUTHORITY[b.scope];
  if (byScope !== 0) return byScope > 0;
  return a.ts > b.ts;
}

/** The effective entry among those that apply to one call, or undefined when none does. */
export function mergeScopes<T extends ScopedVerdict>(entries: Iterable<T>): T | undefined {
  let best: T | undefined;
  for (const e of entries) if (best === undefined || outranks(e, best)) best = e;
  return best;
}
