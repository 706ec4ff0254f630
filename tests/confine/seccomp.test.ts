/** The seccomp filter, run through a small classic-BPF interpreter, and its printf encoding through a real sh. */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { seccompFilter, seccompPrintfFormat, type SeccompArch } from '../../src/confine/seccomp.js';

const ALLOW = 0x7fff0000;
const EPERM = 0x00050001;
const ENOSYS = 0x00050026;
const ARCH = { x64: 0xc000003e, arm64: 0xc00000b7, i386: 0x40000003 };
const NR = {
  x64: {
    read: 0,
    socket: 41,
    socketpair: 53,
    ioctl: 16,
    io_uring_setup: 425,
    keyctl: 250,
    connect: 42,
    clone: 56,
    unshare: 272,
    clone3: 435,
  },
  arm64: {
    read: 63,
    socket: 198,
    socketpair: 199,
    ioctl: 29,
    io_uring_setup: 425,
    keyctl: 219,
    connect: 203,
    clone: 220,
    unshare: 97,
    clone3: 435,
  },
};

/** Runs the filter on one system call (arguments as 32-bit low words). */
function verdict(filter: Buffer, arch: number, nr: number, args: number[] = []): number {
  const data = Buffer.alloc(64);
  data.writeInt32LE(nr, 0);
  data.writeUInt32LE(arch >>> 0, 4);
  args.forEach((a, i) => data.writeUInt32LE(a >>> 0, 16 + 8 * i));
  let acc = 0;
  for (let pc = 0; pc < filter.length / 8;) {
    const code = filter.readUInt16LE(pc * 8);
    const jt = filter.readUInt8(pc * 8 + 2);
    const jf = filter.readUInt8(pc * 8 + 3);
    const k = filter.readUInt32LE(pc * 8 + 4);
    switch (code) {
      case 0x20:
        acc = data.readUInt32LE(k);
        pc++;
        break;
      case 0x15:
        pc += 1 + (acc === k ? jt : jf);
        break;
      case 0x35:
        pc += 1 + (acc >= k ? jt : jf);
        break;
      case 0x45:
        pc += 1 + ((acc & k) !== 0 ? jt : jf);
        break;
      case 0x06:
        return k;
      default:
        throw new Error(`unexpected opcode ${code}`);
    }
  }
  throw new Error('fell off the end of the filter');
}

describe.each(['x64', 'arm64'] as SeccompArch[])('the %s filter', (arch) => {
  const f = seccompFilter(arch);
  const native = ARCH[arch];
  const nr = NR[arch];
  it.each([
    ['read', nr.read, [], ALLOW],
    ['connect', nr.connect, [], ALLOW],
    ['socket(AF_INET)', nr.socket, [2], ALLOW],
    ['socket(AF_INET6)', nr.socket, [10], ALLOW],
    ['socket(AF_NETLINK)', nr.socket, [16], ALLOW],
    ['socket(AF_UNIX)', nr.socket, [1], EPERM],
    ['socket(AF_VSOCK)', nr.socket, [40], EPERM],
    ['socket(AF_PACKET)', nr.socket, [17], EPERM],
    ['socketpair(AF_UNIX)', nr.socketpair, [1], ALLOW],
    ['ioctl(TIOCSTI)', nr.ioctl, [0, 0x5412], EPERM],
    ['ioctl(TIOCLINUX)', nr.ioctl, [0, 0x541c], EPERM],
    ['ioctl(TCGETS)', nr.ioctl, [0, 0x5401], ALLOW],
    ['io_uring_setup', nr.io_uring_setup, [], EPERM],
    ['keyctl', nr.keyctl, [], EPERM],
    ['clone (a thread, a process)', nr.clone, [0x003d0f00], ALLOW],
    ['clone(CLONE_NEWUSER)', nr.clone, [0x10000000 | 0x11], EPERM],
    ['unshare(CLONE_NEWNS)', nr.unshare, [0x00020000], ALLOW],
    ['unshare(CLONE_NEWUSER)', nr.unshare, [0x10000000], EPERM],
    ['clone3', nr.clone3, [], ENOSYS],
  ] as const)('%s', (_name, number, args, expected) => {
    expect(verdict(f, native, number, [...args])).toBe(expected);
  });

  it('refuses every call of another ABI', () => {
    expect(verdict(f, ARCH.i386, 3)).toBe(EPERM);
    if (arch === 'x64') expect(verdict(f, native, 0x40000000 + 41, [1])).toBe(EPERM); // x32 socket
  });

  it('printf(1) turns the format back into the same bytes', () => {
    const r = spawnSync('/bin/sh', ['-c', `printf '${seccompPrintfFormat(arch)}'`]);
    expect(Buffer.compare(r.stdout, f)).toBe(0);
  });
});
