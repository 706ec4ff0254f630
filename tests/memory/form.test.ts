/**
 * A call's form (src/memory/form.ts): what an approval generalizes over. Free kinds (text, pattern, number)
 * and file operands in the same place become their kind; programs, subcommands, options, code, URLs, hosts,
 * enums, expansions and broad paths stay as written; a segment the catalogue cannot account for has no form.
 */
import { describe, expect, it } from 'vitest';
import type { CatalogMatch } from '../../src/catalog/match.js';
import { formFitsSubject, placeOf, sameForm, segmentForm } from '../../src/memory/form.js';
import type { Segment } from '../../src/shell/types.js';
import { makeProject, type TestProject } from '../support/project.js';
import { subjectFor } from '../support/memory.js';

async function formOf(p: TestProject, command: string): Promise<string | undefined> {
  return (await subjectFor(p, 'Bash', { command })).subject.form;
}

async function expectSameForm(p: TestProject, a: string, b: string): Promise<void> {
  const [x, y] = [await formOf(p, a), await formOf(p, b)];
  expect(x).toBeDefined();
  expect(sameForm({ form: x }, { form: y })).toBe(true);
}

async function expectOtherForm(p: TestProject, a: string, b: string): Promise<void> {
  const [x, y] = [await formOf(p, a), await formOf(p, b)];
  expect(sameForm({ form: x }, { form: y })).toBe(false);
}

describe('the form of a shell call', () => {
  it('abstracts free words: text, patterns and numbers', async () => {
    const p = makeProject();
    expect(await formOf(p, "rg -n 'needle' src/a.ts")).toBe('rg -n <pattern> <path-read project>');
    await expectSameForm(p, "rg -n 'needle' src/a.ts", 'rg -n haystack lib/b.ts');
    await expectSameForm(p, 'head -n 20 src/a.ts', 'head -n 300 docs/b.md');
    await expectSameForm(p, "echo 'first note' > notes.txt", "echo 'a longer second note' > other.txt");
    await expectSameForm(p, 'seq 1 10 > nums.txt', 'seq 5 500 > more.txt');
  });

  it('keeps a file operand to its place: the project, or one directory outside it; home files as written', async () => {
    const p = makeProject();
    await expectSameForm(p, 'cat /tmp/build/a.log', 'cat /tmp/build/b.log');
    await expectOtherForm(p, 'cat /tmp/build/a.log', 'cat /var/log/a.log');
    await expectOtherForm(p, 'cat src/a.ts', '/bin/cat /etc/hosts');
    await expectOtherForm(p, 'cat src/a.ts', 'cat /etc/hosts');
    await expectOtherForm(p, 'cat src/a.ts', 'cat ../other/a.ts');
    await expectOtherForm(p, 'cat ~/notes.txt', 'cat ~/.profile');
  });

  it('never abstracts a broad path: `.`, `/`, `~`, a glob', async () => {
    const p = makeProject();
    await expectOtherForm(p, 'grep -rn TODO src', 'grep -rn TODO .');
    await expectOtherForm(p, 'grep -rn TODO src', 'grep -rn TODO /');
    await expectOtherForm(p, 'du -sh src', 'du -sh ~');
  });

  it('never abstracts a program, a subcommand or an option', async () => {
    const p = makeProject();
    await expectOtherForm(p, 'head -n 20 src/a.ts', 'tail -n 20 src/a.ts');
    await expectOtherForm(p, 'head -n 20 src/a.ts', 'head -c 20 src/a.ts');
    await expectOtherForm(p, 'head -n 20 src/a.ts', 'head -n 20 -q src/a.ts');
    await expectOtherForm(p, 'go test ./pkg -run TestA', 'go vet ./pkg');
    await expectOtherForm(p, 'sort -o out.txt in.txt', 'sort -r -o out.txt in.txt');
  });

  it('frees a value joined to short option letters, keeping every letter', async () => {
    const p = makeProject();
    expect(await formOf(p, 'cut -d, -f5 data/a.csv')).toBe('cut -d<text> -f<text> <path-read project>');
    await expectSameForm(p, 'cut -d, -f5 data/a.csv > out/a.txt', 'cut -d, -f12 data/b.csv > out/b.txt');
    await expectSameForm(p, 'head -20 logs/a.log', 'head -300 logs/b.log');
    await expectSameForm(p, 'git log -n5 --oneline', 'git log -n40 --oneline');
    // The letters before the value stay: `-sf` is not `-f`, and a count is not a cluster.
    await expectOtherForm(p, 'cut -sf2 data/a.csv', 'cut -f2 data/a.csv');
    await expectOtherForm(p, 'head -20 logs/a.log', 'head -n 20 logs/a.log');
  });

  it("never abstracts a path through a hidden file or directory: a tool's state, not project data", async () => {
    const p = makeProject();
    expect(await formOf(p, 'ls -la src > .git/info/attributes')).toBe('ls -la <dir project> > .git/info/attributes');
    expect(await formOf(p, 'cat src/.env.local')).toBe('cat src/.env.local');
    await expectOtherForm(p, 'gzip -c logs/a.log > archive/a.gz', 'gzip -c logs/a.log > .git/objects/pack/x.pack');
    await expectOtherForm(p, 'sort -o out/a.csv data/a.csv', 'sort -o .husky/pre-commit data/a.csv');
    // `.` and `..` are no hidden names.
    await expectSameForm(p, 'cat ./src/a.ts > ../p/out/a.txt', 'cat ./src/b.ts > ../p/out/b.txt');
  });

  it('keeps a URL of this machine to its origin; any other URL as written', async () => {
    const p = makeProject();
    expect(await formOf(p, 'curl -s -o out/a.json http://127.0.0.1:8080/api/users')).toBe(
      'curl -s -o <path-write project> <url http://127.0.0.1:8080>',
    );
    await expectSameForm(
      p,
      'curl -s http://localhost:3000/a > out/a.txt',
      'curl -s http://localhost:3000/b/c > out/b.txt',
    );
    await expectOtherForm(
      p,
      'curl -s http://localhost:3000/a > out/a.txt',
      'curl -s http://localhost:3001/a > out/a.txt',
    );
    await expectOtherForm(
      p,
      'curl -s http://localhost:3000/a > out/a.txt',
      'curl -s http://127.0.0.1:3000/a > out/a.txt',
    );
    expect(await formOf(p, 'curl -s https://example.com/a > out/a.txt')).toBe(
      'curl -s https://example.com/a > <project>',
    );
  });

  it('never abstracts the process a signal goes to', async () => {
    const p = makeProject();
    expect(await formOf(p, 'kill 4242')).toBe('kill 4242');
    await expectOtherForm(p, 'kill 4242', 'kill 1');
  });

  it('never abstracts code: an awk, jq or sed program stays as written', async () => {
    const p = makeProject();
    expect(await formOf(p, "awk '{print $1}' data.txt")).toBe("awk '{print $1}' <path-read project>");
    await expectOtherForm(p, "awk '{print $1}' data.txt", "awk '{print $2}' data.txt");
    await expectOtherForm(p, "jq '.name' a.json", "jq '.token' a.json");
    await expectSameForm(p, "jq '.name' a.json", "jq '.name' b.json");
  });

  it('a segment the catalogue cannot fully account for leaves the whole call without a form', async () => {
    const p = makeProject();
    expect(await formOf(p, 'wc --files0-from=list.txt')).toBeUndefined();
    expect(await formOf(p, 'mytool lint src/a.ts')).toBeUndefined();
    expect(await formOf(p, 'cat src/a.ts | mytool lint')).toBeUndefined();
    expect(await formOf(p, "find src -name '*.ts' -delete")).toBeUndefined();
  });

  it('operators and stdin data are part of the form', async () => {
    const p = makeProject();
    await expectOtherForm(p, 'cat a.txt | grep x', 'cat a.txt ; grep x b.txt');
    await expectOtherForm(p, 'cat <<EOF\none\nEOF', 'cat <<EOF\ntwo\nEOF');
  });

  it('a secret never reaches the form: a free word is abstracted, a kept word with one leaves no form', async () => {
    const p = makeProject();
    expect(await formOf(p, 'echo ghp_R4nd0mT0k3nV4lu3F0rT3st1ngXyZ01234 > notes.txt')).toBe('echo <text> > <project>');
    expect(await formOf(p, `awk '{print "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngXyZ01234"}' data.txt`)).toBeUndefined();
  });
});

describe('segmentForm over a catalogue account', () => {
  const segment = (argv: string[]): Segment =>
    ({
      argv,
      name: argv[0]!,
      wrappers: [],
      assignments: {},
      redirects: [],
      dynamicArgs: [],
      context: 'command',
      flags: {},
    }) as unknown as Segment;
  const match = (kinds: (string | undefined)[]): CatalogMatch => ({
    entry: 'test.yml',
    form: 'fetcher',
    words: kinds.map((kind, index) => ({
      index,
      word: '',
      as: 'x',
      ...(kind === undefined ? {} : { kind }),
    })) as CatalogMatch['words'],
    effects: [],
    paths: [],
    knowledge: 'decline',
    reason: '',
  });
  const where = { cwd: '/p', projectRoot: '/p', quote: (w: string) => w };

  it('keeps URLs, hosts, enums and programs as written; frees text', () => {
    const kinds = [undefined, 'url', 'host', 'enum', 'program', 'text'];
    const argv = ['fetcher', 'https://a.example/x', 'b.example', 'fast', 'make', 'hello'];
    expect(segmentForm(segment(argv), match(kinds), where)).toBe(
      'fetcher https://a.example/x b.example fast make <text>',
    );
  });

  it('frees an option value joined with `=`, keeping the option', () => {
    expect(segmentForm(segment(['fetcher', '--tries=5']), match([undefined, 'number']), where)).toBe(
      'fetcher --tries=<number>',
    );
  });

  it('frees a value joined to short option letters where the account says it starts', () => {
    const m = match([undefined, 'number']);
    m.words[1]!.valueAt = 3;
    expect(segmentForm(segment(['fetcher', '-qn5']), m, where)).toBe('fetcher -qn<number>');
  });

  it('an expansion is never free: its value is only known when the command runs', () => {
    expect(segmentForm(segment(['fetcher', '$MSG']), match([undefined, 'text']), where)).toBe('fetcher $MSG');
  });

  it('a word nobody accounted for means no form', () => {
    expect(segmentForm(segment(['fetcher', 'x']), match([undefined]), where)).toBeUndefined();
    expect(
      segmentForm(
        segment(['fetcher']),
        { ...match([undefined]), unaccounted: { index: 0, word: 'fetcher', why: '' } },
        where,
      ),
    ).toBeUndefined();
  });

  it('places a path lexically against the cwd', () => {
    expect(placeOf('a/b.txt', '/p/src', '/p')).toBe('project');
    expect(placeOf('../../etc/x', '/p/src', '/p')).toBe('/etc/');
    expect(placeOf('/tmp/a/b', '/p', '/p')).toBe('/tmp/a/');
    expect(placeOf('~/x', '/p', '/p')).toBe('~/x');
  });
});

describe('a form received from elsewhere must be a form of its record’s command', () => {
  it.each([
    'grep -rn TODO src',
    'head -n 20 src/app.ts',
    'wc -l src/a.ts src/b.ts > out/count.txt',
    "grep -e 'two words' src/app.ts",
    'cat /etc/hostname',
    'ls -la ~/notes',
    'sort -o sorted.txt input.txt',
    'git log --oneline -n 5 && git status',
    'cut -d, -f5 data/a.csv > out/a.txt',
    'head -20 logs/a.log',
    'curl -s -o out/a.json http://127.0.0.1:8080/api/users',
  ])('the form this machine builds fits its subject: %s', async (command) => {
    const p = makeProject();
    const { subject } = await subjectFor(p, 'Bash', { command });
    expect(subject.form, command).toBeDefined();
    expect(formFitsSubject(subject.form!, subject.text), `${subject.form} / ${subject.text}`).toBe(true);
  });

  it.each([
    ['git status', 'git push --force origin <text>', 'other words'],
    ['head -n 20 src/app.ts', 'head -n <number> <path-read project> <text>', 'a word more'],
    ['head -n 20 src/app.ts', 'head -n <number>', 'a word less'],
    ['head -n 20 src/app.ts', 'tail -n <number> <path-read project>', 'another program'],
    ['cat /etc/hostname', 'cat <path-read /home/>', 'another directory'],
    ['cat ~/notes/a.txt', 'cat <path-read project>', 'a home path as a project path'],
    ['cat src/a.ts', 'cat <path-read ~/.ssh/id_rsa>', 'a home place for another word'],
    ['cat .', 'cat <path-read project>', 'a broad path'],
    ['cat src/a.ts', "cat <path-read project> 'unterminated", 'not of the subject’s shape'],
    ['cat src/a.ts', 'cat <path-read project>x', 'a hole that does not end its word'],
    ['sort --key=2 a.txt', '--key=<number> sort a.txt', 'words moved'],
    ['cut -sf2 a.csv', 'cut -f<number> <path-read project>', 'option letters taken for a value'],
    ['cat .git/config', 'cat <path-read project>', 'a hidden path as one of many'],
    ['curl https://example.com/a', 'curl <url https://example.com>', 'a URL of another machine as one of many'],
    ['curl http://127.0.0.1:9090/a', 'curl <url http://127.0.0.1:8080>', 'another origin'],
    ['curl http://127.0.0.1:8080@evil.test/a', 'curl <url http://127.0.0.1:8080>', 'a host behind user-info'],
  ])('%s with the form %s does not fit (%s)', (subject, form) => {
    expect(formFitsSubject(form, subject)).toBe(false);
  });

  it('fits a subject whose write targets follow it, and an option whose value is quoted whole', () => {
    expect(formFitsSubject('wc -l <path-read project> > <project>', 'wc -l a.ts > out.txt  # writes /p/out.txt')).toBe(
      true,
    );
    expect(formFitsSubject('grep --regexp=<pattern> <path-read project>', "grep '--regexp=a b' src/x.ts")).toBe(true);
  });
});
