/**
 * The human queue shared through a real, throwaway PostgreSQL (tests/support/postgres.ts): the same call on
 * several machines is one item; two answers at once — exactly one wins, the other is told; one answer wakes
 * the waiting calls of every machine; the store killed while items wait (they become answerable on their own
 * machine, nothing is allowed that a human did not allow, a local answer is never the fleet's); the store back.
 * Each "machine" is the daemon's queue over the store (store/queue.ts) with its own origin, as a daemon runs it;
 * the daemon test at the end runs two real daemons (serve) with their own runtime and config directories.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { queueAnswer, queueList } from '../../src/cli/queue.js';
import { askDaemon } from '../../src/daemon/client.js';
import { serve, type RunningDaemon } from '../../src/daemon/server.js';
import { MemoryQueue } from '../../src/queue/memory-queue.js';
import type { HumanAnswer, PendingRequest, WaitOutcome } from '../../src/queue/types.js';
import type { Sanitized } from '../../src/sanitize/index.js';
import { PostgresStore } from '../../src/store/postgres.js';
import { FleetQueue, listShared, outgoingItem, queueStatusFile } from '../../src/store/queue.js';
import { renderStoreReport, storeCheck, storeReport } from '../../src/cli/store.js';
import { locations } from '../../src/util/locations.js';
import { makeProject, type TestProject } from '../support/project.js';
import { useTeamCluster } from '../support/postgres.js';
import { queueMode, until } from '../queue/support.js';

const TEAM = 'q';
const db = useTeamCluster('tests/store/queue', TEAM);
const { skip } = db;
const settings = db.settings;

const open = (s: ReturnType<typeof settings>, origin: string) => PostgresStore.open(s, origin);
const queues: FleetQueue[] = [];
afterEach(async () => {
  await Promise.all(queues.splice(0).map((q) => q.close()));
});

async function machine(): Promise<FleetQueue> {
  const q = new FleetQueue(new MemoryQueue(), settings(), randomBytes(16).toString('hex'), open, {
    retryMs: 50,
    maxRetryMs: 200,
  });
  queues.push(q);
  await q.start();
  return q;
}

let n = 0;
/** A sanitized request as the tier builds it; the dedupe key names the call (one per test unless shared). */
function request(call: string, session = 's1'): PendingRequest {
  return {
    dedupe: `${(++n).toString(16)}0${Buffer.from(call).toString('hex').slice(0, 40)}`,
    session: session as Sanitized,
    role: 'coder',
    tool: 'Bash' as Sanitized,
    call: call as Sanitized,
    reason: 'nothing decided it' as Sanitized,
    tier: 'default',
    project: '/work/app' as Sanitized,
  };
}
const same = (r: PendingRequest, session: string): PendingRequest => ({ ...r, session: session as Sanitized });
const approve: HumanAnswer = { verdict: 'approve', alwaysAsk: false, addRule: false, via: 'cli' };
const deny: HumanAnswer = { verdict: 'deny', alwaysAsk: false, addRule: false, via: 'web' };

const shared = (q: FleetQueue) =>
  until(
    () => q.list(),
    (items) => items.length > 0,
  );

describe.skipIf(skip !== undefined)('the human queue shared through the store', () => {
  it('the same call asked on four machines is one item; one answer wakes every waiting call on all four', async () => {
    const fleet = await Promise.all([machine(), machine(), machine(), machine()]);
    const r = request('make deploy-staging');
    const waits: Promise<WaitOutcome>[] = [];
    for (const [i, q] of fleet.entries())
      for (let c = 0; c < 3; c++) waits.push(q.wait(same(r, `m${i}-s${c}`), 30_000));
    const items = await until(
      () => fleet[3]!.list(),
      (l) => l.length === 1 && l[0]!.waiting === 12,
    );
    expect(items[0]).toMatchObject({ call: 'make deploy-staging', role: 'coder', waiting: 12 });
    expect(items[0]!.sessions).toHaveLength(12);
    for (const q of fleet) expect((await shared(q)).map((i) => i.id)).toEqual([items[0]!.id]);

    const result = await fleet[2]!.answerAsync(items[0]!.id, approve);
    expect(result).toMatchObject({ ok: true, resolved: 12 });
    const outcomes = await Promise.all(waits);
    expect(outcomes.every((o) => o.kind === 'answered' && o.answer.verdict === 'approve')).toBe(true);
    // The longest-waiting call of the fleet remembers the answer: exactly one.
    expect(outcomes.filter((o) => o.kind === 'answered' && o.first)).toHaveLength(1);
    await until(
      () => fleet[0]!.list(),
      (l) => l.length === 0,
    );
  });

  it("16 calls joining at once write this machine's count a few times, not 16: the last count is the store's", async () => {
    const q = await machine();
    const heard: string[] = [];
    const listener = await PostgresStore.open(settings(), 'f'.repeat(32));
    const unlisten = await listener.listen(
      (_channel, payload) => heard.push(payload),
      () => undefined,
      ['queue'],
    );
    try {
      const r = request('make burst');
      const waits = Array.from({ length: 16 }, (_, c) => q.wait(same(r, `burst-${c}`), 30_000));
      const [item] = await until(
        async () => (await listShared(listener)).items,
        (l) => l.length === 1 && l[0]!.waiting === 16,
      );
      // Each write of the waiter row is a NOTIFY that every daemon answers with a re-read of the list.
      const rowWrites = heard.filter((p) => p === `changed ${item!.id}`).length;
      expect(rowWrites).toBeGreaterThan(0);
      expect(rowWrites).toBeLessThanOrEqual(4);
      expect((await q.answerAsync(item!.id, approve)).ok).toBe(true);
      expect((await Promise.all(waits)).every((o) => o.kind === 'answered')).toBe(true);
    } finally {
      await unlisten();
      await listener.close();
    }
  });

  it('two answers at once: exactly one wins, the other is told who answered', async () => {
    const [a, b] = await Promise.all([machine(), machine()]);
    const r = request('terraform apply');
    const waitA = a.wait(r, 30_000);
    const waitB = b.wait(same(r, 's2'), 30_000);
    const [item] = await until(
      () => b.list(),
      (l) => l.length === 1 && l[0]!.waiting === 2,
    );
    const [onA, onB] = await Promise.all([a.answerAsync(item!.id, approve), b.answerAsync(item!.id, deny)]);
    const won = [onA, onB].filter((x) => x.ok);
    const lost = [onA, onB].filter((x) => !x.ok);
    expect(won).toHaveLength(1);
    expect(lost[0]).toMatchObject({
      ok: false,
      why: expect.stringMatching(/already (approved|denied) .* this one was not used/),
    });
    const verdict = onA.ok ? 'approve' : 'deny';
    for (const o of await Promise.all([waitA, waitB]))
      expect(o).toMatchObject({ kind: 'answered', answer: { verdict } });
    // Answering again: the item is answered; an unknown id is unknown.
    expect(await a.answerAsync(item!.id, approve)).toMatchObject({
      ok: false,
      why: expect.stringContaining('already'),
    });
    expect(await a.answerAsync('abcdefghij', approve)).toMatchObject({
      ok: false,
      why: expect.stringContaining('no pending queue item'),
    });
  });

  it('a call that times out or goes away leaves the item; the calls still waiting get the answer', async () => {
    const [a, b] = await Promise.all([machine(), machine()]);
    const r = request('make release');
    const long = b.wait(same(r, 's2'), 30_000);
    const [item] = await until(
      () => a.list(),
      (l) => l.length === 1,
    );
    // Joins the item (no new one), then its own deadline passes: a timeout for it alone.
    expect(await a.wait(r, 1000)).toEqual({ kind: 'timeout', id: item!.id });
    await until(
      () => a.list(),
      (l) => l[0]?.waiting === 1,
    );
    const ctl = new AbortController();
    const gone = b.wait(same(r, 's3'), 30_000, ctl.signal);
    ctl.abort();
    expect(await gone).toMatchObject({ kind: 'unavailable' });
    expect(await b.answerAsync(item!.id, deny)).toMatchObject({ ok: true, resolved: 1 });
    expect(await long).toMatchObject({ kind: 'answered', answer: { verdict: 'deny' }, first: true });
  });

  it('the store killed while items wait: calls keep waiting, answerable on their machine only; new asks wait locally; back, nothing is merged', async () => {
    const [a, b] = await Promise.all([machine(), machine()]);
    const r = request('kubectl rollout restart');
    const onA = a.wait(r, 30_000);
    const onB = b.wait(same(r, 's2'), 30_000);
    const [item] = await until(
      () => a.list(),
      (l) => l.length === 1 && l[0]!.waiting === 2,
    );

    db.cluster().kill();
    await until(
      () => [a.status().mode, b.status().mode],
      (m) => m.every((x) => x === 'local'),
    );
    // A's calls are answerable on A: approved there, for A's calls only.
    expect(a.list().map((i) => i.id)).toEqual([item!.id]);
    expect(await a.answerAsync(item!.id, approve)).toMatchObject({ ok: true, resolved: 1 });
    expect(await onA).toMatchObject({ kind: 'answered', answer: { verdict: 'approve' }, first: true });
    // A new ask while the store is down waits in A's own queue, under its own id.
    const r2 = request('kubectl delete pod web-1');
    const local = a.wait(r2, 30_000);
    const [localItem] = await until(
      () => a.local.list(),
      (l) => l.length === 1,
    );

    db.cluster().start();
    await until(
      () => [a.status().mode, b.status().mode],
      (m) => m.every((x) => x === 'shared'),
      1000,
    );
    // B's call still waits on the shared item: A's local approve did not become the fleet's answer.
    const [still] = await until(
      () => b.list(),
      (l) => l.length === 1 && l[0]!.waiting === 1,
      1000,
    );
    expect(still!.id).toBe(item!.id);
    // The local item stays A's: not in the store, and the store's answers do not reach it.
    expect(b.list().map((i) => i.id)).not.toContain(localItem!.id);
    expect(await b.answerAsync(localItem!.id, approve)).toMatchObject({ ok: false });
    expect(await b.answerAsync(item!.id, deny)).toMatchObject({ ok: true, resolved: 1 });
    expect(await onB).toMatchObject({ kind: 'answered', answer: { verdict: 'deny' } });
    expect(await a.answerAsync(localItem!.id, deny)).toMatchObject({ ok: true, resolved: 1 });
    expect(await local).toMatchObject({ kind: 'answered', answer: { verdict: 'deny' } });
  }, 30_000);

  it('a store too slow to take the call: it waits on this machine instead, and the late join is withdrawn', async () => {
    const q = new FleetQueue(new MemoryQueue(), settings(), randomBytes(16).toString('hex'), open, {
      joinTimeoutMs: 300,
    });
    queues.push(q);
    await q.start();
    // Another session holds the queue's table: the join waits on its lock (the store is up, only slow).
    const blocker = new pg.Client({ connectionString: db.cluster().url() });
    await blocker.connect();
    await blocker.query('BEGIN');
    await blocker.query(`LOCK TABLE "hookwise_${TEAM}".queue_items IN EXCLUSIVE MODE`);
    const r = request('make migrate-prod');
    const waiting = q.wait(r, 30_000);
    const [mine] = await until(
      () => q.local.list(),
      (l) => l.length === 1,
    );
    await blocker.query('COMMIT');
    await blocker.end();
    const admin = await PostgresStore.open(settings(), 'c'.repeat(32));
    try {
      // The join landed late, and this machine's waiter was withdrawn: the item it made expired, unanswered.
      await until(
        () =>
          admin.query<{ state: string }>(`SELECT state FROM @@.queue_items WHERE item->>'call' = 'make migrate-prod'`),
        (rows) => rows.length === 1 && rows[0]!.state === 'expired',
      );
    } finally {
      await admin.close();
    }
    expect(await q.answerAsync(mine!.id, approve)).toMatchObject({ ok: true, resolved: 1 });
    expect(await waiting).toMatchObject({ kind: 'answered', answer: { verdict: 'approve' } });
  });

  it('a store that cannot be reached at start: asks wait on this machine and time out into a deny; status says LOCAL', async () => {
    const p = makeProject();
    const q = new FleetQueue(
      new MemoryQueue(),
      { ...settings(), url: `postgresql://nobody@/postgres?host=${encodeURIComponent(db.cluster().dir)}-absent` },
      randomBytes(16).toString('hex'),
      open,
      { retryMs: 1000, statusFile: queueStatusFile(p.runtimeDir) },
    );
    queues.push(q);
    await q.start();
    expect(q.status()).toMatchObject({ mode: 'local', error: expect.any(String) });
    p.write(`${p.configDir}/config.yml`, `store:\n  url: ${db.cluster().url()}\n  team: ${TEAM}\n`);
    const where = locations(p.env);
    expect(renderStoreReport(await storeReport(where))).toMatch(/queue: LOCAL since .*asks wait on this machine/);
    expect(await storeCheck(where)).toMatchObject({
      status: 'warn',
      detail: expect.stringContaining('human queue is LOCAL'),
    });
    const outcome = await q.wait(request('make deploy'), 200);
    expect(outcome).toMatchObject({ kind: 'timeout' });
  });

  it('without a daemon, hookwise queue and approve read and answer the team store directly', async () => {
    const m = await machine();
    const waiting = m.wait(request('helm upgrade web'), 30_000);
    const p = makeProject();
    p.write(`${p.configDir}/config.yml`, `store:\n  url: ${db.cluster().url()}\n  team: ${TEAM}\n`);
    const listed = await until(
      async () =>
        JSON.parse((await queueList({ json: true }, p.env)).stdout) as {
          items: { id: string; backend: string; call: string }[];
        },
      (s) => s.items.some((i) => i.call === 'helm upgrade web'),
    );
    const item = listed.items.find((i) => i.call === 'helm upgrade web')!;
    expect(item.backend).toBe('store');
    expect((await queueList({}, p.env)).stdout).toContain(`${item.id}  `);
    expect(await queueAnswer('deny', item.id, {}, p.env)).toMatchObject({ exitCode: 0 });
    expect(await waiting).toMatchObject({ kind: 'answered', answer: { verdict: 'deny', via: 'cli' } });
    expect(await queueAnswer('approve', item.id, {}, p.env)).toMatchObject({
      exitCode: 1,
      stderr: expect.stringContaining('already denied on another machine'),
    });
  });

  it('rows are sanitized before they leave the machine, and again when read back', async () => {
    const store = await PostgresStore.open(settings(), 'e'.repeat(32));
    try {
      const secret = `ghp_${'A1b2C3d4E5'.repeat(3)}123456`;
      const item = {
        ...request(`curl -H 'Authorization: token ${secret}' x`),
        id: 'abcdefghjk',
        created: '',
        sessions: [],
        waiting: 1,
      };
      expect(JSON.stringify(outgoingItem(item))).not.toContain(secret);
      // A row written by hand with a secret in it is shown redacted; one with a bad shape is skipped, named.
      await store.query(
        `INSERT INTO @@.queue_items (id, dedupe, item, origin) VALUES ('zzzzzzzzzz', 'ab', $1::jsonb, 'x'), ('yyyyyyyyyy', 'cd', '{"role": 1}', 'x')`,
        [JSON.stringify({ ...outgoingItem(item), call: `echo ${secret}` })],
      );
      await store.query(
        `INSERT INTO @@.queue_waiters (item, origin, waiting, sessions, until_at) VALUES ('zzzzzzzzzz', 'x', 1, '["s"]', now() + interval '1 minute'), ('yyyyyyyyyy', 'x', 1, '["s"]', now() + interval '1 minute')`,
      );
      const got = await listShared(store);
      const hand = got.items.find((i) => i.id === 'zzzzzzzzzz');
      expect(hand?.call).toBe('echo <REDACTED>');
      expect(got.problems).toEqual(['the team store: queue item yyyyyyyyyy: no role (skipped)']);
      await store.query(`DELETE FROM @@.queue_items WHERE id IN ('zzzzzzzzzz', 'yyyyyyyyyy')`);
    } finally {
      await store.close();
    }
  });
});

describe.skipIf(skip !== undefined)('two daemons sharing the queue', () => {
  const running: RunningDaemon[] = [];
  afterEach(async () => {
    while (running.length > 0) await running.pop()!.close();
  });

  async function daemon(p: TestProject, http?: { port: number; token: string }): Promise<RunningDaemon> {
    const d = await serve({
      where: locations(p.env),
      embedding: false,
      store: settings(),
      ...(http === undefined ? {} : { http }),
    });
    running.push(d);
    await until(
      () => d.stats().queue_store?.mode,
      (m) => m === 'shared',
    );
    return d;
  }

  async function ask(p: TestProject, command: string) {
    const answer = await askDaemon(JSON.stringify(p.pre('Bash', { command })), locations(p.env), {
      headerTimeoutMs: 15_000,
    });
    if (answer.kind !== 'answered') throw new Error(`daemon did not answer: ${answer.kind}`);
    return (JSON.parse(answer.result.stdout) as { hookSpecificOutput: { permissionDecision: string } })
      .hookSpecificOutput.permissionDecision;
  }

  it('each machine lists every item; an answer on one machine (CLI or page) decides the call on the other; a second answer is refused', async () => {
    // Two machines: their own runtime and config directories and project paths (so two items).
    const a = makeProject();
    const b = makeProject();
    for (const p of [a, b]) {
      queueMode(p);
      p.register('s1', 'coder');
    }
    const token = randomBytes(24).toString('base64url');
    const [onPage] = await Promise.all([daemon(a, { port: 0, token }), daemon(b)]);
    const onA = ask(a, 'make deploy-fleet');
    const onB = ask(b, 'make deploy-fleet');
    type Listed = { items: { id: string; backend: string; project: string; waiting: number }[] };
    const listed = async (p: TestProject) =>
      until(
        async () => JSON.parse((await queueList({ json: true }, p.env)).stdout) as Listed,
        (s) => s.items.length === 2,
      );
    const seenByB = await listed(b);
    expect(seenByB.items.map((i) => i.backend)).toEqual(['store', 'store']);
    expect((await listed(a)).items.map((i) => i.id).sort()).toEqual(seenByB.items.map((i) => i.id).sort());
    const itemOf = (p: TestProject) => seenByB.items.find((i) => i.project === p.root)!.id;

    // a's call, approved on machine b
    expect(await queueAnswer('approve', itemOf(a), {}, b.env)).toMatchObject({ exitCode: 0 });
    expect(await onA).toBe('allow');
    expect(await queueAnswer('deny', itemOf(a), {}, a.env)).toMatchObject({
      exitCode: 1,
      stderr: expect.stringContaining('already approved on another machine'),
    });
    // b's call, denied on machine a's queue page
    const page = await fetch(`http://127.0.0.1:${onPage.httpPort}/queue/answer`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: itemOf(b), verdict: 'deny' }),
    });
    expect(await page.json()).toEqual({ ok: true, resolved: 1 });
    expect(await onB).toBe('deny');
  }, 30_000);
});
