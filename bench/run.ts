/**
 * Runs the suites and grades each measurement against its row in targets.ts. Suites are listed in the
 * order they run: in-process first (cheap, and they leave no child processes behind), spawned last.
 */
import { availableParallelism, cpus } from 'node:os';
import { createFixture } from './fixture.js';
import type { Measurement, Suite } from './suite.js';
import { cascadeSuite } from './suites/cascade.js';
import { catalogGrammarSuite } from './suites/catalog-grammar.js';
import { catalogSuite } from './suites/catalog.js';
import { confineSuite } from './suites/confine.js';
import { daemonSuite } from './suites/daemon.js';
import { embedSuite } from './suites/embed.js';
import { memorySuite } from './suites/memory.js';
import { memoryIndexSuite } from './suites/memory-index.js';
import { memoryStoreSuite } from './suites/memory-store.js';
import { pathPolicySuite } from './suites/path-policy.js';
import { sanitizeSuite } from './suites/sanitize.js';
import { shellSuite } from './suites/shell.js';
import { startupSuite } from './suites/startup.js';
import { undoSuite } from './suites/undo.js';
import { queueSuite } from './suites/queue.js';
import { sqlSuite } from './suites/sql.js';
import { isConditional, isLarge, TARGETS, targetOf, type TargetId, type TargetSpec } from './targets.js';

export const SUITES: readonly Suite[] = [
  pathPolicySuite,
  cascadeSuite,
  catalogGrammarSuite,
  sanitizeSuite,
  shellSuite,
  catalogSuite,
  memoryStoreSuite,
  memorySuite,
  memoryIndexSuite,
  embedSuite,
  startupSuite,
  daemonSuite,
  confineSuite,
  undoSuite,
  queueSuite,
  sqlSuite,
];

export const STATUSES = ['ok', 'stretch', 'miss', 'report'] as const;
export type Status = (typeof STATUSES)[number];

export interface BenchRow extends TargetSpec, Measurement {
  id: TargetId;
  /** median ÷ target (how far over or under); null for report-only rows. */
  ratio: number | null;
  status: Status;
}

export interface BenchReport {
  meta: { node: string; platform: string; cpus: number; cpuModel: string; quick: boolean; date: string };
  rows: BenchRow[];
}

export interface RunOptions {
  quick: boolean;
  /** The CI gate's run: like --quick, it leaves out the rows marked `large` (they take minutes to set up). */
  ci?: boolean;
  suites?: readonly Suite[];
  progress?: (message: string) => void;
}

export function grade(spec: TargetSpec, measured: Measurement): BenchRow {
  const { target, stretch } = spec;
  const status: Status =
    target === null
      ? 'report'
      : stretch !== undefined && measured.median <= stretch
        ? 'stretch'
        : measured.median <= target
          ? 'ok'
          : 'miss';
  return { ...spec, ...measured, ratio: target === null ? null : measured.median / target, status };
}

export async function runBench(options: RunOptions): Promise<BenchReport> {
  const suites = options.suites ?? SUITES;
  const progress = options.progress ?? (() => undefined);
  const measured = new Map<TargetId, Measurement>();
  const large = !options.quick && options.ci !== true;
  const fixture = createFixture();
  try {
    for (const suite of suites) {
      progress(`${suite.name}…`);
      for (const m of await suite.run({ quick: options.quick, large, fixture, progress })) measured.set(m.id, m);
      const missing = suite.measures.filter((id) => !measured.has(id) && (large || !isLarge(id)) && !isConditional(id));
      if (missing.length > 0) throw new Error(`bench: suite ${suite.name} did not measure ${missing.join(', ')}`);
    }
  } finally {
    fixture.cleanup();
  }
  // Rows in table order; a target that no suite measured is an error only when all suites ran.
  const ids = TARGETS.map((t) => t.id).filter(
    (id) => measured.has(id) || (options.suites === undefined && (large || !isLarge(id)) && !isConditional(id)),
  );
  const rows = ids.map((id) => {
    const m = measured.get(id);
    if (m === undefined) throw new Error(`bench: no suite measures target ${id}; add one to SUITES in bench/run.ts`);
    return grade(targetOf(id), m);
  });
  return { meta: benchMeta(options.quick), rows };
}

/** The machine a report was measured on. */
export function benchMeta(quick: boolean): BenchReport['meta'] {
  return {
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    cpus: availableParallelism(),
    cpuModel: cpus()[0]?.model ?? 'unknown',
    quick,
    date: new Date().toISOString(),
  };
}
