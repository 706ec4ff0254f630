/**
 * Runs the suites and grades each measurement against its row in targets.ts. Suites are listed in the
 * order they run: in-process first (cheap, and they leave no child processes behind), spawned last.
 */
import { availableParallelism, cpus } from 'node:os';
import { createFixture } from './fixture.js';
import type { BenchSize, Measurement, Suite } from './suite.js';
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
  meta: {
    node: string;
    platform: string;
    cpus: number;
    cpuModel: string;
    size: BenchSize;
    date: string;
    /** Wall time of each suite, in the order they ran (what makes a run long). */
    suites: { name: string; ms: number }[];
    ms: number;
  };
  rows: BenchRow[];
}

export interface RunOptions {
  size: BenchSize;
  suites?: readonly Suite[];
  progress?: (event: ProgressEvent) => void;
}

/** What a run is doing, for a progress display: which suite of how many, and what it says. */
export interface ProgressEvent {
  suite: string;
  /** Suites finished before this one, and how many there are. */
  done: number;
  total: number;
  message: string;
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
  const started = performance.now();
  const suites = options.suites ?? SUITES;
  const report = options.progress ?? (() => undefined);
  const measured = new Map<TargetId, Measurement>();
  const large = options.size === 'full';
  const timings: { name: string; ms: number }[] = [];
  const fixture = createFixture();
  try {
    for (const [done, suite] of suites.entries()) {
      const progress = (message: string) => report({ suite: suite.name, done, total: suites.length, message });
      progress(`${suite.name}…`);
      const suiteStarted = performance.now();
      for (const m of await suite.run({ size: options.size, large, fixture, progress })) measured.set(m.id, m);
      timings.push({ name: suite.name, ms: Math.round(performance.now() - suiteStarted) });
      const missing = suite.measures.filter((id) => !measured.has(id) && (large || !isLarge(id)) && !isConditional(id));
      if (missing.length > 0) throw new Error(`bench: suite ${suite.name} did not measure ${missing.join(', ')}`);
    }
    report({ suite: '', done: suites.length, total: suites.length, message: 'done' });
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
  return {
    meta: { ...benchMeta(), size: options.size, suites: timings, ms: Math.round(performance.now() - started) },
    rows,
  };
}

/** The machine a report was measured on, and when. */
export function benchMeta(): Omit<BenchReport['meta'], 'size' | 'suites' | 'ms'> {
  return {
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    cpus: availableParallelism(),
    cpuModel: cpus()[0]?.model ?? 'unknown',
    date: new Date().toISOString(),
  };
}
