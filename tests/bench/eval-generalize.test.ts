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
