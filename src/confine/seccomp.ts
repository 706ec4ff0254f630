/**
 * The seccomp filter every confined command runs under, as a classic BPF program that bubblewrap loads
 * from a file descriptor (`bwrap --seccomp FD`: the raw `struct sock_filter` array). Hand-assembled here
 * because it is small and fixed, and a library (libseccomp, a vendored helper binary) would be a native
 * dependency for ten instructions.
 *
 * What it refuses, with EPERM ("Operation not permitted", which the host shows and a human recognises):
 * - `socket()` of any family but IPv4, IPv6 and netlink. A Unix socket is the one way out of a network
 *   namespace that a read-only bind does not close: connect(2) on a socket file needs no write access to
 *   the mount, so the docker socket, the session D-Bus (`systemd-run --user`), an ssh-agent in /tmp or
 *   hookwise's own daemon would be reachable. vsock (a VM's host) and the rest are not namespaced at all.
 *   `socketpair()` stays: it connects nothing outside and node, python and make need it.
 * - the TIOCSTI and TIOCLINUX ioctls (typing into the terminal the command was started from), on top of
 *   the new session bubblewrap gives it;
 * - io_uring (its SOCKET operation bypasses the socket rule), and the kernel keyring calls;
 * - a new user namespace (clone or unshare with CLONE_NEWUSER; clone3, whose flags sit behind a pointer,
 *   answers ENOSYS so that libc falls back to clone): nested namespaces are kernel attack surface, and
 *   bubblewrap before 0.8 has no --disable-userns;
 * - every system call of another ABI (i386 and x32 on x86-64, arm32 on arm64): their numbers differ, and
 *   i386's socketcall multiplexer hides the socket family behind a pointer the filter cannot read.
 */

export const SECCOMP_ARCHES = ['x64', 'arm64'] as const;
export type SeccompArch = (typeof SECCOMP_ARCHES)[number];

interface ArchSpec {
  /** AUDIT_ARCH_* as seccomp_data.arch reports it. */
  audit: number;
  socket: number;
  ioctl: number;
  clone: number;
  unshare: number;
  clone3: number;
  /** io_uring_setup, io_uring_enter, io_uring_register; keyctl, add_key, request_key. */
  refused: readonly number[];
}

const ARCHES: Record<SeccompArch, ArchSpec> = {
  x64: {
    audit: 0xc000003e,
    socket: 41,
    ioctl: 16,
    clone: 56,
    unshare: 272,
    clone3: 435,
    refused: [425, 426, 427, 250, 248, 249],
  },
  arm64: {
    audit: 0xc00000b7,
    socket: 198,
    ioctl: 29,
    clone: 220,
    unshare: 97,
    clone3: 435,
    refused: [425, 426, 427, 219, 217, 218],
  },
};

const AF_INET = 2;
const AF_INET6 = 10;
const AF_NETLINK = 16;
const TIOCSTI = 0x5412;
const TIOCLINUX = 0x541c;
const CLONE_NEWUSER = 0x10000000;
/** x32 system calls carry this bit in their number (x86-64 only; no arm64 number comes near it). */
const X32_SYSCALL_BIT = 0x40000000;

const SECCOMP_RET_ALLOW = 0x7fff0000;
const SECCOMP_RET_ERRNO = 0x00050000;
const EPERM = 1;
const ENOSYS = 38;

// seccomp_data: int nr; u32 arch; u64 instruction_pointer; u64 args[6]. Arguments are compared on their low
// 32 bits, which is what the kernel reads for socket()'s int family and ioctl()'s unsigned int request.
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;
const offsetOfArg = (n: number): number => 16 + 8 * n;

// Classic BPF opcodes used here.
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const JSET_K = 0x45;
const RET_K = 0x06;

type Insn =
  | { op: 'ld'; offset: number }
  /** A conditional jump: to `then` when true, to `else` when false; a missing label falls through. */
  | { op: 'jeq' | 'jge' | 'jset'; k: number; then?: Label; else?: Label }
  | { op: 'ret'; k: number }
  | { op: 'label'; name: Label };
type Label = 'allow' | 'deny' | 'nosys' | 'socket' | 'ioctl' | 'flags';

function program(spec: ArchSpec): Insn[] {
  return [
    { op: 'ld', offset: OFFSET_ARCH },
    { op: 'jeq', k: spec.audit, else: 'deny' },
    { op: 'ld', offset: OFFSET_NR },
    { op: 'jge', k: X32_SYSCALL_BIT, then: 'deny' },
    { op: 'jeq', k: spec.socket, then: 'socket' },
    { op: 'jeq', k: spec.ioctl, then: 'ioctl' },
    { op: 'jeq', k: spec.clone, then: 'flags' },
    { op: 'jeq', k: spec.unshare, then: 'flags' },
    { op: 'jeq', k: spec.clone3, then: 'nosys' },
    ...spec.refused.map((nr): Insn => ({ op: 'jeq', k: nr, then: 'deny' })),
    { op: 'ret', k: SECCOMP_RET_ALLOW },
    { op: 'label', name: 'flags' },
    { op: 'ld', offset: offsetOfArg(0) },
    { op: 'jset', k: CLONE_NEWUSER, then: 'deny' },
    { op: 'ret', k: SECCOMP_RET_ALLOW },
    { op: 'label', name: 'socket' },
    { op: 'ld', offset: offsetOfArg(0) },
    { op: 'jeq', k: AF_INET, then: 'allow' },
    { op: 'jeq', k: AF_INET6, then: 'allow' },
    { op: 'jeq', k: AF_NETLINK, then: 'allow' },
    { op: 'ret', k: SECCOMP_RET_ERRNO | EPERM },
    { op: 'label', name: 'ioctl' },
    { op: 'ld', offset: offsetOfArg(1) },
    { op: 'jeq', k: TIOCSTI, then: 'deny' },
    { op: 'jeq', k: TIOCLINUX, then: 'deny' },
    { op: 'label', name: 'allow' },
    { op: 'ret', k: SECCOMP_RET_ALLOW },
    { op: 'label', name: 'deny' },
    { op: 'ret', k: SECCOMP_RET_ERRNO | EPERM },
    { op: 'label', name: 'nosys' },
    { op: 'ret', k: SECCOMP_RET_ERRNO | ENOSYS },
  ];
}

/** The filter for `arch` as the bytes bubblewrap reads: 8 bytes per instruction, little-endian. */
export function seccompFilter(arch: SeccompArch): Buffer {
  const insns = program(ARCHES[arch]);
  // Resolve labels to instruction indices (labels take no slot).
  const at = new Map<Label, number>();
  let index = 0;
  for (const insn of insns) {
    if (insn.op === 'label') at.set(insn.name, index);
    else index++;
  }
  const code = insns.filter((i): i is Exclude<Insn, { op: 'label' }> => i.op !== 'label');
  const out = Buffer.alloc(code.length * 8);
  code.forEach((insn, i) => {
    let opcode: number;
    let jt = 0;
    let jf = 0;
    let k: number;
    switch (insn.op) {
      case 'ld':
        opcode = LD_W_ABS;
        k = insn.offset;
        break;
      case 'ret':
        opcode = RET_K;
        k = insn.k;
        break;
      case 'jeq':
      case 'jge':
      case 'jset': {
        opcode = insn.op === 'jeq' ? JEQ_K : insn.op === 'jge' ? JGE_K : JSET_K;
        k = insn.k;
        const jump = (label: Label | undefined): number => {
          if (label === undefined) return 0;
          const offset = at.get(label)! - (i + 1);
          if (offset < 0 || offset > 255) throw new Error(`seccomp: jump to ${label} out of range (${offset})`);
          return offset;
        };
        jt = jump(insn.then);
        jf = jump(insn.else);
        break;
      }
    }
    out.writeUInt16LE(opcode, i * 8);
    out.writeUInt8(jt, i * 8 + 2);
    out.writeUInt8(jf, i * 8 + 3);
    out.writeUInt32LE(k >>> 0, i * 8 + 4);
  });
  return out;
}

/** The filter as a printf(1) format of octal escapes: the wrapped command pipes it to bubblewrap itself, so
 *  it needs no file that could be missing or replaced when the command runs. */
export function seccompPrintfFormat(arch: SeccompArch): string {
  return [...seccompFilter(arch)].map((byte) => '\\' + byte.toString(8).padStart(3, '0')).join('');
}

export function seccompArchOf(nodeArch: string): SeccompArch | undefined {
  return (SECCOMP_ARCHES as readonly string[]).includes(nodeArch) ? (nodeArch as SeccompArch) : undefined;
}
