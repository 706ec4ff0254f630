import { describe, expect, it } from 'vitest';
import { describeProjectWrites, roleDeniedDirs } from '../../src/confine/role-writes.js';

describe('the walls tightened to a role: the directories it may not write', () => {
  it('whole-directory deny globs, not file globs; nothing for a role that writes anywhere', () => {
    expect(
      roleDeniedDirs(
        ['tests/**', 'test/**', '*.test.*', 'docs/**', '.github/**', 'Jenkinsfile', '*.tf', 'infra/**'],
        ['src/**', 'lib/**', 'package.json'],
      ),
    ).toEqual(['.github', 'docs', 'infra', 'test', 'tests']);
    expect(roleDeniedDirs([], ['**'])).toEqual([]);
    expect(roleDeniedDirs(['secrets/**'], ['**'])).toEqual([]);
  });

  it('a denied directory that holds a place the role may write stays writable', () => {
    expect(roleDeniedDirs(['src/**', 'docs/**'], ['docs/architecture/**', 'docs/adr/**'])).toEqual(['src']);
    expect(roleDeniedDirs(['docs/**'], ['docs/**'])).toEqual([]);
  });

  it('never a path outside the project or a pattern with a glob in the directory', () => {
    expect(roleDeniedDirs(['../x/**', '/etc/**', 'a/*/b/**', '!src/**'], ['lib/**'])).toEqual([]);
    expect(roleDeniedDirs(['./src/**'], ['lib/**'])).toEqual(['src']);
  });

  it('says where the command may write', () => {
    expect(describeProjectWrites([], 'maintainer')).toBe('only inside the project');
    expect(describeProjectWrites(['docs', 'tests'], 'coder')).toBe(
      'only inside the project, not in docs/, tests/ (role coder may not write them)',
    );
    expect(describeProjectWrites(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'], 'x')).toContain('f/ and 2 more');
  });
});
