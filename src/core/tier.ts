/**
 * The contract between the engine and its tiers: what every tier sees of a call (plain data, no I/O) and
 * the shape of a stage. Each tier declares the slice of context it reads beside its own code (e.g.
 * policy/context.ts, shell/tier.ts, memory/context.ts); the engine composes the cascade's context from those
 * slices (engine/context.ts). So this bottom layer knows no tier, and tiers import it, never the engine.
 */
import type { Decision, TierName } from './decision.js';
import type { ResolvedPath, ToolCall } from './tool-call.js';

/** What every tier may see of the call: the call, its canonical paths and where it runs. */
export interface CallContext {
  call: ToolCall;
  /** The call's paths, canonicalized (same order as call.paths). */
  paths: ResolvedPath[];
  /** The canonical project root and the home directory (for `~` in rules and packs). */
  projectRoot: string;
  home: string;
  /**
   * hookwise's own private directories (runtime: sessions, sockets, caches; user config), canonical: every
   * role needs a human to read or write them.
   */
  hookwiseDirs?: readonly string[];
  /**
   * Where the host keeps what hookwise trusts it wrote (hosts/claude-transcript.ts transcriptDirs: the session's
   * transcript, approvals are learned from; Claude Code's config directory, its hooks), canonical: every role
   * needs a human to write there.
   */
  hostDirs?: readonly string[];
}

/**
 * One stage of the cascade, over the slice of context `Ctx` it reads. A decision ends the cascade;
 * undefined passes the call on. A tier may be async (embedding, supervisor, queue); synchronous tiers return
 * their answer directly and cost no promise.
 */
export interface Tier<Ctx extends CallContext = CallContext> {
  name: TierName;
  /** The step's own name in a trace, where two steps share a tier name (the overrides: deny/ask first, allow late). */
  step?: string;
  decide(ctx: Ctx): Decision | undefined | Promise<Decision | undefined>;
}

/** A tier that answers at once (policy, memory): no promise, so the cascade stays synchronous through it. */
export interface SyncTier<Ctx extends CallContext = CallContext> extends Tier<Ctx> {
  decide(ctx: Ctx): Decision | undefined;
}

export interface TraceStep {
  tier: TierName;
  step?: string;
  decision: Decision | undefined;
}
