/**
 * Session events: a session starts (a fresh delegation window) or the user submits a prompt (the previous
 * turn's notes dropped, a module command such as `s+` or `reset breaker` applied, an unregistered session
 * told how to register). Answered as additional context for the agent.
 */
import { shownError } from '../sanitize/shown.js';
import type { HookEvent } from '../core/tool-call.js';
import type { HostAdapter } from '../hosts/adapter.js';
import { lstatSync } from 'node:fs';
import { dropSessionNotes } from '../memory/learn.js';
import {
  breakerReset,
  breakerStatus,
  delegationReset,
  promptCommand,
  safemodeStatus,
  type ModuleState,
} from '../modules/machine.js';
import { moduleStateFile, readModuleState, updateModuleState, type ReadState } from '../modules/state-file.js';
import { findProjectRoot } from '../paths/canonical.js';
import { registrationPrompt } from '../session/messages.js';
import { sessionStateOf } from '../session/resolve.js';
import type { Locations } from '../util/locations.js';
import type { CheckResult, EnginePorts } from './ports.js';

type SessionEvent = Extract<HookEvent, { kind: 'prompt-submit' | 'session-start' }>;

/**
 * A session event: a new prompt (a module command typed as the whole prompt, the registration prompt for an
 * unregistered session) or a session start (a fresh delegation window). Answered as additional context,
 * never a gate. The entry point of this module.
 */
export async function answerSessionEvent(
  ports: EnginePorts,
  event: SessionEvent,
  adapter: HostAdapter,
  envRole: string | undefined,
): Promise<CheckResult> {
  // A new prompt: the previous turn's tool calls are all answered; notes left are declined asks (learn.ts).
  if (event.kind === 'prompt-submit') {
    try {
      dropSessionNotes(ports.where.runtimeDir, event.sessionId);
    } catch {
      // Best effort: a note left behind only costs a Node start per PostToolUse until it expires.
    }
  }
  // A session that starts afresh (startup, clear) starts a fresh delegation window.
  if (event.kind === 'session-start') resetDelegation(ports.where, event.sessionId);
  const moduleAnswer = event.kind === 'prompt-submit' ? await modulePrompt(ports, event) : undefined;
  if (moduleAnswer !== undefined) return adapter.renderContext(event, moduleAnswer);
  const state = sessionStateOf(ports.registry.get(event.sessionId), envRole);
  if (state.kind !== 'unregistered') return adapter.renderContext(event, undefined);
  const policy = await ports.policyFor(findProjectRoot(event.cwd));
  return adapter.renderContext(event, registrationPrompt(event.sessionId, policy));
}

/**
 * A module command typed as the human's whole prompt (s+, s-, s?, reset breaker / rb-, rb?): applied to the
 * signed state, answered as additional context. Only from this event — a tool's input never reaches here.
 */
async function modulePrompt(
  ports: Pick<EnginePorts, 'where' | 'policyFor'>,
  event: Extract<HookEvent, { kind: 'prompt-submit' }>,
): Promise<string | undefined> {
  const command = promptCommand(event.prompt);
  if (command === undefined) return undefined;
  const policy = await ports.policyFor(findProjectRoot(event.cwd));
  const { safemode, circuitBreaker } = policy.modules;
  // A prompt of "s+" means nothing special to a user who has not turned the module on.
  if (command.startsWith('safemode') && !safemode.enabled) return undefined;
  if (command.startsWith('breaker') && !circuitBreaker.enabled) return undefined;
  const where = ports.where;
  const id = event.sessionId;
  switch (command) {
    case 'safemode-on':
      return stateAnswer(
        updateModuleState(where, id, (s) => ({ ...s, safemode: true })),
        (s) => safemodeStatus(s),
      );
    case 'safemode-off':
      return stateAnswer(
        updateModuleState(where, id, (s) => ({ ...s, safemode: false }), { reset: true }),
        (s) => safemodeStatus(s),
      );
    case 'safemode-status':
      return stateAnswer(readModuleState(where, id), (s) => safemodeStatus(s));
    case 'breaker-reset':
      return stateAnswer(updateModuleState(where, id, breakerReset, { reset: true }), (s) =>
        breakerStatus(s, circuitBreaker.threshold),
      );
    case 'breaker-status':
      return stateAnswer(readModuleState(where, id), (s) => breakerStatus(s, circuitBreaker.threshold));
  }
}

function resetDelegation(where: Locations, sessionId: string): void {
  if (lstatSync(moduleStateFile(where.runtimeDir, sessionId), { throwIfNoEntry: false }) === undefined) return;
  const read = readModuleState(where, sessionId);
  if (read.kind !== 'valid' || read.state.delegation.calls.length === 0) return;
  try {
    updateModuleState(where, sessionId, delegationReset);
  } catch (error) {
    process.stderr.write(`hookwise: could not reset the delegation window: ${shownError(error)}\n`);
  }
}

function stateAnswer(read: ReadState, say: (state: ModuleState) => string): string {
  if (read.kind === 'tampered')
    return `hookwise module state for this session was tampered with (${read.why}); edits and writes stay blocked until the user resets it: hookwise breaker reset --session-id <id> (or the prompt \`reset breaker\`).`;
  return say(read.state);
}
