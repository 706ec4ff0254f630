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
 * put it where a `git push --mirror` or a world-readable loose object could carry it. They are left out the
 * way git leaves out ignored files — hookwise's patterns appended to the user's global excludes file
 * (`-c core.excludesFile`), and tracked ones (found by `grep -E` over `git ls-files`) marked assume-unchanged
 * in the snapshot's own index — not with exclude pathspecs, which git matches against every path with
 * wildmatch: on 40,000 files those more than doubled the cost.
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
  /** The gitignore patterns untracked files are left out by; `hookwise undo` reads the work tree with the same ones. */
  ignores: string[];
  /** Those of them (the credentials) that tracked files are left out by too: their local edits are not read. */
  tracked: string[];
  /** hookwise's version that took it. */
  version: string;
}

export const SNAPSHOT_MARKER = 'hookwise-undo-snapshot: ';
const MAX_LABEL = 2000;

export interface SnapshotSpec {
  tree: GitWorkTree;
  /** The command, already sanitized: this text is written into the repository. */
  sanitizedCommand: string;
  ignores: readonly string[];
  tracked: readonly string[];
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
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_COMMON_DIR',
  'GIT_NAMESPACE',
  'GIT_PREFIX',
  'GIT_LITERAL_PATHSPECS',
  'GIT_GLOB_PATHSPECS',
  'GIT_NOGLOB_PATHSPECS',
  'GIT_ICASE_PATHSPECS',
] as const;

/** What a snapshot records of its (sanitized) command: the text, cut to MAX_LABEL characters. */
export function snapshotLabel(sanitizedCommand: string): string {
  return sanitizedCommand.length > MAX_LABEL ? `${sanitizedCommand.slice(0, MAX_LABEL - 1)}…` : sanitizedCommand;
}

export function snapshotMessage(record: SnapshotRecord): string {
  const command = snapshotLabel(record.command);
  return `hookwise: undo snapshot before a confined command\n\n${SNAPSHOT_MARKER}${JSON.stringify({ ...record, command })}\n`;
}

/** The record in a snapshot commit's message, or undefined when the message is not one hookwise wrote. */
export function parseSnapshotMessage(message: string): SnapshotRecord | undefined {
  const line = message.split('\n').find((l) => l.startsWith(SNAPSHOT_MARKER));
  if (line === undefined) return undefined;
  try {
    const r = JSON.parse(line.slice(SNAPSHOT_MARKER.length)) as Partial<SnapshotRecord>;
    const patterns = (list: unknown): list is string[] =>
      Array.isArray(list) && list.every((e) => typeof e === 'string' && !/[\n\r\0]/.test(e));
    if (typeof r.command !== 'string' || typeof r.version !== 'string' || !patterns(r.ignores) || !patterns(r.tracked))
      return undefined;
    return { command: r.command, ignores: r.ignores, tracked: r.tracked, version: r.version };
  } catch {
    return undefined;
  }
}

/** Extended-glob groups and brace sets, which gitignore patterns do not have. */
const GROUPS = /[!@+*?]\([^()]*\)|\{[^{}]*\}/g;

/**
 * The sensitive lists' project patterns as gitignore patterns. Both syntaxes agree where it matters here: a
 * pattern without `/` is a name at any depth, one with `/` is anchored at the top of the work tree, `**`
 * spans directories. Patterns of the home directory or absolute ones name nothing in the project and are
 * skipped, as is `.git` (git never adds it). Where gitignore cannot say a pattern exactly (`.env!(.example)`,
 * `{a,b}`), the group becomes `*`: more is left out, never less — and what is left out is what the walls
 * keep the command from touching anyway.
 */
export function snapshotIgnores(patterns: readonly string[]): string[] {
  const out = new Set<string>();
  for (const raw of patterns) {
    if (
      raw.startsWith('~') ||
      raw.startsWith('/') ||
      raw.startsWith('!') ||
      raw.startsWith('#') ||
      raw.trim() === '' ||
      /[\n\r\0\\]/.test(raw)
    )
      continue;
    let glob = raw.replace(GROUPS, '*').replace(/^\.\//, '').trimEnd();
    // The shapes git matches fastest, same meaning: `**/name` is `name`, `**/dir/**` is `dir/`, `dir/**` is `/dir/`.
    const anyDepthDir = /^\*\*\/([^/*]+)\/\*\*$/.exec(glob);
    const topDir = /^([^/*]+)\/\*\*$/.exec(glob);
    if (anyDepthDir !== null) glob = `${anyDepthDir[1]}/`;
    else if (topDir !== null) glob = `/${topDir[1]}/`;
    else if (/^\*\*\/[^/]+$/.test(glob)) glob = glob.slice(3);
    const name = glob.replace(/^\//, '').split('/')[0];
    if (name === '.git' || (name === '**' && /^\*\*\/\.git(\/|$)/.test(glob))) continue;
    out.add(glob);
  }
  return [...out].sort();
}

/**
 * The same patterns as one POSIX extended regex over `git ls-files` paths (a name at any depth, or anchored
 * at the top; a directory pattern matches what is below it): which tracked files are left out. `grep -E`
 * over the list costs 20 ms on 40,000 files where `git ls-files -i` costs 120 ms and pathspecs 90 ms.
 */
export function ignoresRegex(ignores: readonly string[]): string {
  const alternatives = ignores.map((pattern) => {
    let p = pattern;
    const dirOnly = p.endsWith('/');
    if (dirOnly) p = p.slice(0, -1);
    let anchored = p.includes('/');
    if (p.startsWith('**/')) {
      p = p.slice(3);
      anchored = false;
    }
    p = p.replace(/^\//, '');
    let re = '';
    for (let i = 0; i < p.length; i++) {
      const c = p[i]!;
      if (c === '*' && p[i + 1] === '*') {
        re += p[i + 2] === '/' ? '(.*/)?' : '.*';
        i += p[i + 2] === '/' ? 2 : 1;
      } else if (c === '*') re += '[^/]*';
      else if (c === '?') re += '[^/]';
      else if (c === '[') {
        const end = p.indexOf(']', i + 2);
        if (end === -1) re += '\\[';
        else {
          const body = p.slice(i + 1, end);
          re += `[${body.startsWith('!') ? `^${body.slice(1)}` : body}]`;
          i = end;
        }
      } else re += /[.^$+(){}|\\]/.test(c) ? `\\${c}` : c;
    }
    return `${anchored ? '^' : '(^|/)'}${re}${dirOnly ? '/' : '(/|$)'}`;
  });
  return alternatives.length === 0 ? '^$' : alternatives.map((a) => `(${a})`).join('|');
}

/**
 * sh lines that read the work tree into an index of its own (`$__hw_i`, seeded from a copy of the real
 * index), leaving out `ignores` — the snapshot's first half, and what `hookwise undo` runs to compare. They
 * `exit 1` on a failure; the caller defines `__hw_i` and removes `$__hw_i*` afterwards.
 */
export function stageWorktreeLines(
  tree: GitWorkTree,
  ignores: readonly string[],
  tracked: readonly string[],
): string[] {
  const q = shellQuote;
  return [
    `unset ${FOREIGN_GIT_ENV.join(' ')}`,
    `cd ${q(tree.root)} || exit 1`,
    'rm -f "$__hw_i" "$__hw_i.lock" "$__hw_i.hookwise" "$__hw_i.ignore"',
    `if [ -f ${q(tree.indexFile)} ]; then cp -p ${q(tree.indexFile)} "$__hw_i" || exit 1; fi`,
    'export GIT_INDEX_FILE="$__hw_i"',
    `printf '%s\\n' ${ignores.length === 0 ? "''" : ignores.map(q).join(' ')} > "$__hw_i.hookwise" || exit 1`,
    // The user's own global excludes stay in force: hookwise's patterns are appended to a copy of them.
    '__hw_x=$(git config --path --get core.excludesFile) || __hw_x="${XDG_CONFIG_HOME:-$HOME/.config}/git/ignore"',
    '{ cat -- "$__hw_x" 2>/dev/null; echo; cat -- "$__hw_i.hookwise"; } > "$__hw_i.ignore" || exit 1',
    // Tracked files that match: not read again (a local edit to a tracked .env stays out of the object store).
    // Rare, so the NUL-separated pass runs only when the quick one finds some.
    `__hw_r=${q(ignoresRegex(tracked))}`,
    'if [ -n "$(git ls-files -c | grep -E -- "$__hw_r")" ]; then git ls-files -z -c | grep -z -E -- "$__hw_r" | git update-index -z --assume-unchanged --stdin || exit 1; fi',
    'git -c core.excludesFile="$__hw_i.ignore" -c advice.addEmbeddedRepo=false -c core.safecrlf=false add -A || exit 1',
  ];
}

/**
 * The POSIX sh text that takes the snapshot, for the wrapped command to run before bubblewrap. It defines
 * and calls a function: on failure it prints why (git's own message included) and exits the wrapped command
 * with status 1 before anything of the agent's command has run.
 */
export function snapshotStep(spec: SnapshotSpec): string {
  const { tree } = spec;
  const message = snapshotMessage({
    command: spec.sanitizedCommand,
    ignores: [...spec.ignores],
    tracked: [...spec.tracked],
    version: spec.version,
  });
  const identity = Object.entries(SNAPSHOT_IDENTITY)
    .map(([k, v]) => `${k}=${shellQuote(v)}`)
    .join(' ');
  const q = shellQuote;
  const body = [
    // $$ is the wrapping shell's pid: one index per run, so concurrent confined commands do not share one.
    `__hw_i=${q(spec.scratchDir)}/index.$$`,
    'trap \'rm -f "$__hw_i" "$__hw_i.lock" "$__hw_i.hookwise" "$__hw_i.ignore"\' EXIT',
    ...stageWorktreeLines(tree, spec.ignores, spec.tracked),
    `export ${identity}`,
    '__hw_t=$(git write-tree) &&',
    `__hw_c=$(git commit-tree --no-gpg-sign -m ${q(message)} "$__hw_t") &&`,
    `git update-ref -m ${q('hookwise: undo snapshot')} ${q(tree.undoRef)} "$__hw_c"`,
  ];
  return [
    `__hw_snapshot() (\n  ${body.join('\n  ')}\n)`,
    `if ! __hw_err=$(__hw_snapshot 2>&1 </dev/null); then printf '%s\\n%s\\n' ${q(`hookwise: could not take the undo snapshot of ${tree.root} (ref ${tree.undoRef}), so the confined command did not run:`)} "$__hw_err" >&2; exit 1; fi`,
  ].join('\n');
}

/**
 * The snapshot step for one confined run: its scratch directory made (private, in the runtime dir), the
 * sensitive lists turned into ignore patterns. Throws when the scratch directory cannot be made.
 */
export function prepareSnapshot(input: {
  tree: GitWorkTree;
  sanitizedCommand: string;
  sensitive: { write: readonly string[]; read: readonly string[] };
  runtimeDir: string;
  version: string;
}): string {
  const scratchDir = ensurePrivateDir(join(input.runtimeDir, 'undo'));
  // Untracked: neither credentials nor protected files (the walls keep the command from both). Tracked: only
  // credentials — a protected file's local edit holds no secret, and checking them costs a pass per run.
  const ignores = snapshotIgnores([...input.sensitive.read, ...input.sensitive.write]);
  const tracked = snapshotIgnores(input.sensitive.read);
  return snapshotStep({
    tree: input.tree,
    sanitizedCommand: input.sanitizedCommand,
    ignores,
    tracked,
    version: input.version,
    scratchDir,
  });
}
