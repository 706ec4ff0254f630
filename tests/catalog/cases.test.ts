/**
 * The catalogue's one-line cases (tests/catalog/cases/<program>.txt), parsed by the real shell parser and
 * matched against the compiled entries. A line is `<expect>  <command>`:
 *   allow    every word is accounted for and knowledge may allow it (its paths still go to the path policy)
 *   decline  every word is accounted for, but the effect is one knowledge never allows (runs given code)
 *   unknown  some word is not accounted for (an option, operand or form nobody annotated)
 * Blank lines and `#` comments are skipped. The first segment of the command is the one matched.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { matchSegment } from '../../src/catalog/match.js';
import { compileSources } from '../../src/catalog/sources.js';
import { parseCommand } from '../../src/shell/parse.js';

const DIR = join(import.meta.dirname, 'cases');
const EXPECTS = ['allow', 'decline', 'unknown'] as const;
type Expect = (typeof EXPECTS)[number];

interface Case {
  file: string;
  line: number;
  expect: Expect;
  command: string;
}

function readCases(): Case[] {
  const out: Case[] = [];
  for (const file of readdirSync(DIR).filter((f) => f.endsWith('.txt'))) {
    readFileSync(join(DIR, file), 'utf8')
      .split('\n')
      .forEach((text, i) => {
        const trimmed = text.trim();
        if (trimmed === '' || trimmed.startsWith('#')) return;
        const m = /^(\S+)\s+(.+)$/.exec(trimmed);
        if (m === null || !(EXPECTS as readonly string[]).includes(m[1]!))
          throw new Error(`${file}:${i + 1}: a case is "allow|decline|unknown  <command>"`);
        out.push({ file, line: i + 1, expect: m[1] as Expect, command: m[2]! });
      });
  }
  return out;
}

const CASES = readCases();

describe('catalogue cases', () => {
  it.each(CASES.map((c) => [`${c.file}:${c.line} ${c.expect}  ${c.command}`, c] as const))('%s', (_, c) => {
    const parsed = parseCommand(c.command);
    expect(parsed.ok, `${c.file}:${c.line} does not parse`).toBe(true);
    const match = matchSegment(parsed.segments[0]!);
    const got: Expect = match.unaccounted !== undefined ? 'unknown' : match.knowledge === 'allow' ? 'allow' : 'decline';
    expect(got, `${c.file}:${c.line}: ${match.reason}`).toBe(c.expect);
  });
});

describe('catalogue entries', () => {
  it('every entry compiles', () => {
    const { problems } = compileSources();
    expect(problems).toEqual([]);
  });

  it('every case file is named after a program with an entry, and has an allowed case', () => {
    const { table } = compileSources();
    const files = readdirSync(DIR).filter((f) => f.endsWith('.txt'));
    for (const file of files) {
      const program = file.slice(0, -'.txt'.length);
      expect(Object.hasOwn(table.programs, program), `${file}: no entry for ${program}`).toBe(true);
      expect(
        CASES.some((c) => c.file === file && c.expect === 'allow'),
        `${file} has no allow case`,
      ).toBe(true);
    }
  });
});
