/** The modules' pure state machines: breaker counting, trip, reset; prompt commands. */
import { describe, expect, it } from 'vitest';
import {
  breakerFailure,
  breakerReset,
  breakerSuccess,
  breakerSuccessBefore,
  delegationCount,
  delegationReset,
  delegationWork,
  INITIAL_STATE,
  MAX_DELEGATION_CALLS,
  MAX_RUN_FAILURES,
  promptCommand,
} from '../../src/modules/machine.js';

describe('circuit breaker state machine', () => {
  it('trips on the threshold-th consecutive failure', () => {
    let s = breakerFailure(INITIAL_STATE, 'other', 3);
    s = breakerFailure(s, 'syntax-error', 3);
    expect(s.breaker.tripped).toBeUndefined();
    s = breakerFailure(s, 'permission-denied', 3);
    expect(s.breaker.tripped).toMatch(/3 consecutive tool failures/);
  });

  it('a success resets the run, not the signature counts: the same error 3 times trips across successes', () => {
    let s = INITIAL_STATE;
    for (let i = 0; i < 2; i++) s = breakerSuccess(breakerFailure(s, 'test-failure', 3));
    expect(s.breaker).toMatchObject({ consecutive: 0, signatures: { 'test-failure': 2 } });
    expect(s.breaker.tripped).toBeUndefined();
    s = breakerFailure(s, 'test-failure', 3);
    expect(s.breaker.tripped).toMatch(/same error \(test-failure\) 3 times/);
  });

  it('stays tripped through successes until reset', () => {
    let s = breakerFailure(breakerFailure(INITIAL_STATE, 'other', 2), 'other', 2);
    s = breakerSuccess(s);
    expect(s.breaker.tripped).toBeDefined();
    expect(breakerReset(s).breaker).toEqual({ consecutive: 0, signatures: {} });
  });

  it('keeps the ids of the run’s failures (the last MAX_RUN_FAILURES); one without an id empties the list', () => {
    let s = INITIAL_STATE;
    for (let i = 0; i < MAX_RUN_FAILURES + 3; i++) s = breakerFailure(s, 'other', 1000, `f${i}`);
    expect(s.breaker.consecutive).toBe(MAX_RUN_FAILURES + 3);
    expect(s.breaker.failures).toHaveLength(MAX_RUN_FAILURES);
    expect(s.breaker.failures?.[0]).toBe('f3');
    s = breakerFailure(s, 'other', 1000);
    expect(s.breaker.failures).toBeUndefined();
    expect(breakerSuccess(breakerFailure(s, 'other', 1000, 'g')).breaker.failures).toBeUndefined();
  });

  it.each<[string, string[], number, string[] | undefined]>([
    ['after every failure: the run ends', [], 0, undefined],
    ['between failures: those made after it stay counted', ['c'], 1, ['c']],
    ['before every failure: nothing changes', ['a', 'b', 'c'], 3, ['a', 'b', 'c']],
  ])('a success placed %s', (_where, madeAfter, consecutive, failures) => {
    let s = INITIAL_STATE;
    for (const id of ['a', 'b', 'c']) s = breakerFailure(s, 'other', 5, id);
    const next = breakerSuccessBefore(s, new Set(madeAfter));
    expect(next.breaker.consecutive).toBe(consecutive);
    expect(next.breaker.failures).toEqual(failures);
    expect(next.breaker.signatures).toEqual({ other: 3 });
  });

  it('a success placed in a run keeps a tripped breaker tripped', () => {
    let s = INITIAL_STATE;
    for (const id of ['a', 'b', 'c']) s = breakerFailure(s, 'other', 3, id);
    expect(breakerSuccessBefore(s, new Set()).breaker).toMatchObject({ consecutive: 0, tripped: expect.any(String) });
  });
});

describe('prompt commands', () => {
  it('are the whole prompt only', () => {
    expect(promptCommand('s+')).toBe('safemode-on');
    expect(promptCommand('  S- \n')).toBe('safemode-off');
    expect(promptCommand('s?')).toBe('safemode-status');
    expect(promptCommand('reset breaker')).toBe('breaker-reset');
    expect(promptCommand('rb-')).toBe('breaker-reset');
    expect(promptCommand('rb?')).toBe('breaker-status');
    expect(promptCommand('please s+')).toBeUndefined();
    expect(promptCommand('s+ and fix the bug')).toBeUndefined();
    expect(promptCommand('constructor')).toBeUndefined();
  });
});

describe('delegation window state machine', () => {
  const MIN = 60_000;
  it('counts work calls inside the sliding window; older ones drop out as time passes', () => {
    let s = INITIAL_STATE;
    for (const t of [0, 1, 2, 3]) s = delegationWork(s, t * MIN, 10 * MIN);
    expect(delegationCount(s, 3 * MIN, 10 * MIN)).toBe(4);
    expect(delegationCount(s, 10 * MIN + 1, 10 * MIN)).toBe(3);
    expect(delegationCount(s, 14 * MIN, 10 * MIN)).toBe(0);
    // A new call prunes what fell out of the window.
    s = delegationWork(s, 12.5 * MIN, 10 * MIN);
    expect(s.delegation.calls).toEqual([3 * MIN, 12.5 * MIN]);
  });

  it('a reset empties the window; times from the future (a clock set back) do not count', () => {
    let s = delegationWork(delegationWork(INITIAL_STATE, 5 * MIN, 10 * MIN), 6 * MIN, 10 * MIN);
    expect(delegationCount(s, 4 * MIN, 10 * MIN)).toBe(0);
    s = delegationReset(s);
    expect(s.delegation.calls).toEqual([]);
    expect(delegationReset(s)).toBe(s);
  });

  it(`keeps at most ${MAX_DELEGATION_CALLS} calls, whatever the rate`, () => {
    let s = INITIAL_STATE;
    for (let i = 0; i < 3 * MAX_DELEGATION_CALLS; i++) s = delegationWork(s, i, 10 * MIN);
    expect(s.delegation.calls).toHaveLength(MAX_DELEGATION_CALLS);
  });
});
