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
import { encodedRuns, isCredentialPair, MAX_DECODED_TOTAL, MAX_DEPTH, MIN_ENCODED_RUN, type DecodeBudget } from './encoding.js';
import { collectRuns, entropyFindings, MIN_LENGTH_THREE_CLASSES } from './entropy.js';
import { prefixFindings, scanKeywords } from './keywords.js';
import { runPatterns } from './patterns.js';
import type { Finding } from './types.js';

/** One run list serves layers 4 and 3 (each filters by its own minimum length). */
const MIN_RUN = Math.min(MIN_ENCODED_RUN, MIN_LENGTH_THREE_CLASSES);

/** All findings in `text`, sorted by start; identical spans reported once (the earlier layer's rule). */
export function detect(text: string, depth = 0, budget: DecodeBudget = { chars: MAX_DECODED_TOTAL }): Finding[] {
  if (text === '') return [];
  const findings: Finding[] = [];
  const scan = scanKeywords(text);
  if (scan.patterns.length > 0) runPatterns(text, scan.patterns, findings, scan.hits);
  const covered = (start: number, end: number): boolean => within(findings, start, end);
  if (scan.prefixes.length > 0) prefixFindings(text, scan, covered, findings);

  let harmless: Finding[] | undefined;
  const runs = collectRuns(text, MIN_RUN);
  for (const run of encodedRuns(text, covered, runs)) {
    // Past the depth limit or the budget the run is not read, so it cannot be cleared: redact it (fail closed).
    const limit = depth >= MAX_DEPTH ? 'too-deep' : budget.chars < run.decoded.length ? 'over-budget' : undefined;
    if (limit !== undefined) {
      findings.push({ rule: `${run.encoding}>${limit}`, layer: 'encoding', start: run.start, end: run.end });
      continue;
    }
    budget.chars -= run.decoded.length;
    const inner = detect(run.decoded, depth + 1, budget);
    if (inner.length > 0) {
      findings.push({ rule: `${run.encoding}>${inner[0]!.rule}`, layer: 'encoding', start: run.start, end: run.end });
    } else if (isCredentialPair(run.decoded) && run.encoding !== 'url') {
      findings.push({ rule: `${run.encoding}>credential-pair`, layer: 'encoding', start: run.start, end: run.end });
    } else {
      (harmless ??= []).push({ rule: 'decoded-text', layer: 'encoding', start: run.start, end: run.end });
    }
  }
  entropyFindings(text, { hexContext: scan.hexContext, skip: (s, e) => covered(s, e) || (harmless !== undefined && within(harmless, s, e)) }, findings, runs);
  return normalize(findings);
}

/** Is [start, end) inside one of the spans? (Few findings per text: a linear scan.) */
function within(spans: readonly Finding[], start: number, end: number): boolean {
  for (const f of spans) if (f.start <= start && end <= f.end) return true;
  return false;
}

function normalize(findings: Finding[]): Finding[] {
  if (findings.length < 2) return findings;
  const sorted = findings.map((f, i) => ({ f, i })).sort((a, b) => a.f.start - b.f.start || b.f.end - a.f.end || a.i - b.i);
  const out: Finding[] = [];
  for (const { f } of sorted) {
    const last = out[out.length - 1];
    if (last !== undefined && last.start === f.start && last.end === f.end) continue;
    out.push(f);
  }
  return out;
}
