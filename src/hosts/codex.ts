/**
 * OpenAI Codex CLI hooks: Claude-compatible JSON, but PreToolUse has no `ask` (it is treated as a failed
 * hook and the call continues), so ask becomes a deny whose reason says how a human can let it through.
 * apply_patch carries its target files inside the patch text.
 */
import type { Decision } from '../core/decision.js';
import type { HookEvent, ToolCall } from '../core/tool-call.js';
import type { HostAdapter } from './adapter.js';
import { parseClaudeStyle, renderClaudeContext, renderClaudeDecision } from './claude.js';

/** `*** Add File: p`, `*** Update File: p`, `*** Delete File: p`, `*** Move to: p` (Codex patch grammar). */
const PATCH_TARGET = /^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+)$/gm;

export function patchTargets(patch: string): string[] {
  return [...patch.matchAll(PATCH_TARGET)].map((m) => (m[1] ?? '').trim()).filter((p) => p !== '');
}

function normalizeCodexCall(call: ToolCall): ToolCall {
  if (call.hostTool !== 'apply_patch') return call;
  const patch =
    typeof call.input.command === 'string'
      ? call.input.command
      : typeof call.input.patch === 'string'
        ? call.input.patch
        : '';
  return { ...call, tool: 'Edit', action: 'write', paths: patchTargets(patch) };
}

export function codexAskAsDeny(decision: Decision, sessionId: string): Decision {
  if (decision.verdict !== 'ask') return decision;
  return {
    ...decision,
    verdict: 'deny',
    reason:
      `${decision.reason} — this call needs a human's approval and Codex hooks cannot prompt. ` +
      `To let it through, run it yourself, or widen this session's role: hookwise switch --session-id ${sessionId} --role <role>`,
  };
}

export const codexAdapter: HostAdapter = {
  name: 'codex',
  parse(payload) {
    const event = parseClaudeStyle(payload, 'codex', 'Codex');
    return event.kind === 'pre-tool' || event.kind === 'post-tool'
      ? { ...event, call: normalizeCodexCall(event.call) }
      : event;
  },
  renderDecision: (event: HookEvent, decision) =>
    renderClaudeDecision(codexAskAsDeny(decision, event.sessionId), event),
  renderContext: renderClaudeContext,
  renderNothing: () => ({ stdout: '', exitCode: 0 }),
};
