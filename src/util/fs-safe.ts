/** Atomic writes, a cross-process lock, and the private per-user directory. */
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
  chmodSync,
  type BigIntStats,
  type Stats,
} from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { HookwiseError } from '../core/errors.js';

const sleepCell = new Int32Array(new SharedArrayBuffer(4));
/** Block the thread for `ms` (hook processes are single-purpose; an event loop buys nothing here). */
export function sleepSync(ms: number): void {
  Atomics.wait(sleepCell, 0, 0, ms);
}

let tmpCounter = 0;

/** This process's uid (hookwise never changes it): getuid() is a system call, and ownership is checked per file. */
const PROCESS_UID = process.getuid?.();

/** The file operations the writers use (tests inject failures: short writes, ENOSPC). */
export interface WriteIo {
  write(fd: number, buffer: Uint8Array, offset: number, length: number): number;
  fsync(fd: number): void;
}
const NODE_IO: WriteIo = {
  write: (fd, buffer, offset, length) => writeSync(fd, buffer, offset, length),
  fsync: (fd) => fsyncSync(fd),
};

/**
 * Write every byte of `data` to `fd`: `write(2)` may write less than asked (a nearly full disk, a signal), and a
 * write that makes no progress is an error, never a silently shorter file.
 */
export function writeAll(fd: number, data: string | Uint8Array, io: WriteIo = NODE_IO): void {
  const buffer = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  let offset = 0;
  while (offset < buffer.length) {
    const written = io.write(fd, buffer, offset, buffer.length - offset);
    if (!(written > 0)) {
      throw Object.assign(
        new Error(`ENOSPC: no progress writing ${buffer.length - offset} of ${buffer.length} bytes`),
        { code: 'ENOSPC' },
      );
    }
    offset += written;
  }
}

/**
 * Write via a temp file in the same directory and rename: readers see the old or the new file, never half.
 * Every byte is written (short writes continue, no progress is an error) and the size is checked before the
 * rename; on any failure the temp file is removed and the old file stays as it was. `durable`: the file and
 * then its directory are fsynced, so the new content survives a crash once this returns.
 */
export function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: { mode?: number; durable?: boolean } = {},
  io: WriteIo = NODE_IO,
): void {
  const tmp = `${path}.${process.pid}.${Date.now()}.${tmpCounter++}.tmp`;
  const buffer = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const fd = openSync(tmp, 'wx', options.mode ?? 0o600);
  try {
    try {
      writeAll(fd, buffer, io);
      if (options.durable === true) io.fsync(fd);
      const size = fstatSync(fd).size;
      if (size !== buffer.length) throw new Error(`${tmp} holds ${size} bytes after writing ${buffer.length}`);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (error) {
    unlinkQuietly(tmp);
    throw naming(error, `cannot write ${path}`, 'it was left as it was');
  }
  if (options.durable === true) fsyncDirectory(dirname(path));
}

/**
 * The error, its message saying which file and what became of it (a bare "ENOSPC: no space left on device,
 * write" names neither). Its type and errno code stay, for callers that test them.
 */
function naming(error: unknown, what: string, outcome: string): unknown {
  if (error instanceof Error && !error.message.startsWith(what))
    error.message = `${what}: ${error.message}; ${outcome}`;
  return error;
}

/** fsync a directory so a rename or create in it is durable (a no-op where directories cannot be opened). */
export function fsyncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL' && code !== 'EBADF') throw error;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/**
 * Removes a file whose removal is only tidying (a claimed note, a stale marker): any failure — already gone,
 * claimed by another process, not ours — leaves nothing for the caller to do.
 */
export function unlinkBestEffort(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Nothing left for us to clean.
  }
}

export interface LockOptions {
  timeoutMs?: number;
  /** A lock whose owner cannot be identified (no readable owner line) is taken over after this long. */
  staleMs?: number;
}

/** A lock file whose owner line has not been written yet is this young at most (create and write are one step apart). */
const UNWRITTEN_GRACE_MS = 1000;

/** A process's start time (Linux: /proc/<pid>/stat field 22, clock ticks since boot), to tell a reused pid apart. */
export function processStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count fields after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19];
  } catch {
    return undefined;
  }
}

/** What a lock file says about its holder: `pid start host`. */
export function lockOwnerLine(): string {
  return `${process.pid} ${processStart(process.pid) ?? '-'} ${hostname()}\n`;
}

/**
 * Run `fn` holding an exclusive lock file (O_CREAT|O_EXCL). The file names its holder (pid, process start
 * time, host), so a lock left by a dead process is recognised at once — its pid is gone, or reused by a
 * process that started later — instead of after a timeout. A lock whose owner line is missing (the holder
 * died between create and write, or a disk too full to write it) is taken over after a short grace; a
 * symlink at the lock path is never followed or trusted, only removed.
 */
export function withLockSync<T>(lockPath: string, fn: () => T, options: LockOptions = {}): T {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const staleMs = options.staleMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  let delay = 1;
  for (;;) {
    if (tryLockFile(lockPath)) break;
    const stale = staleLock(lockPath, staleMs);
    if (stale !== undefined && breakStaleLock(lockPath, stale, staleMs)) continue;
    if (Date.now() > deadline) {
      throw new HookwiseError(
        'LOCK_TIMEOUT',
        `timed out after ${timeoutMs} ms waiting for the lock ${lockPath} (held by ${describeOwner(lockPath)}); if no hookwise process is running, delete it`,
      );
    }
    sleepSync(delay);
    delay = Math.min(delay * 2, 20);
  }
  try {
    return fn();
  } finally {
    unlinkQuietly(lockPath);
  }
}

/**
 * Create the lock and write its owner line (false when it exists); a lock that could not be written whole is
 * removed again. For a lock held across processes (the daemon's start lock) as well as by withLockSync.
 */
export function tryLockFile(lockPath: string): boolean {
  let fd: number;
  try {
    fd = openSync(lockPath, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeAll(fd, lockOwnerLine());
  } catch (error) {
    closeSync(fd);
    unlinkQuietly(lockPath);
    throw error;
  }
  closeSync(fd);
  return true;
}

function describeOwner(lockPath: string): string {
  try {
    const [pid, , host] = readFileSync(lockPath, 'utf8').trim().split(' ');
    return pid === undefined || pid === ''
      ? 'an unknown process'
      : `pid ${pid}${host === undefined ? '' : ` on ${host}`}`;
  } catch {
    return 'an unknown process';
  }
}

/**
 * A stale lock as it was judged: the file's identity, so that only that very file is removed. An inode
 * number alone is not one (a file created right after an unlink often gets the same), so the change time
 * (ns) and the owner line are part of it: a new holder's file has a later time and names a live process.
 */
export interface StaleLock {
  dev: bigint;
  ino: bigint;
  ctimeNs: bigint;
  owner: string;
}

function readOwner(path: string): string | undefined {
  try {
    return readFileSync(path, 'latin1');
  } catch {
    return undefined; // gone, or a link to nothing
  }
}

/**
 * Remove a lock judged stale — only if it is still the same file. Two waiters may judge the same dead lock
 * stale; when the first has removed it and taken the lock anew, the second must not remove the new one. So
 * breakers take turns under a small guard lock (itself broken only when its holder is dead), and each
 * removes the lock only if it is still the file it judged (same device and inode). False when another
 * breaker is at work: wait, then look again.
 */
export function breakStaleLock(lockPath: string, judged: StaleLock, staleMs: number): boolean {
  const guard = `${lockPath}.break`;
  if (!tryLockFile(guard)) {
    // Another breaker is at work (microseconds); a guard whose holder died is cleared the same careful way.
    const deadGuard = staleLock(guard, staleMs);
    if (deadGuard !== undefined) removeIfSame(guard, deadGuard);
    return false;
  }
  try {
    removeIfSame(lockPath, judged);
    return true;
  } finally {
    unlinkQuietly(guard);
  }
}

function removeIfSame(path: string, judged: StaleLock): void {
  const now = lstatSync(path, { bigint: true, throwIfNoEntry: false });
  if (now === undefined || now.dev !== judged.dev || now.ino !== judged.ino || now.ctimeNs !== judged.ctimeNs) return;
  // A link's identity is enough (its target's content is never read); a lock file must still say the same.
  if (!now.isFile() || (readOwner(path) ?? '') === judged.owner) unlinkQuietly(path);
}

/**
 * The existing lock's identity when its holder is gone (see withLockSync); undefined when live or absent.
 * `maxHoldMs`: a lock held longer than this is stale whoever holds it (a start that should take seconds).
 */
export function staleLock(lockPath: string, staleMs: number, maxHoldMs = Infinity): StaleLock | undefined {
  const stat = lstatSync(lockPath, { bigint: true, throwIfNoEntry: false });
  if (stat === undefined) return undefined;
  const id = { dev: stat.dev, ino: stat.ino, ctimeNs: stat.ctimeNs };
  // A planted or dangling symlink is never a lock hookwise made (its "owner" is never read through the link).
  if (!stat.isFile()) return { ...id, owner: '' };
  const age = Date.now() - Number(stat.mtimeMs);
  const content = readOwner(lockPath);
  if (content === undefined) return undefined;
  const judged = { ...id, owner: content };
  if (age > maxHoldMs) return judged;
  const [pidText, start, host] = content.trim().split(' ');
  const pid = Number.parseInt(pidText ?? '', 10);
  if (!Number.isInteger(pid) || pid <= 0) return age >= Math.min(UNWRITTEN_GRACE_MS, staleMs) ? judged : undefined;
  // Another host (a shared file system): its pids mean nothing here, so only age can tell.
  if (host !== undefined && host !== hostname()) return age >= staleMs ? judged : undefined;
  if (!alive(pid)) return judged;
  // The pid is alive: the same process, or a later one that reused the pid after the holder died.
  const now = processStart(pid);
  if (start !== undefined && start !== '-' && now !== undefined && now !== start) return judged;
  return undefined;
}

/**
 * Is the process that wrote `pid start` (lockOwnerLine's first two fields) still running? A pid reused by a
 * later process is not it. For records that name a waiting process (the queue's waiters), as locks do.
 */
export function processAlive(pid: number, start: string | undefined): boolean {
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return false;
  const now = processStart(pid);
  return start === undefined || start === '-' || now === undefined || now === start;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by someone else
  }
}

/** Why an lstat'ed directory is not one of ours, or undefined when it is (its mode is fixed by the caller). */
function foreignDir(
  path: string,
  stat: { isSymbolicLink(): boolean; isDirectory(): boolean; uid: number },
): string | undefined {
  if (stat.isSymbolicLink() || !stat.isDirectory())
    return `${path} must be a real directory, not a symlink or file; remove it and retry`;
  const uid = PROCESS_UID;
  if (uid !== undefined && stat.uid !== uid)
    return `${path} belongs to uid ${stat.uid}, not to you (uid ${uid}); hookwise will not keep its state there`;
  return undefined;
}

/**
 * Create (or check) a directory only this user can enter: 0700, owned by us, not a symlink. Secrets,
 * sockets and session files live here — never in world-writable /tmp. A directory of ours that others could
 * enter is made private; what others may have planted in it meanwhile is caught file by file (openOwnedFile).
 */
export function ensurePrivateDir(path: string): string {
  if (!checkPrivateDir(path)) {
    mkdirSync(path, { recursive: true, mode: 0o700 });
    checkPrivateDir(path);
  }
  return path;
}

/**
 * For readers: false when the directory does not exist; true when it is a private directory of ours (made
 * 0700 if it was not); RUNTIME_DIR_UNSAFE when it is a link, not a directory, or another user's.
 */
export function checkPrivateDir(path: string): boolean {
  const stat = lstatSync(path, { throwIfNoEntry: false });
  if (stat === undefined) return false;
  const problem = foreignDir(path, stat);
  if (problem !== undefined) throw new HookwiseError('RUNTIME_DIR_UNSAFE', problem);
  if ((stat.mode & 0o077) !== 0) chmodSync(path, 0o700);
  return true;
}

export function ensureParentDir(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
}

// ── files in hookwise's private directories ──────────────────────────────────────────────────────────────
//
// The runtime and config directories are private (0700), but one may have existed before hookwise made it
// private, with files planted in it; a link there may point anywhere. So a file hookwise keeps state in is
// opened without following a link (O_NOFOLLOW) and used only when it is a regular file of this user that
// nobody else may write.

/**
 * `private`: a file in one of hookwise's private directories — ours, written by nobody else. `project`: a file
 * in the user's repository (its owner and mode are the checkout's business), only never a link or non-file.
 */
export type FileTrust = 'private' | 'project';

/** Why a file is not one hookwise may trust, or undefined when it is. */
function untrusted(stat: { isFile(): boolean; uid: number; mode: number }, trust: FileTrust): string | undefined {
  if (!stat.isFile()) return 'is not a regular file';
  if (trust === 'project') return undefined;
  const uid = PROCESS_UID;
  if (uid !== undefined && stat.uid !== uid) return `belongs to uid ${stat.uid}, not to you (uid ${uid})`;
  if ((stat.mode & 0o022) !== 0) return `is writable by others (mode ${(stat.mode & 0o777).toString(8)})`;
  return undefined;
}

/**
 * Open a file of ours: never through a symlink, and only a regular file owned by this user that nobody else
 * may write (RUNTIME_DIR_UNSAFE otherwise, naming the file and `purpose`). `flags` are open(2) flags;
 * O_NOFOLLOW is added.
 */
export function openOwnedFile(
  path: string,
  flags: number,
  mode: number,
  purpose: string,
  trust: FileTrust = 'private',
): number {
  let fd: number;
  try {
    fd = openSync(path, flags | constants.O_NOFOLLOW, mode);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') {
      throw new HookwiseError(
        'RUNTIME_DIR_UNSAFE',
        `${path} is a symbolic link; hookwise will not use it for ${purpose} (remove it)`,
      );
    }
    throw error;
  }
  const problem = untrusted(fstatSync(fd), trust);
  if (problem !== undefined) {
    closeSync(fd);
    throw new HookwiseError(
      'RUNTIME_DIR_UNSAFE',
      `${path} ${problem}; hookwise will not use it for ${purpose} (remove it)`,
    );
  }
  return fd;
}

/** Open a file of ours for reading (see openOwnedFile); undefined when there is none. */
/**
 * The error says the file is not there: ENOENT, or ENOTDIR — a file where a directory on its path should be
 * (a confined command's empty mount point for an absent `.hookwise/`, left until its clean-up runs), so the
 * file cannot exist either.
 */
export function isAbsent(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** statSync, undefined when the file is absent (isAbsent: ENOENT or ENOTDIR). */
export function statIfPresent(path: string): Stats | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch (error) {
    if (isAbsent(error)) return undefined;
    throw error;
  }
}

/** lstatSync, undefined when the path is absent (isAbsent: ENOENT or ENOTDIR). */
export function lstatIfPresent(path: string): Stats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch (error) {
    if (isAbsent(error)) return undefined;
    throw error;
  }
}

function openOwnedForRead(path: string, purpose: string, trust: FileTrust): number | undefined {
  // An absent file is the common case for many readers (a session without module state or session rules):
  // an lstat says so without the failed open's exception, whose stack trace costs more than the call itself.
  if (lstatIfPresent(path) === undefined) return undefined;
  try {
    return openOwnedFile(path, constants.O_RDONLY, 0, purpose, trust);
  } catch (error) {
    if (isAbsent(error)) return undefined;
    throw error;
  }
}

/**
 * Check a file of ours without reading it (see openOwnedFile): false when there is none. For readers that
 * read it their own way afterwards, in a private directory of ours (so nobody else can swap it meanwhile).
 */
export function checkOwnedFile(path: string, purpose: string, trust: FileTrust = 'private'): boolean {
  const fd = openOwnedForRead(path, purpose, trust);
  if (fd === undefined) return false;
  closeSync(fd);
  return true;
}

/** Read a file of ours (see openOwnedFile); undefined when there is none. */
export function readOwnedFile(path: string, purpose: string, trust: FileTrust = 'private'): Buffer | undefined {
  const fd = openOwnedForRead(path, purpose, trust);
  if (fd === undefined) return undefined;
  try {
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * What names a file's bytes without reading them: device, inode, size, type and owner bits, and the times of
 * its last write and change. The same name with the same stamp holds the same bytes — unless the stamp was
 * taken within the file system's clock tick of a write (see stampSettled).
 */
export function fileStamp(st: BigIntStats): string {
  return `${st.dev}:${st.ino}:${st.size}:${st.mode}:${st.uid}:${st.nlink}:${st.mtimeNs}:${st.ctimeNs}`;
}

/**
 * File times come from the kernel's coarse clock (a tick of up to 10 ms, behind the clock Date.now() reads): a
 * file written again within that tick of a reading keeps its stamp. A stamp whose change time is older than
 * this before the reading cannot be repeated by a later write.
 */
const STAMP_TICK_MS = 50n;

/**
 * Whether a file read at `readAtMs` (Date.now() after the read) with this fstat can be known unchanged by its
 * stamp alone later (git's "racily clean" rule): a memo keyed by the stamp of a file changed just before the
 * reading is not kept, so a memo hit always gives what a fresh read would. Not a wait or a timeout: either way
 * the same bytes are used, only how they are found differs.
 */
export function stampSettled(st: BigIntStats, readAtMs: number): boolean {
  return st.ctimeNs / 1_000_000n + STAMP_TICK_MS < BigInt(Math.floor(readAtMs));
}

/**
 * readOwnedFile, with the identity of what was read: the fstat of the open file (not of the name, which may
 * have been replaced between a stat and the open). Undefined when there is no file.
 */
export function readOwnedFileStat(
  path: string,
  purpose: string,
  trust: FileTrust = 'private',
): { bytes: Buffer; stat: BigIntStats } | undefined {
  const fd = openOwnedForRead(path, purpose, trust);
  if (fd === undefined) return undefined;
  try {
    // Stat before reading: a write in between leaves bytes newer than the stamp, which then differs next time.
    const stat = fstatSync(fd, { bigint: true });
    return { bytes: readFileSync(fd), stat };
  } finally {
    closeSync(fd);
  }
}

/**
 * appendOwnedLines for a long-lived writer (the daemon's audit log, thousands of lines a second): the file stays
 * open between appends. Each append still lstat()s the path: a file that was rotated, removed or replaced
 * since is closed and the path opened afresh (with openOwnedFile's checks), so a line never lands in a file
 * that no longer has the name; and the same ownership and mode checks run on that lstat. The lstat's size
 * serves the torn-line check, whose one-byte read is skipped when this writer wrote the file's last byte.
 * The guarantee is appendOwnedLines': one O_APPEND write of whole lines, cut back when it fails part-way.
 * `maxOpen` bounds the descriptors kept (the oldest is closed).
 */
export class OwnedAppender {
  private readonly open = new Map<string, { fd: number; dev: number; ino: number; end: number }>();

  constructor(private readonly maxOpen = 4) {}

  append(path: string, text: string, options: { mode: number; purpose: string }, io: WriteIo = NODE_IO): void {
    const stat = lstatSync(path, { throwIfNoEntry: false });
    let held = this.open.get(path);
    if (held !== undefined && (stat === undefined || stat.ino !== held.ino || stat.dev !== held.dev)) {
      this.forget(path);
      held = undefined;
    }
    if (held !== undefined && stat !== undefined) {
      const problem = untrusted(stat, 'private');
      if (problem !== undefined) {
        this.forget(path);
        throw new HookwiseError(
          'RUNTIME_DIR_UNSAFE',
          `${path} ${problem}; hookwise will not use it for ${options.purpose} (remove it)`,
        );
      }
    }
    let size: number;
    if (held === undefined) {
      const fd = openOwnedFile(
        path,
        constants.O_RDWR | constants.O_APPEND | constants.O_CREAT,
        options.mode,
        options.purpose,
      );
      const opened = fstatSync(fd);
      held = { fd, dev: opened.dev, ino: opened.ino, end: -1 };
      if (this.open.size >= this.maxOpen) this.forget(this.open.keys().next().value!);
      this.open.set(path, held);
      size = opened.size;
    } else size = stat!.size;
    let data = Buffer.from(text, 'utf8');
    if (size > 0 && size !== held.end) {
      const last = Buffer.alloc(1);
      readSync(held.fd, last, 0, 1, size - 1);
      if (last[0] !== 0x0a) data = Buffer.concat([Buffer.from('\n'), data]);
    }
    try {
      writeAll(held.fd, data, io);
    } catch (error) {
      ftruncateSync(held.fd, size);
      held.end = -1;
      throw naming(error, `cannot append to ${path}`, 'nothing was added');
    }
    held.end = size + data.length;
  }

  /** Close every file kept open. */
  close(): void {
    for (const path of [...this.open.keys()]) this.forget(path);
  }

  private forget(path: string): void {
    const held = this.open.get(path);
    if (held === undefined) return;
    this.open.delete(path);
    try {
      closeSync(held.fd);
    } catch {
      // Already closed or invalid: nothing is held any more either way.
    }
  }
}

/**
 * Append complete lines to a file of ours in one O_APPEND write (see openOwnedFile). After a torn last line
 * (a writer died mid-line, a hand edit) a newline goes first, so the fragment stays one bad line instead of
 * swallowing ours; a write that fails part-way (a full disk) is cut back, so the file holds whole records.
 */
export function appendOwnedLines(
  path: string,
  text: string,
  options: { mode: number; purpose: string; trust?: FileTrust },
  io: WriteIo = NODE_IO,
): void {
  const fd = openOwnedFile(
    path,
    constants.O_RDWR | constants.O_APPEND | constants.O_CREAT,
    options.mode,
    options.purpose,
    options.trust,
  );
  try {
    const size = fstatSync(fd).size;
    let data = Buffer.from(text, 'utf8');
    if (size > 0) {
      const last = Buffer.alloc(1);
      readSync(fd, last, 0, 1, size - 1);
      if (last[0] !== 0x0a) data = Buffer.concat([Buffer.from('\n'), data]);
    }
    try {
      writeAll(fd, data, io);
    } catch (error) {
      ftruncateSync(fd, size);
      throw naming(error, `cannot append to ${path}`, 'nothing was added');
    }
  } finally {
    closeSync(fd);
  }
}
