/**
 * Tier 3 at the edge: the port the cascade's supervisor tier calls (supervisor/backend.ts SupervisorPort), and the
 * backends behind it.
 *
 *   - A backend is made on the first review that needs it, never earlier (the API backend loads the SDK
 *     then), and kept per settings: a daemon's engine keeps it warm across calls; a hook process makes one
 *     only when its call reaches tier 3.
 *   - The port adds what only the edge can read: the session's registered task and the beginning of its
 *     prompt file — read bounded, only a regular file of this user (not a link), not a sensitive path nor
 *     hookwise's own state (an agent registers its own prompt file: it must not be a way to send
 *     ~/.aws/credentials to a model), and sanitized like everything else the supervisor sees.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync } from 'node:fs';
import type { SupervisorPort } from '../supervisor/backend.js';
import { resolvePath } from '../paths/canonical.js';
import type { CompiledPolicy } from '../policy/compiled.js';
import { matchersFor } from '../policy/compiled.js';
import type { SupervisorSettings } from '../policy/config-types.js';
import { sanitize } from '../sanitize/index.js';
import type { SessionRecord } from '../session/registry.js';
import type {
  SharedSupervisorAnswers,
  SupervisorBackend,
  SupervisorOutcome,
  SupervisorRequest,
} from '../supervisor/backend.js';
import { apiSupervisor } from '../supervisor/api.js';
import { agentSupervisor } from '../supervisor/agent.js';
import type { QueueBackend } from '../queue/types.js';
import type { Locations } from '../util/locations.js';

/** The beginning of a prompt file the supervisor sees. */
export const MAX_PROMPT_BYTES = 8192;

/** Makes the backend for a setting (tests inject one; the default makes the real backends). `queue`: the store the agent backend's items wait in. */
export type BackendFactory = (settings: SupervisorSettings, queue: () => QueueBackend) => SupervisorBackend | undefined;

/** How the audit log and reasons name a supervisor: `api:<model>`, `agent`. */
export function supervisorName(settings: SupervisorSettings): string {
  return settings.backend === 'api' ? `api:${settings.model}` : settings.backend;
}

export const defaultBackends: BackendFactory = (settings, queue) => {
  switch (settings.backend) {
    case 'api':
      return apiSupervisor({
        model: settings.model,
        timeoutMs: settings.timeoutMs,
        maxTokens: settings.maxTokens,
        stream: settings.stream,
      });
    case 'agent':
      return agentSupervisor({ timeoutMs: settings.timeoutMs, queue });
    case 'off':
      return undefined;
  }
};

export class Supervisors {
  private readonly held = new Map<string, SupervisorBackend>();

  constructor(
    private readonly where: Locations,
    private readonly factory: BackendFactory = defaultBackends,
    /** The queue store (the engine's: the daemon's memory queue, or the files), for the agent backend. */
    private readonly queue: () => QueueBackend = () => {
      throw new Error('no queue store is given to the supervisor');
    },
    /** A daemon's copy of the team's answers (a team store set): asked before the backend, told its answers. */
    private readonly shared?: SharedSupervisorAnswers,
  ) {}

  /** The port for one call, or undefined when the policy has no supervisor (the tier then passes). */
  portFor(
    policy: CompiledPolicy,
    projectRoot: string,
    cwd: string,
    session: SessionRecord | undefined,
    signal?: AbortSignal,
  ): SupervisorPort | undefined {
    const settings = policy.supervisor;
    if (settings === undefined || settings.backend === 'off') return undefined;
    return {
      review: async (request: SupervisorRequest): Promise<SupervisorOutcome> => {
        const key = request.key;
        const known = key === undefined ? undefined : this.shared?.lookup(key, request.role.name);
        if (known !== undefined) return known;
        const backend = this.backendFor(settings);
        if (backend === undefined)
          return {
            kind: 'failure',
            why: `the "${settings.backend}" supervisor backend is not available in this build of hookwise`,
            by: settings.backend,
          };
        const context = sessionContext(session, policy, { projectRoot, cwd, home: this.where.home }, this.where);
        const outcome = await backend.review(
          context === undefined ? request : { ...request, session: context },
          signal,
        );
        if (outcome.kind === 'answer' && key !== undefined)
          this.shared?.publish(key, request.role.name, request.tool, outcome);
        return outcome;
      },
    };
  }

  private backendFor(settings: SupervisorSettings): SupervisorBackend | undefined {
    const key = JSON.stringify([
      settings.backend,
      settings.model,
      settings.timeoutMs,
      settings.maxTokens,
      settings.stream,
    ]);
    let backend = this.held.get(key);
    if (backend === undefined) {
      backend = this.factory(settings, this.queue);
      if (backend === undefined) return undefined;
      this.held.set(key, backend);
    }
    return backend;
  }
}

/** The session's task and prompt file, as the supervisor may see them. */
export function sessionContext(
  record: SessionRecord | undefined,
  policy: CompiledPolicy,
  paths: { projectRoot: string; cwd: string; home: string },
  where: Locations,
): SupervisorRequest['session'] {
  if (record === undefined) return undefined;
  const out: NonNullable<SupervisorRequest['session']> = {};
  if (record.task !== undefined && record.task !== '') out.task = sanitize(record.task).text;
  if (record.prompt_file !== undefined) {
    let read: { text: string; truncated: boolean } | undefined;
    try {
      read = readPromptFile(record.prompt_file, policy, paths, where);
    } catch {
      read = undefined; // unreadable now: the supervisor judges without it, as for a session that named none
    }
    if (read !== undefined)
      out.prompt = {
        file: sanitize(record.prompt_file).text,
        text: sanitize(read.text).text,
        truncated: read.truncated,
      };
  }
  return out.task === undefined && out.prompt === undefined ? undefined : out;
}

function readPromptFile(
  file: string,
  policy: CompiledPolicy,
  paths: { projectRoot: string; cwd: string; home: string },
  where: Locations,
): { text: string; truncated: boolean } | undefined {
  if (!file.startsWith('/') || file.includes('<REDACTED>')) return undefined;
  const resolved = resolvePath(file, paths);
  if (matchersFor(policy).sensitiveRead.match(resolved) !== undefined) return undefined;
  for (const dir of [where.runtimeDir, where.userConfigDir])
    if (resolved.absolute === dir || resolved.absolute.startsWith(`${dir}/`)) return undefined;
  const link = lstatSync(file, { throwIfNoEntry: false });
  if (link === undefined || !link.isFile()) return undefined;
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined; // gone, or replaced by a link since the lstat
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || (typeof process.getuid === 'function' && stat.uid !== process.getuid())) return undefined;
    const buffer = Buffer.alloc(Math.min(MAX_PROMPT_BYTES, stat.size));
    const n = buffer.length === 0 ? 0 : readSync(fd, buffer, 0, buffer.length, 0);
    // A cut inside a multi-byte character decodes as U+FFFD: harmless.
    return { text: buffer.toString('utf8', 0, n), truncated: stat.size > n };
  } finally {
    closeSync(fd);
  }
}
