/**
 * Replays a command corpus through the real cascade — the built `hookwise check --jsonl`, one process, the
 * same code path as a hook call — as role `maintainer` (writes allowed everywhere, so command safety alone
 * decides), and reports:
 *   - unsafe-allow rate: risky rows that got allow (target 0),
 *   - catch rate: risky rows that got deny or ask,
 *   - fatigue rate: benign rows that got ask or deny (target < 20 %),
 * and, for unlabelled corpora (tldr), the verdict distribution. `ask` from the end of the cascade (no tier
 * decided) is counted as ask — that is what the user sees — and reported separately, because the later
 * tiers (decision memory) exist to bring it down.
 * Run: `hookwise bench --eval-commands [corpus.jsonl]` (default ../shared/corpora/commands.shellfirm.jsonl).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { hookwiseBin, packageRoot } from '../src/util/package-root.js';

interface Row {
  command: string;
  label?: 'risky' | 'benign';
  ecosystem?: string;
  description?: string;
}

interface Outcome {
  row: Row;
  verdict: string;
  tier: string;
  rule: string | null;
}

export interface CommandEval {
  corpus: string;
  rows: number;
  verdicts: Record<string, number>;
  undecided: number;
  risky?: { total: number; allowed: number; caught: number; unsafeAllowRate: number; catchRate: number; unsafeAllows: { command: string; rule: string | null }[] };
  benign?: { total: number; asked: number; fatigueRate: number; fatigueFromDefault: number };
  byEcosystem?: Record<string, { risky: number; caught: number; benign: number; asked: number }>;
  secondsPerThousand: number;
}

export function defaultCommandCorpus(): string {
  return resolve(packageRoot(), '..', 'shared', 'corpora', 'commands.shellfirm.jsonl');
}

/**
 * `project`: the directory the commands run in (default: an empty throw-away project). Whether a write
 * overwrites an existing file matters (see src/shell/tier.ts), so a realistic project gives realistic figures.
 */
export function evaluateCommands(corpus: string = defaultCommandCorpus(), project?: string): CommandEval {
  if (!existsSync(corpus)) {
    throw new Error(`corpus not found: ${corpus} (the development corpora live in ../shared/corpora beside the repository; a user's clone has none)`);
  }
  const rows = readFileSync(corpus, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Row);
  const base = mkdtempSync(join(tmpdir(), 'hookwise-eval-'));
  try {
    const cwd = project ?? join(base, 'project');
    if (project === undefined) mkdirSync(join(cwd, '.git'), { recursive: true });
    const env = { ...process.env, HOOKWISE_RUNTIME_DIR: join(base, 'runtime'), HOOKWISE_CONFIG_DIR: join(base, 'config'), HOOKWISE_ROLE: 'maintainer' };
    const input = rows
      .map((row, i) => JSON.stringify({ session_id: 'eval', cwd, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: row.command }, tool_use_id: `eval-${i}` }))
      .join('\n');
    const started = process.hrtime.bigint();
    const run = spawnSync(process.execPath, [hookwiseBin(), 'check', '--jsonl'], { input, env, encoding: 'utf8', maxBuffer: 1024 * 1024 * 1024 });
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    if (run.status !== 0) throw new Error(`hookwise check --jsonl failed (${run.status}): ${run.stderr}`);
    const answers = run.stdout.trim().split('\n').map((l) => JSON.parse(l) as { line: number; verdict: string; tier: string; rule: string | null });
    const outcomes: Outcome[] = answers.map((a) => ({ row: rows[a.line - 1]!, verdict: a.verdict, tier: a.tier, rule: a.rule }));
    return summarize(corpus, outcomes, seconds);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

function summarize(corpus: string, outcomes: Outcome[], seconds: number): CommandEval {
  const verdicts: Record<string, number> = {};
  for (const o of outcomes) verdicts[o.verdict] = (verdicts[o.verdict] ?? 0) + 1;
  const result: CommandEval = {
    corpus,
    rows: outcomes.length,
    verdicts,
    undecided: outcomes.filter((o) => o.tier === 'default').length,
    secondsPerThousand: (seconds / Math.max(1, outcomes.length)) * 1000,
  };
  const risky = outcomes.filter((o) => o.row.label === 'risky');
  const benign = outcomes.filter((o) => o.row.label === 'benign');
  if (risky.length + benign.length > 0) {
    const allowed = risky.filter((o) => o.verdict === 'allow');
    result.risky = {
      total: risky.length,
      allowed: allowed.length,
      caught: risky.length - allowed.length,
      unsafeAllowRate: allowed.length / Math.max(1, risky.length),
      catchRate: (risky.length - allowed.length) / Math.max(1, risky.length),
      unsafeAllows: allowed.map((o) => ({ command: o.row.command, rule: o.rule })),
    };
    const asked = benign.filter((o) => o.verdict !== 'allow');
    result.benign = {
      total: benign.length,
      asked: asked.length,
      fatigueRate: asked.length / Math.max(1, benign.length),
      fatigueFromDefault: asked.filter((o) => o.tier === 'default').length / Math.max(1, benign.length),
    };
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

export function renderCommandEval(e: CommandEval): string {
  const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
  const lines = [`${e.corpus}: ${e.rows} commands, ${e.secondsPerThousand.toFixed(2)} s per 1000 (one check --jsonl process)`];
  lines.push(`verdicts: ${Object.entries(e.verdicts).map(([v, n]) => `${n} ${v}`).join(', ')}; ${e.undecided} undecided by any tier (default ask)`);
  if (e.risky !== undefined && e.benign !== undefined) {
    lines.push(`risky ${e.risky.total}: unsafe-allow ${pct(e.risky.unsafeAllowRate)} (${e.risky.allowed}), catch ${pct(e.risky.catchRate)}`);
    lines.push(`benign ${e.benign.total}: fatigue ${pct(e.benign.fatigueRate)} (${e.benign.asked}; ${pct(e.benign.fatigueFromDefault)} from the default ask)`);
    for (const u of e.risky.unsafeAllows) lines.push(`  unsafe allow: ${u.command}  (${u.rule ?? '-'})`);
  }
  return lines.join('\n');
}
