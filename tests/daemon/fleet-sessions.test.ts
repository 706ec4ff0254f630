/**
 * Two daemons (two machines: separate projects, runtime and config directories) on one real, throwaway
 * PostgreSQL: a session registered on machine A is decided on machine B with A's role — until then it is an
 * unknown session there, denied as without a store — and B's audit reaches the store (its daemon status says
 * how much it sent).
 */
import { describe, expect, it } from 'vitest';
import { askDaemon } from '../../src/daemon/client.js';
import { serve, type RunningDaemon } from '../../src/daemon/server.js';
import { SessionRegistry } from '../../src/session/registry.js';
import { locations } from '../../src/util/locations.js';
import { useTeamCluster } from '../support/postgres.js';
import { makeProject, type TestProject } from '../support/project.js';

const db = useTeamCluster('tests/daemon/fleet-sessions', 'daemons');
const { skip } = db;
const settings = db.settings;

async function until(ok: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> {
  const start = Date.now();
  while (!(await ok())) {
    if (Date.now() - start > ms) throw new Error('never');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(skip !== undefined)('daemons sharing sessions through the store', () => {
  it('a session registered on one machine is decided on another with its role; unknown there until synced', async () => {
    const a: TestProject = makeProject();
    const b: TestProject = makeProject();
    // Registration waits are short here: the unknown-session answer should come at once.
    for (const p of [a, b]) p.write('.hookwise/policy.yml', 'registration:\n  wait_ms: 0\n');
    const daemons: RunningDaemon[] = [];
    try {
      for (const p of [a, b]) daemons.push(await serve({ where: locations(p.env), store: settings() }));
      const ask = async (p: TestProject, sessionId: string, command: string): Promise<string> => {
        const answer = await askDaemon(JSON.stringify(p.pre('Bash', { command }, sessionId)), locations(p.env), {});
        if (answer.kind !== 'answered') throw new Error(`daemon did not answer: ${answer.kind}`);
        return answer.result.stdout;
      };
      await until(() => daemons.every((d) => d.stats().store?.mode === 'synced'));
      // Unknown on B: denied, with the instructions to register.
      const unknown = await ask(b, 'sess-travelling', 'git status');
      expect(unknown, unknown).toMatch(/"deny".*not registered|"deny".*register/);
      new SessionRegistry(a.runtimeDir).update('sess-travelling', (_e, now) => ({
        session_id: 'sess-travelling',
        role: 'coder',
        disabled: false,
        registered_at: now,
        updated_at: now,
      }));
      await until(() => (daemons[1]!.stats().store?.shared?.held.sessions ?? 0) >= 1);
      const onB = await ask(b, 'sess-travelling', 'git status');
      expect(onB, onB).toMatch(/"allow"/);
      // B's audit lines reach the store.
      await until(() => (daemons[1]!.stats().store?.shared?.sent.audit ?? 0) >= 2);
    } finally {
      await Promise.all(daemons.map((d) => d.close()));
    }
  }, 60_000);
});
