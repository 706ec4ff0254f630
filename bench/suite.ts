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

export interface SuiteContext {
  /** Fewer iterations: a smoke test for CI and tests, not numbers to quote. */
  quick: boolean;
  /** A full run (not --quick, not --ci): the rows marked `large` in targets.ts are measured too. */
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
