/** The built-in packs, in evaluation order, and lookups by name and rule id. */
import type { Verdict } from '../../core/decision.js';
import { containersPack } from './containers.js';
import { credentialsPack } from './credentials.js';
import { databasePack } from './database.js';
import { filesystemPack } from './filesystem.js';
import { gitPack } from './git.js';
import { hookwisePack } from './hookwise.js';
import { infraPack } from './infra.js';
import { pipeToShellPack } from './pipe-to-shell.js';
import { publishPack } from './publish.js';
import { readOnlyPack } from './read-only.js';
import { workflowPack } from './workflow.js';
import { PACK_NAMES, packRuleId, type Pack, type PackName, type PackRule } from './types.js';

export { PACK_NAMES, packRuleId, type Pack, type PackEnv, type PackName } from './types.js';
export { DEFAULT_PROTECTED_BRANCHES, branchGlobMatches } from './git.js';

const BY_NAME: Readonly<Record<PackName, Pack>> = {
  filesystem: filesystemPack,
  git: gitPack,
  database: databasePack,
  infra: infraPack,
  publish: publishPack,
  containers: containersPack,
  credentials: credentialsPack,
  'pipe-to-shell': pipeToShellPack,
  hookwise: hookwisePack,
  'read-only': readOnlyPack,
  workflow: workflowPack,
};

/** Every pack, in PACK_NAMES order. */
export const PACKS: readonly Pack[] = PACK_NAMES.map((name) => BY_NAME[name]);

export function packNamed(name: PackName): Pack {
  return BY_NAME[name];
}

export interface PackRuleInfo {
  /** `pack:git:reset-hard` */
  id: string;
  pack: Pack;
  rule: string;
  spec: PackRule;
}

const RULES_BY_ID = new Map<string, PackRuleInfo>(
  PACKS.flatMap((pack) =>
    Object.entries(pack.rules).map(
      ([rule, spec]) => [packRuleId(pack.name, rule), { id: packRuleId(pack.name, rule), pack, rule, spec }] as const,
    ),
  ),
);

/** A pack rule by its full id (`pack:git:reset-hard`). */
export function packRule(id: string): PackRuleInfo | undefined {
  return RULES_BY_ID.get(id);
}

export function allPackRuleIds(): string[] {
  return [...RULES_BY_ID.keys()];
}

/** The verdicts a pack can give (guard packs: ask/deny; the allow pack: allow). */
export function packVerdicts(pack: Pack): Set<Verdict> {
  return new Set(Object.values(pack.rules).map((r) => r.verdict));
}
