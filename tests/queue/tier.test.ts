/** Tier 4's entry point (src/queue/tier.ts) with a scripted port: what it queues, and how each outcome decides. */
import { describe, expect, it } from 'vitest';
import { decision, type Decision } from '../../src/core/decision.js';
import type { CascadeContext } from '../../src/engine/context.js';
import type { ToolCall } from '../../src/core/tool-call.js';
import { askHuman, requestFor, TIMEOUT_REASON } from '../../src/queue/tier.js';
import type { HumanPort, PendingRequest, WaitOutcome } from '../../src/queue/types.js';

const SECRET = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';

function ctxFor(command: string, o: { session?: string; role?: string; project?: string } = {}): CascadeContext {
  const call: ToolCall = {
    host: 'claude',
    sessionId: o.session ?? 's1',
    cwd: '/p',
    hostTool: 'Bash',
    tool: 'Bash',
    action: 'shell',
    paths: [],
    input: { command },
  };
  return {
    call,
    paths: [],
    role: { role: { name: o.role ?? 'coder' } },
    projectRoot: o.project ?? '/p',
  } as unknown as CascadeContext;
}

function port(outcome: WaitOutcome): HumanPort & { seen: PendingRequest[] } {
  const seen: PendingRequest[] = [];
  return { timeoutMs: 60_000, seen, wait: (r) => (seen.push(r), Promise.resolve(outcome)) };
}

const asked: Decision = decision('ask', 'default', 'no tier decided this Bash call');

describe('tier 4: askHuman', () => {
  it('passes anything but an ask as it was, without queueing', async () => {
    const p = port({ kind: 'timeout', id: 'x' });
    for (const d of [decision('deny', 'rules', 'no'), decision('allow', 'rules', 'yes')]) {
      expect((await askHuman({ ctx: ctxFor('ls'), asked: d, human: p, subject: undefined })).decision).toBe(d);
    }
    expect(p.seen).toEqual([]);
  });

  it.each<[string, WaitOutcome, Partial<Decision>]>([
    [
      'approve',
      {
        kind: 'answered',
        id: 'abcdefghij',
        first: true,
        answer: { verdict: 'approve', alwaysAsk: false, addRule: false, via: 'cli' },
      },
      { verdict: 'allow', tier: 'human', rule: { id: 'human:approve', source: 'queue item abcdefghij' } },
    ],
    [
      'always ask',
      {
        kind: 'answered',
        id: 'abcdefghij',
        first: true,
        answer: { verdict: 'approve', alwaysAsk: true, addRule: false, via: 'web' },
      },
      { verdict: 'allow', tier: 'human', rule: { id: 'human:always-ask', source: 'queue item abcdefghij' } },
    ],
    [
      'deny',
      {
        kind: 'answered',
        id: 'abcdefghij',
        first: false,
        answer: { verdict: 'deny', alwaysAsk: false, addRule: false, via: 'cli' },
      },
      { verdict: 'deny', tier: 'human', rule: { id: 'human:deny', source: 'queue item abcdefghij' } },
    ],
    [
      'timeout',
      { kind: 'timeout', id: 'abcdefghij' },
      {
        verdict: 'deny',
        tier: 'human',
        reason: expect.stringMatching(new RegExp(`^${TIMEOUT_REASON}`)) as unknown as string,
      },
    ],
    [
      'unavailable',
      { kind: 'unavailable', why: `disk full writing ${SECRET}` },
      { verdict: 'deny', tier: 'human', rule: { id: 'human:unavailable', source: 'queue' } },
    ],
  ])('%s', async (_name, outcome, expected) => {
    const out = await askHuman({ ctx: ctxFor('make deploy'), asked, human: port(outcome), subject: undefined });
    expect(out.decision).toMatchObject(expected);
    expect(out.decision.reason).not.toContain(SECRET);
    if (outcome.kind === 'answered')
      expect(out.answered).toEqual({
        id: 'abcdefghij',
        answer: outcome.answer,
        first: outcome.first,
        rememberable: true,
      });
    else expect(out.answered).toBeUndefined();
  });

  it('an answer to a policy ask is not rememberable; to a supervisor guess it is', async () => {
    const answered: WaitOutcome = {
      kind: 'answered',
      id: 'abcdefghij',
      first: true,
      answer: { verdict: 'approve', alwaysAsk: false, addRule: false, via: 'cli' },
    };
    const policy = await askHuman({
      ctx: ctxFor('git push --force'),
      asked: decision('ask', 'rules', 'force push', { id: 'git:force-push', source: 'built-in' }),
      human: port(answered),
      subject: undefined,
    });
    expect(policy.answered?.rememberable).toBe(false);
    const guess = await askHuman({
      ctx: ctxFor('make x'),
      asked: decision('ask', 'supervisor', 'unsure', undefined, 0.6),
      human: port(answered),
      subject: undefined,
    });
    expect(guess.answered?.rememberable).toBe(true);
  });

  it('the queued request is sanitized: call, reason, task, the supervisor recommendation', () => {
    const d: Decision = {
      ...decision('ask', 'supervisor', `looks like a deploy with ${SECRET}`),
      recommendation: { decision: 'allow', confidence: 0.55, reason: `token ${SECRET} is the deploy key` },
    };
    const r = requestFor({
      ctx: ctxFor(`make deploy TOKEN=${SECRET}`),
      asked: d,
      human: port({ kind: 'timeout', id: 'x' }),
      subject: undefined,
      task: `ship it ${SECRET} ${'x'.repeat(1000)}`,
    });
    expect(JSON.stringify(r)).not.toContain(SECRET);
    expect(r).toMatchObject({
      session: 's1',
      role: 'coder',
      tool: 'Bash',
      tier: 'supervisor',
      recommendation: { decision: 'allow', confidence: 0.55 },
    });
    expect(r.call).toContain('<REDACTED>');
    expect(r.task!.length).toBeLessThan(400);
  });

  it('identical calls share the dedupe key across sessions, never across roles or projects', () => {
    const key = (o: { session?: string; role?: string; project?: string }) =>
      requestFor({
        ctx: ctxFor('make deploy', o),
        asked,
        human: port({ kind: 'timeout', id: 'x' }),
        subject: undefined,
      }).dedupe;
    expect(key({ session: 'a' })).toBe(key({ session: 'b' }));
    expect(key({ role: 'coder' })).not.toBe(key({ role: 'reviewer' }));
    expect(key({ project: '/p' })).not.toBe(key({ project: '/q' }));
  });
});
