/**
 * The `hookwise` executable: loads the hot-path bundle (dist/hook.cjs) through a V8 code cache.
 *
 * Why: every tool call starts a fresh process, and Node 20 has no compile cache for user code, so each
 * call would re-parse and lazily re-compile the same functions (~3 ms). V8 can serialize compiled code;
 * we keep it next to the bundle, made by a `check` run (so it holds the functions a decision needs) and
 * written atomically (temp file + rename) because concurrent hook processes read it. V8 checks the cache
 * against the source and its own version/flags and rejects a stale one; we then run uncached and rewrite it.
 * Best effort: an unwritable install directory just means no cache.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';

declare const __dirname: string;

const bundle = join(__dirname, 'hook.cjs');
const cachePath = join(__dirname, `hook.${process.version}.${process.arch}.v8cache`);
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
const needsCache = (cached === undefined || script.cachedDataRejected === true) && process.argv[2] === 'check';
if (needsCache) {
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
const hookModule = { exports: {} };
run(hookModule.exports, require, hookModule, bundle, dirname(bundle));
