/** The daemon in this process (src/daemon/server.ts), driven through the thin client and over HTTP. */
import { request } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { lstatSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readAudit } from '../../src/audit/log.js';
import { askDaemon } from '../../src/daemon/client.js';
import { daemonPaths } from '../../src/daemon/paths.js';
import { serve, type RunningDaemon } from '../../src/daemon/server.js';
import { locations } from '../../src/util/locations.js';
import { makeProject, type TestProject } from '../support/project.js';
import { rememberSubject, subjectFor } from '../support/memory.js';
import { findPostgres, startCluster, type Cluster, migrateTeam } from '../support/postgres.js';

const running: RunningDaemon[] = [];
afterEach(async () => {
  while (running.length > 0) await running.pop()!.close();
});

async function start(p: TestProject, http?: { port: number; token: string }): Promise<RunningDaemon> {
  const d = await serve({ where: locations(p.env), ...(http === undefined ? {} : { http }) });
  running.push(d);
  return d;
}

async function viaDaemon(p: TestProject, raw: string, host?: 'claude' | 'gemini' | 'codex', envRole?: string) {
  const answer = await askDaemon(raw, locations(p.env), { host, envRole });
  if (answer.kind !== 'answered') throw new Error(`daemon did not answer: ${answer.kind}`);
  return answer.result;
}

function httpPost(
  port: number,
  path: string,
  body: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: 'POST', headers: { 'content-type': 'application/json', ...headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('the daemon answers exactly what check answers in process', () => {
  it.each([
    [
      'a Write the role allows',
      (p: TestProject) => p.pre('Write', { file_path: join(p.root, 'src/a.ts'), content: 'x' }),
    ],
    [
      'a Write the role denies',
      (p: TestProject) => p.pre('Write', { file_path: join(p.root, 'tests/a.ts'), content: 'x' }),
    ],
    [
      'a sensitive path',
      (p: TestProject) => p.pre('Edit', { file_path: join(p.root, '.env'), old_string: 'a', new_string: 'b' }),
    ],
    ['a read-only command', (p: TestProject) => p.pre('Bash', { command: 'git status && ls -la' })],
    ['a force push', (p: TestProject) => p.pre('Bash', { command: 'git push --force origin main' })],
    ['a command nobody decided', (p: TestProject) => p.pre('Bash', { command: 'make deploy-everything' })],
    ['an unparseable command', (p: TestProject) => p.pre('Bash', { command: 'echo "unterminated' })],
    [
      'a secret in the command',
      (p: TestProject) =>
        p.pre('Bash', {
          command: 'curl -H "Authorization: Bearer ghp_abcdefghijklmnopqrstuvwxyz0123456789" https://x',
        }),
    ],
    ['an unregistered session', (p: TestProject) => p.pre('Bash', { command: 'ls' }, 'nobody')],
    [
      'a post-tool event',
      (p: TestProject) => ({ ...p.pre('Bash', { command: 'ls' }), hook_event_name: 'PostToolUse', tool_response: {} }),
    ],
    [
      'a prompt from an unregistered session',
      (p: TestProject) => ({ session_id: 'nobody', cwd: p.root, hook_event_name: 'UserPromptSubmit', prompt: 'hi' }),
    ],
  ])('%s', async (_name, payloadOf) => {
    const p = makeProject();
    p.write('.hookwise/policy.yml', 'registration:\n  wait_ms: 0\n');
    p.register('s1', 'coder');
    await start(p);
    const raw = JSON.stringify(payloadOf(p));
    const daemon = await viaDaemon(p, raw);
    const { decision: _d, ...inProcess } = await p.check(raw);
    expect(daemon).toEqual(inProcess);
  });

  it('malformed payloads fail closed the same way', async () => {
    const p = makeProject();
    await start(p);
    for (const raw of [
      '',
      'not json',
      '[1,2]',
      '{"hook_event_name":"PreToolUse"}',
      '{"hook_event_name":"PreToolUse","session_id":"s","cwd":"/","tool_name":"Bash"}',
    ]) {
      const daemon = await viaDaemon(p, raw);
      const { decision: _d, ...inProcess } = await p.check(raw);
      expect(daemon, raw).toEqual(inProcess);
      expect(daemon.exitCode === 2 || /"deny"/.test(daemon.stdout), raw).toBe(true);
    }
  });

  it('an answer leaves only once its audit line is in the log, also for calls decided in the same turn', async () => {
    const p = makeProject();
    const sessions = Array.from({ length: 12 }, (_, i) => `s${i}`);
    for (const s of sessions) p.register(s, 'coder');
    await start(p);
    const where = locations(p.env);
    const missing: string[] = [];
    await Promise.all(
      sessions.map(async (s, i) => {
        const raw = JSON.stringify(p.pre('Write', { file_path: join(p.root, `src/f${i}.ts`), content: 'x' }, s));
        const answer = await askDaemon(raw, where, {});
        if (answer.kind !== 'answered') throw new Error(`daemon did not answer: ${answer.kind}`);
        if (!readAudit(p.runtimeDir).records.some((r) => r.session === s)) missing.push(s);
      }),
    );
    expect(missing).toEqual([]);
    expect(readAudit(p.runtimeDir).records).toHaveLength(sessions.length);
  });

  it('gemini and codex payloads, and HOOKWISE_ROLE passed by the client', async () => {
    const p = makeProject();
    await start(p);
    const gemini = JSON.stringify({
      session_id: 'g',
      cwd: p.root,
      hook_event_name: 'BeforeTool',
      tool_name: 'write_file',
      tool_input: { file_path: join(p.root, 'src/a.ts'), content: '' },
    });
    const daemon = await viaDaemon(p, gemini, 'gemini', 'coder');
    expect(JSON.parse(daemon.stdout)).toMatchObject({ decision: 'allow' });
    p.env.HOOKWISE_ROLE = 'coder';
    const { decision: _d, ...inProcess } = await p.check(gemini, 'gemini');
    expect(daemon).toEqual(inProcess);
  });

  it('HOOKWISE_GEMINI_ASK of the hook process reaches the daemon (the same answer as in process)', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    await start(p);
    const raw = JSON.stringify({
      session_id: 's1',
      cwd: p.root,
      hook_event_name: 'BeforeTool',
      tool_name: 'run_shell_command',
      tool_input: { command: 'make deploy-everything' },
    });
    const daemon = await askDaemon(raw, locations(p.env), { host: 'gemini', geminiAsk: true });
    expect(daemon.kind === 'answered' && JSON.parse(daemon.result.stdout)).toMatchObject({ decision: 'ask' });
    p.env.HOOKWISE_GEMINI_ASK = 'ask';
    const { decision: _d, ...inProcess } = await p.check(raw, 'gemini');
    expect(daemon).toEqual({ kind: 'answered', result: inProcess });
    const withoutIt = await viaDaemon(p, raw, 'gemini');
    expect(JSON.parse(withoutIt.stdout)).toMatchObject({ decision: 'deny' });
  });

  it('a request from other hookwise locations is refused, so the client decides in process', async () => {
    const p = makeProject();
    const d = await start(p);
    const other = { ...locations(p.env), home: '/elsewhere' };
    // Same socket, another home: the daemon must not answer for it.
    const answer = await askDaemon(JSON.stringify(p.pre('Bash', { command: 'ls' })), {
      ...other,
      runtimeDir: locations(p.env).runtimeDir,
    });
    expect(answer).toMatchObject({ kind: 'unusable', why: 'status 409' });
    expect(d.stats().decisions).toBe(0);
  });
});

describe('daemon state', () => {
  it('picks up a policy change on the next call', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    await start(p);
    const raw = JSON.stringify(p.pre('Bash', { command: 'make deploy-everything' }));
    expect((await viaDaemon(p, raw)).stdout).toMatch(/"ask"/);
    p.write(
      '.hookwise/policy.yml',
      'bash_rules:\n  - command: make\n    args: "^deploy-everything"\n    verdict: deny\n    reason: no deploys\n',
    );
    expect((await viaDaemon(p, raw)).stdout).toMatch(/"deny".*no deploys/);
  });

  it('sees a session registered after it started', async () => {
    const p = makeProject();
    p.write('.hookwise/policy.yml', 'registration:\n  wait_ms: 0\n');
    await start(p);
    const raw = JSON.stringify(p.pre('Write', { file_path: join(p.root, 'src/a.ts'), content: '' }, 'late'));
    expect((await viaDaemon(p, raw)).stdout).toMatch(/"deny"/);
    p.register('late', 'coder');
    expect((await viaDaemon(p, raw)).stdout).toMatch(/"allow"/);
  });

  it('the socket is 0600 in a 0700 directory; the state file names the process', async () => {
    const p = makeProject();
    const d = await start(p);
    expect(lstatSync(d.paths.socket).mode & 0o777).toBe(0o600);
    expect(statSync(p.runtimeDir).mode & 0o777).toBe(0o700);
    expect(d.stats()).toMatchObject({ ok: true, pid: process.pid });
  });

  it('replaces a stale socket left by a dead daemon, and refuses to start beside a live one', async () => {
    const p = makeProject();
    const { socket } = daemonPaths(locations(p.env));
    // What a SIGKILLed daemon leaves: a socket file nobody listens on.
    const { mkdirSync } = await import('node:fs');
    const { spawn } = await import('node:child_process');
    mkdirSync(p.runtimeDir, { recursive: true, mode: 0o700 });
    const child = spawn(
      process.execPath,
      ['-e', `require('net').createServer().listen(${JSON.stringify(socket)}, () => console.log('up'))`],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise((r) => child.stdout.once('data', r));
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    expect(lstatSync(socket).isSocket()).toBe(true);
    const d = await start(p);
    expect(d.stats().ok).toBe(true);
    await expect(serve({ where: locations(p.env) })).rejects.toThrow(/already serves/);
  });

  it('exits when its socket is removed (its runtime directory went away)', async () => {
    const p = makeProject();
    const d = await start(p);
    const { unlinkSync } = await import('node:fs');
    unlinkSync(d.paths.socket);
    await expect(
      Promise.race([d.closed.then(() => 'closed'), new Promise((r) => setTimeout(() => r('still running'), 5000))]),
    ).resolves.toBe('closed');
  });

  it('reload drops cached state; a payload over the size limit fails closed', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    const d = await start(p);
    d.reload();
    const huge = JSON.stringify(
      p.pre('Write', { file_path: join(p.root, 'a'), content: 'x'.repeat(17 * 1024 * 1024) }),
    );
    const r = await viaDaemon(p, huge, 'claude');
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/larger than 16777216 bytes/);
    // A refused payload is a denied call: in the audit log, unread (no session, no tool, no content).
    expect(readAudit(p.runtimeDir).records.map((x) => [x.verdict, x.rule, x.host, x.session])).toEqual([
      ['deny', 'error:INPUT_TOO_LARGE', 'claude', '-'],
    ]);
  });
});

describe('loopback HTTP for Claude Code http hooks', () => {
  const token = 'T'.repeat(43);

  async function withHttp() {
    const p = makeProject();
    p.register('s1', 'coder');
    const d = await start(p, { port: 0, token });
    return { p, port: d.httpPort! };
  }

  it('answers the hook JSON with the right token', async () => {
    const { p, port } = await withHttp();
    const raw = JSON.stringify(p.pre('Bash', { command: 'git push --force origin main' }));
    const r = await httpPost(port, '/v1/hook/claude', raw, {
      authorization: `Bearer ${token}`,
      host: `127.0.0.1:${port}`,
    });
    expect(r.status).toBe(200);
    const { decision: _d, ...inProcess } = await p.check(raw);
    expect(r.body).toBe(inProcess.stdout);
    expect(JSON.parse(r.body).hookSpecificOutput.permissionDecision).toBe('deny');
  });

  it('a failure check reports by exit 2 becomes a blocking answer', async () => {
    const { port } = await withHttp();
    const r = await httpPost(port, '/v1/hook/claude', 'not json', {
      authorization: `Bearer ${token}`,
      host: `127.0.0.1:${port}`,
    });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toMatchObject({
      decision: 'block',
      reason: expect.stringMatching(/hook payload in the HTTP request body is not valid JSON/),
    });
    expect(r.body).not.toContain('stdin');
  });

  it.each([
    ['no token', {}],
    ['a wrong token', { authorization: `Bearer ${'U'.repeat(43)}` }],
    ['a foreign Host (DNS rebinding)', { authorization: `Bearer ${token}`, host: 'evil.example:80' }],
    ['a web page (Origin)', { authorization: `Bearer ${token}`, origin: 'https://evil.example' }],
  ])('refuses %s with a blocking answer', async (_name, headers: Record<string, string>) => {
    const { p, port } = await withHttp();
    const r = await httpPost(port, '/v1/hook/claude', JSON.stringify(p.pre('Bash', { command: 'ls' })), {
      host: `127.0.0.1:${port}`,
      ...headers,
    });
    expect([401, 403]).toContain(r.status);
    expect(JSON.parse(r.body)).toMatchObject({ decision: 'block' });
  });

  it('an unknown endpoint or host gets a blocking answer, not a crash', async () => {
    const { port } = await withHttp();
    const auth = { authorization: `Bearer ${token}`, host: `127.0.0.1:${port}` };
    for (const path of ['/v1/hook/nope', '/v2/whatever']) {
      const r = await httpPost(port, path, '{}', auth);
      expect(r.status).toBeGreaterThanOrEqual(400);
      expect(JSON.parse(r.body)).toMatchObject({ decision: 'block' });
    }
  });
});

describe('the thin client', () => {
  it('says absent when there is no socket, and when the socket refuses', async () => {
    const p = makeProject();
    const where = locations(p.env);
    expect(await askDaemon('{}', where)).toEqual({ kind: 'absent' });
    const { mkdirSync } = await import('node:fs');
    mkdirSync(p.runtimeDir, { recursive: true });
    writeFileSync(daemonPaths(where).socket, ''); // not a socket at all
    expect((await askDaemon('{}', where)).kind).not.toBe('answered');
  });

  it('gives up on a hung daemon after the header time limit', async () => {
    const p = makeProject();
    const where = locations(p.env);
    const { mkdirSync } = await import('node:fs');
    mkdirSync(p.runtimeDir, { recursive: true });
    const hung = createNetServer(() => undefined); // accepts, never answers
    await new Promise<void>((r) => hung.listen(daemonPaths(where).socket, r));
    try {
      const t0 = Date.now();
      const answer = await askDaemon('{}', where, { headerTimeoutMs: 300 });
      expect(answer).toMatchObject({ kind: 'unusable' });
      expect(Date.now() - t0).toBeLessThan(5000);
    } finally {
      hung.close();
    }
  });
});

describe('decision memory in the daemon', () => {
  it('an approval learned through one client is used for the next call of every client, without a rebuild', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    p.register('s2', 'coder');
    const d = await start(p);
    const command = 'make deploy-staging';
    const pre = (session: string) => ({ ...p.pre('Bash', { command }, session), tool_use_id: `toolu_${session}` });
    // s1: asked (nobody decided), then the host reports the tool ran: a human approved it at the prompt.
    expect((await viaDaemon(p, JSON.stringify(pre('s1')))).stdout).toMatch(/"ask"/);
    await viaDaemon(p, JSON.stringify({ ...pre('s1'), hook_event_name: 'PostToolUse', tool_response: {} }));
    // s2, another session of the same user: decided from memory at once.
    const second = JSON.parse((await viaDaemon(p, JSON.stringify(pre('s2')))).stdout) as {
      hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string };
    };
    expect(second.hookSpecificOutput.permissionDecision).toBe('allow');
    expect(second.hookSpecificOutput.permissionDecisionReason).toMatch(/exact-cache/);
    expect(d.stats().decisions).toBe(3);
  });

  it('a record written by another process (hookwise override) applies to the next call', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    await start(p);
    const raw = JSON.stringify(p.pre('Bash', { command: 'make deploy-staging' }));
    expect((await viaDaemon(p, raw)).stdout).toMatch(/"ask"/);
    const { override } = await import('../../src/cli/rules.js');
    const saved = { ...process.env };
    Object.assign(process.env, p.env);
    try {
      const r = await override({ role: 'coder', command: 'make deploy-*', deny: true, scope: 'user' });
      expect(r.exitCode).toBe(0);
    } finally {
      process.env = saved;
    }
    expect((await viaDaemon(p, raw)).stdout).toMatch(/"deny"/);
  });
});

const pgBinaries = findPostgres();
const noPostgres = 'missing' in pgBinaries ? pgBinaries.missing : undefined;
if (noPostgres !== undefined) console.warn(`tests/daemon/server (team store): skipped: ${noPostgres}`);

describe.skipIf(noPostgres !== undefined)('a daemon with a team store', () => {
  let cluster: Cluster;
  const settings = () => ({
    kind: 'postgres' as const,
    url: cluster.url(),
    team: 'daemons',
    user: 'ada',
    source: 'test',
  });
  beforeAll(async () => {
    if ('missing' in pgBinaries) return;
    cluster = startCluster(pgBinaries);
    await migrateTeam(settings());
  }, 60_000);
  afterAll(() => cluster?.stop());

  it('answers a call with a decision learned on another machine, and says it is synced', async () => {
    const a = makeProject();
    const b = makeProject();
    const da = await serve({ where: locations(a.env), store: settings(), embedding: false });
    running.push(da);
    const db = await serve({ where: locations(b.env), store: settings(), embedding: false });
    running.push(db);
    b.register('s1', 'coder');
    const call = JSON.stringify(b.pre('Bash', { command: 'make shipit' }, 's1'));
    const verdict = async (): Promise<string> =>
      (JSON.parse((await viaDaemon(b, call)).stdout) as { hookSpecificOutput: { permissionDecision: string } })
        .hookSpecificOutput.permissionDecision;
    expect(await verdict()).not.toBe('deny');
    rememberSubject(a, await subjectFor(a, 'Bash', { command: 'make shipit' }), 'deny', { scope: 'org' });
    for (let i = 0; i < 200 && (await verdict()) !== 'deny'; i++) await new Promise((r) => setTimeout(r, 25));
    expect(await verdict()).toBe('deny');
    // Synced again at the latest after a reconnection (a loaded machine may drop a connection: the daemon
    // then resends, which the store keeps once — `sent` counts what was sent, not rows).
    for (let i = 0; i < 200 && [da, db].some((d) => d.stats().store?.mode !== 'synced'); i++)
      await new Promise((r) => setTimeout(r, 25));
    expect(db.stats().store, JSON.stringify(db.stats().store)).toMatchObject({
      mode: 'synced',
      team: 'daemons',
      received: 1,
    });
    expect(da.stats().store, JSON.stringify(da.stats().store)).toMatchObject({ mode: 'synced', received: 0 });
    expect(da.stats().store!.sent).toBeGreaterThanOrEqual(1);
  });
});
