/**
 * Tier 3 — the supervisor: a model (or the lead session's subagent) judges a call that no rule, pack, path
 * policy or memory decided, knowing the role, its path policy, the session's task and what was decided near
 * this call before.
 *
 * Reached only when every earlier tier passed: a pack, a rule, a sensitive path, a role glob or a
 * remembered decision (a remembered ask included: it decides in the exact cache) ends the cascade before it.
 * Fail closed, always toward a human, never toward allow:
 *   - supervisor off, or no port (nothing to ask) → pass on;
 *   - a failure (timeout, API error, refusal, not an answer) → pass on, the failure noted for the human;
 *   - an answer below the confidence threshold → pass on, the answer kept as the human's recommendation;
 *   - an answer at or above it → decides (allow, deny or ask), and the edge remembers it (memory/learn.ts).
 * A call that asks to leave the host's sandbox is never allowed here (as in tier 2a): such an allow passes on
 * as a recommendation.
 *
 * Pure apart from the port: the request is built from the context (sanitized text only) and the port does
 * the I/O at the edge (engine/supervise.ts).
 */
import { decision, TIERS, type Decision, type Verdict } from '../core/decision.js';
import type { Tier } from '../core/tier.js';
import type { EmbeddingContext } from '../embed/port.js';
import type { MemoryTierContext } from '../memory/context.js';
import { ANY_ROLE } from '../memory/store.js';
import { tokenize } from '../memory/tokens.js';
import { sanitize, type Sanitized } from '../sanitize/index.js';
import { sanitizeCall } from '../sanitize/call.js';
import { shownId } from '../sanitize/ids.js';
import type {
  RequestNeighbour,
  RequestPath,
  SupervisorAnswer,
  SupervisorOutcome,
  SupervisorRequest,
  SupervisionContext,
} from './backend.js';

/** What tier 3 reads: memory's slice (the subject, the neighbours' records), tier 2b's port, its own slice. */
export type SupervisorTierContext = MemoryTierContext & EmbeddingContext & SupervisionContext;

/** Remembered calls at least this similar are shown to the supervisor as neighbours (below tier 2a's threshold too). */
export const NEIGHBOUR_THRESHOLD = 0.3;
export const MAX_NEIGHBOURS = 5;
const MAX_PATHS = 32;

function supervise(ctx: SupervisorTierContext): Promise<Decision | undefined> | undefined {
  const settings = ctx.policy.supervisor;
  // Off (the default), or no port (a context built without one): synchronous, so the cascade stays so.
  if (settings === undefined || settings.backend === 'off' || ctx.supervisor === undefined) return undefined;
  return reviewed(ctx, ctx.supervisor.review(supervisorRequest(ctx)));
}

async function reviewed(
  ctx: SupervisorTierContext,
  pending: Promise<SupervisorOutcome>,
): Promise<Decision | undefined> {
  let outcome: SupervisorOutcome;
  try {
    outcome = await pending;
  } catch (error) {
    // A port must not reject; if one does, it is a failure like any other (toward a human).
    outcome = {
      kind: 'failure',
      why: `the supervisor failed: ${sanitize(error instanceof Error ? error.message : String(error)).text}`,
      by: ctx.policy.supervisor.backend,
    };
  }
  ctx.supervision = outcome;
  if (outcome.kind === 'failure') return undefined;
  if (outcome.confidence < ctx.policy.supervisor.confidence) return undefined;
  if (outcome.decision === 'allow' && ctx.call.input.dangerouslyDisableSandbox === true) return undefined;
  ctx.supervision = undefined; // it decided: nothing is left to recommend
  return supervisorDecision(outcome, ctx.policy.supervisor.source);
}

const VERB: Record<Verdict, string> = { allow: 'allows', deny: 'denies', ask: 'asks a human about' };

export function supervisorDecision(answer: SupervisorAnswer, source: string): Decision {
  return decision(
    answer.decision,
    'supervisor',
    `the supervisor (${answer.by}, confidence ${answer.confidence.toFixed(2)}) ${VERB[answer.decision]} this call: ${answer.reason}`,
    { id: `supervisor:${answer.by}`, source },
    answer.confidence,
  );
}

/** What the last tier's ask says about a supervisor that did not decide (cascade fallback, the queue). */
export function supervisionNote(outcome: SupervisorOutcome, threshold: number): string {
  if (outcome.kind === 'failure') return `the supervisor (${outcome.by}) did not answer: ${outcome.why}`;
  const why =
    outcome.confidence < threshold
      ? `confidence ${outcome.confidence.toFixed(2)} is below ${threshold.toFixed(2)}`
      : 'it may not allow a call that leaves the sandbox';
  return `the supervisor (${outcome.by}) would ${outcome.decision} (${why}): ${outcome.reason}`;
}

/** The request: the call, the role and its path policy, what passed, the nearest remembered decisions. All sanitized. */
export function supervisorRequest(ctx: SupervisorTierContext): SupervisorRequest {
  const { call, role } = ctx;
  const subject = ctx.memory?.subject();
  const text = subject?.text ?? sanitizeCall(call).text;
  const clean = (s: string): Sanitized => sanitize(s).text;
  return {
    tool: shownId(call.tool),
    action: call.action,
    call: text,
    paths: requestPaths(ctx, subject?.writes),
    projectRoot: clean(ctx.projectRoot),
    cwd: clean(call.cwd),
    role: {
      name: role.role.name,
      description: clean(role.role.description),
      allowWrite: role.role.allowWrite.map((p) => clean(p.glob)),
      denyWrite: role.role.denyWrite.map((p) => clean(p.glob)),
      allowRead: role.role.allowRead.map((p) => clean(p.glob)),
    },
    passed: passedTiers(ctx),
    neighbours: neighbours(ctx),
    sessionId: shownId(call.sessionId),
    ...(ctx.memory?.key() === undefined ? {} : { key: ctx.memory.key()! }),
  };
}

/** Every tier before this one, in cascade order (TIERS is that order); the embedding tier only where it ran. */
function passedTiers(ctx: SupervisorTierContext): string[] {
  const from = TIERS.indexOf('module');
  return TIERS.slice(from, TIERS.indexOf('supervisor')).filter((t) => t !== 'embedding' || ctx.embedding !== undefined);
}

function requestPaths(ctx: SupervisorTierContext, writes: readonly Sanitized[] | undefined): RequestPath[] {
  const inProject = (p: string): boolean => p === ctx.projectRoot || p.startsWith(`${ctx.projectRoot}/`);
  const out: RequestPath[] = [];
  const seen = new Set<string>();
  const add = (path: string, access: RequestPath['access']): void => {
    // Deduplicated as shown: memory's write targets are sanitized already, the call's paths not yet.
    const shown = sanitize(path).text;
    if (out.length >= MAX_PATHS || seen.has(`${access}\0${shown}`)) return;
    seen.add(`${access}\0${shown}`);
    out.push({ path: shown, access, inProject: inProject(path) });
  };
  for (const w of writes ?? []) add(w, 'write');
  const access = ctx.call.action === 'write' ? 'write' : 'read';
  for (const p of ctx.paths) if (p.absolute !== '') add(p.absolute, access);
  return out;
}

/** The nearest remembered calls of the same tool, for this role or every role, best first. */
function neighbours(ctx: SupervisorTierContext): RequestNeighbour[] {
  const memory = ctx.memory;
  if (memory === undefined || memory.view.empty) return [];
  const subject = memory.subject();
  if (subject === undefined) return [];
  const tokens = tokenize(subject.text, ctx);
  if (tokens.length === 0) return [];
  const role = ctx.role.role.name;
  const out: RequestNeighbour[] = [];
  for (const { record, score } of memory.view.similar(tokens, ctx, NEIGHBOUR_THRESHOLD)) {
    if (record.tool !== subject.tool || (record.role !== role && record.role !== ANY_ROLE)) continue;
    out.push({ subject: record.subject, verdict: record.verdict, score, decidedBy: record.decided_by });
    if (out.length >= MAX_NEIGHBOURS) break;
  }
  return out;
}

export const supervisorTier: Tier = { name: 'supervisor', decide: supervise };
