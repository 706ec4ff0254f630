/**
 * Confined allows (issue 19, "Done when") in the REAL Claude Code CLI: with `confine: {enabled: true}` in the
 * user's own config, a novel project script that no tier decides is allowed with its command rewritten
 * (`updatedInput`) to run inside bubblewrap, and `claude -p` runs it without a prompt.
 *
 *  1. `./scripts/gen.sh` runs: the model gets its output, its file lands in the project.
 *  2. `./scripts/escape.sh` tries to plant `.git/hooks/pre-commit`, read `~/.ssh/id_rsa` (a canary in the
 *     isolated HOME) and reach a TCP listener of this test on 127.0.0.1: it runs, and each attempt fails
 *     inside the walls. A control run of the same script without walls shows each attempt would succeed.
 *  3. A script that fails against the walls (plants a git hook, reads ~/.ssh, or connects to the listener;
 *     `set -e`) is reported to PostToolUseFailure: the next identical call in the same run is asked (and so
 *     denied in -p mode), saying what the walls stopped.
 *  4. Where bubblewrap cannot be found (hidden from the hook by a bind mount of /dev/null in a private mount
 *     namespace), the call is asked — which `-p` mode denies — and never runs unconfined.
 *
 * Skipped with HOOKWISE_SKIP_E2E=1. Cases 1–3 are skipped where this machine cannot confine (the probe's
 * reason is in the suite's name); there case 4 runs as is. Where it can, case 4 hides bubblewrap from the hook,
 * which needs root and `unshare`; without them it is skipped with that reason.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAudit } from '../../src/audit/log.js';
import { probeConfinement } from '../../src/confine/probe.js';
import { shellQuote } from '../../src/confine/wrap.js';
import { toolUseId } from './support/fake-anthropic.js';
import { ensureClaude } from './support/install-hosts.js';
import { runClaude, type ClaudeHooksConfig, type ClaudeRunResult } from './support/run-host.js';
import { removeTestTree } from '../support/remove-tree.js';

const SKIP = process.env.HOOKWISE_SKIP_E2E === '1';
const BIN = join(import.meta.dirname, '..', '..', 'dist', 'hookwise.cjs');
const INSTALL_TIMEOUT_MS = 10 * 60_000;
const RUN_TIMEOUT_MS = 120_000;

const probe = SKIP ? undefined : probeConfinement();
const skipReason = SKIP
  ? 'HOOKWISE_SKIP_E2E=1'
  : probe?.available === false
    ? `this machine cannot confine: ${probe.reason} (${probe.fix})`
    : undefined;

const SECRET = 'PRIVATE-KEY-CANARY-7f3a';
const GEN = '#!/bin/sh\nset -e\nmkdir -p out\necho generated > out/gen.txt\necho "gen: wrote out/gen.txt"\n';

/** Each attempt reports itself; the script always exits 0, so the tool_result is its output, not an error. */
function escapeScript(port: number): string {
  return [
    '#!/bin/bash',
    'if (echo planted > .git/hooks/pre-commit) 2>/dev/null; then echo "hooks: WRITTEN"; else echo "hooks: refused"; fi',
    'if secret=$(cat "$HOME/.ssh/id_rsa" 2>/dev/null); then echo "ssh: read $secret"; else echo "ssh: hidden"; fi',
    `if (exec 3<>/dev/tcp/127.0.0.1/${port} && echo hello >&3) 2>/dev/null; then echo "net: CONNECTED"; else echo "net: refused"; fi`,
    'exit 0',
    '',
  ].join('\n');
}

interface Box {
  base: string;
  project: string;
  home: string;
  env: { HOOKWISE_RUNTIME_DIR: string; HOOKWISE_CONFIG_DIR: string };
  sessionId: string;
}

const bases: string[] = [];
const servers: Server[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  for (const b of bases) removeTestTree(b);
});

/** A git project with two scripts, a HOME with an ssh key canary, confinement on in the user's config, a registered coder session. */
function box(port: number): Box {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'hookwise-e2e-confine-')));
  bases.push(base);
  const project = join(base, 'project');
  const home = join(base, 'home');
  mkdirSync(join(project, 'scripts'), { recursive: true });
  mkdirSync(join(home, '.ssh'), { recursive: true, mode: 0o700 });
  spawnSync('git', ['init', '-q', project]); // without git, the bare .git below is enough for hookwise
  mkdirSync(join(project, '.git', 'hooks'), { recursive: true });
  writeFileSync(join(project, 'scripts', 'gen.sh'), GEN, { mode: 0o755 });
  writeFileSync(join(project, 'scripts', 'escape.sh'), escapeScript(port), { mode: 0o755 });
  writeFileSync(join(home, '.ssh', 'id_rsa'), `${SECRET}\n`, { mode: 0o600 });
  const env = { HOOKWISE_RUNTIME_DIR: join(base, 'runtime'), HOOKWISE_CONFIG_DIR: join(base, 'config') };
  mkdirSync(env.HOOKWISE_CONFIG_DIR, { recursive: true });
  writeFileSync(join(env.HOOKWISE_CONFIG_DIR, 'config.yml'), 'confine:\n  enabled: true\n');
  const sessionId = randomUUID();
  const r = spawnSync(process.execPath, [BIN, 'register', '--session-id', sessionId, '--role', 'coder'], {
    cwd: project,
    env: { ...process.env, HOME: home, ...env },
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`hookwise register: exit ${r.status}\n${r.stderr}`);
  return { base, project, home, env, sessionId };
}

/** A TCP listener on loopback, outside any sandbox, that counts the connections it gets. */
async function listener(): Promise<{ port: number; connections: () => number }> {
  let count = 0;
  const server = createServer((socket) => {
    count++;
    socket.destroy();
  });
  servers.push(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return { port: address.port, connections: () => count };
}

const checkHook = (prefix = '') =>
  `${prefix}${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} check --host claude`;

/** `claude -p` in the box, the fake model asking for one Bash call of `command`. */
async function runBash(b: Box, command: string, hookCommand = checkHook()): Promise<ClaudeRunResult> {
  return runClaude({
    cwd: b.project,
    home: b.home,
    env: b.env,
    extraArgs: ['--session-id', b.sessionId],
    prompt: 'Run the script.',
    scenario: { toolCalls: [{ name: 'Bash', input: { command, description: 'Run the project script' } }] },
    hookSettings: { PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: hookCommand }] }] },
    timeoutMs: RUN_TIMEOUT_MS - 10_000,
  });
}

interface ResultEvent {
  type?: string;
  is_error?: boolean;
  permission_denials?: { tool_name?: string; tool_use_id?: string; tool_input?: Record<string, unknown> }[];
}

function finalEvent(r: ClaudeRunResult): ResultEvent {
  return (r.events.at(-1) ?? {}) as ResultEvent;
}

function why(r: ClaudeRunResult, b: Box): string {
  const audit = readAudit(b.env.HOOKWISE_RUNTIME_DIR).records.map((a) => [a.verdict, a.tier, a.rule]);
  return [
    `exit ${r.exitCode} timedOut ${r.timedOut} ${r.durationMs} ms`,
    `audit: ${JSON.stringify(audit)}`,
    `tool_results: ${JSON.stringify(r.toolResults, null, 1)}`,
    `stderr: ${r.stderr.slice(-1500)}`,
    `stdout: ${r.stdout.slice(-3000)}`,
  ].join('\n');
}

function auditOf(b: Box): [string, string, string | null][] {
  return readAudit(b.env.HOOKWISE_RUNTIME_DIR).records.map((a) => [a.tool, a.verdict, a.rule]);
}

/**
 * The hook command for a machine that cannot confine, and what its ask must say. Where the probe fails
 * anyway, the plain hook. Otherwise bubblewrap is hidden from the hook alone: a private mount namespace in
 * which /dev/null (not a regular file, not executable) is bound over every bwrap the hook could find — which
 * needs root and util-linux `unshare`.
 */
function hookWithoutBwrap(): { command: string; says: string } | { skip: string } {
  if (probe?.available === false) return { command: checkHook(), says: 'it could not run confined: ' };
  if (process.geteuid?.() !== 0)
    return { skip: 'hiding bubblewrap from the hook needs root (a bind mount in a private mount namespace)' };
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/bin', '/bin', '/usr/local/bin'].filter((d) =>
    d.startsWith('/'),
  );
  const found = [...new Set(dirs.map((d) => join(d, 'bwrap')).filter((p) => existsSync(p)))];
  const mounts = found.map((p) => `mount --bind /dev/null ${shellQuote(p)}`).join(' && ');
  const script = `${mounts} && for p in ${found.map(shellQuote).join(' ')}; do test -x "$p" && exit 1; done; exit 0`;
  const trial = spawnSync('unshare', ['--mount', '--propagation', 'private', 'sh', '-c', script], { encoding: 'utf8' });
  if (trial.status !== 0)
    return {
      skip: `cannot hide bubblewrap in a private mount namespace here: ${trial.error?.message ?? trial.stderr.trim()}`,
    };
  const prefix = `unshare --mount --propagation private sh -c ${shellQuote(`${mounts} && exec "$0" "$@"`)} `;
  return { command: checkHook(prefix), says: 'it could not run confined: bubblewrap (bwrap) is not installed' };
}

describe.skipIf(skipReason !== undefined)(
  `real Claude Code runs confined allows${skipReason === undefined ? '' : ` (skipped: ${skipReason})`}`,
  () => {
    beforeAll(async () => {
      await ensureClaude();
    }, INSTALL_TIMEOUT_MS);

    it(
      'a novel project script runs without a prompt, confined: the model sees its output, its file lands in the project',
      async () => {
        const net = await listener();
        const b = box(net.port);
        const r = await runBash(b, './scripts/gen.sh');
        const diag = why(r, b);
        expect(r.exitCode, diag).toBe(0);
        expect(auditOf(b), diag).toEqual([['Bash', 'allow', 'confine:unknown-effect']]);
        expect(r.toolResults, diag).toEqual([expect.objectContaining({ toolUseId: toolUseId(0), isError: false })]);
        expect(r.toolResults[0]!.text, diag).toContain('gen: wrote out/gen.txt');
        expect(finalEvent(r), diag).toMatchObject({ type: 'result', is_error: false, permission_denials: [] });
        expect(readFileSync(join(b.project, 'out', 'gen.txt'), 'utf8')).toBe('generated\n');
        // updatedInput replaced the command that ran, not the agent's history: the model still sees its own
        // `./scripts/gen.sh`, never the (several KB) wrapped command.
        const toModel = JSON.stringify(r.requests.map((q) => q.body));
        expect(toModel).toContain('"command":"./scripts/gen.sh"');
        expect(toModel).not.toContain('bwrap');
        // The agent is told it ran confined and what the walls are (additionalContext: an allow's reason reaches only the user).
        expect(toModel).toContain('PreToolUse:Bash hook additional context: hookwise allow [tier confine');
        expect(toModel).toContain('runs confined: it may write only inside the project');
        console.log(
          `[confine e2e] gen.sh confined: ${r.durationMs} ms for the run; tool_result ${JSON.stringify(r.toolResults[0]!.text)}`,
        );
      },
      RUN_TIMEOUT_MS,
    );

    it(
      'the same kind of script cannot plant a git hook, read ~/.ssh or reach a listener outside: each fails inside the walls',
      async () => {
        const net = await listener();
        // Control: without walls, every attempt of the script succeeds (so the confined run proves the walls).
        const control = box(net.port);
        const bare = spawnSync('./scripts/escape.sh', [], {
          cwd: control.project,
          env: { PATH: process.env.PATH, HOME: control.home },
          encoding: 'utf8',
          timeout: 20_000,
        });
        for (let i = 0; i < 50 && net.connections() === 0; i++) await sleep(20);
        expect(bare.stdout).toBe(`hooks: WRITTEN\nssh: read ${SECRET}\nnet: CONNECTED\n`);
        expect(existsSync(join(control.project, '.git', 'hooks', 'pre-commit'))).toBe(true);
        expect(net.connections(), 'the control reached the listener').toBe(1);

        const b = box(net.port);
        const r = await runBash(b, './scripts/escape.sh');
        const diag = why(r, b);
        expect(r.exitCode, diag).toBe(0);
        expect(auditOf(b), diag).toEqual([['Bash', 'allow', 'confine:unknown-effect']]);
        expect(r.toolResults, diag).toEqual([expect.objectContaining({ toolUseId: toolUseId(0), isError: false })]);
        const text = r.toolResults[0]!.text;
        expect(text, diag).toContain('hooks: refused');
        expect(text, diag).toContain('ssh: hidden');
        expect(text, diag).toContain('net: refused');
        expect(text, diag).not.toContain(SECRET);
        expect(
          JSON.stringify(r.requests.map((q) => q.body)),
          'the secret reached the model in no request',
        ).not.toContain(SECRET);
        expect(existsSync(join(b.project, '.git', 'hooks', 'pre-commit'))).toBe(false);
        await sleep(200);
        expect(net.connections(), 'only the control reached the listener').toBe(1);
        console.log(
          `[confine e2e] escape.sh confined: ${r.durationMs} ms for the run; tool_result ${JSON.stringify(text)}`,
        );
      },
      RUN_TIMEOUT_MS,
    );

    it.each([
      [
        'plants a git hook',
        'echo "#!/bin/sh" > .git/hooks/pre-commit',
        'Read-only file system',
        'a write where they allow none',
      ],
      ['reads ~/.ssh', 'cat "$HOME/.ssh/id_rsa"', 'No such file or directory', 'a read of a secret they hide'],
      ['reaches a listener outside', 'exec 3<>/dev/tcp/127.0.0.1/PORT', 'Connection refused', 'a network connection'],
    ])(
      'a script that %s fails inside the walls, and the next identical call is asked, naming what the walls stopped',
      async (_what, line, says, stopped) => {
        const net = await listener();
        const b = box(net.port);
        // Fails (set -e) at its first step: the host reports it to PostToolUseFailure.
        writeFileSync(
          join(b.project, 'scripts', 'setup.sh'),
          `#!/bin/bash\nset -e\n${line.replace('PORT', String(net.port))}\necho "setup: done"\n`,
          { mode: 0o755 },
        );
        const hooks: ClaudeHooksConfig = {
          PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: checkHook() }] }],
          PostToolUseFailure: [{ matcher: 'Bash', hooks: [{ type: 'command', command: checkHook() }] }],
        };
        const call = { name: 'Bash', input: { command: './scripts/setup.sh', description: 'Set up the project' } };
        const r = await runClaude({
          cwd: b.project,
          home: b.home,
          env: b.env,
          extraArgs: ['--session-id', b.sessionId],
          prompt: 'Set up the project.',
          scenario: { toolCalls: [call, call] },
          hookSettings: hooks,
          timeoutMs: RUN_TIMEOUT_MS - 10_000,
        });
        const diag = why(r, b);
        expect(r.exitCode, diag).toBe(0);
        expect(auditOf(b), diag).toEqual([
          ['Bash', 'allow', 'confine:unknown-effect'],
          ['Bash', 'ask', 'confine:walls-hit'],
        ]);
        expect(r.toolResults, diag).toEqual([
          expect.objectContaining({ toolUseId: toolUseId(0), isError: true }),
          expect.objectContaining({ toolUseId: toolUseId(1), isError: true }),
        ]);
        expect(r.toolResults[0]!.text, diag).toContain(says);
        expect(r.toolResults[0]!.text, diag).not.toContain(SECRET);
        expect(r.toolResults[1]!.text, diag).toContain(`the walls stopped ${stopped}`);
        expect(existsSync(join(b.project, '.git', 'hooks', 'pre-commit'))).toBe(false);
        // -p mode denies an ask: the second attempt never ran, and the agent is told why.
        expect(finalEvent(r).permission_denials, diag).toEqual([
          expect.objectContaining({ tool_name: 'Bash', tool_use_id: toolUseId(1) }),
        ]);
        expect(readAudit(b.env.HOOKWISE_RUNTIME_DIR).records[1]!.tier, diag).toBe('exact-cache');
        await sleep(100);
        expect(net.connections(), 'the listener outside was never reached').toBe(0);
        console.log(
          `[confine e2e] setup.sh (${_what}) hit the walls, then asked: ${r.durationMs} ms; second tool_result ${JSON.stringify(r.toolResults[1]!.text.slice(0, 300))}`,
        );
      },
      RUN_TIMEOUT_MS,
    );
  },
);

describe.skipIf(SKIP)('real Claude Code where confinement is not available', () => {
  beforeAll(async () => {
    await ensureClaude();
  }, INSTALL_TIMEOUT_MS);

  it(
    'without bubblewrap the call is asked (denied in -p mode), never run unconfined',
    async (ctx) => {
      const hook = hookWithoutBwrap();
      if ('skip' in hook) {
        ctx.skip(hook.skip);
        return;
      }
      const net = await listener();
      const b = box(net.port);
      const r = await runBash(b, './scripts/gen.sh', hook.command);
      const diag = why(r, b);
      expect(r.exitCode, diag).toBe(0);
      expect(auditOf(b), diag).toEqual([['Bash', 'ask', null]]);
      expect(r.toolResults, diag).toEqual([expect.objectContaining({ toolUseId: toolUseId(0), isError: true })]);
      expect(r.toolResults[0]!.text, diag).toContain(hook.says);
      expect(finalEvent(r).permission_denials, diag).toEqual([
        expect.objectContaining({ tool_name: 'Bash', tool_use_id: toolUseId(0) }),
      ]);
      expect(existsSync(join(b.project, 'out')), 'the script did not run').toBe(false);
      console.log(
        `[confine e2e] no bubblewrap: ${r.durationMs} ms for the run; tool_result ${JSON.stringify(r.toolResults[0]!.text)}`,
      );
    },
    RUN_TIMEOUT_MS,
  );
});
