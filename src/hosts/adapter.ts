/** The contract every host adapter fulfils: the only code that knows a host's JSON. */
import type { Decision, Verdict } from '../core/decision.js';
import { HookwiseError } from '../core/errors.js';
import type { HookEvent, HostName } from '../core/tool-call.js';
export { pathsOf, toolShape, type ToolShape } from '../core/tools.js';

export interface HookOutput {
  /** Exactly what goes to stdout (may be empty: "no opinion"/"nothing to add"). */
  stdout: string;
  /** Text for stderr; the hosts show it on exit 2. */
  stderr?: string;
  exitCode: number;
  /**
   * The verdict the host was given, where the adapter answered differently from the decision (Gemini CLI's ask
   * without a prompt becomes a deny): the audit log records what happened, not what was meant.
   */
  delivered?: Verdict;
}

/** What the hook's own process asked for (its environment), passed explicitly so a daemon answers alike. */
export interface RenderOptions {
  /** HOOKWISE_GEMINI_ASK=ask: answer Gemini CLI's ask with its native prompt instead of a deny. */
  geminiAsk?: boolean;
}

export interface HostAdapter {
  name: HostName;
  /** Payload → event. Throws HookwiseError naming the missing or malformed field. */
  parse(payload: Record<string, unknown>): HookEvent;
  /** A gate decision for a pre-tool event. */
  renderDecision(event: HookEvent, decision: Decision, options?: RenderOptions): HookOutput;
  /** Extra context for the model on prompt-submit / session-start (undefined text = stay silent). */
  renderContext(event: HookEvent, text: string | undefined, userMessage?: string): HookOutput;
  /** Events we observe but do not gate (post-tool). */
  renderNothing(): HookOutput;
}

// ── payload field readers: every failure names the field ─────────────────────────────────────────────

export function requireString(payload: Record<string, unknown>, field: string, host: string): string {
  const value = payload[field];
  if (typeof value !== 'string' || value === '') {
    throw new HookwiseError(
      'INPUT_INVALID',
      `${host} hook payload: field "${field}" must be a non-empty string (got ${describeValue(value)})`,
    );
  }
  return value;
}

export function requireObject(payload: Record<string, unknown>, field: string, host: string): Record<string, unknown> {
  const value = payload[field];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new HookwiseError(
      'INPUT_INVALID',
      `${host} hook payload: field "${field}" must be an object (got ${describeValue(value)})`,
    );
  }
  return value as Record<string, unknown>;
}

export function optionalString(payload: Record<string, unknown>, field: string): string | undefined {
  const value = payload[field];
  return typeof value === 'string' ? value : undefined;
}

function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}

/** The tool input to run instead, for a confined allow of a pre-tool event: the agent's, with the command wrapped. */
export function confinedInput(event: HookEvent | undefined, decision: Decision): Record<string, unknown> | undefined {
  if (decision.confined === undefined || decision.verdict !== 'allow' || event?.kind !== 'pre-tool') return undefined;
  return { ...event.call.input, command: decision.confined.command };
}

export function json(value: unknown): string {
  return JSON.stringify(value) + '\n';
}
