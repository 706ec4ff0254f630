/**
 * The filtering proxy confined commands reach the network through (issue 19): an HTTP forward proxy for
 * plain `http://` requests and CONNECT tunnels (HTTPS and anything else over TLS), on a Unix socket in the
 * private runtime directory, letting through only hosts and ports on an allowlist (confine/allowlist.ts).
 * Inside the walls a relay (socat, started by the wrapped command) turns 127.0.0.1:3128 into this socket;
 * there is no other way out of the sandbox's network namespace.
 *
 * - The proxy resolves names itself and connects to the address it resolved (no second lookup a DNS answer
 *   could change in between); a name resolving only to loopback, link-local, unspecified or multicast
 *   addresses is refused unless the entry names them (`localhost`, the literal).
 * - A request whose Host header names another host than its target (CONNECT's authority, the absolute URL)
 *   is refused: what the allowlist checked must be what the server is asked for.
 * - Refusals answer 403 with the reason on a line of its own (`X-Hookwise-Refused` and the body), so a
 *   failing `curl` shows why.
 * - Limits count work, never wall time: header bytes per request, open client connections. A download may
 *   take as long as it takes; the relay and its connections die with the confined command.
 * - Every allowed and refused connection is logged (sanitized) through `log`; the host (NetProxyHost) keeps
 *   them in `<runtime>/netproxy.jsonl` for later.
 *
 * One proxy per distinct allowlist (a project may narrow the user's list), each on a socket of its own named
 * by the list: `<runtime>/netproxy/<key>.sock`. Node's net/http only.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { chmodSync, lstatSync, renameSync, statSync, unlinkSync } from 'node:fs';
import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { connect as netConnect, isIP, type Socket } from 'node:net';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import {
  allowedBy,
  allowlistKey,
  hostListed,
  namesSpecialAddress,
  normalizeRequestHost,
  specialAddress,
  type AllowEntry,
} from '../confine/allowlist.js';
import type { NetProxyPort } from '../engine/ports.js';
import { sanitize } from '../sanitize/index.js';
import { appendOwnedLines, ensurePrivateDir } from '../util/fs-safe.js';
import { fnv1a64 } from '../util/hash.js';

export interface ProxyLimits {
  /** Bytes of request line and headers (node's parser refuses more with 431). */
  maxHeaderBytes: number;
  /** Client connections open at once (tunnels included); one more is answered 503 and closed. */
  maxConnections: number;
  /** Addresses tried per name. */
  maxAddresses: number;
}

export const DEFAULT_PROXY_LIMITS: ProxyLimits = { maxHeaderBytes: 16 * 1024, maxConnections: 256, maxAddresses: 8 };

export interface ProxyLogEntry {
  ts: string;
  verdict: 'allowed' | 'refused';
  /** CONNECT, or the plain request's method. */
  method: string;
  host: string;
  port: number | null;
  /** The entry that allowed it, or why it was refused. */
  why: string;
}

export type Resolver = (host: string) => Promise<string[]>;

export interface NetProxyOptions {
  allow: readonly AllowEntry[];
  socket: string;
  limits?: Partial<ProxyLimits>;
  /** Sanitized entries; the caller stores or prints them. */
  log?: (entry: ProxyLogEntry) => void;
  /** Name → addresses (default: the system resolver). Tests map names to loopback servers here. */
  resolve?: Resolver;
}

export interface RunningNetProxy {
  socket: string;
  allow: readonly AllowEntry[];
  /** Client connections open now, and counts since start. */
  stats(): { open: number; allowed: number; refused: number };
  close(): Promise<void>;
}

const systemResolver: Resolver = async (host) =>
  (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** Headers that belong to one hop (RFC 9110 §7.6.1) and the proxy's own. */
const HOP_HEADERS = new Set([
  'connection',
  'proxy-connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'upgrade',
]);

class Refusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export async function startNetProxy(options: NetProxyOptions): Promise<RunningNetProxy> {
  const limits: ProxyLimits = { ...DEFAULT_PROXY_LIMITS, ...options.limits };
  const resolve = options.resolve ?? systemResolver;
  const counts = { open: 0, allowed: 0, refused: 0 };
  const log = (
    verdict: ProxyLogEntry['verdict'],
    method: string,
    host: string,
    port: number | null,
    why: string,
  ): void => {
    if (verdict === 'allowed') counts.allowed++;
    else counts.refused++;
    // Host and reason come from the request: untrusted text, sanitized and bounded like anything logged.
    options.log?.({
      ts: new Date().toISOString(),
      verdict,
      method: sanitize(method.slice(0, 16)).text,
      host: sanitize(host.slice(0, 255)).text,
      port,
      why: sanitize(why.slice(0, 300)).text,
    });
  };

  /** The target, checked against the list and resolved: the address to connect to, or a Refusal. */
  const judge = async (
    rawHost: string,
    port: number,
  ): Promise<{ addresses: string[]; entry: AllowEntry; host: string }> => {
    const host = normalizeRequestHost(rawHost);
    if (host === undefined) throw new Refusal(400, `"${rawHost.slice(0, 80)}" is not a host name or address`);
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Refusal(400, `port ${port} is not a port`);
    const entry = allowedBy(options.allow, host, port);
    if (entry === undefined) {
      if (hostListed(options.allow, host))
        throw new Refusal(
          403,
          `port ${port} of ${host} is not allowed (80 and 443 unless the allowlist names host:port)`,
        );
      throw new Refusal(403, `${host} is not on the network allowlist`);
    }
    let addresses: string[];
    if (isIP(host) !== 0) addresses = [host];
    else {
      try {
        addresses = (await resolve(host)).slice(0, limits.maxAddresses);
      } catch (error) {
        throw new Refusal(
          502,
          `cannot resolve ${host}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
        );
      }
    }
    const usable = addresses.filter((a) => specialAddress(a) === undefined || namesSpecialAddress(entry, a));
    if (usable.length === 0) {
      const kinds = [...new Set(addresses.map((a) => specialAddress(a)))].join(', ');
      throw new Refusal(
        403,
        addresses.length === 0
          ? `${host} resolves to no address`
          : `${host} resolves only to ${kinds} addresses, which the allowlist does not name`,
      );
    }
    return { addresses: usable, entry, host };
  };

  const server: Server = createServer({
    maxHeaderSize: limits.maxHeaderBytes,
    requestTimeout: 0,
    headersTimeout: 0,
    keepAliveTimeout: 5000,
    requireHostHeader: false,
  });

  // Tunnels leave the HTTP server's bookkeeping (closeAllConnections does not see them): tracked here.
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    if (counts.open >= limits.maxConnections) {
      log('refused', '-', '-', null, `more than ${limits.maxConnections} connections at once`);
      socket.end(refusalResponse(503, `more than ${limits.maxConnections} connections at once`), () =>
        socket.destroy(),
      );
      return;
    }
    counts.open++;
    sockets.add(socket);
    socket.once('close', () => {
      counts.open--;
      sockets.delete(socket);
    });
    socket.on('error', () => undefined); // a client that goes away mid-answer is not the proxy's failure
  });

  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    const tooBig = error.code === 'HPE_HEADER_OVERFLOW';
    const why = tooBig
      ? `request headers larger than ${limits.maxHeaderBytes} bytes`
      : `not an HTTP request (${error.code ?? error.message})`;
    log('refused', '-', '-', null, why);
    if (socket.writable) socket.end(refusalResponse(tooBig ? 431 : 400, why));
    else socket.destroy();
  });

  // CONNECT host:port — a tunnel, for HTTPS (and anything a client wraps in TLS).
  server.on('connect', (req: IncomingMessage, client: Duplex, head: Buffer) => {
    client.on('error', () => undefined);
    const target = splitAuthority(req.url ?? '');
    const shown = target === undefined ? (req.url ?? '').slice(0, 120) : target.host;
    void (async () => {
      try {
        if (target === undefined || target.port === undefined)
          throw new Refusal(400, `CONNECT needs host:port, not "${(req.url ?? '').slice(0, 80)}"`);
        checkHostHeader(req.headers, target.host, target.port);
        const { addresses, entry, host } = await judge(target.host, target.port);
        const upstream = await open(addresses, target.port);
        client.once('close', () => upstream.destroy());
        log('allowed', 'CONNECT', host, target.port, `allowed by ${entry.text}`);
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length > 0) upstream.write(head);
        splice(client, upstream);
      } catch (error) {
        const refusal = asRefusal(error);
        log('refused', 'CONNECT', shown, target?.port ?? null, refusal.message);
        if (client.writable) client.end(refusalResponse(refusal.status, refusal.message));
      }
    })();
  });

  // Plain HTTP, absolute-form: GET http://host[:port]/path.
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      let host = '-';
      let port: number | null = null;
      try {
        const url = absoluteUrl(req.url ?? '');
        host = url.hostname;
        port = url.port === '' ? 80 : Number(url.port);
        checkHostHeader(req.headers, url.hostname, port);
        const judged = await judge(url.hostname, port);
        host = judged.host;
        log('allowed', req.method ?? '-', host, port, `allowed by ${judged.entry.text}`);
        await forward(req, res, url, await open(judged.addresses, port), port);
      } catch (error) {
        const refusal = asRefusal(error);
        log('refused', req.method ?? '-', host, port, refusal.message);
        if (!res.headersSent) refuse(res, refusal.status, refusal.message);
        else res.destroy();
      }
    })();
  });

  // A protocol upgrade on plain HTTP (ws://) is not forwarded; wss:// goes through CONNECT.
  server.on('upgrade', (req: IncomingMessage, socket: Duplex) => {
    log('refused', req.method ?? '-', '-', null, 'protocol upgrades over plain HTTP are not forwarded (use https/wss)');
    socket.end(refusalResponse(403, 'protocol upgrades over plain HTTP are not forwarded (use https/wss)'));
  });

  await listenPrivate(server, options.socket);
  return {
    socket: options.socket,
    allow: options.allow,
    stats: () => ({ ...counts }),
    close: () =>
      new Promise<void>((resolveClose) => {
        server.close(() => resolveClose());
        server.closeAllConnections();
        for (const socket of sockets) socket.destroy();
        try {
          unlinkSync(options.socket);
        } catch {
          // Gone already.
        }
      }),
  };
}

/** Bytes both ways until either side ends; an error on one side ends the other. */
function splice(a: Duplex, b: Socket): void {
  a.pipe(b);
  b.pipe(a);
  const end = () => {
    a.destroy();
    b.destroy();
  };
  a.on('error', end);
  b.on('error', end);
  a.on('close', end);
  b.on('close', end);
}

/** A connection to the first of the judged addresses that answers (an IPv6 answer on a host without IPv6 routes). */
async function open(addresses: readonly string[], port: number): Promise<Socket> {
  let last: Refusal | undefined;
  for (const address of addresses) {
    try {
      return await openOne(address, port);
    } catch (error) {
      last = error as Refusal;
    }
  }
  throw last ?? new Refusal(502, 'no address to connect to');
}

function openOne(address: string, port: number): Promise<Socket> {
  return new Promise((resolveOpen, reject) => {
    const socket = netConnect({ host: address, port });
    socket.once('connect', () => {
      socket.removeAllListeners('error');
      resolveOpen(socket);
    });
    socket.once('error', (error: NodeJS.ErrnoException) =>
      reject(new Refusal(502, `cannot connect to ${address} port ${port}: ${error.code ?? error.message}`)),
    );
  });
}

/** One plain request over `socket` (already connected to the judged address: no second lookup). */
function forward(req: IncomingMessage, res: ServerResponse, url: URL, socket: Socket, port: number): Promise<void> {
  return new Promise((done, fail) => {
    const headers = endToEnd(req.headers);
    headers.host = url.port === '' ? url.hostname : `${url.hostname}:${url.port}`;
    // No agent: the request goes over this socket (an agent would open its own and look the name up again).
    const upstream = httpRequest(
      {
        createConnection: () => socket,
        method: req.method,
        path: `${url.pathname}${url.search}`,
        headers,
        setHost: false,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEnd(answer.headers));
        answer.pipe(res);
        answer.on('end', () => done());
        answer.on('error', () => res.destroy());
      },
    );
    upstream.on('error', (error: NodeJS.ErrnoException) =>
      fail(new Refusal(502, `cannot reach ${url.hostname} port ${port}: ${error.code ?? error.message}`)),
    );
    res.once('close', () => socket.destroy()); // one request per upstream connection
    req.pipe(upstream);
  });
}

/** The headers without the hop-by-hop ones (and those the Connection header names). */
function endToEnd(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const named = new Set(
    String(headers.connection ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter((h) => h !== ''),
  );
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_HEADERS.has(name) || named.has(name)) continue;
    out[name] = value;
  }
  return out;
}

/** `host:port` of CONNECT (IPv6 in brackets); undefined when it is not one. */
export function splitAuthority(authority: string): { host: string; port: number | undefined } | undefined {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^\s:[\]/@]+)(?::(\d{1,5}))?$/.exec(authority);
  if (m === null) return undefined;
  return { host: m[1]!, port: m[2] === undefined ? undefined : Number(m[2]) };
}

function absoluteUrl(raw: string): URL {
  if (!/^http:\/\//i.test(raw)) {
    if (/^https:\/\//i.test(raw))
      throw new Refusal(400, 'an https:// URL goes through CONNECT, not as a plain request');
    throw new Refusal(400, 'this is a forward proxy: a plain request names an absolute http:// URL');
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Refusal(400, 'the request URL cannot be parsed');
  }
  if (url.username !== '' || url.password !== '')
    throw new Refusal(400, 'user names and passwords in the URL are not forwarded');
  return url;
}

/** A Host header (when there is one) must name the target: what the allowlist checked is what is asked for. */
function checkHostHeader(headers: IncomingHttpHeaders, host: string, port: number): void {
  const given = headers.host;
  if (given === undefined) return;
  const parsed = splitAuthority(given.trim());
  const same =
    parsed !== undefined &&
    normalizeRequestHost(parsed.host) === normalizeRequestHost(host) &&
    (parsed.port === undefined || parsed.port === port);
  if (!same)
    throw new Refusal(
      403,
      `the Host header names "${given.slice(0, 80)}" but the request goes to ${host} port ${port}`,
    );
}

function asRefusal(error: unknown): Refusal {
  return error instanceof Refusal ? error : new Refusal(502, (error as Error).message);
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  403: 'Forbidden',
  431: 'Request Header Fields Too Large',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

/** A response with the reason in a header and as the body's one line (what curl -v and curl show). */
function refusalResponse(status: number, reason: string): string {
  const line = oneLine(`hookwise proxy: refused: ${reason}`);
  return `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}\r\nX-Hookwise-Refused: ${line}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(line) + 1}\r\nConnection: close\r\n\r\n${line}\n`;
}

function refuse(res: ServerResponse, status: number, reason: string): void {
  const line = oneLine(`hookwise proxy: refused: ${reason}`);
  res.writeHead(status, {
    'x-hookwise-refused': line,
    'content-type': 'text/plain',
    'content-length': Buffer.byteLength(line) + 1,
    connection: 'close',
  });
  res.end(`${line}\n`);
}

/** Printable ASCII only: a reason quotes the request, and a header cannot hold a newline. */
function oneLine(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '?').slice(0, 400);
}

function listenPrivate(server: Server, socket: string): Promise<void> {
  return new Promise((resolveListen, reject) => {
    server.once('error', reject);
    // Created 0600 whatever the umask; its directory is 0700 too.
    const umask = process.umask(0o177);
    try {
      server.listen(socket, () => {
        server.off('error', reject);
        chmodSync(socket, 0o600);
        resolveListen();
      });
    } finally {
      process.umask(umask);
    }
  });
}

// ── the daemon's proxies ──────────────────────────────────────────────────────────────────────────────

/** A Unix socket path holds at most 107 bytes (sun_path). */
const MAX_SOCKET_PATH = 107;
/** Distinct allowlists one daemon serves; past it, a call that needs another asks (fail closed). */
const MAX_PROXIES = 32;
/** The log is cut over to `netproxy.1.jsonl` past this size. */
const MAX_LOG_BYTES = 2 * 1024 * 1024;

export function netProxyDir(runtimeDir: string): string {
  return join(runtimeDir, 'netproxy');
}

export function netProxyLogPath(runtimeDir: string): string {
  return join(runtimeDir, 'netproxy.jsonl');
}

/** The proxies a daemon hosts, one per allowlist, and their log. */
export class NetProxyHost implements NetProxyPort {
  private readonly proxies = new Map<string, Promise<RunningNetProxy>>();

  constructor(
    readonly runtimeDir: string,
    private readonly options: {
      resolve?: Resolver;
      limits?: Partial<ProxyLimits>;
      onLog?: (entry: ProxyLogEntry) => void;
    } = {},
  ) {}

  async socketFor(allow: readonly AllowEntry[]): Promise<{ ok: true; socket: string } | { ok: false; reason: string }> {
    if (allow.length === 0) return { ok: false, reason: 'the network allowlist is empty' };
    const key = allowlistKey(allow);
    let running = this.proxies.get(key);
    if (running === undefined) {
      if (this.proxies.size >= MAX_PROXIES)
        return { ok: false, reason: `the daemon already serves ${MAX_PROXIES} different network allowlists` };
      const dir = ensurePrivateDir(netProxyDir(this.runtimeDir));
      const socket = join(dir, `${fnv1a64(key)}.sock`);
      if (Buffer.byteLength(socket) > MAX_SOCKET_PATH)
        return {
          ok: false,
          reason: `the proxy socket path ${socket} is longer than a Unix socket path may be (set HOOKWISE_RUNTIME_DIR to a shorter directory)`,
        };
      try {
        removeStaleSocket(socket);
      } catch (error) {
        return { ok: false, reason: `the filtering proxy cannot listen: ${(error as Error).message}` };
      }
      running = startNetProxy({
        allow,
        socket,
        log: (e) => this.record(e),
        ...(this.options.resolve === undefined ? {} : { resolve: this.options.resolve }),
        ...(this.options.limits === undefined ? {} : { limits: this.options.limits }),
      });
      this.proxies.set(key, running);
    }
    try {
      return { ok: true, socket: (await running).socket };
    } catch (error) {
      this.proxies.delete(key);
      return { ok: false, reason: `the filtering proxy could not start: ${(error as Error).message}` };
    }
  }

  /** How many allowlists it serves (started or starting). */
  count(): number {
    return this.proxies.size;
  }

  /** The proxies started so far (for health and doctor). */
  async serving(): Promise<{ socket: string; allow: string[]; open: number; allowed: number; refused: number }[]> {
    const out = [];
    for (const p of this.proxies.values()) {
      try {
        const running = await p;
        out.push({ socket: running.socket, allow: running.allow.map((e) => e.text), ...running.stats() });
      } catch {
        // One that failed to start is not serving.
      }
    }
    return out;
  }

  async close(): Promise<void> {
    const all = [...this.proxies.values()];
    this.proxies.clear();
    await Promise.all(all.map(async (p) => (await p.catch(() => undefined))?.close()));
  }

  private record(entry: ProxyLogEntry): void {
    this.options.onLog?.(entry);
    try {
      const path = netProxyLogPath(this.runtimeDir);
      const size = statSync(path, { throwIfNoEntry: false })?.size ?? 0;
      if (size > MAX_LOG_BYTES) renameSync(path, join(this.runtimeDir, 'netproxy.1.jsonl'));
      appendOwnedLines(path, JSON.stringify(entry) + '\n', { mode: 0o600, purpose: 'the network proxy log' });
    } catch {
      // A log that cannot be written does not change what the proxy lets through.
    }
  }
}

/** A socket file left by a daemon that died: ours to remove (the directory is private). Anything else: refuse. */
function removeStaleSocket(socket: string): void {
  const st = lstatSync(socket, { throwIfNoEntry: false });
  if (st === undefined) return;
  if (!st.isSocket()) throw new Error(`${socket} exists and is not a socket`);
  unlinkSync(socket);
}
