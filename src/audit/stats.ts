/** Aggregations over audit records (pure): decisions by tier / verdict / role, ask frequency, latency, memory hit rates. */
import type { TierName } from '../core/decision.js';
import type { AuditRecord } from './log.js';
import type { WallsHitRecord } from './walls-log.js';
import type { SupervisorReviewRecord } from './supervisor-log.js';

/** The decision-memory tiers: explicit overrides, the exact cache, similarity (Jaccard). */
export const MEMORY_TIERS = ['override', 'exact-cache', 'jaccard', 'embedding'] as const satisfies readonly TierName[];
export type MemoryTier = (typeof MEMORY_TIERS)[number];

export interface HitRate {
  count: number;
  /** count / all pre-tool decisions (every audited decision is one), 0 when there are none. */
  rate: number;
}

export interface MemoryHits {
  /** The pre-tool decisions the rates are over. */
  decisions: number;
  byTier: Record<MemoryTier, HitRate>;
  /** Decided by any memory tier. */
  overall: HitRate;
}

export interface AuditFilter {
  session?: string;
  role?: string;
  verdict?: string;
  tier?: string;
  /** The project root (sanitized, as recorded); undefined: every project. */
  project?: string;
}

export function matchesFilter(r: AuditRecord, f: AuditFilter): boolean {
  return (
    (f.session === undefined || r.session === f.session) &&
    (f.role === undefined || r.role === f.role) &&
    (f.verdict === undefined || r.verdict === f.verdict) &&
    (f.tier === undefined || r.tier === f.tier) &&
    (f.project === undefined || r.project === f.project || (r.project === undefined && unplaced(r)))
  );
}

/**
 * A call denied because its payload could not be read, with no cwd to place it by: shown in every project's
 * view rather than in none (records older than the project field stay out: they were placed, only not recorded).
 */
function unplaced(r: AuditRecord): boolean {
  return r.tier === 'input' && r.rule !== null && r.rule.startsWith('error:');
}

export interface Stats {
  total: number;
  byVerdict: Record<string, number>;
  byTier: Record<string, Record<string, number>>;
  byRole: Record<string, Record<string, number>>;
  /** Share of decisions that asked a human. */
  askRate: number;
  /** What keeps asking: (tool, first path or input hash) with counts, most frequent first. */
  topAsks: { tool: string; subject: string; count: number }[];
  /** MCP tools (`mcp__<server>__<tool>`) by how often they asked, then by calls: where a catalogue entry or a role's mcp settings would help. */
  mcpTools: McpToolStats[];
  latencyMs: { median: number; p99: number };
  /** How often each memory tier decided (its hit rate). */
  memory: MemoryHits;
  /** Confined allows (issue 19), and how many of their runs the walls stopped. */
  confinement: ConfinementStats;
  /** Tier 3: its answers and how often a human overrode them, per project. */
  supervisor: SupervisorStats;
}

export interface McpToolStats {
  tool: string;
  calls: number;
  asks: number;
  denies: number;
}

export interface SupervisorProjectStats {
  /** Calls the supervisor answered (audit log). */
  answered: number;
  /** …of which its answer decided (at or above the threshold); the rest went to a human as recommendations. */
  decided: number;
  /** A human decided a call it had answered (approved at the prompt, answered in the queue, invalidated its decision). */
  reviewed: number;
  /** …and decided otherwise. */
  overridden: number;
  /** overridden / reviewed: how far the human trusts it, the input for raising or lowering its threshold here. */
  overrideRate: number;
}

export interface SupervisorStats {
  total: SupervisorProjectStats;
  /** Keyed by the project root as recorded (sanitized); `(unknown)` for records without one. */
  byProject: Record<string, SupervisorProjectStats>;
}

export interface ConfinementStats {
  /** Allows that ran confined, and their share of all decisions. */
  confined: HitRate;
  /** Confined runs that the walls stopped (walls.jsonl), and their share of the confined allows. */
  wallsHits: HitRate;
  /** The walls hits by what was stopped: write, network, syscall. */
  byKind: Record<string, number>;
}

function bump(table: Record<string, Record<string, number>>, key: string, verdict: string): void {
  const row = (table[key] ??= {});
  row[verdict] = (row[verdict] ?? 0) + 1;
}

export function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index]!;
}

export function computeStats(
  records: AuditRecord[],
  wallsHits: readonly WallsHitRecord[] = [],
  reviews: readonly SupervisorReviewRecord[] = [],
): Stats {
  const byVerdict: Record<string, number> = {};
  const byTier: Stats['byTier'] = {};
  const byRole: Stats['byRole'] = {};
  const asks = new Map<string, { tool: string; subject: string; count: number }>();
  const mcp = new Map<string, McpToolStats>();
  for (const r of records) {
    if (r.tool.startsWith('mcp__')) {
      const t = mcp.get(r.tool) ?? { tool: r.tool, calls: 0, asks: 0, denies: 0 };
      t.calls++;
      if (r.verdict === 'ask') t.asks++;
      if (r.verdict === 'deny') t.denies++;
      mcp.set(r.tool, t);
    }
    byVerdict[r.verdict] = (byVerdict[r.verdict] ?? 0) + 1;
    bump(byTier, r.tier, r.verdict);
    bump(byRole, r.role ?? '(none)', r.verdict);
    if (r.verdict === 'ask') {
      const subject = r.paths[0] ?? shortInput(r.input);
      const key = `${r.tool}\u0000${subject}`;
      const entry = asks.get(key) ?? { tool: r.tool, subject, count: 0 };
      entry.count++;
      asks.set(key, entry);
    }
  }
  const latencies = records.map((r) => r.latency_ms).sort((a, b) => a - b);
  return {
    total: records.length,
    byVerdict,
    byTier,
    byRole,
    askRate: records.length === 0 ? 0 : (byVerdict.ask ?? 0) / records.length,
    topAsks: [...asks.values()].sort((a, b) => b.count - a.count || a.tool.localeCompare(b.tool)).slice(0, 10),
    mcpTools: [...mcp.values()].sort((a, b) => b.asks - a.asks || b.calls - a.calls || a.tool.localeCompare(b.tool)),
    latencyMs: { median: percentile(latencies, 0.5), p99: percentile(latencies, 0.99) },
    memory: memoryHits(records),
    confinement: confinementStats(records, wallsHits),
    supervisor: supervisorStats(records, reviews),
  };
}

export function supervisorStats(
  records: readonly AuditRecord[],
  reviews: readonly SupervisorReviewRecord[],
): SupervisorStats {
  const empty = (): SupervisorProjectStats => ({
    answered: 0,
    decided: 0,
    reviewed: 0,
    overridden: 0,
    overrideRate: 0,
  });
  const total = empty();
  const byProject: Record<string, SupervisorProjectStats> = {};
  const rows = (project: string | undefined): SupervisorProjectStats[] => [
    total,
    (byProject[project ?? '(unknown)'] ??= empty()),
  ];
  for (const r of records) {
    if (r.supervisor === undefined) continue;
    for (const row of rows(r.project)) {
      row.answered++;
      if (r.supervisor.decided) row.decided++;
    }
  }
  for (const v of reviews) {
    for (const row of rows(v.project)) {
      row.reviewed++;
      if (v.override) row.overridden++;
    }
  }
  for (const row of [total, ...Object.values(byProject)])
    row.overrideRate = row.reviewed === 0 ? 0 : row.overridden / row.reviewed;
  return { total, byProject };
}

export function renderSupervisorStats(s: SupervisorStats): string[] {
  if (s.total.answered === 0 && s.total.reviewed === 0) return [];
  const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
  const line = (name: string, r: SupervisorProjectStats): string =>
    `  ${name}: ${r.answered} answered (${r.decided} decided, ${r.answered - r.decided} left to a human), ${r.reviewed} reviewed by a human, ${r.overridden} overridden (${pct(r.overrideRate)})`;
  const projects = Object.keys(s.byProject).sort();
  return [
    'supervisor (tier 3):',
    line('all', s.total),
    ...(projects.length > 1 ? projects.map((p) => line(p, s.byProject[p]!)) : []),
  ];
}

export function confinementStats(
  records: readonly AuditRecord[],
  wallsHits: readonly WallsHitRecord[],
): ConfinementStats {
  const confined = records.filter((r) => r.tier === 'confine' && r.verdict === 'allow').length;
  const byKind: Record<string, number> = {};
  for (const h of wallsHits) byKind[h.kind] = (byKind[h.kind] ?? 0) + 1;
  return {
    confined: { count: confined, rate: records.length === 0 ? 0 : confined / records.length },
    wallsHits: { count: wallsHits.length, rate: confined === 0 ? 0 : wallsHits.length / confined },
    byKind,
  };
}

export function memoryHits(records: readonly AuditRecord[]): MemoryHits {
  const decisions = records.length;
  const rate = (count: number): HitRate => ({ count, rate: decisions === 0 ? 0 : count / decisions });
  const counts = new Map<string, number>(MEMORY_TIERS.map((t) => [t, 0]));
  for (const r of records) {
    const n = counts.get(r.tier);
    if (n !== undefined) counts.set(r.tier, n + 1);
  }
  const byTier = Object.fromEntries(MEMORY_TIERS.map((t) => [t, rate(counts.get(t)!)])) as Record<MemoryTier, HitRate>;
  return { decisions, byTier, overall: rate([...counts.values()].reduce((a, b) => a + b, 0)) };
}

export function renderStats(s: Stats): string {
  if (s.total === 0) return 'no decisions recorded yet';
  const verdicts = ['allow', 'ask', 'deny'];
  const table = (title: string, rows: Record<string, Record<string, number>>): string[] => {
    const names = Object.keys(rows).sort();
    const width = Math.max(title.length, ...names.map((n) => n.length));
    return [
      `${title.padEnd(width)}  ${verdicts.map((v) => v.padStart(6)).join('')}   total`,
      ...names.map((n) => {
        const row = rows[n]!;
        const total = verdicts.reduce((sum, v) => sum + (row[v] ?? 0), 0);
        return `${n.padEnd(width)}  ${verdicts.map((v) => String(row[v] ?? 0).padStart(6)).join('')}  ${String(total).padStart(6)}`;
      }),
    ];
  };
  const lines = [
    `${s.total} decisions: ${verdicts.map((v) => `${s.byVerdict[v] ?? 0} ${v}`).join(', ')}; ${(s.askRate * 100).toFixed(1)}% asked a human`,
    `latency inside hookwise: median ${s.latencyMs.median.toFixed(2)} ms, p99 ${s.latencyMs.p99.toFixed(2)} ms`,
    '',
    ...table('tier', s.byTier),
    '',
    ...table('role', s.byRole),
  ];
  if (s.topAsks.length > 0) {
    lines.push('', 'most frequent asks:');
    for (const a of s.topAsks) lines.push(`  ${String(a.count).padStart(5)}  ${a.tool}  ${a.subject}`);
  }
  if (s.mcpTools.length > 0) {
    lines.push('', 'MCP tools by asks (asks / denies / calls):');
    for (const t of s.mcpTools.slice(0, 15))
      lines.push(
        `  ${String(t.asks).padStart(5)} ${String(t.denies).padStart(5)} ${String(t.calls).padStart(6)}  ${t.tool}`,
      );
    if (s.mcpTools.length > 15) lines.push(`  … and ${s.mcpTools.length - 15} more (--json lists all)`);
  }
  lines.push('', ...renderMemoryHits(s.memory));
  const supervised = renderSupervisorStats(s.supervisor);
  if (supervised.length > 0) lines.push('', ...supervised);
  const c = s.confinement;
  if (c.confined.count > 0 || c.wallsHits.count > 0) {
    const kinds = Object.entries(c.byKind)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, n]) => `${n} ${k}`)
      .join(', ');
    lines.push(
      '',
      `confined allows: ${c.confined.count} (${(c.confined.rate * 100).toFixed(1)}% of decisions); the walls stopped ${c.wallsHits.count} of their runs (${(c.wallsHits.rate * 100).toFixed(1)}%)${kinds === '' ? '' : `: ${kinds}`}`,
    );
  }
  return lines.join('\n');
}

export function renderMemoryHits(m: MemoryHits): string[] {
  const row = (name: string, h: HitRate): string =>
    `  ${name.padEnd(12)}${String(h.count).padStart(7)}  ${`${(h.rate * 100).toFixed(1)}%`.padStart(6)}`;
  return [
    `decision memory hit rates (share of ${m.decisions} decision${m.decisions === 1 ? '' : 's'}):`,
    ...MEMORY_TIERS.map((t) => row(t, m.byTier[t])),
    row('all memory', m.overall),
  ];
}

/** A call's sanitized input on one line, cut: what stats and monitor show for a call without paths (a command). */
export function shortInput(input: string, max = 100): string {
  const line = input.replace(/\s*\n\s*/g, ' ⏎ ');
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

export function renderRecord(r: AuditRecord): string {
  const time = r.ts.slice(11, 19);
  const rule = r.rule === null ? '' : `  (${r.rule})`;
  const subject = r.paths.length > 0 ? `  ${r.paths.join(' ')}` : r.input === '' ? '' : `  ${shortInput(r.input, 80)}`;
  return `${time}  ${r.verdict.padEnd(5)}  ${r.tier.padEnd(11)}  ${(r.role ?? '-').padEnd(12)}  ${r.session}  ${r.tool}${subject}${rule}  ${r.latency_ms.toFixed(1)}ms`;
}
