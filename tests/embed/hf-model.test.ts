import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadHfTokenizer } from '../../src/embed/hf-tokenizer.js';
import { loadEmbedder, pool } from '../../src/embed/model.js';
import { encodeOnnxModel, type OnnxModel, type OnnxNode } from '../../src/embed/onnx-writer.js';

// ---- a tiny WordPiece (BERT-style) tokenizer.json
const WORDPIECE_VOCAB = {
  '[PAD]': 0,
  '[UNK]': 1,
  '[CLS]': 2,
  '[SEP]': 3,
  git: 4,
  log: 5,
  '-': 6,
  n: 7,
  '##s': 8,
  status: 9,
  cafe: 10,
  un: 11,
  '##known': 12,
};
const wordPieceJson = {
  version: '1.0',
  truncation: null,
  padding: null,
  added_tokens: [],
  normalizer: {
    type: 'BertNormalizer',
    clean_text: true,
    handle_chinese_chars: true,
    strip_accents: null,
    lowercase: true,
  },
  pre_tokenizer: { type: 'BertPreTokenizer' },
  post_processor: {
    type: 'TemplateProcessing',
    single: [
      { SpecialToken: { id: '[CLS]', type_id: 0 } },
      { Sequence: { id: 'A', type_id: 0 } },
      { SpecialToken: { id: '[SEP]', type_id: 0 } },
    ],
    pair: [],
    special_tokens: {
      '[CLS]': { id: '[CLS]', ids: [2], tokens: ['[CLS]'] },
      '[SEP]': { id: '[SEP]', ids: [3], tokens: ['[SEP]'] },
    },
  },
  decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
  model: {
    type: 'WordPiece',
    unk_token: '[UNK]',
    continuing_subword_prefix: '##',
    max_input_chars_per_word: 100,
    vocab: WORDPIECE_VOCAB,
  },
};

// ---- a tiny byte-level BPE (RoBERTa-style) tokenizer.json; Ġ is the byte-level space
const bpeJson = {
  version: '1.0',
  normalizer: null,
  pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
  post_processor: {
    type: 'RobertaProcessing',
    sep: ['</s>', 2],
    cls: ['<s>', 0],
    trim_offsets: true,
    add_prefix_space: false,
  },
  model: {
    type: 'BPE',
    unk_token: '<unk>',
    vocab: {
      '<s>': 0,
      '<pad>': 1,
      '</s>': 2,
      '<unk>': 3,
      l: 4,
      s: 5,
      Ġ: 6,
      '-': 7,
      a: 8,
      ls: 9,
      'Ġ-': 10,
      la: 11,
      as: 12,
    },
    merges: ['l s', 'Ġ -', 'l a', ['a', 's']],
  },
};

describe('Hugging Face tokenizer.json', () => {
  it('WordPiece: BERT normalization (lowercase, accents), punctuation split, ## continuation, [UNK], [CLS]/[SEP]', () => {
    const t = loadHfTokenizer(wordPieceJson, 'tokenizer.json');
    expect(t.encode('Git LOGs -n', 512)).toEqual([2, 4, 5, 8, 6, 7, 3]);
    expect(t.encode('Café unknown xyz', 512)).toEqual([2, 10, 11, 12, 1, 3]);
    expect(t.encode('git\tstatus\u0000', 512)).toEqual([2, 4, 9, 3]);
    expect(t.padId).toBe(0);
  });

  it('truncates to the maximum length with the special tokens kept', () => {
    const t = loadHfTokenizer(wordPieceJson, 'tokenizer.json');
    expect(t.encode('git log status git log', 4)).toEqual([2, 4, 5, 3]);
  });

  it('byte-level BPE: GPT-2 pre-split, merges applied by rank, bytes of unknown characters, <s>…</s>', () => {
    const t = loadHfTokenizer(bpeJson, 'tokenizer.json');
    expect(t.encode('ls -la', 512)).toEqual([0, 9, 10, 11, 2]);
    // l·a ranks before a·s: "las" → la + s, not l + as
    expect(t.encode('las', 512)).toEqual([0, 11, 5, 2]);
    // é is two UTF-8 bytes, mapped to two byte-level characters the vocab lacks: <unk> each
    expect(t.encode('é', 512)).toEqual([0, 3, 3, 2]);
    expect(t.padId).toBe(1);
  });

  it('refuses what it does not implement, naming the file and the part', () => {
    expect(() =>
      loadHfTokenizer({ ...wordPieceJson, model: { type: 'Unigram', vocab: [] } }, '/m/tokenizer.json'),
    ).toThrow(/\/m\/tokenizer\.json: tokenizer model Unigram is not supported/);
    expect(() =>
      loadHfTokenizer({ ...wordPieceJson, pre_tokenizer: { type: 'Metaspace' } }, '/m/tokenizer.json'),
    ).toThrow(/pre_tokenizer Metaspace is not supported/);
    expect(() =>
      loadHfTokenizer({ ...wordPieceJson, model: { ...wordPieceJson.model, unk_token: '<nope>' } }, 't.json'),
    ).toThrow(/unk_token <nope> is not in the vocab/);
  });
});

// ---- tiny ONNX models in the shape sentence-transformers exports
const DIM = 3;
/** Row i of the token table: [i, 1, (i % 2)]; token type 0 adds [0, 0, 0.5] (so token_type_ids must be fed, as zeros). */
const TOKEN_TABLE = Float32Array.from({ length: 16 * DIM }, (_, k) => {
  const [i, c] = [Math.floor(k / DIM), k % DIM];
  return c === 0 ? i : c === 1 ? 1 : i % 2;
});
const row = (i: number): number[] => [i, 1, (i % 2) + 0.5];

function bertLike(output: 'last_hidden_state' | 'sentence_embedding'): OnnxModel {
  const nodes: OnnxNode[] = [
    { op: 'Gather', inputs: ['table', 'input_ids'], outputs: ['tok'], attributes: { axis: { kind: 'int', value: 0 } } },
    {
      op: 'Gather',
      inputs: ['types', 'token_type_ids'],
      outputs: ['typ'],
      attributes: { axis: { kind: 'int', value: 0 } },
    },
    { op: 'Add', inputs: ['tok', 'typ'], outputs: [output === 'last_hidden_state' ? output : 'hidden'] },
  ];
  if (output === 'sentence_embedding')
    nodes.push({
      op: 'ReduceMax',
      inputs: ['hidden'],
      outputs: [output],
      attributes: { axes: { kind: 'ints', value: [1] }, keepdims: { kind: 'int', value: 0 } },
    });
  return {
    graph: {
      name: 'tiny-bert',
      nodes,
      initializers: [
        { name: 'table', type: 'float', dims: [16, DIM], data: TOKEN_TABLE },
        { name: 'types', type: 'float', dims: [2, DIM], data: Float32Array.from([0, 0, 0.5, 9, 9, 9]) },
      ],
      inputs: [
        { name: 'input_ids', type: 'int64', shape: ['batch', 'seq'] },
        { name: 'attention_mask', type: 'int64', shape: ['batch', 'seq'] },
        { name: 'token_type_ids', type: 'int64', shape: ['batch', 'seq'] },
      ],
      outputs: [
        { name: output, type: 'float', shape: output === 'last_hidden_state' ? ['batch', 'seq', DIM] : ['batch', DIM] },
      ],
    },
  };
}

const unit = (v: number[]): number[] => {
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
};
const mean = (rows: number[][]): number[] => rows[0]!.map((_, k) => rows.reduce((s, r) => s + r[k]!, 0) / rows.length);

describe('loadEmbedder({kind: huggingface})', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'hookwise-hf-'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  function modelDir(name: string, files: Record<string, string | Uint8Array>): string {
    const dir = join(root, name);
    mkdirSync(dir, { mode: 0o755 });
    for (const [file, data] of Object.entries(files)) {
      mkdirSync(join(dir, file, '..'), { recursive: true, mode: 0o755 });
      writeFileSync(join(dir, file), data, { mode: 0o644 });
    }
    return dir;
  }
  const st = (pooling: 'mean' | 'cls') => ({
    'modules.json': JSON.stringify([
      { idx: 0, name: '0', path: '', type: 'sentence_transformers.models.Transformer' },
      { idx: 1, name: '1', path: '1_Pooling', type: 'sentence_transformers.models.Pooling' },
      { idx: 2, name: '2', path: '2_Normalize', type: 'sentence_transformers.models.Normalize' },
    ]),
    '1_Pooling/config.json': JSON.stringify({
      word_embedding_dimension: DIM,
      pooling_mode_cls_token: pooling === 'cls',
      pooling_mode_mean_tokens: pooling === 'mean',
      pooling_mode_max_tokens: false,
    }),
  });

  it('WordPiece + mean pooling over the attention mask + L2 normalization, batch-invariant', async () => {
    const dir = modelDir('mean', {
      'tokenizer.json': JSON.stringify(wordPieceJson),
      'model.onnx': encodeOnnxModel(bertLike('last_hidden_state')),
      ...st('mean'),
    });
    const e = await loadEmbedder({ kind: 'huggingface', dir });
    expect(e.dimensions).toBe(DIM);
    expect(e.id).toMatch(/^huggingface:sha256:[0-9a-f]{64}$/);
    const [short, long] = await e.embed(['git log', 'git status -n cafe']);
    // [CLS] git log [SEP] = ids 2 4 5 3
    const expectedShort = unit(mean([row(2), row(4), row(5), row(3)]));
    Array.from(short!).forEach((x, k) => expect(x).toBeCloseTo(expectedShort[k]!, 5));
    const expectedLong = unit(mean([row(2), row(4), row(9), row(6), row(7), row(10), row(3)]));
    Array.from(long!).forEach((x, k) => expect(x).toBeCloseTo(expectedLong[k]!, 5));
    const [alone] = await e.embed(['git log']);
    Array.from(alone!).forEach((x, k) => expect(x).toBeCloseTo(short![k]!, 6));
  });

  it('CLS pooling from 1_Pooling/config.json, the model under onnx/, BPE tokenization', async () => {
    const dir = modelDir('cls', {
      'tokenizer.json': JSON.stringify(bpeJson),
      'onnx/model.onnx': encodeOnnxModel(bertLike('last_hidden_state')),
      ...st('cls'),
    });
    const e = await loadEmbedder({ kind: 'huggingface', dir });
    const [v] = await e.embed(['ls -la']);
    const expected = unit(row(0)); // <s> = id 0
    Array.from(v!).forEach((x, k) => expect(x).toBeCloseTo(expected[k]!, 5));
  });

  it('a 2-D sentence_embedding output is taken as is (then normalized)', async () => {
    const dir = modelDir('sentence', {
      'tokenizer.json': JSON.stringify(wordPieceJson),
      'model.onnx': encodeOnnxModel(bertLike('sentence_embedding')),
    });
    const e = await loadEmbedder({ kind: 'huggingface', dir });
    const [v] = await e.embed(['git log']);
    const expected = unit([5, 1, 1.5]); // max over [CLS] git log [SEP] rows
    Array.from(v!).forEach((x, k) => expect(x).toBeCloseTo(expected[k]!, 5));
  });

  it('names the missing or broken file', async () => {
    const noModel = modelDir('no-model', { 'tokenizer.json': JSON.stringify(wordPieceJson) });
    await expect(loadEmbedder({ kind: 'huggingface', dir: noModel })).rejects.toThrow(
      new RegExp(`${noModel}/model\\.onnx is missing`),
    );
    const noTokenizer = modelDir('no-tokenizer', { 'model.onnx': encodeOnnxModel(bertLike('last_hidden_state')) });
    await expect(loadEmbedder({ kind: 'huggingface', dir: noTokenizer })).rejects.toThrow(
      new RegExp(`${noTokenizer}/tokenizer\\.json is missing`),
    );
    const badJson = modelDir('bad-json', {
      'model.onnx': encodeOnnxModel(bertLike('last_hidden_state')),
      'tokenizer.json': '{"model": ',
    });
    await expect(loadEmbedder({ kind: 'huggingface', dir: badJson })).rejects.toThrow(
      /tokenizer\.json is not valid JSON/,
    );
    const badModel = modelDir('bad-model', {
      'model.onnx': 'garbage',
      'tokenizer.json': JSON.stringify(wordPieceJson),
    });
    await expect(loadEmbedder({ kind: 'huggingface', dir: badModel })).rejects.toThrow(
      /model\.onnx is not a model onnxruntime can load/,
    );
    const maxPool = modelDir('max-pool', {
      'model.onnx': encodeOnnxModel(bertLike('last_hidden_state')),
      'tokenizer.json': JSON.stringify(wordPieceJson),
      '1_Pooling/config.json': JSON.stringify({ pooling_mode_max_tokens: true }),
    });
    await expect(loadEmbedder({ kind: 'huggingface', dir: maxPool })).rejects.toThrow(
      /1_Pooling\/config\.json: pooling max_tokens is not supported/,
    );
    await expect(loadEmbedder({ kind: 'huggingface', dir: join(root, 'nowhere') })).rejects.toThrow(
      /nowhere does not exist/,
    );
  });

  it('refuses a model directory or file others could have changed: a link, group/world-writable, not yours', async () => {
    const files = {
      'tokenizer.json': JSON.stringify(wordPieceJson),
      'model.onnx': encodeOnnxModel(bertLike('last_hidden_state')),
    };
    const real = modelDir('real', files);
    const link = join(root, 'link');
    symlinkSync(real, link);
    await expect(loadEmbedder({ kind: 'huggingface', dir: link })).rejects.toThrow(/is a symbolic link/);

    const shared = modelDir('shared', files);
    chmodSync(shared, 0o775);
    await expect(loadEmbedder({ kind: 'huggingface', dir: shared })).rejects.toThrow(
      /shared is writable by others \(mode 775\)/,
    );

    const writableFile = modelDir('writable-file', files);
    chmodSync(join(writableFile, 'tokenizer.json'), 0o666);
    await expect(loadEmbedder({ kind: 'huggingface', dir: writableFile })).rejects.toThrow(
      /tokenizer\.json is writable by others/,
    );

    const linkedFile = modelDir('linked-file', { 'model.onnx': files['model.onnx'] });
    symlinkSync(join(real, 'tokenizer.json'), join(linkedFile, 'tokenizer.json'));
    await expect(loadEmbedder({ kind: 'huggingface', dir: linkedFile })).rejects.toThrow(
      /tokenizer\.json is a symbolic link/,
    );

    const linkedPooling = modelDir('linked-pooling', files);
    const elsewhere = modelDir('elsewhere', { 'config.json': JSON.stringify({ pooling_mode_cls_token: true }) });
    symlinkSync(elsewhere, join(linkedPooling, '1_Pooling'));
    await expect(loadEmbedder({ kind: 'huggingface', dir: linkedPooling })).rejects.toThrow(
      /1_Pooling is a symbolic link/,
    );

    if (process.getuid?.() === 0) {
      const foreign = modelDir('foreign', files);
      chownSync(foreign, 4242, 4242);
      await expect(loadEmbedder({ kind: 'huggingface', dir: foreign })).rejects.toThrow(
        /belongs to uid 4242, not to you/,
      );
    }
  });
});

describe('pool', () => {
  it('averages only the attended tokens; cls takes the first', () => {
    // two texts, seq 3, dim 2; the second has one padding position
    const hidden = Float32Array.from([1, 2, 3, 4, 5, 6, 10, 20, 30, 40, 99, 99]);
    const mask = BigInt64Array.from([1n, 1n, 1n, 1n, 1n, 0n]);
    expect(Array.from(pool(hidden, mask, 2, 3, 2, 'mean'))).toEqual([3, 4, 20, 30]);
    expect(Array.from(pool(hidden, mask, 2, 3, 2, 'cls'))).toEqual([1, 2, 10, 20]);
  });
});
