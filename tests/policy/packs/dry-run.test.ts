import { describe, expect, it } from 'vitest';
import { dryRun } from '../../../src/policy/packs/dry-run.js';
import { readOnlyPack } from '../../../src/policy/packs/read-only.js';
import { expectPack } from '../../support/packs.js';
import { seg } from '../../support/segments.js';

// The dry runs of rsync, kubectl, helm, terraform, aws, az, apt, pip and npm are catalogue entries: their cases are
// in tests/catalog/cases/<program>.txt, and read-only.test.ts checks that they reach the pack as `dry-run`.
describe('dry runs a program documents as changing nothing', () => {
  it.each([
    ['git add -n .'],
    ['git add --dry-run -A'],
    ['git rm -r -n build'],
    ['git mv -n a b'],
    ['git clean -n'],
    ['git clean -nd -x'],
    ['git push --dry-run origin feature/x'],
    ['git push -n'],
    ['git fetch --dry-run'],
    ['git commit --dry-run'],
    ['cargo publish --dry-run'],
    ['make -n'],
    ['make -n build test'],
    ['make --dry-run -j4 all'],
    ['terragrunt run-all plan'],
    ['pulumi preview'],
    ['patch --dry-run -p1 < fix.patch'],
  ])('%s', (command) => {
    expect(dryRun(seg(command))).toBeDefined();
    expectPack(readOnlyPack, command, 'allow dry-run');
  });

  it.each([
    // no dry-run flag, or one that means something else for this program
    ['git commit -n -m x'], // commit -n is --no-verify
    ['git clean -f'],
    ['cp -n a b'],
    ['mv -n a b'],
    ['rm -rf build'],
    // not truly no-write, or running programs
    ['git clean -fdn'],
    ['git clean -n -i'],
    ['git push --dry-run --receive-pack=/tmp/x origin'],
    ['git -c core.sshCommand=/tmp/x push --dry-run'],
    ["git fetch --dry-run 'ext::sh -c x'"],
    ['npm install --dry-run=false'],
    ['npm publish --dry-run --script-shell=/tmp/sh'],
    ['make -n deploy'],
    ['make -n install'],
    ['make -n -f /tmp/evil.mk'],
    ['make -n SHELL=/tmp/sh'],
    ['ansible-playbook site.yml --check'],
    ['patch -p1 < fix.patch'],
    ['npm install --dry-run $PKG'],
  ])('%s → not a dry run', (command) => {
    expect(dryRun(seg(command))).toBeUndefined();
  });
});

describe('dry runs that are catalogue entries reach the read-only pack as dry-run', () => {
  it.each([
    ['npm install --dry-run'],
    ['npm ci --dry-run'],
    ['npm install --dry-run express'],
    ['npm publish --dry-run'],
    ['npm pack --dry-run'],
    ['pip install --dry-run --only-binary=:all: requests'],
  ])('%s', (command) => expectPack(readOnlyPack, command, 'allow dry-run'));

  it.each([
    ['npm install --dry-run=false'],
    ['npm publish --dry-run --script-shell=/tmp/sh'],
    ['npm install --dry-run $PKG'],
    ['npm install express'],
    ['pip install --dry-run requests'],
  ])('%s → not vouched for', (command) => expectPack(readOnlyPack, command, null));
});
