/**
 * Confined allows end to end through `hookwise check` (issue 19): which asks become an allow that runs inside
 * the walls, which stay asks (and say why), and that the rewritten command really runs confined. Where this
 * machine cannot confine, the same calls must stay asks that say so (fail closed).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { probeConfinement } from '../../src/confine/probe.js';
import { gitIn, makeProject, type TestProject } from '../support/project.js';

const canConfine = probeConfinement().available;

function project(confine: boolean | 'project'): TestProject {
  const p = makeProject();
  p.register('s1', 'coder');
  if (confine === 'project') p.write('.hookwise/policy.yml', 'confine:\n  enabled: true\n');
  else if (confine) p.write(join(p.configDir, 'config.yml'), 'confine:\n  enabled: true\n');
  p.write(
    'scripts/gen.sh',
    '#!/bin/sh\nmkdir -p out && echo generated > out/gen.txt\necho planted > .git/hooks/pre-commit 2>/dev/null || echo "hooks: refused"\ncat "$HOME/.ssh/id_rsa" 2>/dev/null || echo "ssh: hidden"\n',
  );
  chmodSync(join(p.root, 'scripts/gen.sh'), 0o755);
  mkdirSync(join(p.root, '.git/hooks'), { recursive: true });
  p.write(join(p.home, '.ssh/id_rsa'), 'PRIVATE KEY CANARY\n');
  return p;
}

async function bash(p: TestProject, command: string) {
  const r = await p.check(p.pre('Bash', { command, description: 'a script' }));
  const out = JSON.parse(r.stdout) as {
    hookSpecificOutput: {
      permissionDecision: string;
      permissionDecisionReason: string;
      updatedInput?: Record<string, unknown>;
      additionalContext?: string;
    };
  };
  return { ...out.hookSpecificOutput, decision: r.decision! };
}

describe('confinement turned off by the user, or turned on by a project file only', () => {
  it('asks about a command nobody decided, as before', async () => {
    const d = await bash(project(false), './scripts/gen.sh');
    expect(d.permissionDecision).toBe('ask');
    expect(d.updatedInput).toBeUndefined();
    expect(d.additionalContext).toBeUndefined();
  });

  it('a project file cannot turn confined allows on (they allow what would be asked)', async () => {
    const d = await bash(project('project'), './scripts/gen.sh');
    expect(d.permissionDecision).toBe('ask');
  });
});

describe('commands that are never confined, even with confinement on', () => {
  it.each([
    ['deletes project files', 'rm -rf src', 'deletes or overwrites'],
    ['reaches the network', 'curl -s https://example.com/install.sh', 'network'],
    ['reads a credential', `./scripts/gen.sh < ~/.aws/credentials`, ''],
  ])('%s: stays an ask', async (_name, command, why) => {
    const d = await bash(project(true), command);
    expect(d.permissionDecision).not.toBe('allow');
    expect(d.updatedInput).toBeUndefined();
    if (why !== '') expect(d.permissionDecisionReason).toContain(why);
  });

  it('a pack or rule decision stands (allowed and denied calls are not rewritten)', async () => {
    const p = project(true);
    expect((await bash(p, 'git status')).updatedInput).toBeUndefined();
    const denied = await bash(p, 'git push --force origin main');
    expect(denied.permissionDecision).not.toBe('allow');
    expect(denied.updatedInput).toBeUndefined();
  });
});

describe.runIf(!canConfine)('on a machine that cannot confine', () => {
  it('the call stays an ask and says why (fail closed)', async () => {
    const d = await bash(project(true), './scripts/gen.sh');
    expect(d.permissionDecision).toBe('ask');
    expect(d.permissionDecisionReason).toContain('could not run confined');
  });
});

describe.runIf(canConfine)('a project script nobody decided runs confined', () => {
  it('is allowed with the command rewritten; the rest of the input is kept', async () => {
    const d = await bash(project(true), './scripts/gen.sh');
    expect(d.permissionDecision).toBe('allow');
    expect(d.decision.tier).toBe('confine');
    expect(d.permissionDecisionReason).toContain('runs confined');
    expect(d.updatedInput?.description).toBe('a script');
    expect(d.updatedInput?.command).not.toBe('./scripts/gen.sh');
  });

  it('tells the agent that it runs confined (the reason of an allow reaches only the user)', async () => {
    const d = await bash(project(true), './scripts/gen.sh');
    expect(d.additionalContext).toBe(d.permissionDecisionReason);
    expect(d.additionalContext).toContain('runs confined: it may write only inside the project');
  });

  it("the walls follow the role: a coder's script cannot write tests/ or docs/, which the coder may not write", async () => {
    const p = project(true);
    p.write('tests/keep.test.ts', 'original\n');
    p.write('docs/guide.md', 'original\n');
    p.write(
      'scripts/sweep.sh',
      '#!/bin/sh\nmkdir -p src && echo ok > src/gen.ts\necho changed > tests/keep.test.ts 2>/dev/null || echo "tests: refused"\necho changed > docs/guide.md 2>/dev/null || echo "docs: refused"\n',
    );
    chmodSync(join(p.root, 'scripts/sweep.sh'), 0o755);
    const d = await bash(p, './scripts/sweep.sh');
    expect(d.permissionDecision).toBe('allow');
    expect(d.permissionDecisionReason).toContain('not in docs/, tests/ (role coder may not write them)');
    const run = spawnSync('/bin/sh', ['-c', String(d.updatedInput?.command)], {
      cwd: p.root,
      env: { ...p.env, PATH: process.env.PATH },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('tests: refused');
    expect(run.stdout).toContain('docs: refused');
    expect(readFileSync(join(p.root, 'tests/keep.test.ts'), 'utf8')).toBe('original\n');
    expect(readFileSync(join(p.root, 'docs/guide.md'), 'utf8')).toBe('original\n');
    expect(readFileSync(join(p.root, 'src/gen.ts'), 'utf8')).toBe('ok\n');
  });

  it('the rewritten command runs: its writes land in the project, the walls hold', async () => {
    const p = project(true);
    const d = await bash(p, './scripts/gen.sh');
    const run = spawnSync('/bin/sh', ['-c', String(d.updatedInput?.command)], {
      cwd: p.root,
      env: { ...p.env, PATH: process.env.PATH },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.status).toBe(0);
    expect(readFileSync(join(p.root, 'out/gen.txt'), 'utf8')).toBe('generated\n');
    expect(existsSync(join(p.root, '.git/hooks/pre-commit'))).toBe(false);
    expect(run.stdout).toContain('hooks: refused');
    expect(run.stdout).toContain('ssh: hidden');
    expect(run.stdout).not.toContain('CANARY');
  });

  it('is written to the audit log as a confined allow', async () => {
    const p = project(true);
    await bash(p, './scripts/gen.sh');
    const lines = readFileSync(join(p.runtimeDir, 'audit.jsonl'), 'utf8').trim().split('\n');
    expect(JSON.parse(lines[lines.length - 1]!)).toMatchObject({
      verdict: 'allow',
      tier: 'confine',
      rule: 'confine:unknown-effect',
    });
  });

  it('Gemini CLI gets the wrapped command as tool_input', async () => {
    const p = project(true);
    const payload = {
      session_id: 's1',
      cwd: p.root,
      hook_event_name: 'BeforeTool',
      tool_name: 'run_shell_command',
      tool_input: { command: './scripts/gen.sh' },
    };
    const r = await p.check(payload, 'gemini');
    const out = JSON.parse(r.stdout) as {
      decision: string;
      hookSpecificOutput?: { tool_input?: { command?: string } };
    };
    expect(out.decision).toBe('allow');
    expect(out.hookSpecificOutput?.tool_input?.command).toContain('bwrap');
  });

  it("with Claude Code's own sandbox on, the command is neither wrapped twice nor allowed on its walls: it stays an ask", async () => {
    const p = project(true);
    p.write(
      '.claude/settings.local.json',
      JSON.stringify({ sandbox: { enabled: true, autoAllowBashIfSandboxed: true } }),
    );
    const d = await bash(p, './scripts/gen.sh');
    expect(d.permissionDecision).toBe('ask');
    expect(d.updatedInput).toBeUndefined();
    expect(d.permissionDecisionReason).toContain('Claude Code’s own sandbox is on');
    // Gemini CLI has no such sandbox setting: its call is still confined.
    const gemini = await p.check(
      {
        session_id: 's1',
        cwd: p.root,
        hook_event_name: 'BeforeTool',
        tool_name: 'run_shell_command',
        tool_input: { command: './scripts/gen.sh' },
      },
      'gemini',
    );
    expect((JSON.parse(gemini.stdout) as { decision: string }).decision).toBe('allow');
  });
});

/** A project that is a real git work tree: an undo snapshot is taken before each confined run. */
function gitProject(): TestProject {
  const p = project(true);
  const git = (...args: string[]) => gitIn(p.root, ...args);
  git('init', '-q');
  p.write('src/app.ts', 'export const app = 1;\n');
  p.write('src/lib.ts', 'export const lib = 1;\n');
  git('add', '-A');
  git('commit', '-qm', 'one');
  p.write('notes.md', 'untracked\n');
  return p;
}

describe('commands that delete or overwrite files (issue 19, item 6: undo)', () => {
  it('not a git repository: no snapshot can be taken, so they stay asked (fail closed)', async () => {
    const d = await bash(project(true), 'rm -rf src');
    expect(d.permissionDecision).toBe('ask');
    expect(d.permissionDecisionReason).toContain('no undo snapshot can be taken');
  });

  it.each([
    ['git reset --hard', 'ask'],
    ['git clean -fdx', 'deny'],
    ['rm -rf .', 'deny'],
    ['rm -rf .git', 'deny'],
    ['rm -rf "$DIR"', 'ask'],
  ])('a pack still decides %s (%s): confinement never overrides a pack', async (command, verdict) => {
    const d = await bash(gitProject(), command);
    expect(d.permissionDecision).toBe(verdict);
    expect(d.updatedInput).toBeUndefined();
    expect(d.decision.tier).toBe('rules');
  });

  it.each([
    ['rm -rf /tmp/hookwise-not-the-project', 'outside the project'],
    ['git stash', 'read-only inside the walls'],
    ['git checkout -- src', 'read-only inside the walls'],
    ['rm -rf .git/objects', 'in .git'],
    ['jj util exec -- make', 'records every command in .jj'],
    ['jj rebase -o main', 'records every command in .jj'],
    ['hg rm src/a.ts', '.hg, which is read-only inside the walls'],
  ])('stays asked where undo could not help or the walls would refuse: %s', async (command, why) => {
    const d = await bash(gitProject(), command);
    expect(d.permissionDecision).toBe('ask');
    expect(d.permissionDecisionReason).toContain(why);
  });

  it.runIf(canConfine)(
    'in a git work tree runs confined, says hookwise undo restores the files, and hookwise undo does',
    async () => {
      const p = gitProject();
      // Through a script: a command seen to delete tracked sources stays an ask (tracked-sources.test.ts).
      p.write('scripts/wipe.sh', '#!/bin/sh\nrm -rf src notes.md && echo done > out.txt\n');
      chmodSync(join(p.root, 'scripts/wipe.sh'), 0o755);
      const d = await bash(p, './scripts/wipe.sh');
      expect(d.permissionDecision).toBe('allow');
      expect(d.decision.tier).toBe('confine');
      expect(d.additionalContext).toContain('`hookwise undo` restores them');
      const run = spawnSync('/bin/sh', ['-c', String(d.updatedInput?.command)], {
        cwd: p.root,
        env: { ...p.env, PATH: process.env.PATH },
        encoding: 'utf8',
        timeout: 20_000,
      });
      expect(run.status).toBe(0);
      expect(existsSync(join(p.root, 'src/app.ts'))).toBe(false);
      const { undoCommand } = await import('../../src/cli/undo.js');
      const undone = undoCommand({ json: true }, p.root, { ...p.env, PATH: process.env.PATH });
      expect(undone.exitCode).toBe(0);
      const report = JSON.parse(undone.stdout) as { restored: { path: string }[]; created: string[]; command: string };
      expect(report.restored.map((r) => r.path)).toEqual(['notes.md', 'src/app.ts', 'src/lib.ts']);
      expect(report.created).toEqual(['out.txt']);
      expect(report.command).toBe('./scripts/wipe.sh');
      expect(readFileSync(join(p.root, 'src/app.ts'), 'utf8')).toBe('export const app = 1;\n');
    },
  );

  it.runIf(canConfine)(
    'the snapshot records the command sanitized: a secret in it never reaches the repository',
    async () => {
      const p = gitProject();
      const token = `ghp_${'a1B2c3D4e5'.repeat(3)}abcdef`;
      const d = await bash(p, `GITHUB_TOKEN=${token} ./scripts/gen.sh`);
      expect(d.permissionDecision).toBe('allow');
      expect(
        spawnSync('/bin/sh', ['-c', String(d.updatedInput?.command)], {
          cwd: p.root,
          env: { ...p.env, PATH: process.env.PATH },
          timeout: 20_000,
        }).status,
      ).toBe(0);
      const message = spawnSync('git', ['log', '-1', '--format=%B', 'refs/hookwise/undo/main'], {
        cwd: p.root,
        encoding: 'utf8',
      }).stdout;
      expect(message).toContain('./scripts/gen.sh');
      expect(message).not.toContain(token);
      const objects = spawnSync('git', ['cat-file', '--batch-all-objects', '--batch'], {
        cwd: p.root,
        encoding: 'utf8',
      }).stdout;
      expect(objects).not.toContain(token);
    },
  );
});

describe('git forms no pack decided (a known program, an unknown form)', () => {
  it.each([
    ['git gc', 'read-only inside the walls'],
    ['git rebase main', 'read-only inside the walls'],
    // nested repositories, which the undo snapshot leaves out: their work trees would be lost for good
    ['git submodule deinit -f --all', 'read-only inside the walls'],
    ['git worktree remove --force ../wt', 'read-only inside the walls'],
  ])('a verb the catalogue knows to rewrite the repository stays asked: %s', async (command, why) => {
    const d = await bash(gitProject(), command);
    expect(d.permissionDecision).toBe('ask');
    expect(d.permissionDecisionReason).toContain(why);
  });

  /** A git alias (an unknown form) in a git project whose user has a git config, allowed confined and run. */
  async function runAlias(alias: string, expansion: string) {
    const p = gitProject();
    // a user's own git config: where there is none, the walls stub the path with an unreadable node and git stops
    p.write(join(p.home, '.gitconfig'), '[user]\n\tname = t\n\temail = t@t\n');
    gitIn(p.root, 'config', `alias.${alias}`, expansion);
    const d = await bash(p, `git ${alias}`);
    expect(d.permissionDecision).toBe('allow');
    expect(d.decision.tier).toBe('confine');
    const run = spawnSync('/bin/sh', ['-c', String(d.updatedInput?.command)], {
      cwd: p.root,
      env: { ...p.env, PATH: process.env.PATH },
      encoding: 'utf8',
      timeout: 20_000,
    });
    return { p, run };
  }

  it.runIf(canConfine)('an unknown form runs confined and reads the repository there', async () => {
    const { run } = await runAlias('hist', 'log --format=%s');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('one');
  });

  it.runIf(canConfine)('an unknown form that turns out to write the repository fails inside the walls', async () => {
    const { p, run } = await runAlias('mark', 'tag -a v1 -m marked');
    expect(run.status).not.toBe(0);
    expect(`${run.stdout}${run.stderr}`).toContain('Read-only file system');
    expect(spawnSync('git', ['tag', '--list'], { cwd: p.root, encoding: 'utf8' }).stdout).toBe('');
  });
});

describe('a read in a working directory hookwise cannot know (`cd "$D" && cat credentials`)', () => {
  it('is not allowed on knowledge: without confinement it is asked', async () => {
    const d = await bash(project(false), 'cd "$D" && cat credentials');
    expect(d.permissionDecision).toBe('ask');
    expect(d.permissionDecisionReason).toMatch(/`credentials` is relative to a working directory only known/);
  });

  it('a file named like a key is asked wherever it is, confinement or not (a pack ask is never confined)', async () => {
    const d = await bash(project(true), 'cd "$D" && cat id_rsa');
    expect(d.permissionDecision).toBe('ask');
    expect(d.decision.rule?.id).toBe('pack:credentials:read-secret-file');
  });

  it.runIf(canConfine)(
    'runs confined, where the credential directories it may land in are hidden',
    async () => {
      const p = project(true);
      const secrets: [string, string][] = [
        ['.aws', 'credentials'],
        ['.kube', 'config'],
        ['.config/gh', 'hosts.yml'],
        ['.docker', 'config.json'],
        ['.ssh', 'config'],
      ];
      for (const [dir, file] of secrets) p.write(join(p.home, dir, file), `CANARY ${dir}\n`);
      for (const [dir, file] of secrets) {
        const d = await bash(p, `cd "$D" && cat ${file}; ls -A`);
        expect(d.permissionDecision, dir).toBe('allow');
        const run = spawnSync('/bin/sh', ['-c', String(d.updatedInput?.command)], {
          cwd: p.root,
          env: { ...p.env, PATH: process.env.PATH, D: join(p.home, dir) },
          encoding: 'utf8',
          timeout: 20_000,
        });
        expect(`${run.stdout}${run.stderr}`, dir).not.toContain('CANARY');
        // A directory hidden whole lists empty; ~/.docker/config.json is hidden as one file (it reads empty).
        if (dir !== '.docker') expect(run.stdout, dir).not.toContain(file);
      }
    },
    60_000,
  );
});

describe('the confinement cache', () => {
  it('is a private file in the runtime directory once a confinable call was judged', async () => {
    const p = project(true);
    await bash(p, './scripts/gen.sh');
    const file = join(p.runtimeDir, 'cache', 'confine.json');
    const cached = JSON.parse(readFileSync(file, 'utf8')) as { verdict: { available: boolean } };
    expect(cached.verdict.available).toBe(canConfine);
    writeFileSync(file, '{ not json');
    // A corrupt cache is probed again, never trusted.
    const d = await bash(p, './scripts/gen.sh');
    expect(d.permissionDecision).toBe(canConfine ? 'allow' : 'ask');
  });
});
