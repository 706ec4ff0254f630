import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/util/sha256.js';

const reference = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

describe('sha256Hex', () => {
  it('gives the standard digests (FIPS 180-4 examples)', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Hex('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    );
  });

  it('agrees with node:crypto at every length around the block boundaries, and on non-ASCII text', () => {
    for (let n = 0; n <= 200; n++) {
      const text = 'x'.repeat(n);
      expect(sha256Hex(text)).toBe(reference(text));
    }
    for (const text of ['hookwise-session\u0000toolu_01', 'ümlaut ✓ 😀', '\u0000\uffff', 'a'.repeat(10_000)])
      expect(sha256Hex(text)).toBe(reference(text));
  });
});
