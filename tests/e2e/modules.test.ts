/**
 * Orchestration modules (issue 16, "Done when") in the REAL Claude Code CLI: a session registered as
 * `conductor` with `modules: {hierarchy, delegation}` in the project's policy.
 *
 * The fake model plays one script, and Claude Code runs it twice: in the conductor's own thread, and again in
 * the subagent the conductor starts with the Agent tool (each thread asks the fake model for its next call).
 *   conductor: Write src/feature.ts → denied (hierarchy: delegate); four `ls` → the 3rd and 4th carry the
 *              reminder, the 5th work call is denied (delegation); Agent (subagent_type) → allowed, and
 *              delegating resets the window; `ls -la` → allowed again.
 *   musician (the subagent, Claude Code's agent_id): Write src/feature.ts → allowed (the file lands), its
 *              Bash calls are never counted against the conductor.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readAudit } from '../../src/audit/log.js';
import { ensureClaude } from './support/install-hosts.js';
import { runClaude } from './support/run-host.js';
import { removeTestTree } from '../support/remove-tree.js';

const SKIP = process.env.HOOKWISE_SKIP_E2E === '1';
const BIN = join(import.meta.dirname, '..', '..', 'dist', 'hookwise.cjs');
const INSTALL_TIMEOUT_MS = 10 * 60_000;
const RUN_TIMEOUT_MS = 180_000;

const bases: string[] = [];
afterAll(() => {
  for (const b of bases) removeTestTree(b);
});

describe.skipIf(SKIP)('orchestration modules in the real Claude Code', () => {
  it(
    'a conductor is denied its own implementation work, delegates, and the work is done by its musician',
    async () => {
      await ensureClaude();
      const base = realpathSync(mkdtempSync(join(tmpdir(), 'hookwise-e2e-modules-')));
      bases.push(base);
      const project = join(base, 'project');
      const home = join(base, 'home');
      mkdirSync(join(project, 'src'), { recursive: true });
      mkdirSync(join(project, '.hookwise'), { recursive: true });
      mkdirSync(home, { recursive: true });
      spawnSync('git', ['init', '-q', project]);
      writeFileSync(
        join(project, '.hookwise', 'policy.yml'),
        'modules:\n  hierarchy: {}\n  delegation: {warn_at: 3, deny_at: 5, window: 10m}\n',
      );
      const env = { HOOKWISE_RUNTIME_DIR: join(base, 'runtime'), HOOKWISE_CONFIG_DIR: join(base, 'config') };
      // Confinement off: these tests drive the cascade's own asks (on by default: tests/engine/confine.test.ts).
      mkdirSync(env.HOOKWISE_CONFIG_DIR, { recursive: true });
      writeFileSync(join(env.HOOKWISE_CONFIG_DIR, 'config.yml'), 'confine:\n  enabled: false\n');
      const sessionId = randomUUID();
      const reg = spawnSync(process.execPath, [BIN, 'register', '--session-id', sessionId, '--role', 'conductor'], {
        cwd: project,
        env: { ...process.env, HOME: home, ...env },
        encoding: 'utf8',
      });
      expect(reg.status, reg.stderr).toBe(0);

      const ls = (command: string) => ({ name: 'Bash', input: { command, description: 'List files' } });
      const r = await runClaude({
        cwd: project,
        home,
        env,
        extraArgs: ['--session-id', sessionId],
        prompt: 'Add the feature.',
        scenario: {
          toolCalls: [
            {
              name: 'Write',
              input: { file_path: join(project, 'src', 'feature.ts'), content: 'export const feature = 1;\n' },
            },
            ls('ls'),
            ls('ls src'),
            ls('ls .'),
            ls('ls ./src'),
            {
              name: 'Agent',
              input: {
                description: 'Implement the feature',
                prompt: 'Write src/feature.ts',
                subagent_type: 'general-purpose',
              },
            },
            ls('ls -la'),
          ],
        },
        hookSettings: {
          PreToolUse: [
            {
              matcher: '*',
              hooks: [
                {
                  type: 'command',
                  command: `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} check --host claude`,
                },
              ],
            },
          ],
        },
        timeoutMs: RUN_TIMEOUT_MS - 20_000,
      });
      try {
        const audit = readAudit(env.HOOKWISE_RUNTIME_DIR).records;
        const shown = audit.map((a) => `${a.role} ${a.tool} ${a.input} → ${a.verdict} ${a.rule ?? a.tier}`).join('\n');
        const conductor = audit.filter((a) => a.role === 'conductor');
        const musician = audit.filter((a) => a.role === 'musician');
        // The conductor's own Write: denied by hierarchy, naming delegation.
        expect(
          conductor.find((a) => a.tool === 'Write'),
          shown,
        ).toMatchObject({ verdict: 'deny', rule: 'module:hierarchy' });
        // Its 5th work call (the Write was the 1st): denied by the window — once only, because it then delegated.
        expect(
          conductor.filter((a) => a.rule === 'module:delegation').map((a) => a.input),
          shown,
        ).toEqual(['ls ./src']);
        expect(
          conductor.find((a) => a.tool === 'Agent'),
          shown,
        ).toMatchObject({ verdict: 'allow' });
        expect(
          conductor.find((a) => a.input === 'ls -la'),
          shown,
        ).toMatchObject({ verdict: 'allow' });
        // The musician did the work: its Write was allowed and the file is there.
        expect(
          musician.find((a) => a.tool === 'Write'),
          shown,
        ).toMatchObject({ verdict: 'allow', rule: expect.stringMatching(/^role:musician:allow_write/) });
        expect(readFileSync(join(project, 'src', 'feature.ts'), 'utf8')).toBe('export const feature = 1;\n');
        expect(existsSync(join(project, 'src'))).toBe(true);
      } finally {
        await r.cleanup();
      }
    },
    INSTALL_TIMEOUT_MS + RUN_TIMEOUT_MS,
  );
});
