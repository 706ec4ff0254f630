/**
 * Gemini CLI hooks (spec §4.2): BeforeTool answers with a top-level `decision`; BeforeAgent and
 * SessionStart add context through hookSpecificOutput.additionalContext. Gemini's tool names and argument
 * keys are mapped onto Claude's vocabulary so policy is written once.
 *
 * `ask`: Gemini's BeforeTool accepts `decision: "ask"` only in its source (undocumented), and headless
 * Gemini (-p) waits forever on it (observed with 0.61.0 in tests/e2e). A hook cannot tell whether the
 * session is interactive, so by default ask is answered as a deny whose reason says a human must approve —
 * the same as Gemini's own policy engine does with ask_user in non-interactive mode.
 * HOOKWISE_GEMINI_ASK=ask opts an interactive user into Gemini's native confirmation prompt.
 */
import type { Decision } from '../core/decision.js';
import { HookwiseError } from '../core/errors.js';
import { formatReason } from '../core/reason.js';
import type { HookEvent, ToolCall } from '../core/tool-call.js';
import type { HookOutput, HostAdapter, RenderOptions, ToolShape } from './adapter.js';
import { confinedInput, json, optionalString, pathsOf, requireObject, requireString, toolShape } from './adapter.js';

export const GEMINI_EVENTS = {
  BeforeTool: 'pre-tool',
  AfterTool: 'post-tool',
  BeforeAgent: 'prompt-submit',
  SessionStart: 'session-start',
} as const;

/** Gemini tool → (canonical tool, where its paths are). */
const GEMINI_TOOLS: Record<string, ToolShape> = {
  run_shell_command: { tool: 'Bash', action: 'shell', pathFields: [] },
  write_file: { tool: 'Write', action: 'write', pathFields: ['file_path'] },
  replace: { tool: 'Edit', action: 'write', pathFields: ['file_path'] },
  read_file: { tool: 'Read', action: 'read', pathFields: ['file_path', 'absolute_path'] },
  read_many_files: { tool: 'Read', action: 'read', pathFields: ['paths'] },
  glob: { tool: 'Glob', action: 'read', pathFields: ['dir_path', 'path'], defaultsToCwd: true },
  grep_search: { tool: 'Grep', action: 'read', pathFields: ['dir_path', 'path'], defaultsToCwd: true },
  search_file_content: { tool: 'Grep', action: 'read', pathFields: ['dir_path', 'path'], defaultsToCwd: true },
  list_directory: { tool: 'LS', action: 'read', pathFields: ['dir_path', 'path'], defaultsToCwd: true },
  web_fetch: { tool: 'WebFetch', action: 'other', pathFields: [] },
  google_web_search: { tool: 'WebSearch', action: 'other', pathFields: [] },
  write_todos: { tool: 'TodoWrite', action: 'other', pathFields: [] },
};

function geminiToolCall(payload: Record<string, unknown>, sessionId: string, cwd: string): ToolCall {
  const hostTool = requireString(payload, 'tool_name', 'Gemini CLI');
  const input = requireObject(payload, 'tool_input', 'Gemini CLI');
  const shape = GEMINI_TOOLS[hostTool] ?? toolShape(hostTool);
  // run_shell_command may run in another directory than the session's.
  const dir = shape.action === 'shell' && typeof input.dir_path === 'string' ? input.dir_path : undefined;
  return {
    host: 'gemini',
    sessionId,
    cwd: dir ?? cwd,
    hostTool,
    tool: shape.tool,
    action: shape.action,
    paths: pathsOf(shape, input, cwd),
    input,
  };
}

export function geminiAskAsDeny(decision: Decision, sessionId: string): Decision {
  return {
    ...decision,
    verdict: 'deny',
    reason:
      `${decision.reason} — this call needs a human's approval, and a Gemini CLI hook cannot prompt without hanging headless sessions. ` +
      `Run it yourself, widen this session's role (hookwise switch --session-id ${sessionId} --role <role>), or set HOOKWISE_GEMINI_ASK=ask for interactive sessions`,
  };
}

export const geminiAdapter: HostAdapter = {
  name: 'gemini',
  parse(payload) {
    const hostEvent = requireString(payload, 'hook_event_name', 'Gemini CLI');
    const sessionId = requireString(payload, 'session_id', 'Gemini CLI');
    const cwd = requireString(payload, 'cwd', 'Gemini CLI');
    const base = { host: 'gemini' as const, hostEvent, sessionId, cwd };
    switch (hostEvent) {
      case 'BeforeTool':
        return { ...base, kind: 'pre-tool', call: geminiToolCall(payload, sessionId, cwd) };
      case 'AfterTool':
        return { ...base, kind: 'post-tool', call: geminiToolCall(payload, sessionId, cwd) };
      case 'BeforeAgent':
        return { ...base, kind: 'prompt-submit', prompt: optionalString(payload, 'prompt') ?? '' };
      case 'SessionStart':
        return { ...base, kind: 'session-start', source: optionalString(payload, 'source') ?? 'startup' };
      default:
        throw new HookwiseError(
          'UNKNOWN_EVENT',
          `Gemini CLI hook event "${hostEvent}" is not one hookwise handles (expected ${Object.keys(GEMINI_EVENTS).join(', ')})`,
        );
    }
  },
  renderDecision(event: HookEvent, decision: Decision, options?: RenderOptions): HookOutput {
    const answered =
      decision.verdict === 'ask' && options?.geminiAsk !== true ? geminiAskAsDeny(decision, event.sessionId) : decision;
    // A confined allow: Gemini CLI merges hookSpecificOutput.tool_input over the call's arguments.
    const updated = confinedInput(event, answered);
    const extra =
      updated === undefined
        ? {}
        : { hookSpecificOutput: { hookEventName: 'BeforeTool', tool_input: { command: updated.command } } };
    const out: HookOutput = {
      stdout: json({ decision: answered.verdict, reason: formatReason(answered), ...extra }),
      exitCode: 0,
    };
    if (answered.verdict !== decision.verdict) out.delivered = answered.verdict;
    return out;
  },
  renderContext(event, text, userMessage) {
    if (text === undefined && userMessage === undefined) return { stdout: '', exitCode: 0 };
    const out: Record<string, unknown> = {};
    if (text !== undefined) out.hookSpecificOutput = { hookEventName: event.hostEvent, additionalContext: text };
    if (userMessage !== undefined) out.systemMessage = userMessage;
    return { stdout: json(out), exitCode: 0 };
  },
  renderNothing: () => ({ stdout: json({}), exitCode: 0 }),
};
