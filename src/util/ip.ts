/**
 * node:net's isIP, loaded on first use. Why: requiring node:net costs ≈ 3.5 ms of a hook process (it pulls in
 * Node's stream modules), and only a call that names a host needs it — the hook path imports the MCP tier
 * and the confinement allowlist at start-up, but an ordinary Write or Bash call never tests an address.
 */
import type * as Net from 'node:net';
import { createRequire } from 'node:module';

let net: typeof Net | undefined;

/** 4 or 6 for an IPv4 or IPv6 address in Node's own notation, 0 for anything else (node:net isIP). */
export function isIP(text: string): number {
  // The CommonJS bundles define __filename (import.meta is empty there); ESM test runners define both.
  net ??= createRequire(typeof __filename === 'string' ? __filename : import.meta.url)('node:net') as typeof Net;
  return net.isIP(text);
}
