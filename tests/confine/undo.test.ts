/**
 * The undo snapshot and `hookwise undo`, with real git: the snapshot step runs as the wrapped command runs
 * it (POSIX sh, on the host, before bubblewrap), then files are destroyed and undo puts them back. No
 * bubblewrap needed here (the walls' part is in escapes.test.ts and confinable.test.ts).
 */
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { gitOnPath, gitWorkTree, type GitWorkTree } from '../../src/confine/git-layout.js';
import {
  ignoresRegex,
  parseSnapshotMessage,
  prepareSnapshot,
  snapshotIgnores,
  snapshotMessage,
} from '../../src/confine/snapshot.js';
import {
  addedSinceSnapshot,
  addedSinceSnapshotAsync,
  latestSnapshot,
  undo,
  UndoError,
} from '../../src/confine/undo.js';
import { DEFAULT_SENSITIVE_READ, DEFAULT_SENSITIVE_WRITE } from '../../src/policy/defaults.js';
import { removeTestTree } from '../support/remove-tree.js';

const bases: string[] = [];
afterEach(() => {
  while (bases.length > 0) removeTestTree(bases.pop()!);
});

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@t',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@t',
  GIT_CONFIG_GLOBAL: '/dev/null',
};

interface Repo {
  root: string;
  runtimeDir: string;
  git(...args: string[]): string;
  put(path: string, content: string): void;
  read(path: string): string | undefined;
  /** Takes the snapshot as the wrapped command does, then runs `then` (the agent's command) in the same sh. */
  snapshot(command?: string, then?: string): { status: number | null; stdout: string; stderr: string };
}

function repo(options: { init?: boolean } = {}): Repo {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'hookwise-undo-')));
  bases.push(base);
  const root = join(base, 'project');
  const runtimeDir = join(base, 'runtime');
  mkdirSync(root, { recursive: true });
  const git = (...args: string[]) => {
    const r = spawnSync('git', args, { cwd: root, env: GIT_ENV, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
    return r.stdout.trim();
  };
  const put = (path: string, content: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  };
  if (options.init !== false) {
    git('init', '-q');
    put('.gitignore', 'node_modules/\n');
    put('src/app.ts', 'app v1\n');
    put('src/lib/util.ts', 'util v1\n');
    put('README.md', 'readme\n');
    git('add', '-A');
    git('commit', '-qm', 'one');
  }
  return {
    root,
    runtimeDir,
    git,
    put,
    read: (path) => (existsSync(join(root, path)) ? readFileSync(join(root, path), 'utf8') : undefined),
    snapshot(command = 'true', then = command) {
      const tree = gitWorkTree(root);
      if (tree === undefined) throw new Error('not a work tree');
      const step = prepareSnapshot({
        tree,
        sanitizedCommand: command,
        sensitive: { write: DEFAULT_SENSITIVE_WRITE, read: DEFAULT_SENSITIVE_READ },
        runtimeDir,
        version: 'test',
      });
      const r = spawnSync('/bin/sh', ['-c', `${step}\n${then}`], { cwd: root, env: process.env, encoding: 'utf8' });
      return { status: r.status, stdout: r.stdout, stderr: r.stderr };
    },
  };
}

const fingerprint = (r: Repo) => {
  const index = join(r.root, '.git/index');
  return {
    head: r.git('rev-parse', 'HEAD'),
    index: readFileSync(index).toString('base64'),
    mtime: statSync(index).mtimeMs,
    stash: r.git('stash', 'list'),
    branches: r.git('branch', '--list'),
  };
};

describe('gitWorkTree', () => {
  it('a repository, a linked worktree (own ref), and what is not one', () => {
    const r = repo();
    expect(gitWorkTree(r.root)).toMatchObject({
      root: r.root,
      gitDir: join(r.root, '.git'),
      commonDir: join(r.root, '.git'),
      undoRef: 'refs/hookwise/undo/main',
    });
    const wt = join(dirname(r.root), 'wt');
    r.git('worktree', 'add', '-q', wt);
    expect(gitWorkTree(wt)).toMatchObject({
      gitDir: join(r.root, '.git/worktrees/wt'),
      commonDir: join(r.root, '.git'),
      indexFile: join(r.root, '.git/worktrees/wt/index'),
      undoRef: 'refs/hookwise/undo/worktree-wt',
    });
    const plain = repo({ init: false });
    expect(gitWorkTree(plain.root)).toBeUndefined();
    mkdirSync(join(plain.root, '.git'));
    expect(gitWorkTree(plain.root)).toBeUndefined(); // an empty .git is no repository
    rmSync(join(plain.root, '.git'), { recursive: true });
    writeFileSync(join(plain.root, '.git'), 'not a gitdir line\n');
    expect(gitWorkTree(plain.root)).toBeUndefined();
  });
});

describe('gitOnPath', () => {
  it('finds git on PATH, once per PATH value; none there: no snapshot', () => {
    expect(gitOnPath(process.env)).toBe(true);
    expect(gitOnPath({ PATH: '/nonexistent:relative/bin' })).toBe(false);
  });
});

describe('snapshot ignores and record', () => {
  it('turns the sensitive lists into gitignore patterns: project patterns only, extglobs widened', () => {
    const ignores = snapshotIgnores([
      '.env!(.example|.sample)',
      '**/.env*',
      '**/secrets/**',
      '~/.aws/**',
      '/etc/shadow',
      '.git/config',
      '.claude/**',
      '*.pem',
      '.vscode/{tasks,launch}.json',
      '#x',
    ]);
    expect(ignores).toEqual(['*.pem', '.env*', '.vscode/*.json', '/.claude/', 'secrets/']);
  });

  it('the tracked-file regex means what the patterns mean (a name at any depth, anchored, a directory)', () => {
    const re = new RegExp(ignoresRegex(['.env*', '*.pem', '/.claude/', 'secrets/', 'docs/a?.md']));
    const hits = ['.env', 'app/.env.local', 'certs/x.pem', '.claude/settings.json', 'a/secrets/k', 'docs/ab.md'];
    const misses = ['env', 'x.pem.txt', 'sub/.claude/x', 'secretsx/k', 'docs/abc.md', 'x/docs/ab.md'];
    expect(hits.filter((h) => !re.test(h))).toEqual([]);
    expect(misses.filter((m) => re.test(m))).toEqual([]);
  });

  it('the record round-trips; a message hookwise did not write is not a snapshot', () => {
    const record = { command: 'rm -rf src', ignores: ['.env*', '/.claude/'], tracked: ['.env*'], version: '1.2.3' };
    expect(parseSnapshotMessage(snapshotMessage(record))).toEqual(record);
    expect(parseSnapshotMessage('fix: a bug\n')).toBeUndefined();
    expect(parseSnapshotMessage('hookwise-undo-snapshot: {"command":1}\n')).toBeUndefined();
    expect(parseSnapshotMessage(snapshotMessage({ ...record, command: 'x'.repeat(5000) }))?.command.length).toBe(2000);
  });
});

describe('the snapshot step', () => {
  it('records tracked, modified and untracked files under a hidden ref; index, HEAD, stash and branches untouched', () => {
    const r = repo();
    r.put('src/app.ts', 'app v2, not committed\n');
    r.put('notes.md', 'untracked\n');
    r.put('node_modules/x/index.js', 'ignored\n');
    r.put('.env', 'TOKEN=secret-value\n');
    r.git('add', 'src/app.ts'); // something staged, so the index differs from HEAD
    const before = fingerprint(r);
    const run = r.snapshot('./scripts/gen.sh', 'echo ran');
    expect(run).toMatchObject({ status: 0, stdout: 'ran\n', stderr: '' });
    expect(fingerprint(r)).toEqual(before);
    const files = r.git('ls-tree', '-r', '--name-only', 'refs/hookwise/undo/main').split('\n');
    expect(files).toEqual(['.gitignore', 'README.md', 'notes.md', 'src/app.ts', 'src/lib/util.ts']);
    expect(r.git('show', 'refs/hookwise/undo/main:src/app.ts')).toBe('app v2, not committed');
    expect(latestSnapshot(r.root)?.record.command).toBe('./scripts/gen.sh');
    // Nothing left in the scratch directory; no branch, tag or stash entry made.
    expect(spawnSync('ls', [join(r.runtimeDir, 'undo')], { encoding: 'utf8' }).stdout).toBe('');
    expect(r.git('for-each-ref', '--format=%(refname)')).toBe(
      'refs/heads/' + r.git('branch', '--show-current') + '\nrefs/hookwise/undo/main',
    );
  });

  it("a tracked .env edited locally stays out of the object store; the user's global excludes still apply", () => {
    const r = repo();
    r.put('.env.development', 'API=placeholder\n');
    r.git('add', '-A');
    r.git('commit', '-qm', 'env');
    r.put('.env.development', 'API=real-secret-value\n');
    const globalIgnore = join(dirname(r.root), 'global-ignore');
    writeFileSync(globalIgnore, '*.swp\n');
    r.git('config', 'core.excludesFile', globalIgnore);
    r.put('src/.app.ts.swp', 'editor swap\n');
    expect(r.snapshot().status).toBe(0);
    expect(r.git('show', 'refs/hookwise/undo/main:.env.development')).toBe('API=placeholder');
    expect(r.git('ls-tree', '-r', '--name-only', 'refs/hookwise/undo/main')).not.toContain('.swp');
    const objects = spawnSync('git', ['cat-file', '--batch-all-objects', '--batch'], {
      cwd: r.root,
      encoding: 'utf8',
    }).stdout;
    expect(objects).not.toContain('real-secret-value');
    // undo compares the same way: the edit is neither reported nor reverted.
    expect(undo({ projectRoot: r.root, runtimeDir: r.runtimeDir })).toMatchObject({ restored: [], created: [] });
    expect(r.read('.env.development')).toBe('API=real-secret-value\n');
  });

  it('works in a repository with no commit yet, and in a linked worktree (its own ref)', () => {
    const empty = repo({ init: false });
    empty.git('init', '-q');
    empty.put('a.txt', 'a\n');
    expect(empty.snapshot().status).toBe(0);
    expect(empty.git('ls-tree', '-r', '--name-only', 'refs/hookwise/undo/main')).toBe('a.txt');
    const r = repo();
    const wt = join(dirname(r.root), 'wt');
    r.git('worktree', 'add', '-q', wt);
    writeFileSync(join(wt, 'only-here.txt'), 'x\n');
    const tree = gitWorkTree(wt)!;
    const step = prepareSnapshot({
      tree,
      sanitizedCommand: 'x',
      sensitive: { write: [], read: [] },
      runtimeDir: r.runtimeDir,
      version: 'test',
    });
    expect(spawnSync('/bin/sh', ['-c', step], { cwd: wt, encoding: 'utf8' }).status).toBe(0);
    expect(r.git('ls-tree', '-r', '--name-only', 'refs/hookwise/undo/worktree-wt')).toContain('only-here.txt');
    expect(
      spawnSync('git', ['rev-parse', '-q', '--verify', 'refs/hookwise/undo/main'], { cwd: r.root }).status,
    ).not.toBe(0);
  });

  it('fails closed: when the snapshot cannot be taken, the command does not run and the reason says so', () => {
    const r = repo();
    const tree: GitWorkTree = gitWorkTree(r.root)!;
    const step = prepareSnapshot({
      tree,
      sanitizedCommand: 'rm -rf src',
      sensitive: { write: [], read: [] },
      runtimeDir: r.runtimeDir,
      version: 'test',
    });
    rmSync(join(r.root, '.git/objects'), { recursive: true }); // the repository broke after the decision
    const run = spawnSync('/bin/sh', ['-c', `${step}\nrm -rf src`], { cwd: r.root, encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(
      /hookwise: could not take the undo snapshot of .*refs\/hookwise\/undo\/main.*did not run/,
    );
    expect(existsSync(join(r.root, 'src/app.ts'))).toBe(true);
  });

  it('ignores git environment that would point it at another repository', () => {
    const r = repo();
    const other = repo();
    const tree = gitWorkTree(r.root)!;
    const step = prepareSnapshot({
      tree,
      sanitizedCommand: 'x',
      sensitive: { write: [], read: [] },
      runtimeDir: r.runtimeDir,
      version: 'test',
    });
    const run = spawnSync('/bin/sh', ['-c', step], {
      cwd: r.root,
      env: {
        ...process.env,
        GIT_DIR: join(other.root, '.git'),
        GIT_INDEX_FILE: join(other.root, '.git/index'),
        GIT_WORK_TREE: other.root,
      },
      encoding: 'utf8',
    });
    expect(run.status).toBe(0);
    expect(r.git('rev-parse', '-q', '--verify', 'refs/hookwise/undo/main')).not.toBe('');
    expect(
      spawnSync('git', ['rev-parse', '-q', '--verify', 'refs/hookwise/undo/main'], { cwd: other.root }).status,
    ).not.toBe(0);
  });
});

describe('undo', () => {
  function destroyed(): Repo {
    const r = repo();
    r.put('src/app.ts', 'app v2, not committed\n');
    r.put('notes/plan.md', 'untracked plan\n');
    r.put('node_modules/dep/index.js', 'ignored\n');
    expect(
      r.snapshot(
        './cleanup.sh',
        'rm -rf src notes && : > README.md && mkdir -p out && echo new > out/made.txt && rm -rf node_modules',
      ).status,
    ).toBe(0);
    return r;
  }
  const undoOf = (r: Repo, extra: { dryRun?: boolean; removeCreated?: boolean } = {}) =>
    undo({ projectRoot: r.root, runtimeDir: r.runtimeDir, ...extra });

  it('restores changed and deleted files, tracked and untracked; leaves created ones; index and HEAD untouched', () => {
    const r = destroyed();
    const before = fingerprint(r);
    const report = undoOf(r);
    expect(report.restored).toEqual([
      { path: 'README.md', change: 'modified' },
      { path: 'notes/plan.md', change: 'deleted' },
      { path: 'src/app.ts', change: 'deleted' },
      { path: 'src/lib/util.ts', change: 'deleted' },
    ]);
    expect(report).toMatchObject({
      command: './cleanup.sh',
      created: ['out/made.txt'],
      removed: [],
      dryRun: false,
      keptAs: 'refs/hookwise/before-undo/main',
    });
    expect(report.takenAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect([r.read('src/app.ts'), r.read('src/lib/util.ts'), r.read('notes/plan.md'), r.read('README.md')]).toEqual([
      'app v2, not committed\n',
      'util v1\n',
      'untracked plan\n',
      'readme\n',
    ]);
    expect(r.read('out/made.txt')).toBe('new\n');
    expect(r.read('node_modules/dep/index.js')).toBeUndefined(); // ignored: not in the snapshot (the trade-off)
    expect(fingerprint(r)).toEqual(before);
    // The state before undo is kept: undo can be undone.
    expect(r.git('show', 'refs/hookwise/before-undo/main:out/made.txt')).toBe('new');
    // A second undo finds nothing left to do.
    expect(undoOf(r)).toMatchObject({ restored: [], created: ['out/made.txt'] });
  });

  it('--dry-run changes nothing; --remove-created deletes the new files and the directories that held only them', () => {
    const r = destroyed();
    const dry = undoOf(r, { dryRun: true, removeCreated: true });
    expect(dry).toMatchObject({ dryRun: true, removed: ['out/made.txt'] });
    expect(dry.keptAs).toBeUndefined();
    expect(r.read('src/app.ts')).toBeUndefined();
    expect(r.read('out/made.txt')).toBe('new\n');
    expect(undoOf(r, { removeCreated: true }).removed).toEqual(['out/made.txt']);
    expect(existsSync(join(r.root, 'out'))).toBe(false);
    expect(r.read('src/app.ts')).toBe('app v2, not committed\n');
  });

  it('a directory where a file was is reported, not forced, unless it holds only created files and --remove-created', () => {
    const r = repo();
    expect(r.snapshot('x', 'rm README.md && mkdir README.md && echo y > README.md/inner').status).toBe(0);
    const kept = undoOf(r);
    expect(kept.skipped).toEqual([{ path: 'README.md', why: expect.stringMatching(/now a directory/) }]);
    expect(r.read('README.md/inner')).toBe('y\n');
    undoOf(r, { removeCreated: true });
    expect(r.read('README.md')).toBe('readme\n');
  });

  it('names with glob characters and spaces are restored literally', () => {
    const r = repo();
    r.put('src/[id]/page *.ts', 'page\n');
    r.put('src/[id]/other.ts', 'other\n');
    expect(r.snapshot('x', "rm 'src/[id]/page *.ts'").status).toBe(0);
    r.put('src/[id]/other.ts', 'changed after\n');
    expect(undoOf(r).restored.map((x) => x.path)).toEqual(['src/[id]/other.ts', 'src/[id]/page *.ts']);
    expect(r.read('src/[id]/page *.ts')).toBe('page\n');
  });

  it('fails clearly, changing nothing: not a repository, no snapshot, a ref hookwise did not write, missing objects', () => {
    const plain = repo({ init: false });
    expect(() => undoOf(plain)).toThrow(/is not a git work tree/);
    const r = repo();
    expect(() => undoOf(r)).toThrow(UndoError);
    expect(() => undoOf(r)).toThrow(/no undo snapshot in .*refs\/hookwise\/undo\/main does not exist/);
    r.git('update-ref', 'refs/hookwise/undo/main', 'HEAD');
    expect(() => undoOf(r)).toThrow(/corrupt or not one hookwise took/);

    expect(r.snapshot('x', 'rm src/app.ts').status).toBe(0);
    // A loose object of the snapshot goes missing: the blob of src/app.ts.
    const blob = r.git('rev-parse', 'refs/hookwise/undo/main:src/app.ts');
    unlinkSync(join(r.root, '.git/objects', blob.slice(0, 2), blob.slice(2)));
    expect(() => undoOf(r)).toThrow(/corrupt: 1 of its files are missing .*src\/app\.ts.*nothing was changed/);
    expect(
      spawnSync('git', ['rev-parse', '-q', '--verify', 'refs/hookwise/before-undo/main'], { cwd: r.root }).status,
    ).not.toBe(0);

    writeFileSync(join(r.root, '.git/refs/hookwise/undo/main'), '0123456789012345678901234567890123456789\n');
    expect(() => undoOf(r)).toThrow(/corrupt: it does not name a readable commit/);
  });
});

describe('what a run added since its snapshot (session provenance)', () => {
  it('new regular files only: not a rename, not a copy of content the run removed or changed, not a link', () => {
    const r = repo();
    r.put('notes.txt', 'untracked but not ignored\n');
    const s = r.snapshot(
      './gen.sh',
      [
        'mkdir -p out && echo new > out/x.json',
        'mv src/app.ts src/renamed.ts',
        'cp src/lib/util.ts src/lib/copy.ts && rm src/lib/util.ts',
        'cp README.md saved.md && echo changed > README.md',
        'ln -s README.md link.md',
        'echo changed > notes.txt',
        'mkdir -p node_modules/x && echo ignored > node_modules/x/i.js',
      ].join(' && '),
    );
    expect(s.status, s.stderr).toBe(0);
    const found = addedSinceSnapshot(r.root, r.runtimeDir);
    expect(found.label).toBe('./gen.sh');
    expect(Math.abs(found.takenAtMs - Date.now())).toBeLessThan(60_000);
    expect(found.added).toEqual([join(r.root, 'out/x.json')]);
  });

  it('no snapshot: an UndoError, nothing listed', async () => {
    const r = repo();
    expect(() => addedSinceSnapshot(r.root, r.runtimeDir)).toThrow(UndoError);
    await expect(addedSinceSnapshotAsync(r.root, r.runtimeDir)).rejects.toThrow(UndoError);
  });

  it('read without blocking: the same list; from a pinned snapshot after a later one moved the ref', async () => {
    const r = repo();
    expect(r.snapshot('./gen.sh', 'mkdir -p out && echo new > out/x.json').status).toBe(0);
    const first = latestSnapshot(r.root)!.commit;
    expect(await addedSinceSnapshotAsync(r.root, r.runtimeDir)).toEqual(addedSinceSnapshot(r.root, r.runtimeDir));
    expect(r.snapshot('./other.sh', 'echo more > out/y.json').status).toBe(0);
    expect((await addedSinceSnapshotAsync(r.root, r.runtimeDir)).added).toEqual([join(r.root, 'out/y.json')]);
    const pinned = await addedSinceSnapshotAsync(r.root, r.runtimeDir, first);
    expect(pinned.label).toBe('./gen.sh');
    expect(pinned.added).toEqual([join(r.root, 'out/x.json'), join(r.root, 'out/y.json')]);
    await expect(addedSinceSnapshotAsync(r.root, r.runtimeDir, '0'.repeat(40))).rejects.toThrow(/no longer in/);
  });
});
