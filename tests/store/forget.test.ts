/**
 * Forgetting across the team (store/forget.ts), on a real, throwaway PostgreSQL: `hookwise invalidate` on one
 * machine makes every machine forget the decision — the other daemon's files, the store's rows, a machine
 * joining later — and the team's supervisor answer for the key; an invalidation made while the store is down
 * goes out from the outbox when it is back; a row learned before the invalidation and sent after it (an old
 * outbox) is refused; a decision learned again afterwards stands.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { invalidate } from '../../src/cli/rules.js';
import { loadMemory } from '../../src/memory/load.js';
import { appendRecords, type DecisionRecord } from '../../src/memory/store.js';
import type { Sanitized } from '../../src/sanitize/index.js';
import { FleetShare } from '../../src/store/fleet-share.js';
import { checkTombstone, ForgetPart, forgetOutbox } from '../../src/store/forget.js';
import { PostgresStore } from '../../src/store/postgres.js';
import { FleetSync } from '../../src/store/sync.js';
import { useTeamCluster } from '../support/postgres.js';
import { sharedRecord as record } from '../support/store-records.js';

const db = useTeamCluster('tests/store/forget', 'forget');
const { skip } = db;
const settingsOf = db.settings;

interface Machine {
  root: string;
  runtimeDir: string;
  userConfigDir: string;
  projectRoot: string;
  share: FleetShare;
  sync: FleetSync;
}

const machines: Machine[] = [];
afterEach(async () => {
  await Promise.all(machines.map((m) => m.sync.close()));
  for (const m of machines.splice(0)) rmSync(m.root, { recursive: true, force: true });
});

function machine(): Machine {
  const root = mkdtempSync(join(tmpdir(), 'hookwise-forget-'));
  const places = { runtimeDir: join(root, 'run'), userConfigDir: join(root, 'config') };
  const projectRoot = join(root, 'project');
  mkdirSync(join(projectRoot, '.git'), { recursive: true });
  const share = new FleetShare(places.runtimeDir, () => undefined, 'm');
  const forget = new ForgetPart(places, 'ada', share.answers);
  const sync = new FleetSync(settingsOf(), places, (s, origin) => PostgresStore.open(s, origin), {
    pushEveryMs: 20,
    retryMs: 50,
    maxRetryMs: 200,
    parts: [...share.parts, forget],
  });
  const m = { root, ...places, projectRoot, share, sync };
  machines.push(m);
  return m;
}

/** `hookwise invalidate` as a user runs it on the machine, the store set in the environment. */
function invalidateOn(m: Machine, o: Parameters<typeof invalidate>[0]) {
  return invalidate(o, m.projectRoot, {
    HOME: m.root,
    HOOKWISE_CONFIG_DIR: m.userConfigDir,
    HOOKWISE_RUNTIME_DIR: m.runtimeDir,
    HOOKWISE_STORE_URL: db.cluster().url(),
    HOOKWISE_STORE_TEAM: 'forget',
    HOOKWISE_STORE_USER: 'ada',
  });
}

const learn = (m: Machine, records: DecisionRecord[]): void =>
  appendRecords({ scope: 'org', userConfigDir: m.userConfigDir, org: 'acme' }, records);

const decides = (m: Machine, key: string): string | undefined =>
  loadMemory({ projectRoot: m.projectRoot, userConfigDir: m.userConfigDir, runtimeDir: m.runtimeDir }, 0.9).view.lookup(
    key,
    'coder',
  )?.verdict;

async function until(what: string, ok: () => boolean | Promise<boolean>, tries = 400): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await ok()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`never: ${what}`);
}

async function stored(sql: string): Promise<unknown[]> {
  const store = await PostgresStore.open(settingsOf(), 'f'.repeat(32));
  try {
    return await store.query(sql);
  } finally {
    await store.close();
  }
}

const storedKeys = async (): Promise<string[]> =>
  ((await stored('SELECT key FROM @@.decisions ORDER BY id')) as { key: string }[]).map((r) => r.key);

const now = (): string => new Date().toISOString();

describe.skipIf(skip !== undefined)('forgetting across the team', () => {
  it('invalidate on one machine: the other forgets the decision, the store drops it, a newcomer never gets it', async () => {
    const a = machine();
    const b = machine();
    await Promise.all([a.sync.start(), b.sync.start()]);
    learn(a, [record('gone', 'allow', { ts: now() }), record('stays', 'allow', { ts: now() })]);
    await until('b decides both', () => decides(b, 'gone') === 'allow' && decides(b, 'stays') === 'allow');

    const out = invalidateOn(a, { key: 'gone', scope: 'org', org: 'acme' });
    expect(out.stdout).toMatch(/removed 1 remembered decision/);
    expect(out.stdout).toMatch(/the team's machines forget it too: 1 tombstone/);
    expect(decides(a, 'gone')).toBeUndefined();
    await until('b forgets it', () => decides(b, 'gone') === undefined);
    expect(decides(b, 'stays')).toBe('allow');
    await until('the store drops it', async () => !(await storedKeys()).includes('gone'));

    const c = machine();
    await c.sync.start();
    await until('c has what stays', () => decides(c, 'stays') === 'allow');
    expect(decides(c, 'gone')).toBeUndefined();

    // Learned again afterwards, on any machine: it stands.
    learn(b, [record('gone', 'deny', { ts: now() })]);
    await until('a decides the new one', () => decides(a, 'gone') === 'deny');
  }, 60_000);

  it('an invalidation made while the store is down goes out when it is back; an older row sent later is refused', async () => {
    const a = machine();
    const b = machine();
    await Promise.all([a.sync.start(), b.sync.start()]);
    learn(a, [record('offline-gone', 'allow', { ts: now() })]);
    await until('b has it', () => decides(b, 'offline-gone') === 'allow');

    db.cluster().kill();
    await until('both offline', () => a.sync.status().mode === 'offline' && b.sync.status().mode === 'offline');
    // b learns the same call while offline, before a forgets it: its outbox holds a row the tombstone covers
    learn(b, [record('offline-gone', 'allow', { ts: now(), reason: 'b approved it too' as Sanitized })]);
    await new Promise((r) => setTimeout(r, 5));
    invalidateOn(a, { key: 'offline-gone', scope: 'org', org: 'acme' });
    expect(decides(a, 'offline-gone')).toBeUndefined();
    expect(decides(b, 'offline-gone')).toBe('allow'); // its last copy, until the store is back

    db.cluster().start();
    await until('b forgets it', () => decides(b, 'offline-gone') === undefined);
    await until('both synced', () => a.sync.status().mode === 'synced' && b.sync.status().mode === 'synced');
    await b.sync.flush();
    await a.sync.flush();
    expect(await storedKeys()).not.toContain('offline-gone');
    expect(decides(a, 'offline-gone')).toBeUndefined();
  }, 60_000);

  it("invalidating a key forgets the team's supervisor answer for it on every machine", async () => {
    const a = machine();
    const b = machine();
    await Promise.all([a.sync.start(), b.sync.start()]);
    const answer = {
      kind: 'answer' as const,
      decision: 'allow' as const,
      confidence: 0.95,
      reason: 'reads the fixtures only' as Sanitized,
      by: 'api:claude-x',
    };
    a.share.answers.publish('0badc0ffee000001', 'coder', 'Bash', answer);
    await until('b holds it', () => b.share.answers.lookup('0badc0ffee000001', 'coder') !== undefined);

    const out = invalidateOn(b, { key: '0badc0ffee000001' });
    expect(out.stdout).toMatch(/the team's machines forget it too/);
    await until('b lets go of it', () => b.share.answers.lookup('0badc0ffee000001', 'coder') === undefined);
    await until(
      'the store drops it',
      async () => (await stored(`SELECT 1 FROM @@.supervisor_answers WHERE key = '0badc0ffee000001'`)).length === 0,
    );
    // A machine starting afterwards does not hold it either.
    const c = machine();
    await c.sync.start();
    expect(c.share.answers.lookup('0badc0ffee000001', 'coder')).toBeUndefined();
  }, 60_000);

  it('a tombstone is closed values only: bad scopes, owners, keys, kinds and times are refused', () => {
    const at = now();
    expect(checkTombstone({ kind: 'decisions', scope: 'org', owner: 'acme', key: 'k1', role: null, at })).toMatchObject(
      { kind: 'decisions', owner: 'acme', key: 'k1' },
    );
    expect(checkTombstone({ kind: 'decisions', scope: 'project', owner: 'acme', at })).toBe('not a shared scope');
    expect(checkTombstone({ kind: 'decisions', scope: 'org', owner: '../x', at })).toMatch(/owner/);
    expect(
      checkTombstone({ kind: 'decisions', scope: 'org', owner: 'ghp_0123456789abcdefABCDEF0123456789abcd', at }),
    ).toMatch(/owner/);
    expect(checkTombstone({ kind: 'answers', key: 'not a key', at })).toMatch(/key/);
    expect(checkTombstone({ kind: 'drop table', at })).toBe('not a kind of tombstone');
    expect(checkTombstone({ kind: 'answers', key: '0123456789abcdef', at: 'yesterday' })).toBe('no time');
  });

  it('without a store set, invalidate forgets on this machine only and leaves no outbox', () => {
    const a = machine();
    learn(a, [record('local', 'allow', { ts: now() })]);
    const out = invalidate({ key: 'local', scope: 'org', org: 'acme' }, a.projectRoot, {
      HOME: a.root,
      HOOKWISE_CONFIG_DIR: a.userConfigDir,
      HOOKWISE_RUNTIME_DIR: a.runtimeDir,
    });
    expect(out.stdout).not.toMatch(/team/);
    expect(decides(a, 'local')).toBeUndefined();
    expect(existsSync(forgetOutbox(a.runtimeDir))).toBe(false);
  });
});
