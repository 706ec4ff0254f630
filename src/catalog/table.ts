/**
 * The compiled catalogue, as the hot path loads it: dist/catalog.json (written by scripts/build.mjs from the
 * entries under src/catalog/programs/), read once per process and only when a segment is first matched — no
 * YAML parser, no extra module. From sources (tests), the table is compiled from the entries by
 * sources.ts and installed with setCatalogTable (tests/support/catalog-setup.ts).
 *
 * A missing or damaged table fails closed: an empty catalogue knows no program, so nothing is allowed on
 * knowledge, and `problem` says why (doctor shows it).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CATALOG_FORMAT, type CatalogTable, type CompiledProgram } from './compile.js';

export interface LoadedCatalog {
  table: CatalogTable;
  /** Why the table is empty, when it could not be loaded. */
  problem?: string;
}

let loaded: LoadedCatalog | undefined;

/** Install a table (tests, and the build's own checks). */
export function setCatalogTable(table: CatalogTable): void {
  loaded = { table };
}

function emptyTable(): CatalogTable {
  return { format: CATALOG_FORMAT, checksum: '', programs: {}, entries: [] };
}

/** The file next to the running bundle (dist/catalog.json), or undefined when running from sources. */
export function bundledCatalogFile(): string | undefined {
  return typeof __filename === 'string' && __filename.endsWith('.cjs')
    ? join(dirname(__filename), 'catalog.json')
    : undefined;
}

export function loadCatalog(): LoadedCatalog {
  if (loaded !== undefined) return loaded;
  const file = bundledCatalogFile();
  if (file === undefined) {
    loaded = { table: emptyTable(), problem: 'the catalogue was not compiled (running from sources without it)' };
    return loaded;
  }
  try {
    const table = JSON.parse(readFileSync(file, 'utf8')) as Partial<CatalogTable>;
    if (table.format !== CATALOG_FORMAT || typeof table.programs !== 'object' || !Array.isArray(table.entries))
      loaded = { table: emptyTable(), problem: `${file} is not a catalogue of format ${CATALOG_FORMAT}` };
    else loaded = { table: table as CatalogTable };
  } catch (error) {
    loaded = {
      table: emptyTable(),
      problem: `cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'invalid JSON'})`,
    };
  }
  return loaded;
}

/** A program's compiled entry by the name a segment runs it as (own properties only: argv is untrusted). */
export function programEntry(name: string, table: CatalogTable = loadCatalog().table): CompiledProgram | undefined {
  if (!Object.hasOwn(table.programs, name)) return undefined;
  const at = table.programs[name]!;
  const entry = table.entries[at];
  if (typeof entry !== 'string') return entry;
  // Stored as text (dist/catalog.json): parsed on first use, so loading the table costs one shallow parse.
  const parsed = JSON.parse(entry) as CompiledProgram;
  table.entries[at] = parsed;
  return parsed;
}

/** The table as dist/catalog.json stores it: each entry as its own JSON text, parsed when first matched. */
export function serializeCatalog(table: CatalogTable): string {
  return JSON.stringify({
    ...table,
    entries: table.entries.map((e) => (typeof e === 'string' ? e : JSON.stringify(e))),
  });
}

/** Every program name the catalogue has an entry for (validate uses it to spot project allows it overrules). */
export function catalogPrograms(table: CatalogTable = loadCatalog().table): string[] {
  return Object.keys(table.programs);
}
