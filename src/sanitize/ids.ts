/**
 * Ids that come from a host payload or a command line — session ids, tool names, tool-use ids — are
 * untrusted text like any tool input: a secret pasted into a session id must not name a file or land in
 * one. Three forms, and nothing else leaves the process:
 *
 *   - `idFileKey`: what an id names a file with — a hash, never the id itself (no secret, no `../`, no
 *     length or character surprises in a file name);
 *   - `idStoreKey`: what a team's store knows a session by — a SHA-256, so no id leaves the machine and
 *     another id cannot be made to collide with it (a 64-bit FNV can);
 *   - `shownId`: what is written or shown — the id sanitized (secrets as <REDACTED>), control characters
 *     replaced, and cut to a bounded length.
 */
import { fnv1a64 } from '../util/hash.js';
import { Lru } from '../util/lru.js';
import { sha256Hex } from '../util/sha256.js';
import { sanitize, type Sanitized } from './index.js';

/** Longer ids are cut when shown: a real one (a UUID, `toolu_…`, an MCP tool name) is far shorter. */
export const MAX_SHOWN_ID = 128;

/** The hash an id names files with (16 hex digits). */
export function idFileKey(id: string): string {
  return fnv1a64(id);
}

/** The key a team's store holds for an id (64 hex digits): the same on every machine, the id not in it. */
export function idStoreKey(id: string): string {
  const held = storeKeys.get(id);
  if (held !== undefined) return held;
  // Plain JavaScript, not node:crypto: every hook process names the session's registration file by it.
  const key = sha256Hex(`hookwise-session\u0000${id}`);
  if (id.length <= MAX_KEPT_ID) storeKeys.set(id, key);
  return key;
}

/**
 * A daemon names the same few sessions' files on every call (registration, module state, rules): their keys
 * are kept, for ids of a real session's length (a hash in plain JavaScript costs more than the lookup).
 */
const storeKeys = new Lru<string, string>(1024);
const MAX_KEPT_ID = 256;

/** The id as it may be stored, logged or shown. */
export function shownId(id: string, max = MAX_SHOWN_ID): Sanitized {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is replaced
  const visible = id.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, '?');
  const text = sanitize(visible).text;
  // A prefix of sanitized text holds no secret: every secret in it is already a marker.
  return (text.length <= max ? text : `${text.slice(0, max)}…`) as Sanitized;
}
