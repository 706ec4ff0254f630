/** Real temp projects for tests: a git-rooted dir, a private runtime dir and user config dir. */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach } from 'vitest';
import { runCheck, type CheckResult } from '../../src/cli/check.js';
import type { EngineOptions } from '../../src/engine/engine.js';
import type { Verdict } from '../../src/core/decision.js';
import { SessionRegistry } from '../../src/session/registry.js';
import { removeTestTree } from './remove-tree.js';

export interface TestProject {
  root: string;
  home: string;
  runtimeDir: string;
  configDir: string;
  env: NodeJS.ProcessEnv;
  write(relativePath: string, content: string): string;
  register(sessionId: string, role: string): void;
  /** One hook event through the real check path; `engine` gives it what a daemon would hold (e.g. tier 2b's port). */
  check(
    payload: Record<string, unknown> | string,
    host?: 'claude' | 'gemini' | 'codex',
    engine?: EngineOptions,
  ): Promise<CheckResult>;
  /** A Claude PreToolUse payload for this project. */
  pre(tool: string, input: Record<string, unknown>, sessionId?: string): Record<string, unknown>;
}

const cleanups: string[] = [];
afterEach(() => {
  while (cleanups.length > 0) {
    const base = cleanups.pop()!;
    stopDaemonIn(join(base, 'runtime'));
    removeTestTree(base);
  }
});

/** A hook call a test spawned may have started a daemon in the project's runtime dir: stop it first. */
function stopDaemonIn(runtimeDir: string): void {
  let pid: number | undefined;
  try {
    pid = (JSON.parse(readFileSync(join(runtimeDir, 'daemon.json'), 'utf8')) as { pid?: number }).pid;
  } catch {
    return; // none ran, or it is gone
  }
  if (typeof pid !== 'number' || pid === process.pid) return; // a daemon in this very process is the test's to close
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/**
 * The user config a test project starts with: confinement explicitly off, so a test that does not say
 * otherwise sees the cascade's own verdicts on every machine (by default confinement is on where bubblewrap
 * works: engine/confine.ts). A test that writes the user's config.yml without a `confine:` key keeps this
 * setting (it is appended); one that sets `confine:` itself, or passes `confine: 'default'`, gets its own.
 */
export const CONFINE_OFF = 'confine:\n  enabled: false\n';

function withConfineSetting(content: string): string {
  if (/^confine:/m.test(content)) return content;
  return `${content}${content === '' || content.endsWith('\n') ? '' : '\n'}${CONFINE_OFF}`;
}

export function makeProject(options: { git?: boolean; confine?: 'default' } = {}): TestProject {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'hookwise-test-')));
  cleanups.push(base);
  const root = join(base, 'project');
  const home = join(base, 'home');
  const runtimeDir = join(base, 'runtime');
  const configDir = join(home, '.config', 'hookwise');
  mkdirSync(root, { recursive: true });
  mkdirSync(home, { recursive: true });
  if (options.git !== false) mkdirSync(join(root, '.git'));
  const userConfig = join(configDir, 'config.yml');
  if (options.confine !== 'default') {
    mkdirSync(configDir, { recursive: true });
    writeFileSync(userConfig, CONFINE_OFF);
  }
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    HOOKWISE_RUNTIME_DIR: runtimeDir,
    HOOKWISE_CONFIG_DIR: configDir,
  };
  const project: TestProject = {
    root,
    home,
    runtimeDir,
    configDir,
    env,
    write(relativePath, content) {
      const path = relativePath.startsWith('/') ? relativePath : join(root, relativePath);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, path === userConfig && options.confine !== 'default' ? withConfineSetting(content) : content);
      return path;
    },
    register(sessionId, role) {
      new SessionRegistry(runtimeDir).update(sessionId, (_e, now) => ({
        session_id: sessionId,
        role,
        disabled: false,
        registered_at: now,
        updated_at: now,
      }));
    },
    check(payload, host, engine) {
      const raw = typeof payload === 'string' ? payload : JSON.stringify(payload);
      return runCheck(raw, {
        env,
        ...(host === undefined ? {} : { host }),
        ...(engine === undefined ? {} : { engine }),
      });
    },
    pre(tool, input, sessionId = 's1') {
      return {
        session_id: sessionId,
        transcript_path: join(home, 'transcript.jsonl'),
        cwd: root,
        permission_mode: 'default',
        hook_event_name: 'PreToolUse',
        tool_name: tool,
        tool_input: input,
        tool_use_id: 'toolu_test',
      };
    },
  };
  return project;
}

export function verdictOf(result: CheckResult): Verdict | undefined {
  return result.decision?.verdict;
}

/** Runs git in a test repository with a fixed identity; throws with git's message when it fails. */
export function gitIn(root: string, ...args: string[]): void {
  const r = spawnSync('git', args, {
    cwd: root,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@t',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@t',
    },
  });
  if (r.status !== 0) throw new Error(r.stderr);
}
