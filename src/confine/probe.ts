/**
 * Does confinement work on this machine, and if not, why: finds bubblewrap and its helpers, then runs one
 * trivial confined command for real, in a throw-away project, and checks from inside and outside that the
 * walls hold (no new privileges, no capabilities, the seccomp filter, loopback only, a pid namespace,
 * writes land in the project and nowhere else, a protected file cannot be created, a secret cannot be
 * read). No cache: `hookwise doctor` calls it each time (tens of milliseconds); whoever needs the answer
 * per decision keeps it.
 *
 * Where it fails, a confined allow must fall back to asking, never to an unconfined allow.
 */
import { spawnSync } from 'node:child_process';
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { statIfPresent } from '../util/fs-safe.js';
import { locations } from '../util/locations.js';
import { buildEnvelope } from './envelope.js';
import { seccompArchOf } from './seccomp.js';
import { shellQuote, wrapCommand, type ConfineRuntime } from './wrap.js';

export const PROBE_FAILURES = [
  'platform',
  'bwrap-missing',
  'shell-missing',
  'arch',
  'userns',
  'proc',
  'seccomp',
  'walls',
  'error',
] as const;
export type ProbeFailure = (typeof PROBE_FAILURES)[number];

export type ProbeReport =
  | {
      available: true;
      runtime: ConfineRuntime;
      bwrapVersion: string;
      /** What the run inside the walls confirmed. */
      confirmed: readonly string[];
      /** Worth saying, not blocking (mount-point files that stay behind without flock/find). */
      warnings: readonly string[];
      ms: number;
    }
  | {
      available: false;
      failure: ProbeFailure;
      /** What is wrong, in a sentence. */
      reason: string;
      /** What to do about it. */
      fix: string;
      /** bubblewrap's own words, when it ran. */
      detail?: string;
      ms: number;
    };

export interface ProbeOptions {
  env?: NodeJS.ProcessEnv;
  /** Use this bubblewrap instead of the one on PATH. */
  bwrap?: string;
  platform?: NodeJS.Platform;
  arch?: string;
  euid?: number;
  /** Where the throw-away project goes (default: the system temp dir). */
  scratch?: string;
  /** The private runtime directory whose lock file the returned runtime uses (default: hookwise's). */
  runtimeDir?: string;
  timeoutMs?: number;
}

export const INSTALL_FIX =
  'install bubblewrap (apt-get install bubblewrap socat; dnf install bubblewrap socat; pacman -S bubblewrap socat)';

/** The checks the probe command prints when they pass (see PROBE_SCRIPT). */
const CHECKS = [
  'no-new-privs',
  'no-capabilities',
  'seccomp',
  'loopback-only',
  'pid-namespace',
  'project-writable',
  'outside-read-only',
  'protected-uncreatable',
  'secret-hidden',
] as const;

export function probeConfinement(options: ProbeOptions = {}): ProbeReport {
  const started = performance.now();
  const ms = () => Math.round((performance.now() - started) * 10) / 10;
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  const fail = (failure: ProbeFailure, reason: string, fix: string, detail?: string): ProbeReport => ({
    available: false,
    failure,
    reason,
    fix,
    ...(detail === undefined ? {} : { detail }),
    ms: ms(),
  });
  if (platform !== 'linux') {
    return fail(
      'platform',
      `confinement is built on Linux bubblewrap; ${platform} is not supported yet`,
      'none yet on this platform (macOS Seatbelt is future work)',
    );
  }
  const arch = seccompArchOf(options.arch ?? process.arch);
  if (arch === undefined)
    return fail(
      'arch',
      `no seccomp filter for ${options.arch ?? process.arch} (x64 and arm64 only)`,
      'run on x86-64 or arm64',
    );
  const bwrap = options.bwrap ?? which('bwrap', env);
  if (bwrap === undefined || !executable(bwrap)) {
    return fail(
      'bwrap-missing',
      options.bwrap === undefined
        ? 'bubblewrap (bwrap) is not installed'
        : `bubblewrap is not executable at ${options.bwrap}`,
      INSTALL_FIX,
    );
  }
  const shell = ['/bin/bash', '/usr/bin/bash', '/bin/sh'].find(executable);
  if (shell === undefined)
    return fail('shell-missing', 'neither bash nor sh found in /bin or /usr/bin', 'install bash');
  const version = spawnSync(bwrap, ['--version'], { encoding: 'utf8', timeout: 5000 });
  const bwrapVersion = (version.stdout ?? '').trim() || 'unknown version';
  const flock = which('flock', env);
  const find = which('find', env);
  const warnings: string[] = [];
  if (flock === undefined || find === undefined) {
    warnings.push(
      `without ${flock === undefined ? 'flock' : 'find'} the empty files bubblewrap makes for absent protected paths (.mcp.json, .claude, …) stay in the project after each command (install util-linux and findutils)`,
    );
  }

  const base = realpathSync(mkdtempSync(join(options.scratch ?? tmpdir(), 'hookwise-probe-')));
  try {
    const project = join(base, 'project');
    const home = join(base, 'home');
    const runtimeDir = join(base, 'runtime');
    const outside = join(base, 'outside');
    for (const dir of [project, join(base, 'tmp'), join(home, '.ssh'), runtimeDir, outside])
      mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(join(home, '.ssh', 'id_probe'), 'probe secret\n');
    writeFileSync(join(outside, 'canary'), 'canary\n');
    const envelope = buildEnvelope({ projectRoot: project, tempDir: join(base, 'tmp'), home, runtimeDir });
    const euid = options.euid ?? process.geteuid?.() ?? -1;
    // A user namespace of its own first; root may have to do without one (no CAP_SETFCAP to map uid 0),
    // which is as safe here: all capabilities are dropped and no new privileges can be gained.
    const modes = euid === 0 ? [true, false] : [true];
    let last: { failure: ProbeFailure; reason: string; fix: string; detail?: string } | undefined;
    for (const userns of modes) {
      const runtime: ConfineRuntime = {
        bwrap,
        shell,
        ...(flock === undefined ? {} : { flock }),
        ...(find === undefined ? {} : { find }),
        lockFile: join(runtimeDir, 'confine.lock'),
        arch,
        userns,
      };
      const script = probeScript({ project, outside, secret: join(home, '.ssh', 'id_probe') });
      const wrapped = wrapCommand(envelope, script, runtime);
      if (!wrapped.ok)
        return fail('walls', `the probe's own envelope cannot be enforced: ${wrapped.reason}`, 'report this as a bug');
      const run = spawnSync('/bin/sh', ['-c', wrapped.command], {
        cwd: project,
        env: { ...env, HOME: home },
        encoding: 'utf8',
        timeout: options.timeoutMs ?? 10_000,
      });
      const out = run.stdout ?? '';
      const confirmed = CHECKS.filter((c) => out.includes(`hookwise-probe ${c}\n`));
      if (run.status === 0 && confirmed.length === CHECKS.length) {
        if (readFileSync(join(outside, 'canary'), 'utf8') !== 'canary\n' || !existsSync(join(project, 'written'))) {
          return fail(
            'walls',
            'the probe command ran, but its writes did not land where the walls say',
            'report this as a bug',
            out,
          );
        }
        if (flock !== undefined && find !== undefined && !vanishes(join(project, '.mcp.json'), 1000)) {
          warnings.push('the mount-point file bubblewrap made for .mcp.json was not removed after the run');
        }
        const lockFile = join(options.runtimeDir ?? locations(env).runtimeDir, 'confine.lock');
        return { available: true, runtime: { ...runtime, lockFile }, bwrapVersion, confirmed, warnings, ms: ms() };
      }
      last =
        run.status === 0 || confirmed.length > 0
          ? {
              failure: 'walls',
              reason: `the walls do not hold here: ${CHECKS.filter((c) => !confirmed.includes(c)).join(', ')} not confirmed`,
              fix: 'run hookwise doctor again; if it persists, report it with the output of bwrap --version and uname -r',
              detail: firstLine(run.stderr),
            }
          : classify(run.stderr ?? '', run.error);
    }
    return fail(last!.failure, last!.reason, last!.fix, last!.detail);
  } catch (error) {
    return fail(
      'error',
      `the probe could not run: ${(error as Error).message}`,
      'check that the system temp dir is writable',
    );
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

/** bubblewrap's refusal, as a reason and a fix. */
function classify(
  stderr: string,
  error: Error | undefined,
): { failure: ProbeFailure; reason: string; fix: string; detail?: string } {
  const detail = firstLine(stderr) ?? error?.message;
  const withDetail = (failure: ProbeFailure, reason: string, fix: string) => ({
    failure,
    reason,
    fix,
    ...(detail === undefined ? {} : { detail }),
  });
  if (
    /No permissions to creat|new namespace|uid map|setting up uid|unshare|user namespace|Operation not permitted.*namespace/i.test(
      stderr,
    )
  ) {
    return withDetail(
      'userns',
      'this kernel does not let bubblewrap create user namespaces',
      'allow unprivileged user namespaces: sysctl kernel.unprivileged_userns_clone=1 (Debian), user.max_user_namespaces > 0, or on Ubuntu 23.10+ sysctl kernel.apparmor_restrict_unprivileged_userns=0 or an AppArmor profile for bwrap; in a container, run it with user namespaces allowed',
    );
  }
  if (/mount proc|proc on/i.test(stderr)) {
    return withDetail(
      'proc',
      'bubblewrap cannot mount a /proc for the sandbox (a container that forbids it)',
      'run the container with --security-opt seccomp=unconfined --security-opt apparmor=unconfined, or on a VM',
    );
  }
  if (/seccomp|PR_SET_SECCOMP/i.test(stderr)) {
    return withDetail(
      'seccomp',
      'the kernel refused the seccomp filter',
      'a kernel with CONFIG_SECCOMP_FILTER is needed',
    );
  }
  return withDetail(
    'error',
    'bubblewrap failed to start the probe command',
    "run hookwise doctor again; the detail is bubblewrap's own message",
  );
}

/** Whether `path` is gone within `ms` (the clean-up after a run is in the background). */
function vanishes(path: string, ms: number): boolean {
  const until = Date.now() + ms;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  while (existsSync(path)) {
    if (Date.now() > until) return false;
    Atomics.wait(pause, 0, 0, 10);
  }
  return true;
}

function firstLine(text: string | undefined): string | undefined {
  const line = (text ?? '')
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '');
  return line === undefined ? undefined : line.slice(0, 300);
}

function probeScript(p: { project: string; outside: string; secret: string }): string {
  const q = shellQuote;
  return [
    'ok() { printf "hookwise-probe %s\\n" "$1"; }',
    "grep -q '^NoNewPrivs:[[:space:]]*1$' /proc/self/status && ok no-new-privs",
    "grep -q '^CapEff:[[:space:]]*0*$' /proc/self/status && ok no-capabilities",
    "grep -q '^Seccomp:[[:space:]]*2$' /proc/self/status && ok seccomp",
    "[ \"$(grep -c ':' /proc/net/dev)\" = 1 ] && grep -q 'lo:' /proc/net/dev && ok loopback-only",
    '[ "$$" -lt 10 ] && ok pid-namespace',
    `echo written > ${q(join(p.project, 'written'))} && ok project-writable`,
    `( echo no > ${q(join(p.outside, 'canary'))} ) 2>/dev/null || ok outside-read-only`,
    `( echo '{}' > ${q(join(p.project, '.mcp.json'))} ) 2>/dev/null || ok protected-uncreatable`,
    `cat ${q(p.secret)} >/dev/null 2>&1 || ok secret-hidden`,
    'exit 0',
  ].join('\n');
}

/** An executable on PATH, then in /usr/bin, /bin, /usr/local/bin. */
export function which(name: string, env: NodeJS.ProcessEnv): string | undefined {
  const dirs = [...(env.PATH ?? '').split(delimiter), '/usr/bin', '/bin', '/usr/local/bin'].filter(
    (d) => d !== '' && d.startsWith('/'),
  );
  return dirs.map((d) => join(d, name)).find(executable);
}

function executable(path: string): boolean {
  // Most PATH entries lack the program: a stat says so without accessSync's exception (a stack trace each).
  if (statIfPresent(path) === undefined) return false;
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
