import { describe, expect, it } from 'vitest';
import { compileCatalog, compileEntry } from '../../src/catalog/compile.js';

describe('compileEntry: problems are collected with where they are', () => {
  it.each([
    [{ program: 'x' }, 'effect', 'the program needs an effect'],
    [{ program: 'x', effect: 'explodes' }, 'entry.effect', 'effect "explodes" is not one of'],
    [{ program: 'x', effect: 'none', options: { '-a': 'colour' } }, 'entry.options.-a', 'value "colour" is not a kind'],
    [{ program: 'x', effect: 'none', options: { '-a': 'enum' } }, 'entry.options.-a', 'an enum lists its values'],
    [{ program: 'x', effect: 'none', rule: 'trust-me' }, 'entry.rule', 'rule "trust-me" is not one of'],
    [{ program: 'x', effect: 'none', args: ['text...', 'text'] }, 'entry.args[0]', 'only the last operand'],
    [{ program: 'x', effect: 'none', colour: 1 }, 'entry.colour', 'unknown field'],
    [{ program: 'x y', effect: 'none' }, 'program', 'program is a name'],
    ['nonsense', '', 'an entry is a mapping'],
  ])('%j → %s: %s', (data, at, problem) => {
    const { problems } = compileEntry(data, 'x.yml');
    expect(problems.length).toBeGreaterThan(0);
    expect(problems[0]).toMatchObject({ file: 'x.yml', at });
    expect(problems[0]!.problem).toContain(problem);
  });

  it('aliases share one compiled entry in the table', () => {
    const { table } = compileCatalog([{ file: 'g.yml', data: { program: ['grep', 'egrep'], effect: 'reads' } }]);
    expect(table.programs).toEqual({ egrep: 0, grep: 0 });
    expect(table.entries).toHaveLength(1);
    expect(table.checksum).toMatch(/^[0-9a-f]{64}$/);
  });

  it('two entries for one program is a problem', () => {
    const { problems } = compileCatalog([
      { file: 'a.yml', data: { program: 'a', effect: 'none' } },
      { file: 'b.yml', data: { program: 'a', effect: 'none' } },
    ]);
    expect(problems).toEqual([{ file: 'b.yml', at: 'program', problem: 'a already has an entry (a.yml)' }]);
  });
});
