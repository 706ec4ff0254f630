/**
 * Where a shell segment talks to, as far as its words tell (issue 19): whether a network-reaching command can
 * run confined, with the network reached only through the daemon's filtering proxy. Pure.
 *
 * - HTTP clients (curl, wget, httpie, xh, aria2c) and git's remote subcommands go through the proxy (they read
 *   HTTP(S)_PROXY); their literal `http(s)://` URLs are destinations the allowlist can judge now. A URL of
 *   another scheme (ftp://, scp://, git@host:) does not go through an HTTP proxy.
 * - Everything else the shell analysis says reaches the network (ssh, nc, /dev/tcp, rsync to a host, …) speaks
 *   something the proxy does not carry.
 * - A destination in a variable or substitution is not known here: the proxy judges it when the command runs.
 */
import type { Segment } from '../shell/types.js';
import { allowedBy, normalizeRequestHost, type AllowEntry } from './allowlist.js';

export interface Destination {
  host: string;
  port: number;
}

export type SegmentNetwork =
  /** Speaks HTTP(S) through a proxy; `known` are the literal URLs' hosts (others may be dynamic). */
  | { kind: 'http'; known: Destination[] }
  /** Reaches the network some other way (ssh, raw TCP, a non-HTTP URL). */
  | { kind: 'other'; why: string }
  /** Nothing here says it reaches the network. */
  | { kind: 'none' };

const HTTP_CLIENTS = new Set(['curl', 'wget', 'http', 'https', 'xh', 'httpie', 'aria2c']);
const GIT_REMOTE = new Set(['clone', 'fetch', 'pull', 'push', 'ls-remote']);
const URL_SCHEME = /^([a-z][a-z0-9+.-]*):\/\//i;
/** scp-like git remotes: `git@github.com:org/repo.git`, `host:path`. */
const SCP_LIKE = /^(?:[\w.-]+@)?[\w.-]+\.[a-z]{2,}:(?!\/\/)/i;

/** What segment `segment` reaches; `flagged` is the shell analysis's own "reaches the network". */
export function segmentNetwork(segment: Segment, flagged: boolean): SegmentNetwork {
  const words = segment.argv.slice(1).filter((_, i) => !segment.dynamicArgs.includes(i + 1));
  if (segment.flags.remote !== undefined) return { kind: 'other', why: 'runs on another host' };
  if (segment.redirects.some((r) => /^\/dev\/(?:tcp|udp)\//.test(r.target)))
    return { kind: 'other', why: 'opens a raw connection (/dev/tcp, /dev/udp)' };
  if (HTTP_CLIENTS.has(segment.name)) return urls(words);
  if (segment.name === 'git' && GIT_REMOTE.has(segment.argv[1] ?? '')) {
    const net = urls(words.slice(1));
    if (net.kind === 'http' && words.slice(1).some((w) => SCP_LIKE.test(w)))
      return { kind: 'other', why: 'uses an ssh remote' };
    return net.kind === 'http' && net.known.length === 0 && !flagged ? { kind: 'none' } : net;
  }
  return flagged ? { kind: 'other', why: 'speaks something other than HTTP(S)' } : { kind: 'none' };
}

function urls(words: readonly string[]): SegmentNetwork {
  const known: Destination[] = [];
  for (const word of words) {
    const scheme = URL_SCHEME.exec(word)?.[1]?.toLowerCase();
    if (scheme === undefined) continue;
    if (scheme !== 'http' && scheme !== 'https')
      return { kind: 'other', why: `uses a ${scheme}:// URL, which an HTTP proxy does not carry` };
    let url: URL;
    try {
      url = new URL(word);
    } catch {
      continue; // curl's globs ({a,b}, [1-3]) and the like: the proxy judges what it really asks for
    }
    const host = normalizeRequestHost(url.hostname);
    if (host === undefined) continue;
    known.push({ host, port: url.port === '' ? (scheme === 'https' ? 443 : 80) : Number(url.port) });
  }
  return { kind: 'http', known };
}

/** The first known destination the allowlist does not let through, if any. */
export function refusedDestination(net: SegmentNetwork, allow: readonly AllowEntry[]): Destination | undefined {
  if (net.kind !== 'http') return undefined;
  return net.known.find((d) => allowedBy(allow, d.host, d.port) === undefined);
}
