/** The daemon's filtering proxy, over its real Unix socket, against real loopback servers. */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { connect, createServer as createTcpServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseAllowlist } from '../../src/confine/allowlist.js';
import {
  NetProxyHost,
  netProxyLogPath,
  startNetProxy,
  type ProxyLogEntry,
  type RunningNetProxy,
} from '../../src/daemon/netproxy.js';

let dir: string;
let web: HttpServer;
let webPort: number;
let echo: Server;
let echoPort: number;
const seen: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hookwise-netproxy-'));
  web = createHttpServer((req, res) => {
    seen.push(`${req.method} ${req.url} host=${req.headers.host} auth=${req.headers['proxy-authorization'] ?? '-'}`);
    res.end(`hello from ${req.headers.host}\n`);
  });
  await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));
  webPort = (web.address() as { port: number }).port;
  echo = createTcpServer((s) => s.pipe(s));
  await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
  echoPort = (echo.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise((r) => web.close(r));
  await new Promise((r) => echo.close(r));
  rmSync(dir, { recursive: true, force: true });
});

const proxies: RunningNetProxy[] = [];
afterEach(async () => {
  while (proxies.length > 0) await proxies.pop()!.close();
  seen.length = 0;
});

/** Names tests use, mapped like a resolver would: `rebind.test` points at loopback (DNS rebinding). */
const resolve = async (host: string): Promise<string[]> => {
  if (host === 'localhost') return ['127.0.0.1'];
  if (host === 'rebind.test') return ['127.0.0.1'];
  if (host === 'metadata.test') return ['169.254.169.254'];
  throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
};

async function proxy(allow: string[], log?: ProxyLogEntry[], limits = {}): Promise<RunningNetProxy> {
  const { entries, problems } = parseAllowlist(allow);
  expect(problems).toEqual([]);
  const p = await startNetProxy({
    allow: entries,
    socket: join(dir, `p${proxies.length}-${Math.random().toString(36).slice(2, 8)}.sock`),
    resolve,
    limits,
    ...(log === undefined ? {} : { log: (e) => log.push(e) }),
  });
  proxies.push(p);
  return p;
}

/** Sends raw bytes to the proxy socket; resolves with everything read until the proxy closes (or `until` matches). */
function exchange(socket: string, raw: string, after?: { until: RegExp; send: string }): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(socket);
    let text = '';
    let sent = false;
    s.on('data', (d: Buffer) => {
      text += d.toString('latin1');
      if (after !== undefined && !sent && after.until.test(text)) {
        sent = true;
        s.write(after.send);
      }
      if (after !== undefined && sent && text.includes(after.send)) s.end();
    });
    s.on('error', reject);
    s.on('close', () => resolve(text));
    s.write(raw);
  });
}

describe('the filtering proxy', () => {
  it('listens on a 0600 Unix socket', async () => {
    const p = await proxy(['localhost']);
    expect(statSync(p.socket).mode & 0o777).toBe(0o600);
  });

  it('tunnels CONNECT to an allowlisted name and port', async () => {
    const p = await proxy([`localhost:${echoPort}`]);
    const out = await exchange(
      p.socket,
      `CONNECT localhost:${echoPort} HTTP/1.1\r\nHost: localhost:${echoPort}\r\n\r\n`,
      { until: /200 Connection Established\r\n\r\n/, send: 'ping through the tunnel' },
    );
    expect(out).toMatch(/^HTTP\/1.1 200 Connection Established\r\n\r\nping through the tunnel/);
  });

  it('closing cuts open tunnels (a stopping daemon does not wait on them)', async () => {
    const p = await startNetProxy({
      allow: parseAllowlist([`localhost:${echoPort}`]).entries,
      socket: join(dir, 'closing.sock'),
      resolve,
    });
    const s = connect(p.socket);
    s.on('error', () => undefined);
    const established = new Promise<void>((r) => s.on('data', (d: Buffer) => d.toString().includes('200') && r()));
    s.write(`CONNECT localhost:${echoPort} HTTP/1.1\r\n\r\n`);
    await established;
    const closed = new Promise((r) => s.on('close', r));
    await p.close();
    await closed;
    expect(p.stats().open).toBe(0);
  });

  it('forwards plain HTTP to an allowlisted name, in origin form, with the proxy headers dropped', async () => {
    const p = await proxy([`localhost:${webPort}`]);
    const out = await exchange(
      p.socket,
      `GET http://localhost:${webPort}/a?b=1 HTTP/1.1\r\nHost: localhost:${webPort}\r\nProxy-Authorization: Basic c2VjcmV0\r\nConnection: close\r\n\r\n`,
    );
    expect(out).toMatch(/^HTTP\/1.1 200/);
    expect(out).toContain(`hello from localhost:${webPort}`);
    expect(seen).toEqual([`GET /a?b=1 host=localhost:${webPort} auth=-`]);
  });

  it('tries the next judged address when one does not answer', async () => {
    // ::1 first (the test server listens on 127.0.0.1 only: refused there), then 127.0.0.1.
    const p = await startNetProxy({
      allow: parseAllowlist([`localhost:${webPort}`]).entries,
      socket: join(dir, 'twice.sock'),
      resolve: async () => ['::1', '127.0.0.1'],
    });
    proxies.push(p);
    const out = await exchange(
      p.socket,
      `GET http://localhost:${webPort}/next HTTP/1.1\r\nHost: localhost:${webPort}\r\nConnection: close\r\n\r\n`,
    );
    expect(out).toContain(`hello from localhost:${webPort}`);
  });

  it('refuses a host not on the list, with a 403 and the reason', async () => {
    const log: ProxyLogEntry[] = [];
    const p = await proxy(['registry.npmjs.org'], log);
    const out = await exchange(p.socket, 'CONNECT evil.example:443 HTTP/1.1\r\nHost: evil.example:443\r\n\r\n');
    expect(out).toMatch(/^HTTP\/1.1 403 Forbidden\r\n/);
    expect(out).toMatch(/X-Hookwise-Refused: hookwise proxy: refused: evil.example is not on the network allowlist/);
    expect(log).toMatchObject([{ verdict: 'refused', method: 'CONNECT', host: 'evil.example', port: 443 }]);
  });

  it('refuses a listed name on a port the list does not name', async () => {
    const p = await proxy(['localhost']);
    const out = await exchange(p.socket, `CONNECT localhost:${echoPort} HTTP/1.1\r\n\r\n`);
    expect(out).toMatch(
      /403[\s\S]*port \d+ of localhost is not allowed \(80 and 443 unless the allowlist names host:port\)/,
    );
  });

  it('refuses a Host header that names another host than the target', async () => {
    const p = await proxy([`localhost:${echoPort}`, `localhost:${webPort}`]);
    const tunnel = await exchange(p.socket, `CONNECT localhost:${echoPort} HTTP/1.1\r\nHost: evil.example:443\r\n\r\n`);
    expect(tunnel).toMatch(/403[\s\S]*Host header names "evil.example:443"/);
    const plain = await exchange(
      p.socket,
      `GET http://localhost:${webPort}/ HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n`,
    );
    expect(plain).toMatch(/403[\s\S]*Host header names "evil.example"/);
    expect(seen).toEqual([]);
  });

  it('refuses a listed name that resolves to loopback or link-local (DNS rebinding, cloud metadata)', async () => {
    const p = await proxy(['rebind.test', 'metadata.test']);
    expect(await exchange(p.socket, 'CONNECT rebind.test:443 HTTP/1.1\r\n\r\n')).toMatch(
      /403[\s\S]*resolves only to loopback addresses/,
    );
    expect(await exchange(p.socket, 'CONNECT metadata.test:80 HTTP/1.1\r\n\r\n')).toMatch(
      /403[\s\S]*resolves only to link-local addresses/,
    );
  });

  it('refuses IP literals and numeric spellings unless the literal is listed', async () => {
    const p = await proxy([`localhost:${webPort}`]);
    expect(await exchange(p.socket, `CONNECT 127.0.0.1:${webPort} HTTP/1.1\r\n\r\n`)).toMatch(
      /403[\s\S]*127.0.0.1 is not on the network allowlist/,
    );
    expect(await exchange(p.socket, `GET http://2130706433:${webPort}/ HTTP/1.1\r\nConnection: close\r\n\r\n`)).toMatch(
      /403[\s\S]*127.0.0.1 is not on the network allowlist/,
    );
    expect(await exchange(p.socket, `CONNECT [::ffff:127.0.0.1]:${webPort} HTTP/1.1\r\n\r\n`)).toMatch(
      /403[\s\S]*not on the network allowlist/,
    );
  });

  it('refuses origin-form requests, https:// as a plain request, and plain-HTTP upgrades', async () => {
    const p = await proxy(['localhost']);
    expect(await exchange(p.socket, 'GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n')).toMatch(
      /400[\s\S]*absolute http:\/\/ URL/,
    );
    expect(
      await exchange(p.socket, 'GET https://localhost/ HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n'),
    ).toMatch(/400[\s\S]*through CONNECT/);
    expect(
      await exchange(
        p.socket,
        'GET http://localhost/ HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n',
      ),
    ).toMatch(/403[\s\S]*upgrades/);
  });

  it('limits header bytes and open connections (work, not time)', async () => {
    const p = await proxy(['localhost'], undefined, { maxHeaderBytes: 1024, maxConnections: 1 });
    expect(await exchange(p.socket, `GET http://localhost/ HTTP/1.1\r\nX-Big: ${'a'.repeat(4000)}\r\n\r\n`)).toMatch(
      /^HTTP\/1.1 431[\s\S]*larger than 1024 bytes/,
    );
    // The refused connection's server side closes a moment after the client saw it close.
    for (let i = 0; i < 100 && p.stats().open > 0; i++) await new Promise((r) => setTimeout(r, 5));
    const holder = connect(p.socket);
    await new Promise((r) => holder.once('connect', r));
    for (let i = 0; i < 100 && p.stats().open < 1; i++) await new Promise((r) => setTimeout(r, 5));
    expect(await exchange(p.socket, 'CONNECT localhost:443 HTTP/1.1\r\n\r\n')).toMatch(
      /^HTTP\/1.1 503[\s\S]*more than 1 connections/,
    );
    holder.destroy();
  });
});

describe('the daemon hosts one proxy per allowlist', () => {
  it('starts a proxy on first use, reuses it, logs to the runtime dir sanitized', async () => {
    const runtimeDir = mkdtempSync(join(dir, 'rt-'));
    const host = new NetProxyHost(runtimeDir, { resolve });
    try {
      const a = await host.socketFor(parseAllowlist([`localhost:${echoPort}`]).entries);
      const b = await host.socketFor(parseAllowlist([`LOCALHOST.:${echoPort}`]).entries);
      const c = await host.socketFor(parseAllowlist(['example.com']).entries);
      expect(a.ok && b.ok && c.ok).toBe(true);
      if (!a.ok || !b.ok || !c.ok) return;
      expect(b.socket).toBe(a.socket);
      expect(c.socket).not.toBe(a.socket);
      expect(statSync(join(runtimeDir, 'netproxy')).mode & 0o777).toBe(0o700);
      const token = 'ghp_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';
      await exchange(a.socket, `CONNECT ${token}.example:443 HTTP/1.1\r\n\r\n`);
      const log = readFileSync(netProxyLogPath(runtimeDir), 'utf8');
      expect(log).toMatch(/"verdict":"refused"/);
      expect(log).not.toContain(token);
      expect(statSync(netProxyLogPath(runtimeDir)).mode & 0o777).toBe(0o600);
      expect((await host.serving()).length).toBe(2);
      expect(await host.socketFor([])).toEqual({ ok: false, reason: 'the network allowlist is empty' });
    } finally {
      await host.close();
    }
  });
});
