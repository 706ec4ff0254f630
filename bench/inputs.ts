/**
 * The inputs of one real gate decision, built by the same code `hookwise check` runs: the Claude adapter
 * parses the fixture's payload, the project root is found on disk, the policy comes from loadPolicy (which
 * compiles it once into the fixture's runtime dir), and the session state from sessionStateOf.
 */
import { join } from 'node:path';
import type { ToolCall } from '../src/core/tool-call.js';
import { claudeAdapter } from '../src/hosts/claude.js';
import { findProjectRoot } from '../src/paths/canonical.js';
import type { CompiledPolicy } from '../src/policy/compiled.js';
import { loadPolicy } from '../src/policy/load.js';
import { sessionStateOf, type SessionState } from '../src/session/resolve.js';
import type { BenchFixture } from './fixture.js';

export interface DecisionInputs {
  call: ToolCall;
  policy: CompiledPolicy;
  projectRoot: string;
  state: SessionState;
}

export async function decisionInputs(fixture: BenchFixture): Promise<DecisionInputs> {
  const event = claudeAdapter.parse(JSON.parse(fixture.payload) as Record<string, unknown>);
  if (event.kind !== 'pre-tool') throw new Error(`bench: fixture payload parsed as ${event.kind}, expected pre-tool`);
  const projectRoot = findProjectRoot(event.call.cwd);
  const policy = await loadPolicy(projectRoot, fixture.where);
  const now = new Date().toISOString();
  const state = sessionStateOf(
    { session_id: fixture.sessionId, role: fixture.role, disabled: false, registered_at: now, updated_at: now },
    undefined,
  );
  return { call: event.call, policy, projectRoot, state };
}

/** A benchmark of the wrong outcome measures the wrong path: insist on the expected verdict first. */
export function expectVerdict(what: string, verdict: string | undefined, expected: string): void {
  if (verdict !== expected)
    throw new Error(
      `bench: ${what} answered ${verdict ?? 'nothing'}, expected ${expected}; the fixture no longer exercises the intended path`,
    );
}

/**
 * A maker of Claude Code PreToolUse payloads (as the real host sends them) for a project: each call gets the
 * next tool_use id under `prefix`, and the session `sessionOf(n)` names for call n.
 */
export function preToolPayloads(
  project: string,
  prefix: string,
  sessionOf: (n: number) => string,
): (tool: string, input: Record<string, unknown>) => string {
  let n = 0;
  return (tool, input) => {
    const i = n++;
    return JSON.stringify({
      session_id: sessionOf(i),
      transcript_path: join(project, '..', 'transcript.jsonl'),
      cwd: project,
      permission_mode: 'default',
      hook_event_name: 'PreToolUse',
      tool_name: tool,
      tool_input: input,
      tool_use_id: `${prefix}${String(i).padStart(5, '0')}`,
    });
  };
}
