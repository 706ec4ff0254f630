/**
 * The thin client: `hookwise check` hands the payload to a running daemon over its Unix socket and prints
 * its answer. Raw HTTP/1.1 over node:net rather than node:http: this runs in a fresh process on every tool
 * call, and node:http costs milliseconds to load.
 *
 * Anything but a well-formed answer means "no daemon": the caller decides in process with the same engine,
 * so the verdict is the same either way. Refused or absent → at once; no response headers within about a
 * second → a hung daemon, give up. The daemon sends its headers before it decides, so a decision that
 * legitimately takes long (a session registering right now) is not mistaken for a hang.
 */
import { lstatSync } from 'node:fs';
import { dirname } from 'node:path';
import type { HostName } from '../core/tool-call.js';
import type { HookOutput } from '../hosts/adapter.js';
import type { Locations } from '../util/locations.js';
import { VERSION } from '../core/version.js';
import {
  daemonPaths,
  GEMINI_ASK_HEADER,
  LOCATIONS_HEADER,
  locationsTag,
  ROLE_HEADER,
  VERSION_HEADER,
} from './paths.js';

export interface AskOptions {
  host?: HostName | undefined;
  envRole?: string | undefined;
  geminiAsk?: boolean | undefined;
  /** No response headers after this long: the daemon is hung (default 1000 ms). */
  headerTimeoutMs?: number;
  /**
   * Headers came but no body after this long (default 10 min, the hosts' own hook timeout: a call waiting in
   * the human queue may take up to human.timeout, at most 9 min, and must not be decided a second time).
   */
  bodyTimeoutMs?: number;
}

export type DaemonAnswer =
  { kind: 'answered'; result: HookOutput } | { kind: 'absent' } | { kind: 'unusable'; why: string };

/**
 * Whether the socket can be trusted to answer for this user: a socket of ours in a directory of ours that
 * nobody else may write. A runtime directory that existed before hookwise (a shared or world-writable one)
 * could hold another user's socket that answers "allow" to everything: such a socket is never asked.
 */
export function socketProblem(socket: string): 'absent' | { why: string } | undefined {
  const uid = process.getuid?.();
  const stat = lstatSync(socket, { throwIfNoEntry: false });
  if (stat === undefined) return 'absent';
  if (!stat.isSocket()) return { why: `${socket} is not a socket` };
  if (uid !== undefined && stat.uid !== uid) return { why: `${socket} belongs to uid ${stat.uid}, not to you` };
  const dir = lstatSync(dirname(socket), { throwIfNoEntry: false });
  if (dir === undefined || !dir.isDirectory() || (uid !== undefined && dir.uid !== uid) || (dir.mode & 0o022) !== 0) {
    return { why: `${dirname(socket)} is not a private directory of yours` };
  }
  return undefined;
}

export async function askDaemon(raw: string, where: Locations, options: AskOptions = {}): Promise<DaemonAnswer> {
  const { socket } = daemonPaths(where);
  const problem = socketProblem(socket);
  if (problem === 'absent') return { kind: 'absent' };
  if (problem !== undefined) return { kind: 'unusable', why: `${problem.why}: it is not asked` };
  // Loaded only when there is a socket to talk to (≈ 2 ms a process otherwise spent for nothing).
  const { connect } = await import('node:net');
  const body = Buffer.from(raw, 'utf8');
  const head = [
    `POST /v1/check${options.host === undefined ? '' : `?host=${options.host}`} HTTP/1.1`,
    'Host: hookwise',
    'Content-Type: application/json',
    `Content-Length: ${body.length}`,
    `${LOCATIONS_HEADER}: ${locationsTag(where)}`,
    // Run from sources (tests), there is no version to compare.
    ...(VERSION === 'dev' ? [] : [`${VERSION_HEADER}: ${VERSION}`]),
    ...(options.envRole === undefined || options.envRole === '' || /[\r\n]/.test(options.envRole)
      ? []
      : [`${ROLE_HEADER}: ${encodeHeader(options.envRole)}`]),
    ...(options.geminiAsk === true ? [`${GEMINI_ASK_HEADER}: ask`] : []),
    'Connection: close',
    '',
    '',
  ].join('\r\n');

  return new Promise((resolve) => {
    let settled = false;
    let received: Buffer = Buffer.alloc(0);
    let headerEnd = -1;
    const s = connect(socket);
    const finish = (answer: DaemonAnswer): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      s.destroy();
      resolve(answer);
    };
    let timer = setTimeout(
      () => finish({ kind: 'unusable', why: 'no answer within the time limit' }),
      options.headerTimeoutMs ?? 1000,
    );
    s.once('connect', () => {
      s.write(head);
      s.write(body);
    });
    s.on('data', (chunk: Buffer) => {
      received = received.length === 0 ? chunk : Buffer.concat([received, chunk]);
      if (headerEnd < 0) {
        headerEnd = received.indexOf('\r\n\r\n');
        if (headerEnd >= 0) {
          clearTimeout(timer);
          timer = setTimeout(
            () => finish({ kind: 'unusable', why: 'the answer did not arrive' }),
            options.bodyTimeoutMs ?? 600_000,
          );
        }
      }
    });
    s.once('end', () => finish(parseResponse(received, headerEnd)));
    s.once('error', (error: NodeJS.ErrnoException) =>
      finish(
        error.code === 'ECONNREFUSED' || error.code === 'ENOENT'
          ? { kind: 'absent' }
          : { kind: 'unusable', why: error.message },
      ),
    );
  });
}

/** HTTP header values are Latin-1: a role name outside it is sent percent-encoded (the daemon decodes). */
function encodeHeader(value: string): string {
  return /^[\x20-\x7e]*$/.test(value) ? value : `=${encodeURIComponent(value)}`;
}

function parseResponse(data: Buffer, headerEnd: number): DaemonAnswer {
  if (headerEnd < 0) return { kind: 'unusable', why: 'the connection closed before an answer' };
  const lines = data.subarray(0, headerEnd).toString('latin1').split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1];
  if (status !== '200') return { kind: 'unusable', why: `status ${status ?? 'unreadable'}` };
  const headers = new Map<string, string>();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  let payload = data.subarray(headerEnd + 4);
  if (headers.get('transfer-encoding')?.toLowerCase() === 'chunked') {
    const decoded = dechunk(payload);
    if (decoded === undefined) return { kind: 'unusable', why: 'a truncated answer' };
    payload = decoded;
  } else {
    const length = Number(headers.get('content-length'));
    if (!Number.isInteger(length) || payload.length < length) return { kind: 'unusable', why: 'a truncated answer' };
    payload = payload.subarray(0, length);
  }
  try {
    const envelope = JSON.parse(payload.toString('utf8')) as { stdout?: unknown; stderr?: unknown; exitCode?: unknown };
    if (typeof envelope.stdout !== 'string' || typeof envelope.exitCode !== 'number')
      return { kind: 'unusable', why: 'an answer of the wrong shape' };
    const result: HookOutput = { stdout: envelope.stdout, exitCode: envelope.exitCode };
    if (typeof envelope.stderr === 'string') result.stderr = envelope.stderr;
    return { kind: 'answered', result };
  } catch {
    return { kind: 'unusable', why: 'an answer that is not JSON' };
  }
}

/** Chunked transfer coding → the body; undefined when the final chunk never came. */
function dechunk(data: Buffer): Buffer | undefined {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', at);
    if (lineEnd < 0) return undefined;
    const size = Number.parseInt(data.subarray(at, lineEnd).toString('latin1'), 16);
    if (!Number.isInteger(size) || size < 0) return undefined;
    if (size === 0) return Buffer.concat(parts);
    const start = lineEnd + 2;
    if (data.length < start + size + 2) return undefined;
    parts.push(data.subarray(start, start + size));
    at = start + size + 2;
  }
}
