/**
 * The walls, for real: confined commands in a disposable project with canary files and a home of their own.
 * They run where the probe says this machine can confine; elsewhere the probe's fail-closed report is what
 * is tested (and the first test runs in both cases).
 */
import { existsSync, lstatSync, readFileSync, symlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeBox, runShell, type ConfineBox } from '../../bench/confine-box.js';
import { dnsQueryCommands, ownAddress, startDnsCanary, startTcpCanary } from '../../bench/local-net.js';
import { confinementCheck } from '../../src/cli/doctor.js';
import { buildEnvelope } from '../../src/confine/envelope.js';
import { probeConfinement } from '../../src/confine/probe.js';
import { wrapCommand } from '../../src/confine/wrap.js';

const probe = probeConfinement();
const runtime = probe.available ? probe.runtime : undefined;

const boxes: ConfineBox[] = [];
const servers: Server[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (boxes.length > 0) boxes.pop()!.cleanup();
  while (servers.length > 0) await new Promise((resolve) => servers.pop()!.close(resolve));
  while (closers.length > 0) await closers.pop()!();
});
function box(): ConfineBox {
  const b = makeBox(runtime);
  boxes.push(b);
  return b;
}
const read = (path: string): string | undefined => (existsSync(path) ? readFileSync(path, 'utf8') : undefined);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Mount-point files are removed in the background after a run: wait (a little) for them to go. */
async function gone(paths: string[], ms = 3000): Promise<string[]> {
  const until = Date.now() + ms;
  let left = paths.filter(existsSync);
  while (left.length > 0 && Date.now() < until) {
    await sleep(20);
    left = left.filter(existsSync);
  }
  return left;
}

describe('the probe', () => {
  it('says whether confined allows are available here, and if not why and what to do (never an unconfined allow)', () => {
    const line = confinementCheck(probe);
    if (probe.available) {
      expect(probe.confirmed).toEqual(
        expect.arrayContaining([
          'no-new-privs',
          'no-capabilities',
          'seccomp',
          'loopback-only',
          'pid-namespace',
          'protected-uncreatable',
          'secret-hidden',
        ]),
      );
      expect(line.detail).toMatch(/confined allows are available/);
    } else {
      expect(probe.reason).not.toBe('');
      expect(probe.fix).not.toBe('');
      expect(line).toMatchObject({ status: 'warn', detail: expect.stringMatching(/fall back to ask/) });
      // Without a runtime nothing can be wrapped: the engine gets a reason, not a command.
      expect(box().wrap('true')).toMatchObject({ ok: false });
    }
  });

  it('without bubblewrap: says to install it', () => {
    const report = probeConfinement({ bwrap: '/nonexistent/bwrap' });
    expect(report).toMatchObject({
      available: false,
      failure: 'bwrap-missing',
      fix: expect.stringMatching(/apt-get install bubblewrap socat/),
    });
    expect(confinementCheck(report).detail).toMatch(/fall back to ask/);
  });

  it('off Linux: not available, with the reason', () => {
    expect(probeConfinement({ platform: 'darwin' })).toMatchObject({ available: false, failure: 'platform' });
  });
});

/** --disable-userns, which the nested bubblewrap below needs, came with 0.8. */
const hasDisableUserns =
  probe.available &&
  /(\d+)\.(\d+)/.test(probe.bwrapVersion) &&
  (([, major, minor]) => Number(major) > 0 || Number(minor) >= 8)(/(\d+)\.(\d+)/.exec(probe.bwrapVersion)!);

describe.runIf(hasDisableUserns)('the probe, where bubblewrap cannot make namespaces', () => {
  it('says user namespaces are refused, and how to allow them', () => {
    // A bubblewrap that runs the real one where user namespaces are disabled and no capability is left.
    const b = box();
    const nested = b.put(
      'bin/bwrap',
      `#!/bin/sh\nexec ${probe.available ? probe.runtime.bwrap : 'bwrap'} --dev-bind / / --unshare-user --disable-userns --cap-drop ALL -- ${probe.available ? probe.runtime.bwrap : 'bwrap'} "$@"\n`,
      0o755,
    );
    const report = probeConfinement({ bwrap: nested });
    expect(report).toMatchObject({
      available: false,
      failure: 'userns',
      fix: expect.stringMatching(/user namespaces/),
      detail: expect.stringMatching(/namespace/),
    });
  });
});

describe.skipIf(!probe.available)('confined commands', () => {
  it('write inside the project (the write lands), and the exit status and output come back', async () => {
    const b = box();
    const r = await b.run('echo built > out.txt && mkdir -p dist && echo js > dist/a.js && cat src/app.ts; exit 3');
    expect(r.status).toBe(3);
    expect(r.stdout).toContain('export const app');
    expect(read(join(b.project, 'out.txt'))).toBe('built\n');
    expect(read(join(b.project, 'dist/a.js'))).toBe('js\n');
  });

  it('cannot write outside the project: the canary is untouched, also through a symlink and ..', async () => {
    const b = box();
    symlinkSync(b.outside, join(b.project, 'out-link'));
    const r = await b.run(
      `echo x > ${b.outside}/canary; echo x > ../outside/canary; echo x > out-link/canary; echo x > out-link/new; touch ${b.home}/.bashrc-new; echo x >> ${b.home}/.bashrc`,
    );
    expect(r.stderr).toMatch(/Read-only file system/);
    expect(read(join(b.outside, 'canary'))).toBe('canary\n');
    expect(existsSync(join(b.outside, 'new'))).toBe(false);
    expect(read(join(b.home, '.bashrc'))).toBe('# rc\n');
  });

  it('writes to the temp dir land', async () => {
    const b = box();
    await b.run('echo t > "$TMPDIR/scratch"');
    expect(read(join(b.tmp, 'scratch'))).toBe('t\n');
  });

  // Each technique first makes the directory it needs, so that without walls every row does write its target:
  // the test runs it unconfined too and checks that it did (the row is not vacuous).
  const existing = ['.git/hooks/pre-commit.sample', '.git/config', '.hookwise/policy.yml'];
  const absent = ['.git/hooks/pre-commit', '.mcp.json', '.claude/settings.json', '.hookwise/x', '.vscode/tasks.json'];
  const mk = (t: string) => `mkdir -p "$(dirname ${t})" 2>/dev/null;`;
  const techniques: [string, (t: string) => string][] = [
    ['directly', (t) => `${mk(t)} echo evil > ${t}`],
    ['through a symlink planted in the project', (t) => `${mk(t)} ln -s "$PWD/${t}" planted; echo evil > planted`],
    [
      'through a symlink to its directory',
      (t) => `${mk(t)} ln -s "$PWD/$(dirname ${t})" dirlink; echo evil > dirlink/$(basename ${t})`,
    ],
    ['through ..', (t) => `${mk(t)} mkdir -p sub; echo evil > sub/../${t}`],
    ['by a hard link', (t) => `${mk(t)} echo evil > f; ln -f f ${t}`],
    ['by a rename', (t) => `${mk(t)} echo evil > f; mv -f f ${t}`],
    [
      'by renaming its directory away and back',
      (t) =>
        `d=$(dirname ${t}); [ "$d" = . ] || { mv "$d" moved; mkdir -p "$d"; cp -r moved/. "$d"/ 2>/dev/null; }; echo evil > ${t}`,
    ],
    ['by deleting it and creating it again', (t) => `rm -rf ${t}; ${mk(t)} echo evil > ${t}`],
  ];
  const rows = [...existing, ...absent].flatMap((t) => techniques.map(([how, cmd]) => [t, how, cmd(t)] as const));
  rows.push(
    ...existing.map((t) => [t, 'by a hard link to it, then writing that', `ln ${t} h && echo evil > h`] as const),
  );
  it.each(rows)('cannot write %s %s', async (target, _how, command) => {
    const control = box();
    await control.run(command, { confined: false });
    expect(read(join(control.project, target)), 'without walls the row writes its target').toBe('evil\n');
    const b = box();
    const before = read(join(b.project, target));
    await b.run(command);
    // The mount-point files made for absent protected paths are gone after the run.
    expect(await gone(['.mcp.json', '.claude', '.vscode', '.gemini'].map((stub) => join(b.project, stub)))).toEqual([]);
    expect(read(join(b.project, target))).toBe(before);
    // Nothing else on the way to the protected path was replaced either.
    expect(lstatSync(join(b.project, '.git')).isDirectory()).toBe(true);
    expect(read(join(b.project, '.git/config'))).toContain('repositoryformatversion');
  });

  it.each([
    ['.hg/hgrc', 'printf "[hooks]\\npre-log = id\\n" >> .hg/hgrc'],
    ['.hg/sharedpath', 'echo /tmp/planted/.hg > .hg/sharedpath'],
    ['.jj/repo/config.toml', 'echo \'ui.pager = "id"\' >> .jj/repo/config.toml'],
    ['vendor/lib/.hg/hgrc', 'rm -f vendor/lib/.hg/hgrc; echo "[hooks]" > vendor/lib/.hg/hgrc'],
    ['vendor/lib/.git/config', 'printf "[core]\\n\\tfsmonitor = id\\n" >> vendor/lib/.git/config'],
  ])("cannot write hg's, jj's or a nested repository's configuration: %s", async (target, command) => {
    const control = box();
    control.put(`project/${target}`, '# mine\n');
    await control.run(command, { confined: false });
    expect(read(join(control.project, target)), 'without walls the row writes its target').not.toBe('# mine\n');
    const b = box();
    b.put(`project/${target}`, '# mine\n');
    await b.run(command);
    expect(read(join(b.project, target))).toBe('# mine\n');
  });

  it('cannot make a .hg or .jj directory where the project has none (hg and jj would read its config later)', async () => {
    const b = box();
    await b.run('mkdir -p .hg .jj/repo; printf "[hooks]\\npre-log = id\\n" > .hg/hgrc; echo x > .jj/repo/config.toml');
    expect(read(join(b.project, '.hg/hgrc'))).toBeUndefined();
    expect(read(join(b.project, '.jj/repo/config.toml'))).toBeUndefined();
    expect(await gone([join(b.project, '.hg'), join(b.project, '.jj')])).toEqual([]);
  });

  it('git cannot point hooks elsewhere (core.hooksPath, a rewritten .git file)', async () => {
    const b = box();
    await b.run(
      'git config core.hooksPath /tmp/evil; git config --file .git/config core.fsmonitor evil; echo "gitdir: /tmp/evil" > .git.new; mv -f .git.new .git',
    );
    expect(read(join(b.project, '.git/config'))).not.toMatch(/hooksPath|fsmonitor/);
    expect(lstatSync(join(b.project, '.git')).isDirectory()).toBe(true);
  });

  it('a worktree .git file is bound read-only: it can be neither rewritten nor replaced by a directory', async () => {
    const b = box();
    const wt = join(b.base, 'wt');
    b.put('wt/.git', 'gitdir: /elsewhere\n');
    const envelope = buildEnvelope({ projectRoot: wt, tempDir: b.tmp, home: b.home, runtimeDir: b.runtimeDir });
    const w = wrapCommand(
      envelope,
      'echo "gitdir: /tmp/evil" > .git; rm -f .git; mkdir -p .git/hooks; echo ok > file',
      b.runtime!,
    );
    expect(w.ok && w.plan.mounts).toContainEqual({ op: 'ro-bind', path: join(wt, '.git') });
    await runShell(w.ok ? w.command : 'false', { cwd: wt, env: b.env, timeoutMs: 10_000 });
    expect(read(join(wt, '.git'))).toBe('gitdir: /elsewhere\n');
    expect(read(join(wt, 'file'))).toBe('ok\n');
  });

  it('cannot read secrets: ~/.ssh, ~/.aws, ~/.netrc, docker and gcloud credentials, keyrings, .env files, the runtime dir', async () => {
    const b = box();
    const r = await b.run(
      [
        'cat ~/.ssh/id_rsa ~/.aws/credentials ~/.netrc ~/.docker/config.json ~/.config/gcloud/credentials.db ~/.local/share/keyrings/login.keyring',
        'cat .env packages/api/.env.local',
        `cat ${b.runtimeDir}/audit.log`,
        'grep -r hookwise-canary ~ . 2>/dev/null',
        'cp ~/.ssh/id_rsa stolen 2>/dev/null; tar cf stolen.tar ~/.aws 2>/dev/null',
        'cat .env.example',
      ].join('; '),
    );
    expect(r.stdout + r.stderr).not.toContain(b.token);
    expect(r.stdout).toContain('API_TOKEN=\n'); // the template is readable
    for (const leak of ['stolen', 'stolen.tar']) expect(read(join(b.project, leak)) ?? '').not.toContain(b.token);
  });

  it('cannot reach the network: not a listener on the host loopback, not DNS, not this machine’s own address', async () => {
    const b = box();
    let connections = 0;
    const server = createServer((s) => {
      connections++;
      s.destroy();
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    // Nothing off this machine: a DNS server on the host loopback, a listener on this machine's own address.
    const dns = await startDnsCanary();
    closers.push(() => dns.close());
    const address = ownAddress();
    const own = address === undefined ? undefined : await startTcpCanary(address);
    if (own !== undefined) closers.push(() => own.close());
    const queries = dnsQueryCommands(dns.port);
    const outside = own === undefined ? 'false' : `(exec 3<>/dev/tcp/${own.address}/${own.port})`;
    const probes = `(exec 3<>/dev/tcp/127.0.0.1/${port}) && echo tcp-ok; ${queries.python} | sed s/resolved/dns-ok/; ${outside} && echo out-ok`;
    const r = await b.run(`${probes}; cat /proc/net/dev`);
    await sleep(50);
    expect(connections).toBe(0);
    expect(dns.queries()).toBe(0);
    expect(own?.connections() ?? 0).toBe(0);
    expect(r.stdout).not.toMatch(/tcp-ok|dns-ok|out-ok/);
    expect(r.stdout).toMatch(/lo:/);
    // Unconfined, the same listeners answer (the checks above are not vacuous).
    const control = await b.run(probes, { confined: false });
    expect(control.stdout).toContain('tcp-ok');
    expect(control.stdout).toContain('dns-ok');
    if (own !== undefined) expect(control.stdout).toContain('out-ok');
    await sleep(50);
    expect(connections).toBe(1);
  });

  it('cannot connect to a Unix socket of a local daemon, even one in a writable directory', async () => {
    const b = box();
    let connections = 0;
    const path = join(b.tmp, 'daemon.sock');
    const server = createServer((s) => {
      connections++;
      s.destroy();
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(path, resolve));
    const node = process.execPath;
    const r = await b.run(
      `${node} -e 'require("net").connect(process.argv[1]).on("connect",()=>console.log("unix-ok")).on("error",e=>console.log(e.code))' ${path}`,
    );
    await sleep(50);
    expect(r.stdout.trim()).toBe('EPERM');
    expect(connections).toBe(0);
  });

  it('leaves nothing running: a background child dies with the command', async () => {
    const b = box();
    const r = await b.run(
      '(sleep 0.4; echo late > late.txt) & nohup sh -c "sleep 0.4; echo late > nohup.txt" >/dev/null 2>&1 & setsid sh -c "sleep 0.4; echo late > setsid.txt" & echo started',
    );
    expect(r.stdout).toContain('started');
    await sleep(900);
    for (const f of ['late.txt', 'nohup.txt', 'setsid.txt']) expect(existsSync(join(b.project, f)), f).toBe(false);
  });

  it('runs without privileges: no capabilities, no new privileges, no nested user namespace, its own pid namespace', async () => {
    const b = box();
    const r = await b.run(
      "grep -E '^(CapEff|NoNewPrivs|Seccomp):' /proc/self/status; echo pid=$$; ps -e 2>/dev/null | wc -l; unshare -U true && echo userns-ok",
    );
    expect(r.stdout).toMatch(/CapEff:\s*0+\n/);
    expect(r.stdout).toMatch(/NoNewPrivs:\s*1/);
    expect(r.stdout).toMatch(/Seccomp:\s*2/);
    expect(Number(/pid=(\d+)/.exec(r.stdout)?.[1])).toBeLessThan(10);
    expect(r.stdout).not.toContain('userns-ok');
  });

  it('a running sandbox keeps its protection while a second one starts and ends', async () => {
    const b = box();
    const first = b.run('sleep 1.5; echo evil > .mcp.json; echo done');
    await sleep(300);
    await b.run('true');
    // The second run's clean-up must not remove the first one's mount point (the lock is held).
    expect(existsSync(join(b.project, '.mcp.json'))).toBe(true);
    const r = await first;
    expect(r.stdout).toContain('done');
    expect(await gone([join(b.project, '.mcp.json')])).toEqual([]);
  });

  it('stdin reaches the command, and descriptors above 2 do not', async () => {
    const b = box();
    const r = await b.run('cat; ls /proc/self/fd | sort -n | tr "\\n" " "', { input: 'from stdin\n' });
    expect(r.stdout).toContain('from stdin');
    expect(
      r.stdout
        .trim()
        .split(/\s+/)
        .filter((fd) => Number(fd) > 2 && fd !== '3'),
    ).toEqual([]);
  });
});
