/**
 * The embedding worker (piscina; built to dist/embed.worker.cjs). The daemon's pool runs exactly one: it
 * loads the model once (onnxruntime, never in the hook process) and owns every scope's HNSW index. Why one:
 * an hnswlib index is a native object of the thread that built it — a second worker would need its own copy
 * of every index and every learned record broadcast to each copy, and two writers of one index file would
 * need a lock between threads; the work itself is small (embedding one call and a top-k search take well
 * under a millisecond each at 10k records, see `hookwise bench`), so one warm thread serves a swarm's calls
 * one after another, and tasks of one worker never race on an index.
 *
 * A task that throws rejects that task only; a worker that dies is replaced by the pool, and the new one
 * loads the indexes from disk again (or rebuilds them). The service (src/embed/client.ts) turns either into
 * `unavailable` for the call, never an allow.
 */
import { createRequire } from 'node:module';
import { workerData } from 'piscina';
import type { Embedder, ModelChoice } from '../src/embed/embedder.js';
import { IndexSet } from '../src/embed/index.js';
import { loadEmbedder } from '../src/embed/model.js';
import type { Answers, EmbedTask, WorkerSetup } from '../src/embed/protocol.js';
import { nearestIn, refreshAll } from '../src/embed/search.js';

const setup = workerData as WorkerSetup;

let ready: Promise<{ embedder: Embedder; set: IndexSet; notes: string[] }> | undefined;

function start(): Promise<{ embedder: Embedder; set: IndexSet; notes: string[] }> {
  ready ??= (async () => {
    const load: (choice: ModelChoice) => Promise<Embedder> =
      setup.embedderModule === undefined
        ? loadEmbedder
        : (
            createRequire(typeof __filename === 'string' ? __filename : import.meta.url)(setup.embedderModule) as {
              loadEmbedder: typeof loadEmbedder;
            }
          ).loadEmbedder;
    const embedder = await load(setup.model);
    const notes: string[] = [];
    return { embedder, set: new IndexSet(setup.places, embedder, (line) => notes.push(line)), notes };
  })();
  // A model that cannot load fails every task with its reason; the service reports it as unavailable.
  return ready;
}

export default async function run(task: EmbedTask): Promise<Answers[EmbedTask['op']]> {
  const { embedder, set, notes } = await start();
  const taken = (): string[] => notes.splice(0, notes.length);
  switch (task.op) {
    case 'warm':
      return { model: embedder.id, dimensions: embedder.dimensions, notes: taken() };
    case 'nearest':
      return { ...(await nearestIn(set, embedder, task)), notes: taken() };
    case 'sync': {
      const got = await refreshAll(set, task.scopes, task.budget);
      return { pending: got.pending, changed: got.changed, notes: taken() };
    }
    case 'save': {
      const got = set.save();
      return { ...got, notes: taken() };
    }
    case 'embed':
      return { vectors: await embedder.embed(task.texts), notes: taken() };
  }
}
