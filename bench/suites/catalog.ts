/**
 * The catalogue on the hot path: matching one segment word by word against its entry (what every Bash
 * segment pays at the edge, memoized with the parse), and what a process's first Bash call pays to read the
 * compiled table (dist/catalog/: the index and the entry of the program it names).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { matchSegment } from '../../src/catalog/match.js';
import { INDEX_FILE } from '../../src/catalog/table-codec.js';
import { bundledCatalogDir, CatalogTableReader } from '../../src/catalog/table.js';
import { parseCommand } from '../../src/shell/parse.js';
import { loadShellParser } from '../../src/shell/syntax.js';
import { packageRoot } from '../../src/util/package-root.js';
import { runInProcess } from '../in-process.js';
import type { Suite } from '../suite.js';
import { COMPOUND_2KB } from './shell.js';

/** A typical search with a cluster, a joined value, a glob and a path: 8 words. */
export const TYPICAL_SEGMENT = "rg -n --hidden -g '*.ts' -C2 TODO src";

export const catalogSuite: Suite = {
  name: 'catalog',
  measures: ['catalog.match.segment', 'catalog.match.2kb', 'catalog.table.load'],
  async run(ctx) {
    loadShellParser();
    const typical = parseCommand(TYPICAL_SEGMENT);
    const compound = parseCommand(COMPOUND_2KB);
    if (!typical.ok || !compound.ok) throw new Error('bench: the catalogue benchmark commands no longer parse');
    const segment = typical.segments[0]!;
    if (matchSegment(segment).knowledge !== 'allow')
      throw new Error(
        `bench: ${TYPICAL_SEGMENT} is no longer allowed on knowledge (${matchSegment(segment).reason}); the row would time a short cut`,
      );
    // The built table, also when the suite runs from sources (the bench test): the files are what a process reads.
    const dir = bundledCatalogDir() ?? join(packageRoot(), 'dist', 'catalog');
    if (!existsSync(join(dir, INDEX_FILE))) throw new Error(`bench: ${dir} is missing: run npm run build first`);
    const program = segment.name;
    if (new CatalogTableReader(dir).entry(program) === undefined)
      throw new Error(`bench: ${dir} has no entry for ${program}`);
    const measured = await runInProcess(
      [
        { id: 'catalog.match.segment', batch: 64, fn: () => matchSegment(segment) },
        { id: 'catalog.match.2kb', batch: 1, fn: () => compound.segments.map((s) => matchSegment(s)) },
        // What the first Bash call of a process pays: a fresh reader reads the index and one entry.
        { id: 'catalog.table.load', batch: 1, fn: () => new CatalogTableReader(dir).entry(program) },
      ],
      ctx.size,
    );
    const perSegment = measured.find((m) => m.id === 'catalog.match.2kb');
    if (perSegment !== undefined)
      perSegment.note = `${compound.segments.length} segments: ${(perSegment.median / compound.segments.length).toFixed(2)} µs per segment (median)`;
    return measured;
  },
};
