/**
 * The grammar table at run time: a program's GrammarNode by name, read from dist/catalog-grammar/ (built by
 * scripts/catalog/build-grammar.ts) on first use. Nothing is read until a lookup; a lookup reads the small
 * index once per process (searched as text, not parsed) and then only its own program's text (and, for a
 * large program, only the subcommands' texts it touches), each one slice of grammar.jsonl checked against
 * its XXH64 before it is parsed.
 *
 * Fails closed: a missing, damaged or foreign table, or a text whose checksum does not match, is *no
 * grammar* (the program is unknown, which nothing allows on knowledge), with a problem that names the file.
 * The program name is only ever searched for in the index; what is read is where the index says.
 */
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../util/package-root.js';
import { xxh64BytesHex } from '../util/xxhash.js';
import {
  GRAMMAR_FILE,
  INDEX_FILE,
  decodeGrammar,
  parseIndexHeader,
  parseIndexRow,
  type TextRef,
} from './grammar-codec.js';
import type { GrammarNode, GrammarSource } from './grammar.js';

export interface GrammarLookup {
  /** Undefined: no grammar for this program (unknown program, or a table that cannot be trusted). */
  node?: GrammarNode;
  /** Where the grammar came from: Fig (package and version), our entry file, or both. */
  sources: GrammarSource[];
  /** Why there is no grammar when the table, not the program, is the reason. */
  problem?: string;
}

// Program names come from the agent's command: one with a line break or tab could match across rows.
// eslint-disable-next-line no-control-regex
const NOT_A_NAME = /[\u0000-\u001f\u007f]/;

interface LoadedIndex {
  figRef: string;
  /** The index's rows, each after a line break. */
  text: string;
}

/** One table folder; lookups are cached for the life of the reader (the table never changes under it). */
export class GrammarTableReader {
  private index: LoadedIndex | { problem: string } | undefined;
  private readonly cache = new Map<string, GrammarLookup>();

  constructor(readonly dir: string) {}

  lookup(program: string): GrammarLookup {
    const cached = this.cache.get(program);
    if (cached) return cached;
    const found = this.read(program);
    // Unknown names are not cached: an agent can make up any number of them.
    if (found.node || found.problem) this.cache.set(program, found);
    return found;
  }

  /** Every program the table has a grammar for (build time: the catalogue's version forms). */
  programs(): string[] {
    const index = this.loadIndex();
    if ('problem' in index) return [];
    return index.text
      .split('\n')
      .map((line) => parseIndexRow(line)?.program)
      .filter((name): name is string => name !== undefined);
  }

  /** The index is read once and searched as text: parsing 700 rows would cost more than a lookup. */
  private loadIndex(): LoadedIndex | { problem: string } {
    if (this.index) return this.index;
    const path = join(this.dir, INDEX_FILE);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      return (this.index = { problem: `grammar table missing: cannot read ${path} (${(error as Error).message})` });
    }
    const headerEnd = text.indexOf('\n');
    const header = headerEnd < 0 ? undefined : parseIndexHeader(text.slice(0, headerEnd));
    if (!header) return (this.index = { problem: `grammar table damaged or of another format: ${path}` });
    // The rows only (from the header's line break on): a name can never match the header.
    return (this.index = { figRef: header.figRef, text: text.slice(headerEnd) });
  }

  /** One text of grammar.jsonl, or undefined when it cannot be read whole or its bytes are not the ones named. */
  private readText([offset, length, checksum]: TextRef): string | undefined {
    const bytes = Buffer.alloc(length);
    let fd: number | undefined;
    try {
      fd = openSync(join(this.dir, GRAMMAR_FILE), 'r');
      if (readSync(fd, bytes, 0, length, offset) !== length) return undefined;
    } catch {
      return undefined;
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
    return xxh64BytesHex(bytes) === checksum ? bytes.toString('utf8') : undefined;
  }

  private read(program: string): GrammarLookup {
    if (program.length === 0 || NOT_A_NAME.test(program)) return { sources: [] };
    const index = this.loadIndex();
    if ('problem' in index) return { sources: [], problem: index.problem };
    const at = index.text.indexOf(`\n${program}\t`);
    if (at < 0) return { sources: [] };
    const end = index.text.indexOf('\n', at + 1);
    const row = parseIndexRow(index.text.slice(at + 1, end < 0 ? undefined : end));
    if (!row || row.program !== program)
      return { sources: [], problem: `grammar table damaged: the row of ${program} in ${join(this.dir, INDEX_FILE)}` };
    const path = join(this.dir, GRAMMAR_FILE);
    const text = this.readText(row.text);
    if (text === undefined)
      return { sources: [], problem: `grammar table damaged: ${program}'s text in ${path} is missing or altered` };
    const node = decodeGrammar(text, (ref) => {
      const sub = this.readText(ref);
      return sub === undefined ? undefined : decodeGrammar(sub);
    });
    if (!node) return { sources: [], problem: `grammar table damaged: ${program}'s text in ${path} is not a grammar` };
    const sources: GrammarSource[] = [];
    if (row.origin !== 'hookwise') sources.push({ origin: 'fig', ref: index.figRef });
    if (row.entry !== undefined) sources.push({ origin: 'hookwise', ref: row.entry });
    return { node, sources };
  }
}

let installed: GrammarTableReader | undefined;

function installedTable(): GrammarTableReader {
  return (installed ??= new GrammarTableReader(join(packageRoot(), 'dist', 'catalog-grammar')));
}

/** The program's grammar from the installed table (dist/catalog-grammar/ of this package). */
export function lookupGrammar(program: string): GrammarLookup {
  return installedTable().lookup(program);
}

/** Every program of the installed table. */
export function grammarPrograms(): string[] {
  return installedTable().programs();
}
