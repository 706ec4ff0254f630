/**
 * The leak test through the real decision path: a session full of secrets (commands, env exports, file
 * writes, encoded forms) goes through `check` for registered and unregistered sessions, allowed, asked and
 * denied calls alike; then every byte hookwise wrote — the project's .hookwise/, the runtime directory
 * (sessions, audit log, caches) and the user config dir — is searched for every secret, raw and encoded.
 */
import { describe, expect, it } from 'vitest';
import { makeProject } from '../support/project.js';
import { leakySession, leaksIn } from './leak-session.js';

describe('nothing unsanitized reaches disk', () => {
  it('a session full of secrets leaves no secret in anything hookwise wrote', async () => {
    const p = makeProject();
    p.write('.hookwise/policy.yml', 'registration:\n  wait_ms: 0\n');
    p.register('coder-1', 'coder');
    p.register('maint-1', 'maintainer');
    const { secrets, calls } = leakySession();
    for (const session of ['coder-1', 'maint-1', 'never-registered']) {
      for (const call of calls) {
        const input = JSON.parse(JSON.stringify(call.input).split('/work/app').join(p.root)) as Record<string, unknown>;
        const r = await p.check(p.pre(call.tool, input, session));
        expect(r.exitCode).toBe(0);
      }
    }
    const leaks = leaksIn([p.runtimeDir, `${p.root}/.hookwise`, p.configDir], secrets);
    expect(leaks, JSON.stringify(leaks)).toEqual([]);
    // And the audit log did record every call (so the test looked at real output, not an empty dir).
    const { readAudit } = await import('../../src/audit/log.js');
    const records = readAudit(p.runtimeDir).records;
    expect(records).toHaveLength(calls.length * 3);
    expect(records.filter((r) => r.secrets > 0).length).toBeGreaterThan(calls.length);
  }, 60_000);
});
