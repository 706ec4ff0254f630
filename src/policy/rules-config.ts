/**
 * The config side of ordered rules and packs: schema fields for policy.yml and the user's config.yml,
 * and the merge of every scope into EffectiveRules with provenance (`file:line`) and typed diagnostics.
 *
 *   rules:               tool rules, first match wins
 *     - id: no-internal-fetch           # optional; default "<scope>:rules[<i>]"
 *       tool: WebFetch                  # RE2, full match on the canonical tool name ("mcp__github__.*")
 *       input: { url: "^https?://10\." } # RE2, searched in the input field's value (every field must match)
 *       verdict: deny                   # allow | ask | deny
 *       reason: Internal addresses are off limits.
 *   bash_rules:          per command segment, first match wins
 *     - command: make                   # RE2, full match on the segment's command name
 *       args: "^deploy\b"               # RE2, searched in the arguments joined by single spaces
 *       wrapper: sudo                   # RE2, full match on one of the peeled wrappers (sudo, env, timeout, bash -c …)
 *       context: [command, subshell]    # only segments found there (see SEGMENT_CONTEXTS)
 *       remote: false                   # only local (false) / only ssh-remote (true) segments
 *       verdict: ask                    # or precondition_script (exclusive): the script's answer is the verdict
 *       precondition_script: scripts/deploy-ok.sh   # project: relative to the project root; user: to ~/.config/hookwise
 *       reason: Deploys need a human.
 *   packs: { git: false, read-only: true }          # switch built-in packs off/on
 *   pack_rules: { "pack:git:reset-hard": deny }     # per rule: allow | ask | deny | off
 *   protected_branches: ["develop", "hotfix/*"]     # added to main, master, release*, production
 *
 * Trust: a project file can only tighten. It cannot switch off a guard pack (or switch the allow pack
 * back on), cannot lower a pack rule's verdict, and its allow rules never override a pack's or the
 * user's ask/deny (that last part is decided at evaluation time, see rules.ts).
 */
import { isAbsolute } from 'node:path';
import { strictness, VERDICTS, type Verdict } from '../core/decision.js';
import { toolShape } from '../core/tools.js';
import { SEGMENT_CONTEXTS, type SegmentContext } from '../shell/types.js';
import { allPackRuleIds, packNamed, packRule, PACK_NAMES, type PackName } from './packs/index.js';
import { anchored, compileRe2, re2Problem } from '../util/re2.js';
import { closest, type Diagnostic, type Schema } from './schema.js';

// ── schema ───────────────────────────────────────────────────────────────────────────────────────────

export const PACK_RULE_SETTINGS = ['allow', 'ask', 'deny', 'off'] as const;
export type PackRuleSetting = (typeof PACK_RULE_SETTINGS)[number];

const PATTERN: Schema = { type: 'string', nonEmpty: true };
const VERDICT: Schema = { type: 'enum', values: VERDICTS };
const TEXT: Schema = { type: 'string', nonEmpty: true };

const TOOL_RULE: Schema = {
  type: 'object',
  fields: { id: TEXT, tool: PATTERN, input: { type: 'map', of: PATTERN }, verdict: VERDICT, reason: TEXT },
};
const BASH_RULE: Schema = {
  type: 'object',
  fields: {
    id: TEXT,
    command: PATTERN,
    args: PATTERN,
    wrapper: PATTERN,
    context: { type: 'list', of: { type: 'enum', values: SEGMENT_CONTEXTS } },
    remote: { type: 'boolean' },
    verdict: VERDICT,
    precondition_script: TEXT,
    reason: TEXT,
  },
};

/** Fields shared by .hookwise/policy.yml and ~/.config/hookwise/config.yml. */
export const RULE_FIELDS: Record<string, Schema> = {
  rules: { type: 'list', of: TOOL_RULE },
  bash_rules: { type: 'list', of: BASH_RULE },
  packs: {
    type: 'object',
    fields: Object.fromEntries(PACK_NAMES.map((name) => [name, { type: 'boolean' } satisfies Schema])),
  },
  pack_rules: {
    type: 'map',
    of: { type: 'enum', values: PACK_RULE_SETTINGS },
    keyPattern: /^pack:[a-z-]+:[a-z0-9-]+$/,
    keyHint: 'a pack rule id as shown in decisions, e.g. pack:git:reset-hard',
  },
  protected_branches: { type: 'list', of: TEXT },
};

// ── raw (as parsed) and effective shapes ─────────────────────────────────────────────────────────────

interface RawToolRule {
  id?: string;
  tool?: string;
  input?: Record<string, string>;
  verdict?: Verdict;
  reason?: string;
}
interface RawBashRule {
  id?: string;
  command?: string;
  args?: string;
  wrapper?: string;
  context?: SegmentContext[];
  remote?: boolean;
  verdict?: Verdict;
  precondition_script?: string;
  reason?: string;
}
export interface RawRulesConfig {
  rules?: RawToolRule[];
  bash_rules?: RawBashRule[];
  packs?: Partial<Record<PackName, boolean>>;
  pack_rules?: Record<string, PackRuleSetting>;
  protected_branches?: string[];
}

export const RULE_SCOPES = ['user', 'project'] as const;
export type RuleScope = (typeof RULE_SCOPES)[number];

export interface ToolRuleSpec {
  id: string;
  scope: RuleScope;
  /** `file:line` of the list item, and its field path (`rules[2]`). */
  source: string;
  field: string;
  /** Raw patterns, as written (anchoring happens at compile time). */
  tool: string;
  input: { field: string; pattern: string }[];
  verdict: Verdict;
  reason: string;
}

export interface BashRuleSpec {
  id: string;
  scope: RuleScope;
  source: string;
  field: string;
  command: string;
  args?: string;
  wrapper?: string;
  contexts?: SegmentContext[];
  remote?: boolean;
  /** Absent exactly when a precondition script decides. */
  verdict?: Verdict;
  precondition?: { script: string; base: string };
  reason: string;
}

export interface Setting<T> {
  value: T;
  /** `built-in` or `file:line`. */
  source: string;
}

export interface EffectiveRules {
  tools: ToolRuleSpec[];
  bash: BashRuleSpec[];
  packs: Record<PackName, Setting<boolean>>;
  /** Per-rule overrides by full id (`pack:git:reset-hard`). */
  packRules: Record<string, Setting<PackRuleSetting>>;
  protectedBranches: Setting<string>[];
}

/** One scope's parsed file, as config.ts reads it. */
export interface RuleSource {
  label: string;
  raw: RawRulesConfig;
  lines: Map<string, number>;
  trusted: boolean;
}

export interface RuleDirs {
  projectRoot: string;
  userConfigDir: string;
}

// ── merge ────────────────────────────────────────────────────────────────────────────────────────────

export function defaultRules(protectedBranches: readonly string[]): EffectiveRules {
  return {
    tools: [],
    bash: [],
    packs: Object.fromEntries(PACK_NAMES.map((name) => [name, { value: true, source: 'built-in' }])) as Record<
      PackName,
      Setting<boolean>
    >,
    packRules: {},
    protectedBranches: protectedBranches.map((value) => ({ value, source: 'built-in' })),
  };
}

/** The current setting of a pack rule: its override, or its built-in verdict. */
export function packRuleSetting(rules: EffectiveRules, id: string): PackRuleSetting | undefined {
  return rules.packRules[id]?.value ?? packRule(id)?.spec.verdict;
}

/** Whether changing a pack rule from `current` to `next` can only make decisions stricter. */
export function tightens(current: PackRuleSetting, next: PackRuleSetting): boolean {
  if (next === 'off') return current === 'allow' || current === 'off'; // dropping an allow tightens
  if (current === 'off') return next !== 'allow';
  return strictness(next) >= strictness(current);
}

const SHELL_TOOLS = ['Bash', 'PowerShell'].filter((t) => toolShape(t).action === 'shell');

export function mergeRules(
  sources: readonly RuleSource[],
  diagnostics: Diagnostic[],
  dirs: RuleDirs,
  base: EffectiveRules,
): EffectiveRules {
  const rules: EffectiveRules = {
    tools: [...base.tools],
    bash: [...base.bash],
    packs: { ...base.packs },
    packRules: { ...base.packRules },
    protectedBranches: [...base.protectedBranches],
  };
  for (const source of sources) {
    const scope: RuleScope = source.trusted ? 'user' : 'project';
    const line = (field: string): number => source.lines.get(field) ?? 1;
    const where = (field: string): string => `${source.label}:${line(field)}`;
    /** A field that is absent has no line of its own: report it at its rule's line. */
    const lineOf = (field: string): number =>
      source.lines.get(field) ?? line(field.slice(0, Math.max(0, field.lastIndexOf('.'))));
    const report = (severity: Diagnostic['severity'], field: string, problem: string, suggestion?: string): void => {
      diagnostics.push({
        severity,
        file: source.label,
        line: lineOf(field),
        field,
        problem,
        ...(suggestion === undefined ? {} : { suggestion }),
      });
    };
    /** Validate a pattern (raw, and anchored when it will be full-matched); report RE2's error. */
    const pattern = (field: string, text: string | undefined, full: boolean): boolean => {
      if (text === undefined) return true;
      const problem = re2Problem(text) ?? (full ? re2Problem(anchored(text)) : undefined);
      if (problem === undefined) return true;
      report(
        'error',
        field,
        `invalid RE2 pattern ${JSON.stringify(text)}: ${problem}`,
        'patterns are RE2 (no lookaround or backreferences); escape literal characters such as . ( ) with \\',
      );
      return false;
    };
    const required = (field: string, value: unknown, what: string): boolean => {
      if (value !== undefined) return true;
      if (!source.lines.has(field)) report('error', field, `missing: every rule needs ${what}`);
      return false;
    };
    const checkId = (field: string, id: string | undefined): void => {
      if (id?.startsWith('pack:') === true)
        report('error', field, `rule ids starting with "pack:" are reserved for built-in packs`, 'choose another id');
    };

    (source.raw.rules ?? []).forEach((raw, i) => {
      const field = `rules[${i}]`;
      checkId(`${field}.id`, raw.id);
      let ok = required(`${field}.tool`, raw.tool, 'a tool pattern (e.g. tool: WebFetch)');
      ok = required(`${field}.verdict`, raw.verdict, 'a verdict (allow, ask or deny)') && ok;
      ok = required(`${field}.reason`, raw.reason, 'a reason (shown to the agent and the user)') && ok;
      ok = pattern(`${field}.tool`, raw.tool, true) && ok;
      const input = Object.entries(raw.input ?? {}).map(([name, p]) => ({ field: name, pattern: p }));
      for (const entry of input) ok = pattern(`${field}.input.${entry.field}`, entry.pattern, false) && ok;
      if (!ok || raw.tool === undefined || raw.verdict === undefined || raw.reason === undefined) return;
      if (raw.verdict === 'allow' && SHELL_TOOLS.some((t) => compileRe2(anchored(raw.tool!)).test(t))) {
        report(
          'warning',
          `${field}.tool`,
          `this allow never applies to shell commands: matching a raw command string would let "ok-command; anything" through`,
          'use bash_rules, which judge every segment of the command',
        );
      }
      rules.tools.push({
        id: raw.id ?? `${scope}:${field}`,
        scope,
        source: where(field),
        field,
        tool: raw.tool,
        input,
        verdict: raw.verdict,
        reason: raw.reason,
      });
    });

    (source.raw.bash_rules ?? []).forEach((raw, i) => {
      const field = `bash_rules[${i}]`;
      checkId(`${field}.id`, raw.id);
      let ok = required(`${field}.command`, raw.command, 'a command pattern (e.g. command: git)');
      ok = required(`${field}.reason`, raw.reason, 'a reason (shown to the agent and the user)') && ok;
      if (raw.verdict === undefined && raw.precondition_script === undefined) {
        if (!source.lines.has(`${field}.verdict`))
          report(
            'error',
            field,
            'missing: a bash rule needs a verdict (allow, ask or deny) or a precondition_script that prints one',
          );
        ok = false;
      }
      if (raw.verdict !== undefined && raw.precondition_script !== undefined) {
        report(
          'error',
          `${field}.precondition_script`,
          "a rule has either a verdict or a precondition_script, not both: the script's answer is the verdict",
          'remove verdict:',
        );
        ok = false;
      }
      ok = pattern(`${field}.command`, raw.command, true) && ok;
      ok = pattern(`${field}.args`, raw.args, false) && ok;
      ok = pattern(`${field}.wrapper`, raw.wrapper, true) && ok;
      if (!ok || raw.command === undefined || raw.reason === undefined) return;
      const spec: BashRuleSpec = {
        id: raw.id ?? `${scope}:${field}`,
        scope,
        source: where(field),
        field,
        command: raw.command,
        reason: raw.reason,
      };
      if (raw.args !== undefined) spec.args = raw.args;
      if (raw.wrapper !== undefined) spec.wrapper = raw.wrapper;
      if (raw.context !== undefined) spec.contexts = raw.context;
      if (raw.remote !== undefined) spec.remote = raw.remote;
      if (raw.verdict !== undefined) spec.verdict = raw.verdict;
      if (raw.precondition_script !== undefined) {
        const script = raw.precondition_script;
        spec.precondition = {
          script,
          base:
            isAbsolute(script) || script.startsWith('~/') ? '' : source.trusted ? dirs.userConfigDir : dirs.projectRoot,
        };
      }
      rules.bash.push(spec);
    });

    for (const [name, on] of Object.entries(source.raw.packs ?? {}) as [PackName, boolean][]) {
      const field = `packs.${name}`;
      const pack = packNamed(name);
      const loosens = pack.kind === 'guard' ? !on : on && !rules.packs[name].value;
      if (loosens && !source.trusted) {
        report(
          'warning',
          field,
          `ignored: switching the ${name} pack ${on ? 'on' : 'off'} would loosen the gate, and a project file can only tighten`,
          'set it in ~/.config/hookwise/config.yml',
        );
        continue;
      }
      rules.packs[name] = { value: on, source: where(field) };
    }

    for (const [id, setting] of Object.entries(source.raw.pack_rules ?? {})) {
      const field = `pack_rules.${id}`;
      const current = packRuleSetting(rules, id);
      if (current === undefined) {
        const best = closest(id, allPackRuleIds());
        report(
          'error',
          field,
          `unknown pack rule "${id}"`,
          best === undefined ? 'docs/rules.md lists every pack rule id' : `did you mean "${best}"?`,
        );
        continue;
      }
      if (!source.trusted && !tightens(current, setting)) {
        report(
          'warning',
          field,
          `ignored: "${setting}" is looser than "${current}", and a project file can only tighten`,
          'set it in ~/.config/hookwise/config.yml',
        );
        continue;
      }
      rules.packRules[id] = { value: setting, source: where(field) };
    }

    (source.raw.protected_branches ?? []).forEach((value, i) => {
      rules.protectedBranches.push({ value, source: where(`protected_branches[${i}]`) });
    });
  }
  return rules;
}
