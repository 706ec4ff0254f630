import { describe, expect, it } from 'vitest';
import {
  allowedBy,
  allowlistKey,
  canonicalIp,
  covers,
  hostListed,
  namesSpecialAddress,
  normalizeRequestHost,
  parseAllowEntry,
  parseAllowlist,
  specialAddress,
} from '../../src/confine/allowlist.js';

const entry = (text: string) => {
  const parsed = parseAllowEntry(text);
  if (!parsed.ok) throw new Error(parsed.problem);
  return parsed.entry;
};

describe('allowlist entries', () => {
  it('parses names, wildcards, ports and IP literals', () => {
    expect(entry('Registry.NPMJS.org.')).toEqual({
      text: 'Registry.NPMJS.org.',
      host: 'registry.npmjs.org',
      kind: 'name',
      ports: [80, 443],
    });
    expect(entry('*.github.com')).toMatchObject({ host: 'github.com', kind: 'wildcard', ports: [80, 443] });
    expect(entry('example.com:8443')).toMatchObject({ host: 'example.com', ports: [8443] });
    expect(entry('10.0.0.7')).toMatchObject({ host: '10.0.0.7', kind: 'ip', ports: [80, 443] });
    expect(entry('[FD00::7]:8080')).toMatchObject({ host: 'fd00::7', kind: 'ip', ports: [8080] });
    expect(entry('::1')).toMatchObject({ host: '::1', kind: 'ip' });
    expect(entry('localhost:4873')).toMatchObject({ host: 'localhost', kind: 'name', ports: [4873] });
  });

  it('rejects junk with a message that says what is wrong', () => {
    const problem = (text: string) => {
      const parsed = parseAllowEntry(text);
      return parsed.ok ? 'accepted' : parsed.problem;
    };
    expect(problem('https://example.com')).toMatch(/is a URL/);
    expect(problem('example.com/path')).toMatch(/not a host/);
    expect(problem('*')).toMatch(/not a host name|wildcard/);
    expect(problem('*.com')).toMatch(/every name under \.com/);
    expect(problem('a.*.example.com')).toMatch(/not a leading/);
    expect(problem('example.com:0')).toMatch(/1 to 65535/);
    expect(problem('example.com:99999')).toMatch(/1 to 65535/);
    expect(problem('example.com:http')).toMatch(/not a number/);
    expect(problem('exa mple.com')).toMatch(/not a host/);
    expect(problem('2130706433')).toMatch(/unusual form/);
    expect(problem('0x7f.1')).toMatch(/unusual form/);
    expect(problem('')).toMatch(/empty/);
    expect(problem('-bad-.com')).toMatch(/not a host name/);
    expect(parseAllowlist(['ok.com', 'https://x', 'x.org']).problems.map((p) => p.index)).toEqual([1]);
  });
});

describe('matching', () => {
  const list = ['registry.npmjs.org', '*.github.com', 'example.com:8443', '10.0.0.7'].map(entry);

  it('allows listed hosts on their ports only', () => {
    expect(allowedBy(list, 'registry.npmjs.org', 443)?.text).toBe('registry.npmjs.org');
    expect(allowedBy(list, 'registry.npmjs.org', 80)).toBeDefined();
    expect(allowedBy(list, 'registry.npmjs.org', 22)).toBeUndefined();
    expect(hostListed(list, 'registry.npmjs.org')).toBe(true);
    expect(allowedBy(list, 'api.github.com', 443)?.text).toBe('*.github.com');
    expect(allowedBy(list, 'a.b.github.com', 443)).toBeDefined();
    expect(allowedBy(list, 'github.com', 443)).toBeUndefined();
    expect(allowedBy(list, 'evilgithub.com', 443)).toBeUndefined();
    expect(allowedBy(list, 'example.com', 8443)).toBeDefined();
    expect(allowedBy(list, 'example.com', 443)).toBeUndefined();
    expect(allowedBy(list, 'npmjs.org', 443)).toBeUndefined();
  });

  it('never lets a name match an address or the other way round', () => {
    expect(allowedBy(list, '10.0.0.7', 443)).toBeDefined();
    expect(allowedBy(list, normalizeRequestHost('[::ffff:10.0.0.7]')!, 443)).toBeDefined();
    expect(parseAllowEntry('*.0.0.7').ok).toBe(false);
    expect(allowedBy([entry('localhost')], '127.0.0.1', 80)).toBeUndefined();
  });

  it('normalizes request hosts, refusing what is neither name nor address', () => {
    expect(normalizeRequestHost('API.GitHub.com.')).toBe('api.github.com');
    expect(normalizeRequestHost('[::1]')).toBe('::1');
    expect(normalizeRequestHost('bad host')).toBeUndefined();
    expect(normalizeRequestHost('a/b')).toBeUndefined();
    expect(canonicalIp('::ffff:127.0.0.1')).toBe('127.0.0.1');
  });

  it('judges special addresses; only an entry naming them reaches them', () => {
    expect(specialAddress('127.0.0.5')).toBe('loopback');
    expect(specialAddress('::1')).toBe('loopback');
    expect(specialAddress('::ffff:127.0.0.1')).toBe('loopback');
    expect(specialAddress('169.254.169.254')).toBe('link-local');
    expect(specialAddress('fe80::1')).toBe('link-local');
    expect(specialAddress('0.0.0.0')).toBe('unspecified');
    expect(specialAddress('224.0.0.1')).toBe('multicast');
    expect(specialAddress('10.1.2.3')).toBeUndefined();
    expect(specialAddress('140.82.112.3')).toBeUndefined();
    expect(namesSpecialAddress(entry('localhost'), '127.0.0.1')).toBe(true);
    expect(namesSpecialAddress(entry('127.0.0.1:8080'), '127.0.0.1')).toBe(true);
    expect(namesSpecialAddress(entry('rebind.example.com'), '127.0.0.1')).toBe(false);
    expect(namesSpecialAddress(entry('localhost'), '169.254.169.254')).toBe(false);
  });

  it('knows when one entry covers another (a project may narrow, not widen)', () => {
    expect(covers(entry('*.github.com'), entry('api.github.com'))).toBe(true);
    expect(covers(entry('*.github.com'), entry('*.api.github.com'))).toBe(true);
    expect(covers(entry('*.github.com'), entry('github.com'))).toBe(false);
    expect(covers(entry('api.github.com'), entry('*.github.com'))).toBe(false);
    expect(covers(entry('example.com'), entry('example.com:443'))).toBe(true);
    expect(covers(entry('example.com:443'), entry('example.com'))).toBe(false);
    expect(covers(entry('10.0.0.7'), entry('10.0.0.7:80'))).toBe(true);
  });

  it('keys a list independently of order and spelling', () => {
    expect(allowlistKey(['B.com', 'a.com'].map(entry))).toBe(allowlistKey(['a.com', 'b.com.'].map(entry)));
    expect(allowlistKey(['a.com'].map(entry))).not.toBe(allowlistKey(['a.com:8080'].map(entry)));
  });
});
