/**
 * The supervisor reviews log: one JSON line each time a human decides a call the supervisor (tier 3) had
 * answered — approving at the host's prompt what it asked about or recommended, answering its recommendation
 * in the queue, or later replacing its remembered decision. The line says whether the human overrode it, so
 * `stats` can report the override rate per project (the input for raising or lowering `supervisor.confidence`
 * there). The supervisor's answers themselves are in the audit log (its `supervisor` field). Sanitized text
 * only, each line bounded, appended as single writes of whole lines (appendOwnedLines).
 */
import { readJsonLines } from './jsonl.js';
import { join } from 'node:path';
import type { Decision, Verdict } from '../core/decision.js';
import { assertSanitized, type Sanitized } from '../sanitize/index.js';
import { appendOwnedLines } from '../util/fs-safe.js';

/** Where the human decided. */
export const REVIEW_CHANNELS = ['host-prompt', 'queue', 'rules'] as const;
export type ReviewChannel = (typeof REVIEW_CHANNELS)[number];

export interface SupervisorReviewRecord {
  ts: string;
  /** The session id as shown (sanitize/ids.ts). */
  session: Sanitized;
  tool: Sanitized;
  /** The call's memory subject, sanitized and cut. */
  subject: Sanitized;
  /** What the supervisor said, and whether that decided the call (at or above the threshold); confidence null when not known (a remembered decision). */
  supervisor: { decision: Verdict; confidence: number | null; by: string; decided: boolean };
  /** What the human decided; `invalidated`: they forgot its remembered decision (hookwise invalidate --key/--role). */
  human: Verdict | 'invalidated';
  channel: ReviewChannel;
  /** The human decided otherwise than the supervisor. */
  override: boolean;
  /** The project root the call was judged in, sanitized (as in the audit log). */
  project?: Sanitized;
}

const MAX_SUBJECT = 1024;

export type Supervision = SupervisorReviewRecord['supervisor'];

/**
 * What the supervisor said of a call a human is about to decide, from the decision put to the human: its own
 * ask (it decided), or the recommendation it left on the final ask. Undefined when it did not answer. For
 * every channel a human answers through (the host's prompt, the queue): log the review with `reviewed`.
 */
export function supervisionIn(asked: Decision): Supervision | undefined {
  if (asked.tier === 'supervisor')
    return {
      decision: asked.verdict,
      confidence: asked.confidence,
      by: asked.rule?.id.replace(/^supervisor:/, '') ?? 'supervisor',
      decided: true,
    };
  const r = asked.recommendation;
  return r === undefined
    ? undefined
    : { decision: r.decision, confidence: r.confidence, by: 'supervisor', decided: false };
}

/** The review record for a human's verdict on a call the supervisor answered (override: they differ). */
export function reviewed(fields: Omit<SupervisorReviewRecord, 'ts' | 'override'>): SupervisorReviewRecord {
  return { ts: new Date().toISOString(), ...fields, override: fields.supervisor.decision !== fields.human };
}

export function supervisorLogPath(runtimeDir: string): string {
  return join(runtimeDir, 'supervisor.jsonl');
}

export function appendSupervisorReview(runtimeDir: string, record: SupervisorReviewRecord): void {
  for (const text of [record.session, record.tool, record.subject, record.project ?? ('' as Sanitized)])
    assertSanitized(text, 'the supervisor reviews log');
  const subject = (
    record.subject.length <= MAX_SUBJECT ? record.subject : `${record.subject.slice(0, MAX_SUBJECT)}…`
  ) as Sanitized;
  const supervisor = { ...record.supervisor, by: record.supervisor.by.slice(0, 120) };
  appendOwnedLines(supervisorLogPath(runtimeDir), `${JSON.stringify({ ...record, subject, supervisor })}\n`, {
    mode: 0o600,
    purpose: 'the supervisor reviews log',
  });
}

/** Every readable record, oldest first; an unreadable line is skipped and named in `problems`. */
export function readSupervisorReviews(runtimeDir: string): { records: SupervisorReviewRecord[]; problems: string[] } {
  return readJsonLines<SupervisorReviewRecord>(supervisorLogPath(runtimeDir), (value) =>
    typeof value.ts !== 'string' ||
    typeof value.override !== 'boolean' ||
    typeof value.supervisor?.decision !== 'string'
      ? 'missing ts, override or supervisor'
      : undefined,
  );
}
