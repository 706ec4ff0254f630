/**
 * The undo snapshot (issue 19, item 6): before a confined command starts, the project's files as they are
 * — tracked, and untracked but not ignored — are recorded as a commit under a hidden ref, so that
 * `hookwise undo` can put back whatever the command changed or deleted.
 *
 * How, and why this way: git plumbing with an index of its own, seeded from a copy of the real index
 * (`cp -p`, so the stat data and git's racy-clean logic carry over and only files that changed since the
 * user's last git command are hashed again), then `git add -A`, `write-tree`, `commit-tree` and
 * `update-ref`. It never touches the user's index, HEAD, branches, stash or work tree. It runs as part of
 * the wrapped command string, on the host, just before bubblewrap starts — no second Node process, nothing
 * at decision time but rendering this text. Inside the walls the whole git directory is read-only (see
 * envelope.ts, CONFINE_EXTRA_WRITE), so the command can neither delete the snapshot's objects nor move the
 * ref. Measured (docs/confine.md): 40,000 files, 150–200 ms a snapshot on a loaded 2-core VM.
 *
 * Not in the snapshot: ignored files (node_modules, build output: regenerable — the documented trade-off),
 * nested repositories' contents, and the files of the sensitive lists (credentials, protected configs): the
 * walls keep the command from reading or changing those, and copying a secret into git's object store would
 * put it where a `git push --mirror` or a world-readable loose object could carry it.
 *
 * When the snapshot fails (git missing, disk full, a broken repository), the command does not run: a
 * confined command that may lose data is allowed only because undo can restore what it loses.
 */
import { join } from 'node:path';
import { ensurePrivateDir } from '../util/fs-safe.js';
import { shellQuote } from './wrap.js';
import type { GitWorkTree } from './git-layout.js';

/** What the snapshot commit's message records, as one JSON line after SNAPSHOT_MARKER. */
export interface SnapshotRecord {
  /** The command the snapshot precedes, sanitized (secrets redacted) and cut to MAX_LABEL chars. */
  command: string;
  /** The pathspecs left out of the snapshot; `hookwise undo` compares the work tree with the same ones. */
  excludes: string[];
  /** hookwise's version that took it. */
  version: string;
}

export const SNAPSHOT_MARKER = 'hookwise-undo-snapshot: ';
const MAX_LABEL = 2000;

export interface SnapshotSpec {
  tree: GitWorkTree;
  /** The command, already sanitized: this text is written into the repository. */
  sanitizedCommand: string;
  excludes: readonly string[];
  version: string;
  /** A private directory (the runtime dir's `undo/`) for the snapshot's own, short-lived index. */
  scratchDir: string;
}

/** The identity the snapshot commit is made with: no user config needed, and plainly not the user's. */
export const SNAPSHOT_IDENTITY: Readonly<Record<string, string>> = {
  GIT_AUTHOR_NAME: 'hookwise',
  GIT_AUTHOR_EMAIL: 'hookwise@localhost',
  GIT_COMMITTER_NAME: 'hookwise',
  GIT_COMMITTER_EMAIL: 'hookwise@localhost',
};

/** Environment that would point git somewhere else than the project's own repository. */
export const FOREIGN_GIT_ENV = [
  'GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_OBJECT_DIRECTORY', 'GIT_ALTERNATE_OBJECT_DIRECTORIES', 'GIT_COMMON_DIR', 'GIT_NAMESPACE',
  'GIT_PREFIX', 'GIT_LITERAL_PATHSPECS', 'GIT_GLOB_PATHSPECS', 'GIT_NOGLOB_PATHSPECS', 'GIT_ICASE_PATHSPECS',
] as const;

export function snapshotMessage(record: SnapshotRecord): string {
  const command = record.command.length > MAX_LABEL ? `${record.command.slice(0, MAX_LABEL - 1)}…` : record.command;
  return `hookwise: undo snapshot before a confined command\n\n${SNAPSHOT_MARKER}${JSON.stringify({ ...record, command })}\n`;
}

/** The record in a snapshot commit's message, or undefined when the message is not one hookwise wrote. */
export function parseSnapshotMessage(message: string): SnapshotRecord | undefined {
  const line = message.split('\n').find((l) => l.startsWith(SNAPSHOT_MARKER));
  if (line === undefined) return undefined;
  try {
    const r = JSON.parse(line.slice(SNAPSHOT_MARKER.length)) as Partial<SnapshotRecord>;
    if (typeof r.command !== 'string' || typeof r.version !== 'string' || !Array.isArray(r.excludes) || !r.excludes.every((e) => typeof e === 'string' && e.startsWith(':('))) return undefined;
    return { command: r.command, excludes: r.excludes, version: r.version };
  } catch {
    return undefined;
  }
}

/** Extended-glob groups and brace sets, which git's glob pathspecs do not have. */
const GROUPS = /[!@+*?]\([^()]*\)|\{[^{}]*\}/g;

/**
 * The sensitive lists' project patterns as git exclude pathspecs (`:(exclude,glob)…`). Patterns of the home
 * directory or absolute ones name nothing in the project and are skipped, as is `.git` (git never adds it).
 * Where git's glob syntax cannot say a pattern exactly (`.env!(.example)`, `{a,b}`), the group becomes `*`:
 * more is left out, never less — what is left out is what the walls keep the command from touching anyway.
 */
export function snapshotExcludes(patterns: readonly string[]): string[] {
  const out = new Set<string>();
  for (const raw of patterns) {
    if (raw.startsWith('~') || raw.startsWith('/') || raw.startsWith('!') || raw.trim() === '') continue;
    let glob = raw.replace(GROUPS, '*').replace(/^\.\//, '');
    if (glob === '.git' || glob.startsWith('.git/')) continue;
    if (!glob.includes('/')) glob = `**/${glob}`; // a bare name matches at any depth
    if (glob.endsWith('/')) glob += '**';
    out.add(`:(exclude,glob)${glob}`);
  }
  return [...out].sort();
}

/**
 * The POSIX sh text that takes the snapshot, for the wrapped command to run before bubblewrap. It defines
 * and calls a function: on failure it prints why (git's own message included) and exits the wrapped command
 * with status 1 before anything of the agent's command has run.
 */
export function snapshotStep(spec: SnapshotSpec): string {
  const { tree } = spec;
  const message = snapshotMessage({ command: spec.sanitizedCommand, excludes: [...spec.excludes], version: spec.version });
  const identity = Object.entries(SNAPSHOT_IDENTITY).map(([k, v]) => `${k}=${shellQuote(v)}`).join(' ');
  const q = shellQuote;
  const body = [
    `unset ${FOREIGN_GIT_ENV.join(' ')}`,
    `cd ${q(tree.root)} || exit 1`,
    // $$ is the wrapping shell's pid: one index per run, so concurrent confined commands do not share one.
    `__hw_i=${q(spec.scratchDir)}/index.$$`,
    'rm -f "$__hw_i" "$__hw_i.lock"',
    `if [ -f ${q(tree.indexFile)} ]; then cp -p ${q(tree.indexFile)} "$__hw_i" || exit 1; fi`,
    `export GIT_INDEX_FILE="$__hw_i" ${identity}`,
    `git -c advice.addEmbeddedRepo=false -c core.safecrlf=false add -A -- . ${spec.excludes.map(q).join(' ')} &&`,
    '__hw_t=$(git write-tree) &&',
    `__hw_c=$(git commit-tree --no-gpg-sign -m ${q(message)} "$__hw_t") &&`,
    `git update-ref -m ${q('hookwise: undo snapshot')} ${q(tree.undoRef)} "$__hw_c"`,
    '__hw_s=$?',
    'rm -f "$__hw_i"',
    'exit $__hw_s',
  ];
  return [
    `__hw_snapshot() (\n  ${body.join('\n  ')}\n)`,
    `if ! __hw_err=$(__hw_snapshot 2>&1 </dev/null); then printf '%s\\n%s\\n' ${q(`hookwise: could not take the undo snapshot of ${tree.root} (ref ${tree.undoRef}), so the confined command did not run:`)} "$__hw_err" >&2; exit 1; fi`,
  ].join('\n');
}

/**
 * The snapshot step for one confined run: its scratch directory made (private, in the runtime dir), the
 * sensitive lists turned into excludes. Throws when the scratch directory cannot be made.
 */
export function prepareSnapshot(input: { tree: GitWorkTree; sanitizedCommand: string; sensitive: { write: readonly string[]; read: readonly string[] }; runtimeDir: string; version: string }): string {
  const scratchDir = ensurePrivateDir(join(input.runtimeDir, 'undo'));
  const excludes = snapshotExcludes([...input.sensitive.read, ...input.sensitive.write]);
  return snapshotStep({ tree: input.tree, sanitizedCommand: input.sanitizedCommand, excludes, version: input.version, scratchDir });
}
