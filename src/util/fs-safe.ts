/** Atomic writes, a cross-process lock, and the private per-user directory. */
import { closeSync, fstatSync, fsyncSync, lstatSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeSync, chmodSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { HookwiseError } from '../core/errors.js';

const sleepCell = new Int32Array(new SharedArrayBuffer(4));
/** Block the thread for `ms` (hook processes are single-purpose; an event loop buys nothing here). */
export function sleepSync(ms: number): void {
  Atomics.wait(sleepCell, 0, 0, ms);
}

let tmpCounter = 0;

/** The file operations the writers use (tests inject failures: short writes, ENOSPC). */
export interface WriteIo {
  write(fd: number, buffer: Uint8Array, offset: number, length: number): number;
  fsync(fd: number): void;
}
const NODE_IO: WriteIo = { write: (fd, buffer, offset, length) => writeSync(fd, buffer, offset, length), fsync: (fd) => fsyncSync(fd) };

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
      throw Object.assign(new Error(`ENOSPC: no progress writing ${buffer.length - offset} of ${buffer.length} bytes`), { code: 'ENOSPC' });
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
export function writeFileAtomic(path: string, data: string | Uint8Array, options: { mode?: number; durable?: boolean } = {}, io: WriteIo = NODE_IO): void {
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
    throw error;
  }
  if (options.durable === true) fsyncDirectory(dirname(path));
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
    if (lockIsStale(lockPath, staleMs)) {
      unlinkQuietly(lockPath);
      continue;
    }
    if (Date.now() > deadline) {
      throw new HookwiseError('LOCK_TIMEOUT', `timed out after ${timeoutMs} ms waiting for the lock ${lockPath} (held by ${describeOwner(lockPath)}); if no hookwise process is running, delete it`);
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
    return pid === undefined || pid === '' ? 'an unknown process' : `pid ${pid}${host === undefined ? '' : ` on ${host}`}`;
  } catch {
    return 'an unknown process';
  }
}

/** Whether an existing lock was left by a holder that is gone (see withLockSync); false when there is none. */
export function lockIsStale(lockPath: string, staleMs: number): boolean {
  let stat;
  try {
    stat = lstatSync(lockPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  // A planted or dangling symlink is never a lock hookwise made.
  if (stat.isSymbolicLink() || !stat.isFile()) return true;
  const age = Date.now() - stat.mtimeMs;
  let content: string;
  try {
    content = readFileSync(lockPath, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  const [pidText, start, host] = content.trim().split(' ');
  const pid = Number.parseInt(pidText ?? '', 10);
  if (!Number.isInteger(pid) || pid <= 0) return age >= Math.min(UNWRITTEN_GRACE_MS, staleMs);
  // Another host (a shared file system): its pids mean nothing here, so only age can tell.
  if (host !== undefined && host !== hostname()) return age >= staleMs;
  if (!alive(pid)) return true;
  // The pid is alive: the same process, or a later one that reused the pid after the holder died.
  const now = processStart(pid);
  if (start !== undefined && start !== '-' && now !== undefined && now !== start) return true;
  return false;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by someone else
  }
}

/**
 * Create (or check) a directory only this user can enter: 0700, owned by us, not a symlink. Secrets,
 * sockets and session files live here — never in world-writable /tmp.
 */
export function ensurePrivateDir(path: string): string {
  let stat = lstatSync(path, { throwIfNoEntry: false });
  if (stat === undefined) {
    mkdirSync(path, { recursive: true, mode: 0o700 });
    stat = lstatSync(path);
  }
  if (stat.isSymbolicLink() || !stat.isDirectory()) {
    throw new HookwiseError('RUNTIME_DIR_UNSAFE', `${path} must be a real directory, not a symlink or file; remove it and retry`);
  }
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid) {
    throw new HookwiseError('RUNTIME_DIR_UNSAFE', `${path} belongs to uid ${stat.uid}, not to you (uid ${uid}); hookwise will not keep sessions there`);
  }
  if ((stat.mode & 0o077) !== 0) chmodSync(path, 0o700);
  return path;
}

export function ensureParentDir(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
}
