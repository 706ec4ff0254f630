import { appendFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { makeProject, verdictOf } from '../support/project.js';
import { rememberCommand, rememberSubject, subjectFor } from '../support/memory.js';
import { loadScope } from '../../src/memory/store.js';
import { targetOf } from '../support/memory.js';

const bash = (command: string): Record<string, unknown> => ({ command });

describe('tier 1: exact decision cache', () => {
  it('tri-state: a remembered allow allows, deny denies, ask asks — each from the exact-cache tier', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    await rememberCommand(p, 'make deploy-staging --jobs 4', 'allow');
    await rememberCommand(p, 'make release-prod --jobs 4', 'deny');
    await rememberCommand(p, 'make migrate-db --jobs 4', 'ask');
    for (const [command, verdict] of [
      ['make deploy-staging --jobs 4', 'allow'],
      ['make release-prod --jobs 4', 'deny'],
      ['make migrate-db --jobs 4', 'ask'],
    ] as const) {
      const r = await p.check(p.pre('Bash', bash(command)));
      expect(r.decision).toMatchObject({ verdict, tier: 'exact-cache' });
      expect(r.decision?.rule?.source).toMatch(/rules\.jsonl:\d+$/);
    }
  });

  it('an ask hit goes straight to the human: no similarity tier is consulted, even with a near-identical allow', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    await rememberCommand(p, 'make migrate-db --jobs 4', 'ask');
    await rememberCommand(p, 'make migrate-db --jobs 4 --verbose', 'allow');
    const r = await p.check(p.pre('Bash', bash('make migrate-db --jobs 4')));
    expect(r.decision).toMatchObject({ verdict: 'ask', tier: 'exact-cache' });
  });

  it('the key is the parsed command with canonical write targets, never the raw string', async () => {
    const p = makeProject();
    const plain = await subjectFor(p, 'Bash', bash('git status'));
    const redirected = await subjectFor(p, 'Bash', bash('git status > ~/.bashrc'));
    expect(redirected.key).not.toBe(plain.key);
    expect(redirected.subject.writes).toEqual([`${p.home}/.bashrc`]);
    // Spelling that does not change what runs does not change the key.
    expect((await subjectFor(p, 'Bash', bash("git   'status'"))).key).toBe(plain.key);
    // A wrapper does change what runs.
    expect((await subjectFor(p, 'Bash', bash('sudo git status'))).key).not.toBe(plain.key);
    // The same relative write from another directory is another file.
    p.write('sub/.keep', '');
    const here = await subjectFor(p, 'Bash', bash('sort a.txt -o out.txt'));
    const there = await subjectFor(p, 'Bash', bash('sort a.txt -o out.txt'), `${p.root}/sub`);
    expect(there.key).not.toBe(here.key);
  });

  it('a remembered allow for `git status` does not let `git status > ~/.bashrc` through', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    await rememberCommand(p, 'git status --short --branch', 'allow');
    const r = await p.check(p.pre('Bash', bash('git status --short --branch > ~/.bashrc')));
    expect(verdictOf(r)).toBe('ask');
    expect(r.decision?.tier).not.toBe('exact-cache');
  });

  it('entries are per role; `*` applies to every role', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    p.register('s2', 'tester');
    await rememberCommand(p, 'make bench --jobs 2', 'allow', { role: 'tester' });
    await rememberCommand(p, 'make docs --jobs 2', 'allow', { role: '*' });
    expect((await p.check(p.pre('Bash', bash('make bench --jobs 2'), 's1'))).decision?.tier).toBe('default');
    expect((await p.check(p.pre('Bash', bash('make bench --jobs 2'), 's2'))).decision).toMatchObject({
      verdict: 'allow',
      tier: 'exact-cache',
    });
    expect((await p.check(p.pre('Bash', bash('make docs --jobs 2'), 's1'))).decision).toMatchObject({
      verdict: 'allow',
      tier: 'exact-cache',
    });
  });

  it('file tools are remembered by path and change, never by content', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    const a = await subjectFor(p, 'Write', { file_path: `${p.root}/notes/plan.txt`, content: 'one' });
    const b = await subjectFor(p, 'Write', { file_path: `${p.root}/notes/plan.txt`, content: 'two' });
    expect(b.key).toBe(a.key);
    expect(a.subject.text).toBe(`write ${p.root}/notes/plan.txt`);
    rememberSubject(p, a, 'allow');
    const r = await p.check(p.pre('Write', { file_path: `${p.root}/notes/plan.txt`, content: 'three' }));
    expect(r.decision).toMatchObject({ verdict: 'allow', tier: 'exact-cache' });
  });

  it('a secret never reaches the key or the store: calls differing only in a secret share a key', async () => {
    const p = makeProject();
    const secretA = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';
    const secretB = 'ghp_' + 'Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2';
    const a = await subjectFor(
      p,
      'Bash',
      bash(`curl -H "Authorization: token ${secretA}" https://api.github.com/user`),
    );
    const b = await subjectFor(
      p,
      'Bash',
      bash(`curl -H "Authorization: token ${secretB}" https://api.github.com/user`),
    );
    expect(a.subject.text).toContain('<REDACTED>');
    expect(a.subject.text).not.toContain(secretA);
    expect(b.key).toBe(a.key);
    rememberSubject(p, a, 'allow');
    const stored = loadScope(targetOf(p, 'user')).records;
    expect(JSON.stringify(stored)).not.toContain(secretA);
  });

  it('WebFetch is remembered by URL; the prompt varies and does not matter', async () => {
    const p = makeProject();
    const a = await subjectFor(p, 'WebFetch', { url: 'https://docs.example.com/api', prompt: 'summarize' });
    const b = await subjectFor(p, 'WebFetch', { url: 'https://docs.example.com/api', prompt: 'list the endpoints' });
    expect(b.key).toBe(a.key);
  });

  it('a corrupt line costs that line only: the rest still decides, and check names file:line on stderr (sanitized)', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    await rememberCommand(p, 'make deploy-staging --jobs 4', 'allow');
    const file = `${p.configDir}/user/rules.jsonl`;
    const secret = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';
    appendFileSync(file, `{"key": "torn", "subject": "curl -H 'token ${secret}'\n`);
    await rememberCommand(p, 'make release-prod --jobs 4', 'deny');
    const r = await p.check(p.pre('Bash', bash('make deploy-staging --jobs 4')));
    expect(r.decision).toMatchObject({ verdict: 'allow', tier: 'exact-cache' });
    expect((await p.check(p.pre('Bash', bash('make release-prod --jobs 4')))).decision).toMatchObject({
      verdict: 'deny',
      tier: 'exact-cache',
    });
    expect(r.stderr).toMatch(/rules\.jsonl:2: /);
    expect(r.stderr).not.toContain(secret);
  });
});
