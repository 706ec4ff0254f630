/**
 * Hand-written helpers for patterns whose secret is defined by structure rather than by a token format:
 * which parts of a captured value to redact (cookie values but not their names), a checksum that confirms a
 * token, and one structural scan (the values of a Kubernetes Secret). All are single forward passes over
 * their input (no regular expressions: they run on untrusted text, and a hand-written scan cannot backtrack).
 */
import { isPlaceholder } from './heuristics.js';

const isBlank = (c: number): boolean => c === 0x20 || c === 0x09;
const isAlnum = (c: number): boolean =>
  (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);

// ── GitHub / npm token checksum ──────────────────────────────────────────────────────────────────────────

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
let crcTable: Uint32Array | undefined;

/** CRC-32 (IEEE 802.3, as zlib computes it) of an ASCII string. */
export function crc32(text: string): number {
  if (crcTable === undefined) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (let i = 0; i < text.length; i++) crc = crcTable[(crc ^ text.charCodeAt(i)) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** `value` in base62 (0-9A-Za-z), left-padded with '0' to `width` characters. */
export function base62(value: number, width: number): string {
  let out = '';
  let v = value;
  do {
    out = BASE62[v % 62]! + out;
    v = Math.floor(v / 62);
  } while (v > 0);
  return out.padStart(width, '0');
}

/**
 * A GitHub classic token (`ghp_` … `ghr_`) or npm token (`npm_`) of the 2021 format: a 4-character prefix,
 * 30 random base62 characters, and the base62 CRC-32 of those 30 characters in the last 6.
 */
export function hasTokenChecksum(token: string): boolean {
  if (token.length !== 40 || token.charCodeAt(3) !== 0x5f /* _ */) return false;
  return base62(crc32(token.slice(4, 34)), 6) === token.slice(34);
}

// ── XML values ───────────────────────────────────────────────────────────────────────────────────────────

/**
 * A Maven encrypted password, `{base64}` or Maven 4's `{[name=…,cipher=…]base64}`: it decrypts with the
 * master password in settings-security.xml, so it is redacted although `isPlaceholder` would keep `{…}`.
 */
export function isMavenEncrypted(value: string): boolean {
  const v = value.trim();
  if (v.length < 10 || v.charCodeAt(0) !== 0x7b || v.charCodeAt(v.length - 1) !== 0x7d) return false;
  let i = 1;
  if (v.charCodeAt(i) === 0x5b /* [ */) {
    while (i < v.length - 1 && v.charCodeAt(i) !== 0x5d /* ] */) {
      if (isBlank(v.charCodeAt(i))) return false;
      i++;
    }
    i++;
  }
  let body = 0;
  for (; i < v.length - 1; i++) {
    const c = v.charCodeAt(i);
    if (isAlnum(c) || c === 0x2b || c === 0x2f) body++;
    else if (c !== 0x3d /* = */) return false;
  }
  return body >= 8;
}

/** The value without the blanks and line breaks around it, as [start, end). */
export function trimmedPart(value: string): number[] {
  let start = 0;
  let end = value.length;
  while (start < end && value.charCodeAt(start) <= 0x20) start++;
  while (end > start && value.charCodeAt(end - 1) <= 0x20) end--;
  return end > start ? [start, end] : [];
}

// ── cookies ──────────────────────────────────────────────────────────────────────────────────────────────

/**
 * The values of `name=value` pairs separated by ';' (a Cookie header, or curl's -b argument), as flattened
 * [start, end) pairs; names stay. Text without any '=' holds no cookies (curl reads such a -b argument as a
 * cookie-jar file name; `cookie: req.headers.cookie` is code); in text that has one, a segment without '='
 * is a nameless cookie and redacted whole. `first` stops after the first pair: the rest of a Set-Cookie
 * header are attributes (Path, Expires, HttpOnly), not cookies.
 */
export function cookieValueParts(header: string, options: { first?: boolean } = {}): number[] {
  if (!header.includes('=')) return [];
  const out: number[] = [];
  let i = 0;
  while (i < header.length) {
    let end = header.indexOf(';', i);
    if (end < 0) end = header.length;
    let start = i;
    while (start < end && isBlank(header.charCodeAt(start))) start++;
    let stop = end;
    while (stop > start && isBlank(header.charCodeAt(stop - 1))) stop--;
    let eq = start;
    while (eq < stop && header.charCodeAt(eq) !== 0x3d /* = */) eq++;
    const valueStart = eq < stop ? eq + 1 : start;
    if (stop > valueStart && !isPlaceholder(header.slice(valueStart, stop))) out.push(valueStart, stop);
    if (options.first === true) break;
    i = end + 1;
  }
  return out;
}

/** A Cookie header: every value. A Set-Cookie header (the match says which): the first value only. */
export function cookieHeaderParts(header: string, match: string): number[] {
  return cookieValueParts(header, { first: match.toLowerCase().includes('set-cookie') });
}

/** curl -b / --cookie: name=value pairs (an argument without '=' names a file). */ // hookwise:allow
export function curlCookieParts(argument: string): number[] {
  return cookieValueParts(argument);
}

// ── kubectl create secret ────────────────────────────────────────────────────────────────────────────────

/**
 * The values of every `--from-literal=key=value` (also `--from-literal key=value`, quoted as a whole or in its
 * value) in the rest of a `kubectl create secret` command line.
 */
export function fromLiteralParts(args: string): number[] {
  const out: number[] = [];
  const flag = '--from-literal';
  // Each search starts where the previous argument's scan ended: no character is scanned twice.
  for (let at = args.indexOf(flag), i = 0; at >= 0; at = args.indexOf(flag, Math.max(at + flag.length, i))) {
    i = at + flag.length;
    if (args.charCodeAt(i) === 0x3d /* = */) i++;
    else if (isBlank(args.charCodeAt(i))) while (i < args.length && isBlank(args.charCodeAt(i))) i++;
    else continue; // --from-literal-something
    let quote = args.charCodeAt(i);
    if (quote === 0x22 || quote === 0x27) i++;
    else quote = 0;
    // The key: up to '=' (a key cannot hold one), within this argument.
    while (
      i < args.length &&
      args.charCodeAt(i) !== 0x3d &&
      !(quote === 0 ? isBlank(args.charCodeAt(i)) : args.charCodeAt(i) === quote)
    )
      i++;
    if (args.charCodeAt(i) !== 0x3d) continue;
    i++;
    let close = quote;
    if (close === 0 && (args.charCodeAt(i) === 0x22 || args.charCodeAt(i) === 0x27)) close = args.charCodeAt(i++);
    const start = i;
    while (i < args.length && (close === 0 ? !isBlank(args.charCodeAt(i)) : args.charCodeAt(i) !== close)) i++;
    if (i > start && !isPlaceholder(args.slice(start, i))) out.push(start, i);
  }
  return out;
}

// ── Kubernetes Secret manifests ──────────────────────────────────────────────────────────────────────────

/** One YAML block mapping: its column, whether it says `kind: Secret`, and the value spans it owns. */
interface Frame {
  column: number;
  secret: boolean;
  /** Value spans of this mapping's data / stringData (and of non-Secret children), [start, end) flattened. */
  spans: number[];
  /** The mapping whose data: / stringData: this mapping is (its keys are names, its values secrets). */
  dataOf: Frame | undefined;
  /** The last key of this mapping was data: / stringData: with nothing after it: a block follows. */
  openData: boolean;
  /** The last key was kubectl's last-applied-configuration annotation (a JSON copy of the object). */
  lastApplied: boolean;
}

const DATA_KEYS = new Set(['data', 'stringData']);
/** Where a tab in the indentation moves the column to (the next multiple of it). */
const TAB_WIDTH = 8;

/**
 * A closing mapping that is no Secret hands its value spans to its parent (a Secret further up may own them).
 * The smaller list moves into the larger, so a span moves O(log n) times however deep the nesting (a hostile
 * text nests thousands of levels deep).
 */
function handSpans(from: { spans: number[] }, to: { spans: number[] }): void {
  if (to.spans.length < from.spans.length) [to.spans, from.spans] = [from.spans, to.spans];
  for (const v of from.spans) to.spans.push(v);
  from.spans = [];
}
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * The values under `data:` and `stringData:` of every Kubernetes Secret in a YAML text (block style): in
 * each `---`-separated document, and in each item of a List (`items:` of `kubectl get secrets -o yaml`).
 * The keys under data are arbitrary names, so the structure decides: a value is a secret when its mapping is
 * the data of a mapping that also says `kind: Secret` — before or after it (`kubectl get -o yaml` sorts
 * `data` before `kind`). A ConfigMap's data is left alone. Block scalars (`tls.key: |`) are redacted as a
 * whole; `kubectl.kubernetes.io/last-applied-configuration`, which repeats the data as JSON, too.
 *
 * One pass over the lines with a stack of open mappings: each value span is attributed to a mapping when its
 * line is read and is emitted when the mapping closes and is known to be a Secret; a non-Secret mapping hands
 * its spans to its parent (a span moves at most once per enclosing mapping, and a mapping sits at a deeper
 * column than its parent, so the moves are bounded by the span's line's indentation: linear overall).
 */
export function kubernetesSecretValues(text: string, push: (start: number, end: number) => void): void {
  const stack: Frame[] = [];
  const close = (frame: Frame): void => {
    const parent = stack[stack.length - 1];
    if (frame.secret) {
      for (let s = 0; s < frame.spans.length; s += 2) push(frame.spans[s]!, frame.spans[s + 1]!);
    } else if (parent !== undefined) {
      handSpans(frame, parent);
    }
  };
  const popTo = (column: number, inclusive: boolean): void => {
    for (
      let top = stack[stack.length - 1];
      top !== undefined && (top.column > column || (inclusive && top.column === column));
      top = stack[stack.length - 1]
    ) {
      stack.pop();
      close(top);
    }
  };
  // A block scalar in progress: its key's column, where its spans go, and its content so far.
  let block: { column: number; into: Frame | undefined; start: number; end: number } | undefined;
  const endBlock = (): void => {
    if (block !== undefined && block.into !== undefined && block.end > block.start)
      block.into.spans.push(block.start, block.end);
    block = undefined;
  };

  for (let lineStart = 0; lineStart < text.length;) {
    let lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd < 0) lineEnd = text.length;
    const next = lineEnd + 1;
    let contentEnd = lineEnd;
    if (contentEnd > lineStart && text.charCodeAt(contentEnd - 1) === 0x0d) contentEnd--;
    // Tabs in the indentation are not YAML, but people indent so (and parsers that accept it read them as
    // tab stops): a tab moves to the next multiple of TAB_WIDTH, so a tab-indented Secret nests as it looks.
    let first = lineStart;
    let indent = 0;
    for (; first < contentEnd && isBlank(text.charCodeAt(first)); first++)
      indent = text.charCodeAt(first) === 0x09 ? (Math.floor(indent / TAB_WIDTH) + 1) * TAB_WIDTH : indent + 1;
    const blank = first >= contentEnd;
    let i = first;

    if (block !== undefined) {
      if (blank || indent > block.column) {
        if (!blank) {
          if (block.start < 0) block.start = first;
          block.end = contentEnd;
        }
        lineStart = next;
        continue;
      }
      endBlock();
    }
    if (blank || text.charCodeAt(i) === 0x23 /* # */) {
      lineStart = next;
      continue;
    }
    // Document markers end every mapping of the document.
    if (
      indent === 0 &&
      (text.startsWith('---', i) || text.startsWith('...', i)) &&
      (i + 3 >= contentEnd || isBlank(text.charCodeAt(i + 3)))
    ) {
      popTo(-1, false);
      lineStart = next;
      continue;
    }
    // List item markers: the key after `- ` starts a new mapping at its own column.
    let item = false;
    while (i < contentEnd && text.charCodeAt(i) === 0x2d && (i + 1 >= contentEnd || isBlank(text.charCodeAt(i + 1)))) {
      item = true;
      i++;
      while (i < contentEnd && isBlank(text.charCodeAt(i))) i++;
    }
    const column = indent + (i - first);
    const key = readKey(text, i, contentEnd);
    if (key === undefined) {
      lineStart = next; // a scalar line, a template line, a flow collection: no structure to follow
      continue;
    }
    popTo(column, item);
    let frame = stack[stack.length - 1];
    // A Secret's data values are scalars: a key indented deeper than the data key before it (mixed tabs and
    // spaces) is another data key, not a child mapping — read so, its value is redacted (fail safe).
    const deeperDataKey = frame !== undefined && frame.dataOf !== undefined && column > frame.column && !item;
    if (frame === undefined || (frame.column !== column && !deeperDataKey)) {
      const parent = frame;
      const dataOf = parent !== undefined && parent.openData && column > parent.column ? parent : undefined;
      frame = { column, secret: false, spans: [], dataOf, openData: false, lastApplied: false };
      stack.push(frame);
    }
    const value = readValue(text, key.valueStart, contentEnd);
    frame.openData = false;
    frame.lastApplied = false;
    if (frame.dataOf !== undefined) {
      // A key of data / stringData: its value is the secret.
      if (value.kind === 'block') block = { column, into: frame.dataOf, start: -1, end: -1 };
      else if (value.end > value.start && !isPlaceholder(text.slice(value.start, value.end)))
        frame.dataOf.spans.push(value.start, value.end);
      // A quoted value that does not close on its line goes on over the more-indented lines that follow.
      if (value.open === true) block = { column, into: frame.dataOf, start: -1, end: -1 };
    } else if (key.name === 'kind') {
      if (value.kind === 'scalar' && text.slice(value.start, value.end) === 'Secret') frame.secret = true;
    } else if (DATA_KEYS.has(key.name)) {
      if (value.kind === 'empty') frame.openData = true;
      else if (value.kind === 'flow' && value.end > value.start) frame.spans.push(value.start, value.end);
      else if (value.kind === 'block') block = { column, into: undefined, start: -1, end: -1 };
    } else if (key.name === LAST_APPLIED) {
      if (value.kind === 'block') block = { column, into: frame, start: -1, end: -1 };
      else if (value.end > value.start) frame.spans.push(value.start, value.end);
    } else if (value.kind === 'block') {
      block = { column, into: undefined, start: -1, end: -1 }; // skipped, not parsed as keys
    }
    lineStart = next;
  }
  endBlock();
  popTo(-1, false);
}

/** A mapping key at `i` (plain or quoted) followed by ':' and a blank or the line end. */
function readKey(text: string, i: number, end: number): { name: string; valueStart: number } | undefined {
  const first = text.charCodeAt(i);
  let nameStart = i;
  let nameEnd: number;
  let j: number;
  if (first === 0x22 || first === 0x27) {
    nameStart = i + 1;
    nameEnd = nameStart;
    while (nameEnd < end && text.charCodeAt(nameEnd) !== first) nameEnd++;
    if (nameEnd >= end) return undefined;
    j = nameEnd + 1;
    while (j < end && isBlank(text.charCodeAt(j))) j++;
    if (text.charCodeAt(j) !== 0x3a) return undefined;
  } else {
    // Plain keys never start with an indicator ({ [ & * ! | > % @ ` ? and the template brace).
    if (
      first === 0x7b ||
      first === 0x5b ||
      first === 0x26 ||
      first === 0x2a ||
      first === 0x21 ||
      first === 0x7c ||
      first === 0x3e ||
      first === 0x25 ||
      first === 0x40 ||
      first === 0x60 ||
      first === 0x3f
    )
      return undefined;
    j = i;
    while (j < end) {
      const c = text.charCodeAt(j);
      if (c === 0x3a && (j + 1 >= end || isBlank(text.charCodeAt(j + 1)))) break;
      if (c === 0x23 && j > i && isBlank(text.charCodeAt(j - 1))) return undefined; // a comment before any ':'
      j++;
    }
    if (j >= end) return undefined;
    nameEnd = j;
    while (nameEnd > nameStart && isBlank(text.charCodeAt(nameEnd - 1))) nameEnd--;
  }
  return { name: text.slice(nameStart, nameEnd), valueStart: j + 1 };
}

type Value = { kind: 'empty' | 'block' | 'scalar' | 'flow'; start: number; end: number; open?: boolean };

/** The value after a key's ':' on the same line: empty, a block scalar indicator, a flow collection, or a scalar. */
function readValue(text: string, i: number, end: number): Value {
  let j = i;
  while (j < end && isBlank(text.charCodeAt(j))) j++;
  // Tags and anchors before the value (`!!binary`, `&x`) are not part of it.
  while (j < end && (text.charCodeAt(j) === 0x21 || text.charCodeAt(j) === 0x26)) {
    while (j < end && !isBlank(text.charCodeAt(j))) j++;
    while (j < end && isBlank(text.charCodeAt(j))) j++;
  }
  if (j >= end || text.charCodeAt(j) === 0x23) return { kind: 'empty', start: j, end: j };
  const c = text.charCodeAt(j);
  if (c === 0x7c || c === 0x3e) {
    let k = j + 1;
    while (
      k < end &&
      (text.charCodeAt(k) === 0x2d ||
        text.charCodeAt(k) === 0x2b ||
        (text.charCodeAt(k) >= 0x31 && text.charCodeAt(k) <= 0x39))
    )
      k++;
    while (k < end && isBlank(text.charCodeAt(k))) k++;
    if (k >= end || text.charCodeAt(k) === 0x23) return { kind: 'block', start: j, end: j };
  }
  if (c === 0x22 || c === 0x27) {
    let k = j + 1;
    while (k < end) {
      const d = text.charCodeAt(k);
      if (c === 0x22 && d === 0x5c /* \ */) {
        k += 2;
        continue;
      }
      if (d === c) {
        if (c === 0x27 && text.charCodeAt(k + 1) === 0x27) {
          k += 2; // '' is an escaped quote
          continue;
        }
        break;
      }
      k++;
    }
    return k < end ? { kind: 'scalar', start: j + 1, end: k } : { kind: 'scalar', start: j + 1, end, open: true };
  }
  if (c === 0x7b || c === 0x5b) {
    // A flow collection (`{}` or `{a: b}`): its content (braces excluded); a template `{{ … }}` is a placeholder.
    if (text.charCodeAt(j + 1) === c) return { kind: 'scalar', start: j, end: j };
    let k = end;
    while (k > j && isBlank(text.charCodeAt(k - 1))) k--;
    // `{}` and `[]` are empty: the closing bracket is not content.
    const inner = k - 1 >= j + 1 && (text.charCodeAt(k - 1) === 0x7d || text.charCodeAt(k - 1) === 0x5d) ? k - 1 : k;
    let s = j + 1;
    while (s < inner && isBlank(text.charCodeAt(s))) s++;
    return { kind: 'flow', start: s, end: inner };
  }
  // A plain scalar: to the line end or a comment (' #').
  let k = j;
  while (k < end && !(text.charCodeAt(k) === 0x23 && isBlank(text.charCodeAt(k - 1)))) k++;
  while (k > j && isBlank(text.charCodeAt(k - 1))) k--;
  return { kind: 'scalar', start: j, end: k };
}

/** One JSON object or array while scanning: like Frame, for the JSON form of a Secret (`kubectl get -o json`). */
interface JsonFrame {
  array: boolean;
  secret: boolean;
  spans: number[];
  /** The object whose "data" / "stringData" this object is (its values are secrets when that one is a Secret). */
  dataOf: JsonFrame | undefined;
  /** The key whose value comes next (objects only). */
  key: string | undefined;
}

/**
 * The values under "data" and "stringData" of every Kubernetes Secret in a JSON text (an object, a List's
 * items, several objects one after the other); the last-applied-configuration annotation too. One pass over
 * the characters with a stack of open objects and arrays, attributing spans as the YAML scan does: a value is
 * a secret when its object is the data of an object that also says "kind": "Secret", before or after it.
 * Text that is not JSON is skipped character by character (nothing is redacted that no Secret owns).
 */
export function kubernetesJsonSecretValues(text: string, push: (start: number, end: number) => void): void {
  const stack: JsonFrame[] = [];
  const close = (frame: JsonFrame): void => {
    if (frame.secret) {
      for (let s = 0; s < frame.spans.length; s += 2) push(frame.spans[s]!, frame.spans[s + 1]!);
      return;
    }
    const parent = stack[stack.length - 1];
    if (parent !== undefined) handSpans(frame, parent);
  };
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    const top = stack[stack.length - 1];
    if (c === 0x22 /* " */) {
      const start = i + 1;
      let end = start;
      while (end < text.length && text.charCodeAt(end) !== 0x22) end += text.charCodeAt(end) === 0x5c /* \ */ ? 2 : 1;
      end = Math.min(end, text.length);
      i = end + 1;
      let after = i;
      while (after < text.length && isJsonSpace(text.charCodeAt(after))) after++;
      if (top === undefined || top.array) {
        if (top !== undefined && top.dataOf !== undefined) top.dataOf.spans.push(start, end); // a data array's item
        continue;
      }
      if (text.charCodeAt(after) === 0x3a /* : */ && top.key === undefined) {
        top.key = text.slice(start, end);
        i = after + 1;
        continue;
      }
      const value = text.slice(start, end);
      if (top.dataOf !== undefined) {
        if (end > start && !isPlaceholder(value)) top.dataOf.spans.push(start, end);
      } else if (top.key === 'kind') {
        if (value === 'Secret') top.secret = true;
      } else if (top.key === LAST_APPLIED && end > start) {
        top.spans.push(start, end);
      }
      top.key = undefined;
      continue;
    }
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      const dataOf =
        top !== undefined && !top.array && top.key !== undefined && DATA_KEYS.has(top.key) ? top : undefined;
      stack.push({ array: c === 0x5b, secret: false, spans: [], dataOf, key: undefined });
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      const frame = stack.pop();
      if (frame !== undefined) close(frame);
      const parent = stack[stack.length - 1];
      if (parent !== undefined) parent.key = undefined;
    } else if (c === 0x2c /* , */ && top !== undefined) {
      top.key = undefined;
    }
    i++;
  }
  while (stack.length > 0) close(stack.pop()!);
}

const isJsonSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

/** Both forms of a Kubernetes Secret: YAML (block style) and JSON. */
export function kubernetesSecretSpans(text: string, push: (start: number, end: number) => void): void {
  kubernetesSecretValues(text, push);
  if (text.includes('"Secret"')) kubernetesJsonSecretValues(text, push);
}
