/**
 * Aho-Corasick over bytes, in typed arrays: the sanitizer's keyword pre-filter (layer 1).
 *
 * Keywords are ASCII. The automaton is a DFA over byte classes: every byte that occurs in some (case-folded)
 * keyword gets its own class, every other byte shares class 0, which can only lead back to the root. That
 * keeps the transition table small (states × ~40 classes) without a hash lookup per byte.
 * Case-insensitive keywords are stored folded (A-Z → a-z) and the input is folded while scanning;
 * case-sensitive keywords share the same trie and are verified against the unfolded input on a hit.
 *
 * Building touches every keyword byte and the transition table is completed lazily (entries resolved
 * through the fail links on first use, then memoized). `complete()` resolves all of them, after which the
 * automaton is nothing but typed arrays: `serialize()` writes them out and `Automaton.deserialize` maps
 * them back without copying — a process that loads a cached automaton does no per-keyword work at all
 * (in a fresh process, building costs 1–4 ms of interpreted code; loading costs microseconds).
 *
 * Scanning a JS string feeds its UTF-16 code units: units above 0x7F map to class 0, exactly as the bytes
 * of their UTF-8 encoding would (all ≥ 0x80, none in an ASCII keyword), so `scanString` finds the same
 * keywords as `scanBytes` on the UTF-8 bytes, with offsets in UTF-16 units — the units spans are reported in.
 */

export interface AhoKeyword {
  /** ASCII text. */
  text: string;
  /** Match letters case-insensitively (ASCII folding). */
  ignoreCase: boolean;
}

/** Called for every keyword occurrence: its index in the keyword list and the offset just past it. */
export type OnHit = (keyword: number, end: number) => void;

const FOLD = new Uint8Array(256);
for (let b = 0; b < 256; b++) FOLD[b] = b >= 0x41 && b <= 0x5a ? b + 0x20 : b;

/** The automaton's tables; every field is a typed array so the whole can be serialized as one buffer. */
interface Tables {
  /** [width, stateCount, keywordCount] */
  meta: Int32Array;
  /** Byte → class (0 = a byte no keyword contains); upper-case letters share their lower-case class. */
  classOf: Uint8Array;
  /** delta[state * width + class]: the transition, or UNRESOLVED. 16 bits: halves the cache file (≤ 65534 states). */
  delta: Uint16Array;
  fail: Int32Array;
  /** First keyword ending exactly at this state, or -1; more keywords with the same folded text via `sameText`. */
  outFirst: Int32Array;
  sameText: Int32Array;
  /** Nearest proper suffix state (along fail links) that has output, or -1: the dictionary suffix link. */
  dictLink: Int32Array;
  /** Keyword k's original bytes are keywordBytes[keywordStart[k] .. keywordStart[k + 1]). */
  keywordStart: Int32Array;
  keywordBytes: Uint8Array;
  /** 1 for case-sensitive keywords: a folded hit is verified against the original input. */
  exact: Uint8Array;
}
const TABLE_ORDER = [
  'meta',
  'classOf',
  'delta',
  'fail',
  'outFirst',
  'sameText',
  'dictLink',
  'keywordStart',
  'keywordBytes',
  'exact',
] as const;
const INT32_TABLES = new Set<string>(['meta', 'fail', 'outFirst', 'sameText', 'dictLink', 'keywordStart']);
const UINT16_TABLES = new Set<string>(['delta']);
const UNRESOLVED = 0xffff;

export class Automaton {
  private readonly t: Tables;
  private readonly width: number;
  readonly stateCount: number;
  readonly keywordCount: number;

  private constructor(tables: Tables) {
    this.t = tables;
    this.width = tables.meta[0]!;
    this.stateCount = tables.meta[1]!;
    this.keywordCount = tables.meta[2]!;
  }

  static build(keywords: readonly AhoKeyword[]): Automaton {
    const classOf = new Uint8Array(256);
    let width = 1;
    let totalBytes = 0;
    for (const k of keywords) {
      if (k.text === '') throw new Error('aho: empty keyword');
      for (let i = 0; i < k.text.length; i++) {
        const c = k.text.charCodeAt(i);
        if (c > 0x7f) throw new Error(`aho: keyword ${JSON.stringify(k.text)} is not ASCII`);
        const f = FOLD[c]!;
        if (classOf[f] === 0) classOf[f] = width++;
      }
      totalBytes += k.text.length;
    }
    for (let b = 0x41; b <= 0x5a; b++) classOf[b] = classOf[b + 0x20]!;

    const maxStates = totalBytes + 1;
    if (maxStates >= UNRESOLVED)
      throw new Error(
        `aho: ${keywords.length} keywords need up to ${maxStates} states; 16-bit transitions hold ${UNRESOLVED - 1}`,
      );
    const delta = new Uint16Array(maxStates * width).fill(UNRESOLVED);
    const outFirst = new Int32Array(maxStates).fill(-1);
    const sameText = new Int32Array(keywords.length).fill(-1);
    const exact = new Uint8Array(keywords.length);
    const keywordStart = new Int32Array(keywords.length + 1);
    const keywordBytes = new Uint8Array(totalBytes);
    // The trie as first-child / next-sibling lists, so the breadth-first pass visits edges, not table rows.
    const firstChild = new Int32Array(maxStates).fill(-1);
    const nextSibling = new Int32Array(maxStates).fill(-1);
    const edgeClass = new Int32Array(maxStates);

    let states = 1;
    let at = 0;
    for (let k = 0; k < keywords.length; k++) {
      const { text, ignoreCase } = keywords[k]!;
      keywordStart[k] = at;
      let s = 0;
      for (let i = 0; i < text.length; i++) {
        const b = text.charCodeAt(i);
        keywordBytes[at++] = b;
        const c = classOf[FOLD[b]!]!;
        const slot = s * width + c;
        let t = delta[slot]!;
        if (t === UNRESOLVED) {
          t = states++;
          delta[slot] = t;
          edgeClass[t] = c;
          nextSibling[t] = firstChild[s]!;
          firstChild[s] = t;
        }
        s = t;
      }
      sameText[k] = outFirst[s]!;
      outFirst[s] = k;
      exact[k] = ignoreCase ? 0 : 1;
    }
    keywordStart[keywords.length] = at;
    // The root's missing edges loop back to the root: every fail chain ends there.
    for (let c = 0; c < width; c++) if (delta[c] === UNRESOLVED) delta[c] = 0;

    const automaton = new Automaton({
      meta: Int32Array.of(width, states, keywords.length),
      classOf,
      delta: delta.subarray(0, states * width),
      fail: new Int32Array(states),
      outFirst: outFirst.subarray(0, states),
      sameText,
      dictLink: new Int32Array(states).fill(-1),
      keywordStart,
      keywordBytes,
      exact,
    });
    automaton.linkFailures(firstChild, nextSibling, edgeClass);
    return automaton;
  }

  /** Breadth-first over the trie: fail and dictionary-suffix links. */
  private linkFailures(firstChild: Int32Array, nextSibling: Int32Array, edgeClass: Int32Array): void {
    const { fail, outFirst, dictLink } = this.t;
    const queue = new Int32Array(this.stateCount);
    let head = 0;
    let tail = 0;
    for (let t = firstChild[0]!; t >= 0; t = nextSibling[t]!) queue[tail++] = t; // depth 1 fails to the root
    while (head < tail) {
      const s = queue[head++]!;
      const f = fail[s]!;
      dictLink[s] = outFirst[f]! >= 0 ? f : dictLink[f]!;
      for (let t = firstChild[s]!; t >= 0; t = nextSibling[t]!) {
        fail[t] = this.next(f, edgeClass[t]!);
        queue[tail++] = t;
      }
    }
  }

  /** The DFA transition, resolving (and memoizing) a missing entry through the fail links. */
  private next(state: number, c: number): number {
    const { delta, fail } = this.t;
    const slot = state * this.width + c;
    const known = delta[slot]!;
    if (known !== UNRESOLVED) return known;
    const resolved = this.next(fail[state]!, c);
    delta[slot] = resolved;
    return resolved;
  }

  /** Resolves every transition (before serializing: a loaded automaton then never takes the slow path). */
  complete(): this {
    for (let s = 0; s < this.stateCount; s++) for (let c = 0; c < this.width; c++) this.next(s, c);
    return this;
  }

  keywordLength(k: number): number {
    return this.t.keywordStart[k + 1]! - this.t.keywordStart[k]!;
  }

  /** Every keyword occurrence in a string (overlapping ones included), in order of their end offsets. */
  scanString(text: string, onHit: OnHit): void {
    const { classOf, delta, outFirst, dictLink } = this.t;
    const width = this.width;
    let s = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      const cls = c < 0x80 ? classOf[c]! : 0;
      const t = delta[s * width + cls]!;
      s = t !== UNRESOLVED ? t : this.next(s, cls);
      if (outFirst[s]! >= 0 || dictLink[s]! >= 0) this.emit(s, i + 1, onHit, text, undefined);
    }
  }

  /** The same over UTF-8 bytes (offsets in bytes). */
  scanBytes(bytes: Uint8Array, onHit: OnHit): void {
    const { classOf, delta, outFirst, dictLink } = this.t;
    const width = this.width;
    let s = 0;
    for (let i = 0; i < bytes.length; i++) {
      const cls = classOf[bytes[i]!]!;
      const t = delta[s * width + cls]!;
      s = t !== UNRESOLVED ? t : this.next(s, cls);
      if (outFirst[s]! >= 0 || dictLink[s]! >= 0) this.emit(s, i + 1, onHit, undefined, bytes);
    }
  }

  /** Reports the keywords ending at `state` (and its dictionary suffixes); case-sensitive ones are verified first. */
  private emit(
    state: number,
    end: number,
    onHit: OnHit,
    text: string | undefined,
    bytes: Uint8Array | undefined,
  ): void {
    const { outFirst, sameText, dictLink, exact, keywordStart, keywordBytes } = this.t;
    for (let s = state; s >= 0; s = dictLink[s]!) {
      for (let k = outFirst[s]!; k >= 0; k = sameText[k]!) {
        if (exact[k] === 1) {
          const from = keywordStart[k]!;
          const at = end - (keywordStart[k + 1]! - from) - from;
          let same = true;
          for (let j = from; j < keywordStart[k + 1]! && same; j++)
            same = (text !== undefined ? text.charCodeAt(at + j) : bytes![at + j]) === keywordBytes[j];
          if (!same) continue;
        }
        onHit(k, end);
      }
    }
  }

  /** All tables in one buffer: a header of byte offsets, then each table 8-byte aligned. */
  serialize(): Uint8Array {
    const parts = TABLE_ORDER.map((name) => this.t[name]);
    const header = 4 * (2 * parts.length);
    let size = header;
    const offsets = parts.map((p) => {
      const at = size;
      size += Math.ceil(p.byteLength / 8) * 8;
      return at;
    });
    const out = new Uint8Array(size);
    const head = new Int32Array(out.buffer, 0, 2 * parts.length);
    parts.forEach((p, i) => {
      head[2 * i] = offsets[i]!;
      head[2 * i + 1] = p.length;
      out.set(new Uint8Array(p.buffer, p.byteOffset, p.byteLength), offsets[i]!);
    });
    return out;
  }

  /** Views over a serialized automaton (no copy). `bytes` must start on an 8-byte boundary of its buffer. */
  static deserialize(bytes: Uint8Array): Automaton {
    if (bytes.byteOffset % 8 !== 0) throw new Error('aho: serialized automaton is not 8-byte aligned');
    const count = TABLE_ORDER.length;
    if (bytes.byteLength < 8 * count) throw new Error('aho: serialized automaton is truncated');
    const head = new Int32Array(bytes.buffer, bytes.byteOffset, 2 * count);
    const tables: Partial<Record<(typeof TABLE_ORDER)[number], Int32Array | Uint16Array | Uint8Array>> = {};
    TABLE_ORDER.forEach((name, i) => {
      const offset = head[2 * i]!;
      const length = head[2 * i + 1]!;
      const size = INT32_TABLES.has(name) ? 4 : UINT16_TABLES.has(name) ? 2 : 1;
      if (offset < 0 || length < 0 || offset % 8 !== 0 || offset + length * size > bytes.byteLength)
        throw new Error(`aho: serialized table ${name} is out of bounds`);
      const at = bytes.byteOffset + offset;
      tables[name] =
        size === 4
          ? new Int32Array(bytes.buffer, at, length)
          : size === 2
            ? new Uint16Array(bytes.buffer, at, length)
            : new Uint8Array(bytes.buffer, at, length);
    });
    const automaton = new Automaton(tables as Tables);
    automaton.validate();
    return automaton;
  }

  /**
   * Sizes must agree, or a scan could read out of range: a truncated or mismatched buffer is rejected.
   * Transition targets are not checked one by one (that would cost what loading saves); the cache file
   * lives in the private runtime directory and is written atomically (never half-written). Out-of-range
   * reads of a typed array cannot touch other memory; at worst a corrupt table makes a scan throw, which
   * the hook turns into a fail-closed decision.
   */
  private validate(): void {
    const { meta, classOf, delta, fail, outFirst, sameText, dictLink, keywordStart, keywordBytes, exact } = this.t;
    const ok =
      meta.length === 3 &&
      this.width > 0 &&
      this.width <= 256 &&
      this.stateCount > 0 &&
      classOf.length === 256 &&
      delta.length === this.stateCount * this.width &&
      fail.length === this.stateCount &&
      outFirst.length === this.stateCount &&
      dictLink.length === this.stateCount &&
      sameText.length === this.keywordCount &&
      exact.length === this.keywordCount &&
      keywordStart.length === this.keywordCount + 1 &&
      keywordStart[this.keywordCount] === keywordBytes.length;
    if (!ok) throw new Error('aho: serialized automaton has inconsistent tables');
    for (let i = 0; i < 256; i++)
      if (classOf[i]! >= this.width) throw new Error('aho: serialized automaton has a bad byte class');
  }

  /** Bytes held by the tables (for reports). */
  get byteSize(): number {
    let n = 0;
    for (const name of TABLE_ORDER) n += this.t[name].byteLength;
    return n;
  }
}
