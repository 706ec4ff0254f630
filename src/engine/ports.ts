/**
 * What the engine's event modules share: the ports the Engine builds once (policy, sessions, memory, parses,
 * embedding, supervisor, queue, network) and hands to each of them, and the types of one hook event's answer.
 * The event modules (decide.ts, observe.ts, session-events.ts) get everything through EnginePorts, never
 * through the Engine itself, so each reads as a function of its event and its ports.
 */
import type { AuditSink } from '../audit/log.js';
import type { AllowEntry } from '../confine/allowlist.js';
import type { Decision } from '../core/decision.js';
import type { HostName } from '../core/tool-call.js';
import type { EmbeddingPort } from '../embed/port.js';
import type { HookOutput } from '../hosts/adapter.js';
import { loadMemory, type MemoryLoad, type MemorySources } from '../memory/load.js';
import type { CompiledPolicy } from '../policy/compiled.js';
import type { HumanPort, QueueBackend } from '../queue/types.js';
import type { SessionRegistry } from '../session/registry.js';
import type { ParseMemo } from '../shell/prepare.js';
import type { Locations } from '../util/locations.js';
import type { Supervisors } from './supervise.js';

/** What the engine asks of the daemon: a proxy socket for an allowlist, started on first use. */
export interface NetProxyPort {
  socketFor(allow: readonly AllowEntry[]): Promise<{ ok: true; socket: string } | { ok: false; reason: string }>;
}

export interface CheckResult extends HookOutput {
  /** The gate decision, for pre-tool events. */
  decision?: Decision;
  /**
   * Settles when the call's audit line is written, when the engine's sink group-commits lines (the daemon):
   * the answer must not leave before. Rejects when the line could not be written (answer as a failure).
   */
  audited?: Promise<void>;
  /**
   * Work to do once the answer is sent (reading a confined run's snapshot for the files it created:
   * settle.ts), one job at a time per engine. Whoever sends the answer runs it then; it never rejects, and
   * resolves with a line for the log when something could not be done.
   */
  after?: () => Promise<string | undefined>;
}

export interface HandleOptions {
  /** The host format; detected from the payload when absent. */
  host?: HostName;
  /** HOOKWISE_ROLE of the process that ran the hook (the fallback role for scripted runs). */
  envRole?: string | undefined;
  /** HOOKWISE_GEMINI_ASK=ask of the process that ran the hook (see hosts/gemini.ts). */
  geminiAsk?: boolean | undefined;
  /** false: nothing waits in the queue whatever the policy says (a replay, `check --jsonl`): not asks, not the agent supervisor's items. */
  queue?: boolean | undefined;
  /** The caller went away (the daemon's client closed its connection): a call waiting in the queue stops. */
  signal?: AbortSignal | undefined;
  /** Where the payload came from, for messages about it: stdin (a command hook; the default) or an HTTP body. */
  payloadFrom?: PayloadSource | undefined;
}

export type PayloadSource = 'stdin' | 'http';

/** What a call may wait on in the queue: the human port (tier 4), whether it may wait at all, and its caller going away. */
export interface QueueWaits {
  human?: HumanPort;
  /** false: nothing waits (a replay); the agent supervisor then passes too. */
  queue?: boolean;
  /** The caller went away: a wait in the queue (the agent supervisor's included) stops. */
  signal?: AbortSignal;
}

/** Where decision memory comes from: loaded per call (one-shot), or kept live (daemon). */
export interface MemorySupplier {
  load(sources: MemorySources, jaccardThreshold: number): MemoryLoad;
}

export const loadPerCall: MemorySupplier = { load: (sources, threshold) => loadMemory(sources, threshold) };

/** Gives tier 2b its port for one call: the indexes of the call's project and session scopes. */
export interface EmbeddingSupplier {
  portFor(projectRoot: string, sessionId: string | undefined, policy: CompiledPolicy): EmbeddingPort | undefined;
}

/** The shared ports, built once by the Engine and passed to every event module. */
export interface EnginePorts {
  /** Where hookwise keeps its files (runtime, user config, home). */
  readonly where: Locations;
  /** How audit lines reach the log: at once, or group-committed per event-loop turn (the daemon). */
  readonly auditSink: AuditSink;
  /** The compiled policy of a project: kept while its config files' stamps hold. */
  policyFor(projectRoot: string): Promise<CompiledPolicy>;
  /** The registered sessions. */
  readonly registry: SessionRegistry;
  /** Decision memory of a call's scopes (loaded per call, or the daemon's live view). */
  memoryFor(projectRoot: string, sessionId: string | undefined, policy: CompiledPolicy): MemoryLoad;
  /** Parses kept across calls in a long-lived engine; undefined in a one-shot process. */
  readonly parses: ParseMemo | undefined;
  /** Tier 2b's indexes (the daemon's worker pool); undefined: the tier passes on. */
  readonly embedding: EmbeddingSupplier | undefined;
  /** Tier 3's backends, made on first use and kept for the engine's life (warm in a daemon). */
  readonly supervisors: Supervisors;
  /** The queue store: the daemon's (in memory) when given, else the runtime directory's files (made on first use). */
  queue(): QueueBackend;
  /** The daemon's filtering proxies (confined commands' network allowlist); undefined outside a daemon. */
  readonly netProxy: NetProxyPort | undefined;
}
