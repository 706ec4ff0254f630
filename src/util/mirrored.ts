/**
 * Whole-or-nothing framing for derived binary caches read on the hook path (the V8 code cache, the
 * sanitizer's keyword index): a header, the payload, and the payload again. A reader uses the payload only
 * when both copies are equal, so a torn write, a flipped bit or a stray edit of one copy is caught.
 *
 * Why a mirror and not a checksum: a cold hook process has no cheap hash. Loading node:crypto or node:zlib
 * costs ≈ 3.5 ms and a JS hash over 300 KB ≈ 4 ms before the JIT warms up — more than these caches save —
 * while Buffer.equals is a native memcmp (≈ 30 µs for 300 KB). Integrity against damage, not against a
 * writer with the user's rights: such files are also read only when they are the user's own (callers check).
 */
const HEADER = 8; // magic, payload length (both u32 little-endian)

export function encodeMirrored(magic: number, payload: Uint8Array): Buffer {
  const header = Buffer.alloc(HEADER);
  header.writeUInt32LE(magic >>> 0, 0);
  header.writeUInt32LE(payload.byteLength, 4);
  return Buffer.concat([header, payload, payload]);
}

/** The payload (a view into `file`, starting 8 bytes in) when the file is whole; undefined otherwise. */
export function decodeMirrored(magic: number, file: Buffer): Buffer | undefined {
  if (file.length < HEADER || file.readUInt32LE(0) !== magic >>> 0) return undefined;
  const length = file.readUInt32LE(4);
  if (length === 0 || file.length !== HEADER + 2 * length) return undefined;
  const payload = file.subarray(HEADER, HEADER + length);
  return payload.equals(file.subarray(HEADER + length)) ? payload : undefined;
}
