import { mkdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeProject, type TestProject } from '../support/project.js';

/** Write as `role`, expect `verdict` (and optionally a reason fragment). */
async function expectWrite(
  p: TestProject,
  role: string,
  path: string,
  verdict: string,
  reason?: RegExp,
): Promise<void> {
  p.register(`s-${role}`, role);
  const file = path.startsWith('/') || path.startsWith('~') ? path : join(p.root, path);
  const result = await p.check(p.pre('Write', { file_path: file, content: 'x' }, `s-${role}`));
  expect(result.decision?.verdict, `${role} writing ${path}: ${result.decision?.reason}`).toBe(verdict);
  if (reason !== undefined) expect(result.decision?.reason).toMatch(reason);
}

describe('path policy per built-in role', () => {
  // [role, path, verdict]: ask = sensitive/outside/undecided, deny = role's deny_write, allow = allow_write.
  const table: [string, string, 'allow' | 'deny' | 'ask'][] = [
    ['coder', 'src/index.ts', 'allow'],
    ['coder', 'lib/util/x.js', 'allow'],
    ['coder', 'package.json', 'allow'],
    ['coder', 'tests/index.test.ts', 'deny'],
    ['coder', 'src/index.test.ts', 'deny'],
    ['coder', 'docs/guide.md', 'deny'],
    ['coder', '.github/workflows/ci.yml', 'deny'],
    ['coder', 'main.tf', 'deny'],
    ['coder', 'README.md', 'ask'],
    ['tester', 'tests/a.test.ts', 'allow'],
    ['tester', 'src/feature.spec.ts', 'deny'], // deny_write {{source}} wins over allow {{tests}}
    ['tester', 'vitest.config.ts', 'allow'],
    ['tester', 'src/index.ts', 'deny'],
    ['integrator', 'infra/main.tf', 'allow'],
    ['integrator', 'terraform/vars.tfvars', 'allow'],
    ['integrator', 'src/a.ts', 'deny'],
    ['devops', '.github/workflows/ci.yml', 'allow'],
    ['devops', 'Dockerfile', 'allow'],
    ['devops', 'services/api/Dockerfile.prod', 'allow'],
    ['devops', 'src/a.ts', 'deny'],
    ['researcher', 'docs/research/findings.md', 'allow'],
    ['researcher', 'src/a.ts', 'deny'],
    ['researcher', 'docs/plans/p.md', 'ask'],
    ['architect', 'docs/adr/0001-x.md', 'allow'],
    ['architect', 'docs/architecture/overview.md', 'allow'],
    ['architect', 'tests/a.test.ts', 'deny'],
    ['planner', 'docs/plans/plan.md', 'allow'],
    ['planner', 'lib/a.ts', 'deny'],
    ['reviewer', 'docs/reviews/pr-12.md', 'allow'],
    ['reviewer', 'docs/reviews/security/audit.md', 'deny'],
    ['security-reviewer', 'docs/reviews/security/audit.md', 'allow'],
    ['security-reviewer', 'docs/reviews/pr-12.md', 'deny'],
    ['docs', 'docs/guide.md', 'allow'],
    ['docs', 'README.md', 'allow'],
    ['docs', 'src/README.md', 'deny'], // deny {{source}} beats allow *.md
    ['docs', 'src/a.ts', 'deny'],
    ['maintainer', 'src/a.ts', 'allow'],
    ['maintainer', 'tests/a.ts', 'allow'],
    ['maintainer', '.github/workflows/ci.yml', 'allow'],
    ['troubleshooter', 'anything/at/all.txt', 'allow'],
  ];
  it.each(table)('%s writing %s → %s', async (role, path, verdict) => {
    await expectWrite(makeProject(), role, path, verdict);
  });
});

describe('sensitive paths ask whatever the role', () => {
  it.each([
    ['.claude/settings.json'],
    ['.hookwise/roles.yml'],
    ['.env'],
    ['.env.local'],
    ['services/api/.env.production'],
    ['.git/hooks/pre-commit'],
    ['config/secrets/db.yml'],
  ])('maintainer writing %s → ask', async (path) => {
    await expectWrite(makeProject(), 'maintainer', path, 'ask', /sensitive/);
  });

  it('home-directory sensitive paths ask', async () => {
    const p = makeProject();
    await expectWrite(p, 'maintainer', join(p.home, '.claude/settings.json'), 'ask', /sensitive/);
    await expectWrite(p, 'maintainer', join(p.home, '.config/gh/hosts.yml'), 'ask', /sensitive/);
  });

  it('reading credentials asks; reading ordinary files is allowed', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    const env = await p.check(p.pre('Read', { file_path: join(p.root, '.env') }));
    expect(env.decision?.verdict).toBe('ask');
    const src = await p.check(p.pre('Read', { file_path: join(p.root, 'src/a.ts') }));
    expect(src.decision?.verdict).toBe('allow');
    const claude = await p.check(p.pre('Read', { file_path: join(p.root, '.claude/settings.json') }));
    expect(claude.decision?.verdict).toBe('allow');
  });
});

describe('canonical paths decide, not the spelling', () => {
  it('.claude/../../etc/passwd is outside the root, not under .claude/', async () => {
    const p = makeProject();
    // As many `..` as it takes from .claude/ to / (the test project itself lives in the temp directory).
    const up = relative(join(p.root, '.claude'), '/etc/passwd');
    await expectWrite(p, 'maintainer', join(p.root, '.claude', up), 'ask', /\/etc\/passwd is outside the project root/);
  });

  it('src/../tests/x.ts is a test file for the coder', async () => {
    await expectWrite(makeProject(), 'coder', 'src/../tests/x.ts', 'deny', /tests\/x\.ts/);
  });

  it('a symlink into a denied directory is judged by its target', async () => {
    const p = makeProject();
    mkdirSync(join(p.root, 'tests'));
    mkdirSync(join(p.root, 'src'));
    symlinkSync(join(p.root, 'tests'), join(p.root, 'src', 'sneaky'));
    await expectWrite(p, 'coder', 'src/sneaky/new.test.ts', 'deny', /tests\/new\.test\.ts/);
  });

  it('a dangling symlink is judged by the target a write through it creates', async () => {
    const p = makeProject();
    mkdirSync(join(p.root, 'src'));
    mkdirSync(join(p.root, 'tests'));
    symlinkSync('../tests/new.test.ts', join(p.root, 'src', 'helper.ts'));
    await expectWrite(p, 'coder', 'src/helper.ts', 'deny', /tests\/new\.test\.ts/);
    // Into a directory that does not exist yet either, and through a chain of two links.
    symlinkSync(join(p.root, 'tests', 'fresh', 'a.test.ts'), join(p.root, 'src', 'deep.ts'));
    await expectWrite(p, 'coder', 'src/deep.ts', 'deny', /tests\/fresh\/a\.test\.ts/);
    symlinkSync('helper.ts', join(p.root, 'src', 'again.ts'));
    await expectWrite(p, 'coder', 'src/again.ts', 'deny', /tests\/new\.test\.ts/);
    // Out of the project, onto a sensitive path.
    symlinkSync(join(p.home, '.bashrc'), join(p.root, 'src', 'rc.ts'));
    await expectWrite(p, 'maintainer', 'src/rc.ts', 'ask', /sensitive/);
    // A dangling link inside the allowed tree stays allowed.
    symlinkSync('real.ts', join(p.root, 'src', 'alias.ts'));
    await expectWrite(p, 'coder', 'src/alias.ts', 'allow');
  });

  it('an intermediate symlink to a sensitive directory asks', async () => {
    const p = makeProject();
    mkdirSync(join(p.root, '.claude'));
    mkdirSync(join(p.root, 'src'));
    symlinkSync(join(p.root, '.claude'), join(p.root, 'src', 'cfg'));
    await expectWrite(p, 'maintainer', 'src/cfg/settings.json', 'ask', /sensitive/);
  });

  it('a symlink pointing outside the project is outside the project', async () => {
    const p = makeProject();
    mkdirSync(join(p.root, 'src'));
    symlinkSync(p.home, join(p.root, 'src', 'home'));
    await expectWrite(p, 'maintainer', 'src/home/notes.txt', 'ask', /outside the project root/);
  });

  it('~ is expanded', async () => {
    const p = makeProject();
    await expectWrite(p, 'maintainer', '~/.claude/settings.json', 'ask', /sensitive/);
  });

  it('relative paths resolve against the cwd', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    const result = await p.check({ ...p.pre('Write', { file_path: 'tests/x.ts', content: '' }), cwd: p.root });
    expect(result.decision?.verdict).toBe('deny');
  });
});

describe('writes outside the project root', () => {
  it('ask by default', async () => {
    await expectWrite(makeProject(), 'maintainer', '/opt/elsewhere/file.txt', 'ask', /outside_root\.write: ask/);
  });

  it('the user may loosen it; a project may only tighten it', async () => {
    const p = makeProject();
    p.write(join(p.configDir, 'config.yml'), 'outside_root:\n  write: allow\n');
    await expectWrite(p, 'maintainer', '/opt/elsewhere/file.txt', 'allow');
    p.write('.hookwise/policy.yml', 'outside_root:\n  write: deny\n');
    await expectWrite(p, 'maintainer', '/opt/elsewhere/file.txt', 'deny');
  });

  it('a project file cannot loosen it', async () => {
    const p = makeProject();
    p.write('.hookwise/policy.yml', 'outside_root:\n  write: allow\n');
    await expectWrite(p, 'maintainer', '/opt/elsewhere/file.txt', 'ask');
  });
});

describe('the system temp directory is scratch space, not "outside the project"', () => {
  it('writing a file in /tmp (or $TMPDIR) needs no human, whatever the role', async () => {
    const p = makeProject();
    await expectWrite(p, 'maintainer', '/tmp/hookwise-scratch/out.txt', 'allow', /system temp directory/);
    await expectWrite(p, 'researcher', '/var/tmp/hookwise-scratch/out.txt', 'allow', /system temp directory/);
    await expectWrite(p, 'coder', join(tmpdir(), 'hookwise-scratch', 'out.txt'), 'allow', /system temp directory/);
  });

  it('not the temp directory itself, not a symlink planted there, not the home directory even when it is under /tmp', async () => {
    const p = makeProject();
    await expectWrite(p, 'maintainer', '/tmp', 'ask', /outside the project root/);
    // The test project's home lives in the temp directory: it is still home.
    await expectWrite(p, 'maintainer', join(p.home, 'notes.txt'), 'ask', /outside the project root/);
    // A link in the temp directory that points home is judged where it points.
    symlinkSync(p.home, join(p.root, '..', 'to-home'));
    await expectWrite(p, 'maintainer', join(p.root, '..', 'to-home', 'notes.txt'), 'ask', /outside the project root/);
  });

  it('outside_root.write: deny still denies there', async () => {
    const p = makeProject();
    p.write('.hookwise/policy.yml', 'outside_root:\n  write: deny\n');
    await expectWrite(p, 'maintainer', '/tmp/hookwise-scratch/out.txt', 'deny');
  });
});

describe('multi-path calls', () => {
  it('an apply_patch touching an allowed and a denied file is denied', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    const patch =
      '*** Begin Patch\n*** Update File: src/a.ts\n@@\n-x\n+y\n*** Add File: tests/a.test.ts\n+t\n*** End Patch\n';
    const result = await p.check(
      {
        session_id: 's1',
        turn_id: 't1',
        model: 'gpt',
        cwd: p.root,
        hook_event_name: 'PreToolUse',
        tool_name: 'apply_patch',
        tool_input: { command: patch },
      },
      'codex',
    );
    expect(result.decision?.verdict).toBe('deny');
  });

  it('an allowed path next to an undecided one leaves the call undecided (ask)', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    const patch = '*** Begin Patch\n*** Update File: src/a.ts\n*** Update File: README.md\n*** End Patch\n';
    const result = await p.check(
      {
        session_id: 's1',
        turn_id: 't1',
        cwd: p.root,
        hook_event_name: 'PreToolUse',
        tool_name: 'apply_patch',
        tool_input: { command: patch },
      },
      'codex',
    );
    expect(result.decision?.tier).toBe('default');
  });
});

describe('reads that need a human whatever the role: credentials, hookwise state, recursive reads above them', () => {
  async function readVerdict(
    p: TestProject,
    tool: string,
    input: Record<string, unknown>,
  ): Promise<{ verdict: string | undefined; rule: string | undefined }> {
    p.register('s-reader', 'maintainer');
    const r = await p.check(p.pre(tool, input, 's-reader'));
    return { verdict: r.decision?.tier === 'default' ? 'undecided' : r.decision?.verdict, rule: r.decision?.rule?.id };
  }

  it('Read of a credential file asks', async () => {
    const p = makeProject();
    expect(await readVerdict(p, 'Read', { file_path: join(p.home, '.ssh', 'id_ed25519') })).toEqual({
      verdict: 'ask',
      rule: expect.stringMatching(/^sensitive-read:~\/\.ssh\//),
    });
    // Public material and templates are not credentials.
    expect((await readVerdict(p, 'Read', { file_path: join(p.home, '.ssh', 'id_ed25519.pub') })).verdict).not.toBe(
      'ask',
    );
    expect((await readVerdict(p, 'Read', { file_path: join(p.root, '.env.example') })).verdict).not.toBe('ask');
    expect((await readVerdict(p, 'Read', { file_path: join(p.root, '.env.local') })).verdict).toBe('ask');
    expect(await readVerdict(p, 'Read', { file_path: join(p.home, '.config', 'gh', 'hosts.yml') })).toEqual({
      verdict: 'ask',
      rule: 'sensitive-read:~/.config/gh/**',
    });
    expect(await readVerdict(p, 'Read', { file_path: join(p.root, 'deploy', 'id_rsa') })).toEqual({
      verdict: 'ask',
      rule: 'sensitive-read:id_rsa',
    });
  });

  it.each([
    '~/.config/git/credentials',
    '~/.bash_history',
    '~/.zsh_history',
    '~/.local/share/fish/fish_history',
    '~/.python_history',
    '~/.node_repl_history',
    '~/.psql_history',
    '~/.mysql_history',
    '~/.sqlite_history',
    '~/.lesshst',
    '~/.local/state/lesshst',
    '~/.rediscli_history',
    '~/.irb_history',
    '~/.mongodb/mongosh/mongosh_repl_history',
    'ops/backup/.bash_history',
  ])('Read of %s (a credential store or a history file) asks', async (path) => {
    const p = makeProject();
    const file = path.startsWith('~/') ? join(p.home, path.slice(2)) : join(p.root, path);
    expect(await readVerdict(p, 'Read', { file_path: file })).toMatchObject({
      verdict: 'ask',
      rule: expect.stringMatching(/^sensitive-read:/),
    });
  });

  it("reading or writing hookwise's runtime directory asks (sessions, sockets)", async () => {
    const p = makeProject();
    expect((await readVerdict(p, 'Read', { file_path: join(p.runtimeDir, 'sessions', 'x.json') })).rule).toBe(
      'sensitive-read:hookwise-state',
    );
    expect(
      (await readVerdict(p, 'Write', { file_path: join(p.runtimeDir, 'sessions', 'x.json'), content: '{}' })).rule,
    ).toBe('sensitive:hookwise-state');
  });

  it('Grep or Glob over a directory holding credentials asks; over the project it does not', async () => {
    const p = makeProject();
    expect(await readVerdict(p, 'Grep', { pattern: 'token', path: p.home })).toMatchObject({
      verdict: 'ask',
      rule: 'sensitive-read:recursive',
    });
    expect(await readVerdict(p, 'Grep', { pattern: 'token', path: join(p.home, '.aws') })).toMatchObject({
      verdict: 'ask',
    });
    expect((await readVerdict(p, 'Grep', { pattern: 'token', path: join(p.root, 'src') })).verdict).not.toBe('ask');
    // Read of the home directory itself is not a recursive read.
    expect((await readVerdict(p, 'Read', { file_path: join(p.home, 'notes.txt') })).rule).not.toBe(
      'sensitive-read:recursive',
    );
  });

  it.each([
    [{ pattern: 'KEY', glob: '.env*', output_mode: 'content' }, 'ask'],
    [{ pattern: 'KEY', glob: '**/.env.local', output_mode: 'content' }, 'ask'],
    [{ pattern: 'AKIA', glob: '*', output_mode: 'files_with_matches' }, 'ask'],
    [{ pattern: 'BEGIN', glob: '*.{pem,crt}', output_mode: 'count' }, 'ask'],
    [{ pattern: 'x', glob: 'deploy/id_*' }, 'ask'],
    [{ pattern: 'KEY', type: 'env' }, 'ask'],
    [{ pattern: 'KEY', glob: '*.ts', output_mode: 'content' }, 'not ask'],
    [{ pattern: 'KEY', glob: '!.env*' }, 'not ask'],
    [{ pattern: 'KEY', glob: '.env.example' }, 'not ask'],
    [{ pattern: 'KEY', type: 'ts' }, 'not ask'],
    [{ pattern: 'KEY', output_mode: 'content' }, 'not ask'],
  ])('Grep %j over the project → %s', async (input, expected) => {
    const p = makeProject();
    const got = await readVerdict(p, 'Grep', { ...input, path: p.root });
    if (expected === 'ask')
      expect(got).toMatchObject({ verdict: 'ask', rule: expect.stringMatching(/^sensitive-read:/) });
    else expect(got.verdict).not.toBe('ask');
  });

  it('Grep whose path is a credential file asks', async () => {
    const p = makeProject();
    expect(await readVerdict(p, 'Grep', { pattern: 'KEY', path: join(p.root, '.env') })).toMatchObject({
      verdict: 'ask',
    });
  });

  it('writes that make code run later ask for every role', async () => {
    const p = makeProject();
    for (const path of [
      '.mcp.json',
      '.envrc',
      '.vscode/tasks.json',
      '.git/config',
      '.gemini/settings.json',
      '.codex/config.toml',
      '.husky/pre-commit',
    ]) {
      await expectWrite(p, 'maintainer', path, 'ask', /sensitive path/);
    }
  });

  // Version control configuration names programs that ordinary reads run (git diff, hg log, jj log).
  const vcsConfig = [
    '.git/config.worktree',
    '.git/worktrees/feature/config.worktree',
    '.git/modules/vendor/lib/config',
    '.git/modules/lib/hooks/post-checkout',
    'vendor/lib/.git/config',
    'vendor/lib/.git/hooks/pre-commit',
    '.hg/hgrc',
    '.hg/sharedpath',
    'sub/repo/.hg/hgrc',
    '.jj/repo/config.toml',
    '.jj/repo/store/git/config',
    'vendor/x/.jj/repo/config.toml',
    '~/.hgrc',
    '~/.jjconfig.toml',
    '~/.config/jj/config.toml',
    '~/.config/hg/hgrc',
  ];
  it.each(vcsConfig)('Write of %s asks for every role', async (path) => {
    await expectWrite(makeProject(), 'maintainer', path, 'ask', /sensitive path/);
  });
  it.each(vcsConfig.filter((path) => !path.startsWith('~')))('Edit of %s asks', async (path) => {
    const p = makeProject();
    p.register('s-e', 'maintainer');
    const result = await p.check(
      p.pre('Edit', { file_path: join(p.root, path), old_string: 'a', new_string: 'b' }, 's-e'),
    );
    expect(result.decision).toMatchObject({ verdict: 'ask', rule: { id: expect.stringMatching(/^sensitive:/) } });
  });
  it.each(['.gitattributes', 'src/.gitattributes', '.git/info/exclude', 'docs/hg-notes.md', 'src/jj.ts'])(
    '%s is no version control configuration: the role decides',
    async (path) => {
      await expectWrite(makeProject(), 'maintainer', path, 'allow');
    },
  );
});
