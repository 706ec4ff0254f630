/** A small DSL over the real parser for the shell tests: compact views of segments and write targets. */
import { expect } from 'vitest';
import { parseCommand } from '../../src/shell/parse.js';
import type { ParseResult, Segment } from '../../src/shell/types.js';
import { writeTargets } from '../../src/shell/writes.js';

/** Parse and require success; the segments. */
export function segments(command: string): Segment[] {
  const result = parseCommand(command);
  expect(result.ok, result.ok ? '' : `unexpectedly unparseable: ${result.reason}`).toBe(true);
  return result.segments;
}

/** `argv` of each segment joined by spaces (what runs, after unwrapping). */
export function commands(command: string): string[] {
  return segments(command).map((s) => s.argv.join(' '));
}

/** Parse and require failure; the reason. */
export function unparseable(command: string): string {
  const result: ParseResult = parseCommand(command);
  expect(result.ok, `expected unparseable, got ${JSON.stringify(result.segments.map((s) => s.argv))}`).toBe(false);
  return result.ok ? '' : result.reason;
}

/**
 * Write targets as `via path` strings (`*` marks a dynamic path, `@dir` the segment's cwd), plus the
 * unknown reasons.
 */
export function writes(command: string): { targets: string[]; unknown: string[] } {
  const result = parseCommand(command);
  expect(result.ok, result.ok ? '' : `unexpectedly unparseable: ${result.reason}`).toBe(true);
  const analysis = writeTargets(result.segments);
  return {
    targets: analysis.targets.map(
      (t) => `${t.via} ${t.path}${t.dynamic ? '*' : ''}${t.cwd === undefined ? '' : `@${t.cwd}`}`,
    ),
    unknown: analysis.unknown.map((u) => u.reason),
  };
}

/** Just the target strings, for one-line table rows. */
export function targets(command: string): string[] {
  return writes(command).targets;
}
