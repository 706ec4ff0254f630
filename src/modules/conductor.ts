/**
 * The orchestration modules (issue 16), pure: `hierarchy` keeps a conductor to its own allow-list, and
 * `delegation` counts its work-tool calls in a sliding window (a reminder from warn_at, denied from deny_at
 * until it delegates through the Task/Agent tool). A conductor is a session whose role is in the
 * `orchestration` group, calling from its own thread: a subagent's call (Claude Code's `agent_id`) is its
 * musician's and is judged with the musician role at the edge (engine/decide.ts).
 */
import type { ModuleTierContext } from './context.js';
import type { ResolvedPath } from '../core/tool-call.js';
import { delegationCount } from './machine.js';

/** Tools that do the work a conductor should hand over (file tools count only outside its allow-list). */
const WORK_TOOLS = new Set(['Bash', 'WebFetch', 'WebSearch']);
/** The tools that start a subagent (`Task` was renamed `Agent` in Claude Code 2.1.63). */
const DELEGATION_TOOLS = new Set(['Task', 'Agent']);

export function isConductor(ctx: Pick<ModuleTierContext, 'role' | 'call'>): boolean {
  return ctx.role.role.group === 'orchestration' && ctx.call.agentId === undefined;
}

/** A write target outside the conductor's allow-list (`unknown` when the analysis cannot name one), or undefined. */
export function writeOutsideAllowList(ctx: ModuleTierContext): string | undefined {
  const outside = (p: ResolvedPath): boolean => ctx.role.allowWrite.match(p) === undefined;
  const { call, shell } = ctx;
  if (call.action === 'write')
    return ctx.paths.find(outside)?.absolute ?? (ctx.paths.length === 0 ? 'a file it does not name' : undefined);
  if (call.action !== 'shell') return undefined;
  // Fail closed: a command that cannot be analysed, or writes where the analysis cannot tell, may write anywhere.
  if (shell === undefined || !shell.parse.ok || shell.writes.unknown.length > 0)
    return 'a target the analysis cannot name';
  for (const target of shell.targets)
    if (target === null || outside(target)) return target?.absolute ?? 'a target the analysis cannot name';
  return undefined;
}

/** How this call counts for the delegation window: work, a delegation (resets it), or neither. */
export type DelegationKind = 'work' | 'delegated' | undefined;

export function delegationKind(ctx: ModuleTierContext): DelegationKind {
  if (!isConductor(ctx)) return undefined;
  const { call } = ctx;
  if (DELEGATION_TOOLS.has(call.tool))
    return typeof call.input.subagent_type === 'string' && call.input.subagent_type !== '' ? 'delegated' : undefined;
  if (WORK_TOOLS.has(call.tool)) return 'work';
  // Editing its own notes and settings is not implementation work.
  if (call.action === 'write')
    return ctx.paths.length === 0 || ctx.paths.some((p) => ctx.role.allowWrite.match(p) === undefined)
      ? 'work'
      : undefined;
  return undefined;
}

/** The position of this work call in the window (1 = the first), or undefined when the window does not apply. */
export function delegationPosition(ctx: ModuleTierContext): number | undefined {
  const settings = ctx.policy.modules.delegation;
  const modules = ctx.modules;
  if (!settings.enabled || modules === undefined || modules.kind === 'tampered' || delegationKind(ctx) !== 'work')
    return undefined;
  const now = (ctx.ports?.now ?? Date.now)();
  return delegationCount(modules.state, now, settings.windowMs) + 1;
}

export function windowText(ms: number): string {
  return ms % 60_000 === 0 ? `${ms / 60_000} min` : `${Math.round(ms / 1000)} s`;
}

/** The reminder the agent sees (additionalContext) from warn_at up to deny_at. */
export function delegationReminder(ctx: ModuleTierContext): string | undefined {
  const position = delegationPosition(ctx);
  const settings = ctx.policy.modules.delegation;
  if (position === undefined || position < settings.warnAt || position >= settings.denyAt) return undefined;
  const left = settings.denyAt - position;
  return `hookwise delegation: this is your work call ${position} in ${windowText(settings.windowMs)} without delegating. You are the conductor: hand implementation to a musician with the Task/Agent tool (with a subagent_type). ${left === 1 ? 'The next work call' : `From the ${ordinal(settings.denyAt)} work call on, work calls`} will be denied until you delegate.`;
}

export function ordinal(n: number): string {
  const s =
    n % 100 >= 11 && n % 100 <= 13 ? 'th' : (({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[n % 10] ?? 'th');
  return `${n}${s}`;
}
