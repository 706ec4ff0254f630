/**
 * The modules' state machines over the hook event stream, pure: a state and an event in, the next state
 * out. The engine reads the signed state at the edge (state-file.ts), applies one of these and writes the
 * result back; nothing here touches a file.
 */
import { fnv1a64 } from '../util/hash.js';
import type { ErrorSignature } from './signature.js';

/** What the state keeps of a tool call's id (BreakerState.failures): a hash. */
export function toolUseKey(toolUseId: string): string {
  return fnv1a64(`tool-use\u0000${toolUseId}`);
}

export interface BreakerState {
  /** Failures since the last success. */
  consecutive: number;
  /** Failures by signature since the last reset (a success does not clear them: the same error 3 times trips). */
  signatures: Partial<Record<ErrorSignature, number>>;
  /** Why it tripped; absent while it is closed. */
  tripped?: string;
  /**
   * The run's counted failures' tool calls (hashes of their tool_use ids), in the order they were counted, the
   * last MAX_RUN_FAILURES. A success ends the run when it is of a call made after one of them, and only those
   * made after the success stay counted (engine/settle.ts reads the order from the transcript): a success the
   * host wrote late is still found by a later settle, whatever was counted meanwhile. A failure counted
   * without an id empties the list (nothing before it can be placed).
   */
  failures?: string[];
}

/** Failures of one run the state keeps ids of: more than any threshold worth having (a longer run has tripped). */
export const MAX_RUN_FAILURES = 32;

/** A conductor's recent work-tool calls (epoch ms), for the delegation window. */
export interface DelegationState {
  calls: number[];
}

export interface ModuleState {
  safemode: boolean;
  breaker: BreakerState;
  delegation: DelegationState;
}

export const INITIAL_STATE: ModuleState = {
  safemode: false,
  breaker: { consecutive: 0, signatures: {} },
  delegation: { calls: [] },
};

/** Calls kept at most: the window only ever needs deny_at of them (bounded work per call, whatever the rate). */
export const MAX_DELEGATION_CALLS = 100;

/** The conductor's work-tool calls inside the sliding window ending now. */
export function delegationCount(state: ModuleState, now: number, windowMs: number): number {
  return state.delegation.calls.filter((t) => t > now - windowMs && t <= now).length;
}

/** One more work-tool call by a conductor: calls outside the window are dropped. */
export function delegationWork(state: ModuleState, now: number, windowMs: number): ModuleState {
  const calls = [...state.delegation.calls.filter((t) => t > now - windowMs && t <= now), now].slice(
    -MAX_DELEGATION_CALLS,
  );
  return { ...state, delegation: { calls } };
}

/** The conductor delegated (a Task/Agent call with a subagent type), or its session restarted: a fresh window. */
export function delegationReset(state: ModuleState): ModuleState {
  return state.delegation.calls.length === 0 ? state : { ...state, delegation: { calls: [] } };
}

export function breakerFailure(
  state: ModuleState,
  signature: ErrorSignature,
  threshold: number,
  failure?: string,
): ModuleState {
  const consecutive = state.breaker.consecutive + 1;
  const same = (state.breaker.signatures[signature] ?? 0) + 1;
  const signatures = { ...state.breaker.signatures, [signature]: same };
  const tripped =
    state.breaker.tripped ??
    (consecutive >= threshold
      ? `${consecutive} consecutive tool failures (the last: ${signature})`
      : same >= threshold
        ? `the same error (${signature}) ${same} times`
        : undefined);
  const failures = failure === undefined ? [] : [...(state.breaker.failures ?? []), failure].slice(-MAX_RUN_FAILURES);
  return {
    ...state,
    breaker: {
      consecutive,
      signatures,
      ...(tripped === undefined ? {} : { tripped }),
      ...(failures.length === 0 ? {} : { failures }),
    },
  };
}

/** A success breaks a run of failures; a tripped breaker stays tripped until a human resets it. */
export function breakerSuccess(state: ModuleState): ModuleState {
  if (state.breaker.consecutive === 0) return state;
  const { failures: _ended, ...breaker } = state.breaker;
  return { ...state, breaker: { ...breaker, consecutive: 0 } };
}

/**
 * A success placed among the run's failures (engine/settle.ts, from the transcript): `madeAfter` holds those
 * of the run's failures whose calls came after it. The run goes on with only those; with none it ends. The
 * failures counted before the listed ones (beyond MAX_RUN_FAILURES, or before one without an id) were counted
 * before every listed one, so a success after a listed one ends them too.
 */
export function breakerSuccessBefore(state: ModuleState, madeAfter: ReadonlySet<string>): ModuleState {
  const failures = state.breaker.failures ?? [];
  const left = failures.filter((f) => madeAfter.has(f));
  if (left.length === 0) return breakerSuccess(state);
  if (left.length >= state.breaker.consecutive) return state;
  return { ...state, breaker: { ...state.breaker, consecutive: left.length, failures: left } };
}

export function breakerReset(state: ModuleState): ModuleState {
  return { ...state, breaker: { consecutive: 0, signatures: {} } };
}

/** What a human's prompt asks of the modules: the whole prompt, trimmed, case-insensitive, and nothing else. */
export type PromptCommand = 'safemode-on' | 'safemode-off' | 'safemode-status' | 'breaker-reset' | 'breaker-status';

const PROMPT_COMMANDS: Record<string, PromptCommand> = {
  's+': 'safemode-on',
  's-': 'safemode-off',
  's?': 'safemode-status',
  'reset breaker': 'breaker-reset',
  'rb-': 'breaker-reset',
  'rb?': 'breaker-status',
};

export function promptCommand(prompt: string): PromptCommand | undefined {
  // The whole prompt only: "s+" inside a sentence (or pasted text) is not a command.
  return Object.hasOwn(PROMPT_COMMANDS, prompt.trim().toLowerCase())
    ? PROMPT_COMMANDS[prompt.trim().toLowerCase()]
    : undefined;
}

export function safemodeStatus(state: ModuleState): string {
  return state.safemode
    ? 'hookwise safemode is ON for this session: every edit and write is denied. The user lifts it with the prompt `s-` (or `hookwise safemode off --session-id <id>`).'
    : 'hookwise safemode is off for this session. The user turns it on with the prompt `s+`.';
}

export function breakerStatus(state: ModuleState, threshold: number): string {
  const b = state.breaker;
  if (b.tripped !== undefined)
    return `hookwise circuit breaker is TRIPPED for this session (${b.tripped}): edits and writes are denied until the user resets it with the prompt \`reset breaker\` or \`rb-\` (or \`hookwise breaker reset --session-id <id>\`).`;
  const counts = Object.entries(b.signatures)
    .map(([s, n]) => `${s} ×${n}`)
    .join(', ');
  return `hookwise circuit breaker is closed for this session: ${b.consecutive} consecutive failure(s)${counts === '' ? '' : ` (${counts})`}; it trips at ${threshold}.`;
}
