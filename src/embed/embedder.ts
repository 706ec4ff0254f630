/**
 * Tier 2b's model contract: text in, unit vectors out. Two implementations load through one onnxruntime
 * path (src/embed/model.ts): the command-embedding model this project trains and ships, and a standard
 * Hugging Face sentence-embedding model from a local directory. Only the daemon's worker pool loads one:
 * the command-mode hook process never pays the ONNX load.
 */

/** Which model embeds calls: the shipped one, or a Hugging Face model directory on this machine. */
export type ModelChoice = { kind: 'builtin' } | { kind: 'huggingface'; dir: string };

export interface Embedder {
  /** The model's identity (a checksum of its files): an index built by another model is rebuilt, never reused. */
  readonly id: string;
  /** Vector length. */
  readonly dimensions: number;
  /** One L2-normalized vector per text (sanitized subject texts only: nothing unsanitized reaches a model). */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}

/** A model id as people read it: its kind and the first 12 hex digits of its checksum. */
export function shortModelId(id: string): string {
  return id.replace(/sha256:([0-9a-f]{12})[0-9a-f]*$/, '$1');
}
