/**
 * What the daemon's embedding service (embed/client.ts) and its worker (workers/embed.worker.ts) say to each
 * other: plain, structured-clonable data. One worker owns every index, so tasks never race on one.
 */
import type { EmbeddingMatch } from './port.js';
import type { StoreTarget } from '../memory/store.js';
import type { ModelChoice } from './embedder.js';
import type { IndexPlaces } from './index.js';

/** Given to the worker once, at its start. */
export interface WorkerSetup {
  places: IndexPlaces;
  model: ModelChoice;
  /**
   * A module exporting `loadEmbedder(choice)` to use instead of the real one (embed/model.ts). For tests
   * only: a constructor option of the service, never read from configuration.
   */
  embedderModule?: string;
}

export type EmbedTask =
  /** Load the model (the pool is started warm). */
  | { op: 'warm' }
  /** Bring the scopes' indexes up to date (embedding at most `budget` records), then search them all. */
  | { op: 'nearest'; text: string; tool: string; k: number; scopes: StoreTarget[]; budget: number }
  /** Bring the scopes' indexes up to date (a background build step). */
  | { op: 'sync'; scopes: StoreTarget[]; budget: number }
  /** Write every index changed since it was loaded or saved. */
  | { op: 'save' }
  /** Embed texts (the bench's "embed one call" row). */
  | { op: 'embed'; texts: string[] };

export interface Notes {
  /** Lines for the daemon's log (an index rebuilt, one not saved). */
  notes: string[];
}

export type WarmAnswer = Notes & { model: string; dimensions: number };
export type NearestAnswer = Notes &
  ({ matches: EmbeddingMatch[]; changed: boolean } | { building: string; changed: boolean });
export type SyncAnswer = Notes & { pending: number; changed: boolean };
export type SaveAnswer = Notes & { saved: number; failed: number };
export type EmbedAnswer = Notes & { vectors: Float32Array[] };

/** The answer type of each task. */
export interface Answers {
  warm: WarmAnswer;
  nearest: NearestAnswer;
  sync: SyncAnswer;
  save: SaveAnswer;
  embed: EmbedAnswer;
}
