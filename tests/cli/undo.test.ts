/** `hookwise undo` as the user sees it: what it says, --json, exit codes, and the CLI wiring. */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { renderUndo, undoCommand } from '../../src/cli/undo.js';
import { gitWorkTree } from '../../src/confine/git-layout.js';
import { prepareSnapshot } from '../../src/confine/snapshot.js';
import { removeTestTree } from '../support/remove-tree.js';

const bases: string[] = [];
afterEach(() => {
  while (bases.length > 0) removeTestTree(bases.pop()!);
});

function project(): { root: string; env: NodeJS.ProcessEnv; git: (...args: string[]) => void } {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'hookwise-undo-cli-')));
  bases.push(base);
  const root = join(base, 'project');
  mkdirSync(join(root, 'src'), { recursive: true });
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: join(base, 'home'),
    HOOKWISE_RUNTIME_DIR: join(base, 'runtime'),
    GIT_AUTHOR_NAME: 't',
    GIT_AUTHOR_EMAIL: 't@t',
    GIT_COMMITTER_NAME: 't',
    GIT_COMMITTER_EMAIL: 't@t',
  };
  const git = (...args: string[]) => {
    const r = spawnSync('git', args, { cwd: root, env, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(r.stderr);
  };
  git('init', '-q');
  writeFileSync(join(root, 'src/a.ts'), 'a\n');
  git('add', '-A');
  git('commit', '-qm', 'one');
  return { root, env, git };
}

/** A confined run's first step, then the agent's command (what the host runs, minus the walls). */
function runAfterSnapshot(p: { root: string; env: NodeJS.ProcessEnv }, command: string, recorded = command): void {
  const step = prepareSnapshot({
    tree: gitWorkTree(p.root)!,
    sanitizedCommand: recorded,
    sensitive: { write: [], read: [] },
    runtimeDir: p.env.HOOKWISE_RUNTIME_DIR!,
    version: 'test',
  });
  expect(spawnSync('/bin/sh', ['-c', `${step}\n${command}`], { cwd: p.root, env: p.env }).status).toBe(0);
}

describe('hookwise undo', () => {
  it('says what it restored, from which snapshot and command, and what it left', () => {
    const p = project();
    runAfterSnapshot(p, 'rm src/a.ts && echo x > new.txt');
    const r = undoCommand({}, join(p.root, 'src'), p.env); // from a subdirectory: the project's root is found
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(
      /^restored 1 file in .*project from the snapshot taken \d{4}-.* before `rm src\/a\.ts && echo x > new\.txt` \(refs\/hookwise\/undo\/main, [0-9a-f]{12}\):\n {2}deleted +src\/a\.ts\n1 file did not exist then, left in place \(--remove-created removes them\):\n {2}new\.txt\n/,
    );
    expect(r.stdout).toContain('kept in refs/hookwise/before-undo/main');
    expect(readFileSync(join(p.root, 'src/a.ts'), 'utf8')).toBe('a\n');
  });

  it('--dry-run says "would restore" and changes nothing; --json is the report', () => {
    const p = project();
    runAfterSnapshot(p, 'rm src/a.ts');
    expect(undoCommand({ dryRun: true }, p.root, p.env).stdout).toMatch(
      /^would restore 1 file[\s\S]*dry run: nothing was changed/,
    );
    const json = JSON.parse(undoCommand({ json: true, dryRun: true }, p.root, p.env).stdout) as Record<string, unknown>;
    expect(json).toMatchObject({
      ok: true,
      dryRun: true,
      ref: 'refs/hookwise/undo/main',
      command: 'rm src/a.ts',
      restored: [{ path: 'src/a.ts', change: 'deleted' }],
    });
  });

  it('no snapshot: exit 1 with what and where on stderr (and in --json)', () => {
    const p = project();
    const r = undoCommand({}, p.root, p.env);
    expect(r).toMatchObject({ exitCode: 1, stdout: '' });
    expect(r.stderr).toMatch(
      /^hookwise undo: no undo snapshot in .*project: refs\/hookwise\/undo\/main does not exist in .*\.git/,
    );
    const json = JSON.parse(undoCommand({ json: true }, p.root, p.env).stdout) as Record<string, unknown>;
    expect(json).toMatchObject({ ok: false, error: expect.stringMatching(/no undo snapshot/) });
  });

  it('control characters in a recorded command or a file name do not reach the terminal', () => {
    const text = renderUndo(
      {
        project: '/p',
        ref: 'refs/hookwise/undo/main',
        commit: 'a'.repeat(40),
        takenAt: 't',
        command: 'x',
        restored: [{ path: 'evil\u001b[2Jname', change: 'deleted' }],
        created: [],
        removed: [],
        skipped: [],
        dryRun: false,
      },
      'echo \u001b]0;title\u0007',
    );
    expect(text.includes('\u001b') || text.includes('\u0007')).toBe(false);
    expect(text).toContain('evil\\x1b[2Jname');
  });

  it('is a command of the CLI (hookwise undo --help)', async () => {
    const { runProgram } = await import('../../src/cli/program.js');
    const out: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string) => (out.push(String(chunk)), true)) as typeof process.stdout.write;
    try {
      expect(await runProgram(['undo', '--help'])).toBe(0);
    } finally {
      process.stdout.write = write;
    }
    expect(out.join('')).toMatch(/--dry-run[\s\S]*--remove-created[\s\S]*--json/);
  });
});
