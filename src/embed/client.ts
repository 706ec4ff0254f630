/**
 * The daemon's embedding service: a piscina pool of one warm worker (workers/embed.worker.ts — why one is
 * explained there) and the `EmbeddingPort` tier 2b gets per call. Started with the daemon, so the model is
 * loaded before the first call; the hook process (command mode, no daemon) never builds one — there the
 * engine has no port and tier 2b passes the call on.
 *
 * Every failure answers `{unavailable: reason}`, which passes the tier on (fail closed, never an allow): the
 * model cannot load, the worker throws or dies (the pool starts a new one, which loads the indexes again),
 * the queue of waiting calls is full (`maxQueue` counts tasks: a swarm cannot pile unbounded work on the
 * daemon), an index is still being built, or the worker seems hung (no answer within `timeoutMs`). A call that
 * gave up waiting does not cancel its task: whatever it embedded stays in the index, and the next call finds
 * it there.
 *
 * Indexes are brought up to date by the calls themselves: each `nearest` first syncs the call's scopes with
 * their record files (a few stats when nothing changed), embedding at most `budget` new records inline — so
 * a decision learned by one call is searchable by the next. A scope with more to embed (a first build over a
 * large store) is finished by background steps of `buildStep` records, one queued at a time per project;
 * until then the port answers `unavailable`. Changed indexes are saved `saveDelayMs` after the last change
 * and when the service closes.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as PiscinaModule from 'piscina';
import type { Piscina } from 'piscina';
import type { EmbeddingMatch, EmbeddingPort } from './port.js';
import { memoryTargets } from '../memory/load.js';
import type { StoreTarget } from '../memory/store.js';
import { sanitize } from '../sanitize/index.js';
import { packageRoot } from '../util/package-root.js';
import type { ModelChoice } from './embedder.js';
import type { IndexPlaces } from './index.js';
import type { Answers, EmbedTask, WorkerSetup } from './protocol.js';

export interface EmbeddingServiceOptions {
  places: IndexPlaces;
  /** The model (policy `embedding.model`); the shipped one by default. */
  model?: ModelChoice;
  /** The worker's file (default: dist/embed.worker.cjs next to the running bundle, or in the package). */
  workerFile?: string;
  /** Tests only: a module whose `loadEmbedder` replaces the real one (see protocol.ts WorkerSetup). */
  embedderModule?: string;
  /** Tasks that may wait for the worker; more are answered `unavailable` at once. */
  maxQueue?: number;
  /**
   * How long a call waits for its answer before taking the worker for hung (default 60 s). A hang guard, not a
   * latency budget: on a loaded machine the worker is slow, not hung, and a verdict must not depend on the load
   * (at 2 s, calls of a swarm on a machine at load average 20 lost their allow from this tier).
   */
  timeoutMs?: number;
  /** Records a call may embed inline to bring its scopes up to date (default 64). */
  budget?: number;
  /**
   * Records one background build step embeds (default 256). Small, because the one worker serves every
   * other call between steps: inserting into a 100k-entry HNSW index costs ≈ 3.5 ms a record here, so a step
   * holds the worker for ≈ 1 s at most.
   */
  buildStep?: number;
  saveDelayMs?: number;
  log?: (line: string) => void;
}

/** A worker that has not answered a call in this long is taken for hung (see timeoutMs). */
const HANG_MS = 60_000;

export type ServiceState = 'stopped' | 'starting' | 'ready' | 'failed';

export interface EmbeddingStats {
  state: ServiceState;
  model: string | null;
  calls: number;
  unavailable: number;
  /** The last reason a call was answered unavailable. */
  lastUnavailable: string | null;
}

/** The built worker's path: next to the running bundle (dist/), or the package's dist/ when run from sources. */
export function defaultWorkerFile(): string {
  if (typeof __filename === 'string' && __filename.endsWith('.cjs'))
    return join(dirname(__filename), 'embed.worker.cjs');
  return join(packageRoot(), 'dist', 'embed.worker.cjs');
}

/** The engine's EmbeddingSupplier (engine/ports.ts) in the daemon. */
export class EmbeddingService {
  private pool: Piscina | undefined;
  private warm: Promise<Answers['warm']> | undefined;
  private readonly stat: EmbeddingStats = {
    state: 'stopped',
    model: null,
    calls: 0,
    unavailable: 0,
    lastUnavailable: null,
  };
  /** Projects with a background build step queued (one at a time each). */
  private readonly building = new Set<string>();
  private saveTimer: NodeJS.Timeout | undefined;
  private closing = false;
  private readonly log: (line: string) => void;
  /** The model the pool runs (or is loading). */
  private model: ModelChoice;
  /** Bumped by every model switch: a switch overtaken by a later one does not start its pool. */
  private generation = 0;

  constructor(private readonly options: EmbeddingServiceOptions) {
    const sink = options.log ?? (() => undefined);
    this.log = (line) => sink(sanitize(line).text);
    this.model = options.model ?? { kind: 'builtin' };
  }

  /** Starts the worker and loads the model; resolves when it is warm (or says why it is not). Never throws. */
  async start(): Promise<{ ok: true; model: string; dimensions: number } | { ok: false; why: string }> {
    if (this.closing) return { ok: false, why: 'the embedding service is closed' };
    if (this.pool === undefined) {
      this.stat.state = 'starting';
      const { Piscina: Pool } = createRequire(typeof __filename === 'string' ? __filename : import.meta.url)(
        'piscina',
      ) as typeof PiscinaModule;
      const setup: WorkerSetup = { places: this.options.places, model: this.model };
      if (this.options.embedderModule !== undefined) setup.embedderModule = this.options.embedderModule;
      this.pool = new Pool({
        filename: this.options.workerFile ?? defaultWorkerFile(),
        minThreads: 1,
        maxThreads: 1,
        concurrentTasksPerWorker: 1,
        idleTimeout: Infinity,
        maxQueue: this.options.maxQueue ?? 64,
        workerData: setup,
      });
      // A worker that dies is replaced by the pool; its error also reaches the task it was running.
      this.pool.on('error', (error: unknown) => this.log(`embedding worker failed: ${describe(error)}`));
      this.warm = this.task({ op: 'warm' });
    }
    // A model switch may replace the pool while this one warms: only the current pool's outcome counts.
    const pool = this.pool;
    try {
      const w = await this.warm!;
      if (this.pool === pool) {
        this.stat.state = 'ready';
        this.stat.model = w.model;
      }
      return { ok: true, model: w.model, dimensions: w.dimensions };
    } catch (error) {
      const why = `the embedding model cannot be loaded: ${describe(error)}`;
      if (this.pool === pool && !this.closing) {
        this.stat.state = 'failed';
        this.log(`${why}; tier 2b passes every call on until the model is changed or the daemon restarted`);
        // No thread is kept for a model that cannot load.
        this.pool = undefined;
        await pool.destroy();
      }
      return { ok: false, why };
    }
  }

  /**
   * Tier 2b's port for one call: the indexes of the project's scopes (org, user, project, the session's).
   * When the policy names another model than the pool runs (the user changed `embedding.model`), the pool
   * is restarted with it; calls meanwhile are answered unavailable.
   */
  portFor(
    projectRoot: string,
    sessionId: string | undefined,
    policy?: { embedding: { model: ModelChoice } },
  ): EmbeddingPort {
    const wanted = policy?.embedding.model;
    if (wanted !== undefined && !sameModel(wanted, this.model) && !this.closing) this.switchModel(wanted);
    return {
      nearest: async (query) => {
        let scopes: StoreTarget[];
        try {
          const { userConfigDir, runtimeDir } = this.options.places;
          scopes = memoryTargets({
            projectRoot,
            userConfigDir,
            runtimeDir,
            ...(sessionId === undefined ? {} : { sessionId }),
          });
        } catch (error) {
          return this.unavailable(`the decision scopes cannot be listed: ${describe(error)}`);
        }
        return this.nearest(projectRoot, scopes, query);
      },
    };
  }

  /** The nearest remembered records across the scopes, best first; or why there is no answer. */
  async nearest(
    project: string,
    scopes: StoreTarget[],
    query: { text: string; tool: string; k: number },
  ): Promise<{ matches: EmbeddingMatch[] } | { unavailable: string }> {
    this.stat.calls++;
    if (this.closing) return this.unavailable('the daemon is stopping');
    if (this.stat.state === 'failed')
      return this.unavailable('the embedding model cannot be loaded (see the daemon log)');
    if (this.pool === undefined)
      return this.unavailable(
        this.stat.state === 'starting' ? 'the embedding model is being loaded' : 'the embedding pool is not started',
      );
    const k = Math.max(1, Math.min(64, Math.floor(query.k)));
    const got = await this.within(
      this.task({ op: 'nearest', text: query.text, tool: query.tool, k, scopes, budget: this.options.budget ?? 64 }),
    );
    if ('unavailable' in got) return this.unavailable(got.unavailable);
    if ('building' in got) {
      this.buildInBackground(project, scopes);
      return this.unavailable(got.building);
    }
    return { matches: got.matches };
  }

  /** Saves the indexes, stops the worker, and starts one with the new model (in the background). */
  private switchModel(choice: ModelChoice): void {
    this.log(`embedding model changed to ${describeModel(choice)}: restarting the embedding worker`);
    this.model = choice;
    const generation = ++this.generation;
    const old = this.pool;
    this.pool = undefined;
    this.warm = undefined;
    this.stat.state = 'starting';
    this.stat.model = null;
    clearTimeout(this.saveTimer);
    void (async () => {
      if (old !== undefined) {
        try {
          await old.run({ op: 'save' } satisfies EmbedTask);
        } catch (error) {
          this.log(`embedding indexes not saved before the model change: ${describe(error)}`);
        }
        await old.close();
      }
      if (generation === this.generation && !this.closing) await this.start();
    })();
  }

  /** Embeds texts in the worker (the bench's embed row; `hookwise build` embeds in process). */
  async embed(texts: string[]): Promise<Float32Array[]> {
    if (this.pool === undefined) throw new Error('the embedding pool is not started');
    return (await this.task({ op: 'embed', texts })).vectors;
  }

  stats(): EmbeddingStats {
    return { ...this.stat };
  }

  /** Saves changed indexes, then stops the worker. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    clearTimeout(this.saveTimer);
    const pool = this.pool;
    if (pool === undefined) return;
    if (this.stat.state === 'ready') {
      try {
        await this.task({ op: 'save' });
      } catch (error) {
        this.log(`embedding indexes not saved at close: ${describe(error)}`);
      }
    }
    // close, not destroy: terminating the worker while a native call is in flight (the model still loading
    // when a short-lived daemon stops) makes onnxruntime throw into a dying environment, which aborts the process.
    await pool.close();
    this.pool = undefined;
    this.stat.state = 'stopped';
  }

  private unavailable(why: string): { unavailable: string } {
    this.stat.unavailable++;
    const reason = sanitize(why).text;
    this.stat.lastUnavailable = reason;
    return { unavailable: reason };
  }

  /** Runs a task; its notes go to the log, and an index it changed is saved a little later. */
  private task<T extends EmbedTask>(task: T): Promise<Answers[T['op']]> {
    let running: Promise<Answers[T['op']]>;
    try {
      running = this.pool!.run(task) as Promise<Answers[T['op']]>;
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    return running.then((answer) => {
      for (const line of answer.notes) this.log(line);
      if ('changed' in answer && answer.changed) this.scheduleSave();
      return answer;
    });
  }

  /** The answer, or `unavailable` when it fails or the worker seems hung (the task itself runs on). */
  private async within<A>(running: Promise<A>): Promise<A | { unavailable: string }> {
    const ms = this.options.timeoutMs ?? HANG_MS;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<{ unavailable: string }>((resolve) => {
      timer = setTimeout(() => resolve({ unavailable: `the embedding worker did not answer within ${ms} ms` }), ms);
    });
    try {
      return await Promise.race([
        running.catch((error: unknown) => ({ unavailable: `the embedding worker failed: ${describe(error)}` })),
        late,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  private buildInBackground(project: string, scopes: StoreTarget[]): void {
    if (this.building.has(project) || this.closing) return;
    this.building.add(project);
    const step = (): void => {
      this.task({ op: 'sync', scopes, budget: this.options.buildStep ?? 256 })
        .then((got) => {
          if (got.pending > 0 && !this.closing) step();
          else this.building.delete(project);
        })
        .catch((error: unknown) => {
          this.building.delete(project);
          this.log(`embedding index build for ${project} stopped: ${describe(error)}`);
        });
    };
    step();
  }

  private scheduleSave(): void {
    if (this.closing) return;
    clearTimeout(this.saveTimer);
    this.saveTimer = setTimeout(() => {
      if (this.pool === undefined) return; // switching models: the switch saved them
      this.task({ op: 'save' }).catch((error: unknown) => this.log(`embedding indexes not saved: ${describe(error)}`));
    }, this.options.saveDelayMs ?? 2000);
    this.saveTimer.unref();
  }
}

function sameModel(a: ModelChoice, b: ModelChoice): boolean {
  return a.kind === b.kind && (a.kind === 'builtin' || a.dir === (b as { dir: string }).dir);
}

function describeModel(m: ModelChoice): string {
  return m.kind === 'builtin' ? 'the shipped model' : `the model in ${m.dir}`;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
