/** The table built from fixture specs and entries: which programs, merge origins, splitting, determinism, errors. */
import { describe, expect, it } from 'vitest';
import { buildGrammarTable, figPrograms, type GrammarTable } from '../../src/catalog/grammar-build.js';
import { decodeGrammar, parseIndexHeader, parseIndexRow, type IndexRow } from '../../src/catalog/grammar-codec.js';
import { FIXTURE_ENTRIES, FIXTURE_SPECS, fixtureInput } from '../support/grammar-fixtures.js';

function rows(table: GrammarTable): IndexRow[] {
  return table.files
    .get('index.tsv')!
    .trimEnd()
    .split('\n')
    .slice(1)
    .map((line) => parseIndexRow(line)!);
}

/** The text a row (or a deferred subcommand) points at, cut from grammar.jsonl as the reader does. */
function textAt(table: GrammarTable, [offset, length]: [number, number, string]): string {
  return Buffer.from(table.files.get('grammar.jsonl')!)
    .subarray(offset, offset + length)
    .toString('utf8');
}

function grammarOf(table: GrammarTable, program: string) {
  const row = rows(table).find((r) => r.program === program)!;
  return decodeGrammar(textAt(table, row.text), (ref) => decodeGrammar(textAt(table, ref)));
}

describe('grammar table build', () => {
  it('finds the programs among the module paths (plain, versioned, npm-scoped; not parts of a program)', () => {
    expect(figPrograms(Object.keys(FIXTURE_SPECS))).toEqual(['@scope/tool', 'cloud', 'counter', 'vcs']);
  });

  it('records each program with its origin: Fig, ours (new or replacing Fig), or both (extended)', async () => {
    const table = await buildGrammarTable(fixtureInput());
    expect(table.errors).toEqual([]);
    expect(parseIndexHeader(table.files.get('index.tsv')!.split('\n')[0]!)).toEqual({
      figRef: '@withfig/autocomplete@9.9.9',
    });
    expect([...table.files.keys()]).toEqual(['LICENSE-fig.txt', 'grammar.jsonl', 'index.tsv', 'report.json']);
    expect(table.files.get('LICENSE-fig.txt')).toBe('MIT License (fixture)');
    const origins = Object.fromEntries(rows(table).map((r) => [r.program, [r.origin, r.entry]]));
    expect(origins).toEqual({
      '@scope/tool': ['fig', undefined],
      cloud: ['fig', undefined],
      counter: ['hookwise', 'src/catalog/grammar/counter.yml'],
      onlyours: ['hookwise', 'src/catalog/grammar/onlyours.yml'],
      vcs: ['both', 'src/catalog/grammar/vcs.yml'],
    });
    expect(table.report.programs).toEqual({ total: 5, fig: 2, hookwise: 2, both: 1, replacedFig: 1 });
    const vcs = grammarOf(table, 'vcs');
    expect(vcs?.subcommands.map((s) => s.names[0])).toEqual(['commit', 'log', 'stash']);
    const counter = grammarOf(table, 'counter');
    expect(counter?.options.map((o) => o.names[0])).toEqual(['--files0-from', '-l']);
  });

  it('gives the top-level subcommands of a large program texts of their own, before its top node', async () => {
    const table = await buildGrammarTable(fixtureInput());
    const cloud = rows(table).find((r) => r.program === 'cloud')!;
    expect(cloud.text[1]).toBeLessThan(1000);
    const top = JSON.parse(textAt(table, cloud.text)) as { s: { n: string[]; x: [number, number, string] }[] };
    expect(top.s.map((s) => s.n[0])).toEqual(Array.from({ length: 8 }, (_, s) => `svc${s}`));
    for (const sub of top.s) expect(sub.x[0]).toBeLessThan(cloud.text[0]);
    expect(grammarOf(table, 'cloud')?.subcommands[7]?.subcommands[39]?.options).toHaveLength(30);
    expect(table.report.subcommands).toBe(8 + 8 * 40 + 3);
    // every line of grammar.jsonl is one text
    const lines = table.files.get('grammar.jsonl')!.trimEnd().split('\n');
    expect(lines).toHaveLength(rows(table).length + 8);
  });

  it('gives the same bytes for the same input', async () => {
    const a = await buildGrammarTable(fixtureInput());
    const b = await buildGrammarTable(fixtureInput());
    expect([...a.files.entries()]).toEqual([...b.files.entries()]);
    const changed = await buildGrammarTable({ ...fixtureInput(), hand: FIXTURE_ENTRIES.slice(1) });
    const checksum = (files: Map<string, string>) => files.get('index.tsv')!.split('\n')[0];
    expect(checksum(changed.files)).not.toBe(checksum(a.files));
  });

  it('fails the build on a broken entry or two entries for one program, naming the files', async () => {
    const table = await buildGrammarTable({
      ...fixtureInput(),
      hand: [
        ...FIXTURE_ENTRIES,
        { file: 'src/catalog/grammar/again.yml', text: FIXTURE_ENTRIES[0]!.text },
        { file: 'src/catalog/grammar/bad.yml', text: 'program: x\n' },
      ],
    });
    expect(table.errors).toEqual([
      'src/catalog/grammar/again.yml: program counter already has an entry in src/catalog/grammar/counter.yml',
      expect.stringMatching(/^src\/catalog\/grammar\/bad\.yml: source: /),
    ]);
  });
});
