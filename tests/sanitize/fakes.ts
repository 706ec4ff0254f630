/**
 * Fake secrets in real formats, generated at run time from a seeded PRNG: the test sources hold no literal
 * secret (so `hookwise scan` and GitHub push protection stay quiet on this repo), yet every value has the
 * length and alphabet of the real thing. Same seed, same value: failures are reproducible.
 */
import { prng } from '../support/prng.js';

export const ALPHABETS = {
  b62: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789',
  b64: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/',
  b64url: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_',
  hex: '0123456789abcdef',
  upperDigits: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789',
  lowerDigits: 'abcdefghijklmnopqrstuvwxyz0123456789',
  letters: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz',
  digits: '0123456789',
  bech32: 'QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L', // hookwise:allow
} as const;
export type Alphabet = keyof typeof ALPHABETS;

let nextSeed = 1;

/**
 * A random-looking string of `length` characters from an alphabet. Each call without a seed uses the
 * next seed, so a test file's values stay fixed as long as its calls keep their order. Every class the
 * alphabet offers occurs at least once (a short draw could otherwise miss, e.g., digits).
 */
export function rnd(length: number, alphabet: Alphabet = 'b62', seed: number = nextSeed++): string {
  const chars = ALPHABETS[alphabet];
  const next = prng(seed * 7919);
  const out: string[] = [];
  for (let i = 0; i < length; i++) out.push(chars[Math.floor(next() * chars.length)]!);
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/].filter((re) => re.test(chars));
  classes.forEach((re, i) => {
    if (!out.some((c) => re.test(c)) && i < out.length) out[(i * 3) % out.length] = [...chars].find((c) => re.test(c))!;
  });
  return out.join('');
}

export function uuid(seed: number = nextSeed++): string {
  const h = rnd(32, 'hex', seed);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');
export const b64url = (text: string): string => Buffer.from(text, 'utf8').toString('base64url');
export const hexOf = (text: string): string => Buffer.from(text, 'utf8').toString('hex');
export const percentAll = (text: string): string =>
  [...Buffer.from(text, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
export const unicodeEscaped = (text: string): string =>
  [...text].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
export const hexEscaped = (text: string): string =>
  [...Buffer.from(text, 'utf8')].map((b) => `\\x${b.toString(16).padStart(2, '0')}`).join('');
export const octalEscaped = (text: string): string =>
  [...Buffer.from(text, 'utf8')].map((b) => `\\${b.toString(8).padStart(3, '0')}`).join('');

/** A JWT with the given claims (the signature is random bytes: nothing verifies it). */
export function jwt(claims: Record<string, unknown>, seed?: number): string {
  return `${b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))}.${b64url(JSON.stringify(claims))}.${rnd(43, 'b64url', seed)}`;
}

/** A PEM private key block of `lines` base64 lines (random bytes, not a key). */
export function pemPrivateKey(kind = 'RSA', lines = 8, seed?: number): string {
  const body = Array.from({ length: lines }, (_, i) => rnd(64, 'b64', (seed ?? nextSeed++) * 31 + i)).join('\n');
  const label = kind === '' ? 'PRIVATE KEY' : `${kind} PRIVATE KEY`;
  return `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----`;
}

/** CRC-32 (IEEE), written here independently of src/sanitize/structure.ts so the tests do not check it against itself. */
function crc32Reference(text: string): number {
  let crc = ~0;
  for (const byte of Buffer.from(text, 'latin1')) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}

/**
 * A GitHub classic / npm token of the 2021 format: prefix, 30 random base62 characters, and the base62 CRC-32
 * of those 30 in the last 6 (0-9A-Za-z, left-padded with 0). `valid: false` gives the same token with its
 * checksum changed.
 */
export function checksummedToken(
  prefix: 'ghp_' | 'gho_' | 'ghu_' | 'ghs_' | 'ghr_' | 'npm_',
  options: { valid?: boolean; seed?: number } = {},
): string {
  const body = rnd(30, 'b62', options.seed);
  const digits = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  let n = crc32Reference(body);
  if (options.valid === false) n = (n + 1) % 0x100000000;
  let checksum = '';
  do {
    checksum = digits[n % 62]! + checksum;
    n = Math.floor(n / 62);
  } while (n > 0);
  return `${prefix}${body}${checksum.padStart(6, '0')}`;
}
