/**
 * Live decision memory, for a long-lived process (the daemon): one `LiveMemory` per project root keeps the
 * org, user and project scopes (and the session scopes it has been asked for) in memory, and brings them
 * up to date before every answer — so a record appended by anyone (this process through `appendRecords`,
 * `hookwise override`, a fallback `hookwise check`) is seen by the next decision of every client, without
 * re-reading or re-indexing what was already loaded.
 *
 * Freshness, checked on every `load()` — when nothing changed, one stat per source (≈ 1 µs each: ≈ 7 µs a call
 * for the project's three files, the user's, the org directory and a session's file):
 *   - each source file is stat'ed: the project's allow/ask/deny.jsonl (present or not), the user's
 *     rules.jsonl, each org's rules/*.jsonl, and the session's file; the org directory and each org's rules
 *     directory are stat'ed and listed again only when their mtime moved (or moved too recently to trust:
 *     a directory's mtime has the file system's coarse clock, so a listing is re-taken until it is at
 *     least RACY_MS newer than the mtime it saw);
 *   - a file whose (dev, inode, size, mtime) did not change is not read;
 *   - a file that only grew — same inode, larger than what was consumed, and the bytes consumed before
 *     unchanged as far as two windows tell (the first and the last ≤ 4 KB consumed; an in-place edit
 *     elsewhere that also grows the file is not seen until the next full load) — has its appended complete
 *     lines parsed (with `file:line` numbers continuing the file's) and added to the group's `LiveRecordSet`
 *     (memory/live-set.ts): the winner per (scope, key, role) by the store's own rule (store.ts: newest ts,
 *     then stricter, then the later line; every org a scope of its own), the exact lookups, a Jaccard index
 *     of the appended candidates, the overrides. A trailing line without '\n' is a write in progress: it is
 *     left for a later call, never half-consumed;
 *   - a file that appeared where the scope's layout expects one (a first `ask.jsonl`, a new file in an
 *     org's rules directory, a session's first record) is one that grew from nothing;
 *   - anything else — a file shrunk, replaced (rename: `rules compact`, `invalidate`, a git checkout),
 *     rewritten in place at the same size, removed, an org added or removed, a full load that had taken an
 *     unterminated last line — reloads the whole group: org+user+project together (they share one compiled
 *     index), or that one session. Correct first, fast second.
 *
 * The index file (`.hookwise/.index/memory.idx`) is never written on the incremental path: an appended
 * record costs its own parse (≈ 60 µs, at any store size), not a rebuild (≈ 0.3–0.5 s at 10k records,
 * 2.5–5 s at 100k). A full load here reads the index like a one-shot `loadIndexed` does: as it is when
 * it was built from the bytes read now, with the lines appended since layered over it when they are few
 * (`MAX_APPENDED_LINES`), and rebuilt and written otherwise — or when its checksum or structure is off.
 * `hookwise build` rebuilds it at any time.
 *
 * Views: `load()` returns a `MemoryView` pinned to the version it was made at. Appends after that are not
 * seen through it (each identity keeps its winners by version, appended candidates carry theirs), and a
 * full reload builds new structures rather than changing the old ones — so a decision that holds a view
 * across an `await` (an async tier, later) still answers from one consistent state. Holding a view longer
 * keeps what it pins alive; the daemon is expected to take a view per decision. `load()` itself is
 * synchronous and not reentrant (one JS thread: nothing else runs while it mutates).
 *
 * Known differences from a fresh `loadMemory` (none changes a verdict): among entries that tie completely
 * in the cross-scope merge (same key, same scope, same verdict, same ts, different roles) or the similarity
 * ranking (same score), the one reported may differ, because appended identities come after loaded ones;
 * and a torn trailing line is not reported as a problem until it is completed (or a full load reads it).
 *
 * Possible later: an fs.watch/inotify assist could skip the stats while no event arrived — as a hint only:
 * events may be late, coalesced or lost (NFS, overlay file systems), so correctness must keep the stat.
 */
import { closeSync, fstatSync, openSync, readdirSync, type Stats } from 'node:fs';
import { dirname, join } from 'node:path';
import { VERDICTS } from '../core/decision.js';
import { shownId } from '../sanitize/ids.js';
import { checkOwnedFile, checkPrivateDir, isAbsent, lstatIfPresent, statIfPresent } from '../util/fs-safe.js';
import {
  appendedLines,
  appendedSince,
  compileRecords,
  countNewlines,
  INDEX_MIN_RECORDS,
  layered,
  MAX_APPENDED_LINES,
  parseFrom,
  readIndex,
  readIndexFile,
  indexKey,
  type IndexKey,
  readRange,
  readSource,
  snapshotStamp,
  writeIndex,
  type SourceSnapshot,
} from './index-file.js';
import { LiveRecordSet } from './live-set.js';
import { orgNames, type MemoryLoad, type MemorySources } from './load.js';
import { fileFor, resolveRecords, scopeDir, type LoadedRecord, type StoreProblem, type StoreTarget } from './store.js';
import type { TokenContext } from './tokens.js';
import { MemoryView, RawRecordSet } from './view.js';

/** Bytes kept from the start and the end of what was consumed of each file, to tell an append from a rewrite. */
const WINDOW = 4096;
/** A directory listing is trusted by its mtime only once taken this long after that mtime. */
const RACY_MS = 2000;
export const MAX_SESSIONS = 1024;

const EMPTY = Buffer.alloc(0);
const NEWLINE = 0x0a;

// ── source files ─────────────────────────────────────────────────────────────────────────────────────────

interface StatStamp {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
}

const stampOf = (st: Stats): StatStamp => ({ dev: st.dev, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs });

/** One source file, as far as it was consumed. */
interface Tracked {
  path: string;
  target: StoreTarget;
  /** Its stat when last examined (taken before reading); undefined while the file does not exist. */
  seen: StatStamp | undefined;
  /** Bytes consumed: to the end of the last complete line (a full load takes the whole file, as loadScope does). */
  consumed: number;
  /** Lines consumed: the next appended line is line `lines + 1`. */
  lines: number;
  /** False when a full load took an unterminated last line: what it becomes, only a full reload can tell. */
  endsWithNewline: boolean;
  /** The first and the last ≤ WINDOW bytes consumed (copies). */
  head: Buffer;
  tail: Buffer;
}

/** Its stat when a snapshot was taken (the stat comes first: see index-file.ts `readSource`). */
const snapshotStat = (s: SourceSnapshot): StatStamp => ({ dev: s.dev, ino: s.ino, size: s.size, mtimeMs: s.mtimeMs });

function tracked(path: string, target: StoreTarget, snap: SourceSnapshot | undefined): Tracked {
  if (snap === undefined)
    return { path, target, seen: undefined, consumed: 0, lines: 0, endsWithNewline: true, head: EMPTY, tail: EMPTY };
  const b = snap.bytes;
  return {
    path,
    target,
    seen: snapshotStat(snap),
    consumed: b.length,
    lines: countNewlines(b),
    endsWithNewline: b.length === 0 || b[b.length - 1] === NEWLINE,
    head: Buffer.from(b.subarray(0, WINDOW)),
    tail: Buffer.from(b.subarray(Math.max(0, b.length - WINDOW))),
  };
}

type Examined =
  | { kind: 'same' }
  | { kind: 'reload'; why: string }
  | { kind: 'grew'; records: LoadedRecord[]; problems: StoreProblem[] };

const SAME: Examined = { kind: 'same' };
const reload = (why: string): Examined => ({ kind: 'reload', why });

/** Has the file changed since it was consumed, and how? Reads only when its stat moved. */
function examine(t: Tracked): Examined {
  const st = statIfPresent(t.path);
  const seen = t.seen;
  if (st === undefined) return seen === undefined ? SAME : reload(`${t.path} was removed`);
  if (
    seen !== undefined &&
    st.ino === seen.ino &&
    st.dev === seen.dev &&
    st.size === seen.size &&
    st.mtimeMs === seen.mtimeMs
  )
    return SAME;
  return readAppended(t);
}

/** The complete lines appended since the last call, or why the file must be reloaded instead. */
function readAppended(t: Tracked): Examined {
  let fd: number;
  try {
    fd = openSync(t.path, 'r');
  } catch (error) {
    if (isAbsent(error)) return t.seen === undefined ? SAME : reload(`${t.path} was removed`);
    throw error;
  }
  try {
    const st = fstatSync(fd);
    const seen = t.seen;
    if (seen !== undefined && (st.ino !== seen.ino || st.dev !== seen.dev)) return reload(`${t.path} was replaced`);
    if (st.size < t.consumed) return reload(`${t.path} shrank`);
    if (seen !== undefined && st.size === t.consumed) return reload(`${t.path} changed in place`);
    if (st.size > t.consumed && !t.endsWithNewline) return reload(`${t.path} grew after an unterminated line`);
    const start = Math.max(0, t.consumed - WINDOW);
    const buf = readRange(fd, start, st.size);
    const before = t.consumed - start;
    if (buf.length < before || !buf.subarray(0, before).equals(t.tail)) return reload(`${t.path} was rewritten`);
    if (start > 0 && !readRange(fd, 0, t.head.length).equals(t.head)) return reload(`${t.path} was rewritten`);
    t.seen = stampOf(st);
    const appended = buf.subarray(before);
    const last = appended.lastIndexOf(NEWLINE);
    if (last === -1) return SAME; // nothing complete yet: a write in progress
    const complete = appended.subarray(0, last + 1);
    const records: LoadedRecord[] = [];
    const problems: StoreProblem[] = [];
    parseFrom(complete.toString('utf8'), t, t.lines, records, problems);
    const end = before + complete.length;
    t.consumed += complete.length;
    t.lines += countNewlines(complete);
    t.endsWithNewline = true;
    t.tail = Buffer.from(buf.subarray(Math.max(0, end - WINDOW), end));
    if (start === 0) t.head = Buffer.from(buf.subarray(0, Math.min(WINDOW, end)));
    return { kind: 'grew', records, problems };
  } finally {
    closeSync(fd);
  }
}

/** A directory's entry names, re-read only when its mtime moved (or is too recent to trust). */
interface Listing {
  path: string;
  seen: { dev: number; ino: number; mtimeMs: number } | undefined;
  listedAt: number;
  names: string[];
}

function listing(path: string, read: () => string[]): Listing {
  const st = statIfPresent(path);
  const listedAt = Date.now();
  if (st === undefined) return { path, seen: undefined, listedAt, names: [] };
  return { path, seen: { dev: st.dev, ino: st.ino, mtimeMs: st.mtimeMs }, listedAt, names: readNames(read) };
}

function readNames(read: () => string[]): string[] {
  try {
    return read();
  } catch (error) {
    if (isAbsent(error)) return [];
    throw error;
  }
}

/** Refreshes a listing; true when its names changed. */
function relist(l: Listing, read: () => string[]): boolean {
  const st = statIfPresent(l.path);
  const s = l.seen;
  if (st === undefined) {
    l.seen = undefined;
    return setNames(l, []);
  }
  if (
    s !== undefined &&
    st.ino === s.ino &&
    st.dev === s.dev &&
    st.mtimeMs === s.mtimeMs &&
    l.listedAt - s.mtimeMs >= RACY_MS
  )
    return false;
  l.seen = { dev: st.dev, ino: st.ino, mtimeMs: st.mtimeMs };
  l.listedAt = Date.now();
  return setNames(l, readNames(read));
}

function setNames(l: Listing, names: string[]): boolean {
  const same = names.length === l.names.length && names.every((n, i) => n === l.names[i]);
  l.names = names;
  return !same;
}

const jsonlNames = (dir: string) => (): string[] =>
  readdirSync(dir)
    .filter((n) => n.endsWith('.jsonl'))
    .sort();

// ── groups: org+user+project together, and each session ──────────────────────────────────────────────────

/** The org, user and project scopes: one record set (they share the compiled index). */
interface SharedGroup {
  generation: number;
  set: LiveRecordSet;
  /** Every source file, in the order a full load reads them (orgs, user, project). */
  files: Tracked[];
  orgRoot: Listing;
  /** Per org: its rules directory's listing. */
  orgDirs: Map<string, Listing>;
  problems: StoreProblem[];
  via: MemoryLoad['via'];
  /** False while a refresh is under way: one that threw leaves the group to be loaded again. */
  intact: boolean;
}

interface SessionGroup {
  generation: number;
  set: LiveRecordSet;
  file: Tracked;
  problems: StoreProblem[];
  cached: CachedLoad | undefined;
}

interface CachedLoad {
  key: string;
  view: MemoryView;
  problems: StoreProblem[];
}

export type LiveSources = Omit<MemorySources, 'sessionId'>;

export interface LiveMemoryOptions {
  /** From this many records the org/user/project scopes go through the compiled index (INDEX_MIN_RECORDS). */
  minRecords?: number;
  /** Session scopes kept (least recently used dropped first; a dropped one is loaded again when asked). */
  maxSessions?: number;
}

/** What a `load()` call did to bring memory up to date. */
export type Freshness = 'unchanged' | 'appended' | 'loaded';

export interface LiveMemoryLoad extends MemoryLoad {
  freshness: Freshness;
}

export interface LiveMemoryStats {
  loads: number;
  /** Full loads of the org/user/project group (the first one included). */
  fullLoads: number;
  /** Full loads of a session scope (first use, eviction, rewrite). */
  sessionLoads: number;
  /** Lines parsed on the incremental path (records and bad lines). */
  appendedLines: number;
  /** Why the last full load (of either kind) happened. */
  lastReload: string;
}

/**
 * The daemon's memory for one project root. `load(sessionId)` is `loadMemory` for a long-lived process:
 * same answers, same `{view, problems, via}`, but only appended bytes are read after the first call.
 */
export class LiveMemory {
  readonly stats: LiveMemoryStats = { loads: 0, fullLoads: 0, sessionLoads: 0, appendedLines: 0, lastReload: '' };
  private readonly ctx: TokenContext;
  private readonly maxSessions: number;
  private shared: SharedGroup;
  private readonly sessions = new Map<string, SessionGroup>();
  private generations = 0;
  private sharedOnly: CachedLoad | undefined;

  constructor(
    readonly sources: LiveSources,
    readonly jaccardThreshold: number,
    private readonly options: LiveMemoryOptions = {},
  ) {
    this.ctx = { projectRoot: sources.projectRoot, home: sources.home ?? '' };
    this.maxSessions = Math.max(1, options.maxSessions ?? MAX_SESSIONS);
    this.shared = this.loadShared('first load');
  }

  /**
   * The view for one call (of this session, when given), after bringing every source up to date. The view
   * answers as of now, however long it is held; take a new one per decision. The problems array is shared
   * between calls that saw the same state: do not mutate it. A different threshold only makes another view
   * (nothing loaded depends on it).
   */
  load(sessionId?: string, jaccardThreshold: number = this.jaccardThreshold): LiveMemoryLoad {
    this.stats.loads++;
    let freshness: Freshness = this.refreshShared();
    let session: SessionGroup | undefined;
    if (sessionId !== undefined) {
      session = this.sessions.get(sessionId);
      if (session !== undefined) {
        this.sessions.delete(sessionId); // most recently used last
        const got = this.refreshSession(session);
        if (got.kind === 'reload') {
          session = this.loadSession(sessionId, got.why);
          freshness = 'loaded';
        } else if (got.kind === 'grew' && freshness === 'unchanged') freshness = 'appended'; // lines consumed
      } else {
        session = this.loadSession(sessionId, 'first use');
        freshness = 'loaded';
      }
      this.sessions.set(sessionId, session);
      if (this.sessions.size > this.maxSessions) this.sessions.delete(this.sessions.keys().next().value!);
    }
    const shared = this.shared;
    // what the answer depends on: each group's load, version and problems, and the threshold
    const key = `${shared.generation}.${shared.set.version}.${shared.problems.length}:${session === undefined ? '' : `${session.generation}.${session.set.version}.${session.problems.length}`}:${jaccardThreshold}`;
    let cached = session === undefined ? this.sharedOnly : session.cached;
    if (cached?.key !== key) {
      const parts = [shared.set.at()];
      if (session !== undefined) parts.push(session.set.at());
      cached = {
        key,
        view: new MemoryView(parts, jaccardThreshold),
        problems: session === undefined ? [...shared.problems] : [...shared.problems, ...session.problems],
      };
      if (session === undefined) this.sharedOnly = cached;
      else session.cached = cached;
    }
    return { view: cached.view, problems: cached.problems, via: shared.via, freshness };
  }

  /** Session scopes held right now. */
  get sessionCount(): number {
    return this.sessions.size;
  }

  // ── org, user, project ──

  private refreshShared(): Freshness {
    const g = this.shared;
    // A refresh that threw midway (EACCES, EIO) may have consumed bytes it never applied: start over.
    if (!g.intact) {
      this.shared = this.loadShared('an earlier refresh did not complete');
      return 'loaded';
    }
    g.intact = false;
    const lines = this.stats.appendedLines;
    const why = this.catchUp(g);
    if (why === undefined) {
      g.intact = true;
      return this.stats.appendedLines === lines ? 'unchanged' : 'appended';
    }
    this.shared = this.loadShared(why);
    return 'loaded';
  }

  /** Applies what was appended to the group's files; or says why it must be loaded again instead. */
  private catchUp(g: SharedGroup): string | undefined {
    const { userConfigDir } = this.sources;
    if (relist(g.orgRoot, () => orgNames(userConfigDir))) return 'an org was added or removed';
    let added = false;
    for (const [org, l] of g.orgDirs) {
      const before = l.names;
      if (!relist(l, jsonlNames(l.path))) continue;
      if (before.some((n) => !l.names.includes(n))) return `a file of org ${org} was removed`;
      added = true;
    }
    if (added) g.files = this.sharedFiles(g, new Map(g.files.map((t) => [t.path, t])));
    const grown: Examined[] = [];
    for (const t of g.files) {
      const got = examine(t);
      if (got.kind === 'reload') return got.why;
      if (got.kind === 'grew') grown.push(got);
    }
    this.apply(g.set, g.problems, grown);
    return undefined;
  }

  private apply(set: LiveRecordSet, problems: StoreProblem[], grown: readonly Examined[]): void {
    for (const got of grown) {
      if (got.kind !== 'grew') continue;
      this.stats.appendedLines += got.records.length + got.problems.length;
      for (const r of got.records) set.add(r);
      for (const p of got.problems) problems.push(p);
    }
  }

  /** The shared group's files in reading order, reusing what is already tracked. */
  private sharedFiles(
    g: Pick<SharedGroup, 'orgDirs'>,
    known: Map<string, Tracked>,
    snaps?: Map<string, SourceSnapshot | undefined>,
  ): Tracked[] {
    const { userConfigDir, projectRoot } = this.sources;
    const wanted: { path: string; target: StoreTarget }[] = [];
    for (const [org, l] of g.orgDirs) {
      const target: StoreTarget = { scope: 'org', userConfigDir, org };
      for (const name of l.names) wanted.push({ path: join(l.path, name), target });
    }
    const user: StoreTarget = { scope: 'user', userConfigDir };
    wanted.push({ path: fileFor(user, 'allow'), target: user });
    const project: StoreTarget = { scope: 'project', projectRoot };
    for (const v of VERDICTS) wanted.push({ path: fileFor(project, v), target: project });
    return wanted.map(({ path, target }) => known.get(path) ?? tracked(path, target, snaps?.get(path)));
  }

  /**
   * Loads org, user and project from scratch, the way `loadIndexed` does: through the compiled index when it
   * was built from the bytes read now (or a prefix of them: the appended lines are layered over it),
   * otherwise parsed — and then, from `minRecords` records, compiled and written for the next reader (a
   * read-only checkout just skips the write).
   */
  private loadShared(why: string): SharedGroup {
    this.stats.fullLoads++;
    this.stats.lastReload = why;
    const { userConfigDir } = this.sources;
    const orgRoot = listing(join(userConfigDir, 'org'), () => orgNames(userConfigDir));
    const orgDirs = new Map<string, Listing>();
    for (const org of orgRoot.names) {
      const dir = scopeDir({ scope: 'org', userConfigDir, org });
      orgDirs.set(org, listing(dir, jsonlNames(dir)));
    }
    // Read every file first (stat, then bytes): what the records come from is exactly what is tracked.
    const paths = this.sharedFiles({ orgDirs }, new Map()).map((t) => t.path);
    const snaps = new Map(paths.map((p) => [p, readSource(p)]));
    const files = this.sharedFiles({ orgDirs }, new Map(), snaps);
    const present = files.filter((t) => snaps.get(t.path) !== undefined);

    const shared = this.fromIndex(present, snaps) ?? this.parseShared(files, snaps, present);
    this.sharedOnly = undefined;
    return { generation: ++this.generations, files, orgRoot, orgDirs, ...shared, intact: true };
  }

  /**
   * The compiled index, when it was built from these bytes — or from a prefix of them, with at most
   * MAX_APPENDED_LINES appended since, which are layered over it (as `loadIndexed` does).
   */
  private fromIndex(
    present: readonly Tracked[],
    snaps: ReadonlyMap<string, SourceSnapshot | undefined>,
  ): Pick<SharedGroup, 'set' | 'problems' | 'via'> | undefined {
    const indexed = readIndexFile(this.sources.projectRoot, this.sources.runtimeDir);
    if (
      indexed === undefined ||
      indexed.header.projectRoot !== this.sources.projectRoot ||
      indexed.header.home !== this.ctx.home
    )
      return undefined;
    const appended = appendedSince(indexed.header.sources, present, {
      stat: (path) => snaps.get(path),
      read: (path) => snaps.get(path),
    });
    if (appended === undefined || appendedLines(appended) > MAX_APPENDED_LINES) return undefined;
    if (appended.length === 0)
      return { set: new LiveRecordSet(indexed), problems: [...indexed.problems], via: 'index' };
    return { ...layered(indexed, appended), via: 'appended' };
  }

  /** Parses the files read, and from `minRecords` records compiles and writes the index for the next reader. */
  private parseShared(
    files: readonly Tracked[],
    snaps: ReadonlyMap<string, SourceSnapshot | undefined>,
    present: readonly Tracked[],
  ): Pick<SharedGroup, 'set' | 'problems' | 'via'> {
    const records: LoadedRecord[] = [];
    const problems: StoreProblem[] = [];
    let i = 0;
    while (i < files.length) {
      // one scope at a time: resolution is per scope
      const target = files[i]!.target;
      const all: LoadedRecord[] = [];
      for (; i < files.length && files[i]!.target === target; i++) {
        const s = snaps.get(files[i]!.path);
        if (s !== undefined) parseFrom(s.bytes.toString('utf8'), files[i]!, 0, all, problems);
      }
      for (const r of resolveRecords(all)) records.push(r);
    }
    if (records.length < (this.options.minRecords ?? INDEX_MIN_RECORDS))
      return { set: new LiveRecordSet(new RawRecordSet(records)), problems, via: 'jsonl' };
    let key: IndexKey;
    try {
      key = indexKey(this.sources.runtimeDir, true)!;
    } catch {
      return { set: new LiveRecordSet(new RawRecordSet(records)), problems, via: 'jsonl' }; // no salt can be kept here
    }
    const bytes = compileRecords(
      records,
      problems,
      present.map((t) => snapshotStamp(snaps.get(t.path)!)),
      this.ctx,
      key,
    );
    let via: MemoryLoad['via'] = 'jsonl';
    try {
      writeIndex(this.sources.projectRoot, bytes);
      via = 'built';
    } catch {
      // Not writable here (a read-only checkout): the compiled bytes still serve this process.
    }
    return { set: new LiveRecordSet(readIndex(bytes, key)!), problems, via };
  }

  // ── sessions ──

  private refreshSession(s: SessionGroup): Examined {
    // A session file that appears is checked like one loaded (loadSession): ours, nobody else's to write.
    if (s.file.seen === undefined && !ownedSessionFile(s.file.path)) return { kind: 'same' };
    const got = examine(s.file);
    if (got.kind === 'grew') this.apply(s.set, s.problems, [got]);
    return got;
  }

  private loadSession(sessionId: string, why: string): SessionGroup {
    this.stats.sessionLoads++;
    this.stats.lastReload = `session ${shownId(sessionId)}: ${why}`;
    const target: StoreTarget = { scope: 'session', runtimeDir: this.sources.runtimeDir, sessionId };
    const path = fileFor(target, 'allow');
    const snap = ownedSessionFile(path) ? readSource(path) : undefined;
    const file = tracked(path, target, snap);
    const all: LoadedRecord[] = [];
    const problems: StoreProblem[] = [];
    if (snap !== undefined) parseFrom(snap.bytes.toString('utf8'), file, 0, all, problems);
    return {
      generation: ++this.generations,
      set: new LiveRecordSet(new RawRecordSet(resolveRecords(all))),
      file,
      problems,
      cached: undefined,
    };
  }
}

/**
 * Live memories by project (and config/runtime/home directories), least recently used dropped beyond
 * `maxProjects`: shaped like the engine's memory supplier (`load(sources, jaccardThreshold)`).
 */
export class LiveMemoryPool {
  private readonly memories = new Map<string, LiveMemory>();

  constructor(private readonly options: LiveMemoryOptions & { maxProjects?: number } = {}) {}

  load(sources: MemorySources, jaccardThreshold: number): LiveMemoryLoad {
    const id = JSON.stringify([sources.projectRoot, sources.userConfigDir, sources.runtimeDir, sources.home ?? '']);
    let memory = this.memories.get(id);
    if (memory === undefined) {
      const { sessionId: _session, ...shared } = sources;
      memory = new LiveMemory(shared, jaccardThreshold, this.options);
    } else this.memories.delete(id);
    this.memories.set(id, memory);
    if (this.memories.size > Math.max(1, this.options.maxProjects ?? 64))
      this.memories.delete(this.memories.keys().next().value!);
    return memory.load(sources.sessionId, jaccardThreshold);
  }
}

/**
 * Whether a session's decision file exists and may be read: it is in the runtime directory, which may have
 * held planted files, so only a file of ours nobody else may write, in a private directory of ours (as
 * loadScope reads it; RUNTIME_DIR_UNSAFE otherwise).
 */
function ownedSessionFile(path: string): boolean {
  // Most sessions never get a decision file, and the daemon asks on each of their calls: an absent file needs
  // no look at its directory (the session registry checks that directory on every call anyway).
  if (lstatIfPresent(path) === undefined) return false;
  return checkPrivateDir(dirname(path)) && checkOwnedFile(path, 'session decisions');
}
