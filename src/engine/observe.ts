/**
 * Observing a finished tool call (a post-tool event): what memory learns from the host's outcome (an ask
 * answered at the host's prompt, a walls hit of a confined run: memory/learn.ts), the files the call created
 * (session provenance: session/provenance.ts), and the circuit breaker's count of consecutive failures.
 * Nothing here gates: the tool already ran.
 */
import { lstatSync } from 'node:fs';
import { shownError } from '../sanitize/shown.js';
import type { HookEvent, ToolCall, ToolOutcome } from '../core/tool-call.js';
import type { HostAdapter } from '../hosts/adapter.js';
import { learnFromHost } from '../memory/learn.js';
import { breakerFailure, breakerSuccess, toolUseKey } from '../modules/machine.js';
import { errorSignature } from '../modules/signature.js';
import { moduleStateFile, readModuleState, updateModuleState } from '../modules/state-file.js';
import { findProjectRoot } from '../paths/canonical.js';
import { claimCallCreations, type ClaimedRun } from '../session/provenance.js';
import type { Locations } from '../util/locations.js';
import type { CheckResult, EnginePorts } from './ports.js';
import { settleBreakerRun } from './settle.js';

type PostToolEvent = Extract<HookEvent, { kind: 'post-tool' }>;

/** A post-tool event: learn from the outcome, then count it for the circuit breaker. The entry point of this module. */
export async function observeToolResult(
  ports: EnginePorts,
  event: PostToolEvent,
  adapter: HostAdapter,
  runsAfter: (runs: ClaimedRun[]) => CheckResult['after'],
): Promise<CheckResult> {
  const out = learnAfterTool(ports.where, event.call, adapter, event.outcome);
  const runs = recordCreatedAfterTool(ports.where, event.call, out);
  await breakerAfterTool(ports, event, out);
  const after = runsAfter(runs);
  if (after !== undefined) out.after = after;
  return out;
}

/**
 * The files the call created, if its pre-tool decision noted any (a failed run may have created some too).
 * A confined run's are read from its undo snapshot (git) after the answer: returned for that.
 */
function recordCreatedAfterTool(where: Locations, call: ToolCall, out: CheckResult): ClaimedRun[] {
  try {
    return claimCallCreations(where, call)?.runs ?? [];
  } catch (error) {
    out.stderr = `${out.stderr ?? ''}hookwise: could not record the files this call created: ${shownError(error)}\n`;
    return [];
  }
}

function learnAfterTool(
  where: Locations,
  call: ToolCall,
  adapter: HostAdapter,
  outcome: ToolOutcome | undefined,
): CheckResult {
  const out: CheckResult = adapter.renderNothing();
  try {
    learnFromHost(call, where, outcome);
  } catch (error) {
    out.stderr = `hookwise: could not learn from this call: ${shownError(error)}\n`;
  }
  return out;
}

/**
 * The circuit breaker's input: a failed run (PostToolUseFailure) counts, reduced to its error signature
 * (only the kind is stored, never the output); a successful one ends a run of consecutive failures. The
 * policy is loaded only for a failure, and the state file touched on success only when it exists. A
 * failure to record is reported on stderr; the tool already ran, so there is nothing to block.
 */
async function breakerAfterTool(
  ports: Pick<EnginePorts, 'where' | 'policyFor'>,
  event: PostToolEvent,
  out: CheckResult,
): Promise<void> {
  const { call } = event;
  const failed = event.outcome?.failed ?? event.hostEvent === 'PostToolUseFailure';
  try {
    if (!failed) {
      if (lstatSync(moduleStateFile(ports.where.runtimeDir, call.sessionId), { throwIfNoEntry: false }) === undefined)
        return;
      const read = readModuleState(ports.where, call.sessionId);
      if (read.kind === 'valid' && read.state.breaker.consecutive > 0)
        updateModuleState(ports.where, call.sessionId, breakerSuccess);
      return;
    }
    const policy = await ports.policyFor(findProjectRoot(call.cwd));
    const breaker = policy.modules.circuitBreaker;
    if (!breaker.enabled) return;
    // Without PostToolUse a success is seen in the transcript only (settle.ts): look before counting this failure.
    settleBreakerRun(ports.where, event);
    const signature = errorSignature(event.outcome?.output ?? '');
    const key = call.toolUseId === undefined ? undefined : toolUseKey(call.toolUseId);
    updateModuleState(ports.where, call.sessionId, (state) => breakerFailure(state, signature, breaker.threshold, key));
  } catch (error) {
    out.stderr = `${out.stderr ?? ''}hookwise: circuit breaker: could not record this result: ${shownError(error)}\n`;
  }
}
