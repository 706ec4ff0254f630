/**
 * Run a CommonJS bundle through a V8 code cache kept next to it.
 *
 * Why: every tool call starts a fresh process and Node 20 has no compile cache for user code, so each call
 * would re-parse and lazily re-compile the same functions (3–4 ms per bundle). V8 serializes compiled code;
 * the cache is written after the process has done real work (so it holds the functions that work needs),
 * atomically (temp file + rename: concurrent hook processes read it).
 *
 * The cache is code: a damaged one crashes V8 (SIGSEGV) or silently changes what runs, and V8 checks only
 * its version, flags and the source's length, not its payload (release builds skip the payload checksum).
 * So it is used only when
 *   - it is a regular file (not a link) owned by this user or root that nobody else may write, and
 *   - it is whole: mirrored (util/mirrored.ts: the payload twice, both copies equal; a cold process has no
 *     hash cheaper than the cache's own saving).
 * Anything else is ignored and rewritten by this run. Best effort: an unwritable install directory only
 * means no cache.
 */
import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { isAscii } from 'node:buffer';
import { dirname } from 'node:path';
import { Script } from 'node:vm';
import { decodeMirrored, encodeMirrored } from './mirrored.js';

const MAGIC = 0x38565748; // "HWV8" little-endian

export function codeCachePath(bundle: string): string {
  return `${bundle.replace(/\.cjs$/, '')}.${process.version}.${process.arch}.v8cache`;
}

/** The file's bytes as a whole code cache's payload, or undefined when it is not one. */
export function decodeCodeCache(file: Buffer): Buffer | undefined {
  return decodeMirrored(MAGIC, file);
}

export function encodeCodeCache(payload: Buffer): Buffer {
  return encodeMirrored(MAGIC, payload);
}

/** The cache file's payload when it may be trusted (see the module comment), else undefined. */
function readTrusted(cachePath: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(cachePath, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return undefined; // none yet, a link, or unreadable: compile from source
  }
  try {
    const stat = fstatSync(fd);
    const uid = process.getuid?.();
    if (!stat.isFile() || (stat.mode & 0o022) !== 0 || (uid !== undefined && stat.uid !== uid && stat.uid !== 0))
      return undefined;
    return decodeCodeCache(readFileSync(fd));
  } finally {
    closeSync(fd);
  }
}

function writeCache(cachePath: string, payload: Buffer): void {
  const tmp = `${cachePath}.${process.pid}.${Date.now()}.tmp`;
  try {
    writeFileSync(tmp, encodeCodeCache(payload), { mode: 0o644, flag: 'wx' });
    renameSync(tmp, cachePath);
  } catch {
    // read-only install: run without a cache (and leave no temp file behind)
    try {
      unlinkSync(tmp);
    } catch {
      // there was none
    }
  }
}

/** Loads `bundle` (a CommonJS file) and returns its exports; `load` resolves its own require() calls. */
export function loadWithCodeCache(bundle: string, load: NodeJS.Require, options: { writeCache: boolean }): unknown {
  const cachePath = codeCachePath(bundle);
  const bytes = readFileSync(bundle);
  // The build makes every bundle pure ASCII (scripts/build.mjs), which decodes as Latin-1 with no UTF-8
  // validation (≈ 0.3 ms less for hook.cjs in a fresh process); a bundle that is not stays UTF-8.
  const source = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
  const mode = process.env.HOOKWISE_CODE_CACHE;
  const cached = mode === 'off' ? undefined : readTrusted(cachePath);
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: bundle,
    ...(cached === undefined ? {} : { cachedData: cached }),
  });
  // `refresh` (the build's warm-up): rewritten after this run, so the cache holds the functions of every run
  // that refreshed it — V8 serializes those it deserialized as well as those this run compiled.
  if (options.writeCache && (cached === undefined || script.cachedDataRejected === true || mode === 'refresh')) {
    process.once('exit', () => writeCache(cachePath, script.createCachedData()));
  }
  const run = script.runInThisContext() as (e: object, r: NodeJS.Require, m: object, f: string, d: string) => void;
  const bundleModule: { exports: unknown } = { exports: {} };
  run(bundleModule.exports as object, load, bundleModule, bundle, dirname(bundle));
  return bundleModule.exports;
}
