/**
 * The queue across real processes, as hosts and humans use it: a `hookwise check` process (dist/hookwise.cjs)
 * waits, a `hookwise approve` process answers. Measured: from the approve process's start, and from its end,
 * to the waiting check process's exit — without a daemon (files, fs.watch) and with one (the thin client
 * waits on the daemon's memory queue). Medians printed; needs dist/ (node scripts/build.mjs).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { serve, type RunningDaemon } from '../../src/daemon/server.js';
import { locations } from '../../src/util/locations.js';
import { makeProject, type TestProject } from '../support/project.js';
import { median, queueMode, until } from '../queue/support.js';
import { BIN } from './support/learning.js';

const ROUNDS = 8;
const running: RunningDaemon[] = [];
afterEach(async () => {
  while (running.length > 0) await running.pop()!.close();
});

function spawnHookwise(
  p: TestProject,
  args: string[],
  stdin?: string,
  daemon = false,
): Promise<{ code: number | null; stdout: string; end: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: p.root,
      env: { ...p.env, ...(daemon ? {} : { HOOKWISE_DAEMON: 'off' }) },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, end: performance.now() }));
    child.stdin.end(stdin ?? '');
  });
}

async function rounds(p: TestProject, daemon: boolean): Promise<{ fromStart: number[]; fromEnd: number[] }> {
  const fromStart: number[] = [];
  const fromEnd: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const waiting = spawnHookwise(
      p,
      ['check', '--host', 'claude'],
      JSON.stringify(p.pre('Bash', { command: `make deploy-${i}` })),
      daemon,
    );
    const listed = await until(
      async () =>
        JSON.parse((await spawnHookwise(p, ['queue', '--json'], undefined, daemon)).stdout) as {
          items: { id: string }[];
        },
      (s) => s.items.length === 1,
    );
    const t0 = performance.now();
    const approve = await spawnHookwise(p, ['approve', listed.items[0]!.id], undefined, daemon);
    const check = await waiting;
    expect(approve.code).toBe(0);
    expect(JSON.parse(check.stdout)).toMatchObject({ hookSpecificOutput: { permissionDecision: 'allow' } });
    fromStart.push(check.end - t0);
    fromEnd.push(check.end - approve.end);
  }
  return { fromStart, fromEnd };
}

describe.skipIf(!existsSync(BIN))('the queue across real processes (dist/hookwise.cjs)', () => {
  it('files: check process waits, approve process answers', async () => {
    const p = makeProject();
    queueMode(p);
    p.register('s1', 'coder');
    const { fromStart, fromEnd } = await rounds(p, false);
    console.log(
      `files: approve process start → check exits: median ${median(fromStart).toFixed(1)} ms; approve exits → check exits: median ${median(fromEnd).toFixed(1)} ms (${ROUNDS} rounds)`,
    );
    expect(median(fromEnd)).toBeLessThan(100);
  }, 60_000);

  it('daemon: the thin client waits in the daemon, approve answers over the socket', async () => {
    const p = makeProject();
    queueMode(p);
    p.register('s1', 'coder');
    running.push(await serve({ where: locations(p.env), embedding: false }));
    const { fromStart, fromEnd } = await rounds(p, true);
    console.log(
      `daemon: approve process start → check exits: median ${median(fromStart).toFixed(1)} ms; approve exits → check exits: median ${median(fromEnd).toFixed(1)} ms (${ROUNDS} rounds)`,
    );
    expect(median(fromEnd)).toBeLessThan(100);
  }, 60_000);
});
