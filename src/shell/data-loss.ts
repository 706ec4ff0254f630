/**
 * Which writes of a shell call lose data: deleting, truncating, overwriting a file that exists, moving or
 * copying onto a device. Path policy never auto-allows these, similarity never generalizes over them.
 * Pure over a prepared call (shell/prepare.ts).
 */
import type { PreparedShell } from './prepare.js';
import type { Segment, WriteTarget } from './types.js';

/** Writes that delete whatever is there. */
const DELETING = new Set(['rm', 'rmdir', 'unlink', 'shred', 'truncate', 'find -delete']);
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

function losesData(target: WriteTarget, exists: boolean, segment: Segment, sources: Set<string>): boolean {
  if (DELETING.has(target.via) || target.via.startsWith('git ')) return true;
  if (PRESERVING.has(target.via) || target.via.endsWith('>>')) return false;
  if (sources.has(target.path)) return false;
  return exists;
}

/** `mv x /dev/null`, `cp /dev/null x`-style destruction through a device destination. */
function destroysThroughDevice(segment: Segment): boolean {
  return (segment.name === 'mv' || segment.name === 'cp') && segment.argv.slice(1).some((w) => w.startsWith('/dev/') && w !== '/dev/stdin');
}


/** Does segment `index` lose data (delete, truncate, overwrite an existing file, write onto a device)? */
export function segmentLosesData(shell: PreparedShell, index: number): boolean {
  const segment = shell.parse.segments[index];
  if (segment === undefined) return false;
  if (destroysThroughDevice(segment)) return true;
  const sources = mvSources(segment);
  return shell.writes.targets.some((target, i) => target.segment === index && losesData(target, shell.exists[i] === true, segment, sources));
}
