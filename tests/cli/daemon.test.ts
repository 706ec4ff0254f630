/** The built executable with a real daemon process: start, status, stop, and check when it dies or hangs. */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeProject, type TestProject } from '../support/project.js';

const BIN = join(import.meta.dirname, '..', '..', 'dist', 'hookwise.cjs');

function run(args: string[], env: NodeJS.ProcessEnv, input = '') {
  return spawnSync(process.execPath, [BIN, ...args], { input, env, encoding: 'utf8', timeout: 30_000 });
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
