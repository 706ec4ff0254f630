/**
 * Tier 2a's index: token-set Jaccard similarity over interned token IDs, with an inverted index from each
 * token ID to the entries holding it — a query touches only entries that share at least one token with it,
 * counting shared tokens per entry in a reused Int32Array (no per-query allocation proportional to the
 * index), then scores |A ∩ B| / |A ∪ B|.
 *
 * Built with `add`, or restored from flat arrays (`fromArrays`: the compiled memory index in
 * `.hookwise/.index/`), so a hook process does not re-tokenize thousands of remembered calls.
 */
import { TokenInterner } from './tokens.js';

export interface JaccardMatch {
  /** The entry's index (the order `add` was called in). */
  entry: number;
  score: number;
}

/** The index as flat arrays: CSR (offsets + values) for each entry's token set. */
export interface JaccardArrays {
  vocabulary: string[];
  /** Entry i's sorted token IDs are setIds[setOffsets[i] .. setOffsets[i+1]). */
  setOffsets: Int32Array;
  setIds: Int32Array;
  /** The inverted index: token t's entries are postIds[postOffsets[t] .. postOffsets[t+1]). */
  postOffsets: Int32Array;
  postIds: Int32Array;
}

export class JaccardIndex {
  readonly interner: TokenInterner;
  private readonly sets: Int32Array[] = [];
  private readonly postings: number[][] = [];
  /** Restored from arrays: the inverted index stays flat (no per-token arrays to rebuild per process). */
  private flat: { postOffsets: Int32Array; postIds: Int32Array } | undefined;
  private counts = new Int32Array(0);

  constructor(interner = new TokenInterner()) {
    this.interner = interner;
  }

  static fromArrays(arrays: JaccardArrays): JaccardIndex {
    const index = new JaccardIndex(TokenInterner.fromVocabulary(arrays.vocabulary));
    const { setOffsets, setIds } = arrays;
    for (let i = 0; i + 1 < setOffsets.length; i++) index.sets.push(setIds.subarray(setOffsets[i]!, setOffsets[i + 1]!));
    index.flat = { postOffsets: arrays.postOffsets, postIds: arrays.postIds };
    return index;
  }

  toArrays(): JaccardArrays {
    const setOffsets = new Int32Array(this.sets.length + 1);
    let total = 0;
    this.sets.forEach((s, i) => {
      setOffsets[i] = total;
      total += s.length;
    });
    setOffsets[this.sets.length] = total;
    const setIds = new Int32Array(total);
    this.sets.forEach((s, i) => setIds.set(s, setOffsets[i]!));
    const tokens = this.interner.size;
    const postOffsets = new Int32Array(tokens + 1);
    const postIds = new Int32Array(total);
    let at = 0;
    for (let t = 0; t < tokens; t++) {
      postOffsets[t] = at;
      const list = this.postingsOf(t);
      for (let i = 0; i < list.length; i++) postIds[at++] = list[i]!;
    }
    postOffsets[tokens] = at;
    return { vocabulary: this.interner.vocabulary(), setOffsets, setIds, postOffsets, postIds };
  }

  get size(): number {
    return this.sets.length;
  }

  /** Adds an entry's tokens; returns its index. */
  add(tokens: readonly string[]): number {
    return this.push(this.interner.internAll(tokens));
  }

  private push(ids: Int32Array): number {
    if (this.flat !== undefined) throw new Error('a restored JaccardIndex is read-only');
    const entry = this.sets.length;
    this.sets.push(ids);
    for (const id of ids) (this.postings[id] ??= []).push(entry);
    return entry;
  }

  private postingsOf(id: number): ArrayLike<number> {
    if (this.flat === undefined) return this.postings[id] ?? [];
    return this.flat.postIds.subarray(this.flat.postOffsets[id]!, this.flat.postOffsets[id + 1]!);
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
      const list = this.postingsOf(id);
      for (let i = 0; i < list.length; i++) {
        const entry = list[i]!;
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
