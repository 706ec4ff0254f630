/**
 * `hookwise explain`: why a call gets the verdict it gets. Runs the same session gate and cascade as
 * `check` (no separate logic to drift), with a trace sink, and prints each tier's answer.
 */
import type { TraceStep } from '../core/tier.js';
import type { Decision } from '../core/decision.js';
import { rememberedAs, type RememberedAs } from '../memory/subject.js';
import { HookwiseError } from '../core/errors.js';
import { formatReason } from '../core/reason.js';
import type { ToolCall } from '../core/tool-call.js';
import { pathsOf, toolShape } from '../core/tools.js';
import { findProjectRoot, resolvePath } from '../paths/canonical.js';
import { ensurePrivateDir } from '../util/fs-safe.js';
import { locations } from '../util/locations.js';
import { prepareShell } from '../shell/prepare.js';
import { Engine } from '../engine/engine.js';
import { roleNamed } from '../policy/compiled.js';
import { rolesByGroup } from '../session/messages.js';

export interface ExplainOptions {
  /** A shell command (explained as a Bash call) … */
  command?: string;
  /** … or a tool call: tool name plus --file and/or --input JSON. */
  tool?: string;
  file?: string;
  input?: string;
  role: string;
  /** Where the role came from: --role, HOOKWISE_ROLE, or the default (maintainer), which the output says. */
  roleFrom?: RoleFrom;
  cwd: string;
  json?: boolean;
  /** Judge with this session's module state (safemode, circuit breaker); without it, a session with none. */
  sessionId?: string;
}

export type RoleFrom = 'option' | 'HOOKWISE_ROLE' | 'default';

export interface Explanation {
  /**
   * With `human.channel: queue`, an ask does not reach the host: the call waits in the human queue (tier 4).
   * explain never queues; it says so.
   */
  human?: { channel: 'queue'; timeoutMs: number; source: string };
  tool: string;
  role: string;
  roleFrom: RoleFrom;
  paths: { input: string; canonical: string; inProject: string | null }[];
  /** For shell commands: how hookwise read the command. */
  shell?: {
    parsed: boolean;
    unparseable?: string;
    segments: {
      text: string;
      name: string;
      argv: string[];
      operator?: string;
      wrappers: string[];
      context: string;
      depth: number;
      cwd?: string;
      cwdOrElse?: string[];
    }[];
    /** `createdHere`: a deletion of what an earlier part of this command made (shell/created-here.ts). */
    writes: { segment: number; path: string; via: string; canonical: string | null; createdHere?: true }[];
    unknownWrites: { segment: number; reason: string }[];
    /** Per segment: code it runs beyond its first word, whether it uses the network. */
    effects: { segment: number; runs: { kind: string; detail: string }[]; network: boolean }[];
    reads: { segment: number; path: string; via: string; recursive: boolean; canonical: string | null }[];
    links: { segment: number; link: string; target: string }[];
    /** Per segment: how the catalogue accounted for each word, and the first word it could not account for. */
    catalog: {
      segment: number;
      entry: string | null;
      form: string;
      words: { word: string; as: string }[];
      unaccounted?: { word: string; why: string };
      knowledge: 'allow' | 'decline';
      reason: string;
    }[];
  };
  /** For MCP tools: the catalogue entry the call matched (or why none did), and each field's kind and verdict. */
  mcp?: {
    server: string;
    tool: string;
    entry: { server: string; effect: string; file: string; via: string; trusted: boolean } | null;
    unmatched: string | null;
    fields: {
      name: string;
      kind: string;
      guessed: boolean;
      /**
       * allow / ask / deny; `pass` (memory or a human decides); `free` (nothing to judge: text, numbers, …);
       * `no objection` (an identifier: nothing here objects, and memory keeps its value).
       */
      verdict: string;
      reason: string | null;
      sql?: string;
      /** Left out of what memory remembers: an approval carries over to other values. */
      free: boolean;
      /** How memory remembers the field's values (memory/subject.ts). */
      remembered: RememberedAs;
    }[];
  };
  /** What decision memory remembers this call by (its sanitized subject and cache key), and how much it holds. */
  memory?: { subject: string; key: string; records: number };
  /** `step`: the cascade step; `tier`: the tier its decision names (a composed step, such as shell, answers with a sub-tier's). */
  trace: {
    step: string;
    tier: string | null;
    verdict: string | null;
    rule: string | null;
    source: string | null;
    reason: string | null;
  }[];
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
  if (tool === undefined)
    throw new HookwiseError(
      'USAGE',
      "give a command (hookwise explain 'git push -f') or --tool <name> [--file <path>] [--input <json>]",
    );
  if (options.command !== undefined) input = { ...input, command: options.command };
  const shape = toolShape(tool);
  if (options.file !== undefined) input = { ...input, [shape.pathFields[0] ?? 'file_path']: options.file };
  return {
    host: 'claude',
    // No session is being judged: the hints that name one (hookwise switch --session-id …) show a placeholder.
    sessionId: options.sessionId ?? EXPLAIN_SESSION,
    cwd: options.cwd,
    hostTool: tool,
    tool,
    action: shape.action,
    paths: pathsOf(shape, input, options.cwd),
    input,
  };
}

/**
 * explain only reads the runtime directory; one it cannot create (read-only inside the walls) is no reason
 * to fail. One that is not ours still fails it (RUNTIME_DIR_UNSAFE).
 */
function privateRuntimeDir(dir: string): void {
  try {
    ensurePrivateDir(dir);
  } catch (error) {
    if (error instanceof HookwiseError || typeof (error as NodeJS.ErrnoException).code !== 'string') throw error;
  }
}

/** The session id of a call explained without --session-id: a placeholder the hints show as it is. */
export const EXPLAIN_SESSION = '<session-id>';

export async function explain(options: ExplainOptions): Promise<Explanation> {
  const where = locations();
  privateRuntimeDir(where.runtimeDir);
  const projectRoot = findProjectRoot(options.cwd);
  const engine = new Engine(where);
  const policy = await engine.policyFor(projectRoot);
  if (roleNamed(policy, options.role) === undefined) {
    throw new HookwiseError(
      'USAGE',
      `unknown role "${options.role}"${options.roleFrom === 'HOOKWISE_ROLE' ? ' (from HOOKWISE_ROLE)' : ''}. Roles:\n${rolesByGroup(policy)}`,
    );
  }
  const call = toolCallFor(options);
  const steps: TraceStep[] = [];
  const pathContext = { projectRoot, home: where.home, cwd: call.cwd };
  const shell = await prepareShell(call, pathContext);
  const memory = engine.memoryFor(projectRoot, undefined, policy);
  // The engine's own decide (the cascade, then confinement when it is on), so explain shows what check does.
  const judged = await engine.decide(
    { kind: 'registered', role: options.role, via: 'explain' },
    call,
    policy,
    projectRoot,
    (s) => steps.push(s),
  );
  const d = judged.decision;
  const explained: Explanation = {
    tool: call.tool,
    role: options.role,
    roleFrom: options.roleFrom ?? 'option',
    paths: call.paths.map((p) => {
      const r = resolvePath(p, pathContext);
      return { input: p, canonical: r.absolute, inProject: r.relative };
    }),
    trace: steps.map((s) => ({
      step: s.step ?? s.tier,
      tier: s.decision?.tier ?? null,
      verdict: s.decision?.verdict ?? null,
      rule: s.decision?.rule?.id ?? null,
      source: s.decision?.rule?.source ?? null,
      reason: s.decision?.reason ?? null,
    })),
    decision: d,
  };
  if (d.verdict === 'ask' && policy.human.channel === 'queue')
    explained.human = { channel: 'queue', timeoutMs: policy.human.timeoutMs, source: policy.human.source };
  const subject = judged.memo?.subject();
  const key = judged.memo?.key();
  if (subject !== undefined && key !== undefined)
    explained.memory = { subject: subject.text, key, records: memory.view.size };
  if (judged.mcp !== undefined) {
    const { prepared, fields } = judged.mcp;
    const match = prepared.match;
    explained.mcp = {
      server: prepared.name.server,
      tool: prepared.name.tool,
      entry:
        match === undefined
          ? null
          : {
              server: match.entry.server,
              effect: match.tool.effect,
              file: match.entry.file,
              via: match.via === 'config' ? `mcp.servers (${match.source})` : 'server name',
              trusted: match.trusted,
            },
      unmatched: prepared.unmatched ?? null,
      fields: fields.map(({ field, verdict }) => ({
        name: field.name,
        kind: field.kind,
        guessed: field.guessed,
        verdict:
          verdict === undefined
            ? rememberedAs(field, prepared) === 'free'
              ? 'free'
              : 'no objection'
            : verdict === 'undecided'
              ? 'pass'
              : verdict.verdict,
        reason: verdict === undefined || verdict === 'undecided' ? null : verdict.reason,
        ...(field.sql === undefined ? {} : { sql: field.sql.class }),
        free: rememberedAs(field, prepared) === 'free',
        remembered: rememberedAs(field, prepared),
      })),
    };
  }
  if (shell !== undefined) {
    explained.shell = {
      parsed: shell.parse.ok,
      ...(shell.parse.ok ? {} : { unparseable: shell.parse.reason }),
      segments: shell.parse.segments.map((s) => ({
        text: s.text,
        name: s.name,
        argv: s.argv,
        ...(s.operator === undefined ? {} : { operator: s.operator }),
        wrappers: s.wrappers,
        context: s.context,
        depth: s.depth,
        ...(s.cwd === undefined ? {} : { cwd: s.cwd }),
        ...(s.cwdOrElse === undefined ? {} : { cwdOrElse: s.cwdOrElse }),
      })),
      writes: shell.writes.targets.map((t, i) => ({
        segment: t.segment,
        path: t.path,
        via: t.via,
        canonical: shell.targets[i]?.absolute ?? null,
        ...(shell.createdHere?.[i] === true ? { createdHere: true as const } : {}),
      })),
      unknownWrites: shell.writes.unknown,
      effects: shell.effects.segments.map((e, segment) => ({ segment, runs: e.runs, network: e.network })),
      reads: shell.effects.reads.map((r, i) => ({
        segment: r.segment,
        path: r.path,
        via: r.via,
        recursive: r.recursive,
        canonical: shell.reads[i]?.absolute ?? null,
      })),
      links: shell.effects.links,
      catalog: shell.catalog.map((m, segment) => ({
        segment,
        entry: m.entry ?? null,
        form: m.form,
        words: m.words.map((w) => ({ word: w.word, as: w.as })),
        ...(m.unaccounted === undefined ? {} : { unaccounted: { word: m.unaccounted.word, why: m.unaccounted.why } }),
        knowledge: m.knowledge,
        reason: m.reason,
      })),
    };
  }
  return explained;
}

/** The catalogue's word-by-word account of one segment: what accounted for each word, and where it stopped. */
function renderCatalogMatch(m: NonNullable<Explanation['shell']>['catalog'][number]): string[] {
  if (m.entry === null) return [`    catalogue: ${m.unaccounted?.why ?? m.reason} (effect unknown)`];
  const shown = (w: string): string => (/[\s"'$]/.test(w) ? JSON.stringify(w) : w);
  const width = Math.min(24, Math.max(...m.words.map((w) => shown(w.word).length), m.unaccounted?.word.length ?? 0));
  const lines = m.words.map((w) => `    ${shown(w.word).padEnd(width)}  ← ${w.as}`);
  if (m.unaccounted !== undefined)
    lines.push(`    ${shown(m.unaccounted.word).padEnd(width)}  ✗ nothing accounts for it: ${m.unaccounted.why}`);
  lines.push(`    catalogue: ${m.knowledge === 'allow' ? 'known' : 'not allowed on knowledge'} — ${m.reason}`);
  return lines;
}

const REMEMBERED_TEXT: Record<RememberedAs, string> = {
  free: ' (free: not part of what is remembered)',
  'public web': ' (remembered as a public web page: an approval covers any)',
  origin: ' (remembered by origin: an approval covers that site)',
  value: ' (remembered by value)',
};

export function renderExplanation(e: Explanation): string {
  const from =
    e.roleFrom === 'default'
      ? ' (the default; --role or HOOKWISE_ROLE judge as another role)'
      : e.roleFrom === 'HOOKWISE_ROLE'
        ? ' (from HOOKWISE_ROLE)'
        : '';
  const lines = [`${e.tool} as role "${e.role}"${from}`];
  for (const p of e.paths) {
    lines.push(
      `  path ${p.input} → ${p.canonical}${p.inProject === null ? ' (outside the project)' : ` (project: ${p.inProject === '' ? '.' : p.inProject})`}`,
    );
  }
  if (e.shell !== undefined) {
    if (!e.shell.parsed) lines.push(`  not understood: ${e.shell.unparseable}`);
    e.shell.segments.forEach((s, i) => {
      const how = [
        s.context !== 'command' ? s.context : '',
        s.wrappers.length > 0 ? `via ${s.wrappers.join(' → ')}` : '',
        s.cwd === undefined && s.cwdOrElse === undefined
          ? ''
          : `in ${[s.cwd ?? '.', ...(s.cwdOrElse ?? []).map((d) => d || '.')].join(' or ')}`,
      ].filter((x) => x !== '');
      lines.push(
        `  segment ${i + 1}${s.operator === undefined ? '' : ` (after ${JSON.stringify(s.operator)})`}: ${s.argv.map((a) => (/[\s"'$]/.test(a) ? JSON.stringify(a) : a)).join(' ')}${how.length > 0 ? `  [${how.join(', ')}]` : ''}`,
      );
      const known = e.shell!.catalog[i];
      if (known !== undefined) lines.push(...renderCatalogMatch(known));
    });
    for (const w of e.shell.writes)
      lines.push(
        `  writes (segment ${w.segment + 1}, ${w.via}): ${w.path}${w.canonical === null ? ' (only known at run time)' : ` → ${w.canonical}`}${w.createdHere === true ? ' (made earlier in this command, where nothing was: no data lost)' : ''}`,
      );
    for (const u of e.shell.unknownWrites) lines.push(`  writes (segment ${u.segment + 1}): unknown — ${u.reason}`);
    for (const r of e.shell.reads)
      lines.push(
        `  reads (segment ${r.segment + 1}, ${r.via}${r.recursive ? ', recursively' : ''}): ${r.path}${r.canonical === null ? ' (only known at run time)' : ` → ${r.canonical}`}`,
      );
    for (const l of e.shell.links)
      lines.push(
        `  links (segment ${l.segment + 1}): ${l.link} → ${l.target} (later writes through it are judged at the target)`,
      );
    for (const eff of e.shell.effects) {
      for (const run of eff.runs) lines.push(`  runs (segment ${eff.segment + 1}, ${run.kind}): ${run.detail}`);
      if (eff.network) lines.push(`  network (segment ${eff.segment + 1})`);
    }
    if (e.shell.parsed && e.shell.effects.every((eff) => eff.runs.length === 0))
      lines.push('  runs: nothing beyond the programs named');
  }
  if (e.mcp !== undefined) {
    const m = e.mcp;
    lines.push(
      m.entry === null
        ? `  MCP server "${m.server}", tool "${m.tool}": no catalogue entry — ${m.unmatched ?? 'unknown'}; fields judged by what their values look like`
        : `  MCP server "${m.server}" is the catalogue's ${m.entry.server} (${m.entry.file}, by ${m.entry.via}${m.entry.trusted ? '' : '; mapped by a project file, so it never allows'}), tool "${m.tool}": ${m.entry.effect}`,
    );
    for (const f of m.fields)
      lines.push(
        `  field ${f.name}: ${f.kind}${f.guessed ? ' (guessed from its value)' : ''}${f.sql === undefined ? '' : `, SQL class ${f.sql}`} → ${f.verdict}${REMEMBERED_TEXT[f.remembered]}${f.reason === null ? '' : ` — ${f.reason}`}`,
      );
  }
  if (e.memory !== undefined)
    lines.push(`  remembered as: ${e.memory.subject}  (key ${e.memory.key}; ${e.memory.records} decisions in memory)`);
  lines.push('cascade:');
  const width = Math.max(12, ...e.trace.map((s) => s.step.length));
  for (const step of e.trace) {
    // A composed step (shell) answers with the tier that decided inside it: say which, as the verdict line does.
    const via =
      step.tier !== null && step.tier !== step.step && !step.step.startsWith(step.tier) ? ` [tier ${step.tier}]` : '';
    lines.push(
      step.verdict === null
        ? `  ${step.step.padEnd(width)} pass (no opinion)`
        : `  ${step.step.padEnd(width)} ${step.verdict.toUpperCase()}${via}  ${step.rule ?? ''}${step.source === null ? '' : ` (${step.source})`}\n  ${''.padEnd(width)} ${step.reason}`,
    );
  }
  if (e.trace.length === 0) lines.push(`  (decided before the cascade) ${formatReason(e.decision)}`);
  lines.push(`verdict: ${e.decision.verdict.toUpperCase()} — ${formatReason(e.decision)}`);
  if (e.human !== undefined) {
    lines.push(
      `then: human.channel is queue (${e.human.source}): in a hook this call waits in the human queue for up to ${e.human.timeoutMs / 1000}s (hookwise queue; approve or deny), and is denied if nobody answers`,
    );
  }
  return lines.join('\n');
}
