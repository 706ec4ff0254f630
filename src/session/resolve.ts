/**
 * Which role governs a call: the registry first, then the HOOKWISE_ROLE environment fallback (CI and
 * scripted use), else wait for a registration that may be happening right now (the agent was just told to
 * register) by polling, and give up after the configured wait.
 */
import type { SessionRecord, SessionRegistry } from './registry.js';

export type SessionState =
  | { kind: 'disabled'; record: SessionRecord }
  | { kind: 'registered'; role: string; via: 'registry' | 'env' | 'explain'; record?: SessionRecord }
  /** `waitedMs`: how long this call waited for a registration (0 after a session's first call). */
  | { kind: 'unregistered'; waitedMs?: number };

export function sessionStateOf(record: SessionRecord | undefined, envRole: string | undefined): SessionState {
  if (record?.disabled === true) return { kind: 'disabled', record };
  if (record !== undefined && record.role !== null)
    return { kind: 'registered', role: record.role, via: 'registry', record };
  if (envRole !== undefined && envRole !== '') return { kind: 'registered', role: envRole, via: 'env' };
  return { kind: 'unregistered' };
}

/** Waits for a registration without blocking the thread: a daemon serves other calls meanwhile. */
export async function resolveSessionAsync(
  registry: SessionRegistry,
  sessionId: string,
  envRole: string | undefined,
  wait: { waitMs: number; pollMs: number },
): Promise<SessionState> {
  const deadline = Date.now() + wait.waitMs;
  for (;;) {
    const state = sessionStateOf(registry.get(sessionId), envRole);
    if (state.kind !== 'unregistered') return state;
    if (Date.now() >= deadline) return { kind: 'unregistered', waitedMs: wait.waitMs };
    await new Promise((resolve) => setTimeout(resolve, Math.min(wait.pollMs, Math.max(1, deadline - Date.now()))));
  }
}
