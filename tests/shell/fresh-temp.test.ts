/** fresh-temp: the marker the parser gives `$(mktemp [-d])`, and where prepare.ts maps it. */
import { describe, expect, it } from 'vitest';
import {
  freshTempMarker,
  freshTempOf,
  isFreshTempSubstitution,
  mapFreshTemp,
  parseFreshTemp,
} from '../../src/shell/fresh-temp.js';

const m = freshTempMarker(7);

describe('isFreshTempSubstitution: only mktemp forms that create a new entry in the temp directory', () => {
  it.each([
    '$(mktemp)',
    '$(mktemp -d)',
    '$(mktemp -q -d)',
    '$(mktemp -dq)',
    '$(mktemp --directory)',
    '$(mktemp -d -t build.XXXXXX)',
    '$(mktemp -t x)',
    '$(mktemp --tmpdir x.XXXX -d)',
  ])('%s', (text) => expect(isFreshTempSubstitution(text)).toBe(true));

  it.each([
    '$(mktemp x.XXXX)', // GNU: in the current directory
    '$(mktemp -p /etc)',
    '$(mktemp --tmpdir=/etc)',
    '$(mktemp -u)',
    '$(mktemp -t ../x)',
    '$(mktemp -d; rm -rf ~)',
    '$( mktemp -d)',
    '`mktemp -d`',
    '$(TMPDIR=/etc mktemp -d)',
  ])('%s is not', (text) => expect(isFreshTempSubstitution(text)).toBe(false));
});

describe('parseFreshTemp / freshTempOf', () => {
  it.each([
    [m, { id: 7, rest: '' }],
    [`${m}/`, { id: 7, rest: '' }],
    [`${m}/a/b`, { id: 7, rest: 'a/b' }],
    [`${m}/a/../b`, { id: 7, rest: 'b' }],
    [`${m}/..`, undefined],
    [`${m}/a/../../x`, undefined],
    [`${m}x`, undefined],
    ['/tmp/x', undefined],
    ['/\u0000fresh-temp-', undefined],
  ])('%j', (path, expected) => expect(parseFreshTemp(path)).toEqual(expected));

  it('joins a relative path to a marker working directory', () => {
    expect(freshTempOf('a.txt', m)).toEqual({ id: 7, rest: 'a.txt' });
    expect(freshTempOf('../x', m)).toBeUndefined();
    expect(freshTempOf('~/x', m)).toBeUndefined();
    expect(freshTempOf('a.txt', 'src')).toBeUndefined();
  });

  it('a marker cannot be typed: it holds a NUL character, which no command can contain', () => {
    expect(m.includes('\u0000')).toBe(true);
  });
});

describe('mapFreshTemp', () => {
  it('puts the entry in the temp directory', () => {
    expect(mapFreshTemp(m, '/tmp')).toBe('/tmp/hookwise-fresh-temp-7');
    expect(mapFreshTemp(`${m}/a/b`, '/tmp')).toBe('/tmp/hookwise-fresh-temp-7/a/b');
    expect(mapFreshTemp(`${m}/../etc`, '/tmp')).toBeUndefined();
    expect(mapFreshTemp('/etc/passwd', '/tmp')).toBeUndefined();
  });
});
