/**
 * What a daemon shares with its team besides learned decisions (store/sync.ts), over the same connection as
 * parts of its FleetSync (migration 004):
 *
 *   - **sessions**: every registration made on this machine (one file per session, `<runtimeDir>/sessions`)
 *     is sent when its file changes; the team's are held in memory (`SharedSessions`), read at start and on
 *     NOTIFY. A session with no file here is looked up there (session/registry.ts) — never over the network:
 *     one not synced yet is an unknown session, decided as today (fail-closed). A registration disabled on
 *     another machine is not a reason to stop checking here: it counts as unknown.
 *   - **audit**: the audit log's unsent tail (store/log-tail.ts) is the outbox, sent in order in batches; a
 *     store that is down loses nothing, a replay inserts nothing (each line is named by where it was).
 *   - **supervisor answers**: tier 3's answers this machine's backend gave go to an outbox file and on to
 *     the store; the team's are held in memory (`SharedAnswers`) so one machine's answer for a call and
 *     role serves the others without asking the model again (each machine's confidence threshold applies).
 *
 * Every row is checked before it leaves (store/fleet-rows.ts) and again when it comes back. Where sending
 * stands is in `<runtimeDir>/store/share.json` (written whole).
 */
import { hostname } from 'node:os';
import { join } from 'node:path';
import { lstatSync, readdirSync, truncateSync } from 'node:fs';
import { auditPath } from '../audit/log.js';
import { idStoreKey, shownId } from '../sanitize/ids.js';
import { sanitize, type Sanitized } from '../sanitize/index.js';
import { parseRecord, type SessionRecord, type SharedSessionLookup } from '../session/registry.js';
import type { SharedSupervisorAnswers, SupervisorAnswer } from '../supervisor/backend.js';
import {
  appendOwnedLines,
  checkPrivateDir,
  ensurePrivateDir,
  readOwnedFile,
  statIfPresent,
  writeFileAtomic,
} from '../util/fs-safe.js';
import {
  answerFromRow,
  answerRow,
  auditRow,
  sessionFromRow,
  sessionRow,
  type AnswerRow,
  type AuditRow,
  type SessionRow,
} from './fleet-rows.js';
import { unsentBytes, unsentChunks, type TailPosition } from './log-tail.js';
import type { PostgresStore } from './postgres.js';
import { syncDir, type FleetPart } from './sync.js';

/** Held in memory at most (the oldest dropped past it): bounds what a store full of rows costs a daemon. */
export const MAX_SHARED = 200_000;
/** Audit generations looked at for unsent lines (audit.jsonl, audit.1.jsonl, …). */
const AUDIT_GENERATIONS = 10;
/** How often the audit log's tail is sent (`monitor --fleet` polls each second). */
const AUDIT_EVERY_MS = 1000;
/** A fully sent supervisor outbox past this size is emptied. */
const OUTBOX_EMPTY_AT = 64 * 1024;

interface ShareState {
  /** The sessions directory as last scanned (mtime, inode), and each registration file's stamp sent. */
  sessionsDir?: string;
  sessions: Record<string, string>;
  audit?: TailPosition;
  /** When sharing was turned on here: the audit lines from then on are sent, older ones on request. */
  audit_since: string;
  answers?: TailPosition;
  /** Pull cursors (xid8 horizons) per table. */
  pulls: Record<string, string>;
}

export interface FleetShareCounts {
  sent: { sessions: number; audit: number; answers: number };
  received: { sessions: number; answers: number };
  /** Lines refused by the checks (not sent), since the daemon started. */
  refused: number;
}

/** What `daemon status` shows of the sharing. */
export interface FleetShareStatus extends FleetShareCounts {
  held: { sessions: number; answers: number };
  pending_audit_bytes: number;
}

/**
 * A row as pulled, and what the checks made of it — done on first use, not on the pull: a daemon that starts
 * on 100k rows reads them in without sanitizing each, and nothing unchecked is ever used.
 */
interface Held<R, T> {
  row: R;
  checked?: T | string;
}

function checkedOnce<R, T>(
  held: Held<R, T>,
  check: (row: R) => T | string,
  log: (line: string) => void,
): T | undefined {
  if (held.checked === undefined) {
    held.checked = check(held.row);
    if (typeof held.checked === 'string') log(`store: ${held.checked}`);
  }
  return typeof held.checked === 'string' ? undefined : held.checked;
}

/** Holds `value` under `id` unless a newer one is held; the oldest goes past MAX_SHARED. */
function holdNewest<V extends { row: { [k in F]: string } }, F extends string>(
  map: Map<string, V>,
  id: string,
  value: V,
  field: F,
): boolean {
  const held = map.get(id);
  if (held !== undefined && held.row[field] >= value.row[field]) return false;
  map.delete(id);
  map.set(id, value);
  if (map.size > MAX_SHARED) map.delete(map.keys().next().value!);
  return true;
}

/** The team's registrations, by store key, newest update kept. */
export class SharedSessions implements SharedSessionLookup {
  private readonly byKey = new Map<string, Held<SessionRow, SessionRecord>>();

  constructor(private readonly log: (line: string) => void = () => undefined) {}

  get size(): number {
    return this.byKey.size;
  }

  get(sessionId: string): SessionRecord | undefined {
    if (this.byKey.size === 0) return undefined;
    const held = this.byKey.get(idStoreKey(sessionId));
    const r = held === undefined ? undefined : checkedOnce(held, sessionFromRow, this.log);
    // Disabled elsewhere, or enabled without a role: unknown here (checks stay on, fail-closed).
    return r === undefined || r.disabled || r.role === null ? undefined : r;
  }

  hold(row: SessionRow): boolean {
    if (typeof row.session_key !== 'string' || typeof row.updated_at !== 'string') return false;
    return holdNewest(this.byKey, row.session_key, { row }, 'updated_at');
  }
}

/** The team's supervisor answers by memory key and role (newest kept), and this machine's outbox of its own. */
export class SharedAnswers implements SharedSupervisorAnswers {
  private readonly byKey = new Map<string, Held<AnswerRow, AnswerRow>>();

  constructor(
    readonly outbox: string,
    private readonly log: (line: string) => void = () => undefined,
  ) {}

  get size(): number {
    return this.byKey.size;
  }

  lookup(key: string, role: string): SupervisorAnswer | undefined {
    const held = this.byKey.get(`${key}\u0000${role}`);
    const a = held === undefined ? undefined : checkedOnce(held, answerFromRow, this.log);
    if (a === undefined) return undefined;
    return {
      kind: 'answer',
      decision: a.verdict,
      confidence: a.confidence,
      reason: a.reason as Sanitized,
      // Named so the reason, the audit log and stats say the answer came from the team, not from this machine.
      by: `team:${a.answered_by}`.slice(0, 128),
    };
  }

  publish(key: string, role: string, tool: string, answer: SupervisorAnswer): void {
    try {
      const row = answerRow(
        {
          key,
          role,
          tool,
          verdict: answer.decision,
          confidence: answer.confidence,
          reason: answer.reason,
          answered_by: answer.by,
          ts: new Date().toISOString(),
        },
        "the team's store",
      );
      appendOwnedLines(this.outbox, JSON.stringify(row) + '\n', { mode: 0o600, purpose: 'the supervisor outbox' });
    } catch (error) {
      // Not sent (and the decision stands): the answer is this machine's alone.
      this.log(`store: a supervisor answer not shared: ${sanitize((error as Error).message).text}`);
    }
  }

  /** Lets go of the answers for `key` (and `role`; null: every role) given at or before `at` (store/forget.ts). */
  forget(key: string, role: string | null, at: string): number {
    let n = 0;
    for (const [id, held] of this.byKey)
      if (held.row.key === key && (role === null || held.row.role === role) && held.row.ts <= at) {
        this.byKey.delete(id);
        n++;
      }
    return n;
  }

  hold(row: AnswerRow): boolean {
    if (typeof row.key !== 'string' || typeof row.role !== 'string' || typeof row.ts !== 'string') return false;
    return holdNewest(this.byKey, `${row.key}\u0000${row.role}`, { row }, 'ts');
  }
}

/** The three parts a daemon adds to its FleetSync, with what they hold in memory for its engine. */
export class FleetShare {
  readonly sessions: SharedSessions;
  readonly answers: SharedAnswers;
  readonly parts: readonly FleetPart[];
  readonly counts: FleetShareCounts = {
    sent: { sessions: 0, audit: 0, answers: 0 },
    received: { sessions: 0, answers: 0 },
    refused: 0,
  };
  private readonly state: ShareState;
  private readonly machine: string;
  private readonly stateFile: string;
  private readonly sessionsDir: string;
  /** Where a first audit push starts (see pushAudit), once asked of the store. */
  private auditFrom: string | undefined;
  private auditSentAt = 0;

  constructor(
    private readonly runtimeDir: string,
    private readonly log: (line: string) => void = () => undefined,
    machine: string = hostname(),
  ) {
    ensurePrivateDir(syncDir(runtimeDir));
    this.stateFile = join(syncDir(runtimeDir), 'share.json');
    this.sessionsDir = join(runtimeDir, 'sessions');
    this.machine = shownId(machine, 64);
    this.state = this.readState();
    this.sessions = new SharedSessions(log);
    this.answers = new SharedAnswers(join(syncDir(runtimeDir), 'supervisor-outbox.jsonl'), log);
    this.parts = [
      { tables: ['sessions'], push: (r) => this.pushSessions(r), pull: (r) => this.pullSessions(r) },
      { tables: [], push: (r, now) => this.pushAudit(r, now), pull: () => Promise.resolve() },
      { tables: ['supervisor_answers'], push: (r) => this.pushAnswers(r), pull: (r) => this.pullAnswers(r) },
    ];
  }

  status(): FleetShareStatus {
    return {
      ...this.counts,
      held: { sessions: this.sessions.size, answers: this.answers.size },
      // the audit log's unsent bytes: the audit outbox
      pending_audit_bytes: unsentBytes(this.auditFiles(), this.state.audit),
    };
  }

  // ── sessions ───────────────────────────────────────────────────────────────────────────────────────────

  private async pushSessions(remote: PostgresStore): Promise<void> {
    const dir = statIfPresent(this.sessionsDir);
    if (dir === undefined || !checkPrivateDir(this.sessionsDir)) return;
    const dirStamp = `${dir.mtimeMs}:${dir.ino}`;
    if (dirStamp === this.state.sessionsDir) return; // a registration is a rename into the directory
    const rows: SessionRow[] = [];
    const stamps: Record<string, string> = {};
    for (const name of readdirSync(this.sessionsDir)) {
      if (!/^s-[0-9a-f]{32}\.json$/.test(name)) continue; // registrations (session/registry.ts fileFor)
      const file = join(this.sessionsDir, name);
      const st = lstatSync(file, { throwIfNoEntry: false });
      if (st === undefined || !st.isFile()) continue;
      const stamp = `${st.mtimeMs}:${st.size}:${st.ino}`;
      stamps[name] = stamp;
      if (this.state.sessions[name] === stamp) continue;
      try {
        const bytes = readOwnedFile(file, 'a session registration');
        if (bytes !== undefined) rows.push(sessionRow(parseRecord(bytes.toString('utf8'), file), "the team's store"));
      } catch (error) {
        this.counts.refused++;
        this.log(`store: session registration ${name} not shared: ${sanitize((error as Error).message).text}`);
      }
    }
    if (rows.length > 0) {
      await remote.query(
        `INSERT INTO "${remote.schema}".sessions
           (session_key, shown_id, role, disabled, task, team, registered_at, updated_at, origin)
         SELECT session_key, shown_id, role, disabled, task, team, registered_at, updated_at, $2
         FROM jsonb_to_recordset($1::jsonb) AS x(session_key text, shown_id text, role text, disabled boolean,
           task text, team text, registered_at text, updated_at text)
         ON CONFLICT (session_key) DO UPDATE SET shown_id = EXCLUDED.shown_id, role = EXCLUDED.role,
           disabled = EXCLUDED.disabled, task = EXCLUDED.task, team = EXCLUDED.team,
           registered_at = EXCLUDED.registered_at, updated_at = EXCLUDED.updated_at, origin = EXCLUDED.origin,
           xact = pg_current_xact_id()
         WHERE sessions.updated_at < EXCLUDED.updated_at`,
        [JSON.stringify(rows), remote.origin],
      );
      this.counts.sent.sessions += rows.length;
    }
    this.state.sessions = stamps;
    this.state.sessionsDir = dirStamp;
    this.saveState();
  }

  private async pullSessions(remote: PostgresStore): Promise<void> {
    const { rows, horizon } = await pullSince<SessionRow>(
      remote,
      'sessions',
      'session_key, shown_id, role, disabled, task, team, registered_at, updated_at',
      this.state.pulls.sessions,
    );
    for (const row of rows) if (this.sessions.hold(row)) this.counts.received.sessions++;
    this.state.pulls.sessions = horizon;
    this.saveState();
  }

  // ── audit ──────────────────────────────────────────────────────────────────────────────────────────────

  private auditFiles(): string[] {
    return auditGenerations(this.runtimeDir);
  }

  /**
   * The audit log's unsent tail. Where nothing was sent yet (sharing just turned on, or the share state
   * lost), not the whole history: the lines since sharing was turned on here — or, where the store already
   * holds this machine's lines, since its newest. Older history goes only when asked (`store push-audit`).
   */
  private async pushAudit(remote: PostgresStore, now: boolean): Promise<void> {
    // Once a second, not on every run (each 100 ms): each send is a statement, a state file written and the
    // lines checked again, costs a busy daemon paid per tick; nobody reads the team's audit faster than that.
    if (!now && Date.now() - this.auditSentAt < AUDIT_EVERY_MS) return;
    this.auditSentAt = Date.now();
    let since: string | undefined;
    if (this.state.audit === undefined) {
      if (this.auditFrom === undefined) {
        const [row] = await remote.query<{ newest: Date | null }>(
          'SELECT max(ts) AS newest FROM @@.audit WHERE origin = $1',
          [remote.origin],
        );
        this.auditFrom = row?.newest?.toISOString() ?? this.state.audit_since;
      }
      since = this.auditFrom;
    }
    for (const chunk of unsentChunks(this.auditFiles(), this.state.audit)) {
      this.counts.sent.audit += await sendAuditLines(remote, chunk.lines, this.machine, since, (offset, why) => {
        this.counts.refused++;
        this.log(`store: audit line at byte ${offset} not sent: ${why}`);
      });
      this.state.audit = chunk.next;
      this.saveState();
    }
  }

  // ── supervisor answers ─────────────────────────────────────────────────────────────────────────────────

  private async pushAnswers(remote: PostgresStore): Promise<void> {
    const outbox = this.answers.outbox;
    for (const chunk of unsentChunks([outbox], this.state.answers)) {
      const rows: AnswerRow[] = [];
      for (const line of chunk.lines) {
        try {
          rows.push(answerRow(JSON.parse(line.text) as AnswerRow, "the team's store"));
        } catch (error) {
          this.counts.refused++;
          this.log(
            `store: supervisor answer at byte ${line.offset} not sent: ${sanitize((error as Error).message).text}`,
          );
        }
      }
      if (rows.length > 0) {
        await remote.query(
          `INSERT INTO "${remote.schema}".supervisor_answers
             (key, role, tool, verdict, confidence, reason, answered_by, ts, origin)
           SELECT key, role, tool, verdict, confidence, reason, answered_by, ts, $2
           FROM jsonb_to_recordset($1::jsonb) AS x(key text, role text, tool text, verdict text,
             confidence double precision, reason text, answered_by text, ts text)
           WHERE NOT "${remote.schema}".forgotten_answer(key, role, ts)
           ON CONFLICT DO NOTHING`,
          [JSON.stringify(rows), remote.origin],
        );
        this.counts.sent.answers += rows.length;
      }
      this.state.answers = chunk.next;
      this.saveState();
    }
    // Everything sent: empty the outbox (only this process appends to it, and not between these lines).
    const st = statIfPresent(outbox);
    if (
      st !== undefined &&
      st.size > OUTBOX_EMPTY_AT &&
      this.state.answers?.ino === st.ino &&
      this.state.answers.offset === st.size
    ) {
      truncateSync(outbox, 0);
      this.state.answers = { ino: st.ino, offset: 0 };
      this.saveState();
    }
  }

  private async pullAnswers(remote: PostgresStore): Promise<void> {
    const { rows, horizon } = await pullSince<AnswerRow & { id: string }>(
      remote,
      'supervisor_answers',
      'id, key, role, tool, verdict, confidence, reason, answered_by, ts',
      this.state.pulls.answers,
    );
    for (const row of rows) if (this.answers.hold(row)) this.counts.received.answers++;
    this.state.pulls.answers = horizon;
    this.saveState();
  }

  // ── state ──────────────────────────────────────────────────────────────────────────────────────────────

  private readState(): ShareState {
    const bytes = readOwnedFile(this.stateFile, 'store share state');
    if (bytes !== undefined) {
      try {
        const s = JSON.parse(bytes.toString('utf8')) as Partial<ShareState>;
        if (typeof s.sessions === 'object' && s.sessions !== null && typeof s.pulls === 'object' && s.pulls !== null)
          // Pulls start over: what was pulled is held in memory only, and memory starts empty.
          return {
            ...s,
            sessions: s.sessions,
            pulls: {},
            audit_since: typeof s.audit_since === 'string' ? s.audit_since : new Date().toISOString(),
          } as ShareState;
      } catch {
        // written whole: unreadable means a hand edit or another version's; sending again inserts nothing
      }
      this.log('store: the share state was unreadable; sessions, audit and answers are sent again (no duplicates)');
    }
    return { sessions: {}, pulls: {}, audit_since: new Date().toISOString() };
  }

  private saveState(): void {
    writeFileAtomic(this.stateFile, JSON.stringify(this.state) + '\n', { mode: 0o600 });
  }
}

/** The audit log's generations, oldest first (audit.N.jsonl … audit.jsonl). */
function auditGenerations(runtimeDir: string): string[] {
  const files: string[] = [];
  for (let g = AUDIT_GENERATIONS; g >= 0; g--) files.push(auditPath(runtimeDir, g));
  return files;
}

/**
 * Sends audit lines (those at or after `since`, where given) as one statement: a chunk of the log is at most
 * 1 MiB (store/log-tail.ts), which bounds the statement. A line that fails the checks is not sent and is
 * named by its byte offset. Returns how many rows the store took (a line it has already adds nothing).
 */
async function sendAuditLines(
  remote: PostgresStore,
  lines: readonly { ino: number; offset: number; text: string }[],
  machine: string,
  since: string | undefined,
  refused: (offset: number, why: string) => void,
): Promise<number> {
  const rows: AuditRow[] = [];
  for (const line of lines) {
    try {
      const row = auditRow(line.text, { machine, ino: line.ino, offset: line.offset }, "the team's store");
      if (since === undefined || Date.parse(row.ts) >= Date.parse(since)) rows.push(row);
    } catch (error) {
      refused(line.offset, sanitize((error as Error).message).text);
    }
  }
  if (rows.length === 0) return 0;
  const [got] = await remote.query<{ added: string }>(
    `WITH added AS (
       INSERT INTO @@.audit
         (origin, machine, ts, session, role, host, tool, verdict, tier, rule, latency_ms, paths, input, secrets,
          input_hash, project, supervisor, src_ino, src_offset)
       SELECT $2, machine, ts, session, role, host, tool, verdict, tier, rule, latency_ms, paths, input, secrets,
          input_hash, project, supervisor, src_ino, src_offset
       FROM jsonb_to_recordset($1::jsonb) AS x(machine text, ts timestamptz, session text, role text, host text,
         tool text, verdict text, tier text, rule text, latency_ms double precision, paths jsonb, input text,
         secrets integer, input_hash text, project text, supervisor jsonb, src_ino bigint, src_offset bigint)
       ON CONFLICT DO NOTHING
       RETURNING 1)
     SELECT count(*) AS added FROM added`,
    [JSON.stringify(rows), remote.origin],
  );
  return Number(got?.added ?? 0);
}

/**
 * `hookwise store push-audit --since`: this machine's audit history from `since` on — every generation still
 * on disk — in statements of at most 1 MiB of log each. What the store already holds adds nothing.
 */
export async function pushAuditHistory(
  remote: PostgresStore,
  runtimeDir: string,
  since: string,
  machine: string = hostname(),
): Promise<{ sent: number; refused: { offset: number; why: string }[] }> {
  const refused: { offset: number; why: string }[] = [];
  let sent = 0;
  for (const chunk of unsentChunks(auditGenerations(runtimeDir), undefined))
    sent += await sendAuditLines(remote, chunk.lines, shownId(machine, 64), since, (offset, why) =>
      refused.push({ offset, why }),
    );
  return { sent, refused };
}

/**
 * The rows of a table written by other machines since `cursor` (every row without one), read in one statement —
 * one snapshot — with the horizon for the next pull: a row whose transaction was still open comes next time.
 */
async function pullSince<R>(
  remote: PostgresStore,
  table: string,
  columns: string,
  cursor: string | undefined,
): Promise<{ rows: R[]; horizon: string }> {
  const [got] = await remote.query<{ horizon: string; rows: R[] }>(
    `SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS horizon,
       (SELECT coalesce(jsonb_agg(t), '[]'::jsonb) FROM
         (SELECT ${columns} FROM "${remote.schema}".${table}
          WHERE origin <> $1 AND ($2::text IS NULL OR xact >= $2::xid8)) t) AS rows`,
    [remote.origin, cursor ?? null],
  );
  return { rows: got!.rows, horizon: got!.horizon };
}
