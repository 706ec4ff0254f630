/**
 * The team's audit, read from its store (migration 004's `audit` table, filled by each daemon's outbox:
 * store/fleet-share.ts) for `hookwise stats --fleet` and `monitor --fleet`: counts per machine, per verdict
 * and per tool over every row, the newest rows as audit records, and the rows written since a pull.
 *
 * Rows are other machines' writing: each is checked and its text sanitized again on the way in
 * (store/fleet-rows.ts auditFromRow); one that fails is skipped and named by its id.
 */
import type { AuditFilter } from '../audit/stats.js';
import type { Verdict } from '../core/decision.js';
import { shownId } from '../sanitize/ids.js';
import { auditFromRow, type AuditRow, type FleetAuditRecord } from './fleet-rows.js';
import type { PostgresStore } from './postgres.js';

export interface VerdictCounts {
  decisions: number;
  allow: number;
  ask: number;
  deny: number;
}

export interface FleetCounts {
  total: VerdictCounts;
  machines: Record<string, VerdictCounts>;
  tools: Record<string, VerdictCounts>;
}

export interface FleetRows {
  records: FleetAuditRecord[];
  problems: string[];
}

const COLUMNS = `id::text AS id, machine, ts, session, role, host, tool, verdict, tier, rule, latency_ms, paths, input,
  secrets, input_hash, project, supervisor`;

/** The filter as SQL on the audit table: the same fields and meaning as audit/stats.ts matchesFilter. */
function where(filter: AuditFilter, params: unknown[]): string {
  const parts: string[] = [];
  for (const field of ['session', 'role', 'verdict', 'tier'] as const) {
    const value = filter[field];
    if (value === undefined) continue;
    params.push(value);
    parts.push(`${field} = $${params.length}`);
  }
  if (filter.project !== undefined) {
    params.push(filter.project);
    // A payload that could not be read, with no project to place it by, shows in every project's view.
    parts.push(`(project = $${params.length} OR (project IS NULL AND tier = 'input' AND rule LIKE 'error:%'))`);
  }
  return parts.length === 0 ? 'TRUE' : parts.join(' AND ');
}

/** Decisions per machine, per tool and in all, by verdict, over every row the filter selects. */
export async function fleetCounts(store: PostgresStore, filter: AuditFilter): Promise<FleetCounts> {
  const params: unknown[] = [];
  const rows = await store.query<{ machine: string; tool: string; verdict: Verdict; n: string }>(
    `SELECT machine, tool, verdict, count(*)::text AS n FROM "${store.schema}".audit
     WHERE ${where(filter, params)} GROUP BY machine, tool, verdict`,
    params,
  );
  const empty = (): VerdictCounts => ({ decisions: 0, allow: 0, ask: 0, deny: 0 });
  const out: FleetCounts = { total: empty(), machines: {}, tools: {} };
  for (const row of rows) {
    if (row.verdict !== 'allow' && row.verdict !== 'ask' && row.verdict !== 'deny') continue;
    const n = Number(row.n);
    const machine = shownId(row.machine, 64);
    const tool = shownId(row.tool);
    for (const c of [out.total, (out.machines[machine] ??= empty()), (out.tools[tool] ??= empty())]) {
      c.decisions += n;
      c[row.verdict] += n;
    }
  }
  return out;
}

/** The newest `limit` rows the filter selects (by the time each was decided), oldest first. */
export async function recentFleetAudit(store: PostgresStore, filter: AuditFilter, limit: number): Promise<FleetRows> {
  const params: unknown[] = [];
  const clause = where(filter, params);
  params.push(limit);
  const rows = await store.query<RowIn>(
    `SELECT * FROM (SELECT ${COLUMNS}, ts AS at FROM "${store.schema}".audit WHERE ${clause}
       ORDER BY ts DESC, id DESC LIMIT $${params.length}) t ORDER BY at, id::bigint`,
    params,
  );
  return checked(rows);
}

/**
 * The rows written since `cursor` (a pull's horizon; none: from now on), with the horizon for the next pull.
 * A row whose transaction was still open at the last pull comes again: the caller drops ids it has shown.
 */
export async function fleetAuditSince(
  store: PostgresStore,
  filter: AuditFilter,
  cursor: string | undefined,
): Promise<FleetRows & { horizon: string; xacts: Map<string, bigint> }> {
  const params: unknown[] = [];
  const clause = where(filter, params);
  params.push(cursor ?? null);
  const [got] = await store.query<{ horizon: string; rows: (RowIn & { xact: string })[] }>(
    `SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS horizon,
       (SELECT coalesce(jsonb_agg(t ORDER BY t.id), '[]'::jsonb) FROM
         (SELECT ${COLUMNS}, xact::text AS xact FROM "${store.schema}".audit
          WHERE ${clause} AND $${params.length}::text IS NOT NULL AND xact >= $${params.length}::xid8) t) AS rows`,
    params,
  );
  const xacts = new Map(got!.rows.map((r) => [r.id, BigInt(r.xact)]));
  return { ...checked(got!.rows), horizon: got!.horizon, xacts };
}

type RowIn = Omit<AuditRow, 'src_ino' | 'src_offset' | 'ts'> & { id: string; ts: string | Date };

function checked(rows: readonly RowIn[]): FleetRows {
  const records: FleetAuditRecord[] = [];
  const problems: string[] = [];
  for (const row of rows) {
    const r = auditFromRow(row);
    if (typeof r === 'string') problems.push(r);
    else records.push(r);
  }
  return { records, problems };
}

/** The per-machine and per-tool tables of `stats --fleet`. */
export function renderFleetCounts(c: FleetCounts, maxTools = 20): string[] {
  const line = (name: string, v: VerdictCounts): string =>
    `  ${name.padEnd(24)} ${String(v.decisions).padStart(8)}  allow ${String(v.allow).padStart(7)}  ask ${String(v.ask).padStart(6)}  deny ${String(v.deny).padStart(6)}`;
  const sorted = (m: Record<string, VerdictCounts>): [string, VerdictCounts][] =>
    Object.entries(m).sort((a, b) => b[1].decisions - a[1].decisions || a[0].localeCompare(b[0]));
  const machines = sorted(c.machines);
  const tools = sorted(c.tools);
  return [
    `fleet: ${c.total.decisions} decisions from ${machines.length} machine${machines.length === 1 ? '' : 's'}`,
    'per machine:',
    ...machines.map(([m, v]) => line(m, v)),
    'per tool:',
    ...tools.slice(0, maxTools).map(([t, v]) => line(t, v)),
    ...(tools.length > maxTools ? [`  … ${tools.length - maxTools} more tools`] : []),
  ];
}
