/**
 * The Fig importer on small spec modules written here (shaped like Fig's compiled specs, not copied from
 * them): each normalization rule, loadSpec, versioned specs, the bounds, and what it reports as skipped.
 */
import { describe, expect, it } from 'vitest';
import { importFigProgram, type FigModuleLoader } from '../../src/catalog/fig-import.js';
import type { GrammarNode, GrammarOption } from '../../src/catalog/grammar.js';

/** A loader over in-memory modules: path → module namespace. */
function modules(specs: Record<string, Record<string, unknown>>): FigModuleLoader {
  return async (path) => (Object.hasOwn(specs, path) ? specs[path] : undefined);
}

async function imported(spec: unknown, more: Record<string, Record<string, unknown>> = {}): Promise<GrammarNode> {
  const result = await importFigProgram('tool', modules({ tool: { default: spec }, ...more }));
  expect(result.node).toBeDefined();
  return result.node!;
}

function option(node: GrammarNode, name: string): GrammarOption | undefined {
  return node.options.find((o) => o.names.includes(name));
}

describe('options', () => {
  it('keeps every spelling, with its dashes, in the order the spec gives', async () => {
    const node = await imported({ name: 'tool', options: [{ name: ['-v', '--verbose'] }, { name: '-name' }] });
    expect(option(node, '--verbose')).toEqual({ names: ['-v', '--verbose'], takesValue: false });
    expect(option(node, '-name')?.names).toEqual(['-name']);
  });

  it('takes a value exactly when the option has args', async () => {
    const node = await imported({
      name: 'tool',
      options: [{ name: '-o', args: { name: 'file' } }, { name: '-q' }, { name: '-e', args: [{}] }],
    });
    expect(option(node, '-o')?.takesValue).toBe(true);
    expect(option(node, '-e')?.takesValue).toBe(true);
    expect(option(node, '-q')?.takesValue).toBe(false);
  });

  it('marks an optional value, and a value that must be joined with = or another separator', async () => {
    const node = await imported({
      name: 'tool',
      options: [
        { name: '--color', args: { isOptional: true } },
        { name: '--a', requiresSeparator: true, args: {} },
        { name: '--b', requiresSeparator: '=', args: {} },
        { name: '--c', requiresEquals: true, args: {} },
        { name: '-D', requiresSeparator: ':', args: {} },
      ],
    });
    expect(option(node, '--color')).toMatchObject({ takesValue: true, valueOptional: true });
    for (const name of ['--a', '--b', '--c']) expect(option(node, name)?.requiresEquals).toBe(true);
    expect(option(node, '-D')).toMatchObject({ separator: ':' });
    expect(option(node, '-D')?.requiresEquals).toBeUndefined();
  });

  it('keeps the template (a path of any kind wins over folders), persistent, repeatable and fixed values', async () => {
    const node = await imported({
      name: 'tool',
      options: [
        { name: '-f', args: { template: ['folders', 'filepaths'] } },
        { name: '-C', args: { template: 'folders' } },
        { name: '--all', isPersistent: true },
        { name: '-v', isRepeatable: 3 },
        { name: '-x', isRepeatable: true },
        { name: '--once', isRepeatable: false },
        { name: '--mode', args: { suggestions: ['fast', { name: ['slow', 'careful'] }, { name: 'fast' }] } },
      ],
    });
    expect(option(node, '-f')?.template).toBe('filepaths');
    expect(option(node, '-C')?.template).toBe('folders');
    expect(option(node, '--all')?.persistent).toBe(true);
    expect(option(node, '-v')?.repeatable).toBe(true);
    expect(option(node, '-x')?.repeatable).toBe(true);
    expect(option(node, '--once')?.repeatable).toBeUndefined();
    expect(option(node, '--mode')?.values).toEqual(['careful', 'fast', 'slow']);
  });

  it('counts the value words of an option with several args', async () => {
    const node = await imported({ name: 'tool', options: [{ name: '--diff', args: [{ name: 'a' }, { name: 'b' }] }] });
    expect(option(node, '--diff')).toMatchObject({ takesValue: true, valueCount: 2 });
  });

  it('ignores generators and descriptions: they describe one machine, not the grammar', async () => {
    const node = await imported({
      name: 'tool',
      description: 'x',
      options: [{ name: '-b', description: 'branch', args: { generators: { script: ['git', 'branch'] } } }],
    });
    expect(option(node, '-b')).toEqual({ names: ['-b'], takesValue: true });
  });
});

describe('operands, subcommands and parser directives', () => {
  it('keeps operands: name, template, variadic, optional, isCommand, isScript, values', async () => {
    const node = await imported({
      name: 'tool',
      args: [
        { name: 'mode', suggestions: ['a', 'b'] },
        { name: 'script', isScript: true, template: 'filepaths' },
        { name: 'command', isCommand: true, isVariadic: true, isOptional: true },
      ],
    });
    expect(node.args).toEqual([
      { name: 'mode', values: ['a', 'b'] },
      { name: 'script', isScript: true, template: 'filepaths' },
      { name: 'command', isCommand: true, variadic: true, optional: true },
    ]);
  });

  it('names a program by its module, not by the spec name field (which may name another program)', async () => {
    const result = await importFigProgram('hub2', modules({ hub2: { default: { name: 'git' } } }));
    expect(result.node?.names).toEqual(['hub2']);
  });

  it('sorts options and subcommands so that the same spec always gives the same tree', async () => {
    const node = await imported({
      name: 'tool',
      options: [{ name: '-z' }, { name: '-a' }],
      subcommands: [{ name: ['st', 'status'] }, { name: 'add' }],
    });
    expect(node.options.map((o) => o.names[0])).toEqual(['-a', '-z']);
    expect(node.subcommands.map((s) => s.names)).toEqual([['add'], ['st', 'status']]);
  });

  it('maps optionsMustPrecedeArguments and flagsArePosixNoncompliant, at any level', async () => {
    const node = await imported({
      name: 'tool',
      parserDirectives: { flagsArePosixNoncompliant: true },
      subcommands: [{ name: 'run', parserDirectives: { optionsMustPrecedeArguments: true } }],
    });
    expect(node.noClusters).toBe(true);
    expect(node.optionsBeforeArgs).toBeUndefined();
    expect(node.subcommands[0]?.optionsBeforeArgs).toBe(true);
  });

  it('flattens nested subcommand lists and drops duplicate spellings (first wins)', async () => {
    const node = await imported({
      name: 'tool',
      subcommands: [[{ name: 'a' }, { name: 'b' }], { name: 'a', options: [{ name: '-x' }] }],
      options: [{ name: ['-q', '--quiet'] }, { name: '--quiet', args: {} }],
    });
    expect(node.subcommands.map((s) => s.names[0])).toEqual(['a', 'b']);
    expect(node.subcommands[0]?.options).toEqual([]);
    expect(node.options).toEqual([{ names: ['-q', '--quiet'], takesValue: false }]);
  });
});

describe('loadSpec and versioned specs', () => {
  it('follows a loadSpec to a local module and merges it under the subcommand', async () => {
    const result = await importFigProgram(
      'cloud',
      modules({
        cloud: { default: { name: 'cloud', subcommands: [{ name: 'store', loadSpec: 'cloud/store' }] } },
        'cloud/store': { default: { name: 'store', subcommands: [{ name: 'ls', options: [{ name: '-r' }] }] } },
      }),
    );
    const store = result.node?.subcommands[0];
    expect(store?.names).toEqual(['store']);
    expect(store?.subcommands[0]).toMatchObject({ names: ['ls'], options: [{ names: ['-r'], takesValue: false }] });
    expect(result.modules).toEqual(['cloud', 'cloud/store']);
  });

  it('reports a loadSpec that is missing or leads back to a spec being loaded, and keeps the rest', async () => {
    const result = await importFigProgram(
      'loop',
      modules({
        loop: {
          default: {
            name: 'loop',
            options: [{ name: '-v' }],
            subcommands: [
              { name: 'self', loadSpec: 'loop' },
              { name: 'gone', loadSpec: 'loop/gone' },
              { name: 'a', loadSpec: 'loop/a' },
            ],
          },
        },
        'loop/a': { default: { name: 'a', subcommands: [{ name: 'b', loadSpec: 'loop/a' }] } },
      }),
    );
    expect(result.node?.options).toHaveLength(1);
    expect(result.notes.map((n) => `${n.kind} ${n.where}`).sort()).toEqual([
      'load-spec-cycle a b',
      'load-spec-cycle self',
      'load-spec-missing gone',
    ]);
  });

  it('takes the latest version of a versioned program and says when its minor-version diffs are left out', async () => {
    const result = await importFigProgram(
      'vv',
      modules({
        'vv/index': { default: async () => ({ versionedSpecPath: 'vv/2.0.0', version: undefined }) },
        'vv/2.0.0': { default: { name: 'vv', options: [{ name: '--two' }] }, versions: { '2.1.0': { options: [] } } },
      }),
    );
    expect(result.node?.options.map((o) => o.names[0])).toEqual(['--two']);
    expect(result.notes.map((n) => n.kind)).toEqual(['version-diffs']);
  });

  it('skips a program whose grammar is all generated at completion time, and a module that is no spec', async () => {
    const generated = await importFigProgram(
      'gen',
      modules({ gen: { default: { name: 'gen', generateSpec: () => 0 } } }),
    );
    expect(generated.node).toBeUndefined();
    expect(generated.notes.map((n) => n.kind)).toEqual(['dynamic-subtree', 'generator-only']);
    const none = await importFigProgram('none', modules({ none: { helper: 1 } }));
    expect(none.node).toBeUndefined();
    expect(none.notes.map((n) => n.kind)).toEqual(['not-a-spec']);
  });

  it('keeps a program without any option or operand (a grammar that knows there is nothing to know)', async () => {
    const result = await importFigProgram('clear2', modules({ clear2: { default: { name: 'clear2' } } }));
    expect(result.node).toEqual({ names: ['clear2'], options: [], subcommands: [], args: [] });
  });
});

describe('bounds', () => {
  const deep = (depth: number): Record<string, unknown> =>
    depth === 0 ? { name: 'leaf' } : { name: `d${depth}`, subcommands: [deep(depth - 1)] };

  it('cuts subcommands below the depth limit and says where', async () => {
    const result = await importFigProgram('deep', modules({ deep: { default: deep(6) } }), {
      maxDepth: 3,
      maxNodes: 1000,
    });
    let node = result.node;
    let depth = 0;
    while (node && node.subcommands.length > 0) {
      node = node.subcommands[0];
      depth++;
    }
    expect(depth).toBe(3);
    expect(result.notes).toEqual([{ program: 'deep', where: 'd5 d4 d3', kind: 'depth-limit' }]);
  });

  it('stops at the node budget of a program and says so', async () => {
    const options = Array.from({ length: 50 }, (_, i) => ({ name: `--o${i}` }));
    const result = await importFigProgram('big', modules({ big: { default: { name: 'big', options } } }), {
      maxDepth: 5,
      maxNodes: 10,
    });
    expect(result.node?.options).toHaveLength(10);
    expect(result.notes.map((n) => n.kind)).toEqual(['node-limit']);
  });

  it('drops a dashless spelling beside dashed ones, keeps an option spelled only without dashes, and says so', async () => {
    const result = await importFigProgram(
      'arch',
      modules({
        arch: {
          default: {
            name: 'arch',
            options: [
              { name: ['C', '-C', '--directory'], args: {} },
              { name: 'bs', requiresSeparator: true, args: {} },
              { name: '–-help' },
            ],
          },
        },
      }),
    );
    expect(result.node?.options).toEqual([
      { names: ['-C', '--directory'], takesValue: true },
      { names: ['bs'], takesValue: true, requiresEquals: true },
    ]);
    expect(result.notes.map((n) => n.kind).sort()).toEqual(['bad-name', 'dashless-alias', 'dashless-option']);
  });

  it('drops names that are not plain words and reports them', async () => {
    const node = await importFigProgram(
      'odd',
      modules({
        odd: { default: { name: 'odd', options: [{ name: ['-a', 'x\ny', '', 7] }, { name: 'z'.repeat(300) }] } },
      }),
    );
    expect(node.node?.options).toEqual([{ names: ['-a'], takesValue: false }]);
    expect(node.notes.map((n) => n.kind)).toEqual(['bad-name']);
  });
});
