/** Shared shapes of the sanitizer: what a detection is and which layer made it. */

/** The four detection layers, in the order they run. */
export const LAYERS = ['keyword', 'pattern', 'entropy', 'encoding'] as const;
export type Layer = (typeof LAYERS)[number];

/** One detected secret. Its span (start, end exclusive) is in UTF-16 offsets into the text that was scanned. */
export interface Finding {
  /** Stable rule id: a pattern id (`github-token`), `known-prefix:ghp_`, `high-entropy:hex`, `base64>github-token`, … */
  rule: string;
  layer: Layer;
  start: number;
  end: number;
}

/** Where a layer puts its findings: an array, or one that also indexes them for the later queries (detect.ts). */
export interface FindingSink {
  push(finding: Finding): unknown;
}

/** What replaces every detected secret. Chosen so that sanitizing it again detects nothing. */
export const REDACTED = '<REDACTED>';
