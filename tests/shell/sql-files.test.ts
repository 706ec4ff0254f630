import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSqlFiles } from '../../src/shell/sql-files.js';
import { MAX_SQL_FILE_BYTES, MAX_SQL_FILES, sqlFileKey, type SqlFile } from '../../src/sql/files.js';
import { makeProject, type TestProject } from '../support/project.js';
import { segments as segs } from './helpers.js';

function read(project: TestProject, command: string, cwd = project.root) {
  return readSqlFiles(segs(command), { projectRoot: project.root, home: project.home, cwd });
}

function fileAt(project: TestProject, command: string, word: string, segment = 0): SqlFile | undefined {
  return read(project, command)?.files.get(sqlFileKey(segment, word));
}

describe('SQL files read at the edge', () => {
  it('reads the files a client runs: -f, --file=, <, -init, a cat producer', () => {
    const project = makeProject();
    project.write('q.sql', 'SELECT 1;\n');
    for (const command of ['psql -f q.sql', 'psql --file=q.sql', 'mysql app < q.sql', 'sqlite3 -init q.sql app.db'])
      expect(fileAt(project, command, 'q.sql'), command).toEqual({ shown: 'q.sql', text: 'SELECT 1;\n' });
    expect(fileAt(project, 'cat q.sql | psql', 'q.sql', 1)).toEqual({ shown: 'q.sql', text: 'SELECT 1;\n' });
  });

  it('reads nothing for commands that are not database clients', () => {
    const project = makeProject();
    project.write('q.sql', 'SELECT 1;\n');
    expect(read(project, 'cat q.sql')).toBeUndefined();
    expect(read(project, 'psql -c "SELECT 1"')).toBeUndefined();
  });

  it('joins each file to the reads that the sensitive-read rules judge', () => {
    const project = makeProject();
    project.write('q.sql', 'SELECT 1;\n');
    expect(read(project, 'psql -f q.sql')?.reads).toEqual([
      { segment: 0, path: join(project.root, 'q.sql'), via: 'psql', recursive: false },
    ]);
  });

  it('follows includes: \\i from the client directory, \\ir from the including file, in a `cd`', () => {
    const project = makeProject();
    project.write('db/main.sql', '\\i db/lib.sql\n\\ir local.sql\n');
    project.write('db/lib.sql', 'SELECT 1;\n');
    project.write('db/local.sql', 'DROP TABLE t;\n');
    const files = read(project, 'psql -f db/main.sql')!.files;
    const main = sqlFileKey(0, 'db/main.sql');
    expect(files.get(sqlFileKey(0, 'db/lib.sql'))).toEqual({ shown: 'db/lib.sql', text: 'SELECT 1;\n' });
    expect(files.get(sqlFileKey(0, 'local.sql', main))).toEqual({ shown: 'local.sql', text: 'DROP TABLE t;\n' });
    expect(fileAt(project, 'cd db && psql -f local.sql', 'local.sql', 1)).toEqual({
      shown: 'local.sql',
      text: 'DROP TABLE t;\n',
    });
  });

  it("follows the mysql client's `source`: in -e text, and inside a file fed on stdin (from the client's directory)", () => {
    const project = makeProject();
    project.write('db/main.sql', 'source db/lib.sql;\nSELECT 2;\n');
    project.write('db/lib.sql', 'SELECT 1;\n');
    expect(fileAt(project, "mysql -e 'source db/lib.sql; SELECT 3'", 'db/lib.sql')).toEqual({
      shown: 'db/lib.sql',
      text: 'SELECT 1;\n',
    });
    expect(fileAt(project, 'mariadb app < db/main.sql', 'db/lib.sql')).toEqual({
      shown: 'db/lib.sql',
      text: 'SELECT 1;\n',
    });
    // psql has no `source`: nothing to read.
    expect(read(project, "psql -c 'source db/lib.sql'")).toBeUndefined();
  });

  it('a container client: its own -f and includes are inside the container; what this shell feeds it is read here', () => {
    const project = makeProject();
    project.write('sub/q.sql', '\\i lib.sql\nSELECT 1;\n');
    const inside = fileAt(project, 'docker exec -i db psql -f q.sql', 'q.sql', 1);
    expect(inside).toEqual({
      shown: 'q.sql',
      problem: 'it is read inside the container db (docker exec), not on this machine: hookwise cannot read it',
    });
    const fed = read(project, 'cd sub && docker exec -i db psql < q.sql')!.files;
    expect(fed.get(sqlFileKey(2, 'q.sql'))).toEqual({ shown: 'q.sql', text: '\\i lib.sql\nSELECT 1;\n' });
    expect(fed.get(sqlFileKey(2, 'lib.sql'))).toMatchObject({
      problem: expect.stringMatching(/inside the container db/),
    });
    expect(fileAt(project, 'cat sub/q.sql | kubectl exec -i pg-0 -- psql', 'sub/q.sql', 2)).toMatchObject({
      text: '\\i lib.sql\nSELECT 1;\n',
    });
  });

  it.each([
    [
      'a symbolic link',
      (p: TestProject) => symlinkSync(p.write('real.sql', 'SELECT 1;'), join(p.root, 'q.sql')),
      /symbolic link/,
    ],
    ['missing', () => undefined, /does not exist/],
    ['a directory', (p: TestProject) => mkdirSync(join(p.root, 'q.sql')), /not a regular file/],
    ['too big', (p: TestProject) => p.write('q.sql', 'x'.repeat(MAX_SQL_FILE_BYTES + 1)), /more than the 65536/],
    ['not text', (p: TestProject) => p.write('q.sql', 'SELECT 1;\u0000'), /not text/],
    ['a FIFO', (p: TestProject) => execFileSync('mkfifo', [join(p.root, 'q.sql')]), /not a regular file/],
  ])('does not read a file that is %s, and says why', (_what, make, why) => {
    const project = makeProject();
    make(project);
    const file = fileAt(project, 'psql -f q.sql', 'q.sql');
    expect(file).toMatchObject({ shown: 'q.sql', problem: expect.stringMatching(why) });
    expect(file).not.toHaveProperty('text');
  });

  it('does not read a file outside the project, nor one only named at run time', () => {
    const project = makeProject();
    const outside = project.write(join(project.home, 'q.sql'), 'SELECT 1;');
    expect(fileAt(project, `psql -f ${outside}`, outside)).toMatchObject({ problem: 'it is outside the project' });
    expect(fileAt(project, 'psql -f ../home/q.sql', '../home/q.sql')).toMatchObject({
      problem: 'it is outside the project',
    });
    expect(fileAt(project, 'psql -f "$F"', '$F')).toMatchObject({ problem: /only known when the command runs/ });
    expect(fileAt(project, 'cd "$D" && psql -f q.sql', 'q.sql', 1)).toMatchObject({
      problem: /directory it is read from is only known/,
    });
  });

  it('does not read a file that a client on another machine reads (ssh)', () => {
    const project = makeProject();
    project.write('q.sql', 'SELECT 1;');
    const read = readSqlFiles(segs('ssh db psql -f q.sql'), {
      projectRoot: project.root,
      home: project.home,
      cwd: project.root,
    });
    expect(read?.files.get(sqlFileKey(1, 'q.sql'))).toMatchObject({ problem: /on another machine/ });
    expect(read?.reads).toEqual([]);
  });

  it('does not read a file the command writes before the client runs', () => {
    const project = makeProject();
    const path = project.write('q.sql', 'SELECT 1;');
    const files = readSqlFiles(
      segs('echo "DROP TABLE t" > q.sql && psql -f q.sql'),
      {
        projectRoot: project.root,
        home: project.home,
        cwd: project.root,
      },
      [{ segment: 0, absolute: path }],
    );
    expect(files?.files.get(sqlFileKey(1, 'q.sql'))).toMatchObject({ problem: /writes it before it is read/ });
  });

  it('sanitizes what it read: a secret in a file never leaves the edge', () => {
    const project = makeProject();
    project.write('q.sql', "CREATE USER app PASSWORD 'ghp_0123456789abcdefghijklmnopqrstuvwxyzAB';\n");
    const file = fileAt(project, 'psql -f q.sql', 'q.sql');
    expect(file).toMatchObject({ text: expect.stringContaining('<REDACTED') });
    expect(JSON.stringify(file)).not.toContain('ghp_0123');
  });

  it('reads a bounded number of files, however many a file includes', () => {
    const project = makeProject();
    const names = Array.from({ length: MAX_SQL_FILES + 4 }, (_, i) => `f${i}.sql`);
    for (const name of names) project.write(name, 'SELECT 1;\n');
    project.write('main.sql', names.map((n) => `\\i ${n}\n`).join(''));
    const files = read(project, 'psql -f main.sql')!.files;
    const texts = [...files.values()].filter((f) => 'text' in f);
    expect(texts).toHaveLength(MAX_SQL_FILES);
    expect(files.get(sqlFileKey(0, names.at(-1)!))).toMatchObject({ problem: /more than 16 SQL files/ });
  });
});

describe('SQL files through the real check path', () => {
  async function decide(project: TestProject, command: string) {
    project.register('s1', 'coder');
    return (await project.check(project.pre('Bash', { command }))).decision!;
  }

  it('judges a file by its statements, like the same SQL on the command line', async () => {
    const project = makeProject();
    project.write('db/drop.sql', '-- cleanup\nSELECT 1;\nDROP TABLE users;\n');
    project.write('db/read.sql', 'SELECT count(*) FROM users;\n');
    const drop = await decide(project, 'psql app -f db/drop.sql');
    expect(drop.verdict).toBe('deny');
    expect(drop.reason).toContain('(db/drop.sql: drop table)');
    // A read-only file gets no rule's opinion, as `psql -c 'SELECT …'` gets none: later tiers decide.
    const select = await decide(project, 'psql app -f db/read.sql');
    const inline = await decide(project, "psql app -c 'SELECT count(*) FROM users'");
    expect([select.verdict, select.tier]).toEqual([inline.verdict, inline.tier]);
  });

  it('asks about a file it would not read, naming it', async () => {
    const project = makeProject();
    symlinkSync(project.write('real.sql', 'SELECT 1;'), join(project.root, 'link.sql'));
    const d = await decide(project, 'psql app < link.sql');
    expect(d.verdict).toBe('ask');
    expect(d.rule?.id).toBe('pack:database:sql-file');
    expect(d.reason).toContain('(link.sql: it is a symbolic link)');
  });
});
