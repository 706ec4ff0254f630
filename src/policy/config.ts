/**
 * Loading config is total: read every scope's file, validate it against one schema, merge, and return the
 * effective config plus typed diagnostics. Nothing here throws at the user; callers decide what an error
 * means (check fails closed, `status` prints).
 *
 * Scopes, lowest trust first: built-in defaults, the project's committed .hookwise/ files, the user's
 * ~/.config/hookwise/config.yml. Roles and categories are the project's to define (that is what they are
 * for); settings that would loosen the gate (dropping a sensitive path, declaring a tool safe, allowing
 * writes outside the root) are honoured only from the user's file — a cloned repo cannot weaken them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import type { ConfigFiles } from './files.js';
import type { ModelChoice } from '../embed/embedder.js';
import {
  BUILT_IN_ROLES,
  DEFAULT_AUDIT,
  DEFAULT_EMBEDDING,
  DEFAULT_MEMORY,
  LEARN_SCOPES,
  type LearnScope,
  DEFAULT_CATEGORIES,
  DEFAULT_OUTSIDE_ROOT,
  DEFAULT_REGISTRATION,
  DEFAULT_SAFE_TOOLS,
  DEFAULT_SENSITIVE_READ,
  DEFAULT_SENSITIVE_WRITE,
  DEFAULT_HUMAN,
  HUMAN_CHANNELS,
  MAX_HUMAN_TIMEOUT_MS,
  type HumanChannel,
  OUTSIDE_ROOT_VERDICTS,
  ROLE_GROUPS,
  ROLE_NAME,
  type OutsideRootVerdict,
  type RoleGroup,
} from './defaults.js';
import { toolShape } from '../core/tools.js';
import { covers, parseAllowEntry, type AllowEntry } from '../confine/allowlist.js';
import { DEFAULT_PROTECTED_BRANCHES } from './packs/index.js';
import {
  defaultRules,
  mergeRules,
  RULE_FIELDS,
  type EffectiveRules,
  type RawRulesConfig,
  type RuleDirs,
} from './rules-config.js';
import { parseDuration, parseYaml, type Diagnostic, type Parsed, type Schema } from './schema.js';
import { SUPERVISOR_BACKENDS, type SupervisorBackendName } from './defaults.js';

// ── schemas ──────────────────────────────────────────────────────────────────────────────────────────

const GLOBS: Schema = { type: 'list', of: { type: 'string', nonEmpty: true } };

const POLICY_FIELDS: Record<string, Schema> = {
  version: { type: 'number', integer: true, min: 1, max: 1 },
  sensitive_paths: GLOBS,
  sensitive_read_paths: GLOBS,
  sensitive_paths_exclude: GLOBS,
  outside_root: {
    type: 'object',
    fields: {
      write: { type: 'enum', values: OUTSIDE_ROOT_VERDICTS },
      read: { type: 'enum', values: OUTSIDE_ROOT_VERDICTS },
    },
  },
  registration: {
    type: 'object',
    fields: {
      wait_ms: { type: 'number', integer: true, min: 0, max: 600_000 },
      poll_ms: { type: 'number', integer: true, min: 10, max: 10_000 },
    },
  },
  safe_tools: { type: 'list', of: { type: 'string', nonEmpty: true } },
  confine: {
    type: 'object',
    fields: {
      enabled: { type: 'boolean' },
      // Entries are checked in merge (confine/allowlist.ts), with file, line and the entry's index.
      network: { type: 'object', fields: { allow: { type: 'list', of: { type: 'string', nonEmpty: true } } } },
    },
  },
  audit: {
    type: 'object',
    fields: {
      max_bytes: { type: 'number', integer: true, min: 4096 },
      keep: { type: 'number', integer: true, min: 0, max: 50 },
    },
  },
  memory: {
    type: 'object',
    fields: {
      learn: { type: 'boolean' },
      learn_scope: { type: 'enum', values: LEARN_SCOPES },
      jaccard_threshold: { type: 'number', min: 0.5, max: 1 },
    },
  },
  // Tier 2b (issue 14); merged in mergeEmbedding.
  embedding: {
    type: 'object',
    fields: {
      enabled: { type: 'boolean' },
      model: { type: 'string', nonEmpty: true },
      threshold: { type: 'number', min: 0.5, max: 1 },
    },
  },
  // Where asks go (issue 15, tier 4); merged in mergeHuman.
  human: {
    type: 'object',
    fields: {
      channel: { type: 'enum', values: HUMAN_CHANNELS },
      timeout: { type: 'duration', minMs: 1000, maxMs: MAX_HUMAN_TIMEOUT_MS },
    },
  },
  // Stateful policy modules (issue 16); merged in mergeModules.
  modules: {
    type: 'object',
    fields: {
      safemode: { type: 'object', fields: {} },
      hierarchy: { type: 'object', fields: {} },
      delegation: {
        type: 'object',
        fields: {
          warn_at: { type: 'number', integer: true, min: 1, max: 100 },
          deny_at: { type: 'number', integer: true, min: 1, max: 100 },
          window: { type: 'string', nonEmpty: true },
        },
      },
      circuit_breaker: { type: 'object', fields: { threshold: { type: 'number', integer: true, min: 1, max: 100 } } },
    },
  },
  // Tier 3 (issue 15); merged in mergeSupervisor.
  supervisor: {
    type: 'object',
    fields: {
      backend: { type: 'enum', values: SUPERVISOR_BACKENDS },
      model: { type: 'string', nonEmpty: true },
      confidence: { type: 'number', min: 0, max: 1 },
      // Well below the thin client's wait for the daemon's answer (daemon/client.ts): a longer review would be run twice.
      timeout: { type: 'number', min: 0.1, max: 100 },
      max_tokens: { type: 'number', integer: true, min: 64, max: 4096 },
      stream: { type: 'boolean' },
    },
  },
  // rules, bash_rules, packs, pack_rules, protected_branches: see rules-config.ts
  ...RULE_FIELDS,
};

const ROLE_SCHEMA: Schema = {
  type: 'object',
  fields: {
    name: { type: 'string', nonEmpty: true },
    description: { type: 'string' },
    group: { type: 'enum', values: ROLE_GROUPS },
    paths: { type: 'object', fields: { allow_write: GLOBS, deny_write: GLOBS, allow_read: GLOBS } },
  },
};

const NAME = /^[a-z][a-z0-9_-]*$/;
const ROLES_FIELDS: Record<string, Schema> = {
  version: { type: 'number', integer: true, min: 1, max: 1 },
  categories: {
    type: 'map',
    of: GLOBS,
    keyPattern: /^[a-z][a-z0-9_]*$/,
    keyHint: 'category names are lower_snake_case',
  },
  roles: {
    type: 'map',
    of: ROLE_SCHEMA,
    keyPattern: NAME,
    keyHint: 'role names are lower-case letters, digits, - and _',
  },
};

export const POLICY_SCHEMA: Schema = { type: 'object', fields: POLICY_FIELDS };
export const ROLES_SCHEMA: Schema = { type: 'object', fields: ROLES_FIELDS };
export const USER_CONFIG_SCHEMA: Schema = { type: 'object', fields: { ...POLICY_FIELDS, ...ROLES_FIELDS } };

// ── the effective config (plain JSON: it is cached compiled, see compile.ts) ─────────────────────────

export interface PatternSpec {
  glob: string;
  /** `built-in`, or `file:line`. */
  source: string;
}

export interface RoleSpec {
  name: string;
  group: RoleGroup;
  description: string;
  allowWrite: PatternSpec[];
  denyWrite: PatternSpec[];
  allowRead: PatternSpec[];
  source: string;
}

export interface EffectiveConfig {
  roles: Record<string, RoleSpec>;
  sensitiveWrite: PatternSpec[];
  sensitiveRead: PatternSpec[];
  outsideRoot: { write: OutsideRootVerdict; read: OutsideRootVerdict; source: string };
  registration: { waitMs: number; pollMs: number };
  safeTools: { name: string; source: string }[];
  /**
   * Confined allows (issue 19): on only where the user's own file turns them on. `network.allow`: the hosts a
   * confined command may reach through the daemon's filtering proxy — set by the user's file, narrowed (never
   * widened) by a project's.
   */
  confine: { enabled: boolean; source: string; network: { allow: AllowEntry[]; source: string } };
  audit: { maxBytes: number; keep: number };
  memory: MemorySettings;
  embedding: EmbeddingSettings;
  modules: ModuleSettings;
  supervisor: SupervisorSettings;
  human: HumanSettings;
  /** Ordered tool and bash rules, pack switches and overrides, protected branches (rules-config.ts). */
  rules: EffectiveRules;
}

export interface MemorySettings {
  learn: boolean;
  learnScope: LearnScope;
  jaccardThreshold: number;
  source: string;
}

/**
 * Tier 2b (issue 14): similarity by embedding, served by the daemon's worker pool. `model` is `builtin` (the
 * model hookwise ships) or a local Hugging Face model directory; a model is code the daemon loads, so only the
 * user's (or org's) file chooses one. A project file may only tighten: switch the tier off, raise the threshold.
 */
export interface EmbeddingSettings {
  enabled: boolean;
  model: ModelChoice;
  /** The cosine similarity at or above which the nearest remembered call decides. */
  threshold: number;
  source: string;
}

/**
 * Stateful policy modules (issue 16). Both off by default; any scope may turn one on, and a later scope may
 * only tighten (a lower breaker threshold), never turn one off: a cloned repo that enables safemode cannot be
 * undone by another file, and a project cannot loosen the user's breaker.
 */
export interface ModuleSettings {
  safemode: { enabled: boolean; source: string };
  circuitBreaker: { enabled: boolean; threshold: number; source: string };
  /** A conductor (role group `orchestration`) may edit only its allow-list: implementation is delegated. */
  hierarchy: { enabled: boolean; source: string };
  /** A conductor's work-tool calls in a sliding window: a reminder from warnAt, denied from denyAt until it delegates. */
  delegation: { enabled: boolean; warnAt: number; denyAt: number; windowMs: number; source: string };
}

export const DEFAULT_BREAKER_THRESHOLD = 3;
export const DEFAULT_DELEGATION = { warnAt: 3, denyAt: 5, windowMs: 10 * 60_000 };

/** Durations (`90s`, `10m`, `1h`, or seconds): one parser for the schema's duration fields and the delegation window. */
export { parseDuration } from './schema.js';

/**
 * Tier 3, the supervisor (issue 15). Off by default. Only the user's own file turns it on and chooses how
 * (backend, model, token bound, streaming): it spends the user's API key (or the lead session's attention)
 * and sends sanitized calls out of the machine, which a cloned repository must not decide for them. A
 * project file may only tighten: turn it off, raise the confidence it needs to decide, shorten its timeout.
 */
export interface SupervisorSettings {
  backend: SupervisorBackendName;
  model: string;
  /** An answer below this confidence does not decide: it passes on to a human, as a recommendation. */
  confidence: number;
  timeoutMs: number;
  maxTokens: number;
  /** Ask the API for a streamed (SSE) response instead of one JSON body. */
  stream: boolean;
  source: string;
}

export const DEFAULT_SUPERVISOR = {
  backend: 'off',
  model: 'claude-haiku-4-5',
  confidence: 0.8,
  timeoutMs: 20_000,
  maxTokens: 512,
  stream: false,
} as const;

/**
 * Where an ask goes (tier 4, src/queue/). Any scope may switch to the queue or shorten the timeout; a later,
 * lower-trust scope may not switch a queue back to the host's prompt (where a headless agent's ask is denied
 * unseen) nor lengthen the wait.
 */
export interface HumanSettings {
  channel: HumanChannel;
  timeoutMs: number;
  source: string;
}

export interface LoadedConfig {
  config: EffectiveConfig;
  diagnostics: Diagnostic[];
}

interface RawRole {
  name?: string;
  description?: string;
  group?: RoleGroup;
  paths?: { allow_write?: string[]; deny_write?: string[]; allow_read?: string[] };
}
interface RawConfig extends RawRulesConfig {
  sensitive_paths?: string[];
  sensitive_read_paths?: string[];
  sensitive_paths_exclude?: string[];
  outside_root?: { write?: OutsideRootVerdict; read?: OutsideRootVerdict };
  registration?: { wait_ms?: number; poll_ms?: number };
  safe_tools?: string[];
  confine?: { enabled?: boolean; network?: { allow?: string[] } };
  audit?: { max_bytes?: number; keep?: number };
  memory?: { learn?: boolean; learn_scope?: LearnScope; jaccard_threshold?: number };
  embedding?: { enabled?: boolean; model?: string; threshold?: number };
  modules?: {
    safemode?: Record<string, never>;
    circuit_breaker?: { threshold?: number };
    hierarchy?: Record<string, never>;
    delegation?: { warn_at?: number; deny_at?: number; window?: string };
  };
  supervisor?: {
    backend?: SupervisorBackendName;
    model?: string;
    confidence?: number;
    timeout?: number;
    max_tokens?: number;
    stream?: boolean;
  };
  human?: { channel?: HumanChannel; timeout?: number };
  categories?: Record<string, string[]>;
  roles?: Record<string, RawRole>;
}

interface Source {
  label: string;
  raw: RawConfig;
  lines: Map<string, number>;
  trusted: boolean;
}

const STRICTNESS: Record<OutsideRootVerdict, number> = { allow: 0, pass: 1, ask: 2, deny: 3 };

export function loadConfig(projectRoot: string, files: ConfigFiles): LoadedConfig {
  const diagnostics: Diagnostic[] = [];
  const label = (file: string): string => (file.startsWith(projectRoot + '/') ? relative(projectRoot, file) : file);
  const read = (file: string, schema: Schema, trusted: boolean): Source | undefined => {
    if (!existsSync(file)) return undefined;
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      diagnostics.push({
        severity: 'error',
        file: label(file),
        line: 1,
        field: '',
        problem: `cannot read: ${(error as Error).message}`,
      });
      return undefined;
    }
    const parsed: Parsed = parseYaml(text, label(file), schema, diagnostics);
    if (parsed.value === undefined) return undefined;
    return { label: label(file), raw: parsed.value as RawConfig, lines: parsed.lines, trusted };
  };
  // Order = merge order: later overrides earlier for roles/categories.
  const sources = [
    read(files.user, USER_CONFIG_SCHEMA, true),
    read(files.policy, POLICY_SCHEMA, false),
    read(files.roles, ROLES_SCHEMA, false),
  ].filter((s): s is Source => s !== undefined);
  const config = merge(sources, diagnostics, { projectRoot, userConfigDir: dirname(files.user) });
  return { config, diagnostics };
}

function where(source: Source, field: string): string {
  return `${source.label}:${source.lines.get(field) ?? 1}`;
}

function merge(sources: Source[], diagnostics: Diagnostic[], dirs: RuleDirs): EffectiveConfig {
  const warn = (source: Source, field: string, problem: string, suggestion?: string): void => {
    diagnostics.push({
      severity: 'warning',
      file: source.label,
      line: source.lines.get(field) ?? 1,
      field,
      problem,
      ...(suggestion === undefined ? {} : { suggestion }),
    });
  };
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

  // Confined allows turn asks into allows (inside walls): a project file may turn them off, never on.
  const confine: EffectiveConfig['confine'] = {
    enabled: false,
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
        'ignored: a project file cannot turn on confined allows (they allow what would be asked)',
        'set it in ~/.config/hookwise/config.yml',
      );
      continue;
    }
    confine.enabled = enabled;
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
  };
}

/** Any scope may turn the window on; after that a scope may only tighten it (warn and deny sooner, a longer window). */
function mergeDelegation(
  modules: ModuleSettings,
  raw: NonNullable<NonNullable<RawConfig['modules']>['delegation']>,
  source: Source,
  warn: (source: Source, field: string, message: string, hint?: string) => void,
): void {
  const was = modules.delegation;
  const base = was.enabled ? was : { ...DEFAULT_DELEGATION };
  const windowMs = raw.window === undefined ? base.windowMs : parseDuration(raw.window);
  if (windowMs === undefined) {
    warn(
      source,
      'modules.delegation.window',
      `ignored: "${String(raw.window)}" is not a duration`,
      'write e.g. 10m, 90s or 1h',
    );
    return;
  }
  const next = {
    enabled: true,
    warnAt: raw.warn_at ?? base.warnAt,
    denyAt: raw.deny_at ?? base.denyAt,
    windowMs,
    source: where(source, 'modules.delegation'),
  };
  if (next.warnAt > next.denyAt) {
    warn(source, 'modules.delegation', `ignored: warn_at (${next.warnAt}) is after deny_at (${next.denyAt})`);
    return;
  }
  if (was.enabled && (next.warnAt > was.warnAt || next.denyAt > was.denyAt || next.windowMs < was.windowMs)) {
    warn(
      source,
      'modules.delegation',
      `ignored: looser than the window set in ${was.source} (warn at ${was.warnAt}, deny at ${was.denyAt}, ${was.windowMs / 1000} s), and a later scope can only tighten`,
    );
    return;
  }
  modules.delegation = next;
}

/** The supervisor's settings: the user's file sets them; a project's may only tighten (see SupervisorSettings). */
function mergeSupervisor(
  sources: readonly Source[],
  warn: (source: Source, field: string, message: string, hint?: string) => void,
): SupervisorSettings {
  const settings: SupervisorSettings = { ...DEFAULT_SUPERVISOR, source: 'built-in' };
  const personal = 'set it in ~/.config/hookwise/config.yml';
  for (const source of sources) {
    const raw = source.raw.supervisor;
    if (raw === undefined) continue;
    const field = (name: string): string => `supervisor.${name}`;
    if (raw.backend !== undefined) {
      if (!source.trusted && raw.backend !== 'off')
        warn(
          source,
          field('backend'),
          `ignored: a project file cannot turn the supervisor on ("${raw.backend}": it would spend your API key or your lead session's attention, and send calls out of this machine)`,
          personal,
        );
      else settings.backend = raw.backend;
    }
    for (const [name, value, apply] of [
      ['model', raw.model, (v: string) => (settings.model = v)],
      ['max_tokens', raw.max_tokens, (v: number) => (settings.maxTokens = v)],
      ['stream', raw.stream, (v: boolean) => (settings.stream = v)],
    ] as const) {
      if (value === undefined) continue;
      if (!source.trusted)
        warn(source, field(name), 'ignored: which model answers, and how, is personal (it is your key)', personal);
      else (apply as (v: typeof value) => void)(value);
    }
    if (raw.confidence !== undefined) {
      if (!source.trusted && raw.confidence < settings.confidence)
        warn(
          source,
          field('confidence'),
          `ignored: ${raw.confidence} is looser than ${settings.confidence} and a project file can only tighten`,
        );
      else settings.confidence = raw.confidence;
    }
    if (raw.timeout !== undefined) {
      const ms = Math.round(raw.timeout * 1000);
      if (!source.trusted && ms > settings.timeoutMs)
        warn(
          source,
          field('timeout'),
          `ignored: ${raw.timeout} s is longer than ${settings.timeoutMs / 1000} s and a project file can only shorten it`,
        );
      else settings.timeoutMs = ms;
    }
    settings.source = where(source, 'supervisor');
  }
  return settings;
}

function mergeModules(
  sources: readonly Source[],
  warn: (source: Source, field: string, message: string, hint?: string) => void,
): ModuleSettings {
  const modules: ModuleSettings = {
    safemode: { enabled: false, source: 'built-in' },
    circuitBreaker: { enabled: false, threshold: DEFAULT_BREAKER_THRESHOLD, source: 'built-in' },
    hierarchy: { enabled: false, source: 'built-in' },
    delegation: { enabled: false, ...DEFAULT_DELEGATION, source: 'built-in' },
  };
  for (const source of sources) {
    const raw = source.raw.modules;
    if (raw === undefined) continue;
    if (raw.safemode !== undefined) modules.safemode = { enabled: true, source: where(source, 'modules.safemode') };
    if (raw.hierarchy !== undefined) modules.hierarchy = { enabled: true, source: where(source, 'modules.hierarchy') };
    if (raw.delegation !== undefined) mergeDelegation(modules, raw.delegation, source, warn);
    const breaker = raw.circuit_breaker;
    if (breaker === undefined) continue;
    const threshold =
      breaker.threshold ??
      (modules.circuitBreaker.enabled ? modules.circuitBreaker.threshold : DEFAULT_BREAKER_THRESHOLD);
    if (modules.circuitBreaker.enabled && threshold > modules.circuitBreaker.threshold) {
      // Only tightening after the first scope that turned it on: a higher threshold trips later.
      warn(
        source,
        'modules.circuit_breaker.threshold',
        `ignored: ${threshold} is looser than ${modules.circuitBreaker.threshold} (set in ${modules.circuitBreaker.source}) and a later scope can only tighten`,
      );
      continue;
    }
    modules.circuitBreaker = {
      enabled: true,
      threshold,
      source: where(
        source,
        breaker.threshold === undefined ? 'modules.circuit_breaker' : 'modules.circuit_breaker.threshold',
      ),
    };
  }
  return modules;
}

/**
 * The human channel. The user's file sets it; a project's may only tighten: switch to the queue (a waiting call
 * that is denied on timeout, instead of an ask a headless host denies unseen), or shorten the timeout.
 */
function mergeHuman(
  sources: readonly Source[],
  warn: (source: Source, field: string, message: string, hint?: string) => void,
): HumanSettings {
  const human: HumanSettings = { ...DEFAULT_HUMAN, source: 'built-in' };
  for (const source of sources) {
    const raw = source.raw.human;
    if (raw === undefined) continue;
    if (raw.channel !== undefined) {
      if (!source.trusted && raw.channel === 'host-prompt' && human.channel === 'queue') {
        warn(
          source,
          'human.channel',
          `ignored: a project file cannot switch the queue (set in ${human.source}) back to the host's prompt`,
        );
      } else {
        human.channel = raw.channel;
        human.source = where(source, 'human.channel');
      }
    }
    if (raw.timeout !== undefined) {
      if (!source.trusted && raw.timeout > human.timeoutMs) {
        warn(
          source,
          'human.timeout',
          `ignored: ${raw.timeout / 1000}s is longer than ${human.timeoutMs / 1000}s and a project file can only shorten it`,
        );
      } else human.timeoutMs = raw.timeout;
    }
  }
  return human;
}

/**
 * The network allowlist of confined commands. The user's file sets it; a project's may only narrow it: keep
 * entries the user's list covers (the same, or more specific), drop the rest with a warning. An entry that is
 * not an entry (a URL, a path, `*.com`) is an error naming file, line and index, and is left out.
 */
function mergeNetworkAllow(
  sources: readonly Source[],
  diagnostics: Diagnostic[],
  warn: (source: Source, field: string, message: string, hint?: string) => void,
): { allow: AllowEntry[]; source: string } {
  let current: { allow: AllowEntry[]; source: string } = { allow: [], source: 'built-in' };
  for (const source of sources) {
    const raw = source.raw.confine?.network?.allow;
    if (raw === undefined) continue;
    const entries: AllowEntry[] = [];
    raw.forEach((text, i) => {
      const field = `confine.network.allow[${i}]`;
      const parsed = parseAllowEntry(text);
      if (!parsed.ok) {
        diagnostics.push({
          severity: 'error',
          file: source.label,
          line: source.lines.get(field) ?? source.lines.get('confine.network.allow') ?? 1,
          field,
          problem: `not a network allowlist entry: ${parsed.problem}`,
          suggestion: 'a host (example.com), *.example.com, host:port, or an IP literal',
        });
        return;
      }
      if (!source.trusted && !current.allow.some((wide) => covers(wide, parsed.entry))) {
        warn(
          source,
          field,
          `ignored: "${parsed.entry.text}" is not on the user's network allowlist and a project file can only narrow it`,
          'add it in ~/.config/hookwise/config.yml',
        );
        return;
      }
      entries.push(parsed.entry);
    });
    current = { allow: entries, source: where(source, 'confine.network.allow') };
  }
  return current;
}

function mergeEmbedding(
  sources: readonly Source[],
  warn: (source: Source, field: string, message: string, hint?: string) => void,
): EmbeddingSettings {
  const out: EmbeddingSettings = {
    enabled: DEFAULT_EMBEDDING.enabled,
    model: { kind: 'builtin' },
    threshold: DEFAULT_EMBEDDING.threshold,
    source: 'built-in',
  };
  for (const source of sources) {
    const raw = source.raw.embedding;
    if (raw === undefined) continue;
    if (raw.enabled !== undefined) {
      if (!source.trusted && raw.enabled && !out.enabled)
        warn(source, 'embedding.enabled', 'ignored: a project file cannot switch similarity by embedding back on');
      else out.enabled = raw.enabled;
    }
    if (raw.model !== undefined) {
      if (!source.trusted)
        warn(
          source,
          'embedding.model',
          'ignored: a model is code the daemon loads, so only your own file chooses it',
          'set it in ~/.config/hookwise/config.yml',
        );
      // `~/…` is resolved against the home directory where the model is loaded (embed/model.ts).
      else out.model = raw.model === 'builtin' ? { kind: 'builtin' } : { kind: 'huggingface', dir: raw.model };
    }
    if (raw.threshold !== undefined) {
      if (!source.trusted && raw.threshold < out.threshold)
        warn(
          source,
          'embedding.threshold',
          `ignored: ${raw.threshold} is looser than ${out.threshold} and a project file can only tighten`,
        );
      else out.threshold = raw.threshold;
    }
    out.source = source.label;
  }
  return out;
}

/**
 * Memory settings. A project file may only tighten: switch learning off, raise the Jaccard threshold.
 * Where learned approvals go (`learn_scope`) is personal, so only the user's file sets it.
 */
function mergeMemory(
  sources: readonly Source[],
  warn: (source: Source, field: string, message: string, hint?: string) => void,
): MemorySettings {
  const memory: MemorySettings = {
    learn: DEFAULT_MEMORY.learn,
    learnScope: DEFAULT_MEMORY.learn_scope,
    jaccardThreshold: DEFAULT_MEMORY.jaccard_threshold,
    source: 'built-in',
  };
  for (const source of sources) {
    const raw = source.raw.memory;
    if (raw === undefined) continue;
    if (raw.learn !== undefined) {
      if (!source.trusted && raw.learn && !memory.learn)
        warn(source, 'memory.learn', 'ignored: a project file cannot switch learning back on');
      else memory.learn = raw.learn;
    }
    if (raw.learn_scope !== undefined) {
      if (!source.trusted)
        warn(
          source,
          'memory.learn_scope',
          'ignored: where your approvals are remembered is personal',
          'set it in ~/.config/hookwise/config.yml',
        );
      else memory.learnScope = raw.learn_scope;
    }
    if (raw.jaccard_threshold !== undefined) {
      if (!source.trusted && raw.jaccard_threshold < memory.jaccardThreshold) {
        warn(
          source,
          'memory.jaccard_threshold',
          `ignored: ${raw.jaccard_threshold} is looser than ${memory.jaccardThreshold} and a project file can only tighten`,
        );
      } else memory.jaccardThreshold = raw.jaccard_threshold;
    }
    memory.source = source.label;
  }
  return memory;
}
