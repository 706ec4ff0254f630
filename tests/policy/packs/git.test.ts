import { describe, expect, it } from 'vitest';
import { branchGlobMatches, gitPack } from '../../../src/policy/packs/git.js';
import { expectPack } from '../../support/packs.js';

const expectGit = (command: string, expected: string | null, overrides = {}) =>
  expectPack(gitPack, command, expected, overrides);

describe('git pack: pushes', () => {
  it.each([
    ['git push -f origin main', 'deny force-push-protected'],
    ['git push --force origin master', 'deny force-push-protected'],
    ['git push origin +main', 'deny force-push-protected'],
    ['git push origin +HEAD:main', 'deny force-push-protected'],
    ['git push --force-with-lease origin main', 'deny force-push-protected'],
    ['git push --force-with-lease=main:abc123 origin main', 'deny force-push-protected'],
    ['git -C repo push -f origin main', 'deny force-push-protected'],
    ['git -c push.default=current push --force origin refs/heads/main', 'deny force-push-protected'],
    ['git push -uf origin release/2.0', 'deny force-push-protected'],
    ['git push -f origin feature:production', 'deny force-push-protected'],
    ['git push --force --all', 'deny force-push-protected'],
    ['git push --mirror', 'deny mirror-push'],
    ['git push --mirror git@example.com:backup.git', 'deny mirror-push'],
    ['git push origin --delete main', 'deny delete-protected'],
    ['git push origin :master', 'deny delete-protected'],
    ['git push -d origin release-1', 'deny delete-protected'],
  ])('%s → %s', (command, expected) => expectGit(command, expected));

  it.each([
    ['git push -f origin feature/login', 'ask force-push'],
    ['git push origin +wip', 'ask force-push'],
    ['git push --force-with-lease', 'ask force-push'], // current branch: unknown here
    ['git push -f', 'ask force-push'],
    ['git push -f origin HEAD', 'ask force-push'],
    ['git push origin --delete old-feature', 'ask delete-remote-branch'],
    ['git push origin :old-feature', 'ask delete-remote-branch'],
    ['git push --prune origin', 'ask delete-remote-branch'],
  ])('%s → %s', (command, expected) => expectGit(command, expected));

  it.each([
    ['git push origin main', null],
    ['git push', null],
    ['git push -u origin feature/x', null],
    ['git push origin v1.2.3', null],
    ['git push origin HEAD:refs/for/main', null], // gerrit review ref, not the branch
    ['git pull --force', null],
    ['git commit -m "git push --force origin main"', null],
    ['echo git push -f origin main', null],
    ['grep -- "--force" deploy.sh', null],
  ])('not a rewrite: %s', (command, expected) => expectGit(command, expected));

  it('protected branches are configurable', () => {
    const isProtectedBranch = (b: string) => b === 'develop' || branchGlobMatches('hotfix/*', b);
    expectGit('git push -f origin develop', 'deny force-push-protected', { isProtectedBranch });
    expectGit('git push -f origin hotfix/login', 'deny force-push-protected', { isProtectedBranch });
    expectGit('git push -f origin main', 'ask force-push', { isProtectedBranch });
  });
});

describe('git pack: local history and work', () => {
  it.each([
    ['git reset --hard', 'ask reset-hard'],
    ['git reset --hard HEAD~3', 'ask reset-hard'],
    ['git reset --soft HEAD~1', null],
    ['git reset HEAD file.ts', null],
    ['git clean -fdx', 'deny clean-ignored'],
    ['git clean -f -d -X', 'deny clean-ignored'],
    ['git clean -fd', 'ask clean-untracked'],
    ['git clean -n -fdx', null],
    ['git clean --dry-run -x', null],
    ['git checkout -- .', 'ask discard-changes'],
    ['git checkout .', 'ask discard-changes'],
    ['git checkout HEAD -- :/', 'ask discard-changes'],
    ['git checkout -f main', 'ask discard-changes'],
    ['git checkout main', null],
    ['git checkout -b feature/x', null],
    ['git checkout -- src/a.ts', null], // one path: the write-target tier's job
    ['git restore .', 'ask discard-changes'],
    ['git restore --worktree --staged .', 'ask discard-changes'],
    ['git restore --staged .', null],
    ['git restore src/a.ts', null],
    ['git branch -D feature/x', 'ask branch-force-delete'],
    ['git branch --delete --force old', 'ask branch-force-delete'],
    ['git branch -df old', 'ask branch-force-delete'],
    ['git branch -d merged', null],
    ['git branch', null],
    ['git stash drop', 'ask stash-discard'],
    ['git stash clear', 'ask stash-discard'],
    ['git stash', null],
    ['git stash pop', null],
    ['git filter-repo --path secrets --invert-paths', 'deny history-rewrite'],
    ['git filter-branch --tree-filter "rm -f x" HEAD', 'deny history-rewrite'],
    ['git-filter-repo --analyze', 'deny history-rewrite'],
    ['git update-ref -d refs/heads/old', 'ask update-ref-delete'],
    ['git update-ref refs/heads/x abc123', null],
    ['git reflog expire --expire=now --all', 'ask prune-unreachable'],
    ['git gc --prune=now', 'ask prune-unreachable'],
    ['git gc', null],
    ['git reflog', null],
  ])('%s → %s', (command, expected) => expectGit(command, expected));
});

describe('branch globs', () => {
  it.each([
    ['release*', 'release', true],
    ['release*', 'release/2.0', true],
    ['release*', 'prerelease', false],
    ['*-stable', '1.2-stable', true],
    ['a*b*c', 'axxbyyc', true],
    ['a*b*c', 'acb', false],
    ['main', 'main', true],
    ['main', 'mainline', false],
  ])('%s ~ %s → %s', (glob, branch, expected) => {
    expect(branchGlobMatches(glob, branch)).toBe(expected);
  });
});
