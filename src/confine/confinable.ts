/**
 * May an ask become an allow inside the walls (issue 19)? Only when the cascade asked because a shell
 * command's effect is unknown — it runs code its first word does not show (a project script, a tool's
 * config), writes where only the run will tell, or no tier knows the program — and everything hookwise *can*
 * see of it stays inside the walls. Pure: it reads the cascade's context (the parse, the policy), no files.
 *
 * Never confinable: an ask or deny of a pack or rule (confinement never overrides one), a command hookwise
 * cannot parse, a read of a credential, a write the path policy asks about or denies (a protected file,
 * outside the project), a command that reaches the network and the allowlist does not let it (below), a
 * server, a daemon's client or a background job (services.ts: the walls would break it silently), a `git`
 * command that writes the repository — one that loses files, or a form the catalogue knows to write (the
 * git directory is read-only inside the walls: it would fail) — and a call that asks to leave the host's
 * own sandbox. The same holds for hg's writing forms (.hg is read-only inside the walls: its hgrc names hooks)
 * and for every jj command (jj snapshots the working copy into .jj before any command, reads included). Any
 * other git form no pack decided (`git fsck`, `git bisect log`, an alias, a `git-<name>`
 * program such as git-extras' `git effort`) has an unknown effect like an unknown program's, and the walls
 * hold it the same way: the repository is read-only there, so a form that turns out to write it fails at
 * git's lock before touching the work tree, and the wall hit makes the next identical call an ask.
 *
 * A command that deletes or overwrites files is confinable only where an undo snapshot is taken before it
 * runs (`undoable`: the project is a git work tree, known at the edge) and every file it is seen to lose is
 * in the project, where the snapshot covers it; elsewhere a human decides those.
 *
 * With a network allowlist served by the daemon's filtering proxy, a network-reaching command is confinable
 * when it speaks HTTP(S) (destinations.ts) and every destination its words name is on the list; one the list
 * does not name, one that speaks something else (ssh, raw TCP), and one while the proxy is not available are
 * asked: the walls would only make them fail.
 */
import type { Decision } from '../core/decision.js';
import type { ShellTierContext } from '../shell/tier.js';
import { judgeSensitiveRead, judgeWrite } from '../policy/path-policy.js';
import { judgeSegmentsDetailed, rulesContextOf } from '../policy/rules.js';
import { segmentLosesData } from '../shell/data-loss.js';
import type { AllowEntry } from './allowlist.js';
import { refusedDestination, segmentNetwork } from './destinations.js';
import { serviceEffect } from './services.js';

/**
 * `applies`: the ask was about an unknown effect, and the why is worth telling (the command itself is not
 * confinable). `network`: it needs the network (through the filtering proxy) to do what it says.
 */
export type Confinability = { ok: true; network?: true } | { ok: false; applies: boolean; why: string };

/** The network a confined command may have, as found at the edge (the engine asks the daemon). */
export interface NetworkAccess {
  /** The effective allowlist; empty: no network at all. */
  allow: readonly AllowEntry[];
  /** Whether a filtering proxy can serve it (a daemon hosts them, started on first use), and if not, why. */
  proxy: { up: true } | { up: false; why: string };
}

const GIT_READ_ONLY = 'which is read-only inside the walls (it holds the undo snapshot): it would fail there';
const VCS_READ_ONLY =
  'which is read-only inside the walls (it holds the configuration that names the programs hg and jj run): it would fail there';

/** Shell-tier asks that say "the effect is unknown": what the walls are for. */
const UNKNOWN_EFFECT_RULES = new Set(['shell:dynamic-write-target', 'shell:unknown-write-target']);

function asksAboutUnknownEffect(d: Decision): boolean {
  if (d.tier === 'default') return true;
  if (d.tier !== 'shell' || d.rule === undefined) return false;
  return (
    UNKNOWN_EFFECT_RULES.has(d.rule.id) || (d.rule.id.startsWith('effects:') && d.rule.id !== 'effects:exfiltration')
  );
}

export interface ConfineContext {
  /** An undo snapshot is taken before a confined command here (snapshot.ts): a command that loses files may run. */
  undoable: boolean;
  /** The network allowlist and whether a proxy can serve it (found at the edge); absent: no network. */
  network?: NetworkAccess | undefined;
}

export function confinability(
  ctx: ShellTierContext,
  d: Decision,
  confine: ConfineContext = { undoable: false },
): Confinability {
  const network = confine.network;
  if (d.verdict !== 'ask') return { ok: false, applies: false, why: `the decision is ${d.verdict}` };
  const shell = ctx.shell;
  if (ctx.call.action !== 'shell' || shell === undefined)
    return { ok: false, applies: false, why: 'only shell commands run confined' };
  if (!asksAboutUnknownEffect(d)) return { ok: false, applies: false, why: `${d.tier} asks for a reason of its own` };
  const no = (why: string): Confinability => ({ ok: false, applies: true, why });
  if (ctx.call.input.dangerouslyDisableSandbox === true) return no('the call asks to run outside the sandbox');
  if (!shell.parse.ok) return no('hookwise cannot parse the command');
  const segments = shell.parse.segments;
  const byRules = judgeSegmentsDetailed(
    segments,
    rulesContextOf(ctx, { projectRoot: ctx.projectRoot, home: ctx.home, runsInProject: shell.runsInProject }),
  ).segments;
  let needsNetwork = false;
  for (let i = 0; i < segments.length; i++) {
    const ruled = byRules[i]?.decision;
    if (ruled !== undefined && ruled.verdict !== 'allow')
      return no(`a rule ${ruled.verdict === 'deny' ? 'denies' : 'asks about'} \`${segments[i]!.name}\``);
    const lossy = segmentLosesData(shell, i);
    const writesFiles = shell.writes.targets.some((t) => t.segment === i);
    const name = segments[i]!.name;
    const writesRepository = lossy || writesFiles || shell.catalog[i]?.effects.includes('writes') === true;
    if (name === 'git' && writesRepository) return no(`\`git\` writes the repository, ${GIT_READ_ONLY}`);
    if (name === 'hg' && writesRepository) return no(`\`hg\` writes the repository, .hg, ${VCS_READ_ONLY}`);
    // Every jj command first snapshots the working copy into .jj, reads included.
    if (name === 'jj') return no(`\`jj\` records every command in .jj, ${VCS_READ_ONLY}`);
    if (lossy) {
      if (!confine.undoable)
        return no(
          `\`${segments[i]!.name}\` deletes or overwrites files, and with no git repository here no undo snapshot can be taken: a human decides those`,
        );
      const outside = lostOutsideProject(shell, i);
      if (outside !== undefined)
        return no(
          `\`${segments[i]!.name}\` deletes or overwrites ${outside}, outside the project, where \`hookwise undo\` cannot restore it`,
        );
    }
    const net = segmentNetwork(segments[i]!, shell.effects.segments[i]?.network === true);
    if (net.kind !== 'none') {
      const problem = networkProblem(segments[i]!.name, net, network);
      if (problem !== undefined) return no(problem);
      needsNetwork = true;
    }
    const service = serviceEffect(segments[i]!);
    if (service !== undefined) return no(service);
  }
  for (let i = 0; i < shell.effects.reads.length; i++) {
    const resolved = shell.reads[i];
    if (resolved === null || resolved === undefined) continue;
    if (judgeSensitiveRead(resolved, ctx, shell.effects.reads[i]!.recursive) !== undefined)
      return no(`it reads ${resolved.absolute}, a credential`);
  }
  for (let i = 0; i < shell.writes.targets.length; i++) {
    const resolved = shell.targets[i];
    if (resolved === null || resolved === undefined) continue; // known only when it runs: the walls judge it
    if (resolved.relative === '.git' || resolved.relative?.startsWith('.git/') === true)
      return no(`it writes ${resolved.absolute}, in .git, ${GIT_READ_ONLY}`);
    const w = judgeWrite(resolved, ctx);
    if (w !== undefined && w.verdict !== 'allow')
      return no(`it writes ${resolved.absolute}, which path policy ${w.verdict === 'deny' ? 'denies' : 'asks about'}`);
  }
  return needsNetwork ? { ok: true, network: true } : { ok: true };
}

/** Why a segment that reaches the network cannot do so from inside the walls, if it cannot. */
function networkProblem(
  name: string,
  net: ReturnType<typeof segmentNetwork>,
  network: NetworkAccess | undefined,
): string | undefined {
  if (network === undefined || network.allow.length === 0)
    return `\`${name}\` reaches the network, which the walls cut (no network allowlist)`;
  if (net.kind === 'other') return `\`${name}\` ${net.why}: only HTTP and HTTPS go through the filtering proxy`;
  const refused = refusedDestination(net, network.allow);
  if (refused !== undefined)
    return `\`${name}\` reaches ${refused.host} port ${refused.port}, which is not on the network allowlist`;
  if (!network.proxy.up)
    return `\`${name}\` reaches the network, and the filtering proxy is not available: ${network.proxy.why}`;
  return undefined;
}

/** A file segment `index` writes outside the project (the undo snapshot covers the project only). */
function lostOutsideProject(shell: NonNullable<ShellTierContext['shell']>, index: number): string | undefined {
  for (let t = 0; t < shell.writes.targets.length; t++) {
    if (shell.writes.targets[t]!.segment !== index) continue;
    const resolved = shell.targets[t];
    if (resolved !== null && resolved !== undefined && resolved.relative === null) return resolved.absolute;
  }
  return undefined;
}
