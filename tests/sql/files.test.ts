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
  ])('%s includes a file', (meta, expected) => expect(includeOf(meta)).toEqual(expected));

  it.each([
    ['\\i `echo x.sql`', 'a backtick runs a shell command'],
    ['\\i :file', 'a psql variable is known only at run time'],
    [".read '|cat x.sql'", 'sqlite3 runs a program'],
    ['\\i', 'no file'],
    ['\\i a.sql b.sql', 'two words'],
    ['\\d users', 'a listing'],
    ['\\i -', 'stdin'],
  ])('%s is no include (%s)', (meta) => expect(includeOf(meta)).toBeUndefined());

  it('finds includes on lines of their own, not inside statements or literals', () => {
    const text = "SELECT '\n\\i not-this.sql\n';\n\\i first.sql\n-- \\i commented.sql\nSELECT 1;\n\\ir second.sql\n";
    expect(includesOf(text)).toEqual([
      { word: 'first.sql', relative: false },
      { word: 'second.sql', relative: true },
    ]);
  });

  it('names a file by segment, the file it is relative to, and the word', () => {
    expect(sqlFileKey(0, 'a.sql')).not.toBe(sqlFileKey(1, 'a.sql'));
    expect(sqlFileKey(0, 'a.sql', sqlFileKey(0, 'b.sql'))).not.toBe(sqlFileKey(0, 'a.sql'));
  });
});
