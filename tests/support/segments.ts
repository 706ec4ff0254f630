/**
 * Test-only Segment builders. NOT the real parser (src/shell/parse.ts): a whitespace/quote splitter good
 * enough to write `seg('git push -f origin main')` in tables. It removes quotes, marks words with `$`,
 * backticks or glob characters (outside single quotes) as dynamic, peels a few wrappers (sudo, doas,
 * env, VAR=value, timeout N, nohup, nice, time, command without -v) the way the parser contract says
 * they appear, and reads simple redirects (`> f`, `2> f`, `< f`, `<<< text`). Anything subtler (nesting,
 * substitutions as segments, heredocs) is built by hand with `seg(text, overrides)`.
 */
import type { Operator, Redirect, RedirectOp, Segment } from '../../src/shell/types.js';

interface Word {
  text: string;
  dynamic: boolean;
}

function words(text: string): Word[] {
  const out: Word[] = [];
  let current = '';
  let dynamic = false;
  let started = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote !== undefined) {
      if (c === quote) quote = undefined;
      else {
        if (quote === '"' && (c === '$' || c === '`')) dynamic = true;
        current += c;
      }
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      started = true;
      continue;
    }
    // $( … ) and ` … ` stay one word, as the parser keeps them (their commands are separate segments).
    if ((c === '$' && text[i + 1] === '(') || c === '`') {
      const end = c === '`' ? text.indexOf('`', i + 1) : closingParen(text, i + 1);
      if (end === -1) throw new Error(`segments helper: unbalanced substitution in ${JSON.stringify(text)}`);
      current += text.slice(i, end + 1);
      i = end;
      dynamic = true;
      started = true;
      continue;
    }
    if (c === '\\' && i + 1 < text.length) {
      current += text[++i]!;
      started = true;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\n') {
      if (started) out.push({ text: current, dynamic });
      current = '';
      dynamic = false;
      started = false;
      continue;
    }
    if (c === '$' || c === '`' || c === '*' || c === '?' || c === '[') dynamic = true;
    current += c;
    started = true;
  }
  if (quote !== undefined) throw new Error(`segments helper: unbalanced quote in ${JSON.stringify(text)}`);
  if (started) out.push({ text: current, dynamic });
  return out;
}

function closingParen(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')' && --depth === 0) return i;
  }
  return -1;
}

const REDIRECTS: readonly RedirectOp[] = ['>>', '>|', '&>>', '&>', '<<<', '<<-', '<<', '<>', '>&', '<&', '>', '<'];
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

function basename(word: string): string {
  const bare = word.startsWith('\\') ? word.slice(1) : word;
  return bare.slice(bare.lastIndexOf('/') + 1);
}

/** One simple command as the parser would hand it over. */
export function seg(text: string, overrides: Partial<Segment> = {}): Segment {
  const all = words(text);
  const redirects: Redirect[] = [];
  const rest: Word[] = [];
  for (let i = 0; i < all.length; i++) {
    const w = all[i]!;
    const fdMatch = /^(\d*)(.*)$/.exec(w.text)!;
    const op = REDIRECTS.find((r) => fdMatch[2] === r);
    if (op !== undefined && i + 1 < all.length) {
      const target = all[++i]!;
      const r: Redirect = { op, target: target.text, dynamic: target.dynamic };
      if (fdMatch[1] !== '') r.fd = Number(fdMatch[1]);
      redirects.push(r);
    } else rest.push(w);
  }
  const wrappers: string[] = [];
  const assignments: Record<string, string> = {};
  for (;;) {
    const head = rest[0]?.text;
    if (head === undefined) break;
    if (ASSIGNMENT.test(head)) {
      const eq = head.indexOf('=');
      assignments[head.slice(0, eq)] = head.slice(eq + 1);
      rest.shift();
    } else if (
      head === 'sudo' ||
      head === 'doas' ||
      head === 'nohup' ||
      head === 'time' ||
      head === 'nice' ||
      head === 'env'
    ) {
      // A wrapper only when a command follows (a bare `env` or `sudo -l` is the command itself).
      let next = 1;
      while (rest[next] !== undefined && rest[next]!.text.startsWith('-')) next++;
      while (head === 'env' && rest[next] !== undefined && ASSIGNMENT.test(rest[next]!.text)) next++;
      if (rest[next] === undefined) break;
      wrappers.push(head);
      for (const w of rest.splice(0, next).slice(1)) {
        if (ASSIGNMENT.test(w.text))
          assignments[w.text.slice(0, w.text.indexOf('='))] = w.text.slice(w.text.indexOf('=') + 1);
      }
    } else if (head === 'timeout') {
      wrappers.push('timeout');
      rest.splice(0, 2);
    } else if (head === 'command' && rest[1] !== undefined && !rest[1].text.startsWith('-')) {
      wrappers.push('command');
      rest.shift();
    } else break;
  }
  const argv = rest.map((w) => w.text);
  const dynamicArgs = rest.flatMap((w, i) => (w.dynamic ? [i] : []));
  return {
    argv,
    name: argv[0] === undefined ? '' : basename(argv[0]),
    dynamicArgs,
    wrappers,
    assignments,
    redirects,
    context: 'command',
    depth: 0,
    flags: {},
    text,
    ...overrides,
  };
}

const OPERATORS: readonly Operator[] = ['&&', '||', ';', '|&', '|', '&'];

/** A flat compound (`a && b | c; d`): operators must stand alone between spaces. */
export function segs(text: string): Segment[] {
  const out: Segment[] = [];
  let operator: Operator | undefined;
  let current: string[] = [];
  const flush = (next: Operator | undefined): void => {
    if (current.length > 0) {
      const s = seg(current.join(' '));
      if (operator !== undefined) s.operator = operator;
      if (next === '&') s.flags.background = true;
      out.push(s);
    }
    current = [];
    operator = next;
  };
  // Split on operator tokens outside quotes, keeping the quoted words intact.
  let token = '';
  let quote: string | undefined;
  const tokens: string[] = [];
  let parens = 0;
  for (const c of text) {
    if (quote !== undefined) {
      token += c;
      if (c === quote) quote = undefined;
    } else if (c === '(' || c === ')') {
      parens += c === '(' ? 1 : -1;
      token += c;
    } else if (parens > 0) {
      token += c;
    } else if (c === "'" || c === '"' || c === '`') {
      quote = c;
      token += c;
    } else if (c === ' ') {
      if (token !== '') tokens.push(token);
      token = '';
    } else token += c;
  }
  if (token !== '') tokens.push(token);
  for (const t of tokens) {
    const op = OPERATORS.find((o) => o === t);
    if (op !== undefined) flush(op);
    else current.push(t);
  }
  flush(undefined);
  return out;
}
