/** The table's on-disk form: every field survives a round trip, defaults are left out, damage decodes to nothing. */
import { describe, expect, it } from 'vitest';
import { decodeGrammar, encodeGrammar } from '../../src/catalog/grammar-codec.js';
import type { GrammarNode } from '../../src/catalog/grammar.js';

const full: GrammarNode = {
  names: ['tool', 't'],
  options: [
    {
      names: ['-o', '--out'],
      takesValue: true,
      valueOptional: true,
      requiresEquals: true,
      template: 'filepaths',
      values: ['a', 'b'],
      persistent: true,
      repeatable: true,
    },
    { names: ['-D'], takesValue: true, separator: ':', valueCount: 2 },
    { names: ['-exec'], takesValue: true, valueTerminators: [';', '+'] },
    { names: ['-q'], takesValue: false },
  ],
  subcommands: [{ names: ['run'], options: [], subcommands: [], args: [], optionsBeforeArgs: true, noClusters: true }],
  args: [
    { name: 'cmd', isCommand: true, variadic: true, optional: true },
    { isScript: true, template: 'folders', values: ['x'] },
  ],
};

describe('grammar codec', () => {
  it('round-trips every field of the contract', () => {
    expect(decodeGrammar(encodeGrammar(full))).toEqual(full);
  });

  it('leaves defaults out (an option without a value is its names only)', () => {
    expect(
      encodeGrammar({ names: ['x'], options: [{ names: ['-q'], takesValue: false }], subcommands: [], args: [] }),
    ).toBe('{"n":["x"],"o":[{"n":["-q"]}]}');
  });

  it.each([
    ['not JSON', '{"n":['],
    ['not an object', '[]'],
    ['no names', '{"o":[]}'],
    ['an empty name', '{"n":[""]}'],
    ['a flag that is not 1', '{"n":["x"],"o":[{"n":["-q"],"v":true}]}'],
    ['an unknown template', '{"n":["x"],"a":[{"t":"anything"}]}'],
    ['a value count below 2', '{"n":["x"],"o":[{"n":["-q"],"v":1,"vc":1}]}'],
    ['a deferred node without a resolver', '{"n":["x"],"s":[{"n":["s"],"x":["x~20~s.json","0123456789abcdef"]}]}'],
    ['nesting deeper than any grammar', '{"n":["x"],"s":['.repeat(70) + '{"n":["y"]}' + ']}'.repeat(70)],
  ])('decodes %s to no grammar', (_what, text) => {
    expect(decodeGrammar(text)).toBeUndefined();
  });

  it('defers top-level subcommands to files of their own, read on first use', () => {
    const texts = new Map<string, string>();
    const text = encodeGrammar(full, (sub, subText) => {
      texts.set(`f-${sub.names[0]}`, subText);
      return [`f-${sub.names[0]}`, 'sum'];
    });
    const reads: string[] = [];
    const node = decodeGrammar(text, (file, checksum) => {
      reads.push(`${file} ${checksum}`);
      return decodeGrammar(texts.get(file)!);
    });
    expect(reads).toEqual([]);
    expect(node?.subcommands[0]?.optionsBeforeArgs).toBe(true);
    expect(node?.subcommands[0]?.options).toEqual([]);
    expect(reads).toEqual(['f-run sum']);
    expect(node).toEqual(full);
  });

  it('makes a deferred subcommand whose file cannot be read an empty node: nothing under it is known', () => {
    const text = encodeGrammar(full, () => ['gone', 'sum']);
    const node = decodeGrammar(text, () => undefined);
    expect(node?.subcommands[0]).toEqual({
      names: ['run'],
      options: [],
      subcommands: [],
      args: [],
      optionsBeforeArgs: undefined,
      noClusters: undefined,
    });
    expect(node?.options).toEqual(full.options);
  });
});
