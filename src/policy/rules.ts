/**
 * Tier "rules": the ordered rules of policy.yml (project) and ~/.config/hookwise/config.yml (user), and
 * the built-in packs (src/policy/packs/).
 *
 * Two entry points:
 *   - `rulesTier` judges tool calls by `rules:` (tool name + input field patterns).
 *   - `judgeSegments(segments, ctx)` judges a parsed shell command by `bash_rules:` and the packs, one
 *     segment at a time; the shell tier calls it.
 *
 * Matching. Patterns are RE2 (linear time: no rule can be a ReDoS). `tool`, `command` and `wrapper`
 * must match the whole name (they are anchored: `git` does not match `gitk`; write `git.*` for that);
 * `args` and `input` values are searched (unanchored: use `^`/`$` to anchor). `args` sees the
 * arguments joined by single spaces, after quote removal — `git commit -m "a  b"` is `commit -m a  b`.
 * Within one list the first matching rule wins.
 *
 * Precedence for one segment (user = your config.yml, trusted; project = the repository's
 * policy.yml, which anyone who can commit controls; packs = built-in defaults):
 *
 *   1. packs: every enabled pack classifies the segment; the strictest finding is the pack verdict.
 *   2. user over packs: the first matching user rule replaces the pack verdict — except a pack DENY,
 *      which no rule lifts (a broad `allow git` must not unlock `git push --force origin main`);
 *      lifting a deny takes naming it: `pack_rules: { "pack:git:force-push-protected": off }`.
 *   3. project only tightens: the first matching project rule counts only if it is stricter than what
 *      1–2 decided. A project ALLOW therefore applies only where neither the user nor a pack has an
 *      opinion; when it would override an ask/deny it is dropped (reported as `droppedProjectAllow`,
 *      and by `hookwise validate` when the overlap is visible statically).
 *
 *   user    pack    project  → result
 *   –       –       –          undecided (later tiers)
 *   –       allow   –          allow (pack)
 *   –       ask     allow      ask (pack; the project allow is dropped)
 *   allow   ask     –          allow (user)
 *   allow   deny    –          deny (pack)
 *   deny    allow   –          deny (user)
 *   allow   –       ask        ask (project tightens)
 *   –       –       allow      allow (project)
 *
 * Across the segments of one command the strictest verdict wins, and the command is allowed only if
 * every segment is: one undecided segment leaves an otherwise allowed command undecided (later tiers,
 * and finally a human, decide it).
 *
 * Precondition scripts run through the PreconditionRunner port (ctx.ports.precondition; default: spawn
 * with a timeout). A script is not run when its answer could not change the outcome (a pack already
 * denies the segment).
 */
import type { SyncTier } from '../core/tier.js';
import type { PolicyContext } from './context.js';
import { assertNever } from '../core/errors.js';
import { decision, stricter, type Decision, type RuleRef } from '../core/decision.js';
import type { ToolCall } from '../core/tool-call.js';
import type { Segment } from '../shell/types.js';
import type { CompiledBashRule, CompiledPolicy, CompiledToolRule } from './compiled.js';
import type { CatalogMatch } from '../catalog/match.js';
import { firstWord, shortText } from './packs/argv.js';
import { branchGlobMatches, PACKS, packRuleId, type Pack, type PackEnv } from './packs/index.js';
import { spawnPreconditionRunner, type PreconditionContext, type PreconditionRunner } from './precondition.js';
import { compileRe2, type RE2 } from '../util/re2.js';
import type { SqlFiles } from '../sql/files.js';

/** What judging a command needs beyond its segments: plain data plus the injected ports. */
export interface RulesContext extends PreconditionContext {
  call: ToolCall;
  policy: CompiledPolicy;
  /** The session's role (given to precondition scripts). */
  roleName: string;
  projectRoot: string;
  home: string;
  /** The shell call's segments matched against the catalogue (prepared at the edge). */
  catalog?: readonly CatalogMatch[];
  /** Whether each segment runs inside the project, judged on canonical paths at the edge (shell/prepare.ts). */
  runsInProject?: readonly boolean[];
  /** The SQL files the call's database clients read, read at the edge (shell/sql-files.ts). */
  sqlFiles?: SqlFiles;
}

/** Build a RulesContext from the cascade's context and where the project and home are (and, for a shell call, each segment runs). */
export function rulesContextOf(
  ctx: PolicyContext &
    PreconditionContext & { shell?: { catalog: readonly CatalogMatch[]; sqlFiles?: SqlFiles } | undefined },
  where: { projectRoot: string; home: string; runsInProject?: readonly boolean[] },
): RulesContext {
  const out: RulesContext = {
    call: ctx.call,
    policy: ctx.policy,
    roleName: ctx.role.role.name,
    projectRoot: where.projectRoot,
    home: where.home,
  };
  if (ctx.ports !== undefined) out.ports = ctx.ports;
  if (ctx.shell !== undefined) out.catalog = ctx.shell.catalog;
  if (ctx.shell?.sqlFiles !== undefined) out.sqlFiles = ctx.shell.sqlFiles;
  if (where.runsInProject !== undefined) out.runsInProject = where.runsInProject;
  return out;
}

// ── per-process matchers (RE2 built lazily from the cached pattern sources) ────────────────────────────

type Test = (subject: string) => boolean;

/** `^(?:git)$` with a plain-word inside compares strings; anything else compiles RE2 on first use. */
function matcher(source: string, isAnchored: boolean): Test {
  const inner = isAnchored && source.startsWith('^(?:') && source.endsWith(')$') ? source.slice(4, -2) : undefined;
  if (inner !== undefined && inner !== '' && [...inner].every(isPlainChar)) return (subject) => subject === inner;
  let re: RE2 | undefined;
  return (subject) => (re ??= compileRe2(source)).test(subject);
}

function isPlainChar(c: string): boolean {
  return (
    (c >= 'a' && c <= 'z') ||
    (c >= 'A' && c <= 'Z') ||
    (c >= '0' && c <= '9') ||
    c === '_' ||
    c === '-' ||
    c === '/' ||
    c === ':' ||
    c === '@'
  );
}

interface ToolMatcher {
  rule: CompiledToolRule;
  tool: Test;
  input: { field: string; test: Test }[];
}

interface BashMatcher {
  rule: CompiledBashRule;
  command: Test;
  args?: Test;
  wrapper?: Test;
}

interface RuleMatchers {
  userTools: ToolMatcher[];
  projectTools: ToolMatcher[];
  userBash: BashMatcher[];
  projectBash: BashMatcher[];
  packs: Pack[];
  isProtectedBranch(branch: string): boolean;
}

const cache = new WeakMap<CompiledPolicy, RuleMatchers>();

function matchersOf(policy: CompiledPolicy): RuleMatchers {
  let built = cache.get(policy);
  if (built === undefined) cache.set(policy, (built = buildMatchers(policy)));
  return built;
}

function buildMatchers(policy: CompiledPolicy): RuleMatchers {
  const tool = (rule: CompiledToolRule): ToolMatcher => ({
    rule,
    tool: matcher(rule.tool, true),
    input: rule.input.map((i) => ({ field: i.field, test: matcher(i.pattern, false) })),
  });
  const bash = (rule: CompiledBashRule): BashMatcher => {
    const m: BashMatcher = { rule, command: matcher(rule.command, true) };
    if (rule.args !== undefined) m.args = matcher(rule.args, false);
    if (rule.wrapper !== undefined) m.wrapper = matcher(rule.wrapper, true);
    return m;
  };
  const { tools, bash: bashRules, packs, protectedBranches } = policy.rules;
  const exact = new Set(protectedBranches.filter((b) => !b.value.includes('*')).map((b) => b.value));
  const globs = protectedBranches.filter((b) => b.value.includes('*')).map((b) => b.value);
  return {
    userTools: tools.filter((r) => r.scope === 'user').map(tool),
    projectTools: tools.filter((r) => r.scope === 'project').map(tool),
    userBash: bashRules.filter((r) => r.scope === 'user').map(bash),
    projectBash: bashRules.filter((r) => r.scope === 'project').map(bash),
    packs: PACKS.filter((p) => packs[p.name]?.value !== false),
    isProtectedBranch: (branch) => exact.has(branch) || globs.some((g) => branchGlobMatches(g, branch)),
  };
}

const ref = (rule: { id: string; source: string }): RuleRef => ({ id: rule.id, source: rule.source });

// ── tool calls: `rules:` ─────────────────────────────────────────────────────────────────────────────

/** A tool input field as text: strings as they are, other values as JSON; absent → no match. */
function fieldText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

function matchesTool(m: ToolMatcher, call: ToolCall): boolean {
  if (!m.tool(call.tool)) return false;
  return m.input.every((i) => {
    const text = fieldText(call.input[i.field]);
    return text !== undefined && i.test(text);
  });
}

/**
 * The `rules:` verdict for a tool call, with the same trust order as for segments (no packs here).
 * Allow rules never apply to shell tools: a pattern on the raw command string would let
 * `allowed-command; anything` through — bash_rules judge shell commands segment by segment.
 */
export function judgeTool(call: ToolCall, policy: CompiledPolicy): Decision | undefined {
  const m = matchersOf(policy);
  const shell = call.action === 'shell';
  const first = (list: ToolMatcher[]): Decision | undefined => {
    const hit = list.find((t) => !(shell && t.rule.verdict === 'allow') && matchesTool(t, call));
    return hit === undefined
      ? undefined
      : decision(hit.rule.verdict, 'rules', `${call.tool}: ${hit.rule.reason}`, ref(hit.rule));
  };
  return stricter(first(m.userTools), first(m.projectTools));
}

export const rulesTier: SyncTier<PolicyContext> = {
  name: 'rules',
  decide(ctx) {
    return judgeTool(ctx.call, ctx.policy);
  },
};

// ── shell commands: `bash_rules:` and packs, per segment ─────────────────────────────────────────────

export interface SegmentJudgement {
  segment: Segment;
  /** This segment's verdict; undefined = no rule or pack has an opinion. */
  decision: Decision | undefined;
  /** What each layer said (for explain). */
  user?: Decision;
  project?: Decision;
  pack?: Decision;
  /** A project allow that matched but cannot override the user's or a pack's ask/deny. */
  droppedProjectAllow?: Decision;
}

export interface CommandJudgement {
  decision: Decision | undefined;
  segments: SegmentJudgement[];
}

function matchesSegment(m: BashMatcher, segment: Segment): boolean {
  const rule = m.rule;
  if (!m.command(segment.name)) return false;
  if (rule.contexts !== undefined && !rule.contexts.includes(segment.context)) return false;
  if (rule.remote !== undefined && (segment.flags.remote !== undefined) !== rule.remote) return false;
  const wrapper = m.wrapper;
  if (wrapper !== undefined && !segment.wrappers.some((w) => wrapper(w) || wrapper(firstWord(w)))) return false;
  if (m.args !== undefined && !m.args(segment.argv.slice(1).join(' '))) return false;
  return true;
}

let defaultRunner: PreconditionRunner | undefined;

function runnerOf(ctx: RulesContext): PreconditionRunner {
  return ctx.ports?.precondition ?? (defaultRunner ??= spawnPreconditionRunner());
}

/** A matched bash rule's decision: its verdict, or its precondition script's answer (failure → ask). */
function bashRuleDecision(rule: CompiledBashRule, segment: Segment, ctx: RulesContext): Decision {
  const text = `\`${shortText(segment)}\`: ${rule.reason}`;
  if (rule.precondition === undefined) return decision(rule.verdict ?? 'ask', 'rules', text, ref(rule));
  const outcome = runnerOf(ctx).run({
    script: rule.precondition,
    ruleId: rule.id,
    tool: ctx.call.tool,
    command: segment.name,
    argv: segment.argv,
    segmentText: segment.text,
    cwd: ctx.call.cwd,
    projectRoot: ctx.projectRoot,
    role: ctx.roleName,
    session: ctx.call.sessionId,
  });
  switch (outcome.kind) {
    case 'answered':
      return decision(
        outcome.verdict,
        'rules',
        `${text} (precondition ${rule.precondition}: ${outcome.verdict}${outcome.note === '' ? '' : ` — ${outcome.note}`})`,
        ref(rule),
      );
    case 'failed':
      return decision(
        'ask',
        'rules',
        `${text} (precondition ${rule.precondition} ${outcome.problem}, so a human decides)`,
        ref(rule),
      );
    default:
      return assertNever(outcome, 'precondition outcome');
  }
}

function packDecision(segment: Segment, env: PackEnv, m: RuleMatchers, policy: CompiledPolicy): Decision | undefined {
  let best: Decision | undefined;
  for (const pack of m.packs) {
    const finding = pack.classify(segment, env);
    if (finding === undefined) continue;
    const id = packRuleId(pack.name, finding.rule);
    const override = policy.rules.packRules[id];
    const setting = override?.value ?? pack.rules[finding.rule]?.verdict;
    if (setting === undefined || setting === 'off') continue;
    const message = pack.rules[finding.rule]?.message ?? '';
    const detail = finding.detail === undefined || finding.detail === '' ? '' : ` (${finding.detail})`;
    best = stricter(
      best,
      decision(setting, 'rules', `\`${shortText(segment)}\` ${message}${detail}`, {
        id,
        source: override?.source ?? 'built-in',
      }),
    );
    if (best?.verdict === 'deny') break; // nothing is stricter
  }
  return best;
}

/** Step 2 of the precedence: the user's rule replaces the pack verdict, unless the pack denies. */
export function userOverPacks(user: Decision | undefined, pack: Decision | undefined): Decision | undefined {
  if (pack?.verdict === 'deny') return stricter(user, pack);
  return user ?? pack;
}

/** Step 3: a project rule only tightens; returns the result and the project allow it had to drop. */
export function projectTightens(
  base: Decision | undefined,
  project: Decision | undefined,
): { decision: Decision | undefined; dropped?: Decision } {
  const result = stricter(base, project);
  const dropped = project?.verdict === 'allow' && base !== undefined && base.verdict !== 'allow' ? project : undefined;
  return dropped === undefined ? { decision: result } : { decision: result, dropped };
}

function judgeSegment(
  segments: readonly Segment[],
  index: number,
  ctx: RulesContext,
  m: RuleMatchers,
): SegmentJudgement {
  const segment = segments[index]!;
  const env: PackEnv = {
    cwd: ctx.call.cwd,
    projectRoot: ctx.projectRoot,
    home: ctx.home,
    isProtectedBranch: m.isProtectedBranch,
    segments,
    index,
  };
  if (ctx.catalog !== undefined && ctx.catalog.length === segments.length) env.catalog = ctx.catalog;
  const inProject = ctx.runsInProject?.[index];
  if (inProject !== undefined) env.runsInProject = inProject;
  if (ctx.sqlFiles !== undefined) env.sqlFiles = ctx.sqlFiles;
  const pack = packDecision(segment, env, m, ctx.policy);
  const judged: SegmentJudgement = { segment, decision: undefined };
  if (pack !== undefined) judged.pack = pack;

  // A script whose answer cannot change the outcome is not run (a pack deny stands either way).
  const userRule = m.userBash.find((b) => matchesSegment(b, segment))?.rule;
  const user =
    userRule === undefined || (userRule.precondition !== undefined && pack?.verdict === 'deny')
      ? undefined
      : bashRuleDecision(userRule, segment, ctx);
  if (user !== undefined) judged.user = user;
  const base = userOverPacks(user, pack);

  const projectRule = m.projectBash.find((b) => matchesSegment(b, segment))?.rule;
  const project =
    projectRule === undefined || base?.verdict === 'deny' ? undefined : bashRuleDecision(projectRule, segment, ctx);
  if (project !== undefined) judged.project = project;

  const { decision: result, dropped } = projectTightens(base, project);
  judged.decision = result;
  if (dropped !== undefined) judged.droppedProjectAllow = dropped;
  return judged;
}

/** Every segment judged, and the command's verdict: strictest wins; allowed only if every segment is. */
export function judgeSegmentsDetailed(segments: readonly Segment[], ctx: RulesContext): CommandJudgement {
  const m = matchersOf(ctx.policy);
  const judged = segments.map((_, i) => judgeSegment(segments, i, ctx, m));
  let result: Decision | undefined;
  let undecided = segments.length === 0;
  for (const j of judged) {
    if (j.decision === undefined) undecided = true;
    result = stricter(result, j.decision);
  }
  if (result === undefined || (undecided && result.verdict === 'allow'))
    return { decision: undefined, segments: judged };
  if (result.verdict === 'allow' && judged.length > 1) {
    const parts = judged
      .map((j) => `\`${shortText(j.segment, 40)}\` (${j.decision!.rule?.id ?? j.decision!.tier})`)
      .join(', ');
    result = decision('allow', 'rules', `every part of this command is allowed: ${parts}`, result.rule);
  }
  return { decision: result, segments: judged };
}

/** The verdict bash_rules and packs give a parsed command, or undefined when they leave it to later tiers. */
export function judgeSegments(segments: readonly Segment[], ctx: RulesContext): Decision | undefined {
  return judgeSegmentsDetailed(segments, ctx).decision;
}
