/**
 * Deciding a tool call (a pre-tool event): the session gate → the cascade (judge.ts, cascade.ts) with its
 * edge work → confinement (confine.ts) → the human queue; then the audit line and what is remembered. The
 * shared ports come in as EnginePorts.
 */
import { gitOnPath, gitWorkTree } from '../confine/git-layout.js';
import type { Decision } from '../core/decision.js';
import { shownError } from '../sanitize/shown.js';
import type { TraceStep } from '../core/tier.js';
import type { HookEvent, ToolCall } from '../core/tool-call.js';
import type { HostAdapter, RenderOptions } from '../hosts/adapter.js';
import { rememberDecision } from '../memory/learn.js';
import { formatProblem } from '../memory/store.js';
import { delegationReset, delegationWork } from '../modules/machine.js';
import { readModuleState, updateModuleState } from '../modules/state-file.js';
import { watchFailures } from '../modules/watch.js';
import { findProjectRoot } from '../paths/canonical.js';
import { roleNamed, type CompiledPolicy } from '../policy/compiled.js';
import { queueToolOf } from '../policy/queue-tools.js';
import { rememberHumanAnswer } from '../queue/remember.js';
import type { HumanPort } from '../queue/types.js';
import { sanitize } from '../sanitize/index.js';
import { bootstrapDecision } from '../session/bootstrap.js';
import { createdTargets, creationCandidates, noteCreations } from '../session/provenance.js';
import { resolveSessionAsync, sessionStateOf, type SessionState } from '../session/resolve.js';
import { prepareShell, type PreparedShell } from '../shell/prepare.js';
import type { Locations } from '../util/locations.js';
import { audit } from './audit.js';
import { confineAsk, networkFor } from './confine.js';
import { judge, type Judgement } from './judge.js';
import type { CheckResult, EnginePorts, HandleOptions, QueueWaits } from './ports.js';

/** The role a conductor's subagents run as (policy/defaults.ts). */
const MUSICIAN = 'musician';

/** The plugin's supervisor subagent (agent_type is the host's, not the agent's) calling hookwise's queue tools. */
function leadSupervisorCall(call: ToolCall): boolean {
  return (
    queueToolOf(call.tool) !== undefined &&
    (call.agentType === 'hookwise:supervisor' || call.agentType === 'supervisor')
  );
}

/**
 * A pre-tool event: the session gate (registration, a conductor's subagent as its musician), the cascade and
 * its edges (decideCall), the audit line, then the edge work after the decision: the delegation window and
 * what memory learns. The entry point of this module.
 */
export async function decideToolCall(
  ports: EnginePorts,
  event: Extract<HookEvent, { kind: 'pre-tool' }>,
  adapter: HostAdapter,
  options: HandleOptions,
  started: bigint,
): Promise<CheckResult> {
  const { call } = event;
  const { envRole } = options;
  const render: RenderOptions = { geminiAsk: options.geminiAsk === true };
  const projectRoot = findProjectRoot(call.cwd);
  const policy = await ports.policyFor(projectRoot);
  let state = sessionStateOf(ports.registry.get(call.sessionId), envRole);
  if (state.kind === 'unregistered') {
    // The agent may be registering right now; but its own `hookwise register` must not wait on itself.
    const boot = bootstrapDecision(call, policy);
    if (boot !== undefined)
      return finish(ports, event, adapter, render, call, boot, null, policy, projectRoot, started);
    // Only a session's first call waits for its registration; later calls are answered at once.
    const waited = ports.registry.waitedFor(call.sessionId);
    state = await resolveSessionAsync(
      ports.registry,
      call.sessionId,
      envRole,
      waited ? { ...policy.registration, waitMs: 0 } : policy.registration,
    );
    if (state.kind === 'unregistered' && !waited) ports.registry.markWaited(call.sessionId);
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
  if (policy.modules.circuitBreaker.enabled) watchFailures(ports.where.runtimeDir, call.sessionId);
  const human = options.queue === false ? undefined : humanPort(ports, policy, options.signal);
  const judged = await decideCall(ports, state, call, policy, projectRoot, undefined, {
    ...(human === undefined ? {} : { human }),
    queue: options.queue !== false,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  if (judged.delegation !== undefined) countDelegation(ports.where, call, policy, judged.delegation, judged.decision);
  const out = finish(ports, event, adapter, render, call, judged.decision, role, policy, projectRoot, started);
  if (role !== null) remember(ports.where, judged, call, role, policy, { projectRoot, event }, out);
  if (judged.decision.verdict !== 'deny' && (judged.creations !== undefined || judged.decision.confined?.undo))
    noteCreated(ports.where, call, judged, out);
  return out;
}

/**
 * Session provenance's first half (session/provenance.ts): the paths a call that may run is about to create,
 * and a confined run's undo snapshot, noted for PostToolUse. A failure only means those files are not vouched
 * for later (their deletion asks).
 */
function noteCreated(where: Locations, call: ToolCall, judged: Judgement, out: CheckResult): void {
  try {
    noteCreations(where, call, judged.creations ?? [], Date.now(), judged.decision.confined?.undo);
  } catch (error) {
    out.stderr = `${out.stderr ?? ''}hookwise: could not note the files this call creates: ${shownError(error)}\n`;
  }
}

/** Which of a shell call's write targets this session created (session/provenance.ts); none when unreadable. */
function sessionCreated(shell: PreparedShell, where: Locations, sessionId: string): boolean[] | undefined {
  try {
    return createdTargets(shell, where, sessionId);
  } catch {
    return undefined; // no provenance: every deletion and overwrite is judged as before
  }
}

/**
 * Session gate, then the cascade; first the edge work: parse a shell call, load decision memory, read the
 * module state, find the ports of tiers 2b and 3. Then confinement for an ask that may run inside walls, and
 * the human queue when walls cannot be drawn after all. The gate, `explain` and the benchmarks use it.
 */
export async function decideCall(
  ports: EnginePorts,
  state: SessionState,
  call: ToolCall,
  policy: CompiledPolicy,
  projectRoot: string,
  trace?: (step: TraceStep) => void,
  waits: QueueWaits = {},
): Promise<Judgement> {
  const { human } = waits;
  if (state.kind !== 'registered') return await judge(state, call, policy, projectRoot, ports.where, { trace });
  const shell = await prepareShell(call, { projectRoot, home: ports.where.home, cwd: call.cwd }, ports.parses);
  // Files this session created and still the same: deleting or overwriting them loses nothing of anyone else's.
  const created = shell === undefined ? undefined : sessionCreated(shell, ports.where, call.sessionId);
  if (created !== undefined) shell!.created = created;
  const creations = creationCandidates(call, shell, projectRoot, ports.where.home);
  const memory = ports.memoryFor(projectRoot, call.sessionId, policy);
  // Edge I/O for the cascade's pure confinability check: a few stats, only with confinement on.
  const gitTree =
    policy.confine.mode !== 'off' && call.action === 'shell' && gitOnPath() ? gitWorkTree(projectRoot) : undefined;
  const network = networkFor(ports, call, policy);
  // The signed module state, verified here at the edge; the modules tier only reads it.
  const modules = readModuleState(ports.where, call.sessionId);
  const embedding = policy.embedding.enabled
    ? ports.embedding?.portFor(projectRoot, call.sessionId, policy)
    : undefined;
  // A call that may not wait in the queue (a replay) does not wait for the lead session either.
  const supervisor =
    waits.queue !== false || policy.supervisor.backend !== 'agent'
      ? ports.supervisors.portFor(policy, projectRoot, call.cwd, state.record, waits.signal)
      : undefined;
  const task = state.record?.task;
  const judgedAlone = await judge(state, call, policy, projectRoot, ports.where, {
    shell,
    memory: memory.view,
    trace,
    confine: policy.confine.mode !== 'off',
    undoable: gitTree !== undefined,
    network,
    modules,
    embedding,
    supervisor,
    human,
    task,
  });
  const judged: Judgement = creations.length > 0 ? { ...judgedAlone, creations } : judgedAlone;
  if (judged.confinable === undefined) return { ...judged, memoryProblems: memory.problems };
  const decided = await confineAsk(
    ports,
    call,
    projectRoot,
    policy,
    judged.decision,
    judged.confinable,
    gitTree,
    state.role,
    network,
    shell,
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

/** The port a call's ask waits on, when the policy sends asks to the queue (tier 4). */
function humanPort(
  ports: Pick<EnginePorts, 'queue'>,
  policy: CompiledPolicy,
  signal: AbortSignal | undefined,
): HumanPort | undefined {
  if (policy.human.channel !== 'queue') return undefined;
  const queue = ports.queue();
  const timeoutMs = policy.human.timeoutMs;
  return { timeoutMs, wait: (request) => queue.wait(request, timeoutMs, signal) };
}

/** The host's answer, and the call's audit line (`audited`: when the sink writes it later, see AuditSink). */
function finish(
  ports: Pick<EnginePorts, 'where' | 'auditSink'>,
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
  const audited = audit(
    { where: ports.where, sink: ports.auditSink },
    policy,
    call,
    out.delivered === undefined ? d : { ...d, verdict: out.delivered },
    role,
    started,
    projectRoot,
  );
  if (audited !== undefined) out.audited = audited;
  return out;
}

/**
 * Learning at the edge, after the decision: an ask nobody decided may be answered at the host's prompt
 * (remembered as pending until the host reports the tool ran); an ask propagated by similarity is recorded
 * for this exact call, so a repeat cannot drift to allow. Never changes the decision: a failure to remember
 * is reported on stderr and the call is judged as it was.
 */
function remember(
  where: Locations,
  judged: Judgement,
  call: ToolCall,
  role: string,
  policy: CompiledPolicy,
  { projectRoot, event }: { projectRoot: string; event: HookEvent },
  out: CheckResult,
): void {
  // A corrupt line's parse error quotes the line: sanitized like anything else that leaves the process.
  const notes: string[] = (judged.memoryProblems ?? []).map(
    (p) => `hookwise: decision memory: ${sanitize(formatProblem(p)).text}`,
  );
  try {
    rememberDecision(judged, call, role, policy.memory, { projectRoot, where, transcriptPath: event.transcriptPath });
    if (judged.human !== undefined) {
      const note = rememberHumanAnswer(judged.human, judged.memo, call, judged.paths ?? [], role, policy.memory, {
        projectRoot,
        where: where,
      });
      if (note !== undefined) notes.push(`hookwise: ${note}`);
    }
  } catch (error) {
    notes.push(`hookwise: could not remember this decision: ${shownError(error)}`);
  }
  if (notes.length > 0) out.stderr = `${out.stderr ?? ''}${notes.join('\n')}\n`;
}

/**
 * The delegation window's edge (modules/conductor.ts): a conductor's work call is counted whatever its
 * verdict (denied ones too: the count only resets by delegating); a delegation that may run resets it.
 * A failure to record is reported on stderr and fails toward the window: the next call reads the old count.
 */
function countDelegation(
  where: Locations,
  call: ToolCall,
  policy: CompiledPolicy,
  kind: 'work' | 'delegated',
  d: Decision,
): void {
  const now = Date.now();
  const windowMs = policy.modules.delegation.windowMs;
  if (kind === 'delegated' && d.verdict === 'deny') return;
  try {
    updateModuleState(where, call.sessionId, (s) =>
      kind === 'work' ? delegationWork(s, now, windowMs) : delegationReset(s),
    );
  } catch (error) {
    process.stderr.write(`hookwise: could not update the delegation window: ${shownError(error)}\n`);
  }
}

function roleName(state: SessionState): string | null {
  return state.kind === 'registered' ? state.role : state.kind === 'disabled' ? state.record.role : null;
}
