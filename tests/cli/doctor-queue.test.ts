/** doctor with the human queue on: every gate handler must outlast the queue's timeout. */
import { describe, expect, it } from 'vitest';
import { humanQueueCheck } from '../../src/cli/doctor.js';

const gate = (host: 'claude' | 'gemini' | 'codex', handler: Record<string, unknown>) => ({
  file: `${host}.json`,
  host,
  events: new Map([[host === 'gemini' ? 'BeforeTool' : 'PreToolUse', [handler]]]),
});

describe('doctor: human queue', () => {
  it('ok when every gate waits longer than the queue', () => {
    expect(
      humanQueueCheck({ timeoutMs: 60_000, source: 'policy.yml:2' }, [
        gate('claude', { type: 'http', timeout: 600 }),
        gate('gemini', { timeout: 600_000 }),
        gate('codex', {}),
      ]),
    ).toMatchObject({
      status: 'ok',
      detail: 'on: asks wait up to 60s for hookwise approve / deny (policy.yml:2)',
    });
  });

  it('warns, naming the file, when a host would stop the gate first (an old 30 s http gate, Gemini’s 60 s default)', () => {
    const check = humanQueueCheck({ timeoutMs: 60_000, source: 'policy.yml:2' }, [
      gate('claude', { type: 'http', timeout: 30 }),
      gate('gemini', {}),
    ]);
    expect(check).toMatchObject({ status: 'warn', fix: expect.stringMatching(/hookwise install again/) });
    expect(check.detail).toMatch(/claude\.json \(30s\), gemini\.json \(60s, the host default\)/);
  });
});
