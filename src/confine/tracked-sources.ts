/**
 * The one ask confinement keeps even where it could run a command (issue 30, item 17): a command that deletes
 * tracked source files — `rm -rf src/lib`, `find src -delete`, a rewrite that removes `src/components/ui`. The
 * undo snapshot could bring them back, but the human should know before, not after.
 *
 * Decided at the edge from git's index: the tracked files under each deletion target, less build outputs —
 * files in a directory a build regenerates (shell/data-loss.ts `regenerable`: dist, build, out, target,
 * coverage, node_modules, .next, __pycache__, …) and tracked files the repository's ignore rules name. A
 * target known only at run time may be anything: it counts as deleting sources. Files the session created
 * itself (session/provenance.ts), or the command itself just before (shell/created-here.ts), are not lost by
 * anyone, so they do not count.
 *
 * git runs with the project's configuration overridden where it could run a program (fsmonitor) and with
 * the environment variables that would point it at another repository removed; its output is bounded.
 */
import { spawnSync } from 'node:child_process';
import { regenerable, segmentLosesData } from '../shell/data-loss.js';
import { deletesTarget } from '../shell/write-routes.js';
import type { PreparedShell } from '../shell/prepare.js';
import { FOREIGN_GIT_ENV } from './snapshot.js';

/** Bytes of `git ls-files` output read; more means "very many files", which is an answer in itself. */
const MAX_LISTING = 4 * 1024 * 1024;
const SHOWN = 3;

const GLOB = /[*?[]/;

/** Build output beyond what data-loss.ts already calls regenerable (which `rm` alone may delete). */
const BUILD_OUTPUT_DIRS = new Set(['out']);

function buildOutput(relative: string): boolean {
  return regenerable(relative) || relative.split('/').some((part) => BUILD_OUTPUT_DIRS.has(part));
}

export type SourceDeletion = { deletes: false } | { deletes: true; why: string };

function gitEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_OPTIONAL_LOCKS: '0' };
  for (const name of FOREIGN_GIT_ENV) delete env[name];
  return env;
}

/** Tracked files matching the pathspecs (NUL-separated), or why git could not say. */
function lsFiles(root: string, pathspecs: readonly string[], ignoredOnly: boolean): string[] | { failed: string } {
  const args = ['-c', 'core.fsmonitor=false', '-c', 'core.untrackedCache=false', 'ls-files', '-z', '--cached'];
  if (ignoredOnly) args.push('--ignored', '--exclude-standard');
  const r = spawnSync('git', [...args, '--', ...pathspecs], {
    cwd: root,
    env: gitEnv(),
    maxBuffer: MAX_LISTING,
    encoding: 'buffer',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (r.error !== undefined) {
    const code = (r.error as NodeJS.ErrnoException).code;
    return { failed: code === 'ENOBUFS' ? 'more tracked files than hookwise lists' : `git: ${r.error.message}` };
  }
  if (r.status !== 0) return { failed: `git ls-files exited with ${r.status ?? r.signal}` };
  return r.stdout
    .toString('utf8')
    .split('\0')
    .filter((f) => f !== '');
}

/**
 * Does the prepared shell call delete tracked source files? `root` is the git work tree's top (the project
 * root). Only deletions (rm, rmdir, unlink, shred, truncate, find -delete) count; overwrites are edits.
 * `shown` makes a file name fit for a message (the caller's sanitizer: this bundle does not carry one).
 */
export function deletesTrackedSources(
  shell: PreparedShell,
  root: string,
  shown: (name: string) => string,
): SourceDeletion {
  if (!shell.parse.ok) return { deletes: false };
  const pathspecs: string[] = [];
  for (let i = 0; i < shell.writes.targets.length; i++) {
    const target = shell.writes.targets[i]!;
    if (!deletesTarget(target.via) || !segmentLosesData(shell, target.segment)) continue;
    if (shell.created?.[i] === true || shell.createdHere?.[i] === true) continue;
    const resolved = shell.targets[i];
    // A glob is known (`dynamic`, but matched by git below); an expansion is not.
    if (resolved === null || resolved === undefined || resolved.unknown !== undefined)
      return { deletes: true, why: `\`${target.via}\` deletes a path known only when it runs (${target.path})` };
    if (resolved.relative === null || buildOutput(resolved.relative)) continue;
    const relative = resolved.relative === '' ? '.' : resolved.relative;
    pathspecs.push(GLOB.test(relative) ? `:(top,glob)${relative}` : `:(top,literal)${relative}`);
  }
  if (pathspecs.length === 0) return { deletes: false };
  const tracked = lsFiles(root, pathspecs, false);
  if (!Array.isArray(tracked))
    return { deletes: true, why: `which tracked files it deletes is unknown (${tracked.failed})` };
  const sources = tracked.filter((f) => !buildOutput(f));
  if (sources.length === 0) return { deletes: false };
  const ignored = lsFiles(root, pathspecs, true);
  if (!Array.isArray(ignored))
    return { deletes: true, why: `which tracked files it deletes is unknown (${ignored.failed})` };
  const outputs = new Set(ignored);
  const lost = sources.filter((f) => !outputs.has(f));
  if (lost.length === 0) return { deletes: false };
  const names = lost.slice(0, SHOWN).map(shown).join(', ');
  const more = lost.length > SHOWN ? ` and ${lost.length - SHOWN} more` : '';
  return {
    deletes: true,
    why: `it deletes ${lost.length} tracked source file${lost.length === 1 ? '' : 's'} (${names}${more}): \`hookwise undo\` could restore them, but a human should know before, not after`,
  };
}
