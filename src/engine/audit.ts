/**
 * The audit log's line for a decided tool call (audit/log.ts): sanitized input, paths and project, the
 * verdict and who decided, the latency, and tier 3's answer when it gave one.
 */
import { appendFailedCall } from '../audit/failed-call.js';
import { appendAudit, type AuditSink, type AuditSupervision } from '../audit/log.js';
import type { Decision } from '../core/decision.js';
import type { HostName, ToolCall } from '../core/tool-call.js';
import { findProjectRoot } from '../paths/canonical.js';
import type { CompiledPolicy } from '../policy/compiled.js';
import { sanitizeCall } from '../sanitize/call.js';
import { shownId } from '../sanitize/ids.js';
import { sanitize, type Sanitized } from '../sanitize/index.js';
import { ensurePrivateDir } from '../util/fs-safe.js';
import { fnv1a64 } from '../util/hash.js';
import type { Locations } from '../util/locations.js';
import { supervisorName } from './supervise.js';

/** Where a call's audit line goes: the runtime directory's log, through the engine's sink (log.ts AuditSink). */
export interface AuditTo {
  where: Locations;
  sink: AuditSink;
}

/** Appends the call's line; undefined when it is written, else a promise that settles when it is (AuditSink). */
export function audit(
  to: AuditTo,
  policy: CompiledPolicy | undefined,
  call: ToolCall,
  d: Decision,
  role: string | null,
  started: bigint,
  projectRoot?: string,
): Promise<void> | undefined {
  const sanitized = sanitizeCall(call);
  return appendAudit(
    to.where.runtimeDir,
    {
      ts: new Date().toISOString(),
      session: shownId(call.sessionId),
      // A role may come from HOOKWISE_ROLE, unchecked until the cascade finds it undefined.
      role: role === null ? null : shownId(role),
      host: call.host,
      tool: shownId(call.tool),
      verdict: d.verdict,
      tier: d.tier,
      rule: d.rule?.id ?? null,
      // hrtime, not performance.now(): the first use of `performance` loads perf_hooks (~2 ms).
      latency_ms: Number(process.hrtime.bigint() - started) / 1e6,
      paths: call.paths.map((p): Sanitized => sanitize(p).text),
      input: sanitized.text,
      secrets: sanitized.findings,
      input_hash: inputHash(call.input),
      ...(projectRoot === undefined ? {} : { project: sanitize(projectRoot).text }),
      ...auditSupervision(d, policy),
    },
    policy?.audit ?? { maxBytes: 10 * 1024 * 1024, keep: 3 },
    to.sink,
  );
}

/** Tier 3's answer for the audit log: the decision it made, or the recommendation it left (its reason sanitized again). */
function auditSupervision(d: Decision, policy: CompiledPolicy | undefined): { supervisor?: AuditSupervision } {
  if (d.tier === 'supervisor') {
    const by = d.rule?.id.replace(/^supervisor:/, '') ?? 'supervisor';
    return {
      supervisor: { decision: d.verdict, confidence: d.confidence, reason: sanitize(d.reason).text, by, decided: true },
    };
  }
  const r = d.recommendation;
  const by = policy === undefined ? 'supervisor' : supervisorName(policy.supervisor);
  return r === undefined
    ? {}
    : {
        supervisor: {
          decision: r.decision,
          confidence: r.confidence,
          reason: sanitize(r.reason).text,
          by,
          decided: false,
        },
      };
}

/** Correlates repeats without storing the input; bounded so a 10 MB Write does not cost a 10 MB hash. */
function inputHash(input: Record<string, unknown>): string {
  const text = JSON.stringify(input);
  return fnv1a64(text.length > 65536 ? `${text.length}:${text.slice(0, 32768)}${text.slice(-32768)}` : text);
}

/**
 * The line of a call that failed (denied): best effort, the deny stands whether or not it could be logged (the
 * reason is already on stderr). The promise, when the sink gives one, settles when the line is written or
 * could not be, and never rejects.
 */
export function tryAudit(to: AuditTo, call: ToolCall, d: Decision, started: bigint): Promise<void> | undefined {
  try {
    return audit(to, undefined, call, d, null, started, projectRootOrUndefined(call.cwd))?.catch(() => undefined);
  } catch {
    return undefined;
  }
}

/** The call's project, or undefined when its cwd cannot be looked up (the record is still written). */
function projectRootOrUndefined(cwd: string): string | undefined {
  try {
    return findProjectRoot(cwd);
  } catch {
    return undefined;
  }
}

/** A payload that did not parse into a call: logged with what could be read (audit/failed-call.ts). */
export function tryAuditFailure(
  to: AuditTo,
  host: HostName | undefined,
  payload: Record<string, unknown> | undefined,
  raw: string,
  d: Decision,
  reason: string,
  started: bigint,
): Promise<void> | undefined {
  try {
    ensurePrivateDir(to.where.runtimeDir); // the failure may have come before the engine prepared it
    return appendFailedCall(
      to.where.runtimeDir,
      {
        host: host ?? null,
        payload,
        raw,
        rule: d.rule?.id ?? 'error:INTERNAL',
        reason,
        latencyMs: Number(process.hrtime.bigint() - started) / 1e6,
      },
      to.sink,
    )?.catch(() => undefined);
  } catch {
    return undefined; // as tryAudit: the deny stands either way
  }
}
