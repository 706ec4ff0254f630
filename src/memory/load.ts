/**
 * The edge of decision memory: which scopes apply to a call (project, user, every org under the user's
 * config, the session) and loading them into a MemoryView. Problems (corrupt lines) are returned, never
 * thrown: a bad line costs that line, not the rest of memory.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadScope, type LoadedRecord, type StoreProblem, type StoreTarget } from './store.js';
import { loadIndexed, readScopes, type IndexedLoad } from './index-file.js';
import { MemoryView, RawRecordSet, type RecordSet } from './view.js';
import { statIfPresent } from '../util/fs-safe.js';

export interface MemorySources {
  projectRoot: string;
  /** For folding `~` in similarity tokens (loadMemory). */
  home?: string;
  userConfigDir: string;
  runtimeDir: string;
  /** The session whose session-scope records apply (none for `rules list` without --session-id). */
  sessionId?: string;
}

/** The organisations with a rules directory under the user's config (`org/<name>/rules`). */
export function orgNames(userConfigDir: string): string[] {
  const dir = join(userConfigDir, 'org');
  // Most users have no org scope: a stat says so without the failed listing's exception (a stack trace each).
  if (statIfPresent(dir) === undefined) return [];
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/** Every scope that applies, most authoritative first. */
export function memoryTargets(src: MemorySources): StoreTarget[] {
  const targets: StoreTarget[] = orgNames(src.userConfigDir).map((org) => ({
    scope: 'org',
    userConfigDir: src.userConfigDir,
    org,
  }));
  targets.push({ scope: 'user', userConfigDir: src.userConfigDir });
  targets.push({ scope: 'project', projectRoot: src.projectRoot });
  if (src.sessionId !== undefined)
    targets.push({ scope: 'session', runtimeDir: src.runtimeDir, sessionId: src.sessionId });
  return targets;
}

export interface LoadedMemory {
  records: LoadedRecord[];
  problems: StoreProblem[];
}

/**
 * Every scope's records, resolved per scope as `loadScope` resolves them (for `rules list` and the other
 * commands that show or check what is remembered). Read lean: a file is parsed a piece at a time and its
 * bytes dropped once parsed (memory/index-file.ts `readScopes`).
 */
export function loadRecords(src: MemorySources): LoadedMemory {
  const { records, problems } = readScopes(memoryTargets(src), { keep: false });
  return { records, problems };
}

export interface MemoryLoad {
  view: MemoryView;
  problems: StoreProblem[];
  /** How the org/user/project records were read (see memory/index-file.ts). */
  via: IndexedLoad['via'];
}

/**
 * The view a call is judged with: org, user and project scopes through the compiled index (or parsed, for
 * small stores), plus the session scope parsed directly (small, and it changes within a session).
 */
export function loadMemory(
  src: MemorySources,
  jaccardThreshold: number,
  options: { minRecords?: number } = {},
): MemoryLoad {
  const targets = memoryTargets(src);
  const shared = targets.filter((t) => t.scope !== 'session');
  const indexed = loadIndexed(shared, { projectRoot: src.projectRoot, home: src.home ?? '' }, src.runtimeDir, options);
  const sets: RecordSet[] = [indexed.set];
  const problems = [...indexed.problems];
  for (const target of targets) {
    if (target.scope !== 'session') continue;
    const load = loadScope(target);
    if (load.records.length > 0) sets.push(new RawRecordSet(load.records));
    problems.push(...load.problems);
  }
  return { view: new MemoryView(sets, jaccardThreshold), problems, via: indexed.via };
}
