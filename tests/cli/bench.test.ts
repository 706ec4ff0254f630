/**
 * `hookwise bench`: every target row gets a real measurement, the report renders, and the CI gate fails only
 * on gross misses. The suites need the built bin (dist/hookwise.cjs): `npm test` builds it first.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ciFailures, renderTable } from '../../bench/report.js';
import { grade, runBench, STATUSES, type BenchReport, type BenchRow } from '../../bench/run.js';
import { TARGETS, type TargetId, type TargetSpec } from '../../bench/targets.js';
import { hookwiseBin, packageRoot } from '../../src/util/package-root.js';

type Spec = TargetSpec & { id: TargetId };
const graded: Spec = { id: 'path-policy.decide', description: 'a graded row', unit: 'µs', target: 1, stretch: 0.5 };
const reportOnly: Spec = { id: 'cascade.in-process', description: 'a report row', unit: 'µs', target: null };

function rowMeasuring(spec: Spec, median: number): BenchRow {
  return grade(spec, { id: spec.id, median, p99: median * 2, samples: 10 });
}

describe('bench grading', () => {
  it.each([
    [0.4, 'stretch'],
    [0.5, 'stretch'],
    [0.9, 'ok'],
    [1, 'ok'],
    [1.1, 'miss'],
  ] as const)('a median of %s µs against ≤ 1 µs (stretch 0.5) is %s', (median, status) => {
    expect(rowMeasuring(graded, median).status).toBe(status);
  });

  it('a row without a target is reported, not graded', () => {
    expect(rowMeasuring(reportOnly, 1e6)).toMatchObject({ status: 'report', ratio: null });
  });
});

describe('bench --ci gate', () => {
  it.each([
    [2.9, 'passes'],
    [3, 'passes'],
    [3.1, 'fails'],
  ] as const)('a target of 1 µs missed %s× %s', (times, outcome) => {
    const failures = ciFailures([rowMeasuring(graded, times)]);
    expect(failures.length).toBe(outcome === 'fails' ? 1 : 0);
  });

  it('never fails on report-only rows, and fails a row that measured nothing', () => {
    expect(ciFailures([rowMeasuring(reportOnly, 1e9)])).toEqual([]);
    expect(ciFailures([rowMeasuring(graded, Number.NaN)]).map((r) => r.id)).toEqual(['path-policy.decide']);
  });
});

describe('bench run (--quick)', () => {
  let report: BenchReport | undefined;

  it('measures every target row with a finite median', async () => {
    report = await runBench({ quick: true });
    expect(report.rows.map((r) => r.id)).toEqual(TARGETS.map((t) => t.id));
    for (const row of report.rows) {
      expect(Number.isFinite(row.median) && row.median > 0, `${row.id} median ${row.median}`).toBe(true);
      expect(Number.isFinite(row.p99), `${row.id} p99 ${row.p99}`).toBe(true);
      expect(row.samples).toBeGreaterThan(0);
      expect(STATUSES).toContain(row.status);
    }
  }, 120_000); // 13-15 s in a loaded CI run; the timeout is for a hang, not a speed check

  it('renders the table: one line per row, the ratio rows with both commands', () => {
    expect(report, 'the run above failed').toBeDefined();
    const table = renderTable(report!);
    for (const row of report!.rows) expect(table).toMatch(new RegExp(`^${row.id.replace(/[.+]/g, '\\$&')} .* (ok|stretch|miss|report)$`, 'm'));
    expect(table).toContain('hookwise check');
    expect(table).toContain('node -e 0');
  });

  // The CI gate itself (`bench --ci`, full mode) runs as its own step of `npm test`, after vitest, so it
  // does not compete with the e2e tests for the CPU; here only the CLI wiring is checked.
  it('the built CLI runs `bench --quick` and prints the rows as JSON', () => {
    const run = spawnSync(process.execPath, [hookwiseBin(), 'bench', '--quick', '--json'], {
      cwd: packageRoot(),
      encoding: 'utf8',
      // Generous: on a loaded CI machine the quick run of every suite took over 30 s.
      timeout: 150_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const printed = JSON.parse(run.stdout) as BenchReport;
    expect(printed.rows.map((r) => r.id)).toEqual(TARGETS.map((t) => t.id));
    expect(printed.meta.quick).toBe(true);
  }, 180_000);
});
