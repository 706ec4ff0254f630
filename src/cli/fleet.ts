/**
 * `hookwise stats --fleet` and `monitor --fleet`: the team's audit from its store (store/fleet-audit.ts),
 * every machine's decisions in one place. The store is the one this user's config names (store/settings.ts);
 * the machine's own audit log is what `stats` and `monitor` read without `--fleet`.
 */
import { computeStats, renderRecord, renderStats, type AuditFilter } from '../audit/stats.js';
import { HookwiseError } from '../core/errors.js';
import { sanitize } from '../sanitize/index.js';
import type { PostgresStore } from '../store/postgres.js';
import { describeUrl, storeSettings } from '../store/settings.js';
import { locations } from '../util/locations.js';

/** Rows `stats --fleet` computes tiers, latency and the rest over: the newest this many. */
export const FLEET_STATS_ROWS = 10_000;

async function openTeamStore(): Promise<{ store: PostgresStore; team: string; url: string }> {
  const { settings, problems } = storeSettings(locations().userConfigDir);
  if (settings.kind === 'files')
    throw new HookwiseError(
      'USAGE',
      [
        ...problems,
        "--fleet reads the team's audit from its store, and none is set: store.url in ~/.config/hookwise/config.yml or HOOKWISE_STORE_URL (docs/team.md)",
      ].join('\n'),
    );
  const { PostgresStore } = await import('../store/postgres.js');
  return {
    store: await PostgresStore.open(settings, 'cli'),
    team: settings.team,
    url: describeUrl(settings.url),
  };
}

const unreachable = (url: string, error: unknown): HookwiseError =>
  new HookwiseError(
    'USAGE',
    `the team's store at ${url} did not answer: ${sanitize((error as Error).message).text} (hookwise store status)`,
  );

export async function fleetStats(filter: AuditFilter, asJson: boolean): Promise<string> {
  const { fleetCounts, recentFleetAudit, renderFleetCounts } = await import('../store/fleet-audit.js');
  const { store, team, url } = await openTeamStore();
  try {
    const counts = await fleetCounts(store, filter);
    const recent = await recentFleetAudit(store, filter, FLEET_STATS_ROWS);
    // Walls hits and supervisor reviews stay on each machine: the fleet's figures are the audit's.
    const s = computeStats(recent.records, [], []);
    const sampled = recent.records.length < counts.total.decisions;
    if (asJson) return JSON.stringify({ team, ...counts, stats: s, sampled, problems: recent.problems }, null, 2);
    return [
      `team ${team} (${url})`,
      ...renderFleetCounts(counts),
      '',
      sampled ? `the newest ${recent.records.length} decisions:` : 'all decisions:',
      renderStats(s),
      ...recent.problems.map((p) => `warning: ${p}`),
    ].join('\n');
  } catch (error) {
    if (error instanceof HookwiseError) throw error;
    throw unreachable(url, error);
  } finally {
    await store.close().catch(() => undefined);
  }
}

export interface FleetMonitorOptions extends AuditFilter {
  json?: boolean;
  lines?: number;
  follow?: boolean;
  /** How often to look when no notification came (a notification wakes it at once). */
  intervalMs?: number;
}

/**
 * The newest decisions of every machine, then each new one as it lands: woken by the store's NOTIFY, and
 * polling as well (a notification lost with a dropped connection). A store that goes away is waited for.
 */
export async function fleetMonitor(
  options: FleetMonitorOptions,
  write: (line: string) => void,
  signal?: AbortSignal,
): Promise<void> {
  const { fleetAuditSince, recentFleetAudit } = await import('../store/fleet-audit.js');
  const { store, url } = await openTeamStore();
  const show = (r: Parameters<typeof renderRecord>[0] & { machine: string }): void =>
    write(options.json === true ? JSON.stringify(r) : `${r.machine}  ${renderRecord(r)}`);
  // A notification (or the abort) that comes while a pull runs is kept for the next wait, not lost.
  let pending = false;
  let wakeUp: (() => void) | undefined;
  const wake = (): void => {
    pending = true;
    wakeUp?.();
  };
  signal?.addEventListener('abort', wake, { once: true });
  let stopListening: (() => Promise<void>) | undefined;
  const listen = async (): Promise<void> => {
    stopListening = await store.listen(wake, () => {
      stopListening = undefined;
    }, ['audit']);
  };
  try {
    let cursor: string;
    const shown = new Map<string, bigint>();
    try {
      // Listening first, then the horizon, then the newest rows: a row landing meanwhile is shown once, by the follow.
      if (options.follow !== false) await listen();
      cursor = (await fleetAuditSince(store, options, undefined)).horizon;
      const recent = await recentFleetAudit(store, options, options.lines ?? 10);
      for (const r of recent.records) shown.set(r.id, BigInt(cursor));
      recent.records.forEach(show);
      recent.problems.forEach((p) => write(`warning: ${p}`));
    } catch (error) {
      throw unreachable(url, error);
    }
    if (options.follow === false) return;
    let down = false;
    while (signal?.aborted !== true) {
      if (!pending)
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, options.intervalMs ?? 1000);
          wakeUp = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      pending = false;
      wakeUp = undefined;
      try {
        if (stopListening === undefined) await listen();
        const got = await fleetAuditSince(store, options, cursor);
        for (const r of got.records) {
          if (shown.has(r.id)) continue;
          shown.set(r.id, got.xacts.get(r.id) ?? 0n);
          show(r);
        }
        got.problems.forEach((p) => write(`warning: ${p}`));
        // Rows of transactions finished before the new horizon never come again: forget them.
        const horizon = BigInt(got.horizon);
        for (const [id, xact] of shown) if (xact < horizon) shown.delete(id);
        cursor = got.horizon;
        if (down) write(`store: back (${url})`);
        down = false;
      } catch (error) {
        if (!down) write(`warning: ${unreachable(url, error).message}; waiting for it`);
        down = true;
      }
    }
  } finally {
    signal?.removeEventListener('abort', wake);
    await stopListening?.().catch(() => undefined);
    await store.close().catch(() => undefined);
  }
}
