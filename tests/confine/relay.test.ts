/**
 * The relay stage of a confined command with a network allowlist: how it is rendered, and — where this
 * machine can confine and has socat — that the walls inside it are the same walls, that only the proxy is
 * reachable, and that the relay dies with the command.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { CONFINED_RUN_TIMEOUT_MS, describeRun, makeBox, type ConfineBox } from '../../bench/confine-box.js';
import { parseAllowlist } from '../../src/confine/allowlist.js';
import { buildEnvelope, DEFAULT_CONFINE_SETTINGS } from '../../src/confine/envelope.js';
import { probeConfinement, which } from '../../src/confine/probe.js';
import {
  bwrapArgs,
  PROXY_ENV,
  renderCommand,
  wrapCommand,
  type ConfineRuntime,
  type MountPlan,
} from '../../src/confine/wrap.js';
import { NetProxyHost } from '../../src/daemon/netproxy.js';

const probe = probeConfinement();
/** A backstop for a hung test, not a measure: a loaded machine makes a run slow, never a failure. */
const TEST_TIMEOUT_MS = 3 * CONFINED_RUN_TIMEOUT_MS;
const socat = which('socat', process.env);
const runtime: ConfineRuntime = {
  bwrap: '/usr/bin/bwrap',
  shell: '/bin/bash',
  lockFile: '/run/hw/confine.lock',
  arch: 'x64',
  userns: true,
};
const plan: MountPlan = { writable: ['/p'], mounts: [{ op: 'bind', path: '/p' }], stubs: [], scanned: 0 };
const relay = { socket: '/run/hw/netproxy/abc.sock', socat: '/usr/bin/socat' };

describe('rendering', () => {
  it("the walls share the relay stage's network namespace and point the proxy variables at the relay", () => {
    const inner = bwrapArgs(plan, runtime, { proxied: true });
    expect(inner).not.toContain('--unshare-net');
    for (const [name, value] of Object.entries(PROXY_ENV))
      expect(inner.join('\0')).toContain(['--setenv', name, value].join('\0'));
    expect(PROXY_ENV.NO_PROXY).toBe('');
    expect(bwrapArgs(plan, runtime)).toContain('--unshare-net');
    expect(bwrapArgs(plan, runtime).join(' ')).not.toContain('--setenv');
  });

  it('the relay stage comes first: its own network and pid namespaces, socat before the walls, the filter only for the walls', () => {
    const r = renderCommand(plan, 'curl https://example.com', runtime, { relay });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    // The whole is one `/bin/sh -c '…'`: the words inside are quoted twice; compare them without quotes.
    const words = r.command.replace(/['\\]/g, '');
    const outer = words.indexOf('--dev-bind / / --unshare-net --unshare-pid --die-with-parent --unshare-user');
    const inner = words.indexOf('--ro-bind / / --dev /dev --proc /proc');
    expect(outer).toBeGreaterThan(0);
    expect(inner).toBeGreaterThan(outer);
    expect(words.indexOf('--seccomp')).toBeGreaterThan(inner);
    expect(
      words.indexOf('TCP-LISTEN:3128,bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:/run/hw/netproxy/abc.sock'),
    ).toBeGreaterThan(outer);
    expect(words.indexOf('TCP-LISTEN')).toBeLessThan(inner);
  });

  it('refuses what it cannot render safely', () => {
    expect(renderCommand(plan, 'true', runtime, { relay: { ...relay, socket: '/run/a,b/x.sock' } })).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/socat would misread/),
    });
    const proxyEnvelope = buildEnvelope({
      projectRoot: '/p',
      tempDir: '/tmp',
      home: '/h',
      runtimeDir: '/run/hw',
      settings: { ...DEFAULT_CONFINE_SETTINGS, network: { allow: ['example.com'] } },
    });
    expect(wrapCommand(proxyEnvelope, 'true', runtime)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/needs the daemon's filtering proxy and socat/),
    });
    const noNetwork = buildEnvelope({ projectRoot: '/p', tempDir: '/tmp', home: '/h', runtimeDir: '/run/hw' });
    expect(wrapCommand(noNetwork, 'true', runtime, undefined, { relay })).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/without network/),
    });
  });
});

const boxes: ConfineBox[] = [];
const hosts: NetProxyHost[] = [];
afterEach(async () => {
  while (hosts.length > 0) await hosts.pop()!.close();
  while (boxes.length > 0) boxes.pop()!.cleanup();
});

async function proxiedBox(userns?: boolean): Promise<ConfineBox> {
  if (!probe.available) throw new Error('no confinement');
  const b = makeBox(userns === undefined ? probe.runtime : { ...probe.runtime, userns }, {
    settings: { ...DEFAULT_CONFINE_SETTINGS, network: { allow: ['localhost'] } },
  });
  boxes.push(b);
  const host = new NetProxyHost(b.runtimeDir);
  hosts.push(host);
  const served = await host.socketFor(parseAllowlist(['localhost']).entries);
  if (!served.ok) throw new Error(served.reason);
  b.setRelay({ socket: served.socket, socat: socat! });
  return b;
}

const relaysAlive = (socket: string): number[] =>
  readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(`UNIX-CONNECT:${socket}`);
      } catch {
        return false;
      }
    })
    .map(Number);

describe.runIf(probe.available && socat !== undefined)('the relay stage, for real', () => {
  const modes = probe.available && probe.runtime.userns && process.geteuid?.() === 0 ? [true, false] : [undefined];
  it.each(modes)(
    'the walls hold inside it (user namespace: %s), only the relay listens, and it dies with the command',
    { timeout: TEST_TIMEOUT_MS },
    async (userns) => {
      const b = await proxiedBox(userns);
      const socket = (b.wrap('true') as { command: string }).command.match(/UNIX-CONNECT:([^' ]+)/)![1]!;
      const r = await b.run(
        [
          "grep -q '^Seccomp:[[:space:]]*2$' /proc/self/status && echo seccomp",
          "grep -q '^CapEff:[[:space:]]*0*$' /proc/self/status && echo no-caps",
          "grep -q '^NoNewPrivs:[[:space:]]*1$' /proc/self/status && echo no-new-privs",
          '[ "$(grep -c : /proc/net/dev)" = 1 ] && echo loopback-only',
          "grep -c ' 0A ' /proc/net/tcp",
          'ls /proc | grep -c "^[0-9]"',
          `[ -e ${socket} ] || echo socket-hidden`,
          'echo "$HTTPS_PROXY"',
        ].join('; '),
      );
      expect(r.stdout.split('\n'), describeRun(r)).toEqual([
        'seccomp',
        'no-caps',
        'no-new-privs',
        'loopback-only',
        '1',
        expect.stringMatching(/^[1-4]$/),
        'socket-hidden',
        'http://127.0.0.1:3128',
        '',
      ]);
      // The relay lived in the outer pid namespace: gone with the command.
      for (let i = 0; i < 100 && relaysAlive(socket).length > 0; i++) await new Promise((res) => setTimeout(res, 10));
      expect(relaysAlive(socket)).toEqual([]);
    },
  );

  it(
    'a background child that outlives the command takes the relay with it, not the other way round',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const b = await proxiedBox();
      const socket = (b.wrap('true') as { command: string }).command.match(/UNIX-CONNECT:([^' ]+)/)![1]!;
      // Named by this box's token: another run of this test (another process) has a child of its own.
      const late = `late-${b.token}`;
      const r = await b.run(`(sleep 5; curl -s http://localhost:1/ > ${late}) & echo started`);
      expect(r.stdout, describeRun(r)).toBe('started\n');
      for (let i = 0; i < 100 && relaysAlive(socket).length > 0; i++) await new Promise((res) => setTimeout(res, 10));
      expect(relaysAlive(socket)).toEqual([]);
      expect(spawnSync('pgrep', ['-f', late]).status).not.toBe(0);
    },
  );
});
