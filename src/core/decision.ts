/** The decision model: what every tier returns and every host adapter renders. */

export const VERDICTS = ['allow', 'ask', 'deny'] as const;
export type Verdict = (typeof VERDICTS)[number];

/**
 * Where a decision came from, in cascade order. `input` and `session` are the gates before the cascade
 * (bad payload, unregistered or disabled session); `module` is the stateful policy modules (safemode, circuit
 * breaker: src/modules/), first in the cascade; `confine` turns an ask about a command whose effect is
 * unknown into an allow inside the walls; `default` is the end of the cascade when no tier decided.
 */
export const TIERS = [
  'input',
  'session',
  'sanitize',
  'module',
  'tool-policy',
  'path-policy',
  'shell',
  'mcp',
  'rules',
  'override',
  'exact-cache',
  'jaccard',
  'embedding',
  'supervisor',
  'human',
  'confine',
  'default',
] as const;
export type TierName = (typeof TIERS)[number];

/** Which rule decided, and where it is written down. */
export interface RuleRef {
  /** Stable id, e.g. `sensitive:.env*` or `role:coder:deny_write:tests/**`. */
  id: string;
  /** File (and line) the rule came from, or `built-in`. */
  source: string;
}

export interface Decision {
  verdict: Verdict;
  tier: TierName;
  reason: string;
  rule?: RuleRef;
  /** 1 for deterministic tiers; similarity and supervisor tiers report less. */
  confidence: number;
  /** An allow that holds only inside the walls: the host runs this command instead of the agent's (issue 19). */
  confined?: ConfinedRun;
  /** Text the agent sees next to the tool result (Claude Code / Codex `additionalContext`): a module's reminder. */
  context?: string;
  /**
   * An opinion that did not decide: the supervisor's answer below its confidence threshold, passed on to
   * the human who decides (shown in the queue next to the call).
   */
  recommendation?: Recommendation;
}

/** What a tier that could not decide would have decided, and how sure it was (0..1). */
export interface Recommendation {
  decision: Verdict;
  confidence: number;
  reason: string;
}

export interface ConfinedRun {
  /** The agent's command, wrapped to run inside the walls (what the host is told to run). */
  command: string;
  /** The walls in a sentence, for the agent and `explain`. */
  walls: string;
  /**
   * The undo snapshot taken just before it runs: the work tree's root, and what the snapshot records of the
   * command (sanitized). After the run, session provenance reads from it which files the run created.
   */
  undo?: { root: string; label: string };
}

/** DENY > ASK > ALLOW. A missing decision (no opinion) ranks below allow. */
const STRICTNESS: Record<Verdict, number> = { allow: 1, ask: 2, deny: 3 };

export function strictness(verdict: Verdict | undefined): number {
  return verdict === undefined ? 0 : STRICTNESS[verdict];
}

/** The stricter of two decisions; on a tie the first one is kept (it came earlier in the cascade). */
export function stricter(a: Decision | undefined, b: Decision | undefined): Decision | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return strictness(b.verdict) > strictness(a.verdict) ? b : a;
}

export function decision(verdict: Verdict, tier: TierName, reason: string, rule?: RuleRef, confidence = 1): Decision {
  return rule === undefined ? { verdict, tier, reason, confidence } : { verdict, tier, reason, rule, confidence };
}

export function isVerdict(value: unknown): value is Verdict {
  return typeof value === 'string' && (VERDICTS as readonly string[]).includes(value);
}
