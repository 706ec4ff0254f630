/**
 * A record set that follows appends: one loaded once (the compiled index, or parsed JSONL) plus records
 * appended to its files since, resolved as a full load of those files would resolve them (store.ts: per
 * scope, key and role, the newest ts, then the stricter verdict, then the later line). The daemon keeps one
 * per project and adds what each call finds appended (memory/live.ts); a one-shot load layers the lines
 * appended since the compiled index was built over it (memory/index-file.ts `loadIndexed`).
 *
 * Similarity never builds an index over every record per call: the loaded set's own index and an index of
 * the appended candidates are queried apart, and candidates another record has since replaced are dropped
 * (`similarInto`; `MemoryView.similar` uses it).
 */
import { dirname } from 'node:path';
import { JaccardIndex } from './jaccard.js';
import { laterWins, type LoadedRecord } from './store.js';
import { tokenize, type TokenContext } from './tokens.js';
import {
  similarityCandidate,
  similarityText,
  type RecordSet,
  type SimilarCandidate,
  type SimilarIndex,
} from './view.js';
import { countAtMost } from '../util/sorted.js';

/**
 * A record's identity: its scope, key and role. Every org is a scope of its own (a full load resolves each
 * org apart, and a newer record of one org must never replace another org's): its files share a directory.
 */
const idOf = (r: LoadedRecord): string =>
  `${r.scope === 'org' ? `org ${dirname(r.file)}` : r.scope}\u0000${r.key}\u0000${r.role}`;

/** Is `a` read after `b` by a full load of their scope? Files in name order (store.ts scopeFiles), then lines. */
function readAfter(a: LoadedRecord, b: LoadedRecord): boolean {
  return a.file === b.file ? a.line > b.line : a.file > b.file;
}

/** Does `r` win over the current winner of its (scope, key, role), wherever each of them lies? */
function beats(r: LoadedRecord, current: LoadedRecord): boolean {
  return readAfter(r, current) ? laterWins(r, current) : !laterWins(current, r);
}

/** One (scope, key, role) that appends touched: its winner after each change, by version. */
interface Identity {
  /** The base set's record for it, if the base has one. */
  base: LoadedRecord | undefined;
  /** winners[i] holds from version since[i] on (0: the base record). */
  since: number[];
  winners: LoadedRecord[];
  /** Listed in `extraByKey` / `extraOverrides` (once an appended winner needs it). */
  byKey: boolean;
  asOverride: boolean;
}

function winnerAt(identity: Identity, version: number): LoadedRecord | undefined {
  for (let i = identity.since.length - 1; i >= 0; i--) if (identity.since[i]! <= version) return identity.winners[i];
  return undefined;
}

/**
 * A record set loaded once (the compiled index, or parsed JSONL) plus the records appended since, resolved
 * per (scope, key, role) exactly as a full load would resolve them. Append-only inside: every change makes
 * a new version, and `at(version)` answers as of that version forever.
 */
export class LiveRecordSet {
  private current = 0;
  private readonly identities = new Map<string, Identity>();
  /** Identities `base.byKey` cannot produce, once an appended non-override won one: by key, in that order. */
  private readonly extraByKey = new Map<string, string[]>();
  /** Identities `base.overrides()` cannot produce, once an appended override won one, in that order. */
  private readonly extraOverrides: string[] = [];
  /** The version each new identity appeared at (ascending). */
  private readonly newSince: number[] = [];
  private baseOverrides: Map<string, LoadedRecord> | undefined;
  /** Appended similarity candidates, with the version they won at. */
  private readonly candidates: { record: LoadedRecord; since: number }[] = [];
  private candidateIndex: { ctx: TokenContext; index: JaccardIndex; entries: number } | undefined;

  constructor(readonly base: RecordSet) {}

  /** Bumped by every append that changed an answer. */
  get version(): number {
    return this.current;
  }

  /** Adds an appended record; false when it loses to what the set already holds (nothing changes). */
  add(r: LoadedRecord): boolean {
    const id = idOf(r);
    let identity = this.identities.get(id);
    if (identity === undefined) {
      const base = this.findBase(r, id);
      identity = {
        base,
        since: base === undefined ? [] : [0],
        winners: base === undefined ? [] : [base],
        byKey: base !== undefined && base.tier !== 'override',
        asOverride: base?.tier === 'override',
      };
      this.identities.set(id, identity);
    }
    const winner = identity.winners[identity.winners.length - 1];
    if (winner !== undefined && !beats(r, winner)) return false;
    this.current++;
    if (winner === undefined) this.newSince.push(this.current);
    identity.since.push(this.current);
    identity.winners.push(r);
    if (r.tier === 'override') {
      if (!identity.asOverride) {
        identity.asOverride = true;
        this.extraOverrides.push(id);
      }
    } else if (!identity.byKey) {
      identity.byKey = true;
      const list = this.extraByKey.get(r.key);
      if (list === undefined) this.extraByKey.set(r.key, [id]);
      else list.push(id);
    }
    if (similarityCandidate(r)) this.candidates.push({ record: r, since: this.current });
    return true;
  }

  private findBase(r: LoadedRecord, id: string): LoadedRecord | undefined {
    for (const b of this.base.byKey(r.key)) if (idOf(b) === id) return b;
    this.baseOverrides ??= new Map(this.base.overrides().map((o) => [idOf(o), o]));
    return this.baseOverrides.get(id);
  }

  /** The set as of a version (the current one by default): what a view holds. */
  at(version = this.current): VersionedSet {
    return new VersionedSet(this, version);
  }

  /** The record that holds for this loaded record's identity at a version (itself, unless an append won). */
  private resolved(r: LoadedRecord, version: number): LoadedRecord {
    if (this.identities.size === 0) return r;
    const identity = this.identities.get(idOf(r));
    return identity === undefined ? r : winnerAt(identity, version)!;
  }

  sizeAt(version: number): number {
    // newSince is ascending: the identities new by this version
    return this.base.size + countAtMost(this.newSince, version);
  }

  byKeyAt(key: string, version: number): LoadedRecord[] {
    const out: LoadedRecord[] = [];
    // Loaded identities keep their place (a superseded record is replaced where it stood, as a full load would).
    for (const r of this.base.byKey(key)) {
      const w = this.resolved(r, version);
      if (w.tier !== 'override') out.push(w);
    }
    for (const id of this.extraByKey.get(key) ?? []) {
      const w = winnerAt(this.identities.get(id)!, version);
      if (w !== undefined && w.tier !== 'override') out.push(w);
    }
    return out;
  }

  overridesAt(version: number): LoadedRecord[] {
    const out: LoadedRecord[] = [];
    for (const r of this.base.overrides()) {
      const w = this.resolved(r, version);
      if (w.tier === 'override') out.push(w);
    }
    for (const id of this.extraOverrides) {
      const w = winnerAt(this.identities.get(id)!, version);
      if (w !== undefined && w.tier === 'override') out.push(w);
    }
    return out;
  }

  /** Is this candidate the winner of its identity at the version? */
  private alive(r: LoadedRecord, version: number, isBase: boolean): boolean {
    const identity = this.identities.get(idOf(r));
    if (identity === undefined) return isBase;
    const w = winnerAt(identity, version);
    return isBase ? w === identity.base : w === r;
  }

  /** The appended candidates' index, brought up to date (tokenized once each, on first similarity query). */
  private appendedIndex(ctx: TokenContext): JaccardIndex {
    let c = this.candidateIndex;
    if (c === undefined || c.ctx.projectRoot !== ctx.projectRoot || c.ctx.home !== ctx.home) {
      c = this.candidateIndex = {
        ctx: { projectRoot: ctx.projectRoot, home: ctx.home },
        index: new JaccardIndex(),
        entries: 0,
      };
    }
    for (; c.entries < this.candidates.length; c.entries++)
      c.index.add(tokenize(similarityText(this.candidates[c.entries]!.record), ctx));
    return c.index;
  }

  /** Candidates at least `threshold` similar, as of a version, pushed onto `out` (loaded ones first). */
  similarAt(
    tokens: readonly string[],
    ctx: TokenContext,
    threshold: number,
    version: number,
    out: SimilarCandidate[],
  ): void {
    const { index, record } = this.base.similar(ctx);
    if (index.size > 0) {
      for (const m of index.matches(tokens, threshold)) {
        const r = record(m.entry);
        if (this.identities.size === 0 || this.alive(r, version, true)) out.push({ record: r, score: m.score });
      }
    }
    if (this.candidates.length === 0) return;
    const appended = this.appendedIndex(ctx);
    for (const m of appended.matches(tokens, threshold)) {
      const c = this.candidates[m.entry]!;
      if (c.since <= version && this.alive(c.record, version, false)) out.push({ record: c.record, score: m.score });
    }
  }

  /** Every similarity candidate at a version, in index order (loaded, then appended): for `VersionedSet.similar`. */
  candidatesAt(ctx: TokenContext, version: number): LoadedRecord[] {
    const out: LoadedRecord[] = [];
    const { index, record } = this.base.similar(ctx);
    for (let e = 0; e < index.size; e++) {
      const r = record(e);
      if (this.identities.size === 0 || this.alive(r, version, true)) out.push(r);
    }
    for (const c of this.candidates) if (c.since <= version && this.alive(c.record, version, false)) out.push(c.record);
    return out;
  }
}

/** A `LiveRecordSet` as of one version: the `RecordSet` a view holds. */
export class VersionedSet implements RecordSet {
  private materialized: SimilarIndex | undefined;

  constructor(
    readonly live: LiveRecordSet,
    readonly version: number,
  ) {}

  get size(): number {
    return this.live.sizeAt(this.version);
  }

  overrides(): readonly LoadedRecord[] {
    return this.live.overridesAt(this.version);
  }

  byKey(key: string): readonly LoadedRecord[] {
    return this.live.byKeyAt(key, this.version);
  }

  similarInto(tokens: readonly string[], ctx: TokenContext, threshold: number, out: SimilarCandidate[]): void {
    this.live.similarAt(tokens, ctx, threshold, this.version, out);
  }

  /**
   * One index over every live candidate — correct, but O(records): built on first use, for callers that
   * want a `SimilarIndex`. `MemoryView.similar` does not use it (it calls `similarInto`, which queries the
   * loaded and the appended indexes apart).
   */
  similar(ctx: TokenContext): SimilarIndex {
    if (this.materialized !== undefined) return this.materialized;
    const index = new JaccardIndex();
    const entries = this.live.candidatesAt(ctx, this.version);
    for (const r of entries) index.add(tokenize(similarityText(r), ctx));
    this.materialized = { index, record: (i) => entries[i]! };
    return this.materialized;
  }
}
