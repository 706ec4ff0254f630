/** The work of one sanitize call is bounded: past MAX_SCANNED_CHARS nothing is read, everything is redacted. */
import { describe, expect, it } from 'vitest';
import { MAX_SCANNED_CHARS } from '../../src/sanitize/detect.js';
import { REDACTED, sanitize, sanitizeValue } from '../../src/sanitize/index.js';

const TOKEN = 'ghp_16C7e42F292c6912E7710c838347Ae178B4a'; // hookwise:allow
const filler = (n: number): string => 'the quick brown fox jumps over it. '.repeat(Math.ceil(n / 35)).slice(0, n);

describe('a text longer than one call scans', () => {
  it('is scanned up to the cap and redacted whole beyond it', () => {
    const text = `${filler(1000)} ${TOKEN} ${filler(MAX_SCANNED_CHARS)} tail-${TOKEN} end`;
    const { text: out, findings } = sanitize(text);
    expect(out).not.toContain(TOKEN.slice(4));
    expect(out).not.toContain('end');
    expect(out.endsWith(REDACTED)).toBe(true);
    expect(findings.at(-1)).toMatchObject({ rule: 'too-large', end: text.length });
    expect(out.length).toBeLessThanOrEqual(MAX_SCANNED_CHARS + REDACTED.length);
  });

  it('never splits a token at the cut: one that straddles it is redacted whole', () => {
    const at = MAX_SCANNED_CHARS - 10;
    const text = `${filler(at - 1)} ${TOKEN} ${filler(1000)}`;
    const out = sanitize(text).text;
    expect(out).not.toContain('ghp_16C7e4');
    expect(out).toContain(`${filler(at - 1)} ${REDACTED}`);
  });

  it('a text that is one long token is redacted whole', () => {
    expect(sanitize('a'.repeat(MAX_SCANNED_CHARS + 1)).text).toBe(REDACTED);
  });

  it('applies to every string of a JSON value (a Write of a large file)', () => {
    const { value, findings } = sanitizeValue({ content: `${filler(MAX_SCANNED_CHARS)} ${TOKEN}` });
    expect(JSON.stringify(value)).not.toContain(TOKEN);
    expect(findings.some((f) => f.rule === 'too-large' && f.path === '/content')).toBe(true);
  });

  it('is idempotent: the output sanitizes to itself', () => {
    const out = sanitize(`${filler(MAX_SCANNED_CHARS + 5000)} ${TOKEN}`).text;
    expect(sanitize(out).text).toBe(out);
  });
});
