/**
 * What daemons share besides decisions (store/fleet-share.ts), on a real, throwaway PostgreSQL: a session
 * registered on one machine is known on another (the id never in the store), one disabled elsewhere stays
 * checked; the audit log reaches the store through its outbox with the store killed mid-run, across a
 * rotation, nothing lost or doubled; one machine's supervisor answer serves another; rows that fail the
 * checks never leave, nor come in.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { appendAudit, type AuditRecord } from '../../src/audit/log.js';
import { idStoreKey } from '../../src/sanitize/ids.js';
import type { Sanitized } from '../../src/sanitize/index.js';
import { SessionRegistry } from '../../src/session/registry.js';
import { FleetShare, pushAuditHistory } from '../../src/store/fleet-share.js';
import { PostgresStore } from '../../src/store/postgres.js';
import { FleetSync } from '../../src/store/sync.js';
import { useTeamCluster } from '../support/postgres.js';

const db = useTeamCluster('tests/store/fleet-share', 'share');
const { skip } = db;
const settingsOf = db.settings;

interface Machine {
  runtimeDir: string;
  userConfigDir: string;
  share: FleetShare;
  sync: FleetSync;
  registry: SessionRegistry;
}

const machines: Machine[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(machines.splice(0).map((m) => m.sync.close()));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function machine(name: string, runtimeDir?: string): Machine {
  const root = mkdtempSync(join(tmpdir(), 'hookwise-share-'));
  dirs.push(root);
  const places = { runtimeDir: runtimeDir ?? join(root, 'run'), userConfigDir: join(root, 'config') };
  const share = new FleetShare(places.runtimeDir, () => undefined, name);
  const sync = new FleetSync(settingsOf(), places, (s, origin) => PostgresStore.open(s, origin), {
    pushEveryMs: 20,
    retryMs: 50,
    maxRetryMs: 200,
    parts: share.parts,
  });
  const m = { ...places, share, sync, registry: new SessionRegistry(places.runtimeDir, share.sessions) };
  machines.push(m);
  return m;
}

async function until(what: string, ok: () => boolean | Promise<boolean>, tries = 400): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await ok()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`never: ${what}`);
}

async function rows<R extends object>(sql: string, params: unknown[] = []): Promise<R[]> {
  const store = await PostgresStore.open(settingsOf(), 'f'.repeat(32));
  try {
    return await store.query<R>(sql, params);
  } finally {
    await store.close();
  }
}

const register = (m: Machine, id: string, role: string | null, disabled = false): void => {
  m.registry.update(id, (existing, now) => ({
    session_id: id,
    role,
    disabled,
    task: 'fix the parser' as Sanitized,
    registered_at: existing?.registered_at ?? now,
    updated_at: now,
  }));
};

function auditLine(i: number, over: Partial<AuditRecord> = {}): AuditRecord {
  return {
    // Logged now (a line logged before sharing was turned on is not sent: see below), in the order of i.
    ts: new Date(Date.now() + i).toISOString(),
    session: `s-${i % 3}` as Sanitized,
    role: 'coder',
    host: 'claude',
    tool: (i % 2 === 0 ? 'Bash' : 'Write') as Sanitized,
    verdict: i % 5 === 0 ? 'deny' : 'allow',
    tier: 'rules',
    rule: null,
    latency_ms: 1.5,
    paths: [],
    input: `echo line ${i}` as Sanitized,
    secrets: 0,
    input_hash: '0123456789abcdef',
    ...over,
  };
}

const AUDIT_LIMITS = { maxBytes: 10 * 1024 * 1024, keep: 3 };

describe.skipIf(skip !== undefined)('sharing sessions, audit and supervisor answers', () => {
  it('a session registered on one machine is known on another, by a hash: the id never reaches the store', async () => {
    const a = machine('alpha');
    const b = machine('beta');
    await Promise.all([a.sync.start(), b.sync.start()]);
    // An id with a secret in it: a host could put anything there.
    const id = 'sess-ghp_0123456789abcdefABCDEF0123456789abcd';
    expect(b.registry.get(id)).toBeUndefined();
    register(a, id, 'coder');
    await until('b knows the session', () => b.registry.get(id)?.role === 'coder');
    expect(b.registry.get(id)?.task).toBe('fix the parser');
    const [row] = await rows<Record<string, unknown>>(`SELECT * FROM hookwise_share.sessions WHERE session_key = $1`, [
      idStoreKey(id),
    ]);
    expect(row).toBeDefined();
    expect(JSON.stringify(row)).not.toContain('ghp_0123456789');
    expect(row!.shown_id).toContain('<REDACTED>');
    // Another id is not this one.
    expect(b.registry.get('sess-other')).toBeUndefined();

    // Switched on a: the newer registration wins on b.
    register(a, id, 'reviewer');
    await until('b sees the switch', () => b.registry.get(id)?.role === 'reviewer');
    // Disabled on a: b does not stop checking it — it is unknown there (fail-closed), not ungated.
    register(a, id, 'reviewer', true);
    await until('b forgets it', () => b.registry.get(id) === undefined);
    // b's own registration always wins over the team's.
    register(a, 'sess-both', 'coder');
    register(b, 'sess-both', 'reviewer');
    await until('a has it', async () => (await rows(`SELECT 1 FROM hookwise_share.sessions`)).length >= 2);
    await b.sync.flush();
    expect(b.registry.get('sess-both')?.role).toBe('reviewer');
  });

  it('a registration pulled from the store is checked again: a row planted by hand with a bad role is skipped', async () => {
    await rows(
      `INSERT INTO hookwise_share.sessions (session_key, shown_id, role, disabled, registered_at, updated_at, origin)
       VALUES ($1, 'planted', 'coder; rm -rf /', false, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', 'hand')`,
      [idStoreKey('planted')],
    );
    const b = machine('beta');
    await b.sync.start();
    await b.sync.flush();
    expect(b.registry.get('planted')).toBeUndefined();
  });

  it('the audit log reaches the store through its outbox: store killed mid-run, a rotation meanwhile, nothing lost or doubled', async () => {
    const a = machine('alpha');
    await a.sync.start();
    for (let i = 0; i < 50; i++) appendAudit(a.runtimeDir, auditLine(i), AUDIT_LIMITS);
    const count = async (): Promise<number> =>
      Number(
        (await rows<{ n: string }>(`SELECT count(*) AS n FROM hookwise_share.audit WHERE machine = 'alpha'`))[0]!.n,
      );
    await until('the first 50 sent', async () => (await count()) === 50);

    db.cluster().kill();
    await until('offline', () => a.sync.status().mode === 'offline');
    // Written while the store is down, and rotated past a small limit: the old file is finished under its new name.
    for (let i = 50; i < 200; i++) appendAudit(a.runtimeDir, auditLine(i), { maxBytes: 8 * 1024, keep: 5 });
    expect(a.share.status().pending_audit_bytes).toBeGreaterThan(0);
    db.cluster().start();
    await until('synced', () => a.sync.status().mode === 'synced', 800);
    await until('all 200 sent', async () => (await count()) === 200, 800);
    expect(a.share.status().pending_audit_bytes).toBe(0);
    const distinct = await rows<{ n: string }>(
      `SELECT count(DISTINCT input) AS n FROM hookwise_share.audit WHERE machine = 'alpha'`,
    );
    expect(Number(distinct[0]!.n)).toBe(200);
  }, 60_000);

  it('turning sharing on sends the audit from then on; push-audit --since sends the history, and nothing twice', async () => {
    const root = mkdtempSync(join(tmpdir(), 'hookwise-share-'));
    dirs.push(root);
    const runtimeDir = join(root, 'run');
    mkdirSync(runtimeDir, { mode: 0o700 });
    const old = (i: number): AuditRecord => auditLine(i, { ts: new Date(Date.UTC(2026, 9, 1 + i)).toISOString() });
    for (let i = 0; i < 5; i++) appendAudit(runtimeDir, old(i), AUDIT_LIMITS); // Oct 1–5: before the store
    const a = machine('delta', runtimeDir);
    await a.sync.start();
    appendAudit(runtimeDir, auditLine(1), AUDIT_LIMITS);
    await a.sync.flush();
    const inputs = async (): Promise<string[]> =>
      (await rows<{ input: string }>(`SELECT input FROM hookwise_share.audit WHERE machine = 'delta' ORDER BY ts`)).map(
        (r) => r.input,
      );
    expect(await inputs()).toEqual(['echo line 1']);

    const store = await PostgresStore.open(settingsOf(), a.sync.origin);
    try {
      const history = await pushAuditHistory(store, runtimeDir, '2026-10-03T00:00:00.000Z', 'delta');
      expect(history).toEqual({ sent: 3, refused: [] }); // Oct 3, 4, 5 (the line of today was there already)
      expect(await inputs()).toEqual(['echo line 2', 'echo line 3', 'echo line 4', 'echo line 1']);
      expect(await pushAuditHistory(store, runtimeDir, '2026-01-01', 'delta')).toEqual({ sent: 2, refused: [] });
      expect(await pushAuditHistory(store, runtimeDir, '2026-01-01', 'delta')).toEqual({ sent: 0, refused: [] });
    } finally {
      await store.close();
    }
  });

  it('a lost share state resends the audit from the newest line the store holds of this machine, not the history', async () => {
    const a = machine('epsilon');
    await a.sync.start();
    appendAudit(a.runtimeDir, auditLine(1), AUDIT_LIMITS);
    await a.sync.flush();
    await a.sync.close();
    machines.splice(machines.indexOf(a), 1);
    rmSync(join(a.runtimeDir, 'store', 'share.json'));
    appendAudit(a.runtimeDir, auditLine(2), AUDIT_LIMITS); // logged while the state was gone
    const again = machine('epsilon', a.runtimeDir);
    await again.sync.start();
    appendAudit(a.runtimeDir, auditLine(3), AUDIT_LIMITS);
    await again.sync.flush();
    const got = await rows<{ input: string }>(
      `SELECT input FROM hookwise_share.audit WHERE machine = 'epsilon' ORDER BY ts`,
    );
    expect(got.map((r) => r.input)).toEqual(['echo line 1', 'echo line 2', 'echo line 3']);
  });

  it('an audit line that is not sanitized never leaves the machine; the lines around it do', async () => {
    const a = machine('gamma');
    const { appendFileSync } = await import('node:fs');
    const { auditPath } = await import('../../src/audit/log.js');
    appendAudit(a.runtimeDir, auditLine(1000), AUDIT_LIMITS);
    // A line written by hand, past the audit log's own checks.
    appendFileSync(
      auditPath(a.runtimeDir),
      JSON.stringify(
        auditLine(1001, {
          input: 'curl -H "Authorization: Bearer ghp_0123456789abcdefABCDEF0123456789abcd"' as Sanitized,
        }),
      ) + '\n',
    );
    appendAudit(a.runtimeDir, auditLine(1002), AUDIT_LIMITS);
    await a.sync.start();
    await a.sync.flush();
    const got = await rows<{ input: string }>(
      `SELECT input FROM hookwise_share.audit WHERE machine = 'gamma' ORDER BY ts`,
    );
    expect(got.map((r) => r.input)).toEqual(['echo line 1000', 'echo line 1002']);
    expect(a.share.status().refused).toBe(1);
  });

  it("one machine's supervisor answer serves another for the same key and role; a reason with a secret is not shared", async () => {
    const a = machine('alpha');
    const b = machine('beta');
    await Promise.all([a.sync.start(), b.sync.start()]);
    const answer = {
      kind: 'answer' as const,
      decision: 'allow' as const,
      confidence: 0.93,
      reason: 'reads the test fixtures only' as Sanitized,
      by: 'api:claude-x',
    };
    a.share.answers.publish('00112233aabbccdd', 'coder', 'Bash', answer);
    await until('b has it', () => b.share.answers.lookup('00112233aabbccdd', 'coder') !== undefined);
    expect(b.share.answers.lookup('00112233aabbccdd', 'coder')).toEqual({ ...answer, by: 'team:api:claude-x' });
    // Another role is another question.
    expect(b.share.answers.lookup('00112233aabbccdd', 'reviewer')).toBeUndefined();
    // a's own answers are not served back to a from the store (its memory learned them already).
    expect(a.share.answers.lookup('00112233aabbccdd', 'coder')).toBeUndefined();

    a.share.answers.publish('99112233aabbccdd', 'coder', 'Bash', {
      ...answer,
      reason: 'token ghp_0123456789abcdefABCDEF0123456789abcd is fine' as Sanitized,
    });
    await a.sync.flush();
    await b.sync.flush();
    expect(b.share.answers.lookup('99112233aabbccdd', 'coder')).toBeUndefined();
    const stored = await rows(`SELECT 1 FROM hookwise_share.supervisor_answers WHERE key = '99112233aabbccdd'`);
    expect(stored).toHaveLength(0);
  });
});
