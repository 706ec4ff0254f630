/**
 * Settling what a session's earlier tool calls left pending, without a PostToolUse hook. Claude Code runs a
 * PostToolUse hook on every tool call, and even one with nothing to do costs the step (a process start, or
 * an http round trip the client waits for), so `install --claude`'s http wiring has none. What PostToolUse
 * did is done at the session's next hook event instead — its next PreToolUse, its next prompt, the end of
 * its turn (Stop) or of the session (SessionEnd) — at the edge, before anything is decided:
 *
 *   - provenance (session/provenance.ts settleCreations): a noted path that now holds a file born after the
 *     note is recorded, from the file system alone;
 *   - an approval at the host's prompt (memory/learn.ts): the transcript the host named for this session
 *     (hosts/claude-transcript.ts) holds exactly one `tool_use` and one `tool_result` for the asked call,
 *     and the result is not an error — the tool ran. A refusal, a deny, a missing or doubled result, or a
 *     transcript that is not the one named when hookwise asked teach nothing (fail closed);
 *   - a confined run's walls hit, from its result's text (an ask: it can only tighten);
 *   - the circuit breaker: a run of failures (each counted by PostToolUseFailure, which stays: it fires only
 *     on failures) ends when the transcript shows a call made after one of them whose result is not an
 *     error; the failures made after that call stay counted (endBreakerRun).
 *
 * Claude Code writes a result to the transcript shortly after the tool ran, not before the next hook fires:
 * a note whose result is not there yet waits for a later point (SettlePoint). A new prompt drops what is
 * left (session-events.ts: the human took seconds, the previous turn's results are written), and so does the
 * end of the session, after looking again a few times (LATE_SETTLES_MS). A PostToolUse that still arrives
 * (the command wiring, the plugin) finds its note claimed or not: exactly one of the two records (notes are
 * claimed by renaming).
 */
import { lstatSync, readdirSync } from 'node:fs';
import type { HookEvent, ToolCall } from '../core/tool-call.js';
import type { HostAdapter } from '../hosts/adapter.js';
import { toolShape } from '../hosts/adapter.js';
import { MAX_TAIL_BYTES, readClaudeTranscript, type TranscriptReading } from '../hosts/claude-transcript.js';
import {
  dropPendingNote,
  dropSessionNotes,
  learnFromHost,
  PENDING_NOTE_NAME,
  pendingNoteName,
  sessionPendingDir,
} from '../memory/learn.js';
import { breakerSuccessBefore, toolUseKey, type ModuleState } from '../modules/machine.js';
import { moduleStateFile, readModuleState, updateModuleState } from '../modules/state-file.js';
import { sanitize } from '../sanitize/index.js';
import { shownError } from '../sanitize/shown.js';
import { statIfPresent } from '../util/fs-safe.js';
import {
  claimRunCreations,
  recordRunCreations,
  settleCreations,
  type ClaimedRun,
  type ListRunAdditions,
} from '../session/provenance.js';
import type { Locations } from '../util/locations.js';
import type { CheckResult, EnginePorts } from './ports.js';

/**
 * Where a session is settled: before its next call, at the end of a turn (Stop), or of the session
 * (SessionEnd). Claude Code writes a result to the transcript a moment after it ran the tool — at the next
 * call, the result of the one just before is often not there yet — so a note waits for a later point; at
 * the end of a turn every call has finished, and a file not created by then never was.
 */
export type SettlePoint = 'next-call' | 'turn-end' | 'session-end';

/**
 * After SessionEnd the client exits, and its last results reach the transcript around then: the daemon looks
 * again this many times, this long after (a count, never a wait anything depends on), then drops what is
 * left. In a one-shot process the timers do not hold it open; a prompt or the next session's files never
 * depend on them.
 */
const LATE_SETTLES_MS = [250, 1000, 4000] as const;

type TurnEnd = Extract<HookEvent, { kind: 'turn-end' }>;

/**
 * Stop / SessionEnd: settle the session; after SessionEnd, look again later and drop what is left. The entry
 * point for turn-end events. The turn's confined runs are claimed now and their snapshots read once the
 * answer is sent (`runsAfter`: the engine's after-answer work).
 */
export function answerTurnEnd(
  ports: Pick<EnginePorts, 'where'>,
  event: TurnEnd,
  adapter: HostAdapter,
  runsAfter: (runs: ClaimedRun[]) => CheckResult['after'],
): CheckResult {
  const out: CheckResult = adapter.renderNothing();
  const settled = settleSession(ports.where, event, event.sessionOver ? 'session-end' : 'turn-end');
  if (event.sessionOver) settleLater(ports.where, event, 0);
  if (settled.problem !== undefined) out.stderr = settled.problem;
  const after = settled.runs ? runsAfter(claimRuns(ports.where, event, 'all')) : undefined;
  if (after !== undefined) out.after = after;
  return out;
}

/** What settling before an event found: a line for stderr when something could not be settled; confined runs left. */
export interface SettleOutcome {
  problem: string | undefined;
  /** Confined runs' notes wait: their snapshots are read after the answer (claimRuns, recordRunCreations). */
  runs: boolean;
}

function settleLater(where: Locations, event: TurnEnd, attempt: number): void {
  const delay = LATE_SETTLES_MS[attempt];
  if (delay === undefined) {
    try {
      dropSessionNotes(where.runtimeDir, event.sessionId);
    } catch {
      // Best effort: a note left behind expires (PENDING_TTL_MS) and only ever teaches when proven.
    }
    return;
  }
  setTimeout(() => {
    settleSession(where, event, 'session-end');
    settleLater(where, event, attempt + 1);
  }, delay).unref();
}

/**
 * Settle what the session's earlier calls left pending. Returns a line for stderr when something could not
 * be settled (never throws: settling must not block the call that triggered it).
 */
export function settleSession(where: Locations, event: HookEvent, point: SettlePoint): SettleOutcome {
  const outcome: SettleOutcome = { problem: undefined, runs: false };
  try {
    outcome.problem = settle(where, event, point, outcome);
  } catch (error) {
    outcome.problem = `hookwise: could not settle this session's earlier tool calls: ${shownError(error)}\n`;
  }
  return outcome;
}

/**
 * The session's confined runs to read now: every one (`all`, at the end of a turn: every call has finished), or
 * those whose result the transcript holds (the run has finished; a run still going would be read half done).
 * Claimed here, synchronously, so that a prompt that drops the session's notes right after does not lose them.
 */
export function claimRuns(where: Locations, event: HookEvent, which: 'all' | 'finished'): ClaimedRun[] {
  try {
    if (which === 'all') return claimRunCreations(where, event.sessionId, 'all');
    const reading = transcriptOf(event, 'next-call');
    if (reading === undefined || typeof reading === 'string') return [];
    const finished = new Set([...reading.results].filter(([, r]) => r.length === 1).map(([id]) => id));
    return claimRunCreations(where, event.sessionId, finished);
  } catch {
    return []; // left noted: a later settle, or the end of the turn, claims them
  }
}

/**
 * The files the claimed confined runs added, read from their snapshots (git, without blocking) and recorded:
 * after the answer was sent. Until then a deletion of such a file asks (no record vouches for it). Returns a
 * line for the log when a run could not be read.
 */
export async function settleRuns(
  where: Locations,
  sessionId: string,
  runs: readonly ClaimedRun[],
  listRun: ListRunAdditions,
): Promise<string | undefined> {
  if (runs.length === 0) return undefined;
  try {
    await recordRunCreations(where, sessionId, runs, listRun);
    return undefined;
  } catch (error) {
    return `hookwise: could not record the files a confined run created: ${shownError(error)}\n`;
  }
}

/** A failure is about to be counted (PostToolUseFailure): first, did a success end the run before it? */
export function settleBreakerRun(where: Locations, event: HookEvent): void {
  if (!breakerRunOpen(where, event.sessionId)) return;
  const reading = transcriptOf(event, 'next-call');
  if (reading !== undefined && typeof reading !== 'string') endBreakerRun(where, event.sessionId, reading);
}

function settle(where: Locations, event: HookEvent, point: SettlePoint, outcome: SettleOutcome): string | undefined {
  const { sessionId } = event;
  let names: string[];
  try {
    // Nothing pending is the common case: a stat says so, where a failed readdir's exception (its stack
    // trace) cost six times as much (25 against 4 µs here), before every call of every session.
    const dir = sessionPendingDir(where.runtimeDir, sessionId);
    names = statIfPresent(dir) === undefined ? [] : readdirSync(dir);
  } catch {
    names = []; // not listable: nothing this session left is settled (its notes expire)
  }
  if (names.some((n) => n.startsWith('p-')))
    outcome.runs = settleCreations(where, sessionId, point !== 'next-call', names).runs > 0;
  const asked = new Set(names.filter((n) => PENDING_NOTE_NAME.test(n)));
  const breakerRun = asked.size === 0 ? breakerRunOpen(where, sessionId) : undefined;
  if (asked.size === 0 && breakerRun !== true) return undefined;
  const reading = transcriptOf(event, point);
  if (reading === undefined) return undefined;
  // Said once a turn, not on every call while a note waits (nothing is learned either way).
  if (typeof reading === 'string')
    return point === 'next-call'
      ? undefined
      : `hookwise: the session transcript proves nothing, so nothing is learned from it: ${sanitize(reading).text}\n`;
  learnFromTranscript(where, event, event.transcriptPath!, reading, asked);
  if (breakerRun ?? breakerRunOpen(where, sessionId)) endBreakerRun(where, sessionId, reading);
  return undefined;
}

/**
 * How much of the transcript's end is read: before a call, the results looked for are recent, and a note
 * whose result is not written yet would otherwise make every call read the most; once per turn, the most.
 */
const NEXT_CALL_TAIL_BYTES = 512 * 1024;

/** The session's transcript, read; why not (a string); or undefined when the host names none (only Claude Code's is read). */
function transcriptOf(event: HookEvent, point: SettlePoint): TranscriptReading | string | undefined {
  if (event.host !== 'claude' || event.transcriptPath === undefined) return undefined;
  const bytes = point === 'next-call' ? NEXT_CALL_TAIL_BYTES : MAX_TAIL_BYTES;
  const read = readClaudeTranscript(event.transcriptPath, event.sessionId, bytes);
  return read.kind === 'read' ? read.reading : read.why;
}

/** Each pending note whose call has a result in the transcript: learned from (memory/learn.ts), or dropped when ambiguous. */
function learnFromTranscript(
  where: Locations,
  event: HookEvent,
  transcriptPath: string,
  reading: TranscriptReading,
  notes: ReadonlySet<string>,
): void {
  for (const [toolUseId, results] of reading.results) {
    if (!notes.has(pendingNoteName(event.sessionId, toolUseId))) continue;
    const uses = reading.toolUses.get(toolUseId) ?? [];
    const result = results[0]!;
    // One call, one result: anything else is not a transcript the host wrote for one run of the tool.
    if (results.length !== 1 || uses.length !== 1) {
      dropPendingNote(where.runtimeDir, event.sessionId, toolUseId);
      continue;
    }
    const shape = toolShape(uses[0]!);
    const call: ToolCall = {
      host: 'claude',
      sessionId: event.sessionId,
      cwd: event.cwd,
      hostTool: uses[0]!,
      tool: shape.tool,
      action: shape.action,
      paths: [],
      input: {},
      toolUseId,
    };
    learnFromHost(
      call,
      where,
      { failed: result.isError, output: result.text },
      { transcriptPath, ran: !result.isError },
    );
  }
}

/** Whether the session's breaker counts a run of failures now (state read only when its file exists). */
function breakerRunOpen(where: Locations, sessionId: string): boolean {
  if (lstatSync(moduleStateFile(where.runtimeDir, sessionId), { throwIfNoEntry: false }) === undefined) return false;
  const read = readModuleState(where, sessionId);
  return read.kind === 'valid' && read.state.breaker.consecutive > 0;
}

/**
 * A run of failures ends with a success: a call the model made after one of the run's counted failures whose
 * one result is not an error. The last such success counts, and the failures made after it stay counted
 * (machine.ts breakerSuccessBefore). A result the host has not written yet is not seen now, but the run's
 * failures are kept, so a later settle finds it (the breaker may trip early, never late). A failure whose
 * call is not in the part of the transcript read stays counted; a state without the failures' calls (counted
 * from payloads without a tool_use id) is never ended this way.
 */
function endBreakerRun(where: Locations, sessionId: string, reading: TranscriptReading): void {
  const calls = [...reading.toolUses];
  const order = new Map(calls.map(([toolUseId], i) => [toolUseKey(toolUseId), i]));
  const ended = (s: ModuleState): ModuleState => {
    const failures = s.breaker.failures ?? [];
    const placed = failures.map((f) => order.get(f)).filter((i) => i !== undefined);
    if (placed.length === 0) return s;
    const first = Math.min(...placed);
    for (let i = calls.length - 1; i > first; i--) {
      const [toolUseId, names] = calls[i]!;
      const results = reading.results.get(toolUseId);
      if (names.length !== 1 || results?.length !== 1 || results[0]!.isError) continue;
      return breakerSuccessBefore(s, new Set(failures.filter((f) => (order.get(f) ?? Infinity) > i)));
    }
    return s;
  };
  // Looked at without the lock first: most settles change nothing, and a write is durable (an fsync).
  const read = readModuleState(where, sessionId);
  if (read.kind !== 'valid' || ended(read.state) === read.state) return;
  // Decided again under the lock, on the state as it is then (a failure counted meanwhile is in it).
  updateModuleState(where, sessionId, ended);
}
