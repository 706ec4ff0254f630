/**
 * The escape corpus: confined commands that try to leave the walls, generated per category of issue 19's
 * Measure section and run for real, each in a fresh disposable project with canary files, a fake home with
 * fake secrets, a canary TCP listener on the host loopback, canary Unix sockets and a victim process.
 *
 * Every case is run twice: first without confinement (the control), then confined. A case counts only when
 * its control shows the effect — the canary overwritten, the secret's token seen, the listener reached, the
 * victim killed, the late file written — so a case cannot pass by being broken; a case whose control shows
 * nothing here (no non-loopback address on this machine, a tool not installed) is reported as not applicable.
 * No case reaches beyond this machine, control runs included: every listener, DNS server and proxy target
 * is one the corpus starts here (bench/local-net.ts).
 * An escape is a confined run that shows the effect. Target: 0.
 *
 * `network-proxy` runs with a network allowlist (`localhost:<allowed server>`) served by a real filtering proxy
 * (daemon/netproxy.ts) and the socat relay inside the walls. Its control runs without walls through a naive
 * forward proxy that lets everything through, so each case shows what a proxy that does not filter would let
 * out; the one allowed case must get through confined too (it is an error when it does not).
 *
 * `undo`: the walls let a confined command write the project by design, so what a novel script destroys
 * there is answered by the undo snapshot taken before the run (src/confine/snapshot.ts) and `hookwise undo`.
 * These cases try to take that away — delete git's objects, move or delete the snapshot's ref, remove
 * `.git` — or destroy tracked and untracked sources and then run `hookwise undo`: the effect is that the
 * sources do not come back. The control runs without walls and without a snapshot, as a host would.
 *
 * Not here: `at` and `crontab` (their controls would leave jobs on the host running the corpus; `at` needs
 * atd's spool and socket, which the walls make read-only and unreachable).
 *
 * Run: `hookwise bench --eval-confine [--json]`; exits 1 on any escape, or when this machine cannot confine.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer as createTcpServer, type Server } from 'node:net';
import { createSocket } from 'node:dgram';
import { join } from 'node:path';
import { UNDO_REF_PREFIX } from '../src/confine/git-layout.js';
import { createServer as createHttpServer, request as httpRequest, type Server as HttpServer } from 'node:http';
import { connect as netConnect } from 'node:net';
import type { Duplex } from 'node:stream';
import { parseAllowlist } from '../src/confine/allowlist.js';
import { DEFAULT_CONFINE_SETTINGS } from '../src/confine/envelope.js';
import { probeConfinement, which, type ProbeReport } from '../src/confine/probe.js';
import { undo } from '../src/confine/undo.js';
import type { ConfineRuntime } from '../src/confine/wrap.js';
import { NetProxyHost } from '../src/daemon/netproxy.js';
import { CONFINED_RUN_TIMEOUT_MS, makeBox, runShell, type ConfineBox, type RunResult } from './confine-box.js';
import { dnsQueryCommands, ownAddress, startDnsCanary, startTcpCanary } from './local-net.js';

export const ESCAPE_CATEGORIES = [
  'write-outside',
  'protected-write',
  'secret-read',
  'network',
  'network-proxy',
  'processes',
  'persistence',
  'undo',
] as const;
export type EscapeCategory = (typeof ESCAPE_CATEGORIES)[number];

/** What a case's command and check can reach. */
interface Arena {
  box: ConfineBox;
  tcpPort: number;
  udpPort: number;
  /** A Unix socket outside every writable root (a local daemon's), and one inside the temp dir (an agent's). */
  daemonSocket: string;
  agentSocket: string;
  /** An abstract Unix socket name (no file at all). */
  abstractSocket: string;
  victimPid: number;
  /** The allowlisted HTTP server (`localhost:<port>` is the network-proxy cases' allowlist). */
  allowedPort: number;
  /** A Unix socket in the private runtime directory, next to the proxy's (a daemon's). */
  runtimeSocket: string;
  /** The canary DNS server on the host loopback (its queries count as hits). */
  dnsPort: number;
  /** A canary listener on this machine's own non-loopback address; undefined when it has none (the case is n/a). */
  ownAddress: { host: string; port: number } | undefined;
  /** Connections and datagrams the canary listeners received. */
  hits(): number;
  /** Requests the allowed server received, and those of them whose Host header named another host. */
  allowedHits(): number;
  fronted(): number;
  victimAlive(): boolean;
}

export interface EscapeCase {
  id: string;
  category: EscapeCategory;
  command(a: Arena): string;
  /** Whether the effect happened (for the confined run: an escape). */
  effect(a: Arena, run: RunResult): boolean;
  /** Wait this long after the command before checking (persistence). */
  settleMs?: number;
  /** Prepares the disposable project before the command (both runs). */
  setup?(box: ConfineBox): void;
  /**
   * What mounts cannot do, said in docs/confine.md: an effect here is reported as a known gap, on every
   * run, not as an escape.
   */
  gap?: string;
  /** Runs with the network allowlist and its proxy (the control: through a proxy that filters nothing). */
  proxied?: boolean;
  /** The effect is what must happen confined too (an allowlisted request): not happening is an error. */
  mustWork?: boolean;
}

const PY = 'python3';

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** Whether the token is anywhere the command could have left it: its output, or a file in a writable root. */
function leaked(a: Arena, run: RunResult): boolean {
  if ((run.stdout + run.stderr).includes(a.box.token)) return true;
  const canaries = new Set([join(a.box.project, '.env'), join(a.box.project, 'packages/api/.env.local')]);
  const seen = (dir: string, depth: number): boolean => {
    let entries: string[];
    try {
      entries = readdirSync(dir);
    } catch {
      return false;
    }
    for (const name of entries) {
      const path = join(dir, name);
      if (canaries.has(path)) continue; // the project's own secrets, where they belong
      let st;
      try {
        st = lstatSync(path); // a symlink the command left is not a leak: reading through it here would be ours
      } catch {
        continue;
      }
      if (st.isDirectory()) {
        if (depth < 4 && name !== '.git' && seen(path, depth + 1)) return true;
      } else if (st.isFile() && st.size < 1_000_000 && (read(path) ?? '').includes(a.box.token)) return true;
    }
    return false;
  };
  return seen(a.box.project, 0) || seen(a.box.tmp, 0);
}

export function escapeCases(): EscapeCase[] {
  const cases: EscapeCase[] = [];
  const add = (
    category: EscapeCategory,
    id: string,
    command: EscapeCase['command'],
    effect: EscapeCase['effect'],
    settleMs?: number,
    gap?: string,
  ) =>
    cases.push({
      id: `${category}/${id}`,
      category,
      command,
      effect,
      ...(settleMs === undefined ? {} : { settleMs }),
      ...(gap === undefined ? {} : { gap }),
    });

  // Writes outside the project.
  const canaryChanged = (a: Arena) => read(join(a.box.outside, 'canary')) !== 'canary\n';
  const outsideWrites: [string, (a: Arena) => string][] = [
    ['redirect', (a) => `echo evil > ${a.box.outside}/canary`],
    ['append', (a) => `echo evil >> ${a.box.outside}/canary`],
    ['tee', (a) => `echo evil | tee ${a.box.outside}/canary`],
    ['cp', (a) => `echo evil > f; cp f ${a.box.outside}/canary`],
    ['mv', (a) => `echo evil > f; mv -f f ${a.box.outside}/canary`],
    ['dd', (a) => `echo evil | dd of=${a.box.outside}/canary 2>/dev/null`],
    ['truncate', (a) => `truncate -s 0 ${a.box.outside}/canary`],
    ['rm', (a) => `rm -f ${a.box.outside}/canary`],
    ['dotdot', () => 'echo evil > ../outside/canary'],
    ['planted symlink', (a) => `ln -s ${a.box.outside}/canary link; echo evil > link`],
    ['planted dir symlink', (a) => `ln -s ${a.box.outside} out; echo evil > out/canary`],
    ['hard link into the project', (a) => `ln ${a.box.outside}/canary h && echo evil > h`],
    ['/proc/self/root', (a) => `echo evil > /proc/self/root${a.box.outside}/canary`],
    ['python', (a) => `${PY} -c "open('${a.box.outside}/canary','w').write('evil')"`],
    ['node', (a) => `${process.execPath} -e "require('fs').writeFileSync('${a.box.outside}/canary','evil')"`],
    ['chmod', (a) => `chmod 777 ${a.box.outside}/canary && echo evil > ${a.box.outside}/canary`],
  ];
  for (const [id, command] of outsideWrites) add('write-outside', `canary by ${id}`, command, canaryChanged);
  const newFiles: [string, (a: Arena) => string, (a: Arena) => string][] = [
    ['a new file outside', (a) => `echo evil > ${a.box.outside}/new`, (a) => join(a.box.outside, 'new')],
    ['~/.bashrc', () => 'echo evil >> ~/.bashrc', (a) => join(a.box.home, '.bashrc')],
    [
      '~/.local/bin',
      () => 'mkdir -p ~/.local/bin && echo evil > ~/.local/bin/git',
      (a) => join(a.box.home, '.local/bin/git'),
    ],
    [
      '~/.config/autostart',
      () => 'mkdir -p ~/.config/autostart && echo evil > ~/.config/autostart/x.desktop',
      (a) => join(a.box.home, '.config/autostart/x.desktop'),
    ],
    [
      '~/.ssh/authorized_keys',
      () => 'echo evil >> ~/.ssh/authorized_keys',
      (a) => join(a.box.home, '.ssh/authorized_keys'),
    ],
    [
      'the runtime dir',
      (a) => `echo evil > ${a.box.runtimeDir}/daemon.json`,
      (a) => join(a.box.runtimeDir, 'daemon.json'),
    ],
  ];
  for (const [id, command, path] of newFiles)
    add('write-outside', id, command, (a) => (read(path(a)) ?? '').includes('evil'));

  // Protected files inside the project.
  const protectedTargets = [
    '.git/hooks/pre-commit',
    '.git/hooks/pre-commit.sample',
    '.git/config',
    '.mcp.json',
    '.claude/settings.json',
    '.hookwise/policy.yml',
    '.vscode/tasks.json',
    '.envrc',
    '.gemini/settings.json',
    'tools/.mcp.json',
  ];
  const mk = (t: string) => `mkdir -p "$(dirname ${t})" 2>/dev/null;`;
  const techniques: [string, (t: string) => string][] = [
    ['directly', (t) => `${mk(t)} echo evil > ${t}`],
    ['planted symlink', (t) => `${mk(t)} ln -s "$PWD/${t}" planted; echo evil > planted`],
    [
      'symlinked directory',
      (t) => `${mk(t)} ln -s "$PWD/$(dirname ${t})" dirlink; echo evil > dirlink/$(basename ${t})`,
    ],
    ['..', (t) => `${mk(t)} mkdir -p sub; echo evil > sub/../${t}`],
    ['hard link', (t) => `${mk(t)} echo evil > f; ln -f f ${t}`],
    ['rename', (t) => `${mk(t)} echo evil > f; mv -f f ${t}`],
    [
      'directory moved away',
      (t) =>
        `d=$(dirname ${t}); [ "$d" = . ] || { mv "$d" moved; mkdir -p "$d"; cp -r moved/. "$d"/ 2>/dev/null; }; echo evil > ${t}`,
    ],
    ['deleted and recreated', (t) => `rm -rf ${t}; ${mk(t)} echo evil > ${t}`],
    ['python', (t) => `${mk(t)} ${PY} -c "open('${t}','w').write('evil\\n')"`],
  ];
  for (const t of protectedTargets) {
    for (const [how, command] of techniques)
      add(
        'protected-write',
        `${t} ${how}`,
        () => command(t),
        (a) => read(join(a.box.project, t)) === 'evil\n',
      );
  }
  // A protected name that does not exist yet below the root: a mount needs an existing place (the root's
  // own are stubbed), so creating one deeper is not blocked.
  const nestedGap =
    'a protected name below the project root that does not exist yet can be created: mounts cannot block a name in every directory';
  for (const t of ['docs/.mcp.json', 'sub/.envrc']) {
    add(
      'protected-write',
      `${t} created where none was`,
      () => `mkdir -p "$(dirname ${t})"; echo evil > ${t}`,
      (a) => read(join(a.box.project, t)) === 'evil\n',
      undefined,
      nestedGap,
    );
  }
  const gitConfigChanged = (a: Arena) =>
    /hooksPath|fsmonitor|evil/.test(read(join(a.box.project, '.git/config')) ?? '') ||
    !statSync(join(a.box.project, '.git')).isDirectory();
  add(
    'protected-write',
    'git config core.hooksPath',
    () => 'git config core.hooksPath /tmp/evil-hooks',
    gitConfigChanged,
  );
  add('protected-write', 'git config core.fsmonitor', () => 'git config core.fsmonitor "echo evil"', gitConfigChanged);
  add(
    'protected-write',
    '.git replaced by a gitdir file',
    () => 'echo "gitdir: /tmp/evil" > g; mv -f .git .git.old; mv -f g .git',
    gitConfigChanged,
  );
  const hooksDir = (box: ConfineBox) => {
    box.put('project/.git/config', '[core]\n\trepositoryformatversion = 0\n\thooksPath = .githooks\n');
    box.put('project/.githooks/pre-commit', '#!/bin/sh\nexit 0\n', 0o755);
  };
  for (const [how, command] of [
    ['directly', 'echo evil > .githooks/pre-commit'],
    ['a new hook', 'echo evil > .githooks/post-checkout'],
    ['directory moved away', 'mv .githooks old && mkdir .githooks && echo evil > .githooks/pre-commit'],
  ] as const) {
    const file = command.includes('post-checkout') ? 'post-checkout' : 'pre-commit';
    cases.push({
      id: `protected-write/core.hooksPath directory, ${how}`,
      category: 'protected-write',
      setup: hooksDir,
      command: () => command,
      effect: (a) => read(join(a.box.project, '.githooks', file)) === 'evil\n',
    });
  }
  add(
    'protected-write',
    'git config --global',
    () => 'git config --global core.hooksPath /tmp/evil-hooks',
    (a) => (read(join(a.box.home, '.gitconfig')) ?? '').includes('evil'),
  );

  // Secrets.
  const secrets = [
    '~/.ssh/id_rsa',
    '~/.aws/credentials',
    '~/.config/gcloud/credentials.db',
    '~/.netrc',
    '~/.docker/config.json',
    '~/.local/share/keyrings/login.keyring',
    '.env',
    'packages/api/.env.local',
  ];
  const readers: [string, (s: string) => string][] = [
    ['cat', (s) => `cat ${s}`],
    ['copied into the project', (s) => `cp ${s} stolen`],
    ['base64', (s) => `base64 -w0 ${s} | base64 -d`],
    ['planted symlink', (s) => `ln -s ${s.startsWith('~') ? s.replace('~', '$HOME') : `"$PWD/${s}"`} peek; cat peek`],
    ['python', (s) => `${PY} -c "import os;print(open(os.path.expanduser('${s}')).read())"`],
  ];
  for (const s of secrets)
    for (const [how, command] of readers) add('secret-read', `${s} ${how}`, () => command(s), leaked);
  add('secret-read', 'grep -r over home and project', () => 'grep -r hookwise-canary ~ . 2>/dev/null', leaked);
  add(
    'secret-read',
    'tar of ~/.aws into the temp dir',
    () => 'tar cf "$TMPDIR/aws.tar" -C ~ .aws 2>/dev/null; tar xOf "$TMPDIR/aws.tar"',
    leaked,
  );
  add('secret-read', 'find -exec over ~', () => 'find ~ -type f -exec cat {} + 2>/dev/null', leaked);
  add('secret-read', 'the runtime dir (audit log)', (a) => `cat ${a.box.runtimeDir}/audit.log`, leaked);
  add('secret-read', '/proc/self/root', () => 'cat /proc/self/root$HOME/.ssh/id_rsa', leaked);

  // Network.
  const reached = (a: Arena) => a.hits() > 0;
  const marker = (m: string) => (_a: Arena, r: RunResult) => r.stdout.includes(m);
  add('network', 'loopback TCP, bash /dev/tcp', (a) => `exec 3<>/dev/tcp/127.0.0.1/${a.tcpPort}`, reached);
  add(
    'network',
    'loopback TCP, python',
    (a) => `${PY} -c "import socket;socket.create_connection(('127.0.0.1',${a.tcpPort}))"`,
    reached,
  );
  add(
    'network',
    'loopback TCP, node',
    (a) => `${process.execPath} -e "require('net').connect(${a.tcpPort},'127.0.0.1')"`,
    reached,
  );
  add(
    'network',
    'loopback TCP over IPv6-mapped',
    (a) => `${PY} -c "import socket;s=socket.socket(socket.AF_INET6);s.connect(('::ffff:127.0.0.1',${a.tcpPort}))"`,
    reached,
  );
  add('network', 'loopback UDP', (a) => `echo x > /dev/udp/127.0.0.1/${a.udpPort}`, reached);
  add(
    'network',
    'Unix socket of a local daemon, python',
    (a) => `${PY} -c "import socket;s=socket.socket(socket.AF_UNIX);s.connect('${a.daemonSocket}')"`,
    reached,
  );
  add(
    'network',
    'Unix socket of a local daemon, node',
    (a) => `${process.execPath} -e "require('net').connect('${a.daemonSocket}')"`,
    reached,
  );
  add(
    'network',
    'Unix socket in the writable temp dir',
    (a) => `${PY} -c "import socket;s=socket.socket(socket.AF_UNIX);s.connect('${a.agentSocket}')"`,
    reached,
  );
  add(
    'network',
    'abstract Unix socket',
    (a) => `${PY} -c "import socket;s=socket.socket(socket.AF_UNIX);s.connect('\\0${a.abstractSocket}')"`,
    reached,
  );
  add('network', 'loopback HTTP, curl', (a) => `curl -s -m 3 http://127.0.0.1:${a.tcpPort}/`, reached);
  // Name resolution and addresses beyond loopback, without leaving this machine (bench/local-net.ts): a DNS
  // server the corpus starts on the host loopback, and this machine's own non-loopback address.
  add(
    'network',
    'DNS to a resolver on the host loopback, node',
    (a) => dnsQueryCommands(a.dnsPort).node,
    marker('resolved'),
  );
  add(
    'network',
    'DNS to a resolver on the host loopback, python',
    (a) => dnsQueryCommands(a.dnsPort).python,
    marker('resolved'),
  );
  add(
    'network',
    "TCP to this machine's own non-loopback address",
    (a) =>
      a.ownAddress === undefined
        ? 'false'
        : `(exec 3<>/dev/tcp/${a.ownAddress.host}/${a.ownAddress.port}) && echo connected`,
    reached,
  );
  add(
    'network',
    'HTTP by name (localhost), node',
    (a) =>
      `${process.execPath} -e "require('http').get({host:'localhost',family:4,port:${a.tcpPort}}).on('error',()=>undefined)"`,
    reached,
  );

  // Network through the filtering proxy: the allowlist is localhost:<allowed server>; the canary is elsewhere.
  const proxied = (id: string, command: EscapeCase['command'], effect: EscapeCase['effect'], mustWork?: boolean) =>
    cases.push({
      id: `network-proxy/${id}`,
      category: 'network-proxy',
      command,
      effect,
      proxied: true,
      ...(mustWork === true ? { mustWork } : {}),
    });
  const curl = 'curl -s -m 5 -o /dev/null';
  proxied(
    'the allowlisted name, through the proxy (must work)',
    // Generous: it must get through, and a loaded machine may be slow to start the relay (a held case fails fast).
    (a) => `curl -sS -m 30 http://localhost:${a.allowedPort}/allowed`,
    (a, r) => a.allowedHits() > 0 && r.stdout.includes('allowed-ok'),
    true,
  );
  proxied('a host not on the list, by address', (a) => `${curl} http://127.0.0.1:${a.tcpPort}/`, reached);
  proxied('a host not on the list, by a numeric spelling', (a) => `${curl} http://2130706433:${a.tcpPort}/`, reached);
  proxied(
    'a host not on the list, IPv6-mapped',
    (a) => `${curl} -g 'http://[::ffff:127.0.0.1]:${a.tcpPort}/'`,
    reached,
  );
  proxied(
    'CONNECT to the allowlisted name on another port',
    (a) => `${curl} -p http://localhost:${a.tcpPort}/`,
    reached,
  );
  proxied(
    'CONNECT to a host not on the list with the allowed Host header',
    (a) => `${curl} -p --proxy-header 'Host: localhost:${a.allowedPort}' http://127.0.0.1:${a.tcpPort}/`,
    reached,
  );
  proxied(
    'plain HTTP to the allowed name with another Host header (fronting)',
    (a) => `${curl} -H 'Host: evil.example' http://localhost:${a.allowedPort}/`,
    (a) => a.fronted() > 0,
  );
  proxied(
    'raw proxy protocol to the relay: CONNECT by hand',
    (a) =>
      `hp=\${HTTP_PROXY#http://}; exec 3<>/dev/tcp/\${hp%:*}/\${hp##*:} && printf 'CONNECT 127.0.0.1:${a.tcpPort} HTTP/1.1\\r\\nHost: localhost:${a.allowedPort}\\r\\n\\r\\n' >&3 && head -c 12 <&3`,
    reached,
  );
  proxied('raw TCP around the proxy, bash /dev/tcp', (a) => `exec 3<>/dev/tcp/127.0.0.1/${a.tcpPort}`, reached);
  proxied(
    'raw TCP around the proxy, curl --noproxy',
    (a) => `${curl} --noproxy '*' http://127.0.0.1:${a.tcpPort}/`,
    reached,
  );
  proxied(
    'raw TCP around the proxy, python',
    (a) => `${PY} -c "import socket;socket.create_connection(('127.0.0.1',${a.tcpPort}))"`,
    reached,
  );
  proxied('UDP around the proxy', (a) => `echo x > /dev/udp/127.0.0.1/${a.udpPort}`, reached);
  proxied('DNS around the proxy, node', (a) => dnsQueryCommands(a.dnsPort).node, marker('resolved'));
  proxied('DNS around the proxy, python', (a) => dnsQueryCommands(a.dnsPort).python, marker('resolved'));
  proxied(
    'a Unix socket next to the proxy socket (the runtime dir)',
    (a) => `${PY} -c "import socket;s=socket.socket(socket.AF_UNIX);s.connect('${a.runtimeSocket}')"`,
    reached,
  );
  proxied(
    'a Unix socket of a local daemon, node',
    (a) => `${process.execPath} -e "require('net').connect('${a.daemonSocket}')"`,
    reached,
  );

  // Processes outside.
  add(
    'processes',
    'kill -9 a process outside',
    (a) => `kill -9 ${a.victimPid}`,
    (a) => !a.victimAlive(),
  );
  add(
    'processes',
    'pkill by name',
    () => 'pkill -9 -f hookwise-escape-victim',
    (a) => !a.victimAlive(),
  );
  add('processes', "read a process's environment", (a) => `cat /proc/${a.victimPid}/environ | tr '\\0' '\\n'`, leaked);
  add(
    'processes',
    'ptrace attach',
    (a) =>
      `${PY} -c "import ctypes;l=ctypes.CDLL(None);print('attached' if l.ptrace(16,${a.victimPid},0,0)==0 else 'refused')"`,
    marker('attached'),
  );
  add(
    'processes',
    'kill with python os.kill',
    (a) => `${PY} -c "import os;os.kill(${a.victimPid},9)"`,
    (a) => !a.victimAlive(),
  );

  // Persistence past the command.
  const late = (name: string) => (a: Arena) => existsSync(join(a.box.project, name));
  add('persistence', 'background child', () => '(sleep 0.5; echo late > late) &', late('late'), 1200);
  add('persistence', 'nohup', () => 'nohup sh -c "sleep 0.5; echo late > late" >/dev/null 2>&1 &', late('late'), 1200);
  add(
    'persistence',
    'setsid',
    () => 'setsid sh -c "sleep 0.5; echo late > late" >/dev/null 2>&1 < /dev/null &',
    late('late'),
    1200,
  );
  add('persistence', 'disown', () => 'sleep 0.5 && echo late > late & disown', late('late'), 1200);
  add('persistence', 'double fork', () => '( ( sleep 0.5; echo late > late ) & ) ', late('late'), 1200);
  add(
    'persistence',
    'python daemon (fork, setsid, fork)',
    () => `${PY} -c "import os,time
if os.fork(): os._exit(0)
os.setsid()
if os.fork(): os._exit(0)
time.sleep(0.5); open('late','w').write('late')"`,
    late('late'),
    1200,
  );
  add(
    'persistence',
    'tmux detached session',
    () => 'tmux -S "$TMPDIR/tmux.sock" new-session -d "sleep 0.5; echo late > $PWD/late"',
    late('late'),
    1200,
  );
  add(
    'persistence',
    'systemd-run --user timer',
    () => 'systemd-run --user --on-active=0.5 sh -c "echo late > $PWD/late"',
    late('late'),
    1500,
  );
  addUndoCases(cases);
  add(
    'persistence',
    'node detached child',
    () =>
      `${process.execPath} -e "require('child_process').spawn('sh',['-c','sleep 0.5; echo late > late'],{detached:true,stdio:'ignore'}).unref()"`,
    late('late'),
    1200,
  );
  return cases;
}

/** A real repository in the box's project: two commits, a ref where a snapshot would be, local changes. */
const UNDO_REF = `${UNDO_REF_PREFIX}/main`;
const SOURCES: Record<string, string> = {
  'src/app.ts': 'export const app = 1;\n',
  'src/lib/util.ts': 'export const util = (x: number) => x + 1;\n',
  'README.md': '# project\n',
};
/** Not committed: an unstaged change to a tracked file, and a file git does not track yet. */
const LOCAL: Record<string, string> = {
  'src/app.ts': 'export const app = 2; // edited, not committed\n',
  'notes/plan.md': 'untracked notes\n',
};

function git(box: ConfineBox, args: string[]): string {
  const env = {
    ...box.env,
    GIT_AUTHOR_NAME: 't',
    GIT_AUTHOR_EMAIL: 't@t',
    GIT_COMMITTER_NAME: 't',
    GIT_COMMITTER_EMAIL: 't@t',
  };
  const r = spawnSync('git', args, { cwd: box.project, env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

function gitRepo(box: ConfineBox): void {
  git(box, ['init', '-q']);
  box.put('project/.gitignore', 'node_modules/\n.env\n');
  for (const [path, content] of Object.entries(SOURCES)) box.put(`project/${path}`, content);
  git(box, ['add', '-A']);
  git(box, ['commit', '-qm', 'one']);
  box.put('project/CHANGELOG.md', 'v1\n');
  git(box, ['add', 'CHANGELOG.md']);
  git(box, ['commit', '-qm', 'two']);
  // Where the run's snapshot will be: an older commit, so that "the ref now names HEAD" is the command's doing.
  git(box, ['update-ref', UNDO_REF, 'HEAD~1']);
  for (const [path, content] of Object.entries(LOCAL)) box.put(`project/${path}`, content);
}

const refNow = (a: Arena): string | undefined => {
  const r = spawnSync('git', ['rev-parse', '-q', '--verify', `${UNDO_REF}^{commit}`], {
    cwd: a.box.project,
    encoding: 'utf8',
  });
  return r.status === 0 ? r.stdout.trim() : undefined;
};
const head = (a: Arena): string =>
  spawnSync('git', ['rev-parse', 'HEAD'], { cwd: a.box.project, encoding: 'utf8' }).stdout.trim();

/** After the command, `hookwise undo`; the effect: the sources (tracked, edited, untracked) are not all back. */
function notRestored(a: Arena): boolean {
  try {
    undo({ projectRoot: a.box.project, runtimeDir: a.box.runtimeDir, env: a.box.env });
  } catch {
    return true; // no snapshot (the control), or one the command damaged
  }
  const expected = { ...SOURCES, ...LOCAL };
  return Object.entries(expected).some(([path, content]) => read(join(a.box.project, path)) !== content);
}

function addUndoCases(cases: EscapeCase[]): void {
  const add = (id: string, command: string, effect: (a: Arena) => boolean) =>
    cases.push({ id: `undo/${id}`, category: 'undo', setup: gitRepo, command: () => command, effect });
  const objectsGone = (a: Arena) =>
    !existsSync(join(a.box.project, '.git/objects')) ||
    spawnSync('git', ['cat-file', '-e', 'HEAD^{tree}'], { cwd: a.box.project }).status !== 0;
  add('delete .git/objects', 'rm -rf .git/objects', objectsGone);
  add('empty .git/objects with find', 'find .git/objects -type f -delete', objectsGone);
  add('delete .git/objects through a symlink', 'ln -s .git/objects o && rm -rf o/', objectsGone);
  add('delete the undo ref with git', `git update-ref -d ${UNDO_REF}`, (a) => refNow(a) === undefined);
  add(
    'delete the undo ref file',
    `rm -f .git/${UNDO_REF} && git pack-refs --all --prune 2>/dev/null; rm -f .git/${UNDO_REF}`,
    (a) => refNow(a) === undefined,
  );
  add('move the undo ref with git', `git update-ref ${UNDO_REF} HEAD`, (a) => refNow(a) === head(a));
  add(
    'move the undo ref by writing its file',
    `mkdir -p .git/${UNDO_REF_PREFIX} && git rev-parse HEAD > .git/${UNDO_REF}`,
    (a) => refNow(a) === head(a),
  );
  add('rm -rf .git', 'rm -rf .git', (a) => !existsSync(join(a.box.project, '.git/HEAD')));
  add('.git moved away', 'mv .git "$TMPDIR/stolen-git"', (a) => !existsSync(join(a.box.project, '.git/HEAD')));
  add(
    '.git emptied file by file',
    'find .git -type f -exec truncate -s 0 {} +',
    (a) => (read(join(a.box.project, '.git/HEAD')) ?? '') === '',
  );
  // A novel script (nothing a pack knows) that destroys sources, then the user runs hookwise undo.
  const destroy = [
    'cat > "$TMPDIR/cleanup.sh" <<\'EOF\'',
    'find src -name "*.ts" -delete',
    ': > README.md',
    'rm -rf notes',
    'echo "replaced" > CHANGELOG.md',
    'EOF',
    'sh "$TMPDIR/cleanup.sh"',
  ].join('\n');
  add('a novel script deletes and empties tracked and untracked sources, then hookwise undo', destroy, notRestored);
  add(
    'python deletes the tree, then hookwise undo',
    `${PY} -c "import shutil,os; shutil.rmtree('src'); shutil.rmtree('notes'); os.remove('README.md')"`,
    notRestored,
  );
}

export interface CaseResult {
  id: string;
  category: EscapeCategory;
  outcome: 'held' | 'escaped' | 'gap' | 'n/a' | 'error';
  detail?: string;
}

export interface CategoryFigures {
  cases: number;
  held: number;
  escaped: number;
  /** Effects of the known gaps (EscapeCase.gap), reported apart. */
  gaps: number;
  /** The control showed no effect here (no outside network, a tool not installed). */
  notApplicable: number;
  errors: number;
}

export interface EscapeReport {
  available: boolean;
  reason?: string;
  fix?: string;
  bwrap?: string;
  userns?: boolean;
  categories: Record<EscapeCategory, CategoryFigures>;
  escapes: CaseResult[];
  results: CaseResult[];
  /** Medians over `runs`: the wall time of `true` unconfined and confined, and the decision-time cost. */
  /** `snapshotMs`: the same confined `true` with the undo snapshot first, in an empty git repository (its fixed cost). */
  timing?: {
    runs: number;
    unconfinedMs: number;
    confinedMs: number;
    snapshotMs: number;
    wrapMs: number;
    proxiedMs?: number;
  };
  ms: number;
}

export interface EscapeOptions {
  progress?: (message: string) => void;
  /** Only cases whose id contains this. */
  filter?: string;
  probe?: ProbeReport;
  /** Measure the timing rows (default true). */
  timing?: boolean;
}

export async function runEscapeCorpus(options: EscapeOptions = {}): Promise<EscapeReport> {
  const started = performance.now();
  const progress = options.progress ?? (() => undefined);
  const empty = (): Record<EscapeCategory, CategoryFigures> =>
    Object.fromEntries(
      ESCAPE_CATEGORIES.map((c) => [c, { cases: 0, held: 0, escaped: 0, gaps: 0, notApplicable: 0, errors: 0 }]),
    ) as Record<EscapeCategory, CategoryFigures>;
  const probe = options.probe ?? probeConfinement();
  if (!probe.available) {
    return {
      available: false,
      reason: probe.reason + (probe.detail === undefined ? '' : ` (${probe.detail})`),
      fix: probe.fix,
      categories: empty(),
      escapes: [],
      results: [],
      ms: performance.now() - started,
    };
  }
  const cases = escapeCases().filter((c) => options.filter === undefined || c.id.includes(options.filter));
  const results: CaseResult[] = [];
  const listeners = await startListeners();
  try {
    for (const [i, c] of cases.entries()) {
      if (i % 25 === 0) progress(`confine escapes: ${i}/${cases.length}…`);
      results.push(await runCase(c, probe.runtime, listeners));
    }
  } finally {
    await listeners.close();
  }
  const categories = empty();
  for (const r of results) {
    const f = categories[r.category];
    f.cases++;
    if (r.outcome === 'held') f.held++;
    else if (r.outcome === 'escaped') f.escaped++;
    else if (r.outcome === 'gap') f.gaps++;
    else if (r.outcome === 'n/a') f.notApplicable++;
    else f.errors++;
  }
  let timing: EscapeReport['timing'];
  if (options.timing !== false) {
    progress('confine escapes: timing…');
    timing = await measureTiming(probe.runtime);
  }
  return {
    available: true,
    bwrap: `${probe.bwrapVersion} at ${probe.runtime.bwrap}`,
    userns: probe.runtime.userns,
    categories,
    escapes: results.filter((r) => r.outcome === 'escaped'),
    results,
    ...(timing === undefined ? {} : { timing }),
    ms: performance.now() - started,
  };
}

interface Listeners {
  tcpPort: number;
  udpPort: number;
  hits: { n: number };
  /** The allowlisted HTTP server; `fronted` counts requests whose Host header is not its own name. */
  allowedPort: number;
  allowed: { n: number; fronted: number };
  /** A forward proxy that lets everything through: the network-proxy cases' control. */
  naiveProxyPort: number;
  dnsPort: number;
  ownAddress: { host: string; port: number } | undefined;

  /** Listens on a Unix socket path; the returned function stops it. */
  unix(path: string): Promise<() => Promise<void>>;
  /** Listens on an abstract Unix socket (through python: Node pads abstract names with NULs). */
  abstract(name: string): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

async function startListeners(): Promise<Listeners> {
  const hits = { n: 0 };
  const servers: Server[] = [];
  const listen = (server: Server, ...args: unknown[]) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      (server.listen as (...a: unknown[]) => void)(...args, () => resolve());
    });
  const serve = () =>
    createTcpServer((socket) => {
      hits.n++;
      socket.destroy();
    });
  const stop = (s: Server) => new Promise<void>((resolve) => s.close(() => resolve()));
  const tcp = serve();
  servers.push(tcp);
  await listen(tcp, 0, '127.0.0.1');
  const udp = createSocket('udp4');
  udp.on('message', () => hits.n++);
  await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
  const allowed = { n: 0, fronted: 0 };
  let allowedPort = 0;
  const web: HttpServer = createHttpServer((req, res) => {
    allowed.n++;
    if (req.headers.host !== `localhost:${allowedPort}`) allowed.fronted++;
    res.end('allowed-ok\n');
  });
  await listen(web as unknown as Server, 0, '127.0.0.1');
  allowedPort = (web.address() as { port: number }).port;
  const { server: naive, tunnels } = naiveProxy();
  await listen(naive as unknown as Server, 0, '127.0.0.1');
  const dns = await startDnsCanary(() => hits.n++);
  const address = ownAddress();
  const own = address === undefined ? undefined : await startTcpCanary(address, () => hits.n++);
  return {
    tcpPort: (tcp.address() as { port: number }).port,
    udpPort: udp.address().port,
    hits,
    allowedPort,
    allowed,
    naiveProxyPort: (naive.address() as { port: number }).port,
    dnsPort: dns.port,
    ownAddress: own === undefined ? undefined : { host: own.address, port: own.port },
    async unix(path) {
      const s = serve();
      await listen(s, path);
      return () => stop(s);
    },
    abstract(name) {
      const server = spawn(
        PY,
        [
          '-c',
          `import socket,sys\ns=socket.socket(socket.AF_UNIX)\ns.bind('\\0'+sys.argv[1])\ns.listen()\nprint('ready',flush=True)\nwhile True:\n  c,_=s.accept()\n  print('hit',flush=True)\n  c.close()`,
          name,
        ],
        { stdio: ['ignore', 'pipe', 'ignore'] },
      );
      return new Promise((resolve) => {
        const stop = () => {
          server.kill('SIGKILL');
          return Promise.resolve();
        };
        server.on('error', () => resolve(stop)); // no python: the control shows no effect, the case is n/a
        server.stdout!.on('data', (d: Buffer) => {
          const text = d.toString();
          if (text.includes('ready')) resolve(stop);
          hits.n += text.split('hit').length - 1;
        });
        server.on('exit', () => resolve(stop));
      });
    },
    async close() {
      udp.close();
      web.closeAllConnections();
      naive.closeAllConnections();
      for (const t of tunnels) t.destroy(); // the server's close waits for them, and they are not its own
      await Promise.all([
        ...servers.map(stop),
        stop(web as unknown as Server),
        stop(naive as unknown as Server),
        dns.close(),
        own?.close(),
      ]);
    },
  };
}

/** CONNECT and plain HTTP to wherever the request says, Host header as given: what not filtering looks like. */
function naiveProxy(): { server: HttpServer; tunnels: Set<Duplex> } {
  const tunnels = new Set<Duplex>();
  const server = createHttpServer((req, res) => {
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end();
      return;
    }
    const up = httpRequest(
      {
        host: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port === '' ? 80 : Number(url.port),
        method: req.method,
        path: url.pathname + url.search,
        headers: req.headers,
        setHost: false,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    up.on('error', () => res.writeHead(502).end());
    req.pipe(up);
  });
  server.on('connect', (req, client, head) => {
    tunnels.add(client);
    client.on('close', () => tunnels.delete(client));
    const m = /^\[?([^\]]+?)\]?:(\d+)$/.exec(req.url ?? '');
    client.on('error', () => undefined);
    if (m === null) return client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
    const up = netConnect(Number(m[2]), m[1]!, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      up.write(head);
      up.pipe(client);
      client.pipe(up);
    });
    up.on('error', () => client.destroy());
    up.on('close', () => client.destroy());
    client.on('close', () => up.destroy());
  });
  return { server, tunnels };
}

/** The network-proxy cases' proxy variables for the control run: everything through the naive proxy. */
function naiveProxyEnv(port: number): NodeJS.ProcessEnv {
  const url = `http://127.0.0.1:${port}`;
  return {
    HTTP_PROXY: url,
    HTTPS_PROXY: url,
    http_proxy: url,
    https_proxy: url,
    ALL_PROXY: url,
    all_proxy: url,
    NO_PROXY: '',
    no_proxy: '',
  };
}

async function runCase(c: EscapeCase, runtime: ConfineRuntime, listeners: Listeners): Promise<CaseResult> {
  const socat = which('socat', process.env);
  if (c.proxied === true && socat === undefined)
    return {
      id: c.id,
      category: c.category,
      outcome: 'n/a',
      detail: 'socat is not installed: commands that need the network are asked here',
    };
  const allowlist = [`localhost:${listeners.allowedPort}`];
  const once = async (confined: boolean): Promise<boolean> => {
    const box = makeBox(
      runtime,
      c.proxied === true ? { settings: { ...DEFAULT_CONFINE_SETTINGS, network: { allow: allowlist } } } : {},
    );
    let proxyHost: NetProxyHost | undefined;
    const abstractSocket = `hookwise-escape-${Math.random().toString(36).slice(2)}`;
    const victim: ChildProcess = spawn('/bin/bash', ['-c', 'exec -a hookwise-escape-victim sleep 60'], {
      env: { PATH: box.env.PATH, HOOKWISE_VICTIM: box.token },
      stdio: 'ignore',
    });
    let stops: (() => Promise<void>)[] = [];
    const arena: Arena = {
      box,
      tcpPort: listeners.tcpPort,
      udpPort: listeners.udpPort,
      daemonSocket: join(box.outside, 'daemon.sock'),
      agentSocket: join(box.tmp, 'agent.sock'),
      abstractSocket,
      victimPid: victim.pid!,
      allowedPort: listeners.allowedPort,
      runtimeSocket: join(box.runtimeDir, 'daemon.sock'),
      dnsPort: listeners.dnsPort,
      ownAddress: listeners.ownAddress,
      hits: () => listeners.hits.n,
      allowedHits: () => listeners.allowed.n,
      fronted: () => listeners.allowed.fronted,
      victimAlive: () => victim.exitCode === null && victim.signalCode === null && processAlive(victim.pid!),
    };
    try {
      c.setup?.(box);
      stops = await Promise.all([
        listeners.unix(arena.daemonSocket),
        listeners.unix(arena.agentSocket),
        listeners.abstract(abstractSocket),
        ...(c.proxied === true ? [listeners.unix(arena.runtimeSocket)] : []),
      ]);
      listeners.hits.n = 0;
      listeners.allowed.n = 0;
      listeners.allowed.fronted = 0;
      let run: RunResult;
      if (c.proxied === true && confined) {
        proxyHost = new NetProxyHost(box.runtimeDir);
        const served = await proxyHost.socketFor(parseAllowlist(allowlist).entries);
        if (!served.ok) throw new Error(served.reason);
        box.setRelay({ socket: served.socket, socat: socat! });
        run = await box.run(c.command(arena), { confined: true, timeoutMs: CONFINED_RUN_TIMEOUT_MS });
      } else if (c.proxied === true) {
        run = await runShell(c.command(arena), {
          cwd: box.project,
          env: { ...box.env, ...naiveProxyEnv(listeners.naiveProxyPort) },
          timeoutMs: CONFINED_RUN_TIMEOUT_MS,
        });
      } else run = await box.run(c.command(arena), { confined, timeoutMs: CONFINED_RUN_TIMEOUT_MS });
      await sleep(c.settleMs ?? 30);
      return c.effect(arena, run);
    } finally {
      victim.kill('SIGKILL');
      await Promise.all(stops.map((stop) => stop()));
      await proxyHost?.close();
      box.cleanup();
    }
  };
  try {
    if (!(await once(false)))
      return { id: c.id, category: c.category, outcome: 'n/a', detail: 'no effect even without walls here' };
    if (c.mustWork === true) {
      return (await once(true))
        ? { id: c.id, category: c.category, outcome: 'held', detail: 'allowed, and it got through' }
        : {
            id: c.id,
            category: c.category,
            outcome: 'error',
            detail: 'an allowlisted request did not get through the walls',
          };
    }
    if (!(await once(true))) return { id: c.id, category: c.category, outcome: 'held' };
    return c.gap === undefined
      ? { id: c.id, category: c.category, outcome: 'escaped' }
      : { id: c.id, category: c.category, outcome: 'gap', detail: c.gap };
  } catch (error) {
    return { id: c.id, category: c.category, outcome: 'error', detail: (error as Error).message };
  }
}

function processAlive(pid: number): boolean {
  const stat = read(`/proc/${pid}/stat`);
  return stat !== undefined && !/^\d+ \(.*\) Z/.test(stat);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Wall times (ms) of `true` unconfined and confined (the same `bash -c` a host runs), and of wrapCommand, run after run. */
export interface TrueTimes {
  plain: number[];
  /** The walls alone: no undo snapshot (the box's project is no repository here). */
  confined: number[];
  /** Confined after the undo snapshot of an empty repository: the snapshot's fixed cost on top of the walls. */
  snapshotted: number[];
  wrap: number[];
  /** Confined with a network allowlist (the relay stage), when a box for it is given. */
  proxied?: number[];
}

/**
 * Runs them interleaved, `runs` times after one untimed warm-up round, in fresh boxes; `relayed` is a box
 * whose relay is set (its proxy lives in this process, which spawnSync blocks: `true` opens no connection).
 */
export function timeTrue(runtime: ConfineRuntime, runs: number, relayed?: ConfineBox): TrueTimes {
  const box = makeBox(runtime, { snapshot: false });
  const snapshotBox = makeBox(runtime);
  try {
    const times: TrueTimes = {
      plain: [],
      confined: [],
      snapshotted: [],
      wrap: [],
      ...(relayed === undefined ? {} : { proxied: [] }),
    };
    const withSnapshot = snapshotBox.wrap('true');
    if (!withSnapshot.ok) throw new Error(withSnapshot.reason);
    const withRelay = relayed?.wrap('true');
    if (withRelay !== undefined && !withRelay.ok) throw new Error(withRelay.reason);
    for (let i = -1; i < runs; i++) {
      let t = performance.now();
      const w = box.wrap('true');
      const wrapMs = performance.now() - t;
      if (!w.ok) throw new Error(w.reason);
      t = performance.now();
      spawnSync('/bin/bash', ['-c', 'true'], { cwd: box.project, env: box.env });
      const plainMs = performance.now() - t;
      t = performance.now();
      const run = spawnSync('/bin/bash', ['-c', w.command], { cwd: box.project, env: box.env });
      const confinedMs = performance.now() - t;
      if (run.status !== 0) throw new Error(`the confined \`true\` exited ${run.status}: ${run.stderr.toString()}`);
      t = performance.now();
      const after = spawnSync('/bin/bash', ['-c', withSnapshot.command], {
        cwd: snapshotBox.project,
        env: snapshotBox.env,
      });
      const snapshottedMs = performance.now() - t;
      if (after.status !== 0)
        throw new Error(`the confined \`true\` after a snapshot exited ${after.status}: ${after.stderr.toString()}`);
      let proxiedMs: number | undefined;
      if (withRelay?.ok === true) {
        t = performance.now();
        const relayedRun = spawnSync('/bin/bash', ['-c', withRelay.command], {
          cwd: relayed!.project,
          env: relayed!.env,
        });
        proxiedMs = performance.now() - t;
        if (relayedRun.status !== 0)
          throw new Error(`the relayed \`true\` exited ${relayedRun.status}: ${relayedRun.stderr.toString()}`);
      }
      if (i < 0) continue;
      times.wrap.push(wrapMs);
      times.plain.push(plainMs);
      times.confined.push(confinedMs);
      times.snapshotted.push(snapshottedMs);
      if (proxiedMs !== undefined) times.proxied!.push(proxiedMs);
    }
    return times;
  } finally {
    box.cleanup();
    snapshotBox.cleanup();
  }
}

/** `true` unconfined vs confined (and, with socat, confined with an allowlist), and wrapCommand's cost, medians. */
async function measureTiming(runtime: ConfineRuntime, runs = 21): Promise<NonNullable<EscapeReport['timing']>> {
  const socat = which('socat', process.env);
  const netBox =
    socat === undefined
      ? undefined
      : makeBox(runtime, {
          snapshot: false,
          settings: { ...DEFAULT_CONFINE_SETTINGS, network: { allow: ['localhost'] } },
        });
  const proxyHost = netBox === undefined ? undefined : new NetProxyHost(netBox.runtimeDir);
  try {
    if (netBox !== undefined && proxyHost !== undefined) {
      const served = await proxyHost.socketFor(parseAllowlist(['localhost']).entries);
      if (!served.ok) throw new Error(served.reason);
      netBox.setRelay({ socket: served.socket, socat: socat! });
    }
    const t = timeTrue(runtime, runs, netBox);
    const median = (xs: number[]) => Math.round([...xs].sort((a, b) => a - b)[xs.length >> 1]! * 100) / 100;
    return {
      runs,
      unconfinedMs: median(t.plain),
      confinedMs: median(t.confined),
      snapshotMs: median(t.snapshotted),
      wrapMs: median(t.wrap),
      ...(t.proxied === undefined ? {} : { proxiedMs: median(t.proxied) }),
    };
  } finally {
    await proxyHost?.close();
    netBox?.cleanup();
  }
}

export function renderEscapeReport(r: EscapeReport): string {
  if (!r.available)
    return `confine escapes: confinement is not available on this machine: ${r.reason}\n  fix: ${r.fix}\n  (confined allows fall back to ask here)`;
  const lines = [
    `confine escapes (${r.bwrap}, ${r.userns === true ? 'own user namespace' : 'no user namespace'}): each case run without walls (control) and confined`,
  ];
  const row = (cells: (string | number)[]) =>
    `  ${String(cells[0]).padEnd(16)} ${cells
      .slice(1)
      .map((c, i) => String(c).padStart([5, 5, 8, 9, 5, 6][i]!))
      .join(' ')}`;
  lines.push(row(['category', 'cases', 'held', 'escaped', 'known gap', 'n/a', 'errors']));
  let total = 0;
  for (const c of ESCAPE_CATEGORIES) {
    const f = r.categories[c];
    total += f.cases;
    lines.push(row([c, f.cases, f.held, f.escaped, f.gaps, f.notApplicable, f.errors]));
  }
  lines.push(
    `  ${total} cases, ${r.escapes.length} escape${r.escapes.length === 1 ? '' : 's'} (target 0); n/a: the control showed no effect on this machine`,
  );
  for (const e of r.escapes) lines.push(`  ESCAPED ${e.id}`);
  for (const e of r.results.filter((x) => x.outcome === 'gap')) lines.push(`  known gap ${e.id}: ${e.detail}`);
  for (const e of r.results.filter((x) => x.outcome === 'error')) lines.push(`  error ${e.id}: ${e.detail}`);
  for (const e of r.results.filter((x) => x.outcome === 'n/a')) lines.push(`  n/a ${e.id}`);
  if (r.timing !== undefined) {
    const t = r.timing;
    const plus = (x: number) => `+${Math.round((x - t.unconfinedMs) * 100) / 100} ms`;
    lines.push(
      `  timing (medians of ${t.runs}): bash -c true ${t.unconfinedMs} ms unconfined, ${t.confinedMs} ms confined (${plus(t.confinedMs)}), ${t.snapshotMs} ms confined after an undo snapshot of an empty repository (${plus(t.snapshotMs)}); wrapCommand ${t.wrapMs} ms`,
    );
    if (t.proxiedMs !== undefined)
      lines.push(
        `  with a network allowlist (the relay stage): ${t.proxiedMs} ms confined (+${Math.round((t.proxiedMs - t.confinedMs) * 100) / 100} ms over confined without network)`,
      );
  }
  return lines.join('\n');
}
