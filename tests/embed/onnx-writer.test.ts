import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { encodeOnnxModel, type OnnxModel } from '../../src/embed/onnx-writer.js';

async function run(
  model: OnnxModel,
  feeds: Record<string, ort.Tensor>,
): Promise<ort.InferenceSession.OnnxValueMapType> {
  const session = await ort.InferenceSession.create(encodeOnnxModel(model));
  try {
    return await session.run(feeds);
  } finally {
    await session.release();
  }
}

describe('encodeOnnxModel', () => {
  it('writes a graph onnxruntime loads and runs: Gather from an initializer, symbolic dims, a float attribute', async () => {
    const table = new Float32Array([0, 0, 1, 2, 3, 4, -5, 6.5]);
    const model: OnnxModel = {
      graph: {
        name: 'gather',
        nodes: [
          {
            op: 'Gather',
            inputs: ['table', 'ids'],
            outputs: ['rows'],
            attributes: { axis: { kind: 'int', value: 0 } },
          },
          { op: 'LeakyRelu', inputs: ['rows'], outputs: ['out'], attributes: { alpha: { kind: 'float', value: 0.5 } } },
        ],
        initializers: [{ name: 'table', type: 'float', dims: [4, 2], data: table }],
        inputs: [{ name: 'ids', type: 'int64', shape: ['batch', 'seq'] }],
        outputs: [{ name: 'out', type: 'float', shape: ['batch', 'seq', 2] }],
      },
      metadata: { purpose: 'test' },
    };
    const ids = new ort.Tensor('int64', BigInt64Array.from([3n, 1n, 2n, 0n, 3n, 3n]), [2, 3]);
    const { out } = await run(model, { ids });
    expect(out!.dims).toEqual([2, 3, 2]);
    expect(Array.from(out!.data as Float32Array)).toEqual([-2.5, 6.5, 1, 2, 3, 4, 0, 0, -2.5, 6.5, -2.5, 6.5]);
  });

  it('encodes negative int64 and ints attributes (ten-byte varints) and int64 initializers', async () => {
    const model: OnnxModel = {
      graph: {
        name: 'reduce',
        nodes: [
          {
            op: 'ReduceMax',
            inputs: ['x'],
            outputs: ['m'],
            attributes: { axes: { kind: 'ints', value: [-1] }, keepdims: { kind: 'int', value: 0 } },
          },
          { op: 'Add', inputs: ['m', 'bias'], outputs: ['y'] },
        ],
        initializers: [{ name: 'bias', type: 'float', dims: [2], data: new Float32Array([10, -10]) }],
        inputs: [{ name: 'x', type: 'float', shape: [2, 'n'] }],
        outputs: [{ name: 'y', type: 'float', shape: [2] }],
      },
    };
    const x = new ort.Tensor('float32', new Float32Array([1, 7, 3, -4, -2, -9]), [2, 3]);
    const { y } = await run(model, { x });
    expect(Array.from(y!.data as Float32Array)).toEqual([17, -12]);
  });

  it('carries string attributes and int64 tensors (Constant + Reshape)', async () => {
    const model: OnnxModel = {
      graph: {
        name: 'reshape',
        nodes: [
          { op: 'Reshape', inputs: ['x', 'shape'], outputs: ['r'] },
          { op: 'Pad', inputs: ['r', 'pads'], outputs: ['y'], attributes: { mode: { kind: 'string', value: 'edge' } } },
        ],
        initializers: [
          { name: 'shape', type: 'int64', dims: [2], data: BigInt64Array.from([-1n, 2n]) },
          { name: 'pads', type: 'int64', dims: [4], data: BigInt64Array.from([0n, 1n, 0n, 0n]) },
        ],
        inputs: [{ name: 'x', type: 'float', shape: [4] }],
        outputs: [{ name: 'y', type: 'float', shape: [2, 3] }],
      },
    };
    const x = new ort.Tensor('float32', new Float32Array([1, 2, 3, 4]), [4]);
    const { y } = await run(model, { x });
    expect(y!.dims).toEqual([2, 3]);
    expect(Array.from(y!.data as Float32Array)).toEqual([1, 1, 2, 3, 3, 4]);
  });

  it('refuses a tensor whose data does not fill its dims', () => {
    const model: OnnxModel = {
      graph: {
        name: 'bad',
        nodes: [],
        initializers: [{ name: 't', type: 'float', dims: [3], data: new Float32Array(2) }],
        inputs: [],
        outputs: [],
      },
    };
    expect(() => encodeOnnxModel(model)).toThrow(/onnx tensor t: 2 values for dims \[3\]/);
  });
});
