/**
 * The human queue's data (tier 4, issue 15): what a waiting call puts in the queue, what a human answers, and
 * the port through which the engine makes a call wait. Everything here is sanitized: ids are shown forms
 * (sanitize/ids.ts), the call and reason went through sanitize() — the queue is read by people, pages and
 * files, and nothing raw may reach any of them.
 */
import { isVerdict, type Recommendation, type TierName, type Verdict } from '../core/decision.js';
import type { Sanitized } from '../sanitize/index.js';

export const ANSWER_VERDICTS = ['approve', 'deny'] as const;
export type AnswerVerdict = (typeof ANSWER_VERDICTS)[number];

/** Scopes a human answer may be remembered in (org decisions are administered: `hookwise override --scope org`). */
export const ANSWER_SCOPES = ['user', 'project', 'session'] as const;
export type AnswerScope = (typeof ANSWER_SCOPES)[number];

/** A human's answer to one queue item. */
export interface HumanAnswer {
  verdict: AnswerVerdict;
  /** approve: allowed now, remembered as ask (a human decides every time). */
  alwaysAsk: boolean;
  /** Remember it as a standing override for the call's pattern (`hookwise override`), not only this exact call. */
  addRule: boolean;
  /** Where it is remembered; absent: the learn scope (memory.learn_scope). */
  scope?: AnswerScope;
  /** Who answered: `cli`, `web`, or the lead session through hookwise's MCP tool (`mcp`). */
  via: 'cli' | 'web' | 'mcp';
  /**
   * The lead session's supervisor answer (`answer_request` on a supervise item, src/supervisor/agent.ts): the
   * waiting tier-3 call validates it as it validates the API's. verdict/alwaysAsk then only say it for display.
   */
  supervisor?: SupervisorReply;
}

/** What the lead session's supervisor answered, in the supervisor's own schema (validated by supervisor/backend.ts parseAnswer). */
export interface SupervisorReply {
  decision: Verdict;
  confidence: number;
  reason: Sanitized;
}

/** Who answers an item: a human (tier 4's ask) or the supervisor (tier 3 with `backend: agent`; a human may answer it too). */
export const ITEM_KINDS = ['human', 'supervise'] as const;
export type ItemKind = (typeof ITEM_KINDS)[number];

/** A stored answer's via and supervisor fields, checked (the files and the daemon's socket are read back). */
export function answerExtrasValid(a: { via?: unknown; supervisor?: unknown }): boolean {
  if (a.via !== 'cli' && a.via !== 'web' && a.via !== 'mcp') return false;
  if (a.supervisor === undefined) return true;
  const s = a.supervisor as Partial<SupervisorReply> | null;
  return (
    typeof s === 'object' &&
    s !== null &&
    isVerdict(s.decision) &&
    typeof s.confidence === 'number' &&
    Number.isFinite(s.confidence) &&
    typeof s.reason === 'string'
  );
}

/** One waiting call, as the tier hands it to the queue. */
export interface PendingRequest {
  /** Absent: `human`. */
  kind?: ItemKind;
  /** Identical calls share it: project, role and the call's normalized subject, hashed. */
  dedupe: string;
  session: Sanitized;
  role: string;
  task?: Sanitized;
  tool: Sanitized;
  /** The call as a human reads it (a command, a path, the tool's input), sanitized and bounded. */
  call: Sanitized;
  reason: Sanitized;
  /** The tier whose ask this is (`default` when nothing decided). */
  tier: TierName;
  rule?: string;
  project: Sanitized;
  recommendation?: Recommendation;
}

/** A queue item: one or more identical waiting calls — the first request's fields, with every waiting session. */
export interface PendingItem extends Omit<PendingRequest, 'session'> {
  /** A random token (ids are never derived from the call). */
  id: string;
  /** ISO time the first call started waiting. */
  created: string;
  /** The sessions waiting (distinct, first first; bounded). */
  sessions: Sanitized[];
  /** How many calls wait on this item. */
  waiting: number;
}

/** An answered or expired item, for the page's "recent decisions". */
export interface RecentItem {
  id: string;
  role: string;
  tool: Sanitized;
  call: Sanitized;
  project: Sanitized;
  outcome: 'approved' | 'approved (always ask)' | 'denied' | 'timed out';
  via: HumanAnswer['via'] | 'timeout';
  resolved: number;
  ts: string;
}

/** How one waiting call ended. `first`: this call created the item (it remembers the answer, once). */
export type WaitOutcome =
  | { kind: 'answered'; id: string; answer: HumanAnswer; first: boolean }
  | { kind: 'timeout'; id: string }
  /** The queue could not hold the call, or its answer could not be read: never an allow. */
  | { kind: 'unavailable'; why: string };

/** What answering an item did. */
export type AnswerResult = { ok: true; item: PendingItem; resolved: number } | { ok: false; why: string };

/** The engine's port: the waiting is done here, outside the cascade's pure code. */
export interface HumanPort {
  timeoutMs: number;
  wait(request: PendingRequest): Promise<WaitOutcome>;
}

/** The waiting call went away (its host killed the hook, its connection closed): it stops counting as waiting. */
export const CALLER_GONE = 'the waiting call went away (its hook was stopped or its connection closed)';

/** A queue's two sides: calls wait on it, humans list and answer it. The daemon's (memory) and the files'. */
export interface QueueBackend {
  /** `signal`: the caller went away; its wait ends as unavailable (CALLER_GONE) and it no longer counts. */
  wait(request: PendingRequest, timeoutMs: number, signal?: AbortSignal): Promise<WaitOutcome>;
  list(): PendingItem[];
  answer(id: string, answer: HumanAnswer): AnswerResult;
  recent(): RecentItem[];
}

/** Ids: 10 characters of a lower-case base32 alphabet from random bytes (typing one is easy, guessing one is not). */
export const ID_PATTERN = /^[a-z2-7]{10}$/;
/** A waiting calls' list of sessions is cut here (the count stays exact). */
export const MAX_SESSIONS_SHOWN = 16;
/** Recent decisions kept for the page. */
export const MAX_RECENT = 50;

/** What an unknown id gets. */
export function unknownId(id: string): string {
  return ID_PATTERN.test(id)
    ? `no pending queue item ${id}: it was answered, timed out, or never existed (hookwise queue lists what waits)`
    : `"${id.replace(/[^\x20-\x7e]/g, '?').slice(0, 40)}" is not a queue item id (ids are 10 letters and digits; hookwise queue lists them)`;
}

export function recentOutcome(answer: HumanAnswer | undefined): RecentItem['outcome'] {
  if (answer === undefined) return 'timed out';
  if (answer.verdict === 'deny') return 'denied';
  return answer.alwaysAsk ? 'approved (always ask)' : 'approved';
}
