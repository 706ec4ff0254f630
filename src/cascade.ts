/**
 * The orchestrator: an ordered list of tiers, nothing else. Each tier returns a decision or passes
 * (undefined). The first decision ends the cascade; a call no tier decides ends as `ask` — never a silent
 * allow. The optional trace sink sees every step, so `explain` and `check` run the same code.
 */
import { decision, type Decision, type TierName } from './core/decision.js';
import type { ResolvedPath, ToolCall } from './core/tool-call.js';
import type { CompiledPolicy, PolicyMatchers, RoleMatchers } from './policy/compiled.js';
import type { PreconditionRunner } from './policy/precondition.js';
import type { PreparedShell } from './shell/prepare.js';
import type { MemoryContext } from './memory/view.js';

/** Effects a tier may need, injected so tiers stay pure and testable; an absent port uses its default. */
export interface CascadePorts {
  /** Runs bash rules' precondition scripts (default: spawn with a timeout, see policy/precondition.ts). */
  precondition?: PreconditionRunner;
}

/** Everything a tier may look at: plain data, no I/O. */
export interface CascadeContext {
  call: ToolCall;
  /** The call's paths, canonicalized (same order as call.paths). */
  paths: ResolvedPath[];
  role: RoleMatchers;
  policy: CompiledPolicy;
  matchers: PolicyMatchers;
  /** The canonical project root and the home directory (for `~` in rules and packs). */
  projectRoot: string;
  home: string;
  /** A shell call's parse, write targets and their canonical paths (prepared at the edge). */
  shell?: PreparedShell;
  /** Remembered decisions and this call's subject and key (loaded and computed at the edge). */
  memory?: MemoryContext;
  ports?: CascadePorts;
}

export interface Tier {
  name: TierName;
  decide(ctx: CascadeContext): Decision | undefined;
}

export interface TraceStep {
  tier: TierName;
  decision: Decision | undefined;
}

export function runCascade(ctx: CascadeContext, tiers: readonly Tier[], trace?: (step: TraceStep) => void): Decision {
  for (const tier of tiers) {
    const result = tier.decide(ctx);
    trace?.({ tier: tier.name, decision: result });
    if (result !== undefined) return result;
  }
  const fallback = decision(
    'ask',
    'default',
    `no tier decided this ${ctx.call.tool} call for role "${ctx.role.role.name}", so a human decides`,
  );
  trace?.({ tier: 'default', decision: fallback });
  return fallback;
}
