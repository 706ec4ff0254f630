/**
 * Everything remembered that applies to this project and user, loaded once per process and shaped for the
 * tiers: explicit overrides, the exact cache, and (built on first use — most calls never need it) the
 * Jaccard index over remembered shell and tool calls.
 */
import { ExactCache } from './cache.js';
import { JaccardIndex } from './jaccard.js';
import { compileOverride, type CompiledOverride } from './overrides.js';
import type { LoadedRecord } from './store.js';
import { tokenize, type TokenContext } from './tokens.js';
import type { CallSubject } from './subject.js';
import { toolShape } from '../core/tools.js';

const isFileTool = (tool: string): boolean => {
  const action = toolShape(tool).action;
  return action === 'write' || action === 'read';
};

export interface SimilarIndex {
  index: JaccardIndex;
  /** index entry i ↔ entries[i] */
  entries: LoadedRecord[];
}

export class MemoryView {
  readonly overrides: CompiledOverride[] = [];
  readonly exact: ExactCache;
  /** Records the loader skipped or doubted, for `rules list` and `explain`. */
  private similarIndex: SimilarIndex | undefined;
  private readonly remembered: LoadedRecord[] = [];

  constructor(
    readonly records: readonly LoadedRecord[],
    readonly jaccardThreshold: number,
  ) {
    for (const r of records) {
      if (r.tier === 'override') {
        const o = compileOverride(r, isFileTool);
        if (o !== undefined) this.overrides.push(o);
      } else this.remembered.push(r);
    }
    this.exact = new ExactCache(this.remembered);
  }

  get empty(): boolean {
    return this.records.length === 0;
  }

  /** The Jaccard index over remembered calls that similarity may use (built once, on first use). */
  similar(ctx: TokenContext): SimilarIndex {
    if (this.similarIndex !== undefined) return this.similarIndex;
    const index = new JaccardIndex();
    const entries: LoadedRecord[] = [];
    for (const r of this.remembered) {
      if (r.commands === undefined || isFileTool(r.tool)) continue;
      index.add(tokenize(r.subject, ctx));
      entries.push(r);
    }
    this.similarIndex = { index, entries };
    return this.similarIndex;
  }
}

/** What the memory tiers see of one call: the view, and the call's subject and key (computed at the edge). */
export interface MemoryContext {
  view: MemoryView;
  subject?: CallSubject;
  key?: string;
}
