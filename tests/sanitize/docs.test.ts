/**
 * docs/secrets.md lists every pattern of the table with the page documenting its format: a pattern added,
 * removed or re-linked without the doc fails here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PATTERNS } from '../../src/sanitize/patterns.js';

const doc = readFileSync(join(__dirname, '..', '..', 'docs', 'secrets.md'), 'utf8');
const rows = new Map(
  doc
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => [line.slice(3, line.indexOf('`', 3)), line] as const),
);

describe('docs/secrets.md', () => {
  it('lists every pattern, with its reference, and no pattern that is gone', () => {
    const wrong = PATTERNS.filter((p) => !(rows.get(p.id)?.includes(`](${p.reference})`) ?? false)).map((p) => p.id);
    expect(wrong).toEqual([]);
    const ids = new Set(PATTERNS.map((p) => p.id));
    expect([...rows.keys()].filter((id) => !ids.has(id))).toEqual([]);
  });

  it('states the number of patterns, as docs/decisions.md does', () => {
    expect(doc).toContain(`**${PATTERNS.length} patterns**`);
    expect(readFileSync(join(__dirname, '..', '..', 'docs', 'decisions.md'), 'utf8')).toContain(
      `${PATTERNS.length} patterns (RE2`,
    );
  });
});
