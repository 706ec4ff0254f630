/**
 * The detection pipeline: every layer over one text, findings in the original text's offsets.
 *
 *   1. keyword scan (Aho-Corasick): which patterns can match, hex-context words, known prefixes
 *   2. patterns (RE2) for the confirmed keywords only
 *   1b. known prefix + long random body that no pattern matched
 *   4. encoded runs decoded and re-scanned (all layers, depth- and budget-limited, failing closed); a run
 *      that decodes to harmless text is exempt from 3, so base64 of prose is not mistaken for a key
 *   3. entropy over every remaining run
 */
import {
  encodedRuns,
  isCredentialPair,
  MAX_DECODED_TOTAL,
  MAX_DEPTH,
  MIN_ENCODED_RUN,
  type DecodeBudget,
} from './encoding.js';
import { collectRuns, entropyFindings, MIN_LENGTH_THREE_CLASSES, publicSpans } from './entropy.js';
import { prefixFindings, scanKeywords } from './keywords.js';
import { runPatterns } from './patterns.js';
import { SpanIndex } from './spans.js';
import { REDACTED, type Finding, type FindingSink } from './types.js';

/**
 * The most text one call scans for what is kept or sent (sanitize, sanitizeValue): past it the text is not
 * read but redacted whole, so the work of one call is bounded (≈ 0.3–0.5 s for 1 MiB of secret-dense text)
 * whatever a payload holds (up to 16 MiB), and nothing unscanned is ever kept.
 */
export const MAX_SCANNED_CHARS = 1024 * 1024;

/** Characters a token may be made of: the cut never falls inside a run of them. */
const TOKEN_CHAR = /[A-Za-z0-9_\-.+/=%:@~]/;

/**
 * detect(), bounded by MAX_SCANNED_CHARS: beyond it one `too-large` finding covers the rest. The cut moves
 * back to the start of the token it would split, so no secret is half-scanned (a text that is one long token
 * is redacted whole).
 */
export function detectBounded(text: string): Finding[] {
  if (text.length <= MAX_SCANNED_CHARS) return detect(text);
  // Room for the marker: the redacted text is within the cap, so sanitizing it again changes nothing.
  let cut = MAX_SCANNED_CHARS - REDACTED.length;
  while (cut > 0 && TOKEN_CHAR.test(text[cut - 1]!) && TOKEN_CHAR.test(text[cut]!)) cut--;
  const head = cut === 0 ? [] : detect(text.slice(0, cut));
  head.push({ rule: 'too-large', layer: 'pattern', start: cut, end: text.length });
  return head;
}

/** One run list serves layers 4 and 3 (each filters by its own minimum length). */
const MIN_RUN = Math.min(MIN_ENCODED_RUN, MIN_LENGTH_THREE_CLASSES);

/** All findings in `text`, sorted by start; identical spans reported once (the earlier layer's rule). */
export function detect(text: string, depth = 0, budget: DecodeBudget = { chars: MAX_DECODED_TOTAL }): Finding[] {
  if (text === '') return [];
  const findings: Finding[] = [];
  const scan = scanKeywords(text);
  if (scan.patterns.length > 0) runPatterns(text, scan.patterns, findings, scan.hits);
  // Each layer skips what the earlier ones (and its own earlier findings) cover. Pattern findings come
  // pattern by pattern, so they are indexed once, sorted; every later layer finds its spans left to right
  // and adds them to its own index as it goes (spans.ts).
  const patterns = SpanIndex.of(findings);
  const prefixes = new SpanIndex();
  const into = (index: SpanIndex): FindingSink => ({
    push(f: Finding): void {
      findings.push(f);
      index.add(f.start, f.end);
    },
  });
  const covered = (start: number, end: number): boolean => patterns.covers(start, end) || prefixes.covers(start, end);
  if (scan.prefixes.length > 0) prefixFindings(text, scan, covered, into(prefixes));

  const encoded = new SpanIndex();
  const harmless = new SpanIndex(); // runs that decode to harmless text: exempt from the entropy layer
  const found = into(encoded);
  const runs = collectRuns(text, MIN_RUN);
  for (const run of encodedRuns(text, covered, runs)) {
    // Past the depth limit or the budget the run is not read, so it cannot be cleared: redact it (fail closed).
    const limit = depth >= MAX_DEPTH ? 'too-deep' : budget.chars < run.decoded.length ? 'over-budget' : undefined;
    if (limit !== undefined) {
      found.push({ rule: `${run.encoding}>${limit}`, layer: 'encoding', start: run.start, end: run.end });
      continue;
    }
    budget.chars -= run.decoded.length;
    const inner = detect(run.decoded, depth + 1, budget);
    if (inner.length > 0) {
      found.push({ rule: `${run.encoding}>${inner[0]!.rule}`, layer: 'encoding', start: run.start, end: run.end });
    } else if (isCredentialPair(run.decoded) && run.encoding !== 'url') {
      found.push({ rule: `${run.encoding}>credential-pair`, layer: 'encoding', start: run.start, end: run.end });
    } else {
      harmless.add(run.start, run.end);
    }
  }
  const entropy = new SpanIndex();
  const skip = (s: number, e: number): boolean =>
    covered(s, e) || encoded.covers(s, e) || harmless.covers(s, e) || entropy.covers(s, e);
  entropyFindings(text, { hexContext: scan.hexContext, skip, publicSpans: publicSpans(text) }, into(entropy), runs);
  return normalize(findings);
}

function normalize(findings: Finding[]): Finding[] {
  if (findings.length < 2) return findings;
  const sorted = findings
    .map((f, i) => ({ f, i }))
    .sort((a, b) => a.f.start - b.f.start || b.f.end - a.f.end || a.i - b.i);
  const out: Finding[] = [];
  for (const { f } of sorted) {
    const last = out[out.length - 1];
    if (last !== undefined && last.start === f.start && last.end === f.end) continue;
    out.push(f);
  }
  return out;
}
