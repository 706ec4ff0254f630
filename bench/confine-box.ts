/**
 * A disposable confinement fixture: a project with canary files (git hooks and config, hookwise's policy,
 * a .env), a home directory of its own with fake secrets (so nothing ever reads the real ~/.ssh), a temp
 * dir, a private runtime dir, and a directory outside every writable root. Commands run confined in it the
 * way a host would run them: `/bin/sh -c <wrapped>` from the project, HOME pointing at the fake home.
 * Like the engine, a confined run takes the undo snapshot first where the project is a git work tree (the
 * canary `.git` is a minimal, empty repository). Shared by tests/confine and the escape corpus
 * (bench/confine-escapes.ts).
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  buildEnvelope,
  DEFAULT_CONFINE_SETTINGS,
  type ConfineSettings,
  type Envelope,
} from '../src/confine/envelope.js';
import { gitWorkTree } from '../src/confine/git-layout.js';
import { prepareSnapshot } from '../src/confine/snapshot.js';
import { wrapCommand, type ConfineRuntime, type ProxyRelay, type WrapResult } from '../src/confine/wrap.js';
import { DEFAULT_SENSITIVE_READ, DEFAULT_SENSITIVE_WRITE } from '../src/policy/defaults.js';
import { sanitize } from '../src/sanitize/index.js';

export interface RunResult {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export interface ConfineBox {
  base: string;
  project: string;
  home: string;
  tmp: string;
  runtimeDir: string;
  /** A directory outside every writable root, with `canary` in it. */
  outside: string;
  /** The secret every fake credential holds: finding it anywhere after a run is a leak. */
  token: string;
  envelope: Envelope;
  /** The runtime, its lock file moved into this box's runtime dir. */
  runtime: ConfineRuntime | undefined;
  env: NodeJS.ProcessEnv;
  wrap(command: string): WrapResult;
  /** Runs `command` confined (or, with `confined: false`, as the host would without hookwise). */
  run(command: string, options?: { confined?: boolean; timeoutMs?: number; input?: string }): Promise<RunResult>;
  /** With a network allowlist in the settings: the filtering proxy's socket (in `runtimeDir`, say) and socat. */
  setRelay(relay: ProxyRelay | undefined): void;
  /** Writes a file relative to the box's base. */
  put(relative: string, content: string, mode?: number): string;
  cleanup(): void;
}

/**
 * How long a confined run may take before it is killed: a backstop for a command that hangs, not a measure.
 * Generous, because a run on a loaded machine (bubblewrap's namespaces, the relay, the snapshot) is slow, and
 * a slow run must not read as a failed one.
 */
export const CONFINED_RUN_TIMEOUT_MS = 60_000;

/** A run in words for an assertion's message: how it ended, how long it took, what it said on stderr. */
export function describeRun(r: RunResult): string {
  const end = r.signal !== null ? `killed by ${r.signal}` : `exit ${r.status}`;
  return `${end} after ${Math.round(r.ms)} ms; stderr: ${r.stderr.trim().slice(0, 2000) || '(empty)'}`;
}

export interface BoxOptions {
  settings?: ConfineSettings;
  /** Lay out the canary files (default true). */
  canaries?: boolean;
  /** Take the undo snapshot before each confined run where the project is a git work tree, as the engine does (default true). */
  snapshot?: boolean;
}

export function makeBox(runtime: ConfineRuntime | undefined, options: BoxOptions = {}): ConfineBox {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'hookwise-confine-')));
  const project = join(base, 'project');
  const home = join(base, 'home');
  const tmp = join(base, 'tmp');
  const runtimeDir = join(base, 'runtime');
  const outside = join(base, 'outside');
  const token = `hookwise-canary-${Math.random().toString(36).slice(2)}`;
  for (const dir of [project, home, tmp, runtimeDir, outside]) mkdirSync(dir, { recursive: true, mode: 0o700 });
  const put = (relative: string, content: string, mode?: number): string => {
    const path = join(base, relative);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
    if (mode !== undefined) chmodSync(path, mode);
    return path;
  };
  if (options.canaries !== false) {
    put('project/.git/HEAD', 'ref: refs/heads/main\n');
    put('project/.git/config', '[core]\n\trepositoryformatversion = 0\n');
    put('project/.git/hooks/pre-commit.sample', '#!/bin/sh\nexit 0\n', 0o755);
    for (const dir of ['objects/info', 'objects/pack', 'refs/heads', 'refs/tags'])
      mkdirSync(join(project, '.git', dir), { recursive: true });
    put('project/tools/.mcp.json', '{"mcpServers":{}}\n');
    put('project/.hookwise/policy.yml', 'version: 1\n');
    put('project/src/app.ts', 'export const app = 1;\n');
    put('project/.env', `API_TOKEN=${token}\n`);
    put('project/.env.example', 'API_TOKEN=\n');
    put('project/packages/api/.env.local', `DB_PASSWORD=${token}\n`);
    put('home/.ssh/id_rsa', `-----BEGIN OPENSSH PRIVATE KEY-----\n${token}\n`, 0o600);
    put('home/.ssh/config', 'Host *\n');
    put('home/.aws/credentials', `[default]\naws_secret_access_key = ${token}\n`);
    put('home/.config/gcloud/credentials.db', token);
    put('home/.netrc', `machine example.com login me password ${token}\n`);
    put('home/.docker/config.json', `{"auths":{"x":{"auth":"${token}"}}}\n`);
    put('home/.local/share/keyrings/login.keyring', token);
    put('home/.bashrc', '# rc\n');
    put('runtime/audit.log', `{"secret":"${token}"}\n`);
    put('outside/canary', 'canary\n');
  }
  const envelope = buildEnvelope({
    projectRoot: project,
    tempDir: tmp,
    home,
    runtimeDir,
    settings: options.settings ?? DEFAULT_CONFINE_SETTINGS,
  });
  const boxRuntime = runtime === undefined ? undefined : { ...runtime, lockFile: join(runtimeDir, 'confine.lock') };
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    TMPDIR: tmp,
    LANG: 'C.UTF-8',
  };
  let relay: ProxyRelay | undefined;
  const wrap = (command: string): WrapResult => {
    if (boxRuntime === undefined) return { ok: false, reason: 'no confinement runtime on this machine' };
    const tree = options.snapshot === false ? undefined : gitWorkTree(project);
    if (tree === undefined)
      return wrapCommand(envelope, command, boxRuntime, undefined, relay === undefined ? {} : { relay });
    const before = prepareSnapshot({
      tree,
      sanitizedCommand: sanitize(command).text,
      sensitive: { write: DEFAULT_SENSITIVE_WRITE, read: DEFAULT_SENSITIVE_READ },
      runtimeDir,
      version: 'bench',
    });
    return wrapCommand(envelope, command, boxRuntime, undefined, { before, ...(relay === undefined ? {} : { relay }) });
  };
  return {
    base,
    project,
    home,
    tmp,
    runtimeDir,
    outside,
    token,
    envelope,
    runtime: boxRuntime,
    env,
    wrap,
    setRelay(r) {
      relay = r;
    },
    put,
    run(command, runOptions = {}) {
      let line = command;
      if (runOptions.confined !== false) {
        const wrapped = wrap(command);
        if (!wrapped.ok) throw new Error(`cannot confine: ${wrapped.reason}`);
        line = wrapped.command;
      }
      return runShell(line, {
        cwd: project,
        env,
        timeoutMs: runOptions.timeoutMs ?? CONFINED_RUN_TIMEOUT_MS,
        ...(runOptions.input === undefined ? {} : { input: runOptions.input }),
      });
    },
    cleanup() {
      rmSync(base, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
    },
  };
}

/** `bash -c <line>`, as Claude Code's Bash tool runs a command; async, so the caller's listeners can answer. */
export function runShell(
  line: string,
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number; input?: string },
): Promise<RunResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn('/bin/bash', ['-c', line], {
      cwd: options.cwd,
      env: options.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      resolve({ status, signal, stdout, stderr, ms: performance.now() - started });
    });
    child.stdin.on('error', () => undefined); // a command that does not read its stdin closes it early
    child.stdin.end(options.input ?? '');
  });
}
