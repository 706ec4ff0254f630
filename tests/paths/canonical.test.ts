import { describe, expect, it } from 'vitest';
import { canonicalize } from '../../src/paths/canonical.js';
import { makeProject } from '../support/project.js';

describe('canonicalize', () => {
  it('a path through a file (ENOTDIR) resolves on its longest real prefix instead of throwing', () => {
    expect(canonicalize('/dev/null/file1', '/', '/home/x')).toBe('/dev/null/file1');
    const p = makeProject();
    const file = p.write('a.txt', 'x');
    expect(canonicalize(`${file}/b/../c`, p.root, p.home)).toBe(`${file}/c`);
  });

  it('check judges `mv a b /dev/null` (a device as a directory) instead of failing on it', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    const r = await p.check(p.pre('Bash', { command: 'mv file1 file2 /dev/null' }));
    expect(r.decision?.verdict).toBe('ask');
    expect(r.decision?.tier).not.toBe('input');
  });
});
