/**
 * Confinement on a real workload (issue 19, "Measure"): a corpus of an agent's tool calls replayed twice through
 * the built `hookwise check --jsonl` in a disposable copy of a project — confinement off (the user's config),
 * then by default (on where bubblewrap works and Claude Code's own sandbox is off) — and every call that ran confined then run for real, wrapped, in that copy, to see what the walls
 * stopped. Reports the share of calls asked before and after, the share confined, why the remaining asks were
 * not confined, and of the confined runs: how many succeeded, how many the walls stopped (confine/wall-hits.ts
 * on their output), how many failed for reasons of their own (the same command fails unconfined too) or ran
 * out of time.
 *
 * The default corpus is hookwise's own development workload (bench/corpora/dev-workload.jsonl: the calls an
 * agent made building this project), replayed in a copy of this repository: a `git clone --local` of it plus
 * copies of node_modules and dist (ignored files a real working tree has). Empty memory, first pass, role
 * maintainer unless a row says otherwise. The copy is deleted afterwards.
 *
 * Run: `hookwise bench --eval-workload [corpus] [--project dir] [--json]`.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { wallsHit, type WallHit } from '../src/confine/wall-hits.js';
import { probeConfinement } from '../src/confine/probe.js';
import { packageRoot } from '../src/util/package-root.js';
import {
  describeRow,
  oneLine,
  readCorpus,
  replayThroughCheck,
  type CheckAnswer,
  type CorpusRow,
} from './eval-commands.js';

export function defaultWorkload(): string {
  return join(packageRoot(), 'bench', 'corpora', 'dev-workload.jsonl');
}

/** Bytes of a confined run's output kept for the walls check (its two ends). */
const MAX_OUTPUT = 8 * 1024 * 1024;
export const DEFAULT_RUN_TIMEOUT_MS = 120_000;

/**
 * `walls`: the output shows the walls stopped it; `walls-silent`: it failed confined and ran unconfined, but
 * its output does not say why (the walls, unrecognised); `own-failure`: it fails unconfined too.
 */
export type RunOutcome = 'ok' | 'walls' | 'walls-silent' | 'own-failure' | 'timeout';

export interface ConfinedRun {
  command: string;
  outcome: RunOutcome;
  exit: number | null;
  /** The line that showed the walls, for outcome `walls`. */
  walls?: WallHit;
  /** The unconfined run's exit status (the control), for a failed confined run. */
  controlExit?: number | null;
  ms: number;
}

export interface Pass {
  allow: number;
  ask: number;
  deny: number;
  /** Allows that run confined. */
  confined: number;
}

export interface WorkloadEval {
  corpus: string;
  project: string;
  rows: number;
  /** Whether this machine can confine; without it `after` equals `before` and nothing runs. */
  canConfine: boolean;
  before: Pass;
  after: Pass;
  /** Why the asks that stayed asks were not confined, with counts (the engine's own words). */
  notConfined: Record<string, number>;
  runs: ConfinedRun[];
  runCounts: Record<RunOutcome, number>;
}

export interface WorkloadOptions {
  project?: string;
  /** Run the confined calls for real (default true). */
  run?: boolean;
  timeoutMs?: number;
  progress?: (message: string) => void;
}

export function evaluateWorkload(corpus: string = defaultWorkload(), options: WorkloadOptions = {}): WorkloadEval {
  const progress = options.progress ?? (() => undefined);
  const rows = readCorpus(corpus);
  const source = resolve(options.project ?? packageRoot());
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'hookwise-workload-')));
  try {
    progress(`copying ${source} into a disposable project…`);
    const project = copyProject(source, join(base, 'project'));
    const before = decide(rows, project, join(base, 'off'), false);
    const after = decide(rows, project, join(base, 'on'), true);
    const notConfined: Record<string, number> = {};
    for (const a of after) {
      const why = /\(not run confined: ([^)]*)\)|\(it could not run confined: ([^)]*)\)/.exec(a.reason ?? '');
      if (a.verdict === 'ask' && why !== null) {
        const key = (why[1] ?? why[2] ?? '').replace(/`[^`]*`/g, '`…`').replace(/\/\S+/g, '<path>');
        notConfined[key] = (notConfined[key] ?? 0) + 1;
      }
    }
    const runs: ConfinedRun[] = [];
    const canConfine = probeConfinement().available;
    if (options.run !== false && canConfine) {
      const confined = after
        .map((a, i) => ({ a, row: rows[i]! }))
        .filter(({ a }) => a.tier === 'confine' && a.verdict === 'allow');
      for (const [n, { a, row }] of confined.entries()) {
        progress(`running confined ${n + 1}/${confined.length}: ${oneLine(describeRow(row)).slice(0, 80)}`);
        runs.push(runConfined(row, a, project, options.timeoutMs ?? DEFAULT_RUN_TIMEOUT_MS));
      }
    }
    const runCounts: Record<RunOutcome, number> = { ok: 0, walls: 0, 'walls-silent': 0, 'own-failure': 0, timeout: 0 };
    for (const r of runs) runCounts[r.outcome]++;
    return {
      corpus,
      project: source,
      rows: rows.length,
      canConfine,
      before: tally(before),
      after: tally(after),
      notConfined,
      runs,
      runCounts,
    };
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

/**
 * A working copy to run in: a local clone (objects hard-linked, read-only) when the source is a git work tree,
 * else a plain copy; the ignored directories a real tree has (node_modules, dist) are copied alongside.
 */
function copyProject(source: string, into: string): string {
  const clone = spawnSync('git', ['clone', '--quiet', '--local', source, into], { encoding: 'utf8' });
  if (clone.status !== 0) cpSync(source, into, { recursive: true });
  for (const dir of ['node_modules', 'dist']) {
    if (existsSync(join(source, dir)) && !existsSync(join(into, dir)))
      cpSync(join(source, dir), join(into, dir), { recursive: true, verbatimSymlinks: true });
  }
  return realpathSync(into);
}

/** `confine` false: turned off in the user's config; true: the default (on where bubblewrap works). */
function decide(rows: readonly CorpusRow[], project: string, dir: string, confine: boolean): CheckAnswer[] {
  const configDir = join(dir, 'config');
  mkdirSync(configDir, { recursive: true });
  if (!confine) writeFileSync(join(configDir, 'config.yml'), 'confine:\n  enabled: false\n');
  return replayThroughCheck(rows, project, {
    runtimeDir: join(dir, 'runtime'),
    configDir,
    prefix: 'workload',
    permissionMode: 'default',
    ...(confine ? { confine: 'default' as const } : {}),
  });
}

function tally(answers: readonly CheckAnswer[]): Pass {
  const pass: Pass = { allow: 0, ask: 0, deny: 0, confined: 0 };
  for (const a of answers) {
    if (a.verdict === 'allow' || a.verdict === 'ask' || a.verdict === 'deny') pass[a.verdict]++;
    if (a.verdict === 'allow' && a.tier === 'confine') pass.confined++;
  }
  return pass;
}

/** The wrapped command, run as a host runs it; a failure is checked for the walls, then against an unconfined control run. */
function runConfined(row: CorpusRow, answer: CheckAnswer, project: string, timeoutMs: number): ConfinedRun {
  const out = JSON.parse(answer.stdout) as { hookSpecificOutput?: { updatedInput?: { command?: string } } };
  const wrapped = out.hookSpecificOutput?.updatedInput?.command;
  if (typeof wrapped !== 'string') throw new Error(`line ${answer.line}: a confined allow without a wrapped command`);
  const command = row.command ?? describeRow(row);
  const env = { ...process.env, HOOKWISE_DAEMON: 'off' };
  const started = performance.now();
  const run = spawnSync('/bin/bash', ['-c', wrapped], {
    cwd: project,
    env,
    encoding: 'utf8',
    timeout: timeoutMs,
    maxBuffer: MAX_OUTPUT,
    killSignal: 'SIGKILL',
  });
  const ms = performance.now() - started;
  if (run.error !== undefined && (run.error as NodeJS.ErrnoException).code === 'ETIMEDOUT')
    return { command, outcome: 'timeout', exit: null, ms };
  const output = `${run.stdout ?? ''}\n${run.stderr ?? ''}`;
  if (run.status === 0) {
    const hit = wallsHit(output, homedir());
    return hit === undefined
      ? { command, outcome: 'ok', exit: 0, ms }
      : { command, outcome: 'walls', exit: 0, walls: hit, ms };
  }
  const hit = wallsHit(output, homedir());
  if (hit !== undefined) return { command, outcome: 'walls', exit: run.status, walls: hit, ms };
  const control = spawnSync('/bin/bash', ['-c', command], {
    cwd: project,
    env,
    encoding: 'utf8',
    timeout: timeoutMs,
    maxBuffer: MAX_OUTPUT,
    killSignal: 'SIGKILL',
  });
  return {
    command,
    outcome: control.status === 0 ? 'walls-silent' : 'own-failure',
    exit: run.status,
    controlExit: control.status,
    ms,
  };
}

const pct = (n: number, of: number): string => `${((n / Math.max(1, of)) * 100).toFixed(1)} %`;

export function renderWorkloadEval(e: WorkloadEval): string {
  const lines = [`${e.corpus}: ${e.rows} calls, replayed in a copy of ${e.project} (empty memory, first pass)`];
  const pass = (name: string, p: Pass) =>
    `${name}: ${p.allow} allow (${p.confined} of them confined), ${p.ask} ask, ${p.deny} deny — asked ${pct(p.ask, e.rows)}`;
  lines.push(pass('confinement off       ', e.before), pass('confinement by default', e.after));
  if (!e.canConfine) lines.push('this machine cannot confine: the confined calls stay asks (hookwise doctor says why)');
  lines.push(`confined: ${pct(e.after.confined, e.rows)} of the calls; asks ${e.before.ask} → ${e.after.ask}`);
  const why = Object.entries(e.notConfined).sort((a, b) => b[1] - a[1]);
  if (why.length > 0) {
    lines.push('asks that stayed asks, by why they were not confined:');
    for (const [reason, n] of why) lines.push(`  ${String(n).padStart(4)}  ${reason}`);
  }
  if (e.runs.length > 0) {
    const c = e.runCounts;
    lines.push(
      `confined runs: ${e.runs.length} — ${c.ok} ran, ${c.walls} stopped by the walls (recognised), ${c['walls-silent']} failed only confined (unrecognised), ${c['own-failure']} failed unconfined too, ${c.timeout} timed out`,
    );
    for (const r of e.runs) {
      if (r.outcome === 'ok') continue;
      const detail =
        r.outcome === 'walls'
          ? `walls (${r.walls!.kind}): ${r.walls!.line}`
          : r.outcome === 'timeout'
            ? 'timed out'
            : `exit ${r.exit}, unconfined exit ${r.controlExit ?? 'none'}`;
      lines.push(`  ${oneLine(r.command).slice(0, 90)} → ${detail}`);
    }
  }
  return lines.join('\n');
}
