/**
 * Confinement at the edge of a tool call's decision: an ask for a command whose effect is unknown may run
 * inside walls instead (confine/decide.ts plans them, in its own lazily loaded bundle), and the network such
 * a command may have (the daemon's filtering proxy serves the policy's allowlist).
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type * as ConfineBundle from '../confine/decide.js';
import type { Confinability, NetworkAccess } from '../confine/confinable.js';
import type { GitWorkTree } from '../confine/git-layout.js';
import type { Decision } from '../core/decision.js';
import type { ToolCall } from '../core/tool-call.js';
import { claudeSandbox } from '../hosts/claude-sandbox.js';
import { roleNamed, type CompiledPolicy } from '../policy/compiled.js';
import { sanitize } from '../sanitize/index.js';
import { loadWithCodeCache } from '../util/code-cache.js';
import type { PreparedShell } from '../shell/prepare.js';
import type { RunAdditions } from '../session/provenance.js';
import { hostDirs } from './judge.js';
import type { EnginePorts } from './ports.js';

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

/**
 * An ask the cascade could not avoid, for a command whose effect is unknown: with confinement on and
 * available, the command runs inside the walls instead (allow + the wrapped command). Every way this can
 * fail — not confinable, no bubblewrap, the walls cannot be planned — keeps the ask and says why.
 */
export async function confineAsk(
  ports: Pick<EnginePorts, 'where' | 'netProxy'>,
  call: ToolCall,
  projectRoot: string,
  policy: CompiledPolicy,
  asked: Decision,
  confinable: Confinability,
  gitTree: GitWorkTree | undefined,
  roleName: string,
  network: NetworkAccess | undefined,
  shell?: PreparedShell,
): Promise<Decision> {
  // By default (no config file set it) confinement is on only where it works: elsewhere the ask stays as it
  // was, without a "not run confined" remark the user never asked for (doctor says why).
  if (policy.confine.mode === 'auto' && (await confinementByDefault(ports.where, call, projectRoot)).on !== true)
    return asked;
  if (!confinable.ok)
    return confinable.applies ? { ...asked, reason: `${asked.reason} (not run confined: ${confinable.why})` } : asked;
  const command = call.input.command;
  if (typeof command !== 'string') return asked;
  if (call.host === 'claude') {
    // Claude Code's own sandbox would wrap the wrapped command again, which fails; its walls are not ours.
    const sandbox = claudeSandbox({ projectRoot, home: ports.where.home, env: process.env });
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
  const { home, runtimeDir, userConfigDir } = ports.where;
  const { confineCommand, deletesTrackedSources } = await loadConfine();
  // The one ask the walls do not replace: deleting tracked sources (the human should know before, not after).
  if (gitTree !== undefined && shell !== undefined) {
    const sources = deletesTrackedSources(shell, gitTree.root, (name) => sanitize(name).text);
    if (sources.deletes) return { ...asked, reason: `${asked.reason} (not run confined: ${sources.why})` };
  }
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
  if (network?.proxy.up === true && ports.netProxy !== undefined) {
    const served = await ports.netProxy.socketFor(network.allow);
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
    // A confined command may not forge the transcript approvals are learned from (nor change the host's hooks).
    // Those that exist: an absent one would leave an empty stub file where the walls kept it from being made.
    hostDirs: hostDirs(call.transcriptPath, ports.where, projectRoot).filter((d) => existsSync(d)),
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
    confined: {
      command: wrapped.command,
      walls,
      ...(gitTree === undefined || wrapped.undoLabel === undefined
        ? {}
        : { undo: { root: gitTree.root, label: wrapped.undoLabel } }),
    },
  };
}

/** What a confined run added to the work tree since its undo snapshot (session provenance reads it after the run). */
export async function runAdditions(root: string, runtimeDir: string, commit?: string): Promise<RunAdditions> {
  const { addedSinceSnapshotAsync } = await loadConfine();
  return await addedSinceSnapshotAsync(root, runtimeDir, commit);
}

/** Whether confinement is on by default here, and why (doctor and install say the same). */
export type DefaultConfinement = { on: true; why: string } | { on: false; why: string };

/**
 * The default (`confine.enabled` set by no file): on where bubblewrap works (the probe's verdict, cached per
 * machine: confine/runtime.ts) and, for Claude Code, its own sandbox is off (hosts/claude-sandbox.ts).
 */
export async function confinementByDefault(
  where: Pick<EnginePorts['where'], 'home' | 'runtimeDir'>,
  call: Pick<ToolCall, 'host'>,
  projectRoot: string,
): Promise<DefaultConfinement> {
  if (process.platform !== 'linux') return { on: false, why: 'confinement needs Linux (bubblewrap)' };
  if (call.host === 'claude') {
    const sandbox = claudeSandbox({ projectRoot, home: where.home, env: process.env });
    if (sandbox === 'on')
      return { on: false, why: 'Claude Code’s own sandbox is on (sandbox.enabled), and hookwise does not wrap twice' };
    if (sandbox === 'unknown')
      return { on: false, why: 'a Claude Code settings file that could turn its sandbox on cannot be read' };
  }
  const { confineRuntime } = await loadConfine();
  const runtime = confineRuntime(where.runtimeDir);
  return runtime.available
    ? { on: true, why: 'bubblewrap works here and Claude Code’s own sandbox is off' }
    : { on: false, why: `bubblewrap does not work here: ${runtime.reason}` };
}

/**
 * The network a confined shell command may have: the policy's allowlist, and whether a filtering proxy can
 * serve it. Outside a daemon there is none: network-reaching commands are asked, the rest run with no
 * network. The proxy itself starts only when a command is confined (confineAsk()).
 */
export function networkFor(
  ports: Pick<EnginePorts, 'netProxy'>,
  call: ToolCall,
  policy: CompiledPolicy,
): NetworkAccess | undefined {
  if (policy.confine.mode === 'off' || call.action !== 'shell') return undefined;
  const allow = policy.confine.network.allow;
  if (allow.length === 0) return { allow, proxy: { up: false, why: 'no network allowlist' } };
  if (ports.netProxy === undefined)
    return {
      allow,
      proxy: {
        up: false,
        why: 'it is hosted by the hookwise daemon, which is not serving this call (hookwise daemon start)',
      },
    };
  return { allow, proxy: { up: true } };
}
