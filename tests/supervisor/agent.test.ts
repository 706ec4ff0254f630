/**
 * Tier 3 with `supervisor.backend: agent`, end to end in process: a worker's novel call waits in the queue as a
 * supervise item, and the lead session answers it through the MCP tool's code (src/mcp/server.ts handleMessage)
 * — on the daemon's memory queue and on the files. Measured: from answer_request to the waiting call returning.
 */
import { describe, expect, it } from 'vitest';
import { Engine, type CheckResult } from '../../src/engine/engine.js';
import { handleMessage, type QueueAccess } from '../../src/mcp/server.js';
import { loadScope } from '../../src/memory/store.js';
import { answerAny, snapshotOf } from '../../src/queue/combined.js';
import { FileQueue } from '../../src/queue/file-queue.js';
import { MemoryQueue } from '../../src/queue/memory-queue.js';
import type { QueueBackend } from '../../src/queue/types.js';
import { SessionRegistry } from '../../src/session/registry.js';
import { locations } from '../../src/util/locations.js';
import { checksummedToken } from '../sanitize/fakes.js';
import { targetOf } from '../support/memory.js';
import { makeProject, type TestProject } from '../support/project.js';
import { median, until } from '../queue/support.js';

const SECRET = checksummedToken('ghp_', { seed: 7 });

interface Setup {
  p: TestProject;
  engine: Engine;
  access: QueueAccess;
  bash(command: string, toolUseId?: string): Promise<CheckResult>;
  /** The items the lead would list, through the MCP tool (its JSON text). */
  pending(): Promise<{ text: string; items: { id: string; kind: string; call: string; task: string | null }[] }>;
  answer(args: Record<string, unknown>): Promise<{ text: string; isError: boolean }>;
}

function setup(store: 'daemon' | 'files', options: { timeout?: number; humanQueue?: boolean } = {}): Setup {
  const p = makeProject();
  p.write(
    `${p.configDir}/config.yml`,
    `supervisor:\n  backend: agent\n  confidence: 0.8\n  timeout: ${options.timeout ?? 15}\n`,
  );
  if (options.humanQueue === true) p.write('.hookwise/policy.yml', 'human:\n  channel: queue\n  timeout: 2s\n');
  new SessionRegistry(p.runtimeDir).update('s1', (_e, now) => ({
    session_id: 's1',
    role: 'coder',
    disabled: false,
    task: `deploy staging with token ${SECRET}`,
    registered_at: now,
    updated_at: now,
  }));
  const files = new FileQueue(p.runtimeDir, { recheckMs: 20 });
  const memory = store === 'daemon' ? new MemoryQueue() : undefined;
  const queue: QueueBackend = memory ?? files;
  const engine = new Engine(locations(p.env), { queue });
  // The MCP server's access, as the daemon serves it (its memory queue and the files) or as the files alone.
  const access: QueueAccess = {
    snapshot: () => Promise.resolve(snapshotOf(memory, files)),
    answer: (id, a) => Promise.resolve(answerAny(memory, files, id, a)),
  };
  const call = async (name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }> => {
    const response = await handleMessage(
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
      access,
    );
    const result = response?.result as { content: { text: string }[]; isError?: boolean };
    return { text: result.content[0]!.text, isError: result.isError === true };
  };
  return {
    p,
    engine,
    access,
    bash: (command, toolUseId = 'toolu_1') =>
      engine.handle(JSON.stringify({ ...p.pre('Bash', { command }), tool_use_id: toolUseId })),
    pending: async () => {
      const { text } = await call('pending_requests', {});
      return {
        text,
        items: (JSON.parse(text) as { items: { id: string; kind: string; call: string; task: string | null }[] }).items,
      };
    },
    answer: (args) => call('answer_request', args),
  };
}

const NOVEL = 'make deploy-staging --jobs 4';

async function waitingItem(s: Setup): Promise<{ id: string; kind: string; call: string; task: string | null }> {
  const { items } = await until(
    () => s.pending(),
    (l) => l.items.length === 1,
    1000,
  );
  return items[0]!;
}

describe.each(['daemon', 'files'] as const)('the agent supervisor (%s queue)', (store) => {
  it('a confident allow through answer_request allows the waiting call, is remembered, and the repeat never waits', async () => {
    const s = setup(store);
    const waiting = s.bash(NOVEL);
    const item = await waitingItem(s);
    expect(item).toMatchObject({ kind: 'supervise', call: NOVEL });
    const answered = await s.answer({
      id: item.id,
      decision: 'allow',
      confidence: 0.95,
      reason: 'staging deploys are the task',
    });
    expect(answered.isError).toBe(false);
    const result = await waiting;
    expect(result.decision).toMatchObject({
      verdict: 'allow',
      tier: 'supervisor',
      confidence: 0.95,
      rule: { id: 'supervisor:agent' },
    });
    expect(result.decision?.reason).toContain('staging deploys are the task');
    expect(loadScope(targetOf(s.p, 'user')).records).toEqual([
      expect.objectContaining({ verdict: 'allow', decided_by: 'supervisor', subject: NOVEL }),
    ]);
    const again = await s.bash(NOVEL, 'toolu_2');
    expect(again.decision).toMatchObject({ verdict: 'allow', tier: 'exact-cache' });
    expect((await s.pending()).items).toEqual([]);
  });

  it('an answer below the confidence threshold goes to a human with it as the recommendation', async () => {
    const s = setup(store);
    const waiting = s.bash(NOVEL);
    const item = await waitingItem(s);
    await s.answer({ id: item.id, decision: 'allow', confidence: 0.4, reason: 'probably part of the task' });
    const result = await waiting;
    expect(result.decision).toMatchObject({
      verdict: 'ask',
      tier: 'default',
      recommendation: { decision: 'allow', confidence: 0.4 },
    });
    expect(result.decision?.reason).toMatch(/supervisor \(agent\) would allow \(confidence 0\.40 is below 0\.80\)/);
    expect(loadScope(targetOf(s.p, 'user')).records).toEqual([]);
  });

  it('no answer within the supervisor timeout goes to a human, never allows', async () => {
    const s = setup(store, { timeout: 1 });
    const result = await s.bash(NOVEL);
    expect(result.decision).toMatchObject({ verdict: 'ask', tier: 'default' });
    expect(result.decision?.reason).toMatch(
      /the supervisor \(agent\) did not answer: the lead session did not answer within 1 s/,
    );
  });

  it('with the human queue on, a low-confidence answer becomes a human item carrying it, and a human answers it', async () => {
    const s = setup(store, { humanQueue: true });
    const waiting = s.bash(NOVEL);
    const supervise = await waitingItem(s);
    await s.answer({ id: supervise.id, decision: 'deny', confidence: 0.3, reason: 'unsure about staging' });
    const { items } = await until(
      () => s.pending(),
      (l) => l.items.some((i) => i.kind === 'human'),
      1000,
    );
    const human = items.find((i) => i.kind === 'human')!;
    expect(JSON.parse((await s.pending()).text).items[0].recommendation).toMatchObject({
      decision: 'deny',
      confidence: 0.3,
    });
    // The lead's "ask" cannot stand in for the human's allow/deny; its deny can.
    expect(await s.answer({ id: human.id, decision: 'ask', confidence: 0.5, reason: 'not mine to say' })).toMatchObject(
      { isError: true },
    );
    expect(
      await s.answer({ id: human.id, decision: 'deny', confidence: 1, reason: 'the user said no staging today' }),
    ).toMatchObject({ isError: false });
    expect((await waiting).decision).toMatchObject({ verdict: 'deny', tier: 'human' });
  });

  it('a human answering the supervise item (hookwise approve) resolves it too', async () => {
    const s = setup(store);
    const waiting = s.bash(NOVEL);
    const item = await waitingItem(s);
    expect(
      await s.access.answer(item.id, { verdict: 'approve', alwaysAsk: false, addRule: false, via: 'cli' }),
    ).toMatchObject({ ok: true, resolved: 1 });
    const result = await waiting;
    expect(result.decision).toMatchObject({ verdict: 'allow', tier: 'supervisor', confidence: 1 });
    expect(result.decision?.reason).toContain('approved by a human through the queue');
  });

  it('a replay (nothing may wait: check --jsonl) does not wait for the lead; a caller that goes away stops waiting', async () => {
    const s = setup(store);
    const replay = await s.engine.handle(JSON.stringify(s.p.pre('Bash', { command: NOVEL })), { queue: false });
    expect(replay.decision).toMatchObject({ verdict: 'ask', tier: 'default' });
    expect((await s.pending()).items).toEqual([]);
    const gone = new AbortController();
    const waiting = s.engine.handle(JSON.stringify(s.p.pre('Bash', { command: NOVEL })), { signal: gone.signal });
    await waitingItem(s);
    gone.abort();
    expect((await waiting).decision?.verdict).not.toBe('allow');
    await until(
      () => s.pending(),
      (l) => l.items.length === 0,
      1000,
    );
  });

  it.each([
    [{ decision: 'allow', confidence: 2, reason: 'x' }, /confidence must be a number from 0 to 1/],
    [{ decision: 'yes', confidence: 0.9, reason: 'x' }, /decision must be one of allow, deny, ask/],
    [{ decision: 'allow', confidence: 0.9, reason: '' }, /reason must be a non-empty string/],
    [{ decision: 'allow', confidence: 0.9, reason: 'x', extra: 1 }, /unexpected field/],
  ])('a malformed answer %j is refused and the item keeps waiting', async (args, why) => {
    const s = setup(store, { timeout: 2 });
    const waiting = s.bash(NOVEL);
    const item = await waitingItem(s);
    const answered = await s.answer({ id: item.id, ...args });
    expect(answered).toMatchObject({ isError: true });
    expect(answered.text).toMatch(why);
    expect((await s.pending()).items.map((i) => i.id)).toEqual([item.id]);
    expect((await waiting).decision).toMatchObject({ verdict: 'ask' }); // timed out → a human, never allow
  });

  it('nothing unsanitized reaches the lead: a secret in the call and in the task is <REDACTED> in pending_requests and the answer', async () => {
    const s = setup(store);
    const waiting = s.bash(`curl -H "Authorization: token ${SECRET}" https://api.github.com/user`);
    const item = await waitingItem(s);
    const listed = await s.pending();
    expect(listed.text).not.toContain(SECRET);
    expect(listed.text).toContain('<REDACTED>');
    expect(item.task).toContain('<REDACTED>');
    const answered = await s.answer({
      id: item.id,
      decision: 'deny',
      confidence: 0.9,
      reason: `it sends ${SECRET} out`,
    });
    expect(answered.text).not.toContain(SECRET);
    const result = await waiting;
    expect(result.decision?.verdict).toBe('deny');
    expect(JSON.stringify(result)).not.toContain(SECRET);
  });

  it('measure: answer_request → the waiting call returns (median)', async () => {
    const s = setup(store);
    const times: number[] = [];
    for (let i = 0; i < 15; i++) {
      const waiting = s.bash(`make deploy-${i}`, `toolu_${i}`);
      const item = await waitingItem(s);
      let returned = 0;
      const done = waiting.then((r) => ((returned = performance.now()), r));
      const t0 = performance.now();
      await s.answer({ id: item.id, decision: 'allow', confidence: 0.9, reason: 'part of the task' });
      expect((await done).decision?.verdict).toBe('allow');
      times.push(returned - t0);
    }
    console.log(
      `agent supervisor (${store}): answer_request → waiting call returns: median ${median(times).toFixed(2)} ms (15 rounds)`,
    );
    expect(median(times)).toBeLessThan(100);
  }, 60_000);
});
