import { describe, expect, it } from 'vitest';
import type { Verdict } from '../../src/core/decision.js';
import type { StoreScope } from '../../src/memory/store.js';
import { mergeScopes } from '../../src/policy/scopes.js';
import { makeProject } from '../support/project.js';
import { rememberSubject, subjectFor } from '../support/memory.js';

const e = (
  scope: StoreScope,
  verdict: Verdict,
  ts = '2026-01-01T00:00:00.000Z',
): { scope: StoreScope; verdict: Verdict; ts: string } => ({ scope, verdict, ts });

describe('scope precedence: DENY > ASK > ALLOW across scopes', () => {
  it('the strictest verdict wins, whichever scope it comes from', () => {
    expect(mergeScopes([e('org', 'allow'), e('project', 'deny')])?.verdict).toBe('deny');
    expect(mergeScopes([e('user', 'allow'), e('session', 'ask')])?.verdict).toBe('ask');
    expect(mergeScopes([e('project', 'ask'), e('org', 'deny'), e('user', 'allow')])?.verdict).toBe('deny');
    expect(mergeScopes([])).toBeUndefined();
  });

  it('among equally strict entries the most authoritative scope is reported (org, user, project, session), then the newest', () => {
    expect(mergeScopes([e('session', 'ask'), e('project', 'ask'), e('user', 'ask'), e('org', 'ask')])?.scope).toBe(
      'org',
    );
    expect(
      mergeScopes([
        e('project', 'allow', '2026-01-01T00:00:00.000Z'),
        e('project', 'allow', '2026-02-01T00:00:00.000Z'),
      ])?.ts,
    ).toBe('2026-02-01T00:00:00.000Z');
  });

  // The table a check must follow: [description, entries by scope, effective verdict].
  const TABLE: [string, Partial<Record<StoreScope, Verdict>>, Verdict | 'none'][] = [
    ['user allow alone', { user: 'allow' }, 'allow'],
    ['project allow alone (shared through git)', { project: 'allow' }, 'allow'],
    ['repo cannot weaken a user deny', { user: 'deny', project: 'allow' }, 'deny'],
    ['repo cannot weaken a user ask', { user: 'ask', project: 'allow' }, 'ask'],
    ['repo cannot weaken an org deny', { org: 'deny', project: 'allow' }, 'deny'],
    ['repo cannot weaken an org ask', { org: 'ask', project: 'allow' }, 'ask'],
    ['a project ask holds against a user allow', { user: 'allow', project: 'ask' }, 'ask'],
    ['a project deny holds against an org allow', { org: 'allow', project: 'deny' }, 'deny'],
    ['a session allow cannot beat a project deny', { session: 'allow', project: 'deny' }, 'deny'],
    ['a session ask tightens everything', { session: 'ask', user: 'allow', org: 'allow', project: 'allow' }, 'ask'],
    ['deny beats ask', { org: 'ask', user: 'deny' }, 'deny'],
  ];

  for (const [name, entries, expected] of TABLE) {
    it(`end to end through check: ${name} → ${expected}`, async () => {
      const p = makeProject();
      p.register('s1', 'coder');
      const s = await subjectFor(p, 'Bash', { command: 'make publish-docs --jobs 4' });
      for (const [scope, verdict] of Object.entries(entries) as [StoreScope, Verdict][])
        rememberSubject(p, s, verdict, { scope });
      const r = await p.check(p.pre('Bash', { command: 'make publish-docs --jobs 4' }));
      expect(r.decision).toMatchObject({ verdict: expected, tier: 'exact-cache' });
    });
  }

  it('a role-specific allow does not beat an ask for every role (`*`)', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    const s = await subjectFor(p, 'Bash', { command: 'make publish-docs --jobs 4' });
    rememberSubject(p, s, 'ask', { scope: 'project', role: '*' });
    rememberSubject(p, s, 'allow', { scope: 'user', role: 'coder' });
    expect((await p.check(p.pre('Bash', { command: 'make publish-docs --jobs 4' }))).decision).toMatchObject({
      verdict: 'ask',
      tier: 'exact-cache',
    });
  });

  it('within one scope the newest decision wins (a human changing their mind)', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    const s = await subjectFor(p, 'Bash', { command: 'make publish-docs --jobs 4' });
    rememberSubject(p, s, 'deny');
    rememberSubject(p, s, 'allow');
    expect((await p.check(p.pre('Bash', { command: 'make publish-docs --jobs 4' }))).decision).toMatchObject({
      verdict: 'allow',
      tier: 'exact-cache',
    });
  });
});
