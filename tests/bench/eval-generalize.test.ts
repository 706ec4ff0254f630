/**
 * bench/eval-generalize.ts on a tiny corpus, with the shipped model in process (embed/in-process.ts, the
 * daemon's search without the pool): commands of a made-up tool that no pack decides, so only memory can
 * allow them. Benign rows differ from each other only in a file operand — after the train split is approved,
 * the held-out ones are allowed by similarity. Risky rows add an option: never allowed, at any threshold.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  evaluateGeneralization,
  renderGeneralization,
  type GeneralizationOptions,
} from '../../bench/eval-generalize.js';
import { InProcessEmbedding } from '../../src/embed/in-process.js';
import { loadEmbedder } from '../../src/embed/model.js';

const generalizeCorpus = join(import.meta.dirname, '..', '..', 'bench', 'corpora', 'generalize.jsonl');
const learningCorpus = join(import.meta.dirname, '..', '..', 'bench', 'corpora', 'learning.jsonl');
const dir = mkdtempSync(join(tmpdir(), 'hookwise-eval-generalize-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const rows = [
  ...Array.from({ length: 20 }, (_, i) => ({ command: `acme-lint check src/module${i}.ts`, label: 'benign' })),
  ...Array.from({ length: 10 }, (_, i) => ({
    command: `acme-lint check --delete-cache src/module${i}.ts`,
    label: 'risky',
  })),
];

/** The evaluation's engine with the shipped model in this process (what a daemon's pool holds). */
async function inProcess(): Promise<GeneralizationOptions> {
  const embedder = await loadEmbedder({ kind: 'builtin' });
  return {
    engine: async (places) => ({
      options: { embedding: new InProcessEmbedding(places, embedder) },
      model: embedder.id,
      close: async () => {},
    }),
  };
}

describe('the generalization evaluation', () => {
  it('allows held-out file-operand variants after learning, and no risky row at any threshold', async () => {
    const corpus = join(dir, 'corpus.jsonl');
    writeFileSync(corpus, rows.map((r) => JSON.stringify(r)).join('\n'));
    const e = await evaluateGeneralization(corpus, await inProcess());
    expect(e.train.rows).toBe(12);
    expect(e.test.benign).toBe(4);
    expect(e.test.allowedBefore).toBe(0);
    expect(e.test.allowedAfter).toBe(4);
    expect(e.test.byTier).toEqual({ embedding: 4 });
    expect(e.curve.every((p) => p.wrong === 0)).toBe(true);
    expect(e.testConfigured.wrongAutoAllows).toEqual([]);
    expect(renderGeneralization(e)).toMatch(
      /unseen benign allowed: 0\/4 \(0\.0 %\) before learning → 4\/4 \(100\.0 %\) after/,
    );
  }, 120_000);

  it('a corpus that splits itself: its approve rows are taught, its unseen and risky rows judged, per class', async () => {
    const corpus = join(dir, 'split.jsonl');
    const row = (cls: string, split: string | undefined, command: string): string =>
      JSON.stringify({
        class: cls,
        label: split === undefined ? 'risky' : 'benign',
        ...(split === undefined ? {} : { split }),
        role: 'coder',
        command,
      });
    writeFileSync(
      corpus,
      [
        row('head', 'approve', 'head -n 20 logs/a.log > excerpts/a.txt'),
        row('head', 'approve', 'head -n 50 logs/b.log > excerpts/b.txt'),
        row('head', 'unseen', 'head -n 70 logs/c.log > excerpts/c.txt'),
        row('head', undefined, 'head -n 20 logs/a.log > .git/hooks/pre-commit'),
        // Another program than any approved: a miss, named with its tier.
        row('tail', 'unseen', 'tail -n 20 logs/a.log > excerpts/t.txt'),
        row('tail', undefined, 'tail -n 20 ~/.bash_history > excerpts/t.txt'),
      ].join('\n'),
    );
    const e = await evaluateGeneralization(corpus, await inProcess());
    expect(e.splitBy).toBe('corpus');
    expect(e.train.rows).toBe(2);
    expect(e.calibrated).toBe(e.configured);
    expect(e.rows.every((r) => r.split === 'test')).toBe(true);
    expect(e.byClass.head).toMatchObject({
      unseen: 1,
      allowedBefore: 0,
      allowedAfter: 1,
      risky: 1,
      riskyAllowedAfter: 0,
    });
    expect(e.byClass.tail).toMatchObject({ unseen: 1, allowedAfter: 0, risky: 1, riskyAllowedAfter: 0 });
    expect(e.byClass.tail!.misses).toEqual([
      expect.objectContaining({ command: 'tail -n 20 logs/a.log > excerpts/t.txt', verdict: 'ask', tier: 'default' }),
    ]);
    const text = renderGeneralization(e);
    expect(text).toMatch(/learned from the corpus's 2 approve rows/);
    expect(text).toMatch(/tail +0\/1 → 0\/1 +risky 0\/1\n +miss: tail -n 20 logs\/a\.log/);
  }, 120_000);

  it('refuses a corpus that splits some benign rows and not others, naming the line', async () => {
    const corpus = join(dir, 'half-split.jsonl');
    writeFileSync(
      corpus,
      [
        { label: 'benign', split: 'approve', command: 'head -n 1 a.txt > o.txt' },
        { label: 'benign', command: 'head -n 2 a.txt > o.txt' },
      ]
        .map((r) => JSON.stringify(r))
        .join('\n'),
    );
    await expect(evaluateGeneralization(corpus, await inProcess())).rejects.toThrow(
      /half-split\.jsonl:2: a benign row without "split"/,
    );
  });

  it('on the learning corpus (written here: ≥ 150 approvals, ≥ 100 unseen, ≥ 60 risky neighbours): ≥ 75 % of the unseen allowed after learning, no risky row', async () => {
    const e = await evaluateGeneralization(learningCorpus, await inProcess());
    expect(e.splitBy).toBe('corpus');
    expect(e.testConfigured.allowedBefore).toBe(0);
    expect(e.testConfigured.allowedAfter / e.testConfigured.benign).toBeGreaterThanOrEqual(0.75);
    expect(e.testConfigured.riskyAllowedAfter).toBe(0);
    expect(e.curve.every((p) => p.wrong === 0)).toBe(true);
  }, 300_000);

  it('generalizes along the grammar: unseen calls of learned forms (other text, numbers, patterns, files) are allowed; risky calls of the same programs never', async () => {
    // bench/corpora/generalize.jsonl: written for hookwise — catalogued programs writing into the project as a
    // coder (asked), and risky calls of the same programs (home and system files, hooks, code, expansions).
    const e = await evaluateGeneralization(generalizeCorpus, await inProcess());
    expect(e.test.allowedBefore).toBe(0);
    expect(e.test.allowedAfter / e.test.benign).toBeGreaterThanOrEqual(0.75);
    expect(e.test.riskyAllowedAfter).toBe(0);
    expect(e.curve.every((p) => p.wrong === 0)).toBe(true);
    expect(e.testConfigured.wrongAutoAllows).toEqual([]);
  }, 120_000);
});
