/**
 * Drive the REAL Claude Code CLI interactively over its stream-json protocol, against the fake Anthropic
 * API, so a test can play the human at the client's own permission prompt.
 *
 *   claude -p --input-format stream-json --output-format stream-json --verbose --permission-prompt-tool stdio
 *
 * The client reads user messages (and control responses) as JSON lines on stdin and writes its transcript
 * (and control requests) as JSON lines on stdout. When a tool call needs a human — e.g. a PreToolUse hook
 * answered `ask` — it writes a `control_request` with `request.subtype: "can_use_tool"` and waits for a
 * `control_response` carrying `{behavior: "allow", updatedInput}` or `{behavior: "deny", message}`.
 * The client stays alive, waiting for the next user message, until its stdin is closed.
 *
 * Isolation and robustness as in run-host.ts: an isolated HOME / CLAUDE_CONFIG_DIR, an allowlisted
 * environment, the client in its own process group, killed as a group on close, on timeout, and if the
 * test process exits first.
 */
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { startFakeAnthropic } from './fake-anthropic.js';
import type { AnthropicScenario, FakeAnthropicServer } from './fake-anthropic.js';
import { ensureClaude } from './install-hosts.js';
import { claudeClientEnv, killGroup, trackGroup, untrackGroup } from './run-host.js';

/** One JSON line of the client's stdout. */
export type StreamEvent = Record<string, unknown> & { type?: unknown };

/** A `can_use_tool` control request: the client asks its controller (the "human") about a tool call. */
export interface PermissionRequest {
  requestId: string;
  toolName: string;
  input: Record<string, unknown>;
  toolUseId: string | undefined;
  /** Why the client asks, e.g. `hook` when a PreToolUse hook answered `ask`. */
  decisionReasonType: string | undefined;
  /** The raw `request` object, for diagnostics and further assertions. */
  raw: Record<string, unknown>;
}

export interface StreamJsonOptions {
  /** Project directory the client runs in (must exist). */
  cwd: string;
  /** Isolated HOME (must exist). CLAUDE_CONFIG_DIR is `<home>/.claude`. */
  home: string;
  scenario: AnthropicScenario;
  /** Extra environment for the client (and hence its hooks); applied last. */
  env?: Record<string, string>;
  /** Extra CLI arguments appended after the defaults (e.g. `--session-id`). */
  extraArgs?: string[];
  /**
   * `--permission-mode <mode>`; omitted by default (the client's own default mode). `bypassPermissions`
   * also gets IS_SANDBOX=1, which the client requires when running as root.
   */
  permissionMode?: ClaudePermissionMode;
  /** Hard limit for the whole client lifetime: the process group is killed after this long. */
  timeoutMs: number;
}

/** The values of `--permission-mode` (and of `permission_mode` in hook payloads). */
export type ClaudePermissionMode = 'default' | 'acceptEdits' | 'plan' | 'auto' | 'dontAsk' | 'bypassPermissions';

export interface ExitInfo {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** True when the client had to be killed (it did not exit on its own after stdin closed). */
  killed: boolean;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

interface Waiter {
  from: number;
  predicate: (event: StreamEvent) => boolean;
  resolve: (event: StreamEvent) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

export class ClaudeStreamSession {
  /** Every JSON line the client printed on stdout, in order. */
  readonly events: StreamEvent[] = [];
  stderr = '';
  private stdoutBuffer = '';
  private readonly waiters = new Set<Waiter>();
  private exited: ExitInfo | undefined;
  private readonly closed: Promise<ExitInfo>;
  private killedByUs = false;
  private readonly hardTimeout: NodeJS.Timeout;

  constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    readonly pid: number,
    readonly server: FakeAnthropicServer,
    readonly sessionId: string | undefined,
    timeoutMs: number,
  ) {
    child.stdout.on('data', (chunk: Buffer) => this.onStdout(chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString('utf8')));
    // Writing to a client that already exited must not crash the test process (EPIPE).
    child.stdin.on('error', () => undefined);
    child.once('exit', () => killGroup(pid, 'SIGKILL')); // stragglers holding the pipes
    this.closed = new Promise((resolve) => {
      child.once('close', (code, signal) => {
        clearTimeout(this.hardTimeout);
        untrackGroup(pid);
        this.exited = { exitCode: code, signal, killed: this.killedByUs };
        for (const waiter of this.waiters) {
          clearTimeout(waiter.timer);
          waiter.reject(
            new Error(
              `the client exited (code ${code}, signal ${signal}) before the awaited event\n${this.describe()}`,
            ),
          );
        }
        this.waiters.clear();
        // The fake model lives exactly as long as the client.
        void server.close().finally(() => resolve(this.exited!));
      });
    });
    this.hardTimeout = setTimeout(() => this.kill(), timeoutMs);
  }

  private onStdout(text: string): void {
    this.stdoutBuffer += text;
    let newline: number;
    while ((newline = this.stdoutBuffer.indexOf('\n')) >= 0) {
      const line = this.stdoutBuffer.slice(0, newline).trim();
      this.stdoutBuffer = this.stdoutBuffer.slice(newline + 1);
      if (!line.startsWith('{')) continue;
      let event: unknown;
      try {
        event = JSON.parse(line) as unknown;
      } catch {
        continue; // not every line is JSON
      }
      if (!isRecord(event)) continue;
      this.events.push(event);
      const index = this.events.length - 1;
      for (const waiter of [...this.waiters]) {
        if (index >= waiter.from && waiter.predicate(event)) {
          clearTimeout(waiter.timer);
          this.waiters.delete(waiter);
          waiter.resolve(event);
        }
      }
    }
  }

  /** Write one JSON line to the client's stdin. */
  send(message: Record<string, unknown>): void {
    this.child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  /** A user turn, as the Agent SDK sends it. */
  sendUserMessage(text: string): void {
    this.send({
      type: 'user',
      message: { role: 'user', content: text },
      parent_tool_use_id: null,
      session_id: this.sessionId ?? '',
    });
  }

  /**
   * The first event at index >= `from` (default: any, including ones already received) matching
   * `predicate`. Rejects after `timeoutMs`, or when the client exits first, with a transcript summary.
   */
  waitFor(
    predicate: (event: StreamEvent) => boolean,
    options: { timeoutMs: number; label: string; from?: number },
  ): Promise<StreamEvent> {
    const from = options.from ?? 0;
    const seen = this.events.findIndex((e, i) => i >= from && predicate(e));
    if (seen >= 0) return Promise.resolve(this.events[seen]!);
    if (this.exited !== undefined)
      return Promise.reject(new Error(`the client already exited; never saw ${options.label}\n${this.describe()}`));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        from,
        predicate,
        resolve,
        reject,
        timer: setTimeout(() => {
          this.waiters.delete(waiter);
          reject(new Error(`timed out after ${options.timeoutMs} ms waiting for ${options.label}\n${this.describe()}`));
        }, options.timeoutMs),
      };
      this.waiters.add(waiter);
    });
  }

  /** The end of the current turn: the next `result` event at or after index `from`. */
  waitForResult(from: number, timeoutMs: number): Promise<StreamEvent> {
    return this.waitFor((e) => e.type === 'result', { from, timeoutMs, label: 'the turn’s result event' });
  }

  /** Every `can_use_tool` control request received so far. */
  permissionRequests(): PermissionRequest[] {
    return this.events.flatMap((e) => {
      const request = permissionRequestOf(e);
      return request === undefined ? [] : [request];
    });
  }

  /** The next `can_use_tool` control request at or after index `from`. */
  async waitForPermissionRequest(from: number, timeoutMs: number): Promise<PermissionRequest> {
    const event = await this.waitFor((e) => permissionRequestOf(e) !== undefined, {
      from,
      timeoutMs,
      label: 'a can_use_tool control request',
    });
    return permissionRequestOf(event)!;
  }

  /** Answer a permission request as the human at the prompt would. */
  answerPermission(
    request: PermissionRequest,
    answer: { behavior: 'allow' } | { behavior: 'deny'; message: string },
  ): void {
    const response =
      answer.behavior === 'allow'
        ? { behavior: 'allow', updatedInput: request.input }
        : { behavior: 'deny', message: answer.message };
    this.send({ type: 'control_response', response: { subtype: 'success', request_id: request.requestId, response } });
  }

  /** Close stdin (the client's cue to exit) and wait up to `graceMs`; then kill the group. Idempotent. */
  async close(graceMs = 10_000): Promise<ExitInfo> {
    if (this.exited === undefined) {
      this.child.stdin.end();
      const timer = setTimeout(() => this.kill(), graceMs);
      await this.closed;
      clearTimeout(timer);
    }
    return this.exited!;
  }

  private kill(): void {
    if (this.exited !== undefined) return;
    this.killedByUs = true;
    killGroup(this.pid, 'SIGTERM');
    setTimeout(() => killGroup(this.pid, 'SIGKILL'), 2_000).unref();
  }

  /** A compact transcript for failure messages. */
  describe(): string {
    const kinds = this.events
      .map((e) => [e.type, (e as { subtype?: unknown }).subtype].filter((x) => x !== undefined).join(':'))
      .join(' ');
    const requests = this.server.requests.map((r) => r.answeredWith).join(' | ');
    return [
      `events: ${kinds}`,
      `fake model answered: ${requests}`,
      `stderr: ${this.stderr.slice(-2000)}`,
      `last events: ${JSON.stringify(this.events.slice(-4)).slice(-3000)}`,
    ].join('\n');
  }
}

function permissionRequestOf(event: StreamEvent): PermissionRequest | undefined {
  if (event.type !== 'control_request' || typeof event.request_id !== 'string' || !isRecord(event.request))
    return undefined;
  const request = event.request;
  if (request.subtype !== 'can_use_tool') return undefined;
  return {
    requestId: event.request_id,
    toolName: String(request.tool_name),
    input: isRecord(request.input) ? request.input : {},
    toolUseId: typeof request.tool_use_id === 'string' ? request.tool_use_id : undefined,
    decisionReasonType: typeof request.decision_reason_type === 'string' ? request.decision_reason_type : undefined,
    raw: request,
  };
}

/**
 * Start the real client in stream-json mode with stdio permission prompts. The fake model follows
 * `scenario` once a user message arrives (`session.sendUserMessage`). Always `close()` the session.
 */
export async function startClaudeStreamJson(options: StreamJsonOptions): Promise<ClaudeStreamSession> {
  const bin = await ensureClaude();
  const server = await startFakeAnthropic(options.scenario);
  const env: Record<string, string> = {
    ...claudeClientEnv(options.home, server.url),
    ...(options.permissionMode === 'bypassPermissions' ? { IS_SANDBOX: '1' } : {}),
    ...options.env,
  };
  const extraArgs = options.extraArgs ?? [];
  const modeArgs = options.permissionMode === undefined ? [] : ['--permission-mode', options.permissionMode];
  const args = [
    '-p',
    '--input-format',
    'stream-json',
    '--output-format',
    'stream-json',
    '--verbose',
    '--permission-prompt-tool',
    'stdio',
    ...modeArgs,
    ...extraArgs,
  ];
  const sessionFlag = extraArgs.indexOf('--session-id');
  const sessionId = sessionFlag >= 0 ? extraArgs[sessionFlag + 1] : undefined;
  const child = spawn(bin, args, { cwd: options.cwd, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
  const pid = child.pid;
  if (pid === undefined) {
    await server.close();
    throw await new Promise<Error>((resolve) => child.once('error', resolve));
  }
  trackGroup(pid);
  return new ClaudeStreamSession(child, pid, server, sessionId, options.timeoutMs);
}
