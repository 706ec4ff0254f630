/**
 * The daemon wiring with the REAL Claude Code: PreToolUse, PostToolUseFailure (Bash), Stop and SessionEnd as
 * `http` hooks to the user's hookwise daemon on 127.0.0.1 — no PostToolUse: the daemon settles what a call left
 * pending at the session's next call, Stop and SessionEnd (engine/settle.ts) — and the session events as
 * command hooks that make sure the daemon is up.
 *
 * - The client obeys the daemon's answers, and the role fallback reaches it through the header
 *   `X-Hookwise-Role: $HOOKWISE_ROLE` (interpolated by the client because of `allowedEnvVars`).
 * - With the daemon down, `onFailure: "block"` blocks the call (fail closed) instead of failing open.
 * - Step time: the cost per tool call of each way of wiring hookwise, against no hooks, in one run
 *   (a logged table; HOOKWISE_E2E_STEP_TARGET=1 also asserts http ≤ 1.1× no hooks). A floor reference
 *   row sends the same http hook to a trivial server in the test process that answers "allow" at once:
 *   what is left is the client's own http-hook cost, not hookwise's. The table also logs how many TCP
 *   connections each http run opened to its server (does the client reuse one across the calls?).
 * - `async: true` on an http PostToolUse handler (rows 3c, 5b–5d): Claude Code 2.1.330 still calls the hook
 *   (the daemon serves 2 calls per tool call, as without it), but the step waits for it all the same: a
 *   PostToolUse http hook answered after 250 ms costs the step those 250 ms with or without `async`, while an
 *   async *command* hook as slow costs nothing in wait, but its spawn on every call still shows (row 3e, what
 *   install wrote before this wiring); row 3d is what install wrote before that. Install now writes none
 *   (row 3b).
 * - Without PostToolUse, what it did still happens: an approval at the client's prompt (stream-json) is
 *   learned from the transcript — also when the client exits at once — and the next session is allowed from
 *   memory (exact-cache); a Write's new file is recorded (provenance); the circuit breaker counts failures
 *   (PostToolUseFailure) and a success ends their run.
 *
 * Every daemon here is started with the sandbox's HOME / HOOKWISE_RUNTIME_DIR / HOOKWISE_CONFIG_DIR and
 * stopped in afterAll. Skip with HOOKWISE_SKIP_E2E=1.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAudit } from '../../src/audit/log.js';
import { removeTestTree } from '../support/remove-tree.js';
import { learnCommand } from '../../src/cli/install.js';
import { readModuleState } from '../../src/modules/state-file.js';
import { readProvenance } from '../../src/session/provenance.js';
import { locations } from '../../src/util/locations.js';
import { toolUseId } from './support/fake-anthropic.js';
import { CLAUDE_CODE, ensureClaude } from './support/install-hosts.js';
import { stepTimeFile, type StepTimeRecord } from '../../bench/quality.js';
import { COMMAND, LEARNED_ALLOW, OUTPUT, STAMP } from './support/learning.js';
import type { UserRecord } from './support/learning.js';
import { runClaude } from './support/run-host.js';
import type { ClaudeHooksConfig, ClaudeHttpHook, ClaudeRunResult } from './support/run-host.js';
import { median, stepTimesMs } from './support/step-time.js';
import { startClaudeStreamJson } from './support/stream-json.js';
import type { ClaudeStreamSession } from './support/stream-json.js';

const SKIP = process.env.HOOKWISE_SKIP_E2E === '1';
/** The row whose hooks are what `hookwise install --claude` writes: the README's step ratio. */
const INSTALLED_WIRING = '(3b)';
const STEP_TARGET = process.env.HOOKWISE_E2E_STEP_TARGET === '1';
const ROOT = join(import.meta.dirname, '..', '..');
const NODE = process.execPath;
const INSTALL_TIMEOUT_MS = 10 * 60_000;
const RUN_TIMEOUT_MS = 90_000;
const CONTENT = 'written by the agent\n';
/** Step-time runs: tool calls per run, and rounds over all wirings (interleaved, order rotated per round). */
const STEP_CALLS = 20;
const STEP_ROUNDS = Number(process.env.HOOKWISE_E2E_STEP_ROUNDS ?? 3);
/** The learned approval: looked for every 100 ms, this many times (the daemon settles after the client exits). */
const LEARN_POLLS = 300;
/** One wait for the stream-json client (a prompt, a turn's result). */
const LEARN_WAIT_MS = 60_000;
/** A CA bundle for the "with NODE_EXTRA_CA_CERTS" variants (the test's own setting, else the system's). */
const CA_BUNDLE = [process.env.NODE_EXTRA_CA_CERTS, '/etc/ssl/certs/ca-certificates.crt'].find(
  (f) => f !== undefined && f !== '' && existsSync(f),
);

const q = (s: string): string => JSON.stringify(s);
const hookwiseCommand = (args: string): string => `${q(NODE)} ${q(BIN)} ${args}`;

// ---------------------------------------------------------------------------------------------------------
// The sandbox: one HOME, runtime and config directory for the daemon and every client run.

let base = '';
let home = '';
let hookwiseEnv = { HOOKWISE_RUNTIME_DIR: '', HOOKWISE_CONFIG_DIR: '' };
/** This checkout's build and plugin wrapper, as copied into the sandbox (see snapshotBuild). */
let BIN = '';
let PLUGIN_HOOK = '';

function makeSandbox(): void {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'hookwise-e2e-daemon-')));
  home = join(base, 'home');
  hookwiseEnv = { HOOKWISE_RUNTIME_DIR: join(base, 'runtime'), HOOKWISE_CONFIG_DIR: join(base, 'config') };
  // Confinement off: these tests drive the cascade's own asks (on by default: tests/engine/confine.test.ts).
  mkdirSync(hookwiseEnv.HOOKWISE_CONFIG_DIR, { recursive: true });
  writeFileSync(join(hookwiseEnv.HOOKWISE_CONFIG_DIR, 'config.yml'), 'confine:\n  enabled: false\n');
  mkdirSync(home);
  snapshotBuild();
}

/**
 * Hook commands start dist/hookwise.cjs afresh on every tool call, for minutes: a concurrent `npm run build`
 * would make some of them fail. So everything here runs a private copy of dist/ (and of the plugin wrapper)
 * in a package directory of its own, whose node_modules links to this checkout's; taken when it works.
 */
function snapshotBuild(): void {
  const pkg = join(base, 'hookwise');
  BIN = join(pkg, 'dist', 'hookwise.cjs');
  PLUGIN_HOOK = join(pkg, 'plugin', 'bin', 'hookwise-hook');
  let problem = '';
  for (let attempt = 0; attempt < 20; attempt++) {
    rmSync(pkg, { recursive: true, force: true });
    mkdirSync(join(pkg, 'plugin', 'bin'), { recursive: true });
    cpSync(join(ROOT, 'dist'), join(pkg, 'dist'), { recursive: true });
    copyFileSync(join(ROOT, 'package.json'), join(pkg, 'package.json'));
    copyFileSync(join(ROOT, 'plugin', 'bin', 'hookwise-hook'), PLUGIN_HOOK);
    chmodSync(BIN, 0o755);
    symlinkSync(join(ROOT, 'node_modules'), join(pkg, 'node_modules'));
    const payload = JSON.stringify({
      session_id: 'snapshot-check',
      cwd: base,
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'git status' },
    });
    const r = spawnSync(NODE, [BIN, 'check', '--host', 'claude'], {
      input: payload,
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: home,
        ...hookwiseEnv,
        HOOKWISE_DAEMON: 'off',
        HOOKWISE_ROLE: 'coder',
      },
      timeout: 30_000,
    });
    if (r.status === 0 && r.stdout.includes('"permissionDecision":"allow"')) return;
    problem = `exit ${r.status}: ${r.stdout}${r.stderr}`;
    // Most likely a build in progress: try again shortly.
    spawnSync('sleep', ['3']);
  }
  throw new Error(`dist/ does not work (run npm run build): ${problem}`);
}

/** A git-initialised project with src/ and tests/. */
function project(name: string): string {
  const dir = join(base, name);
  mkdirSync(join(dir, 'src'), { recursive: true });
  mkdirSync(join(dir, 'tests'));
  const git = spawnSync('git', ['init', '-q', '-b', 'main'], { cwd: dir, encoding: 'utf8' });
  if (git.status !== 0) throw new Error(`git init: ${git.stderr}`);
  return dir;
}

/**
 * The hookwise CLI with the sandbox's locations and nothing else of the test's environment (no
 * HOOKWISE_ROLE: a role must come from the client's header, not from the daemon's own environment).
 */
function hookwise(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, ...hookwiseEnv };
  const r = spawnSync(NODE, [BIN, ...args], { cwd: base, env, encoding: 'utf8', timeout: 30_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

interface Status {
  running: boolean;
  pid: number | null;
  http: { host: string; port: number } | null;
  decisions?: number;
  p50_ms?: number | null;
  p99_ms?: number | null;
}

function daemonStatus(): Status {
  const r = hookwise(['daemon', 'status', '--json']);
  return JSON.parse(r.stdout) as Status;
}

/** Every daemon pid seen, killed in afterAll if `daemon stop` left one behind. */
const daemonPids = new Set<number>();

function startDaemon(): { port: number; token: string } {
  const r = hookwise(['daemon', 'start', '--http', '--json']);
  const started = JSON.parse(r.stdout || '{}') as Status;
  expect(started, `daemon start: exit ${r.status}\n${r.stdout}\n${r.stderr}`).toMatchObject({
    running: true,
    http: { host: '127.0.0.1' },
  });
  daemonPids.add(started.pid!);
  const config = JSON.parse(readFileSync(join(hookwiseEnv.HOOKWISE_CONFIG_DIR, 'daemon', 'http.json'), 'utf8')) as {
    port: number;
    token: string;
  };
  expect(config.port).toBe(started.http!.port);
  return config;
}

function stopDaemon(): void {
  const before = daemonStatus();
  if (before.pid !== null) daemonPids.add(before.pid);
  const r = hookwise(['daemon', 'stop']);
  expect(r.status, r.stdout + r.stderr).toBe(0);
  expect(daemonStatus().running).toBe(false);
}

/** Still running, and still our daemon (its command line names this sandbox's build): never a reused pid. */
function ourDaemonAlive(pid: number): boolean {
  let cmdline: string;
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    cmdline = spawnSync('ps', ['-o', 'command=', '-p', String(pid)], { encoding: 'utf8' }).stdout ?? '';
  }
  return cmdline.includes(BIN) && cmdline.includes('serve');
}

function decisions(): number {
  return daemonStatus().decisions ?? 0;
}

/** Audit records of one client session: what hookwise decided for it. */
function auditOf(sessionId: string): { role: string | null; verdict: string; tier: string; tool: string }[] {
  return readAudit(hookwiseEnv.HOOKWISE_RUNTIME_DIR)
    .records.filter((r) => r.session === sessionId)
    .map((r) => ({ role: r.role, verdict: r.verdict, tier: r.tier, tool: r.tool }));
}

// ---------------------------------------------------------------------------------------------------------
// The wiring we recommend: exactly what `hookwise install --claude` writes (taken from its dry run).

function httpHook(port: number, token: string, gate: boolean): ClaudeHttpHook {
  return {
    type: 'http',
    url: `http://127.0.0.1:${port}/v1/hook/claude`,
    headers: { Authorization: `Bearer ${token}`, 'X-Hookwise-Role': '$HOOKWISE_ROLE' },
    allowedEnvVars: ['HOOKWISE_ROLE'],
    // The gate waits up to 10 minutes (a call may wait in the human queue); the other events 30 s.
    timeout: gate ? 600 : 30,
    ...(gate ? { onFailure: 'block' as const } : {}),
  };
}

/** `hookwise install --claude --scope user --dry-run`'s hooks, running this sandbox's build; without the session events if asked. */
function recommendedWiring(port: number, token: string, sessionHooks: boolean): ClaudeHooksConfig {
  const r = hookwise(['install', '--claude', '--scope', 'user', '--dry-run', '--command', hookwiseCommand('').trim()]);
  expect(r.status, r.stderr).toBe(0);
  const hooks = (JSON.parse(r.stdout) as { hooks: ClaudeHooksConfig }).hooks;
  // What install writes is what this test means by "recommended": the tool events over http to this daemon.
  expect(hooks.PreToolUse).toEqual([{ matcher: '*', hooks: [httpHook(port, token, true)] }]);
  // No PostToolUse: the daemon settles at the next call, Stop and SessionEnd (engine/settle.ts).
  expect(hooks.PostToolUse).toBeUndefined();
  expect(hooks.PostToolUseFailure).toEqual([{ matcher: 'Bash', hooks: [httpHook(port, token, false)] }]);
  expect(hooks.Stop).toEqual([{ hooks: [httpHook(port, token, false)] }]);
  expect(hooks.SessionEnd).toEqual([{ hooks: [{ ...httpHook(port, token, false), timeout: 5 }] }]);
  expect(JSON.stringify(hooks.SessionStart)).toContain('session-check --host claude --ensure-daemon');
  if (!sessionHooks) {
    delete hooks.SessionStart;
    delete hooks.UserPromptSubmit;
  }
  return hooks;
}

/** The tool-call hooks install wrote before: PreToolUse, PostToolUse and PostToolUseFailure all over http. */
function httpPostWiring(port: number, token: string): ClaudeHooksConfig {
  return {
    PreToolUse: [{ matcher: '*', hooks: [httpHook(port, token, true)] }],
    PostToolUse: [{ matcher: '*', hooks: [httpHook(port, token, false)] }],
    PostToolUseFailure: [{ matcher: 'Bash', hooks: [httpHook(port, token, false)] }],
  };
}

/** The same hooks with `async: true` on the PostToolUse (learning) http handlers: is it honoured for http? */
function withAsyncPostToolUse(hooks: ClaudeHooksConfig): ClaudeHooksConfig {
  const post = hooks.PostToolUse;
  expect(post, 'the wiring has a PostToolUse entry').toBeDefined();
  return {
    ...hooks,
    PostToolUse: post!.map((g) => ({
      ...g,
      hooks: g.hooks.map((h) => (h.type === 'http' ? { ...h, async: true } : h)),
    })),
  };
}

/** How many http handlers these hooks have, over all events: POSTs per tool call. */
function httpHandlers(hooks: ClaudeHooksConfig): number {
  return Object.values(hooks).reduce(
    (n, groups) => n + (groups ?? []).reduce((m, g) => m + g.hooks.filter((h) => h.type === 'http').length, 0),
    0,
  );
}

/** Whether any http handler of these hooks is `async`. */
function hasAsyncHttp(hooks: ClaudeHooksConfig): boolean {
  return Object.values(hooks).some((groups) =>
    groups?.some((g) => g.hooks.some((h) => h.type === 'http' && h.async === true)),
  );
}

/** A counter once it reaches `expected` (an async hook's POST may land after the client's last request), or as it is after `timeoutMs`. */
async function counterReaching(read: () => number, expected: number, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const now = read();
    if (now >= expected || Date.now() > deadline) return now;
    await sleep(200);
  }
}

// ---------------------------------------------------------------------------------------------------------
// The floor reference for the http wiring: a server that does nothing but answer "allow".

/** What the trivial server answers to every POST, at once. */
const FIXED_ALLOW = JSON.stringify({
  hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', permissionDecisionReason: 'fixed' },
});
/**
 * The trivial server's slow path (a PostToolUse handler's URL): it answers `{}` only after SLOW_POST_MS. A
 * step that waits for the hook grows by that much; one that does not (an honoured `async`) stays as it was.
 */
const SLOW_PATH = '/slow';
const SLOW_POST_MS = 250;

interface TrivialServer {
  server: Server;
  port: number;
  token: string;
  /** Since start: TCP connections accepted, POSTs answered, and POSTs without the expected Authorization. */
  connections: number;
  posts: number;
  unauthorized: number;
}

/**
 * A minimal node:http server on 127.0.0.1 (random port) in the test process. Only its keep-alive timeout
 * is the daemon's (30 s), so that both keep an idle client connection for as long.
 */
async function startTrivialServer(): Promise<TrivialServer> {
  const token = randomUUID();
  const trivial: TrivialServer = {
    server: createServer({ keepAliveTimeout: 30_000 }),
    port: 0,
    token,
    connections: 0,
    posts: 0,
    unauthorized: 0,
  };
  trivial.server.on('connection', () => void trivial.connections++);
  trivial.server.on('request', (req, res) => {
    req.resume();
    if (req.method !== 'POST') {
      res.writeHead(405).end();
      return;
    }
    trivial.posts++;
    if (req.headers.authorization !== `Bearer ${token}`) trivial.unauthorized++;
    if (req.url === SLOW_PATH) {
      setTimeout(() => {
        if (!res.destroyed) res.writeHead(200, { 'content-type': 'application/json', 'content-length': 2 }).end('{}');
      }, SLOW_POST_MS);
      return;
    }
    res
      .writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(FIXED_ALLOW) })
      .end(FIXED_ALLOW);
  });
  await new Promise<void>((resolve, reject) => {
    trivial.server.once('error', reject);
    trivial.server.listen(0, '127.0.0.1', () => resolve());
  });
  trivial.port = (trivial.server.address() as AddressInfo).port;
  return trivial;
}

/**
 * The TCP connections between 127.0.0.1 and 127.0.0.1:port listed by the kernel now (any state but
 * LISTEN; a closed one stays listed in TIME_WAIT for 60 s), each named by its other end's port. The
 * difference of two snapshots around a client run counts the connections that run opened to a server
 * that cannot count them itself (the daemon) without touching it. Undefined without /proc/net/tcp.
 */
function tcpPeersOf(port: number): Set<number> | undefined {
  let table: string;
  try {
    table = readFileSync('/proc/net/tcp', 'utf8');
  } catch {
    return undefined;
  }
  // Rows are "sl local rem st ...", addresses as hex "0100007F:PORT" (127.0.0.1); st 0A is LISTEN.
  const loopbackPort = (field: string | undefined): number | undefined =>
    field?.startsWith('0100007F:') ? parseInt(field.slice(9), 16) : undefined;
  const peers = new Set<number>();
  for (const line of table.split('\n').slice(1)) {
    const [, local, remote, state] = line.trim().split(/\s+/);
    const localPort = loopbackPort(local);
    const remotePort = loopbackPort(remote);
    if (localPort === undefined || remotePort === undefined || state === '0A') continue;
    if (localPort === port) peers.add(remotePort);
    else if (remotePort === port) peers.add(localPort);
  }
  return peers;
}

function describeRun(result: ClaudeRunResult): string {
  return [
    `exit=${result.exitCode} signal=${result.signal} timedOut=${result.timedOut} ${result.durationMs} ms`,
    `requests: ${result.requests.map((r) => `${r.url} -> ${r.answeredWith}`).join(' | ')}`,
    `toolResults: ${JSON.stringify(result.toolResults, null, 1)}`,
    `stderr: ${result.stderr.slice(-1500)}`,
    `stdout: ${result.stdout.slice(-1500)}`,
  ].join('\n');
}

afterAll(() => {
  if (base === '') return;
  if (existsSync(BIN)) {
    const status = (() => {
      try {
        return daemonStatus();
      } catch {
        return undefined;
      }
    })();
    if (status?.pid != null) daemonPids.add(status.pid);
    hookwise(['daemon', 'stop']);
  }
  for (const pid of daemonPids) if (ourDaemonAlive(pid)) process.kill(pid, 'SIGKILL');
  // A daemon's late settle after SessionEnd may still be reading the tree.
  removeTestTree(base);
});

describe.skipIf(SKIP)('the daemon wiring with the real Claude Code', () => {
  let http: { port: number; token: string };
  /** The step-time test's floor reference, started by that test. */
  let trivial: TrivialServer | undefined;
  /** The learning test's stream-json clients: closed (killed if need be) even when the test failed. */
  const sessions: ClaudeStreamSession[] = [];

  afterAll(async () => {
    await Promise.all(sessions.map((s) => s.close(5_000)));
    if (trivial === undefined) return;
    const { server } = trivial;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  beforeAll(async () => {
    await ensureClaude();
    makeSandbox();
    http = startDaemon();
  }, INSTALL_TIMEOUT_MS);

  it(
    'http hooks to the daemon: a tests/ Write is denied with the rule, a src/ Write lands, a force push to main is denied; the role comes from the header',
    async () => {
      const cwd = project('wiring');
      const sessionId = randomUUID();
      const denied = join(cwd, 'tests/app.test.ts');
      const allowed = join(cwd, 'src/app.ts');
      const before = decisions();
      const result = await runClaude({
        cwd,
        home,
        env: { ...hookwiseEnv, HOOKWISE_ROLE: 'coder' },
        extraArgs: ['--session-id', sessionId],
        prompt: 'Write the files and push.',
        scenario: {
          toolCalls: [
            { name: 'Write', input: { file_path: denied, content: CONTENT } },
            { name: 'Write', input: { file_path: allowed, content: CONTENT } },
            { name: 'Bash', input: { command: 'git push --force origin main', description: 'Force-push main' } },
          ],
        },
        hookSettings: recommendedWiring(http.port, http.token, true),
        timeoutMs: RUN_TIMEOUT_MS - 10_000,
      });
      const why = describeRun(result);
      expect(result.exitCode, why).toBe(0);
      expect(existsSync(denied), why).toBe(false);
      expect(readFileSync(allowed, 'utf8')).toBe(CONTENT);
      const [deniedWrite, allowedWrite, push] = result.toolResults;
      expect(result.toolResults, why).toHaveLength(3);
      expect(deniedWrite).toMatchObject({ isError: true });
      expect(deniedWrite!.text).toContain(
        'hookwise deny [tier path-policy, rule role:coder:deny_write:tests/** from built-in]',
      );
      expect(allowedWrite).toMatchObject({ isError: false });
      expect(push).toMatchObject({ isError: true });
      expect(push!.text).toContain('hookwise deny [tier rules, rule pack:git:force-push-protected from built-in]');
      // The session never registered: role "coder" can only have come from the interpolated header.
      expect(auditOf(sessionId)).toEqual([
        { role: 'coder', verdict: 'deny', tier: 'path-policy', tool: 'Write' },
        { role: 'coder', verdict: 'allow', tier: 'path-policy', tool: 'Write' },
        { role: 'coder', verdict: 'deny', tier: 'rules', tool: 'Bash' },
      ]);
      // Served by the daemon: SessionStart + UserPromptSubmit (session-check through the socket), 3 PreToolUse,
      // Stop and SessionEnd — no PostToolUse.
      let served = decisions() - before;
      for (let waited = 0; served < 7 && waited < 20_000; waited += 100) {
        await sleep(100);
        served = decisions() - before;
      }
      console.log(`[daemon-wiring e2e] daemon answered ${served} hook calls in this run (${result.durationMs} ms)`);
      expect(served, why).toBe(7);
      // The allowed Write created src/app.ts: its provenance note was settled from the file system at the next
      // call (session/provenance.ts), so the session may delete the file it made without a human.
      const provenance = readProvenance(locations({ HOME: home, ...hookwiseEnv }), sessionId);
      expect(provenance.kind === 'valid' ? provenance.created.size : provenance, why).toBe(1);
    },
    RUN_TIMEOUT_MS,
  );

  it(
    'step time per tool call: no hooks vs command hook (in process / thin client), http hook, plugin wrapper, http hook to a trivial server',
    async () => {
      trivial = await startTrivialServer();
      // The plugin wrapper runs $HOOKWISE_BIN; dist/hookwise.cjs is `#!/usr/bin/env node`, so go through a
      // wrapper naming this node unless PATH's node is this very one.
      const pathNode = spawnSync('sh', ['-c', 'command -v node'], { encoding: 'utf8' }).stdout.trim();
      let hookwiseBin = BIN;
      if (pathNode === '' || realpathSync(pathNode) !== realpathSync(NODE)) {
        hookwiseBin = join(base, 'hookwise-bin');
        writeFileSync(hookwiseBin, `#!/bin/sh\nexec ${q(NODE)} ${q(BIN)} "$@"\n`);
        chmodSync(hookwiseBin, 0o755);
      }
      const command = (c: string): ClaudeHooksConfig => ({
        PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: c, timeout: 600 }] }],
      });
      interface Wiring {
        label: string;
        hooks: ClaudeHooksConfig;
        env: Record<string, string>;
        /**
         * Where the decisions are made: by the daemon, in the hook process, nowhere, or by the trivial server
         * (a fixed "allow": hookwise decides nothing either).
         */
        decider: 'daemon' | 'process' | 'none' | 'trivial';
        /** NODE_EXTRA_CA_CERTS of the hook processes: set, unset, or no hook process at all. */
        ca: 'set' | 'unset' | '-';
        /** For http hooks: the port of their server, whose TCP connections per run are counted. */
        httpPort?: number;
      }
      const wirings: Wiring[] = [];
      // Only the hook processes' NODE_EXTRA_CA_CERTS differs (a prefix of the hook command); the client's
      // own environment is the same for every wiring.
      const withCommand = (
        label: string,
        run: string,
        env: Record<string, string>,
        decider: Wiring['decider'],
      ): void => {
        wirings.push({ label, hooks: command(`NODE_EXTRA_CA_CERTS= ${run}`), env, decider, ca: 'unset' });
        if (CA_BUNDLE !== undefined)
          wirings.push({
            label,
            hooks: command(`NODE_EXTRA_CA_CERTS=${q(CA_BUNDLE)} ${run}`),
            env,
            decider,
            ca: 'set',
          });
      };
      wirings.push({ label: '(0) no hooks', hooks: {}, env: {}, decider: 'none', ca: '-' });
      withCommand(
        '(1) command, HOOKWISE_DAEMON=off',
        hookwiseCommand('check --host claude'),
        { HOOKWISE_DAEMON: 'off' },
        'process',
      );
      withCommand('(2) command, thin client', hookwiseCommand('check --host claude'), {}, 'daemon');
      wirings.push({
        label: '(3) http',
        hooks: { PreToolUse: [{ matcher: '*', hooks: [httpHook(http.port, http.token, true)] }] },
        env: {},
        decider: 'daemon',
        ca: '-',
        httpPort: http.port,
      });
      // What install writes: http Pre, no PostToolUse; http PostToolUseFailure (unused here: no call fails), and
      // http Stop and SessionEnd, once per run each.
      wirings.push({
        label: '(3b) install: http Pre, Stop, End',
        hooks: recommendedWiring(http.port, http.token, false),
        env: {},
        decider: 'daemon',
        ca: '-',
        httpPort: http.port,
      });
      // (3d) with `async: true` on the PostToolUse http handler: still called (the counter), no longer waited for (the step)?
      wirings.push({
        label: '(3c) http Pre + async http Post',
        hooks: withAsyncPostToolUse(httpPostWiring(http.port, http.token)),
        env: {},
        decider: 'daemon',
        ca: '-',
        httpPort: http.port,
      });
      // What install wrote until this wiring: (3) plus a background command PostToolUse (a pending-note test in sh).
      wirings.push({
        label: '(3e) http Pre + async cmd Post',
        hooks: {
          PreToolUse: [{ matcher: '*', hooks: [httpHook(http.port, http.token, true)] }],
          PostToolUse: [
            {
              matcher: '*',
              hooks: [
                {
                  type: 'command',
                  command: learnCommand(hookwiseCommand('').trim(), 'claude').replace(
                    /exec (.*)$/,
                    'command -v setsid >/dev/null 2>&1 && exec setsid -f $1 >/dev/null 2>&1; exec $1',
                  ),
                  timeout: 30,
                  async: true,
                },
              ],
            },
          ],
        },
        env: {},
        decider: 'daemon',
        ca: '-',
        httpPort: http.port,
      });
      // What install wrote before that: PostToolUse over http too, waited for on every tool call.
      wirings.push({
        label: '(3d) http Pre + http Post (before)',
        hooks: httpPostWiring(http.port, http.token),
        env: {},
        decider: 'daemon',
        ca: '-',
        httpPort: http.port,
      });
      withCommand(
        '(4) plugin sh wrapper, daemon',
        `sh ${q(PLUGIN_HOOK)} check --host claude`,
        { HOOKWISE_BIN: hookwiseBin },
        'daemon',
      );
      // The floor: (3)'s very hook (same fields, its own token) to a server that answers "allow" at once.
      const floorHook = httpHook(trivial.port, trivial.token, true);
      wirings.push({
        label: '(5) http, trivial server',
        hooks: { PreToolUse: [{ matcher: '*', hooks: [floorHook] }] },
        env: {},
        decider: 'trivial',
        ca: '-',
        httpPort: trivial.port,
      });
      // Does the step wait for an (async) http PostToolUse? (5) plus a PostToolUse hook answered after SLOW_POST_MS.
      const slowPost: ClaudeHttpHook = {
        ...httpHook(trivial.port, trivial.token, false),
        url: `http://127.0.0.1:${trivial.port}${SLOW_PATH}`,
      };
      const slowPostHooks = (async: boolean): ClaudeHooksConfig => ({
        PreToolUse: [{ matcher: '*', hooks: [floorHook] }],
        PostToolUse: [{ matcher: '*', hooks: [async ? { ...slowPost, async: true } : slowPost] }],
      });
      wirings.push({
        label: '(5b) trivial + slow PostToolUse',
        hooks: slowPostHooks(false),
        env: {},
        decider: 'trivial',
        ca: '-',
        httpPort: trivial.port,
      });
      wirings.push({
        label: '(5c) trivial + slow async PostTU',
        hooks: slowPostHooks(true),
        env: {},
        decider: 'trivial',
        ca: '-',
        httpPort: trivial.port,
      });
      // The control: an async *command* PostToolUse as slow as (5b)'s. If the step stays at (5), this measurement does see an honoured `async`.
      const slowAsyncCommand: ClaudeHooksConfig = {
        PreToolUse: [{ matcher: '*', hooks: [floorHook] }],
        PostToolUse: [
          {
            matcher: '*',
            hooks: [
              { type: 'command', command: `cat >/dev/null; sleep ${SLOW_POST_MS / 1000}`, timeout: 30, async: true },
            ],
          },
        ],
      };
      wirings.push({
        label: '(5d) trivial + slow async command',
        hooks: slowAsyncCommand,
        env: {},
        decider: 'trivial',
        ca: '-',
        httpPort: trivial.port,
      });

      // HOOKWISE_E2E_STEP_WIRINGS=0,3,3b,5 measures only the wirings so labelled (a shorter run; (0) always).
      const only = process.env.HOOKWISE_E2E_STEP_WIRINGS?.split(',').map((w) => `(${w.trim()})`);
      if (only !== undefined)
        wirings.splice(
          0,
          wirings.length,
          ...wirings.filter((w) => w.label.startsWith('(0)') || only.some((o) => w.label.startsWith(`${o} `))),
        );
      const projects = wirings.map((_, i) => project(`step-${i}`));
      const steps: number[][][] = wirings.map(() => []);
      /** Per wiring and round: TCP connections to its http server, seen in /proc/net/tcp and (trivial server) accepted. */
      const tcpSeen: (number | undefined)[][] = wirings.map(() => []);
      const tcpAccepted: number[][] = wirings.map(() => []);
      /** Per wiring and round: hook calls the daemon served for the run (PreToolUse, and PostToolUse if wired). */
      const servedByDaemon: number[][] = wirings.map(() => []);
      const postsToTrivial: number[][] = wirings.map(() => []);
      const started = Date.now();
      for (let round = 0; round < STEP_ROUNDS; round++) {
        for (let k = 0; k < wirings.length; k++) {
          const i = (k + round) % wirings.length;
          const w = wirings[i]!;
          const sessionId = randomUUID();
          const before = decisions();
          const trivialBefore = {
            connections: trivial.connections,
            posts: trivial.posts,
            unauthorized: trivial.unauthorized,
          };
          const peersBefore = w.httpPort === undefined ? undefined : tcpPeersOf(w.httpPort);
          const result = await runClaude({
            cwd: projects[i]!,
            home,
            env: { ...hookwiseEnv, HOOKWISE_ROLE: 'coder', ...w.env },
            extraArgs: ['--session-id', sessionId],
            prompt: 'Check the status.',
            scenario: {
              toolCalls: Array.from({ length: STEP_CALLS }, () => ({
                name: 'Bash',
                input: { command: 'git status', description: 'Show status' },
              })),
            },
            // (No hooks: the client's own rules let a read-only `git status` run.)
            hookSettings: w.hooks,
            timeoutMs: RUN_TIMEOUT_MS - 10_000,
          });
          const peersAfter = w.httpPort === undefined ? undefined : tcpPeersOf(w.httpPort);
          tcpSeen[i]!.push(
            peersBefore === undefined || peersAfter === undefined
              ? undefined
              : [...peersAfter].filter((p) => !peersBefore.has(p)).length,
          );
          tcpAccepted[i]!.push(trivial.connections - trivialBefore.connections);
          const why = `${w.label} (NODE_EXTRA_CA_CERTS ${w.ca})\n${describeRun(result)}`;
          // Functional facts only: every call was allowed and ran, decided where this wiring decides.
          expect(result.exitCode, why).toBe(0);
          expect(result.toolResults, why).toHaveLength(STEP_CALLS);
          for (const r of result.toolResults) {
            expect(r.isError, why).toBe(false);
            expect(r.text, why).toMatch(/On branch main/);
          }
          const audit = auditOf(sessionId);
          // A command PostToolUse with no pending note ends in sh: only an http one reaches the daemon. Stop and
          // SessionEnd reach it once per run.
          const overHttp = (event: string): boolean =>
            (w.hooks[event] ?? []).some((g) => g.hooks.some((h) => h.type === 'http'));
          const perRun = ['Stop', 'SessionEnd'].filter(overHttp).length;
          const expectedServed = w.decider === 'daemon' ? STEP_CALLS * (overHttp('PostToolUse') ? 2 : 1) + perRun : 0;
          // An async hook's POST may still be on its way when the client's last model request arrives.
          const settle = hasAsyncHttp(w.hooks) || perRun > 0 ? 5_000 : 0;
          const served = (await counterReaching(decisions, before + expectedServed, settle)) - before;
          servedByDaemon[i]!.push(served);
          // Only the floor rows reach the trivial server: one authorized POST per call and hooked event.
          const expectedPosts = w.decider === 'trivial' ? STEP_CALLS * httpHandlers(w.hooks) : 0;
          const posts =
            (await counterReaching(() => trivial!.posts, trivialBefore.posts + expectedPosts, settle)) -
            trivialBefore.posts;
          postsToTrivial[i]!.push(posts);
          expect(posts, `${why}\nthe trivial server got ${posts} POSTs, expected ${expectedPosts}`).toBe(expectedPosts);
          expect(trivial.unauthorized - trivialBefore.unauthorized, why).toBe(0);
          if (w.decider === 'none' || w.decider === 'trivial') {
            expect(audit).toEqual([]);
          } else {
            expect(audit, why).toHaveLength(STEP_CALLS);
            expect(
              audit.every((a) => a.verdict === 'allow' && a.role === 'coder' && a.tool === 'Bash'),
              JSON.stringify(audit),
            ).toBe(true);
          }
          expect(served, `${why}\ndaemon served ${served} hook calls, expected ${expectedServed}`).toBe(expectedServed);
          const gaps = stepTimesMs(result.requests);
          expect(gaps, why).toHaveLength(STEP_CALLS);
          steps[i]!.push(gaps);
        }
      }

      const daemon = daemonStatus();
      const medianOf = (i: number): number => median(steps[i]!.flat());
      const base0 = medianOf(0);
      const fmt = (n: number, width = 6): string => n.toFixed(0).padStart(width);
      const lines = [
        `[daemon-wiring e2e] step time per tool call: ${STEP_CALLS} Bash \`git status\` calls per run, ${STEP_ROUNDS} rounds (order rotated), ` +
          `median of ${STEP_CALLS * STEP_ROUNDS} steps; ${((Date.now() - started) / 1000).toFixed(0)} s, load average ${loadavg()
            .map((l) => l.toFixed(1))
            .join(' ')} on ${availableParallelism()} CPUs`,
        `  ${'wiring'.padEnd(34)} ${'NODE_EXTRA_CA_CERTS'.padEnd(20)} median ms  +ms vs (0)  ratio  best round  per-round medians`,
        ...wirings.map((w, i) => {
          const ca = w.ca === '-' ? '- (no hook process)' : `${w.ca} in hooks`;
          const m = medianOf(i);
          const rounds = steps[i]!.map((r) => median(r));
          return `  ${w.label.padEnd(34)} ${ca.padEnd(20)} ${fmt(m, 9)}  ${fmt(m - base0, 10)}  ${(m / base0).toFixed(2).padStart(5)}  ${fmt(Math.min(...rounds), 10)}  ${rounds.map((r) => r.toFixed(0)).join(' ')}`;
        }),
        `  (the daemon's own time per decision, over this whole file so far: p50 ${daemon.p50_ms} ms, p99 ${daemon.p99_ms} ms)`,
        `  TCP connections per run (${STEP_CALLS} calls) to the http hooks' server, per round:`,
        ...wirings.flatMap((w, i) => {
          if (w.httpPort === undefined) return [];
          const seen = `/proc/net/tcp ${tcpSeen[i]!.map((n) => n ?? '?').join(' ')}`;
          return [
            `  ${w.label.padEnd(34)} ${w.decider === 'trivial' ? `accepted ${tcpAccepted[i]!.join(' ')}; ${seen}` : seen}`,
          ];
        }),
        `  hook calls served per run (${STEP_CALLS} calls) by the daemon / the trivial server, per round:`,
        ...wirings.flatMap((w, i) =>
          w.decider === 'daemon'
            ? [`  ${w.label.padEnd(34)} daemon ${servedByDaemon[i]!.join(' ')}`]
            : w.decider === 'trivial'
              ? [`  ${w.label.padEnd(34)} trivial ${postsToTrivial[i]!.join(' ')}`]
              : [],
        ),
        `  (5b)/(5c): (5) plus a PostToolUse http hook the trivial server answers after ${SLOW_POST_MS} ms, plain / \`async: true\`; ` +
          `(5d): (5) plus an \`async: true\` command PostToolUse hook taking ${SLOW_POST_MS} ms`,
      ];
      console.log(lines.join('\n'));
      // The README's quality table (bench --quality-table) takes the step ratio of the wiring install writes from here.
      const installed = wirings.findIndex((w) => w.label.startsWith(INSTALLED_WIRING));
      if (installed >= 0) {
        const record: StepTimeRecord = {
          date: new Date().toISOString(),
          claudeCode: CLAUDE_CODE.version,
          hookedMs: medianOf(installed),
          bareMs: base0,
          steps: steps[installed]!.flat().length,
          load: { average: loadavg()[0]!, cpus: availableParallelism() },
        };
        const floor = wirings.findIndex((w) => w.label.startsWith('(5) '));
        if (floor >= 0) record.floorMs = medianOf(floor);
        mkdirSync(dirname(stepTimeFile(ROOT)), { recursive: true });
        writeFileSync(stepTimeFile(ROOT), `${JSON.stringify(record, null, 2)}\n`);
      }

      if (STEP_TARGET) {
        const httpIndex = wirings.findIndex((w) => w.label.startsWith('(3)'));
        expect(medianOf(httpIndex) / base0, lines.join('\n')).toBeLessThanOrEqual(1.1);
      }
    },
    // Budget: each run is a client start (~2 s) plus 20 steps; a round of all wirings took ~55 s (2 CPUs).
    (1 + 2 * STEP_ROUNDS) * 60_000,
  );

  it(
    'learning over the http wiring: an allow at the client’s prompt is recorded without a PostToolUse hook (read from the transcript), also when the client exits at once, and the next session is allowed from memory (exact-cache)',
    async () => {
      // A sandbox project with a harmless `make deploy-staging` that no tier decides for a coder: hookwise asks.
      const cwd = project('learning');
      writeFileSync(join(cwd, 'Makefile'), `deploy-staging:\n\t@echo ${OUTPUT}\n\t@touch ${STAMP}\n`);
      // Exactly what install writes, session hooks included: no PostToolUse.
      const hooks = recommendedWiring(http.port, http.token, true);
      mkdirSync(join(cwd, '.claude'));
      writeFileSync(join(cwd, '.claude', 'settings.json'), `${JSON.stringify({ hooks }, null, 2)}\n`);
      const userRules = join(hookwiseEnv.HOOKWISE_CONFIG_DIR, 'user', 'rules.jsonl');
      const userRecords = (): UserRecord[] =>
        existsSync(userRules)
          ? readFileSync(userRules, 'utf8')
              .split('\n')
              .filter((line) => line.trim() !== '')
              .map((line) => JSON.parse(line) as UserRecord)
          : [];
      const learned = (): UserRecord | undefined =>
        userRecords().find((r) => r.decided_by === 'host-prompt' && r.subject === COMMAND);
      expect(learned(), 'nothing learned for this command yet').toBeUndefined();
      /** A new client session (role coder, through the http hooks' header) making one Bash call of COMMAND. */
      const session = async (): Promise<ClaudeStreamSession> => {
        const s = await startClaudeStreamJson({
          cwd,
          home,
          env: { ...hookwiseEnv, HOOKWISE_ROLE: 'coder' },
          extraArgs: ['--session-id', randomUUID()],
          scenario: { toolCalls: [{ name: 'Bash', input: { command: COMMAND, description: 'Deploy to staging' } }] },
          timeoutMs: RUN_TIMEOUT_MS,
        });
        sessions.push(s);
        s.sendUserMessage('Deploy to staging.');
        return s;
      };

      // ── Session 1: hookwise asks; the human allows at the client's prompt; the tool runs. ──
      const first = await session();
      const prompt = await first.waitForPermissionRequest(0, LEARN_WAIT_MS);
      expect(prompt, first.describe()).toMatchObject({
        toolName: 'Bash',
        toolUseId: toolUseId(0),
        decisionReasonType: 'hook',
        input: { command: COMMAND },
      });
      expect(String(prompt.raw.decision_reason)).toContain('hookwise ask [tier default]');
      expect(learned(), 'nothing is learned before the human answers').toBeUndefined();
      first.answerPermission(prompt, { behavior: 'allow' });
      const answered = Date.now();
      const result1 = await first.waitForResult(0, LEARN_WAIT_MS);
      const resultMs = Date.now() - answered;
      expect(result1, first.describe()).toMatchObject({ subtype: 'success', is_error: false });
      expect(first.server.toolResults(), first.describe()).toEqual([
        expect.objectContaining({ toolUseId: toolUseId(0), isError: false, text: OUTPUT }),
      ]);
      expect(existsSync(join(cwd, STAMP))).toBe(true);

      // The client exits at once, as a one-shot run does: its Stop hook (the daemon, over http) has found the
      // asked call's result in the session's transcript — the tool ran — and recorded the approval.
      const exit1 = await first.close();
      expect(exit1, first.describe()).toMatchObject({ exitCode: 0, killed: false });
      for (let i = 0; i < LEARN_POLLS && learned() === undefined; i++) await sleep(100);
      const learnedMs = Date.now() - answered;
      expect(
        learned(),
        `no host-prompt record in ${userRules} after the client exited: ${JSON.stringify(userRecords())}\n${first.describe()}`,
      ).toMatchObject(LEARNED_ALLOW);
      expect(auditOf(first.sessionId!)).toEqual([{ role: 'coder', verdict: 'ask', tier: 'default', tool: 'Bash' }]);

      // ── Session 2: the same command is allowed by hookwise from memory, no prompt. ──
      rmSync(join(cwd, STAMP));
      const second = await session();
      const end2 = await second.waitFor((e) => e.type === 'result' || e.type === 'control_request', {
        timeoutMs: LEARN_WAIT_MS,
        label: 'the result (or a prompt)',
      });
      expect(second.permissionRequests(), `the client did not prompt: the hook allowed\n${second.describe()}`).toEqual(
        [],
      );
      expect(end2, second.describe()).toMatchObject({ type: 'result', subtype: 'success', is_error: false });
      expect(second.server.toolResults(), second.describe()).toEqual([
        expect.objectContaining({ toolUseId: toolUseId(0), isError: false, text: OUTPUT }),
      ]);
      expect(existsSync(join(cwd, STAMP))).toBe(true);
      expect(auditOf(second.sessionId!)).toEqual([
        { role: 'coder', verdict: 'allow', tier: 'exact-cache', tool: 'Bash' },
      ]);
      const exit2 = await second.close();
      expect(exit2, second.describe()).toMatchObject({ exitCode: 0, killed: false });
      // Still the one learned record: nothing more is learned from a cached allow.
      expect(userRecords().filter((r) => r.subject === COMMAND)).toHaveLength(1);

      console.log(
        `[daemon-wiring e2e] learning over the http wiring: the turn's result ${resultMs} ms after the human's allow, the approval recorded ${learnedMs} ms after it`,
      );
    },
    2 * RUN_TIMEOUT_MS + 30_000,
  );

  it(
    'the circuit breaker over the http wiring: PostToolUseFailure counts each failed Bash call, and a success in between (read from the transcript) ends the run',
    async () => {
      const cwd = project('breaker');
      // Threshold 5: nothing trips here; the counts say what was counted.
      mkdirSync(join(cwd, '.hookwise'));
      writeFileSync(join(cwd, '.hookwise', 'policy.yml'), 'modules:\n  circuit_breaker: {threshold: 5}\n');
      const sessionId = randomUUID();
      const result = await runClaude({
        cwd,
        home,
        env: { ...hookwiseEnv, HOOKWISE_ROLE: 'coder' },
        extraArgs: ['--session-id', sessionId],
        prompt: 'Look around.',
        scenario: {
          toolCalls: [
            { name: 'Bash', input: { command: 'ls missing-a', description: 'List' } },
            { name: 'Bash', input: { command: 'ls missing-b', description: 'List' } },
            { name: 'Bash', input: { command: 'git status', description: 'Status' } },
            { name: 'Bash', input: { command: 'ls missing-c', description: 'List' } },
          ],
        },
        hookSettings: recommendedWiring(http.port, http.token, true),
        timeoutMs: RUN_TIMEOUT_MS - 10_000,
      });
      const why = describeRun(result);
      expect(result.exitCode, why).toBe(0);
      expect(
        result.toolResults.map((r) => r.isError),
        why,
      ).toEqual([true, true, false, true]);
      const state = readModuleState(locations({ HOME: home, ...hookwiseEnv }), sessionId);
      expect(state.kind, why).toBe('valid');
      if (state.kind !== 'valid') return;
      // Three failures counted (one signature), and one in a row: `git status` ended the run of the first two.
      // The host writes a result a moment after the tool ran, so when the third failure is counted its result
      // may not be in the transcript yet; the state keeps the run's failures, and Stop (the end of the turn,
      // every result written) finds the success after the first two whatever was counted meanwhile.
      expect(state.state.breaker.signatures, why).toEqual({ other: 3 });
      expect(state.state.breaker.consecutive, why).toBe(1);
    },
    RUN_TIMEOUT_MS,
  );

  it(
    'daemon down: the http gate with onFailure "block" blocks the call, nothing is written',
    async () => {
      stopDaemon();
      const cwd = project('down');
      const target = join(cwd, 'src/down.ts');
      const result = await runClaude({
        cwd,
        home,
        env: { ...hookwiseEnv, HOOKWISE_ROLE: 'coder' },
        prompt: 'Write the file.',
        scenario: { toolCalls: [{ name: 'Write', input: { file_path: target, content: CONTENT } }] },
        // The tool-call hooks only: the session hooks would start the daemon again.
        hookSettings: recommendedWiring(http.port, http.token, false),
        timeoutMs: RUN_TIMEOUT_MS - 10_000,
      });
      const why = describeRun(result);
      console.log(`[daemon-wiring e2e] daemon down, tool_result: ${JSON.stringify(result.toolResults[0]?.text)}`);
      expect(result.exitCode, why).toBe(0);
      expect(existsSync(target), why).toBe(false);
      expect(result.toolResults, why).toHaveLength(1);
      expect(result.toolResults[0]).toMatchObject({ isError: true });
      expect(result.toolResults[0]!.text).toContain(
        `[http://127.0.0.1:${http.port}/v1/hook/claude]: failed; blocking because onFailure is "block"`,
      );
      expect(result.toolResults[0]!.text).toContain('ECONNREFUSED');
      const final = result.events.at(-1) as { type?: string; permission_denials?: unknown[] };
      expect(final.type).toBe('result');
      // The stream-json result lists the call as denied.
      expect(final.permission_denials, why).toEqual([
        expect.objectContaining({ tool_name: 'Write', tool_use_id: toolUseId(0) }),
      ]);
      expect(daemonStatus().running).toBe(false);
    },
    RUN_TIMEOUT_MS,
  );

  it(
    'daemon down, full wiring: the SessionStart hook starts it again and the gate answers',
    async () => {
      expect(daemonStatus().running).toBe(false);
      const cwd = project('restart');
      const sessionId = randomUUID();
      const target = join(cwd, 'src/restarted.ts');
      const result = await runClaude({
        cwd,
        home,
        env: { ...hookwiseEnv, HOOKWISE_ROLE: 'coder' },
        extraArgs: ['--session-id', sessionId],
        prompt: 'Write the file.',
        scenario: { toolCalls: [{ name: 'Write', input: { file_path: target, content: CONTENT } }] },
        hookSettings: recommendedWiring(http.port, http.token, true),
        timeoutMs: RUN_TIMEOUT_MS - 10_000,
      });
      const status = daemonStatus();
      if (status.pid !== null) daemonPids.add(status.pid);
      const why = describeRun(result);
      expect(result.exitCode, why).toBe(0);
      expect(readFileSync(target, 'utf8'), why).toBe(CONTENT);
      expect(status).toMatchObject({ running: true, http: { port: http.port } });
      expect(auditOf(sessionId)).toEqual([{ role: 'coder', verdict: 'allow', tier: 'path-policy', tool: 'Write' }]);
    },
    RUN_TIMEOUT_MS,
  );
});
