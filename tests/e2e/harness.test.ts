/**
 * Proves the e2e harness itself: the REAL Claude Code and Gemini CLI, driven by the fake model APIs, obey
 * a trivial PreToolUse / BeforeTool hook (not hookwise) that denies writes to "denied*" files and allows
 * everything else. The hook also logs every payload it receives, which pins the payload shapes hookwise
 * relies on.
 *
 * Skip with HOOKWISE_SKIP_E2E=1 (e.g. on a machine without registry access). First run installs the hosts
 * (~380 MB for Claude Code) into node_modules/.cache/hookwise-e2e.
 *
 * HOOKWISE_E2E_UPDATE_FIXTURES=1 rewrites tests/fixtures/payloads/<host>/<Event>.json from this run.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolUseId } from './support/fake-anthropic.js';
import { functionCallId } from './support/fake-gemini.js';
import { ensureClaude, ensureGemini } from './support/install-hosts.js';
import { claudeHooksForEvents, geminiHooksForEvents, runClaude, runGemini } from './support/run-host.js';
import type { HostRunResult } from './support/run-host.js';

const SKIP = process.env.HOOKWISE_SKIP_E2E === '1';
const UPDATE_FIXTURES = process.env.HOOKWISE_E2E_UPDATE_FIXTURES === '1';
const FIXTURES_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../fixtures/payloads');

const INSTALL_TIMEOUT_MS = 10 * 60_000;
const RUN_TIMEOUT_MS = 90_000;

const CLAUDE_EVENTS = ['PreToolUse', 'PostToolUse', 'UserPromptSubmit', 'SessionStart'] as const;
const GEMINI_EVENTS = ['BeforeTool', 'AfterTool', 'BeforeAgent', 'SessionStart'] as const;

const DENY_REASON = 'hookwise-e2e: writing denied.txt is not allowed';
const CONTENT = 'hello from the hookwise e2e harness\n';

/**
 * The trivial hook under test. Node rather than sh so it can parse the payload properly (a substring match
 * on raw JSON could hit the prompt or a temp path). Each invocation writes its own log file: hooks may run
 * concurrently, and one file per call can't interleave.
 */
const HOOK_SCRIPT = String.raw`
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

const [host, logDir, mode] = process.argv.slice(2);
const payload = JSON.parse(readFileSync(0, 'utf8'));
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => /^(CLAUDE|GEMINI)_/.test(k)));
writeFileSync(
  join(logDir, process.hrtime.bigint() + '-' + process.pid + '.json'),
  JSON.stringify({ host, argv: process.argv.slice(2), env, payload }),
);

const event = payload.hook_event_name;
const input = payload.tool_input ?? {};
const isDeniedWrite = (toolName) =>
  payload.tool_name === toolName && typeof input.file_path === 'string' && basename(input.file_path).includes('denied');
const reason = ${JSON.stringify(DENY_REASON)};

if (mode === 'ask' && host === 'gemini' && event === 'BeforeTool') {
  process.stdout.write(JSON.stringify({ decision: 'ask', reason: 'hookwise-e2e: ask' }));
} else if (host === 'claude' && event === 'PreToolUse') {
  const deny = isDeniedWrite('Write');
  process.stdout.write(JSON.stringify({ hookSpecificOutput: {
    hookEventName: 'PreToolUse',
    permissionDecision: deny ? 'deny' : 'allow',
    permissionDecisionReason: deny ? reason : 'hookwise-e2e: allowed',
  } }));
} else if (host === 'gemini' && event === 'BeforeTool') {
  process.stdout.write(JSON.stringify(isDeniedWrite('write_file') ? { decision: 'deny', reason } : { decision: 'allow' }));
}
`;

interface HookLogEntry {
  host: string;
  argv: string[];
  env: Record<string, string>;
  payload: Record<string, unknown>;
}

interface HookFixture {
  dir: string;
  logDir: string;
  command: string;
}

/** `gate`: deny writes to denied*, allow the rest. `ask`: answer every Gemini BeforeTool with "ask". */
async function createHook(host: 'claude' | 'gemini', mode: 'gate' | 'ask' = 'gate'): Promise<HookFixture> {
  const dir = await mkdtemp(join(tmpdir(), `hookwise-e2e-hook-${host}-`));
  const logDir = join(dir, 'log');
  await mkdir(logDir);
  const script = join(dir, 'hook.mjs');
  await writeFile(script, HOOK_SCRIPT);
  // Absolute node path: the hook must not depend on which `node` the client's PATH finds first.
  const command = [process.execPath, script, host, logDir, mode].map((part) => JSON.stringify(part)).join(' ');
  return { dir, logDir, command };
}

async function readHookLog(logDir: string): Promise<HookLogEntry[]> {
  // File names start with a monotonic timestamp, so sorting restores invocation order.
  const names = (await readdir(logDir)).sort((a, b) => {
    const [ta, tb] = [BigInt(a.split('-')[0]!), BigInt(b.split('-')[0]!)];
    return ta < tb ? -1 : ta > tb ? 1 : 0;
  });
  const entries: HookLogEntry[] = [];
  for (const name of names) entries.push(JSON.parse(await readFile(join(logDir, name), 'utf8')) as HookLogEntry);
  return entries;
}

function payloadsOf(entries: HookLogEntry[], event: string): Record<string, unknown>[] {
  return entries.map((e) => e.payload).filter((p) => p.hook_event_name === event);
}

/** Diagnostics for a failed expectation: what the client printed and what the fake model saw. */
function describeRun(result: HostRunResult & { requests: readonly { url: string; answeredWith: string }[] }): string {
  return [
    `exit=${result.exitCode} signal=${result.signal} timedOut=${result.timedOut} ${result.durationMs} ms`,
    `requests: ${result.requests.map((r) => `${r.url} -> ${r.answeredWith}`).join(' | ')}`,
    `stderr: ${result.stderr.slice(-2000)}`,
    `stdout: ${result.stdout.slice(-2000)}`,
  ].join('\n');
}

/**
 * Pin the payload shape: every top-level field of the stored fixture must still be sent. (Extra fields are
 * fine — hosts add fields often.) With HOOKWISE_E2E_UPDATE_FIXTURES=1 the fixture is rewritten instead.
 */
async function checkFixture(host: 'claude' | 'gemini', event: string, payload: Record<string, unknown>): Promise<void> {
  const path = join(FIXTURES_DIR, host, `${event}.json`);
  if (UPDATE_FIXTURES) {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, `${JSON.stringify(payload, null, 2)}\n`);
    return;
  }
  if (!existsSync(path)) return;
  const fixture = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
  expect(Object.keys(payload), `${host} ${event} payload lost fields vs ${path}`).toEqual(
    expect.arrayContaining(Object.keys(fixture)),
  );
}

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});

describe.skipIf(SKIP)('e2e harness: real Claude Code', () => {
  beforeAll(async () => {
    await ensureClaude();
  }, INSTALL_TIMEOUT_MS);

  it(
    'obeys a PreToolUse hook: deny blocks the Write and reports the reason, allow lets it run',
    async () => {
      const hook = await createHook('claude');
      cleanups.push(() => rm(hook.dir, { recursive: true, force: true }));
      // The scenario needs the project path up front, so create the run's directories first.
      const base = await mkdtemp(join(tmpdir(), 'hookwise-e2e-claude-run-'));
      cleanups.push(() => rm(base, { recursive: true, force: true }));
      const project = join(base, 'project');
      await mkdir(project);
      const denied = join(project, 'denied.txt');
      const allowed = join(project, 'allowed.txt');

      const result = await runClaude({
        cwd: project,
        home: join(base, 'home'),
        prompt: 'Write the two files.',
        scenario: {
          toolCalls: [
            { name: 'Write', input: { file_path: denied, content: CONTENT } },
            { name: 'Write', input: { file_path: allowed, content: CONTENT } },
          ],
        },
        hookSettings: claudeHooksForEvents(CLAUDE_EVENTS, { type: 'command', command: hook.command }),
        timeoutMs: RUN_TIMEOUT_MS - 10_000,
      });
      cleanups.push(result.cleanup);
      const diagnostics = describeRun(result);

      expect(result.timedOut, diagnostics).toBe(false);
      expect(result.exitCode, diagnostics).toBe(0);
      // What the client did on disk.
      expect(existsSync(denied), diagnostics).toBe(false);
      expect(await readFile(allowed, 'utf8')).toBe(CONTENT);
      // What the client told the model.
      const [deniedResult, allowedResult] = result.toolResults;
      expect(result.toolResults, diagnostics).toHaveLength(2);
      expect(deniedResult).toMatchObject({ toolUseId: toolUseId(0), isError: true });
      expect(deniedResult!.text).toContain(DENY_REASON);
      expect(allowedResult).toMatchObject({ toolUseId: toolUseId(1), isError: false });
      // The stream-json transcript ends with a successful result.
      expect(result.events.at(-1)).toMatchObject({ type: 'result', is_error: false });

      // What the hook received.
      const log = await readHookLog(hook.logDir);
      const pre = payloadsOf(log, 'PreToolUse');
      expect(pre).toHaveLength(2);
      pre.forEach((payload, index) => {
        expect(payload).toMatchObject({
          session_id: expect.any(String),
          transcript_path: expect.any(String),
          cwd: result.cwd,
          permission_mode: 'default',
          hook_event_name: 'PreToolUse',
          tool_name: 'Write',
          tool_input: { file_path: index === 0 ? denied : allowed, content: CONTENT },
          tool_use_id: toolUseId(index),
        });
      });
      // PostToolUse fires only for the call that ran.
      const post = payloadsOf(log, 'PostToolUse');
      expect(post).toHaveLength(1);
      expect(post[0]).toMatchObject({
        tool_name: 'Write',
        tool_use_id: toolUseId(1),
        tool_response: expect.any(Object),
      });
      expect(payloadsOf(log, 'UserPromptSubmit')[0]).toMatchObject({ prompt: 'Write the two files.' });
      expect(payloadsOf(log, 'SessionStart')[0]).toMatchObject({ source: 'startup' });
      // One session throughout, and the documented hook environment.
      expect(new Set(log.map((e) => e.payload.session_id)).size).toBe(1);
      expect(log[0]!.env.CLAUDE_PROJECT_DIR).toBe(result.cwd);

      for (const event of CLAUDE_EVENTS) await checkFixture('claude', event, payloadsOf(log, event)[0]!);
    },
    INSTALL_TIMEOUT_MS + RUN_TIMEOUT_MS,
  );

  it(
    'control: without a hook opinion the client itself refuses the Write in -p default mode',
    async () => {
      // This is why a file appearing in the test above proves the hook's explicit allow was honoured.
      const base = await mkdtemp(join(tmpdir(), 'hookwise-e2e-claude-run-'));
      cleanups.push(() => rm(base, { recursive: true, force: true }));
      const project = join(base, 'project');
      await mkdir(project);
      const target = join(project, 'no-opinion.txt');
      const result = await runClaude({
        cwd: project,
        home: join(base, 'home'),
        scenario: { toolCalls: [{ name: 'Write', input: { file_path: target, content: CONTENT } }] },
        timeoutMs: RUN_TIMEOUT_MS - 10_000,
      });
      const diagnostics = describeRun(result);
      expect(result.exitCode, diagnostics).toBe(0);
      expect(result.toolResults, diagnostics).toHaveLength(1);
      expect(result.toolResults[0]).toMatchObject({ isError: true });
      expect(result.toolResults[0]!.text).toMatch(/permission/i);
      expect(existsSync(target)).toBe(false);
    },
    INSTALL_TIMEOUT_MS + RUN_TIMEOUT_MS,
  );
});

describe.skipIf(SKIP)('e2e harness: real Gemini CLI', () => {
  beforeAll(async () => {
    await ensureGemini();
  }, INSTALL_TIMEOUT_MS);

  async function runWriteScenario(hookScope: 'user' | 'project'): Promise<{
    result: Awaited<ReturnType<typeof runGemini>>;
    log: HookLogEntry[];
    denied: string;
    allowed: string;
  }> {
    const hook = await createHook('gemini');
    cleanups.push(() => rm(hook.dir, { recursive: true, force: true }));
    const base = await mkdtemp(join(tmpdir(), 'hookwise-e2e-gemini-run-'));
    cleanups.push(() => rm(base, { recursive: true, force: true }));
    const project = join(base, 'project');
    await mkdir(project);
    const denied = join(project, 'denied.txt');
    const allowed = join(project, 'allowed.txt');
    const result = await runGemini({
      cwd: project,
      home: join(base, 'home'),
      prompt: 'Write the two files.',
      scenario: {
        functionCalls: [
          { name: 'write_file', args: { file_path: denied, content: CONTENT } },
          { name: 'write_file', args: { file_path: allowed, content: CONTENT } },
        ],
      },
      hookSettings: geminiHooksForEvents(GEMINI_EVENTS, { type: 'command', command: hook.command, name: 'e2e-logger' }),
      hookScope,
      // auto_edit is the least permissive mode that offers write_file headless.
      approvalMode: 'auto_edit',
      timeoutMs: RUN_TIMEOUT_MS - 10_000,
    });
    cleanups.push(result.cleanup);
    return { result, log: await readHookLog(hook.logDir), denied, allowed };
  }

  it(
    'obeys a BeforeTool hook (user settings): deny blocks write_file and reports the reason, allow lets it run',
    async () => {
      const { result, log, denied, allowed } = await runWriteScenario('user');
      const diagnostics = describeRun(result);

      expect(result.timedOut, diagnostics).toBe(false);
      expect(result.exitCode, diagnostics).toBe(0);
      expect(existsSync(denied), diagnostics).toBe(false);
      expect(await readFile(allowed, 'utf8')).toBe(CONTENT);
      const [deniedResponse, allowedResponse] = result.functionResponses;
      expect(result.functionResponses, diagnostics).toHaveLength(2);
      expect(deniedResponse).toMatchObject({ id: functionCallId(0), name: 'write_file', isError: true });
      expect(deniedResponse!.text).toContain(DENY_REASON);
      expect(allowedResponse).toMatchObject({ id: functionCallId(1), name: 'write_file', isError: false });
      expect(result.events.at(-1)).toMatchObject({ type: 'result', status: 'success' });

      const before = payloadsOf(log, 'BeforeTool');
      expect(before).toHaveLength(2);
      before.forEach((payload, index) => {
        expect(payload).toMatchObject({
          session_id: expect.any(String),
          transcript_path: expect.any(String),
          cwd: result.cwd,
          hook_event_name: 'BeforeTool',
          timestamp: expect.any(String),
          tool_name: 'write_file',
          tool_input: { file_path: index === 0 ? denied : allowed, content: CONTENT },
        });
      });
      const after = payloadsOf(log, 'AfterTool');
      expect(after).toHaveLength(1);
      expect(after[0]).toMatchObject({
        tool_name: 'write_file',
        tool_input: { file_path: allowed },
        tool_response: expect.any(Object),
      });
      expect(payloadsOf(log, 'BeforeAgent')[0]).toMatchObject({ prompt: 'Write the two files.' });
      expect(payloadsOf(log, 'SessionStart')[0]).toMatchObject({ source: 'startup' });
      expect(new Set(log.map((e) => e.payload.session_id)).size).toBe(1);
      expect(log[0]!.env.GEMINI_PROJECT_DIR).toBe(result.cwd);

      for (const event of GEMINI_EVENTS) await checkFixture('gemini', event, payloadsOf(log, event)[0]!);
    },
    INSTALL_TIMEOUT_MS + RUN_TIMEOUT_MS,
  );

  it(
    'also obeys project-level hooks (<project>/.gemini/settings.json) in a trusted folder',
    async () => {
      const { result, log, denied, allowed } = await runWriteScenario('project');
      const diagnostics = describeRun(result);
      expect(result.exitCode, diagnostics).toBe(0);
      expect(existsSync(denied), diagnostics).toBe(false);
      expect(existsSync(allowed), diagnostics).toBe(true);
      expect(result.functionResponses[0]!.text).toContain(DENY_REASON);
      expect(payloadsOf(log, 'BeforeTool')).toHaveLength(2);
    },
    INSTALL_TIMEOUT_MS + RUN_TIMEOUT_MS,
  );

  it(
    'kills a hung host on timeout: headless Gemini waits forever when BeforeTool answers "ask"',
    async () => {
      // Gemini 0.61 in -p mode turns a hook "ask" into a confirmation prompt nobody can answer. This pins
      // that behaviour (hookwise must never answer "ask" to headless Gemini) and proves the timeout path
      // kills the whole process group.
      const hook = await createHook('gemini', 'ask');
      cleanups.push(() => rm(hook.dir, { recursive: true, force: true }));
      const base = await mkdtemp(join(tmpdir(), 'hookwise-e2e-gemini-run-'));
      cleanups.push(() => rm(base, { recursive: true, force: true }));
      const project = join(base, 'project');
      await mkdir(project);
      const target = join(project, 'asked.txt');
      const result = await runGemini({
        cwd: project,
        home: join(base, 'home'),
        scenario: { functionCalls: [{ name: 'write_file', args: { file_path: target, content: CONTENT } }] },
        hookSettings: geminiHooksForEvents(['BeforeTool'], { type: 'command', command: hook.command }),
        approvalMode: 'auto_edit',
        timeoutMs: 20_000,
      });
      cleanups.push(result.cleanup);
      expect(result.timedOut, describeRun(result)).toBe(true);
      expect(existsSync(target)).toBe(false);
      expect(payloadsOf(await readHookLog(hook.logDir), 'BeforeTool')).toHaveLength(1);
      // Nothing of the client's process group survives.
      expect(() => process.kill(-result.pid, 0)).toThrow();
    },
    INSTALL_TIMEOUT_MS + RUN_TIMEOUT_MS,
  );
});
