/**
 * The rows of the team's other shared tables (migration 004): session registrations, audit lines and the
 * supervisor's answers — each checked before it leaves the machine (every text field sanitized, names plain,
 * ids as hashes) and checked again when it comes back, since the store is other machines' writing. A row
 * that fails is refused by name and position, never quoted.
 */
import { isVerdict, TIERS, type TierName, type Verdict } from '../core/decision.js';
import { HookwiseError } from '../core/errors.js';
import type { AuditRecord, AuditSupervision } from '../audit/log.js';
import { shownId } from '../sanitize/ids.js';
import { assertSanitized, findSecrets, sanitize, type Sanitized } from '../sanitize/index.js';
import type { SessionRecord } from '../session/registry.js';

const SESSION_KEY = /^[0-9a-f]{64}$/;
const MEMORY_KEY = /^[0-9a-f]{16}$/;
/** Role names as policies write them; `by` as supervisorName makes them (`agent`, `api:<model>`). */
const PLAIN_NAME = /^[A-Za-z0-9][A-Za-z0-9_.:@/-]{0,127}$/;
const MAX_TEXT = 2048;

const refuse = (where: string, problem: string): never => {
  throw new HookwiseError('INTERNAL', `refusing to send to ${where}: ${problem}`);
};

const plain = (value: string): boolean => PLAIN_NAME.test(value) && findSecrets(value).length === 0;
const isTime = (value: unknown): value is string => typeof value === 'string' && Number.isFinite(Date.parse(value));
const cut = (text: Sanitized): Sanitized =>
  text.length <= MAX_TEXT ? text : (`${text.slice(0, MAX_TEXT)}…` as Sanitized);

// ── sessions ─────────────────────────────────────────────────────────────────────────────────────────────

export interface SessionRow {
  session_key: string;
  shown_id: string;
  role: string | null;
  disabled: boolean;
  task: string | null;
  team: string | null;
  registered_at: string;
  updated_at: string;
}

/**
 * A registration as the store holds it: the id as its hash and its sanitized form; the role, the disabled
 * flag, the task and team (sanitized when registered, checked again here). Never the prompt file: a path on
 * this machine, which another machine must not be made to read.
 */
export function sessionRow(r: SessionRecord, where: string): SessionRow {
  if (r.store_key === undefined || !SESSION_KEY.test(r.store_key))
    refuse(where, 'a session registration without its store key (register it again)');
  if (r.role !== null && !plain(r.role)) refuse(where, 'a session registration whose role is not a plain name');
  if (!isTime(r.registered_at) || !isTime(r.updated_at)) refuse(where, 'a session registration without its times');
  assertSanitized(r.session_id as Sanitized, where);
  for (const text of [r.task, r.team]) if (text !== undefined) assertSanitized(text as Sanitized, where);
  return {
    session_key: r.store_key!,
    shown_id: shownId(r.session_id),
    role: r.role,
    disabled: r.disabled,
    task: r.task === undefined ? null : cut(r.task as Sanitized),
    team: r.team === undefined ? null : cut(r.team as Sanitized),
    registered_at: r.registered_at,
    updated_at: r.updated_at,
  };
}

/** A row as this machine's registration of the session, or why it is not one. */
export function sessionFromRow(row: SessionRow): SessionRecord | string {
  if (!SESSION_KEY.test(row.session_key)) return 'a session row without a store key (skipped)';
  if (row.role !== null && !plain(row.role))
    return `session ${row.session_key.slice(0, 12)}: not a role name (skipped)`;
  if (!isTime(row.registered_at) || !isTime(row.updated_at))
    return `session ${row.session_key.slice(0, 12)}: bad times (skipped)`;
  return {
    session_id: shownId(row.shown_id),
    role: row.role,
    disabled: row.disabled === true,
    ...(row.task === null ? {} : { task: cut(sanitize(row.task).text) }),
    ...(row.team === null ? {} : { team: cut(sanitize(row.team).text) }),
    registered_at: row.registered_at,
    updated_at: row.updated_at,
    store_key: row.session_key,
  };
}

// ── audit ────────────────────────────────────────────────────────────────────────────────────────────────

export interface AuditRow {
  machine: string;
  ts: string;
  session: string;
  role: string | null;
  host: string | null;
  tool: string;
  verdict: Verdict;
  tier: string;
  rule: string | null;
  latency_ms: number;
  paths: string[];
  input: string;
  secrets: number;
  input_hash: string;
  project: string | null;
  supervisor: AuditSupervision | null;
  src_ino: number;
  src_offset: number;
}

/** An audit line (as audit/log.ts wrote it) as a row; throws naming what is wrong, never quoting it. */
export function auditRow(line: string, at: { machine: string; ino: number; offset: number }, where: string): AuditRow {
  let r: AuditRecord;
  try {
    r = JSON.parse(line) as AuditRecord;
  } catch {
    return refuse(where, 'an audit line that is not JSON');
  }
  if (typeof r !== 'object' || r === null) refuse(where, 'an audit line that is not a record');
  if (!isVerdict(r.verdict)) refuse(where, 'an audit line without a verdict');
  if (!(TIERS as readonly string[]).includes(r.tier)) refuse(where, 'an audit line without a tier');
  if (!isTime(r.ts)) refuse(where, 'an audit line without a time');
  for (const field of ['session', 'tool', 'input'] as const)
    if (typeof r[field] !== 'string') refuse(where, `an audit line without its ${field}`);
  if (!Array.isArray(r.paths) || r.paths.some((p) => typeof p !== 'string'))
    refuse(where, 'an audit line whose paths are not a list of text');
  const texts: string[] = [r.session, r.tool, r.input, ...r.paths];
  if (typeof r.project === 'string') texts.push(r.project);
  if (r.supervisor !== undefined) texts.push(String(r.supervisor.reason));
  for (const text of texts) assertSanitized(text as Sanitized, where);
  for (const name of [r.role, r.host, r.rule])
    if (name !== null && name !== undefined && (typeof name !== 'string' || findSecrets(name).length > 0))
      refuse(where, 'an audit line whose role, host or rule is not plain');
  const supervisor = r.supervisor;
  if (
    supervisor !== undefined &&
    (!isVerdict(supervisor.decision) || typeof supervisor.confidence !== 'number' || !plain(String(supervisor.by)))
  )
    refuse(where, 'an audit line whose supervisor answer is not one');
  return {
    machine: at.machine,
    ts: r.ts,
    session: r.session,
    role: r.role ?? null,
    host: r.host ?? null,
    tool: r.tool,
    verdict: r.verdict,
    tier: r.tier,
    rule: r.rule ?? null,
    latency_ms: Number.isFinite(r.latency_ms) ? r.latency_ms : 0,
    paths: r.paths,
    input: r.input,
    secrets: Number.isInteger(r.secrets) ? r.secrets : 0,
    input_hash: typeof r.input_hash === 'string' ? r.input_hash.slice(0, 64) : '',
    project: typeof r.project === 'string' ? r.project : null,
    supervisor: supervisor ?? null,
    src_ino: at.ino,
    src_offset: at.offset,
  };
}

/** A team's audit row as the audit log's record (its text sanitized again: the store is others' writing). */
export interface FleetAuditRecord extends AuditRecord {
  machine: Sanitized;
  id: string;
}

export function auditFromRow(
  row: Omit<AuditRow, 'src_ino' | 'src_offset' | 'ts'> & { id: string; ts: string | Date },
): FleetAuditRecord | string {
  if (!isVerdict(row.verdict) || !(TIERS as readonly string[]).includes(row.tier))
    return `audit row ${row.id}: not a verdict or tier (skipped)`;
  const clean = (s: string): Sanitized => sanitize(s).text;
  const supervisor = row.supervisor;
  return {
    id: row.id,
    machine: shownId(row.machine, 64),
    ts: row.ts instanceof Date ? row.ts.toISOString() : row.ts,
    session: shownId(row.session),
    role: row.role === null ? null : shownId(row.role, 64),
    host: (row.host ?? null) as AuditRecord['host'],
    tool: shownId(row.tool),
    verdict: row.verdict,
    tier: row.tier as TierName,
    rule: row.rule === null ? null : clean(row.rule),
    latency_ms: Number(row.latency_ms),
    paths: (Array.isArray(row.paths) ? row.paths : []).map((p) => clean(String(p))),
    input: clean(row.input),
    secrets: row.secrets,
    input_hash: row.input_hash,
    ...(row.project === null ? {} : { project: clean(row.project) }),
    ...(supervisor === null || !isVerdict(supervisor.decision)
      ? {}
      : {
          supervisor: {
            decision: supervisor.decision,
            confidence: Number(supervisor.confidence),
            reason: clean(String(supervisor.reason)),
            by: shownId(String(supervisor.by), 128),
            decided: supervisor.decided === true,
          },
        }),
  };
}

// ── supervisor answers ───────────────────────────────────────────────────────────────────────────────────

export interface AnswerRow {
  key: string;
  role: string;
  tool: string;
  verdict: Verdict;
  confidence: number;
  reason: string;
  answered_by: string;
  ts: string;
}

/** Tier 3's answer for a call (its memory key) and role, as the store holds it. */
export function answerRow(a: AnswerRow, where: string): AnswerRow {
  if (!MEMORY_KEY.test(a.key)) refuse(where, 'a supervisor answer without a memory key');
  if (!plain(a.role) || !plain(a.answered_by)) refuse(where, 'a supervisor answer whose role or backend is not plain');
  if (!isVerdict(a.verdict) || !(a.confidence >= 0 && a.confidence <= 1))
    refuse(where, 'a supervisor answer without a verdict and confidence');
  if (!isTime(a.ts)) refuse(where, 'a supervisor answer without a time');
  assertSanitized(a.tool as Sanitized, where);
  assertSanitized(a.reason as Sanitized, where);
  return { ...a, tool: shownId(a.tool), reason: cut(a.reason as Sanitized) };
}

/** A row as an answer, or why it is not one. */
export function answerFromRow(row: AnswerRow & { id?: string }): AnswerRow | string {
  try {
    return answerRow({ ...row, confidence: Number(row.confidence) }, 'this machine');
  } catch (error) {
    return `supervisor answer ${row.id ?? ''}: ${sanitize((error as Error).message).text} (skipped)`;
  }
}
