/**
 * `hookwise validate`: lint the effective config of every scope (~/.config/hookwise/config.yml,
 * .hookwise/policy.yml, .hookwise/roles.yml). Reports, with file:line:
 *
 *   errors    everything loading reports (broken YAML, unknown fields, wrong types, invalid RE2
 *             patterns, unknown packs or pack rules, …) and precondition scripts that are missing, not
 *             files, or not executable (such a rule would always ask);
 *   warnings  rules that can never match because an earlier rule in the same list matches everything
 *             they would (decidable cases: same or broader command/tool pattern with no narrower
 *             constraint), exact duplicates, project allows that a pack's or the user's ask/deny
 *             overrules, and everything loading ignores because a project may only tighten.
 *
 * Exit status 1 when there are errors, else 0. `--json` prints the same as one object.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { findProjectRoot } from '../paths/canonical.js';
import { compileRe2, anchored } from '../util/re2.js';
import { preconditionPath } from '../policy/compile.js';
import { loadConfig } from '../policy/config.js';
import type { EffectiveConfig } from '../policy/config-types.js';
import { configFiles } from '../policy/files.js';
import { PACKS } from '../policy/packs/index.js';
import type { BashRuleSpec, ToolRuleSpec } from '../policy/rules-config.js';
import { formatDiagnostic, type Diagnostic } from '../policy/schema.js';
import { locations } from '../util/locations.js';

export interface ValidateReport {
  ok: boolean;
  errors: number;
  warnings: number;
  files: { user: string; policy: string; roles: string };
  diagnostics: Diagnostic[];
}

// ── lints over the effective config ──────────────────────────────────────────────────────────────────

function at(
  rule: { source: string; field: string },
  field: string,
  severity: Diagnostic['severity'],
  problem: string,
  suggestion?: string,
): Diagnostic {
  const colon = rule.source.lastIndexOf(':');
  const file = rule.source.slice(0, colon);
  const line = Number(rule.source.slice(colon + 1)) || 1;
  return { severity, file, line, field, problem, ...(suggestion === undefined ? {} : { suggestion }) };
}

const lineOf = (rule: { source: string }): string => rule.source.slice(rule.source.lastIndexOf(':') + 1);

function isLiteral(pattern: string): boolean {
  return [...pattern].every(
    (c) =>
      (c >= 'a' && c <= 'z') ||
      (c >= 'A' && c <= 'Z') ||
      (c >= '0' && c <= '9') ||
      c === '_' ||
      c === '-' ||
      c === '/' ||
      c === ':' ||
      c === '@',
  );
}

/** Whether full-match pattern `broad` matches every name full-match pattern `narrow` does (decidable cases only). */
function covers(broad: string, narrow: string): boolean {
  if (broad === narrow || broad === '.*') return true;
  return isLiteral(narrow) && compileRe2(anchored(broad)).test(narrow);
}

/** Whether two full-match patterns can match a common name (decidable cases: equal, or one is a literal). */
function overlaps(a: string, b: string): boolean {
  return (
    a === b ||
    a === '.*' ||
    b === '.*' ||
    (isLiteral(a) && compileRe2(anchored(b)).test(a)) ||
    (isLiteral(b) && compileRe2(anchored(a)).test(b))
  );
}

function sameInput(a: ToolRuleSpec['input'], b: ToolRuleSpec['input']): boolean {
  return a.length === b.length && a.every((x) => b.some((y) => y.field === x.field && y.pattern === x.pattern));
}

function toolShadows(earlier: ToolRuleSpec, later: ToolRuleSpec): boolean {
  return (
    covers(earlier.tool, later.tool) &&
    earlier.input.every((x) => later.input.some((y) => y.field === x.field && y.pattern === x.pattern))
  );
}

function bashShadows(earlier: BashRuleSpec, later: BashRuleSpec): boolean {
  const within = (a: unknown, b: unknown): boolean => a === undefined || a === b;
  const contexts =
    earlier.contexts === undefined ||
    (later.contexts !== undefined && later.contexts.every((c) => earlier.contexts!.includes(c)));
  return (
    covers(earlier.command, later.command) &&
    within(earlier.args, later.args) &&
    within(earlier.wrapper, later.wrapper) &&
    within(earlier.remote, later.remote) &&
    contexts
  );
}

function sameBash(a: BashRuleSpec, b: BashRuleSpec): boolean {
  const ctx = (c: BashRuleSpec['contexts']): string => (c === undefined ? '' : [...c].sort().join(','));
  return (
    a.command === b.command &&
    a.args === b.args &&
    a.wrapper === b.wrapper &&
    a.remote === b.remote &&
    ctx(a.contexts) === ctx(b.contexts) &&
    a.verdict === b.verdict &&
    a.precondition?.script === b.precondition?.script
  );
}

/** Unreachable and duplicate rules within one scope's list (first match wins). */
function lintOrder<R extends { scope: string; field: string; source: string }>(
  rules: R[],
  same: (a: R, b: R) => boolean,
  shadows: (earlier: R, later: R) => boolean,
): Diagnostic[] {
  const out: Diagnostic[] = [];
  rules.forEach((later, j) => {
    for (const earlier of rules.slice(0, j)) {
      if (earlier.scope !== later.scope) continue;
      if (same(earlier, later)) {
        out.push(
          at(
            later,
            later.field,
            'warning',
            `duplicate of ${earlier.field} (line ${lineOf(earlier)})`,
            'remove one of them',
          ),
        );
        return;
      }
      if (shadows(earlier, later)) {
        out.push(
          at(
            later,
            later.field,
            'warning',
            `unreachable: ${earlier.field} (line ${lineOf(earlier)}) matches everything this rule matches, and the first match wins`,
            'move the narrower rule first, or remove it',
          ),
        );
        return;
      }
    }
  });
  return out;
}

function lintPreconditions(rules: BashRuleSpec[], home: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const rule of rules) {
    if (rule.precondition === undefined) continue;
    const path = preconditionPath(rule.precondition, home);
    const field = `${rule.field}.precondition_script`;
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat === undefined) {
      out.push(
        at(
          rule,
          field,
          'error',
          `precondition script ${path} does not exist (the rule would always ask)`,
          'fix the path: project scripts are relative to the project root, user scripts to ~/.config/hookwise',
        ),
      );
      continue;
    }
    if (!stat.isFile()) {
      out.push(at(rule, field, 'error', `precondition script ${path} is not a file`));
      continue;
    }
    try {
      accessSync(path, constants.X_OK);
    } catch {
      out.push(
        at(
          rule,
          field,
          'error',
          `precondition script ${path} is not executable (the rule would always ask)`,
          `chmod +x ${path}`,
        ),
      );
    }
  }
  return out;
}

/** Project allows that an ask/deny of a pack or of the user overrules: they do not do what they seem to. */
function lintWeakening(config: EffectiveConfig): Diagnostic[] {
  const out: Diagnostic[] = [];
  const { rules } = config;
  const guards = PACKS.filter((p) => p.kind === 'guard' && rules.packs[p.name].value);
  for (const rule of rules.bash) {
    if (rule.scope !== 'project' || rule.verdict === 'ask' || rule.verdict === 'deny') continue;
    const what = rule.verdict === 'allow' ? 'this allow' : "this rule's precondition allow";
    const hits = guards
      .map((p) => ({ pack: p.name, names: p.commands.filter((c) => overlaps(rule.command, c)) }))
      .filter((x) => x.names.length > 0);
    if (hits.length > 0) {
      const names = [...new Set(hits.flatMap((h) => h.names))];
      const shown = `${names.slice(0, 4).join(', ')}${names.length > 4 ? ', …' : ''}`;
      out.push(
        at(
          rule,
          `${rule.field}.command`,
          'warning',
          `${what} cannot override the ask/deny rules of the ${hits.map((h) => h.pack).join(', ')} pack${hits.length > 1 ? 's' : ''} for ${shown}: where they match, they still decide`,
          'a project can only tighten; a user may switch a pack rule off in ~/.config/hookwise/config.yml (pack_rules)',
        ),
      );
    }
    const user = rules.bash.find(
      (u) => u.scope === 'user' && (u.verdict === 'ask' || u.verdict === 'deny') && overlaps(rule.command, u.command),
    );
    if (user !== undefined) {
      out.push(
        at(
          rule,
          `${rule.field}.command`,
          'warning',
          `${what} cannot override the user's ${user.verdict} rule ${user.id} (${user.source}) where both match`,
        ),
      );
    }
  }
  for (const rule of rules.tools) {
    if (rule.scope !== 'project' || rule.verdict !== 'allow') continue;
    const user = rules.tools.find((u) => u.scope === 'user' && u.verdict !== 'allow' && overlaps(rule.tool, u.tool));
    if (user !== undefined) {
      out.push(
        at(
          rule,
          `${rule.field}.tool`,
          'warning',
          `this allow cannot override the user's ${user.verdict} rule ${user.id} (${user.source}) where both match`,
        ),
      );
    }
  }
  return out;
}

function lintEmpty(rules: BashRuleSpec[]): Diagnostic[] {
  return rules
    .filter((r) => r.contexts !== undefined && r.contexts.length === 0)
    .map((r) =>
      at(
        r,
        `${r.field}.context`,
        'warning',
        'an empty context list matches no segment',
        'remove context: to match every context',
      ),
    );
}

export function lintRules(config: EffectiveConfig, home: string): Diagnostic[] {
  const { tools, bash } = config.rules;
  return [
    ...lintOrder(
      tools,
      (a, b) => a.tool === b.tool && sameInput(a.input, b.input) && a.verdict === b.verdict,
      toolShadows,
    ),
    ...lintOrder(bash, sameBash, bashShadows),
    ...lintPreconditions(bash, home),
    ...lintWeakening(config),
    ...lintEmpty(bash),
  ];
}

// ── the command ──────────────────────────────────────────────────────────────────────────────────────

export function validateProject(projectRoot: string, env: NodeJS.ProcessEnv): ValidateReport {
  const where = locations(env);
  const files = configFiles(projectRoot, where.userConfigDir);
  const { config, diagnostics } = loadConfig(projectRoot, files);
  // The lints see every rule that loaded, so one broken rule does not hide the problems of the others.
  const all = [...diagnostics, ...lintRules(config, where.home)];
  all.sort((a, b) => (a.file === b.file ? a.line - b.line : a.file < b.file ? -1 : 1));
  const errors = all.filter((d) => d.severity === 'error').length;
  return {
    ok: errors === 0,
    errors,
    warnings: all.length - errors,
    files: { user: files.user, policy: files.policy, roles: files.roles },
    diagnostics: all,
  };
}

export function validate(cwd: string, env: NodeJS.ProcessEnv, json: boolean): { stdout: string; exitCode: number } {
  const report = validateProject(findProjectRoot(cwd), env);
  const exitCode = report.ok ? 0 : 1;
  if (json) return { stdout: JSON.stringify(report, null, 2), exitCode };
  const lines = report.diagnostics.map(formatDiagnostic);
  const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
  lines.push(
    report.errors === 0 && report.warnings === 0
      ? `hookwise validate: config OK (${report.files.user}, ${report.files.policy}, ${report.files.roles})`
      : `hookwise validate: ${plural(report.errors, 'error')}, ${plural(report.warnings, 'warning')}${report.errors > 0 ? ' — while there are errors, every gated tool call is denied' : ''}`,
  );
  return { stdout: lines.join('\n'), exitCode };
}
