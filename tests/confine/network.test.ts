/**
 * Confined commands and the network allowlist (issue 19 item 2): which network-reaching commands become
 * confined allows through the daemon's filtering proxy, which stay asks and why, and — where this machine can
 * confine — that the rewritten command reaches an allowlisted local server and nothing else.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CONFINED_RUN_TIMEOUT_MS, describeRun, runShell } from '../../bench/confine-box.js';
import { parseAllowlist } from '../../src/confine/allowlist.js';
import { refusedDestination, segmentNetwork } from '../../src/confine/destinations.js';
import { probeConfinement } from '../../src/confine/probe.js';
import { wallsHit } from '../../src/confine/wall-hits.js';
import { which } from '../../src/confine/probe.js';
import { NetProxyHost } from '../../src/daemon/netproxy.js';
import { Engine } from '../../src/engine/engine.js';
import { parseCommand } from '../../src/shell/parse.js';
import { locations } from '../../src/util/locations.js';
import { makeProject, type TestProject } from '../support/project.js';

const canConfine = probeConfinement().available;
const socat = which('socat', process.env);

let web: Server;
let port: number;
beforeAll(async () => {
  web = createServer((req, res) => res.end(`served ${req.url} to ${req.headers.host}\n`));
  await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));
  port = (web.address() as { port: number }).port;
});
afterAll(() => new Promise((r) => web.close(r)));

const hosts: NetProxyHost[] = [];
afterEach(async () => {
  while (hosts.length > 0) await hosts.pop()!.close();
});

function project(allow: string[]): TestProject {
  const p = makeProject();
  p.register('s1', 'coder');
  const list = allow.length === 0 ? '' : `  network:\n    allow:\n${allow.map((a) => `      - "${a}"\n`).join('')}`;
  p.write(join(p.configDir, 'config.yml'), `confine:\n  enabled: true\n${list}`);
  p.write('scripts/gen.sh', '#!/bin/sh\necho generated\n');
  p.write('scripts/fetch.sh', `#!/bin/sh\ncurl -sS "$1"\n`);
  spawnSync('chmod', ['+x', join(p.root, 'scripts/gen.sh'), join(p.root, 'scripts/fetch.sh')]);
  return p;
}

/** The engine as a daemon runs it (with the proxy host), or as `hookwise check` does (without). */
async function decide(p: TestProject, command: string, daemon = true) {
  let netProxy: NetProxyHost | undefined;
  if (daemon) hosts.push((netProxy = new NetProxyHost(p.runtimeDir)));
  const engine = new Engine(locations(p.env), netProxy === undefined ? {} : { netProxy });
  const r = await engine.handle(JSON.stringify(p.pre('Bash', { command })));
  const out = JSON.parse(r.stdout) as {
    hookSpecificOutput: {
      permissionDecision: string;
      permissionDecisionReason: string;
      updatedInput?: { command?: string };
    };
  };
  return out.hookSpecificOutput;
}

const segment = (command: string) => {
  const parsed = parseCommand(command);
  return parsed.segments[0]!;
};

describe('what a segment reaches', () => {
  it('HTTP clients and git remotes: their literal URLs', () => {
    expect(segmentNetwork(segment('curl -sS https://registry.npmjs.org/x'), true)).toEqual({
      kind: 'http',
      known: [{ host: 'registry.npmjs.org', port: 443 }],
    });
    expect(segmentNetwork(segment('wget http://Example.com:8080/a'), true)).toEqual({
      kind: 'http',
      known: [{ host: 'example.com', port: 8080 }],
    });
    expect(segmentNetwork(segment('curl "$URL"'), true)).toEqual({ kind: 'http', known: [] });
    expect(segmentNetwork(segment('git clone https://github.com/a/b'), false)).toEqual({
      kind: 'http',
      known: [{ host: 'github.com', port: 443 }],
    });
    expect(segmentNetwork(segment('git status'), false)).toEqual({ kind: 'none' });
    expect(segmentNetwork(segment('git fetch'), false)).toEqual({ kind: 'none' });
  });

  it('what the proxy does not carry', () => {
    expect(segmentNetwork(segment('ssh host uptime'), true).kind).toBe('other');
    expect(segmentNetwork(segment('nc example.com 80'), true).kind).toBe('other');
    expect(segmentNetwork(segment('git clone git@github.com:a/b.git'), false).kind).toBe('other');
    expect(segmentNetwork(segment('curl ftp://example.com/f'), true).kind).toBe('other');
    expect(segmentNetwork(segment('cat < /dev/tcp/1.2.3.4/80'), false).kind).toBe('other');
  });

  it('refuses a known destination the list does not name', () => {
    const allow = parseAllowlist(['*.github.com', 'registry.npmjs.org']).entries;
    expect(refusedDestination(segmentNetwork(segment('curl https://api.github.com/x'), true), allow)).toBeUndefined();
    expect(refusedDestination(segmentNetwork(segment('curl https://evil.example/x'), true), allow)).toEqual({
      host: 'evil.example',
      port: 443,
    });
    expect(refusedDestination(segmentNetwork(segment('curl http://registry.npmjs.org:8080/'), true), allow)).toEqual({
      host: 'registry.npmjs.org',
      port: 8080,
    });
  });
});

describe('the engine with a network allowlist', () => {
  it('without an allowlist a network command stays an ask (the walls cut the network)', async () => {
    const d = await decide(project([]), 'curl -sS https://example.com/');
    expect(d.permissionDecision).not.toBe('allow');
    expect(d.permissionDecisionReason).toContain('no network allowlist');
  });

  it('a destination not on the list stays an ask, naming it', async () => {
    const d = await decide(project(['registry.npmjs.org']), 'curl -sS https://evil.example/x');
    expect(d.permissionDecision).not.toBe('allow');
    expect(d.permissionDecisionReason).toContain(
      'reaches evil.example port 443, which is not on the network allowlist',
    );
  });

  it('ssh and raw TCP stay asks: only HTTP(S) goes through the proxy', async () => {
    const d = await decide(project(['example.com']), 'ssh example.com uptime');
    expect(d.permissionDecision).not.toBe('allow');
    expect(d.permissionDecisionReason).toMatch(/only HTTP and HTTPS go through the filtering proxy/);
  });

  it('outside a daemon (no proxy) a network command stays an ask, saying why', async () => {
    // A POST: the read-only pack allows a GET from this machine by itself.
    const d = await decide(project([`localhost:${port}`]), `curl -sS -d hello http://localhost:${port}/x`, false);
    expect(d.permissionDecision).not.toBe('allow');
    expect(d.permissionDecisionReason).toMatch(/filtering proxy is not available: .*hookwise daemon start/);
  });

  it.runIf(canConfine)(
    'outside a daemon a command that does not need the network still runs confined, with none',
    async () => {
      const d = await decide(project([`localhost:${port}`]), './scripts/gen.sh', false);
      expect(d.permissionDecision).toBe('allow');
      expect(d.permissionDecisionReason).toContain('cannot reach the network');
      expect(d.updatedInput?.command).not.toContain('socat');
    },
  );

  it.runIf(canConfine && socat !== undefined)(
    'an allowlisted destination runs confined through the proxy, for real',
    { timeout: 3 * CONFINED_RUN_TIMEOUT_MS },
    async () => {
      const p = project([`localhost:${port}`]);
      const d = await decide(p, `curl -sS -d hello http://localhost:${port}/through-the-walls`);
      expect(d.permissionDecision).toBe('allow');
      expect(d.permissionDecisionReason).toContain('runs confined');
      expect(d.permissionDecisionReason).toContain(
        `can reach only localhost:${port} over HTTP(S) through hookwise's proxy`,
      );
      const wrapped = String(d.updatedInput?.command);
      expect(wrapped).toContain('socat');
      // Asynchronously: the proxy answers from this very process.
      const ok = await runShell(wrapped, {
        cwd: p.root,
        env: { ...p.env, PATH: process.env.PATH },
        timeoutMs: CONFINED_RUN_TIMEOUT_MS,
      });
      expect(ok.stdout, describeRun(ok)).toBe(`served /through-the-walls to localhost:${port}\n`);
      // A script whose destination the words do not show runs with the same walls: the proxy refuses it.
      // The run's mount-point files (.hookwise, .claude, … absent here) are removed in the background after it.
      for (let i = 0; i < 200 && existsSync(join(p.root, '.hookwise')); i++)
        await new Promise((r) => setTimeout(r, 10));
      // A reserved name (RFC 6761) that resolves nowhere, should the proxy ever look it up.
      const second = await decide(p, './scripts/fetch.sh http://unlisted.invalid/');
      const other = String(second.updatedInput?.command);
      expect(other).toContain('socat');
      const refused = await runShell(other, {
        cwd: p.root,
        env: { ...p.env, PATH: process.env.PATH },
        timeoutMs: CONFINED_RUN_TIMEOUT_MS,
      });
      expect(refused.stdout, describeRun(refused)).toContain(
        'hookwise proxy: refused: unlisted.invalid is not on the network allowlist',
      );
    },
  );
});

describe('a refusal of the proxy is a wall hit (the next identical call is asked)', () => {
  it.each([
    'hookwise proxy: refused: example.com is not on the network allowlist',
    'curl: (56) CONNECT tunnel failed, response 403',
    "fatal: unable to access 'https://evil.example/x.git/': CONNECT tunnel failed, response 403",
    "requests.exceptions.ProxyError: HTTPSConnectionPool(host='evil.example', port=443): Max retries exceeded (Caused by ProxyError('Cannot connect to proxy.', OSError('Tunnel connection failed: 403 Forbidden')))",
    'Proxy tunneling failed: ForbiddenUnable to establish SSL connection.',
    'npm ERR! request to https://evil.example/ failed, reason: tunneling socket could not be established, statusCode=403',
  ])('%s', (line) => {
    expect(wallsHit(`some output\n${line}\n`)).toMatchObject({ kind: 'network' });
  });
});
