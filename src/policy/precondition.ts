/**
 * Precondition scripts: a bash rule may hand its verdict to a script (`precondition_script:`). The
 * script is run with a timeout and a minimal environment, and the first word of its stdout decides:
 * `allow`, `ask` or `deny` (the rest of that line is shown with the reason). Anything else — a non-zero
 * exit, a timeout, no output, other output, a script that cannot be started — is `ask`: a broken
 * precondition never allows.
 *
 * The rules tier itself does no I/O: it calls a PreconditionRunner port. The default runner spawns the
 * script synchronously (the cascade is synchronous and a hook process decides one call); tests inject
 * fakes. Environment given to the script (nothing else is inherited):
 *
 *   PATH, HOME                 from hookwise's own environment
 *   HOOKWISE_TOOL              canonical tool name (Bash)
 *   HOOKWISE_COMMAND           the segment's command name (git)
 *   HOOKWISE_ARGV              the segment's argv as a JSON array (["git","push","origin","main"])
 *   HOOKWISE_SEGMENT           the segment's source text
 *   HOOKWISE_CWD               the call's working directory (also the script's cwd)
 *   HOOKWISE_PROJECT_ROOT      the project root
 *   HOOKWISE_ROLE, HOOKWISE_SESSION, HOOKWISE_RULE   the session's role, its id, the rule's id
 */
import type * as ChildProcess from 'node:child_process';
import { createRequire } from 'node:module';
import { isVerdict, type Verdict } from '../core/decision.js';

type SpawnSync = typeof ChildProcess.spawnSync;
let spawnSyncFn: SpawnSync | undefined;

/** node:child_process costs ~3 ms to load: only a call that actually runs a script pays for it. */
function spawnSync(): SpawnSync {
  if (spawnSyncFn === undefined) {
    const load = createRequire(typeof __filename === 'string' ? __filename : import.meta.url);
    spawnSyncFn = (load('node:child_process') as typeof ChildProcess).spawnSync;
  }
  return spawnSyncFn;
}

export interface PreconditionRequest {
  /** Absolute path of the script. */
  script: string;
  ruleId: string;
  tool: string;
  command: string;
  argv: readonly string[];
  segmentText: string;
  cwd: string;
  projectRoot: string;
  role: string;
  session: string;
}

export type PreconditionOutcome =
  { kind: 'answered'; verdict: Verdict; note: string } | { kind: 'failed'; problem: string };

export interface PreconditionRunner {
  run(request: PreconditionRequest): PreconditionOutcome;
}

/** The rules tier's port in the cascade's context (injected; absent: spawn with a timeout). */
export interface PreconditionContext {
  ports?: { precondition?: PreconditionRunner };
}

export const PRECONDITION_TIMEOUT_MS = 2000;
/** More output than this is not a verdict: fail (→ ask) rather than buffer it. */
const MAX_OUTPUT_BYTES = 64 * 1024;
const FALLBACK_PATH = '/usr/local/bin:/usr/bin:/bin';

export interface SpawnRunnerOptions {
  timeoutMs?: number;
  /** PATH and HOME for the script (default: hookwise's own). */
  path?: string;
  home?: string;
}

/** Read a script's stdout: the first word decides, the rest of the first line is a note. */
export function parsePreconditionOutput(stdout: string): PreconditionOutcome {
  const firstLine = stdout.trimStart().split('\n')[0]?.trim() ?? '';
  const space = firstLine.search(/\s/);
  const word = space === -1 ? firstLine : firstLine.slice(0, space);
  const note = space === -1 ? '' : firstLine.slice(space).trim();
  if (isVerdict(word)) return { kind: 'answered', verdict: word, note };
  const shown =
    firstLine === '' ? 'no output' : `"${firstLine.length > 60 ? `${firstLine.slice(0, 59)}…` : firstLine}"`;
  return { kind: 'failed', problem: `printed ${shown} instead of allow, ask or deny` };
}

export function spawnPreconditionRunner(options: SpawnRunnerOptions = {}): PreconditionRunner {
  const timeout = options.timeoutMs ?? PRECONDITION_TIMEOUT_MS;
  return {
    run(request) {
      const env: NodeJS.ProcessEnv = {
        PATH: options.path ?? process.env.PATH ?? FALLBACK_PATH,
        HOME: options.home ?? process.env.HOME ?? '',
        HOOKWISE_TOOL: request.tool,
        HOOKWISE_COMMAND: request.command,
        HOOKWISE_ARGV: JSON.stringify(request.argv),
        HOOKWISE_SEGMENT: request.segmentText,
        HOOKWISE_CWD: request.cwd,
        HOOKWISE_PROJECT_ROOT: request.projectRoot,
        HOOKWISE_ROLE: request.role,
        HOOKWISE_SESSION: request.session,
        HOOKWISE_RULE: request.ruleId,
      };
      const result = spawnSync()(request.script, [], {
        cwd: request.cwd,
        env,
        encoding: 'utf8',
        timeout,
        killSignal: 'SIGKILL',
        maxBuffer: MAX_OUTPUT_BYTES,
        stdio: ['ignore', 'pipe', 'pipe'],
        windowsHide: true,
      });
      if (result.error !== undefined) {
        const code = (result.error as NodeJS.ErrnoException).code;
        if (code === 'ETIMEDOUT') return { kind: 'failed', problem: `did not answer within ${timeout} ms` };
        if (code === 'EACCES') return { kind: 'failed', problem: 'is not executable (chmod +x it)' };
        if (code === 'ENOENT')
          return { kind: 'failed', problem: 'does not exist (or its #! interpreter, or the cwd, does not)' };
        if (code === 'ENOBUFS') return { kind: 'failed', problem: `printed more than ${MAX_OUTPUT_BYTES} bytes` };
        return { kind: 'failed', problem: `could not be run: ${result.error.message}` };
      }
      if (result.signal !== null) return { kind: 'failed', problem: `was killed by ${result.signal}` };
      if (result.status !== 0) {
        const stderr = (result.stderr ?? '').trim().split('\n')[0] ?? '';
        return {
          kind: 'failed',
          problem: `exited with status ${result.status}${stderr === '' ? '' : `: ${stderr.slice(0, 120)}`}`,
        };
      }
      return parsePreconditionOutput(result.stdout ?? '');
    },
  };
}
