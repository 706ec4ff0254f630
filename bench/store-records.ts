/** Decision records of a shared scope for the store's tests and bench --fleet. */
import type { DecisionRecord } from '../src/memory/store.js';
import type { Sanitized } from '../src/sanitize/index.js';

/** An org-scope record for `make <key>`, role coder; override any field. */
export function sharedRecord(
  key: string,
  verdict: DecisionRecord['verdict'],
  extra: Partial<DecisionRecord> = {},
): DecisionRecord & { scope: 'org' } {
  return {
    key,
    tool: 'Bash',
    subject: `make ${key}` as Sanitized,
    commands: ['make'],
    role: 'coder',
    verdict,
    reason: 'a human said so' as Sanitized,
    tier: 'human',
    scope: 'org',
    decided_by: 'human',
    ts: '2026-11-28T10:00:00.000Z',
    ...extra,
  } as DecisionRecord & { scope: 'org' };
}
