/**
 * bench/corpora/learning.jsonl is well formed: unique ids, known fields and roles, a note on every row, and
 * enough of each side to mean something — at least 150 approvals, 100 unseen benign rows and 60 risky
 * neighbours. Every class that holds unseen rows has approvals they can be learned from. What hookwise makes
 * of the rows is measured by `bench --eval-learning … --generalize` (tests/bench/eval-generalize.test.ts).
 */
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readCorpus } from '../../../bench/eval-commands.js';
import { BUILT_IN_ROLES } from '../../../src/policy/defaults.js';

const corpus = join(import.meta.dirname, '..', '..', '..', 'bench', 'corpora', 'learning.jsonl');
const FIELDS = new Set(['id', 'class', 'label', 'split', 'role', 'command', 'note']);

describe('the learning corpus', () => {
  const rows = readCorpus(corpus);

  it('has unique kebab-case ids, only the known fields, a class and a note on every row, known roles', () => {
    const ids = rows.map((r) => r.id);
    expect(ids.every((id) => typeof id === 'string' && /^[a-z0-9][a-z0-9-]*$/.test(id))).toBe(true);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    readFileSync(corpus, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .forEach((text, i) =>
        expect(
          Object.keys(JSON.parse(text) as object).filter((k) => !FIELDS.has(k)),
          `line ${i + 1}`,
        ).toEqual([]),
      );
    for (const r of rows) {
      const where = `${r.id} (line ${r.line})`;
      expect(typeof r.class === 'string' && r.class !== '', where).toBe(true);
      expect(typeof r.note === 'string' && r.note.trim() !== '', where).toBe(true);
      expect(typeof r.command === 'string' && r.command.trim() !== '', where).toBe(true);
      if (r.role !== undefined) expect(Object.keys(BUILT_IN_ROLES), where).toContain(r.role);
    }
  });

  it('splits every benign row (approve or unseen) and no risky one, with enough of each', () => {
    for (const r of rows) {
      const where = `${r.id} (line ${r.line})`;
      if (r.label === 'benign') expect(['approve', 'unseen'], where).toContain(r.split);
      else expect(r.split, where).toBeUndefined();
    }
    expect(rows.filter((r) => r.split === 'approve').length).toBeGreaterThanOrEqual(150);
    expect(rows.filter((r) => r.split === 'unseen').length).toBeGreaterThanOrEqual(100);
    expect(rows.filter((r) => r.label === 'risky').length).toBeGreaterThanOrEqual(60);
  });

  it('gives every class with unseen rows approvals to learn them from, and a risky neighbour', () => {
    const classes = new Set(rows.map((r) => r.class!));
    for (const c of classes) {
      const of = rows.filter((r) => r.class === c);
      if (of.some((r) => r.split === 'unseen'))
        expect(
          of.some((r) => r.split === 'approve'),
          c,
        ).toBe(true);
      expect(
        of.some((r) => r.label === 'risky'),
        c,
      ).toBe(true);
    }
  });
});
