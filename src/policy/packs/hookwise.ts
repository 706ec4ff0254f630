/**
 * hookwise itself: an agent that runs a hookwise command which widens or changes the gate — disable it,
 * register or switch the session to another role, add an allow override, forget decisions, rebuild or
 * reinstall it, stop its daemon — could lift every other check with one call. A human confirms each
 * (ask), whichever role the session has. Commands that only look (status, explain, stats, validate,
 * --version …) are left to the other tiers.
 */
import type { Segment } from '../../shell/types.js';
import { definePack, type PackFinding } from './types.js';

const RULES = {
  'self-change': {
    verdict: 'ask',
    message:
      'changes hookwise itself (its session role, overrides, memory, installation or daemon, or answers its queue): a human confirms what an agent does to its own gate.',
  },
} as const;
type RuleId = keyof typeof RULES;

/** Subcommands that only read or report. */
const LOOKS = new Set([
  'status',
  'stats',
  'monitor',
  'explain',
  'doctor',
  'validate',
  'demo',
  'sanitize',
  'scan',
  'bench',
  'check',
  'session-check',
  'help',
  '--version',
  '-V',
  '--help',
  '-h',
]);
const SCRIPT = /(?:^|\/)hookwise(?:\.c?js)?$|(?:^|\/)src\/cli\/main\.ts$/;

/** The hookwise arguments of a segment that runs hookwise (directly, through npx/pnpm dlx, or node <bin>). */
export function hookwiseArgs(segment: Segment): string[] | undefined {
  const argv = segment.argv;
  if (segment.name === 'hookwise' || SCRIPT.test(argv[0] ?? '')) return argv.slice(1);
  if (segment.name === 'npx' || segment.name === 'pnpx' || segment.name === 'bunx') {
    const at = argv.findIndex((w, i) => i > 0 && !w.startsWith('-'));
    return at !== -1 && /^hookwise(?:@.*)?$/.test(argv[at]!) ? argv.slice(at + 1) : undefined;
  }
  if (['node', 'tsx', 'bun', 'deno'].includes(segment.name)) {
    const at = argv.findIndex((w, i) => i > 0 && !w.startsWith('-'));
    return at !== -1 && SCRIPT.test(argv[at]!) ? argv.slice(at + 1) : undefined;
  }
  return undefined;
}

function classifyHookwise(segment: Segment): PackFinding<RuleId> | undefined {
  const args = hookwiseArgs(segment);
  if (args === undefined) return undefined;
  const words = args.filter(
    (w) => !w.startsWith('-') || w === '--version' || w === '-V' || w === '--help' || w === '-h',
  );
  const [sub, action] = words;
  if (sub === undefined) return undefined;
  if (LOOKS.has(sub)) return undefined;
  if (sub === 'daemon' && action === 'status') return undefined;
  // Module state: looking is free; turning safemode on/off or resetting the breaker is the human's (issue 16).
  if ((sub === 'safemode' || sub === 'breaker') && action === 'status') return undefined;
  if (sub === 'rules' && (action === 'list' || action === 'show')) return undefined;
  // Listing the human queue only looks; its page's address carries the daemon's token. Answering it (approve,
  // deny) is the human's: an agent must not approve its own request.
  if (sub === 'queue' && !args.some((a) => a === '--web' || a.startsWith('--web='))) return undefined;
  return { rule: 'self-change', detail: `hookwise ${sub}${action === undefined ? '' : ` ${action}`}` };
}

export const hookwisePack = definePack<RuleId>({
  name: 'hookwise',
  kind: 'guard',
  description:
    'hookwise commands that change the gate itself (disable, register/switch, override, invalidate, install, daemon stop, safemode, breaker reset, approve/deny a queued call, the queue page address) ask',
  commands: ['hookwise', 'npx', 'pnpx', 'bunx', 'node', 'tsx', 'bun', 'deno'],
  rules: RULES,
  classify: classifyHookwise,
});
