/** Effective config → compiled policy (globs → regex sources). Runs only when the policy cache is stale. */
import { join } from 'node:path';
import picomatch from 'picomatch';
import type { CompiledBashRule, CompiledPattern, CompiledPolicy, CompiledRules, MatchKind } from './compiled.js';
import type { EffectiveConfig, PatternSpec } from './config-types.js';
import { anchored } from '../util/re2.js';
import type { BashRuleSpec, EffectiveRules } from './rules-config.js';
import type { Diagnostic } from './schema.js';

const GLOB_SPECIALS = /[*?[\]{}()!+@\\]/g;
const HAS_SPECIAL = /[*?[\]{}()!+@\\]/;

/** The string-comparable shape of a glob, if it has one (see MatchKind); else `regex`. */
export function shapeOf(glob: string): { kind: MatchKind; value: string } {
  const literal = (s: string): boolean => s !== '' && !HAS_SPECIAL.test(s);
  if (glob === '**') return { kind: 'any', value: '' };
  if (literal(glob)) return { kind: 'exact', value: glob };
  if (glob.endsWith('/**') && literal(glob.slice(0, -3))) return { kind: 'dir', value: glob.slice(0, -3) };
  if (glob.startsWith('**/') && glob.endsWith('/**') && literal(glob.slice(3, -3))) {
    return { kind: 'segment', value: glob.slice(3, -3) };
  }
  if (glob.startsWith('**/') && literal(glob.slice(3))) return { kind: 'tail', value: glob.slice(3) };
  if (glob.startsWith('**/') && glob.endsWith('*') && literal(glob.slice(3, -1)) && !glob.slice(3, -1).includes('/')) {
    return { kind: 'segment-prefix', value: glob.slice(3, -1) };
  }
  if (!glob.includes('/')) {
    if (glob.endsWith('*') && literal(glob.slice(0, -1))) return { kind: 'prefix', value: glob.slice(0, -1) };
    if (glob.startsWith('*') && literal(glob.slice(1))) return { kind: 'suffix', value: glob.slice(1) };
  }
  return { kind: 'regex', value: '' };
}

export function compilePattern(spec: PatternSpec, home: string): CompiledPattern {
  let glob = spec.glob;
  // `~/x` means the home directory; escape the home path in case it holds glob characters.
  if (glob === '~' || glob.startsWith('~/')) glob = home.replace(GLOB_SPECIALS, '\\$&') + glob.slice(1);
  if (glob.startsWith('./')) glob = glob.slice(2);
  const absolute = glob.startsWith('/');
  const base = !absolute && !glob.includes('/');
  const shape = shapeOf(glob);
  // picomatch stays the reference: it validates every glob, and compiles the ones without a simple shape.
  const re = picomatch.makeRe(glob, { dot: true });
  const regex = shape.kind === 'regex' ? { re: re.source, flags: re.flags } : { re: '', flags: '' };
  return { glob: spec.glob, source: spec.source, ...shape, ...regex, base, absolute };
}

/** Where a precondition script lives: absolute, `~/…`, or relative to its scope's directory. */
export function preconditionPath(precondition: NonNullable<BashRuleSpec['precondition']>, home: string): string {
  const { script, base } = precondition;
  if (script.startsWith('~/')) return join(home, script.slice(2));
  return base === '' ? script : join(base, script);
}

export function compileRules(rules: EffectiveRules, home: string): CompiledRules {
  return {
    tools: rules.tools.map((r) => ({
      id: r.id,
      scope: r.scope,
      source: r.source,
      tool: anchored(r.tool),
      input: r.input,
      verdict: r.verdict,
      reason: r.reason,
    })),
    bash: rules.bash.map((r) => {
      const out: CompiledBashRule = {
        id: r.id,
        scope: r.scope,
        source: r.source,
        command: anchored(r.command),
        reason: r.reason,
      };
      if (r.args !== undefined) out.args = r.args;
      if (r.wrapper !== undefined) out.wrapper = anchored(r.wrapper);
      if (r.contexts !== undefined) out.contexts = r.contexts;
      if (r.remote !== undefined) out.remote = r.remote;
      if (r.verdict !== undefined) out.verdict = r.verdict;
      if (r.precondition !== undefined) out.precondition = preconditionPath(r.precondition, home);
      return out;
    }),
    packs: rules.packs,
    packRules: rules.packRules,
    protectedBranches: rules.protectedBranches,
  };
}

export function compilePolicy(config: EffectiveConfig, home: string, warnings: Diagnostic[]): CompiledPolicy {
  const list = (specs: PatternSpec[]): CompiledPattern[] => specs.map((s) => compilePattern(s, home));
  const roles: CompiledPolicy['roles'] = {};
  for (const [name, role] of Object.entries(config.roles)) {
    roles[name] = {
      name,
      group: role.group,
      description: role.description,
      source: role.source,
      allowWrite: list(role.allowWrite),
      denyWrite: list(role.denyWrite),
      allowRead: list(role.allowRead),
      ...(role.mcp === undefined ? {} : { mcp: role.mcp }),
    };
  }
  return {
    roles,
    sensitiveWrite: list(config.sensitiveWrite),
    sensitiveRead: list(config.sensitiveRead),
    outsideRoot: config.outsideRoot,
    registration: config.registration,
    safeTools: config.safeTools,
    confine: config.confine,
    audit: config.audit,
    memory: config.memory,
    embedding: config.embedding,
    modules: config.modules,
    supervisor: config.supervisor,
    human: config.human,
    rules: compileRules(config.rules, home),
    mcp: config.mcp,
    warnings,
  };
}
