import { describe, expect, it } from 'vitest';
import { compileCatalog, compileEntry, versionFormsText, versionSpellings } from '../../src/catalog/compile.js';

describe('compileEntry: problems are collected with where they are', () => {
  it.each([
    [{ program: 'x' }, 'effect', 'the program needs an effect'],
    [{ program: 'x', effect: 'explodes' }, 'entry.effect', 'effect "explodes" is not one of'],
    [{ program: 'x', effect: 'none', options: { '-a': 'colour' } }, 'entry.options.-a', 'value "colour" is not a kind'],
    [{ program: 'x', effect: 'none', options: { '-a': 'enum' } }, 'entry.options.-a', 'an enum lists its values'],
    [{ program: 'x', effect: 'none', rule: 'trust-me' }, 'entry.rule', 'rule "trust-me" is not one of'],
    [{ program: 'x', effect: 'none', args: ['text...', 'text'] }, 'entry.args[0]', 'only the last operand'],
    [{ program: 'x', effect: 'none', colour: 1 }, 'entry.colour', 'unknown field'],
    [{ program: 'x', effect: 'none', commands: { 'a*b': {} } }, 'entry.commands.a*b', 'a prefix followed by one *'],
    [{ program: 'x', effect: 'none', commands: { '*': {} } }, 'entry.commands.*', 'a prefix followed by one *'],
    [{ program: 'x', effect: 'none', args: [{ kind: 'url', check: 'nearby' }] }, 'entry.args[0].check', 'check is'],
    [{ program: 'x y', effect: 'none' }, 'program', 'program is a name'],
    [
      { program: 'x', effect: 'none', options: { '--dry-run': { with: ['--only'] } } },
      'entry.options.--dry-run.with',
      '--only is not an option this entry annotates here',
    ],
    [
      { program: 'x', effect: 'none', options: { '-e': { 'instead-of-operand': true } } },
      'entry.options.-e.instead-of-operand',
      'only an option with a value',
    ],
    [
      { program: 'x', effect: 'none', options: { '-i': { 'writes-operands': 'yes' } } },
      'entry.options.-i.writes-operands',
      'true or absent',
    ],
    [
      { program: 'x', effect: 'none', args: [{ kind: 'text', emits: { '.ts': ['.js'] } }] },
      'entry.args[0].emits',
      'only a path-read operand',
    ],
    [
      { program: 'x', effect: 'none', args: [{ kind: 'path-read', emits: { ts: 'js' } }] },
      'entry.args[0].emits',
      'emits maps a source ending',
    ],
    [{ program: 'x', effect: 'none', 'option-commands': ['m'] }, 'entry.option-commands', 'option-commands lists'],
    [
      { program: 'x', effect: 'none', options: { '-n': { args: ['text...'] } } },
      'entry.options.-n.args',
      'only an option that names the form',
    ],
    [
      { program: 'x', effect: 'none', options: { '-n': { 'form-effect': 'reads', args: ['text...', 'text'] } } },
      'entry.options.-n.args[0]',
      'only the last operand',
    ],
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

  it("a program's version forms are its own --version / --help options with their aliases, never a value option", () => {
    const node = {
      names: ['tool'],
      subcommands: [],
      args: [],
      options: [
        { names: ['-V', '--version'], takesValue: false },
        { names: ['-h', '--help'], takesValue: false },
        { names: ['--help-all'], takesValue: false },
        { names: ['--version-file'], takesValue: true },
        { names: ['-v', '--verbose'], takesValue: false },
      ],
    };
    expect(versionSpellings(node)).toEqual(['-V', '--version', '-h', '--help']);
    const text = versionFormsText(
      new Map([
        ['tool', versionSpellings(node)],
        ['quiet', []],
        ['bad\tname', ['-h']],
      ]),
    );
    expect(text).toBe('\ntool\t-V --version -h --help\n');
    const { table } = compileCatalog([], [], text);
    expect(table.versionForms).toBe(text);
  });

  it('two entries for one program is a problem', () => {
    const { problems } = compileCatalog([
      { file: 'a.yml', data: { program: 'a', effect: 'none' } },
      { file: 'b.yml', data: { program: 'a', effect: 'none' } },
    ]);
    expect(problems).toEqual([{ file: 'b.yml', at: 'program', problem: 'a already has an entry (a.yml)' }]);
  });

  it('a key naming several subcommands the grammar keeps apart annotates each of them', () => {
    const verb = (name: string) => ({ names: [name], options: [], subcommands: [], args: [] });
    const grammar = {
      node: { names: ['tool'], options: [], subcommands: [verb('add'), verb('remove'), verb('list')], args: [] },
      ref: 'test',
    };
    const { programs, problems } = compileEntry(
      { program: 'tool', grammar: 'table', commands: { 'add remove': { effect: 'writes' } } },
      'tool.yml',
      new Map([['tool', grammar]]),
    );
    expect(problems).toEqual([]);
    const root = programs.get('tool')!.root;
    const effectOf = (name: string) => root.commands[root.commandIndex[name]!]!.effects;
    expect(effectOf('add')).toEqual(['writes']);
    expect(effectOf('remove')).toEqual(['writes']);
    expect(effectOf('list')).toBeUndefined();
  });
});
