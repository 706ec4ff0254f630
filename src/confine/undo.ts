/**
 * `hookwise undo`: puts back the project's files as the undo snapshot (snapshot.ts) recorded them just
 * before the most recent confined command ran.
 *
 * The files to restore are those that differ between the snapshot and the work tree now, read the way the
 * snapshot read it (the same sh lines: an index of its own seeded from the real one, `git add -A`, the
 * same ignore patterns): changed and deleted files are written back from the snapshot with `git restore --source
 * --worktree`, which touches neither the index nor HEAD; files that did not exist then are listed and left
 * (or removed with `removeCreated`). Before anything is written, the work tree as it is now is kept as a
 * commit under `refs/hookwise/before-undo/…`, so undo itself can be undone, and every object the restore
 * needs is checked to exist: a missing ref, a foreign or damaged snapshot fails with nothing changed.
 *
 * The comparison is with the work tree *now*: a change made after the command (by the agent or anyone) to
 * a file the snapshot has is put back too. `dryRun` shows the list first.
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, lstatSync, readdirSync, rmdirSync, statSync, unlinkSync, utimesSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ensurePrivateDir } from '../util/fs-safe.js';
import { gitWorkTree, UNDO_REF_PREFIX, type GitWorkTree } from './git-layout.js';
import {
  FOREIGN_GIT_ENV,
  parseSnapshotMessage,
  SNAPSHOT_IDENTITY,
  stageWorktreeLines,
  type SnapshotRecord,
} from './snapshot.js';
import { shellQuote } from './wrap.js';

export const RESTORE_CHANGES = ['modified', 'deleted'] as const;
export type RestoreChange = (typeof RESTORE_CHANGES)[number];

export interface UndoOptions {
  projectRoot: string;
  /** hookwise's private runtime directory (the comparison's own index lives in its `undo/`). */
  runtimeDir: string;
  /** Say what would be restored; change nothing. */
  dryRun?: boolean;
  /** Also delete the files that did not exist when the snapshot was taken. */
  removeCreated?: boolean;
  env?: NodeJS.ProcessEnv;
}

export interface UndoReport {
  project: string;
  ref: string;
  commit: string;
  /** When the snapshot was taken (ISO 8601), just before the command ran. */
  takenAt: string;
  /** The command it preceded, as recorded (sanitized when it was taken). */
  command: string;
  restored: { path: string; change: RestoreChange }[];
  /** Files that did not exist at the snapshot: left in place, or removed with removeCreated. */
  created: string[];
  removed: string[];
  /** Paths left as they are, and why (a nested repository, a directory where a file was). */
  skipped: { path: string; why: string }[];
  dryRun: boolean;
  /** The work tree as it was before this undo (absent on a dry run or when nothing changed). */
  keptAs?: string;
}

/** Why undo could not run; nothing was changed. */
export class UndoError extends Error {
  override name = 'UndoError';
}

interface DiffEntry {
  oldMode: string;
  newMode: string;
  oldSha: string;
  newSha: string;
  status: string;
  path: string;
}

const GITLINK = '160000';
const MISSING_MODE = '000000';

/** The snapshot a work tree's undo ref names, read and checked; UndoError when there is none or it is damaged. */
interface Snapshot {
  tree: GitWorkTree;
  commit: string;
  snapshotTree: string;
  record: SnapshotRecord;
  takenAt: string;
}

/**
 * One process that reading a snapshot runs: git in the work tree, or the sh lines that read the work tree.
 * Reading is written once, as steps (a generator), and run either synchronously (`hookwise undo`, a
 * PostToolUse) or without blocking the event loop (a daemon settling after it answered: runStepsAsync).
 */
interface Step {
  file: 'git' | '/bin/sh';
  args: string[];
  input?: string;
  env?: NodeJS.ProcessEnv;
  maxBuffer: number;
}

interface StepResult {
  status: number | null;
  stdout: string;
  stderr: string;
  error?: Error;
}

type Steps<T> = Generator<Step, T, StepResult>;

const GIT_MAX_BUFFER = 1 << 30;

function runStepsSync<T>(steps: Steps<T>, cwd: string, env: NodeJS.ProcessEnv): T {
  let next = steps.next();
  while (next.done !== true) {
    const step = next.value;
    const r = spawnSync(step.file, step.args, {
      cwd,
      env: { ...env, ...step.env },
      input: step.input ?? '',
      encoding: 'utf8',
      maxBuffer: step.maxBuffer,
    });
    next = steps.next({
      status: r.status,
      stdout: r.stdout ?? '',
      stderr: r.stderr ?? '',
      ...(r.error ? { error: r.error } : {}),
    });
  }
  return next.value;
}

async function runStepsAsync<T>(steps: Steps<T>, cwd: string, env: NodeJS.ProcessEnv): Promise<T> {
  let next = steps.next();
  while (next.done !== true) next = steps.next(await spawnStep(next.value, cwd, env));
  return next.value;
}

/** spawnSync's result, without blocking: output past maxBuffer kills the process and is an error. */
function spawnStep(step: Step, cwd: string, env: NodeJS.ProcessEnv): Promise<StepResult> {
  return new Promise((resolve) => {
    const child = spawn(step.file, step.args, { cwd, env: { ...env, ...step.env }, stdio: 'pipe' });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let bytes = 0;
    let error: Error | undefined;
    const collect = (into: Buffer[]) => (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > step.maxBuffer) {
        error ??= new Error(`${step.file} wrote more than ${step.maxBuffer} bytes`);
        child.kill('SIGKILL');
      } else into.push(chunk);
    };
    child.stdout.on('data', collect(out));
    child.stderr.on('data', collect(err));
    child.on('error', (e) => (error ??= e));
    child.stdin.on('error', () => undefined); // a process that exits without reading its input
    child.stdin.end(step.input ?? '');
    child.on('close', (status) =>
      resolve({
        status: error === undefined ? status : null,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        ...(error === undefined ? {} : { error }),
      }),
    );
  });
}

/** git as steps: `ok` gives stdout or undefined when git fails; `must` throws UndoError naming what was being done. */
function gitSteps(tree: GitWorkTree) {
  return {
    *ok(args: string[]): Steps<string | undefined> {
      const r = yield { file: 'git', args, env: GIT_STEP_ENV, maxBuffer: GIT_MAX_BUFFER };
      return r.status === 0 ? r.stdout : undefined;
    },
    *must(args: string[], doing: string): Steps<string> {
      const r = yield { file: 'git', args, env: GIT_STEP_ENV, maxBuffer: GIT_MAX_BUFFER };
      if (r.status === 0) return r.stdout;
      throw new UndoError(`could not ${doing} in ${tree.root} (git ${args[0]}: ${whyFailed(r)})`);
    },
  };
}

function whyFailed(r: StepResult): string {
  return r.error !== undefined
    ? r.error.message
    : r.stderr.trim().split('\n').slice(-3).join('; ') || `exit ${r.status}`;
}

/**
 * The snapshot the work tree's undo ref names — or, given `commit`, that snapshot commit (the one a ref named
 * once, pinned before a later snapshot moved the ref).
 */
function* readSnapshot(tree: GitWorkTree, pinned?: string): Steps<Snapshot> {
  const git = gitSteps(tree);
  const name = pinned ?? tree.undoRef;
  const commit = (yield* git.ok(['rev-parse', '-q', '--verify', `${name}^{commit}`]))?.trim();
  if (commit === undefined) {
    const exists = pinned === undefined && (yield* git.ok(['rev-parse', '-q', '--verify', tree.undoRef])) !== undefined;
    throw new UndoError(
      pinned !== undefined
        ? `the undo snapshot ${pinned} is no longer in ${tree.commonDir}`
        : exists
          ? `the undo snapshot ${tree.undoRef} in ${tree.commonDir} is corrupt: it does not name a readable commit (nothing was changed)`
          : `no undo snapshot in ${tree.root}: ${tree.undoRef} does not exist in ${tree.commonDir} (no confined command has run in this work tree yet)`,
    );
  }
  const raw = yield* git.ok(['cat-file', 'commit', commit]);
  const snapshotTree = raw === undefined ? undefined : /^tree ([0-9a-f]{40,64})$/m.exec(raw)?.[1];
  const record = raw === undefined ? undefined : parseSnapshotMessage(raw.slice(raw.indexOf('\n\n') + 2));
  if (raw === undefined || snapshotTree === undefined || record === undefined) {
    throw new UndoError(
      `the undo snapshot ${name} (${commit}) in ${tree.commonDir} is corrupt or not one hookwise took: its commit cannot be read as a snapshot (nothing was changed)`,
    );
  }
  if ((yield* git.ok(['ls-tree', '-r', '--name-only', snapshotTree])) === undefined) {
    throw new UndoError(
      `the undo snapshot ${name} (${commit}) in ${tree.commonDir} is corrupt: its tree ${snapshotTree} cannot be read (nothing was changed)`,
    );
  }
  return { tree, commit, snapshotTree, record, takenAt: committedAt(raw) };
}

/** The project's git work tree, or UndoError: no snapshot is taken outside one. */
function workTreeOf(projectRoot: string): GitWorkTree {
  const tree = gitWorkTree(projectRoot);
  if (tree === undefined) {
    throw new UndoError(
      `${projectRoot} is not a git work tree, so no undo snapshot is taken there (confined commands that delete or overwrite files are asked instead): nothing to undo`,
    );
  }
  return tree;
}

/** What differs between the snapshot and the work tree now (a tree object), read the way the snapshot read it. */
function* changedSince(
  snapshot: Snapshot,
  runtimeDir: string,
  scratchName: string,
): Steps<{ entries: DiffEntry[]; nowTree: string }> {
  const { tree, record, snapshotTree } = snapshot;
  const nowTree = yield* worktreeTree(tree, record, runtimeDir, scratchName);
  const entries = parseRawDiff(
    yield* gitSteps(tree).must(
      ['diff-tree', '-r', '-z', '--no-renames', '--raw', snapshotTree, nowTree],
      'compare the snapshot with the work tree',
    ),
  );
  return { entries, nowTree };
}

export function undo(options: UndoOptions): UndoReport {
  const env = options.env ?? process.env;
  const tree = workTreeOf(options.projectRoot);
  const stepEnv = gitEnv(env);
  const snapshot = runStepsSync(readSnapshot(tree), tree.root, stepEnv);
  const { commit, record, takenAt } = snapshot;
  const { entries, nowTree } = runStepsSync(changedSince(snapshot, options.runtimeDir, 'compare'), tree.root, stepEnv);
  const git = gitRunner(tree, env);
  const report: UndoReport = {
    project: tree.root,
    ref: tree.undoRef,
    commit,
    takenAt,
    command: record.command,
    restored: [],
    created: [],
    removed: [],
    skipped: [],
    dryRun: options.dryRun === true,
  };
  const restore: DiffEntry[] = [];
  for (const e of entries) {
    if (e.oldMode === GITLINK || e.newMode === GITLINK)
      report.skipped.push({ path: e.path, why: 'a submodule or nested repository: its files are not in the snapshot' });
    else if (e.status === 'A') report.created.push(e.path);
    else restore.push(e);
  }
  checkObjects(git, restore, tree, commit);

  const created = new Set(report.created);
  const restorable: DiffEntry[] = [];
  for (const e of restore) {
    const blocked = blockedBy(tree.root, e.path, options.removeCreated === true ? created : new Set());
    if (blocked !== undefined) report.skipped.push({ path: e.path, why: blocked });
    else restorable.push(e);
  }
  report.restored = restorable.map((e) => ({
    path: e.path,
    change: e.newMode === MISSING_MODE ? 'deleted' : 'modified',
  }));
  if (options.removeCreated === true) report.removed = [...report.created];
  if (report.dryRun || (restorable.length === 0 && report.removed.length === 0)) return report;

  // Undo itself loses what the work tree holds now: keep it first, where the command could not reach.
  const keptAs = `refs/hookwise/before-undo/${tree.undoRef.slice(UNDO_REF_PREFIX.length + 1)}`;
  const kept = git
    .must(
      ['commit-tree', '--no-gpg-sign', '-m', `hookwise: the work tree before hookwise undo of ${commit}`, nowTree],
      'keep the work tree before undo',
    )
    .trim();
  git.must(['update-ref', '-m', 'hookwise: before undo', keptAs, kept], `keep the work tree before undo as ${keptAs}`);
  report.keptAs = keptAs;

  if (options.removeCreated === true)
    removeFiles(tree.root, report.created, snapshotDirs(report.restored.map((r) => r.path)));
  if (restorable.length > 0) {
    // --overlay: only the listed paths are written, nothing else is removed; literal pathspecs: a name with
    // `*` is that name. A copy of the real index, so the real one is not even refreshed.
    withScratchIndex(tree, options.runtimeDir, 'restore', (index) => {
      git.must(
        ['restore', `--source=${commit}`, '--worktree', '--overlay', '--pathspec-from-file=-', '--pathspec-file-nul'],
        'restore the files',
        {
          input: restorable.map((e) => e.path).join('\0'),
          env: { GIT_INDEX_FILE: index, GIT_LITERAL_PATHSPECS: '1' },
        },
      );
    });
  }
  return report;
}

/** What the latest snapshot says a confined run added (see addedSinceSnapshot). */
export interface SnapshotAdditions {
  /** What the snapshot records of the command it preceded (sanitized, cut: snapshot.ts snapshotLabel). */
  label: string;
  /** When it was taken (whole seconds: a commit's time). */
  takenAtMs: number;
  /** Absolute paths of the regular files the work tree has now and the snapshot had not, sorted. */
  added: string[];
}

const REGULAR = /^100(644|755)$/;

/**
 * The files a confined run created (session provenance, issue 28 item 6): those the work tree holds now and
 * its snapshot did not — regular files only (no links, no nested repositories), and none whose content is that
 * of a file the run removed or changed (a move or a copy of old content under a new name is not new). Read the
 * way the snapshot read the tree: ignored files and the sensitive lists are in neither. UndoError when there is
 * no readable snapshot.
 */
export function addedSinceSnapshot(
  projectRoot: string,
  runtimeDir: string,
  env: NodeJS.ProcessEnv = process.env,
): SnapshotAdditions {
  const tree = workTreeOf(projectRoot);
  return runStepsSync(additions(tree, runtimeDir), tree.root, gitEnv(env));
}

/**
 * addedSinceSnapshot without blocking the event loop (a daemon settling a confined run after it answered), and
 * from a pinned snapshot commit when given (the one the ref named after the run: a later run's snapshot may
 * have moved the ref since).
 */
export async function addedSinceSnapshotAsync(
  projectRoot: string,
  runtimeDir: string,
  commit?: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<SnapshotAdditions> {
  const tree = workTreeOf(projectRoot);
  // Its own scratch index: a synchronous reading in the same process may run meanwhile.
  return await runStepsAsync(additions(tree, runtimeDir, commit, 'settle'), tree.root, gitEnv(env));
}

function* additions(
  tree: GitWorkTree,
  runtimeDir: string,
  commit?: string,
  scratch = 'compare',
): Steps<SnapshotAdditions> {
  const snapshot = yield* readSnapshot(tree, commit);
  const { entries } = yield* changedSince(snapshot, runtimeDir, scratch);
  const oldContent = new Set(entries.filter((e) => e.status !== 'A').map((e) => e.oldSha));
  const added = entries
    .filter((e) => e.status === 'A' && REGULAR.test(e.newMode) && !oldContent.has(e.newSha))
    .map((e) => join(tree.root, e.path))
    .sort();
  return { label: snapshot.record.command, takenAtMs: Date.parse(snapshot.takenAt), added };
}

/** The snapshot's ref and record without restoring anything (for status lines and tests). */
export function latestSnapshot(
  projectRoot: string,
  env: NodeJS.ProcessEnv = process.env,
): { ref: string; commit: string; takenAt: string; record: SnapshotRecord } | undefined {
  const tree = gitWorkTree(projectRoot);
  if (tree === undefined) return undefined;
  const git = gitRunner(tree, env);
  const commit = git.ok(['rev-parse', '-q', '--verify', `${tree.undoRef}^{commit}`])?.trim();
  const raw = commit === undefined ? undefined : git.ok(['cat-file', 'commit', commit]);
  const record = raw === undefined ? undefined : parseSnapshotMessage(raw.slice(raw.indexOf('\n\n') + 2));
  return commit === undefined || raw === undefined || record === undefined
    ? undefined
    : { ref: tree.undoRef, commit, takenAt: committedAt(raw), record };
}

interface GitRunner {
  /** stdout, or undefined when git fails. */
  ok(args: string[]): string | undefined;
  /** stdout; a failure throws UndoError naming what was being done and git's message. */
  must(args: string[], doing: string, extra?: { input?: string; env?: NodeJS.ProcessEnv }): string;
}

/** The environment git runs in: the snapshot's identity, no prompt, none of the variables that point git elsewhere. */
function gitEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...env, ...SNAPSHOT_IDENTITY, GIT_TERMINAL_PROMPT: '0' };
  for (const name of FOREIGN_GIT_ENV) delete base[name];
  return base;
}

/** Added to gitEnv per git step: nothing (the worktree sh lines get the caller's environment as it is). */
const GIT_STEP_ENV: NodeJS.ProcessEnv = {};

function gitRunner(tree: GitWorkTree, env: NodeJS.ProcessEnv): GitRunner {
  const base = gitEnv(env);
  const run = (args: string[], extra: { input?: string; env?: NodeJS.ProcessEnv } = {}) =>
    spawnSync('git', args, {
      cwd: tree.root,
      env: { ...base, ...extra.env },
      input: extra.input ?? '',
      encoding: 'utf8',
      maxBuffer: GIT_MAX_BUFFER,
    });
  return {
    ok(args) {
      const r = run(args);
      return r.status === 0 ? r.stdout : undefined;
    },
    must(args, doing, extra) {
      const r = run(args, extra);
      if (r.status === 0) return r.stdout;
      throw new UndoError(`could not ${doing} in ${tree.root} (git ${args[0]}: ${whyFailed(r)})`);
    },
  };
}

/** A copy of the real index (stat data and mtime kept, so only changed files are hashed again), removed after. */
function withScratchIndex<T>(tree: GitWorkTree, runtimeDir: string, purpose: string, fn: (index: string) => T): T {
  const dir = ensurePrivateDir(join(runtimeDir, 'undo'));
  const index = join(dir, `${purpose}-index.${process.pid}`);
  for (const stale of [index, `${index}.lock`]) unlinkQuiet(stale);
  try {
    const st = statSync(tree.indexFile, { throwIfNoEntry: false });
    if (st !== undefined) {
      copyFileSync(tree.indexFile, index);
      utimesSync(index, st.atime, st.mtime);
    }
    return fn(index);
  } finally {
    unlinkQuiet(index);
    unlinkQuiet(`${index}.lock`);
  }
}

/** The work tree now, as a tree object, read exactly as the snapshot read it (the same sh lines and ignores). */
function* worktreeTree(
  tree: GitWorkTree,
  record: SnapshotRecord,
  runtimeDir: string,
  scratchName: string,
): Steps<string> {
  const scratch = join(ensurePrivateDir(join(runtimeDir, 'undo')), `${scratchName}-index.${process.pid}`);
  const script = [
    `__hw_i=${shellQuote(scratch)}`,
    'trap \'rm -f "$__hw_i" "$__hw_i.lock" "$__hw_i.hookwise" "$__hw_i.ignore"\' EXIT',
    ...stageWorktreeLines(tree, record.ignores, record.tracked),
    'git write-tree',
  ].join('\n');
  const r = yield { file: '/bin/sh', args: ['-c', script], maxBuffer: 1 << 26 };
  const sha = r.stdout.trim();
  if (r.status !== 0 || !/^[0-9a-f]{40,64}$/.test(sha)) {
    throw new UndoError(
      `could not read the work tree of ${tree.root} to compare it with the snapshot (${whyFailed(r)}); nothing was changed`,
    );
  }
  return sha;
}

function parseRawDiff(out: string): DiffEntry[] {
  const parts = out.split('\0');
  const entries: DiffEntry[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const m = /^:(\d{6}) (\d{6}) ([0-9a-f]+) ([0-9a-f]+) ([A-Z])/.exec(parts[i]!);
    if (m === null)
      throw new UndoError(`unexpected output from git diff-tree: ${JSON.stringify(parts[i]!.slice(0, 80))}`);
    entries.push({
      oldMode: m[1]!,
      newMode: m[2]!,
      oldSha: m[3]!,
      newSha: m[4]!,
      status: m[5]!,
      path: parts[i + 1]!,
    });
  }
  return entries;
}

/** Every blob the restore needs must be there before anything is written. */
function checkObjects(git: GitRunner, restore: readonly DiffEntry[], tree: GitWorkTree, commit: string): void {
  if (restore.length === 0) return;
  const out = git.must(['cat-file', '--batch-check'], 'check the snapshot', {
    input: restore.map((e) => e.oldSha).join('\n') + '\n',
  });
  const missing = out
    .split('\n')
    .map((line, i) => (line.endsWith(' missing') ? restore[i]!.path : undefined))
    .filter((p): p is string => p !== undefined);
  if (missing.length > 0) {
    throw new UndoError(
      `the undo snapshot ${tree.undoRef} (${commit}) in ${tree.commonDir} is corrupt: ${missing.length} of its files are missing from the object store (${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ', …' : ''}); nothing was changed`,
    );
  }
}

/** Why a path cannot be written back as it is: a directory stands where the file was, or a file where a directory was. */
function blockedBy(root: string, path: string, removable: ReadonlySet<string>): string | undefined {
  const parts = path.split('/');
  for (let k = 1; k < parts.length; k++) {
    const prefix = parts.slice(0, k).join('/');
    const st = lstatSync(join(root, prefix), { throwIfNoEntry: false });
    if (st !== undefined && !st.isDirectory() && !removable.has(prefix))
      return `${prefix} is now a file, not the directory it was (remove it, or run undo with --remove-created if the command created it)`;
  }
  const st = lstatSync(join(root, path), { throwIfNoEntry: false });
  if (st?.isDirectory() === true) {
    const inside = [...removable].filter((p) => p.startsWith(`${path}/`));
    if (inside.length === 0 || !onlyThese(join(root, path), path, removable))
      return `${path} is now a directory, not the file it was (move it away first)`;
  }
  return undefined;
}

/** Whether a directory holds nothing but the given (created, to-be-removed) files. */
function onlyThese(dir: string, relative: string, files: ReadonlySet<string>): boolean {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const rel = `${relative}/${entry.name}`;
    if (entry.isDirectory()) {
      if (!onlyThese(join(dir, entry.name), rel, files)) return false;
    } else if (!files.has(rel)) return false;
  }
  return true;
}

/** The directories the restore will write into (kept even when removing created files empties them). */
function snapshotDirs(paths: readonly string[]): Set<string> {
  const dirs = new Set<string>();
  for (const p of paths) for (let d = dirname(p); d !== '.' && d !== ''; d = dirname(d)) dirs.add(d);
  return dirs;
}

/** Removes created files, then the directories that held only them (deepest first). */
function removeFiles(root: string, paths: readonly string[], keep: ReadonlySet<string>): void {
  const parents = new Set<string>();
  for (const p of paths) {
    const st = lstatSync(join(root, p), { throwIfNoEntry: false });
    if (st === undefined || st.isDirectory()) continue;
    unlinkSync(join(root, p));
    for (let d = dirname(p); d !== '.' && d !== ''; d = dirname(d)) parents.add(d);
  }
  for (const d of [...parents].sort((a, b) => b.length - a.length)) {
    if (keep.has(d)) continue;
    try {
      rmdirSync(join(root, d));
    } catch {
      // not empty: it holds something else (an ignored file, a file that was there before)
    }
  }
}

function committedAt(raw: string): string {
  const m = /^committer .* (\d+) [+-]\d{4}$/m.exec(raw);
  return m === null ? 'unknown' : new Date(Number(m[1]) * 1000).toISOString();
}

function unlinkQuiet(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // absent
  }
}
