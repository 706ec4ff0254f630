/**
 * The shipped model's ONNX graph: a static (bag-of-tokens) sentence encoder with the same interface as a
 * Hugging Face model, so both run through one onnxruntime path.
 *
 *   input_ids [batch, seq] int64, attention_mask [batch, seq] int64
 *   → Σ_seq table[id] · weight[id] · mask  → ÷ max(‖·‖₂, ε)  → embedding [batch, dim] float32
 *
 * Pure: builds the model description; onnx-writer.ts serializes it.
 */
import { encodeOnnxModel, type OnnxModel } from './onnx-writer.js';

/** Below this norm (no known token) the vector stays (near) zero instead of dividing by zero. */
const EPSILON = 1e-9;

export interface StaticModelTables {
  /** rows × dim token vectors, row-major; row 0 is the padding row. */
  table: Float32Array;
  /** One weight per row (IDF-like); 0 for the padding row. */
  weights: Float32Array;
  rows: number;
  dim: number;
  metadata?: Record<string, string>;
}

export function staticEmbeddingModel(t: StaticModelTables): OnnxModel {
  if (t.table.length !== t.rows * t.dim)
    throw new Error(`static model: table has ${t.table.length} values, expected ${t.rows} × ${t.dim}`);
  if (t.weights.length !== t.rows) throw new Error(`static model: ${t.weights.length} weights for ${t.rows} rows`);
  return {
    opset: 13,
    irVersion: 8,
    docString: 'hookwise command embedding: weighted bag of command feature tokens, L2-normalized',
    metadata: t.metadata,
    graph: {
      name: 'hookwise-command-embedding',
      inputs: [
        { name: 'input_ids', type: 'int64', shape: ['batch', 'seq'] },
        { name: 'attention_mask', type: 'int64', shape: ['batch', 'seq'] },
      ],
      outputs: [{ name: 'embedding', type: 'float', shape: ['batch', t.dim] }],
      initializers: [
        { name: 'token_table', type: 'float', dims: [t.rows, t.dim], data: t.table },
        { name: 'token_weight', type: 'float', dims: [t.rows, 1], data: t.weights },
        { name: 'axis_1', type: 'int64', dims: [1], data: BigInt64Array.from([1n]) },
        { name: 'axis_2', type: 'int64', dims: [1], data: BigInt64Array.from([2n]) },
        { name: 'epsilon', type: 'float', dims: [], data: Float32Array.from([EPSILON]) },
      ],
      nodes: [
        {
          op: 'Gather',
          inputs: ['token_table', 'input_ids'],
          outputs: ['vectors'],
          attributes: { axis: { kind: 'int', value: 0 } },
        },
        {
          op: 'Gather',
          inputs: ['token_weight', 'input_ids'],
          outputs: ['weights'],
          attributes: { axis: { kind: 'int', value: 0 } },
        },
        {
          op: 'Cast',
          inputs: ['attention_mask'],
          outputs: ['mask_float'],
          attributes: { to: { kind: 'int', value: 1 } },
        },
        { op: 'Unsqueeze', inputs: ['mask_float', 'axis_2'], outputs: ['mask_3d'] },
        { op: 'Mul', inputs: ['weights', 'mask_3d'], outputs: ['masked_weights'] },
        { op: 'Mul', inputs: ['vectors', 'masked_weights'], outputs: ['weighted'] },
        {
          op: 'ReduceSum',
          inputs: ['weighted', 'axis_1'],
          outputs: ['summed'],
          attributes: { keepdims: { kind: 'int', value: 0 } },
        },
        { op: 'Mul', inputs: ['summed', 'summed'], outputs: ['squares'] },
        {
          op: 'ReduceSum',
          inputs: ['squares', 'axis_1'],
          outputs: ['square_sum'],
          attributes: { keepdims: { kind: 'int', value: 1 } },
        },
        { op: 'Sqrt', inputs: ['square_sum'], outputs: ['norm'] },
        { op: 'Max', inputs: ['norm', 'epsilon'], outputs: ['safe_norm'] },
        { op: 'Div', inputs: ['summed', 'safe_norm'], outputs: ['embedding'] },
      ],
    },
  };
}

export function encodeStaticEmbeddingModel(t: StaticModelTables): Uint8Array {
  return encodeOnnxModel(staticEmbeddingModel(t));
}
