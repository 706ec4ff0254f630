/**
 * The compiled catalogue as the hot path reads it: the whole catalogue written into a temp dir by the build's
 * serializer reads back as compiled, a large entry one subcommand at a time, every kind of damage failing
 * closed with a reason naming the file; and the installed table (dist/catalog/, built by `npm run build`).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { matchSegment } from '../../src/catalog/match.js';
import { compileSources } from '../../src/catalog/sources.js';
import { ENTRIES_FILE, INDEX_FILE, serializeCatalog } from '../../src/catalog/table-codec.js';
import { CatalogDamaged, CatalogTableReader, memoryCatalog } from '../../src/catalog/table.js';
import { packageRoot } from '../../src/util/package-root.js';
import { xxh64BytesHex } from '../../src/util/xxhash.js';
import { seg } from '../support/segments.js';

const { table } = compileSources();
const written = serializeCatalog(table, xxh64BytesHex);
const memory = memoryCatalog(table);

const tmp = mkdtempSync(join(tmpdir(), 'hookwise-catalog-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let dir = '';
let n = 0;
beforeEach(() => {
  dir = join(tmp, `t${n++}`);
  mkdirSync(dir);
  writeFileSync(join(dir, INDEX_FILE), written.index);
  writeFileSync(join(dir, ENTRIES_FILE), written.entries);
});

/** Where the index says `name`'s text lies. */
function refOf(name: string): [offset: number, length: number] {
  const row = readFileSync(join(dir, INDEX_FILE), 'utf8')
    .split('\n')
    .find((line) => line.startsWith(`${name}\t`))!;
  const [, offset, length] = row.split('\t');
  return [Number(offset), Number(length)];
}

function overwrite(offset: number, text: string): void {
  const bytes = readFileSync(join(dir, ENTRIES_FILE));
  bytes.write(text, offset);
  writeFileSync(join(dir, ENTRIES_FILE), bytes);
}

describe('catalogue table reader', () => {
  it('reads every program back as compiled, aliases and version forms included', () => {
    const reader = new CatalogTableReader(dir);
    expect(reader.programs()).toEqual(Object.keys(table.programs).sort());
    for (const name of reader.programs()) expect(reader.entry(name), name).toEqual(memory.entry(name));
    expect(reader.versionForms()).toBe(table.versionForms);
    expect(reader.problem()).toBeUndefined();
  });

  it('matches a segment as the compiled table does', () => {
    const reader = new CatalogTableReader(dir);
    for (const text of ['git status --short', 'git log --oneline -5', 'rg -n TODO src', 'node --version', 'wc -l a'])
      expect(matchSegment(seg(text), reader), text).toEqual(matchSegment(seg(text), memory));
  });

  it('knows nothing of names the table does not have, nor of names that could match across rows', () => {
    const reader = new CatalogTableReader(dir);
    for (const name of ['nosuch', '', '__proto__', 'constructor', 'hookwise-catalog', 'git\tx', 'x\ngit', 'git\n'])
      expect(reader.entry(name), JSON.stringify(name)).toBeUndefined();
    expect(reader.problem()).toBeUndefined();
  });

  it("keeps a large entry's subcommands as texts of their own, each read when first walked into", () => {
    const [offset, length] = refOf('git');
    expect(length).toBeLessThan(JSON.stringify(memory.entry('git')).length / 4);
    const top = JSON.parse(
      readFileSync(join(dir, ENTRIES_FILE))
        .subarray(offset, offset + length)
        .toString(),
    ) as {
      root: { commands: { names: string[]; x?: [number, number, string] }[] };
    };
    const log = top.root.commands.find((c) => c.names.includes('log'))!.x!;
    // git log's text is altered after git's entry was read: log is unknown, status is not.
    const reader = new CatalogTableReader(dir);
    expect(matchSegment(seg('git status'), reader).knowledge).toBe('allow');
    overwrite(log[0] + 5, 'X');
    expect(matchSegment(seg('git status --short'), reader).knowledge).toBe('allow');
    const m = matchSegment(seg('git log -1'), reader);
    expect(m.knowledge).toBe('decline');
    expect(m.reason).toMatch(/the catalogue table is damaged: the text of git log in .*entries\.jsonl does not match/);
  });

  it.each([
    ['a missing table', () => rmSync(join(dir, INDEX_FILE)), /cannot read .*index\.tsv \(ENOENT\)/],
    [
      'an index without its header',
      () => writeFileSync(join(dir, INDEX_FILE), 'wc\t0\t1\t0\n'),
      /not a catalogue index/,
    ],
    [
      'an index of another layout',
      () => edit(INDEX_FILE, (t) => t.replace(/^hookwise-catalog\t1\t/, 'hookwise-catalog\t99\t')),
      /index\.tsv is not a catalogue index of this hookwise's format/,
    ],
    [
      'an index row altered',
      () => edit(INDEX_FILE, (t) => t.replace(/\nwc\t(\d+)\t/, (_m, o: string) => `\nwc\t${Number(o) + 1}\t`)),
      /index\.tsv does not match its checksum/,
    ],
    ['a missing entries file', () => rmSync(join(dir, ENTRIES_FILE)), /cannot read .*entries\.jsonl \(ENOENT\)/],
    [
      'an entries file cut short',
      () => truncateSync(join(dir, ENTRIES_FILE), 10),
      /the text of wc in .*entries\.jsonl is cut short/,
    ],
    [
      "a program's text altered by one byte",
      () => overwrite(refOf('wc')[0] + 3, 'X'),
      /the text of wc in .*entries\.jsonl does not match its checksum/,
    ],
  ])('fails closed on %s: the program is unknown and the reason names the file', (_what, damage, problem) => {
    damage();
    const reader = new CatalogTableReader(dir);
    expect(() => reader.entry('wc')).toThrow(CatalogDamaged);
    const m = matchSegment(seg('wc -l a.txt'), reader);
    expect(m.knowledge).toBe('decline');
    expect(m.reason).toMatch(problem);
    expect(m.unaccounted?.why).toMatch(problem);
    expect(reader.problem()).toMatch(problem);
  });

  it('does not remember damage: a table fixed by a build is used by the same reader', () => {
    const reader = new CatalogTableReader(dir);
    rmSync(join(dir, INDEX_FILE));
    expect(matchSegment(seg('wc -l a'), reader).knowledge).toBe('decline');
    expect(reader.problem()).toMatch(/cannot read .*index\.tsv/);
    writeFileSync(join(dir, INDEX_FILE), written.index);
    expect(matchSegment(seg('wc -l a'), reader).knowledge).toBe('allow');
    expect(reader.problem()).toBeUndefined();
  });

  it('takes up a table rebuilt under it (a daemon across a build): one match is not judged, the next is', () => {
    const reader = new CatalogTableReader(dir);
    expect(matchSegment(seg('git status'), reader).knowledge).toBe('allow'); // git's root and status read
    // Another build: the same entries in reverse order, so every text lies elsewhere; a new sha256.
    const last = table.entries.length - 1;
    const programs = Object.fromEntries(Object.entries(table.programs).map(([name, at]) => [name, last - at]));
    const entries = [...table.entries].reverse();
    const rebuilt = serializeCatalog({ ...table, programs, entries, checksum: 'f'.repeat(64) }, xxh64BytesHex);
    writeFileSync(join(dir, ENTRIES_FILE), rebuilt.entries);
    writeFileSync(join(dir, INDEX_FILE), rebuilt.index);
    // git log's text is read at the old offset: caught in the middle of a match.
    const caught = matchSegment(seg('git log -1'), reader);
    expect(caught.knowledge).toBe('decline');
    expect(caught.reason).toMatch(/was rebuilt while in use/);
    expect(matchSegment(seg('git log -1'), reader)).toEqual(matchSegment(seg('git log -1'), memory));
    // A program not read before is looked up in the new table at once.
    expect(reader.entry('rg')).toEqual(memory.entry('rg'));
    expect(reader.problem()).toBeUndefined();
  });

  it('fails closed on a text whose checksum matches but which is no compiled program (a table built wrong)', () => {
    const text = '{"root":{}}';
    const offset = readFileSync(join(dir, ENTRIES_FILE)).length;
    writeFileSync(join(dir, ENTRIES_FILE), Buffer.concat([readFileSync(join(dir, ENTRIES_FILE)), Buffer.from(text)]));
    const rows = readFileSync(join(dir, INDEX_FILE), 'utf8').replace(
      /\nwc\t[^\n]*/,
      `\nwc\t${offset}\t${text.length}\t${xxh64BytesHex(Buffer.from(text))}`,
    );
    const body = rows.slice(rows.indexOf('\n'));
    const header = rows.slice(0, rows.indexOf('\n')).split('\t');
    header[3] = xxh64BytesHex(Buffer.from(body));
    writeFileSync(join(dir, INDEX_FILE), `${header.join('\t')}${body}`);
    expect(matchSegment(seg('wc -l a'), new CatalogTableReader(dir)).reason).toMatch(
      /wc's entry is not a compiled program \(.*entries\.jsonl\)/,
    );
  });
});

describe('the installed table', () => {
  const installed = join(packageRoot(), 'dist', 'catalog');
  it.skipIf(!existsSync(join(installed, INDEX_FILE)))('resolves programs of the built catalogue', () => {
    const reader = new CatalogTableReader(installed);
    expect(matchSegment(seg('git status --short'), reader).knowledge).toBe('allow');
    expect(reader.problem()).toBeUndefined();
  });
});

function edit(file: string, change: (text: string) => string): void {
  writeFileSync(join(dir, file), change(readFileSync(join(dir, file), 'utf8')));
}
