/**
 * Everything remembered that applies to this project and user, loaded once per process and shaped for the
 * tiers: explicit overrides, exact lookups, and similarity candidates. The records come in one or more
 * record sets — parsed JSONL (`RawRecordSet`), or the compiled index in `.hookwise/.index/`
 * (memory/index-file.ts) — and every answer is merged across them, DENY > ASK > ALLOW (policy/scopes.ts).
 */
import { toolShape } from '../core/tools.js';
import { mergeScopes } from '../policy/scopes.js';
import { ExactCache } from './cache.js';
import { JaccardIndex } from './jaccard.js';
import { compileOverride, type CompiledOverride } from './overrides.js';
import { ANY_ROLE, type LoadedRecord } from './store.js';
import { tokenize, type TokenContext } from './tokens.js';

export const isFileTool = (tool: string): boolean => {
  const action = toolShape(tool).action;
  return action === 'write' || action === 'read';
};

/**
 * The text a remembered call is indexed by for similarity: its form when it has one (free words abstracted,
 * memory/form.ts: calls of one form then score 1.0), else its subject.
 */
export const similarityText = (r: Pick<LoadedRecord, 'form' | 'subject'>): string => r.form ?? r.subject;

/** Records similarity may compare with: remembered shell and other-tool calls (file tools are exact only). */
export const similarityCandidate = (r: LoadedRecord): boolean =>
  r.tier !== 'override' && r.commands !== undefined && !isFileTool(r.tool);

export interface SimilarIndex {
  index: JaccardIndex;
  /** index entry i → its record */
  record(entry: number): LoadedRecord;
}

/** A source of remembered records, however stored. */
export interface RecordSet {
  readonly size: number;
  overrides(): readonly LoadedRecord[];
  /** Remembered (non-override) records with this key, any role, any scope. */
  byKey(key: string): readonly LoadedRecord[];
  similar(ctx: TokenContext): SimilarIndex;
  /**
   * Optional: the candidates at least `threshold` similar, pushed onto `out` (any order), for a set that
   * answers without one `SimilarIndex` over all its records (memory/live-set.ts: a loaded set plus appends).
   */
  similarInto?(tokens: readonly string[], ctx: TokenContext, threshold: number, out: SimilarCandidate[]): void;
}

/** Records parsed from JSONL in this process. */
export class RawRecordSet implements RecordSet {
  private readonly overrideRecords: LoadedRecord[] = [];
  private readonly exact: ExactCache;
  private readonly remembered: LoadedRecord[] = [];
  private similarIndex: SimilarIndex | undefined;

  constructor(readonly records: readonly LoadedRecord[]) {
    for (const r of records) (r.tier === 'override' ? this.overrideRecords : this.remembered).push(r);
    this.exact = new ExactCache(this.remembered);
  }

  get size(): number {
    return this.records.length;
  }

  overrides(): readonly LoadedRecord[] {
    return this.overrideRecords;
  }

  byKey(key: string): readonly LoadedRecord[] {
    return this.exact.all(key);
  }

  similar(ctx: TokenContext): SimilarIndex {
    if (this.similarIndex !== undefined) return this.similarIndex;
    const index = new JaccardIndex();
    const entries: LoadedRecord[] = [];
    for (const r of this.remembered) {
      if (!similarityCandidate(r)) continue;
      index.add(tokenize(similarityText(r), ctx));
      entries.push(r);
    }
    this.similarIndex = { index, record: (i) => entries[i]! };
    return this.similarIndex;
  }
}

export interface SimilarCandidate {
  record: LoadedRecord;
  score: number;
}

export class MemoryView {
  readonly overrides: CompiledOverride[] = [];
  readonly size: number;

  constructor(
    readonly sets: readonly RecordSet[],
    readonly jaccardThreshold: number,
  ) {
    this.size = sets.reduce((n, s) => n + s.size, 0);
    for (const set of sets) {
      for (const r of set.overrides()) {
        const o = compileOverride(r, isFileTool);
        if (o !== undefined) this.overrides.push(o);
      }
    }
  }

  /** A view of records parsed in this process. */
  static of(records: readonly LoadedRecord[], jaccardThreshold: number): MemoryView {
    return new MemoryView([new RawRecordSet(records)], jaccardThreshold);
  }

  get empty(): boolean {
    return this.size === 0;
  }

  /** The effective remembered decision for this key and role, across every set and scope. */
  lookup(key: string, role: string): LoadedRecord | undefined {
    const applicable: LoadedRecord[] = [];
    for (const set of this.sets)
      for (const r of set.byKey(key)) if (r.role === role || r.role === ANY_ROLE) applicable.push(r);
    return mergeScopes(applicable);
  }

  /**
   * Remembered calls at least `threshold` similar to the tokens (the Jaccard threshold unless given: the
   * supervisor is shown nearer-than-nothing neighbours below it), best first.
   */
  similar(tokens: readonly string[], ctx: TokenContext, threshold = this.jaccardThreshold): SimilarCandidate[] {
    const out: SimilarCandidate[] = [];
    for (const set of this.sets) {
      if (set.similarInto !== undefined) {
        set.similarInto(tokens, ctx, threshold, out);
        continue;
      }
      const { index, record } = set.similar(ctx);
      if (index.size === 0) continue;
      for (const m of index.matches(tokens, threshold)) out.push({ record: record(m.entry), score: m.score });
    }
    return out.sort((a, b) => b.score - a.score);
  }
}
