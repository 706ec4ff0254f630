/**
 * The catalogue's sources: the entry files (src/catalog/programs/<program>.yml) and any imported grammar
 * (JSON files of GrammarNode[], such as the Fig importer's output), read and compiled. Build time and tests
 * only: the hot path loads the compiled table (table.ts) and never this module or its YAML parser.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { compileCatalog, versionFormsText, versionSpellings, type CatalogTable, type EntryProblem } from './compile.js';
import type { GrammarNode } from './grammar.js';
import { grammarPrograms, lookupGrammar, type GrammarLookup } from './grammar-table.js';
import { packageRoot } from '../util/package-root.js';

export interface CatalogSources {
  /** The folder of entry files. */
  entries: string;
  /** JSON files, each a list of GrammarNode (an imported grammar), merged under the entries by name. */
  grammars: string[];
  /**
   * The grammar table (dist/catalog-grammar/, built before the catalogue): an entry saying `grammar: table`
   * annotates its program's grammar from there instead of repeating it.
   */
  table?: (program: string) => GrammarLookup;
  /** Every program of the grammar table: their `--version` / `--help` options become version forms. */
  tablePrograms?: () => string[];
}

export function defaultSources(root: string = packageRoot()): CatalogSources {
  const imported = join(root, 'src', 'catalog', 'imported');
  return {
    entries: join(root, 'src', 'catalog', 'programs'),
    grammars: existsSync(imported)
      ? readdirSync(imported)
          .filter((f) => f.endsWith('.json'))
          .sort()
          .map((f) => join(imported, f))
      : [],
    table: lookupGrammar,
    tablePrograms: grammarPrograms,
  };
}

/** Every entry file, in name order, parsed; YAML errors become problems with the file and line. */
export function readEntries(dir: string): { entries: { file: string; data: unknown }[]; problems: EntryProblem[] } {
  const entries: { file: string; data: unknown }[] = [];
  const problems: EntryProblem[] = [];
  for (const name of readdirSync(dir).sort()) {
    if (!name.endsWith('.yml')) continue;
    const file = join(dir, name);
    try {
      entries.push({ file: name, data: parse(readFileSync(file, 'utf8'), { uniqueKeys: true }) });
    } catch (error) {
      const line = (error as { linePos?: { line: number }[] }).linePos?.[0]?.line;
      problems.push({
        file: name,
        at: line === undefined ? '' : `line ${line}`,
        problem: (error as Error).message.split('\n')[0]!,
      });
    }
  }
  return { entries, problems };
}

export function compileSources(sources: CatalogSources = defaultSources()): {
  table: CatalogTable;
  problems: EntryProblem[];
} {
  const { entries, problems } = readEntries(sources.entries);
  const grammars: { node: GrammarNode; ref: string }[] = [];
  for (const file of sources.grammars) {
    const nodes = JSON.parse(readFileSync(file, 'utf8')) as GrammarNode[];
    for (const node of nodes) grammars.push({ node, ref: file.slice(file.lastIndexOf('/') + 1) });
  }
  const tableProblems: EntryProblem[] = [];
  for (const { file, data } of entries) {
    const wanted = tableGrammarOf(data);
    if (wanted === undefined) continue;
    const found = sources.table?.(wanted);
    if (found?.node === undefined) {
      // An entry written over the table's grammar lists only its annotations: without the grammar it would
      // compile to a narrower program than reviewed, so the build stops instead.
      tableProblems.push({
        file,
        at: 'grammar',
        problem: `the grammar table has no grammar for ${wanted}${found?.problem === undefined ? '' : ` (${found.problem})`}`,
      });
      continue;
    }
    grammars.unshift({
      node: onlyAnnotated(found.node, data),
      ref: `grammar table: ${found.sources.map((g) => g.ref).join(' + ')}`,
    });
  }
  const forms = new Map<string, string[]>();
  for (const name of sources.tablePrograms?.() ?? []) {
    const node = sources.table?.(name).node;
    if (node !== undefined) forms.set(name, versionSpellings(node));
  }
  const compiled = compileCatalog(entries, grammars, versionFormsText(forms));
  return { table: compiled.table, problems: [...problems, ...tableProblems, ...compiled.problems] };
}

/**
 * The table's grammar cut to what the entry annotates: a subcommand the entry does not name keeps only its
 * names (still known, of unknown effect, so nothing under it is allowed), without its options. git's whole
 * grammar would triple git's entry, which a process reads on its first git call (dist/catalog/).
 */
function onlyAnnotated(node: GrammarNode, entry: unknown): GrammarNode {
  const commands = (entry as Record<string, unknown>)['commands'];
  const annotated = new Map<string, unknown>();
  if (typeof commands === 'object' && commands !== null)
    for (const [key, value] of Object.entries(commands))
      for (const name of key.split(/\s+/)) annotated.set(name, value);
  return {
    ...node,
    subcommands: node.subcommands.map((sub) => {
      const value = sub.names.map((n) => annotated.get(n)).find((v) => v !== undefined);
      return value === undefined
        ? { names: sub.names, options: [], subcommands: [], args: [] }
        : onlyAnnotated(sub, value);
    }),
  };
}

/** The program an entry annotates from the grammar table (`grammar: table`), if it does. */
function tableGrammarOf(data: unknown): string | undefined {
  if (typeof data !== 'object' || data === null || (data as Record<string, unknown>)['grammar'] !== 'table')
    return undefined;
  const program = (data as Record<string, unknown>)['program'];
  const first = Array.isArray(program) ? (program[0] as unknown) : program;
  return typeof first === 'string' ? first : undefined;
}

export { serializeCatalog } from './table-codec.js';
export { xxh64BytesHex } from '../util/xxhash.js';

export function formatProblem(p: EntryProblem): string {
  return `${p.file}${p.at === '' ? '' : ` (${p.at})`}: ${p.problem}`;
}
