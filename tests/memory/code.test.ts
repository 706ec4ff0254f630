import { describe, expect, it } from 'vitest';
import { codeIdentity } from '../../src/memory/code.js';
import type { Segment } from '../../src/shell/types.js';
import { makeProject, type TestProject } from '../support/project.js';
import { subjectFor } from '../support/memory.js';

const commandsOf = async (p: TestProject, command: string, cwd?: string): Promise<string[]> =>
  (await subjectFor(p, 'Bash', { command }, cwd)).subject.commands;
const similarOf = async (p: TestProject, command: string): Promise<boolean> =>
  (await subjectFor(p, 'Bash', { command })).subject.similar;

function segment(argv: string[], more: Partial<Segment> = {}): Segment {
  return {
    argv,
    name: argv[0]!,
    dynamicArgs: [],
    wrappers: [],
    assignments: {},
    redirects: [],
    context: 'command',
    depth: 0,
    flags: {},
    text: argv.join(' '),
    ...more,
  };
}

describe('code identity (memory/code.ts)', () => {
  it('a segment that runs no code of its own has none: its name is all similarity compares', async () => {
    const p = makeProject();
    expect(await commandsOf(p, 'git status --short')).toEqual(['git']);
    expect(await commandsOf(p, 'sudo npm run build')).toEqual(['sudo npm']);
    expect(codeIdentity(segment(['make', 'build']), '/w')).toBeUndefined();
  });

  it('same code, other values: one identity (the arguments of a script, the files a program reads)', async () => {
    const p = makeProject();
    const same: [string, string][] = [
      ['python3 scripts/a.py --n 5', 'python3 scripts/a.py --n 6'],
      ['python3 -u -W ignore scripts/a.py --n 5', 'python3 -u -W ignore scripts/a.py --out x'],
      ['python3 -m pytest tests/a.py -x', 'python3 -m pytest tests/b.py -x'],
      ['node --enable-source-maps dist/cli.js build', 'node --enable-source-maps dist/cli.js test'],
      ['node -r ./setup.js app.js --port 3000', 'node -r ./setup.js app.js --port 4000'],
      ['deno run --allow-read main.ts a.txt', 'deno run --allow-read main.ts b.txt'],
      ['bash scripts/ci.sh lint', 'bash scripts/ci.sh test'],
      ['source env/dev.sh', 'source env/dev.sh'],
      ['npx eslint src', 'npx eslint lib'],
      ['sed -n 5p notes/a.txt', 'sed -n 5p notes/b.txt'],
      ["awk -F, '{print $1}' data/a.csv", "awk -F, '{print $1}' data/b.csv"],
      ["awk -- '{print}' data/a.csv n=1", "awk -- '{print}' data/b.csv n=1"],
      ['kubectl apply -n dev -f - <<EOF\nkind: ConfigMap\nEOF', 'kubectl apply -n qa -f - <<EOF\nkind: ConfigMap\nEOF'],
    ];
    for (const [a, b] of same) {
      const ca = await commandsOf(p, a);
      expect(ca.join(), a).toMatch(/ code:[0-9a-f]{16}$/);
      expect(await commandsOf(p, b), `${a} ~ ${b}`).toEqual(ca);
    }
  });

  it('other code: another identity — the script, the inline code, the program, the options before the script, the stdin data', async () => {
    const p = makeProject();
    const other: [string, string][] = [
      ['python3 scripts/a.py --n 5', 'python3 /tmp/evil.py --n 5'],
      ['python3 scripts/a.py --n 5', 'python3 scripts/b.py --n 5'],
      ['python3 -m pytest tests/a.py', 'python3 -m evil tests/a.py'],
      ['python3 -W ignore scripts/a.py', 'python3 -W error scripts/a.py'],
      ['node -r ./setup.js app.js', 'node -r /tmp/evil.js app.js'],
      ['node --import ./setup.mjs app.js', 'node --import /tmp/evil.mjs app.js'],
      ['deno run --allow-read main.ts', 'deno run --allow-read evil.ts'],
      // An option we do not know, followed by a file of code: every later file of code counts too.
      ['deno run --frobnicate ./a.ts main.ts', 'deno run --frobnicate ./a.ts evil.ts'],
      ['tsx scripts/gen.ts', 'tsx scripts/evil.ts'],
      ['ts-node scripts/gen.ts', 'ts-node scripts/evil.ts'],
      ['bun run scripts/gen.ts', 'bun run scripts/evil.ts'],
      ['php scripts/gen.php', 'php /tmp/evil.php'],
      ['ruby scripts/gen.rb', 'ruby /tmp/evil.rb'],
      ['perl scripts/gen.pl', 'perl /tmp/evil.pl'],
      ['bash scripts/ci.sh lint', 'bash /tmp/evil.sh lint'],
      ['zsh scripts/ci.sh lint', 'zsh /tmp/evil.sh lint'],
      ['source env/dev.sh', 'source /tmp/evil.sh'],
      ['npx eslint src', 'npx evil-pkg src'],
      ['./venv/bin/python scripts/a.py', '/tmp/x/python scripts/a.py'],
      ['PATH=/opt/tools/bin make build', 'PATH=/tmp/evil make build'],
      ['NODE_OPTIONS=--max-old-space-size=4096 node build.js', 'NODE_OPTIONS=--require=/tmp/evil.js node build.js'],
      ['LD_PRELOAD=/opt/libfast.so ls -la', 'LD_PRELOAD=/tmp/evil.so ls -la'],
      ['sed -n 5p notes/a.txt', 'sed -n 5w/tmp/out notes/a.txt'],
      ["sed -e 's/a/b/' notes/a.txt", "sed -e 's/a/c/' notes/a.txt"],
      ["awk -v n=1 '{print}' data/a.csv", "awk -v n=2 '{print}' data/a.csv"],
      ["awk -- '{print}' data/a.csv n=1", "awk -- '{print}' data/a.csv n=2"],
      // GNU sed takes options after operands too: a later -e is program.
      ['sed 5p notes/a.txt -e 5p', 'sed 5p notes/a.txt -e 5w/tmp/out'],
      ["node -e 'console.log(1)'", "node -e 'process.exit(1)'"],
      ["python -c 'print(1)'", "python -c 'print(2)'"],
      ["perl -e 'print 1'", "perl -e 'print 2'"],
      ["ruby -e 'puts 1'", "ruby -e 'puts 2'"],
      ["deno eval 'console.log(1)'", "deno eval 'console.log(2)'"],
      ["psql -c 'SELECT 1' app", "psql -c 'SELECT 2' app"],
      ["mysql -e 'SELECT 1' app", "mysql -e 'SELECT 2' app"],
      ["sqlite3 app.db 'SELECT 1'", "sqlite3 app.db 'SELECT 2'"],
      ["redis-cli eval 'return 1' 0", "redis-cli eval 'return 2' 0"],
      ['redis-cli get session', 'redis-cli del session'],
      ["mongosh --eval 'db.a.find()' app", "mongosh --eval 'db.a.drop()' app"],
      ["bash -c 'make docs'", "bash -c 'make deploy'"],
      ["eval 'make docs'", "eval 'make deploy'"],
      ["ssh build-host 'make docs'", "ssh build-host 'make deploy'"],
      ["sh <<'EOF'\nmake docs\nEOF", "sh <<'EOF'\nmake deploy\nEOF"],
      ['python3 - <<EOF\nprint(1)\nEOF', 'python3 - <<EOF\nprint(2)\nEOF'],
      ['psql app <<SQL\nSELECT 1;\nSQL', 'psql app <<SQL\nDROP TABLE users;\nSQL'],
      // A database client's arguments all count: the same query against another database is another call.
      ['psql -h staging app <<SQL\nSELECT 1;\nSQL', 'psql -h prod app <<SQL\nSELECT 1;\nSQL'],
      ["psql app <<< 'SELECT 1'", "psql app <<< 'DROP TABLE users'"],
      ['cat <<EOF\nhello\nEOF', 'cat <<EOF\nbye\nEOF'],
      ['echo print | python3', 'echo exit | python3'],
    ];
    for (const [a, b] of other) {
      const ca = await commandsOf(p, a);
      expect(ca.join(), a).toMatch(/ code:[0-9a-f]{16}/);
      expect(await commandsOf(p, b), `${a} vs ${b}`).not.toEqual(ca);
    }
  });

  it('where the code runs is part of it: a relative script in another directory is another file', async () => {
    const p = makeProject();
    p.write('a/.keep', '');
    p.write('b/.keep', '');
    expect(await commandsOf(p, 'cd a && python3 run.py')).not.toEqual(await commandsOf(p, 'cd b && python3 run.py'));
    expect(await commandsOf(p, 'python3 run.py', `${p.root}/a`)).not.toEqual(
      await commandsOf(p, 'python3 run.py', `${p.root}/b`),
    );
    expect(await commandsOf(p, 'cd a && python3 run.py --n 1')).toEqual(
      await commandsOf(p, 'cd a && python3 run.py --n 2'),
    );
  });

  it('code that is not known as text makes the call exact-only: an expansion, an unknown directory, arguments appended at run time, a secret', async () => {
    const p = makeProject();
    const secret = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';
    for (const command of [
      'python3 "$SCRIPT" --n 5',
      'cd "$DIR" && python3 run.py',
      "find . -name '*.py' -exec python3 {} ;",
      "git ls-files '*.py' | xargs python3",
      `psql app <<SQL\nSELECT '${secret}';\nSQL`,
      `python -c 'token = "${secret}"'`,
    ]) {
      expect(await similarOf(p, command), command).toBe(false);
    }
    expect(await similarOf(p, 'python3 run.py --n 5')).toBe(true);
  });

  it('is a digest of sanitized text only', () => {
    const secretA = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';
    const id = codeIdentity(segment(['python3', 'a.py']), '/w');
    expect(id).toMatch(/^code:[0-9a-f]{16}$/);
    expect(codeIdentity(segment(['python3', 'a.py'], { stdin: `${secretA}\n` }), '/w')).toBeNull();
    expect(
      codeIdentity(segment(['python3', 'a.py'], { assignments: { PYTHONPATH: `/x/${secretA}` } }), '/w'),
    ).toBeNull();
  });
});
