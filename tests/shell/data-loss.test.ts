/** data-loss: which segments delete or overwrite (path policy never auto-allows those). */
import { describe, expect, it } from 'vitest';
import { regenerable, segmentLosesData } from '../../src/shell/data-loss.js';
import { parseCommand } from '../../src/shell/parse.js';
import type { PreparedShell } from '../../src/shell/prepare.js';
import { writeTargets } from '../../src/shell/writes.js';

/** Which segments (by their argv) lose data; `existing` paths exist now. */
function lossy(command: string, existing: readonly string[] = []): string[] {
  const parse = parseCommand(command);
  expect(parse.ok).toBe(true);
  const writes = writeTargets(parse.segments);
  const shell = {
    command,
    parse,
    writes,
    targets: [],
    exists: writes.targets.map((t) => existing.includes(t.path)),
  } as unknown as PreparedShell;
  return parse.segments.flatMap((s, i) => (segmentLosesData(shell, i) ? [s.argv.join(' ')] : []));
}

describe('git stash', () => {
  it.each([
    ['git stash', []],
    ['git stash push -m wip src/a.ts', []],
    ['git stash save wip', []],
    ['git stash pop', ['git stash pop']],
    ['git stash apply stash@{1}', ['git stash apply stash@{1}']],
  ])('%j', (command, expected) => expect(lossy(command)).toEqual(expected));
});

describe('a fresh $(mktemp) entry', () => {
  it.each([
    ['d=$(mktemp -d) && rm -rf "$d"', []],
    ['d=$(mktemp -d) && rm -rf "$d/"', []],
    ['t=$(mktemp) && echo x > "$t" && rm -f "$t"', []],
    ['d=$(mktemp -d) && cp -r src "$d" && rm -rf "$d"', []],
    ['d=$(mktemp -d) && cd "$d" && touch a && rm -rf .', []],
  ])('%j: deleting it loses nothing', (command, expected) => {
    expect(lossy(command).filter((s) => s.startsWith('rm'))).toEqual(expected);
  });

  it.each([
    // something of the project's moved or linked in first goes with it
    ['d=$(mktemp -d) && mv src/a.ts "$d" && rm -rf "$d"'],
    ['d=$(mktemp -d) && ln -s ~ "$d/h" && rm -rf "$d"'],
    ['d=$(mktemp -d) && rsync -a --remove-source-files src/ "$d" && rm -rf "$d"'],
    ['d=$(mktemp -d) && cd "$d" && mv ~/notes . && rm -rf "$d"'],
    // a write hookwise cannot place might have done the same
    ['d=$(mktemp -d) && xargs mv -t "$d" < list && rm -rf "$d"'],
    // a path inside it is not known to be the command's own
    ['d=$(mktemp -d) && rm -rf "$d/sub"'],
  ])('%j: deleting it is a deletion', (command) => {
    expect(lossy(command).some((s) => s.startsWith('rm'))).toBe(true);
  });
});

describe('everything else as before', () => {
  it.each([
    ['rm a', ['rm a']],
    ['touch a', []],
    ['echo x > a', ['echo x']],
    ['echo x >> a', []],
  ])('%j (a exists)', (command, expected) => expect(lossy(command, ['a'])).toEqual(expected));
});

describe('regenerable build outputs', () => {
  it.each([
    ['dist', true],
    ['node_modules/.cache', true],
    ['packages/a/dist/index.js', true],
    ['pkg.egg-info', true],
    ['src', false],
    ['', false],
    ['dist/../src', false],
  ] as const)('%s → %s', (relative, expected) => {
    expect(regenerable(relative)).toBe(expected);
  });

  it('a path outside the project is never regenerable', () => {
    expect(regenerable(null)).toBe(false);
  });
});
