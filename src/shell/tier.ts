/**
 * The shell tier: judges a Bash call from its parsed segments (prepared at the edge, see prepare.ts).
 *
 *   - a command hookwise cannot parse → ask (never allow what it does not understand);
 *   - every write target is judged like a Tier 0 path for the session's role (sensitive → ask,
 *     deny_write → deny, allow_write → allow, outside the root → as configured); a write whose target
 *     cannot be known → ask;
 *   - every segment is judged by the bash rules and packs (src/policy/rules.ts);
 *   - per segment the stricter of the two wins. A segment is allowed when the rules allow it and every
 *     write it makes is allowed, or — for plain file commands (cp, mv, mkdir, …) whose only effect is
 *     their write targets — when no rule objects and every write is allowed;
 *   - but path policy never auto-allows a write that loses data: deleting (rm, rmdir, truncate, find
 *     -delete, git clean/checkout/restore/…), moving or copying onto /dev/null, or overwriting a file that
 *     exists. Such a segment passes to the later tiers (a human now; learned decisions later) — it is
 *     risky-but-normal, so it is not an ask that could never be learned;
 *   - across segments the strictest wins; the command is allowed only if every segment is. Anything
 *     left undecided passes to the later tiers (and, in the end, a human).
 */
import type { CascadeContext, SyncTier } from '../core/tier.js';
import { decision, stricter, type Decision } from '../core/decision.js';
import { judgeWrite } from '../policy/path-policy.js';
import { judgeSegments, rulesContextOf } from '../policy/rules.js';
import { segmentLosesData } from './data-loss.js';

/** Commands whose whole effect is on their write targets. */
const FILE_COMMANDS = new Set(['cp', 'mv', 'mkdir', 'touch', 'rm', 'rmdir', 'ln', 'tee', 'truncate', 'install', 'chmod', 'unlink']);

function prefixed(d: Decision, text: string, many: boolean): Decision {
  return many ? { ...d, reason: `in \`${text.length > 80 ? `${text.slice(0, 77)}…` : text}\`: ${d.reason}` } : d;
}

export function judgeShell(ctx: CascadeContext): Decision | undefined {
  const shell = ctx.shell;
  if (ctx.call.action !== 'shell' || shell === undefined) return undefined;
  if (!shell.parse.ok) {
    return decision('ask', 'shell', `hookwise cannot fully understand this command (${shell.parse.reason}), so a human decides`, {
      id: 'shell:unparseable',
      source: 'built-in',
    });
  }
  const segments = shell.parse.segments;
  if (segments.length === 0) return decision('allow', 'shell', 'an empty command runs nothing', { id: 'shell:empty', source: 'built-in' });
  const rules = rulesContextOf(ctx, { projectRoot: ctx.projectRoot, home: ctx.home });
  const many = segments.length > 1;
  let result: Decision | undefined;
  let undecided = false;
  segments.forEach((segment, index) => {
    let writes: Decision | undefined;
    let writesUndecided = false;
    let writeCount = 0;
    const lossy = segmentLosesData(shell, index);
    shell.writes.targets.forEach((target, i) => {
      if (target.segment !== index) return;
      writeCount++;
      const resolved = shell.targets[i];
      const d =
        resolved === null || resolved === undefined
          ? decision('ask', 'shell', `\`${segment.name}\` writes ${target.path}, which is only known when the command runs`, { id: 'shell:dynamic-write-target', source: 'built-in' })
          : judgeWrite(resolved, ctx);
      if (d === undefined) writesUndecided = true;
      writes = stricter(writes, d);
    });
    for (const unknown of shell.writes.unknown) {
      if (unknown.segment !== index) continue;
      writes = stricter(writes, decision('ask', 'shell', `\`${segment.name}\` writes files hookwise cannot determine (${unknown.reason})`, { id: 'shell:unknown-write-target', source: 'built-in' }));
    }
    const byRules = judgeSegments([segment], rules);
    let verdict = stricter(byRules, writes);
    if (verdict?.verdict === 'allow') {
      const writesAllowed = writeCount === 0 || (!writesUndecided && writes?.verdict === 'allow');
      const rulesAllow = byRules?.verdict === 'allow' || (byRules === undefined && writeCount > 0 && FILE_COMMANDS.has(segment.name));
      if (!writesAllowed || !rulesAllow || lossy) verdict = undefined;
    }
    if (verdict === undefined) undecided = true;
    else result = stricter(result, prefixed(verdict, segment.text, many));
  });
  if (undecided && result?.verdict === 'allow') return undefined;
  return result;
}

export const shellTier: SyncTier = { name: 'shell', decide: judgeShell };
