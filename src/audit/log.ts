/**
 * The audit log: one JSON line per decision in the private runtime directory. Appends are single
 * O_APPEND writes (whole lines, never interleaved, no lock needed); rotation by size renames files under a
 * lock, so a concurrent append lands in either the old or the new file and nothing is lost.
 * It holds only sanitized text: the command with secrets as <REDACTED>, or a file tool's structural key
 * (change + path), never file content — enforced by the Sanitized type and re-checked before writing.
 */
import { appendFileSync, readFileSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { TierName, Verdict } from '../core/decision.js';
import type { HostName } from '../core/tool-call.js';
import { OwnedAppender, withLockSync } from '../util/fs-safe.js';
import { assertSanitized, type Sanitized } from '../sanitize/index.js';

export interface AuditRecord {
  ts: string;
  /** The session id as shown (sanitize/ids.ts): untrusted text, like the tool name. */
  session: Sanitized;
  role: string | null;
  /** null: a payload hookwise could not read, and nothing else said which host sent it (audit/failed-call.ts). */
  host: HostName | null;
  tool: Sanitized;
  verdict: Verdict;
  tier: TierName;
  rule: string | null;
  /** Time spent inside hookwise for this call (not counting Node start-up). */
  latency_ms: number;
  /** Sanitized paths the call touches. */
  paths: Sanitized[];
  /** The sanitized call: a command, a file tool's `<change> <path>`, or sanitized JSON. */
  input: Sanitized;
  /** How many secrets were redacted from this call. */
  secrets: number;
  /** FNV-1a of the tool input, to correlate repeats without storing the input. */
  input_hash: string;
  /** The project root the call was judged in, sanitized (absent in records older than it, or when no root was known). */
  project?: Sanitized;
  /** Tier 3's answer, when the supervisor answered: it decided the call, or left a recommendation for the human. */
  supervisor?: AuditSupervision;
}

export interface AuditSupervision {
  decision: Verdict;
  confidence: number;
  reason: Sanitized;
  by: string;
  /** At or above the confidence threshold: the supervisor's answer is the decision. */
  decided: boolean;
}

export function auditPath(runtimeDir: string, generation = 0): string {
  return join(runtimeDir, generation === 0 ? 'audit.jsonl' : `audit.${generation}.jsonl`);
}

/** One audit record stays below this (a 2 MB path must not make a 4 MB line): long fields are cut. */
export const MAX_AUDIT_FIELD = 2048;
const MAX_AUDIT_PATHS = 32;

/** A sanitized text cut to `max` characters: a prefix of sanitized text holds no secret either. */
function cut(text: Sanitized, max: number): Sanitized {
  return (text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`) as Sanitized;
}

/** The record as written: long fields cut, so every line is bounded (≈ 70 KiB at most). */
export function boundedRecord(record: AuditRecord): AuditRecord {
  const paths = record.paths.slice(0, MAX_AUDIT_PATHS).map((p) => cut(p, MAX_AUDIT_FIELD));
  if (record.paths.length > MAX_AUDIT_PATHS)
    paths.push(`… ${record.paths.length - MAX_AUDIT_PATHS} more paths` as Sanitized);
  return {
    ...record,
    session: cut(record.session, 256),
    role: record.role === null ? null : record.role.slice(0, 64),
    tool: cut(record.tool, 256),
    rule: record.rule === null ? null : record.rule.slice(0, 512),
    input: cut(record.input, MAX_AUDIT_FIELD * 4),
    paths,
    ...(record.project === undefined ? {} : { project: cut(record.project, MAX_AUDIT_FIELD) }),
    ...(record.supervisor === undefined
      ? {}
      : {
          supervisor: {
            ...record.supervisor,
            reason: cut(record.supervisor.reason, MAX_AUDIT_FIELD),
            by: record.supervisor.by.slice(0, 128),
          },
        }),
  };
}

/** The audit log stays open between appends: a daemon appends for every decision (see OwnedAppender). */
const appender = new OwnedAppender();

export type AuditLimits = { maxBytes: number; keep: number };

/**
 * How audit lines reach the file. A hook process writes its one line at once (`AUDIT_AT_ONCE`); the daemon
 * group-commits the lines of one event-loop turn in one write (`AuditGroupCommit`). Either way `write`
 * settles only once the line is in the file: whoever answers the call waits for it, so no answered call's
 * record is lost to a crash.
 */
export interface AuditSink {
  /** Undefined when the line is written already; else a promise that settles when it is (or fails). */
  write(runtimeDir: string, line: string, limits: AuditLimits): Promise<void> | undefined;
}

/** Each line written before `write` returns (throws when it cannot be). */
export const AUDIT_AT_ONCE: AuditSink = {
  write(runtimeDir, line, limits) {
    appendLines(runtimeDir, line, limits);
    return undefined;
  },
};

/** One batch: the lines of one turn for one runtime directory. */
interface PendingBatch {
  lines: string[];
  /** UTF-16 units so far: a bound on the batch, not its byte size. */
  length: number;
  limits: AuditLimits;
  done: Promise<void>;
  settle: (error?: unknown) => void;
}

/**
 * The daemon's audit sink: the lines added during one event-loop turn are appended in one O_APPEND write
 * (per runtime directory) when the turn ends (setImmediate), instead of one write and one lstat per line.
 * A line's promise settles after that write: the daemon sends the answer only then, so a record of every
 * answered decision has reached the kernel, as with a write per line. (Neither survives a power loss: the
 * log is not fsynced.) A batch whose write fails rejects every promise in it: those calls are answered as
 * failures (fail closed), none is answered without its record. A batch is also written at once when it
 * reaches MAX_BATCH_LENGTH characters.
 */
export class AuditGroupCommit implements AuditSink {
  private readonly batches = new Map<string, PendingBatch>();
  private scheduled = false;

  write(runtimeDir: string, line: string, limits: AuditLimits): Promise<void> {
    let batch = this.batches.get(runtimeDir);
    if (batch === undefined) {
      let settle!: (error?: unknown) => void;
      const done = new Promise<void>((resolve, reject) => {
        settle = (error) => (error === undefined ? resolve() : reject(error as Error));
      });
      // A batch nobody awaits (every caller went away) must not surface as an unhandled rejection.
      done.catch(() => undefined);
      batch = { lines: [], length: 0, limits, done, settle };
      this.batches.set(runtimeDir, batch);
    }
    batch.lines.push(line);
    batch.length += line.length;
    batch.limits = limits;
    if (batch.length >= MAX_BATCH_LENGTH) this.commit(runtimeDir);
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
    return batch.done;
  }

  /** Writes every pending batch now. */
  flush(): void {
    this.scheduled = false;
    for (const runtimeDir of [...this.batches.keys()]) this.commit(runtimeDir);
  }

  private commit(runtimeDir: string): void {
    const batch = this.batches.get(runtimeDir);
    if (batch === undefined) return;
    this.batches.delete(runtimeDir);
    try {
      appendLines(runtimeDir, batch.lines.join(''), batch.limits);
      batch.settle();
    } catch (error) {
      batch.settle(error ?? new Error('the audit log could not be written'));
    }
  }
}

/** A batch is written at once from this many characters (lines are at most ≈ 70 KiB each: boundedRecord). */
const MAX_BATCH_LENGTH = 1024 * 1024;

/** The record's line, after checking that everything in it is sanitized. */
export function auditLine(record: AuditRecord): string {
  // The type says these are sanitized; the guard makes sure (a secret that slipped through is refused).
  assertSanitized(record.input, 'the audit log');
  assertSanitized(record.session, 'the audit log');
  assertSanitized(record.tool, 'the audit log');
  for (const p of record.paths) assertSanitized(p, 'the audit log');
  if (record.project !== undefined) assertSanitized(record.project, 'the audit log');
  if (record.supervisor !== undefined) assertSanitized(record.supervisor.reason, 'the audit log');
  return JSON.stringify(boundedRecord(record)) + '\n';
}

/** Appends the record through the sink (at once by default); see AuditSink for what the result means. */
export function appendAudit(
  runtimeDir: string,
  record: AuditRecord,
  limits: AuditLimits,
  sink: AuditSink = AUDIT_AT_ONCE,
): Promise<void> | undefined {
  return sink.write(runtimeDir, auditLine(record), limits);
}

/** Whole lines in one append, then rotation when the log has outgrown its limit. */
function appendLines(runtimeDir: string, text: string, limits: AuditLimits): void {
  const path = auditPath(runtimeDir);
  appender.append(path, text, { mode: 0o600, purpose: 'the audit log' });
  if (grownPast(path, Buffer.byteLength(text), limits.maxBytes)) rotate(runtimeDir, limits);
}

/**
 * Whether the log may have outgrown its limit. A long-lived process (the daemon) appends thousands of lines
 * a second: it stats the file every STAT_EVERY appends and adds its own lines in between (other processes'
 * lines are caught at the next stat). rotate() checks the real size under its lock, so a guess costs at
 * most one early look. A hook process stats on its single append, as before.
 */
const STAT_EVERY = 256;
const sizes = new Map<string, { size: number; appends: number }>();

function grownPast(path: string, added: number, maxBytes: number): boolean {
  const known = sizes.get(path);
  if (known !== undefined && known.appends < STAT_EVERY && known.size + added <= maxBytes) {
    known.size += added;
    known.appends++;
    return false;
  }
  const size = statSync(path).size;
  sizes.set(path, { size, appends: 0 });
  return size > maxBytes;
}

function rotate(runtimeDir: string, limits: { maxBytes: number; keep: number }): void {
  const path = auditPath(runtimeDir);
  withLockSync(`${path}.lock`, () => {
    // Another process may have rotated while we waited for the lock.
    const size = statSync(path, { throwIfNoEntry: false })?.size ?? 0;
    if (size <= limits.maxBytes) return;
    for (let g = limits.keep; g >= 1; g--) {
      const from = g === 1 ? path : auditPath(runtimeDir, g - 1);
      try {
        renameSync(from, auditPath(runtimeDir, g));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
    if (limits.keep === 0) appendFileSync(path, '', { flag: 'w' }); // keep nothing: truncate
  });
}

export interface AuditRead {
  records: AuditRecord[];
  /** `file:line: problem` for lines that could not be read (they are skipped, the rest kept). */
  problems: string[];
}

/** All records, oldest first, across rotated generations. */
export function readAudit(runtimeDir: string, keep = 50): AuditRead {
  const records: AuditRecord[] = [];
  const problems: string[] = [];
  for (let g = keep; g >= 0; g--) {
    const file = auditPath(runtimeDir, g);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    parseAuditLines(text, file, 1, records, problems);
  }
  return { records, problems };
}

export function parseAuditLines(
  text: string,
  file: string,
  firstLine: number,
  into: AuditRecord[],
  problems: string[],
): void {
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    try {
      const value = JSON.parse(line) as AuditRecord;
      if (typeof value.verdict !== 'string' || typeof value.tier !== 'string')
        throw new Error('missing verdict or tier');
      into.push(value);
    } catch (error) {
      problems.push(`${file}:${firstLine + i}: skipped unreadable audit line (${(error as Error).message})`);
    }
  });
}
