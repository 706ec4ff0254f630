import { describe, expect, it } from 'vitest';
import { awkPrintsOnly, jqPure, sedScriptPrintsOnly, yqPure } from '../../src/catalog/code-checks.js';

describe('awkPrintsOnly', () => {
  it.each([
    ['{print $1}', true],
    ['$3 > 1000 {print $1}', true],
    ['/a|b/ {n++} END {print n}', true],
    ['{ if ($2 >= 5) print $1 }', true],
    ['{print $1 " > " $2}', true],
    ['BEGIN{system("id")}', false],
    ['{print > "out"}', false],
    ['{printf "%s", $0 > "/etc/x"}', false],
    ['{print | "sh"}', false],
    ['{"date" | getline d; print d}', false],
    ['@include "x"', false],
    ['{print "unterminated}', false],
  ])('%s → %s', (program, expected) => expect(awkPrintsOnly(program)).toBe(expected));
});

describe('jqPure / yqPure', () => {
  it('jq without import/include', () => {
    expect(jqPure('.a | map(.b)')).toBe(true);
    expect(jqPure('import "x" as $x; $x')).toBe(false);
    expect(jqPure('include "m"; .')).toBe(false);
  });
  it('jq that does not read the environment (it holds tokens)', () => {
    expect(jqPure('env')).toBe(false);
    expect(jqPure('$ENV.GH_TOKEN')).toBe(false);
    expect(jqPure('env | keys')).toBe(false);
    expect(jqPure('.spec.env')).toBe(true);
    expect(jqPure('.[] | .env.NAME')).toBe(true);
  });
  it('yq without load*', () => {
    expect(yqPure('.a.b')).toBe(true);
    expect(yqPure('load("/etc/shadow")')).toBe(false);
    expect(yqPure('.a = load_str("x")')).toBe(false);
  });
});

describe('sedScriptPrintsOnly', () => {
  it.each([
    ['p', true],
    ['1d;$d', true],
    ['y/abc/xyz/', true],
    ['s/a/b/;s/c/d/', true],
    ['s/a\\/b/c/', true],
    ['/x/I,+3p', true],
    ['\\%x%p', true],
    [':a;N;$!ba;s/\\n/ /g', true],
    ['1i\\\nheader; w x\n2p', true], // a/i/c text runs to the end of the line, continued by a backslash
    ['1a text\nw out', false],
    ['s/a/b/ w x', false],
    ['s/a', false],
    ['v', false],
    ['}', false],
  ])('%j → %s', (script, expected) => expect(sedScriptPrintsOnly(script)).toBe(expected));
});
