/**
 * Learning from the host's own permission prompt — a human decision without a queue yet.
 *
 * When hookwise answers `ask` because no tier decided (tier `default`), the host (Claude Code) shows its
 * normal prompt. hookwise leaves a *pending* note for that tool_use_id in the private runtime directory.
 * If the host then runs the tool, its PostToolUse event carries the same tool_use_id: the human said yes,
 * so an allow is recorded for that exact call (decided_by `host-prompt`) in the learn scope (the user's by
 * default; never the committed project file unless the user's config says so). A "no" leaves no
 * PostToolUse: nothing is recorded, and the note goes at the session's next prompt (dropSessionNotes) or
 * expires after a day. Notes are kept per session (sessionPendingDir), so that the PostToolUse wrapper starts
 * Node only when this session has one.
 *
 * Never converted: an ask that a rule, a pack, a sensitive path, an override or memory produced is not a
 * "nobody decided" ask and leaves no note; and an allow is not recorded over an ask or deny that the learn
 * scope holds for the call by the time the tool ran.
 *
 * An ask propagated by similarity (tier `jaccard` or `embedding`) is recorded as an ask for this exact call, so a repeat
 * hits the exact cache and cannot drift to allow as the memory around it grows.
 *
 * Learning from the walls (issue 19): a confined allow leaves a note too. When the host reports the run
 * (PostToolUseFailure, or PostToolUse) and its output shows the walls stopped something (confine/walls.ts),
 * an ask is recorded for the agent's own command (decided_by `confine`, in a private scope), so the next
 * identical call is asked — and a similar one, through Jaccard's ask propagation — with a reason that names
 * what the walls blocked. That ask is the one remembered ask a human's approval at the host's prompt
 * replaces: the approved call then runs unconfined, remembered like any other approval.
 */
import { readdirSync, renameSync, rmdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Decision, Verdict } from '../core/decision.js';
import type { ToolCall } from '../core/tool-call.js';
import type { MemorySettings } from '../policy/config-types.js';
import { idFileKey, shownId } from '../sanitize/ids.js';
import { sanitize, type Sanitized } from '../sanitize/index.js';
import { ensurePrivateDir, readOwnedFile, unlinkBestEffort, writeFileAtomic } from '../util/fs-safe.js';
import { fnv1a64 } from '../util/hash.js';
import type { Locations } from '../util/locations.js';
import { appendWallsHit } from '../audit/walls-log.js';
import { appendSupervisorReview, reviewed, supervisionIn, type Supervision } from '../audit/supervisor-log.js';
import { describeWallKind, WALLS_HIT_RULE, wallsHit } from '../confine/wall-hits.js';
import type { ToolOutcome } from '../core/tool-call.js';
import { cacheKey } from './cache.js';
import { ANY_ROLE, appendRecords, loadScope, type DecisionRecord, type StoreTarget } from './store.js';
import type { CallSubject } from './subject.js';

/**
 * Claude Code permission modes in which a hook's `ask` is observed to reach the human's prompt: all six
 * that exist (Claude Code 2.1.330, tests/e2e/learning-modes.test.ts) — even auto, dontAsk and
 * bypassPermissions, where the client would otherwise decide alone, put a hook's ask to the human. A
 * payload without a mode, or with one this list does not know, teaches nothing: a tool that ran there
 * would prove no approval we understand.
 */
export const HUMAN_PROMPT_MODES: ReadonlySet<string> = new Set([
  'default',
  'acceptEdits',
  'plan',
  'auto',
  'dontAsk',
  'bypassPermissions',
]);

/** A pending note older than this is stale (the human said no, or the session ended). */
export const PENDING_TTL_MS = 24 * 60 * 60 * 1000;

/** The learn scope of a note: a session scope's id is not kept, it is the PostToolUse call's own. */
type PendingTarget = Exclude<StoreTarget, { scope: 'session' }> | { scope: 'session'; runtimeDir: string };

/**
 * A note holds no raw id: the session as its hash (to match the PostToolUse that claims it), the tool-use id
 * only in the file name's hash, the tool name as shown (sanitize/ids.ts).
 */
interface PendingAsk {
  version: 2;
  /** `asked` (absent in older notes): an ask a human may approve; `confined`: a confined allow to check for wall hits. */
  kind?: 'asked' | 'confined';
  session: string;
  /** The cache key; absent in a confined note (cacheKey(tool, subject) when claimed). */
  key?: string;
  tool: Sanitized;
  subject: Sanitized;
  commands: Sanitized[];
  writes: Sanitized[];
  /** The call's form, when the catalogue accounts for it (memory/form.ts). */
  form?: Sanitized;
  role: string;
  target: PendingTarget;
  ts: string;
  /** The project root the call was judged in, sanitized (for the walls log's project filter). */
  project?: Sanitized;
  /** What the supervisor said of this call, when it answered (its ask, or a recommendation below its threshold). */
  supervisor?: Supervision;
  /**
   * A hash of the transcript path the host gave with the call (transcriptKey): only that transcript may
   * later prove the call ran (settleFromTranscript). Absent: no transcript proves anything for this note.
   */
  transcript?: string;
}

function pendingTarget(target: StoreTarget): PendingTarget {
  return target.scope === 'session' ? { scope: 'session', runtimeDir: target.runtimeDir } : target;
}

function storeTarget(target: PendingTarget, sessionId: string): StoreTarget {
  return target.scope === 'session' ? { ...target, sessionId } : target;
}

export interface LearnPlaces {
  projectRoot: string;
  where: Locations;
  /** The session's transcript as the host named it with this call (Claude Code), kept in a note as a hash. */
  transcriptPath?: string | undefined;
}

/** What a note keeps of a transcript path: a hash, so that no path lands on disk. */
export function transcriptKey(path: string): string {
  return fnv1a64(`transcript\u0000${path}`);
}

export function pendingDir(runtimeDir: string): string {
  return join(runtimeDir, 'pending');
}

/** A Claude Code session id: a UUID. */
const SESSION_UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/**
 * One session's notes: `pending/s-<session id>/` for a UUID, `pending/h-<hash of the id>/` otherwise.
 *
 * Why per session: PostToolUse fires after every tool call, and the shell wrapper (plugin/bin/hookwise-hook,
 * and the inline command of `hookwise install --claude --wiring command`) starts Node only when a note is
 * pending. It learns the session from CLAUDE_CODE_SESSION_ID (which Claude Code gives its hooks) without
 * reading the payload, and looks only in that session's directory: a note another session left behind
 * costs nothing. The wrapper can test a UUID's shape with a `case` pattern but cannot hash, so a UUID names
 * its directory as it is: it is no secret (the audit log shows the same sanitized id), and an id that the
 * sanitizer would change, or of any other shape, is hashed like every id that names a file (sanitize/ids.ts).
 */
export function sessionPendingDir(runtimeDir: string, sessionId: string): string {
  const name =
    SESSION_UUID.test(sessionId) && shownId(sessionId) === sessionId ? `s-${sessionId}` : `h-${idFileKey(sessionId)}`;
  return join(pendingDir(runtimeDir), name);
}

function pendingFile(runtimeDir: string, sessionId: string, toolUseId: string): string {
  return join(sessionPendingDir(runtimeDir, sessionId), pendingNoteName(sessionId, toolUseId));
}

/** The file name of the note for one tool call (a hash: no id on disk). */
export function pendingNoteName(sessionId: string, toolUseId: string): string {
  return `${fnv1a64(`${idFileKey(sessionId)}\u0000${toolUseId}`)}.json`;
}

/** A note of the asked or confined kind (not a provenance note, `p-…`, nor the breaker's marker). */
export const PENDING_NOTE_NAME = /^[0-9a-f]{16}\.json$/;

/** Where learned decisions go, per the user's `memory.learn_scope`. Similarity asks never go to the project. */
export function learnTarget(
  settings: MemorySettings,
  places: LearnPlaces,
  sessionId: string,
  privateOnly = false,
): StoreTarget {
  const scope = privateOnly && settings.learnScope === 'project' ? 'user' : settings.learnScope;
  switch (scope) {
    case 'user':
      return { scope: 'user', userConfigDir: places.where.userConfigDir };
    case 'session':
      return { scope: 'session', runtimeDir: places.where.runtimeDir, sessionId };
    case 'project':
      return { scope: 'project', projectRoot: places.projectRoot };
  }
}

/** The record for a subject, in a target scope. */
/** A note's call as a subject again; a note's form is only trusted when it is a string (notes are files). */
function pendingSubject(pending: PendingAsk): Pick<CallSubject, 'tool' | 'text' | 'commands' | 'writes' | 'form'> {
  const subject = { tool: pending.tool, text: pending.subject, commands: pending.commands, writes: pending.writes };
  return typeof pending.form === 'string' ? { ...subject, form: pending.form } : subject;
}

export function recordFor(
  subject: Pick<CallSubject, 'tool' | 'text' | 'commands' | 'writes' | 'form'>,
  key: string,
  fields: Pick<DecisionRecord, 'role' | 'verdict' | 'reason' | 'tier' | 'decided_by'>,
  target: StoreTarget,
): DecisionRecord {
  const record: DecisionRecord = {
    key,
    tool: subject.tool,
    subject: subject.text,
    role: fields.role,
    verdict: fields.verdict,
    reason: fields.reason,
    tier: fields.tier,
    scope: target.scope,
    decided_by: fields.decided_by,
    ts: new Date().toISOString(),
  };
  if (subject.commands.length > 0) record.commands = subject.commands;
  if (subject.writes.length > 0) record.writes = subject.writes;
  if (subject.form !== undefined) record.form = subject.form;
  return record;
}

/** Will the host put this ask to a human, who can then teach us by approving? */
function promptedByHuman(d: Decision, call: ToolCall, settings: MemorySettings): boolean {
  // A supervisor's ask is a model's, not a human's: the human's answer at the prompt is learned over it.
  const nobodyDecided =
    d.tier === 'default' ||
    (d.tier === 'exact-cache' && d.rule?.id === WALLS_HIT_RULE) ||
    (d.tier === 'supervisor' && d.verdict === 'ask');
  // Only Claude Code reports PostToolUse with the PreToolUse's tool_use_id after its own prompt.
  if (!nobodyDecided || !settings.learn || call.host !== 'claude' || call.toolUseId === undefined) return false;
  return call.permissionMode !== undefined && HUMAN_PROMPT_MODES.has(call.permissionMode);
}

/** The tiers that propagate an ask by similarity (Jaccard, embedding): recorded for the exact call. */
const SIMILARITY_TIERS: ReadonlySet<string> = new Set(['jaccard', 'embedding']);

/** A confined allow whose run the host will report under the same tool_use_id (Claude Code; Codex speaks its JSON). */
function confinedAndReported(d: Decision, call: ToolCall, settings: MemorySettings): boolean {
  return (
    d.verdict === 'allow' &&
    d.confined !== undefined &&
    settings.learn &&
    call.host !== 'gemini' &&
    call.toolUseId !== undefined
  );
}

/**
 * After a PreToolUse decision: leave a pending note (an ask a human may answer, or a confined run to check
 * for wall hits) or record a propagated ask (see the module comment).
 */
export function rememberDecision(
  judged: { decision: Decision; memo?: { subject(): CallSubject | undefined; key(): string | undefined } },
  call: ToolCall,
  role: string,
  settings: MemorySettings,
  places: LearnPlaces,
): void {
  const d = judged.decision;
  if (judged.memo === undefined) return;
  if (d.tier === 'supervisor') rememberSupervised(d, judged.memo, call, role, settings, places);
  const confined = confinedAndReported(d, call, settings);
  if (!confined && (d.verdict !== 'ask' || (!SIMILARITY_TIERS.has(d.tier) && !promptedByHuman(d, call, settings))))
    return;
  const subject = judged.memo.subject();
  // A confined note's key is computed when it is claimed: hashing loads a native module that a hook process
  // deciding a confined allow does not need otherwise (~20 ms cold).
  const key = confined ? undefined : judged.memo.key();
  if (subject === undefined || (key === undefined && !confined)) return;
  if (SIMILARITY_TIERS.has(d.tier) && key !== undefined) {
    const target = learnTarget(settings, places, call.sessionId, true);
    const reason = sanitize(`asked again: ${d.reason}`).text;
    appendRecords(target, [
      recordFor(subject, key, { role, verdict: 'ask', reason, tier: d.tier, decided_by: 'rule' }, target),
    ]);
    return;
  }
  if (call.toolUseId === undefined) return; // checked above; narrows the type
  // A wall hit's ask lives in a private scope; the approval that replaces it must land in the same one.
  const privateOnly = confined || d.rule?.id === WALLS_HIT_RULE;
  const pending: PendingAsk = {
    version: 2,
    kind: confined ? 'confined' : 'asked',
    session: idFileKey(call.sessionId),
    ...(key === undefined ? {} : { key }),
    tool: shownId(subject.tool),
    subject: subject.text,
    commands: subject.commands,
    writes: subject.writes,
    ...(subject.form === undefined ? {} : { form: subject.form }),
    role,
    target: pendingTarget(learnTarget(settings, places, call.sessionId, privateOnly)),
    ts: new Date().toISOString(),
    ...(confined || supervisionIn(d) !== undefined ? { project: sanitize(places.projectRoot).text } : {}),
    ...(supervisionIn(d) === undefined ? {} : { supervisor: supervisionIn(d)! }),
    ...(places.transcriptPath === undefined ? {} : { transcript: transcriptKey(places.transcriptPath) }),
  };
  const dir = ensurePrivateDir(pendingDir(places.where.runtimeDir));
  if (Date.now() - lastPruned > PRUNE_EVERY_MS) {
    pruneStale(dir);
    lastPruned = Date.now();
  }
  ensurePrivateDir(sessionPendingDir(places.where.runtimeDir, call.sessionId));
  writeFileAtomic(pendingFile(places.where.runtimeDir, call.sessionId, call.toolUseId), JSON.stringify(pending), {
    mode: 0o600,
  });
}

/**
 * Pruning lists and stats every note: once per process for a hook call, at most once a minute in the
 * daemon (a note lives 24 h, and an expired one is ignored when claimed anyway).
 */
const PRUNE_EVERY_MS = 60_000;
let lastPruned = 0;

export function pruneStale(dir: string, now = Date.now()): void {
  const cutoff = now - PENDING_TTL_MS;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat === undefined) continue;
    if (!stat.isDirectory()) {
      // A note of an older version (pending/<hash>.json): nothing claims it any more.
      unlinkBestEffort(path);
      continue;
    }
    let left = 0;
    for (const note of readdirSync(path)) {
      const file = join(path, note);
      const noteStat = statSync(file, { throwIfNoEntry: false });
      if (noteStat !== undefined && noteStat.mtimeMs < cutoff) unlinkBestEffort(file);
      else left++;
    }
    // A session's directory goes once it is empty and has not been written for a TTL (a note written
    // into it meanwhile would touch its mtime).
    if (left === 0 && stat.mtimeMs < cutoff) removeEmptyDir(path);
  }
}

/**
 * A new prompt in a session: drop the session's notes. Every tool call of the previous turn has been
 * answered and, when it ran, reported by now (PostToolUse and PostToolUseFailure are synchronous), so what is
 * left is an ask the human declined, whose note would otherwise make each later PostToolUse of the session
 * start Node until it expires. Dropping a note only ever forgets; it never records anything.
 */
export function dropSessionNotes(runtimeDir: string, sessionId: string): number {
  const dir = sessionPendingDir(runtimeDir, sessionId);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0; // no notes for this session
  }
  for (const name of names) unlinkBestEffort(join(dir, name));
  return names.length;
}

/** Forget one call's note, teaching nothing (its outcome is not one hookwise can trust). */
export function dropPendingNote(runtimeDir: string, sessionId: string, toolUseId: string): void {
  unlinkBestEffort(pendingFile(runtimeDir, sessionId, toolUseId));
}

function removeEmptyDir(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // Not empty after all (a note just written), or already gone.
  }
}

/**
 * What a session's transcript says of a call (engine/settle.ts), when no PostToolUse reported it: which
 * transcript (it must be the one named when hookwise asked), and whether the tool ran (a result that is not
 * an error). A refusal at the host's prompt is an error result: it teaches nothing.
 */
export interface TranscriptProof {
  transcriptPath: string;
  ran: boolean;
}

/**
 * PostToolUse / PostToolUseFailure: the host ran a tool. If hookwise asked about exactly this tool_use_id
 * and nobody had decided, the human approved it at the host's prompt: record the allow. If hookwise let it
 * run confined and the walls stopped it, record an ask. Returns the record, if any.
 */
export function learnFromHost(
  call: ToolCall,
  where: Locations,
  outcome?: ToolOutcome,
  proof?: TranscriptProof,
): DecisionRecord | undefined {
  if (call.toolUseId === undefined) return undefined;
  const file = pendingFile(where.runtimeDir, call.sessionId, call.toolUseId);
  // Claim the note by renaming it: of two racing PostToolUse processes, exactly one records.
  const claimed = `${file}.${process.pid}.claimed`;
  try {
    renameSync(file, claimed);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let pending: PendingAsk;
  try {
    // Only a note of ours: a file planted in a runtime directory that was not private is refused.
    const bytes = readOwnedFile(claimed, 'a pending approval note');
    if (bytes === undefined) return undefined;
    pending = JSON.parse(bytes.toString('utf8')) as PendingAsk;
  } finally {
    unlinkBestEffort(claimed);
  }
  if (pending.version !== 2 || pending.tool !== shownId(call.tool) || pending.session !== idFileKey(call.sessionId))
    return undefined;
  if (Date.now() - Date.parse(pending.ts) > PENDING_TTL_MS) return undefined;
  // Read from a transcript: only the one the host named when it asked, and an asked call only when it ran.
  if (proof !== undefined) {
    if (pending.transcript === undefined || pending.transcript !== transcriptKey(proof.transcriptPath))
      return undefined;
    if (pending.kind !== 'confined' && !proof.ran) return undefined;
  }
  const target = storeTarget(pending.target, call.sessionId);
  const key = pending.key ?? cacheKey(pending.tool, pending.subject);
  if (pending.kind === 'confined') return learnFromWalls(pending, key, target, call, where, outcome);
  // Never convert an ask (or override a deny) that the scope holds for this call by now — but a wall hit's
  // ask is there to be answered by exactly this approval.
  const held = heldVerdict(target, key, pending.role);
  if (held !== undefined && held.decided_by !== 'confine' && held.decided_by !== 'supervisor') return undefined;
  if (pending.supervisor !== undefined) logReview(pending, 'allow', call, where);
  const record = recordFor(
    pendingSubject(pending),
    key,
    {
      role: pending.role,
      verdict: 'allow',
      reason: 'approved at the host’s permission prompt after hookwise asked' as Sanitized,
      tier: 'human',
      decided_by: 'host-prompt',
    },
    target,
  );
  appendRecords(target, [record]);
  return record;
}

/**
 * Tier 3's decision, remembered like a human's for exactly this call (ask stays ask: the exact cache asks
 * again and no similarity tier turns it into an allow). Never in the committed project scope: a model's
 * decision is not the team's. Off with `memory.learn: false`, like every other learning.
 */
function rememberSupervised(
  d: Decision,
  memo: { subject(): CallSubject | undefined; key(): string | undefined },
  call: ToolCall,
  role: string,
  settings: MemorySettings,
  places: LearnPlaces,
): void {
  if (!settings.learn) return;
  const subject = memo.subject();
  const key = memo.key();
  if (subject === undefined || key === undefined) return;
  const target = learnTarget(settings, places, call.sessionId, true);
  appendRecords(target, [
    recordFor(
      subject,
      key,
      { role, verdict: d.verdict, reason: sanitize(d.reason).text, tier: 'supervisor', decided_by: 'supervisor' },
      target,
    ),
  ]);
}

/** A human answered a call the supervisor had answered: for the override rate (audit/supervisor-log.ts). */
function logReview(pending: PendingAsk, human: Verdict, call: ToolCall, where: Locations): void {
  appendSupervisorReview(
    where.runtimeDir,
    reviewed({
      session: shownId(call.sessionId),
      tool: pending.tool,
      subject: pending.subject,
      supervisor: pending.supervisor!,
      human,
      channel: 'host-prompt',
      ...(pending.project === undefined ? {} : { project: pending.project }),
    }),
  );
}

/** An ask or deny that the scope holds for this key and role (or every role). */
function heldVerdict(target: StoreTarget, key: string, role: string): DecisionRecord | undefined {
  return loadScope(target).records.find(
    (r) => r.key === key && (r.role === role || r.role === ANY_ROLE) && r.verdict !== 'allow',
  );
}

/** A confined run the host reported: if its output shows the walls stopped it, the call is asked from now on. */
function learnFromWalls(
  pending: PendingAsk,
  key: string,
  target: StoreTarget,
  call: ToolCall,
  where: Locations,
  outcome: ToolOutcome | undefined,
): DecisionRecord | undefined {
  if (outcome === undefined) return undefined;
  const hit = wallsHit(outcome.output, where.home);
  // Never over an ask or deny the scope holds by now (within a scope the newest record wins).
  if (hit === undefined || heldVerdict(target, key, pending.role) !== undefined) return undefined;
  const line = sanitize(hit.line).text;
  const reason = sanitize(
    `it ran confined and the walls stopped ${describeWallKind(hit.kind)} (“${hit.line}”), so a human decides whether it may run unconfined`,
  ).text;
  const record = recordFor(
    pendingSubject(pending),
    key,
    { role: pending.role, verdict: 'ask', reason, tier: 'confine', decided_by: 'confine' },
    target,
  );
  appendRecords(target, [record]);
  appendWallsHit(where.runtimeDir, {
    ts: record.ts,
    session: shownId(call.sessionId),
    tool: pending.tool,
    input: pending.subject,
    kind: hit.kind,
    line,
    ...(pending.project === undefined ? {} : { project: pending.project }),
  });
  return record;
}
