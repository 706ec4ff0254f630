/**
 * The Claude Code plugin in plugin/ against the REAL Claude Code: `claude plugin validate` accepts the plugin
 * and the repository's marketplace, and a session started with `--plugin-dir plugin` runs the plugin's hooks —
 * failing closed when the hookwise CLI is missing, and reaching hookwise when it is there.
 * Skip with HOOKWISE_SKIP_E2E=1.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureClaude } from './support/install-hosts.js';
import { runClaude } from './support/run-host.js';
import { removeTestTree } from '../support/remove-tree.js';

const SKIP = process.env.HOOKWISE_SKIP_E2E === '1';
const ROOT = join(import.meta.dirname, '..', '..');
const PLUGIN = join(ROOT, 'plugin');
const BIN = join(ROOT, 'dist', 'hookwise.cjs');
const INSTALL_TIMEOUT_MS = 10 * 60_000;
const RUN_TIMEOUT_MS = 120_000;
const CONTENT = 'written through the plugin\n';

const bases: string[] = [];
afterAll(() => bases.forEach((b) => removeTestTree(b)));

function tempBase(): string {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'hookwise-e2e-plugin-')));
  bases.push(base);
  return base;
}

/** `claude plugin validate …` with an isolated HOME / config dir and no network side traffic. */
function validate(bin: string, args: string[]): Promise<{ code: number | null; output: string }> {
  const home = tempBase();
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    CLAUDE_CONFIG_DIR: join(home, '.claude'),
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    NO_COLOR: '1',
  };
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ['plugin', 'validate', ...args], { cwd: home, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe.skipIf(SKIP)('the Claude Code plugin, checked by the real Claude Code', () => {
  let claude: string;
  beforeAll(async () => {
    claude = await ensureClaude();
  }, INSTALL_TIMEOUT_MS);

  it('claude plugin validate --strict plugin passes, listing the hooks and skills', async () => {
    const result = await validate(claude, ['--strict', PLUGIN]);
    expect(result.code, result.output).toBe(0);
    expect(result.output).toContain('Validation passed');
    expect(result.output).toMatch(/hooks: PreToolUse \* command sh/);
    for (const skill of ['register', 'switch', 'disable', 'enable', 'status'])
      expect(result.output).toContain(`skills: hookwise:${skill}`);
  });

  it('claude plugin validate --strict accepts the marketplace at the repository root', async () => {
    const result = await validate(claude, ['--strict', ROOT]);
    expect(result.code, result.output).toBe(0);
    expect(result.output).toContain('Validation passed');
  });

  it(
    'without the hookwise CLI on PATH, the plugin blocks the tool call and says how to install it',
    async () => {
      const base = tempBase();
      const project = join(base, 'project');
      mkdirSync(join(project, '.git'), { recursive: true });
      const target = join(project, 'app.ts');
      const result = await runClaude({
        cwd: project,
        home: join(base, 'home'),
        // No hookwise here (hooks need only sh); an empty HOOKWISE_BIN means "look on PATH".
        env: { PATH: '/usr/bin:/bin', HOOKWISE_BIN: '' },
        extraArgs: ['--plugin-dir', PLUGIN],
        scenario: { toolCalls: [{ name: 'Write', input: { file_path: target, content: CONTENT } }] },
        timeoutMs: RUN_TIMEOUT_MS - 10_000,
      });
      const why = `exit ${result.exitCode}\n${result.stderr.slice(-1500)}\n${JSON.stringify(result.toolResults, null, 1)}`;
      expect(result.exitCode, why).toBe(0);
      expect(existsSync(target), why).toBe(false);
      expect(result.toolResults[0], why).toMatchObject({ isError: true });
      expect(result.toolResults[0]!.text).toMatch(/hookwise CLI.*cannot be run.*npm install && npm install -g \./);
      expect(result.stdout).toContain('hookwise CLI was not found'); // the SessionStart / prompt messages
    },
    RUN_TIMEOUT_MS,
  );

  it(
    'with the CLI (HOOKWISE_BIN), the plugin’s gate is hookwise: a coder’s write in the project is allowed',
    async () => {
      const base = tempBase();
      const project = join(base, 'project');
      mkdirSync(join(project, '.git'), { recursive: true });
      mkdirSync(join(project, 'src'));
      const target = join(project, 'src', 'app.ts');
      const result = await runClaude({
        cwd: project,
        home: join(base, 'home'),
        env: {
          PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
          HOOKWISE_BIN: BIN,
          HOOKWISE_ROLE: 'coder',
          HOOKWISE_RUNTIME_DIR: join(base, 'runtime'),
          HOOKWISE_CONFIG_DIR: join(base, 'config'),
        },
        extraArgs: ['--plugin-dir', PLUGIN],
        scenario: { toolCalls: [{ name: 'Write', input: { file_path: target, content: CONTENT } }] },
        timeoutMs: RUN_TIMEOUT_MS - 10_000,
      });
      const why = `exit ${result.exitCode}\n${result.stderr.slice(-1500)}\n${JSON.stringify(result.toolResults, null, 1)}`;
      expect(result.exitCode, why).toBe(0);
      expect(readFileSync(target, 'utf8'), why).toBe(CONTENT);
      expect(existsSync(join(base, 'runtime')), 'hookwise ran and kept its runtime dir').toBe(true);
    },
    RUN_TIMEOUT_MS,
  );
});
