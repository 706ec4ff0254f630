/**
 * Generalization: does decision memory allow commands it has not seen, and never a risky one? (Issue 14.)
 *
 * The benign rows of a labelled corpus are split with a fixed seed into train (60 %), dev (20 %) and test
 * (20 %); the risky rows into dev and test halves. Then, through the real engine with tier 2b's pool (what a
 * daemon holds; `engine` below):
 *   1. before: every dev/test row is judged with empty memory;
 *   2. learning: the train rows are replayed as Claude Code sessions and every ask approved at the host's
 *      prompt (PreToolUse, then PostToolUse with the same tool_use_id: exactly how a real approval teaches);
 *   3. after: every dev/test row is judged again, with the embedding threshold lowered to its minimum and
 *      without remembering anything (Engine.decide: no edge learning), so each embedding allow carries the
 *      similarity it was made at. Because the tier's answer is the best guard-passing neighbour's, a row
 *      allowed at similarity s is allowed at every threshold ≤ s and passed on above — one pass gives the whole
 *      precision / coverage curve.
 * The threshold is calibrated on dev: the lowest on a 0.005 grid at which no risky dev row is allowed by
 * similarity; coverage and wrong auto-allows are reported on test at that threshold, and at the configured one.
 *
 * A corpus whose benign rows carry `split` (bench/corpora/learning.jsonl) says itself which rows the human
 * approves (`approve`) and which are held out (`unseen`: calls that differ from an approved one only in what
 * the grammar marks free); every risky row is held out. There is no dev split then: the figures are at the
 * configured threshold. Either way the report gives each `class`'s unseen benign rows allowed before and
 * after learning, its risky rows allowed, and the unseen rows still not allowed (the misses).
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCheck } from '../src/cli/check.js';
import type { Decision } from '../src/core/decision.js';
import { Engine } from '../src/engine/engine.js';
import { adapterFor } from '../src/hosts/index.js';
import { findProjectRoot } from '../src/paths/canonical.js';
import { locations } from '../src/util/locations.js';
import { defaultCommandCorpus, describeRow, roleOf, sessionFor } from './eval-commands.js';
import { DEFAULT_SEED, hookPayload, readLabelledCorpus, replayRuntime, type EvalEngine } from './eval-learning.js';

export type { EvalEngine } from './eval-learning.js';
import { shuffled } from './prng.js';

const SESSION = 'eval-generalize';
/** The tiers that decide from memory by similarity: what generalization is. */
const SIMILARITY = new Set(['jaccard', 'embedding']);
export const GRID_STEP = 0.005;
const MIN_THRESHOLD = 0.5;

type Row = ReturnType<typeof readLabelledCorpus>[number];
type Split = 'dev' | 'test';

export interface JudgedRow {
  split: Split;
  /** The row's id and class, when the corpus gives them. */
  id: string | null;
  class: string | null;
  label: 'benign' | 'risky';
  command: string;
  before: { verdict: string; tier: string };
  /** After learning, at the minimum threshold: the verdict, tier and (embedding) similarity. */
  after: { verdict: string; tier: string; similarity: number; reason: string };
}

export interface CurvePoint {
  threshold: number;
  /** Benign dev+test rows allowed (any tier), share. */
  coverage: number;
  /** Benign rows allowed by similarity (jaccard, embedding). */
  bySimilarity: number;
  /** Risky rows allowed by similarity: wrong auto-allows. */
  wrong: number;
}

/** One class of the corpus, on the test split at the configured threshold. */
export interface ClassLearning {
  unseen: number;
  allowedBefore: number;
  allowedAfter: number;
  risky: number;
  riskyAllowedAfter: number;
  /** Unseen benign rows not allowed after learning: what the grammar or the rails did not carry over. */
  misses: { command: string; verdict: string; tier: string; reason: string }[];
}

export interface GeneralizationEval {
  corpus: string;
  seed: number;
  /** `corpus`: the rows' own `split` chose what is approved and what held out; `seed`: a shuffled 60/20/20. */
  splitBy: 'corpus' | 'seed';
  model: string;
  train: { rows: number; approved: number };
  calibrated: number;
  configured: number;
  /** At the calibrated threshold, on the test split. */
  test: ThresholdFigures;
  /** At the configured threshold, on the test split. */
  testConfigured: ThresholdFigures;
  curve: CurvePoint[];
  /** Per corpus class (rows without one: `-`), at the configured threshold on the test split. */
  byClass: Record<string, ClassLearning>;
  seconds: number;
  rows: JudgedRow[];
}

export interface ThresholdFigures {
  benign: number;
  allowedBefore: number;
  allowedAfter: number;
  byTier: Record<string, number>;
  risky: number;
  riskyAllowedBefore: number;
  riskyAllowedAfter: number;
  wrongAutoAllows: { command: string; tier: string; reason: string }[];
}

export interface GeneralizationOptions {
  seed?: number;
  /** Makes the engine's daemon-held parts for the run's private directories. */
  engine: (places: { home: string; runtimeDir: string; userConfigDir: string }) => Promise<EvalEngine>;
  progress?: (message: string) => void;
}

/** Whether a row is allowed at threshold t, from its after-learning judgement at the minimum threshold. */
function allowedAt(row: JudgedRow, t: number): boolean {
  if (row.after.verdict !== 'allow') return false;
  return row.after.tier !== 'embedding' || row.after.similarity >= t - 1e-9;
}

export async function evaluateGeneralization(
  corpus: string = defaultCommandCorpus(),
  options: GeneralizationOptions,
): Promise<GeneralizationEval> {
  const seed = options.seed ?? DEFAULT_SEED;
  const progress = options.progress ?? (() => undefined);
  const rows = readLabelledCorpus(corpus);
  const splitBy = rows.some((r) => r.split !== undefined) ? 'corpus' : 'seed';
  const { train, held } = splitBy === 'corpus' ? corpusSplit(corpus, rows, seed) : seededSplit(rows, seed);

  const base = realpathSync(mkdtempSync(join(tmpdir(), 'hookwise-eval-generalize-')));
  try {
    const cwd = join(base, 'project');
    mkdirSync(join(cwd, '.git'), { recursive: true });
    const { runtimeDir, userConfigDir, env } = replayRuntime(base, SESSION, rows);
    const where = { cwd, transcript: join(base, 'transcript.jsonl') };
    const payload = (event: 'PreToolUse' | 'PostToolUse', row: Row, id: string): string =>
      hookPayload(event, row, { ...where, session: sessionFor(SESSION, roleOf(row)) }, id);
    const daemon = await options.engine({ home: locations(env).home, runtimeDir, userConfigDir });
    try {
      const engine = new Engine(locations(env), daemon.options);
      const projectRoot = findProjectRoot(cwd);
      const started = process.hrtime.bigint();

      /** One call judged without remembering anything (no edge learning), at the given threshold. */
      const judgeOnly = async (row: Row, threshold: number): Promise<Decision> => {
        const event = adapterFor('claude').parse(
          JSON.parse(payload('PreToolUse', row, 'toolu_judge')) as Record<string, unknown>,
        );
        if (event.kind !== 'pre-tool') throw new Error('eval-generalize: not a PreToolUse event');
        const policy = await engine.policyFor(projectRoot);
        const judged = await engine.decide(
          { kind: 'registered', role: roleOf(row), via: 'registry' },
          event.call,
          { ...policy, embedding: { ...policy.embedding, threshold } },
          projectRoot,
        );
        return judged.decision;
      };

      const before = new Map<Row, Decision>();
      const configured = (await engine.policyFor(projectRoot)).embedding.threshold;
      for (const { row } of held) before.set(row, await judgeOnly(row, configured));
      progress(`eval-generalize: judged ${held.length} held-out rows before learning`);

      let approved = 0;
      for (const [i, row] of train.entries()) {
        const id = `toolu_generalize_${seed}_${i + 1}`;
        const pre = await runCheck(payload('PreToolUse', row, id), { host: 'claude', env, engine: daemon.options });
        const verdict = pre.decision?.verdict;
        if (verdict === 'deny') continue;
        if (verdict === 'ask') approved++;
        const post = await runCheck(payload('PostToolUse', row, id), { host: 'claude', env, engine: daemon.options });
        if (post.exitCode !== 0)
          throw new Error(
            `eval-generalize: PostToolUse for \`${describeRow(row)}\` failed: ${post.stderr ?? post.stdout}`,
          );
      }
      progress(`eval-generalize: learned from ${train.length} benign rows (${approved} approved at the prompt)`);

      const judged: JudgedRow[] = [];
      for (const { row, split } of held) {
        const d = await judgeOnly(row, MIN_THRESHOLD);
        const b = before.get(row)!;
        judged.push({
          split,
          id: row.id ?? null,
          class: row.class ?? null,
          label: row.label,
          command: describeRow(row),
          before: { verdict: b.verdict, tier: b.tier },
          after: {
            verdict: d.verdict,
            tier: d.tier,
            similarity: d.tier === 'embedding' ? d.confidence : 1,
            reason: d.reason,
          },
        });
      }
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;

      const devRiskyNear = judged
        .filter(
          (r) =>
            r.split === 'dev' && r.label === 'risky' && r.after.verdict === 'allow' && r.after.tier === 'embedding',
        )
        .map((r) => r.after.similarity);
      // Without a dev split nothing is calibrated: the configured threshold is the one reported.
      const calibrated =
        splitBy === 'corpus'
          ? configured
          : Math.min(1, roundUp(Math.max(MIN_THRESHOLD, ...devRiskyNear.map((s) => s + GRID_STEP / 2))));
      const curve: CurvePoint[] = [];
      for (let t = MIN_THRESHOLD; t <= 1 + 1e-9; t += 0.025) curve.push(curvePoint(judged, Number(t.toFixed(3))));
      return {
        corpus,
        seed,
        splitBy,
        model: daemon.model,
        train: { rows: train.length, approved },
        calibrated,
        configured,
        test: figuresAt(judged, calibrated),
        testConfigured: figuresAt(judged, configured),
        curve,
        byClass: classFigures(judged, configured),
        seconds,
        rows: judged,
      };
    } finally {
      await daemon.close();
    }
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

/** A shuffled 60 % of the benign rows approved; 20 % dev and 20 % test held out, the risky rows halved between them. */
function seededSplit(rows: readonly Row[], seed: number): { train: Row[]; held: { row: Row; split: Split }[] } {
  const benign = shuffled(
    rows.filter((r) => r.label === 'benign'),
    seed,
  );
  const risky = shuffled(
    rows.filter((r) => r.label === 'risky'),
    seed,
  );
  const train = benign.slice(0, Math.round(benign.length * 0.6));
  const devBenign = benign.slice(train.length, train.length + Math.round(benign.length * 0.2));
  const testBenign = benign.slice(train.length + devBenign.length);
  const half = Math.round(risky.length / 2);
  return {
    train,
    held: [
      ...devBenign.map((row) => ({ row, split: 'dev' as const })),
      ...testBenign.map((row) => ({ row, split: 'test' as const })),
      ...risky.slice(0, half).map((row) => ({ row, split: 'dev' as const })),
      ...risky.slice(half).map((row) => ({ row, split: 'test' as const })),
    ],
  };
}

/** The corpus's own split: `approve` rows taught (in shuffled order), `unseen` and risky rows held out as test. */
function corpusSplit(
  corpus: string,
  rows: readonly Row[],
  seed: number,
): { train: Row[]; held: { row: Row; split: Split }[] } {
  const unsplit = rows.find((r) => r.label === 'benign' && r.split === undefined);
  if (unsplit !== undefined)
    throw new Error(
      `${corpus}:${unsplit.line}: a benign row without "split": in a corpus that splits itself, every benign row is "approve" or "unseen"`,
    );
  return {
    train: shuffled(
      rows.filter((r) => r.split === 'approve'),
      seed,
    ),
    held: rows
      .filter((r) => r.split === 'unseen' || r.label === 'risky')
      .map((row) => ({ row, split: 'test' as const })),
  };
}

function classFigures(rows: readonly JudgedRow[], t: number): Record<string, ClassLearning> {
  const out: Record<string, ClassLearning> = {};
  for (const r of rows.filter((x) => x.split === 'test')) {
    const c = (out[r.class ?? '-'] ??= {
      unseen: 0,
      allowedBefore: 0,
      allowedAfter: 0,
      risky: 0,
      riskyAllowedAfter: 0,
      misses: [],
    });
    const allowed = allowedAt(r, t);
    if (r.label === 'risky') {
      c.risky++;
      if (allowed) c.riskyAllowedAfter++;
      continue;
    }
    c.unseen++;
    if (r.before.verdict === 'allow') c.allowedBefore++;
    if (allowed) c.allowedAfter++;
    else c.misses.push({ command: r.command, verdict: r.after.verdict, tier: r.after.tier, reason: r.after.reason });
  }
  return out;
}

function roundUp(x: number): number {
  return Number((Math.ceil(x / GRID_STEP - 1e-9) * GRID_STEP).toFixed(3));
}

function curvePoint(rows: readonly JudgedRow[], t: number): CurvePoint {
  const benign = rows.filter((r) => r.label === 'benign');
  return {
    threshold: t,
    coverage: benign.filter((r) => allowedAt(r, t)).length / Math.max(1, benign.length),
    bySimilarity:
      benign.filter((r) => allowedAt(r, t) && SIMILARITY.has(r.after.tier)).length / Math.max(1, benign.length),
    wrong: rows.filter((r) => r.label === 'risky' && allowedAt(r, t) && SIMILARITY.has(r.after.tier)).length,
  };
}

function figuresAt(rows: readonly JudgedRow[], t: number): ThresholdFigures {
  const test = rows.filter((r) => r.split === 'test');
  const benign = test.filter((r) => r.label === 'benign');
  const risky = test.filter((r) => r.label === 'risky');
  const byTier: Record<string, number> = {};
  for (const r of benign) if (allowedAt(r, t)) byTier[r.after.tier] = (byTier[r.after.tier] ?? 0) + 1;
  return {
    benign: benign.length,
    allowedBefore: benign.filter((r) => r.before.verdict === 'allow').length,
    allowedAfter: benign.filter((r) => allowedAt(r, t)).length,
    byTier,
    risky: risky.length,
    riskyAllowedBefore: risky.filter((r) => r.before.verdict === 'allow').length,
    riskyAllowedAfter: risky.filter((r) => allowedAt(r, t)).length,
    wrongAutoAllows: risky
      .filter((r) => allowedAt(r, t) && SIMILARITY.has(r.after.tier))
      .map((r) => ({ command: r.command, tier: r.after.tier, reason: r.after.reason })),
  };
}

const pct = (n: number, of: number): string => `${((100 * n) / Math.max(1, of)).toFixed(1)} %`;

export function renderGeneralization(e: GeneralizationEval): string {
  const at = (label: string, t: number, f: ThresholdFigures): string[] => [
    `${label} threshold ${t.toFixed(3)} — test split:`,
    `  unseen benign allowed: ${f.allowedBefore}/${f.benign} (${pct(f.allowedBefore, f.benign)}) before learning → ${f.allowedAfter}/${f.benign} (${pct(f.allowedAfter, f.benign)}) after; by tier: ${
      Object.entries(f.byTier)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ') || 'none'
    }`,
    `  risky allowed: ${f.riskyAllowedBefore}/${f.risky} before → ${f.riskyAllowedAfter}/${f.risky} after; wrong auto-allows by similarity: ${f.wrongAutoAllows.length}`,
    ...f.wrongAutoAllows.map((w) => `    ${w.tier}: ${w.command}  (${w.reason})`),
  ];
  const classes = Object.entries(e.byClass);
  const perClass =
    classes.length <= 1
      ? []
      : [
          '',
          `per class, configured threshold: unseen benign allowed before → after, risky allowed after; misses`,
          ...classes.flatMap(([name, c]) => [
            `  ${name.padEnd(22)} ${`${c.allowedBefore}/${c.unseen} → ${c.allowedAfter}/${c.unseen}`.padEnd(14)} risky ${c.riskyAllowedAfter}/${c.risky}`,
            ...c.misses.map((m) => `      miss: ${m.command}  (${m.verdict} [${m.tier}]: ${m.reason})`),
          ]),
        ];
  return [
    `${e.corpus}: generalization of decision memory (model ${e.model}, seed ${e.seed}), ${e.seconds.toFixed(1)} s`,
    e.splitBy === 'corpus'
      ? `learned from the corpus's ${e.train.rows} approve rows (${e.train.approved} approved at the host's prompt); held out: its ${e.rows.length} unseen and risky rows`
      : `learned from ${e.train.rows} benign rows (${e.train.approved} approved at the host's prompt); held out: ${e.rows.length} rows (dev + test)`,
    '',
    ...(e.splitBy === 'corpus'
      ? []
      : [...at('calibrated (dev: lowest with no risky row allowed by similarity)', e.calibrated, e.test), '']),
    ...at('configured', e.configured, e.testConfigured),
    ...perClass,
    '',
    'precision / coverage curve (dev + test): threshold, benign allowed (any tier), by similarity, wrong auto-allows',
    ...e.curve.map(
      (p) =>
        `  ${p.threshold.toFixed(3)}  ${pct(p.coverage, 1).padStart(8)}  ${pct(p.bySimilarity, 1).padStart(8)}  ${String(p.wrong).padStart(4)}`,
    ),
  ].join('\n');
}
