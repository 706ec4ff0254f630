/**
 * One decision from prepared inputs: the session gate, then the cascade. Pure apart from path
 * canonicalization (which reads symlinks); the edge work — parsing a shell call, loading policy and
 * memory — is done by the engine (decide.ts) before this runs.
 */
import { isAbsolute } from 'node:path';
import { decision, type Decision } from '../core/decision.js';
import { delegationKind, delegationReminder } from '../modules/conductor.js';
import type { TraceStep } from '../core/tier.js';
import type { CallMemory } from '../memory/context.js';
import type { SupervisorPort } from '../supervisor/backend.js';
import type { CascadeContext } from './context.js';
import type { EmbeddingPort } from '../embed/port.js';
import type { ResolvedPath, ToolCall } from '../core/tool-call.js';
import { cacheKey } from '../memory/cache.js';
import { callSubject, type CallSubject } from '../memory/subject.js';
import { prepareMcp, type McpField, type PreparedMcp } from '../catalog/mcp-call.js';
import { fieldVerdicts, type FieldVerdict } from '../catalog/mcp-tier.js';
import type { StoreProblem } from '../memory/store.js';
import type { MemoryView } from '../memory/view.js';
import { resolvePath } from '../paths/canonical.js';
import { transcriptDirs } from '../hosts/claude-transcript.js';
import { Lru } from '../util/lru.js';
import { matchersFor, type CompiledPolicy } from '../policy/compiled.js';
import type { PreparedShell } from '../shell/prepare.js';
import { unregisteredReason } from '../session/messages.js';
import { shownId } from '../sanitize/ids.js';
import type { SessionState } from '../session/resolve.js';
import type { Locations } from '../util/locations.js';
import { confinability, type Confinability, type NetworkAccess } from '../confine/confinable.js';
import type { ReadState } from '../modules/state-file.js';
import { askHuman, type HumanAnswered } from '../queue/tier.js';
import type { HumanPort } from '../queue/types.js';
import { runCascade } from './cascade.js';

/** A decision, and what memory knows of the call (for learning at the edge). */
export interface Judgement {
  decision: Decision;
  /** The call's subject and key, computed on first use (see CallMemory). */
  memo?: Pick<CallMemory, 'subject' | 'key'>;
  memoryProblems?: StoreProblem[];
  /** Asked with confinement on: may the ask run inside the walls instead (confine/confinable.ts)? */
  confinable?: Confinability;
  /** A conductor's work call or delegation: the edge updates the delegation window (modules/conductor.ts). */
  delegation?: 'work' | 'delegated';
  /** A human answered this call through the queue (tier 4): what to remember, at the edge. */
  human?: HumanAnswered;
  /**
   * With the queue on, an ask left to confinement: the engine hands it to the human queue when it cannot run
   * confined after all (no walls can be drawn), instead of letting the host prompt.
   */
  toHuman?: (asked: Decision) => Promise<{ decision: Decision; human?: HumanAnswered }>;
  /** The call's canonical paths (for remembering a human's answer as an override). */
  paths?: ResolvedPath[];
  /** An MCP call traced (explain): its entry and each field's kind and judgement. */
  mcp?: McpReport;
  /** Canonical paths in the project the call may create (session/provenance.ts): noted before it runs. */
  creations?: string[];
}

export interface McpReport {
  prepared: PreparedMcp;
  fields: { field: McpField; verdict: FieldVerdict }[];
}

export interface PreparedInputs {
  shell?: PreparedShell | undefined;
  memory?: MemoryView | undefined;
  trace?: ((step: TraceStep) => void) | undefined;
  /** The session's module state, read and verified at the edge (modules/state-file.ts). */
  modules?: ReadState | undefined;
  /** Confined allows may be on (the policy's confine mode is not off): judge whether an ask could run confined. */
  confine?: boolean | undefined;
  /** An undo snapshot can be taken before a confined run (the project is a git work tree). */
  undoable?: boolean | undefined;
  /** Tier 2b's search (the daemon's embedding pool); absent: the tier passes on. */
  embedding?: EmbeddingPort | undefined;
  /** With confinement on: the network allowlist and whether the daemon's proxy serves it (found at the edge). */
  network?: NetworkAccess | undefined;
  /** Tier 3's port (engine/supervise.ts); absent: the supervisor tier passes. */
  supervisor?: SupervisorPort | undefined;
  /** `human.channel: queue`: asks wait for a human's answer through this port (tier 4, src/queue/). */
  human?: HumanPort | undefined;
  /** The session's registered task (shown with a queued call). */
  task?: string | undefined;
}

/**
 * The decision for a call whose inputs are prepared. Returns synchronously while every tier that runs is
 * synchronous (today all of them); a promise once an async tier (embedding, supervisor, queue) is reached.
 */
export function judge(
  state: SessionState,
  call: ToolCall,
  policy: CompiledPolicy,
  projectRoot: string,
  where: Locations,
  inputs: PreparedInputs,
): Judgement | Promise<Judgement> {
  switch (state.kind) {
    case 'disabled': {
      const id = shownId(call.sessionId);
      return {
        decision: decision(
          'allow',
          'session',
          `hookwise is disabled for session ${id} (turn it back on: hookwise enable --session-id ${id})`,
          {
            id: 'session:disabled',
            source: 'session registry',
          },
        ),
      };
    }
    case 'unregistered':
      return {
        decision: decision(
          'deny',
          'session',
          unregisteredReason(call.sessionId, policy, state.waitedMs ?? policy.registration.waitMs),
          {
            id: 'session:unregistered',
            source: 'session registry',
          },
        ),
      };
    case 'registered':
      break;
  }
  const matchers = matchersFor(policy);
  const role = matchers.role(state.role);
  if (role === undefined) {
    const roles = Object.keys(policy.roles).sort().join(', ');
    return {
      decision: decision('deny', 'session', unknownRoleReason(state.via, shownId(call.sessionId), state.role, roles), {
        id: 'session:unknown-role',
        source: state.via === 'env' ? 'HOOKWISE_ROLE' : state.via === 'explain' ? 'explain --role' : 'session registry',
      }),
    };
  }
  const pathContext = { projectRoot, home: where.home, cwd: call.cwd };
  const paths = call.paths.map((p) => resolvePath(p, pathContext));
  const { shell, memory: view } = inputs;
  // An MCP call's fields, each with its kind; its paths canonicalized like a Read's (catalog/mcp-call.ts).
  const mcp = prepareMcp(call, policy, pathContext);
  const memo = memoize(() => callSubject(call, paths, shell, mcp, projectRoot));
  const ctx: CascadeContext = {
    call,
    paths,
    role,
    policy,
    matchers,
    projectRoot,
    home: where.home,
    hookwiseDirs: ownDirs(where, pathContext),
    hostDirs: hostDirs(call.transcriptPath, where, projectRoot),
  };
  if (shell !== undefined) ctx.shell = shell;
  if (mcp !== undefined) ctx.mcp = mcp;
  if (view !== undefined) ctx.memory = { view, ...memo };
  if (inputs.modules !== undefined) ctx.modules = inputs.modules;
  if (inputs.embedding !== undefined) ctx.embedding = inputs.embedding;
  if (inputs.supervisor !== undefined) ctx.supervisor = inputs.supervisor;
  const d = runCascade(ctx, undefined, inputs.trace);
  const delegation = ctx.policy.modules.delegation.enabled ? delegationKind(ctx) : undefined;
  // A conductor's reminder goes with every answer but a deny (modules/conductor.ts).
  const remind = (x: Decision): Decision => {
    if (x.verdict === 'deny') return x;
    const reminder = delegationReminder(ctx);
    return reminder === undefined ? x : { ...x, context: reminder };
  };
  const human = inputs.human;
  const toHuman =
    human === undefined
      ? undefined
      : async (asked: Decision): Promise<{ decision: Decision; human?: HumanAnswered }> => {
          const outcome = await askHuman({ ctx, asked, human, subject: memo.subject(), task: inputs.task });
          inputs.trace?.({ tier: 'human', decision: outcome.decision });
          const decided = remind(outcome.decision);
          return outcome.answered === undefined
            ? { decision: decided }
            : { decision: decided, human: outcome.answered };
        };
  const judged = (decided: Decision): Judgement | Promise<Judgement> => {
    const out: Judgement = { decision: remind(decided), memo, paths };
    // Explain (a traced call) shows how each field of an MCP call was judged.
    if (mcp !== undefined && inputs.trace !== undefined) out.mcp = { prepared: mcp, fields: fieldVerdicts(ctx, mcp) };
    if (delegation !== undefined) out.delegation = delegation;
    if (decided.verdict !== 'ask') return out;
    const confinable =
      inputs.confine === true
        ? confinability(ctx, decided, { undoable: inputs.undoable === true, network: inputs.network })
        : undefined;
    // Tier 4 comes after the cascade's ask; an ask that can run confined goes to the walls first (no human needed).
    if (toHuman === undefined || confinable?.ok === true) {
      if (confinable !== undefined) out.confinable = confinable;
      if (toHuman !== undefined) out.toHuman = toHuman;
      return out;
    }
    return toHuman(decided).then((h) =>
      h.human === undefined ? { ...out, decision: h.decision } : { ...out, decision: h.decision, human: h.human },
    );
  };
  return d instanceof Promise ? d.then(judged) : judged(d);
}

const ownDirsCache = new Map<string, string[]>();

/**
 * hookwise's runtime and config directories, canonical (as every path judged is). Resolved once per process
 * and location (they do not change between calls): realpath is not paid on every call.
 */
function ownDirs(where: Locations, ctx: { projectRoot: string; home: string; cwd: string }): string[] {
  const relative = !where.runtimeDir.startsWith('/') || !where.userConfigDir.startsWith('/');
  const key = `${where.runtimeDir}\0${where.userConfigDir}\0${where.home}\0${relative ? ctx.cwd : ''}`;
  let dirs = ownDirsCache.get(key);
  if (dirs === undefined)
    ownDirsCache.set(
      key,
      (dirs = [where.runtimeDir, where.userConfigDir].map((dir) => resolvePath(dir, ctx).absolute)),
    );
  return dirs;
}

const hostDirsCache = new Lru<string, string[]>(64);

/**
 * Where the host keeps what hookwise trusts it wrote (hosts/claude-transcript.ts transcriptDirs), canonical,
 * kept per transcript path. A place that holds the project or the home directory is left out (every write of
 * the session would ask: not a layout the host uses); the transcript file itself never is.
 */
export function hostDirs(transcriptPath: string | undefined, where: Locations, projectRoot: string): string[] {
  const { home, claudeConfigDir } = where;
  const key = `${transcriptPath ?? ''}\0${claudeConfigDir ?? ''}\0${home}\0${projectRoot}`;
  let dirs = hostDirsCache.get(key);
  if (dirs === undefined) {
    const ctx = { projectRoot, home, cwd: projectRoot };
    const realHome = resolvePath(home, ctx).absolute;
    const holds = (dir: string, path: string): boolean => path === dir || path.startsWith(`${dir}/`);
    dirs = transcriptDirs(transcriptPath, home, claudeConfigDir)
      .map((dir) => resolvePath(dir, ctx).absolute)
      .filter((dir) => !holds(dir, projectRoot) && !holds(dir, realHome));
    if (transcriptPath !== undefined && isAbsolute(transcriptPath))
      dirs.push(resolvePath(transcriptPath, ctx).absolute);
    hostDirsCache.set(key, (dirs = [...new Set(dirs)]));
  }
  return dirs;
}

/** The subject and key of a call, each computed once, when first asked for. */
function memoize(compute: () => CallSubject | undefined): Pick<CallMemory, 'subject' | 'key'> {
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

/** Where the unknown role came from decides what to fix: a registration, the HOOKWISE_ROLE fallback, or explain's --role. */
function unknownRoleReason(via: 'registry' | 'env' | 'explain', session: string, role: string, roles: string): string {
  switch (via) {
    case 'registry':
      return `session ${session} is registered as "${role}", which is not a defined role; register it again with one of: ${roles}`;
    case 'env':
      return `HOOKWISE_ROLE is "${role}", which is not a defined role (session ${session} is not registered, so it falls back to it); set HOOKWISE_ROLE to one of: ${roles}, or register the session`;
    case 'explain':
      return `--role "${role}" is not a defined role; use one of: ${roles}`;
  }
}
