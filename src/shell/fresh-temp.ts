/**
 * Fresh temporary files and directories: what `$(mktemp)` / `$(mktemp -d)` name. In
 * `d=$(mktemp -d) && cd "$d" && … && rm -rf "$d"` the parser (knownAssignments) gives `$d` a marker path,
 * so later stages know the target is a new, empty, private (0600/0700) entry in the system temp directory
 * that this very command created: deleting it loses nothing (data-loss.ts, unless something was moved or
 * linked into it), and writing into it is not a write "outside the project" the way `~/x` is. prepare.ts
 * maps the marker into the system temp directory before path policy sees it.
 *
 * Only through an assignment at the head of an `&&` list: if mktemp fails the assignment fails and nothing
 * after it runs. A substitution used directly is not trusted — `cd "$(mktemp -d)" && rm -rf *` runs in the
 * current directory when mktemp fails (the word is empty, and `cd ""` succeeds).
 *
 * The marker holds a NUL character, which no command can contain (the parser refuses NUL), so a command
 * cannot spell a marker itself: only the parser makes one. Pure: no I/O.
 */
import { posix } from 'node:path';

/** `/\0fresh-temp-<id>`: absolute (so nothing joins it to a working directory) and unforgeable. */
const PREFIX = '/\u0000fresh-temp-';

/** The marker of the mktemp substitution identified by `id` (its position in the source). */
export function freshTempMarker(id: number): string {
  return `${PREFIX}${id}`;
}

export function hasFreshTempMarker(text: string): boolean {
  return text.includes('\u0000');
}

export interface FreshTempPath {
  /** Which mktemp made it. */
  id: number;
  /** The path inside it, normalized (`''` for the fresh entry itself). */
  rest: string;
}

/**
 * `marker[/rest]` → the fresh entry and the path inside it; undefined for any other path, and for one that
 * climbs out of the fresh entry (`$d/..`), which is then nothing this module vouches for.
 */
export function parseFreshTemp(path: string): FreshTempPath | undefined {
  if (!path.startsWith(PREFIX)) return undefined;
  let end = PREFIX.length;
  while (end < path.length && path.charCodeAt(end) >= 48 && path.charCodeAt(end) <= 57) end++;
  if (end === PREFIX.length) return undefined;
  const id = Number(path.slice(PREFIX.length, end));
  const after = path.slice(end);
  if (after !== '' && !after.startsWith('/')) return undefined;
  const rest = after === '' ? '' : posix.normalize(`.${after}`);
  if (rest === '..' || rest.startsWith('../')) return undefined;
  return { id, rest: rest === '.' || rest === './' ? '' : rest.replace(/\/+$/, '') };
}

/** A write target as written (`path`, relative to `cwd` when not absolute) → its place in a fresh entry. */
export function freshTempOf(path: string, cwd: string | undefined): FreshTempPath | undefined {
  if (path.startsWith('/')) return parseFreshTemp(path);
  if (cwd === undefined || path === '~' || path.startsWith('~/')) return undefined;
  return parseFreshTemp(`${cwd}/${path}`);
}

/** The marker of a fresh entry with the rest of its path replaced by a directory (prepare.ts). */
export function mapFreshTemp(path: string, tempDir: string): string | undefined {
  const fresh = parseFreshTemp(path);
  if (fresh === undefined) return undefined;
  const base = `${tempDir}/hookwise-fresh-temp-${fresh.id}`;
  return fresh.rest === '' ? base : `${base}/${fresh.rest}`;
}

/**
 * The literal text of a command substitution that creates a fresh entry in the temp directory:
 * `$(mktemp)`, `$(mktemp -d)`, `$(mktemp -d -t name.XXXXXX)`, `$(mktemp --tmpdir name.XXXXXX)`, with -q.
 * Not `mktemp name.XXXX` (GNU: in the current directory), `-p DIR` / `--tmpdir=DIR` (somewhere chosen) or
 * `-u` (a name only, created by nobody: not reserved, so not fresh).
 */
const MKTEMP =
  /^\$\(mktemp((?: (?:-d|-q|-dq|-qd|--directory|--quiet))*)(?: (?:-t|--tmpdir)(?: [A-Za-z0-9._-]+)?)?((?: (?:-d|-q|-dq|-qd|--directory|--quiet))*)\)$/;

export function isFreshTempSubstitution(text: string): boolean {
  return MKTEMP.test(text);
}
