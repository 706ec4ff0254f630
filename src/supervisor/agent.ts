/**
 * The agent supervisor (`supervisor.backend: agent`): the lead session of a team — a Claude Code session
 * registered in an orchestration role, whose supervisor subagent (plugin/agents/supervisor.md) knows why each
 * worker exists — answers tier 3 instead of a model behind an API.
 *
 * The call is put into the human queue's store as a *supervise* item (the daemon's memory queue, or the files
 * without a daemon) and waits, bounded by the supervisor's timeout, for an answer through hookwise's MCP tool
 * `answer_request` (src/mcp/server.ts). That answer is validated exactly as the API's tool input is
 * (parseAnswer: the same schema, the same bounds) and judged by the tier as the API's is: below the confidence
 * threshold → a human. No answer in time, a malformed one, a queue that cannot hold the call → a failure,
 * which passes the call on to a human, never allows.
 *
 * A human may answer a supervise item too (`hookwise approve/deny`, the web page): that is a human's decision
 * with full confidence, named as such (`by: agent (a human …)`), and `--always-ask` counts as approve-once.
 */
import { sanitize, type Sanitized } from '../sanitize/index.js';
import type { PendingRequest, QueueBackend, WaitOutcome } from '../queue/types.js';
import { fnv1a64 } from '../util/hash.js';
import {
  failureText,
  parseAnswer,
  type SupervisorBackend,
  type SupervisorOutcome,
  type SupervisorRequest,
} from './backend.js';

export const AGENT_BY = 'agent';

/** What a supervise item says to whoever lists the queue (the lead's subagent, a human). */
export const SUPERVISE_REASON =
  'no rule, pack or remembered decision covers this call: the supervisor (the lead session) is asked to judge it against the team’s task' as Sanitized;

const MAX_TASK = 300;

export interface AgentSupervisorOptions {
  timeoutMs: number;
  /** The queue the call waits on (the daemon's memory queue, or the runtime directory's files). */
  queue: () => QueueBackend;
}

export function agentSupervisor(options: AgentSupervisorOptions): SupervisorBackend {
  return {
    name: 'agent',
    async review(request: SupervisorRequest, signal?: AbortSignal): Promise<SupervisorOutcome> {
      let outcome: WaitOutcome;
      try {
        outcome = await options.queue().wait(superviseItem(request), options.timeoutMs, signal);
      } catch (error) {
        return {
          kind: 'failure',
          why: failureText(
            `the queue could not hold the call: ${error instanceof Error ? error.message : String(error)}`,
          ),
          by: AGENT_BY,
        };
      }
      return outcomeOf(outcome, options.timeoutMs);
    },
  };
}

/** The queue's wait, as a supervisor outcome. Exported for the tests' table. */
export function outcomeOf(outcome: WaitOutcome, timeoutMs: number): SupervisorOutcome {
  switch (outcome.kind) {
    case 'timeout':
      return {
        kind: 'failure',
        why: `the lead session did not answer within ${Math.round(timeoutMs / 1000)} s (queue item ${outcome.id})`,
        by: AGENT_BY,
      };
    case 'unavailable':
      return { kind: 'failure', why: failureText(outcome.why), by: AGENT_BY };
    case 'answered': {
      const { answer, id } = outcome;
      // The lead's answer, validated like the API's tool input (its reason was sanitized when given; again here).
      if (answer.supervisor !== undefined) return parseAnswer({ ...answer.supervisor }, AGENT_BY);
      const decision = answer.verdict === 'deny' ? 'deny' : 'allow';
      return {
        kind: 'answer',
        decision,
        confidence: 1,
        reason: sanitize(
          `${decision === 'deny' ? 'denied' : 'approved'} by a human through the queue (item ${id}, ${answer.via})`,
        ).text,
        by: `${AGENT_BY} (a human)`,
      };
    }
  }
}

/** The supervise item for a request: sanitized fields only (the request holds nothing else). */
export function superviseItem(request: SupervisorRequest): PendingRequest {
  const task = request.session?.task;
  const item: PendingRequest = {
    kind: 'supervise',
    // Identical calls share it; never the same item as the human's ask for the same call.
    dedupe: fnv1a64(
      `supervise\u0000${request.projectRoot}\u0000${request.role.name}\u0000${request.tool}\u0000${request.call}`,
    ),
    session: request.sessionId ?? ('unknown' as Sanitized),
    role: request.role.name,
    tool: request.tool,
    call: request.call,
    reason: SUPERVISE_REASON,
    tier: 'supervisor',
    project: request.projectRoot,
  };
  if (task !== undefined && task !== '')
    item.task = (task.length > MAX_TASK ? `${task.slice(0, MAX_TASK)}…` : task) as Sanitized;
  return item;
}
