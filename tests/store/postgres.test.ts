/**
 * The PostgreSQL backend against a real, throwaway PostgreSQL (tests/support/postgres.ts): migrations,
 * round trips, duplicates, the sanitization guard, team isolation, and rows that fail the checks.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import type { DecisionRecord } from '../../src/memory/store.js';
import type { Sanitized } from '../../src/sanitize/index.js';
import { latestMigration, migrations, PostgresStore, teamSchema } from '../../src/store/postgres.js';
import type { SharedRecord } from '../../src/store/types.js';
import { findPostgres, startCluster, type Cluster } from '../support/postgres.js';
import { sharedRecord as record } from '../support/store-records.js';

const binaries = findPostgres();
const skip = 'missing' in binaries ? binaries.missing : undefined;
if (skip !== undefined) console.warn(`tests/store/postgres: skipped: ${skip}`);

let cluster: Cluster;
beforeAll(() => {
  if (skip === undefined && !('missing' in binaries)) cluster = startCluster(binaries);
}, 60_000);
afterAll(() => cluster?.stop());

const settings = (team: string, user = 'ada') => ({
  kind: 'postgres' as const,
  url: cluster.url(),
  team,
  user,
  source: 'test',
});

const org = (r: DecisionRecord & { scope: 'org' }, owner = 'acme'): SharedRecord => ({ owner, record: r });

describe.skipIf(skip !== undefined)('the PostgreSQL store', () => {
  it('applies the migrations once, in order, and records the version', async () => {
    const store = await PostgresStore.open(settings('mig'), 'a'.repeat(32));
    expect(await store.version()).toBe(0);
    const first = await store.migrate();
    expect(first).toMatchObject({ from: 0, to: latestMigration() });
    expect(first.applied.slice(0, 2)).toEqual(['001-decisions', '002-decision-form']);
    expect(await store.migrate()).toMatchObject({ from: latestMigration(), applied: [] });
    expect(await store.version()).toBe(latestMigration());
    await store.close();
  });

  it('applies a migration numbered below the applied ones when it is missing (merged from another branch later)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookwise-migrations-'));
    try {
      writeFileSync(join(dir, '001-one.sql'), 'CREATE TABLE one (x int);');
      writeFileSync(join(dir, '003-three.sql'), 'CREATE TABLE three (x int);');
      const store = await PostgresStore.open(settings('gap'), 'a'.repeat(32));
      expect(await store.migrate(migrations(dir))).toMatchObject({ from: 0, to: 3, applied: ['001-one', '003-three'] });
      writeFileSync(join(dir, '002-two.sql'), 'CREATE TABLE two (x int);');
      expect(await store.migrate(migrations(dir))).toMatchObject({ from: 3, to: 3, applied: ['002-two'] });
      expect(await store.migrate(migrations(dir))).toMatchObject({ applied: [] });
      await store.close();
      writeFileSync(join(dir, '002-again.sql'), 'SELECT 1;');
      expect(() => migrations(dir)).toThrow(/does not follow/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps one row per decision: a replayed batch inserts nothing', async () => {
    const store = await PostgresStore.open(settings('dup'), 'a'.repeat(32));
    await store.migrate();
    const batch = [org(record('k1', 'allow')), org(record('k2', 'deny'))];
    await store.append(batch);
    await store.append(batch);
    const loaded = await store.load();
    expect(loaded.map((r) => [r.owner, r.record.key, r.record.verdict])).toEqual([
      ['acme', 'k1', 'allow'],
      ['acme', 'k2', 'deny'],
    ]);
    await store.close();
  });

  it('refuses a record with a secret in it, and sends nothing of its batch', async () => {
    const store = await PostgresStore.open(settings('secret'), 'a'.repeat(32));
    await store.migrate();
    const leaky = record('k3', 'allow', {
      subject: 'curl -H "Authorization: Bearer ghp_0123456789abcdefghijABCDEFGHIJ012345" x' as Sanitized,
    });
    await expect(store.append([org(record('k4', 'allow')), org(leaky)])).rejects.toThrow(/secret|sanitiz/i);
    await expect(store.append([org(record('k5', 'allow'), 'not a name!')])).rejects.toThrow(/owner/);
    expect(await store.load()).toEqual([]);
    await store.close();
  });

  it("keeps each team's rows in its own schema: another team pulls none of them", async () => {
    const red = await PostgresStore.open(settings('red'), 'a'.repeat(32));
    const blue = await PostgresStore.open(settings('blue'), 'b'.repeat(32));
    await red.migrate();
    await blue.migrate();
    await red.append([org(record('r1', 'allow'))]);
    expect((await blue.pull(undefined)).records).toEqual([]);
    expect((await red.pull(undefined)).records).toEqual([]); // its own rows are not pulled back
    const other = await PostgresStore.open(settings('red'), 'c'.repeat(32));
    expect((await other.pull(undefined)).records.map((r) => r.shared.record.key)).toEqual(['r1']);
    await Promise.all([red.close(), blue.close(), other.close()]);
  });

  it("pulls this user's and the orgs' rows, not another user's", async () => {
    const ada = await PostgresStore.open(settings('users', 'ada'), 'a'.repeat(32));
    await ada.migrate();
    await ada.append([{ owner: 'ada', record: { ...record('u1', 'allow'), scope: 'user' } }]);
    const adaElsewhere = await PostgresStore.open(settings('users', 'ada'), 'b'.repeat(32));
    const bob = await PostgresStore.open(settings('users', 'bob'), 'c'.repeat(32));
    expect((await adaElsewhere.pull(undefined)).records.map((r) => r.shared.record.key)).toEqual(['u1']);
    expect((await bob.pull(undefined)).records).toEqual([]);
    await Promise.all([ada.close(), adaElsewhere.close(), bob.close()]);
  });

  it('skips, and names, a row that fails the checks (one written by hand, not by hookwise)', async () => {
    const store = await PostgresStore.open(settings('hand'), 'a'.repeat(32));
    await store.migrate();
    const client = new pg.Client({ connectionString: cluster.url() });
    await client.connect();
    await client.query(
      `INSERT INTO "${teamSchema('hand')}".decisions
         (scope, owner, key, tool, subject, role, verdict, reason, tier, decided_by, ts, origin)
       VALUES ('org', 'acme', 'k9', 'Bash', 'echo AKIAQ7XJ2M4KFZ8NWP3B', 'coder',
               'allow', 'x', 'human', 'human', '2026-11-28T10:00:00.000Z', 'someone')`,
    );
    await client.end();
    const other = await PostgresStore.open(settings('hand'), 'b'.repeat(32));
    const got = await other.pull(undefined);
    expect(got.records).toEqual([]);
    expect(got.problems).toHaveLength(1);
    expect(got.problems[0]).toMatch(/^row \d+: .*\(skipped\)$/);
    expect(got.problems[0]).not.toContain('AKIAQ7XJ2M4KFZ8NWP3B');
    await Promise.all([store.close(), other.close()]);
  });

  it("carries a decision's form both ways; a row's form that is not a form of its subject is dropped, and said", async () => {
    const store = await PostgresStore.open(settings('forms'), 'a'.repeat(32));
    await store.migrate();
    const head = {
      subject: 'head -n 20 src/app.ts' as Sanitized,
      commands: ['head'],
      form: 'head -n <number> <path-read project>' as Sanitized,
    };
    await store.append([org(record('f1', 'allow', head)), org(record('f2', 'allow'))]);
    const client = new pg.Client({ connectionString: cluster.url() });
    await client.connect();
    // Written by hand: a form that generalizes `git status` to any push.
    await client.query(
      `INSERT INTO "${teamSchema('forms')}".decisions
         (scope, owner, key, tool, subject, form, role, verdict, reason, tier, decided_by, ts, origin)
       VALUES ('org', 'acme', 'f3', 'Bash', 'git status', 'git push --force origin <text>', 'coder',
               'allow', 'x', 'human', 'human', '2026-11-28T10:00:00.000Z', 'someone')`,
    );
    await client.end();
    const other = await PostgresStore.open(settings('forms'), 'b'.repeat(32));
    const got = await other.pull(undefined);
    const byKey = new Map(got.records.map((r) => [r.shared.record.key, r.shared.record]));
    expect(byKey.get('f1')).toMatchObject(head);
    expect(byKey.get('f2')).not.toHaveProperty('form');
    expect(byKey.get('f3')).toMatchObject({ subject: 'git status', verdict: 'allow' });
    expect(byKey.get('f3')).not.toHaveProperty('form');
    expect(got.problems).toEqual([
      expect.stringMatching(/^row \d+: its form is not a form of its subject.*form dropped/),
    ]);
    // A form with a secret in it never leaves the machine.
    const leaky = record('f4', 'allow', {
      ...head,
      form: 'head -n <number> ghp_0123456789abcdefghijABCDEFGHIJ012345' as Sanitized,
    });
    await expect(store.append([org(leaky)])).rejects.toThrow(/secret|sanitiz/i);
    await Promise.all([store.close(), other.close()]);
  });

  it('wakes a listener when another machine inserts', async () => {
    const store = await PostgresStore.open(settings('wake'), 'a'.repeat(32));
    await store.migrate();
    let woken = 0;
    const woke = new Promise<void>((resolve) => {
      void store
        .listen(
          () => {
            woken++;
            resolve();
          },
          () => undefined,
        )
        .then(async (stop) => {
          const writer = await PostgresStore.open(settings('wake'), 'b'.repeat(32));
          await writer.append([org(record('w1', 'ask')), org(record('w2', 'ask'))]);
          await writer.close();
          await woke;
          await stop();
        });
    });
    await woke;
    expect(woken).toBe(1); // one statement, one wake-up
    await store.close();
  });
});
