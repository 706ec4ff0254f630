/**
 * Signed per-session module state: `<runtime>/modules/s-<id hash>.json`, 0600 in the private runtime
 * directory, replaced atomically under a per-session lock. Its body is signed with HMAC-SHA256 under a
 * per-user key (`<user config>/module-state.key`, 0600, made on first use), bound to the session's file key,
 * so an agent that can write the runtime directory still cannot reset its own breaker or lift safemode: a
 * body it wrote, or one copied from another session, does not verify, and the reader treats the state as
 * tampered — which the modules tier turns into a denial of every edit and write (fail closed).
 *
 * Only counters, the signature kinds and a fixed reason text are stored: never a prompt or tool output.
 */
import { nodeCrypto } from '../util/node-crypto.js';
import { closeSync, constants, fstatSync, linkSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { HookwiseError } from '../core/errors.js';
import { idFileKey, shownId } from '../sanitize/ids.js';
import { ensurePrivateDir, openOwnedFile, readOwnedFile, withLockSync, writeFileAtomic } from '../util/fs-safe.js';
import type { Locations } from '../util/locations.js';
import { ERROR_SIGNATURES } from './signature.js';
import { INITIAL_STATE, MAX_DELEGATION_CALLS, MAX_RUN_FAILURES, type ModuleState } from './machine.js';

export type ReadState =
  { kind: 'absent'; state: ModuleState } | { kind: 'valid'; state: ModuleState } | { kind: 'tampered'; why: string };

const FORMAT = 1;
const DOMAIN = 'hookwise module state v1';
const KEY_FILE = 'module-state.key';
const PURPOSE = 'signed module state';

export function moduleStateFile(runtimeDir: string, sessionId: string): string {
  return join(runtimeDir, 'modules', `s-${idFileKey(sessionId)}.json`);
}

/**
 * The per-user signing key: 32 random bytes, hex, in a 0600 file of ours that nobody else can read. Made on
 * first use (exclusively: two processes racing both end up with the winner's key). A key others could read
 * would let them sign, so it is refused rather than used.
 */
export function signingKey(userConfigDir: string, create: boolean): Buffer | undefined {
  const file = join(userConfigDir, KEY_FILE);
  let fd: number | undefined;
  try {
    fd = openOwnedFile(file, constants.O_RDONLY, 0o600, 'the module state signing key');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (fd === undefined) {
    if (!create) return undefined;
    ensurePrivateDir(userConfigDir);
    // Written whole to a temp file, then linked into place: link fails if another process won the race,
    // and nobody ever sees a half-written key.
    const key = nodeCrypto().randomBytes(32).toString('hex');
    const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
    writeFileAtomic(tmp, `${key}\n`, { mode: 0o600, durable: true });
    try {
      linkSync(tmp, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      return signingKey(userConfigDir, false);
    } finally {
      rmSync(tmp, { force: true });
    }
    return Buffer.from(key, 'hex');
  }
  try {
    const mode = fstatSync(fd).mode & 0o777;
    if ((mode & 0o077) !== 0)
      throw new HookwiseError(
        'RUNTIME_DIR_UNSAFE',
        `${file} is readable by others (mode ${mode.toString(8)}); anyone who reads it can forge module state (chmod 600 it, or remove it and reset the modules)`,
      );
    const text = readFileSync(fd, 'utf8').trim();
    if (!/^[0-9a-f]{64}$/.test(text))
      throw new HookwiseError(
        'RUNTIME_DIR_UNSAFE',
        `${file} is not a hookwise signing key (64 hex digits); remove it, then reset the modules of each session (hookwise safemode off / breaker reset --session-id S)`,
      );
    return Buffer.from(text, 'hex');
  } finally {
    closeSync(fd);
  }
}

/**
 * The HMAC of a signed per-session file's body under the per-user key: bound to what the file is (`domain`)
 * and to whose it is (the session's file key), so a body copied from another file or session does not verify.
 */
export function signedBodyMac(key: Buffer, domain: string, fileKey: string, body: string): string {
  return nodeCrypto().createHmac('sha256', key).update(`${domain}\n${fileKey}\n${body}`).digest('hex');
}

function mac(key: Buffer, fileKey: string, body: string): string {
  return signedBodyMac(key, DOMAIN, fileKey, body);
}

/**
 * The session's module state. Absent file: the initial state. A file that is not ours, does not parse, or
 * whose signature does not verify for this session under this user's key: `tampered`, with why.
 */
export function readModuleState(where: Locations, sessionId: string): ReadState {
  const file = moduleStateFile(where.runtimeDir, sessionId);
  let bytes: Buffer | undefined;
  try {
    bytes = readOwnedFile(file, PURPOSE);
  } catch (error) {
    return { kind: 'tampered', why: `${file} cannot be trusted: ${(error as Error).message}` };
  }
  if (bytes === undefined) return { kind: 'absent', state: INITIAL_STATE };
  let key: Buffer | undefined;
  try {
    key = signingKey(where.userConfigDir, false);
  } catch (error) {
    return { kind: 'tampered', why: (error as Error).message };
  }
  if (key === undefined)
    return {
      kind: 'tampered',
      why: `${file} exists but the signing key (${join(where.userConfigDir, KEY_FILE)}) does not`,
    };
  let envelope: unknown;
  try {
    envelope = JSON.parse(bytes.toString('utf8'));
  } catch {
    return { kind: 'tampered', why: `${file} is not valid JSON` };
  }
  const { body, mac: given } = (envelope ?? {}) as { body?: unknown; mac?: unknown };
  if (typeof body !== 'string' || typeof given !== 'string' || !/^[0-9a-f]{64}$/.test(given))
    return { kind: 'tampered', why: `${file} lacks a signed body` };
  const expected = Buffer.from(mac(key, idFileKey(sessionId), body), 'hex');
  if (!nodeCrypto().timingSafeEqual(expected, Buffer.from(given, 'hex')))
    return {
      kind: 'tampered',
      why: `the signature of ${file} does not verify (it was changed, or copied from another session or user)`,
    };
  const state = parseBody(body);
  if (state === undefined)
    return { kind: 'tampered', why: `${file} is signed but not a state this hookwise understands` };
  return { kind: 'valid', state };
}

function parseBody(body: string): ModuleState | undefined {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return undefined;
  }
  const v = value as {
    format?: unknown;
    state?: {
      safemode?: unknown;
      breaker?: {
        consecutive?: unknown;
        signatures?: unknown;
        tripped?: unknown;
        failures?: unknown;
        lastFailure?: unknown;
      };
      delegation?: { calls?: unknown };
    };
  };
  const s = v?.state;
  const b = s?.breaker;
  if (
    v?.format !== FORMAT ||
    typeof s?.safemode !== 'boolean' ||
    typeof b?.consecutive !== 'number' ||
    typeof b.signatures !== 'object' ||
    b.signatures === null
  )
    return undefined;
  if (b.tripped !== undefined && typeof b.tripped !== 'string') return undefined;
  // A state written before the run's failures were kept has its last one only.
  const failures = b.failures ?? (b.lastFailure === undefined ? [] : [b.lastFailure]);
  if (
    !Array.isArray(failures) ||
    failures.length > MAX_RUN_FAILURES ||
    !failures.every((f) => typeof f === 'string' && /^[0-9a-f]{16}$/.test(f))
  )
    return undefined;
  const signatures: ModuleState['breaker']['signatures'] = {};
  for (const [name, count] of Object.entries(b.signatures)) {
    if (!(ERROR_SIGNATURES as readonly string[]).includes(name) || typeof count !== 'number') return undefined;
    signatures[name as keyof typeof signatures] = count;
  }
  // A state written before the delegation window existed has none: an empty window.
  const calls = s.delegation === undefined ? [] : s.delegation.calls;
  if (
    !Array.isArray(calls) ||
    calls.length > MAX_DELEGATION_CALLS ||
    !calls.every((t) => typeof t === 'number' && Number.isFinite(t))
  )
    return undefined;
  return {
    safemode: s.safemode,
    breaker: {
      consecutive: b.consecutive,
      signatures,
      ...(b.tripped === undefined ? {} : { tripped: b.tripped }),
      ...(failures.length === 0 ? {} : { failures: failures as string[] }),
    },
    delegation: { calls: calls as number[] },
  };
}

/**
 * Read-modify-write one session's state under its lock. `change` sees the current state — or, when the file
 * is tampered, undefined: only a human's reset (`reset: true`, from the CLI or the human's prompt) replaces a
 * tampered file; anything else leaves it as it is, still failing closed.
 */
export function updateModuleState(
  where: Locations,
  sessionId: string,
  change: (current: ModuleState) => ModuleState,
  options: { reset?: boolean } = {},
): ReadState {
  const file = moduleStateFile(where.runtimeDir, sessionId);
  ensurePrivateDir(join(where.runtimeDir, 'modules'));
  return withLockSync(`${file}.lock`, () => {
    const read = readModuleState(where, sessionId);
    if (read.kind === 'tampered' && options.reset !== true) return read;
    const next = change(read.kind === 'tampered' ? INITIAL_STATE : read.state);
    const key = signingKey(where.userConfigDir, true)!;
    const body = JSON.stringify({
      format: FORMAT,
      session: shownId(sessionId),
      state: next,
      updated_at: new Date().toISOString(),
    });
    writeFileAtomic(file, JSON.stringify({ body, mac: mac(key, idFileKey(sessionId), body) }) + '\n', {
      mode: 0o600,
      durable: true,
    });
    return { kind: 'valid', state: next };
  });
}
