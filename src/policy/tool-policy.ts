/**
 * Tools with no file, shell or network effect (TodoWrite, task bookkeeping, …) are allowed outright; hookwise's
 * own MCP tools (the queue) only for the lead session (queue-tools.ts).
 */
import type { SyncTier } from '../core/tier.js';
import type { PolicyContext } from './context.js';
import { decision } from '../core/decision.js';
import { judgeQueueTool } from './queue-tools.js';

export const toolPolicyTier: SyncTier<PolicyContext> = {
  name: 'tool-policy',
  decide(ctx) {
    if (ctx.call.action !== 'other') return undefined;
    const own = judgeQueueTool(ctx);
    if (own !== undefined) return own;
    const safe = ctx.policy.safeTools.find((t) => t.name === ctx.call.tool);
    if (safe === undefined) return undefined;
    return decision('allow', 'tool-policy', `${ctx.call.tool} has no side effects on files, shell or network`, {
      id: `safe-tool:${safe.name}`,
      source: safe.source,
    });
  },
};
