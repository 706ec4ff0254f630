/**
 * What a built-in pack is: typed rule data (id → verdict + message) and one classifier that looks at a
 * segment's command name and argument structure — never at substrings of the whole command, so
 * `grep "rm -rf" notes.txt` is a grep, not an rm. The classifier names a rule; the rule table says what
 * that means (classify, then decide).
 */
import type { Verdict } from '../../core/decision.js';
import type { CatalogMatch } from '../../catalog/match.js';
import type { Segment } from '../../shell/types.js';
import type { SqlFiles } from '../../sql/files.js';

/** The built-in packs, in evaluation order (a tie between packs keeps the earlier one's provenance). */
export const PACK_NAMES = [
  'filesystem',
  'git',
  'database',
  'infra',
  'publish',
  'containers',
  'credentials',
  'pipe-to-shell',
  'hookwise',
  'read-only',
  'workflow',
] as const;
export type PackName = (typeof PACK_NAMES)[number];

/**
 * `guard` packs only deny or ask: switching one off loosens the gate (user scope only).
 * `allow` packs only allow: switching one off tightens it (any scope may).
 */
export const PACK_KINDS = ['guard', 'allow'] as const;
export type PackKind = (typeof PACK_KINDS)[number];

export interface PackRule {
  verdict: Verdict;
  /** What happens, why it matters, and the safer alternative (shown to the agent and the user). */
  message: string;
}

/** What a pack needs to know beyond the segment: plain data, no I/O. */
export interface PackEnv {
  /** The call's working directory (the directory the command starts in). */
  cwd: string;
  projectRoot: string;
  home: string;
  /** protected_branches (simple globs, `*` = any run of characters). */
  isProtectedBranch(branch: string): boolean;
  /** The whole command, for rules that look across a pipeline (`curl … | sh`, `echo … | psql`). */
  segments: readonly Segment[];
  /** This segment's index in `segments`. */
  index: number;
  /** The segments matched against the catalogue at the edge (prepare.ts); absent: matched on demand. */
  catalog?: readonly CatalogMatch[];
  /**
   * Whether this segment runs inside the project, from canonical paths (a symlinked root, `cd <root>/`);
   * absent when no edge worked it out (then the packs compare the working directory as written).
   */
  runsInProject?: boolean;
  /** The SQL files the command's database clients read, read at the edge (shell/sql-files.ts); absent: none read. */
  sqlFiles?: SqlFiles;
}

export interface PackFinding<Id extends string> {
  rule: Id;
  /** What was found (a target path, a branch, a statement), shown after the message. */
  detail?: string;
}

export interface Pack<Id extends string = string> {
  name: PackName;
  kind: PackKind;
  description: string;
  /** Command names the pack inspects (validate uses them to spot project allows a pack overrules). */
  commands: readonly string[];
  rules: Readonly<Record<Id, PackRule>>;
  classify(segment: Segment, env: PackEnv): PackFinding<Id> | undefined;
}

/** Identity, for inference: the rule id union is taken from the rule table's keys. */
export function definePack<Id extends string>(pack: Pack<Id>): Pack<Id> {
  return pack;
}

export function packRuleId(pack: PackName, rule: string): string {
  return `pack:${pack}:${rule}`;
}
