/**
 * Shared by the learning e2e tests (learning.test.ts, learning-modes.test.ts): a throw-away project with a
 * harmless `make deploy-staging` that no hookwise tier decides for a coder (tier `default` → ask), hookwise's
 * private directories, and readers for what hookwise learned.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { removeTestTree } from '../../support/remove-tree.js';

export const BIN = join(import.meta.dirname, '..', '..', '..', 'dist', 'hookwise.cjs');
export const COMMAND = 'make deploy-staging --jobs 4';
export const OUTPUT = 'deployed to staging';
export const STAMP = 'deployed-staging.stamp';

/** The record an approval of COMMAND at Claude Code's prompt leaves in the user scope. */
export const LEARNED_ALLOW = {
  tool: 'Bash',
  subject: COMMAND,
  commands: ['make'],
  role: 'coder',
  verdict: 'allow',
  tier: 'human',
  scope: 'user',
  decided_by: 'host-prompt',
} as const;

export interface LearningSandbox {
  base: string;
  project: string;
  home: string;
  env: { HOOKWISE_RUNTIME_DIR: string; HOOKWISE_CONFIG_DIR: string };
  /** The user scope of decision memory, where approvals at the host's prompt are learned. */
  userRules: string;
  /** Runs this checkout's hookwise in the project, with the sandbox's HOME and directories. */
  hookwise(args: string[]): string;
}

const bases: string[] = [];

export function learningSandbox(name: string): LearningSandbox {
  const base = realpathSync(mkdtempSync(join(tmpdir(), `hookwise-e2e-${name}-`)));
  bases.push(base);
  const project = join(base, 'project');
  const home = join(base, 'home');
  mkdirSync(join(project, '.git'), { recursive: true });
  mkdirSync(home);
  writeFileSync(join(project, 'Makefile'), `deploy-staging:\n\t@echo ${OUTPUT}\n\t@touch ${STAMP}\n`);
  const env = { HOOKWISE_RUNTIME_DIR: join(base, 'runtime'), HOOKWISE_CONFIG_DIR: join(base, 'config') };
  // Confinement off: these tests drive the cascade's own asks (on by default: tests/engine/confine.test.ts).
  mkdirSync(env.HOOKWISE_CONFIG_DIR, { recursive: true });
  writeFileSync(join(env.HOOKWISE_CONFIG_DIR, 'config.yml'), 'confine:\n  enabled: false\n');
  return {
    base,
    project,
    home,
    env,
    userRules: join(env.HOOKWISE_CONFIG_DIR, 'user', 'rules.jsonl'),
    hookwise(args) {
      const r = spawnSync(process.execPath, [BIN, ...args], {
        cwd: project,
        env: { ...process.env, HOME: home, ...env },
        encoding: 'utf8',
      });
      if (r.status !== 0) throw new Error(`hookwise ${args.join(' ')}: exit ${r.status}\n${r.stderr}`);
      return r.stdout;
    },
  };
}

/** Removes every sandbox made so far (call from afterAll, after the clients are closed). */
export function removeSandboxes(): void {
  for (const base of bases.splice(0)) removeTestTree(base);
}

export type HookGroups = Record<string, { matcher?: string; hooks: Record<string, unknown>[] }[]>;

/** `hookwise install --claude`, running this checkout's build, as a user wires it; returns the settings file. */
export function installHookwise(s: LearningSandbox): { file: string; hooks: HookGroups } {
  s.hookwise([
    'install',
    '--claude',
    '--wiring',
    'command',
    '--command',
    `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)}`,
  ]);
  const file = join(s.project, '.claude', 'settings.json');
  return { file, hooks: (JSON.parse(readFileSync(file, 'utf8')) as { hooks: HookGroups }).hooks };
}

export interface UserRecord {
  tool?: unknown;
  subject?: unknown;
  decided_by?: unknown;
  [key: string]: unknown;
}

export function userRecords(s: LearningSandbox): UserRecord[] {
  if (!existsSync(s.userRules)) return [];
  return readFileSync(s.userRules, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as UserRecord);
}

/** The host-prompt record for COMMAND once it appears (the PostToolUse hook runs async), or undefined. */
export async function waitForLearned(s: LearningSandbox, timeoutMs: number): Promise<UserRecord | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = userRecords(s).find((r) => r.decided_by === 'host-prompt' && r.subject === COMMAND);
    if (found !== undefined || Date.now() > deadline) return found;
    await sleep(200);
  }
}
