/**
 * The engine: one hook event in, one host answer out — construction and routing. `hookwise check` (one
 * process per call), `check --jsonl`, `explain`, `bench`, `demo` and the daemon all go through it. It builds
 * the shared ports once (ports.ts) and hands each event to its module:
 *
 *   - pre-tool      decide.ts          the session gate → the cascade → confinement → the queue; audit, learning
 *                   (after settle.ts: what the session's earlier calls left pending, when no PostToolUse reports it)
 *   - post-tool     observe.ts         learning from the outcome, the circuit breaker
 *   - session start,
 *     prompt        session-events.ts  module commands, the registration prompt, a fresh delegation window
 *   - turn end      settle.ts          Stop, SessionEnd: settle the session's pending notes, drop the rest
 *
 * What a decision needs is loaded once and reloaded when its sources change: the compiled policy per project,
 * keyed by its config files' stamps (policy/load.ts; a stamp that changes while compiling makes it compile
 * again, so a half-rewritten file is never used); decision memory per project (memory/load.ts, or a live view
 * that follows appends in a daemon); the shell parser, and in a long-lived engine an LRU of parses (a parse is
 * a pure function of the command text; canonical paths and file existence are re-read for every call).
 *
 * Every failure becomes a fail-closed answer that says what went wrong and where.
 */
import { join } from 'node:path';
import { decision } from '../core/decision.js';
import { errorCodeOf, HookwiseError } from '../core/errors.js';
import { shownError } from '../sanitize/shown.js';
import type { HookEvent } from '../core/tool-call.js';
import type { HostAdapter } from '../hosts/adapter.js';
import { adapterFor, detectHost } from '../hosts/index.js';
import type { MemoryLoad, MemorySources } from '../memory/load.js';
import type { CompiledPolicy } from '../policy/compiled.js';
import { loadPolicy, policyCacheKey } from '../policy/load.js';
import { setKeywordCacheDir } from '../sanitize/keywords.js';
import { SessionRegistry, type SharedSessionLookup } from '../session/registry.js';
import type { SharedSupervisorAnswers } from '../supervisor/backend.js';
import { FileQueue } from '../queue/file-queue.js';
import type { QueueBackend } from '../queue/types.js';
import { ensurePrivateDir } from '../util/fs-safe.js';
import type { Locations } from '../util/locations.js';
import { Lru } from '../util/lru.js';
import { AUDIT_AT_ONCE, type AuditSink } from '../audit/log.js';
import { tryAudit, tryAuditFailure } from './audit.js';
import { decideCall, decideToolCall } from './decide.js';
import type { Judgement } from './judge.js';
import { observeToolResult } from './observe.js';
import {
  loadPerCall,
  type CheckResult,
  type EmbeddingSupplier,
  type EnginePorts,
  type HandleOptions,
  type MemorySupplier,
  type NetProxyPort,
  type PayloadSource,
} from './ports.js';
import { answerSessionEvent } from './session-events.js';
import { answerTurnEnd, claimRuns, settleRuns, settleSession } from './settle.js';
import type { ClaimedRun } from '../session/provenance.js';
import { runAdditions } from './confine.js';
import { Supervisors, type BackendFactory } from './supervise.js';

export { MAX_PAYLOAD_BYTES } from '../core/limits.js';
export {
  loadPerCall,
  type CheckResult,
  type EmbeddingSupplier,
  type HandleOptions,
  type MemorySupplier,
  type QueueWaits,
} from './ports.js';

export interface EngineOptions {
  memory?: MemorySupplier;
  /** Parses to keep (by command text) across calls; 0 for a one-shot process. */
  parseCacheSize?: number;
  /** The daemon's filtering proxies (confined commands' network allowlist); absent outside a daemon. */
  netProxy?: NetProxyPort;
  /** Makes tier 3's backends (default: the real ones, engine/supervise.ts); tests inject fakes. */
  supervisorBackends?: BackendFactory;
  /** A daemon's copy of what the team shares through its store (store/fleet-share.ts): sessions, supervisor answers. */
  fleet?: { sessions?: SharedSessionLookup; answers?: SharedSupervisorAnswers };
  /** The human queue asks wait on (`human.channel: queue`): the daemon's, in memory; default the runtime directory's files. */
  queue?: QueueBackend;
  /** Tier 2b's indexes and model (the daemon's worker pool, embed/client.ts); absent: the tier passes on. */
  embedding?: EmbeddingSupplier;
  /** How audit lines reach the log (audit/log.ts): default at once; the daemon group-commits them per turn. */
  auditSink?: AuditSink;
}

/** Engine.decide's parameters: decideCall's, without the ports the engine supplies. */
type DecideArgs = Parameters<typeof decideCall> extends [EnginePorts, ...infer Rest] ? Rest : never;

interface PolicyEntry {
  key: string;
  policy: CompiledPolicy;
}

export class Engine {
  private readonly policies = new Map<string, PolicyEntry>();
  private readonly memory: MemorySupplier;
  private queue: QueueBackend | undefined;
  private prepared = false;
  /** What the event modules share, built once: the ports are passed in, never reached through the engine. */
  private readonly ports: EnginePorts;

  constructor(
    readonly where: Locations,
    options: EngineOptions = {},
  ) {
    this.memory = options.memory ?? loadPerCall;
    const size = options.parseCacheSize ?? 0;
    this.queue = options.queue;
    const queue = (): QueueBackend => this.queueStore();
    this.ports = {
      where,
      auditSink: options.auditSink ?? AUDIT_AT_ONCE,
      policyFor: (projectRoot) => this.policyFor(projectRoot),
      registry: new SessionRegistry(where.runtimeDir, options.fleet?.sessions),
      memoryFor: (projectRoot, sessionId, policy) => this.memoryFor(projectRoot, sessionId, policy),
      parses: size > 0 ? new Lru(size) : undefined,
      embedding: options.embedding,
      supervisors: new Supervisors(where, options.supervisorBackends, queue, options.fleet?.answers),
      queue,
      netProxy: options.netProxy,
    };
  }

  /** One hook event (the host's raw payload) → what the host gets. Never throws. */
  async handle(raw: string, options: HandleOptions = {}): Promise<CheckResult> {
    const started = process.hrtime.bigint();
    let adapter: HostAdapter | undefined = options.host === undefined ? undefined : adapterFor(options.host);
    let payload: Record<string, unknown> | undefined;
    let event: HookEvent | undefined;
    try {
      payload = parsePayload(raw, options.payloadFrom ?? 'stdin');
      adapter ??= adapterFor(detectHost(payload));
      const parsed = adapter.parse(payload);
      event = parsed;
      this.prepareRuntime();
      // Claimed confined runs: their snapshots are read once the answer is sent (settle.ts settleRuns).
      const readLater = (runs: ClaimedRun[]): CheckResult['after'] =>
        runs.length === 0 ? undefined : this.afterAnswer(() => this.readRuns(parsed.sessionId, runs));
      switch (parsed.kind) {
        case 'pre-tool': {
          // What the session's earlier calls left pending is settled first, at the edge (settle.ts); a
          // finished confined run's snapshot is read after the answer.
          const settled = settleSession(this.where, parsed, 'next-call');
          const out = await decideToolCall(this.ports, parsed, adapter, options, started);
          // Those whose result the transcript shows are claimed after the answer too: reading it takes a while.
          const after = settled.runs
            ? this.afterAnswer(() => this.readRuns(parsed.sessionId, claimRuns(this.where, parsed, 'finished')))
            : undefined;
          return {
            ...out,
            ...(settled.problem === undefined ? {} : { stderr: `${settled.problem}${out.stderr ?? ''}` }),
            ...(after === undefined ? {} : { after }),
          };
        }
        case 'prompt-submit': {
          // Before the prompt drops the previous turn's notes (session-events.ts): its confined runs claimed.
          const settled = settleSession(this.where, parsed, 'turn-end');
          const after = readLater(settled.runs ? claimRuns(this.where, parsed, 'all') : []);
          const out = await answerSessionEvent(this.ports, parsed, adapter, options.envRole);
          return after === undefined ? out : { ...out, after };
        }
        case 'session-start':
          return await answerSessionEvent(this.ports, parsed, adapter, options.envRole);
        case 'post-tool':
          return await observeToolResult(this.ports, parsed, adapter, readLater);
        case 'turn-end':
          return answerTurnEnd(this.ports, parsed, adapter, readLater);
      }
    } catch (error) {
      return this.failClosed(error, adapter, raw, payload, event, started);
    }
  }

  /**
   * After-answer work (CheckResult.after), one job at a time: reading snapshots shares a scratch index per
   * process, and two at once would only compete for the CPU the next decisions need.
   */
  private afterAnswer(job: () => Promise<string | undefined>): () => Promise<string | undefined> {
    return () => {
      const run = this.afterQueue.then(job).catch((error: unknown) => `hookwise: ${shownError(error)}\n`);
      this.afterQueue = run.then(() => undefined);
      return run;
    };
  }

  private afterQueue: Promise<void> = Promise.resolve();

  /** The files claimed confined runs added, from their snapshots (git, without blocking the event loop). */
  private readRuns(sessionId: string, runs: readonly ClaimedRun[]): Promise<string | undefined> {
    const { runtimeDir } = this.where;
    return settleRuns(this.where, sessionId, runs, (root, commit) => runAdditions(root, runtimeDir, commit));
  }

  /** The compiled policy of a project: kept while its config files' stamps hold. */
  async policyFor(projectRoot: string): Promise<CompiledPolicy> {
    const key = policyCacheKey(projectRoot, this.where);
    const held = this.policies.get(projectRoot);
    if (held !== undefined && held.key === key) return held.policy;
    const policy = await loadPolicy(projectRoot, this.where);
    // Keyed by the stamps seen before loading: a change during the load is picked up next time.
    this.policies.set(projectRoot, { key, policy });
    return policy;
  }

  /**
   * Session gate, then the cascade, with its edge work (decide.ts decideCall): (state, call, policy,
   * projectRoot, trace?, waits?) → the judgement.
   */
  async decide(...args: DecideArgs): Promise<Judgement> {
    return await decideCall(this.ports, ...args);
  }

  memoryFor(projectRoot: string, sessionId: string | undefined, policy: CompiledPolicy): MemoryLoad {
    const { home, userConfigDir, runtimeDir } = this.where;
    const sources: MemorySources = { projectRoot, home, userConfigDir, runtimeDir };
    if (sessionId !== undefined) sources.sessionId = sessionId;
    return this.memory.load(sources, policy.memory.jaccardThreshold);
  }

  /** The queue store: the daemon's (in memory) when given, else the runtime directory's files (made on first use). */
  private queueStore(): QueueBackend {
    return (this.queue ??= new FileQueue(this.where.runtimeDir));
  }

  private prepareRuntime(): void {
    // Checked on every call, not once: the directory may be removed or replaced while a daemon runs.
    ensurePrivateDir(this.where.runtimeDir);
    if (this.prepared) return;
    setKeywordCacheDir(join(this.where.runtimeDir, 'cache'));
    this.prepared = true;
  }

  /**
   * Any failure → deny. When we know the host and that this is a pre-tool event we answer in its JSON;
   * otherwise exit 2 with the reason on stderr, which every host treats as a block.
   */
  private failClosed(
    error: unknown,
    adapter: HostAdapter | undefined,
    raw: string,
    payload: Record<string, unknown> | undefined,
    event: HookEvent | undefined,
    started: bigint,
  ): CheckResult {
    const reason = shownError(error);
    const d = decision('deny', 'input', `cannot judge this call safely, so it is blocked: ${reason}`, {
      id: `error:${errorCodeOf(error) ?? 'INTERNAL'}`,
      source: 'hookwise',
    });
    if (event !== undefined && event.kind !== 'pre-tool' && adapter !== undefined) {
      // Prompt/session events cannot gate tools; tell the user instead of blocking their prompt.
      return adapter.renderContext(event, undefined, `hookwise: ${reason}`);
    }
    const to = { where: this.where, sink: this.ports.auditSink };
    const written =
      event?.kind === 'pre-tool'
        ? tryAudit(to, event.call, d, started)
        : tryAuditFailure(to, adapter?.name, payload, raw, d, reason, started);
    const audited = written === undefined ? {} : { audited: written };
    const hostEvent = payload?.hook_event_name;
    if (adapter !== undefined && typeof hostEvent === 'string' && PRE_TOOL_EVENTS.has(hostEvent)) {
      const sessionId = typeof payload?.session_id === 'string' ? payload.session_id : 'unknown';
      const stub = event ?? {
        kind: 'session-start' as const,
        host: adapter.name,
        hostEvent,
        sessionId,
        cwd: '/',
        source: 'error',
      };
      return { ...adapter.renderDecision(stub, d), stderr: `hookwise: ${reason}\n`, decision: d, ...audited };
    }
    return { stdout: '', stderr: `hookwise: ${reason}\n`, exitCode: 2, decision: d, ...audited };
  }
}

const PRE_TOOL_EVENTS = new Set(['PreToolUse', 'BeforeTool']);

const PAYLOAD_WHERE: Record<PayloadSource, string> = { stdin: 'on stdin', http: 'in the HTTP request body' };

function parsePayload(raw: string, from: PayloadSource): Record<string, unknown> {
  const where = PAYLOAD_WHERE[from];
  if (raw.trim() === '')
    throw new HookwiseError('INPUT_EMPTY', `no hook payload ${where} (expected one JSON object from the host)`);
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    throw new HookwiseError('INPUT_NOT_JSON', `hook payload ${where} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new HookwiseError('INPUT_INVALID', `hook payload ${where} must be a JSON object`);
  }
  return value as Record<string, unknown>;
}
