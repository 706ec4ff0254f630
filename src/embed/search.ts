/**
 * One `nearest` over a set of scopes, wherever the indexes live: the daemon's worker (workers/embed.worker.ts)
 * and the in-process supplier (embed/in-process.ts) run this same code.
 */
import type { EmbeddingMatch } from './port.js';
import type { StoreTarget } from '../memory/store.js';
import type { Embedder } from './embedder.js';
import type { IndexSet } from './index.js';

export interface Refreshed {
  pending: number;
  /** The first scope not complete yet, named for a reason line. */
  building: string | undefined;
  /** An index changed (to be saved). */
  changed: boolean;
}

/** Brings every scope up to date within one shared budget of records to embed. */
export async function refreshAll(set: IndexSet, scopes: readonly StoreTarget[], budget: number): Promise<Refreshed> {
  let left = budget;
  let pending = 0;
  let building: string | undefined;
  let changed = false;
  for (const target of scopes) {
    const before = set.get(target)?.size;
    const got = await set.refresh(target, Math.max(0, left));
    const index = set.get(target)!;
    if (index.dirty || index.size !== before) changed = true;
    left -= got.embedded;
    if (!got.ready) {
      pending += got.pending;
      building ??= target.scope === 'org' ? `org ${target.org}` : target.scope;
    }
  }
  return { pending, building, changed };
}

/**
 * The `k` nearest records of the call's tool across the scopes, best first (a key in two scopes once, at its
 * best similarity); or why not: a scope whose index is not complete is never searched (a half-built index
 * could miss the ask nearest to the call and find an allow instead).
 */
export async function nearestIn(
  set: IndexSet,
  embedder: Embedder,
  query: { text: string; tool: string; k: number; scopes: readonly StoreTarget[]; budget: number },
): Promise<({ matches: EmbeddingMatch[] } | { building: string }) & { changed: boolean }> {
  const got = await refreshAll(set, query.scopes, query.budget);
  if (got.building !== undefined)
    return {
      building: `the embedding index of the ${got.building} scope is being built (${got.pending} records to go)`,
      changed: got.changed,
    };
  const [vector] = await embedder.embed([query.text]);
  if (vector === undefined || vector.length !== embedder.dimensions)
    throw new Error('the model returned no vector of its dimensions for the call');
  const best = new Map<string, number>();
  for (const target of query.scopes) {
    for (const m of set.get(target)?.search(vector, query.tool, query.k) ?? []) {
      if ((best.get(m.key) ?? -Infinity) < m.similarity) best.set(m.key, m.similarity);
    }
  }
  const matches = [...best]
    .map(([key, similarity]) => ({ key, similarity }))
    .sort((a, b) => b.similarity - a.similarity)
    .slice(0, query.k);
  return { matches, changed: got.changed };
}
