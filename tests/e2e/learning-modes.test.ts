/**
 * Decision memory in every Claude Code permission mode, against the REAL client: hookwise learns an allow
 * only from a human who approved at the client's prompt.
 *
 * Learning rests on one assumption: when hookwise's PreToolUse answers `ask` (tier `default`) and the
 * tool then runs (PostToolUse with the same tool_use_id), a human approved it. That holds only in the
 * permission modes in which the client puts a hook's `ask` to a human instead of settling it itself (by
 * mode, classifier or rule). This file pins, mode by mode, what the pinned client (2.1.330) does with
 * hookwise's `ask`, and what hookwise must learn from it.
 *
 * Observed with the real client, stream-json with `--permission-prompt-tool stdio` (the prompt arrives as a
 * `can_use_tool` control request), a Bash call and a Write to a new project file, both `ask` tier `default`:
 *  - in ALL six modes (default, acceptEdits, plan, auto, dontAsk, bypassPermissions) hookwise's `ask`
 *    reaches the human as a `can_use_tool` request with `decision_reason_type: "hook"`; the tool runs only
 *    after an allow, and PostToolUse fires only then. A hook's `ask` is a floor no mode lowers;
 *  - without hookwise the same calls behave per mode (the mode really is in effect): acceptEdits and auto
 *    write the file unasked, bypassPermissions runs both unasked, dontAsk denies both unasked, and auto and
 *    plan deny the Bash call unasked ("Auto mode is unavailable: its safety check does not run for this
 *    session" — the fake API serves no classifier). With hookwise's `ask` the client calls no classifier;
 *  - PreToolUse and PostToolUse payloads carry `permission_mode` equal to `--permission-mode` (checked
 *    here with a second, logging hook, since hookwise's audit log does not keep it).
 * So no mode runs a tool unprompted after hookwise's `ask`, and each mode must learn from the human: an
 * allow is recorded, a deny teaches nothing. If a client bump ever runs the tool without a prompt in some
 * mode, the prompt assertion below fails for that mode — hookwise must then NOT learn there, and this test
 * must say so for that mode.
 *
 * Skip with HOOKWISE_SKIP_E2E=1.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAudit } from '../../src/audit/log.js';
import { toolUseId } from './support/fake-anthropic.js';
import { ensureClaude } from './support/install-hosts.js';
import { startClaudeStreamJson } from './support/stream-json.js';
import type { ClaudePermissionMode, ClaudeStreamSession, PermissionRequest } from './support/stream-json.js';
import {
  COMMAND,
  installHookwise,
  learningSandbox,
  OUTPUT,
  removeSandboxes,
  STAMP,
  userRecords,
  waitForLearned,
  type LearningSandbox,
} from './support/learning.js';

const SKIP = process.env.HOOKWISE_SKIP_E2E === '1';
const INSTALL_TIMEOUT_MS = 10 * 60_000;
/** One wait for the client (a control request, a turn's result, a learned record). CI machines are loaded. */
const WAIT_MS = 60_000;
/** Hard limit for one client process. */
const CLIENT_TIMEOUT_MS = 150_000;
const TEST_TIMEOUT_MS = CLIENT_TIMEOUT_MS + 30_000;
/** How long "nothing was recorded" is given to prove itself (an allow is recorded within ~1 s). */
const NEGATIVE_WAIT_MS = 5_000;

const MODES: readonly ClaudePermissionMode[] = [
  'default',
  'acceptEdits',
  'plan',
  'auto',
  'dontAsk',
  'bypassPermissions',
];

/** No hookwise tier decides these for a coder (tier `default` → ask). The Makefile makes COMMAND harmless. */
const NOTE = join('notes', 'x.txt');
const ASK_REASON = 'hookwise ask [tier default]';

const sessions: ClaudeStreamSession[] = [];
afterAll(async () => {
  // A failed test may have left a client running: close (and if need be kill) every one of them.
  await Promise.all(sessions.map((s) => s.close(5_000)));
  removeSandboxes();
});

/** A command hook that stores its stdin (the raw payload) as one file per call: no interleaved appends. */
const LOGGER = `import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
const text = readFileSync(0, 'utf8');
writeFileSync(join(process.argv[2], randomUUID() + '.json'), text);
`;

interface Sandbox extends LearningSandbox {
  /** Where the logging hook leaves the raw hook payloads, one file each. */
  payloadDir: string;
}

function sandbox(mode: ClaudePermissionMode): Sandbox {
  const s = learningSandbox(`modes-${mode}`);
  const payloadDir = join(s.base, 'payloads');
  mkdirSync(payloadDir);
  writeFileSync(join(s.base, 'log-payload.mjs'), LOGGER);
  return { ...s, payloadDir };
}

/**
 * `hookwise install --claude` (as a user wires it), plus a logging hook on PreToolUse and PostToolUse that
 * records the raw payloads, `permission_mode` included. It answers nothing, so it leaves hookwise's
 * decision alone.
 */
function installHooks(s: Sandbox): void {
  const { file, hooks } = installHookwise(s);
  const settings = { hooks };
  const logger = {
    type: 'command',
    command: [process.execPath, join(s.payloadDir, '..', 'log-payload.mjs'), s.payloadDir]
      .map((a) => JSON.stringify(a))
      .join(' '),
    timeout: 30,
  };
  for (const event of ['PreToolUse', 'PostToolUse']) {
    settings.hooks[event] = [...(settings.hooks[event] ?? []), { matcher: '*', hooks: [logger] }];
  }
  writeFileSync(file, `${JSON.stringify(settings, null, 2)}\n`);
}

interface Payload {
  hook_event_name?: unknown;
  tool_name?: unknown;
  tool_use_id?: unknown;
  permission_mode?: unknown;
}

/** The logged payloads as [event, tool, tool_use_id, permission_mode], sorted (hooks run concurrently). */
function payloads(s: Sandbox): string[][] {
  return readdirSync(s.payloadDir)
    .map((f) => JSON.parse(readFileSync(join(s.payloadDir, f), 'utf8')) as Payload)
    .map((p) => [p.hook_event_name, p.tool_name, p.tool_use_id, p.permission_mode].map(String))
    .sort((a, b) => a.join(' ').localeCompare(b.join(' ')));
}

function auditOf(s: Sandbox, sessionId: string | undefined): [string, string, string][] {
  return readAudit(s.env.HOOKWISE_RUNTIME_DIR)
    .records.filter((r) => r.session === sessionId)
    .map((r) => [r.tool, r.verdict, r.tier]);
}

/** The next prompt, or — failing at once rather than waiting out the timeout — the turn's end without one. */
async function nextPrompt(
  session: ClaudeStreamSession,
  from: number,
  mode: ClaudePermissionMode,
  what: string,
): Promise<PermissionRequest> {
  const event = await session.waitFor(
    (e) =>
      e.type === 'result' ||
      (e.type === 'control_request' && (e.request as { subtype?: unknown } | undefined)?.subtype === 'can_use_tool'),
    {
      from,
      timeoutMs: WAIT_MS,
      label: `the prompt for the ${what} (or the result)`,
    },
  );
  const prompt = session.permissionRequests().find((r) => r.requestId === event.request_id);
  expect(
    prompt,
    `mode ${mode}: the client settled hookwise's ask for the ${what} without a human prompt. Learning assumes a tool that ran after an ask was approved by a human; in this mode that no longer holds, so hookwise must not learn here.\n${session.describe()}`,
  ).toBeDefined();
  return prompt!;
}

describe.skipIf(SKIP)(
  'real Claude Code, every permission mode: hookwise learns only what a human approved at the prompt',
  () => {
    beforeAll(async () => {
      await ensureClaude();
    }, INSTALL_TIMEOUT_MS);

    it.each(MODES)(
      '--permission-mode %s: hookwise’s ask reaches the human; an allow there is learned, a deny is not',
      async (mode) => {
        const s = sandbox(mode);
        installHooks(s);
        const sessionId = randomUUID();
        s.hookwise(['register', '--session-id', sessionId, '--role', 'coder']);
        const notePath = join(s.project, NOTE);
        const session = await startClaudeStreamJson({
          cwd: s.project,
          home: s.home,
          env: s.env,
          permissionMode: mode,
          extraArgs: ['--session-id', sessionId],
          scenario: {
            toolCalls: [
              { name: 'Bash', input: { command: COMMAND, description: 'Deploy to staging' } },
              { name: 'Write', input: { file_path: notePath, content: 'hello\n' } },
            ],
          },
          timeoutMs: CLIENT_TIMEOUT_MS,
        });
        sessions.push(session);
        const started = Date.now();
        session.sendUserMessage('Deploy to staging, then write a note.');

        // ── Bash: hookwise asks, the client prompts, the human allows. ──
        const bash = await nextPrompt(session, 0, mode, 'Bash call');
        expect(bash, session.describe()).toMatchObject({
          toolName: 'Bash',
          toolUseId: toolUseId(0),
          decisionReasonType: 'hook',
          input: { command: COMMAND },
        });
        expect(String(bash.raw.decision_reason)).toContain(ASK_REASON);
        expect(userRecords(s), 'nothing is learned before the human answers').toEqual([]);
        session.answerPermission(bash, { behavior: 'allow' });

        // ── Write (a new file no role list covers): hookwise asks, the client prompts, the human denies. ──
        const afterBash =
          session.events.findIndex((e) => e.type === 'control_request' && e.request_id === bash.requestId) + 1;
        const write = await nextPrompt(session, afterBash, mode, 'Write call');
        expect(write, session.describe()).toMatchObject({
          toolName: 'Write',
          toolUseId: toolUseId(1),
          decisionReasonType: 'hook',
          input: { file_path: notePath },
        });
        expect(String(write.raw.decision_reason)).toContain(ASK_REASON);
        session.answerPermission(write, { behavior: 'deny', message: 'The human said no at the prompt.' });

        const result = await session.waitForResult(0, WAIT_MS);
        expect(result, session.describe()).toMatchObject({ subtype: 'success', is_error: false });
        expect(session.permissionRequests(), 'exactly the two prompts').toHaveLength(2);
        const [bashResult, writeResult] = session.server.toolResults();
        // Each tool did what the human said: Bash ran, Write did not.
        expect(bashResult, session.describe()).toMatchObject({ toolUseId: toolUseId(0), isError: false, text: OUTPUT });
        expect(existsSync(join(s.project, STAMP))).toBe(true);
        expect(writeResult, session.describe()).toMatchObject({ toolUseId: toolUseId(1), isError: true });
        expect(existsSync(notePath), 'the denied Write did not run').toBe(false);

        // ── Memory: the approved Bash call is learned (async PostToolUse), the denied Write is not. ──
        const record = await waitForLearned(s, WAIT_MS);
        const learnedMs = Date.now() - started;
        expect(
          record,
          `mode ${mode}: no host-prompt allow in ${s.userRules} although the human approved at the prompt: ${JSON.stringify(userRecords(s))}`,
        ).toMatchObject({
          tool: 'Bash',
          subject: COMMAND,
          role: 'coder',
          verdict: 'allow',
          tier: 'human',
          scope: 'user',
          decided_by: 'host-prompt',
        });
        // Give a (wrongly) recorded Write ample time, with the session still open.
        await sleep(NEGATIVE_WAIT_MS);
        expect(
          userRecords(s).filter((r) => r.tool === 'Write'),
          'nothing learned from the denied Write',
        ).toEqual([]);
        expect(userRecords(s), 'the one learned record').toHaveLength(1);
        expect(auditOf(s, sessionId)).toEqual([
          ['Bash', 'ask', 'default'],
          ['Write', 'ask', 'default'],
        ]);

        // ── The hooks saw the mode: both PreToolUse calls, and PostToolUse only for the Bash call that ran. ──
        expect(payloads(s)).toEqual([
          ['PostToolUse', 'Bash', toolUseId(0), mode],
          ['PreToolUse', 'Bash', toolUseId(0), mode],
          ['PreToolUse', 'Write', toolUseId(1), mode],
        ]);

        const exit = await session.close();
        expect(exit, session.describe()).toMatchObject({ exitCode: 0, killed: false });
        console.log(
          `[learning-modes e2e] ${mode}: learned ${learnedMs} ms after start, ${Date.now() - started} ms in all`,
        );
      },
      TEST_TIMEOUT_MS,
    );
  },
);
