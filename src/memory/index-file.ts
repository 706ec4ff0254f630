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
 * A derived cache is only as good as its bytes: the file carries an XXH64 checksum of everything after the
 * checksum itself (header and body), seeded with the user's salt (util/salt.ts: `IndexKey`) — so an index
 * nobody with this runtime directory wrote (one committed to the repository with forged allows, or copied
 * from another machine) never matches — and `readIndex` also checks the structure (every section in the body,
 * a whole number of elements, counts that agree). Anything off — a flipped bit, a truncated body, another
 * format — and the index is not used: the JSONL is parsed and the index written again.
 *
 * Keyed by its sources: each JSONL file's path, size, mtime, inode, line count and content hash (XXH64 of
 * the bytes). A file whose stat changed but whose content did not (a git checkout touching mtimes) still
 * matches. A file that only grew by whole lines — the bytes the index was built from are an exact prefix of
 * the file now (same hash over the first `size` bytes, ending in '\n') — or a file that appeared where
 * none was, does not rebuild it either: `loadIndexed` parses only the appended lines and layers them over
 * the index (memory/live-set.ts `LiveRecordSet`, which resolves them as a full load would), until more than
 * `MAX_APPENDED_LINES` have piled up; then the index is rebuilt. Anything else (a file shrunk, edited in
 * place, removed) rebuilds it on the next load.
 *
 * Only worth having for large stores: below `INDEX_MIN_RECORDS` the JSONL is parsed directly (≈ 3 ms per
 * 1000 records) and no file is written. The directory is private (0700, the file 0600): it holds the
 * user's and org's records too, sanitized like everything stored.
 */
import { closeSync, existsSync, fstatSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir, isAbsent, writeFileAtomic } from '../util/fs-safe.js';
import { readSalt, userSalt } from '../util/salt.js';
import { xxh3Hex, xxh64BytesHex } from '../util/xxhash.js';
import { JaccardIndex } from './jaccard.js';
import { LiveRecordSet } from './live-set.js';
import {
  parseLines,
  resolveRecords,
  scopeFiles,
  type LoadedRecord,
  type StoreProblem,
  type StoreTarget,
} from './store.js';
import { tokenize, type TokenContext } from './tokens.js';
import { RawRecordSet, similarityCandidate, similarityText, type RecordSet, type SimilarIndex } from './view.js';

// 4: a record with a form is indexed by its form's tokens (memory/view.ts similarityText).
// 5: a form that is not a form of its record's subject is dropped on load (memory/store.ts parseLines).
export const INDEX_FORMAT = 5;
export const INDEX_MIN_RECORDS = 500;
/**
 * Appended lines a load parses on top of the index before it rebuilds the index instead. Parsing a line
 * costs ≈ 3 µs (and tokenizing an appended candidate for a similarity query about as much again), so 512
 * lines add at most ≈ 3 ms to a call, less than loading the index itself at 10k records (≈ 8 ms). A rebuild
 * costs ≈ 0.35 s at 10k records and ≈ 3 s at 100k (measured); spread over 512 learned records that is
 * ≈ 0.7 ms (10k) to ≈ 6 ms (100k) per record, where rebuilding on every append cost all of it each time.
 */
export const MAX_APPENDED_LINES = 512;

const MAGIC = 'HWMEMIDX';
// The file: MAGIC | the checksum, 16 hex digits (XXH64 of every byte after them) | the header's length
// (u32 LE) | the header (JSON) | zero padding to a multiple of 8 | the body (the sections, each 8-aligned).
const CHECKSUM_AT = MAGIC.length;
const CHECKED_FROM = CHECKSUM_AT + 16;
const HEADER_AT = CHECKED_FROM + 4;

export function indexFile(projectRoot: string): string {
  return join(projectRoot, '.hookwise', '.index', 'memory.idx');
}

export interface SourceStamp {
  path: string;
  size: number;
  mtimeMs: number;
  ino: number;
  /** XXH64 of the file's bytes, hex. */
  hash: string;
  /** Lines in those bytes ('\n' count): an appended line is numbered from `lines + 1`. */
  lines: number;
}

/** The sections of the body and the size of their elements in bytes. */
const SECTIONS = {
  keys: 8,
  keyRecord: 4,
  recordOffsets: 4,
  similarRecord: 4,
  setOffsets: 4,
  setIds: 4,
  postOffsets: 4,
  postIds: 4,
  vocabulary: 1,
  records: 1,
} as const;
type SectionName = keyof typeof SECTIONS;

export interface Header {
  format: number;
  projectRoot: string;
  home: string;
  sources: SourceStamp[];
  problems: StoreProblem[];
  overrides: LoadedRecord[];
  count: number;
  similarCount: number;
  /** Tokens in the vocabulary (the postings have one offset per token, plus one). */
  vocabularySize: number;
  bodyLength: number;
  /** section name → [byte offset from the start of the body, byte length] */
  sections: Record<SectionName, [number, number]>;
}

/** 64-bit lookup key of a record key: its hex value when it is one (cacheKey's form), else its XXH3. */
function key64(key: string): bigint {
  return /^[0-9a-f]{16}$/.test(key) ? BigInt(`0x${key}`) : BigInt(`0x${xxh3Hex(key)}`);
}

// ── source files ─────────────────────────────────────────────────────────────────────────────────────────

const NEWLINE = 0x0a;

/**
 * A source file as one reader saw it: its bytes and the stat taken *before* reading them, so a write
 * racing the read makes the stamp stale, never the records silently old.
 */
export interface SourceSnapshot {
  path: string;
  bytes: Buffer;
  mtimeMs: number;
  ino: number;
  dev: number;
  /** The size the stat reported (the bytes are fewer only if the file shrank while it was read). */
  size: number;
}

/** Bytes [start, end) of an open file (fewer if it ends first). */
export function readRange(fd: number, start: number, end: number): Buffer {
  const buf = Buffer.allocUnsafe(Math.max(0, end - start));
  let n = 0;
  while (n < buf.length) {
    const got = readSync(fd, buf, n, buf.length - n, start + n);
    if (got === 0) break;
    n += got;
  }
  return n < buf.length ? buf.subarray(0, n) : buf;
}

/** The file's bytes up to the size its stat (taken first, on the open file) reported; undefined if absent. */
export function readSource(path: string): SourceSnapshot | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    if (isAbsent(error)) return undefined;
    throw error;
  }
  try {
    const st = fstatSync(fd);
    return { path, bytes: readRange(fd, 0, st.size), mtimeMs: st.mtimeMs, ino: st.ino, dev: st.dev, size: st.size };
  } finally {
    closeSync(fd);
  }
}

export function countNewlines(buf: Uint8Array): number {
  let n = 0;
  for (let i = buf.indexOf(NEWLINE); i !== -1; i = buf.indexOf(NEWLINE, i + 1)) n++;
  return n;
}

/** The stamp an index built from this snapshot records. */
export function snapshotStamp(s: SourceSnapshot): SourceStamp {
  return {
    path: s.path,
    size: s.bytes.length,
    mtimeMs: s.mtimeMs,
    ino: s.ino,
    hash: xxh64BytesHex(s.bytes),
    lines: countNewlines(s.bytes),
  };
}

/** A source file of the org, user or project scope, in the order a full load reads them. */
export interface SourceFile {
  path: string;
  target: StoreTarget;
}

/** What the index does not hold of one source file: the whole lines appended after what it was built from. */
export interface Appended {
  file: SourceFile;
  /** The appended bytes: from the end of the stamped prefix (all of a file that appeared) to the end. */
  bytes: Buffer;
  /** Lines before them. */
  lines: number;
}

/** What the index needs to know of a source file now: its stat, and (only if that moved) its bytes. */
export interface SourceReader {
  stat(path: string): { size: number; mtimeMs: number; ino: number } | undefined;
  read(path: string): SourceSnapshot | undefined;
}

const FROM_DISK: SourceReader = { stat: (path) => statSync(path, { throwIfNoEntry: false }), read: readSource };

/**
 * How the files now differ from those the index was built from: nothing (`[]`), only appended lines and
 * files that appeared (what to parse on top), or anything else (undefined: the index cannot serve). Exact:
 * a file that grew is an append only if the hash of its first `size` bytes is the stamped hash and those
 * bytes end in '\n' (or are none); a file whose stat moved but whose bytes did not is unchanged.
 */
export function appendedSince(
  stamped: readonly SourceStamp[],
  files: readonly SourceFile[],
  reader: SourceReader = FROM_DISK,
): Appended[] | undefined {
  const byPath = new Map(stamped.map((s) => [s.path, s]));
  let matched = 0;
  const appended: Appended[] = [];
  for (const file of files) {
    const s = byPath.get(file.path);
    if (s === undefined) {
      // A file the index has never seen (a first ask.jsonl, a new org file): all of it is appended.
      const now = reader.read(file.path);
      if (now !== undefined && now.bytes.length > 0) appended.push({ file, bytes: now.bytes, lines: 0 });
      continue;
    }
    matched++;
    const st = reader.stat(file.path);
    if (st === undefined || st.size < s.size) return undefined;
    if (st.size === s.size && st.mtimeMs === s.mtimeMs && st.ino === s.ino) continue;
    const now = reader.read(file.path);
    if (now === undefined || now.bytes.length < s.size || xxh64BytesHex(now.bytes.subarray(0, s.size)) !== s.hash)
      return undefined;
    if (now.bytes.length === s.size) continue; // touched, not changed
    if (s.size > 0 && now.bytes[s.size - 1] !== NEWLINE) return undefined; // it grew after an unterminated line
    appended.push({ file, bytes: now.bytes.subarray(s.size), lines: s.lines });
  }
  // every stamped file is still there (one removed changes what a full load reads)
  return matched === stamped.length && byPath.size === stamped.length ? appended : undefined;
}

/** Lines in the appended parts (a last one without '\n' counts: a full load reads it too). */
export function appendedLines(appended: readonly Appended[]): number {
  let n = 0;
  for (const a of appended) n += countNewlines(a.bytes) + (a.bytes[a.bytes.length - 1] === NEWLINE ? 0 : 1);
  return n;
}

/** Parses a file's text as loadScope would, its records and problems numbered from line `lines + 1`. */
export function parseFrom(
  text: string,
  file: SourceFile,
  lines: number,
  into: LoadedRecord[],
  problems: StoreProblem[],
): void {
  const records: LoadedRecord[] = [];
  const found: StoreProblem[] = [];
  parseLines(text, file.path, file.target, records, found);
  for (const r of records) {
    r.line += lines;
    into.push(r);
  }
  for (const p of found) problems.push(lines === 0 ? p : { ...p, line: p.line + lines });
}

/**
 * The index with the appended lines layered over it: they are resolved against its records exactly as a
 * full load would resolve them (newest ts, then the stricter verdict, then the later line), and similarity
 * asks the index and the appended candidates apart (no index over all records is built per call).
 */
export function layered(
  base: IndexedRecordSet,
  appended: readonly Appended[],
): { set: LiveRecordSet; problems: StoreProblem[] } {
  const set = new LiveRecordSet(base);
  const problems = [...base.problems];
  for (const a of appended) {
    const records: LoadedRecord[] = [];
    parseBytes(a.bytes, a.file, a.lines, records, problems);
    for (const r of records) set.add(r);
  }
  return { set, problems };
}

// ── writing ──────────────────────────────────────────────────────────────────────────────────────────────

function align8(n: number): number {
  return (n + 7) & ~7;
}

/** The scopes read from disk: each file's snapshot (when asked to keep them), and the records resolved per scope. */
export interface ReadScopes {
  sources: SourceSnapshot[];
  records: LoadedRecord[];
  problems: StoreProblem[];
}

/**
 * Reads the scopes' files: what `loadScope` (store.ts) reads, parsed the same way. `keep`: the snapshots
 * are returned too (an index is stamped with them); otherwise each file's bytes are dropped once parsed.
 */
export function readScopes(targets: readonly StoreTarget[], options: { keep?: boolean } = {}): ReadScopes {
  const out: ReadScopes = { sources: [], records: [], problems: [] };
  for (const target of targets) {
    const all: LoadedRecord[] = [];
    for (const path of scopeFiles(target)) {
      const s = readSource(path);
      if (s === undefined) continue; // removed since it was listed
      if (options.keep !== false) out.sources.push(s);
      parseBytes(s.bytes, { path, target }, 0, all, out.problems);
    }
    for (const r of resolveRecords(all)) out.records.push(r);
  }
  return out;
}

/** Bytes decoded and parsed at a time by `parseBytes`. */
const PIECE = 1 << 20;

/**
 * `parseFrom` over a file's bytes, a piece of whole lines (≈ 1 MB) at a time: the same records, problems
 * and line numbers as parsing the whole text, without a string of the whole file (20 MB of JSONL with one
 * non-Latin-1 character in it is a 40 MB string). A piece ends after a '\n', so no character is split.
 */
export function parseBytes(
  bytes: Buffer,
  file: SourceFile,
  lines: number,
  into: LoadedRecord[],
  problems: StoreProblem[],
): void {
  let start = 0;
  let before = lines;
  while (start < bytes.length) {
    let end = bytes.length;
    if (start + PIECE < bytes.length) {
      const last = bytes.lastIndexOf(NEWLINE, start + PIECE - 1);
      const next = last >= start ? last : bytes.indexOf(NEWLINE, start + PIECE);
      if (next !== -1) end = next + 1;
    }
    const piece = bytes.subarray(start, end);
    parseFrom(piece.toString('utf8'), file, before, into, problems);
    before += countNewlines(piece);
    start = end;
  }
}

/**
 * What the checksum is seeded with: 64 bits of the user's salt. `create`: make the salt if there is none
 * yet (a writer); a reader without one has no index that can match.
 */
export type IndexKey = bigint;

export function indexKey(runtimeDir: string, create: boolean): IndexKey | undefined {
  const salt = create ? userSalt(runtimeDir) : readSalt(runtimeDir);
  return salt === undefined ? undefined : BigInt(`0x${salt.slice(0, 16)}`);
}

/** Compiles the records of the given scopes into an index file's bytes. */
export function compileIndex(
  targets: readonly StoreTarget[],
  ctx: TokenContext,
  key: IndexKey,
): { bytes: Buffer; records: LoadedRecord[]; problems: StoreProblem[] } {
  const read = readScopes(targets);
  return {
    bytes: compileRecords(read.records, read.problems, read.sources.map(snapshotStamp), ctx, key),
    records: read.records,
    problems: read.problems,
  };
}

/**
 * An index file's bytes for records already loaded and resolved per scope (in scope order), stamped with
 * the sources they were read from.
 */
export function compileRecords(
  records: readonly LoadedRecord[],
  problems: readonly StoreProblem[],
  sources: readonly SourceStamp[],
  ctx: TokenContext,
  key: IndexKey,
): Buffer {
  const overrides = records.filter((r) => r.tier === 'override');
  const remembered = records.filter((r) => r.tier !== 'override');

  const order = remembered
    .map((r, i) => ({ k: key64(r.key), i }))
    .sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : a.i - b.i));
  const keys = BigUint64Array.from(order.map((o) => o.k));
  const keyRecord = Uint32Array.from(order.map((o) => o.i));
  const blobs = remembered.map((r) => Buffer.from(JSON.stringify(r), 'utf8'));
  const recordOffsets = new Uint32Array(blobs.length + 1);
  blobs.forEach((b, i) => (recordOffsets[i + 1] = recordOffsets[i]! + b.length));

  const jaccard = new JaccardIndex();
  const similar: number[] = [];
  remembered.forEach((r, i) => {
    if (!similarityCandidate(r)) return;
    jaccard.add(tokenize(similarityText(r), ctx));
    similar.push(i);
  });
  const arrays = jaccard.toArrays();

  const parts: [SectionName, Uint8Array][] = [
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
  const sections = {} as Record<SectionName, [number, number]>;
  let offset = 0;
  for (const [name, bytes] of parts) {
    sections[name] = [offset, bytes.length];
    offset = align8(offset + bytes.length);
  }
  const header: Header = {
    format: INDEX_FORMAT,
    projectRoot: ctx.projectRoot,
    home: ctx.home,
    sources: [...sources],
    problems: [...problems],
    overrides,
    count: records.length,
    similarCount: similar.length,
    vocabularySize: arrays.vocabulary.length,
    bodyLength: offset,
    sections,
  };
  const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
  const bodyStart = align8(HEADER_AT + headerBytes.length);
  const out = Buffer.alloc(bodyStart + offset);
  out.write(MAGIC, 0, 'latin1');
  out.writeUInt32LE(headerBytes.length, CHECKED_FROM);
  headerBytes.copy(out, HEADER_AT);
  for (const [name, bytes] of parts) out.set(bytes, bodyStart + sections[name][0]);
  out.write(xxh64BytesHex(out.subarray(CHECKED_FROM), key), CHECKSUM_AT, 'latin1');
  return out;
}

// ── reading ──────────────────────────────────────────────────────────────────────────────────────────────

/**
 * The compiled index, read: answers from the typed arrays over its body. Made by `readIndex`, which has
 * checked the bytes (checksum, header, section bounds) and `consistent()`.
 */
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

  /**
   * Do the sections agree with the header and with each other? One entry per remembered record in the
   * key arrays, offsets that start at 0 and end at their data's end, one token set per similarity
   * candidate, one postings list per vocabulary token. O(1): the checksum already vouches for the bytes;
   * this keeps a file that is whole but not what this code writes from being read out of bounds.
   */
  consistent(): boolean {
    const h = this.header;
    const remembered = h.count - h.overrides.length;
    const n = (name: SectionName): number => h.sections[name][1] / SECTIONS[name];
    const ends = (offsets: Uint32Array | Int32Array, count: number, end: number): boolean =>
      offsets.length === count + 1 && offsets[0] === 0 && offsets[count] === end;
    return (
      n('keys') === remembered &&
      n('keyRecord') === remembered &&
      ends(this.recordOffsets, remembered, h.sections.records[1]) &&
      n('similarRecord') === h.similarCount &&
      ends(this.i32('setOffsets'), h.similarCount, n('setIds')) &&
      ends(this.i32('postOffsets'), h.vocabularySize, n('postIds'))
    );
  }

  private slice(name: SectionName): Buffer {
    const [offset, length] = this.header.sections[name];
    return this.body.subarray(offset, offset + length);
  }

  private u32(name: SectionName): Uint32Array {
    const b = this.slice(name);
    return new Uint32Array(b.buffer, b.byteOffset, b.length / 4);
  }

  private i32(name: SectionName): Int32Array {
    const b = this.slice(name);
    return new Int32Array(b.buffer, b.byteOffset, b.length / 4);
  }

  private record(i: number): LoadedRecord {
    let r = this.decoded.get(i);
    if (r === undefined) {
      const [offset] = this.header.sections.records;
      r = JSON.parse(
        this.body.toString('utf8', offset + this.recordOffsets[i]!, offset + this.recordOffsets[i + 1]!),
      ) as LoadedRecord;
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
    // The header's count was checked against the postings; the list itself is only parsed now.
    if (vocabulary.length !== this.header.vocabularySize)
      throw new Error('memory index: the vocabulary does not match its postings');
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

/** Is this a header `compileRecords` wrote, with a body of this length? Checks the shape, not the meaning. */
function validHeader(h: unknown, bodyLength: number): h is Header {
  if (typeof h !== 'object' || h === null) return false;
  const header = h as Partial<Header>;
  const counts = [header.count, header.similarCount, header.vocabularySize, header.bodyLength];
  if (header.format !== INDEX_FORMAT || typeof header.projectRoot !== 'string' || typeof header.home !== 'string')
    return false;
  if (!counts.every((n) => Number.isSafeInteger(n) && n! >= 0) || header.bodyLength !== bodyLength) return false;
  if (!Array.isArray(header.problems) || !Array.isArray(header.overrides) || header.overrides.length > header.count!)
    return false;
  if (!Array.isArray(header.sources) || !header.sources.every(validStamp)) return false;
  const sections = header.sections;
  if (typeof sections !== 'object' || sections === null) return false;
  for (const [name, size] of Object.entries(SECTIONS)) {
    const s = (sections as Record<string, unknown>)[name];
    if (!Array.isArray(s) || s.length !== 2) return false;
    const [offset, length] = s as unknown[];
    if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length)) return false;
    const o = offset as number;
    const n = length as number;
    // in the body, aligned for its typed array, a whole number of elements
    if (o < 0 || n < 0 || o + n > bodyLength || o % 8 !== 0 || n % size !== 0) return false;
  }
  return true;
}

function validStamp(s: unknown): s is SourceStamp {
  if (typeof s !== 'object' || s === null) return false;
  const stamp = s as Partial<SourceStamp>;
  return (
    typeof stamp.path === 'string' &&
    typeof stamp.hash === 'string' &&
    [stamp.size, stamp.lines, stamp.ino].every((n) => Number.isSafeInteger(n) && n! >= 0) &&
    typeof stamp.mtimeMs === 'number'
  );
}

/**
 * Parses an index file's bytes; undefined when they are not an intact index of this format: the checksum
 * must match and the sections must agree with each other (`IndexedRecordSet.consistent`).
 */
export function readIndex(bytes: Buffer, key: IndexKey): IndexedRecordSet | undefined {
  if (bytes.length < HEADER_AT || bytes.toString('latin1', 0, MAGIC.length) !== MAGIC) return undefined;
  if (bytes.toString('latin1', CHECKSUM_AT, CHECKED_FROM) !== xxh64BytesHex(bytes.subarray(CHECKED_FROM), key))
    return undefined;
  const headerLength = bytes.readUInt32LE(CHECKED_FROM);
  const bodyStart = align8(HEADER_AT + headerLength);
  if (bodyStart > bytes.length) return undefined;
  let header: unknown;
  try {
    header = JSON.parse(bytes.toString('utf8', HEADER_AT, HEADER_AT + headerLength));
  } catch {
    return undefined; // not JSON: not an index this code wrote (the checksum matched)
  }
  if (!validHeader(header, bytes.length - bodyStart)) return undefined;
  let body = bytes.subarray(bodyStart);
  // Typed arrays need aligned offsets; a pooled Buffer may not be 8-aligned.
  if (body.byteOffset % 8 !== 0) body = Buffer.from(new Uint8Array(body));
  const set = new IndexedRecordSet(header, body);
  return set.consistent() ? set : undefined;
}

/** The project's index file, read and checked; undefined when there is none or it is not intact. */
export function readIndexFile(projectRoot: string, runtimeDir: string): IndexedRecordSet | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(indexFile(projectRoot));
  } catch (error) {
    if (isAbsent(error)) return undefined;
    throw error;
  }
  // The salt is read only when there is an index to check: a small store (no index) pays nothing for it.
  const key = indexKey(runtimeDir, false);
  return key === undefined ? undefined : readIndex(bytes, key);
}

/** Writes the index file atomically, in its private, git-ignored directory. Throws when it cannot. */
export function writeIndex(projectRoot: string, bytes: Buffer): void {
  const dir = ensurePrivateDir(join(projectRoot, '.hookwise', '.index'));
  // Never committed, even in a project whose .hookwise/ has no .gitignore (hookwise init writes one).
  if (!existsSync(join(dir, '.gitignore'))) writeFileAtomic(join(dir, '.gitignore'), '*\n', { mode: 0o600 });
  writeFileAtomic(indexFile(projectRoot), bytes, { mode: 0o600 });
}

export interface IndexedLoad {
  set: RecordSet;
  problems: StoreProblem[];
  /**
   * What happened: the index answered as it is (`index`), or with the lines appended since it was built
   * parsed on top (`appended`); it was (re)built; or the JSONL was parsed directly (a small store, or no
   * index could be written).
   */
  via: 'index' | 'appended' | 'built' | 'jsonl';
}

/**
 * The org, user and project scopes as one record set: from the index when it still matches its sources,
 * or with at most `MAX_APPENDED_LINES` appended since layered over it; otherwise parsed, and — when there
 * are at least `minRecords` — compiled and written for the next call. A failure to write the index (a
 * read-only checkout) is not an error: the parsed records are used.
 */
export function loadIndexed(
  targets: readonly StoreTarget[],
  ctx: TokenContext,
  runtimeDir: string,
  options: { minRecords?: number; rebuild?: boolean } = {},
): IndexedLoad {
  if (options.rebuild !== true) {
    const index = readIndexFile(ctx.projectRoot, runtimeDir);
    if (index !== undefined && index.header.projectRoot === ctx.projectRoot && index.header.home === ctx.home) {
      const files = targets.flatMap((target) => scopeFiles(target).map((path): SourceFile => ({ path, target })));
      const appended = appendedSince(index.header.sources, files);
      if (appended?.length === 0) return { set: index, problems: index.problems, via: 'index' };
      if (appended !== undefined && appendedLines(appended) <= MAX_APPENDED_LINES) {
        const { set, problems } = layered(index, appended);
        return { set: set.at(), problems, via: 'appended' };
      }
    }
  }
  // Small stores: parse and go — no stamps, no hashing (the hash loads a native addon), no file.
  const read = readScopes(targets);
  if (options.rebuild !== true && read.records.length < (options.minRecords ?? INDEX_MIN_RECORDS))
    return { set: new RawRecordSet(read.records), problems: read.problems, via: 'jsonl' };
  try {
    const key = indexKey(runtimeDir, true)!;
    const bytes = compileRecords(read.records, read.problems, read.sources.map(snapshotStamp), ctx, key);
    writeIndex(ctx.projectRoot, bytes);
    return { set: readIndex(bytes, key)!, problems: read.problems, via: 'built' };
  } catch {
    // Not writable here (a read-only checkout, no salt can be kept): use the records parsed for it.
  }
  return { set: new RawRecordSet(read.records), problems: read.problems, via: 'jsonl' };
}
