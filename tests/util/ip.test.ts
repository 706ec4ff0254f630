import { describe, expect, it } from 'vitest';
import { isIP } from '../../src/util/ip.js';

describe('isIP (node:net, loaded on first use)', () => {
  it.each([
    ['127.0.0.1', 4],
    ['::1', 6],
    ['fe80::1%eth0', 6],
    ['0177.0.0.1', 0], // octal spelling: not an address in Node's notation
    ['2130706433', 0],
    ['example.com', 0],
    ['', 0],
  ])('%s → %i', (text, kind) => {
    expect(isIP(text)).toBe(kind);
  });
});
