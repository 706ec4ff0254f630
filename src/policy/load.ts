/**
 * Policy for a project, via a compiled cache. A hook process must not parse YAML or compile globs on every
 * tool call: the compiled policy is kept as JSON in the runtime directory, keyed by the config files'
 * (mtime, size, inode) and the hookwise version, and rebuilt only when one of them changes.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { HookwiseError } from '../core/errors.js';
import { fnv1a64 } from '../util/hash.js';
import { ensurePrivateDir, writeFileAtomic } from '../util/fs-safe.js';
import type { Locations } from '../util/locations.js';
import type { CompiledPolicy } from './compiled.js';
import { configFiles } from './files.js';

import { VERSION } from '../core/version.js';

export { VERSION };
/** Bump whenever CompiledPolicy's shape changes, so a cache written by another build is never misread. */
export const POLICY_FORMAT = 4;

interface CacheFile {
  key: string;
  policy: CompiledPolicy;
}

function stamp(path: string): string {
  const s = statSync(path, { throwIfNoEntry: false });
  return s === undefined ? '-' : `${s.mtimeMs}:${s.size}:${s.ino}`;
}

export function policyCacheKey(projectRoot: string, where: Locations): string {
  const files = configFiles(projectRoot, where.userConfigDir);
  return [VERSION, POLICY_FORMAT, where.home, projectRoot, stamp(files.user), stamp(files.policy), stamp(files.roles)].join('|');
}

export function policyCachePath(projectRoot: string, where: Locations): string {
  return join(where.runtimeDir, 'cache', `policy-${fnv1a64(projectRoot)}.json`);
}

/** Throws CONFIG_INVALID (naming file:line:field of each problem) when the config has errors. */
export async function loadPolicy(projectRoot: string, where: Locations): Promise<CompiledPolicy> {
  const key = policyCacheKey(projectRoot, where);
  const cachePath = policyCachePath(projectRoot, where);
  const cached = readCache(cachePath);
  if (cached !== undefined && cached.key === key) return cached.policy;

  const { compileProjectPolicy } = await import('./build-policy.js');
  // A consistent read: an editor may be rewriting a file while it is read. Compile until the stamps seen
  // before and after agree, so a half-written file is never used (nor cached under the new stamps).
  for (let attempt = 1, before = key; ; attempt++) {
    const policy = compileProjectPolicy(projectRoot, where);
    const after = policyCacheKey(projectRoot, where);
    if (after === before) {
      ensurePrivateDir(join(where.runtimeDir, 'cache'));
      writeFileAtomic(cachePath, JSON.stringify({ key: after, policy } satisfies CacheFile));
      return policy;
    }
    if (attempt >= MAX_COMPILE_ATTEMPTS) {
      throw new HookwiseError('CONFIG_CHANGING', `hookwise config changed while it was being read, ${attempt} times in a row (${configFiles(projectRoot, where.userConfigDir).policy}); try again once it is saved`);
    }
    before = after;
  }
}

const MAX_COMPILE_ATTEMPTS = 5;

function readCache(path: string): CacheFile | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as CacheFile;
    return typeof parsed.key === 'string' && typeof parsed.policy === 'object' ? parsed : undefined;
  } catch {
    return undefined; // a damaged cache is only a cache: rebuild it from the sources
  }
}
