/**
 * The undo snapshot's cost per confined command (issue 19, item 6), on a large repository: the snapshot step
 * exactly as the wrapped command runs it (prepareSnapshot → POSIX sh on the host), timed from start to the
 * ref written. A clean tree, and a tree with a few edited files and one new untracked file. Synthetic
 * repository of 40,000 small source files in 1,000 directories, committed once; rows are `large` (full
 * runs only: the fixture takes tens of seconds) and report only (git's cost depends on the disk and the
 * page cache more than on hookwise). And what a confined run's PostToolUse pays for session provenance:
 * reading from the snapshot which files the run added (undo.ts addedSinceSnapshot).
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gitWorkTree } from '../../src/confine/git-layout.js';
import { prepareSnapshot } from '../../src/confine/snapshot.js';
import { addedSinceSnapshot } from '../../src/confine/undo.js';
import { DEFAULT_SENSITIVE_READ, DEFAULT_SENSITIVE_WRITE } from '../../src/policy/defaults.js';
import { summarize } from '../stats.js';
import type { Measurement, Suite } from '../suite.js';

const DIRS = 1000;
const FILES_PER_DIR = 40;
const RUNS = 9;

export interface SnapshotFixture {
  root: string;
  runtimeDir: string;
  /** The snapshot step as a confined run's wrapped command starts with it. */
  step: string;
  cleanup(): void;
}

/** A committed repository of dirs × filesPerDir files (each a few hundred bytes, all different). */
export function snapshotFixture(dirs = DIRS, filesPerDir = FILES_PER_DIR): SnapshotFixture {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'hookwise-bench-undo-')));
  const root = join(base, 'project');
  const runtimeDir = join(base, 'runtime');
  for (let d = 0; d < dirs; d++) {
    const dir = join(root, 'src', `m${d % 40}`, `p${Math.floor(d / 40)}`);
    mkdirSync(dir, { recursive: true });
    for (let f = 0; f < filesPerDir; f++)
      writeFileSync(join(dir, `f${f}.ts`), `export const v${f} = ${d * filesPerDir + f};\n`.repeat(12));
  }
  writeFileSync(join(root, '.gitignore'), 'node_modules/\n');
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: 'b',
    GIT_AUTHOR_EMAIL: 'b@b',
    GIT_COMMITTER_NAME: 'b',
    GIT_COMMITTER_EMAIL: 'b@b',
  };
  for (const args of [
    ['init', '-q'],
    ['add', '-A'],
    ['commit', '-qm', 'fixture'],
  ]) {
    const r = spawnSync('git', args, { cwd: root, env, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`bench: git ${args[0]} failed: ${r.stderr}`);
  }
  const tree = gitWorkTree(root);
  if (tree === undefined) throw new Error('bench: the fixture is not a git work tree');
  const step = prepareSnapshot({
    tree,
    sanitizedCommand: './scripts/build.sh',
    sensitive: { write: DEFAULT_SENSITIVE_WRITE, read: DEFAULT_SENSITIVE_READ },
    runtimeDir,
    version: 'bench',
  });
  return { root, runtimeDir, step, cleanup: () => rmSync(base, { recursive: true, force: true }) };
}

/** Wall time of the snapshot step, in ms, `runs` times (after one warm-up run). */
export function timeSnapshots(fixture: SnapshotFixture, runs: number): number[] {
  const once = () => {
    const start = process.hrtime.bigint();
    const r = spawnSync('/bin/sh', ['-c', fixture.step], { cwd: fixture.root, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`bench: the snapshot failed: ${r.stderr}`);
    return Number(process.hrtime.bigint() - start) / 1e6;
  };
  once();
  return Array.from({ length: runs }, once);
}

export const undoSuite: Suite = {
  name: 'undo',
  measures: ['confine.undo-snapshot.clean-40k', 'confine.undo-snapshot.changed-40k', 'confine.run-additions-40k'],
  run({ large, progress }) {
    if (!large) return Promise.resolve([]);
    progress(`undo: a ${DIRS * FILES_PER_DIR}-file repository…`);
    const fixture = snapshotFixture();
    try {
      const clean = timeSnapshots(fixture, RUNS);
      for (const f of [
        'src/m1/p1/f1.ts',
        'src/m2/p3/f4.ts',
        'src/m9/p9/f9.ts',
        'src/m20/p20/f20.ts',
        'src/m39/p24/f39.ts',
      ])
        appendFileSync(join(fixture.root, f), '// edited\n');
      writeFileSync(join(fixture.root, 'src/new.ts'), 'export const added = 1;\n');
      const changed = timeSnapshots(fixture, RUNS);
      // A run that generated three files since the last snapshot.
      mkdirSync(join(fixture.root, 'out'), { recursive: true });
      for (const f of ['a.json', 'b.json', 'c.json']) writeFileSync(join(fixture.root, 'out', f), `{"${f}":1}\n`);
      const additions = Array.from({ length: RUNS }, () => {
        const start = process.hrtime.bigint();
        const found = addedSinceSnapshot(fixture.root, fixture.runtimeDir);
        if (found.added.length !== 3) throw new Error(`bench: expected 3 added files, found ${found.added.length}`);
        return Number(process.hrtime.bigint() - start) / 1e6;
      });
      const rows: Measurement[] = [
        { id: 'confine.undo-snapshot.clean-40k', ...summarize(clean) },
        {
          id: 'confine.undo-snapshot.changed-40k',
          ...summarize(changed),
          note: '5 tracked files edited, 1 untracked file added',
        },
        { id: 'confine.run-additions-40k', ...summarize(additions), note: '3 files added since the snapshot' },
      ];
      return Promise.resolve(rows);
    } finally {
      fixture.cleanup();
    }
  },
};
