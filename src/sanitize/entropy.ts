/**
 * Layer 3: high-entropy tokens anywhere in the text — not only after `=` or `:`.
 *
 * The text is cut into candidate runs of `[A-Za-z0-9+/_-]` (plus trailing base64 `=` padding); `.` `~` and
 * everything else separate runs, so file names, domains and versions fall apart into short pieces.
 * A run is a secret when it is long enough, mixes character classes, has enough Shannon entropy, and —
 * the feature that actually separates random tokens from identifiers — a high *class-switch rate*:
 * the share of adjacent character pairs that change between lower case, upper case and digits, not
 * counting the switches camelCase words make (`getUserToken` switches at word starts only, and those are
 * ignored). Measured on random tokens vs. 11.6k identifiers of ≥ 16 chars from TypeScript/vitest sources:
 * at ≥ 20 chars, ≥ 97% of random base62/base64url/hex/base36 tokens switch at ≥ 0.15, 0.27% of identifiers do.
 * Entropy alone cannot tell them apart (both sit around 3.5–4.5 bits per char).
 *
 * Allowances keep what is random but public: UUIDs, digests named by their algorithm (`sha256:…`,
 * `sha512-…` integrity, `h1:` go.sum hashes, `+sha512.` packageManager pins), hex object ids on a line
 * about git or hashes, and paths (runs whose `/` segments mostly look like words).
 */
import type { FindingSink } from './types.js';
import { countAtMost } from '../util/sorted.js';
import { hasPlaceholderMarker, namesPublicKey } from './heuristics.js';
import { SpanIndex } from './spans.js';

/** Shortest candidate: 20 chars, or 16 with all three classes and a very high switch rate. */
export const MIN_LENGTH = 20;
export const MIN_LENGTH_THREE_CLASSES = 16;
const MIN_SWITCH_RATE = 0.15;
const MIN_SWITCH_RATE_SHORT = 0.25;
const MIN_ENTROPY = 3.0;
/**
 * Segments of a `/` run with a switch rate below this look like words (path segments). Laxer than the
 * secret threshold: words with numbers (`base64`, `utf8`, `v2`) switch a little; random base64 segments
 * switch at 0.4 and more, so a real base64 blob still fails the majority test.
 */
const WORDY_SWITCH_RATE = 0.3;
/** Prefixes of public identifiers that look random: agent tool-call and message ids. */
const PUBLIC_ID_PREFIXES = [
  'toolu_',
  'srvtoolu_',
  'msg_',
  'msgbatch_',
  'chatcmpl-',
  'call_',
  'resp_',
  'pk_live_',
  'pk_test_',
  'age1',
];

// Character classes (ASCII only; everything ≥ 0x80 separates runs).
const LOWER = 1;
const UPPER = 2;
const DIGIT = 3;
const SYMBOL = 4; // + / _ -
const CLASS = new Uint8Array(128);
for (let c = 0x61; c <= 0x7a; c++) CLASS[c] = LOWER;
for (let c = 0x41; c <= 0x5a; c++) CLASS[c] = UPPER;
for (let c = 0x30; c <= 0x39; c++) CLASS[c] = DIGIT;
for (const ch of '+/_-') CLASS[ch.charCodeAt(0)] = SYMBOL;

export const isRunChar = (c: number): boolean => c < 0x80 && CLASS[c] !== 0;

/**
 * Every maximal run of run characters of at least `minLength`, as flattened [start, end) pairs, with up to
 * two `=` of base64 padding included when nothing run-like follows them (so an assignment still splits
 * at its `=`). Computed once per text and shared by layers 3 and 4.
 */
export function collectRuns(text: string, minLength: number): number[] {
  const out: number[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    let c = text.charCodeAt(i);
    while (i < n && (c >= 0x80 || CLASS[c] === 0)) c = text.charCodeAt(++i);
    const start = i;
    while (i < n && c < 0x80 && CLASS[c] !== 0) c = text.charCodeAt(++i);
    let end = i;
    let p = end;
    while (p < n && p - end < 2 && text.charCodeAt(p) === 0x3d) p++;
    if (p > end && (p >= n || !isRunChar(text.charCodeAt(p)))) {
      end = p;
      i = p;
    }
    if (end - start >= minLength) out.push(start, end);
  }
  return out;
}

export interface RunStats {
  length: number;
  /** Bit set of LOWER/UPPER/DIGIT seen (1 << class). */
  classes: number;
  classCount: number;
  /** Only [0-9a-f] or only [0-9A-F] letters, no symbols. */
  hex: boolean;
  /** Has '+' or '/' (base64) or '-' / '_' (base64url). */
  base64: boolean;
  base64url: boolean;
  entropy: number;
  switchRate: number;
}

const counts = new Uint16Array(128);

/** Classes, Shannon entropy (bits/char) and class-switch rate of text[start, end) (an ASCII run). */
export function runStats(text: string, start: number, end: number): RunStats {
  let classes = 0;
  let lowerHex = true;
  let upperHex = true;
  let base64 = false;
  let base64url = false;
  const length = end - start;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    counts[c & 0x7f] = counts[c & 0x7f]! + 1; // runs are ASCII; the mask only keeps the table in bounds
    const k = c < 0x80 ? CLASS[c]! : 0;
    if (k === SYMBOL || k === 0) {
      if (c === 0x2b || c === 0x2f) base64 = true;
      else if (c === 0x2d || c === 0x5f) base64url = true;
      lowerHex = upperHex = false;
      continue;
    }
    classes |= 1 << k;
    if ((k === LOWER && c > 0x66) || (k === UPPER && c > 0x46)) lowerHex = upperHex = false;
    if (k === LOWER) upperHex = false;
    if (k === UPPER) lowerHex = false;
  }
  let entropy = 0;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i) & 0x7f;
    const n = counts[c]!;
    if (n === 0) continue;
    const p = n / length;
    entropy -= p * Math.log2(p);
    counts[c] = 0;
  }
  const classCount = ((classes >> LOWER) & 1) + ((classes >> UPPER) & 1) + ((classes >> DIGIT) & 1);
  return {
    length,
    classes,
    classCount,
    hex: (lowerHex || upperHex) && ((classes >> DIGIT) & 1) === 1 && classCount === 2,
    base64,
    base64url,
    entropy,
    switchRate: switchRate(text, start, end),
  };
}

/**
 * The share of adjacent letter/digit pairs that switch class (lower, upper, digit). Symbols reset it (no
 * pair across them); an upper-case letter followed by a lower-case one starts a Capitalized word and
 * does not count, nor does the lower case that follows it: camelCase identifiers score near 0, random
 * base62 near 0.5.
 */
export function switchRate(text: string, start: number, end: number): number {
  let switches = 0;
  let pairs = 0;
  let prev = 0;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    const k = c < 0x80 ? CLASS[c]! : 0;
    if (k === SYMBOL || k === 0) {
      prev = 0;
      continue;
    }
    if (prev !== 0) {
      pairs++;
      if (k !== prev && !(prev === UPPER && k === LOWER)) {
        const next = i + 1 < end ? text.charCodeAt(i + 1) : 0;
        if (!(k === UPPER && next < 0x80 && CLASS[next] === LOWER)) switches++;
      }
    }
    prev = k;
  }
  return pairs === 0 ? 0 : switches / pairs;
}

export type EntropyKind = 'hex' | 'base64' | 'base64url' | 'alnum';

/** Is this run random enough to be a secret? Returns its kind, or null. Allowances are checked by the caller. */
export function classify(stats: RunStats): EntropyKind | null {
  if (stats.classCount < 2 || stats.entropy < MIN_ENTROPY) return null;
  if (stats.length < MIN_LENGTH) {
    if (stats.length < MIN_LENGTH_THREE_CLASSES || stats.classCount < 3 || stats.switchRate < MIN_SWITCH_RATE_SHORT)
      return null;
  } else if (stats.switchRate < MIN_SWITCH_RATE) {
    return null;
  }
  return stats.hex ? 'hex' : stats.base64 ? 'base64' : stats.base64url ? 'base64url' : 'alnum';
}

export interface EntropyContext {
  /** End offsets of hex-context words (git, sha, hash, …) from the keyword scan, ascending. */
  hexContext: readonly number[];
  /** Spans already judged (found by another layer, or decoded to harmless text): skipped. */
  skip(start: number, end: number): boolean;
  /** Public PEM blocks and SOPS values (publicSpans), computed once per text. */
  publicSpans?: SpanIndex;
}

/** Appends a finding for every high-entropy run that no allowance covers. `runs`: from collectRuns(text, ≤ 16). */
export function entropyFindings(
  text: string,
  context: EntropyContext,
  into: FindingSink,
  runs: readonly number[] = collectRuns(text, MIN_LENGTH_THREE_CLASSES),
): void {
  for (let r = 0; r < runs.length; r += 2) {
    const start = runs[r]!;
    const end = runs[r + 1]!;
    if (end - start < MIN_LENGTH_THREE_CLASSES || context.skip(start, end)) continue;
    // Whole-run exemptions first: a public key's base64 has '/' and would be judged segment by segment.
    if (isNamedDigest(text, start) || isPublicMaterial(text, start, end, context)) continue;
    if (isPathLikeRun(text, start, end)) {
      // A path or URL path: judge its segments one by one (a token can sit in a path: /keys/<token>).
      let s = start;
      for (let i = start; i <= end; i++) {
        if (i === end || text.charCodeAt(i) === 0x2f) {
          if (i - s >= MIN_LENGTH_THREE_CLASSES && !isPublicMaterial(text, s, i, context))
            judge(text, s, i, context, into);
          s = i + 1;
        }
      }
      continue;
    }
    judge(text, start, end, context, into);
  }
}

function judge(text: string, start: number, end: number, context: EntropyContext, into: FindingSink): void {
  const stats = runStats(text, start, end);
  const kind = classify(stats);
  if (kind === null) return;
  if (
    isUuid(text, start, end) ||
    isNamedDigest(text, start) ||
    isCompositeName(text, start, end) ||
    isPublicId(text, start)
  )
    return;
  if (hasPlaceholderMarker(text.slice(start, end)) || assignedToPublicKey(text, start)) return;
  // An Ethereum-style private key, 0x + 64 hex digits — unless the line says it is a (transaction) hash.
  if (end - start === 66 && text.startsWith('0x', start) && isHexWithSeparators(text, start + 2, end)) {
    if (!nearHexContext(text, start, context.hexContext))
      into.push({ rule: 'high-entropy:hex', layer: 'entropy', start, end });
    return;
  }
  // Bare hex is a digest, a commit, an id or a build hash: a hex secret comes with a name that says so,
  // which the patterns judge.
  // (0x + 40 hex digits is an Ethereum address: public.)
  if (
    kind === 'hex' ||
    isHexWithSeparators(text, typedIdBodyStart(text, start, end), end) ||
    (text.startsWith('0x', start) && isHexWithSeparators(text, start + 2, end))
  )
    return;
  if (isSingleCase(text, start, end, stats) || isTypedId(text, start, end)) return;
  into.push({ rule: `high-entropy:${kind}`, layer: 'entropy', start, end });
}

/**
 * The run is the value of a key that says it is public (`DOTENV_PUBLIC_KEY="03…"`, `publicKey: …`): looks
 * back over an optional quote, blanks, `=`/`:` and the key name, at most 80 characters.
 */
function assignedToPublicKey(text: string, start: number): boolean {
  const floor = Math.max(0, start - 80);
  let i = start;
  const skip = (pred: (c: number) => boolean): void => {
    while (i > floor && pred(text.charCodeAt(i - 1))) i--;
  };
  skip((c) => c === 0x22 || c === 0x27 || c === 0x20 || c === 0x09);
  if (i === floor || (text.charCodeAt(i - 1) !== 0x3d && text.charCodeAt(i - 1) !== 0x3a)) return false;
  i--;
  skip((c) => c === 0x22 || c === 0x27 || c === 0x20 || c === 0x09);
  const keyEnd = i;
  skip((c) => (c < 0x80 && CLASS[c] !== 0 && c !== 0x2b && c !== 0x2f) || c === 0x2e);
  return keyEnd > i && namesPublicKey(text.slice(i, keyEnd));
}

/**
 * Only lower case (with digits and separators, pieces under 40), or only upper case and shorter than 32:
 * Kubernetes pod and Nix store names, build hashes, AWS resource ids (`Z0P3CY…`, `AIDA…`). Modern tokens mix cases (base62/64);
 * one-case secrets — a base32 TOTP seed, a diceware passphrase — are long or sit after a key that the
 * patterns judge.
 */
function isSingleCase(text: string, start: number, end: number, stats: RunStats): boolean {
  const lower = (stats.classes >> LOWER) & 1;
  const upper = (stats.classes >> UPPER) & 1;
  if (lower + upper !== 1) return false;
  if (upper === 1) return stats.length < 32;
  // Lower case: names are made of pieces; one unbroken piece of 40 or more is a token (an Azure DevOps PAT
  // is 52 base32 characters).
  let piece = 0;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    piece = c === 0x2d || c === 0x5f ? 0 : piece + 1;
    if (piece >= 40) return false;
  }
  return true;
}

/** Where the body of a typed id starts: after a short lower-case type and `_`/`-` (`cus_…`, `vpc-…`), else `start`. */
function typedIdBodyStart(text: string, start: number, end: number): number {
  let i = start;
  while (i < end && i - start <= 8 && CLASS[text.charCodeAt(i)] === LOWER) i++;
  const sep = text.charCodeAt(i);
  return i - start >= 2 && i - start <= 8 && (sep === 0x5f || sep === 0x2d) ? i + 1 : start;
}

/**
 * A typed public id: a short lower-case type, `_` or `-`, and at most 32 characters (`cus_…`, `pi_…`,
 * `req_…`, `thread_…`, `file-…`, `vpc-…`). Known secret prefixes (`sk_live_`, `ghp_`) never get here: the
 * patterns and the prefix layer judged them first; secrets of unknown providers are longer.
 */
function isTypedId(text: string, start: number, end: number): boolean {
  const body = typedIdBodyStart(text, start, end);
  return body > start && end - body <= 32;
}

/** Hex digits, with `-`/`_` between groups (a traceparent, a pseudo-version's date and commit). */
function isHexWithSeparators(text: string, start: number, end: number): boolean {
  let digits = 0;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x2d || c === 0x5f) continue;
    if (!isHexDigit(c)) return false;
    digits++;
  }
  return digits >= 16;
}

/** Public or encrypted by construction: an SSH public key, a ciphertext, a public PEM block or SOPS value. */
function isPublicMaterial(text: string, start: number, end: number, context: EntropyContext): boolean {
  return (
    isSshPublicKey(text, start) ||
    isEncryptedValue(text, start, end) ||
    context.publicSpans?.covers(start, end) === true
  );
}

/** The key after `ssh-ed25519 ` / `ssh-rsa ` / `ecdsa-sha2-… ` (one blank, then the key type word). */
function isSshPublicKey(text: string, start: number): boolean {
  if (text.charCodeAt(start - 1) !== 0x20) return false;
  let i = start - 1;
  const typeChar = (c: number): boolean =>
    (c < 0x80 && CLASS[c] !== 0 && c !== 0x2b && c !== 0x2f) || c === 0x2e || c === 0x40; // ssh-ed25519, sk-ssh-ed25519@openssh.com
  while (i > 0 && start - i < 48 && typeChar(text.charCodeAt(i - 1))) i--;
  if (text.charCodeAt(i - 1) === 0x5c && text.charCodeAt(i) === 0x6e) i++; // `\nssh-ed25519 …`: a line break escaped in JSON
  const type = text.slice(i, start - 1);
  return (
    type.startsWith('ssh-') || type.startsWith('ecdsa-') || type.startsWith('sk-ssh-') || type.startsWith('sk-ecdsa-')
  );
}

/** dotenvx `encrypted:…` and AWS KMS ciphertext blobs (`AQICAH…`): encrypted at rest and meant to be committed. */
function isEncryptedValue(text: string, start: number, end: number): boolean {
  if (text.startsWith('AQICAH', start) || (start >= 10 && text.startsWith('encrypted:', start - 10))) return true;
  // A Bitnami SealedSecret value: hundreds of base64 characters starting with its version byte (AgA…AgD).
  return (
    end - start >= 300 &&
    text.startsWith('Ag', start) &&
    text.charCodeAt(start + 2) >= 0x41 &&
    text.charCodeAt(start + 2) <= 0x44
  );
}

/**
 * Spans of text that hold no secret by construction, found in one forward pass: PEM blocks that are public
 * (`PUBLIC KEY`, `CERTIFICATE`) and SOPS values `ENC[AES256_GCM,data:…,iv:…,tag:…,type:str]`.
 */
export function publicSpans(text: string): SpanIndex {
  const spans = new SpanIndex();
  // Each search resumes after what the last one read, so every character is read a bounded number of times.
  let at = text.indexOf('-----BEGIN ');
  while (at >= 0) {
    const labelEnd = text.indexOf('-----', at + 11);
    const end = labelEnd < 0 ? -1 : text.indexOf('-----END ', labelEnd);
    if (end < 0) break;
    const label = text.slice(at + 11, labelEnd);
    if (
      (label.includes('PUBLIC KEY') || label.includes('CERTIFICATE')) &&
      !label.includes('PRIVATE') &&
      !label.includes('-----BEGIN ')
    )
      spans.add(at, end);
    at = text.indexOf('-----BEGIN ', end);
  }
  at = text.indexOf('ENC[');
  while (at >= 0) {
    let close = at + 4;
    while (close < text.length && text.charCodeAt(close) !== 0x5d && text.charCodeAt(close) !== 0x0a) close++;
    if (close < text.length && text.charCodeAt(close) === 0x5d) spans.add(at, close);
    at = text.indexOf('ENC[', close);
  }
  return spans;
}

/** The run has `/` and most of its segments look like words (or are very short): a path, not a base64 blob. */
export function isPathLikeRun(text: string, start: number, end: number): boolean {
  let slash = start;
  while (slash < end && text.charCodeAt(slash) !== 0x2f) slash++; // bounded: indexOf would search past the run
  if (slash === end) return false;
  let segments = 0;
  let wordy = 0;
  let s = start;
  for (let i = start; i <= end; i++) {
    if (i < end && text.charCodeAt(i) !== 0x2f) continue;
    if (i > s) {
      segments++;
      if (i - s < 4 || runStats(text, s, i).switchRate < WORDY_SWITCH_RATE) wordy++;
    }
    s = i + 1;
  }
  return segments >= 2 && wordy * 2 >= segments;
}

/**
 * Three or more short pieces joined by `-` / `_` (`orca-mini-3b-gguf2-q4_0`, `session-2026-11-21T21-57`,
 * `hookwise-e2e-run-T7qDD0`): a name made of parts. A random base64url token of ≥ 20 chars has ~0.6
 * separators on average; three or more pieces of at most 8 chars each is rare.
 */
function isCompositeName(text: string, start: number, end: number): boolean {
  let pieces = 1;
  let piece = 0;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x2d || c === 0x5f) {
      pieces++;
      piece = 0;
    } else if (++piece > 8) {
      return false;
    }
  }
  return pieces >= 3;
}

function isPublicId(text: string, start: number): boolean {
  for (const prefix of PUBLIC_ID_PREFIXES) if (text.startsWith(prefix, start)) return true;
  return false;
}

const isHexDigit = (c: number): boolean =>
  (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

export function isUuid(text: string, start: number, end: number): boolean {
  if (end - start !== 36) return false;
  for (let i = 0; i < 36; i++) {
    const c = text.charCodeAt(start + i);
    if (i === 8 || i === 13 || i === 18 || i === 23 ? c !== 0x2d : !isHexDigit(c)) return false;
  }
  return true;
}

const DIGEST_NAMES = [
  'sha1',
  'sha224',
  'sha256',
  'sha384',
  'sha512',
  'sha3',
  'md5',
  'blake2b',
  'blake2s',
  'blake3',
  'h1',
  'xxh64',
  'xxh3',
];

/**
 * A digest that says which algorithm made it: `sha512-…` (the run starts with the name), or the name and
 * one of `: . = -` right before the run (`sha256:…`, `+sha512.…`, `h1:…`).
 */
export function isNamedDigest(text: string, start: number): boolean {
  for (const name of DIGEST_NAMES) {
    if (startsWithFolded(text, start, name) && text.charCodeAt(start + name.length) === 0x2d) return true;
    const sep = text.charCodeAt(start - 1);
    if (
      (sep === 0x3a || sep === 0x2e || sep === 0x3d || sep === 0x2d) &&
      start - 1 - name.length >= 0 &&
      startsWithFolded(text, start - 1 - name.length, name)
    ) {
      const before = start - 2 - name.length >= 0 ? text.charCodeAt(start - 2 - name.length) : 0x20;
      if (!(before < 0x80 && (CLASS[before] === LOWER || CLASS[before] === UPPER))) return true;
    }
  }
  return false;
}

function startsWithFolded(text: string, at: number, lower: string): boolean {
  if (at < 0 || at + lower.length > text.length) return false;
  for (let i = 0; i < lower.length; i++) {
    let c = text.charCodeAt(at + i);
    if (c >= 0x41 && c <= 0x5a) c += 0x20;
    if (c !== lower.charCodeAt(i)) return false;
  }
  return true;
}

/** A hex-context word (git, commit, sha, hash, …) on the same line, at most 400 chars before or 200 after. */
function nearHexContext(text: string, start: number, hexContext: readonly number[]): boolean {
  if (hexContext.length === 0) return false;
  let lineStart = start;
  while (lineStart > 0 && start - lineStart < 400 && text.charCodeAt(lineStart - 1) !== 0x0a) lineStart--;
  let lineEnd = start;
  while (lineEnd < text.length && lineEnd - start < 200 && text.charCodeAt(lineEnd) !== 0x0a) lineEnd++;
  // hexContext is ascending: the first word ending after lineStart (a scan per run was quadratic).
  const first = countAtMost(hexContext, lineStart);
  return first < hexContext.length && hexContext[first]! <= lineEnd;
}
