/**
 * Run the REAL Claude Code / Gemini CLI headless against the fake model APIs, with a hook configuration
 * supplied by the test, and report what happened.
 *
 * Isolation: every run gets its own HOME (and CLAUDE_CONFIG_DIR / Gemini system-settings paths) in a temp
 * directory, and the client sees only an allowlisted environment. A developer's real ~/.claude, ~/.gemini,
 * API keys, proxies and NODE_OPTIONS therefore never leak in, and nothing is ever written to them.
 *
 * Robustness: the client runs in its own process group and is killed as a group on timeout (and its
 * stragglers after a normal exit), so a hanging host — e.g. Gemini waiting forever for a confirmation that
 * headless mode can't give — fails the test instead of wedging the test run.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeAnthropic } from './fake-anthropic.js';
import type { AnthropicScenario, RecordedRequest, ToolResultRecord } from './fake-anthropic.js';
import { startFakeGemini } from './fake-gemini.js';
import type { FunctionResponseRecord, GeminiScenario, RecordedGeminiRequest } from './fake-gemini.js';
import { ensureClaude, ensureGemini } from './install-hosts.js';

// ---------------------------------------------------------------------------------------------------------
// Hook configuration shapes (the subset the tests need; see docs in /work/shared/spec/hook-protocols.md).

export interface ClaudeCommandHook {
  type: 'command';
  command: string;
  /** Exec form (no shell), Claude Code ≥ 2.1.139. */
  args?: string[];
  /** Seconds. */
  timeout?: number;
  /** Run in the background: the tool call does not wait for it. */
  async?: boolean;
}

export interface ClaudeHttpHook {
  type: 'http';
  url: string;
  /** Seconds. */
  timeout?: number;
  headers?: Record<string, string>;
  allowedEnvVars?: string[];
  /**
   * `block`: a failed call (endpoint down, non-2xx, timeout) blocks the tool call instead of failing open.
   * Not in the hooks reference; honoured by Claude Code 2.1.330 (see /work/shared/spec/hook-protocols.md).
   */
  onFailure?: 'block';
  /**
   * Documented for `command` handlers only. On an `http` PostToolUse handler Claude Code 2.1.330 accepts it
   * and still calls the hook, but the tool call waits for it all the same (daemon-wiring.test.ts, rows 5b/5c).
   */
  async?: boolean;
}

export type ClaudeHookHandler = ClaudeCommandHook | ClaudeHttpHook;

export interface ClaudeMatcherGroup {
  matcher?: string;
  hooks: ClaudeHookHandler[];
}

export type ClaudeHooksConfig = Partial<Record<string, ClaudeMatcherGroup[]>>;

export interface GeminiCommandHook {
  type: 'command';
  command: string;
  name?: string;
  /** Milliseconds (unlike Claude Code). */
  timeout?: number;
}

export interface GeminiMatcherGroup {
  matcher?: string;
  sequential?: boolean;
  hooks: GeminiCommandHook[];
}

export type GeminiHooksConfig = Partial<Record<string, GeminiMatcherGroup[]>>;

/** Events that take a tool-name matcher; the others reject/ignore one. */
const CLAUDE_TOOL_EVENTS = new Set([
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'PermissionRequest',
  'PermissionDenied',
]);
const GEMINI_TOOL_EVENTS = new Set(['BeforeTool', 'AfterTool']);

/** The same handler registered for every listed event (matching every tool on tool events). */
export function claudeHooksForEvents(events: readonly string[], handler: ClaudeHookHandler): ClaudeHooksConfig {
  const config: ClaudeHooksConfig = {};
  for (const event of events) {
    config[event] = [CLAUDE_TOOL_EVENTS.has(event) ? { matcher: '*', hooks: [handler] } : { hooks: [handler] }];
  }
  return config;
}

export function geminiHooksForEvents(events: readonly string[], handler: GeminiCommandHook): GeminiHooksConfig {
  const config: GeminiHooksConfig = {};
  for (const event of events) {
    config[event] = [GEMINI_TOOL_EVENTS.has(event) ? { matcher: '*', hooks: [handler] } : { hooks: [handler] }];
  }
  return config;
}

// ---------------------------------------------------------------------------------------------------------
// Process handling.

export interface ProcessResult {
  /** Pid of the client, which is also its process-group id. */
  pid: number;
  /** Exit code, or null when the process was killed by a signal. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  durationMs: number;
  stdout: string;
  stderr: string;
}

/** The real Claude Code client's environment: isolated home and config, the fake API, no side traffic. */
export function claudeClientEnv(home: string, apiUrl: string): Record<string, string> {
  return {
    ...baseEnv(),
    HOME: home,
    CLAUDE_CONFIG_DIR: join(home, '.claude'),
    ANTHROPIC_BASE_URL: apiUrl,
    ANTHROPIC_API_KEY: 'sk-ant-fake',
    // Keep the client off the network: no updater, no telemetry/error reports, no other side traffic.
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
  };
}

/** Process groups still running; killed if the test process exits first (e.g. vitest aborts). */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

export function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

/** Track a client's process group until `untrackGroup`: killed if the test process exits first. */
export function trackGroup(pid: number): void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const live of liveGroups) killGroup(live, 'SIGKILL');
    });
  }
  liveGroups.add(pid);
}

export function untrackGroup(pid: number): void {
  liveGroups.delete(pid);
}

function spawnHost(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<ProcessResult> {
  return new Promise((resolvePromise, reject) => {
    const started = Date.now();
    // detached => the client leads a new process group, so we can kill it together with anything it
    // spawned (Gemini relaunches itself as a child; both clients spawn shells and hooks).
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      // stdin is /dev/null: both clients read piped stdin into the prompt, and must never wait on it.
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const pid = child.pid;
    if (pid === undefined) {
      child.once('error', reject);
      return;
    }
    trackGroup(pid);
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));

    let killTimer: NodeJS.Timeout | undefined;
    const timeout = setTimeout(() => {
      timedOut = true;
      killGroup(pid, 'SIGTERM');
      killTimer = setTimeout(() => killGroup(pid, 'SIGKILL'), 2_000);
    }, options.timeoutMs);

    // 'exit' fires when the leader exits; 'close' only once every holder of its stdio has gone. Kill the
    // rest of the group on 'exit' so a leftover grandchild holding the pipes can't delay 'close' forever.
    child.once('exit', () => killGroup(pid, 'SIGKILL'));
    child.once('error', (error) => {
      clearTimeout(timeout);
      untrackGroup(pid);
      reject(error);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timeout);
      if (killTimer) clearTimeout(killTimer);
      untrackGroup(pid);
      resolvePromise({ pid, exitCode: code, signal, timedOut, durationMs: Date.now() - started, stdout, stderr });
    });
  });
}

/**
 * Variables passed through from the test process. Everything else — API keys, proxies (which would route
 * 127.0.0.1 through a proxy), NODE_OPTIONS, CI, vitest's own variables, the developer's CLAUDE_* and GEMINI_*
 * settings — stays out, so a run behaves the same on every machine.
 */
const PASSTHROUGH_ENV = [
  'PATH',
  'LANG',
  'LC_ALL',
  'LC_CTYPE',
  'TZ',
  'TMPDIR',
  'SHELL',
  'USER',
  'LOGNAME',
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
];

function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of PASSTHROUGH_ENV) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  env.NO_COLOR = '1';
  return env;
}

// ---------------------------------------------------------------------------------------------------------
// Directories.

interface RunDirs {
  cwd: string;
  home: string;
  /** Removes the directories this helper created (never caller-supplied ones). */
  cleanup: () => Promise<void>;
}

async function prepareDirs(host: string, cwd: string | undefined, home: string | undefined): Promise<RunDirs> {
  const created: string[] = [];
  let base: string | undefined;
  const scratch = async (): Promise<string> => {
    if (base === undefined) {
      // realpath: on macOS /tmp is a symlink, and the clients report resolved paths in hook payloads.
      base = await realpath(await mkdtemp(join(tmpdir(), `hookwise-e2e-${host}-`)));
      created.push(base);
    }
    return base;
  };
  const projectDir = cwd ?? join(await scratch(), 'project');
  const homeDir = home ?? join(await scratch(), 'home');
  await mkdir(projectDir, { recursive: true });
  await mkdir(homeDir, { recursive: true });
  return {
    cwd: await realpath(projectDir),
    home: await realpath(homeDir),
    cleanup: async () => {
      for (const dir of created) await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Merge `patch` into the JSON object stored at `path` (creating it), so callers can pre-seed settings. */
async function mergeJsonFile(path: string, patch: Record<string, unknown>): Promise<void> {
  let current: Record<string, unknown> = {};
  if (existsSync(path)) {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as unknown;
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
      current = parsed as Record<string, unknown>;
  }
  await mkdir(join(path, '..'), { recursive: true });
  await writeFile(path, `${JSON.stringify({ ...current, ...patch }, null, 2)}\n`);
}

function parseJsonLines(text: string): unknown[] {
  const out: unknown[] = [];
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (!trimmed.startsWith('{')) continue;
    try {
      out.push(JSON.parse(trimmed) as unknown);
    } catch {
      // Not every line of the clients' output is JSON (warnings, progress); skip those.
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Claude Code.

export interface HostRunOptions {
  /** Project directory the client runs in. Default: a fresh temp dir. */
  cwd?: string;
  /** Isolated HOME. Default: a fresh temp dir. Never pass the real home. */
  home?: string;
  /** The user prompt (the fake model ignores it; it shows up in UserPromptSubmit/BeforeAgent payloads). */
  prompt?: string;
  /** Extra environment for the client (and hence its hooks); applied last. */
  env?: Record<string, string>;
  /** Extra CLI arguments appended after the defaults. */
  extraArgs?: string[];
  /** Kill the client (whole process group) after this long. Default 60 s. */
  timeoutMs?: number;
}

export interface ClaudeRunOptions extends HostRunOptions {
  scenario: AnthropicScenario;
  /** Written as `hooks` into `<cwd>/.claude/settings.json` (project settings). */
  hookSettings?: ClaudeHooksConfig;
  /** Other project settings (e.g. `permissions`), merged into the same file. */
  settings?: Record<string, unknown>;
  /**
   * Default: the client's default mode, where a Write with no hook opinion is refused in `-p` — so a
   * file appearing proves the hook's explicit `allow` was honoured. `bypassPermissions` gets IS_SANDBOX=1
   * (required when running as root).
   */
  permissionMode?: 'default' | 'acceptEdits' | 'plan' | 'dontAsk' | 'bypassPermissions';
}

export interface HostRunResult extends ProcessResult {
  cwd: string;
  home: string;
  /** Parsed JSON lines of stdout (the clients run with `--output-format stream-json`). */
  events: unknown[];
  /** Removes the temp directories this run created. */
  cleanup: () => Promise<void>;
}

export interface ClaudeRunResult extends HostRunResult {
  requests: readonly RecordedRequest[];
  /** The tool_result blocks the client sent back to the model: proof of what it did with each call. */
  toolResults: ToolResultRecord[];
}

export async function runClaude(options: ClaudeRunOptions): Promise<ClaudeRunResult> {
  const bin = await ensureClaude();
  const dirs = await prepareDirs('claude', options.cwd, options.home);
  const server = await startFakeAnthropic(options.scenario);
  try {
    const projectSettings: Record<string, unknown> = { ...options.settings };
    if (options.hookSettings !== undefined) projectSettings.hooks = options.hookSettings;
    if (Object.keys(projectSettings).length > 0) {
      await mergeJsonFile(join(dirs.cwd, '.claude', 'settings.json'), projectSettings);
    }

    const env = claudeClientEnv(dirs.home, server.url);
    const args = ['-p', options.prompt ?? 'Do the task.', '--output-format', 'stream-json', '--verbose'];
    if (options.permissionMode !== undefined) {
      args.push('--permission-mode', options.permissionMode);
      if (options.permissionMode === 'bypassPermissions') env.IS_SANDBOX = '1';
    }
    args.push(...(options.extraArgs ?? []));

    const result = await spawnHost(bin, args, {
      cwd: dirs.cwd,
      env: { ...env, ...options.env },
      timeoutMs: options.timeoutMs ?? 60_000,
    });
    return {
      ...result,
      cwd: dirs.cwd,
      home: dirs.home,
      events: parseJsonLines(result.stdout),
      cleanup: dirs.cleanup,
      requests: server.requests,
      toolResults: server.toolResults(),
    };
  } finally {
    await server.close();
  }
}

// ---------------------------------------------------------------------------------------------------------
// Gemini CLI.

export interface GeminiRunOptions extends HostRunOptions {
  scenario: GeminiScenario;
  /** Written as `hooks` into the settings file chosen by `hookScope`. */
  hookSettings?: GeminiHooksConfig;
  /**
   * `user` (default): `~/.gemini/settings.json` (in the isolated HOME).
   * `project`: `<cwd>/.gemini/settings.json` — only honoured because the run marks the folder trusted via
   * GEMINI_CLI_TRUST_WORKSPACE=true; `--skip-trust` would run but ignore project settings.
   */
  hookScope?: 'user' | 'project';
  /** Other user settings merged into `~/.gemini/settings.json`. */
  settings?: Record<string, unknown>;
  /**
   * Headless, tools whose policy is `ask_user` are removed from the model's tool list. `auto_edit` offers
   * `write_file`/`replace`; `yolo` (default) additionally offers `run_shell_command`. A hook `deny` is
   * honoured in every mode; a hook `allow` can't widen what the mode offers.
   */
  approvalMode?: 'default' | 'auto_edit' | 'yolo' | 'plan';
}

export interface GeminiRunResult extends HostRunResult {
  requests: readonly RecordedGeminiRequest[];
  /** The functionResponse parts the client sent back to the model. */
  functionResponses: FunctionResponseRecord[];
}

export async function runGemini(options: GeminiRunOptions): Promise<GeminiRunResult> {
  const bin = await ensureGemini();
  const dirs = await prepareDirs('gemini', options.cwd, options.home);
  const server = await startFakeGemini(options.scenario);
  try {
    const userSettings: Record<string, unknown> = {
      // Without this the client picks the auth type from the environment ("gateway" when a base URL is set).
      security: { auth: { selectedType: 'gemini-api-key' } },
      // No update checks against the npm registry, no usage statistics to Google.
      general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      ...options.settings,
    };
    const hookScope = options.hookScope ?? 'user';
    if (options.hookSettings !== undefined && hookScope === 'user') userSettings.hooks = options.hookSettings;
    await mergeJsonFile(join(dirs.home, '.gemini', 'settings.json'), userSettings);
    if (options.hookSettings !== undefined && hookScope === 'project') {
      await mergeJsonFile(join(dirs.cwd, '.gemini', 'settings.json'), { hooks: options.hookSettings });
    }

    const systemDir = join(dirs.home, '.gemini-system');
    const env: Record<string, string> = {
      ...baseEnv(),
      HOME: dirs.home,
      GOOGLE_GEMINI_BASE_URL: server.url,
      GEMINI_API_KEY: 'fake',
      // 0.61 refuses to run headless in an untrusted folder (exit 55). Trusting via the environment (rather
      // than --skip-trust) also makes the client read project-level .gemini/settings.json, hooks included.
      GEMINI_CLI_TRUST_WORKSPACE: 'true',
      // Point system-wide settings (/etc/gemini-cli/…) at files that don't exist, so a machine's admin
      // settings can't change the run.
      GEMINI_CLI_SYSTEM_SETTINGS_PATH: join(systemDir, 'settings.json'),
      GEMINI_CLI_SYSTEM_DEFAULTS_PATH: join(systemDir, 'system-defaults.json'),
    };
    const args = [
      '-p',
      options.prompt ?? 'Do the task.',
      '--output-format',
      'stream-json',
      '--approval-mode',
      options.approvalMode ?? 'yolo',
      ...(options.extraArgs ?? []),
    ];

    const result = await spawnHost(bin, args, {
      cwd: dirs.cwd,
      env: { ...env, ...options.env },
      timeoutMs: options.timeoutMs ?? 60_000,
    });
    return {
      ...result,
      cwd: dirs.cwd,
      home: dirs.home,
      events: parseJsonLines(result.stdout),
      cleanup: dirs.cleanup,
      requests: server.requests,
      functionResponses: server.functionResponses(),
    };
  } finally {
    await server.close();
  }
}
