/**
 * `hookwise check` (and `session-check`): one hook event in, one host answer out. This is the hot path —
 * it runs as a fresh process on every tool call — so it imports only what a decision needs, and every
 * failure becomes a fail-closed answer that says what went wrong and where.
 */
import { join } from 'node:path';
import { runCascade, type CascadeContext, type Tier, type TraceStep } from '../cascade.js';
import { cacheKey, exactCacheTier } from '../memory/cache.js';
import { learnFromHost, rememberAsk } from '../memory/learn.js';
import { loadMemory } from '../memory/load.js';
import { overrideAllowTier, overrideTightenTier } from '../memory/overrides.js';
import { jaccardTier } from '../memory/similar.js';
import { formatProblem, type StoreProblem } from '../memory/store.js';
import { callSubject, type CallSubject } from '../memory/subject.js';
import type { MemoryContext, MemoryView } from '../memory/view.js';
import { decision, type Decision } from '../core/decision.js';
import { describeError, HookwiseError } from '../core/errors.js';
import type { HookEvent, HostName, ToolCall } from '../core/tool-call.js';
import type { HookOutput, HostAdapter } from '../hosts/adapter.js';
import { adapterFor, detectHost } from '../hosts/index.js';
import { appendAudit } from '../audit/log.js';
import { findProjectRoot, resolvePath } from '../paths/canonical.js';
import { matchersFor, type CompiledPolicy } from '../policy/compiled.js';
import { loadPolicy } from '../policy/load.js';
import { pathPolicyTier } from '../policy/path-policy.js';
import { toolPolicyTier } from '../policy/tool-policy.js';
import { rulesTier } from '../policy/rules.js';
import { prepareShell, type PreparedShell } from '../shell/prepare.js';
import { shellTier } from '../shell/tier.js';
import { registrationPrompt, unregisteredReason } from '../session/messages.js';
import { SessionRegistry } from '../session/registry.js';
import { resolveSession, sessionStateOf, type SessionState } from '../session/resolve.js';
import { ensurePrivateDir } from '../util/fs-safe.js';
import { fnv1a64 } from '../util/hash.js';
import { sanitize, type Sanitized } from '../sanitize/index.js';
import { setKeywordCacheDir } from '../sanitize/keywords.js';
import { sanitizeCall } from '../sanitize/call.js';
import { locations, type Locations } from '../util/locations.js';
import { bootstrapDecision } from '../session/bootstrap.js';

/**
 * The cascade, in order: tightening overrides, the policy tiers (path policy, shell, rules and packs), then
 * allow overrides and decision memory (exact cache, Jaccard). Later issues add embedding, supervisor, queue.
 */
export const CASCADE: readonly Tier[] = [toolPolicyTier, overrideTightenTier, pathPolicyTier, shellTier, rulesTier, overrideAllowTier, exactCacheTier, jaccardTier];

export const MAX_PAYLOAD_BYTES = 16 * 1024 * 1024;

export interface CheckOptions {
  host?: HostName;
  env?: NodeJS.ProcessEnv;
}

export interface CheckResult extends HookOutput {
  /** The gate decision, for pre-tool events. */
  decision?: Decision;
}

export async function runCheck(raw: string, options: CheckOptions = {}): Promise<CheckResult> {
  const started = process.hrtime.bigint();
  const env = options.env ?? process.env;
  let adapter: HostAdapter | undefined = options.host === undefined ? undefined : adapterFor(options.host);
  let payload: Record<string, unknown> | undefined;
  let event: HookEvent | undefined;
  try {
    payload = parsePayload(raw);
    adapter ??= adapterFor(detectHost(payload));
    event = adapter.parse(payload);
    const where = locations(env);
    ensurePrivateDir(where.runtimeDir);
    setKeywordCacheDir(join(where.runtimeDir, 'cache'));
    switch (event.kind) {
      case 'pre-tool':
        return await gate(event, event.call, adapter, where, env, started);
      case 'prompt-submit':
      case 'session-start':
        return await sessionContext(event, adapter, where, env);
      case 'post-tool':
        return learnAfterTool(event.call, where, adapter);
    }
  } catch (error) {
    return failClosed(error, adapter, payload, event, env, started);
  }
}

function parsePayload(raw: string): Record<string, unknown> {
  if (raw.trim() === '') throw new HookwiseError('INPUT_EMPTY', 'no hook payload on stdin (expected one JSON object from the host)');
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

async function gate(
  event: HookEvent,
  call: ToolCall,
  adapter: HostAdapter,
  where: Locations,
  env: NodeJS.ProcessEnv,
  started: bigint,
): Promise<CheckResult> {
  const projectRoot = findProjectRoot(call.cwd);
  const policy = await loadPolicy(projectRoot, where);
  const registry = new SessionRegistry(where.runtimeDir);
  const envRole = env.HOOKWISE_ROLE;
  let state = sessionStateOf(registry.get(call.sessionId), envRole);
  if (state.kind === 'unregistered') {
    // The agent may be registering right now; but its own `hookwise register` must not wait on itself.
    const boot = bootstrapDecision(call, policy);
    if (boot !== undefined) return finish(boot, null);
    state = resolveSession(registry, call.sessionId, envRole, policy.registration);
  }
  const role = roleName(state);
  const judged = await decide(state, call, policy, projectRoot, where);
  const d = judged.decision;
  const out = finish(d, role);
  if (role !== null) remember(judged, call, role, policy, projectRoot, where, out);
  return out;

  function finish(d: Decision, roleForAudit: string | null): CheckResult {
    const out: CheckResult = { ...adapter.renderDecision(event, d), decision: d };
    audit(where, policy, call, d, roleForAudit, started);
    return out;
  }
}

function roleName(state: SessionState): string | null {
  return state.kind === 'registered' ? state.role : state.kind === 'disabled' ? state.record.role : null;
}

/** A decision, and what memory knows of the call (for learning at the edge). */
export interface Judgement {
  decision: Decision;
  /** The call's subject and key, computed on first use (see MemoryContext). */
  memo?: Pick<MemoryContext, 'subject' | 'key'>;
  memoryProblems?: StoreProblem[];
}

/** Session gate, then the cascade; first the edge work: parse a shell call, load decision memory. */
export async function decide(
  state: SessionState,
  call: ToolCall,
  policy: CompiledPolicy,
  projectRoot: string,
  where: Locations,
  trace?: (step: TraceStep) => void,
): Promise<Judgement> {
  if (state.kind !== 'registered') return { decision: decidePrepared(state, call, policy, projectRoot, where, undefined, trace) };
  const shell = await prepareShell(call, { projectRoot, home: where.home, cwd: call.cwd });
  const memory = loadMemory({ projectRoot, home: where.home, userConfigDir: where.userConfigDir, runtimeDir: where.runtimeDir, sessionId: call.sessionId }, policy.memory.jaccardThreshold);
  return { ...judge(state, call, policy, projectRoot, where, { shell, memory: memory.view, trace }), memoryProblems: memory.problems };
}

export interface PreparedInputs {
  shell?: PreparedShell | undefined;
  memory?: MemoryView | undefined;
  trace?: ((step: TraceStep) => void) | undefined;
}

/** The decision itself, synchronous: pure apart from path canonicalization (which reads symlinks). */
export function decidePrepared(
  state: SessionState,
  call: ToolCall,
  policy: CompiledPolicy,
  projectRoot: string,
  where: Locations,
  shell: PreparedShell | undefined,
  trace?: (step: TraceStep) => void,
  memory?: MemoryView,
): Decision {
  return judge(state, call, policy, projectRoot, where, { shell, memory, trace }).decision;
}

export function judge(state: SessionState, call: ToolCall, policy: CompiledPolicy, projectRoot: string, where: Locations, inputs: PreparedInputs): Judgement {
  switch (state.kind) {
    case 'disabled':
      return {
        decision: decision('allow', 'session', `hookwise is disabled for session ${call.sessionId} (turn it back on: hookwise enable --session-id ${call.sessionId})`, {
          id: 'session:disabled',
          source: 'session registry',
        }),
      };
    case 'unregistered':
      return {
        decision: decision('deny', 'session', unregisteredReason(call.sessionId, policy, policy.registration.waitMs), {
          id: 'session:unregistered',
          source: 'session registry',
        }),
      };
    case 'registered':
      break;
  }
  const matchers = matchersFor(policy);
  const role = matchers.role(state.role);
  if (role === undefined) {
    return {
      decision: decision('deny', 'session', `session ${call.sessionId} is registered as "${state.role}", which is not a defined role; register it again with one of: ${Object.keys(policy.roles).sort().join(', ')}`, {
        id: 'session:unknown-role',
        source: state.via === 'env' ? 'HOOKWISE_ROLE' : 'session registry',
      }),
    };
  }
  const pathContext = { projectRoot, home: where.home, cwd: call.cwd };
  const paths = call.paths.map((p) => resolvePath(p, pathContext));
  const { shell, memory: view } = inputs;
  const memo = memoize(() => callSubject(call, paths, shell));
  const ctx: CascadeContext = { call, paths, role, policy, matchers, projectRoot, home: where.home };
  if (shell !== undefined) ctx.shell = shell;
  if (view !== undefined) ctx.memory = { view, ...memo };
  return { decision: runCascade(ctx, CASCADE, inputs.trace), memo };
}

/** The subject and key of a call, each computed once, when first asked for. */
function memoize(compute: () => CallSubject | undefined): Pick<MemoryContext, 'subject' | 'key'> {
  let subject: CallSubject | undefined | null = null;
  let key: string | undefined | null = null;
  const subjectOf = (): CallSubject | undefined => (subject === null ? (subject = compute()) : subject);
  return {
    subject: subjectOf,
    key: () => {
      if (key === null) {
        const s = subjectOf();
        key = s === undefined ? undefined : cacheKey(s.tool, s.text);
      }
      return key;
    },
  };
}

/**
 * Learning at the edge, after the decision: an ask nobody decided may be answered at the host's prompt
 * (remembered as pending until the host reports the tool ran); an ask propagated by similarity is recorded
 * for this exact call, so a repeat cannot drift to allow. Never changes the decision: a failure to remember
 * is reported on stderr and the call is judged as it was.
 */
function remember(judged: Judgement, call: ToolCall, role: string, policy: CompiledPolicy, projectRoot: string, where: Locations, out: CheckResult): void {
  // A corrupt line's parse error quotes the line: sanitized like anything else that leaves the process.
  const notes: string[] = (judged.memoryProblems ?? []).map((p) => `hookwise: decision memory: ${sanitize(formatProblem(p)).text}`);
  try {
    rememberAsk(judged, call, role, policy.memory, { projectRoot, where });
  } catch (error) {
    notes.push(`hookwise: could not remember this decision: ${describeError(error)}`);
  }
  if (notes.length > 0) out.stderr = `${out.stderr ?? ''}${notes.join('\n')}\n`;
}

function learnAfterTool(call: ToolCall, where: Locations, adapter: HostAdapter): CheckResult {
  const out: CheckResult = adapter.renderNothing();
  try {
    learnFromHost(call, where);
  } catch (error) {
    out.stderr = `hookwise: could not learn from this call: ${describeError(error)}\n`;
  }
  return out;
}

async function sessionContext(event: HookEvent, adapter: HostAdapter, where: Locations, env: NodeJS.ProcessEnv): Promise<CheckResult> {
  const registry = new SessionRegistry(where.runtimeDir);
  const state = sessionStateOf(registry.get(event.sessionId), env.HOOKWISE_ROLE);
  if (state.kind !== 'unregistered') return adapter.renderContext(event, undefined);
  const policy = await loadPolicy(findProjectRoot(event.cwd), where);
  return adapter.renderContext(event, registrationPrompt(event.sessionId, policy));
}

function audit(where: Locations, policy: CompiledPolicy | undefined, call: ToolCall, d: Decision, role: string | null, started: bigint): void {
  const sanitized = sanitizeCall(call);
  appendAudit(
    where.runtimeDir,
    {
      ts: new Date().toISOString(),
      session: call.sessionId,
      role,
      host: call.host,
      tool: call.tool,
      verdict: d.verdict,
      tier: d.tier,
      rule: d.rule?.id ?? null,
      // hrtime, not performance.now(): the first use of `performance` loads perf_hooks (~2 ms).
      latency_ms: Number(process.hrtime.bigint() - started) / 1e6,
      paths: call.paths.map((p): Sanitized => sanitize(p).text),
      input: sanitized.text,
      secrets: sanitized.findings,
      input_hash: inputHash(call.input),
    },
    policy?.audit ?? { maxBytes: 10 * 1024 * 1024, keep: 3 },
  );
}

/** Correlates repeats without storing the input; bounded so a 10 MB Write does not cost a 10 MB hash. */
function inputHash(input: Record<string, unknown>): string {
  const text = JSON.stringify(input);
  return fnv1a64(text.length > 65536 ? `${text.length}:${text.slice(0, 32768)}${text.slice(-32768)}` : text);
}

const PRE_TOOL_EVENTS = new Set(['PreToolUse', 'BeforeTool']);

/**
 * Any failure → deny. When we know the host and that this is a pre-tool event we answer in its JSON;
 * otherwise exit 2 with the reason on stderr, which every host treats as a block.
 */
function failClosed(
  error: unknown,
  adapter: HostAdapter | undefined,
  payload: Record<string, unknown> | undefined,
  event: HookEvent | undefined,
  env: NodeJS.ProcessEnv,
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
  if (event?.kind === 'pre-tool') tryAudit(env, event.call, d, started);
  const hostEvent = payload?.hook_event_name;
  if (adapter !== undefined && typeof hostEvent === 'string' && PRE_TOOL_EVENTS.has(hostEvent)) {
    const sessionId = typeof payload?.session_id === 'string' ? payload.session_id : 'unknown';
    const stub = event ?? { kind: 'session-start' as const, host: adapter.name, hostEvent, sessionId, cwd: '/', source: 'error' };
    return { ...adapter.renderDecision(stub, d), stderr: `hookwise: ${reason}\n`, decision: d };
  }
  return { stdout: '', stderr: `hookwise: ${reason}\n`, exitCode: 2, decision: d };
}

function tryAudit(env: NodeJS.ProcessEnv, call: ToolCall, d: Decision, started: bigint): void {
  try {
    audit(locations(env), undefined, call, d, null, started);
  } catch {
    // The decision (deny) stands whether or not it could be logged; the reason is already on stderr.
  }
}
