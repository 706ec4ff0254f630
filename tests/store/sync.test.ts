/**
 * A fleet of daemons' replication on a real, throwaway PostgreSQL: a decision learned on one machine reaches
 * another through NOTIFY; the store killed mid-run and restarted loses nothing, keeps the order, and the
 * machines decide from their last copy meanwhile; an outbox outlives the daemon that wrote it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { appendRecords, fileFor, type DecisionRecord } from '../../src/memory/store.js';
import { PostgresStore } from '../../src/store/postgres.js';
import { FleetSync, readSyncStatus } from '../../src/store/sync.js';
import { loadMemory } from '../../src/memory/load.js';
import { useTeamCluster } from '../support/postgres.js';
import { sharedRecord as record } from '../support/store-records.js';

const db = useTeamCluster('tests/store/sync', 'fleet');
const { skip } = db;
const settingsOf = db.settings;

interface Machine {
  runtimeDir: string;
  userConfigDir: string;
  projectRoot: string;
  sync: FleetSync;
}

const machines: Machine[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(machines.splice(0).map((m) => m.sync.close()));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function machine(reuse?: Pick<Machine, 'runtimeDir' | 'userConfigDir' | 'projectRoot'>): Machine {
  let places = reuse;
  if (places === undefined) {
    const root = mkdtempSync(join(tmpdir(), 'hookwise-fleet-'));
    dirs.push(root);
    places = { runtimeDir: join(root, 'run'), userConfigDir: join(root, 'config'), projectRoot: join(root, 'project') };
  }
  const sync = new FleetSync(settingsOf('fleet'), places, (s, origin) => PostgresStore.open(s, origin), {
    pushEveryMs: 20,
    retryMs: 50,
    maxRetryMs: 200,
  });
  const m = { ...places, sync };
  machines.push(m);
  return m;
}

const learn = (m: Machine, records: DecisionRecord[]): void =>
  appendRecords({ scope: 'org', userConfigDir: m.userConfigDir, org: 'acme' }, records);

/** What the machine decides for this key from its own files (no network): the tiers' exact lookup. */
const decides = (m: Machine, key: string): string | undefined =>
  loadMemory({ projectRoot: m.projectRoot, userConfigDir: m.userConfigDir, runtimeDir: m.runtimeDir }, 0.9).view.lookup(
    key,
    'coder',
  )?.verdict;

const orgKeys = (m: Machine): string[] =>
  ['allow', 'ask', 'deny'].flatMap((v) => {
    try {
      return readFileSync(fileFor({ scope: 'org', userConfigDir: m.userConfigDir, org: 'acme' }, v as 'allow'), 'utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => (JSON.parse(l) as DecisionRecord).key);
    } catch {
      return [];
    }
  });

const orgRecords = (m: Machine): DecisionRecord[] =>
  readFileSync(fileFor({ scope: 'org', userConfigDir: m.userConfigDir, org: 'acme' }, 'allow'), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as DecisionRecord);

async function until(what: string, ok: () => boolean, tries = 400): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (ok()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`never: ${what}`);
}

describe.skipIf(skip !== undefined)('a fleet on one store', () => {
  it('a decision learned on one machine decides the same call on another, woken by NOTIFY', async () => {
    const a = machine();
    const b = machine();
    await Promise.all([a.sync.start(), b.sync.start()]);
    expect(a.sync.status().mode).toBe('synced');
    expect(decides(b, 'n1')).toBeUndefined();
    learn(a, [record('n1', 'deny', { ts: new Date().toISOString() })]);
    await until('b decides n1', () => decides(b, 'n1') === 'deny');
    expect(readSyncStatus(b.runtimeDir)?.mode).toBe('synced');
    // what b received is not sent back as its own
    await b.sync.flush();
    expect(b.sync.status()).toMatchObject({ pending_bytes: 0, sent: 0, received: 1 });
  });

  it("a learned decision's form reaches the other machine, so the decision generalizes there too", async () => {
    const a = machine();
    const b = machine();
    await Promise.all([a.sync.start(), b.sync.start()]);
    const form = { subject: 'head -n 20 src/app.ts', commands: ['head'], form: 'head -n <number> <path-read project>' };
    learn(a, [record('f1', 'allow', { ...form, ts: new Date().toISOString() } as Partial<DecisionRecord>)]);
    await until('b decides f1', () => decides(b, 'f1') === 'allow');
    expect(orgRecords(b).find((r) => r.key === 'f1')).toMatchObject(form);
  });

  it('the store killed mid-run and restarted: nothing lost, order kept, the last copy decides meanwhile', async () => {
    const a = machine();
    const b = machine();
    await Promise.all([a.sync.start(), b.sync.start()]);
    learn(a, [record('k-deny', 'deny', { ts: '2026-11-28T09:00:00.000Z' })]);
    await until('b has the deny', () => decides(b, 'k-deny') === 'deny');

    db.cluster().kill();
    const keys = Array.from({ length: 60 }, (_, i) => `down-${String(i).padStart(2, '0')}`);
    for (const key of keys.slice(0, 30)) learn(a, [record(key, 'ask', { ts: new Date().toISOString() })]);
    await until('both offline', () => a.sync.status().mode === 'offline' && b.sync.status().mode === 'offline');
    for (const key of keys.slice(30)) learn(a, [record(key, 'ask', { ts: new Date().toISOString() })]);
    expect(a.sync.status().pending_bytes).toBeGreaterThan(0);
    expect(readSyncStatus(a.runtimeDir)).toMatchObject({ mode: 'offline' });
    // b decides from its last copy: the deny it has seen stays a deny, nothing unseen is allowed
    expect(decides(b, 'k-deny')).toBe('deny');
    expect(decides(b, keys[0]!)).toBeUndefined();

    db.cluster().start();
    await until('b has everything', () => keys.every((k) => decides(b, k) === 'ask'));
    await until('a synced', () => a.sync.status().mode === 'synced' && a.sync.status().pending_bytes === 0);
    expect(orgKeys(b).filter((k) => k.startsWith('down-'))).toEqual(keys); // once each, in the order learned
    expect(decides(b, 'k-deny')).toBe('deny');
  }, 60_000);

  it('an outbox outlives its daemon: lines learned while the store was down go out from a new one', async () => {
    const a = machine();
    await a.sync.start();
    db.cluster().stopServer();
    learn(a, [record('late-1', 'allow'), record('late-2', 'deny')]);
    await until('offline', () => a.sync.status().mode === 'offline');
    await a.sync.close();
    machines.splice(machines.indexOf(a), 1);
    db.cluster().start();
    const again = machine(a);
    await again.sync.start();
    await until('sent', () => again.sync.status().pending_bytes === 0);
    const c = machine();
    await c.sync.start();
    await until('c has both', () => decides(c, 'late-1') === 'allow' && decides(c, 'late-2') === 'deny');
  }, 60_000);
});
