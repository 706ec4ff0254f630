/**
 * Tier 4 through the daemon: a call the daemon serves waits in its queue (in memory) and resolves the moment
 * `hookwise approve / deny` answers over the socket. Also: the 64-calls-one-answer dedupe and the latency
 * from answer to return, in both backends (medians printed; the targets asserted loosely for shared CI).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { queueAnswer, queueList } from '../../src/cli/queue.js';
import { askDaemon } from '../../src/daemon/client.js';
import { serve, type RunningDaemon } from '../../src/daemon/server.js';
import { FileQueue } from '../../src/queue/file-queue.js';
import { MemoryQueue } from '../../src/queue/memory-queue.js';
import type { PendingRequest, QueueBackend } from '../../src/queue/types.js';
import type { Sanitized } from '../../src/sanitize/index.js';
import { locations } from '../../src/util/locations.js';
import { makeProject, type TestProject } from '../support/project.js';
import { median, queueMode, until } from './support.js';

const running: RunningDaemon[] = [];
afterEach(async () => {
  while (running.length > 0) await running.pop()!.close();
});

/** Tier 2b's pool is left out: the queue does not need it, and it costs a model load per daemon. */
async function start(p: TestProject): Promise<RunningDaemon> {
  const d = await serve({ where: locations(p.env), embedding: false });
  running.push(d);
  return d;
}

async function viaDaemon(p: TestProject, payload: Record<string, unknown>) {
  // A loaded machine running 64 calls at once may take over the thin client's 1 s for the daemon's first byte.
  const answer = await askDaemon(JSON.stringify(payload), locations(p.env), { headerTimeoutMs: 15_000 });
  if (answer.kind !== 'answered') throw new Error(`daemon did not answer: ${answer.kind}`);
  return JSON.parse(answer.result.stdout) as {
    hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string };
  };
}

async function daemonItems(p: TestProject, count = 1) {
  return until(
    async () =>
      JSON.parse((await queueList({ json: true }, p.env)).stdout) as {
        items: { id: string; waiting: number; backend: string; sessions: string[] }[];
      },
    (s) => s.items.length === count,
  ).then((s) => s.items);
}

describe('the human queue in the daemon', () => {
  it('approve over the socket: the waiting call returns allow at once; the queue lists it meanwhile', async () => {
    const p = makeProject();
    queueMode(p);
    p.register('s1', 'coder');
    await start(p);
    const waiting = viaDaemon(p, p.pre('Bash', { command: 'make deploy-staging' }));
    const [item] = await daemonItems(p);
    expect(item).toMatchObject({ backend: 'daemon', waiting: 1, sessions: ['s1'] });
    expect((await queueList({}, p.env)).stdout).toMatch(
      new RegExp(`${item!.id} .* 1 waiting  role coder  session s1  Bash\\n    call: make deploy-staging`),
    );
    expect(await queueAnswer('approve', item!.id, {}, p.env)).toMatchObject({ exitCode: 0 });
    expect((await waiting).hookSpecificOutput.permissionDecision).toBe('allow');
    // Remembered by the daemon's call: the next one is allowed from memory.
    expect(
      (await viaDaemon(p, p.pre('Bash', { command: 'make deploy-staging' }))).hookSpecificOutput.permissionDecision,
    ).toBe('allow');
  });

  it('deny and timeout; an unknown id through the daemon is refused', async () => {
    const p = makeProject();
    queueMode(p, '1s');
    p.register('s1', 'coder');
    await start(p);
    const timedOut = await viaDaemon(p, p.pre('Bash', { command: 'make deploy-prod' }));
    expect(timedOut.hookSpecificOutput).toMatchObject({
      permissionDecision: 'deny',
      permissionDecisionReason: expect.stringContaining('Permission request timed out — no human response'),
    });
    expect(await queueAnswer('approve', 'abcdefghij', {}, p.env)).toMatchObject({
      exitCode: 1,
      stderr: expect.stringMatching(/no pending queue item abcdefghij/),
    });
  });

  it('a client that goes away stops waiting: its item goes with it', async () => {
    const p = makeProject();
    queueMode(p);
    p.register('s1', 'coder');
    await start(p);
    // The thin client gives up after 300 ms without an answer and closes its connection (as a killed hook would).
    const gaveUp = askDaemon(JSON.stringify(p.pre('Bash', { command: 'make deploy-staging' })), locations(p.env), {
      bodyTimeoutMs: 300,
    });
    await daemonItems(p);
    expect(await gaveUp).toMatchObject({ kind: 'unusable' });
    await until(
      async () =>
        JSON.parse((await queueList({ json: true }, p.env)).stdout) as {
          items: unknown[];
          recent: { outcome: string }[];
        },
      (s) => s.items.length === 0,
    );
  });

  it('answering through the socket needs the answer token', async () => {
    const p = makeProject();
    queueMode(p);
    p.register('s1', 'coder');
    const d = await start(p);
    const waiting = viaDaemon(p, p.pre('Bash', { command: 'make deploy-staging' }));
    const [item] = await daemonItems(p);
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          socketPath: d.paths.socket,
          method: 'POST',
          path: '/v1/queue/answer',
          headers: { host: 'hookwise', 'content-type': 'application/json' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ id: item!.id, answer: { verdict: 'approve', alwaysAsk: false, addRule: false } }));
    });
    expect(status).toBe(401);
    await queueAnswer('deny', item!.id, {}, p.env);
    expect((await waiting).hookSpecificOutput.permissionDecision).toBe('deny');
  });

  it('64 identical calls from 64 sessions are one item; one approve answers them all', async () => {
    const p = makeProject();
    queueMode(p);
    const sessions = Array.from({ length: 64 }, (_, i) => `swarm-${i}`);
    for (const s of sessions) p.register(s, 'coder');
    await start(p);
    const calls = sessions.map((s) => viaDaemon(p, p.pre('Bash', { command: 'make deploy-staging' }, s)));
    const [item] = await until(
      () => daemonItems(p),
      (items) => items[0]!.waiting === 64,
      3000,
    );
    expect(item!.sessions).toHaveLength(16); // shown bounded; the count is exact
    const t0 = performance.now();
    expect((await queueAnswer('approve', item!.id, {}, p.env)).stdout).toMatch(/64 waiting calls answered/);
    const answers = await Promise.all(calls);
    const ms = performance.now() - t0;
    for (const a of answers) expect(a.hookSpecificOutput.permissionDecision).toBe('allow');
    console.log(
      `daemon: 64 waiting calls resolved by one approve (CLI function → all 64 thin clients returned) in ${ms.toFixed(1)} ms`,
    );
  });
});

function request(i: number, dedupe = 'same'): PendingRequest {
  const s = (t: string) => t as Sanitized;
  return {
    dedupe,
    session: s(`session-${i}`),
    role: 'coder',
    tool: s('Bash'),
    call: s('make deploy'),
    reason: s('nobody decided'),
    tier: 'default',
    project: s('/p'),
  };
}

/** Answer-to-return latency: `rounds` times, a call waits, then one answer; the time until the call returns. */
async function latencies(queue: QueueBackend, answerer: QueueBackend, rounds: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const waiting = queue.wait(request(i, `d${i}`), 30_000);
    const [item] = await until(
      () => answerer.list(),
      (items) => items.length === 1,
    );
    let t0 = 0;
    const returned = waiting.then(() => performance.now() - t0);
    t0 = performance.now();
    expect(answerer.answer(item!.id, { verdict: 'approve', alwaysAsk: false, addRule: false, via: 'cli' }).ok).toBe(
      true,
    );
    out.push(await returned);
  }
  return out;
}

describe('queue latency and dedupe (medians)', () => {
  it('memory queue: approve → waiting call returns', async () => {
    const q = new MemoryQueue();
    const xs = await latencies(q, q, 30);
    console.log(`memory queue: approve → return median ${median(xs).toFixed(3)} ms over ${xs.length}`);
    expect(median(xs)).toBeLessThan(100);
  });

  it('file queue: approve (another FileQueue, as another process would) → waiting call returns', async () => {
    const p = makeProject();
    const xs = await latencies(new FileQueue(p.runtimeDir), new FileQueue(p.runtimeDir), 30);
    console.log(`file queue: approve → return median ${median(xs).toFixed(3)} ms over ${xs.length}`);
    expect(median(xs)).toBeLessThan(100);
  });

  it('file queue: 64 waiting calls, one item, one answer resolves all', async () => {
    const p = makeProject();
    const q = new FileQueue(p.runtimeDir);
    const waits = Array.from({ length: 64 }, (_, i) => new FileQueue(p.runtimeDir).wait(request(i), 30_000));
    const [item] = await until(
      () => q.list(),
      (items) => items.length === 1 && items[0]!.waiting === 64,
    );
    const t0 = performance.now();
    const result = q.answer(item!.id, { verdict: 'deny', alwaysAsk: false, addRule: false, via: 'cli' });
    expect(result).toMatchObject({ ok: true, resolved: 64 });
    const outcomes = await Promise.all(waits);
    console.log(`file queue: 64 waiting calls resolved by one answer in ${(performance.now() - t0).toFixed(1)} ms`);
    expect(outcomes.every((o) => o.kind === 'answered' && o.answer.verdict === 'deny')).toBe(true);
    expect(outcomes.filter((o) => o.kind === 'answered' && o.first)).toHaveLength(1);
  });

  it('the call that made the item remembers the answer; if it went away, the next longest-waiting one does', async () => {
    const answer = { verdict: 'approve', alwaysAsk: false, addRule: false, via: 'cli' } as const;
    const q = new MemoryQueue();
    const gone = new AbortController();
    const creator = q.wait(request(0, 'x'), 30_000, gone.signal);
    const second = q.wait(request(1, 'x'), 30_000);
    const third = q.wait(request(2, 'x'), 30_000);
    gone.abort();
    expect(await creator).toMatchObject({ kind: 'unavailable' });
    q.answer(q.list()[0]!.id, answer);
    expect([await second, await third].map((o) => o.kind === 'answered' && o.first)).toEqual([true, false]);

    const p = makeProject();
    const files = new FileQueue(p.runtimeDir);
    const fileGone = new AbortController();
    const fileCreator = new FileQueue(p.runtimeDir).wait(request(0, 'y'), 30_000, fileGone.signal);
    await until(
      () => files.list(),
      (items) => items.length === 1,
    );
    const fileSecond = new FileQueue(p.runtimeDir).wait(request(1, 'y'), 30_000);
    await until(
      () => files.list(),
      (items) => items[0]?.waiting === 2,
    );
    fileGone.abort();
    expect(await fileCreator).toMatchObject({ kind: 'unavailable' });
    files.answer(files.list()[0]!.id, answer);
    expect(await fileSecond).toMatchObject({ kind: 'answered', first: true });
  });

  it('memory queue: 64 waiting calls, one item, one answer resolves all; each call keeps its own deadline', async () => {
    const q = new MemoryQueue();
    const waits = Array.from({ length: 64 }, (_, i) => q.wait(request(i), 30_000));
    expect(q.list()).toHaveLength(1);
    expect(q.list()[0]!.waiting).toBe(64);
    const t0 = performance.now();
    expect(
      q.answer(q.list()[0]!.id, { verdict: 'approve', alwaysAsk: false, addRule: false, via: 'cli' }),
    ).toMatchObject({ ok: true, resolved: 64 });
    const outcomes = await Promise.all(waits);
    console.log(`memory queue: 64 waiting calls resolved by one answer in ${(performance.now() - t0).toFixed(3)} ms`);
    expect(outcomes.every((o) => o.kind === 'answered')).toBe(true);
    // Deadlines: a short one expires alone; the item stays for the other.
    const short = q.wait(request(1, 'other'), 20);
    const long = q.wait(request(2, 'other'), 30_000);
    expect(await short).toMatchObject({ kind: 'timeout' });
    expect(q.list()[0]!.waiting).toBe(1);
    q.close();
    expect(await long).toMatchObject({ kind: 'timeout' });
    expect(q.list()).toEqual([]);
  });
});
