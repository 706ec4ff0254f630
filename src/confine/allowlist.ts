/**
 * The network allowlist of confined commands (issue 19): which hosts and ports the daemon's filtering proxy
 * (daemon/netproxy.ts) lets a confined command reach. Pure: parsing, matching, and judging an address the
 * proxy resolved; shared by the policy loader (validation, narrowing), confinability (a destination the shell
 * analysis knows) and the proxy itself.
 *
 * An entry is
 *   - `example.com`        that host exactly, on ports 80 and 443;
 *   - `*.example.com`      any name below example.com (not example.com itself: list both when both are meant);
 *   - `example.com:8443`   that host on that port only (list `example.com` too for 80 and 443);
 *   - `10.0.0.7`, `[fd00::7]:8080`   an IP literal: only a request naming that literal matches it.
 * Names are compared lower-case without a trailing dot. A name never matches an IP literal or the other way
 * round: allowing `example.com` does not allow the address it resolves to, to be named directly.
 *
 * Addresses the proxy resolves a name to are judged too: a loopback, link-local (cloud metadata at
 * 169.254.169.254), unspecified or multicast address is refused unless the entry that matched names it
 * explicitly (`localhost`, or that very IP literal). A name on the list whose DNS answer points at the host's
 * own services (DNS rebinding) reaches nothing. Private ranges (10/8, 192.168/16, fc00::/7) are not refused:
 * an internal registry is a legitimate entry.
 */
import { isIP } from '../util/ip.js';

export interface AllowEntry {
  /** As written in the policy (for messages and the audit trail). */
  text: string;
  /** Lower-case name without trailing dot, the suffix below `*.` for a wildcard, or a canonical IP literal. */
  host: string;
  kind: 'name' | 'wildcard' | 'ip';
  /** The ports it allows: 80 and 443 unless the entry names one. */
  ports: readonly number[];
}

export const DEFAULT_PORTS: readonly number[] = [80, 443];
/** A name is at most 253 characters (RFC 1035), a label 63. */
const MAX_NAME = 253;
const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;

export type ParsedEntry = { ok: true; entry: AllowEntry } | { ok: false; problem: string };

/** One policy entry, or why it is not one (the message names what is wrong, the caller names file and key). */
export function parseAllowEntry(raw: string): ParsedEntry {
  const text = raw.trim();
  const bad = (problem: string): ParsedEntry => ({ ok: false, problem: `"${text.slice(0, 80)}" ${problem}` });
  if (text === '') return { ok: false, problem: 'an empty entry' };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text))
    return bad('is a URL: write the host only (example.com, or example.com:8443 for another port)');
  if (/[\s/?#@]/.test(text)) return bad('is not a host: no spaces, paths, queries or user names');
  let host = text;
  let port: number | undefined;
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  if (bracketed !== null) {
    host = bracketed[1]!;
    if (isIP(host) !== 6) return bad('has brackets around something that is not an IPv6 address');
    if (bracketed[2] !== undefined) port = Number(bracketed[2]);
  } else if (isIP(text) === 6) {
    host = text; // a bare IPv6 literal: no port can follow it unbracketed
  } else {
    const colon = text.lastIndexOf(':');
    if (colon >= 0) {
      const digits = text.slice(colon + 1);
      if (!/^\d{1,5}$/.test(digits)) return bad('has a port that is not a number (host:port, with port 1 to 65535)');
      host = text.slice(0, colon);
      port = Number(digits);
    }
  }
  if (port !== undefined && (port < 1 || port > 65535)) return bad(`has port ${port}: a port is 1 to 65535`);
  const ports = port === undefined ? DEFAULT_PORTS : [port];
  const ip = canonicalIp(host);
  if (ip !== undefined) return { ok: true, entry: { text, host: ip, kind: 'ip', ports } };
  let name = host.toLowerCase();
  if (name.endsWith('.')) name = name.slice(0, -1);
  let kind: AllowEntry['kind'] = 'name';
  if (name.startsWith('*.')) {
    kind = 'wildcard';
    name = name.slice(2);
  }
  if (name.includes('*'))
    return bad('has a * that is not a leading "*." (wildcards match whole names below a domain: *.example.com)');
  if (name === '' || name.length > MAX_NAME) return bad('is not a host name');
  const labels = name.split('.');
  if (!labels.every((l) => LABEL.test(l)))
    return bad('is not a host name (letters, digits, - and _ in dot-separated labels)');
  // A name ending in a number is an address in some other spelling (2130706433, 0x7f.1 are 127.0.0.1 to a resolver).
  if (/^(0x[0-9a-f]*|\d+)$/.test(labels[labels.length - 1]!))
    return bad('looks like an IP address written in an unusual form: write it as a.b.c.d');
  if (kind === 'wildcard' && labels.length < 2)
    return bad(`would match every name under .${name}: a wildcard needs a domain (*.example.com)`);
  return { ok: true, entry: { text, host: name, kind, ports } };
}

/** Every entry of a list, or the problems (index and message) of those that are not entries. */
export function parseAllowlist(raw: readonly string[]): {
  entries: AllowEntry[];
  problems: { index: number; problem: string }[];
} {
  const entries: AllowEntry[] = [];
  const problems: { index: number; problem: string }[] = [];
  raw.forEach((text, index) => {
    const parsed = parseAllowEntry(text);
    if (parsed.ok) entries.push(parsed.entry);
    else problems.push({ index, problem: parsed.problem });
  });
  return { entries, problems };
}

/**
 * A request's host as the allowlist compares it: lower-case, no trailing dot, no IPv6 brackets, an IP
 * literal canonical; undefined for something that is neither a name nor an address.
 */
export function normalizeRequestHost(raw: string): string | undefined {
  let host = raw.trim();
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  const ip = canonicalIp(host);
  if (ip !== undefined) return ip;
  host = host.toLowerCase();
  if (host.endsWith('.')) host = host.slice(0, -1);
  if (host === '' || host.length > MAX_NAME || !host.split('.').every((l) => LABEL.test(l))) return undefined;
  return host;
}

/** The entry that lets a request reach `host` (normalized) on `port`, if any. */
export function allowedBy(entries: readonly AllowEntry[], host: string, port: number): AllowEntry | undefined {
  const isAddress = isIP(host) !== 0;
  return entries.find((e) => e.ports.includes(port) && hostMatches(e, host, isAddress));
}

/** Whether any entry names `host` (on any port): tells "not on the list" from "not on that port". */
export function hostListed(entries: readonly AllowEntry[], host: string): boolean {
  const isAddress = isIP(host) !== 0;
  return entries.some((e) => hostMatches(e, host, isAddress));
}

function hostMatches(e: AllowEntry, host: string, isAddress: boolean): boolean {
  switch (e.kind) {
    case 'ip':
      return isAddress && e.host === host;
    case 'name':
      return !isAddress && e.host === host;
    case 'wildcard':
      return !isAddress && host.endsWith(`.${e.host}`);
  }
}

/**
 * Whether `narrow` allows nothing `wide` does not: a project file may narrow the user's list (keep some of
 * its entries, or more specific ones), never widen it.
 */
export function covers(wide: AllowEntry, narrow: AllowEntry): boolean {
  if (!narrow.ports.every((p) => wide.ports.includes(p))) return false;
  switch (wide.kind) {
    case 'ip':
      return narrow.kind === 'ip' && narrow.host === wide.host;
    case 'name':
      return narrow.kind === 'name' && narrow.host === wide.host;
    case 'wildcard':
      return narrow.kind !== 'ip' && narrow.host.endsWith(`.${wide.host}`);
  }
}

export const SPECIAL_ADDRESS_KINDS = ['loopback', 'link-local', 'unspecified', 'multicast'] as const;
export type SpecialAddressKind = (typeof SPECIAL_ADDRESS_KINDS)[number];

/** What is special about an address the proxy would connect to (undefined: an ordinary one). */
export function specialAddress(address: string): SpecialAddressKind | undefined {
  const ip = canonicalIp(address);
  if (ip === undefined) return undefined;
  if (isIP(ip) === 4) {
    const [a, b] = ip.split('.').map(Number) as [number, number];
    if (a === 127) return 'loopback';
    if (a === 0) return 'unspecified';
    if (a === 169 && b === 254) return 'link-local';
    if (a >= 224 && a <= 239) return 'multicast';
    return undefined;
  }
  if (ip === '::1') return 'loopback';
  if (ip === '::') return 'unspecified';
  const first = parseInt(ip.split(':')[0] || '0', 16);
  if ((first & 0xffc0) === 0xfe80) return 'link-local';
  if ((first & 0xff00) === 0xff00) return 'multicast';
  return undefined;
}

/** Whether `entry` names a special address itself (so reaching it is what the user asked for). */
export function namesSpecialAddress(entry: AllowEntry, address: string): boolean {
  if (entry.kind === 'ip') return entry.host === canonicalIp(address);
  return entry.kind === 'name' && entry.host === 'localhost' && specialAddress(address) === 'loopback';
}

/** An IP literal in one spelling: IPv4 dotted, IPv6 compressed lower-case, IPv4-mapped IPv6 as IPv4. */
export function canonicalIp(text: string): string | undefined {
  const kind = isIP(text);
  if (kind === 4)
    return text
      .split('.')
      .map((n) => String(Number(n)))
      .join('.');
  if (kind !== 6) return undefined;
  try {
    // The URL parser is the WHATWG host serializer: it compresses and lower-cases, and keeps ::ffff:a.b.c.d as hex.
    const host = new URL(`http://[${text}]/`).hostname.slice(1, -1);
    const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
    if (mapped !== null) {
      const hi = parseInt(mapped[1]!, 16);
      const lo = parseInt(mapped[2]!, 16);
      return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
    }
    return host;
  } catch {
    return undefined;
  }
}

/** The entries as one stable key (which proxy serves which list). */
export function allowlistKey(entries: readonly AllowEntry[]): string {
  return [...new Set(entries.map((e) => `${e.kind === 'wildcard' ? '*.' : ''}${e.host}:${e.ports.join('+')}`))]
    .sort()
    .join(',');
}
