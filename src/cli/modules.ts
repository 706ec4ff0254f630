/**
 * `hookwise safemode on|off|status` and `hookwise breaker reset|status`: a human's way to the signed module
 * state (modules/state-file.ts) outside the prompt. Turning safemode off and resetting the breaker replace a
 * tampered state file (a human decided); turning safemode on keeps a tampered one (it stays fail-closed).
 * An agent running these through its shell is asked first (the hookwise pack's self-change rule).
 */
import { HookwiseError } from '../core/errors.js';
import { breakerReset, breakerStatus, safemodeStatus } from '../modules/machine.js';
import { readModuleState, updateModuleState, type ReadState } from '../modules/state-file.js';
import { DEFAULT_BREAKER_THRESHOLD } from '../policy/config-types.js';
import { shownId } from '../sanitize/ids.js';
import { ensurePrivateDir } from '../util/fs-safe.js';
import { locations } from '../util/locations.js';

function answer(
  sessionId: string,
  read: ReadState,
  say: (read: Extract<ReadState, { state: unknown }>) => string,
): string {
  const id = shownId(sessionId);
  if (read.kind === 'tampered')
    return `hookwise: session ${id}: module state was tampered with (${read.why}); edits and writes are blocked until you reset it: hookwise breaker reset --session-id ${id}`;
  return `hookwise: session ${id}: ${say(read)}`;
}

export function safemodeCommand(action: string, sessionId: string): string {
  const where = locations();
  ensurePrivateDir(where.runtimeDir);
  const say = (read: Extract<ReadState, { state: unknown }>): string => safemodeStatus(read.state);
  switch (action) {
    case 'on':
      return answer(
        sessionId,
        updateModuleState(where, sessionId, (s) => ({ ...s, safemode: true })),
        say,
      );
    case 'off':
      return answer(
        sessionId,
        updateModuleState(where, sessionId, (s) => ({ ...s, safemode: false }), { reset: true }),
        say,
      );
    case 'status':
      return answer(sessionId, readModuleState(where, sessionId), say);
    default:
      throw new HookwiseError('USAGE', `hookwise safemode expects on, off or status, got "${action.slice(0, 40)}"`);
  }
}

export function breakerCommand(action: string, sessionId: string): string {
  const where = locations();
  ensurePrivateDir(where.runtimeDir);
  // The threshold is the project's (policy.yml); outside a project the status names the default.
  const say = (read: Extract<ReadState, { state: unknown }>): string =>
    breakerStatus(read.state, DEFAULT_BREAKER_THRESHOLD).replace(/; it trips at \d+\.$/, '.');
  switch (action) {
    case 'reset':
      return answer(sessionId, updateModuleState(where, sessionId, breakerReset, { reset: true }), say);
    case 'status':
      return answer(sessionId, readModuleState(where, sessionId), say);
    default:
      throw new HookwiseError('USAGE', `hookwise breaker expects reset or status, got "${action.slice(0, 40)}"`);
  }
}
