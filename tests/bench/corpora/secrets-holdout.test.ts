/**
 * bench/corpora/secrets-holdout.ts is well formed: the same rows for the same seed, at least 150 rows per
 * label, every listed secret inside its row's text, every kind with at least 3 rows and one label, and no
 * secret listed on a clean row. What the sanitizer does with these rows is measured by
 * `hookwise sanitize --eval holdout`, not asserted here.
 */
import { describe, expect, it } from 'vitest';
import { buildHoldoutCorpus, HOLDOUT_SEED } from '../../../bench/corpora/secrets-holdout.js';
import { HOLDOUT_CORPUS, holdoutCorpus } from '../../../bench/eval-secrets.js';

describe('the held-out secrets corpus', () => {
  const rows = buildHoldoutCorpus();

  it('is deterministic: the same rows for the same seed, other rows for another seed', () => {
    expect(buildHoldoutCorpus()).toEqual(rows);
    expect(buildHoldoutCorpus(HOLDOUT_SEED)).toEqual(rows);
    const other = buildHoldoutCorpus(HOLDOUT_SEED + 1);
    expect(other.length).toBe(rows.length);
    expect(other.map((r) => r.text)).not.toEqual(rows.map((r) => r.text));
  });

  it('has at least 150 rows of each label', () => {
    expect(rows.filter((r) => r.label === 'secret').length).toBeGreaterThanOrEqual(150);
    expect(rows.filter((r) => r.label === 'clean').length).toBeGreaterThanOrEqual(150);
  });

  it('lists, on every secret row, secrets that occur in its text; clean rows list none', () => {
    for (const [i, row] of rows.entries()) {
      if (row.label === 'clean') {
        expect(row.secrets, `row ${i} (${row.kind})`).toEqual([]);
        continue;
      }
      expect(row.secrets.length, `row ${i} (${row.kind})`).toBeGreaterThan(0);
      for (const s of row.secrets) {
        expect(s.length, `row ${i} (${row.kind})`).toBeGreaterThanOrEqual(3);
        expect(row.text.includes(s), `row ${i} (${row.kind}): a listed secret is not in the text`).toBe(true);
      }
    }
  });

  it('holds every listed secret in every seed (generated values, not fixed ones)', () => {
    for (const seed of [1, 2, 3, 0xdeadbeef]) {
      for (const row of buildHoldoutCorpus(seed)) for (const s of row.secrets) expect(row.text.includes(s)).toBe(true);
    }
  });

  it('has at least 3 rows of every kind, and each kind belongs to one label', () => {
    const counts = new Map<string, number>();
    const labels = new Map<string, Set<string>>();
    for (const row of rows) {
      counts.set(row.kind, (counts.get(row.kind) ?? 0) + 1);
      labels.set(row.kind, (labels.get(row.kind) ?? new Set()).add(row.label));
    }
    for (const [kind, n] of counts) expect(n, kind).toBeGreaterThanOrEqual(3);
    for (const [kind, set] of labels) expect(set.size, kind).toBe(1);
  });

  it(`is what \`--eval ${HOLDOUT_CORPUS}\` evaluates: one evaluator row per corpus row, judged by its listed secrets`, () => {
    const evalRows = holdoutCorpus();
    expect(evalRows.map((r) => ({ text: r.text, label: r.label, kind: r.kind, secrets: r.secrets }))).toEqual(rows);
    expect(evalRows.every((r) => r.rule === r.kind && /^#\d+$/.test(r.file))).toBe(true);
    expect(new Set(evalRows.map((r) => `${r.kind} ${r.file}`)).size).toBe(rows.length);
  });
});
