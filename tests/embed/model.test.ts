import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Embedder } from '../../src/embed/embedder.js';
import { BUILTIN_MODEL_FILE, BUILTIN_VOCAB_FILE, loadBuiltin, loadEmbedder } from '../../src/embed/model.js';
import { encodeStaticEmbeddingModel } from '../../src/embed/static-graph.js';

const dot = (a: Float32Array, b: Float32Array): number => a.reduce((s, x, i) => s + x * b[i]!, 0);

describe('the shipped command-embedding model', () => {
  let model: Embedder;
  beforeAll(async () => {
    model = await loadEmbedder({ kind: 'builtin' });
  });

  it('loads from the package with a checksum id and unit-length vectors', async () => {
    expect(model.id).toMatch(/^builtin:sha256:[0-9a-f]{64}$/);
    expect(model.dimensions).toBeGreaterThanOrEqual(32);
    const vectors = await model.embed(['git status', 'rm -rf /tmp/build-output', '{"query":"x"}', '']);
    expect(vectors).toHaveLength(4);
    for (const v of vectors) {
      expect(v.length).toBe(model.dimensions);
      expect(Math.sqrt(dot(v, v))).toBeCloseTo(1, 5);
    }
    expect(await model.embed([])).toEqual([]);
  });

  it('is deterministic, and a text embeds the same alone or in a padded batch', async () => {
    const [alone] = await model.embed(['npm run build']);
    const batch = await model.embed(['git log --oneline -n 5 --graph --decorate', 'npm run build']);
    const again = await loadEmbedder({ kind: 'builtin' });
    expect(again.id).toBe(model.id);
    const [reloaded] = await again.embed(['npm run build']);
    for (let k = 0; k < model.dimensions; k++) {
      expect(batch[1]![k]).toBeCloseTo(alone![k]!, 6);
      expect(reloaded![k]).toBe(alone![k]);
    }
  });

  it.each([
    ['git log --oneline -n 5', 'git log -n 10', 'rm -rf build'],
    ['ls -la src', 'ls docs', 'curl https://example.com/'],
    ['rm -rf /tmp/build-output', 'rm -rf /tmp/build-cache', 'git push origin main'],
    ['npm install lodash', 'npm install --save-dev typescript', 'docker ps'],
    ['docker compose up -d', 'docker compose up --build', 'kubectl delete pod web'],
    ['tar -xzvf archive.tar.gz', 'tar --extract --file backup.tar.gz', 'zip -r out.zip src'],
    // where a command points stays visible: a temp directory is not the home directory
    ['rm -rf /tmp/build-output', 'rm -rf /tmp/build-cache', 'rm -rf ~'],
    ['cat README.md', 'less README.md', 'cat ~/.aws/credentials'],
  ])('places %s nearer to %s than to %s', async (anchor, near, far) => {
    const [a, n, f] = await model.embed([anchor, near, far]);
    expect(dot(a!, n!)).toBeGreaterThan(dot(a!, f!));
  });

  it('embeds one call in well under the 5 ms budget (median of 50)', async () => {
    const times: number[] = [];
    for (let i = 0; i < 50; i++) {
      const t = performance.now();
      await model.embed([`git log --oneline -n ${i}`]);
      times.push(performance.now() - t);
    }
    times.sort((x, y) => x - y);
    expect(times[25]!).toBeLessThan(5);
  });
});

describe('loadBuiltin refuses broken model files with a message naming the file', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hookwise-builtin-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const vocab = { format: 'hookwise-command-vocab', version: 1, tokens: ['p:ls'], ngramBuckets: 2, oovBuckets: 2 };
  const tables = (rows: number, dim: number) => ({
    table: Float32Array.from({ length: rows * dim }, (_, i) => (i < dim ? 0 : ((i * 7919) % 13) - 6)),
    weights: Float32Array.from({ length: rows }, (_, i) => (i === 0 ? 0 : 1)),
    rows,
    dim,
  });

  it('missing files', async () => {
    const empty = join(dir, 'empty');
    mkdirSync(empty);
    await expect(loadBuiltin(empty)).rejects.toThrow(new RegExp(`${BUILTIN_MODEL_FILE} is missing`));
  });

  it('a vocabulary that is not one', async () => {
    const d = join(dir, 'bad-vocab');
    mkdirSync(d);
    writeFileSync(join(d, BUILTIN_MODEL_FILE), encodeStaticEmbeddingModel(tables(6, 4)));
    writeFileSync(join(d, BUILTIN_VOCAB_FILE), '{"format":"other"}');
    await expect(loadBuiltin(d)).rejects.toThrow(/command-vocab\.json is not a hookwise command vocabulary/);
    writeFileSync(join(d, BUILTIN_VOCAB_FILE), '{not json');
    await expect(loadBuiltin(d)).rejects.toThrow(/command-vocab\.json is not valid JSON/);
  });

  it('a model file onnxruntime cannot load', async () => {
    const d = join(dir, 'bad-model');
    mkdirSync(d);
    writeFileSync(join(d, BUILTIN_MODEL_FILE), 'not a model');
    writeFileSync(join(d, BUILTIN_VOCAB_FILE), JSON.stringify(vocab));
    await expect(loadBuiltin(d)).rejects.toThrow(/command-embedding\.onnx is not a model onnxruntime can load/);
  });

  it('loads a generated model of the same shape and embeds through it', async () => {
    const d = join(dir, 'tiny');
    mkdirSync(d);
    writeFileSync(join(d, BUILTIN_MODEL_FILE), encodeStaticEmbeddingModel(tables(6, 4)));
    writeFileSync(join(d, BUILTIN_VOCAB_FILE), JSON.stringify(vocab));
    const tiny = await loadBuiltin(d);
    expect(tiny.dimensions).toBe(4);
    const [v] = await tiny.embed(['ls']);
    expect(Math.sqrt(dot(v!, v!))).toBeCloseTo(1, 5);
  });
});
