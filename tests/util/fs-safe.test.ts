/**
 * The file layer every hookwise file goes through: whole writes (short writes continue, no progress is an
 * error, the temp file never stays behind), and locks whose dead holders are recognised at once.
 */
import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  chmodSync,
  existsSync,
  mkdtempSync,
  renameSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { lstatSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  breakStaleLock,
  fileStamp,
  lockOwnerLine,
  lstatIfPresent,
  OwnedAppender,
  processStart,
  readOwnedFile,
  readOwnedFileStat,
  stampSettled,
  staleLock,
  withLockSync,
  writeAll,
  writeFileAtomic,
  type WriteIo,
} from '../../src/util/fs-safe.js';
import { writeSync, fsyncSync } from 'node:fs';

const made: string[] = [];
const dir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'hookwise-fs-safe-'));
  made.push(d);
  return d;
};
afterEach(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Writes at most `chunk` bytes per call; after `budget` bytes, fails the way a full disk does. */
function shortWrites(chunk: number, budget = Infinity, mode: 'zero' | 'enospc' = 'enospc'): WriteIo {
  let left = budget;
  return {
    write(fd, buffer, offset, length) {
      if (left <= 0) {
        if (mode === 'zero') return 0;
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      }
      const n = Math.min(chunk, length, left);
      left -= n;
      return writeSync(fd, buffer, offset, n);
    },
    fsync: (fd) => fsyncSync(fd),
  };
}

describe('writeFileAtomic', () => {
  it('writes every byte when the system writes a little at a time', () => {
    const d = dir();
    const data = 'x'.repeat(10_000) + '\n';
    writeFileAtomic(join(d, 'f'), data, { durable: true }, shortWrites(7));
    expect(readFileSync(join(d, 'f'), 'utf8')).toBe(data);
    expect(readdirSync(d)).toEqual(['f']);
  });

  it.each(['enospc', 'zero'] as const)(
    'a full disk (%s) fails the write, keeps the old file whole and leaves no temp file',
    (mode) => {
      const d = dir();
      const file = join(d, 'rules.jsonl');
      const old = Array.from({ length: 650 }, (_, i) => `{"n":${i}}`).join('\n') + '\n';
      writeFileSync(file, old);
      expect(() => writeFileAtomic(file, old + '{"n":650}\n', { durable: true }, shortWrites(100, 1300, mode))).toThrow(
        /^cannot write .*rules\.jsonl: .*ENOSPC.*; it was left as it was$/,
      );
      expect(readFileSync(file, 'utf8')).toBe(old);
      expect(readdirSync(d)).toEqual(['rules.jsonl']);
    },
  );

  it('writeAll refuses a write that makes no progress', () => {
    expect(() => writeAll(99, 'abc', { write: () => 0, fsync: () => undefined })).toThrow(/ENOSPC: no progress/);
  });
});

describe('withLockSync', () => {
  it('names its holder: pid, process start time, host', () => {
    const d = dir();
    const lock = join(d, 'lock');
    const seen = withLockSync(lock, () => readFileSync(lock, 'utf8'));
    expect(seen).toBe(lockOwnerLine());
    expect(seen).toMatch(new RegExp(`^${process.pid} \\S+ ${hostname().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\n$`));
    expect(existsSync(lock)).toBe(false);
  });

  it('takes over at once a lock whose holder is dead (no waiting for the stale age)', () => {
    const d = dir();
    const lock = join(d, 'lock');
    const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    });
    writeFileSync(lock, `${child.stdout} 12345 ${hostname()}\n`);
    const started = Date.now();
    expect(withLockSync(lock, () => 'ran', { timeoutMs: 5000, staleMs: 60_000 })).toBe('ran');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('takes over a lock whose pid was reused by a later process (start time differs)', () => {
    const d = dir();
    const lock = join(d, 'lock');
    if (processStart(process.pid) === undefined) return; // no /proc here: pid reuse cannot be told apart
    writeFileSync(lock, `${process.pid} 1 ${hostname()}\n`);
    expect(withLockSync(lock, () => 'ran', { timeoutMs: 5000, staleMs: 60_000 })).toBe('ran');
  });

  it('an empty lock (its owner line never written: a full disk) is taken over after a short grace, not the stale age', () => {
    const d = dir();
    const lock = join(d, 'lock');
    writeFileSync(lock, '');
    const past = new Date(Date.now() - 5000);
    utimesSync(lock, past, past);
    expect(withLockSync(lock, () => 'ran', { timeoutMs: 2000, staleMs: 60_000 })).toBe('ran');
  });

  it('a dangling or planted symlink at the lock path is removed, never followed', () => {
    const d = dir();
    const lock = join(d, 'lock');
    const target = join(d, 'victim');
    symlinkSync(target, lock);
    expect(withLockSync(lock, () => 'ran', { timeoutMs: 2000 })).toBe('ran');
    expect(existsSync(target)).toBe(false);
  });

  it('a lock judged stale is removed only if it is still that file: a breaker that lost the race leaves the new holder alone', () => {
    const d = dir();
    const lock = join(d, 'lock');
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    }).stdout;
    writeFileSync(lock, `${dead} 12345 ${hostname()}\n`);
    const judged = staleLock(lock, 60_000);
    expect(judged).toBeDefined();
    // Meanwhile another waiter broke it and took the lock (a new file, a live holder).
    unlinkSync(lock);
    writeFileSync(lock, lockOwnerLine());
    expect(breakStaleLock(lock, judged!, 60_000)).toBe(true);
    expect(readFileSync(lock, 'utf8')).toBe(lockOwnerLine());
    expect(existsSync(`${lock}.break`)).toBe(false);
  });

  it('breakers take turns: while another breaker holds the guard, nothing is removed', () => {
    const d = dir();
    const lock = join(d, 'lock');
    writeFileSync(lock, '');
    const past = new Date(Date.now() - 5000);
    utimesSync(lock, past, past);
    const judged = staleLock(lock, 60_000)!;
    writeFileSync(`${lock}.break`, lockOwnerLine()); // a live breaker
    expect(breakStaleLock(lock, judged, 60_000)).toBe(false);
    expect(existsSync(lock)).toBe(true);
    unlinkSync(`${lock}.break`);
    expect(breakStaleLock(lock, judged, 60_000)).toBe(true);
    expect(existsSync(lock)).toBe(false);
  });

  it('waits for a live holder and then times out naming it', () => {
    const d = dir();
    const lock = join(d, 'lock');
    writeFileSync(lock, lockOwnerLine());
    expect(() => withLockSync(lock, () => 'ran', { timeoutMs: 100 })).toThrow(new RegExp(`held by pid ${process.pid}`));
  });
});

describe('OwnedAppender: a long-lived writer keeps its file open between appends', () => {
  const options = { mode: 0o600, purpose: 'the test log' };
  const appenders: OwnedAppender[] = [];
  const appender = (): OwnedAppender => {
    const a = new OwnedAppender(2);
    appenders.push(a);
    return a;
  };
  afterEach(() => {
    for (const a of appenders.splice(0)) a.close();
  });

  it('appends whole lines, and lines another process appended in between stay whole', () => {
    const file = join(dir(), 'log.jsonl');
    const a = appender();
    a.append(file, 'one\n', options);
    appendFileSync(file, 'theirs\n');
    a.append(file, 'two\n', options);
    expect(readFileSync(file, 'utf8')).toBe('one\ntheirs\ntwo\n');
  });

  it('a torn last line left by another writer does not swallow the next line', () => {
    const file = join(dir(), 'log.jsonl');
    const a = appender();
    a.append(file, 'one\n', options);
    appendFileSync(file, '{"torn": ');
    a.append(file, 'two\n', options);
    expect(readFileSync(file, 'utf8')).toBe('one\n{"torn": \ntwo\n');
  });

  it('after a rotation (the file renamed away) or a removal, lines go to a new file under the name', () => {
    const d = dir();
    const file = join(d, 'log.jsonl');
    const a = appender();
    a.append(file, 'one\n', options);
    renameSync(file, join(d, 'log.1.jsonl'));
    a.append(file, 'two\n', options);
    expect(readFileSync(join(d, 'log.1.jsonl'), 'utf8')).toBe('one\n');
    expect(readFileSync(file, 'utf8')).toBe('two\n');
    unlinkSync(file);
    a.append(file, 'three\n', options);
    expect(readFileSync(file, 'utf8')).toBe('three\n');
  });

  it('a file swapped for a symbolic link is refused, and so is one made writable by others', () => {
    const d = dir();
    const file = join(d, 'log.jsonl');
    const elsewhere = join(d, 'elsewhere');
    writeFileSync(elsewhere, '');
    const a = appender();
    a.append(file, 'one\n', options);
    unlinkSync(file);
    symlinkSync(elsewhere, file);
    expect(() => a.append(file, 'two\n', options)).toThrow(/symbolic link/);
    expect(readFileSync(elsewhere, 'utf8')).toBe('');
    unlinkSync(file);
    a.append(file, 'three\n', options);
    chmodSync(file, 0o666);
    expect(() => a.append(file, 'four\n', options)).toThrow(/writable by others/);
    expect(readFileSync(file, 'utf8')).toBe('three\n');
  });

  it('a write that fails part-way is cut back: the file holds whole lines only', () => {
    const file = join(dir(), 'log.jsonl');
    const a = appender();
    a.append(file, 'one\n', options);
    let calls = 0;
    const failing: WriteIo = {
      write: (fd, buffer, offset, length) => (++calls === 1 ? writeSync(fd, buffer, offset, Math.min(3, length)) : 0),
      fsync: (fd) => fsyncSync(fd),
    };
    expect(() => a.append(file, 'a longer line\n', options, failing)).toThrow(/cannot append to .*nothing was added/);
    a.append(file, 'two\n', options);
    expect(readFileSync(file, 'utf8')).toBe('one\ntwo\n');
  });

  it('keeps at most its bound of files open: an older one is reopened when written again', () => {
    const d = dir();
    const a = appender();
    for (const name of ['a', 'b', 'c', 'a']) a.append(join(d, name), `${name}\n`, options);
    expect(readFileSync(join(d, 'a'), 'utf8')).toBe('a\na\n');
    expect(readFileSync(join(d, 'c'), 'utf8')).toBe('c\n');
  });
});

describe('readOwnedFile', () => {
  it('reads a file of ours; an absent one, or one under a file (ENOTDIR), is undefined rather than an error', () => {
    const d = dir();
    const file = join(d, 'state.json');
    writeFileSync(file, '{}', { mode: 0o600 });
    expect(readOwnedFile(file, 'a test file')?.toString('utf8')).toBe('{}');
    expect(readOwnedFile(join(d, 'absent.json'), 'a test file')).toBeUndefined();
    expect(readOwnedFile(join(file, 'below-a-file.json'), 'a test file')).toBeUndefined();
    expect(lstatIfPresent(join(file, 'below-a-file.json'))).toBeUndefined();
  });

  it('still refuses a symbolic link in place of the file', () => {
    const d = dir();
    writeFileSync(join(d, 'target.json'), '{}', { mode: 0o600 });
    symlinkSync(join(d, 'target.json'), join(d, 'state.json'));
    expect(() => readOwnedFile(join(d, 'state.json'), 'a test file')).toThrow(/symbolic link/);
  });
});

describe('file stamps', () => {
  it('readOwnedFileStat gives the stamp of what it read; a replacement, an in-place rewrite or a chmod changes it', () => {
    const d = dir();
    const file = join(d, 'note.json');
    writeFileSync(file, '{"a":1}', { mode: 0o600 });
    const read = readOwnedFileStat(file, 'a test file')!;
    expect(read.bytes.toString('utf8')).toBe('{"a":1}');
    const stamp = (): string => fileStamp(lstatSync(file, { bigint: true }));
    expect(stamp()).toBe(fileStamp(read.stat));
    writeFileAtomic(file, '{"a":2}', { mode: 0o600 }); // same size, another inode
    expect(stamp()).not.toBe(fileStamp(read.stat));
    const replaced = stamp();
    utimesSync(file, 1, 1); // times set by hand
    expect(stamp()).not.toBe(replaced);
    const touched = stamp();
    chmodSync(file, 0o644);
    expect(stamp()).not.toBe(touched);
    expect(readOwnedFileStat(join(d, 'absent.json'), 'a test file')).toBeUndefined();
  });

  it("a stamp is settled only when its change time is well before the reading (git's racily-clean rule)", () => {
    const d = dir();
    const file = join(d, 'f');
    writeFileSync(file, 'x');
    const st = lstatSync(file, { bigint: true });
    const changedMs = Number(st.ctimeNs / 1_000_000n);
    expect(stampSettled(st, changedMs)).toBe(false);
    expect(stampSettled(st, changedMs + 10)).toBe(false);
    expect(stampSettled(st, changedMs + 1000)).toBe(true);
  });
});
