/**
 * Session provenance (issue 28, item 6): the files a session created itself. An agent that writes a
 * throw-away test, runs it and deletes it loses nothing of anyone's, so the shell tier's data-loss rule
 * (shell/data-loss.ts) does not pass that deletion — or an overwrite of such a file — to a human.
 *
 * How a file comes to count as created, in two steps (the edges of one tool call):
 *   1. before it runs (PreToolUse, `noteCreations`): the paths the call writes that do not exist yet, in the
 *      project, are left in a note for that tool_use_id beside the learning notes, kept like them (a private
 *      file of ours, named by a hash of the session and the tool_use_id; memory/learn.ts: the plugin wrapper
 *      starts hookwise for a PostToolUse only when a note is there). Not signed, like the learning notes:
 *      signing would load node:crypto in every hook process that writes a new file; a note planted in the
 *      private runtime directory would have to be named for a tool_use_id the host has not issued yet;
 *   2. after it ran (PostToolUse, `recordCreations`): each noted path that now holds a regular file with one
 *      link, or a directory, born after the note was written, is recorded with its device, inode, birth time
 *      and type. A file moved or hard-linked in (`mv src/a.ts new.ts`, `ln`) was born before: not recorded.
 *
 * A confined run also creates files it does not name (`npm run gen` writing out/x.json). Its note says so
 * (the work tree and the label its undo snapshot records); after the run the snapshot is compared with the
 * work tree (confine/undo.ts addedSinceSnapshot): the paths it added — new paths, not changed ones, and not
 * the old content of a file the run removed or changed — pass the same checks (born after the note, one
 * link, a regular file) and are recorded, with the directories above them that were born after the note
 * too, up to MAX_RUN_FILES. Only when the snapshot is the one taken for this run: the same label, taken
 * after the note. Ignored files are in no snapshot, so a run's new ignored files are not vouched for.
 *
 * The record, `<runtime>/provenance/s-<id hash>.json`, is signed like the module state (modules/state-file.ts:
 * HMAC under the per-user key, bound to the session), replaced atomically under a lock, and bounded (count and
 * bytes; the oldest entries go first). It holds hashes of paths, never a path. A record that is missing, not
 * ours, damaged or signed for another session is no provenance at all: every deletion asks as before.
 *
 * The check (`createdTargets`, at the edge before the cascade): a target counts only when its canonical path
 * (symlinks resolved: a created file replaced by a link to a tracked one is the tracked one) is recorded with
 * the same device, inode, birth time and type it has now; a directory only when every entry below it is
 * recorded too (walked up to MAX_TREE_ENTRIES: a larger tree is not vouched for). Globs, paths known only at run
 * time and paths outside the project never count.
 */
import { lstatSync, readdirSync, readFileSync, renameSync, type BigIntStats } from 'node:fs';
import { dirname, join } from 'node:path';
import { gitWorkTree } from '../confine/git-layout.js';
import type { ToolCall } from '../core/tool-call.js';
import { sessionPendingDir } from '../memory/learn.js';
import { signedBodyMac, signingKey } from '../modules/state-file.js';
import { resolvePath } from '../paths/canonical.js';
import { sanitize } from '../sanitize/index.js';
import { idFileKey } from '../sanitize/ids.js';
import type { PreparedShell } from '../shell/prepare.js';
import { fnv1a64 } from '../util/hash.js';
import { nodeCrypto } from '../util/node-crypto.js';
import {
  ensurePrivateDir,
  fileStamp,
  readOwnedFile,
  readOwnedFileStat,
  stampSettled,
  unlinkBestEffort,
  withLockSync,
  writeFileAtomic,
} from '../util/fs-safe.js';
import type { Locations } from '../util/locations.js';

/** Entries a record keeps (the oldest go first). */
export const MAX_CREATED = 1024;
/** And the bytes its body may take. */
export const MAX_RECORD_BYTES = 128 * 1024;
/** Entries walked below a directory to be deleted; a larger tree is not vouched for. */
export const MAX_TREE_ENTRIES = 256;
/** Paths one call may note as created; a note also skips paths longer than MAX_PATH_CHARS. */
const MAX_NOTE_PATHS = 64;
/** Files one confined run may add to the record (the first ones, by path). */
export const MAX_RUN_FILES = 256;
const MAX_PATH_CHARS = 4096;
/** File times come from a coarse kernel clock: a file born just after the note may show a birth slightly before it. */
const BIRTH_SLACK_MS = 1000;

const FORMAT = 1;
const RECORD_DOMAIN = 'hookwise session provenance v1';

/** What a recorded file was when it was recorded; the same path with anything else now is another file. */
export interface CreatedFile {
  dev: string;
  ino: string;
  birthMs: number;
  type: 'f' | 'd';
}

export type ReadProvenance =
  { kind: 'absent' } | { kind: 'valid'; created: Map<string, CreatedFile> } | { kind: 'untrusted'; why: string };

export function provenanceFile(runtimeDir: string, sessionId: string): string {
  return join(runtimeDir, 'provenance', `s-${idFileKey(sessionId)}.json`);
}

/** What a path is recorded under: a hash (the record names no path). */
export function pathKey(absolute: string): string {
  return nodeCrypto().createHash('sha256').update(absolute).digest('hex').slice(0, 32);
}

function fileOf(st: BigIntStats): CreatedFile | undefined {
  const type = st.isFile() ? 'f' : st.isDirectory() ? 'd' : undefined;
  if (type === undefined) return undefined;
  return { dev: st.dev.toString(), ino: st.ino.toString(), birthMs: Number(st.birthtimeMs), type };
}

function lstatBig(path: string): BigIntStats | undefined {
  try {
    return lstatSync(path, { bigint: true, throwIfNoEntry: false });
  } catch {
    return undefined; // cannot be looked at (a component is not a directory, no permission): not vouched for
  }
}

function sameFile(a: CreatedFile, b: CreatedFile): boolean {
  return a.dev === b.dev && a.ino === b.ino && a.birthMs === b.birthMs && a.type === b.type;
}

/** A signed body `{body, mac}` → the body, when it verifies for this session in this domain. */
function verified(bytes: Buffer, key: Buffer, domain: string, fileKey: string): string | undefined {
  let envelope: unknown;
  try {
    envelope = JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
  const { body, mac } = (envelope ?? {}) as { body?: unknown; mac?: unknown };
  if (typeof body !== 'string' || typeof mac !== 'string' || !/^[0-9a-f]{64}$/.test(mac)) return undefined;
  const expected = Buffer.from(signedBodyMac(key, domain, fileKey, body), 'hex');
  return nodeCrypto().timingSafeEqual(expected, Buffer.from(mac, 'hex')) ? body : undefined;
}

function signed(key: Buffer, domain: string, fileKey: string, body: string): string {
  return `${JSON.stringify({ body, mac: signedBodyMac(key, domain, fileKey, body) })}\n`;
}

/** The session's record: absent, valid, or untrusted (which callers treat as no provenance). */
export function readProvenance(where: Locations, sessionId: string): ReadProvenance {
  const file = provenanceFile(where.runtimeDir, sessionId);
  let bytes: Buffer | undefined;
  try {
    bytes = readOwnedFile(file, 'the session provenance record');
  } catch (error) {
    return { kind: 'untrusted', why: `${file} cannot be trusted: ${(error as Error).message}` };
  }
  if (bytes === undefined) return { kind: 'absent' };
  if (bytes.length > 2 * MAX_RECORD_BYTES) return { kind: 'untrusted', why: `${file} is larger than a record can be` };
  let key: Buffer | undefined;
  try {
    key = signingKey(where.userConfigDir, false);
  } catch (error) {
    return { kind: 'untrusted', why: (error as Error).message };
  }
  if (key === undefined) return { kind: 'untrusted', why: `${file} exists but the signing key does not` };
  const body = verified(bytes, key, RECORD_DOMAIN, idFileKey(sessionId));
  if (body === undefined)
    return { kind: 'untrusted', why: `${file} does not verify (changed, or copied from another session or user)` };
  const created = parseRecord(body);
  if (created === undefined)
    return { kind: 'untrusted', why: `${file} is signed but not a record this hookwise reads` };
  return { kind: 'valid', created };
}

function parseRecord(body: string): Map<string, CreatedFile> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return undefined;
  }
  const v = value as { format?: unknown; created?: unknown };
  if (v?.format !== FORMAT || !Array.isArray(v.created) || v.created.length > MAX_CREATED) return undefined;
  const created = new Map<string, CreatedFile>();
  for (const entry of v.created as unknown[]) {
    if (!Array.isArray(entry) || entry.length !== 5) return undefined;
    const [key, dev, ino, birthMs, type] = entry as unknown[];
    if (
      typeof key !== 'string' ||
      !/^[0-9a-f]{32}$/.test(key) ||
      typeof dev !== 'string' ||
      !/^\d{1,20}$/.test(dev) ||
      typeof ino !== 'string' ||
      !/^\d{1,20}$/.test(ino) ||
      typeof birthMs !== 'number' ||
      !Number.isFinite(birthMs) ||
      (type !== 'f' && type !== 'd')
    )
      return undefined;
    created.set(key, { dev, ino, birthMs, type });
  }
  return created;
}

/** The body of a record: entries oldest first, cut to the bounds from the oldest end. */
function recordBody(created: Map<string, CreatedFile>): string {
  const entries = [...created].map(([key, f]) => [key, f.dev, f.ino, f.birthMs, f.type] as const);
  let start = Math.max(0, entries.length - MAX_CREATED);
  let body = JSON.stringify({ format: FORMAT, created: entries.slice(start) });
  while (body.length > MAX_RECORD_BYTES && start < entries.length) {
    // Each entry takes about the same bytes: drop enough of the oldest in one step.
    start += Math.max(1, Math.ceil(((body.length - MAX_RECORD_BYTES) / body.length) * (entries.length - start)));
    body = JSON.stringify({ format: FORMAT, created: entries.slice(start) });
  }
  return body;
}

/**
 * Add files to the session's record (under its lock). An untrusted record is replaced by one that holds only
 * what is recorded from now on: that vouches for nothing the damaged one claimed.
 */
export function addCreated(where: Locations, sessionId: string, files: readonly [string, CreatedFile][]): void {
  if (files.length === 0) return;
  const file = provenanceFile(where.runtimeDir, sessionId);
  ensurePrivateDir(join(where.runtimeDir, 'provenance'));
  withLockSync(`${file}.lock`, () => {
    const read = readProvenance(where, sessionId);
    const created = read.kind === 'valid' ? read.created : new Map<string, CreatedFile>();
    for (const [key, f] of files) {
      created.delete(key); // re-added as the newest
      created.set(key, f);
    }
    const key = signingKey(where.userConfigDir, true)!;
    writeFileAtomic(file, signed(key, RECORD_DOMAIN, idFileKey(sessionId), recordBody(created)), { mode: 0o600 });
  });
}

/** Whether the file or tree at a canonical absolute path is one the session created, still the same file(s). */
export function createdBySession(created: ReadonlyMap<string, CreatedFile>, absolute: string): boolean {
  const top = lstatBig(absolute);
  if (top === undefined) return false;
  const stack: [string, BigIntStats][] = [[absolute, top]];
  let walked = 0;
  while (stack.length > 0) {
    const [path, st] = stack.pop()!;
    const now = fileOf(st);
    const recorded = created.get(pathKey(path));
    if (now === undefined || recorded === undefined || !sameFile(now, recorded)) return false;
    if (now.type !== 'd') continue;
    let names: string[];
    try {
      names = readdirSync(path);
    } catch {
      return false;
    }
    walked += names.length;
    if (walked > MAX_TREE_ENTRIES) return false;
    for (const name of names) {
      const child = join(path, name);
      const childStat = lstatBig(child);
      if (childStat === undefined) return false;
      stack.push([child, childStat]);
    }
  }
  return true;
}

const GLOB = /[*?[\]{}]/;

/**
 * For a prepared shell call: which write targets are files this session created and that are still those
 * files (see createdBySession). Undefined when no target could be (nothing exists, nothing in the project)
 * or the session has no trusted record. Edge I/O: one record read, one lstat per target, bounded walks.
 */
export function createdTargets(shell: PreparedShell, where: Locations, sessionId: string): boolean[] | undefined {
  const candidate = (i: number): string | undefined => {
    const target = shell.writes.targets[i];
    const resolved = shell.targets[i];
    if (target === undefined || target.dynamic || shell.exists[i] !== true) return undefined;
    if (resolved === null || resolved === undefined || resolved.unknown !== undefined) return undefined;
    if (resolved.relative === null || resolved.relative === '' || GLOB.test(target.path)) return undefined;
    return resolved.absolute;
  };
  if (!shell.writes.targets.some((_, i) => candidate(i) !== undefined)) return undefined;
  const read = readProvenance(where, sessionId);
  if (read.kind !== 'valid') return undefined;
  return shell.writes.targets.map((_, i) => {
    const absolute = candidate(i);
    return absolute !== undefined && createdBySession(read.created, absolute);
  });
}

/** Programs whose write targets may end up holding something that existed before (a move, a link, a sync). */
const NOT_CREATING = new Set(['mv', 'ln', 'rsync', 'git', 'install', 'link']);

/**
 * The canonical paths a call is about to create in the project: a Write-like tool's files, a shell call's
 * write targets that do not exist now (not through a move, link or git, not a glob or run-time path).
 */
export function creationCandidates(
  call: ToolCall,
  shell: PreparedShell | undefined,
  projectRoot: string,
  home: string,
): string[] {
  const out = new Set<string>();
  if (call.action === 'write') {
    for (const path of call.paths) {
      const resolved = resolvePath(path, { projectRoot, home, cwd: call.cwd });
      if (resolved.unknown === undefined && resolved.relative !== null && resolved.relative !== '')
        out.add(resolved.absolute);
    }
  } else if (shell !== undefined && shell.parse.ok) {
    shell.writes.targets.forEach((target, i) => {
      const resolved = shell.targets[i];
      const segment = shell.parse.segments[target.segment];
      if (segment === undefined || NOT_CREATING.has(segment.name) || target.via.startsWith('git ')) return;
      if (target.dynamic || shell.exists[i] !== false || GLOB.test(target.path)) return;
      if (resolved === null || resolved === undefined || resolved.unknown !== undefined) return;
      if (resolved.relative === null || resolved.relative === '') return;
      out.add(resolved.absolute);
    });
  }
  return [...out];
}

function noteFile(runtimeDir: string, sessionId: string, toolUseId: string): string {
  return join(
    sessionPendingDir(runtimeDir, sessionId),
    `p-${fnv1a64(`${idFileKey(sessionId)}\u0000provenance\u0000${toolUseId}`)}.json`,
  );
}

/** A confined run's undo snapshot, as its decision names it (core/decision.ts ConfinedRun.undo). */
export interface ConfinedRunSnapshot {
  /** The git work tree's root. */
  root: string;
  /** What the snapshot records of the command. */
  label: string;
}

/** A snapshot as read after the run (confine/undo.ts SnapshotAdditions): its label, time and added files. */
export interface RunAdditions {
  label: string;
  takenAtMs: number;
  added: readonly string[];
}

/**
 * Reads what a confined run added, at the edge (git), from the snapshot the work tree's undo ref names — or
 * from `commit`, the snapshot pinned for the run before a later run's snapshot could move the ref.
 */
export type ListRunAdditions = (root: string, commit?: string) => Promise<RunAdditions>;

/** A usable fit for a path on disk and in a note: not too long, and nothing the sanitizer would change. */
function notable(path: string): boolean {
  return path.length <= MAX_PATH_CHARS && sanitize(path).text === path;
}

/**
 * Before a call runs: note which of its candidate paths do not exist yet (PostToolUse records those that then
 * do), and for a confined run, its undo snapshot. Only paths the sanitizer leaves as they are are written down
 * (a path holding a secret is not recorded, so it is never vouched for). Nothing to note, or no tool_use_id to
 * find the note by: nothing is written.
 */
export function noteCreations(
  where: Locations,
  call: ToolCall,
  candidates: readonly string[],
  now = Date.now(),
  run?: ConfinedRunSnapshot,
): void {
  if (call.toolUseId === undefined) return;
  const paths = candidates.filter((p) => notable(p) && lstatBig(p) === undefined).slice(0, MAX_NOTE_PATHS);
  const confined = run !== undefined && notable(run.root) ? run : undefined;
  if (paths.length === 0 && confined === undefined) return;
  const file = noteFile(where.runtimeDir, call.sessionId, call.toolUseId);
  ensurePrivateDir(join(file, '..', '..'));
  ensurePrivateDir(join(file, '..'));
  const body = {
    format: FORMAT,
    session: idFileKey(call.sessionId),
    tool_use: fnv1a64(call.toolUseId),
    at: now,
    paths,
    // The label as a hash: it is sanitized, but a note need not hold the command at all.
    ...(confined === undefined ? {} : { run: { root: confined.root, label: fnv1a64(confined.label) } }),
  };
  writeFileAtomic(file, JSON.stringify(body), { mode: 0o600 });
}

/**
 * After a call ran: claim its note (by renaming it: of two racing PostToolUse processes one records), and
 * record each noted path that now holds a file born since the note, and for a confined run the files its
 * snapshot says it added (through `listRun`; without it, none). Returns how many were recorded. A failure to
 * read the run's additions is thrown after the named files are recorded. `claimRunCreations` and
 * `recordRunCreations` do the same in two halves, for a caller that answers the host in between.
 */
export async function recordCreations(where: Locations, call: ToolCall, listRun?: ListRunAdditions): Promise<number> {
  const claimed = claimCallCreations(where, call);
  if (claimed === undefined) return 0;
  return (
    claimed.recorded +
    (listRun === undefined ? 0 : await recordRunCreations(where, call.sessionId, claimed.runs, listRun))
  );
}

/**
 * After a call ran, the first half of recordCreations, without git: its note claimed, the named files recorded.
 * Returns the confined run still to be read (recordRunCreations), if the note was for one.
 */
export function claimCallCreations(
  where: Locations,
  call: ToolCall,
): { recorded: number; runs: ClaimedRun[] } | undefined {
  if (call.toolUseId === undefined) return undefined;
  const note = claimNote(noteFile(where.runtimeDir, call.sessionId, call.toolUseId));
  if (note === undefined || note.session !== idFileKey(call.sessionId) || note.toolUse !== fnv1a64(call.toolUseId))
    return undefined;
  const files = bornSince(note);
  addCreated(where, call.sessionId, files);
  return { recorded: files.length, runs: note.run === undefined ? [] : [{ at: note.at, run: note.run }] };
}

/** A note claimed by renaming it (of two claimers one gets it), read and removed; undefined when gone or not ours. */
function claimNote(file: string): Note | undefined {
  const claimed = `${file}.${process.pid}.claimed`;
  try {
    renameSync(file, claimed);
  } catch {
    return undefined; // gone: claimed by another process, or never written
  }
  let bytes: Buffer | undefined;
  try {
    bytes = readOwnedFile(claimed, 'a provenance note');
  } catch {
    bytes = undefined; // not a note of ours (a link, another owner): never vouched for
  } finally {
    unlinkBestEffort(claimed);
  }
  return bytes === undefined ? undefined : parseNote(bytes.toString('utf8'));
}

/** A confined run whose note was claimed: what is left to read from its snapshot (recordRunCreations). */
export interface ClaimedRun {
  at: number;
  run: { root: string; label: string; commit?: string };
}

/**
 * The files confined runs added, read from their snapshots (`listRun`: git, ~0.5 s on a 40,000-file tree) and
 * recorded. Returns how many; throws the first failure after recording what the others added.
 */
export async function recordRunCreations(
  where: Locations,
  sessionId: string,
  runs: readonly ClaimedRun[],
  listRun: ListRunAdditions,
): Promise<number> {
  let recorded = 0;
  let failure: unknown;
  for (const { at, run } of runs) {
    try {
      const born = (path: string): CreatedFile | undefined => bornAfter(path, at);
      const files = runCreated(run, at, await listRun(run.root, run.commit), born).map(
        ([path, f]): [string, CreatedFile] => [pathKey(path), f],
      );
      addCreated(where, sessionId, files);
      recorded += files.length;
    } catch (error) {
      failure ??= error;
    }
  }
  if (failure !== undefined) throw failure;
  return recorded;
}

/** A provenance note's file name (`p-<hash>.json`). */
const NOTE_NAME = /^p-[0-9a-f]{16}\.json$/;

/** What settleCreations did: files recorded, and the confined runs' notes still waiting (claimRunCreations). */
export interface SettledCreations {
  recorded: number;
  runs: number;
}

/**
 * Without a PostToolUse (the http wiring: engine/settle.ts), at the session's next call or the end of its
 * turn: each provenance note of the session whose paths now hold files born after the note is claimed and
 * those files recorded, as recordCreations would have. A path with nothing at it yet (the call has not run,
 * or was refused) stays noted — until the turn ends (`final`): every call of the turn has finished then,
 * and what is still missing was never created. A confined run's note stays for claimRunCreations (reading
 * its snapshot takes git, off the gate's path), its snapshot pinned here once the run has taken it. Only
 * files: no process. `names`: the session's pending directory as the caller just listed it (read here when
 * not given).
 */
export function settleCreations(
  where: Locations,
  sessionId: string,
  final: boolean,
  names?: readonly string[],
): SettledCreations {
  const settled: SettledCreations = { recorded: 0, runs: 0 };
  const dir = sessionPendingDir(where.runtimeDir, sessionId);
  let listed: readonly string[];
  try {
    listed = names ?? readdirSync(dir);
  } catch {
    return settled; // no notes for this session
  }
  const dirs = new DirLooks();
  for (const name of listed) {
    if (!NOTE_NAME.test(name)) continue;
    const file = join(dir, name);
    const note = readNote(file);
    if (note === undefined || note.session !== idFileKey(sessionId)) {
      forgetNote(file);
      unlinkBestEffort(file);
      continue;
    }
    if (note.run !== undefined && final) {
      settled.runs++; // claimed at once (claimRunCreations), its named files with it: nothing to rewrite
      continue;
    }
    const found = bornSince(note, dirs);
    if (note.run !== undefined) {
      settled.runs++;
      const commit = note.run.commit ?? pinnedSnapshot(note.run.root, note.at);
      const left = note.paths.filter((p) => !found.some(([key]) => key === pathKey(p)));
      if (found.length === 0 && commit === note.run.commit && left.length === note.paths.length) continue;
      // Recorded before the note changes: a file is never dropped from both.
      addCreated(where, sessionId, found);
      settled.recorded += found.length;
      const run = commit === undefined ? note.run : { ...note.run, commit };
      writeFileAtomic(file, noteBody({ ...note, paths: left, run }), { mode: 0o600 });
      continue;
    }
    if (found.length === 0 && !final) continue;
    // Claimed by renaming, as recordCreations does: of two settling processes one records.
    const claimed = `${file}.${process.pid}.claimed`;
    forgetNote(file);
    try {
      renameSync(file, claimed);
    } catch {
      continue; // claimed by another process meanwhile
    }
    unlinkBestEffort(claimed);
    addCreated(where, sessionId, found);
    settled.recorded += found.length;
    const left = note.paths.filter((p) => !found.some(([key]) => key === pathKey(p)));
    if (!final && left.length > 0) writeFileAtomic(file, noteBody({ ...note, paths: left }), { mode: 0o600 });
  }
  return settled;
}

/**
 * The session's confined runs' notes, claimed (a note a concurrent claimer took is skipped): those whose call
 * has finished (`finished`: the tool_use ids with a result), or all of them (at the end of a turn). Only files.
 */
export function claimRunCreations(
  where: Locations,
  sessionId: string,
  finished: ReadonlySet<string> | 'all',
): ClaimedRun[] {
  const dir = sessionPendingDir(where.runtimeDir, sessionId);
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => NOTE_NAME.test(n));
  } catch {
    return [];
  }
  const done = finished === 'all' ? undefined : new Set([...finished].map((id) => fnv1a64(id)));
  const runs: ClaimedRun[] = [];
  for (const name of names) {
    const file = join(dir, name);
    let peek: Note | undefined;
    try {
      peek = parseNote(readOwnedFile(file, 'a provenance note')?.toString('utf8') ?? '');
    } catch {
      peek = undefined;
    }
    if (peek?.run === undefined || (done !== undefined && !done.has(peek.toolUse))) continue;
    const note = claimNote(file);
    if (note?.run === undefined || note.session !== idFileKey(sessionId)) continue;
    // Named paths the run has made since the last settle: recorded now, with the run's.
    addCreated(where, sessionId, bornSince(note));
    const commit = note.run.commit ?? pinnedSnapshot(note.run.root, note.at);
    runs.push({ at: note.at, run: commit === undefined ? note.run : { ...note.run, commit } });
  }
  return runs;
}

/**
 * The snapshot commit the work tree's undo ref names now, read from the loose ref file (no git process), if
 * it was written after the note: the run's own snapshot, or a later one (whose label or time then does not
 * match, and nothing is recorded). Undefined while the run has not taken it yet, or when the ref is packed.
 */
function pinnedSnapshot(root: string, notedAt: number): string | undefined {
  const tree = gitWorkTree(root);
  if (tree === undefined) return undefined;
  const ref = join(tree.commonDir, tree.undoRef);
  const st = lstatBig(ref);
  if (st === undefined || !st.isFile() || Number(st.mtimeMs) < notedAt - BIRTH_SLACK_MS) return undefined;
  try {
    const commit = readFileSync(ref, 'utf8').trim();
    return /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(commit) ? commit : undefined;
  } catch {
    return undefined;
  }
}

function noteBody(note: Note): string {
  return JSON.stringify({
    format: FORMAT,
    session: note.session,
    tool_use: note.toolUse,
    at: note.at,
    paths: note.paths,
    ...(note.run === undefined ? {} : { run: note.run }),
  });
}

/**
 * Notes already read, by file, with the stamp of what was read. A daemon settles a session's notes before each
 * of its calls, and a note waits there for as long as its call has not created its files (a whole turn, for a
 * refused Write): one lstat then says it is unchanged, where reading it again took five system calls and a
 * JSON parse. Only notes that passed readOwnedFile's checks are kept; the stamp holds the owner, mode, type and
 * link count those checks looked at.
 */
const readNotes = new Map<string, { stamp: string; note: Note }>();
/** Notes kept at most (the oldest read go first): a few per session that is waiting on its calls. */
const MAX_READ_NOTES = 4096;

/** A note of ours, parsed; undefined when it is absent, not ours or not a note. */
function readNote(file: string): Note | undefined {
  const now = lstatBig(file);
  if (now === undefined) return undefined;
  const held = readNotes.get(file);
  if (held !== undefined && held.stamp === fileStamp(now)) return held.note;
  let read: ReturnType<typeof readOwnedFileStat>;
  try {
    read = readOwnedFileStat(file, 'a provenance note');
  } catch {
    return undefined; // not a note of ours (a link, another owner): never vouched for
  }
  const note = read === undefined ? undefined : parseNote(read.bytes.toString('utf8'));
  if (note === undefined || !stampSettled(read!.stat, Date.now())) return note;
  readNotes.delete(file);
  readNotes.set(file, { stamp: fileStamp(read!.stat), note });
  if (readNotes.size > MAX_READ_NOTES) readNotes.delete(readNotes.keys().next().value!);
  return note;
}

function forgetNote(file: string): void {
  readNotes.delete(file);
}

/** The noted paths that now hold a file of one link, or a directory, born after the note. */
function bornSince(note: { at: number; paths: string[] }, dirs?: DirLooks): [string, CreatedFile][] {
  const files: [string, CreatedFile][] = [];
  for (const path of note.paths) {
    const f = dirs === undefined ? bornAfter(path, note.at) : dirs.bornAfter(path, note.at);
    if (f !== undefined) files.push([pathKey(path), f]);
  }
  return files;
}

/** The file of one link, or the directory, at `path` if it was born after `at` (a note's time). */
function bornAfter(path: string, at: number): CreatedFile | undefined {
  return bornFrom(lstatBig(path), at);
}

function bornFrom(st: BigIntStats | undefined, at: number): CreatedFile | undefined {
  const f = st === undefined ? undefined : fileOf(st);
  if (f === undefined || (f.type === 'f' && st!.nlink !== 1n) || f.birthMs < at - BIRTH_SLACK_MS) return undefined;
  return f;
}

/**
 * Noted paths seen absent, each with the nearest directory above it that exists (its anchor) and that
 * directory's stamp then. A waiting note's paths are looked at before every call of its session; while the
 * anchor keeps its stamp nothing was created, renamed or linked into it, so the path below it is still absent,
 * and one lstat of the anchor answers for all the paths below it. Kept only for a clean ENOENT under a
 * directory (not a link to one) whose stamp is settled (stampSettled): a hit always says what an lstat of the
 * path would.
 */
const absentPaths = new Map<string, { anchor: string; stamp: string }>();
const MAX_ABSENT_PATHS = 16_384;

type DirLook = { kind: 'dir'; stamp: string; settled: boolean } | { kind: 'absent' } | { kind: 'other' };

/** One settling pass's look at the directories above noted paths (each lstat'ed once in the pass). */
class DirLooks {
  private readonly seen = new Map<string, DirLook>();

  /** bornAfter, answered without looking at the path when its anchor says it is still absent. */
  bornAfter(path: string, at: number): CreatedFile | undefined {
    const held = absentPaths.get(path);
    if (held !== undefined) {
      const look = this.look(held.anchor);
      if (look.kind === 'dir' && look.stamp === held.stamp) return undefined;
    }
    // The nearest directory above the path that exists: looked at before the path, so a creation after the
    // look shows in the path's lstat below, or next time in the anchor's stamp.
    let below = path;
    let anchor = dirname(path);
    let look = this.look(anchor);
    while (look.kind === 'absent' && anchor !== dirname(anchor)) {
      below = anchor;
      anchor = dirname(anchor);
      look = this.look(anchor);
    }
    if (look.kind !== 'dir') return bornAfter(path, at);
    let st: BigIntStats | undefined;
    try {
      st = lstatSync(below, { bigint: true, throwIfNoEntry: false });
    } catch {
      return undefined; // cannot be looked at: not vouched for
    }
    if (st !== undefined) return below === path ? bornFrom(st, at) : bornAfter(path, at);
    if (look.settled) {
      absentPaths.delete(path);
      absentPaths.set(path, { anchor, stamp: look.stamp });
      if (absentPaths.size > MAX_ABSENT_PATHS) absentPaths.delete(absentPaths.keys().next().value!);
    }
    return undefined;
  }

  private look(dir: string): DirLook {
    let look = this.seen.get(dir);
    if (look === undefined) {
      try {
        const st = lstatSync(dir, { bigint: true, throwIfNoEntry: false });
        look =
          st === undefined
            ? { kind: 'absent' }
            : st.isDirectory()
              ? { kind: 'dir', stamp: fileStamp(st), settled: stampSettled(st, Date.now()) }
              : { kind: 'other' };
      } catch {
        look = { kind: 'other' }; // a file on the way, no permission: no anchor
      }
      this.seen.set(dir, look);
    }
    return look;
  }
}

/**
 * The files (and the directories above them up to the work tree's root) a confined run added, that pass the
 * checks a named creation passes — when the snapshot read is the one taken for this run.
 */
function runCreated(
  run: { root: string; label: string; commit?: string },
  notedAt: number,
  snapshot: RunAdditions,
  bornSince: (path: string) => CreatedFile | undefined,
): [string, CreatedFile][] {
  // A commit's time has whole seconds: the snapshot, taken after the note, may show up to a second before it.
  if (fnv1a64(snapshot.label) !== run.label || !(snapshot.takenAtMs >= notedAt - 1000 - BIRTH_SLACK_MS)) return [];
  const out = new Map<string, CreatedFile>();
  const root = run.root.endsWith('/') ? run.root : `${run.root}/`;
  let files = 0;
  for (const path of snapshot.added) {
    if (files >= MAX_RUN_FILES) break;
    if (!path.startsWith(root) || path.split('/').includes('..') || !notable(path)) continue;
    const f = bornSince(path);
    if (f?.type !== 'f') continue;
    files++;
    out.set(path, f);
    for (let dir = dirname(path); dir.length >= root.length && !out.has(dir); dir = dirname(dir)) {
      const d = bornSince(dir);
      if (d?.type !== 'd') break; // a directory born before the run: it and those above it are not the run's
      out.set(dir, d);
    }
  }
  return [...out];
}

interface Note {
  session: string;
  toolUse: string;
  at: number;
  paths: string[];
  /** A confined run: its work tree, its snapshot's label (a hash), and the snapshot commit once pinned. */
  run?: { root: string; label: string; commit?: string };
}

function parseNote(body: string): Note | undefined {
  try {
    const v = JSON.parse(body) as {
      format?: unknown;
      session?: unknown;
      tool_use?: unknown;
      at?: unknown;
      paths?: unknown;
      run?: { root?: unknown; label?: unknown; commit?: unknown };
    };
    if (
      v.format !== FORMAT ||
      typeof v.session !== 'string' ||
      typeof v.tool_use !== 'string' ||
      typeof v.at !== 'number' ||
      !Array.isArray(v.paths) ||
      v.paths.length > MAX_NOTE_PATHS ||
      !v.paths.every((p) => typeof p === 'string' && p.startsWith('/'))
    )
      return undefined;
    const note: Note = { session: v.session, toolUse: v.tool_use, at: v.at, paths: v.paths as string[] };
    if (v.run !== undefined) {
      const { root, label, commit } = v.run;
      if (typeof root !== 'string' || !root.startsWith('/') || typeof label !== 'string') return undefined;
      if (commit !== undefined && (typeof commit !== 'string' || !/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(commit)))
        return undefined;
      note.run = commit === undefined ? { root, label } : { root, label, commit };
    }
    return note;
  } catch {
    return undefined;
  }
}
