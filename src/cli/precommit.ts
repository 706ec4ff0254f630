/**
 * The git pre-commit hook behind `hookwise init --pre-commit`: refuse a commit whose staged `.hookwise/`
 * files hold a secret (`hookwise scan --staged .hookwise/`). Installing is idempotent (our hook carries a
 * marker and is rewritten in place) and never loses a hook that was there before: that one is kept as
 * `pre-commit.hookwise-chained` and runs first, and a failure there still fails the commit.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { HookwiseError } from '../core/errors.js';

export const HOOK_MARKER = '# hookwise-pre-commit v1';
export const CHAINED_HOOK = 'pre-commit.hookwise-chained';

/** The hook script. `command` is how the hook runs hookwise (default: `hookwise` from PATH). */
export function preCommitScript(command = 'hookwise'): string {
  const program = command.split(' ')[0]!;
  return `#!/bin/sh
${HOOK_MARKER}
# Installed by \`hookwise init --pre-commit\`; running that again updates this file.
# Runs the pre-commit hook that was here before (kept as ${CHAINED_HOOK}), then refuses the commit
# when a staged file under .hookwise/ holds a secret. To commit anyway, knowingly: git commit --no-verify
hook_dir=$(dirname -- "$0")
if [ -x "$hook_dir/${CHAINED_HOOK}" ]; then
  "$hook_dir/${CHAINED_HOOK}" "$@" || exit $?
fi
if ! command -v ${shellQuote(program)} >/dev/null 2>&1; then
  echo "hookwise pre-commit: ${program.replaceAll('"', '')} not found, so .hookwise/ cannot be scanned and the commit is blocked. Install hookwise, or reinstall this hook with the right command." >&2
  exit 1
fi
exec ${command} scan --staged .hookwise/
`;
}

const shellQuote = (word: string): string =>
  /^[A-Za-z0-9_./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;

/** Where git runs hooks for this repository: honours core.hooksPath and worktrees. */
export function hooksDir(projectRoot: string): string {
  const r = spawnSync('git', ['rev-parse', '--git-path', 'hooks'], { cwd: projectRoot, encoding: 'utf8' });
  if (r.status === 0 && r.stdout.trim() !== '') return resolve(projectRoot, r.stdout.trim());
  const dotGit = join(projectRoot, '.git');
  if (existsSync(dotGit) && lstatSync(dotGit).isDirectory()) return join(dotGit, 'hooks');
  throw new HookwiseError(
    'USAGE',
    `${projectRoot} is not a git repository (git rev-parse failed${r.stderr ? `: ${r.stderr.trim()}` : ''}); run this inside the repository whose commits should be checked`,
  );
}

/** Installs (or updates) the pre-commit hook; returns what it did, for the user. */
export function installPreCommitHook(projectRoot: string, options: { command?: string } = {}): string {
  const dir = hooksDir(projectRoot);
  mkdirSync(dir, { recursive: true }); // a core.hooksPath directory may not exist yet
  const hook = join(dir, 'pre-commit');
  const chained = join(dir, CHAINED_HOOK);
  const script = preCommitScript(options.command);
  const shown = (path: string): string => relative(projectRoot, path) || path;
  const existing = existsSync(hook) ? readFileSync(hook, 'utf8') : undefined;

  if (existing !== undefined && existing.includes(HOOK_MARKER)) {
    if (existing === script) return `${shown(hook)}: the hookwise pre-commit hook is already installed`;
    writeHook(hook, script);
    return `${shown(hook)}: updated the hookwise pre-commit hook`;
  }
  if (existing !== undefined) {
    if (existsSync(chained)) {
      throw new HookwiseError(
        'USAGE',
        `${shown(hook)} is not hookwise's, and ${shown(chained)} already holds an earlier hook; hookwise will not overwrite either. Merge them into ${shown(chained)}, delete ${shown(hook)}, and run the install again.`,
      );
    }
    renameSync(hook, chained); // keeps its mode: it stays executable and runs first
    writeHook(hook, script);
    return `${shown(hook)}: installed the hookwise pre-commit hook; the previous hook now runs first from ${shown(chained)}`;
  }
  writeHook(hook, script);
  return `${shown(hook)}: installed the hookwise pre-commit hook (it runs: hookwise scan --staged .hookwise/)`;
}

function writeHook(path: string, script: string): void {
  const tmp = `${path}.hookwise.${process.pid}.tmp`;
  writeFileSync(tmp, script, { mode: 0o755 });
  chmodSync(tmp, 0o755); // umask may have cleared bits
  renameSync(tmp, path);
}
