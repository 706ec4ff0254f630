/** Layer 1's automaton: every occurrence, overlapping ones included, ASCII case folding, bytes vs UTF-16, serialization. */
import { describe, expect, it } from 'vitest';
import { Automaton, type AhoKeyword } from '../../src/sanitize/aho.js';

type Hit = [keyword: string, end: number];

function hits(a: Automaton, keywords: readonly AhoKeyword[], text: string): Hit[] {
  const out: Hit[] = [];
  a.scanString(text, (k, end) => out.push([keywords[k]!.text, end]));
  return out.sort((x, y) => x[1] - y[1] || (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
}

/** The reference: indexOf at every position. */
function naive(keywords: readonly AhoKeyword[], text: string): Hit[] {
  const out: Hit[] = [];
  for (const k of keywords) {
    const hay = k.ignoreCase ? text.replace(/[A-Z]/g, (c) => c.toLowerCase()) : text;
    const needle = k.ignoreCase ? k.text.toLowerCase() : k.text;
    for (let at = hay.indexOf(needle); at >= 0; at = hay.indexOf(needle, at + 1))
      out.push([k.text, at + needle.length]);
  }
  return out.sort((x, y) => x[1] - y[1] || (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
}

const ci = (text: string): AhoKeyword => ({ text, ignoreCase: true });
const cs = (text: string): AhoKeyword => ({ text, ignoreCase: false });

describe('Automaton', () => {
  it('finds overlapping keywords and keywords that are suffixes of others (he, she, his, hers)', () => {
    const kws = ['he', 'she', 'his', 'hers'].map(ci);
    expect(hits(Automaton.build(kws), kws, 'ushers')).toEqual([
      ['he', 4],
      ['she', 4],
      ['hers', 6],
    ]);
  });

  it('folds ASCII case for case-insensitive keywords and verifies case-sensitive ones', () => {
    const kws = [ci('token'), cs('AKIA'), cs('ghp_')];
    const a = Automaton.build(kws);
    expect(hits(a, kws, 'TOKEN Token akia AKIA GHP_ ghp_')).toEqual([
      ['token', 5],
      ['token', 11],
      ['AKIA', 21],
      ['ghp_', 31],
    ]);
  });

  it('keeps a case-sensitive and a case-insensitive keyword with the same letters apart', () => {
    const kws = [cs('SG.'), ci('sg.')];
    const a = Automaton.build(kws);
    expect(hits(a, kws, 'sg. SG.')).toEqual([
      ['sg.', 3],
      ['SG.', 7],
      ['sg.', 7],
    ]);
    expect(hits(a, kws, 'Sg.')).toEqual([['sg.', 3]]);
  });

  it('reports offsets in UTF-16 units for strings and finds the same keywords in the UTF-8 bytes', () => {
    const kws = [ci('pass'), cs('://')];
    const a = Automaton.build(kws);
    const text = 'é😀 PASS=x https://ü';
    expect(hits(a, kws, text)).toEqual(naive(kws, text));
    const fromBytes: string[] = [];
    a.scanBytes(Buffer.from(text, 'utf8'), (k) => fromBytes.push(kws[k]!.text));
    expect(fromBytes).toEqual(hits(a, kws, text).map(([k]) => k));
  });

  it('agrees with a naive search on random text over a small alphabet', () => {
    const kws = ['ab', 'abab', 'bab', 'b', 'AbA', 'ba-', '-'].map((t, i) => (i % 2 === 0 ? ci(t) : cs(t)));
    const a = Automaton.build(kws);
    let seed = 7;
    for (let round = 0; round < 200; round++) {
      let text = '';
      for (let i = 0; i < 40; i++) {
        seed = (seed * 1103515245 + 12345) & 0x7fffffff;
        text += 'abAB-é'[seed % 6];
      }
      expect(hits(a, kws, text), text).toEqual(naive(kws, text));
    }
  });

  it('round-trips through serialize/deserialize with identical results, completed or not', () => {
    const kws = ['password', 'pass', 'sk-', 'sk-ant-', 'ghp_', 'git'].map((t, i) => (i < 2 ? ci(t) : cs(t)));
    const built = Automaton.build(kws);
    const text = 'git push; PASSWORD=x; sk-ant-api03 and ghp_abc; passport';
    const before = hits(built, kws, text);
    const copy = Buffer.from(built.complete().serialize()); // a fresh, 8-byte aligned buffer of its own
    const loaded = Automaton.deserialize(new Uint8Array(copy.buffer, copy.byteOffset, copy.byteLength));
    expect(hits(loaded, kws, text)).toEqual(before);
    expect(hits(built, kws, text)).toEqual(before);
    expect(loaded.stateCount).toBe(built.stateCount);
  });

  it('rejects serialized tables that are misaligned, truncated or inconsistent', () => {
    const bytes = Automaton.build([ci('abc')])
      .complete()
      .serialize();
    const shifted = new Uint8Array(bytes.byteLength + 4);
    shifted.set(bytes, 4);
    expect(() => Automaton.deserialize(shifted.subarray(4))).toThrow(/aligned/);
    expect(() => Automaton.deserialize(bytes.subarray(0, 16))).toThrow(/truncated|out of bounds/);
    const broken = new Uint8Array(bytes);
    new Int32Array(broken.buffer, 0, 2)[1] = 999999; // the meta table's length
    expect(() => Automaton.deserialize(broken)).toThrow();
  });

  it('rejects empty and non-ASCII keywords', () => {
    expect(() => Automaton.build([ci('')])).toThrow(/empty/);
    expect(() => Automaton.build([ci('pässword')])).toThrow(/not ASCII/);
  });
});
