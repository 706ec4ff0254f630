/**
 * A human's queue answer, remembered at the edge (after the decision, like learn.ts): approve → allow,
 * deny → deny, `--always-ask` → ask, with decided_by `human`. Once per item — by the call that made it — so 64
 * identical waiting calls write one record. `--scope` picks the store (default: memory.learn_scope);
 * `--add-rule` stores it as a standing override for this exact call's pattern (`Bash(<segment>)`,
 * `<Tool>(<path>)`) instead of a record for the exact call; a call that no exact pattern can name (several
 * segments, a glob character in it) is remembered as the exact call, and the note says so.
 */
import { appendSupervisorReview, reviewed } from '../audit/supervisor-log.js';
import type { Verdict } from '../core/decision.js';
import type { ResolvedPath, ToolCall } from '../core/tool-call.js';
import { learnTarget, recordFor, type LearnPlaces } from '../memory/learn.js';
import { overrideKey, overrideSubject } from '../memory/overrides.js';
import { appendRecords, type DecisionRecord, type StoreTarget } from '../memory/store.js';
import type { CallSubject } from '../memory/subject.js';
import { isFileTool } from '../memory/view.js';
import type { MemorySettings } from '../policy/config-types.js';
import { sanitizeCall } from '../sanitize/call.js';
import { shownId } from '../sanitize/ids.js';
import { sanitize, type Sanitized } from '../sanitize/index.js';
import type { HumanAnswered } from './tier.js';
import type { AnswerScope } from './types.js';

export interface HumanMemo {
  subject(): CallSubject | undefined;
  key(): string | undefined;
}

/** What was remembered, for the hook's stderr note; undefined when nothing was (not the first call, a policy ask). */
export function rememberHumanAnswer(
  answered: HumanAnswered,
  memo: HumanMemo | undefined,
  call: ToolCall,
  paths: readonly ResolvedPath[],
  role: string,
  settings: MemorySettings,
  places: LearnPlaces,
): string | undefined {
  if (!answered.first || memo === undefined) return undefined;
  // The supervisor answered this call: the human's answer is a review of it (its override rate in stats).
  if (answered.supervision !== undefined) logReview(answered, memo, call, places);
  if (!answered.rememberable) return undefined;
  // Learning switched off (memory.learn: false) keeps only what the human asked for explicitly: a rule.
  if (!settings.learn && !answered.answer.addRule) return `not remembered: memory.learn is off (${settings.source})`;
  const subject = memo.subject();
  const key = memo.key();
  if (subject === undefined || key === undefined) return undefined;
  const { answer } = answered;
  const verdict: Verdict = answer.verdict === 'deny' ? 'deny' : answer.alwaysAsk ? 'ask' : 'allow';
  const target = targetOf(answer.scope, settings, places, call.sessionId);
  const reason = sanitize(
    `${answer.verdict === 'deny' ? 'denied' : answer.alwaysAsk ? 'approved once, ask every time' : 'approved'} by a human through the queue (item ${answered.id})`,
  ).text;
  const pattern = answer.addRule ? rulePattern(call, subject, paths, places.projectRoot) : undefined;
  if (pattern !== undefined) {
    const record: DecisionRecord = {
      key: overrideKey(subject.tool, pattern),
      tool: subject.tool,
      subject: overrideSubject(subject.tool, pattern) as Sanitized,
      role,
      verdict,
      reason,
      tier: 'override',
      scope: target.scope,
      decided_by: 'human',
      ts: new Date().toISOString(),
    };
    appendRecords(target, [record]);
    return `remembered as an override ${record.subject} → ${verdict} in the ${target.scope} scope`;
  }
  appendRecords(target, [
    recordFor(subject, key, { role, verdict, reason, tier: 'human', decided_by: 'human' }, target),
  ]);
  const note = answer.addRule
    ? ' (no exact override pattern names this call: it was remembered for the exact call; write a wider rule with hookwise override)'
    : '';
  return `remembered as ${verdict} for this exact call in the ${target.scope} scope${note}`;
}

function logReview(answered: HumanAnswered, memo: HumanMemo, call: ToolCall, places: LearnPlaces): void {
  const subject = memo.subject();
  appendSupervisorReview(
    places.where.runtimeDir,
    reviewed({
      session: shownId(call.sessionId),
      tool: shownId(call.tool),
      subject: subject?.text ?? sanitizeCall(call).text,
      supervisor: answered.supervision!,
      human: answered.answer.verdict === 'deny' ? 'deny' : 'allow',
      channel: 'queue',
      project: sanitize(places.projectRoot).text,
    }),
  );
}

function targetOf(
  scope: AnswerScope | undefined,
  settings: MemorySettings,
  places: LearnPlaces,
  sessionId: string,
): StoreTarget {
  switch (scope) {
    case undefined:
      return learnTarget(settings, places, sessionId);
    case 'user':
      return { scope: 'user', userConfigDir: places.where.userConfigDir };
    case 'project':
      return { scope: 'project', projectRoot: places.projectRoot };
    case 'session':
      return { scope: 'session', runtimeDir: places.where.runtimeDir, sessionId };
  }
}

const GLOB_CHARS = /[*?]/;

/**
 * The override pattern that names exactly this call: one shell segment's normalized text; a file tool's one
 * path (root-relative inside the project); another tool's subject. Undefined when no exact pattern exists.
 */
function rulePattern(
  call: ToolCall,
  subject: CallSubject,
  paths: readonly ResolvedPath[],
  projectRoot: string,
): string | undefined {
  let pattern: string | undefined;
  if (call.action === 'shell') pattern = subject.segments.length === 1 ? subject.segments[0] : undefined;
  else if (isFileTool(subject.tool)) {
    const path = paths.length === 1 ? paths[0]! : undefined;
    pattern =
      path === undefined
        ? undefined
        : path.absolute.startsWith(`${projectRoot}/`)
          ? path.absolute.slice(projectRoot.length + 1)
          : path.absolute;
    if (pattern !== undefined) pattern = sanitize(pattern).text;
  } else pattern = subject.text;
  if (pattern === undefined || pattern === '' || GLOB_CHARS.test(pattern) || pattern.includes('<REDACTED>'))
    return undefined;
  return pattern;
}
