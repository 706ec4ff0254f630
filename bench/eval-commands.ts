/**
 * Replays a labelled corpus of tool calls through the real cascade — the built `hookwise check --jsonl`, one
 * process, the same code path as a hook call — and reports:
 *   - unsafe-allow rate: risky rows that got allow (target 0), each listed with the tier and rule,
 *   - catch rate: risky rows that got deny or ask,
 *   - fatigue rate: benign rows that got ask or deny (target < 20 %),
 *   - per `class` (the adversarial corpus, bench/corpora/adversarial.jsonl), the same figures per class,
 * and, for unlabelled corpora (tldr), the verdict distribution. `ask` from the end of the cascade (no tier
 * decided) is counted as ask — that is what the user sees — and reported separately, because the later
 * tiers (decision memory) exist to bring it down.
 *
 * A row is a Bash call, `{"command": "…"}`, or another tool's, `{"tool": "Read", "input": {…}}`: the path
 * fields of `input` (file_path, path, notebook_path) are made absolute as a host sends them — a leading `~`
 * becomes the real home directory, a relative path is taken from the project. `role` (default maintainer:
 * writes allowed everywhere, so the call's own safety decides) is the session's role: every role in the
 * corpus gets its own registered session in the private runtime directory, so one process judges them all.
 *
 * Run: `hookwise bench --eval-commands [corpus.jsonl] [--project dir] [--verbose] [--json]`. Without a
 * corpus: the in-repo adversarial corpus and, when it exists, ../shared/corpora/commands.shellfirm.jsonl.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { toolShape } from '../src/core/tools.js';
import { SessionRegistry } from '../src/session/registry.js';
import { hookwiseBin, packageRoot } from '../src/util/package-root.js';

export type Label = 'risky' | 'benign';

/** The benign rows of a learning corpus: approved at the prompt, or held out to judge after learning. */
export const LEARNING_SPLITS = ['approve', 'unseen'] as const;
export type LearningSplit = (typeof LEARNING_SPLITS)[number];

/** The classes of the adversarial corpus, in report order (docs/benchmarks.md describes each). */
export const ADVERSARIAL_CLASSES = [
  'env-code',
  'option-code',
  'option-read',
  'option-write',
  'expansion',
  'planted',
  'secret-read',
  'self-protect',
  'role-glob',
  'fatigue',
  'memory-poison',
  'provenance',
] as const;

/** The role a row without `role` runs as: writes allowed everywhere, so the call's own safety decides. */
export const DEFAULT_ROLE = 'maintainer';

export interface CorpusRow {
  /** 1-based line in the corpus file. */
  line: number;
  id?: string;
  class?: string;
  label?: Label;
  /** A Bash call. */
  command?: string;
  /** Another tool's call: the host tool name and its tool_input. */
  tool?: string;
  input?: Record<string, unknown>;
  role?: string;
  note?: string;
  /** memory-poison: the benign and the risky row of a pair share this value. */
  pair?: string;
  /** Learning corpora (bench/corpora/learning.jsonl): a benign row the human approves, or one held out unseen. */
  split?: LearningSplit;
  ecosystem?: string;
  description?: string;
}

/** One judged row, as listed in the report. */
export interface JudgedRow {
  /** The row's id, else `line N`. */
  id: string;
  class: string | null;
  role: string;
  /** The command, or `Tool path-or-input` for another tool. */
  command: string;
  verdict: string;
  tier: string;
  rule: string | null;
}

export interface ClassFigures {
  risky: number;
  /** Risky rows allowed: unsafe allows. */
  allowed: number;
  unsafeAllowRate: number;
  benign: number;
  /** Benign rows asked or denied: fatigue. */
  asked: number;
  fatigueRate: number;
}

export interface CommandEval {
  corpus: string;
  rows: number;
  verdicts: Record<string, number>;
  undecided: number;
  risky?: {
    total: number;
    allowed: number;
    caught: number;
    unsafeAllowRate: number;
    catchRate: number;
    unsafeAllows: JudgedRow[];
  };
  benign?: { total: number; asked: number; fatigueRate: number; fatigueFromDefault: number; asks: JudgedRow[] };
  /** Rows with a `class` (the adversarial corpus): the figures per class, in ADVERSARIAL_CLASSES order. */
  byClass?: Record<string, ClassFigures>;
  byEcosystem?: Record<string, { risky: number; caught: number; benign: number; asked: number }>;
  secondsPerThousand: number;
  /** Every row's answer, in corpus order (to compare two runs). */
  judged: JudgedRow[];
}

/** The shellfirm corpus of the development environment (../shared beside the repository; not in a user's clone). */
export function defaultCommandCorpus(): string {
  return resolve(packageRoot(), '..', 'shared', 'corpora', 'commands.shellfirm.jsonl');
}

/** The in-repo adversarial corpus; the same path from the sources and from the built dist/cli.cjs. */
export function adversarialCorpus(): string {
  return join(packageRoot(), 'bench', 'corpora', 'adversarial.jsonl');
}

/** Reads and checks a corpus: each non-empty line a JSON object with a command, or a tool and its input. */
export function readCorpus(corpus: string): CorpusRow[] {
  if (!existsSync(corpus)) {
    throw new Error(
      `corpus not found: ${corpus} (the development corpora live in ../shared/corpora beside the repository; a user's clone has none)`,
    );
  }
  const rows: CorpusRow[] = [];
  readFileSync(corpus, 'utf8')
    .split('\n')
    .forEach((text, i) => {
      if (text.trim() === '') return;
      let row: Omit<CorpusRow, 'line'>;
      try {
        row = JSON.parse(text) as Omit<CorpusRow, 'line'>;
      } catch (error) {
        throw new Error(`${corpus}:${i + 1}: not JSON: ${(error as Error).message}`);
      }
      const isBash = typeof row.command === 'string' && row.tool === undefined;
      const isTool =
        typeof row.tool === 'string' &&
        row.tool !== 'Bash' &&
        typeof row.input === 'object' &&
        row.input !== null &&
        !Array.isArray(row.input) &&
        row.command === undefined;
      if (!isBash && !isTool) {
        throw new Error(
          `${corpus}:${i + 1}: a row is {"command": "…"} (Bash) or {"tool": "Read", "input": {…}} (another tool)`,
        );
      }
      if (row.label !== undefined && row.label !== 'risky' && row.label !== 'benign')
        throw new Error(`${corpus}:${i + 1}: label is "risky" or "benign", not ${JSON.stringify(row.label)}`);
      if (row.split !== undefined && (row.label !== 'benign' || !LEARNING_SPLITS.includes(row.split)))
        throw new Error(
          `${corpus}:${i + 1}: split is "approve" or "unseen", on a benign row only, not ${JSON.stringify(row.split)}`,
        );
      if (row.role !== undefined && (typeof row.role !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9_-]*$/.test(row.role)))
        throw new Error(`${corpus}:${i + 1}: role ${JSON.stringify(row.role)} is not a role name`);
      rows.push({ ...row, line: i + 1 });
    });
  return rows;
}

/**
 * `~`, `~/x` → the home directory; a relative path → from the project; absolute paths stay. Not normalized:
 * a host passes `tests/../src/a.ts` on as the model wrote it, and the gate has to see through it.
 */
export function expandPath(value: string, cwd: string, home: string = homedir()): string {
  if (value === '~') return home;
  if (value.startsWith('~/')) return `${home.replace(/\/+$/, '')}/${value.slice(2)}`;
  return isAbsolute(value) ? value : `${cwd.replace(/\/+$/, '')}/${value}`;
}

/** The host's tool_name and tool_input for a row: path fields absolute, as Claude Code sends them. */
export function toolCallOf(
  row: CorpusRow,
  cwd: string,
  home: string = homedir(),
): { tool_name: string; tool_input: Record<string, unknown> } {
  if (row.command !== undefined) return { tool_name: 'Bash', tool_input: { command: row.command } };
  const input: Record<string, unknown> = { ...row.input };
  for (const field of toolShape(row.tool!).pathFields) {
    const value = input[field];
    if (typeof value === 'string' && value !== '') input[field] = expandPath(value, cwd, home);
  }
  return { tool_name: row.tool!, tool_input: input };
}

/** How a row is shown in reports: the command, or the tool with its path (or its input). */
export function describeRow(row: CorpusRow): string {
  if (row.command !== undefined) return row.command;
  const shape = toolShape(row.tool!);
  const path = shape.pathFields.map((f) => row.input?.[f]).find((v) => typeof v === 'string');
  const pattern = row.input?.pattern;
  return [row.tool, typeof pattern === 'string' ? JSON.stringify(pattern) : undefined, path]
    .filter((x) => x !== undefined)
    .join(' ');
}

export const roleOf = (row: CorpusRow): string => row.role ?? DEFAULT_ROLE;
export const idOf = (row: CorpusRow): string => row.id ?? `line ${row.line}`;

/** The session a row's calls come from: one registered session per role. */
export const sessionFor = (prefix: string, role: string): string => `${prefix}-${role}`;

/** Registers one session per role of `rows` in the registry of `runtimeDir`, as `hookwise register` does. */
export function registerRoles(runtimeDir: string, prefix: string, rows: readonly CorpusRow[]): void {
  const registry = new SessionRegistry(runtimeDir);
  for (const role of new Set(rows.map(roleOf))) {
    const id = sessionFor(prefix, role);
    registry.update(id, (_, now) => ({ session_id: id, role, disabled: false, registered_at: now, updated_at: now }));
  }
}

interface Outcome {
  row: CorpusRow;
  verdict: string;
  tier: string;
  rule: string | null;
}

/**
 * `project`: the directory the commands run in (default: an empty throw-away project, a git repository with
 * nothing in it). Whether a write overwrites an existing file matters (see src/shell/tier.ts), so a
 * realistic project gives realistic figures. HOME stays the real home: `~` rows name real paths.
 */
export function evaluateCommands(corpus: string = defaultCommandCorpus(), project?: string): CommandEval {
  const rows = readCorpus(corpus);
  // realpath: hookwise compares canonical paths, and tmpdir() may sit behind a symlink (macOS).
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'hookwise-eval-')));
  try {
    const cwd = project === undefined ? join(base, 'project') : resolve(project);
    if (project === undefined) mkdirSync(join(cwd, '.git'), { recursive: true });
    const { answers, seconds } = replayTimed(rows, cwd, base, 'eval');
    const outcomes: Outcome[] = answers.map((a) => ({
      row: rows[a.line - 1]!,
      verdict: a.verdict ?? 'none',
      tier: a.tier ?? 'none',
      rule: a.rule,
    }));
    return summarize(corpus, outcomes, seconds);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

/** replayThroughCheck with hookwise's runtime and config directories under `base`, and how long it took. */
export function replayTimed(
  rows: readonly CorpusRow[],
  cwd: string,
  base: string,
  prefix: string,
  confine?: 'default',
): { answers: CheckAnswer[]; seconds: number } {
  const started = process.hrtime.bigint();
  const answers = replayThroughCheck(rows, cwd, {
    runtimeDir: join(base, 'runtime'),
    configDir: join(base, 'config'),
    prefix,
    ...(confine === undefined ? {} : { confine }),
  });
  return { answers, seconds: Number(process.hrtime.bigint() - started) / 1e9 };
}

/** One answer of `check --jsonl` (src/cli/check-batch.ts BatchDecision). */
export interface CheckAnswer {
  line: number;
  verdict: string | null;
  tier: string | null;
  rule: string | null;
  reason: string | null;
  /** What the host would have received. */
  stdout: string;
}

/**
 * The rows through one built `hookwise check --jsonl` process, in `cwd`, each as its role's registered session
 * (the registry decides the role, not HOOKWISE_ROLE); the answers in row order. The corpora measure the
 * cascade's own verdicts, so confinement is off unless `confine: 'default'` (or a config.yml already in
 * `configDir`) says otherwise.
 */
export function replayThroughCheck(
  rows: readonly CorpusRow[],
  cwd: string,
  options: { runtimeDir: string; configDir: string; prefix: string; permissionMode?: string; confine?: 'default' },
): CheckAnswer[] {
  registerRoles(options.runtimeDir, options.prefix, rows);
  const userConfig = join(options.configDir, 'config.yml');
  if (options.confine !== 'default' && !existsSync(userConfig)) {
    mkdirSync(options.configDir, { recursive: true });
    writeFileSync(userConfig, 'confine:\n  enabled: false\n');
  }
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOOKWISE_RUNTIME_DIR: options.runtimeDir,
    HOOKWISE_CONFIG_DIR: options.configDir,
  };
  delete env.HOOKWISE_ROLE;
  delete env.HOOKWISE_DEBUG;
  const mode = options.permissionMode === undefined ? {} : { permission_mode: options.permissionMode };
  const input = rows
    .map((row, i) =>
      JSON.stringify({
        session_id: sessionFor(options.prefix, roleOf(row)),
        cwd,
        ...mode,
        hook_event_name: 'PreToolUse',
        ...toolCallOf(row, cwd),
        tool_use_id: `${options.prefix}-${i}`,
      }),
    )
    .join('\n');
  const run = spawnSync(process.execPath, [hookwiseBin(), 'check', '--jsonl'], {
    input,
    env,
    encoding: 'utf8',
    maxBuffer: 1024 * 1024 * 1024,
  });
  if (run.status !== 0) throw new Error(`hookwise check --jsonl failed (${run.status}): ${run.stderr}`);
  const answers = run.stdout
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as CheckAnswer);
  if (answers.length !== rows.length)
    throw new Error(`hookwise check --jsonl answered ${answers.length} of ${rows.length} rows: ${run.stderr}`);
  return answers;
}

const judged = (o: Outcome): JudgedRow => ({
  id: idOf(o.row),
  class: o.row.class ?? null,
  role: roleOf(o.row),
  command: describeRow(o.row),
  verdict: o.verdict,
  tier: o.tier,
  rule: o.rule,
});
const rate = (n: number, of: number): number => n / Math.max(1, of);

function summarize(corpus: string, outcomes: Outcome[], seconds: number): CommandEval {
  const verdicts: Record<string, number> = {};
  for (const o of outcomes) verdicts[o.verdict] = (verdicts[o.verdict] ?? 0) + 1;
  const result: CommandEval = {
    corpus,
    rows: outcomes.length,
    verdicts,
    undecided: outcomes.filter((o) => o.tier === 'default').length,
    secondsPerThousand: rate(seconds, outcomes.length) * 1000,
    judged: outcomes.map(judged),
  };
  const risky = outcomes.filter((o) => o.row.label === 'risky');
  const benign = outcomes.filter((o) => o.row.label === 'benign');
  if (risky.length + benign.length === 0) return result;
  const allowed = risky.filter((o) => o.verdict === 'allow');
  result.risky = {
    total: risky.length,
    allowed: allowed.length,
    caught: risky.length - allowed.length,
    unsafeAllowRate: rate(allowed.length, risky.length),
    catchRate: rate(risky.length - allowed.length, risky.length),
    unsafeAllows: allowed.map(judged),
  };
  const asked = benign.filter((o) => o.verdict !== 'allow');
  result.benign = {
    total: benign.length,
    asked: asked.length,
    fatigueRate: rate(asked.length, benign.length),
    fatigueFromDefault: rate(asked.filter((o) => o.tier === 'default').length, benign.length),
    asks: asked.map(judged),
  };
  if (outcomes.some((o) => o.row.class !== undefined)) {
    const known: readonly string[] = ADVERSARIAL_CLASSES;
    const classes = [...new Set(outcomes.map((o) => o.row.class ?? '-'))].sort(
      (a, b) =>
        (known.includes(a) ? known.indexOf(a) : known.length) - (known.includes(b) ? known.indexOf(b) : known.length) ||
        a.localeCompare(b),
    );
    const byClass: Record<string, ClassFigures> = {};
    for (const c of classes) {
      const rows = outcomes.filter((o) => (o.row.class ?? '-') === c);
      const r = rows.filter((o) => o.row.label === 'risky');
      const b = rows.filter((o) => o.row.label === 'benign');
      const rAllowed = r.filter((o) => o.verdict === 'allow').length;
      const bAsked = b.filter((o) => o.verdict !== 'allow').length;
      byClass[c] = {
        risky: r.length,
        allowed: rAllowed,
        unsafeAllowRate: rate(rAllowed, r.length),
        benign: b.length,
        asked: bAsked,
        fatigueRate: rate(bAsked, b.length),
      };
    }
    result.byClass = byClass;
  }
  if (outcomes.some((o) => o.row.ecosystem !== undefined)) {
    const eco: NonNullable<CommandEval['byEcosystem']> = {};
    for (const o of outcomes) {
      const e = (eco[o.row.ecosystem ?? '-'] ??= { risky: 0, caught: 0, benign: 0, asked: 0 });
      if (o.row.label === 'risky') {
        e.risky++;
        if (o.verdict !== 'allow') e.caught++;
      } else if (o.row.label === 'benign') {
        e.benign++;
        if (o.verdict !== 'allow') e.asked++;
      }
    }
    result.byEcosystem = eco;
  }
  return result;
}

const pct = (x: number): string => `${(x * 100).toFixed(1)} %`;
const how = (j: JudgedRow): string => `${j.verdict} by ${j.tier}${j.rule === null ? '' : ` ${j.rule}`}`;
/** One line per row: the newlines of a here-document shown as `\n`. */
export const oneLine = (command: string): string => command.replace(/\n/g, '\\n');
const who = (j: JudgedRow): string =>
  `${j.class === null ? '' : `[${j.class}] `}${j.id}${j.role === DEFAULT_ROLE ? '' : ` (role ${j.role})`}`;

/** The report; `verbose` also lists every benign row that was asked or denied. */
export function renderCommandEval(e: CommandEval, verbose = false): string {
  const lines = [
    `${e.corpus}: ${e.rows} calls, ${e.secondsPerThousand.toFixed(2)} s per 1000 (one check --jsonl process)`,
  ];
  lines.push(
    `verdicts: ${Object.entries(e.verdicts)
      .map(([v, n]) => `${n} ${v}`)
      .join(', ')}; ${e.undecided} undecided by any tier (default ask)`,
  );
  if (e.risky === undefined || e.benign === undefined) return lines.join('\n');
  if (e.byClass !== undefined) {
    const head = `${'class'.padEnd(14)} ${'risky'.padStart(5)} ${'allowed'.padStart(7)} ${'unsafe-allow'.padStart(12)}   ${'benign'.padStart(6)} ${'asked'.padStart(5)} ${'fatigue'.padStart(8)}`;
    lines.push('', head);
    const row = (name: string, f: { risky: number; allowed: number; benign: number; asked: number }) =>
      `${name.padEnd(14)} ${String(f.risky).padStart(5)} ${String(f.allowed).padStart(7)} ${(f.risky === 0 ? '-' : pct(rate(f.allowed, f.risky))).padStart(12)}   ${String(f.benign).padStart(6)} ${String(f.asked).padStart(5)} ${(f.benign === 0 ? '-' : pct(rate(f.asked, f.benign))).padStart(8)}`;
    for (const [name, f] of Object.entries(e.byClass)) lines.push(row(name, f));
    lines.push(
      row('total', { risky: e.risky.total, allowed: e.risky.allowed, benign: e.benign.total, asked: e.benign.asked }),
      '',
    );
  }
  lines.push(
    `risky ${e.risky.total}: unsafe-allow ${pct(e.risky.unsafeAllowRate)} (${e.risky.allowed}), catch ${pct(e.risky.catchRate)}`,
  );
  lines.push(
    `benign ${e.benign.total}: fatigue ${pct(e.benign.fatigueRate)} (${e.benign.asked}; ${pct(e.benign.fatigueFromDefault)} from the default ask)`,
  );
  for (const u of e.risky.unsafeAllows) lines.push(`  unsafe allow ${who(u)}: ${oneLine(u.command)}  (${how(u)})`);
  if (verbose) for (const a of e.benign.asks) lines.push(`  fatigue ${who(a)}: ${oneLine(a.command)}  (${how(a)})`);
  return lines.join('\n');
}
