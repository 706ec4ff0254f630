/**
 * The grammar table at run time: a program's GrammarNode by name, read from dist/catalog-grammar/ (built by
 * scripts/catalog/build-grammar.ts) on first use. Nothing is read until a lookup; a lookup reads the small
 * index once per process (searched as text, not parsed) and then only its own program's file (and, for a
 * large program, only the subcommand files it touches), each checked against its XXH64 before it is parsed.
 *
 * Fails closed: a missing, damaged or foreign table, or a file whose checksum does not match, is *no
 * grammar* (the program is unknown, which nothing allows on knowledge), with a problem that names the file.
 * The program name is looked up in the index before anything else; a file is read only for a name the
 * index lists, under a file name that cannot be a path (grammarFileName).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../util/package-root.js';
import { xxh64BytesHex } from '../util/xxhash.js';
import { INDEX_FILE, decodeGrammar, grammarFileName, parseIndexHeader, parseIndexRow } from './grammar-codec.js';
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
const CHECKSUM = /^[0-9a-f]{16}$/;

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

  /** A table file's text, or undefined when it is missing or its bytes are not the ones the table names. */
  private readChecked(file: string, checksum: string): string | undefined {
    if (file.includes('/') || !file.endsWith('.json') || !CHECKSUM.test(checksum)) return undefined;
    let bytes: Buffer;
    try {
      bytes = readFileSync(join(this.dir, file));
    } catch {
      return undefined;
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
    const file = grammarFileName(program);
    const path = join(this.dir, file);
    const text = this.readChecked(file, row.checksum);
    if (text === undefined) return { sources: [], problem: `grammar table damaged: ${path} is missing or altered` };
    const node = decodeGrammar(text, (subFile, checksum) => {
      const sub = this.readChecked(subFile, checksum);
      return sub === undefined ? undefined : decodeGrammar(sub);
    });
    if (!node) return { sources: [], problem: `grammar table damaged: ${path} is not a grammar` };
    const sources: GrammarSource[] = [];
    if (row.origin !== 'hookwise') sources.push({ origin: 'fig', ref: index.figRef });
    if (row.entry !== undefined) sources.push({ origin: 'hookwise', ref: row.entry });
    return { node, sources };
  }
}

let installed: GrammarTableReader | undefined;

/** The program's grammar from the installed table (dist/catalog-grammar/ of this package). */
export function lookupGrammar(program: string): GrammarLookup {
  installed ??= new GrammarTableReader(join(packageRoot(), 'dist', 'catalog-grammar'));
  return installed.lookup(program);
}
