/** Remembering a queue answer (src/queue/remember.ts): once, where told, and as a review of the supervisor's answer. */
import { describe, expect, it } from 'vitest';
import { readSupervisorReviews } from '../../src/audit/supervisor-log.js';
import { adapterFor } from '../../src/hosts/index.js';
import { loadScope } from '../../src/memory/store.js';
import { rememberHumanAnswer } from '../../src/queue/remember.js';
import type { HumanAnswered } from '../../src/queue/tier.js';
import { ensurePrivateDir } from '../../src/util/fs-safe.js';
import { locations } from '../../src/util/locations.js';
import type { MemorySettings } from '../../src/policy/config-types.js';
import { makeProject, type TestProject } from '../support/project.js';
import { subjectFor, targetOf } from '../support/memory.js';

const SETTINGS: MemorySettings = { learn: true, learnScope: 'user', jaccardThreshold: 0.7, source: 'built-in' };

async function inputs(p: TestProject, command: string) {
  const event = adapterFor('claude').parse(p.pre('Bash', { command }));
  if (event.kind !== 'pre-tool') throw new Error('not a pre-tool event');
  const { subject, key } = await subjectFor(p, 'Bash', { command });
  return {
    call: event.call,
    memo: { subject: () => subject, key: () => key },
    places: { projectRoot: p.root, where: locations(p.env) },
  };
}

const approve = (over: Partial<HumanAnswered> = {}): HumanAnswered => ({
  id: 'abcdefghij',
  first: true,
  rememberable: true,
  answer: { verdict: 'approve', alwaysAsk: false, addRule: false, via: 'cli' },
  ...over,
});

describe('remembering a queue answer', () => {
  it('only the first call remembers; a policy ask is not remembered; learning off keeps nothing', async () => {
    const p = makeProject();
    const { call, memo, places } = await inputs(p, 'make deploy');
    expect(rememberHumanAnswer(approve({ first: false }), memo, call, [], 'coder', SETTINGS, places)).toBeUndefined();
    expect(
      rememberHumanAnswer(approve({ rememberable: false }), memo, call, [], 'coder', SETTINGS, places),
    ).toBeUndefined();
    expect(
      rememberHumanAnswer(
        approve(),
        memo,
        call,
        [],
        'coder',
        { ...SETTINGS, learn: false, source: 'policy.yml' },
        places,
      ),
    ).toBe('not remembered: memory.learn is off (policy.yml)');
    expect(loadScope(targetOf(p, 'user')).records).toEqual([]);
    expect(rememberHumanAnswer(approve(), memo, call, [], 'coder', SETTINGS, places)).toBe(
      'remembered as allow for this exact call in the user scope',
    );
    expect(loadScope(targetOf(p, 'user')).records).toEqual([
      expect.objectContaining({ verdict: 'allow', decided_by: 'human', tier: 'human' }),
    ]);
  });

  it('--add-rule on a command with several segments is remembered for the exact call, and says so', async () => {
    const p = makeProject();
    const { call, memo, places } = await inputs(p, 'make build && make deploy');
    const note = rememberHumanAnswer(
      approve({ answer: { verdict: 'deny', alwaysAsk: false, addRule: true, via: 'cli' } }),
      memo,
      call,
      [],
      'coder',
      SETTINGS,
      places,
    );
    expect(note).toMatch(
      /^remembered as deny for this exact call in the user scope \(no exact override pattern names this call/,
    );
  });

  it("a human's answer to a call the supervisor answered is logged as a review (override when they differ), once", async () => {
    const p = makeProject();
    ensurePrivateDir(p.runtimeDir); // the engine makes it before any call
    const { call, memo, places } = await inputs(p, 'make deploy');
    const supervision = { decision: 'allow' as const, confidence: 0.6, by: 'supervisor', decided: false };
    rememberHumanAnswer(
      approve({ supervision, answer: { verdict: 'deny', alwaysAsk: false, addRule: false, via: 'web' } }),
      memo,
      call,
      [],
      'coder',
      SETTINGS,
      places,
    );
    rememberHumanAnswer(approve({ supervision, first: false }), memo, call, [], 'coder', SETTINGS, places);
    const { records } = readSupervisorReviews(p.runtimeDir);
    expect(records).toEqual([
      expect.objectContaining({
        channel: 'queue',
        human: 'deny',
        override: true,
        subject: 'make deploy',
        supervisor: supervision,
      }),
    ]);
  });
});
