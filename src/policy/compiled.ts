/**
 * The compiled policy: plain JSON (globs already turned into regex sources) so `check` can load it from a
 * cache file without importing yaml or picomatch. Regexes are built lazily, per list, on first use.
 */
import { assertNever } from '../core/errors.js';
import type { Verdict } from '../core/decision.js';
import type { ResolvedPath } from '../core/tool-call.js';
import type { SegmentContext } from '../shell/types.js';
import { ROLE_NAME, type OutsideRootVerdict, type RoleGroup } from './defaults.js';

export { ROLE_NAME } from './defaults.js';
import type { PackName } from './packs/types.js';
import type { PackRuleSetting, RuleScope, Setting } from './rules-config.js';
import type { Diagnostic } from './schema.js';
import type { McpSettings, RoleMcp } from './mcp-settings.js';
import type {
  EffectiveConfig,
  EmbeddingSettings,
  HumanSettings,
  MemorySettings,
  ModuleSettings,
  SupervisorSettings,
} from './config-types.js';

/**
 * How a pattern is matched. Most policy globs have a simple shape that a string comparison decides
 * exactly; only the rest pay for a regex (whose first executions V8 compiles, ~10 µs each — a real cost
 * in a process that lives for one decision).
 */
export type MatchKind =
  | 'exact' // `Jenkinsfile`, `.gitlab-ci.yml`
  | 'dir' // `src/**`: the directory itself or anything below it
  | 'prefix' // `.env*`, `Dockerfile*`
  | 'suffix' // `*.tf`, `*_test.go`
  | 'segment' // `**/secrets/**`, `**/.git/hooks/**`: path segments anywhere
  | 'tail' // `**/.git/config`: the path's last segments, at any depth
  | 'segment-prefix' // `**/.env*`: a file name prefix at any depth
  | 'any' // `**`
  | 'regex';

export interface CompiledPattern {
  glob: string;
  source: string;
  kind: MatchKind;
  /** The literal for string kinds; empty for `any`. */
  value: string;
  /** Regex source and flags from picomatch (kind `regex` only). */
  re: string;
  flags: string;
  /** Pattern has no `/`: matched against the file name at any depth. */
  base: boolean;
  /** Pattern is absolute (or `~/`): matched against the absolute path. */
  absolute: boolean;
}

export interface CompiledRole {
  name: string;
  group: RoleGroup;
  description: string;
  source: string;
  allowWrite: CompiledPattern[];
  denyWrite: CompiledPattern[];
  allowRead: CompiledPattern[];
  mcp?: RoleMcp;
}

/**
 * Ordered rules with RE2 pattern *sources* (already anchored where they full-match): RE2 objects cannot
 * be JSON-cached, so each process builds the ones it uses, once (rules.ts).
 */
export interface CompiledToolRule {
  id: string;
  scope: RuleScope;
  source: string;
  /** Anchored: full match on the canonical tool name. */
  tool: string;
  /** Searched (unanchored) in each input field's value; every entry must match. */
  input: { field: string; pattern: string }[];
  verdict: Verdict;
  reason: string;
}

export interface CompiledBashRule {
  id: string;
  scope: RuleScope;
  source: string;
  /** Anchored: full match on segment.name. */
  command: string;
  /** Searched in the arguments joined by single spaces. */
  args?: string;
  /** Anchored: full match on one wrapper (or its first word). */
  wrapper?: string;
  contexts?: SegmentContext[];
  remote?: boolean;
  /** Absent exactly when `precondition` (an absolute script path) decides. */
  verdict?: Verdict;
  precondition?: string;
  reason: string;
}

export interface CompiledRules {
  tools: CompiledToolRule[];
  bash: CompiledBashRule[];
  packs: Record<PackName, Setting<boolean>>;
  packRules: Record<string, Setting<PackRuleSetting>>;
  protectedBranches: Setting<string>[];
}

export interface CompiledPolicy {
  roles: Record<string, CompiledRole>;
  sensitiveWrite: CompiledPattern[];
  sensitiveRead: CompiledPattern[];
  outsideRoot: { write: OutsideRootVerdict; read: OutsideRootVerdict; source: string };
  registration: { waitMs: number; pollMs: number };
  safeTools: { name: string; source: string }[];
  confine: EffectiveConfig['confine'];
  audit: { maxBytes: number; keep: number };
  memory: MemorySettings;
  embedding: EmbeddingSettings;
  modules: ModuleSettings;
  supervisor: SupervisorSettings;
  human: HumanSettings;
  rules: CompiledRules;
  mcp: McpSettings;
  warnings: Diagnostic[];
}

/** `value` (one or more whole segments) occurs in `subject` between `/`s or its ends; allocates nothing. */
function hasSegments(subject: string, value: string): boolean {
  for (let i = subject.indexOf(value); i !== -1; i = subject.indexOf(value, i + 1)) {
    const end = i + value.length;
    if ((i === 0 || subject.charCodeAt(i - 1) === 47) && (end === subject.length || subject.charCodeAt(end) === 47))
      return true;
  }
  return false;
}

export function matchesKind(kind: MatchKind, value: string, subject: string, regex: () => RegExp): boolean {
  switch (kind) {
    case 'exact':
      return subject === value;
    case 'dir':
      return subject === value || (subject.startsWith(value) && subject.charCodeAt(value.length) === 47); // '/'
    case 'prefix':
      return subject.startsWith(value);
    case 'suffix':
      return subject.endsWith(value);
    case 'segment':
      return hasSegments(subject, value);
    case 'tail':
      return (
        subject === value || (subject.endsWith(value) && subject.charCodeAt(subject.length - value.length - 1) === 47) // '/'
      );
    case 'segment-prefix':
      return subject.slice(subject.lastIndexOf('/') + 1).startsWith(value);
    case 'any':
      return true;
    case 'regex':
      return regex().test(subject);
    default:
      return assertNever(kind, 'glob match kind');
  }
}

/** A list of compiled patterns; `match` returns the first that matches the path. */
export class PatternList {
  private readonly regexes: (RegExp | undefined)[] = [];
  private readonly regexAt: (() => RegExp)[];
  constructor(readonly patterns: readonly CompiledPattern[]) {
    // One lazy regex thunk per pattern, made once: matching allocates nothing.
    this.regexAt = patterns.map((p, i) => () => (this.regexes[i] ??= new RegExp(p.re, p.flags)));
  }

  match(path: ResolvedPath): CompiledPattern | undefined {
    const rel = path.relative;
    let base: string | undefined;
    for (let i = 0; i < this.patterns.length; i++) {
      const pattern = this.patterns[i]!;
      let subject: string;
      if (pattern.absolute) subject = path.absolute;
      else if (rel === null) continue;
      else if (pattern.base) subject = base ??= rel.slice(rel.lastIndexOf('/') + 1);
      else subject = rel;
      if (matchesKind(pattern.kind, pattern.value, subject, this.regexAt[i]!)) return pattern;
    }
    return undefined;
  }

  /**
   * The first pattern that may match a path at or below `dir` (a directory a formatter rewrites file by file),
   * leaving out what lies in directories named in `skips`. Decided on the pattern's shape: a shape that
   * cannot be bounded (a regex, a file name at any depth, a segment anywhere) is taken to reach below.
   */
  reachesBelow(dir: ResolvedPath, skips: readonly string[]): CompiledPattern | undefined {
    for (const pattern of this.patterns) {
      const root = pattern.absolute ? dir.absolute : dir.relative;
      if (root !== null && mayMatchBelow(pattern, root, skips)) return pattern;
    }
    return undefined;
  }

  /** The first pattern that matches every path at and below `dir` (`**`; `src/**` for `src/lib`). */
  coversBelow(dir: ResolvedPath): CompiledPattern | undefined {
    for (const pattern of this.patterns) {
      const root = pattern.absolute ? dir.absolute : dir.relative;
      if (root === null) continue;
      if (pattern.kind === 'any') return pattern;
      if (pattern.kind === 'dir' && !pattern.base && (root === pattern.value || root.startsWith(`${pattern.value}/`)))
        return pattern;
    }
    return undefined;
  }
}

/** Whether a pattern may match some path at or below `root` (`''`: the project root), outside `skips`. */
function mayMatchBelow(pattern: CompiledPattern, root: string, skips: readonly string[]): boolean {
  if (pattern.base) return true;
  const v = pattern.value;
  // v's part below root, or undefined when v is neither root nor below it.
  const rest = root === '' ? v : v === root ? '' : v.startsWith(`${root}/`) ? v.slice(root.length + 1) : undefined;
  const skipped = (parts: string[]): boolean => parts.some((p) => skips.includes(p));
  switch (pattern.kind) {
    case 'exact':
      return rest !== undefined && !skipped(rest.split('/').slice(0, -1));
    case 'dir':
      if (root === v || root.startsWith(`${v}/`)) return true;
      return rest !== undefined && !skipped(rest.split('/'));
    case 'prefix':
      // `.env*`, `src/gen*`: a path starting so; its whole directories can be skipped.
      if (root === '' || root.startsWith(v) || `${root}/`.startsWith(v))
        return rest === undefined || !skipped(rest.split('/').slice(0, -1));
      return rest !== undefined && !skipped(rest.split('/').slice(0, -1));
    default:
      return true;
  }
}

/** The role of that name, looked up as data: only the policy's own roles, never an inherited property. */
export function roleNamed(policy: Pick<CompiledPolicy, 'roles'>, name: string): CompiledRole | undefined {
  return ROLE_NAME.test(name) && Object.hasOwn(policy.roles, name) ? policy.roles[name] : undefined;
}

/** Per-process matchers, built once from the compiled policy. */
export interface PolicyMatchers {
  sensitiveWrite: PatternList;
  sensitiveRead: PatternList;
  role(name: string): RoleMatchers | undefined;
}

export interface RoleMatchers {
  role: CompiledRole;
  allowWrite: PatternList;
  denyWrite: PatternList;
  allowRead: PatternList;
}

const matcherCache = new WeakMap<CompiledPolicy, PolicyMatchers>();

/** Matchers for a policy, built once per policy object (a daemon keeps them across calls). */
export function matchersFor(policy: CompiledPolicy): PolicyMatchers {
  let matchers = matcherCache.get(policy);
  if (matchers === undefined) matcherCache.set(policy, (matchers = buildMatchers(policy)));
  return matchers;
}

function buildMatchers(policy: CompiledPolicy): PolicyMatchers {
  const roles = new Map<string, RoleMatchers>();
  return {
    sensitiveWrite: new PatternList(policy.sensitiveWrite),
    sensitiveRead: new PatternList(policy.sensitiveRead),
    role(name) {
      const cached = roles.get(name);
      if (cached !== undefined) return cached;
      const role = roleNamed(policy, name);
      if (role === undefined) return undefined;
      const built = {
        role,
        allowWrite: new PatternList(role.allowWrite),
        denyWrite: new PatternList(role.denyWrite),
        allowRead: new PatternList(role.allowRead),
      };
      roles.set(name, built);
      return built;
    },
  };
}
