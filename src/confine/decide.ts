/**
 * Decision-time confinement, loaded only when a call is confinable (its own bundle, dist/confine.cjs: the
 * probe, the mount planner and the seccomp filter are not on the hot path of any other call). The engine
 * gives it the agent's command and gets back the wrapped command, or why it cannot be wrapped.
 */
import { realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { buildEnvelope, type Envelope, type EnvelopeInput } from './envelope.js';
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

/**
 * Envelopes by their inputs: a pure function of them (no file system), so a daemon builds each project's once.
 * The mount plan is not kept: it reads the file system, which each command may have changed.
 */
const envelopes = new Map<string, Envelope>();
const MAX_ENVELOPES = 64;

function envelopeFor(request: ConfineRequest): Envelope {
  const input: EnvelopeInput = {
    projectRoot: request.projectRoot,
    tempDir: realpathSync(tmpdir()),
    home: request.home,
    runtimeDir: request.runtimeDir,
    userConfigDir: request.userConfigDir,
    sensitive: request.sensitive,
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
  const envelope = envelopeFor(request);
  const wrapped = wrapCommand(envelope, request.command, runtime.runtime);
  return wrapped.ok ? { ok: true, command: wrapped.command } : { ok: false, reason: wrapped.reason };
}
