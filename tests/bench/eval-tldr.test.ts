/**
 * bench/eval-tldr.ts: placeholders are filled by what they name (files that exist, outputs that do not, loopback
 * addresses, both spellings of an alternation), rows are grouped by the page and the description's words, and a
 * small corpus written here goes through the built `hookwise check --jsonl` (needs dist/). The tldr corpus itself
 * is not needed: it lives in ../shared, which a clone does not have.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  classifyTldr,
  evaluateTldr,
  fillPlaceholders,
  hasAlternation,
  leadingVerb,
  renderTldrEval,
  type Needs,
} from '../../bench/eval-tldr.js';
import { evalTldr } from '../../src/cli/bench.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'hookwise-eval-tldr-test-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const fresh = (): Needs => ({ files: new Set(), dirs: new Set() });

describe('filling placeholders', () => {
  it('fills an input file with one that will exist, an output with one that will not, a directory as a directory', () => {
    const needs = fresh();
    expect(fillPlaceholders('wc -l {{path/to/file.txt}}', 'first', '/p', needs)).toBe('wc -l data/file.txt');
    expect(fillPlaceholders('sort {{path/to/in}} -o {{path/to/output_file}}', 'first', '/p', needs)).toBe(
      'sort data/in -o data/output_file',
    );
    expect(fillPlaceholders('du -sh {{path/to/directory}}', 'first', '/p', needs)).toBe('du -sh data/directory');
    expect([...needs.files].sort()).toEqual(['data/file.txt', 'data/in']);
    expect([...needs.dirs]).toEqual(['data/directory']);
  });

  it('names an absolute or home placeholder path absolutely, inside the project', () => {
    const needs = fresh();
    expect(fillPlaceholders('cat {{/path/to/notes.md}}', 'first', '/p', needs)).toBe('cat /p/data/notes.md');
    expect(fillPlaceholders('cat {{~/path/to/notes.md}}', 'first', '/p', needs)).toBe('cat /p/data/notes.md');
  });

  it('expands a list of files, and keeps each', () => {
    const needs = fresh();
    expect(fillPlaceholders('cat {{path/to/file1 path/to/file2 ...}}', 'first', '/p', needs)).toBe(
      'cat data/file1 data/file2',
    );
    expect(needs.files.size).toBe(2);
  });

  it('gives an alternation its first or last spelling, and a choice of values its first', () => {
    const c = 'grep {{[-r|--recursive]}} {{pattern}} {{path/to/directory}}';
    expect(hasAlternation(c)).toBe(true);
    expect(fillPlaceholders(c, 'first', '/p', fresh())).toBe('grep -r TODO data/directory');
    expect(fillPlaceholders(c, 'last', '/p', fresh())).toBe('grep --recursive TODO data/directory');
    expect(hasAlternation('echo {{$!|$?}}')).toBe(false);
    expect(fillPlaceholders('echo {{$!|$?}}', 'last', '/p', fresh())).toBe('echo $!');
  });

  it('sends network placeholders to loopback and keeps numbers numeric', () => {
    expect(fillPlaceholders('curl {{https://example.com}}', 'first', '/p', fresh())).toBe(
      'curl http://127.0.0.1:8080/',
    );
    expect(fillPlaceholders('ping {{host}} -c {{count}}', 'first', '/p', fresh())).toBe('ping 127.0.0.1 -c 10');
    expect(fillPlaceholders('ssh {{192.168.178.2}} -p {{port}}', 'first', '/p', fresh())).toBe('ssh 127.0.0.1 -p 8080');
    expect(fillPlaceholders('head -n {{5}}', 'first', '/p', fresh())).toBe('head -n 5');
  });
});

describe('grouping rows by what they do', () => {
  it('reads the leading verb past adverbs and mnemonic brackets', () => {
    expect(leadingVerb('[l]ist all files:')).toBe('list');
    expect(leadingVerb('Recursively [d]elete a directory:')).toBe('delete');
    expect(leadingVerb('[Interactive] Show the menu:')).toBe('show');
  });

  it('puts each row in the highest group its verb, page and command reach', () => {
    const g = (page: string, command: string, description: string) =>
      classifyTldr({ page, command, description }).group;
    expect(g('wc', 'wc -l {{path/to/file}}', 'Count lines in a file:')).toBe('read-only');
    expect(g('gzip', 'gzip {{path/to/file}}', 'Compress a file:')).toBe('local-write');
    expect(g('useradd', 'useradd {{username}}', 'Create a new user:')).toBe('system');
    expect(g('dig', 'dig {{example.com}}', 'Lookup the IP of a domain:')).toBe('network');
    expect(g('foo', 'foo get {{url}}', 'Show a resource:')).toBe('network');
    expect(g('rm', 'rm {{path/to/file}}', 'Print what would be removed:')).toBe('destructive');
    expect(g('apt', 'sudo apt list', 'List packages:')).toBe('system');
    expect(g('sort', 'sort {{path/to/file}} > {{path/to/sorted}}', 'Sort a file:')).toBe('local-write');
    expect(g('foo', 'foo', 'Run the program:')).toBe('other');
  });
});

describe('the evaluation', () => {
  it('runs a small corpus through check --jsonl and reports every group', () => {
    const corpus = join(dir, 'tldr.jsonl');
    writeFileSync(
      corpus,
      [
        { page: 'wc', command: 'wc {{[-l|--lines]}} {{path/to/file}}', description: 'Count lines:' },
        { page: 'rm', command: 'rm {{[-r|--recursive]}} {{path/to/directory}}', description: 'Remove a directory:' },
        { page: 'cat', command: 'cat {{path/to/file}}', description: 'Print a file:' },
      ]
        .map((r) => JSON.stringify(r))
        .join('\n'),
    );
    const e = evaluateTldr(corpus);
    expect(e.rows).toBe(3);
    expect(e.calls).toBe(5);
    expect(e.groups['read-only']).toMatchObject({ rows: 2, calls: 3, asked: 0 });
    expect(e.groups['read-only'].last).toMatchObject({ rows: 1, calls: 1, asked: 0 });
    expect(e.groups.destructive).toMatchObject({ rows: 1, calls: 2 });
    expect(e.groups.destructive.asked).toBe(2);
    expect(e.calls_.map((c) => c.command)).toContain('wc --lines data/file');
    expect(e.readOnlyBase).toMatchObject({ rows: 2, calls: 3, asked: 0 });
    const text = renderTldrEval(e);
    for (const group of ['read-only', 'local-write', 'system', 'network', 'destructive', 'other'])
      expect(text).toContain(group);
  });

  it('says it skips when the default corpus is absent, and measures nothing', () => {
    let printed = '';
    evalTldr({ evalTldr: true }, (text) => (printed = text), join(dir, 'absent.jsonl'));
    expect(printed).toContain('absent.jsonl: skipped, not found');
    expect(() => evalTldr({ evalTldr: join(dir, 'absent.jsonl') }, () => undefined)).toThrow(/tldr corpus not found/);
  });
});
