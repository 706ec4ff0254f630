/**
 * Git history and remote rewriting. Rewriting or deleting a protected branch (protected_branches:
 * main, master, release*, production by default) on a remote is irreversible for everyone who shares it
 * → deny. Force pushes elsewhere, and local operations that discard work git cannot recover (reset
 * --hard, clean, checkout -- ., branch -D, stash drop/clear, reflog expire) → ask. Rewriting all of
 * history (filter-repo, filter-branch) → deny.
 *
 * Global options before the subcommand are skipped (`git -C repo -c k=v push …`), and refspecs are
 * read the way git reads them: `+main` forces main, `:main` and `--delete main` delete it, `HEAD:main`
 * targets main.
 */
import type { Segment } from '../../shell/types.js';
import { hasAny, hasExpansion, scan, type Positional } from './argv.js';
import { definePack, type PackEnv, type PackFinding } from './types.js';

const RULES = {
  'force-push-protected': {
    verdict: 'deny',
    message:
      'force-pushes to a protected branch, rewriting history everyone else has already pulled. Push to a new branch and open a pull request, or git revert the commits instead.',
  },
  'delete-protected': {
    verdict: 'deny',
    message:
      'deletes a protected branch on the remote. Protected branches are deleted by a human in the hosting UI, if ever.',
  },
  'mirror-push': {
    verdict: 'deny',
    message:
      'makes the remote an exact copy of this repository: it force-updates every branch and tag and deletes any the local repo lacks. Push the branches you mean by name.',
  },
  'force-push': {
    verdict: 'ask',
    message:
      'force-pushes, replacing the remote branch history (anyone who pulled it must recover by hand). Prefer --force-with-lease on your own feature branch; a human confirms.',
  },
  'delete-remote-branch': {
    verdict: 'ask',
    message: 'deletes branches on the remote (--delete, :branch or --prune). A human confirms which branches go.',
  },
  'reset-hard': {
    verdict: 'ask',
    message:
      'throws away every uncommitted change in the working tree and index, unrecoverably. Use git stash (recoverable) or git reset --keep; a human confirms.',
  },
  'clean-ignored': {
    verdict: 'deny',
    message:
      'deletes every untracked AND ignored file: .env files, local config, caches — none of it is in git, so none of it comes back. Preview with git clean -n -x, then delete specific paths.',
  },
  'clean-untracked': {
    verdict: 'ask',
    message: 'deletes untracked files, which git cannot restore. Preview with git clean -n first; a human confirms.',
  },
  'discard-changes': {
    verdict: 'ask',
    message:
      'discards all uncommitted changes in the working tree (checkout -- . / restore . / checkout -f), unrecoverably. Use git stash to set them aside instead; a human confirms.',
  },
  'branch-force-delete': {
    verdict: 'ask',
    message:
      'deletes a branch even if its commits are not merged anywhere (they then survive only in the reflog). Use git branch -d, which refuses to drop unmerged work; a human confirms.',
  },
  'stash-discard': {
    verdict: 'ask',
    message:
      'drops stashed changes (stash drop / stash clear); they are then only recoverable by hunting dangling commits. A human confirms.',
  },
  'history-rewrite': {
    verdict: 'deny',
    message:
      'rewrites the entire history of the repository (filter-repo / filter-branch): every commit id changes and every clone diverges. A human runs this deliberately, on a fresh clone, with a backup.',
  },
  'update-ref-delete': {
    verdict: 'ask',
    message: 'deletes a ref directly, bypassing the safety checks of git branch -d. A human confirms.',
  },
  'prune-unreachable': {
    verdict: 'ask',
    message:
      'expires the reflog or prunes unreachable objects now, removing the last way to recover reset or deleted commits. Let git gc expire them on its normal schedule; a human confirms.',
  },
} as const;
type RuleId = keyof typeof RULES;

/** Git's global options that take a separate value. */
const GLOBAL_WITH_VALUE = ['C', 'c', 'git-dir', 'work-tree', 'namespace', 'config-env', 'super-prefix'];

export interface GitSubcommand {
  name: string;
  /** argv index where the subcommand's own arguments start. */
  from: number;
  /** `-c k=v` / `--config-env` / `--exec-path=`: config that can make any subcommand run programs. */
  overridesConfig: boolean;
}

/** The subcommand after git's global options (`git -C repo -c k=v push` → push). */
export function gitSubcommand(segment: Segment): GitSubcommand | undefined {
  const globals = scan(segment.argv, { withValue: GLOBAL_WITH_VALUE, stopAtPositional: true });
  const sub = globals.positionals[0];
  if (sub === undefined) return undefined;
  const overridesConfig =
    globals.values.has('c') || globals.values.has('config-env') || globals.values.has('exec-path');
  return { name: sub.text, from: sub.index + 1, overridesConfig };
}

interface RefUpdate {
  forced: boolean;
  deleted: boolean;
  /** Destination branch; undefined when unknowable (HEAD, a variable). */
  dst: string | undefined;
  shown: string;
}

function refUpdate(p: Positional, deleteFlag: boolean): RefUpdate {
  const forced = p.text.startsWith('+');
  const spec = forced ? p.text.slice(1) : p.text;
  const colon = spec.indexOf(':');
  const deleted = deleteFlag || (colon === 0 && spec.length > 1);
  let dst = colon === -1 ? spec : spec.slice(colon + 1);
  if (dst.startsWith('refs/heads/')) dst = dst.slice('refs/heads/'.length);
  const unknown = dst === '' || dst === 'HEAD' || dst === '@' || hasExpansion(dst);
  return { forced, deleted, dst: unknown ? undefined : dst, shown: p.text };
}

function push(segment: Segment, from: number, env: PackEnv): PackFinding<RuleId> | undefined {
  const args = scan(segment.argv, { from, withValue: ['o', 'push-option', 'repo', 'receive-pack', 'exec'] });
  if (args.flags.has('mirror')) return { rule: 'mirror-push' };
  const force = hasAny(args, 'f', 'force', 'force-with-lease', 'force-if-includes');
  const deleteFlag = hasAny(args, 'd', 'delete');
  const allBranches = hasAny(args, 'all', 'branches');
  const refs = args.positionals.slice(1).map((p) => refUpdate(p, deleteFlag));
  const isProtected = (r: RefUpdate): boolean => r.dst !== undefined && env.isProtectedBranch(r.dst);

  const deletions = refs.filter((r) => r.deleted);
  const protectedDeletion = deletions.find(isProtected);
  if (protectedDeletion !== undefined) return { rule: 'delete-protected', detail: `branch ${protectedDeletion.dst}` };

  const forced = refs.filter((r) => !r.deleted && (force || r.forced));
  const protectedForce = forced.find(isProtected);
  if (protectedForce !== undefined) return { rule: 'force-push-protected', detail: `branch ${protectedForce.dst}` };
  if (force && allBranches) return { rule: 'force-push-protected', detail: 'all branches' };

  if (deletions.length > 0 || args.flags.has('prune')) {
    return { rule: 'delete-remote-branch', detail: deletions.map((d) => d.shown).join(' ') || '--prune' };
  }
  if (forced.length > 0)
    return { rule: 'force-push', detail: forced.map((r) => r.dst ?? `${r.shown} (branch unknown)`).join(', ') };
  // `git push -f` with no refspec pushes the current (or configured) branch: which one is unknown here.
  if (force) return { rule: 'force-push', detail: 'current branch (unknown to hookwise)' };
  return undefined;
}

/** A pathspec that covers the whole working tree. */
function wholeTree(p: Positional): boolean {
  return (
    p.text === '.' || p.text === './' || p.text === ':/' || p.text === '*' || p.text === ':/*' || p.text === ':(top)'
  );
}

function checkout(segment: Segment, from: number): PackFinding<RuleId> | undefined {
  const args = scan(segment.argv, { from, withValue: ['b', 'B', 'orphan', 'conflict', 'pathspec-from-file'] });
  if (hasAny(args, 'f', 'force')) return { rule: 'discard-changes', detail: 'checkout --force' };
  const whole = args.positionals.find(wholeTree);
  return whole === undefined ? undefined : { rule: 'discard-changes', detail: `pathspec ${whole.text}` };
}

function restore(segment: Segment, from: number): PackFinding<RuleId> | undefined {
  const args = scan(segment.argv, { from, withValue: ['s', 'source', 'pathspec-from-file', 'conflict'] });
  // --staged alone only unstages: the working tree is untouched.
  if (hasAny(args, 'S', 'staged') && !hasAny(args, 'W', 'worktree')) return undefined;
  const whole = args.positionals.find(wholeTree);
  return whole === undefined ? undefined : { rule: 'discard-changes', detail: `pathspec ${whole.text}` };
}

function classifyGit(segment: Segment, env: PackEnv): PackFinding<RuleId> | undefined {
  const sub = gitSubcommand(segment);
  if (sub === undefined) return undefined;
  const rest = (withValue: string[] = []) => scan(segment.argv, { from: sub.from, withValue });
  switch (sub.name) {
    case 'push':
      return push(segment, sub.from, env);
    case 'reset':
      return rest().flags.has('hard') ? { rule: 'reset-hard' } : undefined;
    case 'clean': {
      const args = rest(['e', 'exclude']);
      if (hasAny(args, 'n', 'dry-run', 'i', 'interactive')) return undefined;
      return hasAny(args, 'x', 'X') ? { rule: 'clean-ignored' } : { rule: 'clean-untracked' };
    }
    case 'checkout':
      return checkout(segment, sub.from);
    case 'restore':
      return restore(segment, sub.from);
    case 'branch': {
      const args = rest([
        'u',
        'set-upstream-to',
        'contains',
        'no-contains',
        'merged',
        'no-merged',
        'points-at',
        'sort',
        'format',
      ]);
      const forceDelete = args.flags.has('D') || (hasAny(args, 'd', 'delete') && hasAny(args, 'f', 'force'));
      return forceDelete
        ? { rule: 'branch-force-delete', detail: args.positionals.map((p) => p.text).join(' ') }
        : undefined;
    }
    case 'stash': {
      const action = rest().positionals[0]?.text;
      return action === 'drop' || action === 'clear' ? { rule: 'stash-discard', detail: `stash ${action}` } : undefined;
    }
    case 'filter-repo':
    case 'filter-branch':
      return { rule: 'history-rewrite', detail: sub.name };
    case 'update-ref':
      return hasAny(rest(), 'd') ? { rule: 'update-ref-delete' } : undefined;
    case 'reflog': {
      const action = rest().positionals[0]?.text;
      return action === 'expire' || action === 'delete'
        ? { rule: 'prune-unreachable', detail: `reflog ${action}` }
        : undefined;
    }
    case 'gc':
    case 'prune': {
      const args = rest();
      const prune = args.values.get('prune')?.[0] ?? args.values.get('expire')?.[0];
      return prune === 'now' || prune === 'all'
        ? { rule: 'prune-unreachable', detail: `${sub.name} --prune=${prune}` }
        : undefined;
    }
    default:
      return undefined;
  }
}

export const gitPack = definePack<RuleId>({
  name: 'git',
  kind: 'guard',
  description:
    'force/mirror/delete pushes (deny on protected branches), reset --hard, clean, checkout -- ., branch -D, stash drop, filter-repo',
  commands: ['git', 'git-filter-repo'],
  rules: RULES,
  classify(segment, env) {
    if (segment.name === 'git-filter-repo' || segment.name === 'git-filter-branch')
      return { rule: 'history-rewrite', detail: segment.name };
    return segment.name === 'git' ? classifyGit(segment, env) : undefined;
  },
});

/** `release*` style globs: `*` matches any run of characters, everything else is literal. */
export function branchGlobMatches(glob: string, branch: string): boolean {
  const parts = glob.split('*');
  if (parts.length === 1) return glob === branch;
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  if (!branch.startsWith(first) || branch.length < first.length + last.length || !branch.endsWith(last)) return false;
  let at = first.length;
  const end = branch.length - last.length;
  for (const middle of parts.slice(1, -1)) {
    const found = branch.indexOf(middle, at);
    if (found === -1 || found + middle.length > end) return false;
    at = found + middle.length;
  }
  return true;
}

export const DEFAULT_PROTECTED_BRANCHES: readonly string[] = ['main', 'master', 'release*', 'production'];
