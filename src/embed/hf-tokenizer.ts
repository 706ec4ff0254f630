/**
 * A Hugging Face `tokenizer.json` (the `tokenizers` library's serialization) read and run in TypeScript, for
 * the sentence-embedding models a user points hookwise at: WordPiece (BERT, MiniLM, BGE, …) and byte-level
 * BPE (GPT-2 / RoBERTa style). Supported parts, each as `tokenizers` defines it:
 *   normalizers:     BertNormalizer, Lowercase, NFC/NFD/NFKC/NFKD, StripAccents, Strip, Replace, Prepend, Sequence
 *   pre-tokenizers:  BertPreTokenizer, Whitespace, WhitespaceSplit, ByteLevel, Punctuation, Digits, Sequence
 *   models:          WordPiece, BPE (merges as "a b" strings or pairs; unk token, byte fallback)
 *   post-processors: TemplateProcessing, BertProcessing, RobertaProcessing, ByteLevel, Sequence
 * Anything else is refused with an error naming the file and the part, never approximated. Added tokens are
 * not matched inside the text: a subject that spells `[SEP]` is tokenized as the characters it is.
 * Pure: the caller reads the file.
 */
import { HookwiseError } from '../core/errors.js';

export interface HfTokenizer {
  /** Token ids with the special tokens the post-processor adds, truncated to maxLength in total. */
  encode(text: string, maxLength: number): number[];
  /** The id padding positions carry (their attention mask is 0). */
  readonly padId: number;
  /** tokenizer.json's own truncation length, if it sets one. */
  readonly truncation?: number;
}

type Json = Record<string, unknown>;

/** Characters of a text read at most (a subject is at most 4096; this bounds the normalizer's work). */
const MAX_TEXT = 65_536;

function fail(path: string, message: string): never {
  throw new HookwiseError('MODEL_INVALID', `${path}: ${message}`);
}

function obj(value: unknown): Json | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined;
}

// ---------------------------------------------------------------- normalizers
type Normalize = (text: string) => string;

const NONSPACING_MARK = /\p{Mn}/gu;
const CONTROL = /[\p{Cc}\p{Cf}]/u;

function isBertWhitespace(c: string): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\r' || /\p{Zs}/u.test(c);
}

function isChinese(cp: number): boolean {
  return (
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x20000 && cp <= 0x2a6df) ||
    (cp >= 0x2a700 && cp <= 0x2b73f) ||
    (cp >= 0x2b740 && cp <= 0x2b81f) ||
    (cp >= 0x2b820 && cp <= 0x2ceaf) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0x2f800 && cp <= 0x2fa1f)
  );
}

function bertNormalizer(spec: Json): Normalize {
  const clean = spec.clean_text !== false;
  const chinese = spec.handle_chinese_chars !== false;
  const lowercase = spec.lowercase !== false;
  const strip = typeof spec.strip_accents === 'boolean' ? spec.strip_accents : lowercase;
  return (text) => {
    let out = '';
    for (const c of text) {
      const cp = c.codePointAt(0)!;
      if (clean) {
        if (cp === 0 || cp === 0xfffd) continue;
        if (c !== '\t' && c !== '\n' && c !== '\r' && CONTROL.test(c)) continue;
        if (isBertWhitespace(c)) {
          out += ' ';
          continue;
        }
      }
      out += chinese && isChinese(cp) ? ` ${c} ` : c;
    }
    if (strip) out = out.normalize('NFD').replace(NONSPACING_MARK, '');
    return lowercase ? out.toLowerCase() : out;
  };
}

function normalizer(spec: unknown, path: string): Normalize {
  if (spec === null || spec === undefined) return (t) => t;
  const s = obj(spec) ?? fail(path, 'normalizer is not an object');
  switch (s.type) {
    case 'BertNormalizer':
      return bertNormalizer(s);
    case 'Lowercase':
      return (t) => t.toLowerCase();
    case 'NFC':
    case 'NFD':
    case 'NFKC':
    case 'NFKD': {
      const form = s.type;
      return (t) => t.normalize(form);
    }
    case 'StripAccents':
      return (t) => t.replace(NONSPACING_MARK, '');
    case 'Strip': {
      const left = s.strip_left !== false;
      const right = s.strip_right !== false;
      return (t) => (left && right ? t.trim() : left ? t.trimStart() : right ? t.trimEnd() : t);
    }
    case 'Prepend': {
      const prepend =
        typeof s.prepend === 'string' ? s.prepend : fail(path, 'Prepend normalizer without a prepend string');
      return (t) => (t === '' ? t : prepend + t);
    }
    case 'Replace': {
      const pattern = obj(s.pattern);
      const content = typeof s.content === 'string' ? s.content : fail(path, 'Replace normalizer without content');
      if (typeof pattern?.String === 'string') {
        const from = pattern.String;
        return (t) => t.split(from).join(content);
      }
      if (typeof pattern?.Regex === 'string') {
        const re = new RegExp(pattern.Regex, 'gu');
        return (t) => t.replace(re, content);
      }
      return fail(path, 'Replace normalizer without a String or Regex pattern');
    }
    case 'Sequence': {
      const parts = (
        Array.isArray(s.normalizers) ? s.normalizers : fail(path, 'Sequence normalizer without normalizers')
      ).map((n) => normalizer(n, path));
      return (t) => parts.reduce((acc, f) => f(acc), t);
    }
    default:
      return fail(path, `normalizer ${String(s.type)} is not supported`);
  }
}

// ---------------------------------------------------------------- pre-tokenizers
type PreTokenize = (pieces: string[]) => string[];

function isPunctuation(c: string): boolean {
  const cp = c.codePointAt(0)!;
  if ((cp >= 33 && cp <= 47) || (cp >= 58 && cp <= 64) || (cp >= 91 && cp <= 96) || (cp >= 123 && cp <= 126))
    return true;
  return /\p{P}/u.test(c);
}

/** Split on whitespace (dropped) and isolate each punctuation character (BertPreTokenizer, Punctuation). */
function splitPunctuation(piece: string, dropWhitespace: boolean): string[] {
  const out: string[] = [];
  let current = '';
  for (const c of piece) {
    if (dropWhitespace && /\s/u.test(c)) {
      if (current !== '') out.push(current);
      current = '';
    } else if (isPunctuation(c)) {
      if (current !== '') out.push(current);
      out.push(c);
      current = '';
    } else current += c;
  }
  if (current !== '') out.push(current);
  return out;
}

/** GPT-2's pre-tokenization pattern (what `tokenizers`' ByteLevel uses with use_regex). */
const GPT2_SPLIT = /'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu;

/** GPT-2's reversible byte → printable character table. */
const BYTE_TO_CHAR: string[] = (() => {
  const keep: number[] = [];
  for (let b = 33; b <= 126; b++) keep.push(b);
  for (let b = 161; b <= 172; b++) keep.push(b);
  for (let b = 174; b <= 255; b++) keep.push(b);
  const table: string[] = new Array(256);
  let extra = 0;
  for (let b = 0; b < 256; b++) table[b] = String.fromCodePoint(keep.includes(b) ? b : 256 + extra++);
  return table;
})();

export function byteLevelChars(text: string): string {
  let out = '';
  for (const b of new TextEncoder().encode(text)) out += BYTE_TO_CHAR[b];
  return out;
}

function preTokenizer(spec: unknown, path: string): { run: PreTokenize; byteLevel: boolean } {
  if (spec === null || spec === undefined) return { run: (p) => p, byteLevel: false };
  const s = obj(spec) ?? fail(path, 'pre_tokenizer is not an object');
  switch (s.type) {
    case 'BertPreTokenizer':
      return { run: (pieces) => pieces.flatMap((p) => splitPunctuation(p, true)), byteLevel: false };
    case 'Punctuation':
      return { run: (pieces) => pieces.flatMap((p) => splitPunctuation(p, false)), byteLevel: false };
    case 'Whitespace':
      return { run: (pieces) => pieces.flatMap((p) => p.match(/\w+|[^\w\s]+/gu) ?? []), byteLevel: false };
    case 'WhitespaceSplit':
      return { run: (pieces) => pieces.flatMap((p) => p.split(/\s+/u).filter((x) => x !== '')), byteLevel: false };
    case 'Digits': {
      const individual = s.individual_digits === true;
      return {
        run: (pieces) => pieces.flatMap((p) => p.match(individual ? /\p{N}|[^\p{N}]+/gu : /\p{N}+|[^\p{N}]+/gu) ?? []),
        byteLevel: false,
      };
    }
    case 'ByteLevel': {
      const prefix = s.add_prefix_space === true;
      const useRegex = s.use_regex !== false;
      return {
        run: (pieces) =>
          pieces.flatMap((p, i) => {
            const text = prefix && i === 0 && !p.startsWith(' ') ? ` ${p}` : p;
            return (useRegex ? (text.match(GPT2_SPLIT) ?? []) : [text]).map(byteLevelChars);
          }),
        byteLevel: true,
      };
    }
    case 'Sequence': {
      const parts = (
        Array.isArray(s.pretokenizers) ? s.pretokenizers : fail(path, 'Sequence pre_tokenizer without pretokenizers')
      ).map((p) => preTokenizer(p, path));
      return {
        run: (pieces) => parts.reduce((acc, p) => p.run(acc), pieces),
        byteLevel: parts.some((p) => p.byteLevel),
      };
    }
    default:
      return fail(path, `pre_tokenizer ${String(s.type)} is not supported`);
  }
}

// ---------------------------------------------------------------- models
type Model = (word: string) => number[];

function vocabOf(spec: Json, path: string): Map<string, number> {
  const v = obj(spec.vocab) ?? fail(path, `${String(spec.type)} model without a vocab object`);
  const map = new Map<string, number>();
  for (const [token, id] of Object.entries(v)) {
    if (typeof id !== 'number' || !Number.isInteger(id) || id < 0)
      fail(path, `vocab entry ${JSON.stringify(token)} has id ${JSON.stringify(id)}`);
    map.set(token, id);
  }
  return map;
}

function wordPiece(spec: Json, path: string): { model: Model; vocab: Map<string, number> } {
  const vocab = vocabOf(spec, path);
  const unkToken = typeof spec.unk_token === 'string' ? spec.unk_token : '[UNK]';
  const unk = vocab.get(unkToken) ?? fail(path, `WordPiece unk_token ${unkToken} is not in the vocab`);
  const prefix = typeof spec.continuing_subword_prefix === 'string' ? spec.continuing_subword_prefix : '##';
  const maxChars = typeof spec.max_input_chars_per_word === 'number' ? spec.max_input_chars_per_word : 100;
  const model: Model = (word) => {
    const chars = [...word];
    if (chars.length > maxChars) return [unk];
    const ids: number[] = [];
    let start = 0;
    while (start < chars.length) {
      let end = chars.length;
      let found: number | undefined;
      while (start < end) {
        const piece = (start > 0 ? prefix : '') + chars.slice(start, end).join('');
        found = vocab.get(piece);
        if (found !== undefined) break;
        end--;
      }
      if (found === undefined) return [unk];
      ids.push(found);
      start = end;
    }
    return ids;
  };
  return { model, vocab };
}

function bpe(spec: Json, path: string): { model: Model; vocab: Map<string, number> } {
  const vocab = vocabOf(spec, path);
  if (typeof spec.continuing_subword_prefix === 'string' || typeof spec.end_of_word_suffix === 'string') {
    fail(path, 'BPE with continuing_subword_prefix or end_of_word_suffix is not supported');
  }
  const merges = Array.isArray(spec.merges) ? spec.merges : fail(path, 'BPE model without merges');
  const ranks = new Map<string, number>();
  merges.forEach((m, rank) => {
    const pair = typeof m === 'string' ? m.split(' ') : Array.isArray(m) ? m : [];
    if (pair.length !== 2 || typeof pair[0] !== 'string' || typeof pair[1] !== 'string')
      fail(path, `BPE merge ${rank} is not a pair: ${JSON.stringify(m)}`);
    if (!ranks.has(`${pair[0]} ${pair[1]}`)) ranks.set(`${pair[0]} ${pair[1]}`, rank);
  });
  const unkToken = typeof spec.unk_token === 'string' ? spec.unk_token : undefined;
  const unk = unkToken === undefined ? undefined : vocab.get(unkToken);
  const byteFallback = spec.byte_fallback === true;
  const cache = new Map<string, number[]>();
  const model: Model = (word) => {
    const cached = cache.get(word);
    if (cached !== undefined) return cached;
    const symbols = [...word];
    for (;;) {
      let best = -1;
      let bestRank = Infinity;
      for (let i = 0; i + 1 < symbols.length; i++) {
        const rank = ranks.get(`${symbols[i]} ${symbols[i + 1]}`);
        if (rank !== undefined && rank < bestRank) {
          bestRank = rank;
          best = i;
        }
      }
      if (best === -1) break;
      // merge every occurrence of the best pair, left to right, as `tokenizers` does
      const [a, b] = [symbols[best], symbols[best + 1]];
      const next: string[] = [];
      for (let i = 0; i < symbols.length; i++) {
        if (i + 1 < symbols.length && symbols[i] === a && symbols[i + 1] === b) {
          next.push(a! + b!);
          i++;
        } else next.push(symbols[i]!);
      }
      symbols.splice(0, symbols.length, ...next);
    }
    const ids: number[] = [];
    let lastUnk = false;
    for (const s of symbols) {
      const id = vocab.get(s);
      if (id !== undefined) {
        ids.push(id);
        lastUnk = false;
      } else if (byteFallback) {
        for (const b of new TextEncoder().encode(s)) {
          const byteId = vocab.get(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`);
          if (byteId !== undefined) ids.push(byteId);
          else if (unk !== undefined) ids.push(unk);
        }
      } else if (unk !== undefined && !(lastUnk && spec.fuse_unk === true)) {
        ids.push(unk);
        lastUnk = true;
      }
    }
    if (cache.size < 50_000) cache.set(word, ids);
    return ids;
  };
  return { model, vocab };
}

// ---------------------------------------------------------------- post-processors
interface Specials {
  before: number[];
  after: number[];
}

function specialId(entry: unknown, path: string, what: string): number {
  if (Array.isArray(entry) && typeof entry[1] === 'number') return entry[1];
  return fail(path, `${what} is not a [token, id] pair`);
}

function postProcessor(spec: unknown, path: string): Specials {
  if (spec === null || spec === undefined) return { before: [], after: [] };
  const s = obj(spec) ?? fail(path, 'post_processor is not an object');
  switch (s.type) {
    case 'ByteLevel':
      return { before: [], after: [] };
    case 'BertProcessing':
    case 'RobertaProcessing':
      return { before: [specialId(s.cls, path, `${s.type} cls`)], after: [specialId(s.sep, path, `${s.type} sep`)] };
    case 'TemplateProcessing': {
      const single = Array.isArray(s.single) ? s.single : fail(path, 'TemplateProcessing without a single template');
      const specials = obj(s.special_tokens) ?? {};
      const out: Specials = { before: [], after: [] };
      let seen = false;
      for (const piece of single) {
        const p = obj(piece) ?? fail(path, 'TemplateProcessing piece is not an object');
        if (obj(p.Sequence) !== undefined) {
          if (seen) fail(path, 'TemplateProcessing single template has the sequence twice');
          seen = true;
          continue;
        }
        const name = obj(p.SpecialToken)?.id;
        if (typeof name !== 'string')
          fail(path, `TemplateProcessing piece ${JSON.stringify(piece)} is neither Sequence nor SpecialToken`);
        const ids = obj(specials[name])?.ids;
        if (!Array.isArray(ids) || !ids.every((i) => typeof i === 'number'))
          fail(path, `TemplateProcessing special token ${name} has no ids`);
        (seen ? out.after : out.before).push(...(ids as number[]));
      }
      return out;
    }
    case 'Sequence': {
      const parts = (
        Array.isArray(s.processors) ? s.processors : fail(path, 'Sequence post_processor without processors')
      ).map((p) => postProcessor(p, path));
      return { before: parts.flatMap((p) => p.before), after: parts.flatMap((p) => p.after) };
    }
    default:
      return fail(path, `post_processor ${String(s.type)} is not supported`);
  }
}

// ---------------------------------------------------------------- the tokenizer

/** A parsed tokenizer.json (`json`: its contents; `path`: named in every error). */
export function loadHfTokenizer(json: unknown, path: string): HfTokenizer {
  const root = obj(json) ?? fail(path, 'not a tokenizer.json object');
  const modelSpec = obj(root.model) ?? fail(path, 'no model section');
  let built: { model: Model; vocab: Map<string, number> };
  switch (modelSpec.type) {
    case 'WordPiece':
      built = wordPiece(modelSpec, path);
      break;
    case 'BPE':
      built = bpe(modelSpec, path);
      break;
    default:
      return fail(
        path,
        `tokenizer model ${String(modelSpec.type)} is not supported (hookwise reads WordPiece and BPE)`,
      );
  }
  const normalize = normalizer(root.normalizer, path);
  const pre = preTokenizer(root.pre_tokenizer, path);
  const specials = postProcessor(root.post_processor, path);
  const padding = obj(root.padding);
  const padId =
    typeof padding?.pad_id === 'number' ? padding.pad_id : (built.vocab.get('[PAD]') ?? built.vocab.get('<pad>') ?? 0);
  const truncationLength = obj(root.truncation)?.max_length;
  const model = built.model;
  return {
    padId,
    truncation: typeof truncationLength === 'number' && truncationLength > 0 ? truncationLength : undefined,
    encode(text, maxLength) {
      const room = Math.max(0, maxLength - specials.before.length - specials.after.length);
      const ids: number[] = [];
      // Bounded work: stop once the sequence is full (a long text costs its first `room` tokens, not all).
      for (const word of pre.run([normalize(text.slice(0, MAX_TEXT))])) {
        if (ids.length >= room) break;
        ids.push(...model(word));
      }
      return [...specials.before, ...ids.slice(0, room), ...specials.after];
    },
  };
}
