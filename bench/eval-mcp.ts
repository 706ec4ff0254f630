/**
 * MCP calls by effect (issue 29): a workload of MCP calls (bench/corpora/mcp-workload.jsonl — searches, reads,
 * writes, SQL of every class, browser steps, unknown tools, and an adversarial part) replayed as a Claude Code
 * session (role `coder`) through the real `hookwise check` path (runCheck, in process, private runtime and
 * config directories), twice:
 *
 *   - first sight: empty decision memory, nobody answers (no PostToolUse): what hookwise decides alone;
 *   - one approval per tool: fresh memory, rows in file order (benign rows first, then the adversarial ones); a
 *     simulated human approves, at the host's prompt, the first benign call of each tool that hookwise asks
 *     about (a PostToolUse with the same tool_use_id, exactly how an approval teaches memory), and nothing else.
 *
 * Reported: asks per 100 MCP calls in each replay; asks per read-only tool in the second (target ≤ 1: the one
 * approval); unsafe allows — an adversarial row allowed in either replay (target 0; every adversarial row
 * must be asked or denied); and the SQL classifier's cost per statement (the bench rows sql.classify.*).
 * Run: `hookwise bench --eval-mcp [corpus.jsonl] [--json]`.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCheck } from '../src/cli/check.js';
import { packageRoot } from '../src/util/package-root.js';
import { describeRow, readCorpus, sessionFor, type CorpusRow } from './eval-commands.js';
import { answerOf, hookPayload, replayRuntime, type HookAnswer } from './eval-learning.js';
import type { Measurement } from './suite.js';
import { measureSqlClassifier } from './suites/sql.js';

const SESSION = 'eval-mcp';
/** Row classes whose tool only reads or computes: after one approval they should never ask again. */
export const READ_ONLY_CLASSES = new Set([
  'read',
  'compute',
  'search',
  'docs',
  'fetch',
  'sql-read',
  'browser-read',
  'unknown-read',
]);

export function defaultMcpCorpus(): string {
  return join(packageRoot(), 'bench', 'corpora', 'mcp-workload.jsonl');
}

export interface McpStep extends HookAnswer {
  line: number;
  tool: string;
  class: string;
  label: string;
  note?: string;
  /** Second replay: the simulated human approved this ask. */
  approved?: boolean;
}

export interface McpPass {
  calls: number;
  asks: number;
  allows: number;
  denies: number;
  asksPer100: number;
  /** By tier: how many calls each tier decided. */
  byTier: Record<string, number>;
  steps: McpStep[];
}

export interface McpEval {
  corpus: string;
  rows: number;
  adversarial: number;
  firstSight: McpPass;
  oneApproval: McpPass;
  /** Second replay, read-only tools: asks per tool (the approval's ask included). */
  readOnlyTools: { tool: string; calls: number; asks: number }[];
  /** Adversarial rows allowed in either replay (target 0). */
  unsafeAllows: { replay: string; step: McpStep }[];
  /** Adversarial rows by what they got in the second replay. */
  adversarialVerdicts: Record<string, number>;
  sql: Measurement[];
  seconds: number;
}

type Row = CorpusRow & { tool: string; label: 'benign' | 'risky' };

export async function evaluateMcp(
  corpus: string = defaultMcpCorpus(),
  options: { quick?: boolean } = {},
): Promise<McpEval> {
  const rows = readCorpus(corpus).map((row) => {
    if (row.tool === undefined || !row.tool.startsWith('mcp__') || row.label === undefined)
      throw new Error(
        `${corpus}:${row.line}: an MCP workload row is {"tool": "mcp__…", "input": {…}, "label": "benign" | "risky"}`,
      );
    return row as Row;
  });
  const started = process.hrtime.bigint();
  const firstSight = await replay(rows, false);
  const oneApproval = await replay(rows, true);
  const perTool = new Map<string, { tool: string; calls: number; asks: number }>();
  for (const s of oneApproval.steps) {
    if (s.label !== 'benign' || !READ_ONLY_CLASSES.has(s.class)) continue;
    const t = perTool.get(s.tool) ?? { tool: s.tool, calls: 0, asks: 0 };
    t.calls++;
    if (s.verdict === 'ask') t.asks++;
    perTool.set(s.tool, t);
  }
  const unsafeAllows = [
    ...firstSight.steps
      .filter((s) => s.label === 'risky' && s.verdict === 'allow')
      .map((step) => ({ replay: 'first sight', step })),
    ...oneApproval.steps
      .filter((s) => s.label === 'risky' && s.verdict === 'allow')
      .map((step) => ({ replay: 'one approval', step })),
  ];
  const adversarialVerdicts: Record<string, number> = {};
  for (const s of oneApproval.steps.filter((x) => x.label === 'risky'))
    adversarialVerdicts[s.verdict] = (adversarialVerdicts[s.verdict] ?? 0) + 1;
  const sql = await measureSqlClassifier(options.quick === true ? 'quick' : 'full');
  return {
    corpus,
    rows: rows.length,
    adversarial: rows.filter((r) => r.label === 'risky').length,
    firstSight,
    oneApproval,
    readOnlyTools: [...perTool.values()].sort((a, b) => b.asks - a.asks || a.tool.localeCompare(b.tool)),
    unsafeAllows,
    adversarialVerdicts,
    sql,
    seconds: Number(process.hrtime.bigint() - started) / 1e9,
  };
}

async function replay(rows: readonly Row[], approveOncePerTool: boolean): Promise<McpPass> {
  // realpath: hookwise compares canonical paths, and tmpdir() may sit behind a symlink (macOS).
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'hookwise-eval-mcp-')));
  try {
    const cwd = join(base, 'project');
    mkdirSync(join(cwd, '.git'), { recursive: true });
    const { env } = replayRuntime(base, SESSION, rows);
    const where = { session: sessionFor(SESSION, 'coder'), cwd, transcript: join(base, 'transcript.jsonl') };
    const approved = new Set<string>();
    const steps: McpStep[] = [];
    for (const [i, row] of rows.entries()) {
      const toolUseId = `toolu_mcp_${approveOncePerTool ? 'b' : 'a'}_${i + 1}`;
      const pre = await runCheck(hookPayload('PreToolUse', row, where, toolUseId), { host: 'claude', env });
      const answer = answerOf(pre.decision, describeRow(row));
      const step: McpStep = { line: row.line, tool: row.tool, class: row.class ?? '', label: row.label, ...answer };
      if (row.note !== undefined) step.note = row.note;
      // The one approval per tool: the first benign call asked because no tier decided (it teaches memory).
      if (approveOncePerTool && answer.verdict === 'ask' && row.label === 'benign' && !approved.has(row.tool)) {
        approved.add(row.tool);
        step.approved = true;
        const post = await runCheck(hookPayload('PostToolUse', row, where, toolUseId), { host: 'claude', env });
        if (post.exitCode !== 0)
          throw new Error(`eval-mcp: PostToolUse for ${row.tool} failed: ${post.stderr ?? post.stdout}`);
      }
      steps.push(step);
    }
    const count = (v: string) => steps.filter((s) => s.verdict === v).length;
    const byTier: Record<string, number> = {};
    for (const s of steps) byTier[s.tier] = (byTier[s.tier] ?? 0) + 1;
    return {
      calls: steps.length,
      asks: count('ask'),
      allows: count('allow'),
      denies: count('deny'),
      asksPer100: steps.length === 0 ? 0 : (100 * count('ask')) / steps.length,
      byTier,
      steps,
    };
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

export function renderMcpEval(e: McpEval): string {
  const pass = (name: string, p: McpPass) =>
    `${name.padEnd(24)} ${p.asksPer100.toFixed(1).padStart(5)} asks / 100 calls  (${p.asks} ask, ${p.allows} allow, ${p.denies} deny of ${p.calls}; by tier: ${Object.entries(
      p.byTier,
    )
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([t, n]) => `${t} ${n}`)
      .join(', ')})`;
  const benign = (p: McpPass) => {
    const b = p.steps.filter((s) => s.label === 'benign');
    const asks = b.filter((s) => s.verdict === 'ask').length;
    return `${((100 * asks) / Math.max(1, b.length)).toFixed(1)} asks / 100 benign calls (${asks} of ${b.length})`;
  };
  const over = e.readOnlyTools.filter((t) => t.asks > 1);
  const maxAsks = Math.max(0, ...e.readOnlyTools.map((t) => t.asks));
  const lines = [
    `MCP workload: ${e.corpus} — ${e.rows} calls (${e.adversarial} adversarial), role coder, through hookwise check`,
    pass('first sight', e.firstSight),
    `${''.padEnd(24)} ${benign(e.firstSight)}`,
    pass('one approval per tool', e.oneApproval),
    `${''.padEnd(24)} ${benign(e.oneApproval)}; ${e.oneApproval.steps.filter((s) => s.approved === true).length} approvals`,
    `read-only tools: ${e.readOnlyTools.length}, asks per tool after one approval: max ${maxAsks} (target ≤ 1)${over.length === 0 ? '' : `; over: ${over.map((t) => `${t.tool} ${t.asks}`).join(', ')}`}`,
    `adversarial rows (one-approval replay): ${Object.entries(e.adversarialVerdicts)
      .map(([v, n]) => `${n} ${v}`)
      .join(', ')}`,
    `unsafe allows: ${e.unsafeAllows.length} (target 0)`,
    ...e.unsafeAllows.map(
      (u) => `  ${u.replay}: line ${u.step.line} ${u.step.tool} [${u.step.tier}] ${u.step.note ?? ''}`,
    ),
    'SQL classifier (in process, warm parser):',
    ...e.sql.map(
      (m) =>
        `  ${m.id.padEnd(26)} median ${m.median.toFixed(m.id.endsWith('cold-load') ? 1 : 0)} ${m.id.endsWith('cold-load') ? 'ms' : 'µs'}, p99 ${m.p99.toFixed(m.id.endsWith('cold-load') ? 1 : 0)}`,
    ),
    `(${e.seconds.toFixed(1)} s)`,
  ];
  return lines.join('\n');
}
