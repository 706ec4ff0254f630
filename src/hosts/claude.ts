/**
 * Claude Code hooks (spec: shared/spec/hook-protocols.md §1). PreToolUse answers through
 * hookSpecificOutput.permissionDecision; UserPromptSubmit and SessionStart add context.
 */
import type { Decision } from '../core/decision.js';
import { HookwiseError } from '../core/errors.js';
import { formatReason } from '../core/reason.js';
import type { HookEvent, HostName, ToolCall, ToolOutcome } from '../core/tool-call.js';
import type { HookOutput, HostAdapter } from './adapter.js';
import { confinedInput, json, optionalString, pathsOf, requireObject, requireString, toolShape } from './adapter.js';

export const CLAUDE_EVENTS = {
  PreToolUse: 'pre-tool',
  PostToolUse: 'post-tool',
  PostToolUseFailure: 'post-tool',
  UserPromptSubmit: 'prompt-submit',
  SessionStart: 'session-start',
  Stop: 'turn-end',
  SessionEnd: 'turn-end',
} as const;

/** Shared by Claude and Codex: Codex hooks speak Claude's JSON. */
export function parseClaudeStyle(payload: Record<string, unknown>, host: HostName, label: string): HookEvent {
  const hostEvent = requireString(payload, 'hook_event_name', label);
  const sessionId = requireString(payload, 'session_id', label);
  const cwd = requireString(payload, 'cwd', label);
  const transcriptPath = optionalString(payload, 'transcript_path');
  const base = { host, hostEvent, sessionId, cwd, ...(transcriptPath === undefined ? {} : { transcriptPath }) };
  switch (hostEvent) {
    case 'PreToolUse':
      return { ...base, kind: 'pre-tool', call: claudeToolCall(payload, host, label, sessionId, cwd) };
    case 'PostToolUse':
    case 'PostToolUseFailure': {
      const event: HookEvent = {
        ...base,
        kind: 'post-tool',
        call: claudeToolCall(payload, host, label, sessionId, cwd),
      };
      const outcome = toolOutcome(payload, hostEvent === 'PostToolUseFailure');
      return outcome === undefined ? event : { ...event, outcome };
    }
    case 'UserPromptSubmit':
      return { ...base, kind: 'prompt-submit', prompt: optionalString(payload, 'prompt') ?? '' };
    case 'SessionStart':
      return { ...base, kind: 'session-start', source: optionalString(payload, 'source') ?? 'startup' };
    case 'Stop':
    case 'SessionEnd':
      return { ...base, kind: 'turn-end', sessionOver: hostEvent === 'SessionEnd' };
    default:
      throw new HookwiseError(
        'UNKNOWN_EVENT',
        `${label} hook event "${hostEvent}" is not one hookwise handles (expected ${Object.keys(CLAUDE_EVENTS).join(', ')})`,
      );
  }
}

function claudeToolCall(
  payload: Record<string, unknown>,
  host: HostName,
  label: string,
  sessionId: string,
  cwd: string,
): ToolCall {
  const hostTool = requireString(payload, 'tool_name', label);
  const input = requireObject(payload, 'tool_input', label);
  const shape = toolShape(hostTool);
  const call: ToolCall = {
    host,
    sessionId,
    cwd,
    hostTool,
    tool: shape.tool,
    action: shape.action,
    paths: pathsOf(shape, input, cwd),
    input,
  };
  const toolUseId = optionalString(payload, 'tool_use_id');
  if (toolUseId !== undefined) call.toolUseId = toolUseId;
  const permissionMode = optionalString(payload, 'permission_mode');
  if (permissionMode !== undefined) call.permissionMode = permissionMode;
  const agentId = optionalString(payload, 'agent_id');
  if (agentId !== undefined && agentId !== '') call.agentId = agentId;
  const agentType = optionalString(payload, 'agent_type');
  if (agentType !== undefined && agentType !== '') call.agentType = agentType;
  const transcriptPath = optionalString(payload, 'transcript_path');
  if (transcriptPath !== undefined && transcriptPath !== '') call.transcriptPath = transcriptPath;
  return call;
}

/**
 * What ran, as the host reports it: PostToolUseFailure's `error` (Claude Code 2.1.330: "Exit code N\n" then
 * the command's output), or PostToolUse's `tool_response` — Bash's `{stdout, stderr}` (stderr is often
 * merged into stdout already), or a plain string. Anything else: no outcome (nothing to learn from).
 */
/** A tool result reported as text that says it failed: Claude Code's "Exit code N" header, or a tool error. */
const FAILED_TEXT = /^(?:Exit code [1-9]\d*\b|Error: |<tool_use_error>)/;

function toolOutcome(payload: Record<string, unknown>, failed: boolean): ToolOutcome | undefined {
  if (failed) {
    const error = payload.error;
    return typeof error === 'string' ? { failed, output: error } : undefined;
  }
  const response = payload.tool_response;
  if (typeof response === 'string') return { failed: FAILED_TEXT.test(response), output: response };
  if (typeof response !== 'object' || response === null) return undefined;
  const r = response as Record<string, unknown>;
  const parts = ['stdout', 'stderr', 'error'].map((k) => r[k]).filter((v): v is string => typeof v === 'string');
  // A failed result reported as a plain PostToolUse (older hosts, MCP and other tools): the breaker counts it too.
  const exit = [r.exit_code, r.exitCode, r.returncode].find((v) => typeof v === 'number');
  const failedResult =
    r.is_error === true ||
    r.isError === true ||
    r.success === false ||
    (typeof exit === 'number' && exit !== 0) ||
    (typeof r.error === 'string' && r.error !== '');
  if (parts.length === 0) return failedResult ? { failed: true, output: '' } : undefined;
  return { failed: failedResult, output: parts.join('\n') };
}

/**
 * A confined allow (issue 19) rewrites the call: `updatedInput` replaces the whole tool input, so it is the
 * agent's input with the command swapped for the wrapped one (Claude Code and Codex alike). The reason of an
 * allow reaches the user only, so the agent learns that the command runs confined, and what the walls are,
 * from `additionalContext` (Claude Code 2.1.330 adds it next to the tool result; tests/e2e/confine.test.ts).
 */
export function renderClaudeDecision(decision: Decision, event?: HookEvent): HookOutput {
  const updated = confinedInput(event, decision);
  const reason = formatReason(decision);
  const context = [updated === undefined ? undefined : reason, decision.context]
    .filter((t) => t !== undefined)
    .join('\n\n');
  return {
    stdout: json({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: decision.verdict,
        permissionDecisionReason: reason,
        ...(updated === undefined ? {} : { updatedInput: updated }),
        ...(context === '' ? {} : { additionalContext: context }),
      },
    }),
    exitCode: 0,
  };
}

export function renderClaudeContext(event: HookEvent, text: string | undefined, userMessage?: string): HookOutput {
  if (text === undefined && userMessage === undefined) return { stdout: '', exitCode: 0 };
  const out: Record<string, unknown> = {};
  if (text !== undefined) out.hookSpecificOutput = { hookEventName: event.hostEvent, additionalContext: text };
  if (userMessage !== undefined) out.systemMessage = userMessage;
  return { stdout: json(out), exitCode: 0 };
}

export const claudeAdapter: HostAdapter = {
  name: 'claude',
  parse: (payload) => parseClaudeStyle(payload, 'claude', 'Claude Code'),
  renderDecision: (event, decision) => renderClaudeDecision(decision, event),
  renderContext: renderClaudeContext,
  renderNothing: () => ({ stdout: '', exitCode: 0 }),
};
