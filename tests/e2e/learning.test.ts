/**
 * Decision memory against the REAL Claude Code: a human's answer at the client's own permission prompt
 * is learned, and the next identical call is allowed from memory without asking.
 *
 * The hooks are wired the way a user wires them: `hookwise install --claude` (project scope) writes
 * PreToolUse (the gate) and PostToolUse (learning, synchronous) into `.claude/settings.json`. The client
 * runs in stream-json mode with `--permission-prompt-tool stdio`, so its permission prompt arrives as a
 * `can_use_tool` control request on stdout and the test answers it on stdin, as the human would.
 *
 * Notes on the real client (2.1.330), observed while writing this test:
 *  - a hookwise `ask` reaches the prompt with `decision_reason_type: "hook"` and hookwise's reason;
 *  - an `async: true` PostToolUse hook runs in the background while a stream-json session is open (the
 *    turn's result arrives before it finishes), but a one-shot run (`claude -p`, an SDK session that ends
 *    with its first turn) does not wait for async hooks: one still running when the client exits is killed,
 *    and the approval was lost (issue 17 item 9). So learning is a synchronous hook; it starts Node only
 *    when this session has a pending note, so the usual PostToolUse costs no more than an async one did.
 *
 * Skip with HOOKWISE_SKIP_E2E=1.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAudit } from '../../src/audit/log.js';
import { toolUseId } from './support/fake-anthropic.js';
import { ensureClaude } from './support/install-hosts.js';
import { startClaudeStreamJson } from './support/stream-json.js';
import type { ClaudeStreamSession } from './support/stream-json.js';
import {
  COMMAND,
  installHookwise,
  LEARNED_ALLOW,
  learningSandbox,
  OUTPUT,
  removeSandboxes,
  STAMP,
  userRecords,
  waitForLearned,
  type LearningSandbox as Sandbox,
} from './support/learning.js';

const SKIP = process.env.HOOKWISE_SKIP_E2E === '1';
const INSTALL_TIMEOUT_MS = 10 * 60_000;
/** One wait for the client (a control request, a turn's result, a learned record). CI machines are loaded. */
const WAIT_MS = 60_000;
/** Hard limit for one client process. */
const CLIENT_TIMEOUT_MS = 150_000;
const TEST_TIMEOUT_MS = 2 * CLIENT_TIMEOUT_MS + 30_000;
/** How long "nothing was recorded" is given to prove itself (the allow case records within ~1 s). */
const NEGATIVE_WAIT_MS = 5_000;

const sessions: ClaudeStreamSession[] = [];
afterAll(async () => {
  // A failed test may have left a client running: close (and if need be kill) every one of them.
  await Promise.all(sessions.map((s) => s.close(5_000)));
  removeSandboxes();
});

/** `hookwise install --claude`, running this checkout's build; returns the PostToolUse entry it wrote. */
function installHooks(s: Sandbox): Record<string, unknown> {
  return installHookwise(s).hooks.PostToolUse![0]!.hooks[0]!;
}

/** A new client session registered as a coder, running one Bash call of COMMAND once prompted. */
async function coderSession(s: Sandbox): Promise<ClaudeStreamSession> {
  const sessionId = randomUUID();
  s.hookwise(['register', '--session-id', sessionId, '--role', 'coder']);
  const session = await startClaudeStreamJson({
    cwd: s.project,
    home: s.home,
    env: s.env,
    extraArgs: ['--session-id', sessionId],
    scenario: { toolCalls: [{ name: 'Bash', input: { command: COMMAND, description: 'Deploy to staging' } }] },
    timeoutMs: CLIENT_TIMEOUT_MS,
  });
  sessions.push(session);
  session.sendUserMessage('Deploy to staging.');
  return session;
}

/** Every pending note, as `<session dir>/<note>` (one directory per session, src/memory/learn.ts). */
function pendingNotes(s: Sandbox): string[] {
  const dir = join(s.env.HOOKWISE_RUNTIME_DIR, 'pending');
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((session) => readdirSync(join(dir, session)).map((note) => `${session}/${note}`));
}

function auditOf(s: Sandbox, sessionId: string | undefined): [string, string, string][] {
  return readAudit(s.env.HOOKWISE_RUNTIME_DIR)
    .records.filter((r) => r.session === sessionId)
    .map((r) => [r.tool, r.verdict, r.tier]);
}

describe.skipIf(SKIP)('real Claude Code: hookwise learns from the human at the client’s prompt', () => {
  beforeAll(async () => {
    await ensureClaude();
  }, INSTALL_TIMEOUT_MS);

  it(
    'an allow at the prompt is recorded by the PostToolUse hook, and the next session runs the same command without asking (exact-cache)',
    async () => {
      const s = learningSandbox('learning');
      const post = installHooks(s);
      expect(post, 'install wires learning as a synchronous PostToolUse hook').toMatchObject({ type: 'command' });
      expect(post).not.toHaveProperty('async');

      // ── Run 1: hookwise has no opinion, so it asks; the human allows at the client's prompt. ──
      const first = await coderSession(s);
      const started = Date.now();
      const prompt = await first.waitForPermissionRequest(0, WAIT_MS);
      const promptedMs = Date.now() - started;
      expect(prompt, first.describe()).toMatchObject({
        toolName: 'Bash',
        toolUseId: toolUseId(0),
        decisionReasonType: 'hook',
        input: { command: COMMAND },
      });
      expect(String(prompt.raw.decision_reason)).toContain('hookwise ask [tier default]');
      expect(pendingNotes(s), 'hookwise left a pending note for this tool_use_id').toHaveLength(1);
      expect(userRecords(s), 'nothing is learned before the human answers').toEqual([]);

      first.answerPermission(prompt, { behavior: 'allow' });
      const result1 = await first.waitForResult(0, WAIT_MS);
      expect(result1, first.describe()).toMatchObject({ subtype: 'success', is_error: false });
      // The tool really ran, and the model got its output.
      expect(first.server.toolResults(), first.describe()).toEqual([
        expect.objectContaining({ toolUseId: toolUseId(0), isError: false, text: OUTPUT }),
      ]);
      expect(existsSync(join(s.project, STAMP))).toBe(true);

      // The PostToolUse hook (same tool_use_id) records the human's allow in the user scope.
      const record = await waitForLearned(s, WAIT_MS);
      const learnedMs = Date.now() - started;
      expect(
        record,
        `no host-prompt record in ${s.userRules}: ${JSON.stringify(userRecords(s))}\n${first.describe()}`,
      ).toMatchObject(LEARNED_ALLOW);
      expect(pendingNotes(s), 'the pending note was consumed').toEqual([]);
      expect(auditOf(s, first.sessionId)).toEqual([['Bash', 'ask', 'default']]);
      const exit1 = await first.close();
      expect(exit1, first.describe()).toMatchObject({ exitCode: 0, killed: false });

      // ── Run 2: a new coder session; the same command is allowed by hookwise from memory. ──
      rmSync(join(s.project, STAMP));
      const second = await coderSession(s);
      // Whichever comes first: a prompt (fail at once, rather than leave the client waiting) or the result.
      const end2 = await second.waitFor((e) => e.type === 'result' || e.type === 'control_request', {
        timeoutMs: WAIT_MS,
        label: 'the result (or a prompt)',
      });
      expect(second.permissionRequests(), `the client did not prompt: the hook allowed\n${second.describe()}`).toEqual(
        [],
      );
      expect(end2, second.describe()).toMatchObject({ type: 'result', subtype: 'success', is_error: false });
      expect(second.server.toolResults(), second.describe()).toEqual([
        expect.objectContaining({ toolUseId: toolUseId(0), isError: false, text: OUTPUT }),
      ]);
      expect(existsSync(join(s.project, STAMP))).toBe(true);
      expect(auditOf(s, second.sessionId)).toEqual([['Bash', 'allow', 'exact-cache']]);
      expect(pendingNotes(s), 'an allow leaves no pending note').toEqual([]);
      const exit2 = await second.close();
      expect(exit2, second.describe()).toMatchObject({ exitCode: 0, killed: false });
      // Still the one learned record: nothing more was learned from the cached allow.
      expect(userRecords(s)).toHaveLength(1);

      console.log(`[learning e2e] prompt after ${promptedMs} ms, record learned ${learnedMs} ms after start`);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a one-shot session (input closed right after the approval) learns before the client exits',
    async () => {
      const s = learningSandbox('learning-oneshot');
      installHooks(s);
      const session = await coderSession(s);
      const prompt = await session.waitForPermissionRequest(0, WAIT_MS);
      expect(prompt, session.describe()).toMatchObject({
        toolName: 'Bash',
        decisionReasonType: 'hook',
        input: { command: COMMAND },
      });
      session.answerPermission(prompt, { behavior: 'allow' });
      // Like a script that asks one thing and is done: the client finishes the turn and exits, and the
      // test harness then kills whatever it left running (as the client does with its async hooks).
      const exit = await session.close(WAIT_MS);
      expect(exit, session.describe()).toMatchObject({ exitCode: 0, killed: false });
      expect(session.server.toolResults(), session.describe()).toEqual([
        expect.objectContaining({ toolUseId: toolUseId(0), isError: false, text: OUTPUT }),
      ]);
      // Learned by the time the client is gone, with no waiting afterwards.
      expect(userRecords(s), session.describe()).toEqual([expect.objectContaining(LEARNED_ALLOW)]);
      expect(pendingNotes(s)).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a deny at the prompt records nothing: the tool does not run and no PostToolUse comes',
    async () => {
      const s = learningSandbox('learning');
      installHooks(s);
      const session = await coderSession(s);
      const prompt = await session.waitForPermissionRequest(0, WAIT_MS);
      expect(prompt, session.describe()).toMatchObject({
        toolName: 'Bash',
        decisionReasonType: 'hook',
        input: { command: COMMAND },
      });
      const message = 'The human said no at the prompt.';
      session.answerPermission(prompt, { behavior: 'deny', message });
      const result = await session.waitForResult(0, WAIT_MS);
      expect(result, session.describe()).toMatchObject({ type: 'result' });
      const [toolResult] = session.server.toolResults();
      expect(toolResult, session.describe()).toMatchObject({ toolUseId: toolUseId(0), isError: true });
      expect(toolResult!.text).toContain(message);
      expect(existsSync(join(s.project, STAMP)), 'the command did not run').toBe(false);

      // Give a (wrongly) fired PostToolUse hook ample time, with the session still open.
      await sleep(NEGATIVE_WAIT_MS);
      expect(userRecords(s), 'nothing learned from a deny').toEqual([]);
      expect(existsSync(s.userRules)).toBe(false);
      // hookwise did ask (the note is there), it just never learned the human approved.
      expect(pendingNotes(s)).toHaveLength(1);
      expect(auditOf(s, session.sessionId)).toEqual([['Bash', 'ask', 'default']]);
      const exit = await session.close();
      expect(exit, session.describe()).toMatchObject({ exitCode: 0, killed: false });
    },
    TEST_TIMEOUT_MS,
  );
});
