/**
 * Did a confined command hit the walls? Read from what the host reports after the run (Claude Code's
 * PostToolUseFailure `error`, or a PostToolUse `tool_response`): the messages the walls themselves cause.
 * Pure and bounded: only the first and last MAX_SCANNED_BYTES of the output are read, line by line, with
 * plain substring tests (no regex over agent-controlled text).
 *
 * What the walls produce, and so what is looked for:
 *   - a write to a read-only bind (outside the project, a protected file, a stubbed missing one): EROFS,
 *     "Read-only file system";
 *   - the network namespace without a route: "Network is unreachable", and every resolver's way of saying
 *     that a name could not be looked up (no DNS inside the walls); with a network allowlist, the filtering
 *     proxy's 403 for a host off the list (its own line, or curl's, git's, wget's, Python's, npm's words);
 *   - the seccomp filter and the dropped capabilities: "Operation not permitted" (EPERM) — also printed for
 *     other reasons, but inside the walls it is far more often theirs, and a false hit only means the next
 *     identical call is asked, which is what would have happened without confinement.
 *   - a connection refused: inside the walls' network namespace nothing listens (the proxy's relay aside),
 *     so a refused connection is the walls' doing;
 *   - a secret of the home directory hidden from the run (`~/.ssh`, `~/.aws`, …: a tmpfs or /dev/null in
 *     its place): a line that names such a path and says it is missing or not permitted. A hidden secret that
 *     reads as empty, or whose error is not printed, is not recognised (the read simply returned nothing).
 */
import { DEFAULT_SENSITIVE_READ } from '../policy/defaults.js';

/** The rule id of an exact-cache ask that a wall hit left (memory/exact-tier.ts): the one remembered ask a human's approval replaces. */
export const WALLS_HIT_RULE = 'confine:walls-hit';

export const WALL_KINDS = ['write', 'read', 'network', 'syscall'] as const;
export type WallKind = (typeof WALL_KINDS)[number];

export interface WallHit {
  kind: WallKind;
  /** The output line that shows it, cut to MAX_LINE characters (untrusted text: sanitize before keeping it). */
  line: string;
}

/** Output read from each end: a build's megabytes of log are not scanned whole. */
export const MAX_SCANNED_BYTES = 64 * 1024;
const MAX_LINE = 240;

const SIGNS: readonly { kind: WallKind; needles: readonly string[] }[] = [
  { kind: 'write', needles: ['read-only file system', 'erofs'] },
  {
    kind: 'network',
    needles: [
      'network is unreachable',
      'enetunreach',
      'could not resolve host',
      'temporary failure in name resolution',
      'name or service not known',
      'no address associated with hostname',
      'getaddrinfo eai_again',
      'getaddrinfo enotfound',
      'nodename nor servname provided',
      'failed to resolve',
      'name resolution',
      // The filtering proxy's refusal of a host off the allowlist (daemon/netproxy.ts), as clients report it.
      'hookwise proxy: refused',
      'connect tunnel failed, response 403',
      'tunnel connection failed: 403',
      'proxy tunneling failed: forbidden',
      'tunneling socket could not be established, statuscode=403',
      'connection refused',
      'econnrefused',
    ],
  },
  { kind: 'syscall', needles: ['operation not permitted', 'eperm'] },
];

/** The home-directory places the walls hide (the literal part of each `~/` pattern), e.g. `.ssh`, `.aws`. */
const HIDDEN_HOME_PLACES: readonly string[] = [
  ...new Set(
    // All of ~/.ssh is hidden (envelope.ts CONFINE_EXTRA_READ; not imported: the planner stays out of the hook bundle).
    ['~/.ssh/**', ...DEFAULT_SENSITIVE_READ]
      .filter((p) => p.startsWith('~/'))
      .map((p) => {
        const rest = p.slice(2);
        const glob = rest.search(/[*?[{!(]/);
        return glob === -1 ? rest : rest.slice(0, Math.max(0, rest.lastIndexOf('/', glob)));
      })
      .filter((p) => p !== ''),
  ),
];
const MISSING = ['no such file or directory', 'permission denied', 'operation not permitted'];

/** A line that says a hidden home secret is missing or not permitted (`cat: /home/u/.ssh/id_rsa: No such file …`). */
function hiddenRead(line: string, home: string): boolean {
  const lower = line.toLowerCase();
  if (!MISSING.some((m) => lower.includes(m))) return false;
  return HIDDEN_HOME_PLACES.some(
    (p) => line.includes(`${home}/${p}`) || line.includes(`~/${p}`) || line.includes(`$HOME/${p}`),
  );
}

/**
 * The first line that shows the walls at work, checked in SIGNS order (a write beats a hidden read beats a
 * network beats EPERM). `home`: the run's home directory, to recognise a read of a secret the walls hide.
 */
export function wallsHit(output: string, home?: string): WallHit | undefined {
  const scanned =
    output.length <= 2 * MAX_SCANNED_BYTES
      ? output
      : `${output.slice(0, MAX_SCANNED_BYTES)}\n${output.slice(-MAX_SCANNED_BYTES)}`;
  const lines = scanned.split('\n');
  for (const sign of SIGNS) {
    if (sign.kind === 'network' && home !== undefined) {
      for (const line of lines)
        if (hiddenRead(line, home)) return { kind: 'read', line: line.trim().slice(0, MAX_LINE) };
    }
    for (const line of lines) {
      const lower = line.toLowerCase();
      if (sign.needles.some((n) => lower.includes(n))) return { kind: sign.kind, line: line.trim().slice(0, MAX_LINE) };
    }
  }
  return undefined;
}

/** What the walls stopped, in words for a reason. */
export function describeWallKind(kind: WallKind): string {
  switch (kind) {
    case 'write':
      return 'a write where they allow none';
    case 'read':
      return 'a read of a secret they hide';
    case 'network':
      return 'a network connection';
    case 'syscall':
      return 'an operation the walls forbid';
  }
}
