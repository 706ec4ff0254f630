/** What a suite is and what it returns; bench/run.ts grades the measurements against bench/targets.ts. */
import type { BenchFixture } from './fixture.js';
import type { TargetId, Unit } from './targets.js';

export interface Summary {
  median: number;
  p99: number;
  samples: number;
}

/** One measured quantity behind a derived row (e.g. each command of a ratio), shown under the row. */
export interface Part extends Summary {
  label: string;
  unit: Unit;
}

/** A suite's result for one target row, in that row's unit. */
export interface Measurement extends Summary {
  id: TargetId;
  parts?: Part[];
  note?: string;
}

/**
 * How much a run measures. `quick`: a smoke test for tests, not numbers to quote. `standard`: the default run
 * and the CI gate, about a minute on 2 busy CPUs: every row but the `large` ones, enough samples for a stable
 * median. `full`: the `large` rows too, and the most samples (several minutes).
 */
export const BENCH_SIZES = ['quick', 'standard', 'full'] as const;
export type BenchSize = (typeof BENCH_SIZES)[number];

/** A count (samples, rounds, milliseconds) for each size: `perSize[ctx.size]`. */
export type PerSize<T> = Readonly<Record<BenchSize, T>>;

export interface SuiteContext {
  size: BenchSize;
  /** A full run: the rows marked `large` in targets.ts are measured too. */
  large: boolean;
  fixture: BenchFixture;
  progress(message: string): void;
}

export interface Suite {
  name: string;
  /** The rows this suite measures; run.ts checks it returns exactly these. */
  measures: readonly TargetId[];
  run(ctx: SuiteContext): Promise<Measurement[]>;
}
