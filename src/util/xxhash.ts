/**
 * xxHash (XXH3, 64 bit) through @node-rs/xxhash: the decision cache's keys. The one place that loads the
 * native addon, lazily: a call that never consults or records a remembered decision does not pay for it.
 *
 * The package's own loader probes the C library by reading /usr/bin/ldd before it picks a binary (≈ 1.5 ms
 * of a ≈ 4 ms load per process). Bundled, the binary the build found is loaded by its path
 * (util/native-addons.ts); else the platform package napi-rs would pick on glibc Linux, macOS or Windows is
 * required directly, and the package's loader is the last resort (musl, or a layout we did not expect).
 */
import { loadNativeAddon, localRequire } from './native-addons.js';

interface XxhashBinding {
  xxh3: { xxh64(input: string | Uint8Array, seed?: bigint): bigint };
  xxh64(input: string | Uint8Array, seed?: bigint): bigint;
}

let binding: XxhashBinding | undefined;

function load(): XxhashBinding {
  return loadNativeAddon('xxhash', loadFromPackage) as XxhashBinding;
}

function loadFromPackage(): XxhashBinding {
  const req = localRequire();
  const suffix = process.platform === 'linux' ? '-gnu' : process.platform === 'win32' ? '-msvc' : '';
  try {
    return req(`@node-rs/xxhash-${process.platform}-${process.arch}${suffix}`) as XxhashBinding;
  } catch {
    return req('@node-rs/xxhash') as XxhashBinding;
  }
}

/** XXH3-64 of the UTF-8 text, as 16 lower-case hex digits. */
export function xxh3Hex(text: string): string {
  binding ??= load();
  return binding.xxh3.xxh64(text).toString(16).padStart(16, '0');
}

/**
 * XXH64 (the classic one, not XXH3) of bytes, as 16 lower-case hex digits, hashed where they lie (no text
 * conversion): the checksums of whole files (memory/index-file.ts). This binding's XXH3 is its portable
 * build, ≈ 1.1 GB/s; its XXH64 runs ≈ 9 GB/s (measured on 45 MB), and these hash megabytes per call.
 */
export function xxh64BytesHex(bytes: Uint8Array, seed?: bigint): string {
  binding ??= load();
  return (seed === undefined ? binding.xxh64(bytes) : binding.xxh64(bytes, seed)).toString(16).padStart(16, '0');
}
