/**
 * The contract between the engine and its tiers: what a tier sees (plain data, no I/O) and what it returns.
 * Tiers import this module, never the engine (src/engine/), so the orchestrator can import every tier
 * without an import cycle.
 */
import type { Decision, TierName } from './decision.js';
import type { ResolvedPath, ToolCall } from './tool-call.js';
import type { CompiledPolicy, PolicyMatchers, RoleMatchers } from '../policy/compiled.js';
import type { PreconditionRunner } from '../policy/precondition.js';
import type { PreparedShell } from '../shell/prepare.js';
import type { MemoryView } from '../memory/view.js';
import type { CallSubject } from '../memory/subject.js';
import type { ReadState } from '../modules/state-file.js';
import type { SupervisorOutcome, SupervisorRequest } from '../supervisor/backend.js';

/** Effects a tier may need, injected so tiers stay pure and testable; an absent port uses its default. */
export interface CascadePorts {
  /** Runs bash rules' precondition scripts (default: spawn with a timeout, see policy/precondition.ts). */
  precondition?: PreconditionRunner;
  /** The clock, epoch ms (the delegation window; default Date.now). */
  now?: () => number;
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
  /**
   * hookwise's own private directories (runtime: sessions, sockets, caches; user config), canonical: every
   * role needs a human to read or write them.
   */
  hookwiseDirs?: readonly string[];
  /** A shell call's parse, write targets and their canonical paths (prepared at the edge). */
  shell?: PreparedShell;
  /** The session's signed module state (read and verified at the edge; absent: the modules tier passes). */
  modules?: ReadState;
  /** Remembered decisions and this call's subject and key (loaded and computed at the edge). */
  memory?: MemoryContext;
  /** Tier 2b's search over the embedding indexes (served by the daemon's worker pool; absent: the tier passes). */
  embedding?: EmbeddingPort;
  /** Tier 3's port to the configured supervisor (engine-provided; absent: the tier passes). */
  supervisor?: SupervisorPort;
  /**
   * Written by tier 3 when it passes a call on (an answer below the confidence threshold, or a failure), for
   * the tiers after it: the human queue shows the recommendation, the final ask says why the supervisor did
   * not decide. The one field a tier writes: everything else in the context is input.
   */
  supervision?: SupervisorOutcome;
  ports?: CascadePorts;
}

/**
 * Tier 3's port: reviews a sanitized request. The engine adds what it reads at the edge (the session's task
 * and prompt file) and keeps the backend warm in a daemon; in a hook process the backend (and the SDK under
 * it) is loaded only when a call reaches this tier. Never rejects: a failure is an outcome.
 */
export interface SupervisorPort {
  review(request: SupervisorRequest): Promise<SupervisorOutcome>;
}

/**
 * One stage of the cascade. A decision ends the cascade; undefined passes the call on. A tier may be async
 * (embedding, supervisor, queue); synchronous tiers return their answer directly and cost no promise.
 */
export interface Tier {
  name: TierName;
  /** The step's own name in a trace, where two steps share a tier name (the overrides: deny/ask first, allow late). */
  step?: string;
  decide(ctx: CascadeContext): Decision | undefined | Promise<Decision | undefined>;
}

/** A tier that answers at once (policy, memory): no promise, so the cascade stays synchronous through it. */
export interface SyncTier extends Tier {
  decide(ctx: CascadeContext): Decision | undefined;
}

export interface TraceStep {
  tier: TierName;
  step?: string;
  decision: Decision | undefined;
}

/**
 * What the memory tiers see of one call: the view, and the call's subject and key. Both are computed on
 * first use and kept: most calls are decided by policy before memory is asked, and the key's hash loads a
 * native addon (≈ 3 ms per process) that such calls should not pay for. Pure computations of the call
 * itself — no file or network I/O happens through them.
 */
export interface MemoryContext {
  view: MemoryView;
  subject(): CallSubject | undefined;
  key(): string | undefined;
}

/** One remembered record near the call: its memory key and cosine similarity (1 = same direction). */
export interface EmbeddingMatch {
  key: string;
  similarity: number;
}

/**
 * Tier 2b's port to the embedding indexes of the call's scopes (org, project, user, session). Answers the
 * nearest remembered records to a sanitized subject text, best first; `unavailable` (pool down, model not
 * loadable, index being rebuilt) passes the tier on with the reason in the trace — never an allow.
 */
export interface EmbeddingPort {
  nearest(query: {
    text: string;
    tool: string;
    k: number;
  }): Promise<{ matches: EmbeddingMatch[] } | { unavailable: string }>;
}
