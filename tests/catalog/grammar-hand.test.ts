/** Our grammar entries: the manual-page option syntax, validation with named fields, and the merge rule. */
import { describe, expect, it } from 'vitest';
import { mergeGrammar, parseHandEntry, parseOptionSpec, type HandEntry } from '../../src/catalog/grammar-hand.js';
import type { GrammarNode } from '../../src/catalog/grammar.js';

function entry(text: string): HandEntry {
  const errors: string[] = [];
  const parsed = parseHandEntry('src/catalog/grammar/t.yml', text, errors);
  expect(errors).toEqual([]);
  return parsed!;
}

function problems(text: string): string[] {
  const errors: string[] = [];
  expect(parseHandEntry('src/catalog/grammar/t.yml', text, errors)).toBeUndefined();
  return errors;
}

describe('option lines as a manual prints them', () => {
  it.each([
    ['-c, --bytes', { names: ['-c', '--bytes'], takesValue: false }],
    ['--files0-from=F', { names: ['--files0-from'], takesValue: true, template: 'filepaths' }],
    ['-f, --file=DATEFILE', { names: ['-f', '--file'], takesValue: true, template: 'filepaths' }],
    ['-C, --directory=DIR', { names: ['-C', '--directory'], takesValue: true, template: 'folders' }],
    ['-e PATTERNS', { names: ['-e'], takesValue: true }],
    ['-n, --lines=[-]NUM', { names: ['-n', '--lines'], takesValue: true }],
    ['--color[=WHEN]', { names: ['--color'], takesValue: true, valueOptional: true, requiresEquals: true }],
    [
      '-i[SUFFIX], --in-place[=SUFFIX]',
      { names: ['-i', '--in-place'], takesValue: true, valueOptional: true, requiresEquals: true },
    ],
    ['-name PATTERN', { names: ['-name'], takesValue: true }],
    ['-', { names: ['-'], takesValue: false }],
  ])('%s', (line, expected) => {
    expect(parseOptionSpec(line, 'here')).toEqual(expected);
  });

  it.each(['c, --bytes', '--x=A, --y[=B]', '-- spaced name here'])('rejects %s', (line) => {
    expect(() => parseOptionSpec(line, 'here')).toThrow(/here/);
  });
});

describe('entries', () => {
  it('builds the program node, sorted, with extra option fields and operands', () => {
    const e = entry(`
source: GNU coreutils 9.1, \`tool --help\`
program: tool
merge: replace
options:
  - -z
  - { spec: '--sort=WORD', values: [none, size], repeatable: true, persistent: true, template: history }
args: [{ name: file, template: filepaths, variadic: true, optional: true }]
subcommands:
  - { names: [show, s], options: [-a], args: [{ name: cmd, isCommand: true }], optionsBeforeArgs: true }
  - { name: add, noClusters: true }
`);
    expect(e.node).toEqual({
      names: ['tool'],
      options: [
        {
          names: ['--sort'],
          takesValue: true,
          values: ['none', 'size'],
          repeatable: true,
          persistent: true,
          template: 'history',
        },
        { names: ['-z'], takesValue: false },
      ],
      subcommands: [
        { names: ['add'], options: [], subcommands: [], args: [], noClusters: true },
        {
          names: ['show', 's'],
          options: [{ names: ['-a'], takesValue: false }],
          subcommands: [],
          args: [{ name: 'cmd', isCommand: true }],
          optionsBeforeArgs: true,
        },
      ],
      args: [{ name: 'file', template: 'filepaths', variadic: true, optional: true }],
    });
    expect(e).toMatchObject({ program: 'tool', merge: 'replace', source: 'GNU coreutils 9.1, `tool --help`' });
  });

  it.each([
    ['no source', 'program: t\nmerge: extend\n', /source: say where the grammar comes from/],
    ['no merge rule', 'source: man t(1), 1.0\nprogram: t\n', /merge: one of replace, extend/],
    ['an unknown field', 'source: man t(1), 1.0\nprogram: t\nmerge: extend\nopts: []\n', /unknown field "opts"/],
    [
      'a spelling given twice',
      'source: man t(1), 1.0\nprogram: t\nmerge: extend\noptions: [-a, "-a, --all"]\n',
      /option "-a" is given twice/,
    ],
    [
      'a bad option line in a subcommand',
      'source: man t(1), 1.0\nprogram: t\nmerge: extend\nsubcommands: [{ name: s, options: ["x y"] }]\n',
      /subcommands\[0\]\(s\)\.options\[0\]/,
    ],
    [
      'a program name with a space',
      'source: man t(1), 1.0\nprogram: t u\nmerge: extend\n',
      /program: expected one word/,
    ],
    ['YAML that does not parse', 'source: [\n', /t\.yml: /],
  ])('rejects an entry with %s, naming the file and field', (_what, text, message) => {
    const errors = problems(text);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^src\/catalog\/grammar\/t\.yml/);
    expect(errors[0]).toMatch(message);
  });
});

describe('merge rule', () => {
  const fig: GrammarNode = {
    names: ['tool'],
    options: [
      { names: ['-f', '--format'], takesValue: false },
      { names: ['-v'], takesValue: false },
    ],
    subcommands: [
      { names: ['log'], options: [{ names: ['-n'], takesValue: true }], subcommands: [], args: [{ name: 'rev' }] },
      { names: ['push'], options: [], subcommands: [], args: [] },
    ],
    args: [{ name: 'x' }],
  };
  const ours = (merge: 'replace' | 'extend'): HandEntry =>
    entry(`
source: man tool(1), tool 2.0
program: tool
merge: ${merge}
options: ['-f, --file=FILE']
subcommands:
  - { name: log, options: ['--follow'] }
  - { name: stash, subcommands: [{ name: list }] }
`);

  it('replace: our node is the whole grammar', () => {
    expect(mergeGrammar(fig, ours('replace'))).toEqual(ours('replace').node);
  });

  it('extend: our options replace Fig options sharing a spelling, subcommands merge by name, the rest stays', () => {
    const merged = mergeGrammar(fig, ours('extend'));
    expect(merged.options).toEqual([
      { names: ['-f', '--file'], takesValue: true, template: 'filepaths' },
      { names: ['-v'], takesValue: false },
    ]);
    expect(merged.subcommands.map((s) => s.names[0])).toEqual(['log', 'push', 'stash']);
    expect(merged.subcommands[0]).toEqual({
      names: ['log'],
      options: [
        { names: ['--follow'], takesValue: false },
        { names: ['-n'], takesValue: true },
      ],
      subcommands: [],
      args: [{ name: 'rev' }],
    });
    expect(merged.args).toEqual([{ name: 'x' }]);
  });

  it('a program Fig does not have is ours whatever the rule', () => {
    expect(mergeGrammar(undefined, ours('extend'))).toEqual(ours('extend').node);
  });
});
