/**
 * `hookwise bench [--json] [--ci] [--quick]`: measures the hot path against the targets in
 * bench/targets.ts. The suites live in bench/ and are bundled into dist/cli.cjs, never into the hook bin.
 */
import { CI_TOLERANCE, ciFailures, describeMiss, renderTable } from '../../bench/report.js';
import { runBench } from '../../bench/run.js';

export interface BenchCommandOptions {
  json?: boolean;
  ci?: boolean;
  quick?: boolean;
}

/** A CI gate failure: the message lists each grossly missed target. */
export class BenchTargetMissed extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BenchTargetMissed';
  }
}

/** Prints the report through `print`; with --ci, throws BenchTargetMissed (exit 1) on a gross miss. */
export async function bench(options: BenchCommandOptions, print: (text: string) => void): Promise<void> {
  const report = await runBench({
    quick: options.quick === true,
    // Progress on stderr keeps stdout a clean table or JSON document.
    progress: (message) => process.stderr.write(`bench: ${message}\n`),
  });
  print(options.json === true ? JSON.stringify(report, null, 2) : renderTable(report));
  if (options.ci !== true) return;

  const failures = ciFailures(report.rows);
  for (const row of report.rows) {
    if (row.status === 'miss' && !failures.includes(row)) {
      process.stderr.write(`bench: missed, within the CI tolerance of ${CI_TOLERANCE}×: ${describeMiss(row)}\n`);
    }
  }
  if (failures.length > 0) {
    throw new BenchTargetMissed(`${failures.length} target(s) missed by more than ${CI_TOLERANCE}×:\n${failures.map(describeMiss).join('\n')}`);
  }
}
