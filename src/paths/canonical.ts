/**
 * Path canonicalization, done once at the edge before any policy looks at a path: `~` expanded, relative
 * paths joined to the cwd, symlinks resolved by the kernel on the longest existing prefix, and `..`
 * collapsed only in the part that does not exist yet (where there can be no symlinks). So
 * `.claude/../../etc/passwd` is `/etc/passwd`, and a symlink `docs/link -> ../src` puts `docs/link/a.ts`
 * in `src/`.
 */
import { realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ResolvedPath } from '../core/tool-call.js';
import { statIfPresent } from '../util/fs-safe.js';

export interface PathContext {
  /** Canonical (real) project root. */
  projectRoot: string;
  home: string;
  cwd: string;
}

const realpath = realpathSync.native;

/** Whether a path resolves. A path through a file (`/dev/null/x`: ENOTDIR) does not; shorter prefixes may. */
function exists(path: string): boolean {
  try {
    return statIfPresent(path) !== undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') return false;
    throw error;
  }
}

export function canonicalize(input: string, cwd: string, home: string): string {
  let path = input;
  if (path === '~') path = home;
  else if (path.startsWith('~/')) path = home + path.slice(1);
  if (!path.startsWith('/')) path = `${cwd}/${path}`;
  const parts = path.split('/').filter((p) => p !== '' && p !== '.');
  // Longest prefix the kernel can resolve (existence is monotonic in the prefix length).
  for (let k = parts.length; k >= 0; k--) {
    const prefix = '/' + parts.slice(0, k).join('/');
    // stat first: a throwing realpath (the usual case for a file about to be created) costs ~15 µs.
    if (!exists(prefix)) continue;
    let base: string;
    try {
      base = realpath(prefix);
    } catch {
      continue; // raced with a delete, or a component is not searchable
    }
    const out = base === '/' ? [] : base.split('/').slice(1);
    for (const part of parts.slice(k)) {
      if (part === '..') out.pop();
      else out.push(part);
    }
    return '/' + out.join('/');
  }
  return '/' + parts.join('/'); // unreachable: "/" always resolves
}

export function resolvePath(input: string, ctx: PathContext): ResolvedPath {
  const absolute = canonicalize(input, ctx.cwd, ctx.home);
  const root = ctx.projectRoot;
  let relative: string | null = null;
  if (absolute === root) relative = '';
  else if (root === '/') relative = absolute.slice(1);
  else if (absolute.startsWith(root + '/')) relative = absolute.slice(root.length + 1);
  return { input, absolute, relative };
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
