/** Layer 4: each encoding is decoded, re-scanned, and the encoded original redacted when it hides a secret. */
import { describe, expect, it } from 'vitest';
import {
  decodeEscapes,
  decodePercent,
  encodedRuns,
  isCredentialPair,
  MAX_DEPTH,
  textual,
} from '../../src/sanitize/encoding.js';
import { detect as findSecrets } from '../../src/sanitize/detect.js';
import { sanitize } from '../../src/sanitize/index.js';
import { b64, b64url, hexEscaped, hexOf, octalEscaped, percentAll, rnd, unicodeEscaped } from './fakes.js';

const gh = `ghp_${rnd(36)}`;
const assignment = `API_TOKEN=${rnd(24)}`;

describe.each([
  ['base64', b64, 'base64>'],
  ['base64url', b64url, 'base64'],
  ['hex', hexOf, 'hex>'],
  ['URL encoding (%xx)', percentAll, 'url>'],
  ['\\uXXXX escapes', unicodeEscaped, 'unicode-escape>'],
  ['\\xNN escapes', hexEscaped, 'hex-escape>'],
  ['\\NNN octal escapes', octalEscaped, 'octal-escape>'],
] as const)('%s', (_name, encode, rulePrefix) => {
  it.each([
    ['a provider token', gh],
    ['a secret assignment', assignment],
  ])('hides %s: the encoded run is redacted', (_what, secret) => {
    const encoded = encode(secret);
    const { text, findings } = sanitize(`printf '%s' ${encoded} | decode > out`);
    expect(text).not.toContain(encoded);
    expect(findings.some((f) => f.layer === 'encoding' && f.rule.startsWith(rulePrefix))).toBe(true);
  });
});

describe('decoding', () => {
  it('decodes \\u{…} escapes and keeps unknown backslash sequences', () => {
    expect(decodeEscapes('\\u{67}\\u0068p\\n\\q')).toBe('ghp\\n\\q');
  });

  it('percent-decodes without throwing on malformed escapes', () => {
    expect(decodePercent('token%3Dabc%ZZ%2')).toBe('token=abc%ZZ%2'); // hookwise:allow
  });

  it('treats invalid UTF-8 and control bytes as not text', () => {
    expect(textual(Buffer.from([0xff, 0xfe, 0x41, 0x42]))).toBeNull();
    expect(textual(Buffer.from('ab\u0001cd'))).toBeNull();
    expect(textual(Buffer.from('plain text'))).toBe('plain text');
  });

  it('recognizes a decoded user:password pair (HTTP Basic credentials outside a header)', () => {
    expect(isCredentialPair('admin:hunter2')).toBe(true);
    expect(isCredentialPair('https://example.com')).toBe(false);
    expect(isCredentialPair('two words: here')).toBe(false);
    const pair = b64(`deploy:${rnd(12)}`);
    expect(findSecrets(`echo ${pair} | base64 -d`).map((f) => f.rule)).toContain('base64>credential-pair');
  });
});

describe('nesting and bounds', () => {
  it(`follows encodings nested up to ${MAX_DEPTH} levels`, () => {
    const twice = b64(`curl -H "x: ${percentAll(gh)}"`);
    expect(sanitize(`echo ${twice}`).text).toBe('echo <REDACTED>');
    const thrice = b64(b64(b64(gh)));
    expect(sanitize(`echo ${thrice}`).text).toBe('echo <REDACTED>');
  });

  it('redacts, unread, a run that still decodes past the depth limit (fail closed)', () => {
    let deep = gh;
    for (let i = 0; i <= MAX_DEPTH; i++) deep = hexOf(deep); // hex of hex of … is all digits: no other layer sees it
    const { text, findings } = sanitize(`echo ${deep}`);
    expect(text).toBe('echo <REDACTED>');
    expect(findings.map((f) => f.rule)).toEqual(['hex>hex>hex>hex>too-deep']);
  });

  it('redacts, unread, runs left over when the decode budget is spent (fail closed)', () => {
    const runs = Array.from({ length: 6 }, (_, i) => b64(`plain words number ${i} of the list`));
    const findings = findSecrets(runs.join(' '), 0, { chars: 70 });
    expect(findings.filter((f) => f.rule.endsWith('over-budget')).length).toBe(4);
  });

  it('leaves base64 of harmless text alone (not mistaken for a key by the entropy layer)', () => {
    const prose = b64('dummy text data data data');
    expect(findSecrets(`ANY_VALUE = ${prose}`)).toEqual([]);
  });

  it('does not try to decode identifiers and paths', () => {
    expect(encodedRuns('getUserAccessTokenFromEnvironment /usr/local/lib/node_modules', () => false)).toEqual([]);
  });
});
