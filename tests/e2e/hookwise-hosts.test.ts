/**
 * The real Claude Code and Gemini CLI obey hookwise's decisions: hookwise (the built dist/hookwise.cjs)
 * is the hook, a fake model makes the agent write files that the session's role allows, denies, or marks
 * sensitive, and the test checks what actually landed on disk and what the model was told.
 * Skip with HOOKWISE_SKIP_E2E=1.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAudit } from '../../src/audit/log.js';
import { ensureClaude, ensureGemini } from './support/install-hosts.js';
import { runClaude, runGemini } from './support/run-host.js';
import { removeTestTree } from '../support/remove-tree.js';

const SKIP = process.env.HOOKWISE_SKIP_E2E === '1';
const BIN = join(import.meta.dirname, '..', '..', 'dist', 'hookwise.cjs');
const INSTALL_TIMEOUT_MS = 10 * 60_000;
const RUN_TIMEOUT_MS = 120_000;
const CONTENT = 'written by the agent\n';

interface Sandbox {
  base: string;
  project: string;
  home: string;
  env: { HOOKWISE_RUNTIME_DIR: string; HOOKWISE_CONFIG_DIR: string };
  hookwise(args: string[]): void;
}

const bases: string[] = [];
afterAll(() => bases.forEach((b) => removeTestTree(b)));

function sandbox(): Sandbox {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'hookwise-e2e-')));
  bases.push(base);
  const project = join(base, 'project');
  mkdirSync(join(project, '.git'), { recursive: true });
  mkdirSync(join(project, 'src'));
  mkdirSync(join(project, 'tests'));
  const env = { HOOKWISE_RUNTIME_DIR: join(base, 'runtime'), HOOKWISE_CONFIG_DIR: join(base, 'config') };
  // Confinement off: these tests drive the cascade's own asks (on by default: tests/engine/confine.test.ts).
  mkdirSync(env.HOOKWISE_CONFIG_DIR, { recursive: true });
  writeFileSync(join(env.HOOKWISE_CONFIG_DIR, 'config.yml'), 'confine:\n  enabled: false\n');
  return {
    base,
    project,
    home: join(base, 'home'),
    env,
    hookwise(args) {
      const r = spawnSync(process.execPath, [BIN, ...args], {
        cwd: project,
        env: { ...process.env, ...env },
        encoding: 'utf8',
      });
      if (r.status !== 0) throw new Error(`hookwise ${args.join(' ')}: ${r.stderr}`);
    },
  };
}

const hook = (sub: string, host: string) =>
  `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} ${sub} --host ${host}`;

describe.skipIf(SKIP)('real Claude Code obeys hookwise', () => {
  beforeAll(async () => {
    await ensureClaude();
  }, INSTALL_TIMEOUT_MS);

  it(
    'a coder session: src/ is written, tests/ is denied with the rule, .env is asked (not written)',
    async () => {
      const s = sandbox();
      const sessionId = randomUUID();
      s.hookwise(['register', '--session-id', sessionId, '--role', 'coder']);
      const files = {
        allowed: join(s.project, 'src/app.ts'),
        denied: join(s.project, 'tests/app.test.ts'),
        sensitive: join(s.project, '.env'),
      };
      const result = await runClaude({
        cwd: s.project,
        home: s.home,
        env: s.env,
        extraArgs: ['--session-id', sessionId],
        prompt: 'Write the files.',
        scenario: {
          toolCalls: Object.values(files).map((file_path) => ({
            name: 'Write',
            input: { file_path, content: CONTENT },
          })),
        },
        hookSettings: {
          PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: hook('check', 'claude') }] }],
          UserPromptSubmit: [{ hooks: [{ type: 'command', command: hook('session-check', 'claude') }] }],
        },
        timeoutMs: RUN_TIMEOUT_MS - 10_000,
      });
      const why = `exit ${result.exitCode}\n${result.stderr.slice(-1500)}\n${JSON.stringify(result.toolResults, null, 1)}`;
      expect(result.exitCode, why).toBe(0);
      expect(readFileSync(files.allowed, 'utf8')).toBe(CONTENT);
      expect(existsSync(files.denied), why).toBe(false);
      expect(existsSync(files.sensitive), why).toBe(false);
      const [allowed, denied, asked] = result.toolResults;
      expect(allowed?.isError, why).toBe(false);
      expect(denied).toMatchObject({ isError: true });
      expect(denied!.text).toContain(
        'hookwise deny [tier path-policy, rule role:coder:deny_write:tests/** from built-in]',
      );
      expect(asked).toMatchObject({ isError: true });
      expect(asked!.text).toMatch(/sensitive path/);
      const audit = readAudit(s.env.HOOKWISE_RUNTIME_DIR).records.map((r) => [r.session, r.verdict, r.tier]);
      expect(audit).toEqual([
        [sessionId, 'allow', 'path-policy'],
        [sessionId, 'deny', 'path-policy'],
        [sessionId, 'ask', 'path-policy'],
      ]);
    },
    RUN_TIMEOUT_MS,
  );

  it(
    'an unregistered session is told to register, and its Write is blocked with the instructions',
    async () => {
      const s = sandbox();
      mkdirSync(join(s.project, '.hookwise'));
      writeFileSync(join(s.project, '.hookwise/policy.yml'), 'registration:\n  wait_ms: 300\n');
      const sessionId = randomUUID();
      const target = join(s.project, 'src/app.ts');
      const result = await runClaude({
        cwd: s.project,
        home: s.home,
        env: s.env,
        extraArgs: ['--session-id', sessionId],
        prompt: 'Write the file.',
        scenario: { toolCalls: [{ name: 'Write', input: { file_path: target, content: CONTENT } }] },
        hookSettings: {
          PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: hook('check', 'claude') }] }],
          UserPromptSubmit: [{ hooks: [{ type: 'command', command: hook('session-check', 'claude') }] }],
        },
        timeoutMs: RUN_TIMEOUT_MS - 10_000,
      });
      expect(result.exitCode).toBe(0);
      expect(existsSync(target)).toBe(false);
      expect(result.toolResults[0]!.text).toContain(`hookwise register --session-id ${sessionId} --role <role>`);
      // The UserPromptSubmit context reached the model in its first request.
      expect(JSON.stringify(result.requests[0]!.body)).toContain(`is not registered with hookwise`);
    },
    RUN_TIMEOUT_MS,
  );
});

describe.skipIf(SKIP)('real Gemini CLI obeys hookwise', () => {
  beforeAll(async () => {
    await ensureGemini();
  }, INSTALL_TIMEOUT_MS);

  it(
    'a tester session (HOOKWISE_ROLE): tests/ is written, src/ is denied, a secrets file is refused without hanging',
    async () => {
      const s = sandbox();
      // (Gemini refuses `.env` itself as "not in workspace", before any hook; secrets/ reaches the hook.)
      const files = {
        allowed: join(s.project, 'tests/app.test.ts'),
        denied: join(s.project, 'src/app.ts'),
        sensitive: join(s.project, 'config/secrets/db.yml'),
      };
      const result = await runGemini({
        cwd: s.project,
        home: s.home,
        env: { ...s.env, HOOKWISE_ROLE: 'tester' },
        prompt: 'Write the files.',
        approvalMode: 'auto_edit',
        scenario: {
          functionCalls: Object.values(files).map((file_path) => ({
            name: 'write_file',
            args: { file_path, content: CONTENT },
          })),
        },
        hookSettings: {
          BeforeTool: [
            { matcher: '.*', hooks: [{ type: 'command', command: hook('check', 'gemini'), timeout: 30_000 }] },
          ],
          BeforeAgent: [{ hooks: [{ type: 'command', command: hook('session-check', 'gemini'), timeout: 30_000 }] }],
        },
        timeoutMs: RUN_TIMEOUT_MS - 10_000,
      });
      const audit = readAudit(s.env.HOOKWISE_RUNTIME_DIR).records;
      const why = `exit ${result.exitCode} timedOut ${result.timedOut}\n${result.stderr.slice(-1500)}\n${JSON.stringify(result.functionResponses, null, 1)}\naudit: ${JSON.stringify(audit)}\nstdout: ${result.stdout.slice(-3000)}`;
      expect(result.timedOut, why).toBe(false);
      expect(readFileSync(files.allowed, 'utf8')).toBe(CONTENT);
      expect(existsSync(files.denied), why).toBe(false);
      expect(existsSync(files.sensitive), why).toBe(false);
      const [allowed, denied, asked] = result.functionResponses;
      expect(allowed?.isError, why).toBe(false);
      expect(denied!.text).toContain(
        'hookwise deny [tier path-policy, rule role:tester:deny_write:src/** from built-in]',
      );
      expect(asked!.text).toMatch(/needs a human's approval/);
      const verdicts = readAudit(s.env.HOOKWISE_RUNTIME_DIR).records.map((r) => [r.host, r.role, r.verdict]);
      // The audit log records what Gemini CLI was given: its ask without a prompt is the deny it became.
      expect(verdicts).toEqual([
        ['gemini', 'tester', 'allow'],
        ['gemini', 'tester', 'deny'],
        ['gemini', 'tester', 'deny'],
      ]);
    },
    RUN_TIMEOUT_MS,
  );
});
