/**
 * Who may use hookwise's own MCP tools (policy/queue-tools.ts): the gate decides from the session the host
 * names. A lead session (orchestration role) lists and answers; a worker is denied both; a conductor's
 * subagents run as musicians and are denied, except the plugin's supervisor subagent on these tools.
 */
import { describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine/engine.js';
import { locations } from '../../src/util/locations.js';
import { makeProject } from '../support/project.js';

const ANSWER = { id: 'abcdefghij', decision: 'allow', confidence: 0.9, reason: 'part of the task' };

function setup() {
  const p = makeProject();
  p.write('.hookwise/policy.yml', 'registration:\n  wait_ms: 0\n');
  p.register('lead', 'conductor');
  p.register('worker', 'coder');
  const engine = new Engine(locations(p.env));
  const call = async (tool: string, session: string, extra: Record<string, unknown> = {}) => {
    const out = await engine.handle(
      JSON.stringify({ ...p.pre(tool, tool.endsWith('answer_request') ? ANSWER : {}, session), ...extra }),
    );
    return out.decision!;
  };
  return { p, call };
}

describe('hookwise MCP tools: only the lead session answers the queue', () => {
  it.each([
    ['mcp__plugin_hookwise_hookwise__answer_request', 'lead', {}, 'allow', /lead session \(role "conductor"\) answers/],
    ['mcp__hookwise__answer_request', 'lead', {}, 'allow', /answers hookwise's queue/],
    ['mcp__plugin_hookwise_hookwise__pending_requests', 'lead', {}, 'allow', /looks at hookwise's queue/],
    [
      'mcp__plugin_hookwise_hookwise__answer_request',
      'worker',
      {},
      'deny',
      /only the team’s lead session .* \(this session's role: "coder"\)/,
    ],
    ['mcp__plugin_hookwise_hookwise__pending_requests', 'worker', {}, 'deny', /hookwise queue` shows what waits/],
    // A conductor's subagent is its musician (a worker): denied, even though the session is the lead's.
    [
      'mcp__plugin_hookwise_hookwise__answer_request',
      'lead',
      { agent_id: 'a1', agent_type: 'general-purpose' },
      'deny',
      /role: "musician"/,
    ],
    // The plugin's supervisor subagent (agent_type set by the host) answers for the lead.
    [
      'mcp__plugin_hookwise_hookwise__answer_request',
      'lead',
      { agent_id: 'a2', agent_type: 'hookwise:supervisor' },
      'allow',
      /role "conductor"/,
    ],
  ] as const)('%s from %s %j → %s', async (tool, session, extra, verdict, why) => {
    const { call } = setup();
    const d = await call(tool, session, extra);
    expect(d.verdict).toBe(verdict);
    expect(d.tier).toBe('tool-policy');
    expect(d.reason).toMatch(why);
  });

  it('a worker calling the supervisor subagent type on its own session is still a worker', async () => {
    const { call } = setup();
    const d = await call('mcp__plugin_hookwise_hookwise__answer_request', 'worker', {
      agent_id: 'a3',
      agent_type: 'hookwise:supervisor',
    });
    expect(d).toMatchObject({ verdict: 'deny', rule: { id: 'hookwise-mcp:worker-answers' } });
  });

  it('another server of the same tool name is not hookwise’s (nothing decides it: a human does)', async () => {
    const { call } = setup();
    expect((await call('mcp__other__answer_request', 'worker')).verdict).toBe('ask');
  });

  it('running the MCP server from a shell is a hookwise command that changes the gate: a human confirms', async () => {
    const { p } = setup();
    const out = await new Engine(locations(p.env)).handle(
      JSON.stringify(p.pre('Bash', { command: 'echo {} | hookwise mcp' }, 'worker')),
    );
    expect(out.decision).toMatchObject({ verdict: 'ask', rule: { id: 'pack:hookwise:self-change' } });
  });
});
