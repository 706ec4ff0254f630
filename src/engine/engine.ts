/**
 * The engine: one hook event in, one host answer out — the only place that knows the cascade's edges.
 * `hookwise check` (one process per call), `check --jsonl`, `explain`, `bench`, `demo` and the daemon all
 * go through it. It holds what a decision needs, loaded once and reloaded when its sources change:
 *
 *   - the compiled policy per project, keyed by its config files' stamps (policy/load.ts; a stamp that
 *     changes while compiling makes it compile again, so a half-rewritten file is never used);
 *   - decision memory per project (memory/load.ts, or a live view that follows appends in a daemon);
 *   - the shell parser, and in a long-lived engine an LRU of parses (a parse is a pure function of the
 *     command text; canonical paths and file existence are re-read for every call).
 *
 * Every failure becomes a fail-closed answer that says what went wrong and where.
 */
import { lstatSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type * as ConfineBundle from '../confine/decide.js';
import { loadWithCodeCache } from '../util/code-cache.js';
import { appendAudit, type AuditSupervision } from '../audit/log.js';
import { decision, type Decision } from '../core/decision.js';
import { describeError, HookwiseError } from '../core/errors.js';
import type { TraceStep } from '../core/tier.js';
import type { EmbeddingPort } from '../embed/port.js';
import type { HookEvent, HostName, ToolCall, ToolOutcome } from '../core/tool-call.js';
import type { HookOutput, HostAdapter, RenderOptions } from '../hosts/adapter.js';
import { claudeSandbox } from '../hosts/claude-sandbox.js';
import { adapterFor, detectHost } from '../hosts/index.js';
import { dropSessionNotes, learnFromHost, rememberDecision } from '../memory/learn.js';
import { loadMemory, type MemoryLoad, type MemorySources } from '../memory/load.js';
import { formatProblem } from '../memory/store.js';
import { findProjectRoot } from '../paths/canonical.js';
import type { CompiledPolicy } from '../policy/compiled.js';
import { loadPolicy, policyCacheKey } from '../policy/load.js';
import { sanitize, type Sanitized } from '../sanitize/index.js';
import { sanitizeCall } from '../sanitize/call.js';
import { shownId } from '../sanitize/ids.js';
import { setKeywordCacheDir } from '../sanitize/keywords.js';
import { bootstrapDecision } from '../session/bootstrap.js';
import { registrationPrompt } from '../session/messages.js';
import { SessionRegistry } from '../session/registry.js';
import { resolveSessionAsync, sessionStateOf, type SessionState } from '../session/resolve.js';
import { prepareShell, type ParseMemo } from '../shell/prepare.js';
import { ensurePrivateDir } from '../util/fs-safe.js';
import { fnv1a64 } from '../util/hash.js';
import type { Locations } from '../util/locations.js';
import { Lru } from '../util/lru.js';
import type { Confinability, NetworkAccess } from '../confine/confinable.js';
import type { NetProxyPort } from '../daemon/netproxy.js';
import { gitOnPath, gitWorkTree, type GitWorkTree } from '../confine/git-layout.js';
import { roleNamed } from '../policy/compiled.js';
import { queueToolOf } from '../policy/queue-tools.js';
import { judge, type Judgement } from './judge.js';
import {
  breakerFailure,
  breakerReset,
  breakerStatus,
  breakerSuccess,
  delegationReset,
  delegationWork,
  promptCommand,
  safemodeStatus,
} from '../modules/machine.js';
import { errorSignature } from '../modules/signature.js';
import { moduleStateFile, readModuleState, updateModuleState, type ReadState } from '../modules/state-file.js';
import type { ModuleState } from '../modules/machine.js';
import { watchFailures } from '../modules/watch.js';
import { Supervisors, supervisorName, type BackendFactory } from './supervise.js';
import { FileQueue } from '../queue/file-queue.js';
import { rememberHumanAnswer } from '../queue/remember.js';
import type { HumanPort, QueueBackend } from '../queue/types.js';

/** The role a conductor's subagents run as (policy/defaults.ts). */
const MUSICIAN = 'musician';

/** The plugin's supervisor subagent (agent_type is the host's, not the agent's) calling hookwise's queue tools. */
function leadSupervisorCall(call: ToolCall): boolean {
  return (
    queueToolOf(call.tool) !== undefined &&
    (call.agentType === 'hookwise:supervisor' || call.agentType === 'supervisor')
  );
}

export { MAX_PAYLOAD_BYTES } from '../core/limits.js';

let confineModule: typeof ConfineBundle | undefined;

/**
 * The confinement planner: its own bundle (dist/confine.cjs), loaded only for a confinable call, once per
 * process, through a V8 code cache like the shell parser's (a hook process would otherwise compile it anew).
 */
async function loadConfine(): Promise<typeof ConfineBundle> {
  if (confineModule !== undefined) return confineModule;
  if (typeof __filename === 'string' && __filename.endsWith('.cjs')) {
    confineModule = loadWithCodeCache(join(dirname(__filename), 'confine.cjs'), require, {
      writeCache: true,
    }) as typeof ConfineBundle;
  } else {
    confineModule = await import('../confine/decide.js');
  }
  return confineModule;
}

export interface CheckResult extends HookOutput {
  /** The gate decision, for pre-tool events. */
  decision?: Decision;
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
}

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

export interface EngineOptions {
  memory?: MemorySupplier;
  /** Parses to keep (by command text) across calls; 0 for a one-shot process. */
  parseCacheSize?: number;
  /** The daemon's filtering proxies (confined commands' network allowlist); absent outside a daemon. */
  netProxy?: NetProxyPort;
  /** Makes tier 3's backends (default: the real ones, engine/supervise.ts); tests inject fakes. */
  supervisorBackends?: BackendFactory;
  /** The human queue asks wait on (`human.channel: queue`): the daemon's, in memory; default the runtime directory's files. */
  queue?: QueueBackend;
  /** Tier 2b's indexes and model (the daemon's worker pool, embed/client.ts); absent: the tier passes on. */
  embedding?: EmbeddingSupplier;
}

/** Gives tier 2b its port for one call: the indexes of the call's project and session scopes. */
export interface EmbeddingSupplier {
  portFor(projectRoot: string, sessionId: string | undefined, policy: CompiledPolicy): EmbeddingPort | undefined;
}

interface PolicyEntry {
  key: string;
  policy: CompiledPolicy;
}

export class Engine {
  private readonly policies = new Map<string, PolicyEntry>();
  private readonly memory: MemorySupplier;
  private readonly parses: ParseMemo | undefined;
  private readonly registry: SessionRegistry;
  private readonly netProxy: NetProxyPort | undefined;
  private readonly embedding: EmbeddingSupplier | undefined;
  /** Tier 3's backends, made on first use and kept for the engine's life (warm in a daemon). */
  private readonly supervisors: Supervisors;
  private queue: QueueBackend | undefined;
  private prepared = false;

  constructor(
    readonly where: Locations,
    options: EngineOptions = {},
  ) {
    this.memory = options.memory ?? loadPerCall;
    const size = options.parseCacheSize ?? 0;
    this.parses = size > 0 ? new Lru(size) : undefined;
    this.registry = new SessionRegistry(where.runtimeDir);
    this.netProxy = options.netProxy;
    this.embedding = options.embedding;
    this.supervisors = new Supervisors(where, options.supervisorBackends, () => this.queueStore());
    this.queue = options.queue;
  }

  /** One hook event (the host's raw payload) → what the host gets. Never throws. */
  async handle(raw: string, options: HandleOptions = {}): Promise<CheckResult> {
    const started = process.hrtime.bigint();
    let adapter: HostAdapter | undefined = options.host === undefined ? undefined : adapterFor(options.host);
    let payload: Record<string, unknown> | undefined;
    let event: HookEvent | undefined;
    try {
      payload = parsePayload(raw);
      adapter ??= adapterFor(detectHost(payload));
      event = adapter.parse(payload);
      this.prepareRuntime();
      switch (event.kind) {
        case 'pre-tool':
          return await this.gate(event, event.call, adapter, options, started);
        case 'prompt-submit':
        case 'session-start':
          return await this.sessionContext(event, adapter, options.envRole);
        case 'post-tool': {
          const out = this.learnAfterTool(event.call, adapter, event.outcome);
          await this.breakerAfterTool(event, out);
          return out;
        }
      }
    } catch (error) {
      return this.failClosed(error, adapter, payload, event, started);
    }
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

  /** Session gate, then the cascade; first the edge work: parse a shell call, load decision memory. */
  async decide(
    state: SessionState,
    call: ToolCall,
    policy: CompiledPolicy,
    projectRoot: string,
    trace?: (step: TraceStep) => void,
    waits: QueueWaits = {},
  ): Promise<Judgement> {
    const { human } = waits;
    if (state.kind !== 'registered') return await judge(state, call, policy, projectRoot, this.where, { trace });
    const shell = await prepareShell(call, { projectRoot, home: this.where.home, cwd: call.cwd }, this.parses);
    const memory = this.memoryFor(projectRoot, call.sessionId, policy);
    // Edge I/O for the cascade's pure confinability check: a few stats, only with confinement on.
    const gitTree =
      policy.confine.enabled && call.action === 'shell' && gitOnPath() ? gitWorkTree(projectRoot) : undefined;
    const network = this.networkFor(call, policy);
    // The signed module state, verified here at the edge; the modules tier only reads it.
    const modules = readModuleState(this.where, call.sessionId);
    const embedding = policy.embedding.enabled
      ? this.embedding?.portFor(projectRoot, call.sessionId, policy)
      : undefined;
    // A call that may not wait in the queue (a replay) does not wait for the lead session either.
    const supervisor =
      waits.queue !== false || policy.supervisor.backend !== 'agent'
        ? this.supervisors.portFor(policy, projectRoot, call.cwd, state.record, waits.signal)
        : undefined;
    const task = state.record?.task;
    const judged = await judge(state, call, policy, projectRoot, this.where, {
      shell,
      memory: memory.view,
      trace,
      confine: policy.confine.enabled,
      undoable: gitTree !== undefined,
      network,
      modules,
      embedding,
      supervisor,
      human,
      task,
    });
    if (judged.confinable === undefined) return { ...judged, memoryProblems: memory.problems };
    const decided = await this.confined(
      call,
      projectRoot,
      policy,
      judged.decision,
      judged.confinable,
      gitTree,
      state.role,
      network,
    );
    trace?.({ tier: 'confine', decision: decided === judged.decision ? undefined : decided });
    // Walls could not be drawn after all: with the queue on, the ask goes to a human there (tier 4).
    if (decided.verdict === 'ask' && judged.toHuman !== undefined) {
      const answered = await judged.toHuman(decided);
      return {
        ...judged,
        decision: answered.decision,
        ...(answered.human === undefined ? {} : { human: answered.human }),
        memoryProblems: memory.problems,
      };
    }
    return { ...judged, decision: decided, memoryProblems: memory.problems };
  }

  /** The queue store: the daemon's (in memory) when given, else the runtime directory's files (made on first use). */
  private queueStore(): QueueBackend {
    return (this.queue ??= new FileQueue(this.where.runtimeDir));
  }

  /** The port a call's ask waits on, when the policy sends asks to the queue (tier 4). */
  private humanPort(policy: CompiledPolicy, signal: AbortSignal | undefined): HumanPort | undefined {
    if (policy.human.channel !== 'queue') return undefined;
    const queue = this.queueStore();
    const timeoutMs = policy.human.timeoutMs;
    return { timeoutMs, wait: (request) => queue.wait(request, timeoutMs, signal) };
  }

  /**
   * An ask the cascade could not avoid, for a command whose effect is unknown: with confinement on and
   * available, the command runs inside the walls instead (allow + the wrapped command). Every way this can
   * fail — not confinable, no bubblewrap, the walls cannot be planned — keeps the ask and says why.
   */
  private async confined(
    call: ToolCall,
    projectRoot: string,
    policy: CompiledPolicy,
    asked: Decision,
    confinable: Confinability,
    gitTree: GitWorkTree | undefined,
    roleName: string,
    network: NetworkAccess | undefined,
  ): Promise<Decision> {
    if (!confinable.ok)
      return confinable.applies ? { ...asked, reason: `${asked.reason} (not run confined: ${confinable.why})` } : asked;
    const command = call.input.command;
    if (typeof command !== 'string') return asked;
    if (call.host === 'claude') {
      // Claude Code's own sandbox would wrap the wrapped command again, which fails; its walls are not ours.
      const sandbox = claudeSandbox({ projectRoot, home: this.where.home, env: process.env });
      if (sandbox !== 'off') {
        const why =
          sandbox === 'on'
            ? 'Claude Code’s own sandbox is on (sandbox.enabled)'
            : 'a Claude Code settings file that could turn its sandbox on cannot be read';
        return {
          ...asked,
          reason: `${asked.reason} (not run confined: ${why}, and hookwise neither wraps a command twice nor allows on walls it does not draw)`,
        };
      }
    }
    const { home, runtimeDir, userConfigDir } = this.where;
    const { confineCommand } = await loadConfine();
    // The undo snapshot records the command in the repository: sanitized text only.
    const undo = gitTree === undefined ? {} : { undo: { tree: gitTree, sanitizedCommand: sanitize(command).text } };
    // The walls are tightened to the role: the directories it may not write are read-only inside them.
    const compiledRole = roleNamed(policy, roleName);
    const role = {
      name: roleName,
      allowWrite: compiledRole?.allowWrite.map((p) => p.glob) ?? [],
      denyWrite: compiledRole?.denyWrite.map((p) => p.glob) ?? [],
    };
    // The proxy when one serves the allowlist; a command that does not need the network runs with none otherwise.
    let proxied: { allow: NetworkAccess['allow']; socket: string; required: boolean } | undefined;
    if (network?.proxy.up === true && this.netProxy !== undefined) {
      const served = await this.netProxy.socketFor(network.allow);
      if (served.ok) proxied = { allow: network.allow, socket: served.socket, required: confinable.network === true };
      else if (confinable.network === true)
        return { ...asked, reason: `${asked.reason} (it could not run confined: ${served.reason})` };
    }
    const wrapped = confineCommand({
      command,
      projectRoot,
      home,
      runtimeDir,
      userConfigDir,
      sensitive: { write: policy.sensitiveWrite.map((p) => p.glob), read: policy.sensitiveRead.map((p) => p.glob) },
      role,
      ...undo,
      ...(proxied === undefined ? {} : { network: proxied }),
    });
    if (!wrapped.ok) return { ...asked, reason: `${asked.reason} (it could not run confined: ${wrapped.reason})` };
    const snapshot = wrapped.snapshot
      ? "; the project's files are snapshotted first, and `hookwise undo` restores them"
      : '';
    const reach = wrapped.proxied
      ? `can reach only ${network!.allow.map((e) => e.text).join(', ')} over HTTP(S) through hookwise's proxy`
      : 'cannot reach the network';
    const walls = `it may write ${wrapped.writes} and the temp directory (not .git, .hookwise, .claude, MCP or editor task files), cannot read credentials, ${reach}, and its processes end with it${snapshot}`;
    return {
      verdict: 'allow',
      tier: 'confine',
      reason: `no rule, pack or memory decides this command (${asked.rule?.id ?? 'no tier decided it'}), so instead of asking it runs confined: ${walls}. If the walls stop something it needs, run it yourself or ask the user`,
      rule: { id: 'confine:unknown-effect', source: policy.confine.source },
      confidence: 1,
      confined: { command: wrapped.command, walls },
    };
  }

  /**
   * The network a confined shell command may have: the policy's allowlist, and whether a filtering proxy can
   * serve it. Outside a daemon there is none: network-reaching commands are asked, the rest run with no
   * network. The proxy itself starts only when a command is confined (confined()).
   */
  private networkFor(call: ToolCall, policy: CompiledPolicy): NetworkAccess | undefined {
    if (!policy.confine.enabled || call.action !== 'shell') return undefined;
    const allow = policy.confine.network.allow;
    if (allow.length === 0) return { allow, proxy: { up: false, why: 'no network allowlist' } };
    if (this.netProxy === undefined)
      return {
        allow,
        proxy: {
          up: false,
          why: 'it is hosted by the hookwise daemon, which is not serving this call (hookwise daemon start)',
        },
      };
    return { allow, proxy: { up: true } };
  }

  memoryFor(projectRoot: string, sessionId: string | undefined, policy: CompiledPolicy): MemoryLoad {
    const { home, userConfigDir, runtimeDir } = this.where;
    const sources: MemorySources = { projectRoot, home, userConfigDir, runtimeDir };
    if (sessionId !== undefined) sources.sessionId = sessionId;
    return this.memory.load(sources, policy.memory.jaccardThreshold);
  }

  private prepareRuntime(): void {
    // Checked on every call, not once: the directory may be removed or replaced while a daemon runs.
    ensurePrivateDir(this.where.runtimeDir);
    if (this.prepared) return;
    setKeywordCacheDir(join(this.where.runtimeDir, 'cache'));
    this.prepared = true;
  }

  private async gate(
    event: HookEvent,
    call: ToolCall,
    adapter: HostAdapter,
    options: HandleOptions,
    started: bigint,
  ): Promise<CheckResult> {
    const { envRole } = options;
    const render: RenderOptions = { geminiAsk: options.geminiAsk === true };
    const projectRoot = findProjectRoot(call.cwd);
    const policy = await this.policyFor(projectRoot);
    let state = sessionStateOf(this.registry.get(call.sessionId), envRole);
    if (state.kind === 'unregistered') {
      // The agent may be registering right now; but its own `hookwise register` must not wait on itself.
      const boot = bootstrapDecision(call, policy);
      if (boot !== undefined)
        return this.finish(event, adapter, render, call, boot, null, policy, projectRoot, started);
      // Only a session's first call waits for its registration; later calls are answered at once.
      const waited = this.registry.waitedFor(call.sessionId);
      state = await resolveSessionAsync(
        this.registry,
        call.sessionId,
        envRole,
        waited ? { ...policy.registration, waitMs: 0 } : policy.registration,
      );
      if (state.kind === 'unregistered' && !waited) this.registry.markWaited(call.sessionId);
    }
    // A conductor's subagent is its musician: judged with that role, never the conductor's (issue 16).
    // Except the lead's own supervisor subagent (plugin/agents/supervisor.md) using hookwise's queue tools: it answers for the lead.
    if (
      state.kind === 'registered' &&
      call.agentId !== undefined &&
      !leadSupervisorCall(call) &&
      roleNamed(policy, state.role)?.group === 'orchestration' &&
      roleNamed(policy, MUSICIAN) !== undefined
    ) {
      state = { kind: 'registered', role: MUSICIAN, via: state.via };
    }
    const role = roleName(state);
    // With a breaker on, the plugin wrapper must start hookwise for this session's tool results (watch.ts).
    if (policy.modules.circuitBreaker.enabled) watchFailures(this.where.runtimeDir, call.sessionId);
    const human = options.queue === false ? undefined : this.humanPort(policy, options.signal);
    const judged = await this.decide(state, call, policy, projectRoot, undefined, {
      ...(human === undefined ? {} : { human }),
      queue: options.queue !== false,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    if (judged.delegation !== undefined) this.countDelegation(call, policy, judged.delegation, judged.decision);
    const out = this.finish(event, adapter, render, call, judged.decision, role, policy, projectRoot, started);
    if (role !== null) this.remember(judged, call, role, policy, projectRoot, out);
    return out;
  }

  private finish(
    event: HookEvent,
    adapter: HostAdapter,
    render: RenderOptions,
    call: ToolCall,
    d: Decision,
    role: string | null,
    policy: CompiledPolicy,
    projectRoot: string,
    started: bigint,
  ): CheckResult {
    const out: CheckResult = { ...adapter.renderDecision(event, d, render), decision: d };
    audit(
      this.where,
      policy,
      call,
      out.delivered === undefined ? d : { ...d, verdict: out.delivered },
      role,
      started,
      projectRoot,
    );
    return out;
  }

  /**
   * Learning at the edge, after the decision: an ask nobody decided may be answered at the host's prompt
   * (remembered as pending until the host reports the tool ran); an ask propagated by similarity is recorded
   * for this exact call, so a repeat cannot drift to allow. Never changes the decision: a failure to remember
   * is reported on stderr and the call is judged as it was.
   */
  private remember(
    judged: Judgement,
    call: ToolCall,
    role: string,
    policy: CompiledPolicy,
    projectRoot: string,
    out: CheckResult,
  ): void {
    // A corrupt line's parse error quotes the line: sanitized like anything else that leaves the process.
    const notes: string[] = (judged.memoryProblems ?? []).map(
      (p) => `hookwise: decision memory: ${sanitize(formatProblem(p)).text}`,
    );
    try {
      rememberDecision(judged, call, role, policy.memory, { projectRoot, where: this.where });
      if (judged.human !== undefined) {
        const note = rememberHumanAnswer(judged.human, judged.memo, call, judged.paths ?? [], role, policy.memory, {
          projectRoot,
          where: this.where,
        });
        if (note !== undefined) notes.push(`hookwise: ${note}`);
      }
    } catch (error) {
      notes.push(`hookwise: could not remember this decision: ${describeError(error)}`);
    }
    if (notes.length > 0) out.stderr = `${out.stderr ?? ''}${notes.join('\n')}\n`;
  }

  private learnAfterTool(call: ToolCall, adapter: HostAdapter, outcome: ToolOutcome | undefined): CheckResult {
    const out: CheckResult = adapter.renderNothing();
    try {
      learnFromHost(call, this.where, outcome);
    } catch (error) {
      out.stderr = `hookwise: could not learn from this call: ${describeError(error)}\n`;
    }
    return out;
  }

  /**
   * The circuit breaker's input: a failed run (PostToolUseFailure) counts, reduced to its error signature
   * (only the kind is stored, never the output); a successful one ends a run of consecutive failures. The
   * policy is loaded only for a failure, and the state file touched on success only when it exists. A
   * failure to record is reported on stderr; the tool already ran, so there is nothing to block.
   */
  private async breakerAfterTool(event: Extract<HookEvent, { kind: 'post-tool' }>, out: CheckResult): Promise<void> {
    const { call } = event;
    const failed = event.outcome?.failed ?? event.hostEvent === 'PostToolUseFailure';
    try {
      if (!failed) {
        if (lstatSync(moduleStateFile(this.where.runtimeDir, call.sessionId), { throwIfNoEntry: false }) === undefined)
          return;
        const read = readModuleState(this.where, call.sessionId);
        if (read.kind === 'valid' && read.state.breaker.consecutive > 0)
          updateModuleState(this.where, call.sessionId, breakerSuccess);
        return;
      }
      const policy = await this.policyFor(findProjectRoot(call.cwd));
      const breaker = policy.modules.circuitBreaker;
      if (!breaker.enabled) return;
      const signature = errorSignature(event.outcome?.output ?? '');
      updateModuleState(this.where, call.sessionId, (state) => breakerFailure(state, signature, breaker.threshold));
    } catch (error) {
      out.stderr = `${out.stderr ?? ''}hookwise: circuit breaker: could not record this result: ${describeError(error)}\n`;
    }
  }

  /**
   * A module command typed as the human's whole prompt (s+, s-, s?, reset breaker / rb-, rb?): applied to the
   * signed state, answered as additional context. Only from this event — a tool's input never reaches here.
   */
  private async modulePrompt(event: Extract<HookEvent, { kind: 'prompt-submit' }>): Promise<string | undefined> {
    const command = promptCommand(event.prompt);
    if (command === undefined) return undefined;
    const policy = await this.policyFor(findProjectRoot(event.cwd));
    const { safemode, circuitBreaker } = policy.modules;
    // A prompt of "s+" means nothing special to a user who has not turned the module on.
    if (command.startsWith('safemode') && !safemode.enabled) return undefined;
    if (command.startsWith('breaker') && !circuitBreaker.enabled) return undefined;
    const where = this.where;
    const id = event.sessionId;
    switch (command) {
      case 'safemode-on':
        return stateAnswer(
          updateModuleState(where, id, (s) => ({ ...s, safemode: true })),
          (s) => safemodeStatus(s),
        );
      case 'safemode-off':
        return stateAnswer(
          updateModuleState(where, id, (s) => ({ ...s, safemode: false }), { reset: true }),
          (s) => safemodeStatus(s),
        );
      case 'safemode-status':
        return stateAnswer(readModuleState(where, id), (s) => safemodeStatus(s));
      case 'breaker-reset':
        return stateAnswer(updateModuleState(where, id, breakerReset, { reset: true }), (s) =>
          breakerStatus(s, circuitBreaker.threshold),
        );
      case 'breaker-status':
        return stateAnswer(readModuleState(where, id), (s) => breakerStatus(s, circuitBreaker.threshold));
    }
  }

  private async sessionContext(
    event: HookEvent,
    adapter: HostAdapter,
    envRole: string | undefined,
  ): Promise<CheckResult> {
    // A new prompt: the previous turn's tool calls are all answered; notes left are declined asks (learn.ts).
    if (event.kind === 'prompt-submit') {
      try {
        dropSessionNotes(this.where.runtimeDir, event.sessionId);
      } catch {
        // Best effort: a note left behind only costs a Node start per PostToolUse until it expires.
      }
    }
    // A session that starts afresh (startup, clear) starts a fresh delegation window.
    if (event.kind === 'session-start') this.resetDelegation(event.sessionId);
    const moduleAnswer = event.kind === 'prompt-submit' ? await this.modulePrompt(event) : undefined;
    if (moduleAnswer !== undefined) return adapter.renderContext(event, moduleAnswer);
    const state = sessionStateOf(this.registry.get(event.sessionId), envRole);
    if (state.kind !== 'unregistered') return adapter.renderContext(event, undefined);
    const policy = await this.policyFor(findProjectRoot(event.cwd));
    return adapter.renderContext(event, registrationPrompt(event.sessionId, policy));
  }

  private resetDelegation(sessionId: string): void {
    if (lstatSync(moduleStateFile(this.where.runtimeDir, sessionId), { throwIfNoEntry: false }) === undefined) return;
    const read = readModuleState(this.where, sessionId);
    if (read.kind !== 'valid' || read.state.delegation.calls.length === 0) return;
    try {
      updateModuleState(this.where, sessionId, delegationReset);
    } catch (error) {
      process.stderr.write(`hookwise: could not reset the delegation window: ${describeError(error)}\n`);
    }
  }

  /**
   * The delegation window's edge (modules/conductor.ts): a conductor's work call is counted whatever its
   * verdict (denied ones too: the count only resets by delegating); a delegation that may run resets it.
   * A failure to record is reported on stderr and fails toward the window: the next call reads the old count.
   */
  private countDelegation(call: ToolCall, policy: CompiledPolicy, kind: 'work' | 'delegated', d: Decision): void {
    const now = Date.now();
    const windowMs = policy.modules.delegation.windowMs;
    if (kind === 'delegated' && d.verdict === 'deny') return;
    try {
      updateModuleState(this.where, call.sessionId, (s) =>
        kind === 'work' ? delegationWork(s, now, windowMs) : delegationReset(s),
      );
    } catch (error) {
      process.stderr.write(`hookwise: could not update the delegation window: ${describeError(error)}\n`);
    }
  }

  /**
   * Any failure → deny. When we know the host and that this is a pre-tool event we answer in its JSON;
   * otherwise exit 2 with the reason on stderr, which every host treats as a block.
   */
  private failClosed(
    error: unknown,
    adapter: HostAdapter | undefined,
    payload: Record<string, unknown> | undefined,
    event: HookEvent | undefined,
    started: bigint,
  ): CheckResult {
    const reason = describeError(error);
    const d = decision('deny', 'input', `cannot judge this call safely, so it is blocked: ${reason}`, {
      id: error instanceof HookwiseError ? `error:${error.code}` : 'error:INTERNAL',
      source: 'hookwise',
    });
    if (event !== undefined && event.kind !== 'pre-tool' && adapter !== undefined) {
      // Prompt/session events cannot gate tools; tell the user instead of blocking their prompt.
      return adapter.renderContext(event, undefined, `hookwise: ${reason}`);
    }
    if (event?.kind === 'pre-tool') tryAudit(this.where, event.call, d, started);
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
      return { ...adapter.renderDecision(stub, d), stderr: `hookwise: ${reason}\n`, decision: d };
    }
    return { stdout: '', stderr: `hookwise: ${reason}\n`, exitCode: 2, decision: d };
  }
}

function stateAnswer(read: ReadState, say: (state: ModuleState) => string): string {
  if (read.kind === 'tampered')
    return `hookwise module state for this session was tampered with (${read.why}); edits and writes stay blocked until the user resets it: hookwise breaker reset --session-id <id> (or the prompt \`reset breaker\`).`;
  return say(read.state);
}

const PRE_TOOL_EVENTS = new Set(['PreToolUse', 'BeforeTool']);

function parsePayload(raw: string): Record<string, unknown> {
  if (raw.trim() === '')
    throw new HookwiseError('INPUT_EMPTY', 'no hook payload on stdin (expected one JSON object from the host)');
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    throw new HookwiseError('INPUT_NOT_JSON', `hook payload on stdin is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new HookwiseError('INPUT_INVALID', 'hook payload on stdin must be a JSON object');
  }
  return value as Record<string, unknown>;
}

function roleName(state: SessionState): string | null {
  return state.kind === 'registered' ? state.role : state.kind === 'disabled' ? state.record.role : null;
}

function audit(
  where: Locations,
  policy: CompiledPolicy | undefined,
  call: ToolCall,
  d: Decision,
  role: string | null,
  started: bigint,
  projectRoot?: string,
): void {
  const sanitized = sanitizeCall(call);
  appendAudit(
    where.runtimeDir,
    {
      ts: new Date().toISOString(),
      session: shownId(call.sessionId),
      role,
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

function tryAudit(where: Locations, call: ToolCall, d: Decision, started: bigint): void {
  try {
    audit(where, undefined, call, d, null, started);
  } catch {
    // The decision (deny) stands whether or not it could be logged; the reason is already on stderr.
  }
}
