/**
 * The user's salt: 32 random bytes kept in the private runtime directory (`cache/salt`, 0600). Caches that
 * decide verdicts are named or keyed with it, so a cache nobody with this user's runtime directory made —
 * planted under a predictable name, committed to a repository, copied from another machine — never matches.
 *
 * Random bytes come from /dev/urandom with a plain read: synchronous, and without loading node:crypto
 * (≈ 3.5 ms in a cold process). Where there is no /dev/urandom, node:crypto is the fallback.
 */
import { closeSync, constants, linkSync, lstatSync, openSync, readSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { HookwiseError } from '../core/errors.js';
import { ensurePrivateDir, fsyncDirectory, readOwnedFile, writeFileAtomic } from './fs-safe.js';

const SALT_SHAPE = /^[0-9a-f]{64}$/;

export function saltPath(runtimeDir: string): string {
  return join(runtimeDir, 'cache', 'salt');
}

/** The salt, or undefined when there is none yet (or the file is not a whole salt of ours). */
export function readSalt(runtimeDir: string): string | undefined {
  let bytes: Buffer | undefined;
  try {
    bytes = readOwnedFile(saltPath(runtimeDir), 'the cache salt');
  } catch (error) {
    // A salt that is not ours (planted, a link) is never used; userSalt replaces it.
    if (error instanceof HookwiseError) return undefined;
    throw error;
  }
  const text = bytes?.toString('latin1').trim();
  return text !== undefined && SALT_SHAPE.test(text) ? text : undefined;
}

/**
 * The salt, made on first use. Concurrent first uses agree: the salt is written whole to a temp file and
 * then hard-linked into place, which fails when another process got there first (its salt is then used).
 */
export function userSalt(runtimeDir: string): string {
  const held = readSalt(runtimeDir);
  if (held !== undefined) return held;
  const path = saltPath(runtimeDir);
  const dir = ensurePrivateDir(join(runtimeDir, 'cache'));
  if (lstatSync(path, { throwIfNoEntry: false }) !== undefined) {
    // Another process may have linked its salt in since we looked: use it.
    const now = readSalt(runtimeDir);
    if (now !== undefined) return now;
    // What is there is no salt of ours (another user's, a link, damaged): it goes.
    rmSync(path, { force: true });
  }
  const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
  writeFileAtomic(tmp, `${randomHex(32)}\n`, { mode: 0o600, durable: true });
  try {
    linkSync(tmp, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    rmSync(tmp, { force: true });
  }
  fsyncDirectory(dir);
  const salt = readSalt(runtimeDir);
  if (salt === undefined)
    throw new HookwiseError('RUNTIME_DIR_UNSAFE', `${path} is not a salt of yours; remove it and try again`);
  return salt;
}

function randomHex(bytes: number): string {
  const buf = Buffer.alloc(bytes);
  try {
    const fd = openSync('/dev/urandom', constants.O_RDONLY);
    try {
      let got = 0;
      while (got < bytes) got += readSync(fd, buf, got, bytes - got, null);
    } finally {
      closeSync(fd);
    }
  } catch {
    const require = createRequire(typeof __filename === 'string' ? __filename : import.meta.url);
    (require('node:crypto') as { randomFillSync(b: Buffer): Buffer }).randomFillSync(buf);
  }
  return buf.toString('hex');
}
