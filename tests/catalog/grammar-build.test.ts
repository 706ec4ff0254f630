/** The table built from fixture specs and entries: which programs, merge origins, splitting, determinism, errors. */
import { describe, expect, it } from 'vitest';
import { decodeGrammar } from '../../src/catalog/grammar-codec.js';
import { buildGrammarTable, figPrograms } from '../../src/catalog/grammar-build.js';
import { grammarFileName, parseIndexHeader, parseIndexRow } from '../../src/catalog/grammar-codec.js';
import { FIXTURE_ENTRIES, FIXTURE_SPECS, fixtureInput } from '../support/grammar-fixtures.js';

describe('grammar table build', () => {
  it('finds the programs among the module paths (plain, versioned, npm-scoped; not parts of a program)', () => {
    expect(figPrograms(Object.keys(FIXTURE_SPECS))).toEqual(['@scope/tool', 'cloud', 'counter', 'vcs']);
  });

  it('gives every program a file name with nothing but safe characters', () => {
    expect(grammarFileName('@scope/tool')).toBe('~40~scope~2f~tool.json');
    expect(grammarFileName('g++')).toBe('g++.json');
    expect(grammarFileName('aws s3')).toBe('aws~20~s3.json');
    expect(grammarFileName('../x')).toBe('..~2f~x.json');
  });

  it('records each program with its origin: Fig, ours (new or replacing Fig), or both (extended)', async () => {
    const table = await buildGrammarTable(fixtureInput());
    expect(table.errors).toEqual([]);
    const [header, ...rows] = table.files.get('index.tsv')!.trimEnd().split('\n');
    expect(parseIndexHeader(header!)).toEqual({ figRef: '@withfig/autocomplete@9.9.9' });
    expect(table.files.get('LICENSE-fig.txt')).toBe('MIT License (fixture)');
    const origins = Object.fromEntries(
      rows.map((line) => parseIndexRow(line)!).map((r) => [r.program, [r.origin, r.entry]]),
    );
    expect(origins).toEqual({
      '@scope/tool': ['fig', undefined],
      cloud: ['fig', undefined],
      counter: ['hookwise', 'src/catalog/grammar/counter.yml'],
      onlyours: ['hookwise', 'src/catalog/grammar/onlyours.yml'],
      vcs: ['both', 'src/catalog/grammar/vcs.yml'],
    });
    expect(table.report.programs).toEqual({ total: 5, fig: 2, hookwise: 2, both: 1, replacedFig: 1 });
    const vcs = decodeGrammar(table.files.get('vcs.json')!);
    expect(vcs?.subcommands.map((s) => s.names[0])).toEqual(['commit', 'log', 'stash']);
    const counter = decodeGrammar(table.files.get('counter.json')!);
    expect(counter?.options.map((o) => o.names[0])).toEqual(['--files0-from', '-l']);
  });

  it('puts the top-level subcommands of a large program into files of their own', async () => {
    const table = await buildGrammarTable(fixtureInput());
    const parts = [...table.files.keys()].filter((f) => f.startsWith('cloud~20~'));
    expect(parts).toEqual(Array.from({ length: 8 }, (_, s) => `cloud~20~svc${s}.json`));
    expect(table.files.get('cloud.json')!.length).toBeLessThan(1000);
    expect(table.report.subcommands).toBe(8 + 8 * 40 + 3);
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
