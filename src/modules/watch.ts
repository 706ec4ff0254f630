/**
 * The breaker's wake-up marker. The plugin wrapper (plugin/bin/hookwise-hook, `learn` mode) starts Node for a
 * PostToolUse/PostToolUseFailure only when hookwise left something to do; with a circuit breaker on, every
 * tool result of the session is something to do (a failure counts, a success ends a run). The gate leaves
 * this empty marker for the session — named like the pending notes' directory (memory/learn.ts), so the
 * wrapper finds it from CLAUDE_CODE_SESSION_ID without reading the payload. A planted marker only costs
 * Node starts; a missing one only means results are not counted (the breaker cannot trip: documented).
 */
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { sessionPendingDir } from '../memory/learn.js';
import { ensurePrivateDir, writeFileAtomic } from '../util/fs-safe.js';

export function watchMarker(runtimeDir: string, sessionId: string): string {
  return join(sessionPendingDir(runtimeDir, sessionId), 'watch-results.json');
}

export function watchFailures(runtimeDir: string, sessionId: string): void {
  const marker = watchMarker(runtimeDir, sessionId);
  if (lstatSync(marker, { throwIfNoEntry: false }) !== undefined) return;
  ensurePrivateDir(join(marker, '..'));
  writeFileAtomic(marker, '', { mode: 0o600 });
}
