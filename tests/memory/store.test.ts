import { spawn } from 'node:child_process';
import { appendFileSync, chmodSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { buildSync } from 'esbuild';
import { describe, expect, it } from 'vitest';
import type { Verdict } from '../../src/core/decision.js';
import {
  appendRecords,
  compactScope,
  fileFor,
  formatProblem,
  loadScope,
  serializeRecord,
  type DecisionRecord,
  type StoreScope,
} from '../../src/memory/store.js';
import { sanitize, type Sanitized } from '../../src/sanitize/index.js';
import { targetOf } from '../support/memory.js';
import { makeProject, type TestProject } from '../support/project.js';

const REPO = join(import.meta.dirname, '..', '..');

/** Runs each script in its own `node -e` process at once; resolves with every exit code and stderr. */
function runScripts(p: TestProject, scripts: readonly string[]): Promise<{ code: number | null; stderr: string }[]> {
  return Promise.all(
    scripts.map(
      (script) =>
        new Promise<{ code: number | null; stderr: string }>((done) => {
          const child = spawn(process.execPath, ['-e', script], {
            env: { ...p.env, NODE_PATH: join(REPO, 'node_modules') },
          });
          let stderr = '';
          child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
          child.on('close', (code) => done({ code, stderr }));
        }),
    ),
  );
}
const clean = (text: string): Sanitized => sanitize(text).text;

let clock = Date.parse('2026-01-01T00:00:00.000Z');
function rec(
  scope: StoreScope,
  fields: Partial<Omit<DecisionRecord, 'subject' | 'reason'>> & { subject?: string; reason?: string } = {},
): DecisionRecord {
  const { subject, reason, ...rest } = fields;
  return {
    key: 'k1',
    tool: 'Bash',
    subject: clean(subject ?? 'git status'),
    role: 'coder',
    verdict: 'allow',
    reason: clean(reason ?? 'approved by a human'),
    tier: 'human',
    scope,
    decided_by: 'human',
    ts: new Date((clock += 1000)).toISOString(),
    ...rest,
  };
}

/** What load returns, without provenance, for comparing with what was appended. */
const plain = (records: readonly DecisionRecord[]): string[] => records.map(serializeRecord);

describe('decision store: append and load', () => {
  it.each(['project', 'user', 'org', 'session'] as const)('round-trips records in the %s scope', (scope) => {
    const p = makeProject();
    const target = targetOf(p, scope);
    const written = [
      rec(scope, { key: 'a' }),
      rec(scope, { key: 'b', verdict: 'deny', subject: 'rm -rf /', reason: 'destroys the disk' }),
      rec(scope, { key: 'c', verdict: 'ask' }),
    ];
    appendRecords(target, written);
    const load = loadScope(target);
    expect(load.problems).toEqual([]);
    expect(plain(load.records).sort()).toEqual(plain(written).sort());
    expect(load.records.every((r) => r.scope === scope && r.line >= 1 && load.files.includes(r.file))).toBe(true);
  });

  it('files records where the issue says: project per verdict, user one file, org per verdict, session in the runtime dir', () => {
    const p = makeProject();
    expect(fileFor(targetOf(p, 'project'), 'deny')).toBe(join(p.root, '.hookwise/rules/deny.jsonl'));
    expect(fileFor(targetOf(p, 'user'), 'deny')).toBe(join(p.configDir, 'user/rules.jsonl'));
    expect(fileFor(targetOf(p, 'org'), 'ask')).toBe(join(p.configDir, 'org/acme/rules/ask.jsonl'));
    expect(fileFor(targetOf(p, 'session'), 'allow')).toMatch(/\/sessions\/s-[0-9a-f]{32}\.rules\.jsonl$/);
    expect(fileFor({ scope: 'session', runtimeDir: p.runtimeDir, sessionId: '../../x' }, 'allow')).toMatch(
      /sessions\/s-[0-9a-f]{32}\.rules\.jsonl$/,
    );
    expect(() => fileFor({ scope: 'org', userConfigDir: p.configDir, org: '../evil' }, 'allow')).toThrow(/org name/);
  });

  it('writes one line per record with a stable key order', () => {
    const p = makeProject();
    const target = targetOf(p, 'project');
    // Properties in a scrambled order: the file still gets the canonical order.
    const r = rec('project');
    const scrambled = Object.fromEntries(Object.entries(r).reverse()) as unknown as DecisionRecord;
    appendRecords(target, [scrambled]);
    const line = readFileSync(fileFor(target, 'allow'), 'utf8');
    expect(Object.keys(JSON.parse(line) as object)).toEqual([
      'key',
      'tool',
      'subject',
      'role',
      'verdict',
      'reason',
      'tier',
      'scope',
      'decided_by',
      'ts',
    ]);
    expect(line.endsWith('\n') && line.split('\n').length === 2).toBe(true);
  });

  it('private scopes get 0600 files in 0700 dirs; project files are ordinary (0644)', () => {
    const p = makeProject();
    for (const scope of ['user', 'org', 'session', 'project'] as const) appendRecords(targetOf(p, scope), [rec(scope)]);
    for (const scope of ['user', 'org', 'session'] as const) {
      const file = fileFor(targetOf(p, scope), 'allow');
      expect(statSync(file).mode & 0o777, file).toBe(0o600);
      expect(statSync(join(file, '..')).mode & 0o777, file).toBe(0o700);
    }
    expect(statSync(fileFor(targetOf(p, 'project'), 'allow')).mode & 0o777).toBe(0o644);
  });

  it('loads nothing, without problems, from a scope with no files', () => {
    const p = makeProject();
    expect(loadScope(targetOf(p, 'org'))).toEqual({ records: [], problems: [], files: [], superseded: 0 });
  });
});

describe('decision store: files that are not ours', () => {
  it('never appends through a symlink at a session rules file (a decision appended to ~/.bashrc)', () => {
    const p = makeProject();
    const target = targetOf(p, 'session');
    const file = fileFor(target, 'allow');
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    const bashrc = join(p.home, '.bashrc');
    writeFileSync(bashrc, 'export PATH=$PATH:~/bin\n');
    symlinkSync(bashrc, file);
    expect(() => appendRecords(target, [rec('session')])).toThrow(/symbolic link/);
    expect(readFileSync(bashrc, 'utf8')).toBe('export PATH=$PATH:~/bin\n');
    expect(() => loadScope(target)).toThrow(/symbolic link/);
  });

  it('refuses a session rules file others may write (planted decisions)', () => {
    const p = makeProject();
    const target = targetOf(p, 'session');
    appendRecords(target, [rec('session')]);
    chmodSync(fileFor(target, 'allow'), 0o666);
    expect(() => loadScope(target)).toThrow(/writable by others/);
  });
});

describe('decision store: dedup and conflicts', () => {
  it('the same key, role and verdict twice loads once: the newest record wins', () => {
    const p = makeProject();
    const target = targetOf(p, 'user');
    appendRecords(target, [rec('user', { reason: 'old reason' }), rec('user', { reason: 'new reason' })]);
    const load = loadScope(target);
    expect(load.records.map((r) => r.reason)).toEqual(['new reason']);
    expect(load.superseded).toBe(1);
  });

  it('a different role is a different decision', () => {
    const p = makeProject();
    const target = targetOf(p, 'user');
    appendRecords(target, [rec('user', { role: 'coder' }), rec('user', { role: '*' })]);
    expect(loadScope(target).records.map((r) => r.role)).toEqual(['coder', '*']);
  });

  it('conflicting verdicts for the same key and role: the newest wins, even across files', () => {
    const p = makeProject();
    const target = targetOf(p, 'project');
    appendRecords(target, [rec('project', { verdict: 'deny' }), rec('project', { verdict: 'allow' })]);
    expect(loadScope(target).records.map((r) => r.verdict)).toEqual(['allow']);
    appendRecords(target, [rec('project', { verdict: 'ask' })]);
    expect(loadScope(target).records.map((r) => r.verdict)).toEqual(['ask']);
  });

  it.each([
    ['allow', 'deny', 'deny'],
    ['deny', 'allow', 'deny'],
    ['ask', 'allow', 'ask'],
  ] as const)('a tie in time between %s and %s resolves to the stricter (%s)', (first, second, winner) => {
    const p = makeProject();
    const target = targetOf(p, 'project');
    const ts = '2026-05-05T05:05:05.005Z';
    appendRecords(target, [rec('project', { verdict: first, ts }), rec('project', { verdict: second, ts })]);
    expect(loadScope(target).records.map((r) => r.verdict)).toEqual([winner]);
  });
});

describe('decision store: compaction', () => {
  it('rewrites sorted by tool, subject, role; drops duplicates and superseded conflicts; answers the same as before', () => {
    const p = makeProject();
    const target = targetOf(p, 'project');
    appendRecords(target, [
      rec('project', { key: 'z', tool: 'Write', subject: 'edit src/b.ts' }),
      rec('project', { key: 'y', tool: 'Bash', subject: 'npm test', role: 'tester' }),
      rec('project', { key: 'x', tool: 'Bash', subject: 'npm test', role: 'coder' }),
      rec('project', { key: 'w', tool: 'Bash', subject: 'git push', verdict: 'ask' }),
      rec('project', { key: 'x', tool: 'Bash', subject: 'npm test', role: 'coder' }), // duplicate, newer
      rec('project', { key: 'v', tool: 'Bash', subject: 'curl x', verdict: 'deny' }),
      rec('project', { key: 'v', tool: 'Bash', subject: 'curl x', verdict: 'allow' }), // supersedes the deny
    ]);
    const before = loadScope(target);
    const result = compactScope(target);
    expect(result).toMatchObject({ kept: 5, dropped: 2, problems: [] });
    const after = loadScope(target);
    expect(after.superseded).toBe(0);
    expect(plain(after.records).sort()).toEqual(plain(before.records).sort());

    const lines = (v: Verdict) =>
      readFileSync(fileFor(target, v), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as DecisionRecord);
    expect(lines('allow').map((r) => [r.tool, r.subject, r.role])).toEqual([
      ['Bash', 'curl x', 'coder'],
      ['Bash', 'npm test', 'coder'],
      ['Bash', 'npm test', 'tester'],
      ['Write', 'edit src/b.ts', 'coder'],
    ]);
    expect(lines('ask').map((r) => r.key)).toEqual(['w']);
    expect(lines('deny')).toEqual([]); // kept as an empty file: it is tracked in git
    // Compacting again changes nothing: the output is canonical.
    const text = readFileSync(fileFor(target, 'allow'), 'utf8');
    compactScope(target);
    expect(readFileSync(fileFor(target, 'allow'), 'utf8')).toBe(text);
  });

  it('moves a record filed under the wrong verdict into its own file, and drops unreadable lines, reporting them', () => {
    const p = makeProject();
    const target = targetOf(p, 'project');
    appendRecords(target, [rec('project', { key: 'a' })]);
    appendFileSync(
      fileFor(target, 'allow'),
      serializeRecord(rec('project', { key: 'b', verdict: 'deny' })) + '\n{oops\n',
    );
    const load = loadScope(target);
    expect(load.problems.map((pr) => [pr.line, pr.field, pr.action])).toEqual([
      [2, 'verdict', 'kept'],
      [3, undefined, 'skipped'],
    ]);
    const result = compactScope(target);
    expect(result.problems.map((pr) => pr.line)).toEqual([3]);
    expect(loadScope(target)).toMatchObject({ problems: [] });
    expect(readFileSync(fileFor(target, 'deny'), 'utf8')).toContain('"key":"b"');
  });
});

describe('decision store: corrupt lines', () => {
  it('skips a torn last line, garbage in the middle and wrongly typed fields, reporting each file:line once, keeping the rest', () => {
    const p = makeProject();
    const target = targetOf(p, 'user');
    const file = fileFor(target, 'allow');
    const good = (key: string) => serializeRecord(rec('user', { key }));
    const torn = good('torn').slice(0, 40);
    p.write(
      file,
      [
        good('a'),
        'garbage \u0000 not json',
        good('b'),
        JSON.stringify({ ...JSON.parse(good('c')), verdict: 'maybe' }),
        JSON.stringify({ ...JSON.parse(good('d')), subject: 42 }),
        JSON.stringify({ ...JSON.parse(good('e')), ts: 'yesterday' }),
        '["an", "array"]',
        '',
        good('f'),
        torn,
      ].join('\n'),
    );
    const load = loadScope(target);
    expect(load.records.map((r) => r.key)).toEqual(['a', 'b', 'f']);
    expect(load.problems.map(formatProblem)).toEqual([
      expect.stringMatching(new RegExp(`^${file}:2: not JSON: .*\\(line skipped\\)$`)),
      `${file}:4: verdict must be one of allow, ask, deny (line skipped)`,
      `${file}:5: subject must be a string (line skipped)`,
      `${file}:6: ts must be an ISO time like 2026-01-02T03:04:05.678Z (line skipped)`,
      `${file}:7: not a JSON object (line skipped)`,
      expect.stringMatching(new RegExp(`^${file}:10: not JSON: .*torn write.*\\(line skipped\\)$`)),
    ]);
    expect(load.problems.map((pr) => pr.field)).toEqual([undefined, 'verdict', 'subject', 'ts', '', undefined]);
  });

  it('an append after a torn line starts a fresh line: only the torn fragment is lost', () => {
    const p = makeProject();
    const target = targetOf(p, 'session');
    appendRecords(target, [rec('session', { key: 'a' })]);
    appendFileSync(fileFor(target, 'allow'), '{"key":"torn"'); // a writer died mid-line
    appendRecords(target, [rec('session', { key: 'b' }), rec('session', { key: 'c' })]);
    const load = loadScope(target);
    expect(load.records.map((r) => r.key)).toEqual(['a', 'b', 'c']);
    expect(load.problems.map((pr) => pr.line)).toEqual([2]);
  });

  it('a record copied from another scope is loaded under the scope its file belongs to, with a warning', () => {
    const p = makeProject();
    const target = targetOf(p, 'user');
    appendRecords(target, [rec('user')]);
    appendFileSync(fileFor(target, 'allow'), serializeRecord(rec('project', { key: 'copied' })) + '\n');
    const load = loadScope(target);
    expect(load.records.find((r) => r.key === 'copied')?.scope).toBe('user');
    expect(load.problems).toMatchObject([{ line: 2, field: 'scope', action: 'kept' }]);
  });
});

describe('decision store: a form must be a form of its subject', () => {
  // What the form builder makes for `wc -l a.ts > out.txt` (memory/form.ts), and a forged one that would let
  // the approval of a harmless count stand for deleting any path in the project.
  const subject = 'wc -l a.ts > out.txt  # writes /p/out.txt';
  const fitting = 'wc -l <path-read project> > <project>';
  const forged = 'rm -rf <path-write project>';

  it.each(['project', 'user', 'org', 'session'] as const)(
    'in the %s scope: a forged wide form is dropped with a warning naming file and line; the decision stays',
    (scope) => {
      const target = targetOf(makeProject(), scope);
      appendRecords(target, [
        rec(scope, { key: 'fits', subject, form: clean(fitting) }),
        rec(scope, { key: 'forged', subject, form: clean(forged) }),
      ]);
      const load = loadScope(target);
      expect(load.records.map((r) => [r.key, r.form])).toEqual([
        ['fits', fitting],
        ['forged', undefined],
      ]);
      const file = load.records[1]!.file;
      expect(load.problems).toMatchObject([{ file, line: 2, field: 'form', action: 'kept' }]);
      expect(formatProblem(load.problems[0]!)).toBe(
        `${file}:2: its form is not a form of its subject, so it would generalize over calls the decision never covered; the form is dropped and the decision kept for its exact call`,
      );
    },
  );

  it('a form that drops a word of its subject (here the write) is not a form of it', () => {
    const target = targetOf(makeProject(), 'project');
    appendRecords(target, [rec('project', { subject, form: clean('wc -l <path-read project>') })]);
    const load = loadScope(target);
    expect(load.records.map((r) => r.form)).toEqual([undefined]);
    expect(load.problems.map((pr) => [pr.line, pr.field])).toEqual([[1, 'form']]);
  });
});

describe('decision store: only sanitized text is written', () => {
  const fakeToken = () => 'ghp_' + 'A1b2C3'.repeat(6);

  it('refuses a record whose subject still holds a secret, and writes nothing of the batch', () => {
    const p = makeProject();
    const target = targetOf(p, 'user');
    const leaky = {
      ...rec('user', { key: 'bad' }),
      subject: `curl -H "Authorization: token ${fakeToken()}" https://api.github.com` as Sanitized,
    };
    expect(() => appendRecords(target, [rec('user', { key: 'ok' }), leaky])).toThrow(/refusing to write/);
    expect(loadScope(target).records).toEqual([]);
  });

  it('refuses a secret in the reason and in the plain fields too', () => {
    const p = makeProject();
    const target = targetOf(p, 'project');
    expect(() => appendRecords(target, [{ ...rec('project'), reason: `token ${fakeToken()}` as Sanitized }])).toThrow(
      /refusing to write/,
    );
    expect(() => appendRecords(target, [{ ...rec('project'), role: fakeToken() }])).toThrow(/refusing to write.*role/);
  });

  it('the same command through sanitize() is stored redacted', () => {
    const p = makeProject();
    const target = targetOf(p, 'user');
    appendRecords(target, [
      rec('user', { subject: `curl -H "Authorization: token ${fakeToken()}" https://api.github.com` }),
    ]);
    const text = readFileSync(fileFor(target, 'allow'), 'utf8');
    expect(text).not.toContain(fakeToken());
    expect(text).toContain('<REDACTED>');
  });

  it('refuses records that a later load would skip, and records for another scope', () => {
    const p = makeProject();
    const target = targetOf(p, 'user');
    expect(() => appendRecords(target, [{ ...rec('user'), ts: 'now' }])).toThrow(/ts must be/);
    expect(() => appendRecords(target, [{ ...rec('user'), key: '' }])).toThrow(/key must be/);
    expect(() => appendRecords(target, [{ ...rec('user'), key: 'git status' }])).toThrow(/key must be/);
    expect(() => appendRecords(target, [rec('project')])).toThrow(/project-scope record to the user scope/);
  });

  it('keeps cache keys (hex hashes), tool and role names, which are no secrets', () => {
    const p = makeProject();
    const target = targetOf(p, 'user');
    const keys = [
      'a3f9c2e18b7d4056',
      '9f1c2b7e3a8d4f60a3f9c2e18b7d4056',
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    ];
    appendRecords(
      target,
      keys.map((key) => rec('user', { key, tool: 'mcp__github__create_issue', role: 'security-reviewer' })),
    );
    expect(loadScope(target).records.map((r) => r.key)).toEqual(keys);
  });
});

describe('decision store: concurrent processes', () => {
  it('50 processes appending (and a few compacting) leave every record exactly once, every line valid JSON', async () => {
    const p = makeProject();
    const bundle = join(p.home, 'store.cjs');
    buildSync({
      entryPoints: [join(REPO, 'src/memory/store.ts')],
      bundle: true,
      format: 'cjs',
      platform: 'node',
      outfile: bundle,
      logLevel: 'silent',
      external: ['re2'],
    });
    const PROCS = 50;
    const PER = 20;
    const project = targetOf(p, 'project');
    const user = targetOf(p, 'user');
    const verdicts: Verdict[] = ['allow', 'deny', 'ask'];
    // Each process appends PER records one call at a time to the project scope (three files) and the user
    // scope; every tenth process also compacts both scopes midway, racing the appends.
    const script = (i: number) => `
      const s = require(${JSON.stringify(bundle)});
      const project = ${JSON.stringify(project)}, user = ${JSON.stringify(user)};
      const verdicts = ${JSON.stringify(verdicts)};
      for (let j = 0; j < ${PER}; j++) {
        const base = { key: 'p${i}-r' + j, tool: 'Bash', subject: 'echo ${i} ' + j + ' ' + 'x'.repeat(200), role: 'coder', verdict: verdicts[j % 3],
          reason: 'concurrency test', tier: 'human', decided_by: 'human', ts: new Date().toISOString() };
        s.appendRecords(project, [{ ...base, scope: 'project' }]);
        s.appendRecords(user, [{ ...base, scope: 'user' }]);
        if (${i % 10 === 0} && j === ${PER / 2}) { s.compactScope(project); s.compactScope(user); }
      }`;
    const results = await runScripts(
      p,
      Array.from({ length: PROCS }, (_, i) => script(i)),
    );
    for (const r of results) expect(r.code, r.stderr).toBe(0);

    const expected = Array.from({ length: PROCS * PER }, (_, n) => `p${Math.floor(n / PER)}-r${n % PER}`).sort();
    for (const target of [project, user]) {
      const load = loadScope(target);
      expect(load.problems).toEqual([]);
      expect(load.superseded).toBe(0);
      expect(load.records.map((r) => r.key).sort()).toEqual(expected);
      // Raw lines: each key exactly once, every line JSON (nothing torn, nothing duplicated by compaction).
      const raw = load.files.flatMap((f) =>
        readFileSync(f, 'utf8')
          .split('\n')
          .filter((l) => l !== ''),
      );
      expect(raw.map((l) => (JSON.parse(l) as DecisionRecord).key).sort()).toEqual(expected);
    }
    expect(
      loadScope(project)
        .records.filter((r) => r.verdict === 'deny')
        .every((r) => r.file.endsWith('deny.jsonl')),
    ).toBe(true);
  }, 120_000);
});

describe('decision store: removing records', () => {
  const store = () => import('../../src/memory/store.js');

  it('removes the winners the predicate selects, rewriting the rest sorted under their verdict files, with counts per file', async () => {
    const { removeRecords } = await store();
    const p = makeProject();
    const target = targetOf(p, 'project');
    appendRecords(target, [
      rec('project', { key: 'a', subject: 'npm test', role: 'coder' }),
      rec('project', { key: 'a', subject: 'npm test', role: 'tester' }),
      rec('project', { key: 'b', subject: 'git push', role: 'coder', verdict: 'ask' }),
      rec('project', { key: 'c', subject: 'curl x', role: 'tester', verdict: 'deny' }),
      rec('project', { key: 'a', subject: 'npm test', role: 'coder' }), // a newer duplicate: dropped by the rewrite
    ]);
    const result = removeRecords(target, (r) => r.role === 'coder');
    expect(result).toMatchObject({ removed: 2, kept: 2, dropped: 1, problems: [] });
    expect(result.files).toEqual(['allow', 'ask', 'deny'].map((v) => fileFor(target, v as Verdict)));
    expect(result.perFile).toEqual([
      { file: fileFor(target, 'allow'), removed: 1, kept: 1 },
      { file: fileFor(target, 'ask'), removed: 1, kept: 0 },
      { file: fileFor(target, 'deny'), removed: 0, kept: 1 },
    ]);
    const load = loadScope(target);
    expect(load.records.map((r) => `${r.key}/${r.role}`).sort()).toEqual(['a/tester', 'c/tester']);
    expect(load.superseded).toBe(0);
    expect(readFileSync(fileFor(target, 'ask'), 'utf8')).toBe(''); // kept, empty: a committed file stays tracked
  });

  it('never brings back a superseded decision: the predicate sees winners, and the removed decision’s older lines go too', async () => {
    const { removeRecords } = await store();
    const p = makeProject();
    const target = targetOf(p, 'user');
    appendRecords(target, [rec('user', { key: 'k', verdict: 'allow' }), rec('user', { key: 'k', verdict: 'deny' })]);
    const result = removeRecords(target, (r) => r.verdict === 'deny');
    expect(result).toMatchObject({ removed: 1, kept: 0, dropped: 1 });
    expect(loadScope(target).records).toEqual([]);
    expect(readFileSync(fileFor(target, 'allow'), 'utf8')).toBe('');
  });

  it('when nothing matches, nothing is rewritten (unreadable lines and duplicates stay); an absent scope is not created', async () => {
    const { removeRecords } = await store();
    const p = makeProject();
    const target = targetOf(p, 'user');
    appendRecords(target, [rec('user', { key: 'a' }), rec('user', { key: 'a' })]);
    appendFileSync(fileFor(target, 'allow'), '{oops\n');
    const before = readFileSync(fileFor(target, 'allow'), 'utf8');
    const result = removeRecords(target, (r) => r.key === 'zzz');
    expect(result).toEqual({
      removed: 0,
      kept: 1,
      files: [fileFor(target, 'allow')],
      perFile: [{ file: fileFor(target, 'allow'), removed: 0, kept: 1 }],
      dropped: 0,
      problems: [],
    });
    expect(readFileSync(fileFor(target, 'allow'), 'utf8')).toBe(before);

    expect(removeRecords(targetOf(p, 'project'), () => true)).toEqual({
      removed: 0,
      kept: 0,
      files: [],
      perFile: [],
      dropped: 0,
      problems: [],
    });
    expect(statSync(join(p.root, '.hookwise'), { throwIfNoEntry: false })).toBeUndefined();
  });

  it('drops unreadable lines when it rewrites, and reports them', async () => {
    const { removeRecords } = await store();
    const p = makeProject();
    const target = targetOf(p, 'org');
    appendRecords(target, [rec('org', { key: 'a' }), rec('org', { key: 'b' })]);
    appendFileSync(fileFor(target, 'allow'), 'garbage\n');
    const result = removeRecords(target, (r) => r.key === 'a');
    expect(result.problems.map(formatProblem)).toEqual([
      expect.stringMatching(new RegExp(`^${fileFor(target, 'allow')}:3: not JSON`)),
    ]);
    expect(result).toMatchObject({ removed: 1, kept: 1, dropped: 1 });
    expect(loadScope(target)).toMatchObject({ problems: [], records: [{ key: 'b' }] });
  });

  it('racing appends from other processes: every appended record survives, every selected one goes', async () => {
    const p = makeProject();
    const bundle = join(p.home, 'store.cjs');
    buildSync({
      entryPoints: [join(REPO, 'src/memory/store.ts')],
      bundle: true,
      format: 'cjs',
      platform: 'node',
      outfile: bundle,
      logLevel: 'silent',
      external: ['re2'],
    });
    const target = targetOf(p, 'project');
    appendRecords(
      target,
      Array.from({ length: 30 }, (_, i) =>
        rec('project', { key: `gone-${i}`, verdict: (['allow', 'ask', 'deny'] as const)[i % 3] }),
      ),
    );
    const PROCS = 16;
    const PER = 15;
    const script = (i: number) => `
      const s = require(${JSON.stringify(bundle)});
      const target = ${JSON.stringify(target)};
      const verdicts = ['allow', 'ask', 'deny'];
      for (let j = 0; j < ${PER}; j++) {
        s.appendRecords(target, [{ key: 'p${i}-r' + j, tool: 'Bash', subject: 'echo ${i} ' + j, role: 'coder', verdict: verdicts[j % 3],
          reason: 'race test', tier: 'human', scope: 'project', decided_by: 'human', ts: new Date().toISOString() }]);
        if (${i % 4 === 0} && j === ${Math.floor(PER / 2)}) s.removeRecords(target, (r) => r.key.startsWith('gone-'));
      }`;
    const results = await runScripts(
      p,
      Array.from({ length: PROCS }, (_, i) => script(i)),
    );
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    const load = loadScope(target);
    expect(load.problems).toEqual([]);
    expect(load.records.map((r) => r.key).sort()).toEqual(
      Array.from({ length: PROCS * PER }, (_, n) => `p${Math.floor(n / PER)}-r${n % PER}`).sort(),
    );
  }, 120_000);
});
