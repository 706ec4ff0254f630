/**
 * The team's audit read from a real, throwaway PostgreSQL: two machines' audit logs sent by their daemons'
 * outboxes, counted per machine, verdict and tool (`stats --fleet`), and followed as new rows land
 * (`monitor --fleet`, woken by NOTIFY). A row planted by hand is shown sanitized, never as written.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { appendAudit, type AuditRecord } from '../../src/audit/log.js';
import { fleetMonitor, fleetStats } from '../../src/cli/fleet.js';
import type { Sanitized } from '../../src/sanitize/index.js';
import { fleetCounts, recentFleetAudit } from '../../src/store/fleet-audit.js';
import { FleetShare } from '../../src/store/fleet-share.js';
import { PostgresStore } from '../../src/store/postgres.js';
import { FleetSync } from '../../src/store/sync.js';
import { findPostgres, startCluster, type Cluster, migrateTeam } from '../support/postgres.js';

const binaries = findPostgres();
const skip = 'missing' in binaries ? binaries.missing : undefined;
if (skip !== undefined) console.warn(`tests/store/fleet-audit: skipped: ${skip}`);

let cluster: Cluster;
const env = { ...process.env };
beforeAll(async () => {
  if ('missing' in binaries) return;
  cluster = startCluster(binaries);
  await migrateTeam(settingsOf());
  const root = mkdtempSync(join(tmpdir(), 'hookwise-fleet-cli-'));
  dirs.push(root);
  // The CLI reads the store from the user's environment, as `hookwise stats --fleet` does.
  process.env.HOOKWISE_STORE_URL = cluster.url();
  process.env.HOOKWISE_STORE_TEAM = 'audit';
  process.env.HOOKWISE_CONFIG_DIR = join(root, 'config');
  process.env.HOOKWISE_RUNTIME_DIR = join(root, 'run');
}, 60_000);
afterAll(() => {
  process.env = env;
  cluster?.stop();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function settingsOf() {
  return { kind: 'postgres' as const, url: cluster.url(), team: 'audit', user: 'ada', source: 'test' };
}

const dirs: string[] = [];
const syncs: FleetSync[] = [];
afterEach(async () => {
  await Promise.all(syncs.splice(0).map((s) => s.close()));
});

function machine(name: string): { runtimeDir: string; sync: FleetSync } {
  const root = mkdtempSync(join(tmpdir(), 'hookwise-fleet-audit-'));
  dirs.push(root);
  const places = { runtimeDir: join(root, 'run'), userConfigDir: join(root, 'config') };
  const share = new FleetShare(places.runtimeDir, () => undefined, name);
  const sync = new FleetSync(settingsOf(), places, (s, origin) => PostgresStore.open(s, origin), {
    pushEveryMs: 20,
    parts: share.parts,
  });
  syncs.push(sync);
  return { runtimeDir: places.runtimeDir, sync };
}

let n = 0;
function decided(tool: string, verdict: AuditRecord['verdict']): AuditRecord {
  n++;
  return {
    // Logged now, in order: a line logged before sharing was turned on is not sent (store/fleet-share.ts).
    ts: new Date(Date.now() + n).toISOString(),
    session: 's-1' as Sanitized,
    role: 'coder',
    host: 'claude',
    tool: tool as Sanitized,
    verdict,
    tier: verdict === 'deny' ? 'path-policy' : 'rules',
    rule: null,
    latency_ms: 2,
    paths: [],
    input: `call ${n}` as Sanitized,
    secrets: 0,
    input_hash: '0123456789abcdef',
  };
}

const LIMITS = { maxBytes: 1 << 20, keep: 2 };

async function until(ok: () => boolean, ms = 20_000): Promise<void> {
  const start = Date.now();
  while (!ok()) {
    if (Date.now() - start > ms) throw new Error('never');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe.skipIf(skip !== undefined)("the team's audit from its store", () => {
  it('counts per machine, verdict and tool; stats --fleet renders them with the usual figures', async () => {
    const a = machine('alpha');
    const b = machine('beta');
    for (let i = 0; i < 6; i++) appendAudit(a.runtimeDir, decided('Bash', i < 4 ? 'allow' : 'deny'), LIMITS);
    for (let i = 0; i < 3; i++) appendAudit(b.runtimeDir, decided('Write', 'ask'), LIMITS);
    await Promise.all([a.sync.start(), b.sync.start()]);
    // On a loaded machine the first connection may time out: the daemon retries, and so does the wait.
    await until(() => a.sync.status().mode === 'synced' && b.sync.status().mode === 'synced');
    await Promise.all([a.sync.flush(), b.sync.flush()]);

    const store = await PostgresStore.open(settingsOf(), 'c'.repeat(32));
    try {
      const c = await fleetCounts(store, {});
      expect(c.total).toEqual({ decisions: 9, allow: 4, ask: 3, deny: 2 });
      expect(c.machines.alpha).toEqual({ decisions: 6, allow: 4, ask: 0, deny: 2 });
      expect(c.machines.beta).toEqual({ decisions: 3, allow: 0, ask: 3, deny: 0 });
      expect(c.tools.Write).toEqual({ decisions: 3, allow: 0, ask: 3, deny: 0 });
      expect((await fleetCounts(store, { verdict: 'deny' })).total.decisions).toBe(2);
      const recent = await recentFleetAudit(store, {}, 4);
      expect(recent.records.map((r) => r.input)).toEqual(['call 6', 'call 7', 'call 8', 'call 9']);
    } finally {
      await store.close();
    }
    const text = await fleetStats({}, false);
    expect(text).toMatch(/fleet: 9 decisions from 2 machines/);
    expect(text).toMatch(/alpha\s+6\s+allow\s+4\s+ask\s+0\s+deny\s+2/);
    const json = JSON.parse(await fleetStats({ role: 'coder' }, true)) as { total: { decisions: number } };
    expect(json.total.decisions).toBe(9);
  });

  it('monitor --fleet shows the newest rows, then each new one from any machine as it lands', async () => {
    const a = machine('alpha');
    await a.sync.start();
    await until(() => a.sync.status().mode === 'synced');
    const lines: string[] = [];
    const stop = new AbortController();
    // No polling within the test's time: only the store's notification can wake it.
    const following = fleetMonitor({ lines: 2, intervalMs: 600_000 }, (l) => lines.push(l), stop.signal);
    await until(() => lines.length >= 2);
    expect(lines).toHaveLength(2);
    appendAudit(a.runtimeDir, decided('Edit', 'deny'), LIMITS);
    await until(() => lines.length >= 3);
    expect(lines[2]).toMatch(/^alpha .*Edit/);
    // A row put there by hand with a token in it: shown redacted.
    const store = await PostgresStore.open(settingsOf(), 'c'.repeat(32));
    await store.query(
      `INSERT INTO hookwise_audit.audit (origin, machine, ts, session, tool, verdict, tier, latency_ms, paths, input,
         secrets, input_hash, src_ino, src_offset)
       VALUES ('hand', 'planted', now(), 's', 'Bash', 'allow', 'rules', 1, '[]',
         'curl -H "Authorization: Bearer ghp_0123456789abcdefABCDEF0123456789abcd"', 0, '', 0, 0)`,
    );
    await store.close();
    await until(() => lines.length >= 4);
    stop.abort();
    await following;
    expect(lines[3]).toMatch(/^planted /);
    expect(lines[3]).toContain('<REDACTED>');
    expect(lines.join('\n')).not.toContain('ghp_0123456789');
  });
});
