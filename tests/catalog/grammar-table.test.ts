/**
 * The run-time reader over a table written into a temp dir from the fixtures, every kind of damage failing
 * closed; and the installed table (dist/catalog-grammar/, built by `npm run build`) resolving real programs.
 */
import {
  appendFileSync,
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { buildGrammarTable } from '../../src/catalog/grammar-build.js';
import { indexRow, parseIndexRow, type IndexRow } from '../../src/catalog/grammar-codec.js';
import { GrammarTableReader, lookupGrammar } from '../../src/catalog/grammar-table.js';
import type { GrammarNode, GrammarOption } from '../../src/catalog/grammar.js';
import { xxh64BytesHex } from '../../src/util/xxhash.js';
import { fixtureInput } from '../support/grammar-fixtures.js';

const tmp = mkdtempSync(join(tmpdir(), 'hookwise-grammar-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const built = await buildGrammarTable(fixtureInput());
let dir = '';
let n = 0;
beforeEach(() => {
  dir = join(tmp, `t${n++}`);
  mkdirSync(dir);
  for (const [file, text] of built.files) writeFileSync(join(dir, file), text);
});

function sub(node: GrammarNode | undefined, ...path: string[]): GrammarNode | undefined {
  for (const name of path) node = node?.subcommands.find((s) => s.names.includes(name));
  return node;
}
const option = (node: GrammarNode | undefined, name: string): GrammarOption | undefined =>
  node?.options.find((o) => o.names.includes(name));

describe('grammar table reader', () => {
  it('looks a program up by name, with its sources', () => {
    const found = new GrammarTableReader(dir).lookup('vcs');
    expect(option(sub(found.node, 'commit'), '-m')?.takesValue).toBe(true);
    expect(found.sources).toEqual([
      { origin: 'fig', ref: '@withfig/autocomplete@9.9.9' },
      { origin: 'hookwise', ref: 'src/catalog/grammar/vcs.yml' },
    ]);
    expect(found.problem).toBeUndefined();
  });

  it('knows nothing of a program the table does not have, nor of names that look like paths or keys', () => {
    const reader = new GrammarTableReader(dir);
    const names = ['nosuch', '../index', 'index', '__proto__', 'constructor', 'cloud svc0', '', 'hookwise-grammar'];
    for (const name of [...names, 'vcs\tx', 'x\nvcs', 'counter\n'])
      expect(reader.lookup(name)).toEqual({ sources: [] });
  });

  it('lists the programs it has a grammar for', () => {
    const programs = new GrammarTableReader(dir).programs();
    expect(programs).toContain('vcs');
    expect(programs).not.toContain('hookwise-grammar');
  });

  it('reads a split program one subcommand at a time', () => {
    const cloud = new GrammarTableReader(dir).lookup('cloud').node;
    // svc1's text is altered after the lookup but before its first use: svc1 is unknown, the rest is not.
    const top = JSON.parse(slice(row('cloud').text)) as { s: { n: string[]; x: [number, number, string] }[] };
    overwrite(top.s.find((sub) => sub.n[0] === 'svc1')!.x[0] + 3, 'X');
    expect(option(sub(cloud, 'svc0', 'call3'), '--option-number-7')?.takesValue).toBe(true);
    expect(sub(cloud, 'svc1')).toMatchObject({ options: [], subcommands: [], args: [] });
    expect(sub(cloud, 'svc2', 'call0')?.options).toHaveLength(30);
  });

  it.each([
    ['a missing table', () => rmSync(join(dir, 'index.tsv')), /grammar table missing: cannot read .*index\.tsv/],
    [
      'an index without its header',
      () => writeFileSync(join(dir, 'index.tsv'), 'counter\n'),
      /damaged or of another format/,
    ],
    [
      'an index of another format',
      () => edit('index.tsv', (t) => t.replace(/^hookwise-grammar\t1\t/, 'hookwise-grammar\t2\t')),
      /damaged or of another format/,
    ],
    [
      'a row that is not a row',
      () =>
        edit('index.tsv', (t) =>
          t.replace(/\ncounter\t\d+\t\d+\t[0-9a-f]{16}\t/, '\ncounter\t0\t-1\tnot-a-checksum\t'),
        ),
      /the row of counter in .*index\.tsv/,
    ],
    [
      'a missing grammar file',
      () => rmSync(join(dir, 'grammar.jsonl')),
      /counter's text in .*grammar\.jsonl is missing/,
    ],
    [
      'a grammar file cut short',
      () => truncateSync(join(dir, 'grammar.jsonl'), 10),
      /counter's text in .*grammar\.jsonl is missing or altered/,
    ],
    [
      'a program text altered by one byte',
      () => overwrite(row('counter').text[0] + 3, 'X'),
      /counter's text in .*grammar\.jsonl is missing or altered/,
    ],
  ])('fails closed on %s: no grammar, and a problem naming the file', (_what, damage, problem) => {
    damage();
    const found = new GrammarTableReader(dir).lookup('counter');
    expect(found.node).toBeUndefined();
    expect(found.sources).toEqual([]);
    expect(found.problem).toMatch(problem);
  });

  it('fails closed on a text whose checksum matches but which is no grammar (a table built wrong)', () => {
    const text = '{"n":[]}';
    const offset = readFileSync(join(dir, 'grammar.jsonl')).length;
    appendFileSync(join(dir, 'grammar.jsonl'), `${text}\n`);
    const counter: IndexRow = { ...row('counter'), text: [offset, text.length, xxh64BytesHex(Buffer.from(text))] };
    edit('index.tsv', (t) => t.replace(/\ncounter\t[^\n]*/, `\n${indexRow(counter)}`));
    expect(new GrammarTableReader(dir).lookup('counter').problem).toMatch(
      /counter's text in .*grammar\.jsonl is not a grammar/,
    );
  });
});

function row(program: string): IndexRow {
  const line = readFileSync(join(dir, 'index.tsv'), 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${program}\t`))!;
  return parseIndexRow(line)!;
}

function slice([offset, length]: [number, number, string]): string {
  return readFileSync(join(dir, 'grammar.jsonl'))
    .subarray(offset, offset + length)
    .toString('utf8');
}

function overwrite(position: number, char: string): void {
  const fd = openSync(join(dir, 'grammar.jsonl'), 'r+');
  writeSync(fd, char, position);
  closeSync(fd);
}

function edit(file: string, change: (text: string) => string): void {
  writeFileSync(join(dir, file), change(readFileSync(join(dir, file), 'utf8')));
}

describe('the installed table (npm run build)', () => {
  it.each([
    ['git', ['commit'], '-m', true],
    ['git', ['commit'], '--amend', false],
    // Fig gives tar's operation modes as subcommands spelled like options (t, -t, --list).
    ['tar', ['-t'], '-f', true],
    ['tar', [], '-C', true], // persistent: it applies under every mode
    ['wc', [], '--files0-from', true],
    ['wc', [], '-l', false],
  ])('%s %s has %s (takes a value: %s)', (program, path, name, takesValue) => {
    const found = lookupGrammar(program);
    expect(found.problem).toBeUndefined();
    expect(option(sub(found.node, ...path), name)?.takesValue).toBe(takesValue);
  });

  // The GNU/Linux entries (src/catalog/grammar/): the options Fig lacks or gets wrong, and the tools it lacks.
  it.each([
    ['date', [], '--file', 'filepaths'],
    ['du', [], '--files0-from', 'filepaths'],
    ['sort', [], '-o', 'filepaths'],
    ['file', [], '--files-from', 'filepaths'],
    ['journalctl', [], '-n', undefined],
    ['journalctl', [], '--directory', 'folders'],
    ['ss', [], '--net', undefined],
    ['lsblk', [], '--output', undefined],
    ['rpm', [], '--queryformat', undefined],
    ['dpkg', [], '--admindir', 'folders'],
    ['git', ['log'], '--output', 'filepaths'],
    ['git', ['grep'], '-f', 'filepaths'],
    ['git', ['cat-file'], '--batch', undefined],
  ])('%s %s %s takes a value (template %s)', (program, path, name, template) => {
    const found = option(sub(lookupGrammar(program).node, ...path), name);
    expect(found?.takesValue).toBe(true);
    expect(found?.template).toBe(template);
  });

  it.each([
    ['ip', ['a']],
    ['ip', ['address', 'show']],
    ['ip', ['r', 'get']],
    ['systemctl', ['status']],
    ['systemctl', ['list-units']],
    ['dpkg', ['-l']],
    ['dpkg', ['--listfiles']],
    ['apt-cache', ['policy']],
    ['apt', ['list']],
    ['git', ['stash', 'list']],
    ['git', ['ls-files']],
    ['git', ['rev-parse']],
  ])('%s %s is a known subcommand', (program, path) => {
    expect(sub(lookupGrammar(program).node, ...path)).toBeDefined();
  });

  it('knows the forms Fig cannot say: optional joined values, values up to a terminator, values joined by "-"', () => {
    expect(option(lookupGrammar('sed').node, '-i')).toMatchObject({ valueOptional: true, requiresEquals: true });
    expect(option(lookupGrammar('find').node, '-exec')?.valueTerminators).toEqual([';', '+']);
    expect(option(lookupGrammar('find').node, '-fprintf')?.valueCount).toBe(2);
    expect(lookupGrammar('find').node?.noClusters).toBe(true);
    expect(option(lookupGrammar('dpkg').node, '--force')).toMatchObject({ separator: '-', persistent: true });
    expect(lookupGrammar('lscpu').node?.options.length).toBeGreaterThan(5);
    expect(lookupGrammar('uuidgen').node?.options.length).toBeGreaterThan(5);
  });

  it('resolves a program split per subcommand (aws s3 cp) and says where the grammar came from', () => {
    const aws = lookupGrammar('aws');
    expect(aws.sources).toEqual([{ origin: 'fig', ref: expect.stringMatching(/^@withfig\/autocomplete@\d/) }]);
    expect(sub(aws.node, 's3', 'cp')).toBeDefined();
    expect(lookupGrammar('wc').sources).toEqual([{ origin: 'hookwise', ref: 'src/catalog/grammar/wc.yml' }]);
  });

  it('has no grammar for a program nobody wrote', () => {
    expect(lookupGrammar('no-such-program-here')).toEqual({ sources: [] });
  });
});
