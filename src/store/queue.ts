/**
 * The human queue a team's daemons share through the PostgreSQL store (issue 31): one item per distinct
 * pending call across every machine (the same sanitized call asked on four machines is one item), answered
 * once (the store's `queue_answer` lets exactly one answer win; the other is told by whom and when), and one
 * answer waking every waiting call on every machine (NOTIFY on the team's `queue` channel).
 *
 * The daemon's own queue (queue/memory-queue.ts) still holds what only this machine can answer: the lead
 * session's supervise items, and every call that started waiting while the store was down or slow — those
 * stay this machine's to the end, even once the store is back (they are never merged into the store's items
 * or answered by its answers). A call already waiting on a shared item when the store goes keeps waiting and
 * becomes answerable here too; an answer given here then holds for this machine's calls only, and when the
 * store is back this machine withdraws its calls from the item instead of sending the answer as the fleet's.
 * No answer → the call's own deadline → deny, as everywhere in the queue. Nothing is loosened by a fault.
 *
 * Every row is checked before it leaves the machine: the item's text fields sanitized again, ids checked for
 * their shape (item ids random, the dedupe key a hash, sessions shown forms, the machine a random origin id);
 * rows read back are checked and sanitized again before anyone is shown them or a call is answered by them.
 */
import { TIERS, VERDICTS, type Recommendation, type TierName } from '../core/decision.js';
import { shownId } from '../sanitize/ids.js';
import { sanitize, type Sanitized } from '../sanitize/index.js';
import { itemFrom, join as joinLocally, newItemId, pushRecent, recentOf } from '../queue/item.js';
import type { MemoryQueue } from '../queue/memory-queue.js';
import {
  ANSWER_SCOPES,
  ANSWER_VERDICTS,
  CALLER_GONE,
  ID_PATTERN,
  ITEM_KINDS,
  MAX_SESSIONS_SHOWN,
  unknownId,
  type AnswerResult,
  type HumanAnswer,
  type PendingItem,
  type PendingRequest,
  type QueueBackend,
  type RecentItem,
  type WaitOutcome,
} from '../queue/types.js';
import { dirname, join } from 'node:path';
import { ensurePrivateDir, readOwnedFile, writeFileAtomic } from '../util/fs-safe.js';
import { syncDir } from './sync.js';
import type { PostgresStore } from './postgres.js';
import { StoreRetry } from './retry.js';
import type { StoreSettings } from './settings.js';

type Postgres = Extract<StoreSettings, { kind: 'postgres' }>;

export const FLEET_QUEUE_MODES = ['shared', 'local', 'stopped'] as const;
export type FleetQueueMode = (typeof FLEET_QUEUE_MODES)[number];

export interface FleetQueueStatus {
  /** shared: asks wait on the team's items; local: the store is unreachable, asks wait on this machine only. */
  mode: FleetQueueMode;
  since: string;
  /** Calls of this machine waiting on shared items. */
  waiting_shared: number;
  /** Why the store is unreachable (local), sanitized. */
  error?: string;
}

export interface FleetQueueOptions {
  /** How long a call's item may take to reach the store before the call waits on this machine instead. */
  joinTimeoutMs?: number;
  /** First and longest wait between attempts to reach a store that is down. */
  retryMs?: number;
  maxRetryMs?: number;
  log?: (line: string) => void;
  /** Where the mode is written whole on each change, for `status` and `doctor` (which do not ask the daemon). */
  statusFile?: string;
}

/** Where the daemon writes its shared queue's mode: beside the replication's status. */
export const queueStatusFile = (runtimeDir: string): string => join(syncDir(runtimeDir), 'queue-status.json');

/** The mode a daemon's shared queue last wrote, or undefined where none runs with a store. */
export function readQueueStatus(runtimeDir: string): FleetQueueStatus | undefined {
  const bytes = readOwnedFile(queueStatusFile(runtimeDir), 'the shared queue status');
  if (bytes === undefined) return undefined;
  try {
    const s = JSON.parse(bytes.toString('utf8')) as FleetQueueStatus;
    return (FLEET_QUEUE_MODES as readonly unknown[]).includes(s.mode) ? s : undefined;
  } catch {
    return undefined; // written whole: only a file of another version could fail here
  }
}

/** Not a limit on input: how long the network may take before the store counts as slow (the call then waits here). */
const JOIN_TIMEOUT_MS = 2000;
/** How often a daemon tidies the team's queue (pruneShared): a handful of statements, not per notification. */
const PRUNE_EVERY_MS = 60_000;
/** An item's fields as stored: everything a human reads, nothing of this machine's own (no pids, no paths but the project's). */
const ITEM_TEXT_FIELDS = ['role', 'tool', 'call', 'reason', 'project'] as const;
const DEDUPE = /^[0-9a-f]{1,64}$/;
const ORIGIN = /^[0-9a-f]{32}$/;
/** A task or call longer than this is cut (requestFor bounds them already; a row from elsewhere may not be). */
const MAX_FIELD = 8192;

// ── rows: what leaves the machine and what comes back ──────────────────────────────────────────────────────

/** The item's text for the store: every field sanitized again (a no-op for what requestFor built). */
export function outgoingItem(item: PendingItem): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of ITEM_TEXT_FIELDS) out[f] = clean(item[f]);
  out.tier = item.tier;
  if (item.kind !== undefined) out.kind = item.kind;
  if (item.task !== undefined) out.task = clean(item.task);
  if (item.rule !== undefined) out.rule = shownId(item.rule);
  if (item.recommendation !== undefined)
    out.recommendation = {
      decision: item.recommendation.decision,
      confidence: item.recommendation.confidence,
      reason: clean(item.recommendation.reason),
    };
  return out;
}

interface ItemRow {
  id: string;
  dedupe: string;
  item: unknown;
  created: Date | string;
  waiting: string | number;
  sessions: unknown;
}

/** A row as a pending item, checked and sanitized again; or why it is not one (named by its id, never its text). */
export function incomingItem(row: ItemRow): PendingItem | string {
  if (!ID_PATTERN.test(row.id)) return 'a queue row with a malformed id (skipped)';
  const v = row.item as Record<string, unknown> | null;
  if (typeof v !== 'object' || v === null) return `queue item ${row.id}: not an object (skipped)`;
  for (const f of ITEM_TEXT_FIELDS) if (typeof v[f] !== 'string') return `queue item ${row.id}: no ${f} (skipped)`;
  if (!(TIERS as readonly unknown[]).includes(v.tier)) return `queue item ${row.id}: not a tier (skipped)`;
  if (v.kind !== undefined && !(ITEM_KINDS as readonly unknown[]).includes(v.kind))
    return `queue item ${row.id}: not an item kind (skipped)`;
  if (!DEDUPE.test(row.dedupe)) return `queue item ${row.id}: a malformed dedupe key (skipped)`;
  const sessions = Array.isArray(row.sessions)
    ? row.sessions
        .filter((s): s is string => typeof s === 'string')
        .slice(0, MAX_SESSIONS_SHOWN)
        .map((s) => shownId(s))
    : [];
  const item: PendingItem = {
    id: row.id,
    dedupe: row.dedupe,
    created: new Date(row.created).toISOString(),
    sessions,
    waiting: Number(row.waiting),
    role: clean(v.role as string),
    tool: clean(v.tool as string),
    call: clean(v.call as string),
    reason: clean(v.reason as string),
    project: clean(v.project as string),
    tier: v.tier as TierName,
  };
  if (v.kind === 'supervise') item.kind = 'supervise';
  if (typeof v.task === 'string') item.task = clean(v.task);
  if (typeof v.rule === 'string') item.rule = shownId(v.rule);
  const r = v.recommendation as Partial<Recommendation> | undefined;
  if (
    typeof r === 'object' &&
    r !== null &&
    (VERDICTS as readonly unknown[]).includes(r.decision) &&
    typeof r.confidence === 'number' &&
    Number.isFinite(r.confidence) &&
    typeof r.reason === 'string'
  )
    item.recommendation = { decision: r.decision!, confidence: r.confidence, reason: clean(r.reason) };
  return item;
}

/** A human answer as stored: its closed fields only (a human item's answer carries no free text). */
export function outgoingAnswer(a: HumanAnswer): Record<string, unknown> {
  return {
    verdict: a.verdict,
    alwaysAsk: a.alwaysAsk,
    addRule: a.addRule,
    via: a.via,
    ...(a.scope === undefined ? {} : { scope: a.scope }),
  };
}

/** A stored answer, checked: anything else is no answer at all (the waiting call is denied, never allowed). */
export function incomingAnswer(value: unknown): HumanAnswer | undefined {
  const a = value as Partial<HumanAnswer> | null;
  if (typeof a !== 'object' || a === null) return undefined;
  if (!(ANSWER_VERDICTS as readonly unknown[]).includes(a.verdict)) return undefined;
  if (typeof a.alwaysAsk !== 'boolean' || typeof a.addRule !== 'boolean') return undefined;
  if (a.via !== 'cli' && a.via !== 'web' && a.via !== 'mcp') return undefined;
  if (a.scope !== undefined && !(ANSWER_SCOPES as readonly unknown[]).includes(a.scope)) return undefined;
  return {
    verdict: a.verdict!,
    alwaysAsk: a.alwaysAsk,
    addRule: a.addRule,
    via: a.via,
    ...(a.scope === undefined ? {} : { scope: a.scope }),
  };
}

function clean(text: string): Sanitized {
  const t = text.length > MAX_FIELD ? `${text.slice(0, MAX_FIELD)}…` : text;
  return sanitize(t).text;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined; // not JSON: no answer (the caller reads the table)
  }
}

function sessionsOf(item: PendingItem): string {
  return JSON.stringify(item.sessions.map((s) => shownId(s)));
}

// ── the store's statements (the daemon and the CLI without one) ────────────────────────────────────────────

/**
 * Housekeeping: items nobody waits on any more (their machines died or were cut off past their calls'
 * deadlines) expire; answered and expired items are history for a day, then dropped.
 */
export async function pruneShared(store: PostgresStore): Promise<void> {
  await store.query(
    `UPDATE @@.queue_items q SET state = 'expired' WHERE q.state = 'pending'
       AND NOT EXISTS (SELECT 1 FROM @@.queue_waiters w WHERE w.item = q.id AND w.until_at > now())`,
  );
  await store.query(`DELETE FROM @@.queue_items WHERE state <> 'pending' AND created < now() - interval '1 day'`);
}

/** The team's pending items that some live call waits on, oldest first. */
export async function listShared(store: PostgresStore): Promise<{ items: PendingItem[]; problems: string[] }> {
  const rows = await store.query<ItemRow>(
    `SELECT q.id, q.dedupe, q.item, q.created, sum(w.waiting) AS waiting,
            jsonb_path_query_array(jsonb_agg(w.sessions ORDER BY w.since), '$[*][*]') AS sessions
       FROM @@.queue_items q JOIN @@.queue_waiters w ON w.item = q.id AND w.until_at > now()
      WHERE q.state = 'pending'
      GROUP BY q.id ORDER BY q.created`,
  );
  const items: PendingItem[] = [];
  const problems: string[] = [];
  for (const row of rows) {
    const item = incomingItem(row);
    if (typeof item === 'string') problems.push(`the team store: ${item}`);
    else items.push({ ...item, sessions: [...new Set(item.sessions)] });
  }
  return { items, problems };
}

interface AnswerRow {
  won: boolean;
  dedupe: string;
  item: unknown;
  created: Date;
  state: string;
  answer: unknown;
  answered_by: string | null;
  answered_at: Date | null;
  remembers: string | null;
  waiting: string | number;
}

export type SharedAnswer =
  | { ok: true; item: PendingItem; resolved: number; remembers: string | undefined; answer: HumanAnswer }
  | { ok: false; why: string };

/** Answers a shared item: exactly one answer wins; a later (or concurrent) one is told who answered and when. */
export async function answerShared(
  store: PostgresStore,
  id: string,
  answer: HumanAnswer,
  origin: string,
): Promise<SharedAnswer> {
  if (!ID_PATTERN.test(id)) return { ok: false, why: unknownId(id) };
  const rows = await store.query<AnswerRow>(`SELECT * FROM @@.queue_answer($1, $2::jsonb, $3)`, [
    id,
    JSON.stringify(outgoingAnswer(answer)),
    origin,
  ]);
  const row = rows[0];
  if (row === undefined) return { ok: false, why: unknownId(id) };
  if (!row.won) {
    if (row.state === 'answered') {
      const given = incomingAnswer(row.answer);
      const what = given === undefined ? 'answered' : given.verdict === 'deny' ? 'denied' : 'approved';
      const when = row.answered_at === null ? '' : ` at ${new Date(row.answered_at).toISOString()}`;
      const where = row.answered_by === origin ? 'on this machine' : 'on another machine';
      return {
        ok: false,
        why: `queue item ${id} was already ${what} ${where}${when} (via ${given?.via ?? 'unknown'}): that answer stands, this one was not used`,
      };
    }
    return {
      ok: false,
      why: `queue item ${id} is no longer waiting: every call on it timed out or went away (it was not answered)`,
    };
  }
  const item = incomingItem({ ...row, id, sessions: [] });
  if (typeof item === 'string') return { ok: false, why: item };
  return {
    ok: true,
    item,
    resolved: Number(row.waiting),
    remembers: row.remembers ?? undefined,
    answer,
  };
}

// ── the daemon's queue over the store ──────────────────────────────────────────────────────────────────────

interface Waiter {
  resolve(outcome: WaitOutcome): void;
  timer: NodeJS.Timeout;
  deadline: number;
}

interface SharedHeld {
  item: PendingItem;
  waiters: Set<Waiter>;
  /** This machine's changes to its waiter row, one after the other. */
  writes: Promise<void>;
  /** A write is queued that has not read the count yet: a change meanwhile rides on it. */
  writeQueued: boolean;
  /** The store went while these calls waited: answerable here, and withdrawn from the store when it is back. */
  stranded: boolean;
}

export class FleetQueue implements QueueBackend {
  private store: PostgresStore | undefined;
  private unlisten: (() => Promise<void>) | undefined;
  private readonly held = new Map<string, SharedHeld>();
  private readonly byDedupe = new Map<string, string>();
  private readonly joining = new Map<string, Promise<SharedHeld | undefined>>();
  /** Items this machine withdrew from while the store was down: told to the store when it is back. */
  private readonly withdrawn = new Set<string>();
  private readonly recentList: RecentItem[] = [];
  private readonly listeners = new Set<() => void>();
  private sharedItems: PendingItem[] = [];
  private current: FleetQueueStatus;
  private readonly retry: StoreRetry;
  private refreshing: Promise<void> | undefined;
  private refreshAgain = false;
  private prunedAt = 0;
  private statusWritten = false;
  private closed = false;

  constructor(
    readonly local: MemoryQueue,
    private readonly settings: Postgres,
    /** This machine's random id in the store's rows (the replication's origin). */
    readonly origin: string,
    private readonly openStore: (settings: Postgres, origin: string) => Promise<PostgresStore>,
    private readonly options: FleetQueueOptions = {},
  ) {
    if (!ORIGIN.test(origin)) throw new Error('the fleet queue needs the machine origin id (32 hex digits)');
    this.retry = new StoreRetry(options.retryMs ?? 250, options.maxRetryMs ?? 5000, () => void this.connect());
    this.current = { mode: 'local', since: new Date().toISOString(), waiting_shared: 0, error: 'not connected yet' };
    local.subscribe(() => this.emit());
  }

  status(): FleetQueueStatus {
    let n = 0;
    for (const h of this.held.values()) n += h.waiters.size;
    return { ...this.current, waiting_shared: n };
  }

  /** Connects and listens; never throws (a store that is down is retried in the background). */
  async start(): Promise<void> {
    await this.connect();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.retry.cancel();
    // Calls waiting end now, denied as timed out (as the daemon's own queue does), and leave their items.
    for (const h of [...this.held.values()])
      for (const w of [...h.waiters]) this.drop(h, w, { kind: 'timeout', id: h.item.id });
    await Promise.all([...this.held.values()].map((h) => h.writes));
    await this.disconnect();
    this.setMode('stopped');
  }

  // ── QueueBackend ──

  async wait(request: PendingRequest, timeoutMs: number, signal?: AbortSignal): Promise<WaitOutcome> {
    // The lead session's supervise items are answered through this machine's MCP server: they stay here.
    if (request.kind === 'supervise' || this.store === undefined) return this.local.wait(request, timeoutMs, signal);
    if (signal?.aborted === true) return { kind: 'unavailable', why: CALLER_GONE };
    let held = this.heldFor(request.dedupe);
    if (held === undefined) {
      let joining = this.joining.get(request.dedupe);
      if (joining === undefined) {
        joining = this.join(request, timeoutMs);
        this.joining.set(request.dedupe, joining);
        void joining.finally(() => this.joining.delete(request.dedupe));
      }
      held = await joining;
      // The store is down or slow: this call waits on this machine, and stays here.
      if (held === undefined || held.stranded) return this.local.wait(request, timeoutMs, signal);
    }
    joinLocally(held.item, request);
    const h = held;
    return new Promise<WaitOutcome>((resolve) => {
      const waiter: Waiter = {
        resolve,
        deadline: Date.now() + timeoutMs,
        timer: setTimeout(() => this.drop(h, waiter, { kind: 'timeout', id: h.item.id }), timeoutMs),
      };
      h.waiters.add(waiter);
      h.item.waiting = h.waiters.size;
      signal?.addEventListener('abort', () => this.drop(h, waiter, { kind: 'unavailable', why: CALLER_GONE }), {
        once: true,
      });
      this.writeWaiting(h);
      this.emit();
    });
  }

  /**
   * The items a human may answer here: the team's (every machine's calls) while the store is reachable, this
   * machine's calls on shared items while it is not. The daemon's own queue (MemoryQueue) is listed apart.
   */
  list(): PendingItem[] {
    if (this.store !== undefined) return this.sharedItems.map((i) => ({ ...i, sessions: [...i.sessions] }));
    return [...this.held.values()].map((h) => ({ ...h.item, sessions: [...h.item.sessions] }));
  }

  recent(): RecentItem[] {
    return [...this.recentList];
  }

  /** Only what this machine holds can be answered without the network; the daemon answers with answerAsync. */
  answer(id: string, answer: HumanAnswer): AnswerResult {
    const held = this.held.get(id);
    if (held !== undefined && this.store === undefined) return this.answerHere(held, answer);
    return this.local.answer(id, answer);
  }

  /**
   * Answers an item: this machine's own queue first, then the team's store (exactly one answer wins), with the
   * store unreachable only this machine's calls (and the result says so).
   */
  async answerAsync(id: string, answer: HumanAnswer): Promise<AnswerResult> {
    const own = this.local.answer(id, answer);
    if (own.ok) return own;
    const held = this.held.get(id);
    const store = this.store;
    if (store === undefined || held?.stranded === true) return held === undefined ? own : this.answerHere(held, answer);
    let result: SharedAnswer;
    try {
      await held?.writes; // this machine's count in the store is current: the answer counts the calls it resolves
      result = await answerShared(store, id, answer, this.origin);
    } catch (error) {
      this.fail(error as Error);
      // The answer did not reach the store: it holds for this machine's calls only, never for the fleet's.
      return held === undefined
        ? { ok: false, why: `the team store is unreachable: ${sanitize((error as Error).message).text}` }
        : this.answerHere(held, answer);
    }
    if (!result.ok) return result;
    // Wake this machine's calls now, without waiting for the notification (which finds nothing left).
    if (held !== undefined) this.resolveHeld(held, answer, result.remembers);
    this.refresh();
    return { ok: true, item: result.item, resolved: result.resolved };
  }

  /** Hear every change: this machine's queue, the team's items. Returns the unsubscribe. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  // ── joining and leaving an item ──

  /** The call's item in the store (made or joined), or undefined when the store is down or too slow. */
  private async join(request: PendingRequest, timeoutMs: number): Promise<SharedHeld | undefined> {
    const store = this.store;
    if (store === undefined) return undefined;
    const item = itemFrom(newItemId(), request);
    const joined = store
      .query<{ id: string; made: boolean }>(`SELECT * FROM @@.queue_join($1, $2, $3::jsonb, $4, 1, $5::jsonb, $6)`, [
        item.id,
        item.dedupe,
        JSON.stringify(outgoingItem(item)),
        this.origin,
        sessionsOf(item),
        timeoutMs,
      ])
      .then((rows) => rows[0]);
    const slow = Symbol('slow');
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<typeof slow>((resolve) => {
      timer = setTimeout(() => resolve(slow), this.options.joinTimeoutMs ?? JOIN_TIMEOUT_MS);
    });
    let row: { id: string; made: boolean } | undefined | typeof slow;
    try {
      row = await Promise.race([joined, late]);
    } catch (error) {
      this.fail(error as Error);
      return undefined;
    } finally {
      clearTimeout(timer);
    }
    if (row === slow) {
      this.options.log?.('queue: the team store is slow; this call waits on this machine');
      // Joined after all, later: this machine's waiter row is withdrawn (its calls wait here instead).
      void joined.then(
        (r) => (r === undefined ? undefined : this.leave(store, r.id)),
        () => undefined,
      );
      return undefined;
    }
    if (row === undefined || !ID_PATTERN.test(row.id)) return undefined;
    const existing = this.held.get(row.id);
    if (existing !== undefined) return existing;
    if (!row.made) item.id = row.id;
    const held: SharedHeld = {
      item,
      waiters: new Set(),
      writes: Promise.resolve(),
      writeQueued: false,
      stranded: false,
    };
    this.held.set(item.id, held);
    this.byDedupe.set(item.dedupe, item.id);
    // An answer that came between the join and now found nobody here: look once.
    void this.look(held);
    return held;
  }

  private heldFor(dedupe: string): SharedHeld | undefined {
    const id = this.byDedupe.get(dedupe);
    const held = id === undefined ? undefined : this.held.get(id);
    return held?.stranded === true ? undefined : held;
  }

  /**
   * This machine's count of calls on the item, to the store (in order; a failure is the store going). One
   * statement for a burst of changes, not one per call: a write still queued reads the count when it goes, so
   * 16 calls joining at once are a write or two — each a NOTIFY that every daemon answers with a re-read of
   * the team's list, which is what an answer given at that moment waited behind.
   */
  private writeWaiting(held: SharedHeld): void {
    const store = this.store;
    if (store === undefined || held.stranded || held.writeQueued) return;
    held.writeQueued = true;
    held.writes = held.writes
      .then(async () => {
        held.writeQueued = false;
        if (held.stranded) return;
        const n = held.waiters.size;
        const untilMs = Math.max(0, ...[...held.waiters].map((w) => w.deadline)) - Date.now();
        const sessions = sessionsOf(held.item);
        await store.query(`SELECT @@.queue_waiting($1, $2, $3, $4::jsonb, $5)`, [
          held.item.id,
          this.origin,
          n,
          sessions,
          Math.max(0, Math.round(untilMs)),
        ]);
      })
      .catch((error: Error) => this.fail(error));
  }

  private async leave(store: PostgresStore, id: string): Promise<void> {
    await store.query(`SELECT @@.queue_waiting($1, $2, 0, '[]'::jsonb, 0)`, [id, this.origin]);
  }

  /** One call stops waiting (its deadline, or it went away); the item goes with this machine's last call. */
  private drop(held: SharedHeld, waiter: Waiter, outcome: WaitOutcome): void {
    if (!held.waiters.delete(waiter)) return;
    clearTimeout(waiter.timer);
    held.item.waiting = held.waiters.size;
    if (held.waiters.size === 0) {
      this.forget(held);
      if (outcome.kind === 'timeout') pushRecent(this.recentList, recentOf(held.item, undefined, 0));
      // Left while the store was unreachable: the store is told when it is back.
      if (this.store === undefined) this.withdrawn.add(held.item.id);
    }
    this.writeWaiting(held);
    waiter.resolve(outcome);
    this.emit();
  }

  private forget(held: SharedHeld): void {
    this.held.delete(held.item.id);
    if (this.byDedupe.get(held.item.dedupe) === held.item.id) this.byDedupe.delete(held.item.dedupe);
  }

  /** Every call of this machine on the item gets the answer; the one the store named remembers it (once for all). */
  private resolveHeld(held: SharedHeld, answer: HumanAnswer, remembers: string | undefined): number {
    this.forget(held);
    let first = remembers === this.origin;
    const resolved = held.waiters.size;
    for (const waiter of held.waiters) {
      clearTimeout(waiter.timer);
      waiter.resolve({ kind: 'answered', id: held.item.id, answer, first });
      first = false;
    }
    held.waiters.clear();
    pushRecent(this.recentList, recentOf(held.item, answer, resolved));
    this.emit();
    return resolved;
  }

  /** Answered here while the store is unreachable: this machine's calls only; the store is told it left. */
  private answerHere(held: SharedHeld, answer: HumanAnswer): AnswerResult {
    this.withdrawn.add(held.item.id);
    const item = { ...held.item };
    const resolved = this.resolveHeld(held, answer, this.origin);
    return { ok: true, item, resolved };
  }

  /** The item's state in the store: answered → wake this machine's calls; no longer pending → they wait here. */
  private async look(held: SharedHeld): Promise<void> {
    const store = this.store;
    if (store === undefined) return;
    let rows: { state: string; answer: unknown; remembers: string | null }[];
    try {
      rows = await store.query(`SELECT state, answer, remembers FROM @@.queue_items WHERE id = $1`, [held.item.id]);
    } catch (error) {
      this.fail(error as Error);
      return;
    }
    if (this.held.get(held.item.id) !== held) return; // answered or left meanwhile
    const row = rows[0];
    if (row?.state === 'answered') {
      const answer = incomingAnswer(row.answer);
      if (answer === undefined) {
        // Not an answer hookwise wrote: these calls are denied, never allowed.
        this.options.log?.(`queue: item ${held.item.id}'s answer in the store is malformed; its calls are denied`);
        for (const w of [...held.waiters])
          this.drop(held, w, {
            kind: 'unavailable',
            why: `queue item ${held.item.id}'s answer in the team store is malformed`,
          });
        return;
      }
      this.resolveHeld(held, answer, row.remembers ?? undefined);
    } else if (row?.state !== 'pending') {
      // Expired or gone while these calls still wait (their machine was cut off past its deadline): they
      // stay this machine's, answerable here until their own deadline.
      held.stranded = true;
      this.emit();
    }
  }

  // ── the connection ──

  private async connect(): Promise<void> {
    if (this.closed) return;
    let store: PostgresStore | undefined;
    try {
      store = await this.openStore(this.settings, this.origin);
      const [has] = await store.query<{ ok: boolean }>(`SELECT to_regclass($1) IS NOT NULL AS ok`, [
        `"${store.schema}".queue_items`,
      ]);
      if (has?.ok !== true) throw new Error("the store's schema has no shared queue yet: run hookwise store migrate");
      this.unlisten = await store.listen(
        (_channel, payload) => this.notified(payload),
        (error) => this.fail(error),
        ['queue'],
      );
      this.store = store;
      await this.reconcile(store);
      this.retry.succeeded();
      this.setMode('shared');
      this.refresh();
    } catch (error) {
      if (this.store === undefined) await store?.close().catch(() => undefined);
      this.fail(error as Error);
    }
  }

  /**
   * Back in touch: items this machine answered or gave up on meanwhile are withdrawn from (their answers stay
   * this machine's); calls still waiting on shared items re-join them, or take an answer given meanwhile.
   */
  private async reconcile(store: PostgresStore): Promise<void> {
    for (const id of [...this.withdrawn]) {
      await this.leave(store, id);
      this.withdrawn.delete(id);
    }
    for (const held of [...this.held.values()]) {
      if (held.stranded) continue;
      await this.look(held);
      if (this.held.get(held.item.id) === held && !held.stranded) this.writeWaiting(held);
    }
  }

  private notified(payload: string): void {
    const m = /^answered ([a-z2-7]{10}) (\S+) (.*)$/s.exec(payload);
    const held = m === null ? undefined : this.held.get(m[1]!);
    if (held !== undefined && !held.stranded) {
      const answer = incomingAnswer(parseJson(m![3]!));
      // The answer rode along: wake the calls now; a payload that is not one is read from the table instead.
      if (answer === undefined) void this.look(held);
      else this.resolveHeld(held, answer, m![2] === '-' ? undefined : m![2]);
    }
    this.refresh();
  }

  /** The team's list again (coalesced: one refresh at a time, one more if told meanwhile). */
  private refresh(): void {
    const store = this.store;
    if (store === undefined) return;
    if (this.refreshing !== undefined) {
      this.refreshAgain = true;
      return;
    }
    this.refreshing = (async () => {
      do {
        this.refreshAgain = false;
        if (Date.now() - this.prunedAt > PRUNE_EVERY_MS) {
          this.prunedAt = Date.now();
          await pruneShared(store);
        }
        const got = await listShared(store);
        for (const p of got.problems) this.options.log?.(`queue: ${p}`);
        this.sharedItems = got.items;
        this.emit();
      } while (this.refreshAgain && this.store === store);
    })()
      .catch((error: Error) => this.fail(error))
      .finally(() => (this.refreshing = undefined));
  }

  private async disconnect(): Promise<void> {
    const [store, unlisten] = [this.store, this.unlisten];
    this.store = undefined;
    this.unlisten = undefined;
    await unlisten?.().catch(() => undefined);
    await store?.close().catch(() => undefined);
  }

  /** The store is unreachable: new calls wait on this machine, waiting ones become answerable here. */
  private fail(error: Error): void {
    if (this.closed) return;
    const wasShared = this.store !== undefined;
    void this.disconnect();
    this.sharedItems = [];
    this.setMode('local', error);
    if (wasShared)
      this.options.log?.(
        `queue: the team store is unreachable (${this.current.error}); asks wait on this machine, answerable here`,
      );
    if (wasShared || !this.retry.pending) {
      this.retry.schedule();
    }
    this.emit();
  }

  private setMode(mode: FleetQueueMode, error?: Error): void {
    const changed = this.current.mode !== mode;
    if (changed) {
      this.current = { ...this.current, mode, since: new Date().toISOString() };
      if (mode === 'shared') this.options.log?.('queue: shared with the team store');
    }
    if (error !== undefined) this.current.error = sanitize(error.message).text;
    else delete this.current.error;
    const file = this.options.statusFile;
    if (file !== undefined && (changed || this.statusWritten === false)) {
      try {
        ensurePrivateDir(dirname(file));
        writeFileAtomic(file, JSON.stringify(this.status()) + '\n', { mode: 0o600 });
        this.statusWritten = true;
      } catch (e) {
        // Only `status` and `doctor` read it; the queue itself goes on (the daemon's health says the mode too).
        this.options.log?.(`queue: its status could not be written to ${file}: ${sanitize((e as Error).message).text}`);
      }
    }
  }

  private emit(): void {
    for (const listener of this.listeners) {
      try {
        listener();
      } catch {
        // A listener's failure (a closed page's stream) is its own; the queue goes on.
      }
    }
  }
}
