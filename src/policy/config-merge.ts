/**
 * Merging the scopes, lowest trust first, into the effective config: sensitive paths, the outside-root
 * treatment, registration and audit, confinement, safe tools, categories and roles, rules (rules-config.ts)
 * and each tier's settings (config-settings.ts). A project file may only tighten: what would loosen the gate
 * is dropped with a warning naming the file and field.
 */
import {
  BUILT_IN_ROLES,
  DEFAULT_AUDIT,
  DEFAULT_CATEGORIES,
  DEFAULT_OUTSIDE_ROOT,
  DEFAULT_REGISTRATION,
  DEFAULT_SAFE_TOOLS,
  DEFAULT_SENSITIVE_READ,
  DEFAULT_SENSITIVE_WRITE,
  ROLE_NAME,
  type OutsideRootVerdict,
  type RoleGroup,
} from './defaults.js';
import { toolShape } from '../core/tools.js';
import { DEFAULT_PROTECTED_BRANCHES } from './packs/index.js';
import { defaultRules, mergeRules, type RuleDirs } from './rules-config.js';
import type { Diagnostic } from './schema.js';
import { where, type Source } from './config-schema.js';
import type { EffectiveConfig, PatternSpec, RoleSpec } from './config-types.js';
import { mergeMcpServers, mergeRoleMcp } from './mcp-config.js';
import { DEFAULT_ROLE_MCP } from './mcp-settings.js';
import {
  mergeEmbedding,
  mergeHuman,
  mergeMemory,
  mergeModules,
  mergeNetworkAllow,
  mergeSupervisor,
} from './config-settings.js';

const STRICTNESS: Record<OutsideRootVerdict, number> = { allow: 0, pass: 1, ask: 2, deny: 3 };

export function merge(sources: Source[], diagnostics: Diagnostic[], dirs: RuleDirs): EffectiveConfig {
  const report = (
    severity: Diagnostic['severity'],
    source: Source,
    field: string,
    problem: string,
    suggestion?: string,
  ): void => {
    diagnostics.push({
      severity,
      file: source.label,
      line: source.lines.get(field) ?? 1,
      field,
      problem,
      ...(suggestion === undefined ? {} : { suggestion }),
    });
  };
  const warn = (source: Source, field: string, problem: string, suggestion?: string): void =>
    report('warning', source, field, problem, suggestion);
  const builtIn = (globs: readonly string[]): PatternSpec[] => globs.map((glob) => ({ glob, source: 'built-in' }));
  const fromSource = (source: Source, field: string, globs: string[] | undefined): PatternSpec[] =>
    (globs ?? []).map((glob, i) => ({ glob, source: where(source, `${field}[${i}]`) }));

  // Sensitive paths: defaults ∪ every scope; only the user may exclude defaults.
  let sensitiveWrite = builtIn(DEFAULT_SENSITIVE_WRITE);
  let sensitiveRead = builtIn(DEFAULT_SENSITIVE_READ);
  for (const source of sources) {
    if (source.raw.sensitive_paths_exclude !== undefined) {
      if (!source.trusted) {
        warn(
          source,
          'sensitive_paths_exclude',
          'ignored: a project file cannot remove sensitive paths',
          'set it in ~/.config/hookwise/config.yml',
        );
      } else {
        const drop = new Set(source.raw.sensitive_paths_exclude);
        sensitiveWrite = sensitiveWrite.filter((p) => !drop.has(p.glob));
        sensitiveRead = sensitiveRead.filter((p) => !drop.has(p.glob));
      }
    }
  }
  for (const source of sources) {
    sensitiveWrite.push(...fromSource(source, 'sensitive_paths', source.raw.sensitive_paths));
    sensitiveRead.push(...fromSource(source, 'sensitive_read_paths', source.raw.sensitive_read_paths));
  }

  // Outside-root treatment: the user sets it; a project may only make it stricter.
  const outsideRoot: EffectiveConfig['outsideRoot'] = { ...DEFAULT_OUTSIDE_ROOT, source: 'built-in' };
  for (const source of sources) {
    for (const access of ['write', 'read'] as const) {
      const value = source.raw.outside_root?.[access];
      if (value === undefined) continue;
      if (!source.trusted && STRICTNESS[value] < STRICTNESS[outsideRoot[access]]) {
        warn(
          source,
          `outside_root.${access}`,
          `ignored: "${value}" is looser than "${outsideRoot[access]}" and a project file can only tighten`,
        );
        continue;
      }
      outsideRoot[access] = value;
      outsideRoot.source = where(source, `outside_root.${access}`);
    }
  }

  const registration: EffectiveConfig['registration'] = {
    waitMs: DEFAULT_REGISTRATION.wait_ms,
    pollMs: DEFAULT_REGISTRATION.poll_ms,
  };
  const audit: EffectiveConfig['audit'] = { maxBytes: DEFAULT_AUDIT.max_bytes, keep: DEFAULT_AUDIT.keep };
  for (const source of sources) {
    registration.waitMs = source.raw.registration?.wait_ms ?? registration.waitMs;
    registration.pollMs = source.raw.registration?.poll_ms ?? registration.pollMs;
    audit.maxBytes = source.raw.audit?.max_bytes ?? audit.maxBytes;
    audit.keep = source.raw.audit?.keep ?? audit.keep;
  }
  const memory = mergeMemory(sources, warn);
  const embedding = mergeEmbedding(sources, warn);
  const modules = mergeModules(sources, warn);
  const supervisor = mergeSupervisor(sources, warn);
  const human = mergeHuman(sources, warn);

  // Confined allows turn asks into allows (inside walls): on by default where they work (engine/confine.ts);
  // a project file may turn them off, never on.
  const confine: EffectiveConfig['confine'] = {
    mode: 'auto',
    source: 'built-in',
    network: { allow: [], source: 'built-in' },
  };
  for (const source of sources) {
    const enabled = source.raw.confine?.enabled;
    if (enabled === undefined) continue;
    if (enabled && !source.trusted) {
      warn(
        source,
        'confine.enabled',
        'ignored: a project file cannot turn on confined allows (they allow what would be asked); by default they are on where bubblewrap works and Claude Code’s sandbox is off',
        'set it in ~/.config/hookwise/config.yml',
      );
      continue;
    }
    confine.mode = enabled ? 'on' : 'off';
    confine.source = where(source, 'confine.enabled');
  }
  confine.network = mergeNetworkAllow(sources, diagnostics, warn);

  // Safe tools: only tools without file or shell effects, and only from the user's own file.
  const safeTools = DEFAULT_SAFE_TOOLS.map((name) => ({ name, source: 'built-in' }));
  for (const source of sources) {
    (source.raw.safe_tools ?? []).forEach((name, i) => {
      const field = `safe_tools[${i}]`;
      if (!source.trusted) {
        warn(
          source,
          field,
          `ignored: a project file cannot declare "${name}" safe`,
          'set it in ~/.config/hookwise/config.yml',
        );
      } else if (toolShape(name).action !== 'other') {
        diagnostics.push({
          severity: 'error',
          file: source.label,
          line: source.lines.get(field) ?? 1,
          field,
          problem: `"${name}" reads, writes or runs commands; path policy must judge it, it cannot be declared safe`,
        });
      } else {
        safeTools.push({ name, source: where(source, field) });
      }
    });
  }

  // Categories and roles: built-ins, then the user's, then the project's (field-level override).
  const categories = new Map<string, PatternSpec[]>();
  for (const [name, globs] of Object.entries(DEFAULT_CATEGORIES)) categories.set(name, builtIn(globs));
  for (const source of sources) {
    for (const [name, globs] of Object.entries(source.raw.categories ?? {})) {
      categories.set(name, fromSource(source, `categories.${name}`, globs));
    }
  }

  const roles: Record<string, RoleSpec> = {};
  const expand = (patterns: PatternSpec[], owner: string, field: string, source: Source | undefined): PatternSpec[] => {
    const out: PatternSpec[] = [];
    patterns.forEach((p, i) => {
      const macro = /^\{\{([a-z][a-z0-9_]*)\}\}$/.exec(p.glob);
      if (macro === null) {
        out.push(p);
        return;
      }
      const category = categories.get(macro[1]!);
      if (category === undefined) {
        diagnostics.push({
          severity: 'error',
          file: source?.label ?? 'built-in',
          line: source?.lines.get(`${field}[${i}]`) ?? 1,
          field: `${field}[${i}]`,
          problem: `role "${owner}" uses unknown category {{${macro[1]}}}`,
          suggestion: `known categories: ${[...categories.keys()].join(', ')}`,
        });
        return;
      }
      out.push(...category.map((c) => ({ glob: c.glob, source: c.source === 'built-in' ? p.source : c.source })));
    });
    return out;
  };

  type Lists = { allowWrite: PatternSpec[]; denyWrite: PatternSpec[]; allowRead: PatternSpec[] };
  const unexpanded = new Map<
    string,
    { spec: Omit<RoleSpec, keyof Lists>; lists: Lists; origin: Record<keyof Lists, Source | undefined> }
  >();
  for (const [name, role] of Object.entries(BUILT_IN_ROLES)) {
    unexpanded.set(name, {
      spec: { name, group: role.group, description: role.description, source: 'built-in' },
      lists: {
        allowWrite: builtIn(role.allow_write),
        denyWrite: builtIn(role.deny_write),
        allowRead: builtIn(role.allow_read),
      },
      origin: { allowWrite: undefined, denyWrite: undefined, allowRead: undefined },
    });
  }
  for (const source of sources) {
    for (const [name, raw] of Object.entries(source.raw.roles ?? {})) {
      const base = `roles.${name}`;
      if (!ROLE_NAME.test(name)) {
        warn(
          source,
          base,
          `ignored: "${name.slice(0, 40)}" is not a role name (a lower-case word: letters, digits, - and _, starting with a letter)`,
        );
        continue;
      }
      const existing = unexpanded.get(name) ?? {
        spec: { name, group: 'custom' as RoleGroup, description: '', source: where(source, base) },
        lists: { allowWrite: [], denyWrite: [], allowRead: [{ glob: '**', source: 'built-in' }] },
        origin: { allowWrite: undefined, denyWrite: undefined, allowRead: undefined },
      };
      if (raw.name !== undefined && raw.name !== name) {
        warn(source, `${base}.name`, `"name: ${raw.name}" differs from the key "${name}"; the key is the role's name`);
      }
      existing.spec = {
        ...existing.spec,
        description: raw.description ?? existing.spec.description,
        group: raw.group ?? existing.spec.group,
        source: where(source, base),
      };
      if (raw.mcp !== undefined)
        existing.spec.mcp = mergeRoleMcp(existing.spec.mcp ?? DEFAULT_ROLE_MCP, raw.mcp, source, base, report);
      const fields = [
        ['allow_write', 'allowWrite'],
        ['deny_write', 'denyWrite'],
        ['allow_read', 'allowRead'],
      ] as const;
      for (const [yamlKey, key] of fields) {
        const globs = raw.paths?.[yamlKey];
        if (globs === undefined) continue;
        existing.lists[key] = fromSource(source, `${base}.paths.${yamlKey}`, globs);
        existing.origin[key] = source;
      }
      unexpanded.set(name, existing);
    }
  }
  for (const [name, role] of unexpanded) {
    roles[name] = {
      ...role.spec,
      allowWrite: expand(role.lists.allowWrite, name, `roles.${name}.paths.allow_write`, role.origin.allowWrite),
      denyWrite: expand(role.lists.denyWrite, name, `roles.${name}.paths.deny_write`, role.origin.denyWrite),
      allowRead: expand(role.lists.allowRead, name, `roles.${name}.paths.allow_read`, role.origin.allowRead),
    };
  }

  // Ordered rules and packs, with the project-can-only-tighten checks (rules-config.ts).
  const rules = mergeRules(sources, diagnostics, dirs, defaultRules(DEFAULT_PROTECTED_BRANCHES));
  // MCP servers mapped to catalogue entries (mcp-config.ts).
  const mcp = mergeMcpServers(sources, report);

  return {
    roles,
    sensitiveWrite,
    sensitiveRead,
    outsideRoot,
    registration,
    safeTools,
    confine,
    audit,
    memory,
    embedding,
    modules,
    supervisor,
    human,
    rules,
    mcp,
  };
}
