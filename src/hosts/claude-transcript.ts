/**
 * What became of a session's tool calls, read from Claude Code's transcript (`transcript_path`, JSONL): each
 * `tool_use` the model made (id, tool name) and each `tool_result` the client sent back (id, whether it is an
 * error, its text). Claude Code 2.1.330 writes a call's result line before it sends the next request to the
 * model, so the next PreToolUse of the session (and Stop, SessionEnd) finds it there. A tool the host ran
 * has a result that is not an error; a call refused at the host's prompt, denied by a hook, or that failed
 * has `is_error: true` ("Error: …", "Exit code 1").
 *
 * The file is the host's, not ours, and an agent may try to forge it: it is read only when it is the path
 * the host gave for this session (`<session id>.jsonl`, no symbolic link on the way), a regular file of this
 * user that nobody else may write; only its last bytes are read (MAX_TAIL_BYTES: bytes, not time), and each
 * line is parsed on its own — a line that is not what we expect is skipped, never trusted. What the reading
 * proves is decided by the caller (engine/settle.ts), failing closed: no result, or two results for one id,
 * prove nothing.
 */
import { closeSync, constants, fstatSync, readSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, normalize } from 'node:path';
import { openOwnedFile } from '../util/fs-safe.js';

/** The most of the transcript's end read in one settle: results further back are not found (nothing learned). */
export const MAX_TAIL_BYTES = 4 * 1024 * 1024;
/** A line longer than this is skipped unparsed (a tool's huge output; nothing we look for is that long). */
const MAX_LINE_BYTES = 1024 * 1024;
/** The text kept of one result (what the walls detector reads; confine/wall-hits.ts looks at its ends). */
const MAX_RESULT_TEXT = 64 * 1024;

export interface TranscriptResult {
  toolUseId: string;
  isError: boolean;
  text: string;
}

export interface TranscriptReading {
  /** Tool names by tool_use id, in the order the model made the calls (an id made twice: both names). */
  toolUses: Map<string, string[]>;
  /** Results by tool_use id (an id answered twice: both results — a forgery, or a host we do not understand). */
  results: Map<string, TranscriptResult[]>;
  /** The last result in the file, if any: the newest tool outcome of the session. */
  last: TranscriptResult | undefined;
}

export type TranscriptRead = { kind: 'read'; reading: TranscriptReading } | { kind: 'refused'; why: string };

/**
 * Where Claude Code keeps what hookwise trusts it wrote, as absolute paths, each with everything below it: the
 * directory of the transcript the host named for this session and, when that path has Claude Code's layout
 * (`<config>/projects/<project>/<session>.jsonl`), the config directory above it — the other sessions'
 * transcripts, and the settings that hold the hooks; and the default places (`~/.claude`,
 * `$CLAUDE_CONFIG_DIR` as this process sees it). A write there could forge the transcript line an approval
 * is learned from (engine/settle.ts), so path policy and the walls keep every role from writing there
 * without a human. Pure: the caller canonicalizes.
 */
export function transcriptDirs(
  transcriptPath: string | undefined,
  home: string,
  configDir: string | undefined,
): string[] {
  const dirs = [join(home, '.claude')];
  if (configDir !== undefined && isAbsolute(configDir)) dirs.push(normalize(configDir));
  if (transcriptPath !== undefined && isAbsolute(transcriptPath)) {
    const dir = dirname(normalize(transcriptPath));
    dirs.push(dir);
    if (basename(dirname(dir)) === 'projects') dirs.push(dirname(dirname(dir)));
  }
  return [...new Set(dirs)];
}

/** A session id that can name a file as it is (Claude Code's are UUIDs). */
const PLAIN_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/** Read the end of a session's transcript, or say why it may not be trusted. Never throws. */
export function readClaudeTranscript(path: string, sessionId: string, maxBytes = MAX_TAIL_BYTES): TranscriptRead {
  if (!isAbsolute(path)) return { kind: 'refused', why: 'the transcript path is not absolute' };
  if (!PLAIN_ID.test(sessionId) || basename(path) !== `${sessionId}.jsonl`)
    return { kind: 'refused', why: 'the transcript is not named for this session' };
  let fd: number;
  try {
    // No link anywhere on the way: a directory swapped for a link would lead to a file someone else wrote.
    if (realpathSync(path) !== path) return { kind: 'refused', why: 'the transcript path goes through a link' };
    fd = openOwnedFile(path, constants.O_RDONLY, 0, 'a session transcript');
  } catch (error) {
    return { kind: 'refused', why: `the transcript cannot be read safely: ${(error as Error).message}` };
  }
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, maxBytes);
    const buffer = Buffer.alloc(length);
    let read = 0;
    while (read < length) {
      const n = readSync(fd, buffer, read, length - read, size - length + read);
      if (n === 0) break;
      read += n;
    }
    return { kind: 'read', reading: parseTail(buffer.subarray(0, read), length < size) };
  } catch (error) {
    return { kind: 'refused', why: `the transcript cannot be read: ${(error as Error).message}` };
  } finally {
    closeSync(fd);
  }
}

/** The lines of a tail (the first one dropped when the tail starts mid-file: it may be cut). */
export function parseTail(bytes: Buffer, cut: boolean): TranscriptReading {
  const reading: TranscriptReading = { toolUses: new Map(), results: new Map(), last: undefined };
  let start = 0;
  if (cut) {
    const newline = bytes.indexOf(0x0a);
    start = newline < 0 ? bytes.length : newline + 1;
  }
  while (start < bytes.length) {
    let end = bytes.indexOf(0x0a, start);
    if (end < 0) end = bytes.length;
    // A line still being written has no newline yet: JSON.parse refuses it, and it is skipped.
    if (end - start <= MAX_LINE_BYTES) readLine(bytes.toString('utf8', start, end), reading);
    start = end + 1;
  }
  return reading;
}

function readLine(line: string, reading: TranscriptReading): void {
  // Cheap filter first: most lines (attachments, request records) hold neither kind of block.
  if (!line.includes('"tool_use') && !line.includes('"tool_result"')) return;
  let entry: unknown;
  try {
    entry = JSON.parse(line);
  } catch {
    return;
  }
  if (!isRecord(entry) || !isRecord(entry.message)) return;
  const content = entry.message.content;
  if (!Array.isArray(content)) return;
  for (const block of content) {
    if (!isRecord(block) || typeof block.type !== 'string') continue;
    if (entry.type === 'assistant' && block.type === 'tool_use') {
      if (typeof block.id !== 'string' || typeof block.name !== 'string') continue;
      const names = reading.toolUses.get(block.id) ?? [];
      names.push(block.name);
      reading.toolUses.set(block.id, names);
    } else if (entry.type === 'user' && block.type === 'tool_result') {
      if (typeof block.tool_use_id !== 'string') continue;
      const result: TranscriptResult = {
        toolUseId: block.tool_use_id,
        // Only an explicit false or no flag is a result that is not an error (a Write's result has none).
        isError: block.is_error !== undefined && block.is_error !== false,
        text: resultText(block.content),
      };
      const results = reading.results.get(result.toolUseId) ?? [];
      results.push(result);
      reading.results.set(result.toolUseId, results);
      reading.last = result;
    }
  }
}

/** A result's content: a string, or text blocks; bounded to its two ends. */
function resultText(content: unknown): string {
  const text =
    typeof content === 'string'
      ? content
      : Array.isArray(content)
        ? content.map((b) => (isRecord(b) && b.type === 'text' && typeof b.text === 'string' ? b.text : '')).join('\n')
        : '';
  if (text.length <= MAX_RESULT_TEXT) return text;
  const half = MAX_RESULT_TEXT / 2;
  return `${text.slice(0, half)}\n${text.slice(-half)}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
