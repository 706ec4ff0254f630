/**
 * Issue 13: detect() answers containment queries from sorted span indexes (src/sanitize/spans.ts) instead
 * of scanning every earlier finding. The findings must be exactly those of the old pipeline: this file
 * keeps the old one, with its linear-scan `within`, as the reference and compares both on generated
 * secret-dense inputs.
 */
import { describe, expect, it } from 'vitest';
import { secretDenseText } from '../../bench/secret-dense.js';
import { detect } from '../../src/sanitize/detect.js';
import {
  encodedRuns,
  isCredentialPair,
  MAX_DECODED_TOTAL,
  MAX_DEPTH,
  MIN_ENCODED_RUN,
  type DecodeBudget,
} from '../../src/sanitize/encoding.js';
import { collectRuns, entropyFindings, MIN_LENGTH_THREE_CLASSES, publicSpans } from '../../src/sanitize/entropy.js';
import { prefixFindings, scanKeywords } from '../../src/sanitize/keywords.js';
import { runPatterns } from '../../src/sanitize/patterns.js';
import { SpanIndex } from '../../src/sanitize/spans.js';
import type { Finding } from '../../src/sanitize/types.js';
import { prng } from '../support/prng.js';

/** The pipeline as it was before issue 13: every containment query scans all earlier findings. */
function referenceDetect(text: string, depth = 0, budget: DecodeBudget = { chars: MAX_DECODED_TOTAL }): Finding[] {
  if (text === '') return [];
  const findings: Finding[] = [];
  const scan = scanKeywords(text);
  if (scan.patterns.length > 0) runPatterns(text, scan.patterns, findings, scan.hits);
  const covered = (start: number, end: number): boolean => within(findings, start, end);
  if (scan.prefixes.length > 0) prefixFindings(text, scan, covered, findings);
  let harmless: Finding[] | undefined;
  const runs = collectRuns(text, Math.min(MIN_ENCODED_RUN, MIN_LENGTH_THREE_CLASSES));
  for (const run of encodedRuns(text, covered, runs)) {
    const limit = depth >= MAX_DEPTH ? 'too-deep' : budget.chars < run.decoded.length ? 'over-budget' : undefined;
    if (limit !== undefined) {
      findings.push({ rule: `${run.encoding}>${limit}`, layer: 'encoding', start: run.start, end: run.end });
      continue;
    }
    budget.chars -= run.decoded.length;
    const inner = referenceDetect(run.decoded, depth + 1, budget);
    if (inner.length > 0) {
      findings.push({ rule: `${run.encoding}>${inner[0]!.rule}`, layer: 'encoding', start: run.start, end: run.end });
    } else if (isCredentialPair(run.decoded) && run.encoding !== 'url') {
      findings.push({ rule: `${run.encoding}>credential-pair`, layer: 'encoding', start: run.start, end: run.end });
    } else {
      (harmless ??= []).push({ rule: 'decoded-text', layer: 'encoding', start: run.start, end: run.end });
    }
  }
  entropyFindings(
    text,
    {
      hexContext: scan.hexContext,
      skip: (s, e) => covered(s, e) || (harmless !== undefined && within(harmless, s, e)),
      publicSpans: publicSpans(text),
    },
    findings,
    runs,
  );
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

function within(spans: readonly Finding[], start: number, end: number): boolean {
  for (const f of spans) if (f.start <= start && end <= f.end) return true;
  return false;
}

/**
 * A secret-dense text, then mangled so spans nest and collide in ways whole lines do not: pieces cut at
 * random points and glued without separators, token prefixes repeated inside bodies, base64 of slices.
 */
function mangled(seed: number, size: number): string {
  const random = prng(seed);
  const base = secretDenseText(size, seed);
  const pieces: string[] = [];
  for (let at = 0; at < base.length;) {
    const length = 1 + Math.floor(random() * 120);
    let piece = base.slice(at, at + length);
    const roll = random();
    if (roll < 0.1) piece = `gh${'p'}_${piece}`;
    else if (roll < 0.15) piece = Buffer.from(piece).toString('base64');
    else if (roll < 0.2) piece = piece.replaceAll(' ', '');
    else if (roll < 0.25) piece = `${piece}\n`;
    pieces.push(piece);
    at += length;
  }
  return pieces.join(random() < 0.5 ? '' : ' ');
}

describe('detect is the old pipeline, in linear time (issue 13)', () => {
  it('finds exactly what the linear-scan reference finds on generated secret-dense inputs', () => {
    let compared = 0;
    for (let seed = 1; seed <= 120; seed++) {
      // Mostly short texts (whole-text pattern runs); every tenth one is past WINDOWED_TEXT (windowed runs).
      const size = seed % 10 === 0 ? 20_000 + seed * 100 : 50 + ((seed * 997) % 4000);
      for (const text of [secretDenseText(size, seed), mangled(seed, size)]) {
        const expected = referenceDetect(text);
        expect(detect(text), `seed ${seed}, ${text.length} chars`).toEqual(expected);
        compared += expected.length;
      }
    }
    expect(compared).toBeGreaterThan(1000); // the inputs really are secret-dense
  });
});

describe('SpanIndex', () => {
  it('answers containment like a scan over every span, for spans added in any order', () => {
    const random = prng(42);
    const wrong: string[] = [];
    for (let round = 0; round < 200; round++) {
      const spans: Array<{ start: number; end: number }> = [];
      const index = new SpanIndex();
      const scan = (s: number, e: number): boolean => spans.some((f) => f.start <= s && e <= f.end);
      for (let i = 0; i < 40; i++) {
        // Mostly ascending starts (as the layers add them), sometimes a step back.
        const start = Math.max(0, i * 5 + Math.floor(random() * 20) - (random() < 0.2 ? 30 : 0));
        const span = { start, end: start + 1 + Math.floor(random() * 40) };
        spans.push(span);
        index.add(span.start, span.end);
        for (let q = 0; q < 10; q++) {
          const s = Math.floor(random() * 260);
          const e = s + Math.floor(random() * 30);
          if (index.covers(s, e) !== scan(s, e)) wrong.push(`round ${round}, added ${i + 1}: [${s}, ${e})`);
        }
      }
      const built = SpanIndex.of(spans);
      for (let s = 0; s < 260; s += 3)
        for (let e = s; e < s + 40; e += 7)
          if (built.covers(s, e) !== scan(s, e)) wrong.push(`round ${round}, built: [${s}, ${e})`);
    }
    expect(wrong).toEqual([]);
  });
});
