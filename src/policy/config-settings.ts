/**
 * Each tier's settings merged across the scopes (memory, embedding, modules, supervisor, human queue,
 * confinement's network allowlist): any scope may switch a safeguard on, a later or lower-trust one may only
 * tighten it.
 */
import { DEFAULT_EMBEDDING, DEFAULT_MEMORY, DEFAULT_HUMAN } from './defaults.js';
import { covers, parseAllowEntry, type AllowEntry } from '../confine/allowlist.js';
import { parseDuration, type Diagnostic } from './schema.js';
import { where, type RawConfig, type Source } from './config-schema.js';
import {
  DEFAULT_BREAKER_THRESHOLD,
  DEFAULT_DELEGATION,
  DEFAULT_SUPERVISOR,
  type EmbeddingSettings,
  type HumanSettings,
  type MemorySettings,
  type ModuleSettings,
  type SupervisorSettings,
} from './config-types.js';

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
export function mergeSupervisor(
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

export function mergeModules(
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
export function mergeHuman(
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
export function mergeNetworkAllow(
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

export function mergeEmbedding(
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
export function mergeMemory(
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
