/**
 * The config files' schemas (policy.yml, roles.yml, the user's config.yml: one schema language, schema.ts)
 * and the raw shape a file has once validated against them, with where each of its fields was.
 */
import {
  HUMAN_CHANNELS,
  LEARN_SCOPES,
  MAX_HUMAN_TIMEOUT_MS,
  OUTSIDE_ROOT_VERDICTS,
  ROLE_GROUPS,
  SUPERVISOR_BACKENDS,
  type HumanChannel,
  type LearnScope,
  type OutsideRootVerdict,
  type RoleGroup,
  type SupervisorBackendName,
} from './defaults.js';
import { RULE_FIELDS, type RawRulesConfig } from './rules-config.js';
import { MCP_POLICY_SCHEMA, ROLE_MCP_SCHEMA, type RawMcpConfig, type RawRoleMcp } from './mcp-config.js';
import type { Schema } from './schema.js';

// ── schemas ──────────────────────────────────────────────────────────────────────────────────────────────

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
  // MCP servers → catalogue entries (issue 29); merged in mcp-config.ts.
  mcp: MCP_POLICY_SCHEMA,
  ...RULE_FIELDS,
};

const ROLE_SCHEMA: Schema = {
  type: 'object',
  fields: {
    name: { type: 'string', nonEmpty: true },
    description: { type: 'string' },
    group: { type: 'enum', values: ROLE_GROUPS },
    paths: { type: 'object', fields: { allow_write: GLOBS, deny_write: GLOBS, allow_read: GLOBS } },
    mcp: ROLE_MCP_SCHEMA,
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
/**
 * Where shared state lives (store/settings.ts): only the user's own file may say, never a project's — a
 * cloned repository must not send a team's decisions to a server of its choosing.
 */
const STORE_FIELDS: Record<string, Schema> = {
  store: {
    type: 'object',
    fields: {
      url: { type: 'string', nonEmpty: true },
      team: { type: 'string', nonEmpty: true },
      user: { type: 'string', nonEmpty: true },
    },
  },
};

export const USER_CONFIG_SCHEMA: Schema = {
  type: 'object',
  fields: { ...POLICY_FIELDS, ...ROLES_FIELDS, ...STORE_FIELDS },
};

export interface RawRole {
  name?: string;
  description?: string;
  group?: RoleGroup;
  paths?: { allow_write?: string[]; deny_write?: string[]; allow_read?: string[] };
  mcp?: RawRoleMcp;
}
export interface RawConfig extends RawRulesConfig {
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
  mcp?: RawMcpConfig;
  categories?: Record<string, string[]>;
  roles?: Record<string, RawRole>;
  store?: { url?: string; team?: string; user?: string };
}

export interface Source {
  label: string;
  raw: RawConfig;
  lines: Map<string, number>;
  trusted: boolean;
}

export function where(source: Source, field: string): string {
  return `${source.label}:${source.lines.get(field) ?? 1}`;
}
