/**
 * The audit record of a call hookwise denied because it could not judge it — a payload that is not JSON,
 * too large, of an unknown event, missing a field, or a config that does not load. Such a call is a decision
 * like any other: monitor and stats show it. The record holds what could be read (host, session, tool, the
 * project of its cwd) and the error's code and message, all sanitized; never the raw payload (a cut
 * prefix of unsanitized text could hold half a secret the sanitizer no longer recognises).
 */
import type { HostName } from '../core/tool-call.js';
import { findProjectRoot } from '../paths/canonical.js';
import { sanitize, type Sanitized } from '../sanitize/index.js';
import { shownId } from '../sanitize/ids.js';
import { fnv1a64 } from '../util/hash.js';
import { DEFAULT_AUDIT } from '../policy/defaults.js';
import { appendAudit, type AuditRecord, type AuditSink } from './log.js';

export interface FailedCall {
  /** The host format, when the caller or the payload says it (null: nothing did). */
  host: HostName | null;
  /** The payload as far as it parsed (undefined: not a JSON object). */
  payload: Record<string, unknown> | undefined;
  /** The raw text's length and hash only, to correlate repeats. */
  raw: string;
  /** `error:<code>`. */
  rule: string;
  reason: string;
  latencyMs: number;
}

/** A cwd longer than this is not looked up (a path is at most PATH_MAX; this is text an attacker chose). */
const MAX_CWD = 4096;
const UNKNOWN = '-' as Sanitized;

export function failedCallRecord(f: FailedCall, now: Date): AuditRecord {
  const text = (key: string): string | undefined =>
    typeof f.payload?.[key] === 'string' ? (f.payload[key] as string) : undefined;
  const session = text('session_id');
  const tool = text('tool_name');
  const message = sanitize(f.reason);
  const project = projectOf(text('cwd'));
  return {
    ts: now.toISOString(),
    session: session === undefined ? UNKNOWN : shownId(session),
    role: null,
    host: f.host,
    tool: tool === undefined ? UNKNOWN : shownId(tool),
    verdict: 'deny',
    tier: 'input',
    rule: f.rule,
    latency_ms: f.latencyMs,
    paths: [],
    input: message.text,
    secrets: message.findings.length,
    input_hash: fnv1a64(`${f.raw.length}:${f.raw.slice(0, 32768)}`),
    ...(project === undefined ? {} : { project }),
  };
}

/** The project a cwd lies in, sanitized; undefined when there is none to find (no cwd, not absolute, unreadable). */
function projectOf(cwd: string | undefined): Sanitized | undefined {
  if (cwd === undefined || !cwd.startsWith('/') || cwd.length > MAX_CWD || cwd.includes('\0')) return undefined;
  try {
    return sanitize(findProjectRoot(cwd)).text;
  } catch {
    return undefined; // a cwd that cannot be looked up places the record nowhere; it is still written
  }
}

/** Appends the record; the config's audit limits are unknown here (it may be what failed), so the defaults. */
export function appendFailedCall(runtimeDir: string, f: FailedCall, sink?: AuditSink): Promise<void> | undefined {
  return appendAudit(
    runtimeDir,
    failedCallRecord(f, new Date()),
    { maxBytes: DEFAULT_AUDIT.max_bytes, keep: DEFAULT_AUDIT.keep },
    sink,
  );
}
