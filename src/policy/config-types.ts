/**
 * The effective config: every scope merged into one plain JSON value (cached compiled, see compile.ts), the
 * settings each tier reads, and their built-in defaults.
 */
import type { ModelChoice } from '../embed/embedder.js';
import type { HumanChannel, LearnScope, OutsideRootVerdict, RoleGroup, SupervisorBackendName } from './defaults.js';
import type { AllowEntry } from '../confine/allowlist.js';

/** How confinement is set: by default (`auto`), or turned on or off by a config file. */
export const CONFINE_MODES = ['auto', 'on', 'off'] as const;
export type ConfineMode = (typeof CONFINE_MODES)[number];
import type { EffectiveRules } from './rules-config.js';
import type { McpSettings, RoleMcp } from './mcp-settings.js';

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
  /** MCP tools the role may use or not, and the SQL it runs without a human (mcp-config.ts); absent = defaults. */
  mcp?: RoleMcp;
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
   * Confined allows (issue 19; on by default since issue 30, item 17): `auto` — nobody set `confine.enabled` —
   * confines where bubblewrap works and Claude Code's own sandbox is off, and otherwise asks as if it were off;
   * `on` — the user's file — confines wherever it can and says why where it cannot; `off` — the user's or a
   * project's file. `network.allow`: the hosts a confined command may reach through the daemon's filtering
   * proxy — set by the user's file, narrowed (never widened) by a project's.
   */
  confine: { mode: ConfineMode; source: string; network: { allow: AllowEntry[]; source: string } };
  audit: { maxBytes: number; keep: number };
  memory: MemorySettings;
  embedding: EmbeddingSettings;
  modules: ModuleSettings;
  supervisor: SupervisorSettings;
  human: HumanSettings;
  /** Ordered tool and bash rules, pack switches and overrides, protected branches (rules-config.ts). */
  rules: EffectiveRules;
  /** Configured MCP servers mapped to catalogue entries (mcp-config.ts). */
  mcp: McpSettings;
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
