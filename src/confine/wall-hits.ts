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
 * A secret hidden from the run reads as empty or missing, which no message tells apart from a file that
 * never existed: those are not recognised (the read simply returned nothing).
 */

/** The rule id of an exact-cache ask that a wall hit left (memory/exact-tier.ts): the one remembered ask a human's approval replaces. */
export const WALLS_HIT_RULE = 'confine:walls-hit';

export const WALL_KINDS = ['write', 'network', 'syscall'] as const;
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
    ],
  },
  { kind: 'syscall', needles: ['operation not permitted', 'eperm'] },
];

/** The first line that shows the walls at work, checked in SIGNS order (a write beats a network beats EPERM). */
export function wallsHit(output: string): WallHit | undefined {
  const scanned = output.length <= 2 * MAX_SCANNED_BYTES ? output : `${output.slice(0, MAX_SCANNED_BYTES)}\n${output.slice(-MAX_SCANNED_BYTES)}`;
  const lines = scanned.split('\n');
  for (const sign of SIGNS) {
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
    case 'network':
      return 'a network connection';
    case 'syscall':
      return 'an operation the walls forbid';
  }
}
