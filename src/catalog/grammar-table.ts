/**
 * The grammar table at run time: a program's GrammarNode by name, read from dist/catalog-grammar/ (built by
 * scripts/catalog/build-grammar.ts) on first use. Nothing is read until a lookup; a lookup reads the small
 * index once per process and then only its own program's file (and, for programs as large as aws, only the
 * subcommand files it touches), each checked against its XXH64 before it is parsed.
 *
 * Fails closed: a missing, damaged or foreign table, or a file whose checksum does not match, is *no
 * grammar* (the program is unknown, which nothing allows on knowledge), with a problem that names the file.
 * The program name is only ever a key into the index, never part of a path.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../util/package-root.js';
import { xxh64BytesHex } from '../util/xxhash.js';
import { GRAMMAR_FORMAT, decodeGrammar } from './grammar-codec.js';
import type { GrammarNode, GrammarSource } from './grammar.js';

export interface GrammarLookup {
  /** Undefined: no grammar for this program (unknown program, or a table that cannot be trusted). */
  node?: GrammarNode;
  /** Where the grammar came from: Fig (package and version), our entry file, or both. */
  sources: GrammarSource[];
  /** Why there is no grammar when the table, not the program, is the reason. */
  problem?: string;
}

const FILE_NAME = /^[A-Za-z0-9._+~-]+\.json$/;
const CHECKSUM = /^[0-9a-f]{16}$/;

interface Row {
  file: string;
  checksum: string;
  origin: 'fig' | 'hookwise' | 'both';
  entry?: string;
}

interface LoadedIndex {
  figRef: string;
  rows: Record<string, unknown>;
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

  private loadIndex(): LoadedIndex | { problem: string } {
    if (this.index) return this.index;
    const path = join(this.dir, 'index.json');
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      return (this.index = { problem: `grammar table missing: cannot read ${path} (${(error as Error).message})` });
    }
    try {
      const parsed = JSON.parse(text) as Record<string, unknown>;
      const fig = parsed.fig as Record<string, unknown> | undefined;
      const rows = parsed.programs;
      if (parsed.format !== GRAMMAR_FORMAT || typeof rows !== 'object' || rows === null || Array.isArray(rows))
        return (this.index = { problem: `grammar table damaged or of another format: ${path}` });
      const figRef = `${String(fig?.package)}@${String(fig?.version)}`;
      return (this.index = { figRef, rows: rows as Record<string, unknown> });
    } catch {
      return (this.index = { problem: `grammar table damaged: ${path} is not JSON` });
    }
  }

  private row(index: LoadedIndex, program: string): Row | 'absent' | 'damaged' {
    if (!Object.hasOwn(index.rows, program)) return 'absent';
    const r = index.rows[program];
    if (!Array.isArray(r) || r.length < 3) return 'damaged';
    const [file, checksum, origin, entry] = r as unknown[];
    if (typeof file !== 'string' || !FILE_NAME.test(file)) return 'damaged';
    if (typeof checksum !== 'string' || !CHECKSUM.test(checksum)) return 'damaged';
    if (origin !== 'fig' && origin !== 'hookwise' && origin !== 'both') return 'damaged';
    if (entry !== undefined && typeof entry !== 'string') return 'damaged';
    return { file, checksum, origin, ...(entry === undefined ? {} : { entry }) };
  }

  /** A table file's text, or undefined when it is missing or its bytes are not the ones the table names. */
  private readChecked(file: string, checksum: string): string | undefined {
    if (!FILE_NAME.test(file) || !CHECKSUM.test(checksum)) return undefined;
    let bytes: Buffer;
    try {
      bytes = readFileSync(join(this.dir, file));
    } catch {
      return undefined;
    }
    return xxh64BytesHex(bytes) === checksum ? bytes.toString('utf8') : undefined;
  }

  private read(program: string): GrammarLookup {
    const index = this.loadIndex();
    if ('problem' in index) return { sources: [], problem: index.problem };
    const row = this.row(index, program);
    if (row === 'absent') return { sources: [] };
    if (row === 'damaged')
      return {
        sources: [],
        problem: `grammar table damaged: the row of ${program} in ${join(this.dir, 'index.json')}`,
      };
    const path = join(this.dir, row.file);
    const text = this.readChecked(row.file, row.checksum);
    if (text === undefined) return { sources: [], problem: `grammar table damaged: ${path} is missing or altered` };
    const node = decodeGrammar(text, (file, checksum) => {
      const sub = this.readChecked(file, checksum);
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
