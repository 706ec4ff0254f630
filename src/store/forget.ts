/**
 * Forgetting across the team (migration 005): `hookwise invalidate` on one machine removes the records from
 * that machine's files at once, and — where a team store is set — leaves a tombstone in this machine's
 * forget outbox (`<runtimeDir>/store/forget-outbox.jsonl`). The daemon sends the outbox in order (a store
 * that is down keeps it until it is back; a replay adds nothing); the store deletes what a tombstone covers
 * and refuses a covered row sent later; every daemon, notified, applies each tombstone to its own files (the
 * user scope of its user, the org scopes it holds) and drops the team's supervisor answers it covers from
 * memory.
 *
 * A tombstone covers records learned at or before its time (the record's own `ts`): a decision learned again
 * afterwards, on any machine, stands. Two kinds:
 *   - decisions: a shared scope and owner, and the invalidation's key and/or role (neither: the whole scope);
 *   - answers: the team's supervisor answers for a memory key (and role), whatever scope the invalidated
 *     record lay in — forgetting a supervisor's decision by key says its answer was wrong for everyone.
 */
import { join } from 'node:path';
import { HookwiseError } from '../core/errors.js';
import { removeRecords, type LoadedRecord, type StoreTarget } from '../memory/store.js';
import { findSecrets, sanitize } from '../sanitize/index.js';
import { appendOwnedLines, ensurePrivateDir, readOwnedFile, writeFileAtomic } from '../util/fs-safe.js';
import { unsentChunks, type TailPosition } from './log-tail.js';
import type { PostgresStore } from './postgres.js';
import type { SharedScope } from './types.js';
import { syncDir, type FleetPart } from './sync.js';

export type Tombstone =
  | {
      kind: 'decisions';
      scope: SharedScope;
      /** The user (user scope) or org (org scope) name. */
      owner: string;
      key: string | null;
      role: string | null;
      keep_overrides: boolean;
      /** Records with `ts` at or before this are forgotten. */
      at: string;
    }
  | { kind: 'answers'; key: string; role: string | null; at: string };

const OWNER = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,127}$/;
const DECISION_KEY = /^[A-Za-z0-9._:-]{1,128}$/;
const MEMORY_KEY = /^[0-9a-f]{16}$/;
const ROLE = /^(\*|[A-Za-z0-9][A-Za-z0-9_.:@/-]{0,127})$/;
const plain = (re: RegExp, v: unknown): v is string =>
  typeof v === 'string' && re.test(v) && findSecrets(v).length === 0;
const isTime = (v: unknown): v is string => typeof v === 'string' && Number.isFinite(Date.parse(v));

/**
 * The tombstone as a row, or why it is not one. Every field is a closed value, a plain name, a key or a
 * time: nothing free-form leaves the machine (or is applied when it comes back).
 */
export function checkTombstone(t: unknown): Tombstone | string {
  if (typeof t !== 'object' || t === null) return 'not an object';
  const x = t as Record<string, unknown>;
  const role = x.role ?? null;
  if (role !== null && !plain(ROLE, role)) return 'its role is not a plain name';
  if (!isTime(x.at)) return 'no time';
  if (x.kind === 'answers') {
    if (!plain(MEMORY_KEY, x.key)) return 'its key is not a memory key';
    return { kind: 'answers', key: x.key, role, at: x.at };
  }
  if (x.kind !== 'decisions') return 'not a kind of tombstone';
  if (x.scope !== 'user' && x.scope !== 'org') return 'not a shared scope';
  if (!plain(OWNER, x.owner)) return 'its owner is not a plain name';
  const key = x.key ?? null;
  if (key !== null && !plain(DECISION_KEY, key)) return 'its key is not a record key';
  return {
    kind: 'decisions',
    scope: x.scope,
    owner: x.owner,
    key,
    role,
    keep_overrides: x.keep_overrides === true,
    at: x.at,
  };
}

export function forgetOutbox(runtimeDir: string): string {
  return join(syncDir(runtimeDir), 'forget-outbox.jsonl');
}

/** Appends tombstones to this machine's forget outbox (`hookwise invalidate`); the daemon sends them. */
export function recordForgetting(runtimeDir: string, tombstones: readonly Tombstone[]): void {
  if (tombstones.length === 0) return;
  const lines = tombstones.map((t) => {
    const checked = checkTombstone(t);
    if (typeof checked === 'string')
      throw new HookwiseError('INTERNAL', `refusing to send a tombstone to the team's store: ${checked}`);
    return JSON.stringify(checked) + '\n';
  });
  ensurePrivateDir(syncDir(runtimeDir));
  appendOwnedLines(forgetOutbox(runtimeDir), lines.join(''), { mode: 0o600, purpose: 'the forget outbox' });
}

type DecisionTombstone = Extract<Tombstone, { kind: 'decisions' }>;

/** Whether a tombstone covers a (winning) record of the scope it names. */
export function covers(t: DecisionTombstone, r: LoadedRecord): boolean {
  return (
    (t.key === null || r.key === t.key) &&
    (t.role === null || r.role === t.role) &&
    !(t.keep_overrides && r.tier === 'override') &&
    r.ts <= t.at
  );
}

/** What the daemon's memory of the team's supervisor answers must let go of. */
export interface ForgettingAnswers {
  forget(key: string, role: string | null, at: string): number;
}

interface ForgetState {
  outbox?: TailPosition;
  /** The pull cursor (an xid8 horizon): tombstones change files, so where the pull got to is kept. */
  pull?: string;
}

/** The part of a daemon's FleetSync that sends its tombstones and applies the team's. */
export class ForgetPart implements FleetPart {
  readonly tables = ['forgotten'] as const;
  /** Tombstones sent and applied (records removed from this machine's files) since the daemon started. */
  readonly counts = { sent: 0, applied: 0, removed: 0, refused: 0 };
  private readonly state: ForgetState;
  private readonly stateFile: string;

  constructor(
    private readonly places: { runtimeDir: string; userConfigDir: string },
    /** Whose user-scope records this machine shares (store settings' user). */
    private readonly user: string,
    private readonly answers?: ForgettingAnswers,
    private readonly log: (line: string) => void = () => undefined,
  ) {
    ensurePrivateDir(syncDir(places.runtimeDir));
    this.stateFile = join(syncDir(places.runtimeDir), 'forget.json');
    this.state = this.readState();
  }

  async push(remote: PostgresStore): Promise<void> {
    for (const chunk of unsentChunks([forgetOutbox(this.places.runtimeDir)], this.state.outbox)) {
      const rows: Tombstone[] = [];
      for (const line of chunk.lines) {
        let row: Tombstone | string;
        try {
          row = checkTombstone(JSON.parse(line.text));
        } catch {
          row = 'not JSON';
        }
        if (typeof row === 'string') {
          this.counts.refused++;
          this.log(`store: tombstone at byte ${line.offset} of the forget outbox not sent: ${row}`);
        } else rows.push(row);
      }
      if (rows.length > 0) {
        await remote.query('SELECT @@.forget($1::jsonb, $2)', [JSON.stringify(rows), remote.origin]);
        this.counts.sent += rows.length;
      }
      this.state.outbox = chunk.next;
      this.save();
    }
  }

  /** Every machine's tombstones past the cursor, this one's too (its daemon holds answers the CLI cannot reach). */
  async pull(remote: PostgresStore): Promise<void> {
    const [got] = await remote.query<{ horizon: string; rows: unknown[] }>(
      `SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS horizon,
         (SELECT coalesce(jsonb_agg(t ORDER BY t.id), '[]'::jsonb) FROM
           (SELECT id, kind, scope, owner, key, role, keep_overrides, at FROM @@.forgotten
            WHERE $1::text IS NULL OR xact >= $1::xid8) t) AS rows`,
      [this.state.pull ?? null],
    );
    // Grouped by scope: one rewrite of a scope for every tombstone of it a pull brings (a machine joining
    // pulls the team's whole history of them), not one per tombstone.
    const byScope = new Map<string, { target: StoreTarget; tombstones: DecisionTombstone[] }>();
    for (const row of got!.rows) {
      const t = checkTombstone(row);
      if (typeof t === 'string') {
        this.log(`store: tombstone ${String((row as { id?: unknown }).id)} skipped: ${t}`);
        continue;
      }
      this.counts.applied++;
      if (t.kind === 'answers') this.answers?.forget(t.key, t.role, t.at);
      else if (t.scope === 'org' || t.owner === this.user) {
        // (another user's user-scope records are not on this machine)
        const target: StoreTarget =
          t.scope === 'user'
            ? { scope: 'user', userConfigDir: this.places.userConfigDir }
            : { scope: 'org', userConfigDir: this.places.userConfigDir, org: t.owner };
        const id = `${t.scope}\u0000${t.owner}`;
        const group = byScope.get(id) ?? { target, tombstones: [] };
        group.tombstones.push(t);
        byScope.set(id, group);
      }
    }
    for (const { target, tombstones } of byScope.values()) {
      try {
        this.counts.removed += removeRecords(target, (r) => tombstones.some((t) => covers(t, r))).removed;
      } catch (error) {
        // Applied again on the next pull from the same cursor: the cursor is not moved past them.
        throw new HookwiseError(
          'INTERNAL',
          `store: tombstones could not be applied to the ${target.scope} scope: ${sanitize((error as Error).message).text}`,
        );
      }
    }
    this.state.pull = got!.horizon;
    this.save();
  }

  private readState(): ForgetState {
    const bytes = readOwnedFile(this.stateFile, 'store forget state');
    if (bytes === undefined) return {};
    try {
      const s = JSON.parse(bytes.toString('utf8')) as ForgetState;
      return {
        ...(typeof s.outbox?.ino === 'number' && typeof s.outbox.offset === 'number' ? { outbox: s.outbox } : {}),
        ...(typeof s.pull === 'string' ? { pull: s.pull } : {}),
      };
    } catch {
      // written whole: unreadable means a hand edit; sending again adds nothing, applying again removes nothing
      this.log('store: the forget state was unreadable; tombstones are sent and applied again (no change)');
      return {};
    }
  }

  private save(): void {
    writeFileAtomic(this.stateFile, JSON.stringify(this.state) + '\n', { mode: 0o600 });
  }
}
