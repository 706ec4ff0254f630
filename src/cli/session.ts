/** Session commands: register, disable, enable, switch, status, roles. */
import { describeUrl, storeSettings } from '../store/settings.js';
import { readSyncStatus } from '../store/sync.js';
import { describeMode, describeQueueMode } from './store.js';
import { readQueueStatus } from '../store/queue.js';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { HookwiseError } from '../core/errors.js';
import { findProjectRoot } from '../paths/canonical.js';
import { ROLE_NAME, roleNamed, type CompiledPolicy } from '../policy/compiled.js';
import { loadPolicy } from '../policy/load.js';
import { formatDiagnostic } from '../policy/schema.js';
import { sanitize } from '../sanitize/index.js';
import { shownId } from '../sanitize/ids.js';
import { rolesByGroup } from '../session/messages.js';
import { SessionRegistry, type SessionRecord } from '../session/registry.js';
import { ensurePrivateDir } from '../util/fs-safe.js';
import { locations, type Locations } from '../util/locations.js';
import { delegationCount } from '../modules/machine.js';
import { windowText } from '../modules/conductor.js';
import { readModuleState } from '../modules/state-file.js';

export interface RegisterOptions {
  sessionId: string;
  role: string;
  task?: string;
  promptFile?: string;
  team?: string;
}

function context(): { registry: SessionRegistry; policy: () => Promise<CompiledPolicy> } {
  const where = locations();
  ensurePrivateDir(where.runtimeDir);
  return {
    registry: new SessionRegistry(where.runtimeDir),
    policy: () => loadPolicy(findProjectRoot(process.cwd()), where),
  };
}

async function requireRole(role: string, policy: CompiledPolicy): Promise<void> {
  if (roleNamed(policy, role) === undefined) {
    const shown = ROLE_NAME.test(role) ? `"${role}"` : 'name (a role is a lower-case word: letters, digits, - and _)';
    throw new HookwiseError('USAGE', `unknown role ${shown}. Roles:\n${rolesByGroup(policy)}`);
  }
}

export async function register(options: RegisterOptions): Promise<string> {
  const { registry, policy } = context();
  await requireRole(options.role, await policy());
  let promptFile: string | undefined;
  if (options.promptFile !== undefined) {
    promptFile = resolve(options.promptFile);
    if (!existsSync(promptFile)) throw new HookwiseError('USAGE', `--prompt-file ${options.promptFile}: no such file`);
  }
  // Free text goes to disk only sanitized, like everything hookwise keeps.
  const clean = (text: string | undefined): string | undefined =>
    text === undefined ? undefined : sanitize(text).text;
  const task = clean(options.task);
  const team = clean(options.team);
  const record = registry.update(options.sessionId, (existing, now) => ({
    session_id: shownId(options.sessionId),
    role: options.role,
    disabled: false,
    ...(task !== undefined ? { task } : existing?.task !== undefined ? { task: existing.task } : {}),
    ...(promptFile !== undefined
      ? { prompt_file: clean(promptFile)! }
      : existing?.prompt_file !== undefined
        ? { prompt_file: existing.prompt_file }
        : {}),
    ...(team !== undefined ? { team } : existing?.team !== undefined ? { team: existing.team } : {}),
    registered_at: existing?.registered_at ?? now,
    updated_at: now,
  }));
  return `hookwise: session ${record.session_id} registered as ${record.role}${record.team === undefined ? '' : ` (team ${record.team})`}`;
}

export async function switchRole(sessionId: string, role: string): Promise<string> {
  const { registry, policy } = context();
  await requireRole(role, await policy());
  let previous: string | null = null;
  // Switching names a session that exists: a typo in the id must not register a new one silently.
  const unknown = (): HookwiseError =>
    new HookwiseError(
      'USAGE',
      `session ${shownId(sessionId)} is not registered, so it has no role to switch from; register it: hookwise register --session-id ${shownId(sessionId)} --role ${role}`,
    );
  if (registry.get(sessionId) === undefined) throw unknown();
  registry.update(sessionId, (existing, now) => {
    if (existing === undefined) throw unknown();
    previous = existing.role;
    return { ...existing, role, updated_at: now };
  });
  return `hookwise: session ${shownId(sessionId)} switched ${previous === null ? 'to' : `from ${previous} to`} ${role}`;
}

export function setDisabled(sessionId: string, disabled: boolean): string {
  const { registry } = context();
  const record = registry.update(sessionId, (existing, now) => ({
    ...(existing ?? { session_id: shownId(sessionId), role: null, registered_at: now }),
    disabled,
    updated_at: now,
  }));
  const id = shownId(sessionId);
  if (disabled)
    return `hookwise: gating disabled for session ${id}; its tool calls are allowed without checks (hookwise enable --session-id ${id} to undo)`;
  return record.role === null
    ? `hookwise: session ${id} enabled, but it has no role yet: hookwise register --session-id ${id} --role <role>`
    : `hookwise: gating enabled for session ${id} (role ${record.role})`;
}

export async function status(sessionId: string | undefined, asJson: boolean): Promise<string> {
  const where = locations();
  const { registry, policy: loadProjectPolicy } = context();
  const policy = await loadProjectPolicy();
  let selected: SessionRecord[];
  let problems: string[] = [];
  if (sessionId === undefined) ({ records: selected, problems } = registry.list());
  else {
    const record = registry.get(sessionId);
    selected = record === undefined ? [] : [record];
  }
  if (sessionId !== undefined && selected.length === 0) {
    const envRole = process.env.HOOKWISE_ROLE;
    const state = envRole === undefined ? 'not registered' : `not registered; HOOKWISE_ROLE=${envRole} applies`;
    if (asJson) return JSON.stringify({ session_id: shownId(sessionId), registered: false, env_role: envRole ?? null });
    return `session ${shownId(sessionId)}: ${state}\nRoles:\n${rolesByGroup(policy)}`;
  }
  // One session: its policy modules too (safemode, circuit breaker), from the signed state.
  const modules = sessionId === undefined ? undefined : moduleLines(where, sessionId, policy);
  if (asJson) {
    const human = {
      channel: policy.human.channel,
      timeout_s: policy.human.timeoutMs / 1000,
      source: policy.human.source,
    };
    return JSON.stringify(
      {
        runtime_dir: where.runtimeDir,
        human,
        sessions: selected,
        ...(modules === undefined ? {} : { modules: modules.json }),
        store: storeLine(where),
        problems,
        warnings: policy.warnings,
      },
      null,
      2,
    );
  }
  const asks =
    policy.human.channel === 'queue'
      ? `wait in the human queue up to ${policy.human.timeoutMs / 1000}s, then deny (hookwise queue; from ${policy.human.source})`
      : "go to the host's prompt (human.channel: host-prompt)";
  const lines = [`runtime dir: ${where.runtimeDir}`, `asks: ${asks}`, `store: ${storeLine(where)}`];
  if (selected.length === 0) lines.push('no registered sessions');
  for (const r of selected) {
    const state = r.disabled ? 'disabled' : r.role === null ? 'no role' : `role ${r.role}`;
    const extra = [r.team === undefined ? '' : `team ${r.team}`, r.task === undefined ? '' : `task: ${r.task}`].filter(
      (s) => s !== '',
    );
    lines.push(`${r.session_id}: ${state}${extra.length > 0 ? ` (${extra.join('; ')})` : ''}, updated ${r.updated_at}`);
    const role = r.role === null ? undefined : roleNamed(policy, r.role);
    if (sessionId !== undefined && role !== undefined) {
      lines.push(`  may write: ${role.allowWrite.map((p) => p.glob).join(', ') || '(nothing)'}`);
      lines.push(`  may not write: ${role.denyWrite.map((p) => p.glob).join(', ') || '(nothing)'}`);
      lines.push(`  always asks: ${policy.sensitiveWrite.map((p) => p.glob).join(', ')}`);
    }
  }
  if (modules !== undefined) lines.push(...modules.text);
  for (const p of problems) lines.push(`problem: ${p}`);
  for (const w of policy.warnings) lines.push(formatDiagnostic(w));
  return lines.join('\n');
}

/** The store and the daemon's mode with it, from the files alone (no connection: status stays instant). */
function storeLine(where: Locations): string {
  const { settings } = storeSettings(where.userConfigDir);
  if (settings.kind === 'files') return 'the files on this machine';
  const sync = readSyncStatus(where.runtimeDir);
  const mode = sync === undefined ? 'no daemon has synced yet (hookwise daemon start)' : describeMode(sync);
  const queue = readQueueStatus(where.runtimeDir);
  return `team ${settings.team} at ${describeUrl(settings.url)}: ${mode}${queue === undefined ? '' : `; queue ${describeQueueMode(queue)}`}`;
}

function moduleLines(
  where: Locations,
  sessionId: string,
  policy: CompiledPolicy,
): { text: string[]; json: Record<string, unknown> } {
  const { safemode, circuitBreaker, hierarchy, delegation } = policy.modules;
  const read = readModuleState(where, sessionId);
  if (read.kind === 'tampered') {
    return {
      text: [
        `  modules: state TAMPERED (${read.why}); edits and writes are denied until: hookwise breaker reset --session-id ${shownId(sessionId)}`,
      ],
      json: { tampered: read.why },
    };
  }
  const { state } = read;
  const text = [
    `  safemode: ${state.safemode ? 'ON (edits and writes denied)' : 'off'}${safemode.enabled ? '' : ' (module not enabled in policy.yml)'}`,
    `  circuit breaker: ${!circuitBreaker.enabled ? 'not enabled in policy.yml' : state.breaker.tripped !== undefined ? `TRIPPED (${state.breaker.tripped})` : `closed, ${state.breaker.consecutive} consecutive failure(s), trips at ${circuitBreaker.threshold}`}`,
  ];
  const recent = delegationCount(state, Date.now(), delegation.windowMs);
  if (hierarchy.enabled) text.push('  hierarchy: on (a conductor role may edit only its allow-list)');
  if (delegation.enabled)
    text.push(
      `  delegation: ${recent} work call(s) in the last ${windowText(delegation.windowMs)} (reminder from ${delegation.warnAt}, denied from ${delegation.denyAt}; only a conductor role is counted)`,
    );
  return {
    text,
    json: {
      safemode: { enabled: safemode.enabled, on: state.safemode },
      circuit_breaker: { enabled: circuitBreaker.enabled, threshold: circuitBreaker.threshold, ...state.breaker },
      hierarchy: { enabled: hierarchy.enabled },
      delegation: {
        enabled: delegation.enabled,
        warn_at: delegation.warnAt,
        deny_at: delegation.denyAt,
        window_ms: delegation.windowMs,
        recent,
      },
    },
  };
}

/** `hookwise roles`: the roles a session may register as here (built-in and the project's), with their globs. */
export async function listRoles(asJson: boolean): Promise<string> {
  const { policy: loadProjectPolicy } = context();
  const policy = await loadProjectPolicy();
  const roles = Object.values(policy.roles).sort(
    (a, b) => a.group.localeCompare(b.group) || a.name.localeCompare(b.name),
  );
  const globs = (patterns: readonly { glob: string }[]): string[] => patterns.map((p) => p.glob);
  if (asJson) {
    return JSON.stringify(
      roles.map((r) => ({
        name: r.name,
        group: r.group,
        description: r.description,
        source: r.source,
        may_write: globs(r.allowWrite),
        may_not_write: globs(r.denyWrite),
        may_read: globs(r.allowRead),
      })),
      null,
      2,
    );
  }
  const lines: string[] = [];
  for (const r of roles) {
    lines.push(`${r.name} (${r.group}, from ${r.source})${r.description === '' ? '' : `: ${r.description}`}`);
    lines.push(`  may write:     ${globs(r.allowWrite).join(', ') || '(nothing)'}`);
    if (r.denyWrite.length > 0) lines.push(`  may not write: ${globs(r.denyWrite).join(', ')}`);
  }
  lines.push(
    '',
    `Every role is asked before writing: ${globs(policy.sensitiveWrite).join(', ')}`,
    'Register a session: hookwise register --session-id <id> --role <role>',
  );
  return lines.join('\n');
}
