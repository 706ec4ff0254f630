/**
 * `hookwise explain`: why a call gets the verdict it gets. Runs the same session gate and cascade as
 * `check` (no separate logic to drift), with a trace sink, and prints each tier's answer.
 */
import type { TraceStep } from '../cascade.js';
import type { Decision } from '../core/decision.js';
import { HookwiseError } from '../core/errors.js';
import { formatReason } from '../core/reason.js';
import type { ToolCall } from '../core/tool-call.js';
import { pathsOf, toolShape } from '../core/tools.js';
import { findProjectRoot, resolvePath } from '../paths/canonical.js';
import { loadPolicy } from '../policy/load.js';
import { ensurePrivateDir } from '../util/fs-safe.js';
import { locations } from '../util/locations.js';
import { decide } from './check.js';

export interface ExplainOptions {
  /** A shell command (explained as a Bash call) … */
  command?: string;
  /** … or a tool call: tool name plus --file and/or --input JSON. */
  tool?: string;
  file?: string;
  input?: string;
  role: string;
  cwd: string;
  json?: boolean;
}

export interface Explanation {
  tool: string;
  role: string;
  paths: { input: string; canonical: string; inProject: string | null }[];
  trace: { tier: string; verdict: string | null; rule: string | null; source: string | null; reason: string | null }[];
  decision: Decision;
}

function toolCallFor(options: ExplainOptions): ToolCall {
  let input: Record<string, unknown> = {};
  if (options.input !== undefined) {
    try {
      input = JSON.parse(options.input) as Record<string, unknown>;
    } catch (error) {
      throw new HookwiseError('USAGE', `--input is not valid JSON: ${(error as Error).message}`);
    }
  }
  const tool = options.command !== undefined ? 'Bash' : options.tool;
  if (tool === undefined) throw new HookwiseError('USAGE', "give a command (hookwise explain 'git push -f') or --tool <name> [--file <path>] [--input <json>]");
  if (options.command !== undefined) input = { ...input, command: options.command };
  const shape = toolShape(tool);
  if (options.file !== undefined) input = { ...input, [shape.pathFields[0] ?? 'file_path']: options.file };
  return {
    host: 'claude',
    sessionId: 'explain',
    cwd: options.cwd,
    hostTool: tool,
    tool,
    action: shape.action,
    paths: pathsOf(shape, input, options.cwd),
    input,
  };
}

export async function explain(options: ExplainOptions): Promise<Explanation> {
  const where = locations();
  ensurePrivateDir(where.runtimeDir);
  const projectRoot = findProjectRoot(options.cwd);
  const policy = await loadPolicy(projectRoot, where);
  const call = toolCallFor(options);
  const steps: TraceStep[] = [];
  const d = await decide({ kind: 'registered', role: options.role, via: 'env' }, call, policy, projectRoot, where, (s) => steps.push(s));
  const pathContext = { projectRoot, home: where.home, cwd: call.cwd };
  return {
    tool: call.tool,
    role: options.role,
    paths: call.paths.map((p) => {
      const r = resolvePath(p, pathContext);
      return { input: p, canonical: r.absolute, inProject: r.relative };
    }),
    trace: steps.map((s) => ({
      tier: s.tier,
      verdict: s.decision?.verdict ?? null,
      rule: s.decision?.rule?.id ?? null,
      source: s.decision?.rule?.source ?? null,
      reason: s.decision?.reason ?? null,
    })),
    decision: d,
  };
}

export function renderExplanation(e: Explanation): string {
  const lines = [`${e.tool} as role "${e.role}"`];
  for (const p of e.paths) {
    lines.push(`  path ${p.input} → ${p.canonical}${p.inProject === null ? ' (outside the project)' : ` (project: ${p.inProject === '' ? '.' : p.inProject})`}`);
  }
  lines.push('cascade:');
  for (const step of e.trace) {
    lines.push(
      step.verdict === null
        ? `  ${step.tier.padEnd(12)} pass (no opinion)`
        : `  ${step.tier.padEnd(12)} ${step.verdict.toUpperCase()}  ${step.rule ?? ''}${step.source === null ? '' : ` (${step.source})`}\n  ${''.padEnd(12)} ${step.reason}`,
    );
  }
  if (e.trace.length === 0) lines.push(`  (decided before the cascade) ${formatReason(e.decision)}`);
  lines.push(`verdict: ${e.decision.verdict.toUpperCase()} — ${formatReason(e.decision)}`);
  return lines.join('\n');
}
