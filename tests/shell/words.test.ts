/**
 * Word expansion on a word's pieces, as Bash does it: escapes, ANSI-C text, brace expansion (bounded), globs
 * and tilde forms marked dynamic. Rows read `pieces → words`, a piece written `'text'` when quoted, `text`
 * when not, and a word `text*` when dynamic (judged as written, never taken literally).
 */
import { describe, expect, it } from 'vitest';
import { decodeAnsiC, finishWord, unescapeDoubleQuoted, unquotedPieces, type Piece } from '../../src/shell/words.js';

/** `a 'b' c`: pieces separated by spaces; quoted ones in single quotes. */
function pieces(spec: string): Piece[] {
  return spec
    .split(' ')
    .map((p) =>
      p.startsWith("'") && p.endsWith("'") && p.length >= 2
        ? { text: p.slice(1, -1), quoted: true, dynamic: false }
        : { text: p, quoted: false, dynamic: false },
    );
}

function shown(spec: string): string[] {
  return finishWord(pieces(spec)).map((w) => (w.dynamic ? `${w.text}*` : w.text));
}

describe('brace expansion', () => {
  it.each([
    ['.en{v,}', ['.env', '.en']],
    ['x{a,b}{c,d}', ['xac', 'xad', 'xbc', 'xbd']],
    ['{a,{b,c}}d', ['ad', 'bd', 'cd']],
    ['a{1..3}', ['a1', 'a2', 'a3']],
    ['{3..1}', ['3', '2', '1']],
    ['{01..03}', ['01', '02', '03']],
    ['{1..7..3}', ['1', '4', '7']],
    ['{a..c}', ['a', 'b', 'c']],
    ['{x}', ['{x}']],
    ['{}', ['{}']],
    ['{a,b', ['{a,b']],
    ['${HOME}', ['${HOME}']],
    ["'{a,b}'", ['{a,b}']],
    ["'x' {a,b}", ['xa', 'xb']],
  ])('%s → %j', (spec, expected) => {
    expect(shown(spec)).toEqual(expected);
  });

  it('a sequence longer than the bound stays one dynamic word', () => {
    expect(shown('{1..1000}')).toEqual(['{1..1000}*']);
  });

  it('a product longer than the bound stays one dynamic word, unexpanded', () => {
    const word = '{a,b}'.repeat(9); // 512 words
    expect(shown(word)).toEqual([`${word}*`]);
  });

  it('a word with more brace groups than the bound is not expanded', () => {
    const word = '{a}'.repeat(33);
    expect(shown(word)).toEqual([`${word}*`]);
  });
});

describe('globs and tilde', () => {
  it.each([
    ['*.ts', ['*.ts*']],
    ['src/?.js', ['src/?.js*']],
    ['[ab].txt', ['[ab].txt*']],
    ["'*.ts'", ['*.ts']],
    ['~', ['~']],
    ['~/notes', ['~/notes']],
    ['~root/.ssh', ['~root/.ssh*']],
    ['~+', ['~+*']],
  ])('%s → %j', (spec, expected) => {
    expect(shown(spec)).toEqual(expected);
  });
});

describe('quoting', () => {
  it.each([
    ['\\x41', 'A'],
    ['\\101', 'A'],
    ['\\u00e9', 'é'],
    ['\\U0001F600', '😀'],
    ['a\\tb', 'a\tb'],
    ['\\cA', '\x01'],
    ["it\\'s", "it's"],
    ['\\q', '\\q'],
  ])('$%j decodes to %j', (text, expected) => {
    expect(decodeAnsiC(text)).toBe(expected);
  });

  it.each([
    ['\\$HOME', '$HOME'],
    ['\\"quoted\\"', '"quoted"'],
    ['a\\\nb', 'ab'],
    ['\\n stays', '\\n stays'],
  ])('"%s" unescapes to %j', (text, expected) => {
    expect(unescapeDoubleQuoted(text)).toBe(expected);
  });

  it('a backslash quotes the next character of an unquoted word; backslash-newline disappears', () => {
    const out: Piece[] = [];
    unquotedPieces('a\\ b\\\nc', out);
    expect(out).toEqual([
      { text: 'a', quoted: false, dynamic: false },
      { text: ' ', quoted: true, dynamic: false },
      { text: 'bc', quoted: false, dynamic: false },
    ]);
  });

  it('an escaped brace is not expanded', () => {
    const out: Piece[] = [];
    unquotedPieces('\\{a,b}', out);
    expect(finishWord(out)).toEqual([{ text: '{a,b}', dynamic: false }]);
  });
});
