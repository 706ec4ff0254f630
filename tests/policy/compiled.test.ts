import { describe, expect, it } from 'vitest';
import { compilePattern } from '../../src/policy/compile.js';
import { PatternList } from '../../src/policy/compiled.js';
import type { ResolvedPath } from '../../src/core/tool-call.js';

const ROOT = '/p';
const list = (...globs: string[]) =>
  new PatternList(globs.map((glob) => compilePattern({ glob, source: 'test' }, '/home/u')));
const dir = (relative: string): ResolvedPath => ({
  input: relative,
  absolute: relative === '' ? ROOT : `${ROOT}/${relative}`,
  relative,
});

describe('PatternList over a tree a program rewrites file by file', () => {
  it.each([
    // [pattern, directory rewritten, skips, may match below]
    ['docs/**', '', [], true],
    ['docs/**', 'src', [], false],
    ['src/gen/**', 'src', [], true],
    ['src/**', 'src/lib', [], true],
    ['.git/hooks/**', '', ['.git'], false],
    ['.git/hooks/**', '', [], true],
    ['.git/config', '', ['.git'], false],
    ['.claude/**', '', ['.git'], true],
    ['package.json', '', [], true],
    ['package.json', 'src', [], true], // no slash: a file name at any depth
    ['config/app.json', 'src', [], false],
    ['.env*', 'src', [], true], // a file name at any depth
    ['**/secrets/**', 'src', [], true], // a segment anywhere
    ['/home/u/.ssh/**', '', [], false],
  ] as const)('%s below %j (skips %j): %s', (glob, at, skips, expected) => {
    expect(list(glob).reachesBelow(dir(at), skips) !== undefined).toBe(expected);
  });

  it.each([
    ['**', '', true],
    ['**', 'src', true],
    ['src/**', 'src', true],
    ['src/**', 'src/lib', true],
    ['src/**', '', false],
    ['docs/**', 'src', false],
    ['*.md', '', false],
  ] as const)('%s covers everything below %j: %s', (glob, at, expected) => {
    expect(list(glob).coversBelow(dir(at)) !== undefined).toBe(expected);
  });
});
