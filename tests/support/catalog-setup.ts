/**
 * Every test file runs with the catalogue compiled from its sources (src/catalog/programs/), as the build
 * compiles it into dist/catalog/: an entry edited in a change is what its tests see.
 */
import { compileSources, formatProblem } from '../../src/catalog/sources.js';
import { setCatalogTable } from '../../src/catalog/table.js';

const { table, problems } = compileSources();
if (problems.length > 0) throw new Error(`the catalogue does not compile:\n${problems.map(formatProblem).join('\n')}`);
setCatalogTable(table);
