/** Pack test DSL: run one pack over a command's segments and say which rule fired, as `verdict rule`. */
import { expect } from 'vitest';
import { strictness } from '../../src/core/decision.js';
import {
  branchGlobMatches,
  DEFAULT_PROTECTED_BRANCHES,
  type Pack,
  type PackEnv,
} from '../../src/policy/packs/index.js';
import type { Segment } from '../../src/shell/types.js';
import { segs } from './segments.js';

export const HOME = '/home/dev';
export const ROOT = '/home/dev/work/app';

export function packEnv(segments: readonly Segment[], index: number, overrides: Partial<PackEnv> = {}): PackEnv {
  return {
    cwd: ROOT,
    projectRoot: ROOT,
    home: HOME,
    isProtectedBranch: (b) => DEFAULT_PROTECTED_BRANCHES.some((g) => branchGlobMatches(g, b)),
    segments,
    index,
    ...overrides,
  };
}

/**
 * The strictest finding of `pack` over every segment of `command`, as "verdict rule" (e.g.
 * "deny force-push-protected"), or null when the pack has no opinion on any segment.
 */
export function packVerdict(pack: Pack, command: string | Segment[], overrides: Partial<PackEnv> = {}): string | null {
  const segments = typeof command === 'string' ? segs(command) : command;
  let best: { verdict: 'allow' | 'ask' | 'deny'; rule: string } | undefined;
  segments.forEach((segment, index) => {
    const finding = pack.classify(segment, packEnv(segments, index, overrides));
    if (finding === undefined) return;
    const verdict = pack.rules[finding.rule]!.verdict;
    if (best === undefined || strictness(verdict) > strictness(best.verdict)) best = { verdict, rule: finding.rule };
  });
  return best === undefined ? null : `${best.verdict} ${best.rule}`;
}

/** `expectPack(gitPack, 'git push -f origin main', 'deny force-push-protected')` */
export function expectPack(
  pack: Pack,
  command: string | Segment[],
  expected: string | null,
  overrides: Partial<PackEnv> = {},
): void {
  const shown = typeof command === 'string' ? command : command.map((s) => s.text).join(' ⟩ ');
  expect(packVerdict(pack, command, overrides), shown).toBe(expected);
}
