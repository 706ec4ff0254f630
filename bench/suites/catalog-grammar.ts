/**
 * The grammar table's lookup cost (src/catalog/grammar-table.ts) over the built table in dist/: what a
 * process pays the first time it needs a program's grammar (its file read, checked and parsed; the index once
 * per process), and what every later lookup of that program costs. The first-lookup rows are report only:
 * a daemon pays them once per program, a `hookwise check` process once per program its call names.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { INDEX_FILE } from '../../src/catalog/grammar-codec.js';
import { GrammarTableReader } from '../../src/catalog/grammar-table.js';
import type { GrammarNode } from '../../src/catalog/grammar.js';
import { packageRoot } from '../../src/util/package-root.js';
import { runInProcess } from '../in-process.js';
import type { Suite } from '../suite.js';

function tableDir(): string {
  const dir = join(packageRoot(), 'dist', 'catalog-grammar');
  if (!existsSync(join(dir, INDEX_FILE)))
    throw new Error(`bench: no grammar table in ${dir}; run \`npm run build\` first`);
  return dir;
}

function found(reader: GrammarTableReader, program: string): GrammarNode {
  const { node, problem } = reader.lookup(program);
  if (!node) throw new Error(`bench: no grammar for ${program} (${problem ?? 'not in the table'})`);
  return node;
}

export const catalogGrammarSuite: Suite = {
  name: 'catalog-grammar',
  measures: [
    'catalog.grammar.lookup-cached',
    'catalog.grammar.first-lookup',
    'catalog.grammar.first-lookup+index',
    'catalog.grammar.first-lookup.split',
  ],
  async run({ size }) {
    const dir = tableDir();
    const warm = new GrammarTableReader(dir);
    found(warm, 'git');
    let reader = new GrammarTableReader(dir);
    // A fresh reader per sample whose index is already read (untimed), so the sample is one program's load.
    const freshWithIndex = () => {
      reader = new GrammarTableReader(dir);
      found(reader, 'wc');
    };
    return runInProcess(
      [
        { id: 'catalog.grammar.lookup-cached', batch: 64, fn: () => warm.lookup('git').node },
        {
          id: 'catalog.grammar.first-lookup',
          batch: 1,
          before: freshWithIndex,
          fn: () => found(reader, 'git').subcommands.find((s) => s.names.includes('log'))?.options.length,
        },
        {
          id: 'catalog.grammar.first-lookup+index',
          batch: 1,
          before: () => (reader = new GrammarTableReader(dir)),
          fn: () => found(reader, 'git').subcommands.find((s) => s.names.includes('log'))?.options.length,
        },
        {
          id: 'catalog.grammar.first-lookup.split',
          batch: 1,
          before: freshWithIndex,
          fn: () => found(reader, 'aws').subcommands.find((s) => s.names.includes('s3'))?.subcommands.length,
        },
      ],
      size,
    );
  },
};
