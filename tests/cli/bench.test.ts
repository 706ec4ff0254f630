/**
 * `hookwise bench`: every target row gets a real measurement, the report renders, and the CI gate fails only
 * on gross misses. The suites need the built bin (dist/hookwise.cjs): `npm test` builds it first.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evaluateLearning, MEMORY_TIERS, renderLearningEval, type LearningEval } from '../../bench/eval-learning.js';
import { ciFailures, progressLine, renderTable } from '../../bench/report.js';
import { probeConfinement } from '../../src/confine/probe.js';
import {
  benchMeta,
  grade,
  runBench,
  STATUSES,
  SUITES,
  type BenchReport,
  type BenchRow,
  type ProgressEvent,
} from '../../bench/run.js';
import { corpusRates } from '../../bench/suites/sanitize.js';
import { TARGETS, targetOf, type TargetId, type TargetSpec } from '../../bench/targets.js';
import { benchSize, evalLearning, progressSink } from '../../src/cli/bench.js';
import { HookwiseError } from '../../src/core/errors.js';
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

  it('holds a % row (a rate on a fixed corpus, no machine noise) to its target exactly', () => {
    const rate: Spec = { id: 'sanitize.miss-rate', description: 'a rate', unit: '%', target: 2 };
    expect(ciFailures([rowMeasuring(rate, 2)])).toEqual([]);
    expect(ciFailures([rowMeasuring(rate, 2.1)]).map((r) => r.id)).toEqual(['sanitize.miss-rate']);
  });
});

describe('bench % rows', () => {
  it('render with one decimal, without a p99, and with their ratio to the target', () => {
    const rate: Spec = { id: 'sanitize.miss-rate', description: 'a rate', unit: '%', target: 2 };
    const table = renderTable({
      meta: { ...benchMeta(), size: 'standard', suites: [], ms: 0 },
      rows: [rowMeasuring(rate, 5.376), rowMeasuring({ ...rate, id: 'sanitize.false-positive-rate', target: null }, 0)],
    });
    expect(table).toMatch(/^sanitize\.miss-rate +≤ 2\.0 % +5\.4 % +— +2\.69 +miss$/m);
    expect(table).toMatch(/^sanitize\.false-positive-rate +report +0\.0 % +— +— +report$/m);
  });

  it('the sanitizer rates on the built-in corpus are computed once and come out the same every time', () => {
    const [miss, fp] = corpusRates();
    expect(miss).toMatchObject({ id: 'sanitize.miss-rate', samples: expect.any(Number) as number });
    expect(fp).toMatchObject({ id: 'sanitize.false-positive-rate' });
    for (const m of [miss!, fp!]) {
      expect(m.median).toBeGreaterThanOrEqual(0);
      expect(m.median).toBeLessThanOrEqual(100);
      expect(m.p99).toBe(m.median);
      expect(targetOf(m.id).unit).toBe('%');
    }
    expect(corpusRates()).toEqual([miss, fp]);
  });
});

describe('bench sizes and progress', () => {
  it('a standard run by default and with --ci; --quick and --full choose, together they are a usage error', () => {
    expect(benchSize({})).toBe('standard');
    expect(benchSize({ quick: true })).toBe('quick');
    expect(benchSize({ full: true })).toBe('full');
    expect(() => benchSize({ quick: true, full: true })).toThrow(HookwiseError);
  });

  const event = (done: number, message: string): ProgressEvent => ({ suite: 'startup', done, total: 13, message });

  it('a progress line: a bar of suites done, the elapsed time, what the suite says', () => {
    expect(progressLine(event(0, 'path-policy…'), 0, 13)).toBe('bench [·············] 0/13 0:00 path-policy…');
    expect(progressLine(event(5, 'startup: 20/60 rounds'), 83_500, 13)).toBe(
      'bench [#####········] 5/13 1:23 startup: 20/60 rounds',
    );
    expect(progressLine(event(13, 'done'), 61_000, 13)).toBe('bench [#############] 13/13 1:01 done');
  });

  it('on a terminal a bar redrawn in place, ending its line when done; elsewhere nothing, or lines with --progress', () => {
    const written: string[] = [];
    const sink = (isTTY: boolean, forced: boolean) =>
      progressSink({ isTTY, write: (t: string) => written.push(t) }, forced);
    const tty = sink(true, false);
    tty(event(1, 'cascade…'));
    tty(event(13, 'done'));
    // Back to the line's start and clear it (CR, ESC [K), then the line.
    const redraw = '\r\u001b[K';
    expect(written[0]!.startsWith(redraw) && written[0]!.endsWith('cascade…')).toBe(true);
    expect(written[1]!.startsWith(redraw) && written[1]!.endsWith('done\n')).toBe(true);
    written.length = 0;
    sink(false, false)(event(1, 'cascade…'));
    expect(written).toEqual([]);
    sink(false, true)(event(1, 'cascade…'));
    expect(written).toEqual([expect.stringMatching(/^bench \[.*cascade…\n$/)]);
  });
});

describe('bench run (--quick)', () => {
  let report: BenchReport | undefined;
  // every row but those measured in a full run only (large fixtures), and the confinement rows where this machine cannot confine
  const canConfine = probeConfinement().available;
  const quickRows = TARGETS.filter((t) => !('large' in t && t.large) && (!('needs' in t) || canConfine)).map(
    (t) => t.id,
  );

  it('measures every target row with a finite median', async () => {
    report = await runBench({ size: 'quick' });
    expect(report.rows.map((r) => r.id)).toEqual(quickRows);
    for (const row of report.rows) {
      // a rate (%) may well be 0; a timing or ratio of 0 means nothing was measured
      expect(
        Number.isFinite(row.median) && (row.unit === '%' ? row.median >= 0 : row.median > 0),
        `${row.id} median ${row.median}`,
      ).toBe(true);
      expect(Number.isFinite(row.p99), `${row.id} p99 ${row.p99}`).toBe(true);
      expect(row.samples).toBeGreaterThan(0);
      expect(STATUSES).toContain(row.status);
    }
  }, 360_000); // ≈ 45 s on an idle 2-CPU machine (the memory suite builds a 100k-entry index, the daemon suite runs a daemon, the sanitizer suite evaluates its corpus); a loaded CI machine took over 120 s. The timeout is for a hang, not a speed check

  it('the daemon rows went through a daemon the bench started, and it is gone', () => {
    expect(report, 'the run above failed').toBeDefined();
    const note = report!.rows.find((r) => r.id === 'check.client-ratio')?.note ?? '';
    const pid = Number(/answered by the daemon \(pid (\d+)/.exec(note)?.[1]);
    expect(Number.isInteger(pid), note).toBe(true);
    expect(() => process.kill(pid, 0), `daemon ${pid} outlived the bench`).toThrow();
  });

  it('renders the table: one line per row, the ratio rows with both commands', () => {
    expect(report, 'the run above failed').toBeDefined();
    const table = renderTable(report!);
    for (const row of report!.rows)
      expect(table).toMatch(new RegExp(`^${row.id.replace(/[.+]/g, '\\$&')} .* (ok|stretch|miss|report)$`, 'm'));
    expect(table).toContain('hookwise check');
    expect(table).toContain('node -e 0');
  });

  it('says how long the run took and which suites took longest', () => {
    expect(report, 'the run above failed').toBeDefined();
    expect(report!.meta.suites.map((s) => s.name)).toEqual(SUITES.map((s) => s.name));
    expect(renderTable(report!)).toMatch(/^ran in [\d.]+ s; slowest suites: \S+ [\d.]+ s/m);
  });

  // The CI gate itself (`bench --ci`, the standard run) runs as its own step of `npm test`, after vitest, so
  // it does not compete with the e2e tests for the CPU; here only the CLI wiring is checked.
  it('the built CLI runs `bench --quick --json`: clean JSON on stdout, no progress on a stderr that is not a terminal', () => {
    const run = spawnSync(process.execPath, [hookwiseBin(), 'bench', '--quick', '--json'], {
      cwd: packageRoot(),
      encoding: 'utf8',
      // Generous: on a loaded CI machine the quick run of every suite took over 30 s.
      timeout: 360_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const printed = JSON.parse(run.stdout) as BenchReport;
    expect(printed.rows.map((r) => r.id)).toEqual(quickRows);
    expect(printed.meta.size).toBe('quick');
    expect(run.stderr).not.toMatch(/^bench \[/m);
  }, 360_000);
});

/**
 * The learning replay on a tiny synthetic corpus (the development corpus is not available to tests):
 * benign commands no policy tier decides, each repeated, and risky ones the oracle declines, repeated too.
 */
describe('bench --eval-learning', () => {
  const BENIGN = [
    'npm run seed',
    'cargo run --release',
    'docker compose up -d db',
    'node scripts/gen.js',
    'pip install requests',
    'git merge origin/main',
    'gh pr create --fill',
  ];
  const RISKY = [
    'docker run --privileged nginx',
    'ssh prod sudo systemctl restart web',
    'curl -X DELETE https://api.example.com/users/42',
    'scp build.tar.gz deploy@prod:/srv',
  ];
  const rows = [
    ...BENIGN.flatMap((command, i) => Array.from({ length: i < 2 ? 3 : 2 }, () => ({ command, label: 'benign' }))),
    ...RISKY.flatMap((command) => Array.from({ length: 2 }, () => ({ command, label: 'risky' }))),
    { command: 'git push --force origin main', label: 'risky' },
    { command: 'git status --short', label: 'benign' },
    { command: 'rm -rf build', label: 'risky' },
  ];
  let result: LearningEval | undefined;
  let dir: string | undefined;

  it('replays the corpus through check: an approved benign command is remembered, a declined risky one never', async () => {
    dir = mkdtempSync(join(tmpdir(), 'hookwise-learning-test-'));
    const corpus = join(dir, 'corpus.jsonl');
    writeFileSync(corpus, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    try {
      result = await evaluateLearning(corpus, { seed: 7 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(result.rows).toBe(rows.length);
    expect(result.steps.map((s) => s.command).sort()).toEqual(rows.map((r) => r.command).sort());

    for (const command of BENIGN) {
      const [first, ...later] = result.steps.filter((s) => s.command === command);
      expect(first, command).toMatchObject({ verdict: 'ask', tier: 'default', oracle: 'approved' });
      expect(later.length, command).toBeGreaterThan(0);
      for (const repeat of later)
        expect(repeat, `${command}, call ${repeat.call}`).toMatchObject({
          verdict: 'allow',
          tier: 'exact-cache',
          oracle: null,
        });
    }
    for (const step of result.steps.filter((s) => s.label === 'risky')) {
      expect(
        step.verdict === 'allow' && MEMORY_TIERS.includes(step.tier),
        `${step.command} (call ${step.call}): ${step.verdict} by ${step.tier}`,
      ).toBe(false);
    }
    // A decline teaches nothing: the repeat of a risky command no tier decided is asked again.
    for (const command of RISKY) {
      for (const step of result.steps.filter((s) => s.command === command))
        expect(step, command).toMatchObject({ verdict: 'ask', tier: 'default', oracle: 'declined' });
    }
    expect(result.wrongAutoAllows).toEqual([]);
    expect(result.learned).toEqual({ allow: BENIGN.length, ask: 0 });
    expect(result.byMemory).toBe(rows.filter((r) => r.label === 'benign').length - BENIGN.length - 1); // every repeat; `git status` is a pack's
    expect(result.oracle.approved + result.oracle.declined).toBe(result.oracle.asked);
  }, 60_000);

  it('prints the curve and the summary', () => {
    expect(result, 'the replay above failed').toBeDefined();
    const text = renderLearningEval(result!);
    expect(text).toMatch(new RegExp(`^1-${rows.length} +\\d+ % +\\d+ % +[#=.]{20}$`, 'm'));
    expect(text).toContain('wrong auto-allows (risky, allowed by exact-cache, jaccard or embedding): 0 (target 0)');
    expect(text).toMatch(/^decided without the oracle: \d+ of \d+/m);
    expect(result!.buckets).toEqual([
      { from: 1, to: rows.length, decided: result!.decided, byMemory: result!.byMemory },
    ]);
  });

  it('the CLI entry checks --seed and needs a labelled corpus', async () => {
    await expect(evalLearning({ evalLearning: '/nonexistent.jsonl', seed: 'x' }, () => undefined)).rejects.toThrow(
      HookwiseError,
    );
    const tmp = mkdtempSync(join(tmpdir(), 'hookwise-learning-test-'));
    try {
      writeFileSync(join(tmp, 'unlabelled.jsonl'), JSON.stringify({ command: 'ls' }) + '\n');
      await expect(evalLearning({ evalLearning: join(tmp, 'unlabelled.jsonl') }, () => undefined)).rejects.toThrow(
        /labelled rows/,
      );
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
