/**
 * What a write target's route (`via`: `rm`, `>`, `cp`, `mv`, …) does to what is at its path: delete it, or
 * only put new content there. Shared by the data-loss rule (data-loss.ts) and the command's own creations
 * (created-here.ts).
 */

/** Writes that delete whatever is there. */
const DELETING = new Set(['rm', 'rmdir', 'unlink', 'shred', 'truncate', 'find -delete']);
/** Does a write by this route delete whatever is at its target (rather than change or overwrite it)? */
export function deletesTarget(via: string): boolean {
  return DELETING.has(via);
}

/** Writes that put nothing but new content into a fresh temp entry (no moved-in data, no links). */
const FILLS =
  /^(?:\d*(?:>|>>|>\||&>|&>>|>&|<>)|tee|tee -a|touch|mkdir|cp|curl|curl -o|curl -O|wget|wget -O|tar -x|unzip|7z|sed -i|chmod|sort -o)$/;
/** Does a write by this route only put new content at its target (no data moved or linked there)? */
export function fillsOnly(via: string): boolean {
  return FILLS.test(via);
}
