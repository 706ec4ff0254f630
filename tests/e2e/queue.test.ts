/**
 * The human queue against the REAL Claude Code, headless (`claude -p`): an ask that would be denied unseen in
 * `-p` mode waits in hookwise's queue instead; a background step answers it with `hookwise approve`, as a
 * human at another terminal would, and the tool runs. Hooks wired by `hookwise install --claude` (command
 * wiring, no daemon: the check process waits on the queue files).
 *
 * Skip with HOOKWISE_SKIP_E2E=1.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureClaude } from './support/install-hosts.js';
import { runClaude } from './support/run-host.js';
import {
  BIN,
  COMMAND,
  installHookwise,
  learningSandbox,
  OUTPUT,
  removeSandboxes,
  STAMP,
  userRecords,
  type LearningSandbox,
} from './support/learning.js';

const SKIP = process.env.HOOKWISE_SKIP_E2E === '1';
const INSTALL_TIMEOUT_MS = 10 * 60_000;
const RUN_TIMEOUT_MS = 120_000;
const run = promisify(execFile);

afterAll(() => removeSandboxes());

/** `hookwise <args>` in the sandbox, without blocking the event loop (the client runs meanwhile). */
async function hookwise(s: LearningSandbox, args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, [BIN, ...args], {
    cwd: s.project,
    env: { ...process.env, HOME: s.home, ...s.env, HOOKWISE_DAEMON: 'off' },
  });
  return stdout;
}

/** Like a human watching `hookwise queue`: the first item that appears is approved. */
async function approveFirst(
  s: LearningSandbox,
  deadline: number,
): Promise<{ id: string; call: string; approvedAt: number }> {
  while (Date.now() < deadline) {
    const { items } = JSON.parse(await hookwise(s, ['queue', '--json'])) as { items: { id: string; call: string }[] };
    if (items.length > 0) {
      await hookwise(s, ['approve', items[0]!.id]);
      return { ...items[0]!, approvedAt: Date.now() };
    }
    await sleep(100);
  }
  throw new Error('no queue item appeared');
}

describe.skipIf(SKIP)('the human queue answers a headless Claude Code run', () => {
  beforeAll(async () => {
    await ensureClaude();
  }, INSTALL_TIMEOUT_MS);

  it(
    'claude -p: the ask waits in the queue, `hookwise approve` answers it, the tool runs and the approval is remembered',
    async () => {
      const s = learningSandbox('queue');
      mkdirSync(join(s.project, '.hookwise'), { recursive: true });
      writeFileSync(join(s.project, '.hookwise', 'policy.yml'), 'human:\n  channel: queue\n  timeout: 60s\n');
      const installed = installHookwise(s);
      expect(installed.hooks.PreToolUse![0]!.hooks[0]).toMatchObject({ timeout: 600 }); // above the queue's timeout
      const sessionId = randomUUID();
      await hookwise(s, ['register', '--session-id', sessionId, '--role', 'coder']);
      const started = Date.now();
      const approving = approveFirst(s, started + RUN_TIMEOUT_MS);
      const result = await runClaude({
        cwd: s.project,
        home: s.home,
        env: { ...s.env, HOOKWISE_DAEMON: 'off' },
        extraArgs: ['--session-id', sessionId],
        prompt: 'Deploy to staging.',
        scenario: { toolCalls: [{ name: 'Bash', input: { command: COMMAND, description: 'Deploy to staging' } }] },
        timeoutMs: RUN_TIMEOUT_MS,
      });
      const approved = await approving;
      const why = `exit ${result.exitCode}\n${result.stderr.slice(-1500)}\n${JSON.stringify(result.toolResults, null, 1)}`;
      expect(result.exitCode, why).toBe(0);
      expect(approved.call).toBe(COMMAND);
      expect(result.toolResults[0], why).toMatchObject({ isError: false });
      expect(result.toolResults[0]!.text).toContain(OUTPUT);
      expect(existsSync(join(s.project, STAMP))).toBe(true);
      expect(userRecords(s)).toEqual([
        expect.objectContaining({
          subject: COMMAND,
          verdict: 'allow',
          decided_by: 'human',
          tier: 'human',
          role: 'coder',
        }),
      ]);
      console.log(
        `real Claude Code: queued ask answered by hookwise approve; run took ${Date.now() - started} ms, approve at +${approved.approvedAt - started} ms`,
      );
    },
    RUN_TIMEOUT_MS + 30_000,
  );
});
