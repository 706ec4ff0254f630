import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalize, canonicalPath, inTempDir, resolvePath, tempRoots } from '../../src/paths/canonical.js';
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

describe('canonicalPath never throws: what the file system will not resolve is unknown, with why', () => {
  it('a name longer than the file system allows (one component, or the whole path)', () => {
    const p = makeProject();
    for (const input of [`${'a'.repeat(300)}/x`, 'b/'.repeat(40 * 1024)]) {
      const got = canonicalPath(input, p.root, p.home);
      expect(got.unknown).toMatch(/too long/);
      expect(got.path.startsWith(p.root)).toBe(true);
    }
  });

  it('a loop of symbolic links', () => {
    const p = makeProject();
    symlinkSync('b', join(p.root, 'a'));
    symlinkSync('a', join(p.root, 'b'));
    expect(canonicalPath('a/x', p.root, p.home).unknown).toMatch(/loop of symbolic links/);
  });

  it('resolvePath carries it; an ordinary missing file is not unknown', () => {
    const p = makeProject();
    const ctx = { projectRoot: p.root, home: p.home, cwd: p.root };
    expect(resolvePath('x'.repeat(5000), ctx).unknown).toMatch(/too long/);
    expect(resolvePath('src/new/file.ts', ctx)).toEqual({
      input: 'src/new/file.ts',
      absolute: join(p.root, 'src/new/file.ts'),
      relative: 'src/new/file.ts',
    });
  });
});

describe('the system temp directories', () => {
  it('are canonical, never /, and only the usual places', () => {
    const roots = tempRoots();
    expect(roots.length).toBeGreaterThan(0);
    for (const root of roots) {
      expect(root).not.toBe('/');
      expect(root).toMatch(/^\/(?:private\/)?(?:tmp|var\/tmp|var\/folders|dev\/shm)(?:\/|$)/);
    }
  });

  it('a path strictly inside one is in the temp directory; the directory itself and look-alikes are not', () => {
    const root = tempRoots()[0]!;
    expect(inTempDir(`${root}/x/y`)).toBe(true);
    expect(inTempDir(root)).toBe(false);
    expect(inTempDir(`${root}x/y`)).toBe(false);
    expect(inTempDir('/etc/passwd')).toBe(false);
  });
});
