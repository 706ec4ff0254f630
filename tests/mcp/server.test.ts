/**
 * `hookwise mcp` over stdio, as Claude Code starts it (dist/hookwise.cjs): JSON-RPC 2.0, one message a line.
 * The lead lists and answers a supervise item: without a daemon through the queue files, with one through its
 * socket (the waiting call is served by the daemon's engine). Needs dist/ (node scripts/build.mjs).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { askDaemon } from '../../src/daemon/client.js';
import { serve, type RunningDaemon } from '../../src/daemon/server.js';
import { FileQueue } from '../../src/queue/file-queue.js';
import type { QueueSnapshot } from '../../src/queue/combined.js';
import { SessionRegistry } from '../../src/session/registry.js';
import { superviseItem } from '../../src/supervisor/agent.js';
import { locations } from '../../src/util/locations.js';
import { checksummedToken } from '../sanitize/fakes.js';
import { BIN } from '../e2e/support/learning.js';
import { makeProject, type TestProject } from '../support/project.js';
import { median, until } from '../queue/support.js';

const SECRET = checksummedToken('ghp_', { seed: 11 });
const running: RunningDaemon[] = [];
const children: ChildProcessWithoutNullStreams[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) c.kill();
  while (running.length > 0) await running.pop()!.close();
});

/** A JSON-RPC client over the spawned server's stdio. */
function mcp(p: TestProject): {
  request(method: string, params?: unknown): Promise<Record<string, unknown>>;
  notify(method: string): void;
  raw(line: string): Promise<Record<string, unknown>>;
  stdout: string[];
} {
  const child = spawn(process.execPath, [BIN, 'mcp'], { cwd: p.root, env: p.env, stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  const waiting: ((v: Record<string, unknown>) => void)[] = [];
  const stdout: string[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    stdout.push(line);
    waiting.shift()?.(JSON.parse(line) as Record<string, unknown>);
  });
  let next = 1;
  const raw = (line: string): Promise<Record<string, unknown>> =>
    new Promise((resolve) => {
      waiting.push(resolve);
      child.stdin.write(line + '\n');
    });
  return {
    request: (method, params) =>
      raw(JSON.stringify({ jsonrpc: '2.0', id: next++, method, ...(params === undefined ? {} : { params }) })),
    notify: (method) => child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method }) + '\n'),
    raw,
    stdout,
  };
}

const toolText = (response: Record<string, unknown>): { text: string; isError: boolean } => {
  const result = response.result as { content: { text: string }[]; isError?: boolean };
  return { text: result.content[0]!.text, isError: result.isError === true };
};

describe.skipIf(!existsSync(BIN))('hookwise mcp over stdio (dist/hookwise.cjs)', () => {
  it('speaks the protocol: initialize, initialized, ping, tools/list, errors for unknown methods and bad lines', async () => {
    const p = makeProject();
    const c = mcp(p);
    const init = await c.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'test', version: '0' },
    });
    expect(init.result).toMatchObject({
      protocolVersion: '2025-06-18',
      capabilities: { tools: {} },
      serverInfo: { name: 'hookwise' },
    });
    c.notify('notifications/initialized'); // no response: the next line answers the ping
    expect(await c.request('ping')).toMatchObject({ id: 2, result: {} });
    const list = await c.request('tools/list');
    const tools = (list.result as { tools: { name: string; inputSchema: { required?: string[] } }[] }).tools;
    expect(tools.map((t) => t.name)).toEqual(['pending_requests', 'answer_request']);
    expect(tools[1]!.inputSchema.required).toEqual(['id', 'decision', 'confidence', 'reason']);
    expect(await c.request('resources/list')).toMatchObject({ error: { code: -32601 } });
    expect(await c.raw('{not json')).toMatchObject({ id: null, error: { code: -32700 } });
    expect(
      toolText(
        await c.request('tools/call', {
          name: 'answer_request',
          arguments: { id: 'zzzzzzzzzz', decision: 'allow', confidence: 1, reason: 'x' },
        }),
      ),
    ).toMatchObject({ isError: true, text: expect.stringMatching(/no pending queue item zzzzzzzzzz/) });
  }, 30_000);

  it('files: lists a supervise item (sanitized) and answers it; the waiting call gets the answer', async () => {
    const p = makeProject();
    const files = new FileQueue(p.runtimeDir, { recheckMs: 20 });
    const request = superviseItem({
      tool: 'Bash' as never,
      action: 'shell',
      call: `curl -H "token ${SECRET}"` as never,
      paths: [],
      projectRoot: p.root as never,
      cwd: p.root as never,
      role: { name: 'coder', description: '' as never, allowWrite: [], denyWrite: [], allowRead: [] },
      passed: [],
      neighbours: [],
      sessionId: 's1' as never,
      session: { task: 'a task' as never },
    });
    // The item as tier 3 would make it; the text planted raw to show the server sanitizes on the way out too.
    const waiting = files.wait(request, 20_000);
    const c = mcp(p);
    await c.request('initialize', { protocolVersion: '2024-11-05' });
    const listed = toolText(await c.request('tools/call', { name: 'pending_requests', arguments: {} }));
    expect(listed.text).not.toContain(SECRET);
    const items = (
      JSON.parse(listed.text) as { items: { id: string; kind: string; role: string; waiting: number; age_s: number }[] }
    ).items;
    expect(items).toEqual([expect.objectContaining({ kind: 'supervise', role: 'coder', waiting: 1 })]);
    const answered = toolText(
      await c.request('tools/call', {
        name: 'answer_request',
        arguments: { id: items[0]!.id, decision: 'deny', confidence: 0.9, reason: `leaks ${SECRET}` },
      }),
    );
    expect(answered).toMatchObject({ isError: false, text: expect.stringMatching(/1 waiting call answered/) });
    const outcome = await waiting;
    expect(outcome).toMatchObject({
      kind: 'answered',
      answer: { via: 'mcp', supervisor: { decision: 'deny', confidence: 0.9 } },
    });
    expect(JSON.stringify(outcome)).not.toContain(SECRET);
    expect(c.stdout.join('\n')).not.toContain(SECRET);
  }, 30_000);

  it('daemon: a call the daemon serves waits in its memory queue; the MCP server answers over the socket', async () => {
    const p = makeProject();
    p.write(`${p.configDir}/config.yml`, 'supervisor:\n  backend: agent\n  confidence: 0.8\n  timeout: 20\n');
    p.write('.hookwise/policy.yml', 'registration:\n  wait_ms: 0\n');
    new SessionRegistry(p.runtimeDir).update('s1', (_e, now) => ({
      session_id: 's1',
      role: 'coder',
      disabled: false,
      registered_at: now,
      updated_at: now,
    }));
    const where = locations(p.env);
    running.push(await serve({ where, embedding: false }));
    const waiting = askDaemon(JSON.stringify(p.pre('Bash', { command: 'make deploy-staging' })), where);
    const c = mcp(p);
    await c.request('initialize', {});
    const snap = await until(
      async () =>
        JSON.parse(toolText(await c.request('tools/call', { name: 'pending_requests' })).text) as Pick<
          QueueSnapshot,
          'items'
        >,
      (s) => s.items.length === 1,
    );
    // The same snapshot the in-process handler reads from the daemon's socket.
    expect(snap.items[0]).toMatchObject({ kind: 'supervise', call: 'make deploy-staging' });
    const answered = toolText(
      await c.request('tools/call', {
        name: 'answer_request',
        arguments: { id: snap.items[0]!.id, decision: 'allow', confidence: 0.95, reason: 'the task' },
      }),
    );
    expect(answered.isError).toBe(false);
    const out = await waiting;
    expect(out.kind).toBe('answered');
    const hook = JSON.parse(out.kind === 'answered' ? (out.result.stdout ?? '') : '{}') as {
      hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string };
    };
    expect(hook.hookSpecificOutput).toMatchObject({
      permissionDecision: 'allow',
      permissionDecisionReason: expect.stringContaining('rule supervisor:agent'),
    });
    // Measured: the MCP request for answer_request sent → the daemon's waiting call returns to its client.
    const times: number[] = [];
    for (let i = 0; i < 10; i++) {
      const pending = askDaemon(
        JSON.stringify({ ...p.pre('Bash', { command: `make deploy-${i}` }), tool_use_id: `toolu_${i}` }),
        where,
      );
      const listed = await until(
        async () =>
          JSON.parse(toolText(await c.request('tools/call', { name: 'pending_requests' })).text) as Pick<
            QueueSnapshot,
            'items'
          >,
        (s) => s.items.length === 1,
      );
      let returned = 0;
      const done = pending.then((r) => ((returned = performance.now()), r));
      const t0 = performance.now();
      await c.request('tools/call', {
        name: 'answer_request',
        arguments: { id: listed.items[0]!.id, decision: 'allow', confidence: 0.95, reason: 'the task' },
      });
      expect((await done).kind).toBe('answered');
      times.push(returned - t0);
    }
    console.log(
      `hookwise mcp → daemon socket → waiting call returns: median ${median(times).toFixed(1)} ms (10 rounds)`,
    );
    expect(median(times)).toBeLessThan(100);
  }, 30_000);
});
