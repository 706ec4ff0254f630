/**
 * Step time of a real client run against the fake Anthropic API: for every main-loop answer that asked for
 * tool calls, the gap from the moment that answer was fully sent to the arrival of the next main-loop
 * request (the one carrying the tool_result). It covers everything the client does per tool call — the
 * PreToolUse hooks, the tool itself, PostToolUse hooks, building the next request — and nothing of the
 * fake model. See /work/shared/spec/real-host-testing.md ("median gap from tool_use to the next request").
 */
import type { RecordedRequest } from './fake-anthropic.js';

/** Main-loop requests are answered with a scenario step; side calls (titles, summaries) are not. */
function isMainLoop(request: RecordedRequest): boolean {
  return request.answeredWith.startsWith('tool-calls:') || request.answeredWith === 'final-text';
}

/** One gap (ms) per tool-call answer that was followed by another main-loop request, in order. */
export function stepTimesMs(requests: readonly RecordedRequest[]): number[] {
  const main = requests.filter(isMainLoop);
  const gaps: number[] = [];
  for (let i = 0; i + 1 < main.length; i++) {
    const asked = main[i]!;
    if (!asked.answeredWith.startsWith('tool-calls:') || asked.answeredAt === undefined) continue;
    gaps.push(main[i + 1]!.receivedAt - asked.answeredAt);
  }
  return gaps;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
