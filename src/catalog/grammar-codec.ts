/**
 * The grammar table's on-disk form: one compact JSON text per program, short keys, defaults left out (the
 * table holds a few hundred thousand options; long keys would double it). Decoding validates every field
 * it reads: a damaged or foreign text decodes to undefined, never to a partial grammar (a half-read tree
 * would claim to know a program whose words it lost).
 */
import type { GrammarArg, GrammarNode, GrammarOption, GrammarTemplate } from './grammar.js';

/** Bump when the encoding changes: a table of another format is not read. */
export const GRAMMAR_FORMAT = 1;

/**
 * The table is two files: GRAMMAR_FILE, one JSON text per line (a program's grammar, or a large program's
 * top-level subcommand), and INDEX_FILE, a header line, then `program \t offset \t length \t checksum \t
 * origin \t entry` per program, sorted. Two files, not one per program: thousands of small files cost more
 * to write, install and delete than the bytes they hold, and a lookup reads one slice either way.
 */
export const INDEX_FILE = 'index.tsv';
export const GRAMMAR_FILE = 'grammar.jsonl';
export const FIG_LICENCE_FILE = 'LICENSE-fig.txt';
const INDEX_MAGIC = 'hookwise-grammar';

/** Where one text lies in GRAMMAR_FILE (bytes) and the XXH64 of those bytes. */
export type TextRef = [offset: number, length: number, checksum: string];

const CHECKSUM = /^[0-9a-f]{16}$/;

/** A well-formed TextRef, or undefined. */
export function textRef(v: unknown): TextRef | undefined {
  if (!Array.isArray(v) || v.length !== 3) return undefined;
  const [offset, length, checksum] = v as unknown[];
  if (!Number.isSafeInteger(offset) || (offset as number) < 0) return undefined;
  if (!Number.isSafeInteger(length) || (length as number) <= 0) return undefined;
  if (typeof checksum !== 'string' || !CHECKSUM.test(checksum)) return undefined;
  return [offset as number, length as number, checksum];
}

/** Where a program's grammar came from: Fig's spec, our entry, or ours laid over Fig's. */
export const GRAMMAR_ORIGINS = ['fig', 'hookwise', 'both'] as const;
export type GrammarOrigin = (typeof GRAMMAR_ORIGINS)[number];

export interface IndexRow {
  program: string;
  text: TextRef;
  origin: GrammarOrigin;
  /** Our entry file, when we have one. */
  entry?: string;
}

export function indexHeader(figRef: string, checksum: string): string {
  return [INDEX_MAGIC, String(GRAMMAR_FORMAT), figRef, checksum].join('\t');
}

export function indexRow(row: IndexRow): string {
  return [row.program, ...row.text, row.origin, row.entry ?? '-'].join('\t');
}

/** The Fig reference of an index of this format, or undefined for anything else. */
export function parseIndexHeader(line: string): { figRef: string } | undefined {
  const [magic, format, figRef, checksum] = line.split('\t');
  if (magic !== INDEX_MAGIC || format !== String(GRAMMAR_FORMAT) || !figRef || !CHECKSUM.test(checksum ?? ''))
    return undefined;
  return { figRef };
}

/** A row's fields, or undefined when the line is not a well-formed row. */
export function parseIndexRow(line: string): IndexRow | undefined {
  const [program, offset, length, checksum, origin, entry, extra] = line.split('\t');
  const text = textRef([Number(offset), Number(length), checksum]);
  if (!program || !text || extra !== undefined || !entry) return undefined;
  if (!GRAMMAR_ORIGINS.includes(origin as GrammarOrigin)) return undefined;
  return { program, text, origin: origin as GrammarOrigin, ...(entry === '-' ? {} : { entry }) };
}

/** The table's order of options and subcommands: by first spelling, then all spellings (same input, same bytes). */
export function byNames(a: { names: string[] }, b: { names: string[] }): number {
  const ka = a.names.join('\u0000');
  const kb = b.names.join('\u0000');
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

const TEMPLATES: readonly GrammarTemplate[] = ['filepaths', 'folders', 'history', 'help'];

interface WireOption {
  n: string[];
  v?: 1; // takesValue
  vo?: 1; // valueOptional
  eq?: 1; // requiresEquals
  sep?: string;
  vc?: number;
  vt?: string[]; // valueTerminators
  t?: GrammarTemplate;
  vs?: string[];
  p?: 1; // persistent
  r?: 1; // repeatable
}
interface WireArg {
  n?: string;
  t?: GrammarTemplate;
  va?: 1; // variadic
  op?: 1; // optional
  cmd?: 1; // isCommand
  scr?: 1; // isScript
  vs?: string[];
}
interface WireNode {
  n: string[];
  x?: TextRef; // the rest of this node is its own text in the table
  o?: WireOption[];
  s?: WireNode[];
  a?: WireArg[];
  ob?: 1; // optionsBeforeArgs
  nc?: 1; // noClusters
}

function encodeOption(o: GrammarOption): WireOption {
  const w: WireOption = { n: o.names };
  if (o.takesValue) w.v = 1;
  if (o.valueOptional) w.vo = 1;
  if (o.requiresEquals) w.eq = 1;
  if (o.separator !== undefined) w.sep = o.separator;
  if (o.valueCount !== undefined) w.vc = o.valueCount;
  if (o.valueTerminators !== undefined) w.vt = o.valueTerminators;
  if (o.template !== undefined) w.t = o.template;
  if (o.values !== undefined && o.values.length > 0) w.vs = o.values;
  if (o.persistent) w.p = 1;
  if (o.repeatable) w.r = 1;
  return w;
}

function encodeArg(a: GrammarArg): WireArg {
  const w: WireArg = {};
  if (a.name !== undefined) w.n = a.name;
  if (a.template !== undefined) w.t = a.template;
  if (a.variadic) w.va = 1;
  if (a.optional) w.op = 1;
  if (a.isCommand) w.cmd = 1;
  if (a.isScript) w.scr = 1;
  if (a.values !== undefined && a.values.length > 0) w.vs = a.values;
  return w;
}

/** Puts a subcommand's text into the table on its own and says where. */
export type DeferSubcommand = (sub: GrammarNode, text: string) => TextRef;

function encodeNode(n: GrammarNode, defer?: DeferSubcommand): WireNode {
  const w: WireNode = { n: n.names };
  if (n.options.length > 0) w.o = n.options.map(encodeOption);
  if (n.subcommands.length > 0)
    w.s = n.subcommands.map((sub) => (defer ? { n: sub.names, x: defer(sub, encodeGrammar(sub)) } : encodeNode(sub)));
  if (n.args.length > 0) w.a = n.args.map(encodeArg);
  if (n.optionsBeforeArgs) w.ob = 1;
  if (n.noClusters) w.nc = 1;
  return w;
}

/**
 * The table text of one program's grammar. With `defer`, each subcommand of the top node goes into a file
 * of its own (a program as large as aws would otherwise cost a parse of megabytes for one call).
 */
export function encodeGrammar(node: GrammarNode, defer?: DeferSubcommand): string {
  return JSON.stringify(encodeNode(node, defer));
}

/** Thrown inside decoding only; decodeGrammar turns it into undefined. */
class Damaged extends Error {}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Damaged();
  return v as Obj;
};
const strings = (v: unknown, allowEmpty = false): string[] => {
  if (!Array.isArray(v) || (!allowEmpty && v.length === 0)) throw new Damaged();
  for (const s of v) if (typeof s !== 'string' || s.length === 0) throw new Damaged();
  return v as string[];
};
const list = (v: unknown): unknown[] => {
  if (v === undefined) return [];
  if (!Array.isArray(v)) throw new Damaged();
  return v;
};
const flag = (v: unknown): boolean => {
  if (v === undefined) return false;
  if (v !== 1) throw new Damaged();
  return true;
};
const template = (v: unknown): GrammarTemplate | undefined => {
  if (v === undefined) return undefined;
  if (!TEMPLATES.includes(v as GrammarTemplate)) throw new Damaged();
  return v as GrammarTemplate;
};

function decodeOption(v: unknown): GrammarOption {
  const w = obj(v);
  const o: GrammarOption = { names: strings(w.n), takesValue: flag(w.v) };
  if (flag(w.vo)) o.valueOptional = true;
  if (flag(w.eq)) o.requiresEquals = true;
  if (w.sep !== undefined) {
    if (typeof w.sep !== 'string' || w.sep.length === 0) throw new Damaged();
    o.separator = w.sep;
  }
  if (w.vc !== undefined) {
    if (!Number.isInteger(w.vc) || (w.vc as number) < 2) throw new Damaged();
    o.valueCount = w.vc as number;
  }
  if (w.vt !== undefined) o.valueTerminators = strings(w.vt);
  const t = template(w.t);
  if (t) o.template = t;
  if (w.vs !== undefined) o.values = strings(w.vs);
  if (flag(w.p)) o.persistent = true;
  if (flag(w.r)) o.repeatable = true;
  return o;
}

function decodeArg(v: unknown): GrammarArg {
  const w = obj(v);
  const a: GrammarArg = {};
  if (w.n !== undefined) {
    if (typeof w.n !== 'string') throw new Damaged();
    a.name = w.n;
  }
  const t = template(w.t);
  if (t) a.template = t;
  if (flag(w.va)) a.variadic = true;
  if (flag(w.op)) a.optional = true;
  if (flag(w.cmd)) a.isCommand = true;
  if (flag(w.scr)) a.isScript = true;
  if (w.vs !== undefined) a.values = strings(w.vs);
  return a;
}

// Bounds the recursion on a damaged text; no real spec is a tenth as deep.
const MAX_DECODE_DEPTH = 64;

/** Reads a deferred subcommand's file (checked against its checksum); undefined when it cannot. */
export type ResolveDeferred = (ref: TextRef) => GrammarNode | undefined;

const EMPTY_NODE = (names: string[]): GrammarNode => ({ names, options: [], subcommands: [], args: [] });

/**
 * A subcommand whose body is read on first use. A body that cannot be read is an empty node: no option,
 * subcommand or operand of it is known, so nothing under it is accounted for (closed world), and the rest
 * of the program still is.
 */
function deferredNode(names: string[], ref: TextRef, resolve: ResolveDeferred): GrammarNode {
  let body: GrammarNode | undefined;
  const get = (): GrammarNode => (body ??= resolve(ref) ?? EMPTY_NODE(names));
  const node = { names } as GrammarNode;
  for (const key of ['options', 'subcommands', 'args', 'optionsBeforeArgs', 'noClusters'] as const)
    Object.defineProperty(node, key, { enumerable: true, get: () => get()[key] });
  return node;
}

function decodeNode(v: unknown, depth: number, resolve?: ResolveDeferred): GrammarNode {
  if (depth > MAX_DECODE_DEPTH) throw new Damaged();
  const w = obj(v);
  if (w.x !== undefined) {
    const ref = textRef(w.x);
    if (!resolve || depth !== 1 || !ref) throw new Damaged();
    return deferredNode(strings(w.n), ref, resolve);
  }
  const n: GrammarNode = {
    names: strings(w.n),
    options: list(w.o).map(decodeOption),
    subcommands: list(w.s).map((s) => decodeNode(s, depth + 1, resolve)),
    args: list(w.a).map(decodeArg),
  };
  if (flag(w.ob)) n.optionsBeforeArgs = true;
  if (flag(w.nc)) n.noClusters = true;
  return n;
}

/**
 * The grammar a table text holds, or undefined when the text is not a well-formed grammar. `resolve` reads
 * the files of deferred subcommands (a text that defers and gets no resolver is not well-formed).
 */
export function decodeGrammar(text: string, resolve?: ResolveDeferred): GrammarNode | undefined {
  try {
    return decodeNode(JSON.parse(text), 0, resolve);
  } catch (error) {
    if (error instanceof Damaged || error instanceof SyntaxError) return undefined;
    throw error;
  }
}
