/** The daemon's embedding pool: started warm with it, reported in its health, closed with it. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { askDaemon } from '../../src/daemon/client.js';
import { serve, type RunningDaemon } from '../../src/daemon/server.js';
import { cacheKey } from '../../src/memory/cache.js';
import { appendRecords } from '../../src/memory/store.js';
import type { Sanitized } from '../../src/sanitize/index.js';
import { locations } from '../../src/util/locations.js';
import { buildWorker, type BuiltWorker } from '../embed/worker-build.js';
import { makeProject } from '../support/project.js';

let worker: BuiltWorker;
beforeAll(async () => {
  worker = await buildWorker();
});
afterAll(() => worker.remove());

const running: RunningDaemon[] = [];
afterEach(async () => {
  while (running.length > 0) await running.pop()!.close();
});

async function until<T>(probe: () => T, ok: (v: T) => boolean): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const v = probe();
    if (ok(v)) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
  return probe();
}

describe('the daemon’s embedding pool', () => {
  it('starts warm with the daemon and stops with it', async () => {
    const p = makeProject();
    const d = await serve({
      where: locations(p.env),
      embedding: { workerFile: worker.workerFile, embedderModule: worker.embedderModule },
    });
    running.push(d);
    const stats = await until(
      () => d.stats().embedding,
      (e) => e?.state === 'ready',
    );
    expect(stats).toMatchObject({ state: 'ready', model: 'hash-bow-v1', calls: 0 });
    await d.close();
    expect(d.stats().embedding).toMatchObject({ state: 'stopped' });
  });

  it('keeps serving decisions when the model cannot load, and says why in its log', async () => {
    const p = makeProject();
    const log: string[] = [];
    const d = await serve({
      where: locations(p.env),
      log: (l) => log.push(l),
      embedding: {
        workerFile: worker.workerFile,
        embedderModule: worker.embedderModule,
        model: { kind: 'huggingface', dir: `${p.root}/missing` },
      },
    });
    running.push(d);
    await until(
      () => d.stats().embedding,
      (e) => e?.state === 'failed',
    );
    expect(log.join('\n')).toMatch(
      /embedding model cannot be loaded: no model\.onnx in .*; tier 2b passes every call on/,
    );
  });

  it('serves tier 2b its port: a call near a remembered allow is allowed by similarity in the daemon, and asked in command mode', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    const subject = 'mytool lint src/api/server.ts' as Sanitized;
    appendRecords({ scope: 'project', projectRoot: p.root }, [
      {
        key: cacheKey('Bash', subject),
        tool: 'Bash',
        subject,
        commands: ['mytool'],
        role: 'coder',
        verdict: 'allow',
        reason: 'approved' as Sanitized,
        tier: 'human',
        scope: 'project',
        decided_by: 'human',
        ts: '2026-03-01T00:00:00.000Z',
      },
    ]);
    const payload = JSON.stringify(p.pre('Bash', { command: 'mytool lint src/web/client.ts' }, 's1'));
    const inProcess = await p.check(payload);
    expect(JSON.parse(inProcess.stdout).hookSpecificOutput.permissionDecision).toBe('ask');

    // the shipped model, in the worker as built for tests
    const d = await serve({ where: locations(p.env), embedding: { workerFile: worker.workerFile } });
    running.push(d);
    await until(
      () => d.stats().embedding,
      (e) => e?.state === 'ready',
    );
    const answer = await askDaemon(payload, locations(p.env));
    if (answer.kind !== 'answered') throw new Error(`daemon did not answer: ${answer.kind}`);
    const out = JSON.parse(answer.result.stdout).hookSpecificOutput as {
      permissionDecision: string;
      permissionDecisionReason: string;
    };
    expect(out.permissionDecision).toBe('allow');
    expect(out.permissionDecisionReason).toMatch(/tier embedding/);
    expect(d.stats().embedding).toMatchObject({ calls: 1, unavailable: 0 });
  });

  it('has no pool when turned off', async () => {
    const p = makeProject();
    const d = await serve({ where: locations(p.env), embedding: false });
    running.push(d);
    expect(d.stats().embedding).toBeNull();
  });
});
