/**
 * The queue in files, for calls decided without a daemon (`hookwise check` deciding in process): the private
 * runtime directory's `queue/` (0700), one file per item and per answer, every change made under one lock
 * file and written whole (temp file + rename), so a reader never sees half a file.
 *
 *   queue/items/<id>.json     a pending item and the processes waiting on it (pid + start time)
 *   queue/answers/<id>.json   a human's answer; the waiting processes watch this directory (fs.watch) and
 *                             re-check on a short interval in case an event is lost
 *   queue/recent.json         the last answered or expired items (for `hookwise queue` and the page)
 *
 * A waiting process that died (the host killed the hook) is recognised by its pid and start time and no
 * longer counted; a lock left by a dead process is broken (util/fs-safe.ts). A file that cannot be read as
 * what it should be is a QUEUE_CORRUPT error naming it: the call waiting on it is denied, never allowed.
 */
import { readdirSync, unlinkSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { hostname } from 'node:os';
import { HookwiseError } from '../core/errors.js';
import { shownError } from '../sanitize/shown.js';
import {
  ensurePrivateDir,
  isAbsent,
  processAlive,
  processStart,
  readOwnedFile,
  statIfPresent,
  withLockSync,
  writeFileAtomic,
} from '../util/fs-safe.js';
import { MAX_HUMAN_TIMEOUT_MS } from '../policy/defaults.js';
import { itemFrom, join as joinItem, newItemId, pushRecent, recentOf } from './item.js';
import {
  ANSWER_SCOPES,
  ANSWER_VERDICTS,
  answerExtrasValid,
  CALLER_GONE,
  ID_PATTERN,
  unknownId,
  type AnswerResult,
  type HumanAnswer,
  type PendingItem,
  type PendingRequest,
  type QueueBackend,
  type RecentItem,
  type WaitOutcome,
} from './types.js';

interface WaiterRecord {
  pid: number;
  start: string;
  host: string;
  /** This wait's own random token (one process may wait several times: tests, a batch). */
  token?: string;
}

interface ItemFile {
  version: 1;
  item: PendingItem;
  waiters: WaiterRecord[];
}

interface AnswerFile {
  version: 1;
  id: string;
  answer: HumanAnswer;
  ts: string;
  /** The longest-waiting live call, which remembers the answer (once for all). */
  remembers?: WaiterRecord;
}

/** An answer file outlives every call that could wait on it by this much, then it is pruned. */
const ANSWER_TTL_MS = MAX_HUMAN_TIMEOUT_MS + 60_000;
/** How often a waiting call looks for its answer besides fs.watch's events (which may be lost or coalesced). */
const RECHECK_MS = 200;
const LOCK = { timeoutMs: 5000, staleMs: 10_000 };
const PURPOSE = 'the human queue';

export interface FileQueueOptions {
  /** The re-check interval (tests lower it to show that a lost watch event only costs this much). */
  recheckMs?: number;
}

export class FileQueue implements QueueBackend {
  readonly dir: string;
  private readonly itemsDir: string;
  private readonly answersDir: string;
  private readonly lockFile: string;
  private readonly recentFile: string;
  private readonly recheckMs: number;
  /** Files that could not be read by the last list(), named (for `hookwise queue` to report). */
  problems: string[] = [];

  constructor(runtimeDir: string, options: FileQueueOptions = {}) {
    this.dir = join(runtimeDir, 'queue');
    this.itemsDir = join(this.dir, 'items');
    this.answersDir = join(this.dir, 'answers');
    this.lockFile = join(this.dir, 'lock');
    this.recentFile = join(this.dir, 'recent.json');
    this.recheckMs = options.recheckMs ?? RECHECK_MS;
  }

  async wait(request: PendingRequest, timeoutMs: number, signal?: AbortSignal): Promise<WaitOutcome> {
    let joined: { id: string; first: boolean; me: WaiterRecord };
    try {
      joined = this.locked(() => {
        this.pruneAnswers();
        const me: WaiterRecord = {
          pid: process.pid,
          start: processStart(process.pid) ?? '-',
          host: hostname(),
          token: newItemId(),
        };
        for (const name of this.itemNames()) {
          let held: ItemFile | undefined;
          try {
            held = this.readItem(name.slice(0, -5));
          } catch {
            continue; // a corrupt item is someone else's problem (reported by list()); this call makes its own
          }
          if (held === undefined || held.item.dedupe !== request.dedupe) continue;
          held.waiters = held.waiters.filter(liveWaiter);
          if (held.waiters.length === 0) continue; // left by dead processes: pruned by list()
          held.waiters.push(me);
          joinItem(held.item, request);
          held.item.waiting = held.waiters.length;
          this.writeItem(held);
          return { id: held.item.id, first: false, me };
        }
        const id = newItemId();
        this.writeItem({ version: 1, item: itemFrom(id, request), waiters: [me] });
        return { id, first: true, me };
      });
    } catch (error) {
      return { kind: 'unavailable', why: `the queue in ${this.dir} could not take this call: ${shownError(error)}` };
    }
    return this.awaitAnswer(joined.id, joined.first, joined.me, Date.now() + timeoutMs, signal);
  }

  list(): PendingItem[] {
    const problems: string[] = [];
    const items = this.locked(() => {
      this.pruneAnswers();
      const out: PendingItem[] = [];
      for (const name of this.itemNames()) {
        const id = name.slice(0, -5);
        let held: ItemFile | undefined;
        try {
          held = this.readItem(id);
        } catch (error) {
          problems.push(shownError(error));
          continue;
        }
        if (held === undefined) continue;
        const live = held.waiters.filter(liveWaiter);
        if (live.length === 0) {
          // Every call that waited on it is gone (killed by its host): nobody to answer.
          this.unlinkItem(id);
          this.addRecent(recentOf(held.item, undefined, 0));
          continue;
        }
        if (live.length !== held.waiters.length) {
          held.waiters = live;
          held.item.waiting = live.length;
          this.writeItem(held);
        }
        out.push(held.item);
      }
      return out;
    });
    this.problems = problems;
    return items.sort((a, b) => a.created.localeCompare(b.created));
  }

  /**
   * The pending items without taking the lock or writing anything (files are replaced whole, so a reader never
   * sees half of one): for the daemon, whose event loop a contended lock would stall. Calls left by dead
   * processes are not counted; list() (the CLI without a daemon) also removes them.
   */
  peek(): PendingItem[] {
    const problems: string[] = [];
    const out: PendingItem[] = [];
    const names = statIfPresent(this.itemsDir) === undefined ? [] : this.itemNames();
    for (const name of names) {
      let held: ItemFile | undefined;
      try {
        held = this.readItem(name.slice(0, -5));
      } catch (error) {
        problems.push(shownError(error));
        continue;
      }
      if (held === undefined) continue;
      const live = held.waiters.filter(liveWaiter).length;
      if (live > 0) out.push({ ...held.item, waiting: live });
    }
    this.problems = problems;
    return out.sort((a, b) => a.created.localeCompare(b.created));
  }

  recent(): RecentItem[] {
    return this.readRecent();
  }

  answer(id: string, answer: HumanAnswer): AnswerResult {
    if (!ID_PATTERN.test(id)) return { ok: false, why: unknownId(id) };
    return this.locked(() => {
      const held = this.readItem(id); // QUEUE_CORRUPT propagates: the answer is not given, the caller says why
      if (held === undefined) return { ok: false, why: unknownId(id) };
      const live = held.waiters.filter(liveWaiter);
      const file: AnswerFile = {
        version: 1,
        id,
        answer,
        ts: new Date().toISOString(),
        ...(live[0] === undefined ? {} : { remembers: live[0] }),
      };
      writeFileAtomic(join(this.answersDir, `${id}.json`), JSON.stringify(file) + '\n', { mode: 0o600 });
      this.unlinkItem(id);
      held.item.waiting = live.length;
      this.addRecent(recentOf(held.item, answer, live.length));
      return { ok: true, item: held.item, resolved: live.length };
    });
  }

  /** Waits for the answer file: fs.watch events, a re-check every recheckMs, the deadline. */
  private awaitAnswer(
    id: string,
    first: boolean,
    me: WaiterRecord,
    deadline: number,
    signal: AbortSignal | undefined,
  ): Promise<WaitOutcome> {
    return new Promise((resolve) => {
      let done = false;
      let watcher: FSWatcher | undefined;
      const finish = (outcome: WaitOutcome): void => {
        if (done) return;
        done = true;
        clearInterval(recheck);
        clearTimeout(timer);
        watcher?.close();
        resolve(outcome);
      };
      const look = (full: boolean): void => {
        if (done) return;
        const outcome = this.readAnswer(id, first, me);
        if (outcome !== undefined) return finish(outcome);
        // Neither answered nor pending (removed by hand): waiting longer cannot end in an answer.
        if (
          full &&
          statIfPresent(join(this.itemsDir, `${id}.json`)) === undefined &&
          this.readAnswer(id, first, me) === undefined
        ) {
          finish({ kind: 'unavailable', why: `queue item ${id} disappeared from ${this.itemsDir} without an answer` });
        }
      };
      try {
        watcher = watch(this.answersDir, (_event, name) => {
          if (name === null || name === `${id}.json`) look(false);
        });
        watcher.on('error', () => undefined); // the re-check still runs
      } catch {
        watcher = undefined; // no inotify left: the re-check alone finds the answer
      }
      const recheck = setInterval(() => look(true), this.recheckMs);
      const timer = setTimeout(
        () => {
          if (done) return;
          finish(this.expire(id, first, me));
        },
        Math.max(0, deadline - Date.now()),
      );
      signal?.addEventListener(
        'abort',
        () => {
          if (done) return;
          const outcome = this.expire(id, first, me);
          finish(outcome.kind === 'answered' ? outcome : { kind: 'unavailable', why: CALLER_GONE });
        },
        { once: true },
      );
      look(false);
    });
  }

  /** This call's answer, undefined while there is none; a corrupt answer is unavailable (denied), never an allow. */
  private readAnswer(id: string, first: boolean, me: WaiterRecord): WaitOutcome | undefined {
    const file = join(this.answersDir, `${id}.json`);
    let bytes: Buffer | undefined;
    try {
      bytes = readOwnedFile(file, PURPOSE);
    } catch (error) {
      return { kind: 'unavailable', why: shownError(error) };
    }
    if (bytes === undefined) return undefined;
    const parsed = parseAnswer(bytes, file);
    if (typeof parsed === 'string') return { kind: 'unavailable', why: parsed };
    const remembers = parsed.remembers;
    const mine =
      remembers === undefined
        ? first
        : remembers.token === undefined
          ? remembers.pid === me.pid && remembers.host === me.host
          : remembers.token === me.token;
    return { kind: 'answered', id, answer: parsed.answer, first: mine };
  }

  /** The deadline passed: this call stops waiting (the item goes with its last waiter). An answer just in wins. */
  private expire(id: string, first: boolean, me: WaiterRecord): WaitOutcome {
    try {
      return this.locked(() => {
        const answered = this.readAnswer(id, first, me);
        if (answered !== undefined) return answered;
        const held = this.readItem(id);
        if (held !== undefined) {
          held.waiters = held.waiters.filter((w) => !sameWaiter(w, me) && liveWaiter(w));
          if (held.waiters.length === 0) {
            this.unlinkItem(id);
            this.addRecent(recentOf(held.item, undefined, 0));
          } else {
            held.item.waiting = held.waiters.length;
            this.writeItem(held);
          }
        }
        return { kind: 'timeout', id } as const;
      });
    } catch {
      // The item could not be tidied (a corrupt file, the lock): the call is still denied as timed out.
      return { kind: 'timeout', id };
    }
  }

  private locked<T>(fn: () => T): T {
    ensurePrivateDir(this.dir);
    ensurePrivateDir(this.itemsDir);
    ensurePrivateDir(this.answersDir);
    return withLockSync(this.lockFile, fn, LOCK);
  }

  private itemNames(): string[] {
    return readdirSync(this.itemsDir).filter((n) => n.endsWith('.json') && ID_PATTERN.test(n.slice(0, -5)));
  }

  private readItem(id: string): ItemFile | undefined {
    const file = join(this.itemsDir, `${id}.json`);
    const bytes = readOwnedFile(file, PURPOSE);
    if (bytes === undefined) return undefined;
    let value: unknown;
    try {
      value = JSON.parse(bytes.toString('utf8'));
    } catch (error) {
      throw new HookwiseError(
        'QUEUE_CORRUPT',
        `queue item ${file} is not valid JSON (${(error as Error).message}); remove it (the calls waiting on it are denied when they time out)`,
      );
    }
    const problem = itemProblem(value, id);
    if (problem !== undefined)
      throw new HookwiseError(
        'QUEUE_CORRUPT',
        `queue item ${file} ${problem}; remove it (the calls waiting on it are denied when they time out)`,
      );
    return value as ItemFile;
  }

  private writeItem(held: ItemFile): void {
    writeFileAtomic(join(this.itemsDir, `${held.item.id}.json`), JSON.stringify(held) + '\n', { mode: 0o600 });
  }

  private unlinkItem(id: string): void {
    unlinkQuiet(join(this.itemsDir, `${id}.json`));
  }

  private pruneAnswers(): void {
    const cutoff = Date.now() - ANSWER_TTL_MS;
    for (const name of readdirSync(this.answersDir)) {
      const file = join(this.answersDir, name);
      const stat = statIfPresent(file);
      if (stat !== undefined && stat.mtimeMs < cutoff) unlinkQuiet(file);
    }
  }

  private readRecent(): RecentItem[] {
    try {
      const bytes = readOwnedFile(this.recentFile, PURPOSE);
      if (bytes === undefined) return [];
      const value: unknown = JSON.parse(bytes.toString('utf8'));
      return Array.isArray(value) ? (value as RecentItem[]) : [];
    } catch {
      // The recent list is only for display; an unreadable one starts afresh (the answers themselves are not in it).
      return [];
    }
  }

  private addRecent(entry: RecentItem): void {
    const list = this.readRecent();
    pushRecent(list, entry);
    writeFileAtomic(this.recentFile, JSON.stringify(list) + '\n', { mode: 0o600 });
  }
}

function sameWaiter(a: WaiterRecord, b: WaiterRecord): boolean {
  return a.token !== undefined || b.token !== undefined ? a.token === b.token : a.pid === b.pid && a.host === b.host;
}

/** A waiter on another host (a shared runtime directory) cannot be checked: it counts as alive. */
function liveWaiter(w: WaiterRecord): boolean {
  return w.host !== hostname() || processAlive(w.pid, w.start);
}

function unlinkQuiet(file: string): void {
  try {
    unlinkSync(file);
  } catch (error) {
    if (!isAbsent(error)) throw error;
  }
}

function itemProblem(value: unknown, id: string): string | undefined {
  if (typeof value !== 'object' || value === null) return 'is not a JSON object';
  const v = value as Partial<ItemFile>;
  if (v.version !== 1) return `has version ${JSON.stringify(v.version)}, not 1`;
  const item = v.item as Partial<PendingItem> | undefined;
  if (typeof item !== 'object' || item === null || item.id !== id) return `does not hold item ${id}`;
  for (const field of ['dedupe', 'created', 'role', 'tool', 'call', 'reason', 'tier', 'project'] as const) {
    if (typeof item[field] !== 'string') return `has no ${field}`;
  }
  if (!Array.isArray(item.sessions) || !Array.isArray(v.waiters)) return 'has no sessions or waiters';
  for (const w of v.waiters) {
    if (
      typeof w !== 'object' ||
      w === null ||
      !Number.isInteger((w as WaiterRecord).pid) ||
      typeof (w as WaiterRecord).start !== 'string' ||
      typeof (w as WaiterRecord).host !== 'string'
    )
      return 'has a malformed waiter';
  }
  return undefined;
}

function parseAnswer(bytes: Buffer, file: string): AnswerFile | string {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    return `QUEUE_CORRUPT: the answer ${file} is not valid JSON (${(error as Error).message}), so the call is denied`;
  }
  const v = value as Partial<AnswerFile> | null;
  const a = v?.answer as Partial<HumanAnswer> | undefined;
  const valid =
    v !== null &&
    typeof v === 'object' &&
    v.version === 1 &&
    typeof a === 'object' &&
    a !== null &&
    (ANSWER_VERDICTS as readonly unknown[]).includes(a.verdict) &&
    typeof a.alwaysAsk === 'boolean' &&
    typeof a.addRule === 'boolean' &&
    (a.scope === undefined || (ANSWER_SCOPES as readonly unknown[]).includes(a.scope)) &&
    answerExtrasValid(a);
  if (!valid) return `QUEUE_CORRUPT: the answer ${file} is not a well-formed answer, so the call is denied`;
  return v as AnswerFile;
}
