/**
 * Tier 3's contract: what a supervisor is asked (a request built only from sanitized text), what counts as
 * an answer, and the backend interface every supervisor implements (the Anthropic API: api.ts; a subagent
 * of the lead session: agent.ts).
 *
 * Anything that is not exactly an answer — a timeout, an API error, a refusal, a reply without the one tool
 * call, a decision outside allow|deny|ask, a confidence outside [0, 1], an empty or oversized reason — is a
 * failure, and a failure passes the call on to a human: a supervisor can never allow by failing.
 */
import { isVerdict, type Verdict } from '../core/decision.js';
import { sanitize, type Sanitized } from '../sanitize/index.js';

export { SUPERVISOR_BACKENDS, type SupervisorBackendName } from '../policy/defaults.js';
import type { SupervisorBackendName } from '../policy/defaults.js';

/** A supervisor's reason longer than this is not an answer (a model rambling is not a decision). */
export const MAX_REASON_CHARS = 1000;

/** One path the call touches, and what the role's path policy says of it (nothing decided it, or the call would not be here). */
export interface RequestPath {
  path: Sanitized;
  access: 'read' | 'write';
  /** Inside the project root. */
  inProject: boolean;
}

/** A remembered decision near this call (tier 2a's candidates; the embedding tier's neighbours later). */
export interface RequestNeighbour {
  subject: Sanitized;
  verdict: Verdict;
  /** Similarity 0..1. */
  score: number;
  decidedBy: string;
}

/** What the supervisor is told. Every text field is sanitized; nothing raw is ever in it. */
export interface SupervisorRequest {
  tool: Sanitized;
  /** shell | write | read | other (core/tools.ts). */
  action: string;
  /** The call as memory remembers it (normalized command, `<change> <path>`, or the input's sanitized JSON). */
  call: Sanitized;
  /** The call's write targets and read paths, canonical. */
  paths: RequestPath[];
  projectRoot: Sanitized;
  cwd: Sanitized;
  role: {
    name: string;
    description: Sanitized;
    allowWrite: Sanitized[];
    denyWrite: Sanitized[];
    allowRead: Sanitized[];
  };
  /** The cascade's earlier tiers, every one of which passed this call. */
  passed: string[];
  neighbours: RequestNeighbour[];
  /** The calling session's shown id (for the agent backend's queue item; not sent to a model). */
  sessionId?: Sanitized;
  /** The call's memory key (a hash), by which the team shares answers (SharedSupervisorAnswers; not sent to a model). */
  key?: string;
  /** What the session registered: its task, and its prompt file's text (read at the edge, bounded). */
  session?: { task?: Sanitized; prompt?: { file: Sanitized; text: Sanitized; truncated: boolean } };
}

export interface SupervisorAnswer {
  kind: 'answer';
  decision: Verdict;
  confidence: number;
  reason: Sanitized;
  /** `api:<model>` or `agent`. */
  by: string;
}

export interface SupervisorFailure {
  kind: 'failure';
  /** What went wrong, for the human and the audit log: `timed out after 20000 ms`, `API error 529 (overloaded)`, … */
  why: string;
  by: string;
}

export type SupervisorOutcome = SupervisorAnswer | SupervisorFailure;

/**
 * Tier 3's port: reviews a sanitized request. The engine adds what it reads at the edge (the session's task
 * and prompt file) and keeps the backend warm in a daemon; in a hook process the backend (and the SDK under
 * it) is loaded only when a call reaches this tier. Never rejects: a failure is an outcome.
 */
export interface SupervisorPort {
  review(request: SupervisorRequest): Promise<SupervisorOutcome>;
}

/** The slice of the cascade's context tier 3 reads and writes. */
export interface SupervisionContext {
  /** Tier 3's port to the configured supervisor (engine-provided; absent: the tier passes). */
  supervisor?: SupervisorPort;
  /**
   * Written by tier 3 when it passes a call on (an answer below the confidence threshold, or a failure), for
   * the tiers after it: the human queue shows the recommendation, the final ask says why the supervisor did
   * not decide. The one field a tier writes: everything else in the context is input.
   */
  supervision?: SupervisorOutcome;
}

export interface SupervisorBackend {
  readonly name: SupervisorBackendName;
  /** Never rejects: every failure is a SupervisorFailure. `signal`: the call's caller went away (a waiting backend stops). */
  review(request: SupervisorRequest, signal?: AbortSignal): Promise<SupervisorOutcome>;
}

/**
 * A tool input (or any reply) as an answer, strictly: exactly the three fields, decision ∈ allow|deny|ask,
 * confidence a finite number in [0, 1], reason a non-empty string of at most MAX_REASON_CHARS. The reason
 * is sanitized (a model may echo what it was shown, and the reason is stored and logged).
 */
export function parseAnswer(input: unknown, by: string): SupervisorOutcome {
  const notAnswer = (why: string): SupervisorFailure => ({ kind: 'failure', why: `not an answer: ${why}`, by });
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    return notAnswer('the tool input is not an object');
  const fields = input as Record<string, unknown>;
  const extra = Object.keys(fields).filter((k) => k !== 'decision' && k !== 'confidence' && k !== 'reason');
  if (extra.length > 0)
    return notAnswer(
      `unexpected field(s) ${extra
        .slice(0, 3)
        .map((k) => JSON.stringify(k.slice(0, 40)))
        .join(', ')}`,
    );
  const { decision, confidence, reason } = fields;
  if (!isVerdict(decision)) return notAnswer('decision must be one of allow, deny, ask');
  if (typeof confidence !== 'number' || !Number.isFinite(confidence) || confidence < 0 || confidence > 1)
    return notAnswer('confidence must be a number from 0 to 1');
  if (typeof reason !== 'string' || reason.trim() === '') return notAnswer('reason must be a non-empty string');
  if (reason.length > MAX_REASON_CHARS) return notAnswer(`reason is longer than ${MAX_REASON_CHARS} characters`);
  return { kind: 'answer', decision, confidence, reason: sanitize(reason.trim()).text, by };
}

/** A failure's text for a human: one line, sanitized and bounded (an error message may quote a response). */
export function failureText(why: string): string {
  const line = why.replace(/\s+/g, ' ').trim();
  return sanitize(line.length > 300 ? `${line.slice(0, 299)}…` : line).text;
}

/**
 * The team's supervisor answers (store/fleet-share.ts), held in a daemon's memory: one machine's answer for
 * a call (its memory key) and role serves the others instead of asking the model again.
 */
export interface SharedSupervisorAnswers {
  lookup(key: string, role: string): SupervisorAnswer | undefined;
  /** An answer this machine's supervisor gave: sent to the team (checked and sanitized first). */
  publish(key: string, role: string, tool: string, answer: SupervisorAnswer): void;
}
