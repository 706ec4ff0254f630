/**
 * Run a CommonJS bundle through a V8 code cache kept next to it.
 *
 * Why: every tool call starts a fresh process and Node 20 has no compile cache for user code, so each call
 * would re-parse and lazily re-compile the same functions (3–4 ms per bundle). V8 serializes compiled code;
 * the cache is written after the process has done real work (so it holds the functions that work needs),
 * atomically (temp file + rename: concurrent hook processes read it). V8 checks it against the source and
 * its own version and flags and rejects a stale or corrupt one; we then run uncached and rewrite it.
 * Best effort: an unwritable install directory only means no cache.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { Script } from 'node:vm';

export function codeCachePath(bundle: string): string {
  return `${bundle.replace(/\.cjs$/, '')}.${process.version}.${process.arch}.v8cache`;
}

/** Loads `bundle` (a CommonJS file) and returns its exports; `load` resolves its own require() calls. */
export function loadWithCodeCache(bundle: string, load: NodeJS.Require, options: { writeCache: boolean }): unknown {
  const cachePath = codeCachePath(bundle);
  const source = readFileSync(bundle, 'utf8');
  let cached: Buffer | undefined;
  try {
    cached = readFileSync(cachePath);
  } catch {
    cached = undefined; // no cache yet (or unreadable): compile from source
  }
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: bundle,
    ...(cached === undefined ? {} : { cachedData: cached }),
  });
  if (options.writeCache && (cached === undefined || script.cachedDataRejected === true)) {
    process.once('exit', () => {
      try {
        const tmp = `${cachePath}.${process.pid}.tmp`;
        writeFileSync(tmp, script.createCachedData());
        renameSync(tmp, cachePath);
      } catch {
        // read-only install: run without a cache
      }
    });
  }
  const run = script.runInThisContext() as (e: object, r: NodeJS.Require, m: object, f: string, d: string) => void;
  const bundleModule: { exports: unknown } = { exports: {} };
  run(bundleModule.exports as object, load, bundleModule, bundle, dirname(bundle));
  return bundleModule.exports;
}
