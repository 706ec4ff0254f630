/**
 * Tier 2b's embedding indexes: one HNSW index (hnswlib-node, cosine space) per memory scope, over that
 * scope's similarity candidates (memory/view.ts `similarityCandidate`: not overrides, not file tools), each
 * the embedding of the record's sanitized `subject`. A derived cache, so:
 *
 *   where     project  <project>/.hookwise/.index/embed-project.{hnsw,json}   (gitignored, private 0700)
 *             user     <userConfigDir>/index/embed-user.{hnsw,json}
 *             org      <userConfigDir>/index/embed-org-<org>.{hnsw,json}
 *             session  <runtimeDir>/index/embed-session-<sha256(id)[:16]>.{hnsw,json}
 *   trusted   never as found: the directory must be ours and private (fs-safe `checkPrivateDir`), each file a
 *             regular file of ours (not a link), and the meta carries an HMAC-SHA256 of the .hnsw bytes and of
 *             itself keyed with the user's salt (util/salt.ts) — a plain checksum would catch a flipped bit but
 *             not an index committed to the repository with `rm -rf /` planted next to an allow record's key.
 *             The format version, model id and dimensions must match the embedder's. Anything off → the index
 *             is rebuilt from the records, and the reason is logged.
 *   read      the verified bytes are copied to a private temp file that hnswlib reads (it reads only by path),
 *             so what is loaded is exactly what was checked.
 *   written   whole or not at all: .hnsw to a temp file (fsync, rename), then the meta (atomic, durable);
 *             a crash in between leaves a MAC mismatch, i.e. a rebuild, never a wrong index.
 *   updated   incrementally (`sync`): the scope's candidate keys are diffed against the index's labels — the
 *             new are embedded and added (the index doubles when full), the gone are `markDelete`d; when
 *             deleted entries outnumber live ones the index is compacted from its own stored vectors.
 *
 * A record's key is a hash of its tool and subject (memory/cache.ts), so one key is one text: entries are
 * per key (a key remembered for several roles is one vector), and a changed verdict under the same key needs
 * no new vector — the tier reads the verdict from memory by key.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { chmodSync, closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type * as Hnswlib from 'hnswlib-node';
import type { HierarchicalNSW } from 'hnswlib-node';
import { checkPrivateDir, ensurePrivateDir, fsyncDirectory, readOwnedFile, writeFileAtomic } from '../util/fs-safe.js';
import { userSalt } from '../util/salt.js';
import { loadScope, type LoadedRecord, type StoreTarget } from '../memory/store.js';
import { similarityCandidate } from '../memory/view.js';
import { shortModelId, type Embedder } from './embedder.js';
import { ScopeSources } from './sources.js';

export const EMBED_INDEX_FORMAT = 1;
/**
 * hnswlib parameters, chosen by measurement on 10k synthetic commands embedded by the shipped model (which
 * maps many commands to the same vector: 1.7k distinct vectors for 10k commands, and duplicates weaken an
 * HNSW graph): recall@5 against an exact search was 0.88 with M 16 (efConstruction 100 or 200, ef 64),
 * 0.91 with M 16 and ef 128, 0.99 with M 32, efConstruction 100 and ef 128 — at ≈ 0.4 ms a search and
 * ≈ 3 s a 10k build here. The bench reports the recall with every build (embed.index-build-10k's note).
 */
const HNSW_M = 32;
const HNSW_EF_CONSTRUCTION = 100;
/** Search breadth: candidates explored per query (ef ≥ k). */
const HNSW_EF_SEARCH = 128;
const INITIAL_CAPACITY = 64;
/** Texts embedded per model call while (re)building. */
export const EMBED_BATCH = 64;

/** Where hookwise's private directories are (the session and user indexes, the salt). */
export interface IndexPlaces {
  runtimeDir: string;
  userConfigDir: string;
}

export interface IndexLocation {
  /** The scope's index name: project, user, org-<name>, session-<hash>. */
  name: string;
  dir: string;
  hnsw: string;
  meta: string;
}

/** The files of a scope's embedding index. */
export function indexLocation(target: StoreTarget, places: IndexPlaces): IndexLocation {
  let name: string;
  let dir: string;
  switch (target.scope) {
    case 'project':
      name = 'project';
      dir = join(target.projectRoot, '.hookwise', '.index');
      break;
    case 'user':
      name = 'user';
      dir = join(places.userConfigDir, 'index');
      break;
    case 'org':
      // the org name is checked by scopeDir (letters, digits, . _ -) before any record of it is read
      name = `org-${target.org}`;
      dir = join(places.userConfigDir, 'index');
      break;
    case 'session':
      // a session id is the host's text: only its hash names a file
      name = `session-${createHash('sha256').update(target.sessionId).digest('hex').slice(0, 16)}`;
      dir = join(places.runtimeDir, 'index');
      break;
  }
  return { name, dir, hnsw: join(dir, `embed-${name}.hnsw`), meta: join(dir, `embed-${name}.json`) };
}

/** What is indexed of one record: its key, tool and sanitized subject. */
export interface IndexEntry {
  key: string;
  tool: string;
  text: string;
}

/** The similarity candidates of a scope's records, one entry per key. */
export function candidateEntries(records: readonly LoadedRecord[]): IndexEntry[] {
  const seen = new Set<string>();
  const out: IndexEntry[] = [];
  for (const r of records) {
    if (!similarityCandidate(r) || seen.has(r.key)) continue;
    seen.add(r.key);
    out.push({ key: r.key, tool: r.tool, text: r.subject });
  }
  return out;
}

interface Meta {
  format: number;
  model: string;
  dimensions: number;
  scope: string;
  capacity: number;
  /** label → [key, tool]; null for a deleted label */
  labels: ([string, string] | null)[];
  /** HMAC-SHA256 (keyed with the user's salt) of the .hnsw bytes, hex. */
  hnswMac: string;
  /** HMAC-SHA256 of this JSON without `mac`. */
  mac: string;
}

let hnswlib: typeof Hnswlib | undefined;

/** hnswlib-node, loaded on first use (a native addon: only the worker and `hookwise build` need it). */
function hnsw(): typeof Hnswlib {
  if (hnswlib === undefined) {
    const req = createRequire(typeof __filename === 'string' ? __filename : import.meta.url);
    hnswlib = req('hnswlib-node') as typeof Hnswlib;
  }
  return hnswlib;
}

function newIndex(dimensions: number, capacity: number): HierarchicalNSW {
  const index = new (hnsw().HierarchicalNSW)('cosine', dimensions);
  index.initIndex({ maxElements: capacity, m: HNSW_M, efConstruction: HNSW_EF_CONSTRUCTION, randomSeed: 100 });
  return index;
}

/** Why an index on disk cannot be used, or the index. */
export type Loaded = { ok: true; index: ScopeIndex } | { ok: false; why: string };

export interface SyncResult {
  added: number;
  removed: number;
  /** Entries still to embed (the work bound was reached first). */
  pending: number;
  compacted: boolean;
}

/** One scope's embedding index in memory: the HNSW graph and its label → (key, tool) table. */
export class ScopeIndex {
  private readonly labelOf = new Map<string, number>();
  private labels: ([string, string] | null)[];
  private deletedCount: number;
  /** Live entries per tool: a search whose tool is every entry's needs no filter (a JS call per visited node). */
  private readonly perTool = new Map<string, number>();
  /** Changed since it was loaded or saved. */
  dirty = false;

  private constructor(
    readonly name: string,
    readonly model: string,
    readonly dimensions: number,
    private index: HierarchicalNSW,
    labels: ([string, string] | null)[],
  ) {
    this.labels = labels;
    this.deletedCount = 0;
    labels.forEach((entry, label) => {
      if (entry === null) this.deletedCount++;
      else {
        this.labelOf.set(entry[0], label);
        this.count(entry[1], 1);
      }
    });
    this.index.setEf(HNSW_EF_SEARCH);
  }

  static empty(name: string, embedder: Pick<Embedder, 'id' | 'dimensions'>): ScopeIndex {
    return new ScopeIndex(name, embedder.id, embedder.dimensions, newIndex(embedder.dimensions, INITIAL_CAPACITY), []);
  }

  /** Live entries. */
  get size(): number {
    return this.labelOf.size;
  }

  has(key: string): boolean {
    return this.labelOf.has(key);
  }

  /**
   * Brings the index to exactly these entries: the new embedded and added, the gone marked deleted. At most
   * `budget` texts are embedded (work is counted, not timed); the rest are reported as `pending` and the
   * index is then incomplete — its owner must not answer from it until a later sync finishes.
   */
  async sync(
    entries: readonly IndexEntry[],
    embedder: Embedder,
    budget = Infinity,
    progress?: (done: number, total: number) => void,
  ): Promise<SyncResult> {
    const wanted = new Set<string>();
    const missing: IndexEntry[] = [];
    for (const e of entries) {
      if (wanted.has(e.key)) continue;
      wanted.add(e.key);
      if (!this.labelOf.has(e.key)) missing.push(e);
    }
    let removed = 0;
    for (const [key, label] of this.labelOf) {
      if (wanted.has(key)) continue;
      this.count(this.labels[label]![1], -1);
      this.index.markDelete(label);
      this.labels[label] = null;
      this.labelOf.delete(key);
      this.deletedCount++;
      removed++;
    }
    const got = await this.insert(missing, embedder, budget, progress);
    const compacted = this.deletedCount > 1024 && this.deletedCount > this.labelOf.size;
    if (compacted) this.compact();
    if (removed > 0) this.dirty = true;
    return { ...got, removed, compacted };
  }

  /** Adds the entries not in the index yet (records appended to the scope), within the budget. */
  async addNew(entries: readonly IndexEntry[], embedder: Embedder, budget = Infinity): Promise<SyncResult> {
    const seen = new Set<string>();
    const missing = entries.filter((e) => !this.labelOf.has(e.key) && !seen.has(e.key) && seen.add(e.key));
    return { ...(await this.insert(missing, embedder, budget)), removed: 0, compacted: false };
  }

  private async insert(
    missing: readonly IndexEntry[],
    embedder: Embedder,
    budget: number,
    progress?: (done: number, total: number) => void,
  ): Promise<{ added: number; pending: number }> {
    const todo = missing.slice(0, Math.max(0, Math.min(missing.length, budget)));
    for (let i = 0; i < todo.length; i += EMBED_BATCH) {
      const batch = todo.slice(i, i + EMBED_BATCH);
      const vectors = await embedder.embed(batch.map((e) => e.text));
      if (vectors.length !== batch.length)
        throw new Error(`the model returned ${vectors.length} vectors for ${batch.length} texts`);
      this.reserve(batch.length);
      batch.forEach((e, j) => this.add(e, checkVector(vectors[j]!, this.dimensions)));
      this.dirty = true;
      progress?.(i + batch.length, todo.length);
    }
    return { added: todo.length, pending: missing.length - todo.length };
  }

  private reserve(n: number): void {
    const need = this.labels.length + n;
    const capacity = this.index.getMaxElements();
    if (need > capacity) this.index.resizeIndex(Math.max(need, capacity * 2));
  }

  private add(e: IndexEntry, vector: Float32Array): void {
    const label = this.labels.length;
    this.index.addPoint(Array.from(vector), label);
    this.labels.push([e.key, e.tool]);
    this.labelOf.set(e.key, label);
    this.count(e.tool, 1);
  }

  private count(tool: string, delta: number): void {
    const n = (this.perTool.get(tool) ?? 0) + delta;
    if (n === 0) this.perTool.delete(tool);
    else this.perTool.set(tool, n);
  }

  /** A new graph of the live entries, from their stored vectors (no re-embedding), labels renumbered. */
  private compact(): void {
    const live = [...this.labelOf.entries()];
    const next = newIndex(this.dimensions, Math.max(INITIAL_CAPACITY, live.length * 2));
    const labels: [string, string][] = [];
    this.labelOf.clear();
    for (const [key, label] of live) {
      const entry = this.labels[label]!;
      next.addPoint(this.index.getPoint(label), labels.length);
      this.labelOf.set(key, labels.length);
      labels.push(entry);
    }
    this.index = next;
    this.index.setEf(HNSW_EF_SEARCH);
    this.labels = labels;
    this.deletedCount = 0;
  }

  /** The `k` nearest live entries of this tool, best first, with cosine similarity (1 − cosine distance). */
  search(vector: Float32Array, tool: string, k: number): { key: string; similarity: number }[] {
    const ofTool = this.perTool.get(tool) ?? 0;
    if (ofTool === 0 || k <= 0) return [];
    const n = Math.min(k, this.index.getMaxElements());
    const query = Array.from(vector);
    const { distances, neighbors } =
      ofTool === this.labelOf.size
        ? this.index.searchKnn(query, n)
        : this.index.searchKnn(query, n, (label) => this.labels[label]?.[1] === tool);
    const out: { key: string; similarity: number }[] = [];
    neighbors.forEach((label, i) => {
      const entry = this.labels[label];
      if (entry !== null && entry !== undefined) out.push({ key: entry[0], similarity: 1 - distances[i]! });
    });
    return out;
  }

  /** Each live record key's stored vector (for `rules list --neighbours`). */
  vectorOf(key: string): Float32Array | undefined {
    const label = this.labelOf.get(key);
    return label === undefined ? undefined : Float32Array.from(this.index.getPoint(label));
  }

  // ── files ──

  /** Writes the index whole or not at all (see the module comment), into a private directory of ours. */
  save(at: IndexLocation, places: IndexPlaces): void {
    ensurePrivateDir(at.dir);
    const key = macKey(places);
    const tmp = `${at.hnsw}.${process.pid}.${tmpCounter++}.tmp`;
    try {
      this.index.writeIndexSync(tmp);
      chmodSync(tmp, 0o600); // hnswlib creates it by the umask
      const fd = openSync(tmp, 'r+');
      try {
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      const bytes = readFileSync(tmp);
      const meta: Omit<Meta, 'mac'> = {
        format: EMBED_INDEX_FORMAT,
        model: this.model,
        dimensions: this.dimensions,
        scope: this.name,
        capacity: this.index.getMaxElements(),
        labels: this.labels,
        hnswMac: hmac(key, bytes),
      };
      renameSync(tmp, at.hnsw);
      fsyncDirectory(at.dir);
      const body = JSON.stringify(meta);
      writeFileAtomic(at.meta, JSON.stringify({ ...meta, mac: hmac(key, Buffer.from(body)) }) + '\n', {
        mode: 0o600,
        durable: true,
      });
    } finally {
      rmSync(tmp, { force: true });
    }
    this.dirty = false;
  }

  /**
   * The index on disk, if it is whole, ours and built by this model: otherwise why not (absent, a MAC or
   * format mismatch, another model or dimension, a graph hnswlib refuses). Never throws for a bad file;
   * throws RUNTIME_DIR_UNSAFE for a directory that is not ours (a link, another user's).
   */
  static load(at: IndexLocation, places: IndexPlaces, embedder: Pick<Embedder, 'id' | 'dimensions'>): Loaded {
    if (!checkPrivateDir(at.dir)) return { ok: false, why: 'no index yet' };
    let metaBytes: Buffer | undefined;
    let bytes: Buffer | undefined;
    try {
      metaBytes = readOwnedFile(at.meta, 'an embedding index');
      bytes = readOwnedFile(at.hnsw, 'an embedding index');
    } catch (error) {
      return { ok: false, why: `unreadable: ${(error as Error).message}` };
    }
    if (metaBytes === undefined || bytes === undefined) return { ok: false, why: 'no index yet' };
    const key = macKey(places);
    const meta = parseMeta(metaBytes, key);
    if (typeof meta === 'string') return { ok: false, why: meta };
    if (meta.format !== EMBED_INDEX_FORMAT)
      return { ok: false, why: `format ${meta.format}, not ${EMBED_INDEX_FORMAT}` };
    if (meta.scope !== at.name) return { ok: false, why: `it is the index of ${meta.scope}` };
    if (meta.model !== embedder.id)
      return {
        ok: false,
        why: `built by another model (${shortModelId(meta.model)}, now ${shortModelId(embedder.id)})`,
      };
    if (meta.dimensions !== embedder.dimensions)
      return { ok: false, why: `${meta.dimensions} dimensions, the model has ${embedder.dimensions}` };
    if (!timingSafeHexEqual(hmac(key, bytes), meta.hnswMac))
      return { ok: false, why: 'the .hnsw checksum does not match (corrupt, or not written by you)' };
    // hnswlib reads only a path: give it a private copy of exactly the bytes checked above.
    const scratch = ensurePrivateDir(join(places.runtimeDir, 'index'));
    const copy = join(scratch, `load.${process.pid}.${tmpCounter++}.tmp`);
    const index = new (hnsw().HierarchicalNSW)('cosine', meta.dimensions);
    try {
      writeFileAtomic(copy, bytes, { mode: 0o600 });
      index.readIndexSync(copy);
    } catch (error) {
      return { ok: false, why: `hnswlib cannot read it: ${(error as Error).message}` };
    } finally {
      rmSync(copy, { force: true });
    }
    if (index.getNumDimensions() !== meta.dimensions || index.getCurrentCount() !== meta.labels.length) {
      return { ok: false, why: `the graph holds ${index.getCurrentCount()} entries, the meta ${meta.labels.length}` };
    }
    return { ok: true, index: new ScopeIndex(meta.scope, meta.model, meta.dimensions, index, meta.labels) };
  }
}

let tmpCounter = 0;

function checkVector(v: Float32Array, dimensions: number): Float32Array {
  if (v.length !== dimensions)
    throw new Error(`the model returned a ${v.length}-dimensional vector, not ${dimensions}`);
  for (let i = 0; i < v.length; i++)
    if (!Number.isFinite(v[i]!)) throw new Error('the model returned a vector with a non-finite component');
  return v;
}

function macKey(places: IndexPlaces): Buffer {
  return Buffer.from(userSalt(places.runtimeDir), 'hex');
}

function hmac(key: Buffer, data: Buffer): string {
  return createHmac('sha256', key).update(data).digest('hex');
}

function timingSafeHexEqual(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

const KEY_SHAPE = /^[A-Za-z0-9._:-]{1,128}$/;

/** The meta file's fields, MAC-checked and shape-checked; or why it cannot be used. */
function parseMeta(bytes: Buffer, key: Buffer): Meta | string {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    return 'the meta file is not JSON';
  }
  if (typeof value !== 'object' || value === null) return 'the meta file is not an object';
  const { mac, ...rest } = value as Record<string, unknown>;
  if (typeof mac !== 'string' || !timingSafeHexEqual(hmac(key, Buffer.from(JSON.stringify(rest))), mac))
    return 'the meta checksum does not match (corrupt, or not written by you)';
  const m = value as Meta;
  const shaped =
    typeof m.format === 'number' &&
    typeof m.model === 'string' &&
    Number.isInteger(m.dimensions) &&
    typeof m.scope === 'string' &&
    typeof m.hnswMac === 'string' &&
    Array.isArray(m.labels) &&
    m.labels.every(
      (l) =>
        l === null ||
        (Array.isArray(l) &&
          l.length === 2 &&
          typeof l[0] === 'string' &&
          KEY_SHAPE.test(l[0]) &&
          typeof l[1] === 'string'),
    );
  return shaped ? m : 'the meta file has an unexpected shape';
}

// ── a set of scope indexes, kept up to date with the records ─────────────────────────────────────────────

export interface RefreshResult {
  /** Complete: every candidate of the scope is in the index. */
  ready: boolean;
  /** Records embedded by this refresh. */
  embedded: number;
  pending: number;
}

/**
 * The indexes of every scope one process has seen (a worker's, or `hookwise build`'s), each brought up to
 * date with its records when their files changed, and saved when asked.
 */
/** Scope indexes one process keeps (least recently used saved and dropped first: sessions come and go). */
const MAX_HELD = 256;

interface Held {
  index: ScopeIndex;
  at: IndexLocation;
  sources: ScopeSources;
  /** The files have been taken in (a full read synced the index with them). */
  synced: boolean;
  /** Every candidate taken in is in the index. */
  ready: boolean;
  /** While not ready: the candidates of the last full read, to go on embedding without reading again. */
  entries: IndexEntry[] | undefined;
}

/**
 * The records appended to a scope as index entries to add; undefined when the appends may take an entry
 * away (a non-candidate record now holds an indexed key): only a full read can tell then.
 */
function appendedEntries(records: readonly LoadedRecord[], index: ScopeIndex): IndexEntry[] | undefined {
  const out: IndexEntry[] = [];
  for (const r of records) {
    if (similarityCandidate(r)) out.push({ key: r.key, tool: r.tool, text: r.subject });
    else if (index.has(r.key)) return undefined;
  }
  return out;
}

export class IndexSet {
  /** by .hnsw path: a project's index is named `project` in every project */
  private readonly held = new Map<string, Held>();
  /** How refreshes read the records: whole scopes, or only the lines appended. */
  readonly reads = { full: 0, appended: 0 };

  constructor(
    readonly places: IndexPlaces,
    readonly embedder: Embedder,
    private readonly log: (line: string) => void = () => undefined,
  ) {}

  /**
   * The scope's index, brought up to date with its records (loaded from disk, or rebuilt, on first use): the
   * appended lines only when the files were only appended to, else a full read and diff. At most `budget`
   * records are embedded; `ready: false` while some are still missing.
   */
  async refresh(
    target: StoreTarget,
    budget = Infinity,
    progress?: (done: number, total: number) => void,
  ): Promise<RefreshResult> {
    const at = indexLocation(target, this.places);
    let held = this.held.get(at.hnsw);
    if (held !== undefined) {
      this.held.delete(at.hnsw); // most recently used last
      this.held.set(at.hnsw, held);
    } else {
      const loaded = ScopeIndex.load(at, this.places, this.embedder);
      let index: ScopeIndex;
      if (loaded.ok) index = loaded.index;
      else {
        index = ScopeIndex.empty(at.name, this.embedder);
        if (loaded.why !== 'no index yet') this.log(`embedding index ${at.hnsw}: ${loaded.why}; rebuilding it`);
      }
      held = { index, at, sources: new ScopeSources(target), synced: false, ready: false, entries: undefined };
      this.held.set(at.hnsw, held);
      this.evict();
    }
    if (held.synced) {
      const since = held.sources.since();
      if (since.kind === 'same' && held.ready) return { ready: true, embedded: 0, pending: 0 };
      if (since.kind === 'same' && held.entries !== undefined)
        return this.settle(held, await held.index.sync(held.entries, this.embedder, budget, progress));
      if (since.kind === 'appended' && held.ready) {
        const fresh = appendedEntries(since.records, held.index);
        if (fresh !== undefined) {
          this.reads.appended++;
          const got = await held.index.addNew(fresh, this.embedder, budget);
          // an append too large for the budget: finished from a full read
          if (got.pending > 0) held.synced = false;
          held.ready = got.pending === 0;
          return { ready: held.ready, embedded: got.added, pending: got.pending };
        }
      }
    }
    held.sources.takeAll();
    this.reads.full++;
    const entries = candidateEntries(loadScope(target).records);
    held.synced = true;
    held.entries = entries;
    return this.settle(held, await held.index.sync(entries, this.embedder, budget, progress));
  }

  private settle(held: Held, got: SyncResult): RefreshResult {
    held.ready = got.pending === 0;
    if (held.ready) held.entries = undefined;
    return { ready: held.ready, embedded: got.added, pending: got.pending };
  }

  /** The scope's index as held (after a refresh). */
  get(target: StoreTarget): ScopeIndex | undefined {
    return this.held.get(indexLocation(target, this.places).hnsw)?.index;
  }

  private evict(): void {
    while (this.held.size > MAX_HELD) {
      const [path, oldest] = this.held.entries().next().value!;
      this.held.delete(path);
      if (oldest.index.dirty) this.saveOne(oldest.index, oldest.at);
    }
  }

  private saveOne(index: ScopeIndex, at: IndexLocation): boolean {
    try {
      if (index.size === 0) {
        if (checkPrivateDir(at.dir)) for (const path of [at.meta, at.hnsw]) rmSync(path, { force: true });
        index.dirty = false;
        return true;
      }
      index.save(at, this.places);
      return true;
    } catch (error) {
      this.log(`embedding index ${at.hnsw} not saved: ${(error as Error).message}`);
      return false;
    }
  }

  /**
   * Writes every changed index; a failure is logged per index and leaves the others to be saved. An index
   * left empty (a session whose records are gone, a scope emptied) is removed instead of written: no files
   * pile up for scopes that hold nothing.
   */
  save(): { saved: number; failed: number } {
    let saved = 0;
    let failed = 0;
    for (const { index, at } of this.held.values()) {
      if (!index.dirty) continue;
      if (this.saveOne(index, at)) saved++;
      else failed++;
    }
    return { saved, failed };
  }

  get count(): number {
    return this.held.size;
  }
}
