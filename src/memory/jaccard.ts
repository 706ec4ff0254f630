/**
 * Tier 2a's index: token-set Jaccard similarity over interned token IDs, with an inverted index from each
 * token ID to the entries holding it — a query touches only entries that share at least one token with it,
 * counting shared tokens per entry in a reused Int32Array (no per-query allocation proportional to the
 * index), then scores |A ∩ B| / |A ∪ B|.
 */
import { TokenInterner } from './tokens.js';

export interface JaccardMatch {
  /** The entry's index (the order `add` was called in). */
  entry: number;
  score: number;
}

export class JaccardIndex {
  readonly interner = new TokenInterner();
  private readonly sets: Int32Array[] = [];
  private readonly postings: number[][] = [];
  private counts = new Int32Array(0);

  get size(): number {
    return this.sets.length;
  }

  /** Adds an entry's tokens; returns its index. */
  add(tokens: readonly string[]): number {
    const ids = this.interner.internAll(tokens);
    const entry = this.sets.length;
    this.sets.push(ids);
    for (const id of ids) (this.postings[id] ??= []).push(entry);
    return entry;
  }

  /** Every entry at least `threshold` similar to the query tokens, best first (ties: lower index first). */
  matches(tokens: readonly string[], threshold: number): JaccardMatch[] {
    const { ids, unknown } = this.interner.query(tokens);
    const querySize = ids.length + unknown;
    if (querySize === 0 || ids.length === 0) return [];
    if (this.counts.length < this.sets.length) this.counts = new Int32Array(Math.max(this.sets.length, this.counts.length * 2));
    const counts = this.counts;
    const touched: number[] = [];
    for (const id of ids) {
      const list = this.postings[id];
      if (list === undefined) continue;
      for (const entry of list) {
        if (counts[entry]!++ === 0) touched.push(entry);
      }
    }
    const out: JaccardMatch[] = [];
    for (const entry of touched) {
      const shared = counts[entry]!;
      counts[entry] = 0;
      const score = shared / (querySize + this.sets[entry]!.length - shared);
      if (score >= threshold) out.push({ entry, score });
    }
    return out.sort((a, b) => b.score - a.score || a.entry - b.entry);
  }
}
