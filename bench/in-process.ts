/**
 * In-process timing with tinybench. Sub-microsecond functions are timed in batches: one timer read costs
 * tens of nanoseconds, as much as the function itself, so each sample is the mean of `batch` calls
 * (tinybench's `overriddenDuration`). The p99 is therefore the p99 of batch means, not of single calls.
 */
import { Bench } from 'tinybench';
import type { BenchSize, Measurement, PerSize } from './suite.js';
import type { TargetId } from './targets.js';

export interface InProcessTask {
  id: TargetId;
  /** Calls per sample. */
  batch: number;
  fn: () => unknown;
  /**
   * `fn` returns a promise (an edge step such as prepareShell is async): each call is awaited inside the
   * timed window, so the sample includes the microtask turns a real caller pays too.
   */
  async?: boolean;
  /** Runs before each call, untimed (e.g. appending the record the timed load is to take in). Batch 1 only. */
  before?: () => void;
}

/** Per task: timed milliseconds, at least this many samples, warm-up milliseconds. */
const TIME_MS: PerSize<number> = { quick: 150, standard: 400, full: 1000 };
const MIN_SAMPLES: PerSize<number> = { quick: 8, standard: 10, full: 64 };
// Even --quick warms up long enough for the optimizing compiler: a median of unoptimized code would overstate
// the cost several times over and trip the CI gate for nothing.
const WARMUP_MS: PerSize<number> = { quick: 100, standard: 200, full: 250 };

export async function runInProcess(tasks: readonly InProcessTask[], size: BenchSize): Promise<Measurement[]> {
  const bench = new Bench({
    timestampProvider: 'hrtimeNow',
    time: TIME_MS[size],
    iterations: MIN_SAMPLES[size],
    warmupTime: WARMUP_MS[size],
    throws: true,
  });
  // Counting defined results keeps them observable, so the optimizer cannot drop the calls being timed.
  const results = new Map<TargetId, number>();
  for (const task of tasks) {
    const { fn, batch } = task;
    let defined = 0;
    if (task.async === true) {
      bench.add(
        task.id,
        async () => {
          const start = bench.now();
          for (let i = 0; i < batch; i++) if ((await fn()) !== undefined) defined++;
          const elapsed = bench.now() - start;
          results.set(task.id, defined);
          return { overriddenDuration: elapsed / batch, overriddenIterationCost: elapsed };
        },
        { async: true },
      );
      continue;
    }
    if (task.before !== undefined && batch !== 1)
      throw new Error(`bench: ${task.id} has a before hook, so it must time one call per sample`);
    bench.add(
      task.id,
      () => {
        const start = bench.now();
        for (let i = 0; i < batch; i++) if (fn() !== undefined) defined++;
        const elapsed = bench.now() - start;
        results.set(task.id, defined);
        return { overriddenDuration: elapsed / batch, overriddenIterationCost: elapsed };
      },
      task.before === undefined ? {} : { beforeEach: task.before },
    );
  }
  await bench.run();
  return tasks.map((task) => {
    if ((results.get(task.id) ?? 0) === 0)
      throw new Error(`bench: ${task.id} returned nothing; it measures no decision`);
    const result = bench.getTask(task.id)?.result;
    if (result?.state !== 'completed') {
      throw new Error(
        `bench: ${task.id} did not complete (${result?.state === 'errored' ? result.error.message : (result?.state ?? 'not added')})`,
      );
    }
    const ms = result.latency;
    return { id: task.id, median: ms.p50 * 1000, p99: ms.p99 * 1000, samples: ms.samplesCount };
  });
}
