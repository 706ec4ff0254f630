/**
 * A minimal ONNX model encoder: ModelProto → GraphProto (nodes, initializers as raw_data, inputs and outputs
 * with fixed or symbolic dimensions), the opset import and int / ints / float / floats / string attributes.
 * Hand-written protobuf (varints and length-delimited fields, field numbers from onnx/onnx.proto3), so the
 * training script and the tests can write small graphs without a protobuf dependency. Pure.
 */

/** ONNX TensorProto.DataType values this encoder writes. */
export const ONNX_TYPES = {
  float: 1,
  uint8: 2,
  int8: 3,
  int32: 6,
  int64: 7,
  bool: 9,
  float16: 10,
  double: 11,
} as const;
export type OnnxType = keyof typeof ONNX_TYPES;

/** A dimension: a fixed size, or a symbolic name (`batch`, `seq`) resolved at run time. */
export type OnnxDim = number | string;

export interface OnnxValueInfo {
  name: string;
  type: OnnxType;
  shape: readonly OnnxDim[];
}

export interface OnnxTensor {
  name: string;
  type: OnnxType;
  dims: readonly number[];
  /** The tensor's bytes in little-endian order (what the typed array's buffer holds on every platform Node runs on). */
  data: Float32Array | Float64Array | Int32Array | BigInt64Array | Uint8Array | Int8Array | Uint16Array;
}

export type OnnxAttribute =
  | { kind: 'int'; value: number | bigint }
  | { kind: 'ints'; value: readonly (number | bigint)[] }
  | { kind: 'float'; value: number }
  | { kind: 'floats'; value: readonly number[] }
  | { kind: 'string'; value: string };

export interface OnnxNode {
  op: string;
  inputs: readonly string[];
  outputs: readonly string[];
  name?: string;
  domain?: string;
  attributes?: Readonly<Record<string, OnnxAttribute>>;
}

export interface OnnxGraph {
  name: string;
  nodes: readonly OnnxNode[];
  initializers: readonly OnnxTensor[];
  inputs: readonly OnnxValueInfo[];
  outputs: readonly OnnxValueInfo[];
}

export interface OnnxModel {
  graph: OnnxGraph;
  /** Default-domain opset version (13 unless told: every op the shipped model uses exists there). */
  opset?: number;
  /** IR version; 8 goes with opsets 13–17. */
  irVersion?: number;
  producer?: string;
  docString?: string;
  /** Free-form string metadata (model_version, training corpus, …). */
  metadata?: Readonly<Record<string, string>>;
}

// AttributeProto.AttributeType
const ATTRIBUTE_TYPE = { float: 1, int: 2, string: 3, floats: 6, ints: 7 } as const;

const WIRE_VARINT = 0;
const WIRE_FIXED32 = 5;
const WIRE_LENGTH = 2;

/** A growable byte buffer with the protobuf primitives. */
class ProtoWriter {
  private bytes = new Uint8Array(256);
  private length = 0;

  private reserve(n: number): void {
    if (this.length + n <= this.bytes.length) return;
    let size = this.bytes.length * 2;
    while (size < this.length + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.bytes.subarray(0, this.length));
    this.bytes = next;
  }

  private raw(data: Uint8Array): void {
    this.reserve(data.length);
    this.bytes.set(data, this.length);
    this.length += data.length;
  }

  /** An unsigned or two's-complement (int64) varint; negatives take ten bytes, as protobuf says. */
  varint(value: number | bigint): void {
    let v = BigInt.asUintN(64, BigInt(value));
    this.reserve(10);
    do {
      let byte = Number(v & 0x7fn);
      v >>= 7n;
      if (v !== 0n) byte |= 0x80;
      this.bytes[this.length++] = byte;
    } while (v !== 0n);
  }

  private tag(field: number, wire: number): void {
    this.varint((field << 3) | wire);
  }

  int(field: number, value: number | bigint): void {
    this.tag(field, WIRE_VARINT);
    this.varint(value);
  }

  float(field: number, value: number): void {
    this.tag(field, WIRE_FIXED32);
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, value, true);
    this.raw(b);
  }

  bytesField(field: number, data: Uint8Array): void {
    this.tag(field, WIRE_LENGTH);
    this.varint(data.length);
    this.raw(data);
  }

  string(field: number, value: string): void {
    this.bytesField(field, new TextEncoder().encode(value));
  }

  message(field: number, build: (w: ProtoWriter) => void): void {
    const inner = new ProtoWriter();
    build(inner);
    this.bytesField(field, inner.finish());
  }

  finish(): Uint8Array {
    return this.bytes.slice(0, this.length);
  }
}

function checkTensor(t: OnnxTensor): void {
  const count = t.dims.reduce((a, b) => a * b, 1);
  if (t.dims.some((d) => !Number.isInteger(d) || d < 0))
    throw new Error(`onnx tensor ${t.name}: dims must be non-negative integers`);
  if (t.data.length !== count)
    throw new Error(`onnx tensor ${t.name}: ${t.data.length} values for dims [${t.dims.join(', ')}] (${count})`);
}

function writeTensor(w: ProtoWriter, t: OnnxTensor): void {
  checkTensor(t);
  for (const d of t.dims) w.int(1, d);
  w.int(2, ONNX_TYPES[t.type]);
  w.string(8, t.name);
  w.bytesField(9, new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength));
}

function writeValueInfo(w: ProtoWriter, v: OnnxValueInfo): void {
  w.string(1, v.name);
  w.message(2, (type) =>
    type.message(1, (tensor) => {
      tensor.int(1, ONNX_TYPES[v.type]);
      tensor.message(2, (shape) => {
        for (const d of v.shape) shape.message(1, (dim) => (typeof d === 'number' ? dim.int(1, d) : dim.string(2, d)));
      });
    }),
  );
}

function writeAttribute(w: ProtoWriter, name: string, a: OnnxAttribute): void {
  w.string(1, name);
  switch (a.kind) {
    case 'float':
      w.float(2, a.value);
      break;
    case 'int':
      w.int(3, a.value);
      break;
    case 'string':
      w.string(4, a.value);
      break;
    case 'floats':
      for (const f of a.value) w.float(7, f);
      break;
    case 'ints':
      for (const i of a.value) w.int(8, i);
      break;
  }
  w.int(20, ATTRIBUTE_TYPE[a.kind]);
}

function writeNode(w: ProtoWriter, n: OnnxNode): void {
  for (const i of n.inputs) w.string(1, i);
  for (const o of n.outputs) w.string(2, o);
  if (n.name !== undefined) w.string(3, n.name);
  w.string(4, n.op);
  for (const [name, a] of Object.entries(n.attributes ?? {})) w.message(5, (attr) => writeAttribute(attr, name, a));
  if (n.domain !== undefined) w.string(7, n.domain);
}

/** The serialized ModelProto. */
export function encodeOnnxModel(model: OnnxModel): Uint8Array {
  const w = new ProtoWriter();
  w.int(1, model.irVersion ?? 8);
  w.string(2, model.producer ?? 'hookwise');
  w.message(7, (g) => {
    for (const n of model.graph.nodes) g.message(1, (node) => writeNode(node, n));
    g.string(2, model.graph.name);
    for (const t of model.graph.initializers) g.message(5, (tensor) => writeTensor(tensor, t));
    for (const v of model.graph.inputs) g.message(11, (vi) => writeValueInfo(vi, v));
    for (const v of model.graph.outputs) g.message(12, (vi) => writeValueInfo(vi, v));
  });
  w.message(8, (opset) => {
    opset.string(1, '');
    opset.int(2, model.opset ?? 13);
  });
  if (model.docString !== undefined) w.string(6, model.docString);
  for (const [key, value] of Object.entries(model.metadata ?? {})) {
    w.message(14, (entry) => {
      entry.string(1, key);
      entry.string(2, value);
    });
  }
  return w.finish();
}
