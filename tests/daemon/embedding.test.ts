/** The daemon's embedding pool: started warm with it, reported in its health, closed with it. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { serve, type RunningDaemon } from '../../src/daemon/server.js';
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
    const d = await serve({ where: locations(p.env), embedding: { workerFile: worker.workerFile, embedderModule: worker.embedderModule } });
    running.push(d);
    const stats = await until(() => d.stats().embedding, (e) => e?.state === 'ready');
    expect(stats).toMatchObject({ state: 'ready', model: 'hash-bow-v1', calls: 0 });
    await d.close();
    expect(d.stats().embedding).toMatchObject({ state: 'stopped' });
  });

  it('keeps serving decisions when the model cannot load, and says why in its log', async () => {
    const p = makeProject();
    const log: string[] = [];
    const d = await serve({ where: locations(p.env), log: (l) => log.push(l), embedding: { workerFile: worker.workerFile, embedderModule: worker.embedderModule, model: { kind: 'huggingface', dir: `${p.root}/missing` } } });
    running.push(d);
    await until(() => d.stats().embedding, (e) => e?.state === 'failed');
    expect(log.join('\n')).toMatch(/embedding model cannot be loaded: no model\.onnx in .*; tier 2b passes every call on/);
  });

  it('has no pool when turned off', async () => {
    const p = makeProject();
    const d = await serve({ where: locations(p.env), embedding: false });
    running.push(d);
    expect(d.stats().embedding).toBeNull();
  });
});
