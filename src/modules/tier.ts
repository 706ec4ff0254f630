/**
 * The modules tier: the first step of the cascade (after the session gate and sanitizing, before path
 * policy). Pure: the session's module state was read and verified at the edge (engine/decide.ts → state-file.ts)
 * and arrives in the context. It only ever denies. safemode and the circuit breaker deny edits and writes:
 * Write, Edit, MultiEdit, NotebookEdit (any tool whose action is `write`) and shell commands whose analysis
 * finds a write target — or that cannot be analysed (fail closed). hierarchy and delegation deny a
 * conductor's writes outside its allow-list and its work calls past the window (conductor.ts). Everything
 * else passes to the policy tiers.
 */
import { decision, type Decision } from '../core/decision.js';
import type { SyncTier } from '../core/tier.js';
import type { ModuleTierContext } from './context.js';
import { delegationPosition, isConductor, ordinal, windowText, writeOutsideAllowList } from './conductor.js';
import { shownId } from '../sanitize/ids.js';

/** What the call writes, in words, or undefined when it writes nothing the shell analysis can see. */
function writeOf(ctx: ModuleTierContext): string | undefined {
  const { call, shell } = ctx;
  if (call.action === 'write') return `this ${call.tool} call`;
  if (call.action !== 'shell') return undefined;
  if (shell === undefined || !shell.parse.ok) return 'this shell command (it cannot be analysed, so it may write)';
  if (shell.writes.targets.length > 0 || shell.writes.unknown.length > 0) return 'this shell command (it writes files)';
  return undefined;
}

/** hierarchy and delegation: only a conductor's calls (conductor.ts). */
function judgeConductor(ctx: ModuleTierContext): Decision | undefined {
  const { hierarchy, delegation } = ctx.policy.modules;
  if (!isConductor(ctx)) return undefined;
  if (hierarchy.enabled) {
    const outside = writeOutsideAllowList(ctx);
    if (outside !== undefined) {
      const allowed = ctx.role.role.allowWrite.map((p) => p.glob).join(', ');
      return decision(
        'deny',
        'module',
        `role "${ctx.role.role.name}" conducts: it may edit only ${allowed}, and this call writes ${outside}. Delegate the change: start a musician with the Task/Agent tool (a subagent_type, and a prompt saying what to change and why)`,
        { id: 'module:hierarchy', source: hierarchy.source },
      );
    }
  }
  const position = delegationPosition(ctx);
  if (position !== undefined && position >= delegation.denyAt) {
    return decision(
      'deny',
      'module',
      `this is work call ${position} in ${windowText(delegation.windowMs)} by conductor role "${ctx.role.role.name}" without delegating (denied from the ${ordinal(delegation.denyAt)}). Hand the work to a musician with the Task/Agent tool (with a subagent_type); delegating resets the count`,
      { id: 'module:delegation', source: delegation.source },
    );
  }
  return undefined;
}

export const moduleTier: SyncTier<ModuleTierContext> = {
  name: 'module',
  decide(ctx): Decision | undefined {
    const modules = ctx.modules;
    if (modules === undefined) return undefined;
    if (modules.kind !== 'tampered') {
      const conductor = judgeConductor(ctx);
      if (conductor !== undefined) return conductor;
    }
    const what = writeOf(ctx);
    if (what === undefined) return undefined;
    const id = shownId(ctx.call.sessionId);
    if (modules.kind === 'tampered') {
      return decision(
        'deny',
        'module',
        `hookwise's module state for this session was tampered with or cannot be verified (${modules.why}), so edits and writes are blocked. A human resets it with: hookwise breaker reset --session-id ${id}`,
        { id: 'module:state-tampered', source: 'signed module state' },
      );
    }
    const { state } = modules;
    if (state.safemode) {
      return decision(
        'deny',
        'module',
        `safemode is on for this session: ${what} is blocked, as is every edit and write. Only the user lifts it, with the prompt \`s-\` (or hookwise safemode off --session-id ${id}); ask them if the change is needed`,
        {
          id: 'module:safemode',
          source: ctx.policy.modules.safemode.source,
        },
      );
    }
    const breaker = ctx.policy.modules.circuitBreaker;
    if (breaker.enabled && state.breaker.tripped !== undefined) {
      return decision(
        'deny',
        'module',
        `the circuit breaker tripped (${state.breaker.tripped}): ${what} is blocked, as is every edit and write, until the user has looked at what is failing and resets it with the prompt \`reset breaker\` or \`rb-\` (or hookwise breaker reset --session-id ${id}). Stop and tell the user what failed`,
        { id: 'module:circuit-breaker', source: breaker.source },
      );
    }
    return undefined;
  },
};
