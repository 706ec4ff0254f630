/**
 * The compiled policy: plain JSON (globs already turned into regex sources) so `check` can load it from a
 * cache file without importing yaml or picomatch. Regexes are built lazily, per list, on first use.
 */
import type { ResolvedPath } from '../core/tool-call.js';
import type { OutsideRootVerdict, RoleGroup } from './defaults.js';
import type { Diagnostic } from './schema.js';

export interface CompiledPattern {
  glob: string;
  source: string;
  /** Regex source and flags from picomatch. */
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
}

export interface CompiledPolicy {
  roles: Record<string, CompiledRole>;
  sensitiveWrite: CompiledPattern[];
  sensitiveRead: CompiledPattern[];
  outsideRoot: { write: OutsideRootVerdict; read: OutsideRootVerdict; source: string };
  registration: { waitMs: number; pollMs: number };
  safeTools: { name: string; source: string }[];
  audit: { maxBytes: number; keep: number };
  warnings: Diagnostic[];
}

/** A list of compiled patterns; `match` returns the first that matches the path. */
export class PatternList {
  private regexes: RegExp[] | undefined;
  constructor(readonly patterns: readonly CompiledPattern[]) {}

  match(path: ResolvedPath): CompiledPattern | undefined {
    const regexes = (this.regexes ??= this.patterns.map((p) => new RegExp(p.re, p.flags)));
    const rel = path.relative;
    let base: string | undefined;
    for (let i = 0; i < regexes.length; i++) {
      const pattern = this.patterns[i]!;
      let subject: string;
      if (pattern.absolute) subject = path.absolute;
      else if (rel === null) continue;
      else if (pattern.base) subject = base ??= rel.slice(rel.lastIndexOf('/') + 1);
      else subject = rel;
      if (regexes[i]!.test(subject)) return pattern;
    }
    return undefined;
  }
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

export function matchersFor(policy: CompiledPolicy): PolicyMatchers {
  const roles = new Map<string, RoleMatchers>();
  return {
    sensitiveWrite: new PatternList(policy.sensitiveWrite),
    sensitiveRead: new PatternList(policy.sensitiveRead),
    role(name) {
      const cached = roles.get(name);
      if (cached !== undefined) return cached;
      const role = policy.roles[name];
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
