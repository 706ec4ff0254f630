/**
 * Decision-time confinement, loaded only when a call is confinable (its own bundle, dist/confine.cjs: the
 * probe, the mount planner and the seccomp filter are not on the hot path of any other call). The engine
 * gives it the agent's command and gets back the wrapped command, or why it cannot be wrapped.
 */
import { realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { buildEnvelope } from './envelope.js';
import { confineRuntime } from './runtime.js';
import { wrapCommand } from './wrap.js';

export interface ConfineRequest {
  command: string;
  projectRoot: string;
  home: string;
  runtimeDir: string;
  userConfigDir: string;
  /** The policy's effective sensitive lists (globs). */
  sensitive: { write: readonly string[]; read: readonly string[] };
}

export type ConfineAnswer = { ok: true; command: string } | { ok: false; reason: string };

export function confineCommand(request: ConfineRequest): ConfineAnswer {
  const runtime = confineRuntime(request.runtimeDir);
  if (!runtime.available) return { ok: false, reason: runtime.reason };
  const envelope = buildEnvelope({
    projectRoot: request.projectRoot,
    tempDir: realpathSync(tmpdir()),
    home: request.home,
    runtimeDir: request.runtimeDir,
    userConfigDir: request.userConfigDir,
    sensitive: request.sensitive,
  });
  const wrapped = wrapCommand(envelope, request.command, runtime.runtime);
  return wrapped.ok ? { ok: true, command: wrapped.command } : { ok: false, reason: wrapped.reason };
}
