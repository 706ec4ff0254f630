/**
 * The edge of decision memory: which scopes apply to a call (project, user, every org under the user's
 * config, the session) and loading them into a MemoryView. Problems (corrupt lines) are returned, never
 * thrown: a bad line costs that line, not the rest of memory.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadScope, type LoadedRecord, type StoreProblem, type StoreTarget } from './store.js';
import { MemoryView } from './view.js';

export interface MemorySources {
  projectRoot: string;
  userConfigDir: string;
  runtimeDir: string;
  /** The session whose session-scope records apply (none for `rules list` without --session-id). */
  sessionId?: string;
}

/** The organisations with a rules directory under the user's config (`org/<name>/rules`). */
export function orgNames(userConfigDir: string): string[] {
  try {
    return readdirSync(join(userConfigDir, 'org'), { withFileTypes: true })
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
  const targets: StoreTarget[] = orgNames(src.userConfigDir).map((org) => ({ scope: 'org', userConfigDir: src.userConfigDir, org }));
  targets.push({ scope: 'user', userConfigDir: src.userConfigDir });
  targets.push({ scope: 'project', projectRoot: src.projectRoot });
  if (src.sessionId !== undefined) targets.push({ scope: 'session', runtimeDir: src.runtimeDir, sessionId: src.sessionId });
  return targets;
}

export interface LoadedMemory {
  records: LoadedRecord[];
  problems: StoreProblem[];
}

export function loadRecords(src: MemorySources): LoadedMemory {
  const records: LoadedRecord[] = [];
  const problems: StoreProblem[] = [];
  for (const target of memoryTargets(src)) {
    const load = loadScope(target);
    for (const r of load.records) records.push(r);
    for (const p of load.problems) problems.push(p);
  }
  return { records, problems };
}

export function loadMemory(src: MemorySources, jaccardThreshold: number): { view: MemoryView; problems: StoreProblem[] } {
  const { records, problems } = loadRecords(src);
  return { view: new MemoryView(records, jaccardThreshold), problems };
}
