/**
 * node:crypto, loaded on first use. Why: requiring it costs ≈ 10 ms of a hook process's ≈ 40 ms of its own
 * work (it pulls in Node's stream and cipher modules), and most calls never need it — it is for queue item
 * ids, the web page's token and signed module state, not for deciding an ordinary call.
 */
import type * as Crypto from 'node:crypto';
import { createRequire } from 'node:module';

type NodeCrypto = typeof Crypto;

let loaded: NodeCrypto | undefined;

export function nodeCrypto(): NodeCrypto {
  // The CommonJS bundles define __filename (import.meta is empty there); ESM test runners define both.
  loaded ??= createRequire(typeof __filename === 'string' ? __filename : import.meta.url)('node:crypto') as NodeCrypto;
  return loaded;
}
