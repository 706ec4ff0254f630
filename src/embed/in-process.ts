/**
 * Tier 2b's port without a worker pool: the same indexes and search (embed/search.ts) in this process, for
 * what replays the daemon's path in process — evaluations (`runCheck` with `engine.embedding`), tests. Every
 * call brings its scopes up to date with no work bound (a build finishes before the answer), so answers
 * are those a daemon gives once its indexes are built. Never used by the hook process: it loads the model.
 */
import type { EmbeddingPort } from './port.js';
import { memoryTargets } from '../memory/load.js';
import type { Embedder } from './embedder.js';
import { IndexSet, type IndexPlaces } from './index.js';
import { nearestIn } from './search.js';

export class InProcessEmbedding {
  readonly set: IndexSet;

  constructor(
    readonly places: IndexPlaces,
    readonly embedder: Embedder,
    log?: (line: string) => void,
  ) {
    this.set = new IndexSet(places, embedder, log);
  }

  /** The engine's EmbeddingSupplier (engine/ports.ts). */
  portFor(projectRoot: string, sessionId: string | undefined): EmbeddingPort {
    return {
      nearest: async (query) => {
        try {
          const scopes = memoryTargets({
            projectRoot,
            ...this.places,
            ...(sessionId === undefined ? {} : { sessionId }),
          });
          const got = await nearestIn(this.set, this.embedder, { ...query, scopes, budget: Infinity });
          return 'building' in got ? { unavailable: got.building } : { matches: got.matches };
        } catch (error) {
          return {
            unavailable: `the embedding search failed: ${error instanceof Error ? error.message : String(error)}`,
          };
        }
      },
    };
  }

  /** Writes the indexes changed since the last save. */
  save(): { saved: number; failed: number } {
    return this.set.save();
  }
}
