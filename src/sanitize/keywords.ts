/**
 * Layer 1: one Aho-Corasick pass finds every keyword of every pattern, the context words the entropy
 * layer asks about, and known token prefixes.
 *
 * The index (keyword table + automaton) is built once per process — or loaded: building it runs a few
 * thousand iterations of cold, interpreted code (1–4 ms in a fresh hook process, measured), loading a
 * serialized copy is a file read and typed-array views over it. A caller that has a private directory
 * (the hook: its runtime dir) names it with `setKeywordCacheDir`; the file is keyed by a signature of the
 * keyword table, so a changed pattern set rebuilds it instead of trusting a stale one.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readOwnedFile } from '../util/fs-safe.js';
import { decodeMirrored, encodeMirrored } from '../util/mirrored.js';
import { Automaton, type AhoKeyword } from './aho.js';
import { runStats } from './entropy.js';
import { isDocumentedExample } from './heuristics.js';
import { confirmHit, PATTERNS, WINDOWED_TEXT } from './patterns.js';
import type { FindingSink } from './types.js';

/** Words that make a hex run on the same line an object id or digest, not a secret. */
export const HEX_CONTEXT_WORDS = [
  'git',
  'commit',
  'sha',
  'md5',
  'hash',
  'digest',
  'checksum',
  'rev-',
  'revision',
  'integrity',
  'blob',
  'etag',
  'uuid',
] as const;

/** Shortest body after a known prefix that layer 1 redacts on its own (the patterns know exact lengths). */
export const PREFIX_MIN_BODY = 16;

const PREFIX = 1;
const HEX_CONTEXT = 2;

export interface KeywordIndex {
  automaton: Automaton;
  /** Per keyword: PREFIX (a literal token prefix such as `ghp_`) and HEX_CONTEXT bits. */
  flags: Uint8Array;
  /** The patterns keyword k can trigger: refs[refStart[k] .. refStart[k + 1]). */
  refStart: Int32Array;
  refs: Int32Array;
  origin: 'built' | 'cache';
  /** Time to build or load, µs. */
  micros: number;
}

const FORMAT = 2;
const CACHE_FILE = 'sanitize-keywords.bin';

let index: KeywordIndex | undefined;
let cacheDir: string | undefined;

/** Where to keep the serialized index (a private directory), or undefined for none. Call before first use. */
export function setKeywordCacheDir(dir: string | undefined): void {
  cacheDir = dir;
}

/** The keyword index, built or loaded on first use. */
export function keywordIndex(): KeywordIndex {
  if (index !== undefined) return index;
  const started = process.hrtime.bigint();
  const signature = keywordSignature();
  const dir = cacheDir;
  let loaded = dir === undefined ? undefined : loadIndex(join(dir, CACHE_FILE), signature);
  let origin: KeywordIndex['origin'] = 'cache';
  if (loaded === undefined) {
    loaded = buildIndex();
    origin = 'built';
    if (dir !== undefined) saveIndex(dir, signature, loaded);
  }
  index = { ...loaded, origin, micros: Number(process.hrtime.bigint() - started) / 1e3 };
  return index;
}

/** Drops the index of this process (tests; a changed cache directory). */
export function resetKeywordIndex(): void {
  index = undefined;
}

type Tables = Pick<KeywordIndex, 'automaton' | 'flags' | 'refStart' | 'refs'>;

/**
 * Everything the index is built from, as one string: a cached index is used only when it was built from
 * exactly this. Array builtins (map, join) keep it cheap even in cold code.
 */
export function keywordSignature(): string {
  const patterns = PATTERNS.map(
    (p) => `${p.ignoreCase ? 'i' : 's'}${p.prefix === true ? 'p' : '-'}${p.keywords.join('\u0001')}`,
  ).join('\u0002');
  return `${FORMAT}\u0003${patterns}\u0003${HEX_CONTEXT_WORDS.join('\u0001')}`;
}

export function buildIndex(): Tables {
  const byKey = new Map<string, number>();
  const keywords: AhoKeyword[] = [];
  const patternLists: number[][] = [];
  const flagList: number[] = [];
  const entryFor = (text: string, ignoreCase: boolean): number => {
    // Case-insensitive keywords are stored folded, so one entry serves every spelling.
    const key = ignoreCase ? `i:${text.toLowerCase()}` : `s:${text}`;
    let at = byKey.get(key);
    if (at === undefined) {
      at = keywords.length;
      byKey.set(key, at);
      keywords.push({ text: ignoreCase ? text.toLowerCase() : text, ignoreCase });
      patternLists.push([]);
      flagList.push(0);
    }
    return at;
  };
  PATTERNS.forEach((spec, p) => {
    for (const keyword of spec.keywords) {
      const k = entryFor(keyword, spec.ignoreCase);
      patternLists[k]!.push(p);
      if (spec.prefix === true) flagList[k]! |= PREFIX;
    }
  });
  for (const word of HEX_CONTEXT_WORDS) flagList[entryFor(word, true)]! |= HEX_CONTEXT;
  const refStart = new Int32Array(keywords.length + 1);
  const refs = new Int32Array(patternLists.reduce((n, l) => n + l.length, 0));
  let at = 0;
  patternLists.forEach((list, k) => {
    refStart[k] = at;
    for (const p of list) refs[at++] = p;
  });
  refStart[keywords.length] = at;
  return { automaton: Automaton.build(keywords), flags: Uint8Array.from(flagList), refStart, refs };
}

// File: mirrored (util/mirrored.ts) around "HWSK", format, then (offset, length) of each section, then the
// sections, each 8-byte aligned: signature (UTF-8), flags, refStart, refs, automaton.
const MAGIC = 0x4b535748; // "HWSK" little-endian
const SECTIONS = 5;

function saveIndex(dir: string, signature: string, tables: Tables): void {
  const parts: Uint8Array[] = [
    Buffer.from(signature, 'latin1'), // ASCII: the keywords are, and so are the separators
    tables.flags,
    new Uint8Array(tables.refStart.buffer, tables.refStart.byteOffset, tables.refStart.byteLength),
    new Uint8Array(tables.refs.buffer, tables.refs.byteOffset, tables.refs.byteLength),
    tables.automaton.complete().serialize(),
  ];
  let size = 8 + 8 * SECTIONS;
  const offsets = parts.map((p) => {
    const at = size;
    size += Math.ceil(p.byteLength / 8) * 8;
    return at;
  });
  const out = new Uint8Array(size);
  const head = new Int32Array(out.buffer, 0, 2 + 2 * SECTIONS);
  head[0] = MAGIC;
  head[1] = FORMAT;
  parts.forEach((p, i) => {
    head[2 + 2 * i] = offsets[i]!;
    head[3 + 2 * i] = p.byteLength;
    out.set(p, offsets[i]!);
  });
  const path = join(dir, CACHE_FILE);
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(tmp, encodeMirrored(MAGIC, out), { mode: 0o600 });
    renameSync(tmp, path); // atomic: concurrent hook processes read the old file or the new one, never half of one
  } catch (error) {
    // A read-only or full disk only costs the next process a rebuild; the index in memory is complete.
    if (process.env.HOOKWISE_DEBUG === '1')
      process.stderr.write(`hookwise: cannot cache the keyword index in ${dir}: ${(error as Error).message}\n`);
  }
}

function loadIndex(path: string, signature: string): Tables | undefined {
  let file: Buffer | undefined;
  try {
    // It decides what the sanitizer finds: only a file of ours nobody else may write, and only when whole.
    const read = readOwnedFile(path, 'the sanitizer keyword cache');
    file = read === undefined ? undefined : decodeMirrored(MAGIC, read);
  } catch {
    return undefined; // unreadable, or not ours: build (the new cache replaces it)
  }
  if (file === undefined) return undefined; // none yet, or damaged: build
  try {
    // readFileSync of a large file owns its ArrayBuffer; copy only if a pooled buffer is misaligned.
    const bytes =
      file.byteOffset % 8 === 0 ? new Uint8Array(file.buffer, file.byteOffset, file.byteLength) : new Uint8Array(file);
    if (bytes.byteLength < 8 + 8 * SECTIONS) return undefined;
    const head = new Int32Array(bytes.buffer, bytes.byteOffset, 2 + 2 * SECTIONS);
    if (head[0] !== MAGIC || head[1] !== FORMAT) return undefined;
    const section = (i: number): Uint8Array => {
      const offset = head[2 + 2 * i]!;
      const length = head[3 + 2 * i]!;
      if (offset < 0 || length < 0 || offset % 8 !== 0 || offset + length > bytes.byteLength)
        throw new Error('section out of bounds');
      return new Uint8Array(bytes.buffer, bytes.byteOffset + offset, length);
    };
    const sig = section(0);
    // Compared as bytes by Buffer.equals (native): a JS loop over the signature costs more in a cold process.
    if (!Buffer.from(signature, 'latin1').equals(sig)) return undefined;
    const int32 = (s: Uint8Array): Int32Array => new Int32Array(s.buffer, s.byteOffset, s.byteLength / 4);
    const tables: Tables = {
      flags: section(1),
      refStart: int32(section(2)),
      refs: int32(section(3)),
      automaton: Automaton.deserialize(section(4)),
    };
    if (
      tables.refStart.length !== tables.automaton.keywordCount + 1 ||
      tables.flags.length !== tables.automaton.keywordCount
    )
      return undefined;
    const refs = tables.refs;
    for (let i = 0; i < refs.length; i++) if (refs[i]! < 0 || refs[i]! >= PATTERNS.length) return undefined;
    return tables;
  } catch {
    return undefined; // corrupt or from another build: rebuild (and overwrite it)
  }
}

export interface KeywordScan {
  /** Patterns with a confirmed keyword hit, each once, in table order. */
  patterns: number[];
  /** Every confirmed hit as flattened [pattern, keyword end] pairs (for long texts only: see WINDOWED_TEXT). */
  hits: number[];
  /** End offsets of hex-context words, ascending. */
  hexContext: number[];
  /** Known-prefix occurrences as [start, end) pairs, flattened. */
  prefixes: number[];
}

/** One pass over the text. */
export function scanKeywords(text: string): KeywordScan {
  const { automaton, flags, refStart, refs } = keywordIndex();
  const patterns: number[] = [];
  const hits: number[] = [];
  const hexContext: number[] = [];
  const prefixes: number[] = [];
  // Short texts run each pattern over the whole text, so one confirmed hit per pattern is enough.
  const everyHit = text.length > WINDOWED_TEXT;
  let seen: Uint8Array | undefined;
  automaton.scanString(text, (k, end) => {
    const flag = flags[k]!;
    const length = automaton.keywordLength(k);
    if ((flag & HEX_CONTEXT) !== 0) hexContext.push(end);
    if ((flag & PREFIX) !== 0) prefixes.push(end - length, end);
    for (let r = refStart[k]!; r < refStart[k + 1]!; r++) {
      const p = refs[r]!;
      seen ??= new Uint8Array(PATTERNS.length);
      if (seen[p] === 1 && !everyHit) continue;
      if (!confirmHit(PATTERNS[p]!.confirm, text, end, length)) continue;
      if (everyHit) hits.push(p, end);
      if (seen[p] === 1) continue;
      seen[p] = 1;
      patterns.push(p);
    }
  });
  if (patterns.length > 1) patterns.sort((a, b) => a - b);
  return { patterns, hits, hexContext, prefixes };
}

const isAlnum = (c: number): boolean =>
  (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
const isBodyChar = (c: number): boolean =>
  isAlnum(c) || c === 0x5f || c === 0x2d || c === 0x2e || c === 0x2b || c === 0x2f || c === 0x3d;

/**
 * Known prefix + a long random body that no pattern matched (a format variant, a truncated or lengthened
 * token): redact the whole token. The prefix must start a word; the body must be ≥ 16 chars, mix classes
 * and switch between them like random text does (`fw_rules_for_prod` is not a token).
 */
/** The prefix layer's measuring budget: chars of prefix bodies measured per char of text, plus a floor. */
export const PREFIX_WORK_PER_CHAR = 16;
const PREFIX_WORK_BASE = 64 * 1024;

export function prefixFindings(
  text: string,
  scan: KeywordScan,
  covered: (start: number, end: number) => boolean,
  into: FindingSink,
): void {
  const { prefixes } = scan;
  const isPunct = (c: number): boolean => c === 0x2e || c === 0x2d; // sentence punctuation, trimmed off a body
  // The run of body characters around the current prefix, [runFrom, runTo), and runTo with its trailing
  // punctuation trimmed: prefixes come in order of end, so prefixes repeated inside one long run (ghp_ghp_…)
  // share one scan of it instead of scanning up to 4096 chars each. Each uncovered prefix still measures
  // its body (runStats), so a text of nothing but prefixes (`ghp_ghp_…`) would cost up to 4096 chars per 4:
  // the measuring is bounded by work done — at most PREFIX_WORK_PER_CHAR chars measured per char of text —
  // and past the bound each uncovered prefix body is redacted unmeasured (fail closed; no ordinary text
  // comes near it).
  let budget = PREFIX_WORK_PER_CHAR * text.length + PREFIX_WORK_BASE;
  let runFrom = -1;
  let runTo = -1;
  let trimmedTo = -1;
  for (let i = 0; i < prefixes.length; i += 2) {
    const start = prefixes[i]!;
    const end = prefixes[i + 1]!;
    if (start > 0 && isAlnum(text.charCodeAt(start - 1))) continue;
    if (end < runFrom || end > runTo) {
      runFrom = runTo = end;
      while (runTo < text.length && isBodyChar(text.charCodeAt(runTo))) runTo++;
      trimmedTo = runTo;
      while (trimmedTo > runFrom && isPunct(text.charCodeAt(trimmedTo - 1))) trimmedTo--;
    }
    // The body: at most 4096 chars, without trailing punctuation.
    let bodyEnd: number;
    if (runTo - end <= 4096) {
      bodyEnd = Math.max(trimmedTo, end);
    } else {
      bodyEnd = end + 4096;
      while (bodyEnd > end && isPunct(text.charCodeAt(bodyEnd - 1))) bodyEnd--;
    }
    if (bodyEnd - end < PREFIX_MIN_BODY || covered(start, bodyEnd) || isDocumentedExample(text.slice(start, bodyEnd)))
      continue;
    budget -= bodyEnd - end;
    if (budget >= 0) {
      const stats = runStats(text, end, bodyEnd);
      if (stats.classCount < 2 || stats.entropy < 3 || stats.switchRate < 0.1) continue;
    }
    into.push({
      rule: budget >= 0 ? `known-prefix:${text.slice(start, end)}` : 'known-prefix>over-budget',
      layer: 'keyword',
      start,
      end: bodyEnd,
    });
  }
}
