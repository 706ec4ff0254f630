/**
 * Word expansion as Bash does it, on a word's pieces (parse.ts cuts a word into pieces by quoting):
 * backslash escapes, double-quoted and ANSI-C text, brace expansion, globs and tilde marked dynamic.
 * Bounded by counts (MAX_BRACE_*): a word past them stays one dynamic word, judged as written.
 */
import type { Word } from './options.js';

/** One word may brace-expand into at most this many words; beyond, it stays one dynamic word. */
const MAX_BRACE_WORDS = 256;
/** Words longer than this, or with more brace groups, are not brace-expanded (they stay one dynamic word). */
const MAX_BRACE_WORD_LENGTH = 4096;
const MAX_BRACE_GROUPS = 32;

export interface Piece {
  text: string;
  /** Quoted or escaped: no globbing, no brace expansion, no tilde. */
  quoted: boolean;
  dynamic: boolean;
}

/** An unquoted word: `\x` is a quoted x, backslash-newline disappears. */
export function unquotedPieces(text: string, out: Piece[]): void {
  if (!text.includes('\\')) {
    out.push({ text, quoted: false, dynamic: false });
    return;
  }
  let run = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c !== '\\') {
      run += c;
      continue;
    }
    const next = text[i + 1];
    i++;
    if (next === undefined || next === '\n') continue;
    if (run !== '') out.push({ text: run, quoted: false, dynamic: false });
    run = '';
    out.push({ text: next, quoted: true, dynamic: false });
  }
  if (run !== '') out.push({ text: run, quoted: false, dynamic: false });
}

export function unescapeDoubleQuoted(text: string): string {
  if (!text.includes('\\')) return text;
  return text.replace(/\\([$`"\\\n])/g, (_, c: string) => (c === '\n' ? '' : c));
}

const ANSI_SIMPLE: Record<string, string> = {
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '?': '?',
};

/** $'…' (ANSI-C quoting). */
export function decodeAnsiC(text: string): string {
  return text.replace(
    /\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|c.|.)/gs,
    (all, esc: string) => {
      const head = esc[0]!;
      if (head === 'x' || head === 'u' || head === 'U') {
        const code = parseInt(esc.slice(1), 16);
        return code <= 0x10ffff ? String.fromCodePoint(code) : all;
      }
      if (/[0-7]/.test(head)) return String.fromCharCode(parseInt(esc, 8) & 0xff);
      if (head === 'c' && esc.length === 2) return String.fromCharCode(esc.charCodeAt(1) & 0x1f);
      return ANSI_SIMPLE[head] ?? all;
    },
  );
}

// --- brace expansion, globs, tilde ----------------------------------------------------------------------

interface Unit {
  /** One character of unquoted text, or a whole quoted/dynamic piece. */
  text: string;
  /** Unquoted: may take part in brace expansion, globbing, tilde expansion. */
  active: boolean;
  dynamic: boolean;
}

export function finishWord(pieces: readonly Piece[]): Word[] {
  const whole = (): Unit[] => pieces.map((p) => ({ text: p.text, active: !p.quoted, dynamic: p.dynamic }));
  if (!pieces.some((p) => !p.quoted && p.text.includes('{'))) return [wordOf(whole())];
  let length = 0;
  let groups = 0;
  for (const p of pieces) {
    length += p.text.length;
    if (!p.quoted) for (const c of p.text) if (c === '{') groups++;
  }
  // Bounded work: a pathological word stays one word, marked dynamic (judged as written, never expanded wrongly).
  if (length > MAX_BRACE_WORD_LENGTH || groups > MAX_BRACE_GROUPS)
    return [{ text: wordOf(whole()).text, dynamic: true }];
  const units: Unit[] = [];
  for (const p of pieces) {
    if (p.quoted) units.push({ text: p.text, active: false, dynamic: p.dynamic });
    else for (const c of p.text) units.push({ text: c, active: true, dynamic: false });
  }
  const budget = { left: MAX_BRACE_WORDS };
  const expanded = expandBraces(units, budget);
  if (expanded === undefined) {
    const word = wordOf(units);
    return [{ text: word.text, dynamic: true }];
  }
  return expanded.map(wordOf);
}

function wordOf(units: readonly Unit[]): Word {
  let text = '';
  let dynamic = false;
  for (let i = 0; i < units.length; i++) {
    const u = units[i]!;
    text += u.text;
    if (u.dynamic) dynamic = true;
    // Unquoted glob characters make the word a pattern.
    else if (u.active && /[*?[]/.test(u.text)) dynamic = true;
  }
  // `~user`, `~+`, `~-`: someone's home or a directory stack entry; `~` and `~/x` stay literal for the caller.
  const first = units[0];
  if (first !== undefined && first.active && first.text.startsWith('~') && !(text === '~' || text.startsWith('~/')))
    dynamic = true;
  return { text, dynamic };
}

/** Bash brace expansion over unquoted units; undefined when it would exceed the budget. */
function expandBraces(units: readonly Unit[], budget: { left: number }): Unit[][] | undefined {
  for (let open = 0; open < units.length; open++) {
    const u = units[open]!;
    if (!u.active || u.text !== '{') continue;
    // `${` is a parameter expansion, not a brace expansion.
    const before = units[open - 1];
    if (before !== undefined && before.active && before.text === '$') continue;
    let depth = 0;
    let close = -1;
    const commas: number[] = [];
    for (let j = open + 1; j < units.length; j++) {
      const v = units[j]!;
      if (!v.active) continue;
      if (v.text === '{') depth++;
      else if (v.text === '}') {
        if (depth === 0) {
          close = j;
          break;
        }
        depth--;
      } else if (v.text === ',' && depth === 0) commas.push(j);
    }
    if (close === -1) continue; // an unmatched `{` is literal
    let alternatives: Unit[][] | undefined;
    if (commas.length > 0) {
      alternatives = [];
      let from = open + 1;
      for (const comma of [...commas, close]) {
        alternatives.push(units.slice(from, comma));
        from = comma + 1;
      }
    } else {
      alternatives = sequence(units.slice(open + 1, close));
      if (alternatives === undefined) continue; // `{x}`, `{}`: literal
    }
    const prefix = units.slice(0, open);
    const suffix = units.slice(close + 1);
    const results: Unit[][] = [];
    for (const alt of alternatives) {
      const expanded = expandBraces([...alt, ...suffix], budget);
      if (expanded === undefined) return undefined;
      for (const e of expanded) {
        if (--budget.left < 0) return undefined;
        results.push([...prefix, ...e]);
      }
    }
    return results;
  }
  return [units.slice()];
}

/** `{1..5}`, `{a..e}`, `{01..10..2}` → the alternatives; undefined when not a sequence. */
function sequence(units: readonly Unit[]): Unit[][] | undefined {
  if (units.some((u) => !u.active)) return undefined;
  const m = /^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?$/.exec(units.map((u) => u.text).join(''));
  if (m === null) return undefined;
  const [, a, b, stepText] = m;
  const numeric = /\d/.test(a!) && /\d/.test(b!);
  if (!numeric && (/\d/.test(a!) || /\d/.test(b!))) return undefined;
  const from = numeric ? Number(a) : a!.charCodeAt(0);
  const to = numeric ? Number(b) : b!.charCodeAt(0);
  const step = Math.abs(Number(stepText ?? 1)) || 1;
  const count = Math.floor(Math.abs(to - from) / step) + 1;
  if (count > MAX_BRACE_WORDS) return [[{ text: `{${a}..${b}}`, active: false, dynamic: true }]];
  const width =
    numeric && (/^-?0\d/.test(a!) || /^-?0\d/.test(b!))
      ? Math.max(a!.replace('-', '').length, b!.replace('-', '').length)
      : 0;
  const out: Unit[][] = [];
  for (let i = 0, v = from; i < count; i++, v += from <= to ? step : -step) {
    const text = numeric ? (v < 0 ? '-' : '') + String(Math.abs(v)).padStart(width, '0') : String.fromCharCode(v);
    out.push([...text].map((c) => ({ text: c, active: true, dynamic: false })));
  }
  return out;
}
