/**
 * `hookwise store migrate | status`, and the store's check for `doctor`: which store this machine uses,
 * whether its schema is at this hookwise's version, and which mode the daemon's replication is in.
 */
import type { Locations } from '../util/locations.js';
import { describeUrl, storeSettings, type StoreSettings } from '../store/settings.js';
import { readSyncStatus, syncOrigin, type SyncStatus } from '../store/sync.js';
import { readQueueStatus, type FleetQueueStatus } from '../store/queue.js';
import { sanitize } from '../sanitize/index.js';
import {
  appendRecords,
  compareRecords,
  laterWins,
  loadScope,
  scopeFiles,
  type DecisionRecord,
  type StoreTarget,
} from '../memory/store.js';
import { FileDecisionStore } from '../store/files.js';
import type { DecisionStore, SharedRecord } from '../store/types.js';

export interface CommandResult {
  stdout: string;
  exitCode: number;
}

/** A line of `doctor` (cli/doctor.ts DoctorCheck's shape). */
export interface StoreCheck {
  status: 'ok' | 'warn' | 'fail';
  what: string;
  detail: string;
  fix?: string;
}

type Postgres = Extract<StoreSettings, { kind: 'postgres' }>;

function configured(where: Locations): { settings: StoreSettings; problems: string[] } {
  return storeSettings(where.userConfigDir);
}

/** Applies the repository's migrations to the team's schema (all or none). */
export async function storeMigrate(where: Locations): Promise<CommandResult> {
  const { settings, problems } = configured(where);
  if (settings.kind === 'files')
    return {
      stdout: [
        ...problems,
        'no team store is set (store.url in the user config, or HOOKWISE_STORE_URL): the files need no migration',
      ].join('\n'),
      exitCode: problems.length > 0 ? 1 : 0,
    };
  const { PostgresStore } = await import('../store/postgres.js');
  const store = await PostgresStore.open(settings, 'migrate');
  try {
    const r = await store.migrate();
    const what =
      r.applied.length === 0
        ? `already at version ${r.to}: nothing to apply`
        : `applied ${r.applied.join(', ')} (version ${r.from} → ${r.to})`;
    return {
      stdout: `store ${describeUrl(settings.url)}, team ${settings.team} (schema ${store.schema}): ${what}`,
      exitCode: 0,
    };
  } catch (error) {
    return { stdout: `store migrate failed, nothing applied: ${reason(error)}`, exitCode: 1 };
  } finally {
    await store.close();
  }
}

export interface StoreReport {
  kind: StoreSettings['kind'];
  store?: string;
  team?: string;
  user?: string;
  source?: string;
  /** The schema's version in the store and the one this hookwise needs. */
  version?: { store: number | null; needed: number; error?: string };
  /** The daemon's replication, as it last wrote it. */
  daemon?: SyncStatus;
  /** The daemon's shared human queue, as it last wrote it. */
  queue?: FleetQueueStatus;
  problems: string[];
}

export async function storeReport(where: Locations): Promise<StoreReport> {
  const { settings, problems } = configured(where);
  if (settings.kind === 'files') return { kind: 'files', problems };
  const daemon = readSyncStatus(where.runtimeDir);
  const queue = readQueueStatus(where.runtimeDir);
  return {
    kind: 'postgres',
    store: describeUrl(settings.url),
    team: settings.team,
    user: settings.user,
    source: settings.source,
    version: await versionOf(settings),
    ...(daemon === undefined ? {} : { daemon }),
    ...(queue === undefined ? {} : { queue }),
    problems,
  };
}

async function versionOf(settings: Postgres): Promise<StoreReport['version']> {
  const { PostgresStore, latestMigration } = await import('../store/postgres.js');
  const needed = latestMigration();
  const store = await PostgresStore.open(settings, 'status');
  try {
    return { store: await store.version(), needed };
  } catch (error) {
    return { store: null, needed, error: reason(error) };
  } finally {
    await store.close().catch(() => undefined);
  }
}

export function renderStoreReport(r: StoreReport): string {
  const lines = [...r.problems];
  if (r.kind === 'files') {
    lines.push('store: the files on this machine (no team store set)');
    return lines.join('\n');
  }
  lines.push(`store: PostgreSQL ${r.store} (from ${r.source}), team ${r.team}, user ${r.user}`);
  const v = r.version!;
  lines.push(
    v.store === null
      ? `schema: unknown — the store is unreachable: ${v.error}`
      : `schema: version ${v.store}, this hookwise needs ${v.needed}${v.store < v.needed ? ' (run hookwise store migrate)' : ''}`,
  );
  if (r.daemon === undefined)
    lines.push('daemon: no replication status (is the daemon running? hookwise daemon start)');
  else lines.push(`daemon: ${describeMode(r.daemon)}`);
  if (r.queue !== undefined) lines.push(`queue: ${describeQueueMode(r.queue)}`);
  return lines.join('\n');
}

/** The shared human queue's mode, in the words `store status`, `status` and `doctor` use. */
export function describeQueueMode(q: FleetQueueStatus): string {
  switch (q.mode) {
    case 'shared':
      return `shared with the team since ${q.since}`;
    case 'local':
      return `LOCAL since ${q.since}: the store is unreachable, asks wait on this machine and are answered here (${q.error ?? 'unreachable'})`;
    case 'stopped':
      return `stopped at ${q.since}`;
  }
}

export function describeMode(s: SyncStatus): string {
  const pending = s.pending_bytes > 0 ? `, ${s.pending_bytes} bytes waiting in the outbox` : '';
  switch (s.mode) {
    case 'synced':
      return `synced with the store since ${s.since}${pending}`;
    case 'offline':
      return `OFFLINE since ${s.since}: deciding from the last synced copy, learning kept in the outbox${pending} (${s.error ?? 'unreachable'})`;
    case 'stopped':
      return `stopped at ${s.since} (pid ${s.pid})${pending}`;
  }
}

/** doctor's line for the store: ok on the files or a synced store; warn offline; fail on a schema behind. */
export async function storeCheck(where: Locations): Promise<StoreCheck> {
  const r = await storeReport(where);
  if (r.kind === 'files')
    return r.problems.length > 0
      ? { status: 'warn', what: 'store', detail: r.problems.join('; '), fix: 'fix store: in the user config.yml' }
      : { status: 'ok', what: 'store', detail: 'the files on this machine (no team store set)' };
  const v = r.version!;
  if (v.store === null)
    return {
      status: 'warn',
      what: 'store',
      detail: `team ${r.team} at ${r.store} is unreachable (${v.error}); daemons decide from their last synced copy`,
      fix: 'check the URL, the network and the server; learning waits in each outbox until it is back',
    };
  if (v.store < v.needed)
    return {
      status: 'fail',
      what: 'store',
      detail: `team ${r.team}'s schema is at version ${v.store}, this hookwise needs ${v.needed}`,
      fix: 'hookwise store migrate',
    };
  if (r.queue?.mode === 'local')
    return {
      status: 'warn',
      what: 'store',
      detail: `the daemon's human queue is ${describeQueueMode(r.queue)}`,
      fix: 'it reconnects on its own; see hookwise store status',
    };
  if (r.daemon?.mode === 'offline')
    return {
      status: 'warn',
      what: 'store',
      detail: `the daemon is ${describeMode(r.daemon)}`,
      fix: 'it reconnects on its own; see hookwise store status',
    };
  return {
    status: 'ok',
    what: 'store',
    detail: `team ${r.team} at ${r.store}, schema version ${v.store}${r.daemon === undefined ? '' : `; daemon ${describeMode(r.daemon)}`}`,
  };
}

export interface ExportOptions {
  /** Only this organisation's decisions (default: every org's). */
  org?: string;
  json?: boolean;
}

/**
 * `hookwise rules export`: the store's org decisions written into the project's `.hookwise/rules/` as
 * project-scope records, for review and commit — the way a team's learning enters git. One record per
 * decision (the newest per key and role, as a load resolves them); a decision the project already holds
 * with the same verdict is not written again. Works on either backend: with the files, the org scopes under
 * this user's config.
 */
export async function rulesExport(where: Locations, projectRoot: string, o: ExportOptions): Promise<CommandResult> {
  const { settings, problems } = configured(where);
  const store = await openStore(settings, where);
  let shared: SharedRecord[];
  try {
    shared = await store.load();
  } catch (error) {
    return { stdout: `rules export: cannot read the store: ${reason(error)}`, exitCode: 1 };
  } finally {
    await store.close().catch(() => undefined);
  }
  const newest = new Map<string, DecisionRecord>();
  for (const r of shared) {
    if (r.record.scope !== 'org' || (o.org !== undefined && r.owner !== o.org)) continue;
    const id = `${r.record.key}\u0000${r.record.role}`;
    const current = newest.get(id);
    if (current === undefined || laterWins(r.record, current)) newest.set(id, r.record);
  }
  const target: StoreTarget = { scope: 'project', projectRoot };
  const held = new Map(loadScope(target).records.map((r) => [`${r.key}\u0000${r.role}`, r.verdict]));
  const fresh: DecisionRecord[] = [];
  for (const [id, r] of newest) if (held.get(id) !== r.verdict) fresh.push({ ...r, scope: 'project' });
  fresh.sort(compareRecords);
  appendRecords(target, fresh);
  const result = { exported: fresh.length, already: newest.size - fresh.length, files: scopeFiles(target) };
  if (o.json === true) return { stdout: JSON.stringify({ ...result, problems }, null, 2), exitCode: 0 };
  const from = settings.kind === 'files' ? 'the org scopes on this machine' : `team ${settings.team}'s store`;
  return {
    stdout: [
      ...problems,
      fresh.length === 0
        ? `rules export: nothing new from ${from} (${result.already} decisions already in .hookwise/rules/)`
        : `rules export: ${fresh.length} decisions from ${from} written to .hookwise/rules/ (${result.already} already there); review them (git diff .hookwise/rules) and commit`,
    ].join('\n'),
    exitCode: 0,
  };
}

/**
 * `hookwise store push-audit --since DATE`: this machine's audit history from DATE on, sent to the team's
 * store (a daemon sends only what is logged after sharing was turned on). Under the machine's own origin, so
 * lines the daemon sent already are not doubled; in statements of at most 1 MiB of log each.
 */
export async function storePushAudit(where: Locations, since: string): Promise<CommandResult> {
  const { settings, problems } = configured(where);
  if (settings.kind === 'files')
    return {
      stdout: [
        ...problems,
        'no team store is set (store.url in the user config, or HOOKWISE_STORE_URL): nothing to send to',
      ].join('\n'),
      exitCode: 1,
    };
  const from = Date.parse(since);
  if (!Number.isFinite(from))
    return {
      stdout: `store push-audit: --since takes a date or time (2026-11-01, 2026-11-01T09:00Z), not "${sanitize(since).text}"`,
      exitCode: 1,
    };
  const origin = syncOrigin(where.runtimeDir);
  if (origin === undefined)
    return {
      stdout:
        'store push-audit: no daemon has shared from this machine yet: start it with the store set (hookwise daemon start), then run this again',
      exitCode: 1,
    };
  const [{ PostgresStore }, { pushAuditHistory }] = await Promise.all([
    import('../store/postgres.js'),
    import('../store/fleet-share.js'),
  ]);
  let store: Awaited<ReturnType<typeof PostgresStore.open>> | undefined;
  try {
    store = await PostgresStore.open(settings, origin);
    const r = await pushAuditHistory(store, where.runtimeDir, new Date(from).toISOString());
    const lines = r.refused.map((x) => `not sent: the line at byte ${x.offset}: ${x.why}`);
    lines.push(
      `store push-audit: ${r.sent} audit line${r.sent === 1 ? '' : 's'} since ${new Date(from).toISOString()} added to the ${settings.team} team's store (lines it held already are not doubled)${r.refused.length > 0 ? `; ${r.refused.length} refused by the checks` : ''}`,
    );
    return { stdout: lines.join('\n'), exitCode: 0 };
  } catch (error) {
    return { stdout: `store push-audit: cannot reach the store: ${reason(error)}`, exitCode: 1 };
  } finally {
    await store?.close().catch(() => undefined);
  }
}

async function openStore(settings: StoreSettings, where: Locations): Promise<DecisionStore> {
  if (settings.kind === 'files') return new FileDecisionStore(where.userConfigDir, 'local');
  const { PostgresStore } = await import('../store/postgres.js');
  return PostgresStore.open(settings, 'export');
}

function reason(error: unknown): string {
  return sanitize(error instanceof Error ? error.message : String(error)).text;
}
