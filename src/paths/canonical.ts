/**
 * Path canonicalization, done once at the edge before any policy looks at a path: `~` expanded, relative
 * paths joined to the cwd, symlinks resolved by the kernel on the longest existing prefix, and `..`
 * collapsed only in the part that does not exist yet (where there can be no symlinks). So
 * `.claude/../../etc/passwd` is `/etc/passwd`, and a symlink `docs/link -> ../src` puts `docs/link/a.ts`
 * in `src/`.
 */
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import type { ResolvedPath } from '../core/tool-call.js';
import { statIfPresent } from '../util/fs-safe.js';

export interface PathContext {
  /** Canonical (real) project root. */
  projectRoot: string;
  home: string;
  cwd: string;
}

const realpath = realpathSync.native;

/** Linux's limits on a path and on one of its names, in bytes (macOS: 1024 and 255; a shorter limit only errs). */
const PATH_MAX = 4096;
const NAME_MAX = 255;

/**
 * Whether a path resolves. A path through a file (`/dev/null/x`: ENOTDIR) does not; shorter prefixes may.
 * Any other error leaves it unknown: the code, for `unknown`.
 */
function exists(path: string): boolean | string {
  try {
    return statIfPresent(path) !== undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR') return false;
    return typeof code === 'string' ? code : 'an unexpected error';
  }
}

/** Why the file system would not resolve a path, in words (never the path: it may be long, or hold a secret). */
function unknownBecause(code: string): string {
  switch (code) {
    case 'ENAMETOOLONG':
      return 'the name is too long for the file system';
    case 'ELOOP':
      return 'it runs through a loop of symbolic links';
    case 'EACCES':
    case 'EPERM':
      return 'a directory on its way cannot be searched';
    default:
      return `the file system answered ${code}`;
  }
}

export interface Canonical {
  path: string;
  /** Set when a prefix could not be resolved (see ResolvedPath.unknown): `path` is then partly lexical. */
  unknown?: string;
}

export function canonicalize(input: string, cwd: string, home: string): string {
  return canonicalPath(input, cwd, home).path;
}

/**
 * Total: never throws. A prefix the file system will not resolve (ENAMETOOLONG, ELOOP, EACCES) makes the
 * result unknown; the shorter prefixes still give the best lexical guess, for display only.
 */
export function canonicalPath(input: string, cwd: string, home: string, hops = 0): Canonical {
  let path = input;
  if (path === '~') path = home;
  else if (path.startsWith('~/')) path = home + path.slice(1);
  if (!path.startsWith('/')) path = `${cwd}/${path}`;
  const parts = path.split('/').filter((p) => p !== '' && p !== '.');
  let unknown: string | undefined;
  // The kernel refuses these whatever is on disk; only the prefixes it accepts are looked at.
  // (A UTF-16 unit is at most 3 UTF-8 bytes: short names and paths skip the byte count.)
  if (parts.some((p) => p.length * 3 > NAME_MAX && Buffer.byteLength(p) > NAME_MAX))
    unknown = unknownBecause('ENAMETOOLONG');
  let top = parts.length;
  for (let length = 0, k = 0; path.length * 3 >= PATH_MAX && k < parts.length; k++) {
    length += 1 + Buffer.byteLength(parts[k]!);
    if (length >= PATH_MAX) {
      unknown = unknownBecause('ENAMETOOLONG');
      top = k;
      break;
    }
  }
  const prefix = (k: number): string => '/' + parts.slice(0, k).join('/');
  /** Whether prefix k resolves; an error other than absence makes the whole path unknown. */
  const resolves = (k: number): boolean => {
    const found = exists(prefix(k));
    if (typeof found === 'string') unknown ??= unknownBecause(found);
    return found === true;
  };
  // The longest prefix the kernel resolves. Existence is monotonic in the prefix length: the usual path
  // (a file, or one about to be created) is found in at most three stats from the top, anything else by
  // bisection, so a path of thousands of components costs a few dozen stats, not thousands.
  let k = top;
  if (!resolves(k) && k > 0 && !resolves(--k) && k > 0 && !resolves(--k)) {
    let lo = 0;
    let hi = k - 1;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (resolves(mid)) lo = mid;
      else hi = mid - 1;
    }
    k = lo;
  }
  let base: string;
  try {
    base = realpath(prefix(k));
  } catch (error) {
    // Raced with a delete, or a component is not searchable: the rest is only a lexical guess.
    unknown ??= unknownBecause((error as NodeJS.ErrnoException).code ?? 'an unexpected error');
    base = prefix(k);
  }
  // The first name that does not resolve may be a dangling symbolic link: a write through it creates its
  // target, wherever that is, so the path continues from there (as the kernel would, within its hop limit).
  const next = k < parts.length && unknown === undefined ? danglingTarget(join(base, parts[k]!)) : undefined;
  if (next !== undefined) {
    if (hops >= MAX_SYMLINK_HOPS) return { path: join(base, ...parts.slice(k)), unknown: unknownBecause('ELOOP') };
    const target = posix.isAbsolute(next) ? next : posix.join(base, next);
    return canonicalPath([target, ...parts.slice(k + 1)].join('/'), cwd, home, hops + 1);
  }
  const out = base === '/' ? [] : base.split('/').slice(1);
  for (const part of parts.slice(k)) {
    if (part === '..') out.pop();
    else out.push(part);
  }
  const canonical = '/' + out.join('/');
  return unknown === undefined ? { path: canonical } : { path: canonical, unknown };
}

/** Linux follows at most 40 symbolic links while resolving one path. */
const MAX_SYMLINK_HOPS = 40;

/** Where a symbolic link that does not resolve points (as written in the link); undefined for anything else. */
function danglingTarget(path: string): string | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() === true ? readlinkSync(path) : undefined;
  } catch {
    return undefined; // not there after all, or not searchable: judged as the name it has
  }
}

export function resolvePath(input: string, ctx: PathContext): ResolvedPath {
  const { path: absolute, unknown } = canonicalPath(input, ctx.cwd, ctx.home);
  const root = ctx.projectRoot;
  let relative: string | null = null;
  if (absolute === root) relative = '';
  else if (root === '/') relative = absolute.slice(1);
  else if (absolute.startsWith(root + '/')) relative = absolute.slice(root.length + 1);
  return unknown === undefined ? { input, absolute, relative } : { input, absolute, relative, unknown };
}

/** The git root above `cwd` (a `.git` dir or file), else `cwd` itself; always canonical. */
export function findProjectRoot(cwd: string): string {
  let dir: string;
  try {
    dir = realpath(cwd);
  } catch {
    dir = canonicalize(cwd, '/', '/');
  }
  for (let current = dir; ; current = dirname(current)) {
    if (statIfPresent(join(current, '.git')) !== undefined) return current;
    if (current === '/') return dir;
  }
}

/**
 * The system temp directories, canonical: /tmp and /var/tmp, and os.tmpdir() ($TMPDIR) when it is one of
 * the usual places (under /tmp, /var/tmp, /dev/shm, or macOS's per-user /var/folders) — a TMPDIR pointing
 * at the home directory or a project must not turn those into scratch space. Resolved once per process
 * (realpath: on macOS /tmp is /private/tmp).
 */
let tempRootsCache: readonly string[] | undefined;

const USUAL_TEMP = /^\/(?:private\/)?(?:tmp|var\/tmp|var\/folders|dev\/shm)(?:\/|$)/;

export function tempRoots(): readonly string[] {
  if (tempRootsCache !== undefined) return tempRootsCache;
  const roots = new Set<string>();
  for (const dir of ['/tmp', '/var/tmp', tmpdir()]) {
    let real: string;
    try {
      real = realpath(dir);
    } catch {
      continue; // absent on this system
    }
    if (real !== '/' && USUAL_TEMP.test(real)) roots.add(real);
  }
  tempRootsCache = [...roots];
  return tempRootsCache;
}

/** A canonical path strictly inside a system temp directory (not the directory itself). */
export function inTempDir(absolute: string): boolean {
  return tempRoots().some((root) => absolute.startsWith(`${root}/`));
}
