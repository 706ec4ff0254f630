/**
 * Files a command creates and removes itself (issue 28, item 6): in `echo 'print(1)' > t.py && python t.py &&
 * rm t.py` the `rm` deletes nothing of anyone's — t.py did not exist when the call was judged, and an earlier
 * part of the same command made it. data-loss.ts then does not count that deletion as data loss.
 *
 * Only what the parse knows for certain counts:
 *   - the deletion and the creation name the same literal path (no expansion, no glob), canonical (or the
 *     deletion is below a directory the command made); nothing is at that path when the call is judged (the
 *     edge looks: `absent`);
 *   - the creation is a redirect, `tee`, `cp` or `mkdir` (see CREATORS) in a top-level statement that always
 *     runs before the deletion: not in an if/loop/case/function body, a pipeline, a substitution or the
 *     background, and joined to it by `&&` and `;` only (after a `;`, only when the creation heads its own
 *     `&&` list: `false && echo > t; rm t` may never have created t);
 *   - nothing in the command moves, links or writes by an unknown route into the path (`mv`, `ln`, `git mv`,
 *     rsync, a write hookwise cannot place — the same rule as a mktemp directory's, fresh-temp.ts).
 *
 * Between the judgement and the run another process could put something at the path. The creation is then
 * chosen so that it destroys or refuses what it finds: a truncating redirect, `tee` or `cp` overwrites a file
 * (the loss is the creation's, which path policy judged as a write) and fails on a directory; `mkdir` fails
 * on anything. A recursive deletion (`rm -r`, `find -delete`) needs a creation that fails on a directory and a
 * chain of `&&` only, so that it never runs after the creation failed; `mkdir` needs that chain too.
 *
 * Running a file the command wrote (`python t.py`) is judged elsewhere, as before (effects.ts: planted code).
 * Pure: the file system is asked through `absent`, at the edge (prepare.ts).
 */
import { posix } from 'node:path';
import type { ResolvedPath } from '../core/tool-call.js';
import { deletesTarget, fillsOnly } from './write-routes.js';
import type { Segment, WriteAnalysis } from './types.js';
/** A redirect that truncates (or creates) its file and fails on a directory. */
const TRUNCATING_REDIRECT = /^\d*(?:>|>\||&>|>&)$/;
const GLOB = /[*?[\]{}]/;

/** What a creation does when something is already at its path. */
type Creator = { truncates: boolean; failsIfExists: boolean; failsOnDirectory: boolean };

function optionWords(segment: Segment): string[] {
  const words: string[] = [];
  for (const word of segment.argv.slice(1)) {
    if (word === '--') break;
    if (word.startsWith('-')) words.push(word);
  }
  return words;
}

function hasOption(segment: Segment, short: string, long: readonly string[]): boolean {
  return optionWords(segment).some((w) =>
    w.startsWith('--') ? long.some((l) => w === `--${l}` || w.startsWith(`--${l}=`)) : w.slice(1).includes(short),
  );
}

/** How a write target creates its path, or undefined when it is no creation this module trusts. */
function creatorOf(via: string, segment: Segment): Creator | undefined {
  if (TRUNCATING_REDIRECT.test(via)) return { truncates: true, failsIfExists: false, failsOnDirectory: true };
  if (via === 'tee' && !hasOption(segment, 'a', ['append']))
    return { truncates: true, failsIfExists: false, failsOnDirectory: true };
  if (via === 'mkdir' && !hasOption(segment, 'p', ['parents']))
    return { truncates: false, failsIfExists: true, failsOnDirectory: true };
  // cp overwrites a file, but onto a directory it copies into it: no creation a recursive deletion may trust.
  const keeps = [
    ['n', 'no-clobber'],
    ['i', 'interactive'],
    ['u', 'update'],
  ] as const;
  if (via === 'cp' && !keeps.some(([short, long]) => hasOption(segment, short, [long])))
    return { truncates: true, failsIfExists: false, failsOnDirectory: false };
  return undefined;
}

function recursive(via: string, segment: Segment): boolean {
  return (
    via === 'find -delete' || (via === 'rm' && (hasOption(segment, 'r', ['recursive']) || hasOption(segment, 'R', [])))
  );
}

/**
 * A top-level statement that runs where it stands: not in a body, a substitution, the background, nor a
 * pipeline's stage other than its last (whose status is the pipeline's: `echo x | tee t && …`).
 */
function plainStatement(segments: readonly Segment[], index: number): boolean {
  const s = segments[index]!;
  const next = segments[index + 1];
  return (
    s.depth === 0 &&
    s.context === 'command' &&
    s.flags.conditional !== true &&
    s.flags.background !== true &&
    s.flags.appendsArgs !== true &&
    !(next !== undefined && next.depth === 0 && PIPES.has(next.operator ?? ''))
  );
}

const PIPES = new Set(['|', '|&']);

/** The first stage of the pipeline a top-level segment ends (itself when it is no pipeline's last stage). */
function pipelineHead(segments: readonly Segment[], index: number): number {
  let head = index;
  while (head > 0 && PIPES.has(segments[head]!.operator ?? '')) {
    head--;
    while (head > 0 && (segments[head]!.depth !== 0 || segments[head]!.context !== 'command')) head--;
  }
  return head;
}

/** Operators after which the next statement may run whether or not the one before it ran, or alongside it. */
const UNSURE = new Set(['||', '|', '|&', '&']);
const MOVES_CWD = new Set(['cd', 'pushd', 'popd']);

/**
 * How segment `to` is reached from `from`: through `&&` only, through `&&` and `;`, or not surely after it.
 * Any `||`, pipe or `&` on the way, at any depth (a group joined by `||` hides its operator inside), is unsure.
 */
function chainBetween(segments: readonly Segment[], from: number, to: number): 'and' | 'sequence' | undefined {
  let andOnly = true;
  let movesCwd = false;
  for (let m = from + 1; m <= to; m++) {
    const s = segments[m]!;
    if (s.operator !== undefined && UNSURE.has(s.operator)) return undefined;
    if (m < to && MOVES_CWD.has(s.name)) movesCwd = true;
    if (s.depth === 0 && s.context === 'command' && s.operator !== '&&') andOnly = false;
  }
  if (andOnly) return 'and';
  // After a `;` a `cd` on the way may have failed, and the two paths are then not the same file.
  if (movesCwd) return undefined;
  // And the creation must have run: it heads its own `&&` list (the command's first statement, or after `;`).
  const start = pipelineHead(segments, from);
  const head = segments[start]!.operator;
  const first = !segments.slice(0, start).some((s) => s.depth === 0 && s.context === 'command');
  return head === ';' || head === '\n' || (head === undefined && first) ? 'sequence' : undefined;
}

function inside(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir === '/' ? '/' : `${dir}/`);
}

/**
 * For each write target: whether it is a deletion of a path this very command creates earlier (see the module
 * comment). `targets[i]` is writes.targets[i] canonical (prepare.ts); `absent(path, i)` says whether nothing
 * at all is at that canonical path now, nor at target i as written (a link planted there, even dangling).
 */
export function deletedAfterCreation(
  segments: readonly Segment[],
  writes: WriteAnalysis,
  targets: readonly (ResolvedPath | null)[],
  absent: (absolute: string, target: number) => boolean,
): boolean[] {
  const out = writes.targets.map(() => false);
  if (writes.unknown.length > 0) return out; // a write hookwise cannot place may move anything anywhere
  const literal = (i: number): string | undefined => {
    const t = writes.targets[i]!;
    const r = targets[i];
    if (t.dynamic || GLOB.test(t.path) || r === null || r === undefined || r.unknown !== undefined) return undefined;
    return posix.normalize(r.absolute).replace(/(.)\/+$/, '$1');
  };
  const deletions = writes.targets.flatMap((t, i) => (deletesTarget(t.via) && literal(i) !== undefined ? [i] : []));
  if (deletions.length === 0) return out;
  // Any write whose place is unknown, or that moves or links something somewhere, may fill a created path.
  const movedInto: (string | null)[] = [];
  writes.targets.forEach((t, i) => {
    if (deletesTarget(t.via) || fillsOnly(t.via)) return;
    movedInto.push(literal(i) ?? null);
  });
  for (const k of deletions) {
    const deletion = writes.targets[k]!;
    const deleted = literal(k)!;
    const sk = deletion.segment;
    if (segments[sk]!.depth !== 0 || segments[sk]!.context !== 'command') continue;
    const deep = recursive(deletion.via, segments[sk]!);
    out[k] = writes.targets.some((creation, j) => {
      const sj = creation.segment;
      if (sj >= sk || !plainStatement(segments, sj)) return false;
      const created = literal(j);
      const how = creatorOf(creation.via, segments[sj]!);
      if (created === undefined || how === undefined) return false;
      if (!(deleted === created || (creation.via === 'mkdir' && inside(deleted, created)))) return false;
      const chain = chainBetween(segments, sj, sk);
      if (chain === undefined) return false;
      if (how.failsIfExists ? chain !== 'and' : !how.truncates) return false;
      if (deep && (chain !== 'and' || !how.failsOnDirectory)) return false;
      if (movedInto.some((p) => p === null || inside(p, created) || inside(created, p))) return false;
      return absent(created, j);
    });
  }
  return out;
}
