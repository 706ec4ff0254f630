/**
 * A daemon's replication between its files and the team's PostgreSQL store.
 *
 * Decisions never wait on the network: the daemon decides from its own files, kept in memory by
 * memory/live.ts. This module copies, in the background,
 *   - out: every line appended to the shared scopes' files (the user scope's rules.jsonl, each org's
 *     <verdict>.jsonl) — by this daemon's learning, a one-shot `hookwise check`, `rules add`, anyone — to the
 *     store. The not-yet-sent tail of each file is the outbox: how far each file was sent is kept in
 *     `<runtimeDir>/store/sync.json` (written whole, fs-safe), so a store that is down loses nothing and the
 *     lines go out in file order once it is back. A file rewritten (compacted) is sent again from its start:
 *     the store keeps one row per decision, so a repeat inserts nothing.
 *   - in: the rows other machines sent (at start, and when the store NOTIFYs), appended to the same files
 *     through memory/store.ts, which checks each record again (valid, sanitized) before it reaches disk.
 *
 * Faults loosen nothing: with the store down or slow, the daemon goes on deciding from what its files hold
 * (every deny and ask it has seen stays), retries with backoff, and says so (`status()`, written to
 * `<runtimeDir>/store/status.json` for `doctor` and `status`).
 */
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { orgNames } from '../memory/load.js';
import {
  fileFor,
  parseLines,
  scopeFiles,
  type LoadedRecord,
  type StoreProblem,
  type StoreTarget,
} from '../memory/store.js';
import { sanitize } from '../sanitize/index.js';
import { ensurePrivateDir, isAbsent, readOwnedFile, statIfPresent, writeFileAtomic } from '../util/fs-safe.js';
import { FileDecisionStore } from './files.js';
import { latestMigration, type PostgresStore, type PullCursor } from './postgres.js';
import { StoreRetry } from './retry.js';
import { describeUrl, type StoreSettings } from './settings.js';
import type { SharedRecord, SharedScope } from './types.js';

export const SYNC_MODES = ['synced', 'offline', 'stopped'] as const;
export type SyncMode = (typeof SYNC_MODES)[number];

export interface SyncStatus {
  mode: SyncMode;
  team: string;
  /** The store's URL without its password. */
  store: string;
  /** When the current mode began (ISO time). */
  since: string;
  /** Bytes of the shared files not yet sent (the outbox). */
  pending_bytes: number;
  /** Records sent and received since the daemon started. */
  sent: number;
  received: number;
  /** Why the store is unreachable (offline), sanitized. */
  error?: string;
  pid: number;
}

interface SyncState {
  /** This machine's id in the store's rows (random, made once per runtime directory). */
  origin: string;
  pull: PullCursor;
  /** Per shared file: its inode and how many bytes of it were sent. */
  sent: Record<string, { ino: number; offset: number }>;
}

/**
 * Another table the daemon shares over the same connection (store/fleet-share.ts: sessions, audit, the
 * supervisor's answers): pushed on every run, pulled at (re)connection and when one of its tables notifies.
 */
export interface FleetPart {
  readonly tables: readonly string[];
  /** `now`: a flush asked for it (a part that batches sends what it holds at once). */
  push(remote: PostgresStore, now: boolean): Promise<void>;
  pull(remote: PostgresStore): Promise<void>;
}

export interface FleetSyncOptions {
  parts?: readonly FleetPart[];
  /** How often the shared files are looked at for new lines (a stat each); default 100 ms. */
  pushEveryMs?: number;
  /** First and longest wait between attempts to reach a store that is down. */
  retryMs?: number;
  maxRetryMs?: number;
  log?: (line: string) => void;
}

type Postgres = Extract<StoreSettings, { kind: 'postgres' }>;

/** A shared file's bytes per read: bounds the memory one push takes. */
const READ_CHUNK = 4 * 1024 * 1024;

export function syncDir(runtimeDir: string): string {
  return join(runtimeDir, 'store');
}

export function statusFile(runtimeDir: string): string {
  return join(syncDir(runtimeDir), 'status.json');
}

/** The status a daemon last wrote, or undefined where none runs with a store. */
export function readSyncStatus(runtimeDir: string): SyncStatus | undefined {
  const bytes = readOwnedFile(statusFile(runtimeDir), 'store status');
  if (bytes === undefined) return undefined;
  try {
    return JSON.parse(bytes.toString('utf8')) as SyncStatus;
  } catch {
    return undefined; // written whole: only a file of another version could fail here
  }
}

/**
 * This machine's origin id in the team's rows, as its daemon made it (undefined before any daemon ran with a
 * store): what `store push-audit` sends under, so a line the daemon sent already is not doubled.
 */
export function syncOrigin(runtimeDir: string): string | undefined {
  const bytes = readOwnedFile(join(syncDir(runtimeDir), 'sync.json'), 'store sync state');
  if (bytes === undefined) return undefined;
  try {
    const origin = (JSON.parse(bytes.toString('utf8')) as Partial<SyncState>).origin;
    return typeof origin === 'string' && /^[0-9a-f]{32}$/.test(origin) ? origin : undefined;
  } catch {
    return undefined; // written whole: another version's or a hand edit, as FleetSync's own read says
  }
}

export class FleetSync {
  private readonly local: FileDecisionStore;
  private readonly state: SyncState;
  private remote: PostgresStore | undefined;
  private unlisten: (() => Promise<void>) | undefined;
  private current: SyncStatus;
  private timer: NodeJS.Timeout | undefined;
  private readonly retry: StoreRetry;
  private running: Promise<void> = Promise.resolve();
  private pullWanted = true;
  private readonly partsWanted = new Set<FleetPart>();
  private closed = false;
  /** Flushes waiting on the queue of runs: their runs send what the parts batch, at once. */
  private flushing = 0;
  /** Identities already received since the last pull's horizon (a row can come twice: see PostgresStore.pull). */
  private readonly received = new Map<string, bigint>();

  constructor(
    private readonly settings: Postgres,
    private readonly places: { runtimeDir: string; userConfigDir: string },
    private readonly openStore: (settings: Postgres, origin: string) => Promise<PostgresStore>,
    private readonly options: FleetSyncOptions = {},
  ) {
    this.local = new FileDecisionStore(places.userConfigDir, settings.user);
    ensurePrivateDir(syncDir(places.runtimeDir));
    this.state = this.readState();
    this.retry = new StoreRetry(options.retryMs ?? 250, options.maxRetryMs ?? 5000, () => void this.connect());
    this.current = {
      mode: 'offline',
      team: settings.team,
      store: describeUrl(settings.url),
      since: new Date().toISOString(),
      pending_bytes: 0,
      sent: 0,
      received: 0,
      error: 'not connected yet',
      pid: process.pid,
    };
  }

  get origin(): string {
    return this.state.origin;
  }

  status(): SyncStatus {
    return { ...this.current, pending_bytes: this.pendingBytes() };
  }

  /** Connects, sends the outbox and pulls; never throws (a store that is down is retried in the background). */
  async start(): Promise<void> {
    await this.connect();
    this.timer = setInterval(() => this.schedule(), this.options.pushEveryMs ?? 100);
    this.timer.unref();
  }

  /** Sends what is pending and pulls what is new, now (tests and `rules export` use it). */
  async flush(): Promise<void> {
    this.pullWanted = true;
    for (const part of this.options.parts ?? []) this.partsWanted.add(part);
    this.flushing++;
    try {
      this.schedule();
      await this.running;
    } finally {
      this.flushing--;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    this.retry.cancel();
    await this.running;
    await this.disconnect();
    this.setMode('stopped');
  }

  // ── connection ─────────────────────────────────────────────────────────────────────────────────────────

  private async connect(): Promise<void> {
    if (this.closed) return;
    try {
      const remote = await this.openStore(this.settings, this.state.origin);
      const [have, want] = [await remote.version().catch(closeAnd(remote)), latestMigration()];
      if (have < want) {
        await remote.close();
        throw new Error(
          `the store's schema is at version ${have}, this hookwise needs ${want}: run hookwise store migrate`,
        );
      }
      this.remote = remote;
      const parts = this.options.parts ?? [];
      this.unlisten = await remote.listen(
        (channel) => {
          const table = channel.slice(channel.indexOf('.') + 1);
          if (table === 'decisions') this.pullWanted = true;
          for (const part of parts) if (part.tables.includes(table)) this.partsWanted.add(part);
          this.schedule();
        },
        (error) => this.fail(error),
        ['decisions', ...parts.flatMap((p) => p.tables)],
      );
      this.pullWanted = true;
      for (const part of parts) this.partsWanted.add(part);
      // In the one queue of runs, so the interval's runs never overlap it (two pushes would send twice).
      const first = this.running.then(() => this.runOnce());
      this.running = first.catch(() => undefined);
      await first;
      if (this.remote !== undefined) {
        this.retry.succeeded();
        this.setMode('synced');
      }
    } catch (error) {
      this.fail(error as Error);
    }
  }

  private async disconnect(): Promise<void> {
    const [remote, unlisten] = [this.remote, this.unlisten];
    this.remote = undefined;
    this.unlisten = undefined;
    await unlisten?.().catch(() => undefined);
    await remote?.close().catch(() => undefined);
  }

  /** The store is unreachable: keep deciding from the files, try again later. */
  private fail(error: Error): void {
    if (this.closed) return;
    const wasConnected = this.remote !== undefined;
    void this.disconnect();
    this.setMode('offline', error);
    if (wasConnected || !this.retry.pending) {
      if (wasConnected) this.options.log?.(`store: offline (${this.current.error}); deciding from the local copy`);
      this.retry.schedule();
    }
  }

  private setMode(mode: SyncMode, error?: Error): void {
    const changed = this.current.mode !== mode;
    this.current = {
      ...this.current,
      mode,
      ...(changed ? { since: new Date().toISOString() } : {}),
    };
    if (error !== undefined) this.current.error = sanitize(error.message).text;
    else delete this.current.error;
    if (changed && mode === 'synced') this.options.log?.(`store: synced with ${this.current.store}`);
    writeFileAtomic(statusFile(this.places.runtimeDir), JSON.stringify(this.status()) + '\n', { mode: 0o600 });
  }

  // ── the work: one run at a time ────────────────────────────────────────────────────────────────────────

  private schedule(): void {
    if (this.remote === undefined || this.closed) return;
    this.running = this.running.then(() => this.runOnce()).catch((error: Error) => this.fail(error));
  }

  private async runOnce(): Promise<void> {
    const remote = this.remote;
    if (remote === undefined) return;
    await this.push(remote);
    if (this.pullWanted) {
      this.pullWanted = false;
      await this.pull(remote);
    }
    for (const part of this.options.parts ?? []) {
      await part.push(remote, this.flushing > 0);
      if (this.partsWanted.delete(part))
        await part.pull(remote).catch((error: Error) => {
          this.partsWanted.add(part); // pulled again on the next run
          throw error;
        });
    }
  }

  /** The outbox, in file order and line order; how far each file went is saved once the store has it. */
  private async push(remote: PostgresStore): Promise<void> {
    for (const { file, scope, owner, target } of this.sharedFiles()) {
      const st = statIfPresent(file);
      if (st === undefined) continue;
      const was = this.state.sent[file];
      let offset = was !== undefined && was.ino === st.ino && was.offset <= st.size ? was.offset : 0;
      while (offset < st.size) {
        const chunk = readFrom(file, offset, Math.min(READ_CHUNK, st.size - offset));
        const end = chunk.lastIndexOf('\n');
        if (end < 0) break; // a line still being written: next time
        const text = chunk.slice(0, end + 1);
        const parsed: LoadedRecord[] = [];
        const problems: StoreProblem[] = [];
        parseLines(text, file, target, parsed, problems);
        const records: SharedRecord[] = parsed.map((r) => ({ owner, record: { ...r, scope } }));
        if (records.length > 0) await remote.append(records.map(stripProvenance));
        offset += Buffer.byteLength(text);
        this.current.sent += records.length;
        this.state.sent[file] = { ino: st.ino, offset };
        this.saveState();
      }
    }
  }

  private async pull(remote: PostgresStore): Promise<void> {
    const got = await remote.pull(this.state.pull);
    for (const p of got.problems) this.options.log?.(`store: ${p}`);
    const fresh: SharedRecord[] = [];
    for (const { shared, xact } of got.records) {
      const id = identity(shared);
      if (this.received.has(id)) continue;
      this.received.set(id, xact);
      fresh.push(shared);
    }
    if (fresh.length > 0) this.appendReceived(fresh);
    // Rows of transactions finished before the new horizon never come again: forget them.
    const horizon = got.cursor === undefined ? undefined : BigInt(got.cursor);
    if (horizon !== undefined) for (const [id, xact] of this.received) if (xact < horizon) this.received.delete(id);
    this.state.pull = got.cursor;
    this.saveState();
  }

  /**
   * Appends received records to the files; where the outbox was empty before, it stays empty after (what came
   * from the store is not sent back — were it sent, the store would insert nothing).
   */
  private appendReceived(records: SharedRecord[]): void {
    const files = new Set<string>();
    for (const r of records) {
      if (r.record.scope === 'user' && r.owner !== this.settings.user) continue;
      files.add(fileFor(this.local.targetOf(r), r.record.verdict));
    }
    const before = new Map([...files].map((f) => [f, statIfPresent(f)?.size ?? 0]));
    let appended = 0;
    try {
      void this.local.append(records); // every record is checked before any is written
      appended = records.length;
    } catch {
      // One bad record (a row another machine wrote by hand) must not hold back the others: one at a time.
      for (const r of records) {
        try {
          void this.local.append([r]);
          appended++;
        } catch (error) {
          this.options.log?.(
            `store: a received ${r.record.scope} record skipped: ${sanitize((error as Error).message).text}`,
          );
        }
      }
    }
    this.current.received += appended;
    for (const file of files) {
      const st = statIfPresent(file);
      if (st === undefined) continue;
      const sent = this.state.sent[file];
      const caughtUp =
        sent === undefined ? before.get(file) === 0 : sent.ino === st.ino && sent.offset === before.get(file);
      if (caughtUp) this.state.sent[file] = { ino: st.ino, offset: st.size };
    }
  }

  // ── files ──────────────────────────────────────────────────────────────────────────────────────────────

  private sharedFiles(): { file: string; scope: SharedScope; owner: string; target: StoreTarget }[] {
    const out: { file: string; scope: SharedScope; owner: string; target: StoreTarget }[] = [];
    const user: StoreTarget = { scope: 'user', userConfigDir: this.places.userConfigDir };
    for (const file of scopeFiles(user)) out.push({ file, scope: 'user', owner: this.settings.user, target: user });
    for (const org of orgNames(this.places.userConfigDir)) {
      const target: StoreTarget = { scope: 'org', userConfigDir: this.places.userConfigDir, org };
      for (const file of scopeFiles(target)) out.push({ file, scope: 'org', owner: org, target });
    }
    return out;
  }

  private pendingBytes(): number {
    let n = 0;
    for (const { file } of this.sharedFiles()) {
      const st = statIfPresent(file);
      if (st === undefined) continue;
      const was = this.state.sent[file];
      n += was !== undefined && was.ino === st.ino && was.offset <= st.size ? st.size - was.offset : st.size;
    }
    return n;
  }

  private readState(): SyncState {
    const bytes = readOwnedFile(join(syncDir(this.places.runtimeDir), 'sync.json'), 'store sync state');
    if (bytes !== undefined) {
      try {
        const s = JSON.parse(bytes.toString('utf8')) as SyncState;
        if (typeof s.origin === 'string' && /^[0-9a-f]{32}$/.test(s.origin) && typeof s.sent === 'object')
          return { origin: s.origin, pull: typeof s.pull === 'string' ? s.pull : undefined, sent: s.sent };
      } catch {
        // written whole, so unreadable means another version's or a hand edit: start over (sending is idempotent)
      }
      this.options.log?.('store: the sync state was unreadable; everything is sent and pulled again (no duplicates)');
    }
    return { origin: randomBytes(16).toString('hex'), pull: undefined, sent: {} };
  }

  private saveState(): void {
    writeFileAtomic(join(syncDir(this.places.runtimeDir), 'sync.json'), JSON.stringify(this.state) + '\n', {
      mode: 0o600,
    });
  }
}

/** Closes the store, then passes the error on. */
function closeAnd(remote: PostgresStore): (error: Error) => never {
  return (error) => {
    void remote.close().catch(() => undefined);
    throw error;
  };
}

function readFrom(file: string, offset: number, length: number): string {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(length);
    const n = readSync(fd, buf, 0, length, offset);
    return buf.subarray(0, n).toString('utf8');
  } catch (error) {
    if (isAbsent(error)) return '';
    throw error;
  } finally {
    closeSync(fd);
  }
}

/** A loaded record without where it was read from (file and line are this machine's business). */
function stripProvenance(r: SharedRecord): SharedRecord {
  const { file: _file, line: _line, ...record } = r.record as LoadedRecord & { scope: SharedScope };
  return { owner: r.owner, record };
}

function identity(r: SharedRecord): string {
  const x = r.record;
  return `${x.scope}\u0000${r.owner}\u0000${x.key}\u0000${x.role}\u0000${x.ts}\u0000${x.verdict}`;
}
