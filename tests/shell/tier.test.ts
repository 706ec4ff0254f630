/**
 * The whole Bash path through `check`: parser → write targets under the role's path policy → rules and
 * packs → strictest across segments. Table-driven per category; role coder unless stated.
 */
import { describe, expect, it } from 'vitest';
import { makeProject } from '../support/project.js';

type Verdict = 'allow' | 'ask' | 'deny' | 'undecided';

async function verdictOf(command: string, role = 'coder'): Promise<{ verdict: Verdict; rule: string | undefined }> {
  const p = makeProject();
  p.register('s1', role);
  const r = await p.check(p.pre('Bash', { command }));
  const d = r.decision!;
  return { verdict: d.tier === 'default' ? 'undecided' : d.verdict, rule: d.rule?.id };
}

const table = (rows: [string, Verdict, RegExp?][]) =>
  it.each(rows)('%s → %s', async (command, verdict, rule) => {
    const got = await verdictOf(command);
    expect(got.verdict, `${command}: ${got.rule}`).toBe(verdict);
    if (rule !== undefined) expect(got.rule).toMatch(rule);
  });

describe('compound commands: strictest segment wins, allowed only if every segment is', () => {
  table([
    ['git status && git diff', 'allow'],
    ['ls; pwd', 'allow'],
    ['cat src/a.ts | grep foo | wc -l', 'allow'],
    ['git status && rm -rf /', 'deny', /pack:filesystem:rm-root/],
    ['ls || git push --force origin main', 'deny', /force-push-protected/],
    ['npm test & git reset --hard', 'ask', /reset-hard/],
    ['ls\nrm -rf ~', 'deny', /rm-home/],
    ['ls && python3 build.py', 'undecided'],
  ]);
});

describe('wrappers are seen through', () => {
  table([
    ['sudo rm -rf /', 'deny', /rm-root/],
    ['env -i PATH=/bin rm -rf /', 'deny', /rm-root/],
    ['timeout 5 nice -n 10 git push -f origin main', 'deny', /force-push-protected/],
    ['bash -c "git push --force origin master"', 'deny', /force-push-protected/],
    ['sh -lc \'rm -rf "$HOME"\'', 'deny', /rm-home/],
    ['\\rm -rf /', 'deny', /rm-root/],
    ['/usr/bin/rm -rf /', 'deny', /rm-root/],
    ['nohup time rm -rf / &', 'deny', /rm-root/],
    ['find . -name "*.tmp" -exec rm -rf / \\;', 'deny'],
    ['xargs rm < files.txt', 'ask'],
  ]);
});

describe('VAR= prefixes do not hide the command', () => {
  table([
    ['FOO=1 rm -rf /', 'deny', /rm-root/],
    ['A=1 B=2 git push --force origin main', 'deny'],
    ['NODE_ENV=test npm test', 'allow'],
  ]);
});

describe('substitutions are code', () => {
  table([
    ['echo $(rm -rf /)', 'deny', /rm-root/],
    ['echo `git push -f origin main`', 'deny'],
    ['diff <(cat .env) <(ls)', 'ask', /credentials/],
    ['$(echo rm) -rf x', 'ask', /shell:unparseable/],
  ]);
});

describe('heredocs: fed to a shell they are code, written to a file they are data', () => {
  table([
    ["bash <<'EOF'\nrm -rf /\nEOF", 'deny', /rm-root/],
    ["cat > src/notes.txt <<'EOF'\nrm -rf /\nEOF", 'allow'],
    ["cat > tests/notes.txt <<'EOF'\nhello\nEOF", 'deny', /deny_write/],
  ]);
});

describe('redirections are writes under the role path policy', () => {
  table([
    ['echo x > src/a.ts', 'allow'],
    ['echo x > tests/a.test.ts', 'deny', /role:coder:deny_write/],
    ['echo x > .claude/settings.json', 'ask', /sensitive/],
    ['echo x >> .env', 'ask', /sensitive/],
    ['ls > /dev/null 2>&1', 'allow'],
    ['echo x | tee src/a.ts tests/b.ts', 'deny', /deny_write/],
    ['echo x > "$OUT"', 'ask', /dynamic-write-target/],
    ['git status > ~/.bashrc', 'ask', /outside-root/],
  ]);
});

describe('file commands are judged by their targets', () => {
  table([
    ['cp README.md src/readme.txt', 'allow'],
    ['mv src/a.ts tests/a.ts', 'deny', /deny_write/],
    ['sed -i s/a/b/ tests/x.py', 'deny', /deny_write/],
    ['mkdir -p src/new/dir', 'allow'],
    ['touch docs/x.md', 'deny'],
    ['cd tests && rm old.test.ts', 'deny', /deny_write/],
    ['cd src/../tests && touch x', 'deny', /deny_write/],
    ['rm -rf src/generated', 'undecided'], // deleting is left to a human (and, later, learned decisions)
    ['echo x >> src/log.txt', 'allow'],
  ]);
});

describe('data is not execution', () => {
  table([
    ['grep "rm -rf" src', 'allow'],
    ['git commit -m "drop table users; rm -rf /"', 'undecided'],
    ['echo "rm -rf /"', 'allow'],
    ['rg "git push --force"', 'allow'],
    ['command -v rm', 'allow'],
    ['rm --help', 'undecided'],
  ]);
});

describe('what hookwise cannot understand is never allowed', () => {
  table([
    ['echo "unbalanced', 'ask', /shell:unparseable/],
    ['$CMD --force', 'ask', /shell:unparseable/],
    ['eval "$X"', 'ask', /shell:unparseable/],
    ['if then fi (', 'ask', /shell:unparseable/],
  ]);
});

it('a maintainer may write everywhere but still cannot force-push main', async () => {
  expect((await verdictOf('echo x > tests/a.ts', 'maintainer')).verdict).toBe('allow');
  expect((await verdictOf('git push -f origin main', 'maintainer')).verdict).toBe('deny');
});
