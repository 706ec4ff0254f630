/**
 * `hookwise store migrate | status` and doctor's store line, on a real throwaway PostgreSQL, with the store
 * chosen the way a user chooses it: `store:` in their own config.yml.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendAudit } from '../../src/audit/log.js';
import {
  renderStoreReport,
  rulesExport,
  storeCheck,
  storeMigrate,
  storePushAudit,
  storeReport,
} from '../../src/cli/store.js';
import type { Sanitized } from '../../src/sanitize/index.js';
import { FleetSync } from '../../src/store/sync.js';
import { loadScope } from '../../src/memory/store.js';
import { latestMigration, migrations, PostgresStore } from '../../src/store/postgres.js';
import { sharedRecord } from '../support/store-records.js';
import { POLICY_SCHEMA } from '../../src/policy/config-schema.js';
import { parseYaml, type Diagnostic } from '../../src/policy/schema.js';
import { describeUrl, storeSettings } from '../../src/store/settings.js';
import type { Locations } from '../../src/util/locations.js';
import { findPostgres, startCluster, type Cluster } from '../support/postgres.js';

const binaries = findPostgres();
const skip = 'missing' in binaries ? binaries.missing : undefined;
if (skip !== undefined) console.warn(`tests/cli/store: skipped: ${skip}`);

let cluster: Cluster | undefined;
let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'hookwise-store-cli-'));
  if (!('missing' in binaries)) cluster = startCluster(binaries);
}, 60_000);
afterAll(() => {
  cluster?.stop();
  rmSync(root, { recursive: true, force: true });
});

function placesWith(config: string | undefined): Locations {
  const dir = mkdtempSync(join(root, 'm-'));
  const where = { home: dir, runtimeDir: join(dir, 'run'), userConfigDir: join(dir, 'config') };
  mkdirSync(where.userConfigDir, { recursive: true });
  if (config !== undefined) writeFileSync(join(where.userConfigDir, 'config.yml'), config);
  return where;
}

describe('choosing the store', () => {
  it('is the files unless the user says otherwise', () => {
    expect(storeSettings(placesWith(undefined).userConfigDir, {}).settings).toEqual({ kind: 'files' });
  });

  it("takes the URL, team and user from the user's config, and the environment over it", () => {
    const where = placesWith('store:\n  url: postgresql://db.example/hookwise\n  team: red\n  user: ada\n');
    expect(storeSettings(where.userConfigDir, {}).settings).toMatchObject({
      kind: 'postgres',
      url: 'postgresql://db.example/hookwise',
      team: 'red',
      user: 'ada',
    });
    expect(
      storeSettings(where.userConfigDir, { HOOKWISE_STORE_URL: 'postgres://other/x', HOOKWISE_STORE_TEAM: 'blue' })
        .settings,
    ).toMatchObject({ url: 'postgres://other/x', team: 'blue', source: 'HOOKWISE_STORE_URL' });
  });

  it('stays on the files, saying why, on a setting it cannot use', () => {
    const where = placesWith('store:\n  url: mysql://db/x\n');
    const bad = storeSettings(where.userConfigDir, {});
    expect(bad.settings).toEqual({ kind: 'files' });
    expect(bad.problems.join('\n')).toMatch(/must start with postgres/);
    const team = storeSettings(where.userConfigDir, {
      HOOKWISE_STORE_URL: 'postgres://x/y',
      HOOKWISE_STORE_TEAM: 'Red Team',
    });
    expect(team.settings).toEqual({ kind: 'files' });
    expect(team.problems.join('\n')).toMatch(/store team "Red Team"/);
  });

  it("cannot be chosen by a project's policy file", () => {
    const diagnostics: Diagnostic[] = [];
    parseYaml('store:\n  url: postgres://attacker/x\n', '.hookwise/policy.yml', POLICY_SCHEMA, diagnostics);
    expect(diagnostics.map((d) => d.field)).toContain('store');
  });
});

describe.skipIf(skip !== undefined)('store migrate and status', () => {
  it('migrates once, then reports the version; doctor fails before and is ok after', async () => {
    const where = placesWith(`store:\n  url: ${cluster!.url()}\n  team: cli\n  user: ada\n`);
    const before = await storeCheck(where);
    expect(before).toMatchObject({ status: 'fail', fix: 'hookwise store migrate' });
    const first = await storeMigrate(where);
    expect(first).toMatchObject({ exitCode: 0 });
    const latest = latestMigration();
    const names = migrations().map((m) => `${String(m.version).padStart(3, '0')}-${m.name}`);
    expect(names[0]).toBe('001-decisions');
    expect(first.stdout).toContain(`applied ${names.join(', ')} (version 0 → ${latest})`);
    expect((await storeMigrate(where)).stdout).toContain(`already at version ${latest}: nothing to apply`);
    const report = await storeReport(where);
    expect(report.version).toEqual({ store: latest, needed: latest });
    expect(renderStoreReport(report)).toContain(`schema: version ${latest}, this hookwise needs ${latest}`);
    expect(await storeCheck(where)).toMatchObject({ status: 'ok' });
  });

  it('warns, without failing, when the store is unreachable: daemons decide from their last copy', async () => {
    const where = placesWith(`store:\n  url: postgresql://ada@/postgres?host=${join(root, 'nowhere')}\n  team: cli\n`);
    const check = await storeCheck(where);
    expect(check.status).toBe('warn');
    expect(check.detail).toMatch(/unreachable/);
  });

  it("rules export writes the store's org decisions into the project, newest per call, once", async () => {
    const where = placesWith(`store:\n  url: ${cluster!.url()}\n  team: exp\n  user: ada\n`);
    await storeMigrate(where);
    const store = await PostgresStore.open(
      { kind: 'postgres', url: cluster!.url(), team: 'exp', user: 'ada', source: 'test' },
      'e'.repeat(32),
    );
    await store.append([
      { owner: 'acme', record: sharedRecord('e1', 'allow', { ts: '2026-11-28T10:00:00.000Z' }) },
      { owner: 'acme', record: sharedRecord('e1', 'deny', { ts: '2026-11-28T11:00:00.000Z' }) },
      { owner: 'other', record: sharedRecord('e2', 'ask') },
      { owner: 'ada', record: { ...sharedRecord('u1', 'allow'), scope: 'user' } },
    ]);
    await store.close();
    const project = mkdtempSync(join(root, 'project-'));
    const first = await rulesExport(where, project, { org: 'acme' });
    expect(first.stdout).toMatch(/1 decisions from team exp's store written/);
    const held = loadScope({ scope: 'project', projectRoot: project }).records;
    expect(held.map((r) => [r.key, r.verdict, r.scope])).toEqual([['e1', 'deny', 'project']]);
    expect((await rulesExport(where, project, { org: 'acme' })).stdout).toMatch(/nothing new/);
    expect((await rulesExport(where, project, {})).stdout).toMatch(/1 decisions .* \(1 already there\)/);
  });
});

describe.skipIf(skip !== undefined)('store push-audit', () => {
  it("sends this machine's audit history from a date, under the daemon's origin, and says what it could not", async () => {
    const where = placesWith(`store:\n  url: ${cluster!.url()}\n  team: hist\n  user: ada\n`);
    expect((await storePushAudit(placesWith(undefined), '2026-11-01')).stdout).toMatch(/no team store is set/);
    expect(await storePushAudit(where, 'last tuesday')).toMatchObject({ exitCode: 1 });
    expect((await storePushAudit(where, '2026-11-01')).stdout).toMatch(/no daemon has shared from this machine yet/);

    await storeMigrate(where);
    const settings = { kind: 'postgres' as const, url: cluster!.url(), team: 'hist', user: 'ada', source: 'test' };
    // A daemon ran here once (its origin is what the machine's rows carry).
    const sync = new FleetSync(settings, where, (s, origin) => PostgresStore.open(s, origin));
    await sync.start();
    await sync.close();
    mkdirSync(where.runtimeDir, { recursive: true, mode: 0o700 });
    const line = (day: number, input: string) =>
      appendAudit(
        where.runtimeDir,
        {
          ts: new Date(Date.UTC(2026, 10, day)).toISOString(),
          session: 's-1' as Sanitized,
          role: 'coder',
          host: 'claude',
          tool: 'Bash' as Sanitized,
          verdict: 'allow',
          tier: 'rules',
          rule: null,
          latency_ms: 1,
          paths: [],
          input: input as Sanitized,
          secrets: 0,
          input_hash: '0123456789abcdef',
        },
        { maxBytes: 1024 * 1024, keep: 3 },
      );
    line(1, 'echo one');
    line(10, 'echo ten');
    const r = await storePushAudit(where, '2026-11-05');
    expect(r).toMatchObject({ exitCode: 0 });
    expect(r.stdout).toMatch(/1 audit line since 2026-11-05T00:00:00.000Z added to the hist team's store/);
    expect((await storePushAudit(where, '2026-11-01')).stdout).toMatch(/: 1 audit line since/);
    expect((await storePushAudit(where, '2026-11-01')).stdout).toMatch(/: 0 audit lines since/);
  });
});

describe('describing a store URL', () => {
  it.each([
    [
      'postgresql://ada:s3cret@db.example:5432/hw?sslmode=require',
      'postgresql://ada:***@db.example:5432/hw?sslmode=require',
    ],
    ['postgres://ada@/hw?host=/run/postgresql', 'postgres://ada@/hw?host=/run/postgresql'],
    ['postgresql://db.example/hw', 'postgresql://db.example/hw'],
  ])('%s is shown as %s', (url, shown) => expect(describeUrl(url)).toBe(shown));
});
