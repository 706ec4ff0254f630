/**
 * The compiled memory index, `.hookwise/.index/memory.idx`: the org, user and project scopes' records,
 * resolved and laid out so a hook process can answer without parsing JSONL:
 *
 *   - exact lookups: the 64-bit keys sorted in a BigUint64Array, binary-searched; only the records that
 *     hit are decoded (each record is its own JSON slice in a blob);
 *   - similarity: every candidate's interned token set (CSR Int32Arrays) and the vocabulary, restored into
 *     a JaccardIndex on first use, without re-tokenizing;
 *   - overrides and the load problems: small, in the header.
 *
 * Keyed by its sources: each JSONL file's path, size, mtime, inode and content hash (XXH3). A file whose
 * stat changed but whose content hash did not (a git checkout touching mtimes) still matches; anything
 * else rebuilds. Only worth having for large stores: below `INDEX_MIN_RECORDS` the JSONL is parsed
 * directly (≈ 3 ms per 1000 records) and no file is written. The directory is private (0700, the file
 * 0600): it holds the user's and org's records too, sanitized like everything stored.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir, writeFileAtomic } from '../util/fs-safe.js';
import { xxh3Hex } from '../util/xxhash.js';
import { JaccardIndex } from './jaccard.js';
import { loadScope, scopeFiles, type LoadedRecord, type StoreProblem, type StoreTarget } from './store.js';
import { tokenize, type TokenContext } from './tokens.js';
import { RawRecordSet, similarityCandidate, type RecordSet, type SimilarIndex } from './view.js';

export const INDEX_FORMAT = 2;
export const INDEX_MIN_RECORDS = 500;
const MAGIC = 'HWMEMIDX';

export function indexFile(projectRoot: string): string {
  return join(projectRoot, '.hookwise', '.index', 'memory.idx');
}

export interface SourceStamp {
  path: string;
  size: number;
  mtimeMs: number;
  ino: number;
  hash: string;
}

export interface Header {
  format: number;
  projectRoot: string;
  home: string;
  sources: SourceStamp[];
  problems: StoreProblem[];
  overrides: LoadedRecord[];
  count: number;
  similarCount: number;
  /** section name → [byte offset from the start of the body, byte length] */
  sections: Record<string, [number, number]>;
}

/** 64-bit lookup key of a record key: its hex value when it is one (cacheKey's form), else its XXH3. */
function key64(key: string): bigint {
  return /^[0-9a-f]{16}$/.test(key) ? BigInt(`0x${key}`) : BigInt(`0x${xxh3Hex(key)}`);
}

function stampOf(path: string, withHash: boolean): SourceStamp | undefined {
  const st = statSync(path, { throwIfNoEntry: false });
  if (st === undefined) return undefined;
  return { path, size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, hash: withHash ? xxh3Hex(readFileSync(path, 'utf8')) : '' };
}

/**
 * A source file as one reader saw it: its bytes and the stat taken *before* reading them (memory/live.ts),
 * so a write racing the read makes the stamp stale, never the records silently old.
 */
export interface SourceSnapshot {
  path: string;
  bytes: Buffer;
  mtimeMs: number;
  ino: number;
}

/** The stamp an index built from this snapshot records. */
export function snapshotStamp(s: SourceSnapshot): SourceStamp {
  return { path: s.path, size: s.bytes.length, mtimeMs: s.mtimeMs, ino: s.ino, hash: xxh3Hex(s.bytes.toString('utf8')) };
}

/**
 * Was the index built from exactly these bytes? The rule of `sourcesMatch`, applied to bytes already read:
 * the same files in the same order, each the same size and either the same stat or the same content hash.
 */
export function snapshotsMatch(stamped: readonly SourceStamp[], snapshots: readonly SourceSnapshot[]): boolean {
  if (stamped.length !== snapshots.length) return false;
  return stamped.every((s, i) => {
    const now = snapshots[i]!;
    if (s.path !== now.path || s.size !== now.bytes.length) return false;
    return (s.ino === now.ino && s.mtimeMs === now.mtimeMs) || xxh3Hex(now.bytes.toString('utf8')) === s.hash;
  });
}

/** Do the sources still match the index? Stat first; the content hash only when the stat differs. */
function sourcesMatch(stamped: readonly SourceStamp[], files: readonly string[]): boolean {
  if (stamped.length !== files.length || stamped.some((s, i) => s.path !== files[i])) return false;
  for (const s of stamped) {
    const now = stampOf(s.path, false);
    if (now === undefined) return false;
    if (now.size === s.size && now.mtimeMs === s.mtimeMs && now.ino === s.ino) continue;
    if (now.size !== s.size || xxh3Hex(readFileSync(s.path, 'utf8')) !== s.hash) return false;
  }
  return true;
}

// ── writing ──────────────────────────────────────────────────────────────────────────────────────────────

function align8(n: number): number {
  return (n + 7) & ~7;
}

/** Compiles the records of the given scopes into an index file's bytes. */
export function compileIndex(targets: readonly StoreTarget[], ctx: TokenContext): { bytes: Buffer; records: LoadedRecord[]; problems: StoreProblem[] } {
  const sources: SourceStamp[] = [];
  const records: LoadedRecord[] = [];
  const problems: StoreProblem[] = [];
  for (const target of targets) {
    // Stamp before reading: a write racing the build makes the stamp stale, never the index silently old.
    for (const file of scopeFiles(target)) {
      const s = stampOf(file, true);
      if (s !== undefined) sources.push(s);
    }
    const load = loadScope(target);
    records.push(...load.records);
    problems.push(...load.problems);
  }
  return { bytes: compileRecords(records, problems, sources, ctx), records, problems };
}

/**
 * An index file's bytes for records already loaded and resolved per scope (in scope order), stamped with
 * the sources they were read from.
 */
export function compileRecords(records: readonly LoadedRecord[], problems: readonly StoreProblem[], sources: readonly SourceStamp[], ctx: TokenContext): Buffer {
  const overrides = records.filter((r) => r.tier === 'override');
  const remembered = records.filter((r) => r.tier !== 'override');

  const order = remembered.map((r, i) => ({ k: key64(r.key), i })).sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : a.i - b.i));
  const keys = BigUint64Array.from(order.map((o) => o.k));
  const keyRecord = Uint32Array.from(order.map((o) => o.i));
  const blobs = remembered.map((r) => Buffer.from(JSON.stringify(r), 'utf8'));
  const recordOffsets = new Uint32Array(blobs.length + 1);
  blobs.forEach((b, i) => (recordOffsets[i + 1] = recordOffsets[i]! + b.length));

  const jaccard = new JaccardIndex();
  const similar: number[] = [];
  remembered.forEach((r, i) => {
    if (!similarityCandidate(r)) return;
    jaccard.add(tokenize(r.subject, ctx));
    similar.push(i);
  });
  const arrays = jaccard.toArrays();

  const parts: [string, Uint8Array][] = [
    ['keys', new Uint8Array(keys.buffer)],
    ['keyRecord', new Uint8Array(keyRecord.buffer)],
    ['recordOffsets', new Uint8Array(recordOffsets.buffer)],
    ['similarRecord', new Uint8Array(Uint32Array.from(similar).buffer)],
    ['setOffsets', new Uint8Array(arrays.setOffsets.buffer)],
    ['setIds', new Uint8Array(arrays.setIds.buffer)],
    ['postOffsets', new Uint8Array(arrays.postOffsets.buffer)],
    ['postIds', new Uint8Array(arrays.postIds.buffer)],
    ['vocabulary', Buffer.from(JSON.stringify(arrays.vocabulary), 'utf8')],
    ['records', Buffer.concat(blobs)],
  ];
  const sections: Record<string, [number, number]> = {};
  let offset = 0;
  for (const [name, bytes] of parts) {
    sections[name] = [offset, bytes.length];
    offset = align8(offset + bytes.length);
  }
  const header: Header = { format: INDEX_FORMAT, projectRoot: ctx.projectRoot, home: ctx.home, sources: [...sources], problems: [...problems], overrides, count: records.length, similarCount: similar.length, sections };
  const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
  const bodyStart = align8(MAGIC.length + 4 + headerBytes.length);
  const out = Buffer.alloc(bodyStart + offset);
  out.write(MAGIC, 0, 'latin1');
  out.writeUInt32LE(headerBytes.length, MAGIC.length);
  headerBytes.copy(out, MAGIC.length + 4);
  for (const [name, bytes] of parts) out.set(bytes, bodyStart + sections[name]![0]);
  return out;
}

// ── reading ──────────────────────────────────────────────────────────────────────────────────────────────

export class IndexedRecordSet implements RecordSet {
  private readonly keys: BigUint64Array;
  private readonly keyRecord: Uint32Array;
  private readonly recordOffsets: Uint32Array;
  private readonly decoded = new Map<number, LoadedRecord>();
  private similarIndex: SimilarIndex | undefined;

  constructor(
    readonly header: Header,
    private readonly body: Buffer,
  ) {
    const keys = this.slice('keys');
    this.keys = new BigUint64Array(keys.buffer, keys.byteOffset, keys.length / 8);
    this.keyRecord = this.u32('keyRecord');
    this.recordOffsets = this.u32('recordOffsets');
  }

  get size(): number {
    return this.header.count;
  }

  get problems(): StoreProblem[] {
    return this.header.problems;
  }

  private section(name: string): [number, number] {
    const s = this.header.sections[name];
    if (s === undefined) throw new Error(`memory index: no ${name} section`);
    return s;
  }

  private slice(name: string): Buffer {
    const [offset, length] = this.section(name);
    return this.body.subarray(offset, offset + length);
  }

  private u32(name: string): Uint32Array {
    const b = this.slice(name);
    return new Uint32Array(b.buffer, b.byteOffset, b.length / 4);
  }

  private i32(name: string): Int32Array {
    const b = this.slice(name);
    return new Int32Array(b.buffer, b.byteOffset, b.length / 4);
  }

  private record(i: number): LoadedRecord {
    let r = this.decoded.get(i);
    if (r === undefined) {
      const [offset] = this.section('records');
      r = JSON.parse(this.body.toString('utf8', offset + this.recordOffsets[i]!, offset + this.recordOffsets[i + 1]!)) as LoadedRecord;
      this.decoded.set(i, r);
    }
    return r;
  }

  overrides(): readonly LoadedRecord[] {
    return this.header.overrides;
  }

  byKey(key: string): readonly LoadedRecord[] {
    const k = key64(key);
    let lo = 0;
    let hi = this.keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.keys[mid]! < k) lo = mid + 1;
      else hi = mid;
    }
    const out: LoadedRecord[] = [];
    for (let i = lo; i < this.keys.length && this.keys[i] === k; i++) {
      const r = this.record(this.keyRecord[i]!);
      if (r.key === key) out.push(r);
    }
    return out;
  }

  similar(): SimilarIndex {
    if (this.similarIndex !== undefined) return this.similarIndex;
    const vocabulary = JSON.parse(this.slice('vocabulary').toString('utf8')) as string[];
    const index = JaccardIndex.fromArrays({
      vocabulary,
      setOffsets: this.i32('setOffsets'),
      setIds: this.i32('setIds'),
      postOffsets: this.i32('postOffsets'),
      postIds: this.i32('postIds'),
    });
    const similarRecord = this.u32('similarRecord');
    this.similarIndex = { index, record: (entry) => this.record(similarRecord[entry]!) };
    return this.similarIndex;
  }
}

/** Parses an index file's bytes; undefined when it is not one (or another format). */
export function readIndex(bytes: Buffer): IndexedRecordSet | undefined {
  if (bytes.length < MAGIC.length + 4 || bytes.toString('latin1', 0, MAGIC.length) !== MAGIC) return undefined;
  const headerLength = bytes.readUInt32LE(MAGIC.length);
  let header: Header;
  try {
    header = JSON.parse(bytes.toString('utf8', MAGIC.length + 4, MAGIC.length + 4 + headerLength)) as Header;
  } catch {
    return undefined;
  }
  if (header.format !== INDEX_FORMAT) return undefined;
  let body = bytes.subarray(align8(MAGIC.length + 4 + headerLength));
  // Typed arrays need aligned offsets; a pooled Buffer may not be 8-aligned.
  if (body.byteOffset % 8 !== 0) body = Buffer.from(new Uint8Array(body));
  return new IndexedRecordSet(header, body);
}

/** Writes the index file atomically, in its private, git-ignored directory. Throws when it cannot. */
export function writeIndex(projectRoot: string, bytes: Buffer): void {
  const dir = ensurePrivateDir(join(projectRoot, '.hookwise', '.index'));
  // Never committed, even in a project whose .hookwise/ has no .gitignore (hookwise init writes one).
  if (!existsSync(join(dir, '.gitignore'))) writeFileAtomic(join(dir, '.gitignore'), '*\n', { mode: 0o600 });
  writeFileAtomic(indexFile(projectRoot), bytes, { mode: 0o600 });
}

export interface IndexedLoad {
  set: RecordSet & { problems?: StoreProblem[] };
  problems: StoreProblem[];
  /** What happened: the index answered, was (re)built, or the JSONL was parsed directly. */
  via: 'index' | 'built' | 'jsonl';
}

/**
 * The org, user and project scopes as one record set: from the index when it still matches its sources;
 * otherwise parsed, and — when there are at least `minRecords` — compiled and written for the next call.
 * A failure to write the index (a read-only checkout) is not an error: the parsed records are used.
 */
export function loadIndexed(targets: readonly StoreTarget[], ctx: TokenContext, options: { minRecords?: number; rebuild?: boolean } = {}): IndexedLoad {
  const file = indexFile(ctx.projectRoot);
  const files = targets.flatMap((t) => scopeFiles(t));
  if (options.rebuild !== true) {
    let bytes: Buffer | undefined;
    try {
      bytes = readFileSync(file);
    } catch {
      bytes = undefined;
    }
    const set = bytes === undefined ? undefined : readIndex(bytes);
    if (set !== undefined && set.header.projectRoot === ctx.projectRoot && set.header.home === ctx.home && sourcesMatch(set.header.sources, files)) {
      return { set, problems: set.problems, via: 'index' };
    }
  }
  // Small stores: parse and go — no stamps, no hashing (the hash loads a native addon), no file.
  const minRecords = options.minRecords ?? INDEX_MIN_RECORDS;
  if (options.rebuild !== true) {
    const records: LoadedRecord[] = [];
    const problems: StoreProblem[] = [];
    for (const target of targets) {
      const load = loadScope(target);
      for (const r of load.records) records.push(r);
      for (const p of load.problems) problems.push(p);
    }
    if (records.length < minRecords) return { set: new RawRecordSet(records), problems, via: 'jsonl' };
  }
  const compiled = compileIndex(targets, ctx);
  try {
    writeIndex(ctx.projectRoot, compiled.bytes);
    return { set: readIndex(compiled.bytes)!, problems: compiled.problems, via: 'built' };
  } catch {
    // Not writable here (a read-only checkout): use the records parsed for it.
  }
  return { set: new RawRecordSet(compiled.records), problems: compiled.problems, via: 'jsonl' };
}
