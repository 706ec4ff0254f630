/**
 * The walls tightened to the session's role (issue 19: "tightened per role"). Path policy denies a role the
 * writes its `deny_write` globs name (a coder may not write `tests/`); inside the walls the same directories are
 * read-only, so a novel script cannot do what the role forbids. Only what mounts express cheaply: a deny glob
 * `<dir>/**` whose directory exists. A file glob (`*.tf`, `Jenkinsfile`) or a directory that does not exist yet
 * is left to path policy (a known write to it is judged there; an unknown one is not stopped by the walls), and
 * a directory that holds something the role may write (`docs/**` denied, `docs/adr/**` allowed) stays writable.
 */
import picomatch from 'picomatch';

/** The literal directory of `<dir>/**`, or undefined for any other glob. */
function wholeDirectory(glob: string): string | undefined {
  const scan = picomatch.scan(glob);
  if (!scan.isGlob || scan.glob !== '**' || scan.negated) return undefined;
  const dir = scan.base.replace(/\/+$/, '');
  if (dir === '' || dir.startsWith('/') || dir.split('/').some((p) => p === '..' || p === '.')) return undefined;
  return dir;
}

/** The literal directories before the first glob character of each allow glob (where the role may write). */
function allowedBases(allowWrite: readonly string[]): string[] {
  return allowWrite.map((g) => picomatch.scan(g).base.replace(/\/+$/, ''));
}

/** The project directories a role may not write, relative, that the walls can make read-only. */
export function roleDeniedDirs(denyWrite: readonly string[], allowWrite: readonly string[]): string[] {
  const allowed = allowedBases(allowWrite);
  if (allowed.includes('') && allowWrite.some((g) => g === '**' || g === '**/*')) return []; // writes anywhere
  const dirs = new Set<string>();
  for (const glob of denyWrite) {
    const dir = wholeDirectory(glob);
    // Not over a place the role may write: `docs/**` denied while `docs/adr/**` is allowed stays writable.
    if (dir === undefined || allowed.some((a) => a !== '' && (a === dir || a.startsWith(`${dir}/`)))) continue;
    dirs.add(dir);
  }
  return [...dirs].sort();
}

/** Where in the project a confined command may write, in words for the reason. */
export function describeProjectWrites(readOnly: readonly string[], role: string | undefined): string {
  if (readOnly.length === 0) return 'only inside the project';
  const shown = readOnly.slice(0, 6).map((d) => `${d}/`);
  return `only inside the project, not in ${shown.join(', ')}${readOnly.length > shown.length ? ` and ${readOnly.length - shown.length} more` : ''}${role === undefined ? '' : ` (role ${role} may not write them)`}`;
}
