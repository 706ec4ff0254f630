/** write-routes: what a write's route does to what is at its path. */
import { describe, expect, it } from 'vitest';
import { deletesTarget, fillsOnly } from '../../src/shell/write-routes.js';

describe('write routes', () => {
  it.each(['rm', 'rmdir', 'unlink', 'shred', 'truncate', 'find -delete'])('%s deletes its target', (via) => {
    expect(deletesTarget(via)).toBe(true);
    expect(fillsOnly(via)).toBe(false);
  });

  it.each(['>', '2>', '>>', '&>', 'tee', 'tee -a', 'touch', 'mkdir', 'cp', 'curl -o', 'tar -x', 'sed -i'])(
    '%s only puts new content there',
    (via) => {
      expect(fillsOnly(via)).toBe(true);
      expect(deletesTarget(via)).toBe(false);
    },
  );

  it.each(['mv', 'ln', 'rsync', 'git mv', 'install', 'patch'])('%s may move or link data there', (via) => {
    expect(fillsOnly(via)).toBe(false);
    expect(deletesTarget(via)).toBe(false);
  });
});
