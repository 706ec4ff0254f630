/** Effective config → compiled policy (globs → regex sources). Runs only when the policy cache is stale. */
import picomatch from 'picomatch';
import type { CompiledPattern, CompiledPolicy } from './compiled.js';
import type { EffectiveConfig, PatternSpec } from './config.js';
import type { Diagnostic } from './schema.js';

const GLOB_SPECIALS = /[*?[\]{}()!+@\\]/g;

export function compilePattern(spec: PatternSpec, home: string): CompiledPattern {
  let glob = spec.glob;
  // `~/x` means the home directory; escape the home path in case it holds glob characters.
  if (glob === '~' || glob.startsWith('~/')) glob = home.replace(GLOB_SPECIALS, '\\$&') + glob.slice(1);
  if (glob.startsWith('./')) glob = glob.slice(2);
  const absolute = glob.startsWith('/');
  const base = !absolute && !glob.includes('/');
  const re = picomatch.makeRe(glob, { dot: true });
  return { glob: spec.glob, source: spec.source, re: re.source, flags: re.flags, base, absolute };
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
    };
  }
  return {
    roles,
    sensitiveWrite: list(config.sensitiveWrite),
    sensitiveRead: list(config.sensitiveRead),
    outsideRoot: config.outsideRoot,
    registration: config.registration,
    safeTools: config.safeTools,
    audit: config.audit,
    warnings,
  };
}
