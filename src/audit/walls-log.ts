/**
 * The walls log: one JSON line per confined run that hit the walls (issue 19), beside the audit log in the
 * private runtime directory. The audit log holds decisions; this holds what happened after a confined allow,
 * learnt from the host's post-tool event, so `stats` can say how many confined calls the walls stopped.
 * Sanitized text only, each line bounded; appends are single writes of whole lines (appendOwnedLines).
 */
import { readJsonLines } from './jsonl.js';
import { join } from 'node:path';
import type { WallKind } from '../confine/wall-hits.js';
import { assertSanitized, type Sanitized } from '../sanitize/index.js';
import { appendOwnedLines } from '../util/fs-safe.js';

export interface WallsHitRecord {
  ts: string;
  /** The session id as shown (sanitize/ids.ts). */
  session: Sanitized;
  tool: Sanitized;
  /** The agent's command (not the wrapped one), sanitized. */
  input: Sanitized;
  kind: WallKind;
  /** The output line that showed it, sanitized and cut. */
  line: Sanitized;
  /** The project root the call was judged in, sanitized (as in the audit log). */
  project?: Sanitized;
}

const MAX_INPUT = 4096;

export function wallsLogPath(runtimeDir: string): string {
  return join(runtimeDir, 'walls.jsonl');
}

export function appendWallsHit(runtimeDir: string, record: WallsHitRecord): void {
  for (const text of [record.session, record.tool, record.input, record.line, record.project ?? ('' as Sanitized)])
    assertSanitized(text, 'the walls log');
  const input = (record.input.length <= MAX_INPUT ? record.input : `${record.input.slice(0, MAX_INPUT)}…`) as Sanitized;
  appendOwnedLines(wallsLogPath(runtimeDir), `${JSON.stringify({ ...record, input })}\n`, {
    mode: 0o600,
    purpose: 'the walls log',
  });
}

/** Every readable record, oldest first; an unreadable line is skipped and named in `problems`. */
export function readWallsHits(runtimeDir: string): { records: WallsHitRecord[]; problems: string[] } {
  return readJsonLines<WallsHitRecord>(wallsLogPath(runtimeDir), (value) =>
    typeof value.ts !== 'string' || typeof value.kind !== 'string' || typeof value.session !== 'string'
      ? 'missing ts, kind or session'
      : undefined,
  );
}
