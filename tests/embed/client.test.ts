import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddingService, type EmbeddingServiceOptions } from '../../src/embed/client.js';
import { indexLocation, ScopeIndex } from '../../src/embed/index.js';
import { cacheKey } from '../../src/memory/cache.js';
import { appendRecords } from '../../src/memory/store.js';
import { hashEmbedder } from './fixtures/hash-embedder.js';
import { buildWorker, type BuiltWorker } from './worker-build.js';
import { record } from './fixtures/records.js';

let worker: BuiltWorker;
beforeAll(async () => {
  worker = await buildWorker();
});
afterAll(() => worker.remove());

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

function dirs(): { projectRoot: string; userConfigDir: string; runtimeDir: string } {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'hookwise-embed-pool-')));
  cleanups.push(() => rmSync(base, { recursive: true, force: true }));
  const projectRoot = join(base, 'project');
  mkdirSync(projectRoot, { recursive: true });
  return { projectRoot, userConfigDir: join(base, 'config'), runtimeDir: join(base, 'runtime') };
}

function service(d: ReturnType<typeof dirs>, options: Partial<EmbeddingServiceOptions> = {}): EmbeddingService {
  const s = new EmbeddingService({
    places: d,
    workerFile: worker.workerFile,
    embedderModule: worker.embedderModule,
    saveDelayMs: 50,
    ...options,
  });
  cleanups.push(() => s.close());
  return s;
}

const query = (text: string) => ({ text, tool: 'Bash', k: 10 });

describe('EmbeddingService with the shipped model', () => {
  // the real loader (embed/model.ts) in the real worker: no test embedder
  const real = (d: ReturnType<typeof dirs>, options: Partial<EmbeddingServiceOptions> = {}): EmbeddingService => {
    const s = new EmbeddingService({ places: d, workerFile: worker.workerFile, saveDelayMs: 50, ...options });
    cleanups.push(() => s.close());
    return s;
  };

  it('finds a remembered command nearest to a variant of it', async () => {
    const d = dirs();
    appendRecords({ scope: 'project', projectRoot: d.projectRoot }, [
      record('rm -rf /tmp/build-output'),
      record('npm run test'),
      record('docker compose up -d'),
      record('git log --oneline'),
    ]);
    const s = real(d);
    expect(await s.start()).toMatchObject({ ok: true });
    const got = await s.portFor(d.projectRoot, undefined).nearest(query('rm -rf /tmp/build-cache'));
    expect('matches' in got && got.matches[0]!.key).toBe(cacheKey('Bash', 'rm -rf /tmp/build-output'));
    expect('matches' in got && got.matches[0]!.similarity).toBeGreaterThan(0.5);
  });

  it('answers unavailable for a model directory that holds no model', async () => {
    const d = dirs();
    const s = real(d, { model: { kind: 'huggingface', dir: join(d.projectRoot, 'no-model-here') } });
    expect(await s.start()).toMatchObject({
      ok: false,
      why: expect.stringMatching(/embedding model cannot be loaded/),
    });
    expect(await s.portFor(d.projectRoot, undefined).nearest(query('npm run test'))).toEqual({
      unavailable: expect.stringMatching(/cannot be loaded/),
    });
  });
});

describe('EmbeddingService', () => {
  it('answers the nearest records of every scope, and a decision learned is found by the next call', async () => {
    const d = dirs();
    appendRecords({ scope: 'project', projectRoot: d.projectRoot }, [
      record('rm -rf /tmp/build-output'),
      record('npm run test'),
    ]);
    appendRecords({ scope: 'user', userConfigDir: d.userConfigDir }, [
      record('cargo build --release', { scope: 'user' }),
    ]);
    const s = service(d);
    expect(await s.start()).toEqual({ ok: true, model: 'hash-bow-v1', dimensions: 64 });
    const port = s.portFor(d.projectRoot, 'session-1');
    const got = await port.nearest(query('rm -rf /tmp/build-output'));
    expect(got).toEqual({
      matches: expect.arrayContaining([
        { key: cacheKey('Bash', 'rm -rf /tmp/build-output'), similarity: expect.closeTo(1, 5) },
      ]),
    });
    const user = await port.nearest(query('cargo build --release'));
    expect('matches' in user && user.matches[0]!.key).toBe(cacheKey('Bash', 'cargo build --release'));

    appendRecords({ scope: 'session', runtimeDir: d.runtimeDir, sessionId: 'session-1' }, [
      record('docker compose up -d', { scope: 'session' }),
    ]);
    const learned = await port.nearest(query('docker compose up -d'));
    expect('matches' in learned && learned.matches[0]).toEqual({
      key: cacheKey('Bash', 'docker compose up -d'),
      similarity: expect.closeTo(1, 5),
    });
    // another session does not see it
    const other = await s.portFor(d.projectRoot, 'session-2').nearest(query('docker compose up -d'));
    expect('matches' in other && other.matches.map((m) => m.key)).not.toContain(
      cacheKey('Bash', 'docker compose up -d'),
    );

    // the worker embeds texts on request too (one vector of the model's length per text)
    const vectors = await s.embed(['npm run test', 'ls']);
    expect(vectors.map((v) => v.length)).toEqual([64, 64]);

    await s.close();
    // saved at close: the project's index is on disk, checked and complete
    const loaded = ScopeIndex.load(
      indexLocation({ scope: 'project', projectRoot: d.projectRoot }, d),
      d,
      hashEmbedder(),
    );
    expect(loaded.ok && loaded.index.size).toBe(2);
  });

  it('builds a large scope in background steps and answers unavailable until it is complete', async () => {
    const d = dirs();
    appendRecords(
      { scope: 'project', projectRoot: d.projectRoot },
      Array.from({ length: 300 }, (_, i) => record(`make target-${i}`)),
    );
    const s = service(d, { budget: 50, buildStep: 100 });
    await s.start();
    const port = s.portFor(d.projectRoot, undefined);
    const first = await port.nearest(query('make target-7'));
    expect(first).toEqual({
      unavailable: expect.stringMatching(/index of the project scope is being built \(250 records to go\)/),
    });
    let got = first;
    for (let i = 0; i < 50 && 'unavailable' in got; i++) {
      await new Promise((r) => setTimeout(r, 20));
      got = await port.nearest(query('make target-7'));
    }
    // (the test embedder hashes words into 64 dimensions: other targets may tie with it)
    expect(got).toEqual({
      matches: expect.arrayContaining([{ key: cacheKey('Bash', 'make target-7'), similarity: expect.closeTo(1, 5) }]),
    });
  });

  it.each([
    ['the model cannot load', 'missing', /embedding model cannot be loaded/],
    ['inference throws', 'throws', /embedding worker failed: inference failed on purpose/],
  ])('answers unavailable when %s', async (_what, dir, why) => {
    const d = dirs();
    appendRecords({ scope: 'project', projectRoot: d.projectRoot }, [record('npm run test')]);
    const s = service(d, { model: { kind: 'huggingface', dir: join(d.projectRoot, dir) } });
    await s.start();
    expect(await s.portFor(d.projectRoot, undefined).nearest(query('npm run test'))).toEqual({
      unavailable: expect.stringMatching(why),
    });
  });

  it('answers unavailable when the worker dies, and the pool starts a new one', async () => {
    const d = dirs();
    const s = service(d, { model: { kind: 'huggingface', dir: join(d.projectRoot, 'crashes') } });
    expect(await s.start()).toMatchObject({ ok: true });
    appendRecords({ scope: 'project', projectRoot: d.projectRoot }, [record('npm run test')]);
    const port = s.portFor(d.projectRoot, undefined);
    expect(await port.nearest(query('npm run test'))).toEqual({
      unavailable: expect.stringMatching(/embedding worker failed/),
    });
    expect(await port.nearest(query('npm run test'))).toEqual({
      unavailable: expect.stringMatching(/embedding worker failed/),
    });
    expect(s.stats()).toMatchObject({ state: 'ready', calls: 2, unavailable: 2 });
  });

  it('answers unavailable when the queue is full, and when no answer comes in time', async () => {
    const d = dirs();
    appendRecords(
      { scope: 'project', projectRoot: d.projectRoot },
      Array.from({ length: 2000 }, (_, i) => record(`make target-${i}`)),
    );
    const s = service(d, { maxQueue: 1, timeoutMs: 1, budget: 100_000 });
    await s.start();
    const port = s.portFor(d.projectRoot, undefined);
    const answers = await Promise.all([1, 2, 3, 4].map(() => port.nearest(query('make target-1'))));
    const reasons = answers.map((a) => ('unavailable' in a ? a.unavailable : 'matches'));
    expect(reasons.some((r) => /did not answer within 1 ms/.test(r))).toBe(true);
    expect(reasons.some((r) => /queue/i.test(r))).toBe(true);
  });

  it('restarts the worker with the model the policy names, and rebuilds the indexes for it', async () => {
    const d = dirs();
    appendRecords({ scope: 'project', projectRoot: d.projectRoot }, [record('npm run test')]);
    const log: string[] = [];
    const s = service(d, { log: (l) => log.push(l) });
    await s.start();
    expect(await s.portFor(d.projectRoot, undefined).nearest(query('npm run test'))).toMatchObject({
      matches: [{ similarity: expect.closeTo(1, 5) }],
    });
    await s.close().then(
      () => undefined,
      () => undefined,
    ); // saved: the index on disk is the first model's
    const t = service(d, { log: (l) => log.push(l) });
    await t.start();
    const other = { embedding: { model: { kind: 'huggingface' as const, dir: join(d.projectRoot, 'other-id') } } };
    expect(await t.portFor(d.projectRoot, undefined, other).nearest(query('npm run test'))).toEqual({
      unavailable: expect.stringMatching(/being loaded/),
    });
    for (let i = 0; i < 100 && t.stats().state !== 'ready'; i++) await new Promise((r) => setTimeout(r, 20));
    expect(t.stats()).toMatchObject({ state: 'ready', model: 'hash-bow-v2' });
    expect(await t.portFor(d.projectRoot, undefined, other).nearest(query('npm run test'))).toMatchObject({
      matches: [{ similarity: expect.closeTo(1, 5) }],
    });
    expect(log.join('\n')).toMatch(
      /embedding model changed to the model in .*other-id: restarting the embedding worker/,
    );
    expect(log.join('\n')).toMatch(
      /embed-project\.hnsw: built by another model \(hash-bow-v1, now hash-bow-v2\); rebuilding it/,
    );
  });

  it('answers unavailable before it is started and after it is closed', async () => {
    const d = dirs();
    const s = service(d);
    expect(await s.portFor(d.projectRoot, undefined).nearest(query('ls'))).toEqual({
      unavailable: expect.stringMatching(/not started/),
    });
    await s.start();
    await s.close();
    expect(await s.portFor(d.projectRoot, undefined).nearest(query('ls'))).toEqual({
      unavailable: expect.stringMatching(/stopping/),
    });
  });
});

describe('InProcessEmbedding', () => {
  it('answers as the pool does, in this process, and serves the engine', async () => {
    const { InProcessEmbedding } = await import('../../src/embed/in-process.js');
    const d = dirs();
    appendRecords({ scope: 'project', projectRoot: d.projectRoot }, [
      record('rm -rf /tmp/build-output'),
      record('npm run test'),
    ]);
    const embedding = new InProcessEmbedding(d, hashEmbedder());
    const got = await embedding.portFor(d.projectRoot, undefined).nearest(query('npm run test'));
    expect(got).toEqual({
      matches: expect.arrayContaining([{ key: cacheKey('Bash', 'npm run test'), similarity: expect.closeTo(1, 5) }]),
    });
    appendRecords({ scope: 'project', projectRoot: d.projectRoot }, [record('cargo build --release')]);
    const learned = await embedding.portFor(d.projectRoot, undefined).nearest(query('cargo build --release'));
    expect('matches' in learned && learned.matches[0]!.key).toBe(cacheKey('Bash', 'cargo build --release'));
    expect(embedding.save()).toEqual({ saved: 1, failed: 0 });
  });
});
