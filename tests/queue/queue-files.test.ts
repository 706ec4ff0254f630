/**
 * Tier 4 through the files (no daemon): `hookwise check` in process waits in the runtime directory's queue, and
 * `hookwise approve / deny` (src/cli/queue.ts) answers it.
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { queueAnswer, queueList } from '../../src/cli/queue.js';
import { loadScope } from '../../src/memory/store.js';
import { FileQueue } from '../../src/queue/file-queue.js';
import { TIMEOUT_REASON } from '../../src/queue/tier.js';
import { makeProject, type TestProject } from '../support/project.js';
import { targetOf } from '../support/memory.js';
import { fileItems, queueMode, until } from './support.js';

const learned = (p: TestProject, scope: 'user' | 'session' | 'project' = 'user') =>
  loadScope(targetOf(p, scope)).records;
const bash = (p: TestProject, command: string, session = 's1') => p.pre('Bash', { command }, session);

describe('the human queue, file-backed', () => {
  it('approve: the waiting call is allowed at once and the approval is remembered (decided_by human)', async () => {
    const p = makeProject();
    queueMode(p);
    p.register('s1', 'coder');
    const waiting = p.check(bash(p, 'make deploy-staging --jobs 4'));
    const [item] = await fileItems(p);
    expect(item).toMatchObject({
      role: 'coder',
      tool: 'Bash',
      call: 'make deploy-staging --jobs 4',
      tier: 'default',
      waiting: 1,
      sessions: ['s1'],
    });
    const answered = await queueAnswer('approve', item!.id, {}, p.env);
    expect(answered).toMatchObject({
      exitCode: 0,
      stdout: expect.stringMatching(/approved queue item .* 1 waiting call answered; remembered as allow/),
    });
    // The scope by name (memory.learn_scope: user by default), as the waiting call's own note says it.
    expect(answered.stdout).toMatch(/remembered as allow in the user scope \(memory\.learn_scope, built-in\)$/);
    const result = await waiting;
    expect(`${result.stderr ?? ''}${result.decision?.reason ?? ''}`).toMatch(/in the user scope/);
    expect(result.decision).toMatchObject({ verdict: 'allow', tier: 'human', rule: { id: 'human:approve' } });
    expect(JSON.parse(result.stdout)).toMatchObject({ hookSpecificOutput: { permissionDecision: 'allow' } });
    expect(learned(p)).toEqual([
      expect.objectContaining({
        verdict: 'allow',
        tier: 'human',
        decided_by: 'human',
        role: 'coder',
        subject: 'make deploy-staging --jobs 4',
      }),
    ]);
    // Remembered: the next identical call is allowed by memory without waiting.
    expect((await p.check(bash(p, 'make deploy-staging --jobs 4'))).decision).toMatchObject({
      verdict: 'allow',
      tier: 'exact-cache',
    });
    expect(new FileQueue(p.runtimeDir).list()).toEqual([]);
  });

  it('deny: denied at once, remembered as deny', async () => {
    const p = makeProject();
    queueMode(p);
    p.register('s1', 'coder');
    const waiting = p.check(bash(p, 'make deploy-prod'));
    const [item] = await fileItems(p);
    expect((await queueAnswer('deny', item!.id, {}, p.env)).exitCode).toBe(0);
    expect((await waiting).decision).toMatchObject({ verdict: 'deny', tier: 'human', rule: { id: 'human:deny' } });
    expect(learned(p)).toEqual([expect.objectContaining({ verdict: 'deny', decided_by: 'human' })]);
  });

  it('--always-ask: allowed now, remembered as ask, so the next identical call waits for a human again', async () => {
    const p = makeProject();
    queueMode(p);
    p.register('s1', 'coder');
    const first = p.check(bash(p, 'make release'));
    const [item] = await fileItems(p);
    await queueAnswer('approve', item!.id, { alwaysAsk: true }, p.env);
    expect((await first).decision).toMatchObject({ verdict: 'allow', tier: 'human', rule: { id: 'human:always-ask' } });
    expect(learned(p)).toEqual([expect.objectContaining({ verdict: 'ask', decided_by: 'human' })]);
    const second = p.check(bash(p, 'make release'));
    const [again] = await fileItems(p);
    expect(again).toMatchObject({ tier: 'exact-cache' });
    await queueAnswer('deny', again!.id, {}, p.env);
    expect((await second).decision).toMatchObject({ verdict: 'deny', tier: 'human' });
  });

  it('--scope and --add-rule: remembered where the human says, as an override for the exact call', async () => {
    const p = makeProject();
    queueMode(p);
    p.register('s1', 'coder');
    const waiting = p.check(bash(p, 'make docs-all'));
    const [item] = await fileItems(p);
    await queueAnswer('approve', item!.id, { addRule: true, scope: 'project' }, p.env);
    expect((await waiting).decision).toMatchObject({ verdict: 'allow', tier: 'human' });
    expect(learned(p)).toEqual([]);
    expect(learned(p, 'project')).toEqual([
      expect.objectContaining({
        tier: 'override',
        subject: 'Bash(make docs-all)',
        verdict: 'allow',
        decided_by: 'human',
        scope: 'project',
      }),
    ]);
    expect((await p.check(bash(p, 'make docs-all'))).decision).toMatchObject({ verdict: 'allow', tier: 'override' });
  });

  it('a pack ask waits for the human too, and the answer holds for that call only (the pack asks again next time)', async () => {
    const p = makeProject();
    queueMode(p);
    p.register('s1', 'coder');
    const waiting = p.check(bash(p, 'git push --force origin feature-x'));
    const [item] = await fileItems(p);
    expect(item).toMatchObject({ tier: 'rules', rule: expect.stringMatching(/git/) });
    const out = await queueAnswer('approve', item!.id, {}, p.env);
    expect(out.stdout).toMatch(/for these calls only/);
    expect((await waiting).decision).toMatchObject({ verdict: 'allow', tier: 'human' });
    expect(learned(p)).toEqual([]);
  });

  it('a deny is never queued', async () => {
    const p = makeProject();
    queueMode(p);
    p.register('s1', 'coder');
    const result = await p.check(p.pre('Write', { file_path: join(p.root, 'tests/a.test.ts'), content: 'x' }));
    expect(result.decision).toMatchObject({ verdict: 'deny', tier: 'path-policy' });
    expect(new FileQueue(p.runtimeDir).list()).toEqual([]);
  });

  it('no answer: denied after the timeout with "Permission request timed out — no human response", and the item goes', async () => {
    const p = makeProject();
    queueMode(p, '1s');
    p.register('s1', 'coder');
    const result = await p.check(bash(p, 'make deploy-staging'));
    expect(result.decision).toMatchObject({ verdict: 'deny', tier: 'human', rule: { id: 'human:timeout' } });
    expect(result.decision!.reason).toMatch(/^Permission request timed out — no human response/);
    expect(result.decision!.reason.startsWith(TIMEOUT_REASON)).toBe(true);
    expect(new FileQueue(p.runtimeDir).list()).toEqual([]);
    expect(new FileQueue(p.runtimeDir).recent()[0]).toMatchObject({ outcome: 'timed out' });
    expect(learned(p)).toEqual([]);
  });

  it('identical calls from different sessions are one item: one answer resolves them all', async () => {
    const p = makeProject();
    queueMode(p);
    for (const s of ['s1', 's2', 's3']) p.register(s, 'coder');
    const calls = ['s1', 's2', 's3'].map((s) => p.check(bash(p, 'make deploy-staging', s)));
    const items = await until(
      () => new FileQueue(p.runtimeDir).list(),
      (list) => list.length === 1 && list[0]!.waiting === 3,
    );
    expect(items[0]!.sessions).toEqual(expect.arrayContaining(['s1', 's2', 's3']));
    const out = await queueAnswer('approve', items[0]!.id, {}, p.env);
    expect(out.stdout).toMatch(/3 waiting calls answered/);
    for (const r of await Promise.all(calls)) expect(r.decision).toMatchObject({ verdict: 'allow', tier: 'human' });
    // Remembered once, by the call that made the item.
    expect(learned(p)).toHaveLength(1);
  });

  it('the same command for another role or in another project is another item', async () => {
    const p = makeProject();
    queueMode(p);
    p.register('s1', 'coder');
    p.register('s2', 'reviewer');
    const calls = [p.check(bash(p, 'make deploy-staging', 's1')), p.check(bash(p, 'make deploy-staging', 's2'))];
    const items = await until(
      () => new FileQueue(p.runtimeDir).list(),
      (list) => list.length === 2,
    );
    for (const item of items) await queueAnswer('deny', item.id, {}, p.env);
    for (const r of await Promise.all(calls)) expect(r.decision).toMatchObject({ verdict: 'deny', tier: 'human' });
  });

  it('nothing unsanitized reaches the queue: a secret in the command is redacted in the item and its file', async () => {
    const p = makeProject();
    queueMode(p);
    p.register('s1', 'coder');
    const secret = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
    const waiting = p.check(bash(p, `make deploy TOKEN=${secret}`));
    const [item] = await fileItems(p);
    const files = readdirSync(join(p.runtimeDir, 'queue', 'items'))
      .map((f) => readFileSync(join(p.runtimeDir, 'queue', 'items', f), 'utf8'))
      .join('');
    expect(files).not.toContain(secret);
    expect(item!.call).toContain('<REDACTED>');
    expect(JSON.stringify((await queueList({ json: true }, p.env)).stdout)).not.toContain(secret);
    await queueAnswer('deny', item!.id, {}, p.env);
    await waiting;
  });

  it('an unknown id is refused with a clear error and exit 1; so is something that is not an id', async () => {
    const p = makeProject();
    expect(await queueAnswer('approve', 'abcdefghij', {}, p.env)).toMatchObject({
      exitCode: 1,
      stderr: expect.stringMatching(/no pending queue item abcdefghij: it was answered, timed out, or never existed/),
    });
    expect(await queueAnswer('deny', '../../etc', {}, p.env)).toMatchObject({
      exitCode: 1,
      stderr: expect.stringMatching(/is not a queue item id/),
    });
    await expect(queueAnswer('deny', 'abcdefghij', { alwaysAsk: true }, p.env)).rejects.toThrow(
      /--always-ask goes with approve/,
    );
  });

  it('a corrupt answer file is a named error and the call is denied, never allowed', async () => {
    const p = makeProject();
    queueMode(p);
    p.register('s1', 'coder');
    const waiting = p.check(bash(p, 'make deploy-staging'));
    const [item] = await fileItems(p);
    writeFileSync(
      join(p.runtimeDir, 'queue', 'answers', `${item!.id}.json`),
      '{"version":1,"answer":{"verdict":"approve"',
      { mode: 0o600 },
    );
    const result = await waiting;
    expect(result.decision).toMatchObject({ verdict: 'deny', tier: 'human', rule: { id: 'human:unavailable' } });
    expect(result.decision!.reason).toMatch(
      /QUEUE_CORRUPT: the answer .*answers\/[a-z2-7]{10}\.json is not valid JSON/,
    );
  });

  it('a corrupt item file: listed as a named problem (exit 1), answering it is refused, its call is denied on timeout', async () => {
    const p = makeProject();
    queueMode(p, '2s');
    p.register('s1', 'coder');
    const waiting = p.check(bash(p, 'make deploy-staging'));
    const [item] = await fileItems(p);
    const file = join(p.runtimeDir, 'queue', 'items', `${item!.id}.json`);
    writeFileSync(file, 'garbage');
    // The daemon's lock-free view reports it the same way.
    const peeked = new FileQueue(p.runtimeDir);
    expect(peeked.peek()).toEqual([]);
    expect(peeked.problems).toEqual([expect.stringMatching(/queue item .* is not valid JSON/)]);
    const listed = await queueList({}, p.env);
    expect(listed).toMatchObject({
      exitCode: 1,
      stderr: expect.stringMatching(/QUEUE_CORRUPT|queue item .* is not valid JSON/),
    });
    await expect(queueAnswer('approve', item!.id, {}, p.env)).rejects.toThrow(/queue item .* is not valid JSON/);
    const result = await waiting;
    expect(result.decision).toMatchObject({ verdict: 'deny', tier: 'human' });
  });

  it('a lock left by a dead process is recognised and broken; a call left by a dead process is no longer counted', async () => {
    const p = makeProject();
    const q = new FileQueue(p.runtimeDir);
    expect(q.list()).toEqual([]); // makes the directories
    // A lock whose holder is gone (pid 2^22 - 1 is not running here).
    writeFileSync(join(q.dir, 'lock'), `4194303 1 ${(await import('node:os')).hostname()}\n`, { mode: 0o600 });
    // An item whose only waiter died.
    const dead = {
      version: 1,
      item: {
        id: 'deadbeef22',
        dedupe: 'x',
        created: new Date().toISOString(),
        sessions: ['s9'],
        waiting: 1,
        role: 'coder',
        tool: 'Bash',
        call: 'make x',
        reason: 'r',
        tier: 'default',
        project: '/p',
      },
      waiters: [{ pid: 4194303, start: '1', host: (await import('node:os')).hostname() }],
    };
    writeFileSync(join(q.dir, 'items', 'deadbeef22.json'), JSON.stringify(dead), { mode: 0o600 });
    expect(q.list()).toEqual([]);
    expect(q.recent()[0]).toMatchObject({ id: 'deadbeef22', outcome: 'timed out' });
  });

  it('host-prompt (the default) leaves asks to the host as before', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    expect((await p.check(bash(p, 'make deploy-staging'))).decision).toMatchObject({ verdict: 'ask', tier: 'default' });
    expect(new FileQueue(p.runtimeDir).list()).toEqual([]);
  });
});
