/**
 * Tier 4, the human queue: with `human.channel: queue`, an ask that reaches the end of the cascade waits for a
 * human's answer through the queue instead of going to the host's prompt (which a headless agent never shows:
 * Claude Code denies an ask silently in `-p` mode).
 *
 * Which asks: every ask — the fallback's (nothing decided), the supervisor's below its threshold, and the
 * asks a pack, rule, sensitive path or remembered "always ask" makes, since those mean "a human decides every
 * time" and in queue mode the human answers here. A deny is never queued. Only an ask that memory may learn
 * from (nothing decided it, or similarity or the supervisor only guessed) is remembered once answered; an
 * answer to a policy ask holds for this call only (policy runs before memory, and decides again next time).
 *
 * The waiting is the engine's port (HumanPort: the daemon's memory queue or the files); this module only
 * builds the sanitized request and turns the outcome into a decision. No answer → deny, with the reason below.
 */
import { supervisionIn, type Supervision } from '../audit/supervisor-log.js';
import { decision, type Decision, type TierName } from '../core/decision.js';
import type { PolicyContext } from '../policy/context.js';
import type { SupervisionContext } from '../supervisor/backend.js';
import type { CallSubject } from '../memory/subject.js';
import { shownId } from '../sanitize/ids.js';
import { sanitize, type Sanitized } from '../sanitize/index.js';
import { sanitizeCall } from '../sanitize/call.js';
import { fnv1a64 } from '../util/hash.js';
import type { HumanAnswer, HumanPort, PendingRequest } from './types.js';

export const TIMEOUT_REASON = 'Permission request timed out — no human response';

/** Asks whose answer memory keeps: nobody decided them, or a tier only guessed (similarity, supervisor). */
export const REMEMBERED_ASK_TIERS: ReadonlySet<TierName> = new Set<TierName>([
  'default',
  'jaccard',
  'embedding',
  'supervisor',
]);

/** A human's answer to this call, for the edge to remember (src/queue/remember.ts). */
export interface HumanAnswered {
  id: string;
  answer: HumanAnswer;
  /** This call made the item: it remembers the answer (once for all identical calls). */
  first: boolean;
  /** The ask came from a tier memory may learn from (REMEMBERED_ASK_TIERS). */
  rememberable: boolean;
  /** What the supervisor (tier 3) had said of the call, if it answered: the human's answer is logged as a review. */
  supervision?: Supervision;
}

export interface HumanOutcome {
  decision: Decision;
  answered?: HumanAnswered;
}

export interface HumanInputs {
  ctx: PolicyContext & SupervisionContext;
  asked: Decision;
  human: HumanPort;
  subject: CallSubject | undefined;
  /** The session's registered task, if any (shown to the human). */
  task?: string | undefined;
}

/** The bound on a task shown in the queue: a sentence, not a prompt file. */
const MAX_TASK = 300;

/** The one entry point: an ask in, the human's decision (or the timeout's deny) out. Anything else passes as it was. */
export async function askHuman(inputs: HumanInputs): Promise<HumanOutcome> {
  const { asked, human } = inputs;
  if (asked.verdict !== 'ask') return { decision: asked };
  const request = requestFor(inputs);
  const outcome = await human.wait(request);
  const ref = (id: string, what: string): { id: string; source: string } => ({
    id: `human:${what}`,
    source: `queue item ${id}`,
  });
  switch (outcome.kind) {
    case 'timeout':
      return {
        decision: decision(
          'deny',
          'human',
          `${TIMEOUT_REASON} (queue item ${outcome.id} waited ${Math.round(human.timeoutMs / 1000)}s; asked because ${asked.reason})`,
          ref(outcome.id, 'timeout'),
        ),
      };
    case 'unavailable':
      // The queue could not take or answer this call: deny, and say why (an ask would be denied unseen headless).
      return {
        decision: decision(
          'deny',
          'human',
          `the human queue could not answer this call, so it is blocked: ${sanitize(outcome.why).text}`,
          { id: 'human:unavailable', source: 'queue' },
        ),
      };
    case 'answered': {
      const { answer, id } = outcome;
      const rememberable = REMEMBERED_ASK_TIERS.has(asked.tier);
      const supervision = supervisionIn(asked);
      const answered: HumanAnswered = {
        id,
        answer,
        first: outcome.first,
        rememberable,
        ...(supervision === undefined ? {} : { supervision }),
      };
      const by = `a human through the queue (item ${id}, ${answer.via})`;
      if (answer.verdict === 'deny')
        return {
          decision: decision('deny', 'human', `denied by ${by}; asked because ${asked.reason}`, ref(id, 'deny')),
          answered,
        };
      const how = answer.alwaysAsk ? 'approved this once by' : 'approved by';
      return {
        decision: decision(
          'allow',
          'human',
          `${how} ${by}; asked because ${asked.reason}`,
          ref(id, answer.alwaysAsk ? 'always-ask' : 'approve'),
        ),
        answered,
      };
    }
  }
}

/** The sanitized queue item for this call; identical calls (project, role, normalized subject) share `dedupe`. */
export function requestFor(inputs: HumanInputs): PendingRequest {
  const { ctx, asked, subject } = inputs;
  const project = sanitize(ctx.projectRoot).text;
  const shown = sanitizeCall(ctx.call).text;
  const tool = shownId(ctx.call.tool);
  const request: PendingRequest = {
    dedupe: fnv1a64(`${project}\u0000${ctx.role.role.name}\u0000${tool}\u0000${subject?.text ?? shown}`),
    session: shownId(ctx.call.sessionId),
    role: ctx.role.role.name,
    tool,
    call: shown,
    reason: sanitize(asked.reason).text,
    tier: asked.tier,
    project,
  };
  if (asked.rule !== undefined) request.rule = shownId(asked.rule.id);
  if (inputs.task !== undefined && inputs.task !== '') {
    const task = sanitize(inputs.task).text;
    request.task = (task.length > MAX_TASK ? `${task.slice(0, MAX_TASK)}…` : task) as Sanitized;
  }
  if (asked.recommendation !== undefined) {
    const r = asked.recommendation;
    request.recommendation = { decision: r.decision, confidence: r.confidence, reason: sanitize(r.reason).text };
  }
  return request;
}
