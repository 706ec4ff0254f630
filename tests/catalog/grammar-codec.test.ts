/** The table's on-disk form: every field survives a round trip, defaults are left out, damage decodes to nothing. */
import { describe, expect, it } from 'vitest';
import { decodeGrammar, encodeGrammar, type TextRef } from '../../src/catalog/grammar-codec.js';
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
    ['a deferred node without a resolver', '{"n":["x"],"s":[{"n":["s"],"x":[0,10,"0123456789abcdef"]}]}'],
    ['nesting deeper than any grammar', '{"n":["x"],"s":['.repeat(70) + '{"n":["y"]}' + ']}'.repeat(70)],
  ])('decodes %s to no grammar', (_what, text) => {
    expect(decodeGrammar(text)).toBeUndefined();
  });

  it('defers top-level subcommands to texts of their own, read on first use', () => {
    const texts: string[] = [];
    const text = encodeGrammar(full, (_sub, subText) => {
      texts.push(subText);
      return [texts.length - 1, subText.length, '0123456789abcdef'];
    });
    const reads: TextRef[] = [];
    const node = decodeGrammar(text, (ref) => {
      reads.push(ref);
      return decodeGrammar(texts[ref[0]]!);
    });
    expect(reads).toEqual([]);
    expect(node?.subcommands[0]?.optionsBeforeArgs).toBe(true);
    expect(node?.subcommands[0]?.options).toEqual([]);
    expect(reads).toEqual([[0, texts[0]!.length, '0123456789abcdef']]);
    expect(node).toEqual(full);
  });

  it('makes a deferred subcommand whose text cannot be read an empty node: nothing under it is known', () => {
    const text = encodeGrammar(full, () => [0, 10, '0123456789abcdef']);
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
