/**
 * `hookwise bench [--json] [--ci] [--quick | --full] [--progress]`: measures the hot path against the targets
 * in bench/targets.ts — by default a standard run of about a minute (what --ci gates on); --full adds the
 * large rows and more samples. The suites live in bench/ and are bundled into dist/cli.cjs, never into the
 * hook bin.
 *
 * `hookwise bench --swarm [--clients n] [--seconds n] [--rate n] [--shared-session] [--cpu-prof dir] [--quick] [--json]`: concurrent keep-alive clients
 * against a real daemon (bench/swarm.ts): decisions/s, latency, and answers that differ from in process.
 *
 * `hookwise bench --eval-commands [corpus] [--project dir] [--verbose] [--json]`: a labelled corpus through
 * `check --jsonl` (bench/eval-commands.ts); without a corpus, the in-repo adversarial corpus and the
 * development shellfirm corpus when it exists.
 *
 * `hookwise bench --eval-tldr [corpus] [--verbose] [--json]`: the tldr corpus with its placeholders filled, asked %
 * per group of what the commands do (bench/eval-tldr.ts); skipped with a note when the corpus is absent.
 *
 * `hookwise bench --eval-learning [corpus] [--project dir] [--seed n] [--json]`: the learning replay
 * (bench/eval-learning.ts); with `--poison`, the learning-poison replay instead (bench/eval-poison.ts).
 *
 * `hookwise bench --eval-confine [--filter text] [--json]`: the confinement escape corpus, run for real
 * (bench/confine-escapes.ts); exit 1 on any escape, or when this machine cannot confine (with the reason).
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { renderEscapeReport, runEscapeCorpus } from '../../bench/confine-escapes.js';
import {
  adversarialCorpus,
  defaultCommandCorpus,
  evaluateCommands,
  renderCommandEval,
  type CommandEval,
} from '../../bench/eval-commands.js';
import { defaultTldrCorpus, evaluateTldr, renderTldrEval } from '../../bench/eval-tldr.js';
import { DEFAULT_SEED, evaluateLearning, renderLearningEval } from '../../bench/eval-learning.js';
import { evaluateWorkload, renderWorkloadEval } from '../../bench/eval-workload.js';
import { evaluateMcp, renderMcpEval } from '../../bench/eval-mcp.js';
import { evaluateSupervisor, renderSupervisorEval } from '../../bench/eval-supervisor.js';
import { evaluatePoison, renderPoisonEval } from '../../bench/eval-poison.js';
import { evaluateGeneralization, renderGeneralization, type EvalEngine } from '../../bench/eval-generalize.js';
import { EmbeddingService } from '../embed/client.js';
import { LiveMemoryPool } from '../memory/live.js';
import {
  CI_TOLERANCE,
  ciFailures,
  ciTolerance,
  describeMiss,
  EXACT_UNITS,
  progressLine,
  renderTable,
} from '../../bench/report.js';
import { runBench, type ProgressEvent } from '../../bench/run.js';
import type { BenchSize } from '../../bench/suite.js';
import {
  measureQuality,
  parseQualitySection,
  QUALITY_END,
  QUALITY_START,
  renderQualitySection,
  replaceQualitySection,
} from '../../bench/quality.js';
import { renderSwarm, runSwarm, type SwarmOptions } from '../../bench/swarm.js';
import { writeFileAtomic } from '../util/fs-safe.js';
import { packageRoot } from '../util/package-root.js';
import { HookwiseError } from '../core/errors.js';

export interface BenchCommandOptions {
  json?: boolean;
  ci?: boolean;
  quick?: boolean;
  full?: boolean;
  /** Progress on stderr even when it is not a terminal (one line per step instead of a bar). */
  progress?: boolean;
}

/** --quick, --full or neither (the standard run, which --ci uses too); both at once is a usage error. */
export function benchSize(options: Pick<BenchCommandOptions, 'quick' | 'full'>): BenchSize {
  if (options.quick === true && options.full === true)
    throw new HookwiseError('USAGE', '--quick and --full contradict each other: choose one');
  return options.quick === true ? 'quick' : options.full === true ? 'full' : 'standard';
}

/**
 * Where a run's progress goes: a bar redrawn in place on a terminal, a line per step with --progress
 * elsewhere, nothing otherwise (a log or a pipe gets the table alone). Always stderr: stdout is the table or
 * the JSON document.
 */
export function progressSink(
  stream: { isTTY?: boolean; write(text: string): unknown },
  forced: boolean,
): (event: ProgressEvent) => void {
  const started = performance.now();
  if (stream.isTTY === true) {
    return (event) => {
      const line = progressLine(event, performance.now() - started);
      // Redrawn in place; the last one ends its line so the table starts on a fresh one.
      stream.write(`\r\x1b[K${line}${event.done === event.total ? '\n' : ''}`);
    };
  }
  if (!forced) return () => undefined;
  return (event) => stream.write(`${progressLine(event, performance.now() - started)}\n`);
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
    size: benchSize(options),
    progress: progressSink(process.stderr, options.progress === true),
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
    const exact = failures.some((r) => ciTolerance(r) === 1) ? ` (${EXACT_UNITS.join(', ')} rows: missed at all)` : '';
    throw new BenchTargetMissed(
      `${failures.length} target(s) missed by more than ${CI_TOLERANCE}×${exact}:\n${failures.map(describeMiss).join('\n')}`,
    );
  }
}

export interface EvalCommandsOptions {
  /** The corpus (a path), or true for the default corpora. */
  evalCommands?: string | boolean;
  project?: string;
  /** Also list the benign rows that were asked or denied. */
  verbose?: boolean;
  json?: boolean;
}

/** What `--eval-commands` prints with --json: one report per corpus run, and the default corpora that were not found. */
export interface EvalCommandsReport {
  evals: CommandEval[];
  skipped: { corpus: string; reason: string }[];
}

/**
 * `--eval-commands`: the named corpus, or by default the in-repo adversarial corpus and the development
 * shellfirm corpus (../shared beside the repository), each skipped with a note when it is not there — an
 * installed package has neither; it fails only when there is nothing to run.
 */
export function evalCommands(options: EvalCommandsOptions, print: (text: string) => void): EvalCommandsReport {
  const report: EvalCommandsReport = { evals: [], skipped: [] };
  if (typeof options.evalCommands === 'string') {
    report.evals.push(evaluateCommands(options.evalCommands, options.project));
  } else {
    const corpora = [
      {
        corpus: adversarialCorpus(),
        reason: 'not found: the adversarial corpus ships with the repository (bench/corpora), not with the package',
      },
      {
        corpus: defaultCommandCorpus(),
        reason:
          'not found: the shellfirm corpus lives in ../shared/corpora beside the repository, in the development environment only',
      },
    ];
    for (const { corpus, reason } of corpora) {
      if (existsSync(corpus)) report.evals.push(evaluateCommands(corpus, options.project));
      else report.skipped.push({ corpus, reason });
    }
    if (report.evals.length === 0)
      throw new HookwiseError(
        'USAGE',
        `--eval-commands: no corpus to run; name one (a JSONL file of {"command", "label"} rows). ${report.skipped.map((s) => `${s.corpus}: ${s.reason}`).join('; ')}`,
      );
  }
  if (options.json === true) {
    print(JSON.stringify(report, null, 2));
  } else {
    const parts = report.evals.map((e) => renderCommandEval(e, options.verbose === true));
    for (const s of report.skipped) parts.push(`${s.corpus}: skipped, ${s.reason}`);
    print(parts.join('\n\n'));
  }
  return report;
}

export interface EvalTldrOptions {
  /** The corpus (a path), or true for ../shared/corpora/commands.tldr.jsonl. */
  evalTldr?: string | boolean;
  /** Confinement at its default instead of off. */
  confined?: boolean;
  verbose?: boolean;
  json?: boolean;
}

/**
 * `--eval-tldr`: the named tldr corpus, or the development one; when the default is absent (a user's clone, a
 * package) it says so and measures nothing. The JSON keeps every call's answer.
 */
export function evalTldr(
  options: EvalTldrOptions,
  print: (text: string) => void,
  defaultCorpus: string = defaultTldrCorpus(),
): void {
  const corpus = typeof options.evalTldr === 'string' ? options.evalTldr : defaultCorpus;
  if (typeof options.evalTldr !== 'string' && !existsSync(corpus)) {
    const reason = `${corpus}: skipped, not found: the tldr corpus lives in ../shared/corpora beside the repository, in the development environment only`;
    print(options.json === true ? JSON.stringify({ evals: [], skipped: [{ corpus, reason }] }, null, 2) : reason);
    return;
  }
  const report = evaluateTldr(corpus, 25, options.confined === true ? 'default' : 'off');
  print(
    options.json === true
      ? JSON.stringify({ evals: [report], skipped: [] }, null, 2)
      : renderTldrEval(report, options.verbose === true),
  );
}

export interface EvalLearningOptions {
  /** The corpus (a path), or true for the default development corpus (with --poison: the adversarial corpus). */
  evalLearning?: string | boolean;
  /** The learning-poison replay instead of the learning curve. */
  poison?: boolean;
  /** The generalization evaluation (tier 2b) instead of the learning curve. */
  generalize?: boolean;
  project?: string;
  /** The shuffle seed, as typed (an integer). */
  seed?: string;
  json?: boolean;
}

/**
 * `--eval-learning`: replays the corpus with a simulated human answering the prompts; prints the curve.
 * With `--poison`: a human approves every benign row, then every risky row is checked (bench/eval-poison.ts).
 */
export async function evalLearning(options: EvalLearningOptions, print: (text: string) => void): Promise<void> {
  const corpus = typeof options.evalLearning === 'string' ? options.evalLearning : undefined;
  let seed = DEFAULT_SEED;
  if (options.seed !== undefined) {
    if (options.poison === true)
      throw new HookwiseError(
        'USAGE',
        '--seed is for the learning curve: the poison replay teaches every benign row before it checks a risky one, in corpus order',
      );
    if (!/^\d{1,10}$/.test(options.seed))
      throw new HookwiseError('USAGE', `--seed takes a non-negative integer, not "${options.seed}"`);
    seed = Number(options.seed);
  }
  if (options.generalize === true) {
    const e = await evaluateGeneralization(corpus, {
      seed,
      engine: embeddingEngine,
      progress: (message) => process.stderr.write(`bench: ${message}\n`),
    });
    print(options.json === true ? JSON.stringify(e, null, 2) : renderGeneralization(e));
    return;
  }
  if (options.poison === true) {
    const e = await evaluatePoison(corpus, {
      ...(options.project === undefined ? {} : { project: options.project }),
      progress: (message) => process.stderr.write(`bench: ${message}\n`),
      engine: embeddingEngine,
    });
    print(options.json === true ? JSON.stringify(e, null, 2) : renderPoisonEval(e));
    return;
  }
  const e = await evaluateLearning(corpus, {
    seed,
    ...(options.project === undefined ? {} : { project: options.project }),
    progress: (message) => process.stderr.write(`bench: ${message}\n`),
    // As a daemon runs it: tier 2b's pool with the shipped model, and live memory.
    engine: embeddingEngine,
  });
  print(options.json === true ? JSON.stringify(e, null, 2) : renderLearningEval(e));
}

/**
 * What the daemon holds for tier 2b, for an evaluation's private directories: the embedding pool with the
 * shipped model, warm, and live memory — the same engine options `hookwise daemon` uses.
 */
async function embeddingEngine(places: {
  home: string;
  runtimeDir: string;
  userConfigDir: string;
}): Promise<EvalEngine> {
  const service = new EmbeddingService({
    places: { runtimeDir: places.runtimeDir, userConfigDir: places.userConfigDir },
  });
  const started = await service.start();
  if (!started.ok) throw new HookwiseError('USAGE', `--generalize needs the embedding model: ${started.why}`);
  return {
    options: { embedding: service, memory: new LiveMemoryPool() },
    model: started.model,
    close: () => service.close(),
  };
}

export interface SwarmCommandOptions {
  /** As typed: a positive integer. */
  clients?: string;
  /** As typed: a positive number. */
  seconds?: string;
  /** As typed: calls per second per client. */
  rate?: string;
  /** A directory for the daemon's CPU profile (node --cpu-prof). */
  cpuProf?: string;
  /** Every client calls for one session (the default: each its own). */
  sharedSession?: boolean;
  quick?: boolean;
  json?: boolean;
}

/**
 * `--swarm`: prints the report; fails (exit 1) when an answer differs from the in-process verdict or a
 * request failed. Throughput and latency are reported against the targets, never fatal: they depend on the
 * machine and its load.
 */
export async function swarm(options: SwarmCommandOptions, print: (text: string) => void): Promise<void> {
  const run: SwarmOptions = {
    quick: options.quick === true,
    progress: (message) => process.stderr.write(`bench: ${message}\n`),
    sessions: options.sharedSession === true ? 'shared' : 'per-client',
  };
  if (options.clients !== undefined) {
    if (!/^\d{1,4}$/.test(options.clients) || Number(options.clients) < 1)
      throw new HookwiseError('USAGE', `--clients takes an integer from 1 to 9999, not "${options.clients}"`);
    run.clients = Number(options.clients);
  }
  if (options.rate !== undefined) {
    const rate = Number(options.rate);
    if (!/^\d+(\.\d+)?$/.test(options.rate) || !(rate > 0) || rate > 10_000)
      throw new HookwiseError(
        'USAGE',
        `--rate takes calls per second per client above 0 and up to 10000, not "${options.rate}"`,
      );
    run.rate = rate;
  }
  if (options.seconds !== undefined) {
    const seconds = Number(options.seconds);
    if (!/^\d+(\.\d+)?$/.test(options.seconds) || !(seconds > 0) || seconds > 3600)
      throw new HookwiseError(
        'USAGE',
        `--seconds takes a number of seconds above 0 and up to 3600, not "${options.seconds}"`,
      );
    run.seconds = seconds;
  }
  if (options.cpuProf !== undefined) {
    const dir = resolve(options.cpuProf);
    mkdirSync(dir, { recursive: true });
    run.daemonNodeArgs = ['--cpu-prof', '--cpu-prof-dir', dir];
  }
  const report = await runSwarm(run);
  print(options.json === true ? JSON.stringify(report, null, 2) : renderSwarm(report));
  if (report.differing > 0 || report.errors > 0) {
    throw new BenchTargetMissed(
      `--swarm: ${report.differing} answer(s) differ from the in-process verdict, ${report.errors} request(s) failed`,
    );
  }
}

export interface EvalConfineOptions {
  filter?: string;
  json?: boolean;
}

/**
 * `--eval-confine`: prints escapes per category; fails (exit 1) on any escape, and when confinement is not
 * available here — a CI that cannot confine must say so, not pass with nothing tested.
 */
export async function evalConfine(options: EvalConfineOptions, print: (text: string) => void): Promise<void> {
  const report = await runEscapeCorpus({
    ...(options.filter === undefined ? {} : { filter: options.filter }),
    progress: (message) => process.stderr.write(`bench: ${message}\n`),
  });
  print(options.json === true ? JSON.stringify(report, null, 2) : renderEscapeReport(report));
  if (!report.available)
    throw new BenchTargetMissed(
      `--eval-confine: confinement is not available on this machine: ${report.reason}; fix: ${report.fix}`,
    );
  const errors = report.results.filter((r) => r.outcome === 'error').length;
  if (report.escapes.length > 0 || errors > 0) {
    throw new BenchTargetMissed(
      `--eval-confine: ${report.escapes.length} escape(s)${errors > 0 ? `, ${errors} case(s) could not run` : ''}: ${[...report.escapes.map((e) => e.id)].join(', ')}`,
    );
  }
}

/** `--eval-mcp`: MCP calls by effect — asks on first sight and after one approval per tool, unsafe allows (bench/eval-mcp.ts). */
export async function evalMcp(
  options: { evalMcp?: string | boolean; json?: boolean; quick?: boolean },
  print: (text: string) => void,
): Promise<boolean> {
  const corpus = typeof options.evalMcp === 'string' ? options.evalMcp : undefined;
  const e = await evaluateMcp(corpus, { quick: options.quick === true });
  print(options.json === true ? JSON.stringify(e, null, 2) : renderMcpEval(e));
  return e.unsafeAllows.length === 0;
}

/** `--eval-workload`: confinement on a real workload (bench/eval-workload.ts). */
export function evalWorkload(
  options: { evalWorkload?: string | boolean; project?: string; json?: boolean },
  print: (text: string) => void,
): void {
  const corpus = typeof options.evalWorkload === 'string' ? options.evalWorkload : undefined;
  const e = evaluateWorkload(corpus, {
    ...(options.project === undefined ? {} : { project: options.project }),
    progress: (message) => process.stderr.write(`bench: ${message}\n`),
  });
  print(options.json === true ? JSON.stringify(e, null, 2) : renderWorkloadEval(e));
}

/** `--eval-supervisor`: tier 3's plumbing against a fake Messages API (bench/eval-supervisor.ts). */
export async function evalSupervisor(
  options: { evalSupervisor?: string | boolean; json?: boolean; quick?: boolean },
  print: (text: string) => void,
): Promise<void> {
  const corpus = typeof options.evalSupervisor === 'string' ? options.evalSupervisor : undefined;
  const e = await evaluateSupervisor(corpus, {
    iterations: options.quick === true ? 40 : 200,
    progress: (message) => process.stderr.write(`bench: ${message}\n`),
  });
  print(options.json === true ? JSON.stringify(e, null, 2) : renderSupervisorEval(e));
}

/**
 * `--quality-table`: measures the README's quality table (bench/quality.ts) and rewrites the README between
 * its markers, atomically; prints the new section and the rows it could not measure here (kept as they were).
 */
export async function qualityTable(print: (text: string) => void): Promise<void> {
  const readmePath = join(packageRoot(), 'README.md');
  if (!existsSync(readmePath)) throw new HookwiseError('USAGE', `--quality-table: ${readmePath} not found`);
  const readme = readFileSync(readmePath, 'utf8');
  if (!readme.includes(QUALITY_START) || !readme.includes(QUALITY_END))
    throw new HookwiseError(
      'USAGE',
      `--quality-table: ${readmePath} has no quality section (the lines ${QUALITY_START} and ${QUALITY_END})`,
    );
  const previous = parseQualitySection(readme);
  let measured: Awaited<ReturnType<typeof measureQuality>>;
  try {
    measured = await measureQuality({
      ...(previous === undefined ? {} : { previous }),
      progress: (message) => process.stderr.write(`bench: ${message}\n`),
    });
  } catch (error) {
    throw new HookwiseError('USAGE', `--quality-table: ${(error as Error).message}`);
  }
  const section = renderQualitySection(measured.table);
  writeFileAtomic(readmePath, replaceQualitySection(readme, section));
  const kept = measured.kept.map((what) => `kept, not measurable here: ${what}`);
  print([section, '', `written to ${readmePath}`, ...kept].join('\n'));
}
