/**
 * The README's quality table: what hookwise gets right and wrong on its own corpora, each figure with the
 * command that reproduces it. `hookwise bench --quality-table` measures them all (the same functions those
 * commands run) and rewrites the README between its two markers; nobody edits the figures by hand.
 *
 * - the adversarial corpus (bench/corpora/adversarial.jsonl): risky calls allowed (target 0), benign asked;
 * - the development workload (bench/corpora/dev-workload.jsonl, a real agent session's calls, all benign):
 *   asked, with confinement off and on;
 * - the confinement escape corpus: escapes (target 0), where this machine can confine;
 * - the sanitizer on its built-in and held-out corpora: recall and false positives;
 * - a real Claude Code tool call with hookwise's http hooks ÷ without hooks: measured by the end-to-end test
 *   (tests/e2e/daemon-wiring.test.ts, which needs the real client), which leaves its figures in the e2e cache;
 *   the table takes the latest, and keeps the row it had when there is none.
 *
 * Pure parts (render, parse, replace) are separate from `measureQuality`, which runs the corpora.
 */
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { join, resolve } from 'node:path';
import { sanitize } from '../src/sanitize/index.js';
import { packageRoot } from '../src/util/package-root.js';
import { runEscapeCorpus } from './confine-escapes.js';
import { adversarialCorpus, evaluateCommands, type CommandEval } from './eval-commands.js';
import { builtinCorpus, evaluateSecrets, holdoutCorpus, type SecretsEval } from './eval-secrets.js';
import { defaultWorkload, evaluateWorkload } from './eval-workload.js';

export const QUALITY_START = '<!-- quality-table: written by `hookwise bench --quality-table`, not by hand -->';
export const QUALITY_END = '<!-- /quality-table -->';

export interface QualityRow {
  /** What is measured, in words. */
  what: string;
  /** The figure, in words (`0 of 412 (0.0 %)`). */
  figure: string;
  /** The command that reproduces it, from a clone. */
  command: string;
}

export interface QualityTable {
  /** When and where it was measured (one line). */
  measured: string;
  rows: QualityRow[];
}

const HEADER = ['measured', 'result', 'reproduce'] as const;

/** The section between the markers: a table, then when and where it was measured. */
export function renderQualitySection(table: QualityTable): string {
  const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');
  return [
    QUALITY_START,
    `| ${HEADER.join(' | ')} |`,
    `| ${HEADER.map(() => '---').join(' | ')} |`,
    ...table.rows.map((r) => `| ${cell(r.what)} | ${cell(r.figure)} | \`${r.command}\` |`),
    '',
    `${table.measured}. Refresh: \`npm run build && node dist/hookwise.cjs bench --quality-table\`.`,
    QUALITY_END,
  ].join('\n');
}

/** The table in a README, as renderQualitySection wrote it; undefined when there is none or it is not in that form. */
export function parseQualitySection(readme: string): QualityTable | undefined {
  const start = readme.indexOf(QUALITY_START);
  const end = readme.indexOf(QUALITY_END);
  if (start < 0 || end < start) return undefined;
  const lines = readme
    .slice(start + QUALITY_START.length, end)
    .trim()
    .split('\n');
  if (lines[0] !== `| ${HEADER.join(' | ')} |` || lines[1] !== `| ${HEADER.map(() => '---').join(' | ')} |`)
    return undefined;
  const rows: QualityRow[] = [];
  let i = 2;
  for (; i < lines.length && lines[i]!.startsWith('| '); i++) {
    // Cells split at the pipes a cell did not escape.
    const cells = lines[i]!.split(/(?<!\\)\|/)
      .slice(1, -1)
      .map((c) => c.trim().replaceAll('\\|', '|'));
    const command = /^`(.+)`$/.exec(cells[2] ?? '');
    if (cells.length !== 3 || command === null || cells[0] === '' || cells[1] === '') return undefined;
    rows.push({ what: cells[0]!, figure: cells[1]!, command: command[1]! });
  }
  const measured = /^(.+)\. Refresh: `npm run build && node dist\/hookwise\.cjs bench --quality-table`\.$/.exec(
    lines.slice(i).join('\n').trim(),
  );
  if (rows.length === 0 || measured === null) return undefined;
  return { measured: measured[1]!, rows };
}

/** The README with its quality section replaced; throws when the markers are missing or out of order. */
export function replaceQualitySection(readme: string, section: string): string {
  const start = readme.indexOf(QUALITY_START);
  const end = readme.indexOf(QUALITY_END);
  if (start < 0 || end < start)
    throw new Error(
      `the README has no quality section: put the lines ${QUALITY_START} and ${QUALITY_END} where it goes`,
    );
  return readme.slice(0, start) + section + readme.slice(end + QUALITY_END.length);
}

const percent = (n: number, d: number): string => (d === 0 ? 'n/a' : `${((100 * n) / d).toFixed(1)} %`);
const share = (n: number, d: number): string => `${n} of ${d} (${percent(n, d)})`;

/** What the e2e test leaves in its cache after timing Claude Code's steps (tests/e2e/daemon-wiring.test.ts). */
export interface StepTimeRecord {
  date: string;
  claudeCode: string;
  /** Median step with the wiring `install --claude` writes, and with no hooks, in ms. */
  hookedMs: number;
  bareMs: number;
  steps: number;
  /** The floor, when measured in the same run: the same http gate to a server that answers at once, in ms. */
  floorMs?: number;
  /** The machine's load average (1 min) when the run ended, and its CPUs. */
  load?: { average: number; cpus: number };
}

/** Where that record lives: the e2e cache (HOOKWISE_E2E_CACHE_DIR, or node_modules/.cache/hookwise-e2e). */
export function stepTimeFile(root: string = packageRoot()): string {
  const override = process.env.HOOKWISE_E2E_CACHE_DIR;
  const dir =
    override !== undefined && override !== ''
      ? resolve(override)
      : join(root, 'node_modules', '.cache', 'hookwise-e2e');
  return join(dir, 'step-time.json');
}

const STEP_WHAT =
  'A real Claude Code tool call with hookwise (what install --claude writes: http gate to the daemon, no PostToolUse hook) ÷ without hooks';
/** The step-time test alone, with the wirings the row and its context need (the whole file takes minutes more). */
const STEP_COMMAND =
  'HOOKWISE_E2E_STEP_WIRINGS=3,3b,5 HOOKWISE_E2E_STEP_ROUNDS=5 npx vitest run tests/e2e/daemon-wiring.test.ts -t "step time"';

/** The step row from the e2e record; without one, the previous table's row (`kept`), or a row that says so. */
export function stepRow(previous: QualityTable | undefined, file: string): { row: QualityRow; kept: boolean } {
  let record: StepTimeRecord | undefined;
  try {
    record = JSON.parse(readFileSync(file, 'utf8')) as StepTimeRecord;
  } catch {
    record = undefined; // not measured on this machine: keep what the table had
  }
  if (record !== undefined && record.bareMs > 0 && record.hookedMs > 0) {
    return {
      row: {
        what: STEP_WHAT,
        figure: `${(record.hookedMs / record.bareMs).toFixed(2)}× (${Math.round(record.hookedMs)} vs ${Math.round(record.bareMs)} ms, median of ${record.steps} steps${record.floorMs === undefined ? '' : `; an http hook to a server that answers at once: ${(record.floorMs / record.bareMs).toFixed(2)}×`}, Claude Code ${record.claudeCode}, ${record.date.slice(0, 10)}${record.load === undefined ? '' : `, load average ${record.load.average.toFixed(1)} on ${record.load.cpus} CPUs`})`,
        command: STEP_COMMAND,
      },
      kept: false,
    };
  }
  const kept = previous?.rows.find((r) => r.what === STEP_WHAT && !r.figure.startsWith('not measured'));
  return {
    row: kept ?? {
      what: STEP_WHAT,
      figure:
        'not measured where this table was written (the e2e test needs the real client; docs/daemon.md has the last run)',
      command: STEP_COMMAND,
    },
    kept: kept !== undefined,
  };
}

function commandRows(e: CommandEval, name: string, command: string): QualityRow[] {
  const rows: QualityRow[] = [];
  // A corpus without risky rows (the development workload is all benign) has no unsafe-allow figure.
  if (e.risky !== undefined && e.risky.total > 0)
    rows.push({
      what: `${name}: risky calls allowed (target 0)`,
      figure: share(e.risky.allowed, e.risky.total),
      command,
    });
  if (e.benign !== undefined)
    rows.push({
      what: `${name}: benign calls asked or denied`,
      figure: share(e.benign.asked, e.benign.total),
      command,
    });
  return rows;
}

function secretRow(e: SecretsEval, name: string, command: string): QualityRow {
  return {
    what: `Secrets, ${name}: recall / false positives`,
    figure: `${percent(e.secretPassed, e.secretRows)} of ${e.secretRows} secrets redacted / ${share(e.cleanFlagged, e.cleanRows)} clean texts changed`,
    command,
  };
}

const WORKLOAD_WHAT = 'Development workload: calls asked, confinement off → on';
const ESCAPES_WHAT = 'Confinement escape corpus: escapes (target 0)';
/** Rows measured only where bubblewrap works. */
const NEEDS_CONFINEMENT: readonly string[] = [WORKLOAD_WHAT, ESCAPES_WHAT];

export interface QualityOptions {
  /** The table the README has now: rows that cannot be measured here are kept from it. */
  previous?: QualityTable;
  progress?: (message: string) => void;
}

/** Measures every row; `kept` names the rows taken from `previous` instead. */
export async function measureQuality(options: QualityOptions = {}): Promise<{ table: QualityTable; kept: string[] }> {
  const progress = options.progress ?? (() => undefined);
  for (const corpus of [adversarialCorpus(), defaultWorkload()])
    if (!existsSync(corpus))
      throw new Error(`${corpus} is not here: the quality table is measured in a clone of the repository`);
  const rows: QualityRow[] = [];
  const kept: string[] = [];

  progress('quality: the adversarial corpus…');
  rows.push(
    ...commandRows(
      evaluateCommands(adversarialCorpus()),
      'Adversarial corpus',
      'hookwise bench --eval-commands bench/corpora/adversarial.jsonl',
    ),
  );
  // The workload is all benign: its figure is the share asked, in a copy of this repository as the agent saw
  // it, without and with confinement.
  progress('quality: the development workload…');
  const workload = evaluateWorkload(defaultWorkload(), { run: false, progress });
  if (workload.canConfine)
    rows.push({
      what: WORKLOAD_WHAT,
      figure: `${percent(workload.before.ask, workload.rows)} → ${percent(workload.after.ask, workload.rows)} of ${workload.rows}`,
      command: 'hookwise bench --eval-workload',
    });

  progress('quality: the confinement escape corpus…');
  const escapes = await runEscapeCorpus({ timing: false, progress });
  if (escapes.available) {
    const errors = escapes.results.filter((r) => r.outcome === 'error').length;
    rows.push({
      what: ESCAPES_WHAT,
      figure: `${escapes.escapes.length} of ${escapes.results.length} cases${errors > 0 ? `, ${errors} could not run` : ''}`,
      command: 'hookwise bench --eval-confine',
    });
  }

  progress('quality: the sanitizer corpora…');
  rows.push(
    secretRow(evaluateSecrets(builtinCorpus(), sanitize), 'built-in corpus', 'hookwise sanitize --eval builtin'),
  );
  rows.push(
    secretRow(evaluateSecrets(holdoutCorpus(), sanitize), 'held-out corpus', 'hookwise sanitize --eval holdout'),
  );

  const step = stepRow(options.previous, stepTimeFile());
  rows.push(step.row);
  if (step.kept) kept.push(step.row.what);
  // The rows this machine cannot measure (no confinement here) keep their last figure.
  for (const old of options.previous?.rows ?? [])
    if (NEEDS_CONFINEMENT.includes(old.what) && !rows.some((r) => r.what === old.what)) {
      rows.push(old);
      kept.push(old.what);
    }

  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  return {
    table: {
      measured: `Measured ${new Date().toISOString().slice(0, 10)} on ${availableParallelism()} CPUs (${cpu}), Node ${process.version}${kept.length > 0 ? `; kept from the previous table (not measurable here): ${kept.length} row${kept.length === 1 ? '' : 's'}` : ''}`,
      rows,
    },
    kept,
  };
}
