/**
 * Wrapping: an envelope and a shell command (what the agent's Bash tool would run) in, the command that
 * runs it inside the walls out — one string the host runs as it would have run the original, computed at
 * decision time. Running it costs bubblewrap's start and nothing else: no Node process, no proxy, no state
 * held by the process that wrapped it (that process is `hookwise check`, long gone when the command runs).
 *
 * Two steps, both exported: `planMounts` looks at the file system (the unavoidable I/O: an lstat per
 * protected path, a bounded scan for protected names) and says what to mount where, or why the envelope
 * cannot be enforced here; `renderCommand` is pure and turns a plan into the command string.
 *
 * The walls (bubblewrap argv):
 * - `/` read-only, a fresh /dev and /proc; the writable roots bound read-write over it;
 * - every protected path inside a writable root bound read-only over itself; one that does not exist yet
 *   gets a read-only /dev/null at its first missing component, so it cannot be created (bubblewrap has to
 *   make an empty file there on the host for the run: the command removes it afterwards, see `stubs`);
 * - every directory between a writable root and a protected path bound onto itself ("pinned"): a mount
 *   point cannot be renamed or removed, so `mv .git .git.old && mkdir -p .git/hooks` does not get around
 *   the read-only `.git/hooks`; a symbolic link on that way cannot be pinned, so it fails the plan;
 * - secrets hidden (an empty read-only tmpfs over a directory, /dev/null over a file);
 * - new user (when available), pid, network, ipc, uts and cgroup namespaces: loopback only, no process
 *   outside visible; `--die-with-parent`, and the pid namespace dies with the command, background
 *   children included; `--new-session` (no TIOCSTI into the agent's terminal); all capabilities dropped,
 *   no new privileges; the seccomp filter of seccomp.ts (no Unix sockets, no nested user namespaces);
 * - file descriptors above 2 closed before the command runs (a host's leaked pipe or socket is a way out).
 *
 * With a network allowlist (a `ProxyRelay`: the daemon's filtering proxy socket and socat), the walls are two
 * bubblewrap stages: an outer one that only makes the network namespace and runs the relay (socat from
 * 127.0.0.1:3128 to the proxy's Unix socket, before any seccomp filter: the filter refuses Unix sockets), and
 * the walls above inside it, sharing that namespace, with HTTP(S)_PROXY/ALL_PROXY pointing at the relay. The
 * relay is in the outer pid namespace: it dies when the command does.
 */
import { lstatSync, readdirSync, readFileSync, realpathSync, type Dirent, type Stats } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { isInside, type DenyRule, type Envelope, type NameTest } from './envelope.js';
import { seccompPrintfFormat, type SeccompArch } from './seccomp.js';
import { isAbsent } from '../util/fs-safe.js';

/** What a machine offers for confinement; probe.ts finds it. */
export interface ConfineRuntime {
  /** Absolute path of bubblewrap. */
  bwrap: string;
  /** Absolute path of the shell the command runs in (bash; a POSIX sh closes only descriptors 3 to 9). */
  shell: string;
  /** Absolute paths of flock(1) and find(1), which remove the mount-point files after the run. Without
   *  them those empty read-only files stay behind (harmless to the walls, noise for the user). */
  flock?: string;
  find?: string;
  /** A file in the private runtime directory: held shared while a sandbox runs, exclusively to clean up. */
  lockFile: string;
  arch: SeccompArch;
  /** A user namespace of its own (`--unshare-user`). False only for root where the kernel refuses one;
   *  capabilities are dropped either way. */
  userns: boolean;
}

export const ENTRY_KINDS = ['file', 'dir', 'symlink', 'other'] as const;
export type EntryKind = (typeof ENTRY_KINDS)[number];

export interface FsEntry {
  kind: EntryKind;
  size: number;
  mode: number;
  nlink: number;
}

/** The file system as planning sees it. `lstat`/`realpath`/`readdir` answer undefined for a path that
 *  does not exist, and throw for one that cannot be looked at (the plan then fails closed). */
export interface FsPort {
  lstat(path: string): FsEntry | undefined;
  realpath(path: string): string | undefined;
  readdir(path: string): readonly { name: string; kind: EntryKind }[] | undefined;
  /** A small text file (git config), or undefined when absent. */
  readText(path: string): string | undefined;
}

const kindOf = (s: Stats | Dirent): EntryKind =>
  s.isSymbolicLink() ? 'symlink' : s.isDirectory() ? 'dir' : s.isFile() ? 'file' : 'other';

export const NODE_FS: FsPort = {
  lstat(path) {
    try {
      const s = lstatSync(path, { throwIfNoEntry: false });
      return s === undefined ? undefined : { kind: kindOf(s), size: s.size, mode: s.mode, nlink: s.nlink };
    } catch (error) {
      if (isAbsent(error)) return undefined;
      throw error;
    }
  },
  realpath(path) {
    try {
      return realpathSync.native(path);
    } catch (error) {
      if (isAbsent(error) || (error as NodeJS.ErrnoException).code === 'ELOOP') return undefined;
      throw error;
    }
  },
  readdir(path) {
    try {
      return readdirSync(path, { withFileTypes: true }).map((d) => ({ name: d.name, kind: kindOf(d) }));
    } catch (error) {
      if (isAbsent(error)) return undefined;
      throw error;
    }
  },
  readText(path) {
    try {
      return readFileSync(path, 'utf8');
    } catch (error) {
      if (isAbsent(error) || (error as NodeJS.ErrnoException).code === 'EISDIR') return undefined;
      throw error;
    }
  },
};

export const MOUNT_OPS = ['bind', 'tmpfs', 'ro-bind', 'stub', 'hide-dir', 'hide-file'] as const;
export type MountOp = (typeof MOUNT_OPS)[number];

export interface Mount {
  /**
   * bind: writable (a root, or a pinned directory); tmpfs: the private temp dir; ro-bind: a protected path
   * that exists; stub: a protected path that does not (read-only /dev/null at its first missing component);
   * hide-dir / hide-file: a secret.
   */
  op: MountOp;
  path: string;
}

export interface MountPlan {
  /** Canonical writable roots. */
  writable: readonly string[];
  /** In bubblewrap order: parents before children. */
  mounts: readonly Mount[];
  /** The files bubblewrap creates on the host as mount points of stubs; removed after the run. */
  stubs: readonly string[];
  /** Entries the scans visited (the decision-time cost). */
  scanned: number;
}

/** How a confined command reaches the daemon's filtering proxy (daemon/netproxy.ts). */
export interface ProxyRelay {
  /** The proxy's Unix socket (in the private runtime directory, hidden from the command itself). */
  socket: string;
  /** Absolute path of socat, which relays the sandbox's loopback port to the socket. */
  socat: string;
}

/** The loopback port inside the walls the relay listens on (a network namespace of its own: never taken). */
export const PROXY_RELAY_PORT = 3128;
/** What the proxy variables point at inside the walls. */
export const PROXY_URL = `http://127.0.0.1:${PROXY_RELAY_PORT}`;
/** Set inside the walls; NO_PROXY empty so that every request, loopback names included, goes to the proxy. */
export const PROXY_ENV: Readonly<Record<string, string>> = {
  HTTP_PROXY: PROXY_URL,
  HTTPS_PROXY: PROXY_URL,
  http_proxy: PROXY_URL,
  https_proxy: PROXY_URL,
  ALL_PROXY: PROXY_URL,
  all_proxy: PROXY_URL,
  NO_PROXY: '',
  no_proxy: '',
};
/** How many times the relay's start-up check looks for the listener before the command runs anyway (a
 *  command that then finds no listener fails to connect: closed, not open). */
const RELAY_READY_TRIES = 1000;

export type PlanResult = { ok: true; plan: MountPlan } | { ok: false; reason: string };
export type WrapResult = { ok: true; command: string; plan: MountPlan } | { ok: false; reason: string };

/** A file bubblewrap left as a mount point: empty, regular, no write bits, one link (what it creates). */
export function isStaleStub(e: FsEntry): boolean {
  return e.kind === 'file' && e.size === 0 && (e.mode & 0o222) === 0 && e.nlink === 1;
}

class Unconfinable extends Error {}

/** How many entries of a protected directory are checked for extra hard links. */
const HARDLINK_CHECK_LIMIT = 256;
const KERNEL_DIRS = ['/proc', '/dev', '/sys'];

export function planMounts(envelope: Envelope, fs: FsPort = NODE_FS): PlanResult {
  try {
    return { ok: true, plan: plan(envelope, fs) };
  } catch (error) {
    if (error instanceof Unconfinable) return { ok: false, reason: error.message };
    const e = error as NodeJS.ErrnoException;
    return {
      ok: false,
      reason: `cannot inspect ${e.path ?? 'a protected path'} (${e.code ?? e.message}): the walls cannot be drawn`,
    };
  }
}

function plan(envelope: Envelope, disk: FsPort): MountPlan {
  const fs = memoized(disk, [envelope.home, join(envelope.home, '.config'), envelope.projectRoot]);
  const budget = { left: envelope.scan.maxEntries, used: 0 };

  // Writable roots, canonical.
  const writable: string[] = [];
  let privateTemp: string | undefined;
  for (const w of envelope.writable) {
    const real = fs.realpath(w.path);
    if (real === undefined || fs.lstat(real)?.kind !== 'dir') {
      if (w.why === 'project' && w.path === envelope.projectRoot)
        throw new Unconfinable(`the project root ${w.path} is not a directory`);
      continue; // a role's directory that does not exist yet, an extra one that is gone: nothing to write there
    }
    if (real === '/' || KERNEL_DIRS.some((k) => isInside(real, k)))
      throw new Unconfinable(`${w.path} cannot be a writable root`);
    if (!writable.includes(real)) writable.push(real);
  }
  if (envelope.temp === 'private') privateTemp = fs.realpath(envelope.tempDir) ?? envelope.tempDir;
  const writableOf = (path: string): string | undefined => {
    let best: string | undefined;
    for (const w of writable) if (isInside(path, w) && (best === undefined || w.length > best.length)) best = w;
    return best;
  };

  // Secrets: hide whatever exists, where it really is.
  const hidden = new Map<string, 'dir' | 'file'>();
  for (const path of candidates(envelope.denyRead, envelope, fs, budget)) {
    if (fs.lstat(path) === undefined) continue;
    const real = fs.realpath(path);
    if (real === undefined) continue;
    const e = fs.lstat(real);
    if (e === undefined) continue;
    hidden.set(real, e.kind === 'dir' ? 'dir' : 'file');
  }

  // Protected paths inside the writable roots.
  const protectedPaths = new Map<string, 'ro' | 'stub'>();
  const pins = new Set<string>();
  const protect = (path: string, via?: string): void => {
    const root = writableOf(path);
    if (root === undefined) {
      // Outside every writable root it is read-only already, unless a symbolic link leads into one.
      const real = canonicalPrefix(path, fs);
      if (real !== path && via === undefined && writableOf(real) !== undefined) protect(real, path);
      return;
    }
    for (const w of writable) {
      if (isInside(w, path)) throw new Unconfinable(`the writable root ${w} lies inside the protected ${via ?? path}`);
    }
    let current = root;
    for (const part of relative(root, path).split('/')) {
      const next = join(current, part);
      let e = fs.lstat(next);
      if (e !== undefined && isStaleStub(e)) e = undefined;
      if (e === undefined) {
        protectedPaths.set(next, 'stub');
        return;
      }
      if (e.kind === 'symlink') {
        throw new Unconfinable(
          `${next} is a symbolic link inside the writable area on the way to the protected ${via ?? path}: a command could replace it, and no mount can pin a link`,
        );
      }
      if (next === path || e.kind !== 'dir') {
        // The protected path itself, or a file where a directory of it would be (a worktree's `.git` file):
        // read-only, so it can be neither changed nor replaced by a directory.
        if (e.kind === 'file' && e.nlink > 1)
          throw new Unconfinable(`${next} has ${e.nlink} hard links: a write through another of them would change it`);
        protectedPaths.set(next, 'ro');
        if (e.kind === 'dir') checkHardLinks(next, fs);
        return;
      }
      pins.add(next);
      current = next;
    }
  };
  for (const path of candidates(envelope.denyWrite, envelope, fs, budget)) protect(path);
  // Hooks git runs from a directory of the project's own choosing (core.hooksPath = .githooks) are hooks too.
  for (const path of hooksPaths(envelope, fs)) protect(path);

  // What a mount further up already covers is left out: under a hidden directory nothing else is visible,
  // under a read-only one nothing is writable (and a pin there would make it writable again).
  const hiddenDirs = [...hidden].filter(([, k]) => k === 'dir').map(([p]) => p);
  const sealed = [...protectedPaths.keys()];
  const underHidden = (p: string, self = false) => hiddenDirs.some((h) => (self || h !== p) && isInside(p, h));
  const underSealed = (p: string, self = false) => sealed.some((s) => (self || s !== p) && isInside(p, s));
  for (const w of writable) {
    const h = hiddenDirs.find((d) => isInside(w, d)) ?? [...hidden.keys()].find((d) => d === w);
    if (h !== undefined) throw new Unconfinable(`the writable root ${w} lies inside the hidden ${h}`);
  }
  const mounts: Mount[] = [];
  if (privateTemp !== undefined) mounts.push({ op: 'tmpfs', path: privateTemp });
  for (const w of writable) mounts.push({ op: 'bind', path: w });
  for (const p of pins)
    if (!writable.includes(p) && !underSealed(p, true) && !underHidden(p, true)) mounts.push({ op: 'bind', path: p });
  const stubs: string[] = [];
  for (const [p, how] of protectedPaths) {
    // A hidden file is unwritable too (and a second mount at the same place would undo the first).
    if (underSealed(p) || underHidden(p, true) || hidden.has(p)) continue;
    mounts.push({ op: how === 'ro' ? 'ro-bind' : 'stub', path: p });
    if (how === 'stub') stubs.push(p);
  }
  for (const [p, kind] of hidden) {
    if (underHidden(p)) continue;
    mounts.push({ op: kind === 'dir' ? 'hide-dir' : 'hide-file', path: p });
  }
  // Parents before children; at one depth, writable before read-only before hidden.
  const rank: Record<MountOp, number> = { tmpfs: 0, bind: 1, 'ro-bind': 2, stub: 2, 'hide-dir': 3, 'hide-file': 3 };
  const keyed = mounts.map((m) => ({ m, depth: slashes(m.path), rank: rank[m.op] }));
  keyed.sort(
    (a, b) => a.depth - b.depth || a.rank - b.rank || (a.m.path < b.m.path ? -1 : a.m.path > b.m.path ? 1 : 0),
  );
  return { writable, mounts: keyed.map((k) => k.m), stubs: stubs.sort(), scanned: budget.used };
}

function slashes(path: string): number {
  let n = 0;
  for (let i = 0; i < path.length; i++) if (path.charCodeAt(i) === 47) n++;
  return path === '/' ? 0 : n;
}

/**
 * One plan's view of the disk: each path looked at once, and the directories most protected paths live in
 * (home, ~/.config, the project root) listed up front, so that the many paths that do not exist there cost
 * a set lookup instead of a system call.
 */
function memoized(fs: FsPort, listed: readonly string[]): FsPort {
  const stats = new Map<string, FsEntry | undefined>();
  const reals = new Map<string, string | undefined>();
  const dirs = new Map<string, ReturnType<FsPort['readdir']>>();
  const names = new Map<string, Set<string>>();
  const readdir = (path: string) => {
    if (!dirs.has(path)) dirs.set(path, fs.readdir(path));
    return dirs.get(path);
  };
  for (const dir of listed) {
    const entries = readdir(dir);
    if (entries !== undefined) names.set(dir, new Set(entries.map((e) => e.name)));
  }
  return {
    lstat(path) {
      if (!stats.has(path)) {
        const siblings = names.get(dirname(path));
        stats.set(path, siblings !== undefined && !siblings.has(basename(path)) ? undefined : fs.lstat(path));
      }
      return stats.get(path);
    },
    realpath(path) {
      if (!reals.has(path)) reals.set(path, fs.realpath(path));
      return reals.get(path);
    },
    readdir,
    readText: (path) => fs.readText(path),
  };
}

/**
 * core.hooksPath of the project's repository and of the user's git config, as absolute paths. A relative
 * value is relative to the top of the work tree (where hooks run), `~/` to the home directory.
 */
function hooksPaths(envelope: Envelope, fs: FsPort): string[] {
  const out: string[] = [];
  for (const file of [
    join(envelope.projectRoot, '.git', 'config'),
    join(envelope.home, '.gitconfig'),
    join(envelope.home, '.config', 'git', 'config'),
  ]) {
    const text = fs.lstat(file) === undefined ? undefined : fs.readText(file);
    if (text === undefined) continue;
    let section = '';
    for (const raw of text.split('\n')) {
      const line = raw.trim();
      const header = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"[^"]*")?\s*\]/.exec(line);
      if (header !== null) section = header[1]!.toLowerCase();
      const entry = /^(?:\[[^\]]*\]\s*)?hookspath\s*=\s*(.*)$/i.exec(line);
      if (section !== 'core' || entry === null) continue;
      let value = entry[1]!.replace(/\s[;#].*$/, '').trim();
      if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
      if (value === '') continue;
      if (value.startsWith('~/')) out.push(join(envelope.home, value.slice(2)));
      else out.push(value.startsWith('/') ? value : join(envelope.projectRoot, value));
    }
  }
  return out.map((p) => join(p)); // normalized: no `..` left for the walk
}

/** The longest existing prefix resolved, the rest appended (no `..` survives canonical inputs). */
function canonicalPrefix(path: string, fs: FsPort): string {
  const parts = path.split('/').filter((p) => p !== '');
  for (let k = parts.length; k >= 0; k--) {
    const prefix = '/' + parts.slice(0, k).join('/');
    if (fs.lstat(prefix) === undefined) continue;
    const real = fs.realpath(prefix);
    if (real !== undefined) return join(real, ...parts.slice(k));
  }
  return path;
}

/** A file inside a protected directory that has another name could be written through that name. */
function checkHardLinks(dir: string, fs: FsPort): void {
  const queue = [dir];
  let seen = 0;
  while (queue.length > 0 && seen < HARDLINK_CHECK_LIMIT) {
    const d = queue.shift()!;
    for (const entry of fs.readdir(d) ?? []) {
      if (++seen > HARDLINK_CHECK_LIMIT) return;
      const p = join(d, entry.name);
      // git's object files are content-addressed and never written in place, and `git clone` of a local
      // path hard-links them: checking them would refuse every such clone for no protection gained.
      if (entry.kind === 'dir' && entry.name === 'objects' && basename(d) === '.git') continue;
      if (entry.kind === 'dir') queue.push(p);
      else if (entry.kind === 'file') {
        const e = fs.lstat(p);
        if (e !== undefined && e.nlink > 1)
          throw new Unconfinable(
            `${p} has ${e.nlink} hard links: a write through another of them would change the protected ${dir}`,
          );
      }
    }
  }
}

const regexes = new Map<string, RegExp>();
function matches(test: NameTest, name: string): boolean {
  switch (test.kind) {
    case 'exact':
      return name === test.value;
    case 'prefix':
      return name.startsWith(test.value);
    case 'suffix':
      return name.endsWith(test.value);
    case 'regex': {
      let re = regexes.get(test.value);
      if (re === undefined) regexes.set(test.value, (re = new RegExp(test.value)));
      return re.test(name);
    }
  }
}

type NamesRule = Extract<DenyRule, { kind: 'names' }>;

/** The concrete paths a list of rules names: `path` rules as they are, `names` rules by a bounded scan. */
function candidates(
  rules: readonly DenyRule[],
  envelope: Envelope,
  fs: FsPort,
  budget: { left: number; used: number },
): string[] {
  const out: string[] = [];
  const byDir = new Map<string, NamesRule[]>();
  for (const rule of rules) if (rule.kind === 'path') out.push(rule.path);
  for (const rule of rules) {
    // A directory the same list covers whole needs no scan (all of ~/.ssh, say, for its private keys).
    if (rule.kind === 'names' && !out.some((p) => isInside(rule.under, p)))
      byDir.set(rule.under, [...(byDir.get(rule.under) ?? []), rule]);
  }
  const skip = new Set(envelope.scan.skipDirs);
  for (const [under, group] of byDir) {
    const start = fs.realpath(under);
    if (start === undefined) continue;
    const maxDepth = Math.min(envelope.scan.depth, Math.max(...group.map((r) => r.depth)));
    const queue: { dir: string; level: number }[] = [{ dir: start, level: 1 }];
    while (queue.length > 0) {
      const { dir, level } = queue.shift()!;
      const entries = fs.readdir(dir) ?? [];
      budget.used += entries.length;
      budget.left -= entries.length;
      if (budget.left < 0) {
        throw new Unconfinable(
          `more than ${envelope.scan.maxEntries} entries to scan for protected names below ${under} (depth ${envelope.scan.depth}): raise the scan limit or skip more directories`,
        );
      }
      for (const entry of entries) {
        const path = join(dir, entry.name);
        let matched = false;
        for (const rule of group) {
          if (level > rule.depth || !matches(rule.test, entry.name)) continue;
          matched ||= rule.within === undefined;
          if (rule.within === undefined) out.push(path);
          else for (const child of rule.within) out.push(join(path, child));
        }
        if (!matched && entry.kind === 'dir' && level < maxDepth && !skip.has(entry.name))
          queue.push({ dir: path, level: level + 1 });
      }
    }
  }
  return out;
}

/** Single-quoted for any POSIX shell. */
export function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** Past this the host's `bash -c <string>` would hit the kernel's limit on one argument (128 KiB). */
const MAX_WRAPPED_BYTES = 120 * 1024;

/** The descriptor bubblewrap reads the seccomp filter from. */
const SECCOMP_FD = 3;

/** bash closes every descriptor above 2 it finds in /proc; a POSIX sh can name only 3 to 9. */
function prelude(shell: string): string {
  const close =
    basename(shell) === 'bash'
      ? 'for __hw_fd in /proc/self/fd/*; do __hw_fd=${__hw_fd##*/}; case $__hw_fd in 0|1|2) ;; *) eval "exec $__hw_fd>&-" 2>/dev/null;; esac; done; unset __hw_fd'
      : 'exec 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&-';
  // `set --` first: the command sees no positional parameters, as under `bash -c <command>`.
  return `${close}; eval "set --; $1"`;
}

export function bwrapArgs(plan: MountPlan, runtime: ConfineRuntime, options: { proxied?: boolean } = {}): string[] {
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'];
  // Nested user namespaces are refused by the seccomp filter (bubblewrap's --disable-userns needs 0.8).
  if (runtime.userns) args.push('--unshare-user');
  args.push('--unshare-ipc', '--unshare-pid');
  // Proxied: the outer stage made the network namespace (loopback and the relay); share it.
  if (options.proxied !== true) args.push('--unshare-net');
  else for (const [name, value] of Object.entries(PROXY_ENV)) args.push('--setenv', name, value);
  args.push('--unshare-uts', '--unshare-cgroup-try');
  args.push('--die-with-parent', '--new-session', '--cap-drop', 'ALL', '--seccomp', String(SECCOMP_FD));
  for (const m of plan.mounts) {
    switch (m.op) {
      case 'bind':
        args.push('--bind', m.path, m.path);
        break;
      case 'tmpfs':
        args.push('--tmpfs', m.path);
        break;
      case 'ro-bind':
        args.push('--ro-bind', m.path, m.path);
        break;
      case 'stub':
      case 'hide-file':
        args.push('--ro-bind', '/dev/null', m.path);
        break;
      case 'hide-dir':
        args.push('--tmpfs', m.path, '--remount-ro', m.path);
        break;
    }
  }
  return args;
}

export interface RenderOptions {
  /**
   * POSIX sh text run on the host, outside the walls, just before bubblewrap starts (the undo snapshot,
   * snapshot.ts); it exits the wrapped command itself when the command must not run.
   */
  before?: string;
  /** With a network allowlist: the daemon's filtering proxy socket and socat, for the relay stage. */
  relay?: ProxyRelay;
}

/**
 * The string the host runs instead of `command`. A `/bin/sh -c` of its own, so that it means the same in
 * whatever shell the host uses:
 *
 *   exec 4<&0                                   # the command's stdin, kept aside
 *   <options.before>                            # the undo snapshot, when there is one
 *   printf '<filter>' | flock -s LOCK bwrap … -- bash -c PRELUDE bash COMMAND 3<&0 0<&4 4<&- && rc=0 || rc=$?
 *   flock -n -x LOCK find STUBS… -maxdepth 0 -type f -empty -links 1 ! -perm /222 -delete >/dev/null 2>&1 </dev/null &
 *   exit $rc
 *
 * The filter reaches bubblewrap through a pipe, so nothing on disk can be missing or swapped when the
 * command runs. The mount-point files are removed in the background once the command has ended (its
 * status is not kept waiting), only when no other confined command holds the lock (removing one under a
 * running sandbox would lift that sandbox's mount), and only while they are still what bubblewrap made. A
 * clean-up that does not happen (killed, or another sandbox running) is made up by the next command's:
 * planMounts counts such leftovers as absent, so they are stubbed and removed again.
 */
export function renderCommand(
  plan: MountPlan,
  command: string,
  runtime: ConfineRuntime,
  options: RenderOptions = {},
): { ok: true; command: string } | { ok: false; reason: string } {
  const relay = options.relay;
  if (command.includes('\0')) return { ok: false, reason: 'the command contains a NUL byte' };
  // socat reads `,` `:` `!` in an address as syntax: a socket path that needs none of them is all we pass.
  if (relay !== undefined && !/^\/[A-Za-z0-9._/-]+$/.test(relay.socket))
    return { ok: false, reason: `the proxy socket path ${relay.socket} has characters socat would misread` };
  const words = [
    // With the relay, flock keeps the lock itself (-o): socat would inherit it and, dying a moment after the
    // command, make the clean-up's `flock -n -x` fail, leaving the mount-point files for the next command.
    ...(runtime.flock === undefined
      ? []
      : [runtime.flock, ...(relay === undefined ? [] : ['-o']), '-s', runtime.lockFile]),
    ...(relay === undefined ? [] : relayStage(runtime, relay)),
    runtime.bwrap,
    ...bwrapArgs(plan, runtime, { proxied: relay !== undefined }),
    '--',
    runtime.shell,
    '-c',
    prelude(runtime.shell),
    runtime.shell, // $0, as in `/bin/bash -c <command>`
    command,
  ];
  const lines = ['exec 4<&0'];
  if (options.before !== undefined) lines.push(options.before);
  lines.push(
    `printf '${seccompPrintfFormat(runtime.arch)}' | ${words.map(shellQuote).join(' ')} ${SECCOMP_FD}<&0 0<&4 4<&- && rc=0 || rc=$?`,
  );
  if (plan.stubs.length > 0 && runtime.flock !== undefined && runtime.find !== undefined) {
    const cleanup = [
      runtime.flock,
      '-n',
      '-x',
      runtime.lockFile,
      runtime.find,
      ...plan.stubs,
      '-maxdepth',
      '0',
      '-type',
      'f',
      '-empty',
      '-links',
      '1',
      '!',
      '-perm',
      '/222',
      '-delete',
    ];
    lines.push(`${cleanup.map(shellQuote).join(' ')} >/dev/null 2>&1 </dev/null &`);
  }
  lines.push('exit $rc');
  const wrapped = `/bin/sh -c ${shellQuote(lines.join('\n'))}`;
  if (Buffer.byteLength(wrapped) > MAX_WRAPPED_BYTES)
    return {
      ok: false,
      reason: `the confined command would be ${Buffer.byteLength(wrapped)} bytes, more than one shell argument may hold`,
    };
  return { ok: true, command: wrapped };
}

/**
 * The outer stage of a proxied command: bubblewrap with a network namespace of its own (loopback only) and a
 * pid namespace, running the relay in the background, waiting until it listens, then exec-ing the walls (the
 * words that follow). It has no seccomp filter, so the relay can connect to the proxy's Unix socket; it runs
 * only this fixed script, never the command. The relay gets none of the command's descriptors (the filter's
 * pipe on 3 included). As root without a user namespace this stage keeps its capabilities: the inner
 * bubblewrap needs them to build the walls, and drops them all for the command.
 */
function relayStage(runtime: ConfineRuntime, relay: ProxyRelay): string[] {
  const hexPort = PROXY_RELAY_PORT.toString(16).toUpperCase().padStart(4, '0');
  const script = [
    `${shellQuote(relay.socat)} TCP-LISTEN:${PROXY_RELAY_PORT},bind=127.0.0.1,fork,reuseaddr ${shellQuote(`UNIX-CONNECT:${relay.socket}`)} </dev/null >/dev/null 2>&1 3<&- &`,
    // Listening once /proc/net/tcp (this namespace's) shows 127.0.0.1:PORT in state 0A (LISTEN).
    `i=0; while [ $i -lt ${RELAY_READY_TRIES} ] && ! grep -q ': 0100007F:${hexPort} 00000000:0000 0A ' /proc/net/tcp 2>/dev/null; do i=$((i+1)); done`,
    'exec "$@"',
  ].join('\n');
  const outer = ['--dev-bind', '/', '/', '--unshare-net', '--unshare-pid', '--die-with-parent'];
  if (runtime.userns) outer.push('--unshare-user');
  return [runtime.bwrap, ...outer, '--', runtime.shell, '-c', script, runtime.shell];
}

/** planMounts then renderCommand; the one call the engine makes at decision time. */
export function wrapCommand(
  envelope: Envelope,
  command: string,
  runtime: ConfineRuntime,
  fs: FsPort = NODE_FS,
  options: RenderOptions = {},
): WrapResult {
  const relay = options.relay;
  if (envelope.network.kind === 'proxy' && relay === undefined) {
    // An allowlist is reached only through the daemon's filtering proxy; without it the caller asks.
    return {
      ok: false,
      reason: `a network allowlist (${envelope.network.domains.join(', ')}) needs the daemon's filtering proxy and socat`,
    };
  }
  if (envelope.network.kind === 'none' && relay !== undefined)
    return { ok: false, reason: 'a proxy relay was given for an envelope without network' };
  const planned = planMounts(envelope, fs);
  if (!planned.ok) return planned;
  const rendered = renderCommand(planned.plan, command, runtime, options);
  return rendered.ok ? { ok: true, command: rendered.command, plan: planned.plan } : rendered;
}
