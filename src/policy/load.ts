/**
 * Policy for a project, via a compiled cache. A hook process must not parse YAML or compile globs on every
 * tool call: the compiled policy is kept as JSON in the runtime directory, keyed by the config files'
 * (mtime, size, inode) and the hookwise version, and rebuilt only when one of them changes.
 *
 * The cache decides verdicts, so it is not trusted blindly: its name is keyed by a per-user random salt (a
 * file planted under a predictable name is never looked at), it is read only when it is a regular file of
 * this user that nobody else may write, its header carries a salted checksum of its key (a cache made for
 * another user or salt never matches), and its body is mirrored (util/mirrored.ts explains why not a hash:
 * a JS hash over the ≈ 55 KB body costs 3–8 ms in a cold process, the mirror a memcmp): a damaged,
 * truncated or hand-edited cache is rebuilt from the sources, never used.
 *
 * The sources are read consistently: a config file rewritten in place while it is read (an editor saving)
 * is compiled again until its stamp holds still, and an empty file, or one cut short of the last version
 * compiled, is waited for briefly and otherwise refused (fail closed, with a message) — never compiled as
 * "no policy".
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { HookwiseError } from '../core/errors.js';
import { fnv1a64 } from '../util/hash.js';
import {
  checkPrivateDir,
  ensurePrivateDir,
  readOwnedFile,
  statIfPresent,
  sleepSync,
  writeFileAtomic,
} from '../util/fs-safe.js';
import type { Locations } from '../util/locations.js';
import { readSalt, userSalt } from '../util/salt.js';
import type { CompiledPolicy } from './compiled.js';
import { configFiles, type ConfigFiles } from './files.js';

import { VERSION } from '../core/version.js';

export { VERSION };
/** Bump whenever CompiledPolicy's shape changes, so a cache written by another build is never misread. */
export const POLICY_FORMAT = 11;

/** The first line of a cache file; the compiled policy's JSON follows it. */
interface CacheHeader {
  format: number;
  key: string;
  /** Salted checksum of the key (cacheChecksum). */
  sum: string;
  /** Each config file's shape when it was compiled: a later read of a shorter, unterminated file is suspect. */
  sources: Partial<Record<keyof ConfigFiles, SourceShape>>;
}

interface SourceShape {
  size: number;
  /** Ends with a newline (a file an editor or hookwise init saved whole does). */
  newline: boolean;
}

interface CacheFile {
  header: CacheHeader;
  policy: CompiledPolicy;
}

function stamp(path: string): string {
  // A file where a directory on the way should be (`.hookwise` as the empty mount point a confined command
  // leaves until its clean-up runs) means the file cannot exist: absent, as loadConfig reads it.
  const s = statIfPresent(path);
  return s === undefined ? '-' : `${s.mtimeMs}:${s.size}:${s.ino}`;
}

export function policyCacheKey(projectRoot: string, where: Locations): string {
  const files = configFiles(projectRoot, where.userConfigDir);
  return [
    VERSION,
    POLICY_FORMAT,
    where.home,
    projectRoot,
    stamp(files.user),
    stamp(files.policy),
    stamp(files.roles),
  ].join('|');
}

const cacheDir = (where: Locations): string => join(where.runtimeDir, 'cache');

/** The cache's name for a project: unpredictable without the user's salt. */
export function policyCachePath(projectRoot: string, where: Locations, salt: string): string {
  return join(cacheDir(where), `policy-${fnv1a64(`${salt}\u0000${projectRoot}`)}.json`);
}

/** The salted checksum a cache file's header carries over its key. */
export function cacheChecksum(salt: string, key: string): string {
  return fnv1a64(`${salt}\u0000${key}`);
}

/** Throws CONFIG_INVALID (naming file:line:field of each problem) when the config has errors. */
export async function loadPolicy(projectRoot: string, where: Locations): Promise<CompiledPolicy> {
  const key = policyCacheKey(projectRoot, where);
  // A cache directory that is not ours (RUNTIME_DIR_UNSAFE) fails the call closed, naming it.
  const salt = checkPrivateDir(cacheDir(where)) ? readSalt(where.runtimeDir) : undefined;
  const cached = salt === undefined ? undefined : readCache(policyCachePath(projectRoot, where, salt), salt);
  if (cached !== undefined && cached.header.key === key) return cached.policy;

  const { compileProjectPolicy } = await import('./build-policy.js');
  const files = configFiles(projectRoot, where.userConfigDir);
  // A consistent read: an editor may be rewriting a file while it is read. Compile until the stamps seen
  // before and after agree, so a half-written file is never used (nor cached under the new stamps).
  for (let attempt = 1, before = key; ; attempt++) {
    const shapes = sourceShapes(files);
    const suspect = suspectSource(files, shapes, cached?.header.sources ?? {});
    let policy: CompiledPolicy | undefined;
    let failure: unknown;
    if (suspect === undefined) {
      try {
        policy = compileProjectPolicy(projectRoot, where);
      } catch (error) {
        failure = error;
      }
    }
    const after = policyCacheKey(projectRoot, where);
    if (after === before && policy !== undefined) {
      cachePolicy(projectRoot, where, salt, { format: POLICY_FORMAT, key: after, sum: '', sources: shapes }, policy);
      return policy;
    }
    // Errors in a file that holds still are the file's: report them at once.
    if (after === before && failure !== undefined) throw failure;
    if (attempt >= MAX_COMPILE_ATTEMPTS) {
      if (suspect !== undefined) throw new HookwiseError('CONFIG_INVALID', suspect);
      throw new HookwiseError(
        'CONFIG_CHANGING',
        `hookwise config changed while it was being read, ${attempt} times in a row (${files.policy}); try again once it is saved`,
      );
    }
    // A file that is empty or cut short may be an editor between truncating and writing: give it a moment.
    if (after === before) sleepSync(SUSPECT_WAIT_MS);
    before = after;
  }
}

const CACHE_WRITE_FAILURES: Readonly<Record<string, string>> = {
  EROFS: 'it is mounted without write access, as inside the walls',
  ENOENT: 'it cannot be made',
  EACCES: 'no permission',
  EPERM: 'no permission',
  ENOSPC: 'the disk is full',
};

/** Said once per process: every later call compiles again, and says nothing more. */
let toldUncached = false;

/**
 * Keep the compiled policy for the next process. A cache that cannot be written (a read-only runtime
 * directory: `hookwise explain` run inside the walls, a full disk) costs the next call a compile, nothing
 * else: said once on stderr, and the policy is used as compiled. A directory that is not ours still fails
 * the call closed (RUNTIME_DIR_UNSAFE).
 */
function cachePolicy(
  projectRoot: string,
  where: Locations,
  known: string | undefined,
  header: CacheHeader,
  policy: CompiledPolicy,
): void {
  try {
    ensurePrivateDir(cacheDir(where));
    const salt = known ?? userSalt(where.runtimeDir);
    writeCache(policyCachePath(projectRoot, where, salt), salt, header, policy);
  } catch (error) {
    if (error instanceof HookwiseError || typeof (error as NodeJS.ErrnoException).code !== 'string') throw error;
    if (toldUncached) return;
    toldUncached = true;
    // Not the system's own wording: a confined run's output that says "read-only file system" is a wall hit.
    const code = (error as NodeJS.ErrnoException).code!;
    const why = CACHE_WRITE_FAILURES[code] ?? code;
    process.stderr.write(
      `hookwise: the policy cache in ${cacheDir(where)} cannot be written (${why}): going on without it (each call compiles the policy)\n`,
    );
  }
}

const MAX_COMPILE_ATTEMPTS = 8;
const SUSPECT_WAIT_MS = 15;

function sourceShapes(files: ConfigFiles): CacheHeader['sources'] {
  const shapes: CacheHeader['sources'] = {};
  for (const name of ['user', 'policy', 'roles'] as const) {
    const shape = shapeOf(files[name]);
    if (shape !== undefined) shapes[name] = shape;
  }
  return shapes;
}

function shapeOf(path: string): SourceShape | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY);
  } catch {
    return undefined; // absent (or unreadable: the compiler reports that)
  }
  try {
    const size = fstatSync(fd).size;
    const last = Buffer.alloc(1);
    return { size, newline: size > 0 && readSync(fd, last, 0, 1, size - 1) === 1 && last[0] === 0x0a };
  } finally {
    closeSync(fd);
  }
}

/** Why a config file looks like a write in progress rather than a config, or undefined. */
function suspectSource(
  files: ConfigFiles,
  now: CacheHeader['sources'],
  lastGood: CacheHeader['sources'],
): string | undefined {
  for (const name of ['user', 'policy', 'roles'] as const) {
    const shape = now[name];
    if (shape === undefined) continue;
    if (shape.size === 0) {
      return `${files[name]} is empty (0 bytes): it may be being saved; if you mean it to say nothing, write "{}" in it or delete it`;
    }
    const before = lastGood[name];
    if (!shape.newline && before !== undefined && shape.size < before.size) {
      return `${files[name]} is shorter than the last version hookwise read (${shape.size} of ${before.size} bytes) and does not end with a newline: it looks cut short (a save in progress, a full disk?). If it is what you mean, end it with a newline`;
    }
  }
  return undefined;
}

// ── the cache file ───────────────────────────────────────────────────────────────────────────────────────

/** `header\nbody\nbody`: the body twice, so a damaged copy is seen (a memcmp, not a hash: see above). */
function writeCache(path: string, salt: string, header: CacheHeader, policy: CompiledPolicy): void {
  const body = JSON.stringify(policy);
  const line = JSON.stringify({ ...header, sum: cacheChecksum(salt, header.key) } satisfies CacheHeader);
  writeFileAtomic(path, `${line}\n${body}\n${body}`, { mode: 0o600 });
}

/** The cache, when it is ours and whole; undefined (rebuild) otherwise. */
function readCache(path: string, salt: string): CacheFile | undefined {
  let bytes: Buffer | undefined;
  try {
    bytes = readOwnedFile(path, 'the compiled policy cache');
  } catch (error) {
    // Not ours (planted, a link, another user's): ignored, and replaced by the rebuilt cache's rename.
    if (error instanceof HookwiseError) return undefined;
    throw error;
  }
  if (bytes === undefined) return undefined;
  const newline = bytes.indexOf(0x0a);
  const rest = bytes.length - newline - 1;
  if (newline < 0 || rest % 2 !== 1) return undefined;
  const half = (rest - 1) / 2;
  const body = bytes.subarray(newline + 1, newline + 1 + half);
  if (bytes[newline + 1 + half] !== 0x0a || !body.equals(bytes.subarray(newline + 2 + half))) return undefined;
  try {
    const header = JSON.parse(bytes.toString('utf8', 0, newline)) as CacheHeader;
    if (
      header.format !== POLICY_FORMAT ||
      typeof header.key !== 'string' ||
      header.sum !== cacheChecksum(salt, header.key)
    )
      return undefined;
    return { header, policy: JSON.parse(body.toString('utf8')) as CompiledPolicy };
  } catch {
    return undefined; // a damaged cache is only a cache: rebuild it from the sources
  }
}
