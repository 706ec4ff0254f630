/**
 * The shell tier: judges a Bash call from its parsed segments (prepared at the edge, see prepare.ts).
 *
 *   - a command hookwise cannot parse → ask (never allow what it does not understand);
 *   - every write target is judged like a Tier 0 path for the session's role (sensitive → ask,
 *     deny_write → deny, allow_write → allow, outside the root → as configured); a write whose target
 *     cannot be known → ask;
 *   - a read whose file cannot be placed (relative after a `cd` hookwise cannot follow, `< "$F"`) leaves its
 *     segment undecided: no rule or pack allows what it cannot see;
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
import type { SyncTier } from '../core/tier.js';
import type { PolicyContext } from '../policy/context.js';
import type { PreconditionContext } from '../policy/precondition.js';
import { decision, stricter, type Decision } from '../core/decision.js';
import { judgeSensitiveRead, judgeTreeWrite, judgeWrite } from '../policy/path-policy.js';
import { shortText } from '../policy/packs/argv.js';
import { judgeSegmentsDetailed, rulesContextOf } from '../policy/rules.js';
import { segmentLosesData } from './data-loss.js';
import type { PreparedShell, ShellContext } from './prepare.js';
import type { Segment } from './types.js';

/** What the shell tier reads: the call and policy, the prepared analysis, the rules' precondition port. */
export type ShellTierContext = PolicyContext & ShellContext & PreconditionContext;

/** Commands whose whole effect is on their write targets. */
const FILE_COMMANDS = new Set([
  'cp',
  'mv',
  'mkdir',
  'touch',
  'rm',
  'rmdir',
  'ln',
  'tee',
  'truncate',
  'install',
  'chmod',
  'unlink',
]);

/** With several segments, a reason says which one it is about — unless it already starts by quoting it. */
function prefixed(d: Decision, segment: Segment, many: boolean): Decision {
  if (!many) return d;
  const quoted = `\`${shortText(segment)}\``;
  return d.reason.startsWith(quoted) ? d : { ...d, reason: `in ${quoted}: ${d.reason}` };
}

export function judgeShell(ctx: ShellTierContext): Decision | undefined {
  const shell = ctx.shell;
  if (ctx.call.action !== 'shell' || shell === undefined) return undefined;
  if (!shell.parse.ok) {
    return decision(
      'ask',
      'shell',
      `hookwise cannot fully understand this command (${shell.parse.reason}), so a human decides`,
      {
        id: 'shell:unparseable',
        source: 'built-in',
      },
    );
  }
  const segments = shell.parse.segments;
  if (segments.length === 0)
    return decision('allow', 'shell', 'an empty command runs nothing', { id: 'shell:empty', source: 'built-in' });
  const rules = rulesContextOf(ctx, {
    projectRoot: ctx.projectRoot,
    home: ctx.home,
    runsInProject: shell.runsInProject,
  });
  const many = segments.length > 1;
  let result: Decision | undefined;
  let undecided = false;
  const secretReaders: number[] = [];
  // Packs see every segment with its neighbours (`echo "DROP TABLE x" | psql`, a fork bomb's pipe).
  const byRulesPerSegment = judgeSegmentsDetailed(segments, rules).segments;
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
          ? decision(
              'ask',
              'shell',
              `\`${segment.name}\` writes ${target.path}, which is only known when the command runs`,
              { id: 'shell:dynamic-write-target', source: 'built-in' },
            )
          : shell.trees[i] === true
            ? judgeTreeWrite(resolved, ctx, target.treeSkips ?? [])
            : judgeWrite(resolved, ctx);
      if (d === undefined) writesUndecided = true;
      writes = stricter(writes, d);
    });
    for (const unknown of shell.writes.unknown) {
      if (unknown.segment !== index) continue;
      writes = stricter(
        writes,
        decision('ask', 'shell', `\`${segment.name}\` writes files hookwise cannot determine (${unknown.reason})`, {
          id: 'shell:unknown-write-target',
          source: 'built-in',
        }),
      );
    }
    const byRules = byRulesPerSegment[index]?.decision;
    const effects = effectsVerdict(ctx, shell, index);
    if (effects?.secret === true) secretReaders.push(index);
    let verdict = stricter(stricter(byRules, writes), effects?.decision);
    // A read nobody can place (a relative file after `cd "$D"`, `< "$F"`): what the segment does is unknown.
    if (verdict?.verdict === 'allow' && effects?.unplaced === true) verdict = undefined;
    if (verdict?.verdict === 'allow') {
      const writesAllowed = writeCount === 0 || (!writesUndecided && writes?.verdict === 'allow');
      const rulesAllow =
        byRules?.verdict === 'allow' || (byRules === undefined && writeCount > 0 && FILE_COMMANDS.has(segment.name));
      // `./tools/cat` is the project's file, not cat: an allow pack's rules about cat say nothing about it.
      const namedFile = shell.catalog[index]?.namedFile === true;
      if (!writesAllowed || !rulesAllow || lossy || namedFile) verdict = undefined;
      // The reason names what the call does: a write (a redirect, a heredoc into `cat >`) is a write,
      // whatever the program alone would do.
      else if (writeCount > 0 && writes !== undefined) verdict = writesReason(writes, byRules, shell, index);
    }
    if (verdict === undefined) undecided = true;
    else result = stricter(result, prefixed(verdict, segment, many));
  });
  const exfiltration = sendsSecrets(shell, segments, secretReaders);
  if (exfiltration !== undefined) return exfiltration;
  if (undecided && result?.verdict === 'allow') return undefined;
  return result;
}

/** An allowed segment that writes: what it writes (and why that is allowed) first, the command's own reason after. */
function writesReason(writes: Decision, byRules: Decision | undefined, shell: PreparedShell, index: number): Decision {
  const targets = shell.writes.targets.filter((t) => t.segment === index);
  const shown = targets
    .slice(0, 3)
    .map((t) => `${t.path} (${t.via})`)
    .join(', ');
  const more = targets.length > 3 ? ` and ${targets.length - 3} more` : '';
  const what = `writes ${shown}${more}: ${writes.reason}`;
  // The rule that vouched for the command keeps the provenance; the reason leads with the write.
  return byRules === undefined
    ? { ...writes, reason: what }
    : { ...byRules, reason: `${what}; apart from that, ${byRules.reason}` };
}

/**
 * What a segment's effects say (effects.ts): code it runs that its first word does not show → ask (packs
 * and role globs vouch for the program named, not for what its environment, options or a file written
 * earlier in the command make it run); a read of a credential → ask, and `secret` marks the segment for
 * the exfiltration check. `unplaced`: it reads a file only the run will tell (relative to a working
 * directory hookwise cannot know, or named by an expansion), which no rule may allow.
 */
function effectsVerdict(
  ctx: ShellTierContext,
  shell: PreparedShell,
  index: number,
): { decision: Decision | undefined; secret: boolean; unplaced: boolean } | undefined {
  const effects = shell.effects.segments[index];
  let result: Decision | undefined;
  for (const run of effects?.runs ?? []) {
    result = stricter(
      result,
      decision('ask', 'shell', `${run.detail}, so a human decides`, { id: `effects:${run.kind}`, source: 'built-in' }),
    );
  }
  let secret = false;
  let unplaced = false;
  shell.effects.reads.forEach((read, i) => {
    if (read.segment !== index) return;
    const resolved = shell.reads[i];
    if (resolved === null || resolved === undefined) {
      unplaced = true;
      return;
    }
    const d = judgeSensitiveRead(resolved, ctx, read.recursive);
    if (d === undefined) return;
    // A path nobody can resolve is asked about, but it is not known to hold credentials.
    if (resolved.unknown === undefined) secret = true;
    result = stricter(result, { ...d, reason: `\`${read.via}\` reads ${d.reason}` });
  });
  return result === undefined && !unplaced ? undefined : { decision: result, secret, unplaced };
}

/**
 * Credentials read and sent over the network in one go — the reading segment piped into a network
 * program, run inside its arguments (`curl -d "$(cat ~/.aws/credentials)"`), or the network program
 * reading the file itself (`curl -F f=@~/.ssh/id_rsa`) → deny.
 */
function sendsSecrets(
  shell: PreparedShell,
  segments: readonly Segment[],
  readers: readonly number[],
): Decision | undefined {
  for (const reader of readers) {
    const from = segments[reader]!;
    const sender = segments.findIndex(
      (s, j) =>
        shell.effects.segments[j]?.network === true &&
        (j === reader ||
          pipedInto(segments, reader, j) ||
          (j > reader &&
            from.depth > s.depth &&
            (from.context === 'substitution' || from.context === 'process-substitution'))),
    );
    if (sender === -1) continue;
    return decision(
      'deny',
      'shell',
      `\`${shortText(from, 60)}\` reads credentials and \`${shortText(segments[sender]!, 60)}\` sends data over the network in the same command: that is how secrets are exfiltrated`,
      {
        id: 'effects:exfiltration',
        source: 'built-in',
      },
    );
  }
  return undefined;
}

/** Segment `to` reads the output of segment `from` through a pipeline (`from | … | to`). */
function pipedInto(segments: readonly Segment[], from: number, to: number): boolean {
  if (to <= from) return false;
  const depth = segments[from]!.depth;
  for (let k = from + 1; k <= to; k++) {
    const s = segments[k]!;
    if (s.depth < depth) return false;
    if (s.depth === depth && s.operator !== '|' && s.operator !== '|&') return false;
  }
  return segments[to]!.depth === depth;
}

export const shellTier: SyncTier<ShellTierContext> = { name: 'shell', decide: judgeShell };
