/**
 * Tier 2a's index: token-set Jaccard similarity over interned token IDs, with an inverted index from each
 * token ID to the entries holding it — a query touches only entries that share at least one token with it,
 * counting shared tokens per entry in a reused Int32Array (no per-query allocation proportional to the
 * index), then scores |A ∩ B| / |A ∪ B|.
 *
 * Built with `add`, or restored from flat arrays (`fromArrays`: the compiled memory index in
 * `.hookwise/.index/`), so a hook process does not re-tokenize thousands of remembered calls.
 */
import { intersectionSize, TokenInterner } from './tokens.js';

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
    for (let i = 0; i + 1 < setOffsets.length; i++)
      index.sets.push(setIds.subarray(setOffsets[i]!, setOffsets[i + 1]!));
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

  /**
   * Every entry at least `threshold` similar to the query tokens, best first (ties: lower index first).
   *
   * Prefix filtering (the standard trick for set-similarity search): an entry that reaches `threshold`
   * shares at least m = ⌈threshold·|query|⌉ of the query's tokens, so it must share one of the query's
   * (known − m + 1) rarest tokens. Only those tokens' postings generate candidates — the common ones
   * (`git`, `src`, `-n`, in a fifth of all entries) never get walked — and each candidate is verified by
   * merging two sorted ID arrays.
   */
  matches(tokens: readonly string[], threshold: number): JaccardMatch[] {
    const { ids, unknown } = this.interner.query(tokens);
    const querySize = ids.length + unknown;
    if (querySize === 0 || ids.length === 0) return [];
    const mustShare = Math.max(1, Math.ceil(threshold * querySize - 1e-9));
    const prefix = ids.length - mustShare + 1;
    if (prefix <= 0) return [];
    const byRarity = Array.from(ids).sort((a, b) => this.postingsOf(a).length - this.postingsOf(b).length || a - b);
    if (this.counts.length < this.sets.length)
      this.counts = new Int32Array(Math.max(this.sets.length, this.counts.length * 2));
    const seen = this.counts;
    const candidates: number[] = [];
    for (let p = 0; p < prefix; p++) {
      const list = this.postingsOf(byRarity[p]!);
      for (let i = 0; i < list.length; i++) {
        const entry = list[i]!;
        if (seen[entry] === 0) {
          seen[entry] = 1;
          candidates.push(entry);
        }
      }
    }
    const out: JaccardMatch[] = [];
    for (const entry of candidates) {
      seen[entry] = 0;
      const set = this.sets[entry]!;
      const shared = intersectionSize(ids, set);
      const score = shared / (querySize + set.length - shared);
      if (score >= threshold) out.push({ entry, score });
    }
    return out.sort((a, b) => b.score - a.score || a.entry - b.entry);
  }
}
