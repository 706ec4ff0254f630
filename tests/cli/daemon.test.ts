/** The built executable with a real daemon process: start, status, stop, and check when it dies or hangs. */
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeProject, type TestProject } from '../support/project.js';

const BIN = join(import.meta.dirname, '..', '..', 'dist', 'hookwise.cjs');

function run(args: string[], env: NodeJS.ProcessEnv, input = '', cwd?: string) {
  return spawnSync(process.execPath, [BIN, ...args], { input, env, cwd, encoding: 'utf8', timeout: 30_000 });
}

const started: TestProject[] = [];
afterEach(() => {
  for (const p of started.splice(0)) {
    const status = JSON.parse(run(['daemon', 'status', '--json'], p.env).stdout) as { pid: number | null };
    if (status.pid !== null) {
      try {
        process.kill(status.pid, 'SIGCONT');
        process.kill(status.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
});

function startDaemon(p: TestProject): number {
  started.push(p);
  const r = run(['daemon', 'start', '--json'], p.env);
  expect(r.status, r.stderr).toBe(0);
  const status = JSON.parse(r.stdout) as {
    running: boolean;
    pid: number;
    socket: string;
    http: unknown;
    version: string;
  };
  expect(status).toMatchObject({
    running: true,
    socket: join(p.runtimeDir, 'daemon.sock'),
    http: null,
    version: expect.any(String),
  });
  return status.pid;
}

const PAYLOADS = (p: TestProject): [string, Record<string, unknown>][] => [
  ['allowed write', p.pre('Write', { file_path: join(p.root, 'src/a.ts'), content: '' })],
  ['denied write', p.pre('Write', { file_path: join(p.root, 'tests/a.ts'), content: '' })],
  ['force push', p.pre('Bash', { command: 'git push -f origin main' })],
  ['undecided', p.pre('Bash', { command: 'make release' })],
];

describe('hookwise daemon (built executable)', () => {
  it('start, status --json, check through it with the same verdicts, stop', () => {
    const p = makeProject();
    p.register('s1', 'coder');
    const pid = startDaemon(p);
    for (const [name, payload] of PAYLOADS(p)) {
      const viaDaemon = run(['check'], p.env, JSON.stringify(payload));
      const inProcess = run(['check'], { ...p.env, HOOKWISE_DAEMON: 'off' }, JSON.stringify(payload));
      expect(viaDaemon.stdout, name).toBe(inProcess.stdout);
      expect(viaDaemon.status, name).toBe(inProcess.status);
    }
    const status = JSON.parse(run(['daemon', 'status', '--json'], p.env).stdout) as { pid: number; decisions: number };
    expect(status.pid).toBe(pid);
    expect(status.decisions).toBe(PAYLOADS(p).length);
    expect(run(['daemon', 'stop'], p.env).stdout).toMatch(/stopped/);
    const after = run(['daemon', 'status', '--json'], p.env);
    expect(after.status).toBe(3);
    expect(JSON.parse(after.stdout)).toMatchObject({ running: false, pid: null });
  });

  it('a killed daemon: check decides in process with the same verdicts, and a new daemon replaces the stale socket', () => {
    const p = makeProject();
    p.register('s1', 'coder');
    const pid = startDaemon(p);
    process.kill(pid, 'SIGKILL');
    for (const [name, payload] of PAYLOADS(p)) {
      const r = run(['check'], { ...p.env, HOOKWISE_DAEMON: 'no-autostart' }, JSON.stringify(payload));
      const inProcess = run(['check'], { ...p.env, HOOKWISE_DAEMON: 'off' }, JSON.stringify(payload));
      expect(r.stdout, name).toBe(inProcess.stdout);
    }
    const again = startDaemon(p);
    expect(again).not.toBe(pid);
  });

  it('a hung daemon: check gives up on it and decides in process', () => {
    const p = makeProject();
    p.register('s1', 'coder');
    const pid = startDaemon(p);
    process.kill(pid, 'SIGSTOP');
    try {
      const [, payload] = PAYLOADS(p)[2]!;
      const t0 = Date.now();
      const r = run(['check'], p.env, JSON.stringify(payload));
      const elapsed = Date.now() - t0;
      expect(JSON.parse(r.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
      // About a second of waiting for the daemon, plus a cold in-process decision on a loaded machine.
      expect(elapsed).toBeLessThan(15_000);
    } finally {
      process.kill(pid, 'SIGCONT');
    }
  });

  it('session-check --ensure-daemon starts the daemon before answering, with the http endpoint when one is configured', () => {
    const p = makeProject();
    started.push(p);
    const payload = JSON.stringify({
      session_id: 's1',
      cwd: p.root,
      hook_event_name: 'SessionStart',
      source: 'startup',
    });
    const r = run(
      ['session-check', '--host', 'claude', '--ensure-daemon'],
      { ...p.env, HOOKWISE_ROLE: 'coder' },
      payload,
    );
    expect(r.status, r.stderr).toBe(0);
    const status = JSON.parse(run(['daemon', 'status', '--json'], p.env).stdout) as { running: boolean; http: unknown };
    expect(status).toMatchObject({ running: true, http: null });
    expect(run(['daemon', 'stop'], p.env).status).toBe(0);
    // With an endpoint config (what install --claude makes), the daemon it starts serves loopback HTTP.
    expect(run(['daemon', 'start', '--http', '--json'], p.env).status).toBe(0);
    expect(run(['daemon', 'stop'], p.env).status).toBe(0);
    expect(
      run(['session-check', '--host', 'claude', '--ensure-daemon'], { ...p.env, HOOKWISE_ROLE: 'coder' }, payload)
        .status,
    ).toBe(0);
    const withHttp = JSON.parse(run(['daemon', 'status', '--json'], p.env).stdout) as {
      running: boolean;
      http: { port: number } | null;
    };
    expect(withHttp.running).toBe(true);
    expect(withHttp.http?.port).toBeGreaterThan(0);
  });

  it('the hints fit the installed wiring: with the http gate, every start names --http, and install restarts a daemon without the endpoint', async () => {
    const p = makeProject();
    started.push(p);
    const cli = (...args: string[]) => run(args, p.env, '', p.root);
    let r = cli('daemon', 'status');
    expect(r.status).toBe(3);
    expect(r.stdout).toMatch(/start it: hookwise daemon start {3}\(no agent is wired to hookwise here yet/);

    r = cli('install', '--claude', '--command', `node ${BIN}`);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/the daemon is not running; .*hookwise daemon start --http/);
    r = cli('daemon', 'status');
    expect(r.stdout).toMatch(/start it: hookwise daemon start --http .*settings\.local\.json blocks every tool call/);
    expect(r.stdout).not.toMatch(/decide in process/);

    // A plain `daemon start` serves the endpoint the wiring needs.
    r = cli('daemon', 'start', '--json');
    expect(JSON.parse(r.stdout)).toMatchObject({ running: true, http: { port: expect.any(Number) } });
    r = cli('daemon', 'stop');
    expect(r.stdout).toMatch(/stopped .*http gate in .*blocks every tool call until it runs again/);

    // A daemon without the endpoint (as an older `daemon start` left it): install says so and restarts it.
    const bare = spawn(process.execPath, [BIN, 'serve', '--idle-exit', '60'], { env: p.env, stdio: 'ignore' });
    try {
      const deadline = Date.now() + 15_000;
      while (cli('daemon', 'status').status !== 0 && Date.now() < deadline)
        await new Promise((f) => setTimeout(f, 100));
      expect(cli('daemon', 'status').stdout).toMatch(/http {4}off — the Claude Code http gate in .* is blocked/);
      r = cli('install', '--claude', '--command', `node ${BIN}`);
      expect(r.stderr).toMatch(
        new RegExp(`daemon \\(pid ${bare.pid}\\) ran without the http endpoint .*: restarted it with the endpoint`),
      );
      const after = JSON.parse(cli('daemon', 'status', '--json').stdout) as { pid: number; http: unknown };
      expect(after.pid).not.toBe(bare.pid);
      expect(after.http).not.toBeNull();
    } finally {
      bare.kill('SIGKILL');
    }
  });

  it('SIGHUP reloads, SIGTERM drains and removes the socket and state file; both are logged', async () => {
    const p = makeProject();
    const pid = startDaemon(p);
    const { existsSync, readFileSync } = await import('node:fs');
    const log = join(p.runtimeDir, 'daemon.log');
    const waitFor = async (what: () => boolean) => {
      for (let i = 0; i < 200 && !what(); i++) await new Promise((r) => setTimeout(r, 25));
      return what();
    };
    process.kill(pid, 'SIGHUP');
    expect(await waitFor(() => readFileSync(log, 'utf8').includes('reloaded'))).toBe(true);
    process.kill(pid, 'SIGTERM');
    expect(
      await waitFor(
        () => !existsSync(join(p.runtimeDir, 'daemon.sock')) && !existsSync(join(p.runtimeDir, 'daemon.json')),
      ),
    ).toBe(true);
    expect(readFileSync(log, 'utf8')).toMatch(/SIGTERM: draining[\s\S]*stopped/);
  });

  it('a client of another hookwise version is refused, so it decides in process with its own code', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    startDaemon(p);
    const { request } = await import('node:http');
    const { LOCATIONS_HEADER, locationsTag, VERSION_HEADER } = await import('../../src/daemon/paths.js');
    const { locations } = await import('../../src/util/locations.js');
    const status = await new Promise<number>((resolve, reject) => {
      const headers = { [LOCATIONS_HEADER]: locationsTag(locations(p.env)), [VERSION_HEADER]: '999.0.0' };
      const req = request(
        { socketPath: join(p.runtimeDir, 'daemon.sock'), path: '/v1/check', method: 'POST', headers },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end('{}');
    });
    expect(status).toBe(409);
    // The built client (this very version) is answered by it.
    const [, payload] = PAYLOADS(p)[0]!;
    expect(run(['check'], p.env, JSON.stringify(payload)).status).toBe(0);
    expect((JSON.parse(run(['daemon', 'status', '--json'], p.env).stdout) as { decisions: number }).decisions).toBe(1);
  });
});
