/**
 * hookwise's own MCP tools (src/mcp/server.ts): `pending_requests` lists the queue, `answer_request` answers an
 * item — and so decides other agents' calls. Who may use them is decided here, by the gate, from the session
 * the host names (Claude Code sends the session_id; an agent cannot pick another's):
 *
 *   - a session in a lead role (a role of the `orchestration` group, the built-in `conductor`) may list and
 *     answer: it is the team's supervisor (tier 3's agent backend) and the human's seat;
 *   - every other session is denied both: answering would let a worker approve its own request, and listing
 *     shows other sessions' calls to an agent that has no use for them (`hookwise queue` stays free to look,
 *     as before). Denied, not asked: a headless worker's ask is a silent deny anyway, and with the queue on it
 *     would wait on a human for a call that should never be made.
 *
 * Classify, then decide: the tool's kind, then the verdict by the role's group.
 */
import { decision, type Decision } from '../core/decision.js';
import type { PolicyContext } from './context.js';

export const QUEUE_TOOLS = ['pending_requests', 'answer_request'] as const;
export type QueueTool = (typeof QUEUE_TOOLS)[number];

/** The server's name: `hookwise` in a project's .mcp.json, `plugin_hookwise_hookwise` when the plugin bundles it. */
const TOOL_NAME = /^mcp__(?:plugin_hookwise_)?hookwise__(pending_requests|answer_request)$/;

/** Which of hookwise's MCP tools a tool name is, if any. */
export function queueToolOf(tool: string): QueueTool | undefined {
  return TOOL_NAME.exec(tool)?.[1] as QueueTool | undefined;
}

export const LEAD_GROUP = 'orchestration';

const SOURCE = 'built-in (hookwise MCP tools)';

export const WORKER_MAY_NOT_ANSWER =
  'only the team’s lead session (registered in an orchestration role, e.g. conductor) answers hookwise’s queue: a worker must not decide other agents’ calls or its own. Leave it to the lead or to a human (hookwise approve/deny, or the queue page)';
export const WORKER_MAY_NOT_LIST =
  'hookwise’s pending_requests tool is the lead session’s (registered in an orchestration role, e.g. conductor); `hookwise queue` shows what waits';

export function judgeQueueTool(ctx: PolicyContext): Decision | undefined {
  const tool = queueToolOf(ctx.call.tool);
  if (tool === undefined) return undefined;
  const role = ctx.role.role;
  const lead = role.group === LEAD_GROUP;
  switch (tool) {
    case 'answer_request':
      return lead
        ? decision('allow', 'tool-policy', `the lead session (role "${role.name}") answers hookwise's queue`, {
            id: 'hookwise-mcp:lead-answers',
            source: SOURCE,
          })
        : decision('deny', 'tool-policy', `${WORKER_MAY_NOT_ANSWER} (this session's role: "${role.name}")`, {
            id: 'hookwise-mcp:worker-answers',
            source: SOURCE,
          });
    case 'pending_requests':
      return lead
        ? decision('allow', 'tool-policy', `the lead session (role "${role.name}") looks at hookwise's queue`, {
            id: 'hookwise-mcp:lead-lists',
            source: SOURCE,
          })
        : decision('deny', 'tool-policy', `${WORKER_MAY_NOT_LIST} (this session's role: "${role.name}")`, {
            id: 'hookwise-mcp:worker-lists',
            source: SOURCE,
          });
  }
}
