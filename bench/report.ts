/** Presenting a bench report, and the CI gate. Pure: rows in, text or verdict out. */
import type { BenchReport, BenchRow, ProgressEvent } from './run.js';
import type { BenchSize } from './suite.js';
import type { Unit } from './targets.js';

/**
 * CI machines are shared and noisy, so CI fails only on a gross miss: a median more than this many times
 * its target. Ordinary misses are printed, not fatal; the full bench on a quiet machine is the judge.
 */
export const CI_TOLERANCE = 3;

/** Units of figures that no machine noise moves (rates computed once on a fixed corpus): CI holds them to their target exactly. */
export const EXACT_UNITS: readonly Unit[] = ['%'];

/** The factor CI allows over a row's target: CI_TOLERANCE for timings and ratios, 1 for exact figures. */
export function ciTolerance(row: Pick<BenchRow, 'unit'>, tolerance: number = CI_TOLERANCE): number {
  return EXACT_UNITS.includes(row.unit) ? 1 : tolerance;
}

/** Rows that fail CI: graded rows whose median exceeds target × their tolerance, or that produced no number. */
export function ciFailures(rows: readonly BenchRow[], tolerance: number = CI_TOLERANCE): BenchRow[] {
  // `!(a <= b)` rather than `a > b`: a NaN median (a suite that measured nothing) fails too.
  return rows.filter((r) => r.target !== null && !(r.median <= r.target * ciTolerance(r, tolerance)));
}

export function describeMiss(row: BenchRow): string {
  const over = row.ratio === null || !Number.isFinite(row.ratio) ? 'no measurement' : `${fmt(row.ratio)}× its target`;
  return `${row.id}: median ${value(row.median, row.unit)} against target ${value(row.target ?? Number.NaN, row.unit)} (${over})`;
}

export function fmt(n: number): string {
  if (!Number.isFinite(n)) return 'n/a';
  return Math.abs(n) >= 100 ? n.toFixed(0) : n.toPrecision(3);
}

function value(n: number, unit: Unit): string {
  if (unit === '%') return Number.isFinite(n) ? `${n.toFixed(1)} %` : 'n/a';
  return unit === '×' ? `${fmt(n)}×` : `${fmt(n)} ${unit}`;
}

function targetCell(row: BenchRow): string {
  if (row.target === null) return 'report';
  const stretch = row.stretch === undefined ? '' : ` (${value(row.stretch, row.unit)})`;
  return `≤ ${value(row.target, row.unit)}${stretch}`;
}

export function renderTable(report: BenchReport): string {
  const { meta, rows } = report;
  const header = ['row', 'target (stretch)', 'median', 'p99', '÷ target', 'status'];
  // A '%' row is one figure, not a distribution of timings: no p99 column.
  const cells = rows.map((r) => [
    r.id,
    targetCell(r),
    value(r.median, r.unit),
    r.unit === '%' ? '—' : value(r.p99, r.unit),
    r.ratio === null ? '—' : fmt(r.ratio),
    r.status,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  // Text columns left-aligned, numbers right-aligned.
  const line = (c: string[]): string =>
    c
      .map((s, i) => (i === 0 || i === 5 ? s.padEnd(widths[i]!) : s.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();

  const out = [
    `hookwise bench: node ${meta.node}, ${meta.platform}, ${meta.cpus} CPUs (${meta.cpuModel}), ${SIZE_WORDS[meta.size]}`,
    '',
    line(header),
    line(widths.map((w) => '─'.repeat(w))),
  ];
  rows.forEach((r, i) => {
    out.push(line(cells[i]!));
    if (r.parts !== undefined) {
      const parts = r.parts.map((p) => `${p.label} ${value(p.median, p.unit)} (p99 ${value(p.p99, p.unit)})`);
      out.push(`    ${parts.join(' vs ')}, ${r.samples} interleaved runs each`);
    }
    if (r.note !== undefined) out.push(`    ${r.note}`);
  });
  out.push(
    '',
    'median and p99 per call; in-process rows time batches of calls (p99 of batch means); ratio rows: ratio of medians, ratio of p99s; % rows: one figure computed once per run on a fixed corpus (not a timing).',
    durationLine(meta),
  );
  return out.join('\n');
}

const SIZE_WORDS: Record<BenchSize, string> = {
  quick: '--quick (a smoke test: rough numbers)',
  standard: 'standard run (--full adds the large rows and more samples)',
  full: '--full run',
};

/** How long the run took and where the time went, slowest suites first. */
export function durationLine(meta: BenchReport['meta']): string {
  const slowest = [...meta.suites].sort((a, b) => b.ms - a.ms).slice(0, 5);
  return `ran in ${seconds(meta.ms)}; slowest suites: ${slowest.map((s) => `${s.name} ${seconds(s.ms)}`).join(', ')}`;
}

function seconds(ms: number): string {
  return ms >= 10_000 ? `${Math.round(ms / 1000)} s` : `${(ms / 1000).toFixed(1)} s`;
}

/**
 * One line of progress for a terminal: a bar of suites done, the elapsed time, and what the current suite
 * says (`[#####·······] 5/13 0:42 startup: 20/60 rounds`).
 */
export function progressLine(event: ProgressEvent, elapsedMs: number, width = 20): string {
  const filled = event.total === 0 ? width : Math.round((event.done / event.total) * width);
  const s = Math.floor(elapsedMs / 1000);
  const clock = `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
  const bar = `[${'#'.repeat(filled)}${'·'.repeat(width - filled)}]`;
  return `bench ${bar} ${event.done}/${event.total} ${clock} ${event.message}`;
}
