import { describe, expect, it } from 'vitest';
import type { Verdict } from '../../src/core/decision.js';
import {
  overrideKey,
  overrideSubject,
  parseOverrideSubject,
  pathGlobSource,
  textGlobSource,
} from '../../src/memory/overrides.js';
import { appendRecords, type StoreScope } from '../../src/memory/store.js';
import type { Sanitized } from '../../src/sanitize/index.js';
import { makeProject, verdictOf, type TestProject } from '../support/project.js';
import { rememberCommand, targetOf } from '../support/memory.js';

function override(
  p: TestProject,
  tool: string,
  pattern: string | undefined,
  verdict: Verdict,
  options: { scope?: StoreScope; role?: string } = {},
): void {
  const target = targetOf(p, options.scope ?? 'user');
  appendRecords(target, [
    {
      key: overrideKey(tool, pattern),
      tool,
      subject: overrideSubject(tool, pattern) as Sanitized,
      role: options.role ?? 'coder',
      verdict,
      reason: 'test override' as Sanitized,
      tier: 'override',
      scope: target.scope,
      decided_by: 'human',
      ts: new Date().toISOString(),
    },
  ]);
}

describe('override patterns', () => {
  it('subjects round-trip: Tool and Tool(pattern)', () => {
    expect(parseOverrideSubject(overrideSubject('Bash', 'npm run *'))).toEqual({ tool: 'Bash', pattern: 'npm run *' });
    expect(parseOverrideSubject('WebFetch')).toEqual({ tool: 'WebFetch' });
    expect(parseOverrideSubject('not a subject!')).toBeUndefined();
  });

  it('text globs: * any text, ? one character, everything else literal; path globs: * within a directory, ** across', () => {
    const text = new RegExp(textGlobSource('npm run *'));
    expect(text.test('npm run build')).toBe(true);
    expect(text.test('npm run build && rm -rf /')).toBe(true); // a segment never contains another segment
    expect(text.test('npx run build')).toBe(false);
    expect(new RegExp(textGlobSource('a.b(c)')).test('a.b(c)')).toBe(true);
    expect(new RegExp(textGlobSource('a.b')).test('axb')).toBe(false);
    const path = new RegExp(pathGlobSource('docs/**/*.md'));
    expect(path.test('docs/a.md')).toBe(true);
    expect(path.test('docs/x/y/a.md')).toBe(true);
    expect(path.test('docs/a.txt')).toBe(false);
    expect(new RegExp(pathGlobSource('src/*.ts')).test('src/a/b.ts')).toBe(false);
  });
});

describe('override tiers', () => {
  it('a deny override applies before the policy tiers, even over what a pack allows', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    expect(verdictOf(await p.check(p.pre('Bash', { command: 'cat README.md' })))).toBe('allow');
    override(p, 'Bash', 'cat *', 'deny');
    expect((await p.check(p.pre('Bash', { command: 'cat README.md' }))).decision).toMatchObject({
      verdict: 'deny',
      tier: 'override',
    });
    // One matching segment tightens the whole command.
    expect((await p.check(p.pre('Bash', { command: 'ls && cat README.md' }))).decision).toMatchObject({
      verdict: 'deny',
      tier: 'override',
    });
  });

  it('an allow override decides what policy left open, and beats a remembered decision', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    await rememberCommand(p, 'make deploy-staging', 'ask');
    override(p, 'Bash', 'make deploy-*', 'allow');
    expect((await p.check(p.pre('Bash', { command: 'make deploy-staging' }))).decision).toMatchObject({
      verdict: 'allow',
      tier: 'override',
    });
    expect((await p.check(p.pre('Bash', { command: 'make deploy-prod' }))).decision).toMatchObject({
      verdict: 'allow',
      tier: 'override',
    });
    // Every segment must match an allow override.
    expect((await p.check(p.pre('Bash', { command: 'make deploy-prod && make clean-all' }))).decision?.tier).toBe(
      'default',
    );
  });

  it('an allow override never lifts a pack ask, a role deny_write or a sensitive path', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    override(p, 'Bash', 'git push *', 'allow');
    override(p, 'Write', '**', 'allow');
    expect((await p.check(p.pre('Bash', { command: 'git push --force origin main' }))).decision?.tier).not.toBe(
      'override',
    );
    expect(
      (await p.check(p.pre('Write', { file_path: `${p.root}/tests/a.test.ts`, content: '' }))).decision,
    ).toMatchObject({ verdict: 'deny', tier: 'path-policy' });
    expect((await p.check(p.pre('Write', { file_path: `${p.root}/.env`, content: '' }))).decision).toMatchObject({
      verdict: 'ask',
      tier: 'path-policy',
    });
    expect(
      (await p.check(p.pre('Write', { file_path: `${p.root}/notes/todo.txt`, content: '' }))).decision,
    ).toMatchObject({ verdict: 'allow', tier: 'override' });
  });

  it('file overrides match the root-relative path; tool-wide overrides match every call; roles are respected', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    p.register('s2', 'tester');
    override(p, 'Read', 'secrets/**', 'deny', { role: '*' });
    override(p, 'WebFetch', undefined, 'ask', { role: 'tester' });
    expect((await p.check(p.pre('Read', { file_path: `${p.root}/secrets/keys.txt` }))).decision).toMatchObject({
      verdict: 'deny',
      tier: 'override',
    });
    expect((await p.check(p.pre('Read', { file_path: `${p.root}/src/keys.ts` }))).decision?.tier).not.toBe('override');
    expect(
      (await p.check(p.pre('WebFetch', { url: 'https://example.com', prompt: 'x' }, 's2'))).decision,
    ).toMatchObject({ verdict: 'ask', tier: 'override' });
    expect(
      (await p.check(p.pre('WebFetch', { url: 'https://example.com', prompt: 'x' }, 's1'))).decision?.tier,
    ).not.toBe('override');
  });

  it('a project-scope allow override cannot weaken a user-scope deny override', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    override(p, 'Bash', 'make deploy-*', 'deny', { scope: 'user' });
    override(p, 'Bash', 'make deploy-*', 'allow', { scope: 'project' });
    expect((await p.check(p.pre('Bash', { command: 'make deploy-prod' }))).decision).toMatchObject({
      verdict: 'deny',
      tier: 'override',
    });
  });
});
