/**
 * A throw-away world for the benchmarks: a project (a `.git` dir marks its root), a private runtime dir and
 * an empty user config dir, all under one temp dir, so no benchmark reads or writes the user's real
 * sessions, caches or audit log.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { locations, type Locations } from '../src/util/locations.js';

export interface BenchFixture {
  /** Canonical project root. */
  projectDir: string;
  /**
   * The process environment with HOOKWISE_RUNTIME_DIR / HOOKWISE_CONFIG_DIR pointing into the fixture, and
   * HOOKWISE_DAEMON=off: a spawned `hookwise check` decides in its own process, as the process-per-call rows
   * mean to time (by default it asks a running daemon and, finding none, starts one in the background that
   * would answer every later round). The daemon suite removes it where it times the daemon path.
   */
  env: NodeJS.ProcessEnv;
  /**
   * Locations for in-process suites. Same config dir, own runtime dir: the code running in process (the
   * sources under vitest, or a dist/ that was rebuilt since) need not be the build of the spawned bin, and
   * the compiled-policy cache key names only the package version, so the two must not share a cache.
   */
  where: Locations;
  sessionId: string;
  role: string;
  /** Absolute path the Write targets: in src/ (which exists), a file that does not (Write creating it). */
  writeTarget: string;
  /** A Claude Code PreToolUse payload for that Write, as the host sends it on stdin. */
  payload: string;
  cleanup(): void;
}

export function createFixture(): BenchFixture {
  // realpath: on macOS tmpdir() is behind a symlink, and hookwise compares canonical paths.
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'hookwise-bench-')));
  const projectDir = join(root, 'project');
  mkdirSync(join(projectDir, '.git'), { recursive: true });
  mkdirSync(join(projectDir, 'src'));
  writeFileSync(join(projectDir, 'src', 'index.ts'), 'export {};\n');
  mkdirSync(join(root, 'config'));

  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOOKWISE_RUNTIME_DIR: join(root, 'runtime'),
    HOOKWISE_CONFIG_DIR: join(root, 'config'),
    HOOKWISE_DAEMON: 'off',
  };
  // The registry, not an environment fallback, must decide the role; and no debug output in timings.
  delete env.HOOKWISE_ROLE;
  delete env.HOOKWISE_DEBUG;

  const sessionId = 'hookwise-bench';
  const writeTarget = join(projectDir, 'src', 'bench-target.ts');
  const payload = JSON.stringify({
    session_id: sessionId,
    transcript_path: join(root, 'transcript.jsonl'),
    cwd: projectDir,
    permission_mode: 'default',
    hook_event_name: 'PreToolUse',
    tool_name: 'Write',
    tool_input: { file_path: writeTarget, content: 'export const answer = 42;\n' },
    tool_use_id: 'toolu_bench',
  });
  return {
    projectDir,
    env,
    where: { ...locations(env), runtimeDir: join(root, 'runtime-in-process') },
    sessionId,
    role: 'coder',
    writeTarget,
    payload,
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}
