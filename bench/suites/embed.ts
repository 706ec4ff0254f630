/**
 * Tier 2b's machinery on the real code paths, with the shipped model (embed/model.ts, builtin):
 *
 *   - embed.one-call: `embedder.embed([text])` for one synthetic command, in process (what the worker does
 *     per call before searching);
 *   - embed.index-build-10k: a ScopeIndex built from 10k distinct synthetic commands (embedded in batches,
 *     inserted into HNSW), in process; the note has the RSS it added and the saved index's size;
 *   - hnsw.top5-10k / hnsw.top5-100k: `ScopeIndex.search` top-5 for the embedding of an unseen command
 *     (hnswlib searchKnn, cosine, M 32, ef 128, the tool filter when needed), in process; 100k in a full run only;
 *   - embed.nearest-roundtrip: the daemon's EmbeddingService (the built dist/embed.worker.cjs in its warm
 *     piscina worker) answering `nearest()` for a project with a 10k-record store whose index is built:
 *     the scope files' freshness check, the embedding, the search of every scope and the merge, plus the
 *     hop to the worker thread and back. Every answer must be matches, not unavailable;
 *   - embed.daemon-hit: the daemon's whole decision for a call that only tier 2b decides — engine.handle with
 *     the daemon's engine options and that pool, on a Bash call differing from a remembered allow only in a
 *     file operand (not close enough for Jaccard), in that 10k-record project: JSON, session, policy, parse,
 *     memory, the cascade down to tier 2b's round trip, audit. Every answer must be an embedding allow.
 */
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddingService, defaultWorkerFile } from '../../src/embed/client.js';
import { ScopeIndex, indexLocation, type IndexEntry } from '../../src/embed/index.js';
import { shortModelId, type Embedder } from '../../src/embed/embedder.js';
import { loadEmbedder } from '../../src/embed/model.js';
import { cacheKey } from '../../src/memory/cache.js';
import { appendRecords, type DecisionRecord } from '../../src/memory/store.js';
import type { Sanitized } from '../../src/sanitize/index.js';
import { Engine } from '../../src/engine/engine.js';
import { SessionRegistry } from '../../src/session/registry.js';
import type { Locations } from '../../src/util/locations.js';
import { runInProcess } from '../in-process.js';
import { daemonEngineOptions } from './daemon.js';
import { summarize } from '../stats.js';
import { commandNames, syntheticCommands } from '../synthetic-commands.js';
import type { BenchSize, Measurement, PerSize, Suite } from '../suite.js';

/** Timed calls of the pool's round trip and of the daemon's tier-2b decision (after as many to warm up). */
const ROUND_TRIPS: PerSize<number> = { quick: 200, standard: 500, full: 2000 };
const DAEMON_HITS: PerSize<number> = { quick: 100, standard: 300, full: 1000 };

const QUERIES = 512;

/** Distinct synthetic commands as index entries keyed like memory's records (cacheKey of tool and subject). */
function entries(n: number, seed: number): IndexEntry[] {
  return syntheticCommands(n, seed).map((text) => ({ key: cacheKey('Bash', text), tool: 'Bash', text }));
}

/**
 * Share of the exact top-5 (by cosine over every stored vector) that the HNSW search returns, ties counted
 * as hits: a returned entry as similar as the exact 5th is as good an answer.
 */
function recallAt5(index: ScopeIndex, keys: readonly string[], queries: readonly Float32Array[]): number {
  const stored = keys.map((key) => index.vectorOf(key)!);
  const cosine = (v: Float32Array, q: Float32Array): number => {
    let dot = 0;
    for (let i = 0; i < v.length; i++) dot += v[i]! * q[i]!;
    return dot;
  };
  let hit = 0;
  let total = 0;
  for (const q of queries.slice(0, 100)) {
    const exact = stored.map((v) => cosine(v, q)).sort((a, b) => b - a);
    const fifth = exact[Math.min(4, exact.length - 1)]!;
    const found = index.search(q, 'Bash', 5);
    hit += found.filter((m) => m.similarity >= fifth - 1e-5).length;
    total += Math.min(5, exact.length);
  }
  return hit / total;
}

/** Embeddings of commands the index does not hold (another seed than the indexed ones). */
function queryVectors(embedder: Embedder): Promise<Float32Array[]> {
  return embedder.embed(syntheticCommands(QUERIES, 97));
}

/** µs rows from runInProcess → ms. */
const inMs = (m: Measurement): Measurement => ({ ...m, median: m.median / 1000, p99: m.p99 / 1000 });

async function buildRow(
  embedder: Embedder,
  list: readonly IndexEntry[],
  progress: (m: string) => void,
): Promise<{ index: ScopeIndex; ms: number; note: string }> {
  const n = list.length;
  progress(`embed: building an HNSW index of ${n} synthetic commands…`);
  const rssBefore = process.memoryUsage.rss();
  let peak = rssBefore;
  const start = process.hrtime.bigint();
  const index = ScopeIndex.empty('project', embedder);
  await index.sync(list, embedder, Infinity, () => (peak = Math.max(peak, process.memoryUsage.rss())));
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  peak = Math.max(peak, process.memoryUsage.rss());
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'hookwise-bench-embed-')));
  try {
    const places = { runtimeDir: join(dir, 'runtime'), userConfigDir: join(dir, 'config') };
    const at = indexLocation({ scope: 'project', projectRoot: dir }, places);
    index.save(at, places);
    const bytes = statSync(at.hnsw).size + statSync(at.meta).size;
    return {
      index,
      ms,
      note: `${index.size} entries, ${embedder.dimensions} dimensions; RSS +${((peak - rssBefore) / 1048576).toFixed(0)} MB while building; ${(bytes / 1048576).toFixed(1)} MB on disk`,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function searchRow(
  id: 'hnsw.top5-10k' | 'hnsw.top5-100k',
  index: ScopeIndex,
  queries: Float32Array[],
  size: BenchSize,
): Promise<Measurement> {
  let i = 0;
  const [m] = await runInProcess(
    [{ id, batch: 8, fn: () => index.search(queries[i++ % queries.length]!, 'Bash', 5).length || undefined }],
    size,
  );
  return { ...inMs(m!), note: `${index.size} entries, k 5, ef 128` };
}

/**
 * The warm pool's round trip. The project's store holds the 10k commands the build row indexed (as allow
 * records), and that index is saved where the project's index lives: the worker loads it instead of
 * embedding 10k records again.
 */
async function roundTripRow(
  built: ScopeIndex,
  list: readonly IndexEntry[],
  size: BenchSize,
  progress: (m: string) => void,
): Promise<Measurement[]> {
  const workerFile = defaultWorkerFile();
  if (!existsSync(workerFile)) throw new Error(`bench: ${workerFile} not found; build it first (npm run build)`);
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'hookwise-bench-embed-pool-')));
  const projectRoot = join(base, 'project');
  const places = { runtimeDir: join(base, 'runtime'), userConfigDir: join(base, 'config') };
  mkdirSync(join(projectRoot, '.git'), { recursive: true });
  mkdirSync(places.runtimeDir, { recursive: true, mode: 0o700 });
  const service = new EmbeddingService({ places, workerFile, timeoutMs: 60_000 });
  try {
    progress('embed: writing a 10k-record store and saving its index…');
    const project = { scope: 'project' as const, projectRoot };
    const ts = new Date().toISOString();
    appendRecords(
      project,
      list.map((e): DecisionRecord => ({
        key: e.key,
        tool: e.tool,
        subject: e.text as Sanitized,
        commands: commandNames(e.text),
        role: 'coder',
        verdict: 'allow',
        reason: 'approved' as Sanitized,
        tier: 'human',
        scope: 'project',
        decided_by: 'human',
        ts,
      })),
    );
    built.save(indexLocation(project, places), places);
    const started = await service.start();
    if (!started.ok) throw new Error(`bench: the embedding pool did not start: ${started.why}`);
    const port = service.portFor(projectRoot, undefined);
    const texts = syntheticCommands(QUERIES, 97);
    let i = 0;
    const ask = async (): Promise<number> => {
      const got = await port.nearest({ text: texts[i++ % texts.length]!, tool: 'Bash', k: 5 });
      if ('unavailable' in got) throw new Error(`bench: nearest() was unavailable: ${got.unavailable}`);
      if (got.matches.length === 0) throw new Error('bench: nearest() found nothing in a 10k-record index');
      return got.matches.length;
    };
    await ask(); // the worker loads the saved index (and finds the store's keys all in it)
    const n = ROUND_TRIPS[size];
    for (let j = 0; j < n; j++) await ask(); // warm-up
    const times: number[] = [];
    for (let j = 0; j < n; j++) {
      const start = process.hrtime.bigint();
      await ask();
      times.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
    const stats = service.stats();
    if (stats.unavailable > 0)
      throw new Error(`bench: ${stats.unavailable} calls were unavailable: ${stats.lastUnavailable}`);
    const roundTrip: Measurement = {
      id: 'embed.nearest-roundtrip',
      ...summarize(times),
      note: `${built.size} indexed records (project scope; user and org empty), k 5, one worker`,
    };
    return [roundTrip, await daemonHitRow(service, { ...places, home: base }, projectRoot, size)];
  } finally {
    await service.close();
    rmSync(base, { recursive: true, force: true });
  }
}

/** The daemon deciding a call by tier 2b end to end, in process (the way daemon.cache-hit times an exact-cache hit). */
async function daemonHitRow(
  service: EmbeddingService,
  where: Locations,
  projectRoot: string,
  size: BenchSize,
): Promise<Measurement> {
  const sessionId = 'bench-embed-hit';
  new SessionRegistry(where.runtimeDir).update(sessionId, (existing, now) => ({
    session_id: sessionId,
    role: 'coder',
    disabled: false,
    registered_at: existing?.registered_at ?? now,
    updated_at: now,
  }));
  const remembered = 'acme-lint check --strict src/module1.ts';
  appendRecords({ scope: 'project', projectRoot }, [
    {
      key: cacheKey('Bash', remembered),
      tool: 'Bash',
      subject: remembered as Sanitized,
      commands: ['acme-lint'],
      role: 'coder',
      verdict: 'allow',
      reason: 'approved' as Sanitized,
      tier: 'human',
      scope: 'project',
      decided_by: 'human',
      ts: new Date().toISOString(),
    },
  ]);
  const payload = JSON.stringify({
    session_id: sessionId,
    transcript_path: join(where.home, 't.jsonl'),
    cwd: projectRoot,
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command: 'acme-lint check --strict src/module2.ts' },
  });
  const engine = new Engine(where, { ...daemonEngineOptions(), embedding: service });
  const decide = async (): Promise<void> => {
    const out = await engine.handle(payload, { host: 'claude' });
    if (out.decision?.tier !== 'embedding' || out.decision.verdict !== 'allow')
      throw new Error(
        `bench: the engine answered ${out.decision?.verdict ?? 'nothing'} from tier ${out.decision?.tier ?? '-'} (${out.decision?.reason ?? ''}); expected an embedding allow`,
      );
  };
  await decide(); // the new record reaches the index (the first call embeds it inline)
  const n = DAEMON_HITS[size];
  for (let j = 0; j < n; j++) await decide();
  const times: number[] = [];
  for (let j = 0; j < n; j++) {
    const start = process.hrtime.bigint();
    await decide();
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return {
    id: 'embed.daemon-hit',
    ...summarize(times),
    note: `engine.handle on \`acme-lint check --strict src/module2.ts\` near the remembered \`${remembered}\` in a 10k-record project; every answer an embedding allow`,
  };
}

export const embedSuite: Suite = {
  name: 'embed',
  measures: [
    'embed.one-call',
    'embed.index-build-10k',
    'hnsw.top5-10k',
    'hnsw.top5-100k',
    'embed.nearest-roundtrip',
    'embed.daemon-hit',
  ],
  async run({ size, large, progress }) {
    progress('embed: loading the builtin model…');
    const embedder = await loadEmbedder({ kind: 'builtin' });
    const texts = syntheticCommands(QUERIES, 5);
    let i = 0;
    const [one] = await runInProcess(
      [
        {
          id: 'embed.one-call',
          batch: 1,
          async: true,
          fn: async () => (await embedder.embed([texts[i++ % texts.length]!])).length,
        },
      ],
      size,
    );
    const rows: Measurement[] = [
      { ...inMs(one!), note: `model ${shortModelId(embedder.id)}, ${embedder.dimensions} dimensions` },
    ];
    const queries = await queryVectors(embedder);
    const list = entries(10_000, 11);
    const built = await buildRow(embedder, list, progress);
    const recall = recallAt5(
      built.index,
      list.map((e) => e.key),
      queries,
    );
    rows.push({
      id: 'embed.index-build-10k',
      median: built.ms,
      p99: built.ms,
      samples: 1,
      note: `${built.note}; recall@5 ${recall.toFixed(3)} against an exact search`,
    });
    rows.push(await searchRow('hnsw.top5-10k', built.index, queries, size));
    rows.push(...(await roundTripRow(built.index, list, size, progress)));
    if (large) {
      const big = await buildRow(embedder, entries(100_000, 13), progress);
      rows.push({
        ...(await searchRow('hnsw.top5-100k', big.index, queries, size)),
        note: `100000 entries, k 5, ef 128; built in ${(big.ms / 1000).toFixed(1)} s; ${big.note}`,
      });
    }
    return rows;
  },
};
