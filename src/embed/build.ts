/**
 * The embedding indexes built in this process, for the commands that need them now: `hookwise build`
 * (every scope, with progress) and `hookwise rules list --neighbours` (each record's nearest others). The
 * daemon's worker keeps the same files up to date through the same IndexSet (embed/index.ts).
 */
import type { EmbeddingMatch } from './port.js';
import type { StoreTarget } from '../memory/store.js';
import type { Embedder } from './embedder.js';
import { IndexSet, indexLocation, type IndexPlaces } from './index.js';

export interface BuiltScope {
  scope: string;
  file: string;
  /** Records in the index. */
  records: number;
  /** Records embedded by this build (0: the index on disk was current). */
  embedded: number;
}

/**
 * Brings every scope's index up to date with its records and saves it. `progress` is told, per scope, how
 * many of the records it embeds are done.
 */
export async function buildIndexes(
  targets: readonly StoreTarget[],
  places: IndexPlaces,
  embedder: Embedder,
  options: { progress?: (scope: string, done: number, total: number) => void; log?: (line: string) => void } = {},
): Promise<{ set: IndexSet; scopes: BuiltScope[] }> {
  const set = new IndexSet(places, embedder, options.log);
  const scopes: BuiltScope[] = [];
  for (const target of targets) {
    const at = indexLocation(target, places);
    const got = await set.refresh(target, Infinity, (done, total) => options.progress?.(at.name, done, total));
    scopes.push({ scope: at.name, file: at.hnsw, records: set.get(target)!.size, embedded: got.embedded });
  }
  const saved = set.save();
  if (saved.failed > 0) throw new Error(`${saved.failed} embedding index(es) could not be written (see above)`);
  return { set, scopes };
}

/** The nearest other records to a remembered one (same tool), across the scopes, best first. */
export function neighboursOf(
  set: IndexSet,
  targets: readonly StoreTarget[],
  key: string,
  tool: string,
  k: number,
): EmbeddingMatch[] {
  let vector: Float32Array | undefined;
  for (const t of targets) vector ??= set.get(t)?.vectorOf(key);
  if (vector === undefined) return [];
  const best = new Map<string, number>();
  for (const t of targets) {
    for (const m of set.get(t)?.search(vector, tool, k + 1) ?? []) {
      if (m.key !== key && (best.get(m.key) ?? -Infinity) < m.similarity) best.set(m.key, m.similarity);
    }
  }
  return [...best]
    .map(([k2, similarity]) => ({ key: k2, similarity }))
    .sort((a, b) => b.similarity - a.similarity)
    .slice(0, k);
}
