/**
 * The grammar table, built from its two sources (build time only; scripts/catalog/build-grammar.ts writes
 * what this returns into dist/catalog-grammar/). Pure apart from the injected Fig module loader, so tests
 * build tables from fixture specs and compare bytes. The layout (grammar-codec.ts):
 *
 *   index.tsv         a header (format, Fig's package@version, a checksum over the rows), then one row per
 *                     program, sorted: name, where its text lies in grammar.jsonl, its XXH64, origin
 *                     (fig | hookwise | both), our entry file
 *   grammar.jsonl     one grammar per line; a large program's top-level subcommands on lines of their own
 *   LICENSE-fig.txt   Fig's MIT notice, which travels with the data derived from its specs
 *   report.json       what the import skipped and why, and the counts docs/catalogue.md quotes
 */
import { xxh64BytesHex } from '../util/xxhash.js';
import {
  FIG_IMPORT_LIMITS,
  importFigProgram,
  type FigImportLimits,
  type FigModuleLoader,
  type SkipNote,
} from './fig-import.js';
import {
  FIG_LICENCE_FILE,
  GRAMMAR_FILE,
  INDEX_FILE,
  encodeGrammar,
  indexHeader,
  indexRow,
  type GrammarOrigin,
  type TextRef,
} from './grammar-codec.js';
import { mergeGrammar, parseHandEntry } from './grammar-hand.js';
import type { GrammarNode } from './grammar.js';

export interface GrammarTableInput {
  fig: {
    version: string;
    /** Fig's LICENSE text: MIT asks that the notice travel with the data we ship. */
    licence: string;
    /** Every module path of the package (build/dynamic/index.js's keys). */
    modules: string[];
    load: FigModuleLoader;
  };
  /** Our entry files, path (for messages and the index) and text. */
  hand: { file: string; text: string }[];
  limits?: FigImportLimits;
}

const FIG_PACKAGE = '@withfig/autocomplete';

export interface GrammarReport {
  figVersion: string;
  /** hookwise: ours only (replacedFig of them replace a Fig spec of the same name); both: ours over Fig's. */
  programs: { total: number; fig: number; hookwise: number; both: number; replacedFig: number };
  subcommands: number;
  options: number;
  bytes: number;
  skipped: Record<string, number>;
  notes: SkipNote[];
}

export interface GrammarTable {
  /** File name → text, sorted by name; the index, Fig's licence and report.json included. */
  files: Map<string, string>;
  report: GrammarReport;
  /** Problems in our entry files: the build fails on any. */
  errors: string[];
}

/**
 * The program names among Fig's module paths: plain names (`git`), versioned programs (`az/index` → az) and
 * npm-scoped ones (`@withfig/autocomplete-tools`); `aws/s3` and `az/2.53.0` are parts of another program.
 */
export function figPrograms(modules: string[]): string[] {
  const out = new Set<string>();
  for (const m of modules) {
    const path = m.endsWith('/index') ? m.slice(0, -'/index'.length) : m;
    const parts = path.split('/');
    if (parts.length === 1 || (parts.length === 2 && parts[0]!.startsWith('@'))) {
      if (!m.endsWith('/index') && modules.includes(`${m}/index`)) continue;
      out.add(path);
    }
  }
  return [...out].sort();
}

/**
 * A program whose text is larger than this has each top-level subcommand as a text of its own: a lookup of
 * git then parses its top node and the verbs it meets (a few kilobytes each), not 80 KB, and aws one service,
 * not 4 MB. JSON.parse costs ≈ 5–10 µs per kilobyte here, paid by every `hookwise check`.
 */
export const SPLIT_BYTES = 16 * 1024;

const checksumOf = (text: string): string => xxh64BytesHex(Buffer.from(text, 'utf8'));

function count(node: GrammarNode, totals: { subcommands: number; options: number }): void {
  totals.options += node.options.length;
  for (const s of node.subcommands) {
    totals.subcommands++;
    count(s, totals);
  }
}

export async function buildGrammarTable(input: GrammarTableInput): Promise<GrammarTable> {
  const errors: string[] = [];
  const notes: SkipNote[] = [];
  const grammars = new Map<string, { node: GrammarNode; origin: GrammarOrigin; entry?: string }>();

  for (const program of figPrograms(input.fig.modules)) {
    const result = await importFigProgram(program, input.fig.load, input.limits ?? FIG_IMPORT_LIMITS);
    notes.push(...result.notes);
    if (result.node) grammars.set(program, { node: result.node, origin: 'fig' });
  }

  const seen = new Map<string, string>();
  let replacedFig = 0;
  for (const { file, text } of input.hand) {
    const entry = parseHandEntry(file, text, errors);
    if (!entry) continue;
    const earlier = seen.get(entry.program);
    if (earlier !== undefined) {
      errors.push(`${file}: program ${entry.program} already has an entry in ${earlier}`);
      continue;
    }
    seen.set(entry.program, file);
    const fig = grammars.get(entry.program);
    if (fig !== undefined && entry.merge === 'replace') replacedFig++;
    grammars.set(entry.program, {
      node: mergeGrammar(fig?.node, entry),
      origin: fig === undefined ? 'hookwise' : entry.merge === 'replace' ? 'hookwise' : 'both',
      entry: file,
    });
  }

  const files = new Map<string, string>();
  const lines: string[] = [];
  let offset = 0;
  /** Appends one text as a line of grammar.jsonl; offsets and lengths count bytes. */
  const append = (text: string): TextRef => {
    const length = Buffer.byteLength(text);
    const ref: TextRef = [offset, length, checksumOf(text)];
    lines.push(text);
    offset += length + 1;
    return ref;
  };
  const rows: string[] = [];
  const totals = { subcommands: 0, options: 0 };
  const byOrigin = { fig: 0, hookwise: 0, both: 0 };
  for (const program of [...grammars.keys()].sort()) {
    const { node, origin, entry } = grammars.get(program)!;
    let text = encodeGrammar(node);
    // A large program's subcommands go first, so that its top node can say where each one is.
    if (Buffer.byteLength(text) > SPLIT_BYTES) text = encodeGrammar(node, (_sub, subText) => append(subText));
    rows.push(indexRow({ program, text: append(text), origin, ...(entry === undefined ? {} : { entry }) }));
    count(node, totals);
    byOrigin[origin]++;
  }
  const grammarText = lines.map((line) => `${line}\n`).join('');
  const body = rows.join('\n');
  const indexText = `${indexHeader(`${FIG_PACKAGE}@${input.fig.version}`, checksumOf(body))}\n${body}\n`;
  files.set(GRAMMAR_FILE, grammarText);
  files.set(INDEX_FILE, indexText);
  files.set(FIG_LICENCE_FILE, input.fig.licence);
  const bytes = Buffer.byteLength(grammarText) + Buffer.byteLength(indexText) + Buffer.byteLength(input.fig.licence);

  const skipped: Record<string, number> = {};
  for (const n of notes) skipped[n.kind] = (skipped[n.kind] ?? 0) + 1;
  const report: GrammarReport = {
    figVersion: input.fig.version,
    programs: { total: grammars.size, ...byOrigin, replacedFig },
    ...totals,
    bytes,
    skipped,
    notes,
  };
  files.set('report.json', JSON.stringify(report, null, 1));
  return { files: new Map([...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))), report, errors };
}
