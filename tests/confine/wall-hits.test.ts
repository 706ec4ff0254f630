import { describe, expect, it } from 'vitest';
import { MAX_SCANNED_BYTES, wallsHit } from '../../src/confine/wall-hits.js';

describe('wallsHit: what the walls print', () => {
  it.each([
    ["touch: cannot touch '/home/u/x': Read-only file system", 'write'],
    ["Error: EROFS: read-only file system, open '.mcp.json'", 'write'],
    ['curl: (6) Could not resolve host: example.com', 'network'],
    ['ssh: connect to host github.com port 22: Network is unreachable', 'network'],
    ['Error: getaddrinfo EAI_AGAIN registry.npmjs.org', 'network'],
    ['wget: unable to resolve host address; Temporary failure in name resolution', 'network'],
    ["pip: Failed to resolve 'pypi.org'", 'network'],
    ['kill: (1234) - Operation not permitted', 'syscall'],
  ])('%s → %s', (line, kind) => {
    expect(wallsHit(`Exit code 1\nsome output\n${line}\nmore`)).toEqual({ kind, line });
  });

  it('a write beats a network error beats EPERM, whatever their order in the output', () => {
    expect(
      wallsHit('kill: Operation not permitted\ncurl: (6) Could not resolve host: x\ncp: Read-only file system')?.kind,
    ).toBe('write');
  });

  it('ordinary failures are not the walls', () => {
    for (const output of [
      'Exit code 1\nnpm ERR! Missing script: "lint"',
      'Exit code 2\nmake: *** No rule to make target',
      'FAIL tests/a.test.ts\nexpected 1 to be 2',
      'cat: x: No such file or directory',
      '',
    ]) {
      expect(wallsHit(output)).toBeUndefined();
    }
  });

  it('reads only the two ends of a long output; a long line is cut', () => {
    const filler = 'x'.repeat(MAX_SCANNED_BYTES * 3);
    expect(wallsHit(`${filler}\nRead-only file system in the middle\n${filler}`)).toBeUndefined();
    expect(wallsHit(`${filler}\ncp: Read-only file system`)?.kind).toBe('write');
    expect(wallsHit(`cp: Read-only file system ${'y'.repeat(1000)}`)!.line.length).toBe(240);
  });
});

describe('wallsHit: reads of a hidden secret, refused connections', () => {
  it('a line that names a hidden home secret and says it is missing is a read the walls stopped', () => {
    expect(wallsHit('cat: /home/u/.ssh/id_rsa: No such file or directory', '/home/u')).toEqual({
      kind: 'read',
      line: 'cat: /home/u/.ssh/id_rsa: No such file or directory',
    });
    expect(wallsHit('Error: EACCES: permission denied, open ~/.aws/credentials', '/home/u')?.kind).toBe('read');
    expect(wallsHit('ls: cannot access /home/u/.config/gcloud: No such file or directory', '/home/u')?.kind).toBe(
      'read',
    );
    // Not a secret place, or no home given: not a wall.
    expect(wallsHit('cat: /home/u/notes.txt: No such file or directory', '/home/u')).toBeUndefined();
    expect(wallsHit('cat: /home/u/.ssh/id_rsa: No such file or directory')).toBeUndefined();
  });

  it('a refused connection: nothing listens inside the walls', () => {
    expect(wallsHit('bash: connect: Connection refused\nbash: /dev/tcp/127.0.0.1/5432: Connection refused')?.kind).toBe(
      'network',
    );
    expect(wallsHit('Error: connect ECONNREFUSED 127.0.0.1:6379')?.kind).toBe('network');
  });
});
