/**
 * Where a project's git repository lives, read from the files git itself reads (no git process): the
 * engine asks it once per confinable call, so it must cost a few stats, not a spawn. A project is a git
 * work tree when its root holds a `.git` directory with a HEAD, or a `.git` file (`gitdir: …`, a linked
 * worktree or a submodule) naming such a directory. Anything else — no `.git`, an empty `.git` directory,
 * an unreadable or malformed `.git` file — is not a work tree: no undo snapshot can be taken there.
 */
import { accessSync, constants, lstatSync, readFileSync } from 'node:fs';
import { basename, delimiter, dirname, isAbsolute, join, normalize } from 'node:path';

export interface GitWorkTree {
  /** The work tree's top (the project root). */
  root: string;
  /** The work tree's own git directory (`.git`, or `<common>/worktrees/<name>` for a linked worktree). */
  gitDir: string;
  /** The directory with objects and refs (the same as gitDir except in a linked worktree). */
  commonDir: string;
  /** The real index, read (never written) to seed the snapshot's own index. */
  indexFile: string;
  /** The hidden ref that holds this work tree's latest undo snapshot (refs are shared between worktrees). */
  undoRef: string;
}

/** Snapshot refs live under this prefix: not a branch, not a tag, not fetched or pushed by default. */
export const UNDO_REF_PREFIX = 'refs/hookwise/undo';

function isFile(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false })?.isFile() === true;
}

function isDir(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
}

/** The project's git work tree, or undefined when it is not one (or cannot be read: fail closed). */
export function gitWorkTree(projectRoot: string): GitWorkTree | undefined {
  try {
    const dotGit = join(projectRoot, '.git');
    const st = lstatSync(dotGit, { throwIfNoEntry: false });
    let gitDir: string;
    if (st?.isDirectory() === true) gitDir = dotGit;
    else if (st?.isFile() === true) {
      const line = /^gitdir: (.+)$/m.exec(readFileSync(dotGit, 'utf8'));
      if (line === null) return undefined;
      const target = line[1]!.trim();
      gitDir = normalize(isAbsolute(target) ? target : join(projectRoot, target));
    } else return undefined;
    if (!isFile(join(gitDir, 'HEAD'))) return undefined;
    let commonDir = gitDir;
    if (isFile(join(gitDir, 'commondir'))) {
      const common = readFileSync(join(gitDir, 'commondir'), 'utf8').trim();
      commonDir = normalize(isAbsolute(common) ? common : join(gitDir, common));
    }
    if (!isDir(join(commonDir, 'objects')) || !isDir(join(commonDir, 'refs'))) return undefined;
    // A linked worktree's git dir is <common>/worktrees/<name>: its refs must not collide with the main one's.
    const linked = commonDir !== gitDir && basename(dirname(gitDir)) === 'worktrees';
    const name = linked ? `worktree-${basename(gitDir).replace(/[^A-Za-z0-9_-]/g, '_')}` : 'main';
    return {
      root: projectRoot,
      gitDir,
      commonDir,
      indexFile: join(gitDir, 'index'),
      undoRef: `${UNDO_REF_PREFIX}/${name}`,
    };
  } catch {
    return undefined;
  }
}

const gitFound = new Map<string, boolean>();

/**
 * Whether an executable `git` is on PATH (the snapshot runs it), looked up once per PATH value. Without one no
 * snapshot is taken: a command that loses data stays asked, instead of every confined run failing to start.
 */
export function gitOnPath(env: NodeJS.ProcessEnv = process.env): boolean {
  const path = env.PATH ?? '';
  let found = gitFound.get(path);
  if (found === undefined) {
    found = path.split(delimiter).some((dir) => {
      if (!dir.startsWith('/')) return false;
      try {
        accessSync(join(dir, 'git'), constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
    gitFound.set(path, found);
  }
  return found;
}
