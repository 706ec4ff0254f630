/**
 * Loads an Embedder (embedder.ts) through onnxruntime: the command-embedding model this package ships
 * (workers/model/), or a standard Hugging Face sentence-embedding model from a local directory.
 *
 * onnxruntime-node is imported here lazily and only here: the daemon's worker pool and `hookwise build` call
 * loadEmbedder; the command-mode hook never imports this module's runtime.
 */
import { createHash } from 'node:crypto';
import { constants, fstatSync, lstatSync, closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as Ort from 'onnxruntime-node';
import { HookwiseError } from '../core/errors.js';
import { isAbsent, readOwnedFile } from '../util/fs-safe.js';
import { packageRoot } from '../util/package-root.js';
import type { Embedder, ModelChoice } from './embedder.js';
import { CommandTokenizer, type CommandVocab } from './featurize.js';
import { loadHfTokenizer, type HfTokenizer } from './hf-tokenizer.js';

/** The shipped model's files, under the package root. */
export const BUILTIN_MODEL_DIR = join('workers', 'model');
export const BUILTIN_MODEL_FILE = 'command-embedding.onnx';
export const BUILTIN_VOCAB_FILE = 'command-vocab.json';

/** Texts per inference run: bounds the memory one embed() call takes (a build embeds thousands). */
const BUILTIN_BATCH = 64;
const HF_BATCH = 16;
/** The longest sequence a Hugging Face model is fed, whatever its config says (BERT-family position limit). */
export const HF_MAX_LENGTH = 512;
/** Files larger than this are refused before they are read (a model file: weights; the rest: JSON). */
const MAX_MODEL_BYTES = 2 * 1024 ** 3;
const MAX_JSON_BYTES = 64 * 1024 ** 2;

function modelError(message: string, cause?: unknown): HookwiseError {
  return new HookwiseError('MODEL_INVALID', message, cause === undefined ? undefined : { cause });
}

let ortModule: Promise<typeof Ort> | undefined;
/** onnxruntime-node, loaded on first use. */
function ort(): Promise<typeof Ort> {
  ortModule ??= import('onnxruntime-node');
  return ortModule;
}

export async function loadEmbedder(choice: ModelChoice): Promise<Embedder> {
  switch (choice.kind) {
    case 'builtin':
      return loadBuiltin(join(packageRoot(), BUILTIN_MODEL_DIR));
    case 'huggingface':
      return loadHuggingFace(choice.dir);
  }
}

// ---------------------------------------------------------------- reading files

/**
 * Read one file of a model. `owned`: a user's model directory — the file must be a regular file (never a
 * link), owned by this user and writable by nobody else, since what it holds decides what is allowed.
 * Otherwise (the package's own files): a regular file, never a link.
 */
function readModelFile(path: string, limit: number, owned: boolean): Buffer | undefined {
  let data: Buffer | undefined;
  try {
    if (owned) data = readOwnedFile(path, 'an embedding model', 'private');
    else {
      let fd: number;
      try {
        fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
      } catch (error) {
        if (isAbsent(error)) return undefined;
        throw error;
      }
      try {
        if (!fstatSync(fd).isFile()) throw modelError(`${path} is not a regular file`);
        data = readFileSync(fd);
      } finally {
        closeSync(fd);
      }
    }
  } catch (error) {
    if (error instanceof HookwiseError) throw modelError(error.message, error);
    if ((error as NodeJS.ErrnoException).code === 'ELOOP')
      throw modelError(`${path} is a symbolic link; hookwise will not load an embedding model through it`);
    throw modelError(`cannot read ${path}: ${(error as Error).message}`, error);
  }
  if (data !== undefined && data.length > limit)
    throw modelError(`${path} is ${data.length} bytes, more than the ${limit} hookwise reads for an embedding model`);
  return data;
}

function requireFile(path: string, limit: number, owned: boolean, what: string): Buffer {
  const data = readModelFile(path, limit, owned);
  if (data === undefined) throw modelError(`${path} is missing (${what})`);
  return data;
}

function parseJson(path: string, data: Buffer): unknown {
  try {
    return JSON.parse(data.toString('utf8'));
  } catch (error) {
    throw modelError(`${path} is not valid JSON: ${(error as Error).message}`, error);
  }
}

/** sha256 over the files that make the model (name, length, bytes each): the Embedder's id. */
function modelId(kind: string, files: readonly [string, Buffer][]): string {
  const h = createHash('sha256');
  h.update(kind);
  for (const [name, data] of files) {
    h.update(`\0${name}\0${data.length}\0`);
    h.update(data);
  }
  return `${kind}:sha256:${h.digest('hex')}`;
}

async function createSession(path: string, model: Buffer): Promise<Ort.InferenceSession> {
  const { InferenceSession } = await ort();
  try {
    // One intra-op thread: the daemon runs one session per pool worker, and the machine is shared.
    return await InferenceSession.create(model, {
      intraOpNumThreads: 1,
      interOpNumThreads: 1,
      graphOptimizationLevel: 'all',
    });
  } catch (error) {
    throw modelError(`${path} is not a model onnxruntime can load: ${(error as Error).message}`, error);
  }
}

/** Rows of a [n, dim] float32 result, each scaled to unit length (a zero or non-finite row is an error). */
function unitRows(data: Float32Array, n: number, dim: number, source: string): Float32Array[] {
  const rows: Float32Array[] = [];
  for (let r = 0; r < n; r++) {
    const row = data.slice(r * dim, (r + 1) * dim);
    let sum = 0;
    for (const x of row) sum += x * x;
    const norm = Math.sqrt(sum);
    if (!Number.isFinite(norm) || norm === 0)
      throw modelError(`${source} produced a ${Number.isFinite(norm) ? 'zero' : 'non-finite'} vector`);
    for (let k = 0; k < dim; k++) row[k] = row[k]! / norm;
    rows.push(row);
  }
  return rows;
}

async function inBatches(
  texts: readonly string[],
  size: number,
  run: (chunk: readonly string[]) => Promise<Float32Array[]>,
): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  for (let i = 0; i < texts.length; i += size) out.push(...(await run(texts.slice(i, i + size))));
  return out;
}

// ---------------------------------------------------------------- the shipped model

function parseVocab(path: string, data: Buffer): CommandVocab {
  const v = parseJson(path, data) as Partial<CommandVocab> | null;
  const positive = (n: unknown): boolean => typeof n === 'number' && Number.isInteger(n) && n > 0;
  if (v === null || typeof v !== 'object' || v.format !== 'hookwise-command-vocab' || v.version !== 1)
    throw modelError(`${path} is not a hookwise command vocabulary (format hookwise-command-vocab, version 1)`);
  if (
    !Array.isArray(v.tokens) ||
    !v.tokens.every((t) => typeof t === 'string') ||
    !positive(v.ngramBuckets) ||
    !positive(v.oovBuckets)
  ) {
    throw modelError(`${path}: expected tokens (strings), ngramBuckets and oovBuckets (positive integers)`);
  }
  return v as CommandVocab;
}

export async function loadBuiltin(dir: string): Promise<Embedder> {
  const modelPath = join(dir, BUILTIN_MODEL_FILE);
  const vocabPath = join(dir, BUILTIN_VOCAB_FILE);
  const model = requireFile(
    modelPath,
    MAX_MODEL_BYTES,
    false,
    'the shipped command-embedding model; reinstall hookwise',
  );
  const vocabData = requireFile(
    vocabPath,
    MAX_JSON_BYTES,
    false,
    'the shipped command-embedding vocabulary; reinstall hookwise',
  );
  const tokenizer = new CommandTokenizer(parseVocab(vocabPath, vocabData));
  const session = await createSession(modelPath, model);
  for (const name of ['input_ids', 'attention_mask']) {
    if (!session.inputNames.includes(name))
      throw modelError(`${modelPath} has no input ${name} (inputs: ${session.inputNames.join(', ')})`);
  }
  if (!session.outputNames.includes('embedding'))
    throw modelError(`${modelPath} has no output "embedding" (outputs: ${session.outputNames.join(', ')})`);
  const { Tensor } = await ort();
  let dim = 0;
  const run = async (texts: readonly string[]): Promise<Float32Array[]> => {
    const { ids, mask, seq } = tokenizer.batch(texts);
    const shape = [texts.length, seq];
    const result = await session.run({
      input_ids: new Tensor('int64', ids, shape),
      attention_mask: new Tensor('int64', mask, shape),
    });
    const out = result.embedding!;
    const d = out.dims[1] ?? 0;
    if (out.dims.length !== 2 || out.dims[0] !== texts.length || d === 0 || out.type !== 'float32')
      throw modelError(
        `${modelPath} returned an embedding of shape [${out.dims.join(', ')}] (${out.type}), expected [${texts.length}, dim] float32`,
      );
    if (dim !== 0 && d !== dim) throw modelError(`${modelPath} changed its vector length from ${dim} to ${d}`);
    return unitRows(out.data as Float32Array, texts.length, d, modelPath);
  };
  // One probe run: the vector length, and a model that loads but cannot run fails here, not at the first call.
  dim = (await run(['ls']))[0]!.length;
  return {
    id: modelId('builtin', [
      [BUILTIN_MODEL_FILE, model],
      [BUILTIN_VOCAB_FILE, vocabData],
    ]),
    dimensions: dim,
    embed: (texts) => inBatches(texts, BUILTIN_BATCH, run),
  };
}

// ---------------------------------------------------------------- Hugging Face models

function lstatIfPresent(path: string): ReturnType<typeof lstatSync> | undefined {
  try {
    return lstatSync(path);
  } catch (error) {
    if (isAbsent(error)) return undefined;
    throw modelError(`cannot read ${path}: ${(error as Error).message}`, error);
  }
}

type Pooling = 'mean' | 'cls';

/** A directory hookwise trusts to hold a model: a real directory (no link), the user's, writable only by them. */
function checkModelDir(dir: string): void {
  let stat;
  try {
    stat = lstatSync(dir);
  } catch (error) {
    if (isAbsent(error)) throw modelError(`embedding model directory ${dir} does not exist`);
    throw modelError(`cannot read embedding model directory ${dir}: ${(error as Error).message}`, error);
  }
  if (stat.isSymbolicLink())
    throw modelError(`embedding model directory ${dir} is a symbolic link; name the real directory`);
  if (!stat.isDirectory()) throw modelError(`embedding model path ${dir} is not a directory`);
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid)
    throw modelError(
      `embedding model directory ${dir} belongs to uid ${stat.uid}, not to you (uid ${uid}); hookwise loads only your own model files`,
    );
  if ((stat.mode & 0o022) !== 0)
    throw modelError(
      `embedding model directory ${dir} is writable by others (mode ${(stat.mode & 0o777).toString(8)}); chmod go-w it`,
    );
}

interface HfPoolingConfig {
  pooling: Pooling;
  normalize: boolean;
}

/** The sentence-transformers module list (modules.json) → pooling mode and whether a Normalize module follows. */
function readPooling(dir: string, files: [string, Buffer][]): HfPoolingConfig {
  const modulesPath = join(dir, 'modules.json');
  const modulesData = readModelFile(modulesPath, MAX_JSON_BYTES, true);
  let poolingDir = '1_Pooling';
  let normalize = false;
  if (modulesData !== undefined) {
    files.push(['modules.json', modulesData]);
    const modules = parseJson(modulesPath, modulesData);
    if (!Array.isArray(modules)) throw modelError(`${modulesPath}: expected a list of modules`);
    for (const m of modules as { type?: unknown; path?: unknown }[]) {
      const type = typeof m?.type === 'string' ? m.type : '';
      if (type.endsWith('.Pooling') && typeof m.path === 'string') poolingDir = m.path;
      if (type.endsWith('.Normalize')) normalize = true;
    }
  }
  if (poolingDir.includes('..') || poolingDir.startsWith('/'))
    throw modelError(`${modulesPath}: pooling module path ${poolingDir} leaves the model directory`);
  const configPath = join(dir, poolingDir, 'config.json');
  if (poolingDir !== '' && lstatIfPresent(join(dir, poolingDir)) !== undefined) checkModelDir(join(dir, poolingDir));
  const configData = readModelFile(configPath, MAX_JSON_BYTES, true);
  // Without a pooling config, sentence-transformers' default: mean pooling.
  if (configData === undefined) return { pooling: 'mean', normalize };
  files.push([`${poolingDir}/config.json`, configData]);
  const config = parseJson(configPath, configData) as Record<string, unknown> | null;
  if (config === null || typeof config !== 'object') throw modelError(`${configPath}: expected an object`);
  const modes = Object.entries(config)
    .filter(([k, v]) => k.startsWith('pooling_mode_') && v === true)
    .map(([k]) => k.slice('pooling_mode_'.length));
  if (modes.length === 1 && modes[0] === 'mean_tokens') return { pooling: 'mean', normalize };
  if (modes.length === 1 && modes[0] === 'cls_token') return { pooling: 'cls', normalize };
  throw modelError(
    `${configPath}: pooling ${modes.join(' + ') || '(none)'} is not supported (hookwise supports pooling_mode_mean_tokens or pooling_mode_cls_token)`,
  );
}

/** The sequence length cap: sentence_bert_config.json max_seq_length, else the tokenizer's, at most HF_MAX_LENGTH. */
function readMaxLength(dir: string, tokenizer: HfTokenizer, files: [string, Buffer][]): number {
  const lengths: number[] = [];
  for (const [name, field] of [
    ['sentence_bert_config.json', 'max_seq_length'],
    ['tokenizer_config.json', 'model_max_length'],
  ] as const) {
    const path = join(dir, name);
    const data = readModelFile(path, MAX_JSON_BYTES, true);
    if (data === undefined) continue;
    files.push([name, data]);
    const value = (parseJson(path, data) as Record<string, unknown> | null)?.[field];
    if (typeof value === 'number' && Number.isInteger(value) && value > 0) lengths.push(value);
  }
  if (tokenizer.truncation !== undefined) lengths.push(tokenizer.truncation);
  return Math.min(HF_MAX_LENGTH, lengths[0] ?? HF_MAX_LENGTH);
}

export async function loadHuggingFace(dir: string): Promise<Embedder> {
  checkModelDir(dir);
  const files: [string, Buffer][] = [];
  let modelPath = join(dir, 'model.onnx');
  let model = readModelFile(modelPath, MAX_MODEL_BYTES, true);
  if (model === undefined) {
    const onnxDir = join(dir, 'onnx');
    modelPath = join(onnxDir, 'model.onnx');
    if (lstatIfPresent(onnxDir) !== undefined) {
      checkModelDir(onnxDir);
      model = readModelFile(modelPath, MAX_MODEL_BYTES, true);
    }
    if (model === undefined)
      throw modelError(
        `${join(dir, 'model.onnx')} is missing (neither it nor onnx/model.onnx exists; export the model to ONNX first)`,
      );
  }
  files.push([modelPath.slice(dir.length + 1), model]);
  const tokenizerPath = join(dir, 'tokenizer.json');
  const tokenizerData = requireFile(tokenizerPath, MAX_JSON_BYTES, true, 'the tokenizer of a Hugging Face model');
  files.push(['tokenizer.json', tokenizerData]);
  const tokenizer = loadHfTokenizer(parseJson(tokenizerPath, tokenizerData), tokenizerPath);
  const { pooling } = readPooling(dir, files);
  const maxLength = readMaxLength(dir, tokenizer, files);
  const session = await createSession(modelPath, model);
  const { Tensor } = await ort();

  const feeds = new Set(session.inputNames);
  for (const name of session.inputNames) {
    if (name !== 'input_ids' && name !== 'attention_mask' && name !== 'token_type_ids')
      throw modelError(
        `${modelPath} needs an input "${name}" hookwise does not know how to feed (it feeds input_ids, attention_mask, token_type_ids)`,
      );
  }
  if (!feeds.has('input_ids'))
    throw modelError(`${modelPath} has no input_ids input (inputs: ${session.inputNames.join(', ')})`);
  const output =
    ['sentence_embedding', 'last_hidden_state', 'token_embeddings'].find((n) => session.outputNames.includes(n)) ??
    session.outputNames[0];
  if (output === undefined) throw modelError(`${modelPath} has no outputs`);

  let dim = 0;
  const run = async (texts: readonly string[]): Promise<Float32Array[]> => {
    const encoded = texts.map((t) => tokenizer.encode(t, maxLength));
    const seq = Math.max(1, ...encoded.map((e) => e.length));
    const n = texts.length;
    const ids = new BigInt64Array(n * seq).fill(BigInt(tokenizer.padId));
    const mask = new BigInt64Array(n * seq);
    encoded.forEach((row, r) =>
      row.forEach((id, c) => {
        ids[r * seq + c] = BigInt(id);
        mask[r * seq + c] = 1n;
      }),
    );
    const shape = [n, seq];
    const input: Record<string, Ort.Tensor> = { input_ids: new Tensor('int64', ids, shape) };
    if (feeds.has('attention_mask')) input.attention_mask = new Tensor('int64', mask, shape);
    if (feeds.has('token_type_ids')) input.token_type_ids = new Tensor('int64', new BigInt64Array(n * seq), shape);
    const result = await session.run(input, [output]);
    const out = result[output]!;
    if (out.type !== 'float32') throw modelError(`${modelPath}: output ${output} is ${out.type}, expected float32`);
    const data = out.data as Float32Array;
    let vectors: Float32Array;
    let d: number;
    if (out.dims.length === 2 && out.dims[0] === n) {
      d = out.dims[1]!;
      vectors = data;
    } else if (out.dims.length === 3 && out.dims[0] === n && out.dims[1] === seq) {
      d = out.dims[2]!;
      vectors = pool(data, mask, n, seq, d, pooling);
    } else
      throw modelError(
        `${modelPath}: output ${output} has shape [${out.dims.join(', ')}], expected [${n}, dim] or [${n}, ${seq}, dim]`,
      );
    if (dim !== 0 && d !== dim) throw modelError(`${modelPath} changed its vector length from ${dim} to ${d}`);
    return unitRows(vectors, n, d, modelPath);
  };
  dim = (await run(['ls']))[0]!.length;
  return { id: modelId('huggingface', files), dimensions: dim, embed: (texts) => inBatches(texts, HF_BATCH, run) };
}

/** Token vectors [n, seq, d] → one vector per text: the mean over attended tokens, or the first ([CLS]) token. */
export function pool(
  hidden: Float32Array,
  mask: BigInt64Array,
  n: number,
  seq: number,
  d: number,
  pooling: Pooling,
): Float32Array {
  const out = new Float32Array(n * d);
  for (let r = 0; r < n; r++) {
    if (pooling === 'cls') {
      out.set(hidden.subarray(r * seq * d, r * seq * d + d), r * d);
      continue;
    }
    let count = 0;
    for (let t = 0; t < seq; t++) {
      if (mask[r * seq + t] === 0n) continue;
      count++;
      const base = (r * seq + t) * d;
      for (let k = 0; k < d; k++) out[r * d + k] = out[r * d + k]! + hidden[base + k]!;
    }
    // sentence-transformers clamps the count at 1e-9; a text always has at least its special tokens here
    const denom = Math.max(count, 1e-9);
    for (let k = 0; k < d; k++) out[r * d + k] = out[r * d + k]! / denom;
  }
  return out;
}
