/**
 * Which writes of a shell call lose data: deleting, truncating, overwriting a file that exists, moving or
 * copying onto a device. Path policy never auto-allows these, similarity never generalizes over them.
 * Pure over a prepared call (shell/prepare.ts).
 */
import type { PreparedShell } from './prepare.js';
import { freshTempOf } from './fresh-temp.js';
import { deletesTarget, fillsOnly } from './write-routes.js';
import type { Segment, WriteTarget } from './types.js';

/** Writes that change a file in place or add to it without discarding it. */
const PRESERVING = new Set(['sed -i', 'perl -i', 'chmod', 'chown', 'chgrp', 'touch', 'mkdir', 'patch', 'tee -a']);

/** `mv a b dir/`: the sources move, nothing is lost by them; the destination is what may be overwritten. */
function mvSources(segment: Segment): Set<string> {
  if (segment.name !== 'mv') return new Set();
  const operands: string[] = [];
  let targetDirectory = false;
  let options = true;
  for (const word of segment.argv.slice(1)) {
    if (options && word === '--') options = false;
    else if (options && (word === '-t' || word.startsWith('--target-directory'))) targetDirectory = true;
    else if (!(options && word.startsWith('-'))) operands.push(word);
  }
  return new Set(targetDirectory ? operands : operands.slice(0, -1));
}

/**
 * Directories that hold what a build, an install or a tool regenerates (and that projects do not keep
 * hand-written files in): deleting one inside the project — `rm -rf dist`, `rm -rf node_modules/.cache` —
 * loses nothing a rebuild does not bring back (and a tracked file in one is still in git).
 */
const REGENERABLE = new Set([
  'node_modules',
  'dist',
  'build',
  'coverage',
  '.cache',
  '__pycache__',
  '.pytest_cache',
  '.mypy_cache',
  '.ruff_cache',
  '.next',
  '.nuxt',
  '.turbo',
  '.parcel-cache',
  '.svelte-kit',
  '.angular',
  'target',
  '.gradle',
  '.tox',
  '.nox',
  '.nyc_output',
  '.eslintcache',
  '.vite',
  '.docusaurus',
  'storybook-static',
  '.terraform',
  '.venv',
  'venv',
]);

/** A path inside the project at or below a regenerable directory (never the project itself, never through `..`). */
export function regenerable(relative: string | null): boolean {
  if (relative === null || relative === '') return false;
  const parts = relative.split('/');
  if (parts.includes('..')) return false;
  return parts.some((p) => REGENERABLE.has(p) || p.endsWith('.egg-info') || p === 'tsconfig.tsbuildinfo');
}

function losesData(
  target: WriteTarget,
  exists: boolean,
  segment: Segment,
  sources: Set<string>,
  safeFresh: ReadonlySet<number>,
  relative: string | null,
  created: boolean,
): boolean {
  // What `$(mktemp [-d])` made in this command, deleted or overwritten whole: nothing of anyone's is lost.
  const fresh = freshTempOf(target.path, target.cwd);
  if (fresh !== undefined && fresh.rest === '' && safeFresh.has(fresh.id)) return false;
  // What this session created earlier and is still that file (session/provenance.ts), or what this very
  // command creates before it deletes it (created-here.ts): nothing of anyone else's.
  if (created && !target.dynamic && !target.via.startsWith('git ')) return false;
  if (deletesTarget(target.via) && !target.dynamic && regenerable(relative)) return false;
  if (target.via === 'git stash' && stashSaves(segment)) return false;
  if (deletesTarget(target.via) || target.via.startsWith('git ')) return true;
  if (PRESERVING.has(target.via) || target.via.endsWith('>>')) return false;
  if (sources.has(target.path)) return false;
  return exists;
}

/** `mv x /dev/null`, `cp /dev/null x`-style destruction through a device destination. */
function destroysThroughDevice(segment: Segment): boolean {
  return (
    (segment.name === 'mv' || segment.name === 'cp') &&
    segment.argv.slice(1).some((w) => w.startsWith('/dev/') && w !== '/dev/stdin')
  );
}

/**
 * `git stash` / `git stash push|save`: the changes are saved in a stash commit before the tree is reset, so
 * nothing is lost (`pop` / `apply` write the tree and stay lossy here; `drop` / `clear` are the git pack's).
 */
function stashSaves(segment: Segment): boolean {
  const at = segment.argv.indexOf('stash');
  if (at === -1) return false;
  const action = segment.argv.slice(at + 1).find((w) => !w.startsWith('-'));
  return action === undefined || action === 'push' || action === 'save';
}

/**
 * The fresh temp entries (fresh-temp.ts) whose deletion loses nothing: into which no segment of the command
 * moves data (`mv x "$d"`, rsync, `git mv`), links (`ln -s ~ "$d"`) or writes by an unknown route — a move
 * followed by `rm -rf "$d"` would delete what was moved. Any write hookwise cannot place (xargs, patch)
 * spoils them all.
 */
function safeFreshEntries(shell: PreparedShell): Set<number> {
  const fresh = new Set<number>();
  const spoiled = new Set<number>();
  for (const target of shell.writes.targets) {
    const place = freshTempOf(target.path, target.cwd);
    if (place === undefined) continue;
    fresh.add(place.id);
    if (!deletesTarget(target.via) && !fillsOnly(target.via)) spoiled.add(place.id);
  }
  if (shell.writes.unknown.length > 0) return new Set();
  for (const id of spoiled) fresh.delete(id);
  return fresh;
}

/**
 * Does segment `index` lose data (delete, truncate, overwrite an existing file, write onto a device)?
 * `provenance: false` ignores what the session or the command itself created (shell.created,
 * shell.createdHere): what memory learns of a call must not depend on whose files it happened to touch that
 * time, or on what happened to be absent.
 */
export function segmentLosesData(shell: PreparedShell, index: number, options: { provenance?: boolean } = {}): boolean {
  const segment = shell.parse.segments[index];
  if (segment === undefined) return false;
  if (destroysThroughDevice(segment)) return true;
  const sources = mvSources(segment);
  const safeFresh = shell.writes.targets.some((t) => t.segment === index && freshTempOf(t.path, t.cwd) !== undefined)
    ? safeFreshEntries(shell)
    : new Set<number>();
  return shell.writes.targets.some(
    (target, i) =>
      target.segment === index &&
      losesData(
        target,
        shell.exists[i] === true,
        segment,
        sources,
        safeFresh,
        shell.targets[i]?.relative ?? null,
        options.provenance !== false && (shell.created?.[i] === true || shell.createdHere?.[i] === true),
      ),
  );
}
