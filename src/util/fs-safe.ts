/** Atomic writes, a cross-process lock, and the private per-user directory. */
import { closeSync, fsyncSync, lstatSync, mkdirSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync, chmodSync } from 'node:fs';
import { dirname } from 'node:path';
import { HookwiseError } from '../core/errors.js';

const sleepCell = new Int32Array(new SharedArrayBuffer(4));
/** Block the thread for `ms` (hook processes are single-purpose; an event loop buys nothing here). */
export function sleepSync(ms: number): void {
  Atomics.wait(sleepCell, 0, 0, ms);
}

let tmpCounter = 0;
/** Write via a temp file in the same directory and rename: readers see the old or the new file, never half. */
export function writeFileAtomic(path: string, data: string | Uint8Array, options: { mode?: number; durable?: boolean } = {}): void {
  const tmp = `${path}.${process.pid}.${Date.now()}.${tmpCounter++}.tmp`;
  const fd = openSync(tmp, 'wx', options.mode ?? 0o600);
  try {
    if (typeof data === 'string') writeSync(fd, data);
    else writeSync(fd, data);
    if (options.durable === true) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(tmp, path);
  } catch (error) {
    unlinkQuietly(tmp);
    throw error;
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
  /** A lock older than this whose owner is gone is taken over (its holder crashed). */
  staleMs?: number;
}

/**
 * Run `fn` holding an exclusive lock file (O_CREAT|O_EXCL). Critical sections here are microseconds, so a
 * lock older than `staleMs` can only belong to a crashed process.
 */
export function withLockSync<T>(lockPath: string, fn: () => T, options: LockOptions = {}): T {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const staleMs = options.staleMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  let delay = 1;
  for (;;) {
    try {
      const fd = openSync(lockPath, 'wx', 0o600);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (isStale(lockPath, staleMs)) {
      unlinkQuietly(lockPath);
      continue;
    }
    if (Date.now() > deadline) {
      throw new HookwiseError('LOCK_TIMEOUT', `timed out after ${timeoutMs} ms waiting for the lock ${lockPath}; if no hookwise process is running, delete it`);
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

function isStale(lockPath: string, staleMs: number): boolean {
  try {
    const age = Date.now() - statSync(lockPath).mtimeMs;
    if (age < staleMs) return false;
    const pid = Number.parseInt(readFileSync(lockPath, 'utf8'), 10);
    if (!Number.isInteger(pid) || pid <= 0) return true;
    try {
      process.kill(pid, 0);
      return false; // owner alive: a very slow holder, keep waiting
    } catch {
      return true; // ESRCH: owner gone
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
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
