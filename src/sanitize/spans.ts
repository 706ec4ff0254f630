/**
 * Containment queries over findings in O(log n): "is [start, end) inside one of the spans?".
 *
 * The spans are kept sorted by start with a running maximum of their ends, so the query is one binary
 * search (the last span starting at or before `start`) and one comparison (the largest end among all
 * spans that start at or before it). A scan over every earlier finding per query made the pipeline
 * quadratic on secret-dense text (issue 13).
 */
import { countAtMost } from '../util/sorted.js';

export class SpanIndex {
  private readonly starts: number[] = [];
  /** maxEnd[i] = the largest end of spans 0..i. */
  private readonly maxEnd: number[] = [];

  /** An index over `spans`, in any order. */
  static of(spans: readonly { start: number; end: number }[]): SpanIndex {
    const index = new SpanIndex();
    const sorted = spans.map((s) => [s.start, s.end] as const).sort((a, b) => a[0] - b[0]);
    for (const [start, end] of sorted) index.add(start, end);
    return index;
  }

  /**
   * Adds a span. Cheap when spans arrive in order of start, as each layer finds them (left to right): a
   * span that starts before the last one is moved back into place, which costs the spans it passes — a
   * few at most for the near-ordered spans the layers produce (overlapping known prefixes).
   */
  add(start: number, end: number): void {
    const { starts, maxEnd } = this;
    let at = starts.length;
    while (at > 0 && starts[at - 1]! > start) at--;
    if (at === starts.length) {
      starts.push(start);
      maxEnd.push(at === 0 ? end : Math.max(maxEnd[at - 1]!, end));
      return;
    }
    starts.splice(at, 0, start);
    maxEnd.splice(at, 0, at === 0 ? end : Math.max(maxEnd[at - 1]!, end));
    // The spans it passed now have it before them; their running maxima are non-decreasing, so stop at the
    // first one that already reaches its end.
    for (let i = at + 1; i < maxEnd.length && maxEnd[i]! < end; i++) maxEnd[i] = end;
  }

  /** Is [start, end) inside one of the spans (s.start <= start && end <= s.end)? */
  covers(start: number, end: number): boolean {
    const { starts, maxEnd } = this;
    // The spans with starts[i] <= start all start early enough; one of them must end late enough.
    const early = countAtMost(starts, start);
    return early > 0 && maxEnd[early - 1]! >= end;
  }
}
