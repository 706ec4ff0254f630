/**
 * Decision-time confinement, loaded only when a call is confinable (its own bundle, dist/confine.cjs: the
 * probe, the mount planner and the seccomp filter are not on the hot path of any other call). The engine
 * gives it the agent's command and gets back the wrapped command, or why it cannot be wrapped.
 */
import { lstatSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { VERSION } from '../core/version.js';
import { buildEnvelope, DEFAULT_CONFINE_SETTINGS, isInside, type Envelope, type EnvelopeInput } from './envelope.js';
import type { AllowEntry } from './allowlist.js';
import type { GitWorkTree } from './git-layout.js';
import { describeProjectWrites, roleDeniedDirs } from './role-writes.js';
import { which } from './probe.js';
import { confineRuntime } from './runtime.js';
import { prepareSnapshot, snapshotLabel } from './snapshot.js';
import { wrapCommand, type ProxyRelay, type RenderOptions } from './wrap.js';

export { deletesTrackedSources } from './tracked-sources.js';
export { addedSinceSnapshot, addedSinceSnapshotAsync } from './undo.js';
export { confineRuntime } from './runtime.js';

export interface ConfineRequest {
  command: string;
  projectRoot: string;
  home: string;
  runtimeDir: string;
  userConfigDir: string;
  /** The policy's effective sensitive lists (globs). */
  sensitive: { write: readonly string[]; read: readonly string[] };
  /** Where the agent's host keeps its transcripts and settings (absolute, canonical): read-only inside the walls. */
  hostDirs?: readonly string[];
  /**
   * The project's git work tree (git-layout.ts): the wrapped command then takes an undo snapshot before
   * the walls go up, and fails without running when it cannot. `sanitizedCommand` is what the snapshot
   * records of the command (it is written into the repository).
   */
  undo?: { tree: GitWorkTree; sanitizedCommand: string };
  /** The session's role and its globs: the directories it may not write are read-only inside the walls (role-writes.ts). */
  role?: { name: string; allowWrite: readonly string[]; denyWrite: readonly string[] };
  /**
   * The daemon's filtering proxy for the policy's allowlist. `required`: the command reaches the network, so
   * without the relay (no socat) it is not confined at all; otherwise it runs with no network instead.
   */
  network?: { allow: readonly AllowEntry[]; socket: string; required: boolean };
}

/**
 * `writes`: where in the project the command may write, in words for the reason (role-writes.ts). `proxied`:
 * it reaches the allowlist through the proxy; false: no network at all.
 */
export type ConfineAnswer =
  | { ok: true; command: string; snapshot: boolean; writes: string; proxied: boolean; undoLabel?: string }
  | { ok: false; reason: string };

/**
 * Envelopes by their inputs: a pure function of them (no file system), so a daemon builds each project's once.
 * The mount plan is not kept: it reads the file system, which each command may have changed.
 */
const envelopes = new Map<string, Envelope>();
const MAX_ENVELOPES = 64;

function envelopeFor(request: ConfineRequest, roleReadOnly: readonly string[], proxied: boolean): Envelope {
  // A linked worktree's or submodule's git directory lies outside the project: read-only there already,
  // unless it is in another writable root (the temp dir). Then it is protected like the project's `.git`.
  const undo = request.undo;
  const gitDirs =
    undo === undefined
      ? []
      : [...new Set([undo.tree.gitDir, undo.tree.commonDir])].filter((d) => !isInside(d, request.projectRoot));
  const input: EnvelopeInput = {
    projectRoot: request.projectRoot,
    tempDir: realpathSync(tmpdir()),
    home: request.home,
    runtimeDir: request.runtimeDir,
    userConfigDir: request.userConfigDir,
    sensitive: request.sensitive,
    ...(request.hostDirs === undefined ? {} : { hostDirs: request.hostDirs }),
    settings: {
      ...DEFAULT_CONFINE_SETTINGS,
      denyWrite: [...gitDirs.map((d) => `${d}/**`), ...roleReadOnly.map((d) => `${d}/**`)],
      ...(proxied ? { network: { allow: request.network!.allow.map((e) => e.text) } } : {}),
    },
  };
  const key = JSON.stringify(input);
  let envelope = envelopes.get(key);
  if (envelope === undefined) {
    if (envelopes.size >= MAX_ENVELOPES) envelopes.clear();
    envelope = buildEnvelope(input);
    envelopes.set(key, envelope);
  }
  return envelope;
}

export function confineCommand(request: ConfineRequest): ConfineAnswer {
  const runtime = confineRuntime(request.runtimeDir);
  if (!runtime.available) return { ok: false, reason: runtime.reason };
  let relay: ProxyRelay | undefined;
  if (request.network !== undefined) {
    const socat = which('socat', process.env);
    if (socat !== undefined) relay = { socket: request.network.socket, socat };
    else if (request.network.required)
      return {
        ok: false,
        reason: 'socat is not installed, and the relay to the filtering proxy needs it (apt-get install socat)',
      };
  }
  // The role's denied directories that exist now (one stat each): a missing one is left to path policy.
  const roleReadOnly =
    request.role === undefined
      ? []
      : roleDeniedDirs(request.role.denyWrite, request.role.allowWrite).filter(
          (d) => lstatSync(join(request.projectRoot, d), { throwIfNoEntry: false })?.isDirectory() === true,
        );
  const envelope = envelopeFor(request, roleReadOnly, relay !== undefined);
  const undo = request.undo;
  let before: string | undefined;
  if (undo !== undefined) {
    try {
      before = prepareSnapshot({
        tree: undo.tree,
        sanitizedCommand: undo.sanitizedCommand,
        sensitive: request.sensitive,
        runtimeDir: request.runtimeDir,
        version: VERSION,
      });
    } catch (error) {
      return {
        ok: false,
        reason: `the undo snapshot needs a private directory in ${request.runtimeDir}: ${(error as Error).message}`,
      };
    }
  }
  const options: RenderOptions = {
    ...(before === undefined ? {} : { before }),
    ...(relay === undefined ? {} : { relay }),
  };
  const wrapped = wrapCommand(envelope, request.command, runtime.runtime, undefined, options);
  if (!wrapped.ok) return { ok: false, reason: wrapped.reason };
  return {
    ok: true,
    command: wrapped.command,
    snapshot: before !== undefined,
    writes: describeProjectWrites(roleReadOnly, request.role?.name),
    proxied: relay !== undefined,
    ...(before === undefined || request.undo === undefined
      ? {}
      : { undoLabel: snapshotLabel(request.undo.sanitizedCommand) }),
  };
}
