/**
 * The compiled catalogue, as the hot path reads it: dist/catalog/ (written by scripts/build.mjs from the
 * entries under src/catalog/programs/; layout in table-codec.ts). Nothing is read until a segment is first
 * matched; then the small index once per process (searched as text, not parsed), and only the texts of the
 * programs (and, for a large program, the subcommands) that segments name, each checked against its XXH64
 * before it is parsed. No YAML parser, no extra module. From sources (tests), the table is compiled from the
 * entries by sources.ts and installed with setCatalogTable (tests/support/catalog-setup.ts).
 *
 * Fails closed: a missing, damaged or foreign table, or a text whose checksum does not match, throws
 * CatalogDamaged naming the file; the matcher then knows nothing of the program (match.ts), so nothing is
 * allowed on knowledge and the reason says why.
 */
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { xxh64BytesHex } from '../util/xxhash.js';
import type { CatalogTable, CompiledProgram } from './compile.js';
import {
  CatalogTextDamaged,
  decodeProgram,
  ENTRIES_FILE,
  findRow,
  INDEX_FILE,
  isProgramName,
  parseIndexHeader,
  rowNames,
  type TextRef,
} from './table-codec.js';

/** The catalogue the matcher reads: a program's entry by the name a segment runs it as. */
export interface Catalog {
  /**
   * The program's compiled entry, or undefined when the catalogue has none. Throws CatalogDamaged when the
   * table cannot be trusted (as may a deferred subcommand of the entry, when the matcher walks into it).
   */
  entry(name: string): CompiledProgram | undefined;
  /** CatalogTable.versionForms (throws CatalogDamaged like entry). */
  versionForms(): string | undefined;
  /** Every program name with an entry; none when the table cannot be read. */
  programs(): string[];
  /** Why the table cannot be used, once a read found it damaged; undefined while it can. */
  problem(): string | undefined;
}

/** The table cannot be trusted: the message names the file and what is wrong with it. */
export class CatalogDamaged extends Error {}

/** A catalogue held in memory (tests, and the build's own checks). */
export function memoryCatalog(table: CatalogTable): Catalog {
  return {
    entry(name) {
      return Object.hasOwn(table.programs, name) ? table.entries[table.programs[name]!] : undefined;
    },
    versionForms: () => table.versionForms,
    programs: () => Object.keys(table.programs),
    problem: () => undefined,
  };
}

interface LoadedIndex {
  /** The table's sha256 (a rebuilt table has another). */
  checksum: string;
  /** The rows: the index's text after the header line, each row after a line break. */
  rows: string;
  versionForms?: TextRef;
}

/** The table was rebuilt or reinstalled while this reader used it (a long-lived daemon across a build). */
class CatalogReplaced extends CatalogDamaged {}

const MAX_REMEMBERED_NAMES = 4096;

/**
 * The table in one folder (dist/catalog/); what it has read is kept for the life of the reader. Damage is not
 * remembered: a later call reads again, so a table fixed by a build is used without a restart. A table rebuilt
 * under the reader (its texts no longer where the index it read says, and a new sha256 in the new index) is
 * taken up: the call that finds it out reads it anew, or, in the middle of a match, is not judged on it.
 */
export class CatalogTableReader implements Catalog {
  private index: LoadedIndex | undefined;
  private damaged: string | undefined;
  /** Decoded programs by their text's offset (aliases share one). */
  private readonly decoded = new Map<number, CompiledProgram>();
  /** Names looked up, and what was found (undefined: no entry); a matcher asks several times per segment. */
  private readonly byName = new Map<string, CompiledProgram | undefined>();
  private forms: string | undefined;

  constructor(readonly dir: string) {}

  entry(name: string): CompiledProgram | undefined {
    const known = this.byName.get(name);
    if (known !== undefined || this.byName.has(name)) return known;
    let found: CompiledProgram | undefined;
    try {
      found = this.lookup(name);
    } catch (error) {
      if (!(error instanceof CatalogReplaced)) throw error;
      found = this.lookup(name); // once, from the new table
    }
    // Names without an entry are remembered up to a bound: an agent can make up any number of them.
    if (found !== undefined || this.byName.size < MAX_REMEMBERED_NAMES) this.byName.set(name, found);
    return found;
  }

  private lookup(name: string): CompiledProgram | undefined {
    if (!isProgramName(name)) return undefined;
    const index = this.loadIndex();
    const ref = findRow(index.rows, name);
    if (ref === undefined) return undefined;
    if (ref === 'damaged') return this.fail(`the row of ${name} in ${join(this.dir, INDEX_FILE)} is not well-formed`);
    const known = this.decoded.get(ref[0]);
    if (known !== undefined) return known;
    try {
      const program = decodeProgram(this.readText(ref, name), name, (sub, what) => this.readText(sub, what));
      this.decoded.set(ref[0], program);
      return program;
    } catch (error) {
      if (error instanceof CatalogTextDamaged) return this.fail(`${error.message} (${join(this.dir, ENTRIES_FILE)})`);
      throw error;
    }
  }

  versionForms(): string | undefined {
    const ref = this.loadIndex().versionForms;
    if (ref === undefined) return undefined;
    return (this.forms ??= this.readText(ref, 'the version forms'));
  }

  programs(): string[] {
    try {
      return rowNames(this.loadIndex().rows);
    } catch (error) {
      if (error instanceof CatalogDamaged) return [];
      throw error;
    }
  }

  problem(): string | undefined {
    return this.damaged;
  }

  private fail(problem: string): never {
    this.damaged = `the catalogue table is damaged: ${problem}`;
    throw new CatalogDamaged(this.damaged);
  }

  /**
   * A text is not what the index said: damage, unless the index now names another table (rebuilt since it
   * was read). Then everything read from the old one is dropped, and CatalogReplaced thrown.
   */
  private failText(problem: string): never {
    const before = this.index?.checksum;
    this.index = undefined;
    let now: string | undefined;
    try {
      now = this.loadIndex().checksum;
    } catch (error) {
      if (!(error instanceof CatalogDamaged)) throw error;
    }
    if (before === undefined || now === undefined || now === before) {
      return this.fail(problem);
    }
    this.decoded.clear();
    this.byName.clear();
    this.forms = undefined;
    throw new CatalogReplaced(
      `the catalogue table in ${this.dir} was rebuilt while in use: this call is not judged on it, the next one is`,
    );
  }

  /** The index, read once; its rows are checked against the header's checksum before any is searched. */
  private loadIndex(): LoadedIndex {
    if (this.index !== undefined) return this.index;
    const path = join(this.dir, INDEX_FILE);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      return this.fail(
        `cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? String(error)}): run npm run build`,
      );
    }
    const headerEnd = text.indexOf('\n');
    const header = headerEnd < 0 ? undefined : parseIndexHeader(text.slice(0, headerEnd));
    if (header === undefined) return this.fail(`${path} is not a catalogue index of this hookwise's format`);
    // From the header's line break on: a name can never match the header.
    const rows = text.slice(headerEnd);
    if (xxh64BytesHex(Buffer.from(rows, 'utf8')) !== header.rowsChecksum)
      return this.fail(`${path} does not match its checksum (altered or cut short)`);
    this.index = { checksum: header.checksum, rows };
    if (header.versionForms !== undefined) this.index.versionForms = header.versionForms;
    this.damaged = undefined;
    return this.index;
  }

  /** One text of ENTRIES_FILE, read whole and checked against its checksum; throws CatalogDamaged otherwise. */
  private readText([offset, length, checksum]: TextRef, what: string): string {
    const path = join(this.dir, ENTRIES_FILE);
    const bytes = Buffer.alloc(length);
    let fd: number | undefined;
    try {
      fd = openSync(path, 'r');
      if (readSync(fd, bytes, 0, length, offset) !== length)
        return this.failText(`the text of ${what} in ${path} is cut short`);
    } catch (error) {
      if (error instanceof CatalogDamaged) throw error;
      return this.fail(`cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
    if (xxh64BytesHex(bytes) !== checksum)
      return this.failText(`the text of ${what} in ${path} does not match its checksum`);
    return bytes.toString('utf8');
  }
}

let installed: Catalog | undefined;

/** Install a table (tests, and the build's own checks). */
export function setCatalogTable(table: CatalogTable): void {
  installed = memoryCatalog(table);
}

/** The folder next to the running bundle (dist/catalog/), or undefined when running from sources. */
export function bundledCatalogDir(): string | undefined {
  return typeof __filename === 'string' && __filename.endsWith('.cjs')
    ? join(dirname(__filename), 'catalog')
    : undefined;
}

const NOT_COMPILED: Catalog = {
  entry: () => {
    throw new CatalogDamaged(NOT_COMPILED.problem()!);
  },
  versionForms: () => undefined,
  programs: () => [],
  problem: () => 'the catalogue was not compiled (running from sources without it)',
};

/** The catalogue of this process: the installed table (read on first use), or the one a test set. */
export function loadCatalog(): Catalog {
  if (installed !== undefined) return installed;
  const dir = bundledCatalogDir();
  return (installed = dir === undefined ? NOT_COMPILED : new CatalogTableReader(dir));
}

/** A program's compiled entry by the name a segment runs it as (throws CatalogDamaged: see Catalog.entry). */
export function programEntry(name: string, catalog: Catalog = loadCatalog()): CompiledProgram | undefined {
  return catalog.entry(name);
}

/**
 * Reads and checks every text of the catalogue, subcommands included (doctor): the number of program names,
 * or throws CatalogDamaged naming the file.
 */
export function verifyCatalog(catalog: Catalog = loadCatalog()): number {
  const names = catalog.programs();
  const problem = catalog.problem();
  if (problem !== undefined) throw new CatalogDamaged(problem);
  catalog.versionForms();
  for (const name of names) for (const sub of catalog.entry(name)?.root.commands ?? []) void sub.options;
  return names.length;
}

/** Every program name the catalogue has an entry for (validate uses it to spot project allows it overrules). */
export function catalogPrograms(catalog: Catalog = loadCatalog()): string[] {
  return catalog.programs();
}
