/**
 * Layer 4: encoded text. Finds base64 / base64url / hex runs, URL-encoded (`%xx`) runs and runs with
 * `\uXXXX` / `\xNN` / `\NNN` escapes, and decodes those that decode to text; detect.ts re-scans the decoded
 * text with every layer and, when it holds a secret, redacts the *encoded* original.
 *
 * Bounded: runs longer than MAX_RUN are not decoded (the entropy layer still judges them), each top-level
 * call re-scans at most MAX_DECODED_TOTAL decoded characters, and decoding nests at most MAX_DEPTH levels
 * (base64 of URL-encoded text of … is followed three levels deep). Both limits fail closed: a run that
 * still decodes past the depth limit, or after the budget is spent, is redacted unread (detect.ts).
 */
import { collectRuns, isPathLikeRun, switchRate } from './entropy.js';

export const ENCODINGS = ['base64', 'base64url', 'hex', 'url', 'unicode-escape', 'hex-escape', 'octal-escape'] as const;
export type Encoding = (typeof ENCODINGS)[number];

export const MAX_DEPTH = 3;
export const MAX_RUN = 64 * 1024;
export const MAX_DECODED_TOTAL = 1024 * 1024;
/** Shortest base64 / hex run worth decoding (12 bytes of base64, 8 of hex). */
export const MIN_ENCODED_RUN = 16;
/**
 * Runs that switch between lower case, upper case and digits less often than this are words, not
 * encodings. Base64 of any text switches far more (each 3 bytes spread over 4 characters of mixed
 * classes); hex of ASCII alternates digits and letters almost every character.
 */
const DECODE_MIN_SWITCH_RATE = 0.1;

export interface EncodedRun {
  start: number;
  end: number;
  encoding: Encoding;
  decoded: string;
}

/** Decoded characters this top-level call may still re-scan; shared by all nesting levels. */
export interface DecodeBudget {
  chars: number;
}

const isHexDigit = (c: number): boolean =>
  (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
const hexValue = (c: number): number => (c <= 0x39 ? c - 0x30 : (c | 0x20) - 0x57);
const isBreak = (c: number): boolean =>
  c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0x22 || c === 0x27 || c === 0x60;

/**
 * Every run that decodes to text, in order of start; `skip` excludes runs already judged. `runs`: the
 * candidate runs from collectRuns(text, ≤ MIN_ENCODED_RUN), when the caller has them already.
 */
export function encodedRuns(
  text: string,
  skip: (start: number, end: number) => boolean,
  runs: readonly number[] = collectRuns(text, MIN_ENCODED_RUN),
): EncodedRun[] {
  const out: EncodedRun[] = [];
  const take = (run: EncodedRun | null): void => {
    if (run !== null) out.push(run);
  };
  for (let r = 0; r < runs.length; r += 2) {
    const start = runs[r]!;
    const end = runs[r + 1]!;
    if (end - start < MIN_ENCODED_RUN || end - start > MAX_RUN || skip(start, end) || isPathLikeRun(text, start, end))
      continue;
    // Base64 switches character classes like random text does; identifiers (the common long run) do not.
    // Hex is always tried: hex of hex of text is all digits and switches not at all.
    if (!isHexRun(text, start, end) && switchRate(text, start, end) < DECODE_MIN_SWITCH_RATE) continue;
    take(decodeBase64OrHex(text, start, end));
  }
  if (text.indexOf('%') >= 0) scanMarked(text, '%', isPercentEscape, decodePercent, 'url', skip, take);
  if (text.indexOf('\\') >= 0) scanMarked(text, '\\', escapeKind, decodeEscapes, null, skip, take);
  out.sort((a, b) => a.start - b.start);
  return out;
}

function isHexRun(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (!isHexDigit(text.charCodeAt(i))) return false;
  return true;
}

function decodeBase64OrHex(text: string, start: number, end: number): EncodedRun | null {
  const run = text.slice(start, end);
  let hex = true;
  let plusSlash = false;
  let dashUnderscore = false;
  for (let i = 0; i < run.length; i++) {
    const c = run.charCodeAt(i);
    if (!isHexDigit(c)) hex = false;
    if (c === 0x2b || c === 0x2f) plusSlash = true;
    if (c === 0x2d || c === 0x5f) dashUnderscore = true;
  }
  if (hex) {
    // Pure hex is also valid base64, but decoding it as base64 only yields noise: hex or nothing.
    if (run.length % 2 !== 0) return null;
    const decoded = textual(Buffer.from(run, 'hex'));
    return decoded === null ? null : { start, end, encoding: 'hex', decoded };
  }
  if (plusSlash && dashUnderscore) return null; // mixes the two alphabets: not base64
  let body = run.length;
  while (body > 0 && run.charCodeAt(body - 1) === 0x3d) body--;
  if (body % 4 === 1) return null;
  const decoded = textual(Buffer.from(run, 'base64'));
  return decoded === null ? null : { start, end, encoding: dashUnderscore ? 'base64url' : 'base64', decoded };
}

/**
 * The bytes as text, or null when they are not text: invalid UTF-8, or control characters other than
 * tab / newline / carriage return. Random bytes pass this with negligible probability at ≥ 8 bytes.
 */
export function textual(bytes: Uint8Array): string | null {
  if (bytes.length < 4) return null;
  for (const b of bytes) if ((b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d) || b === 0x7f) return null;
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  return text.includes('\ufffd') ? null : text;
}

/**
 * Finds each occurrence of `marker` that starts an escape, widens it to the enclosing run of non-blank,
 * non-quote characters, and decodes that run once.
 */
function scanMarked(
  text: string,
  marker: string,
  isEscape: (text: string, at: number) => Encoding | null,
  decode: (run: string) => string,
  fixed: Encoding | null,
  skip: (start: number, end: number) => boolean,
  take: (run: EncodedRun | null) => void,
): void {
  let from = 0;
  for (let at = text.indexOf(marker, from); at >= 0; at = text.indexOf(marker, from)) {
    const kind = isEscape(text, at);
    if (kind === null) {
      from = at + 1;
      continue;
    }
    let start = at;
    while (start > 0 && at - start < MAX_RUN && !isBreak(text.charCodeAt(start - 1))) start--;
    let end = at;
    while (end < text.length && end - at < MAX_RUN && !isBreak(text.charCodeAt(end))) end++;
    from = end;
    if (skip(start, end)) continue;
    const run = text.slice(start, end);
    const decoded = decode(run);
    if (decoded !== run) take({ start, end, encoding: fixed ?? kind, decoded });
  }
}

function isPercentEscape(text: string, at: number): Encoding | null {
  return isHexDigit(text.charCodeAt(at + 1)) && isHexDigit(text.charCodeAt(at + 2)) ? 'url' : null;
}

/** Percent-decoding that never throws: `%xx` → byte, other characters → their UTF-8 bytes. */
export function decodePercent(run: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < run.length; i++) {
    const c = run.charCodeAt(i);
    if (c === 0x25 && isHexDigit(run.charCodeAt(i + 1)) && isHexDigit(run.charCodeAt(i + 2))) {
      bytes.push(hexValue(run.charCodeAt(i + 1)) * 16 + hexValue(run.charCodeAt(i + 2)));
      i += 2;
    } else if (c < 0x80) {
      bytes.push(c);
    } else {
      for (const b of Buffer.from(run[i]!, 'utf8')) bytes.push(b);
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

function escapeKind(text: string, at: number): Encoding | null {
  const c = text.charCodeAt(at + 1);
  if (c === 0x75 /* u */) {
    if (text.charCodeAt(at + 2) === 0x7b) return 'unicode-escape'; // \u{…}
    for (let i = 2; i < 6; i++) if (!isHexDigit(text.charCodeAt(at + i))) return null;
    return 'unicode-escape';
  }
  if (c === 0x78 /* x */)
    return isHexDigit(text.charCodeAt(at + 2)) && isHexDigit(text.charCodeAt(at + 3)) ? 'hex-escape' : null;
  const isOctal = (k: number): boolean => k >= 0x30 && k <= 0x37;
  // Octal needs two escapes in a row: a lone `\251` is a Windows path (`…\Temp\251ef34c-…`), not an encoding.
  const octalAt = (i: number): boolean =>
    text.charCodeAt(i) === 0x5c &&
    isOctal(text.charCodeAt(i + 1)) &&
    isOctal(text.charCodeAt(i + 2)) &&
    isOctal(text.charCodeAt(i + 3));
  return octalAt(at) && (octalAt(at + 4) || (at >= 4 && octalAt(at - 4))) ? 'octal-escape' : null;
}

/** Decodes `\uXXXX`, `\u{X…}`, `\xNN` and `\NNN` (octal, as printf and echo -e read it); keeps other backslashes. */
export function decodeEscapes(run: string): string {
  let out = '';
  for (let i = 0; i < run.length; i++) {
    const ch = run[i]!;
    if (ch !== '\\' || i + 1 >= run.length) {
      out += ch;
      continue;
    }
    const kind = escapeKind(run, i);
    if (kind === 'unicode-escape') {
      if (run.charCodeAt(i + 2) === 0x7b) {
        const close = run.indexOf('}', i + 3);
        const code = close > i + 3 && close - i <= 11 ? Number.parseInt(run.slice(i + 3, close), 16) : Number.NaN;
        if (Number.isInteger(code) && code <= 0x10ffff) {
          out += String.fromCodePoint(code);
          i = close;
          continue;
        }
        out += ch;
        continue;
      }
      out += String.fromCharCode(Number.parseInt(run.slice(i + 2, i + 6), 16));
      i += 5;
    } else if (kind === 'hex-escape') {
      out += String.fromCharCode(Number.parseInt(run.slice(i + 2, i + 4), 16));
      i += 3;
    } else if (kind === 'octal-escape') {
      out += String.fromCharCode(Number.parseInt(run.slice(i + 1, i + 4), 8) & 0xff);
      i += 3;
    } else {
      out += ch;
    }
  }
  return out;
}

/** `user:password` as one word: what HTTP Basic credentials look like once decoded. */
export function isCredentialPair(decoded: string): boolean {
  const text = decoded.trim();
  if (text.length < 5 || text.length > 256) return false;
  const colon = text.indexOf(':');
  if (colon < 1 || colon > text.length - 2 || text.indexOf(':', colon + 1) >= 0) return false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c <= 0x20 || c === 0x7f || c === 0x2f) return false; // no blanks, no '/' (a URL or path is not a pair)
  }
  return true;
}
