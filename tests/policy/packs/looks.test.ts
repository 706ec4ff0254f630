import { describe, expect, it } from 'vitest';
import { sedScriptPrintsOnly } from '../../../src/catalog/code-checks.js';
import { readOnlyPack } from '../../../src/policy/packs/read-only.js';
import { expectPack } from '../../support/packs.js';

const expectRo = (command: string, expected: string | null) => expectPack(readOnlyPack, command, expected);

describe('sed that only prints', () => {
  it.each([
    ["sed -n '1,50p' src/index.ts"],
    ["sed -n '/function main/,/^}/p' src/main.ts"],
    ["sed 's/foo/bar/g' README.md"],
    ["sed -E 's|a/b|c|2; s/x/y/I' notes.txt"],
    ["sed -n -e '10p' -e '$p' a.txt"],
    ["sed '$!N;/^\\(.*\\)\\n\\1$/!P;D' a.txt"],
    ["sed -n '/start/,/end/{/x/p;}' a.txt"],
    ["sed 's/[/]/_/g' paths.txt"],
    ["sed '1i header' a.txt"],
    ["sed -n '0~4p' a.txt"],
  ])('%s → read-file', (command) => expectRo(command, 'allow read-file'));

  it.each([
    ["sed -i 's/a/b/' a.txt"],
    ["sed -ni 's/a/b/p' a.txt"],
    ["sed -i.bak 's/a/b/' a.txt"],
    ["sed --in-place 's/a/b/' a.txt"],
    ['sed -f script.sed a.txt'],
    ["sed '1w out.txt' a.txt"],
    ["sed -n 'W out' a.txt"],
    ["sed 's/a/b/w out.txt' a.txt"],
    ["sed 's/a/b/e' a.txt"],
    ["sed 's/a/b/gw out' a.txt"],
    ["sed '1e id' a.txt"],
    ["sed 'e id' a.txt"],
    ["sed 'r /etc/shadow' a.txt"],
    ["sed '1R .env' a.txt"],
    ["sed -n '1p' .env"],
    ['sed -n "$X" a.txt'],
    ["sed -n '1p' $FILE"],
    ["sed 's/[/]/x/;w out' a.txt"],
    ["sed -n '/a/{p' a.txt"],
  ])('%s → not vouched for', (command) => expectRo(command, null));

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

describe('package queries and system listings', () => {
  it.each([
    ['npm ls', 'allow package-query'],
    ['npm outdated', 'allow package-query'],
    ['npm info my-package', 'allow package-query'],
    ['npm audit', 'allow package-query'],
    ['pnpm why react', 'allow package-query'],
    ['yarn npm info my-package', 'allow package-query'],
    ['pgrep -f node', 'allow inspect'],
    ['lsof -i :3000', 'allow inspect'],
    ['crontab -l', 'allow inspect'],
    ['ssh-add -l', 'allow inspect'],
    ['iptables -L -n', 'allow inspect'],
    ['iptables -t nat -L', 'allow inspect'],
  ])('%s → %s', (command, expected) => expectRo(command, expected));

  it.each([
    ['npm audit fix'],
    ['npm audit --fix'],
    ['npm config get //registry.npmjs.org/:_authToken'],
    ['crontab -r'],
    ['ssh-add -D'],
    ['iptables -F'],
    ['iptables -L -F'],
    ['iptables -t nat -F'],
    ['fdisk -l /dev/sda'],
  ])('%s → not vouched for', (command) => expectRo(command, null));
});
