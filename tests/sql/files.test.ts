import { describe, expect, it } from 'vitest';
import { includeOf, includesOf, sqlFileKey } from '../../src/sql/files.js';

describe('SQL files: client commands that include a file', () => {
  it.each([
    ['\\i setup.sql', { word: 'setup.sql', relative: false }],
    ['\\include db/seed.sql', { word: 'db/seed.sql', relative: false }],
    ['\\ir ../common.sql', { word: '../common.sql', relative: true }],
    ['\\include_relative x.sql', { word: 'x.sql', relative: true }],
    ["\\i 'quoted.sql'", { word: 'quoted.sql', relative: false }],
    ['.read schema.sql', { word: 'schema.sql', relative: false }],
    ['\\. dump.sql', { word: 'dump.sql', relative: false }],
    ['source dump.sql', { word: 'dump.sql', relative: false }],
    ['SOURCE  ~/sql/dump.sql ', { word: '~/sql/dump.sql', relative: false }],
  ])('%s includes a file', (meta, expected) => expect(includeOf(meta)).toEqual(expected));

  it.each([
    ['\\i `echo x.sql`', 'a backtick runs a shell command'],
    ['\\i :file', 'a psql variable is known only at run time'],
    [".read '|cat x.sql'", 'sqlite3 runs a program'],
    ['\\i', 'no file'],
    ['\\i a.sql b.sql', 'two words'],
    ['\\d users', 'a listing'],
    ['\\i -', 'stdin'],
    ["source 'dump.sql'", 'the mysql client keeps the quotes in the name'],
    ["\\. 'dump.sql'", 'the same for its short form'],
    ['source\tdump.sql', 'mysql wants a space after the command'],
    ['source dump.sql -- note', 'mysql reads the rest of the line as the name'],
    ['\\i ~bob/x.sql', "another user's home, which the client expands"],
  ])('%s is no include (%s)', (meta) => expect(includeOf(meta)).toBeUndefined());

  it("finds mysql's `source` at the start of a statement or a line, never where a comment could change the name", () => {
    const text =
      'source a.sql;\nSELECT 1; source b.sql;\n/* c */ source c.sql;\nsource d.sql -- x\nsource e.sql /* x */;\n';
    expect(includesOf(text, 'mysql').map((i) => i.word)).toEqual(['a.sql', 'b.sql', 'c.sql']);
    expect(includesOf('source a.sql;', 'postgresql')).toEqual([]);
  });

  it('finds includes on lines of their own, not inside statements or literals', () => {
    const text = "SELECT '\n\\i not-this.sql\n';\n\\i first.sql\n-- \\i commented.sql\nSELECT 1;\n\\ir second.sql\n";
    expect(includesOf(text, 'postgresql')).toEqual([
      { word: 'first.sql', relative: false },
      { word: 'second.sql', relative: true },
    ]);
  });

  it('names a file by segment, the file it is relative to, and the word', () => {
    expect(sqlFileKey(0, 'a.sql')).not.toBe(sqlFileKey(1, 'a.sql'));
    expect(sqlFileKey(0, 'a.sql', sqlFileKey(0, 'b.sql'))).not.toBe(sqlFileKey(0, 'a.sql'));
  });
});
