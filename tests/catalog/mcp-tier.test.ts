import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeProject, type TestProject } from '../support/project.js';
import { rememberSubject, subjectFor } from '../support/memory.js';

async function decide(p: TestProject, tool: string, input: Record<string, unknown>, role = 'coder') {
  p.register('s1', role);
  const r = await p.check(p.pre(tool, input));
  return r.decision!;
}

const expectDecision = async (
  tool: string,
  input: Record<string, unknown>,
  verdict: string,
  tier: string,
  reason?: RegExp,
  role = 'coder',
  setup?: (p: TestProject) => void,
) => {
  const p = makeProject();
  setup?.(p);
  const d = await decide(p, tool, input, role);
  expect(d, JSON.stringify(d)).toMatchObject({ verdict, tier });
  if (reason !== undefined) expect(d.reason).toMatch(reason);
};

describe('MCP tier: a catalogued tool is judged like hookwise’s own tools', () => {
  it.each([
    ['mcp__filesystem__read_text_file', { path: 'src/a.ts' }],
    ['mcp__fs__list_directory', { path: '.' }],
    ['mcp__filesystem__search_files', { path: 'src', pattern: '*.ts' }],
    ['mcp__git__git_status', { repo_path: '.' }],
    ['mcp__time__get_current_time', { timezone: 'Europe/Paris' }],
    [
      'mcp__sequential-thinking__sequentialthinking',
      { thought: 'a', nextThoughtNeeded: true, thoughtNumber: 1, totalThoughts: 2 },
    ],
    ['mcp__brave-search__brave_web_search', { query: 'vitest each', count: 5 }],
    ['mcp__context7__get-library-docs', { context7CompatibleLibraryID: '/vercel/next.js', topic: 'routing' }],
    ['mcp__github__get_issue', { owner: 'acme', repo: 'app', issue_number: 4 }],
    ['mcp__playwright__browser_snapshot', {}],
    ['mcp__postgres__query', { sql: 'SELECT id, email FROM users ORDER BY id LIMIT 5' }],
    ['mcp__supabase__execute_sql', { project_id: 'abc', query: 'select count(*) from orders' }],
  ])('%s %j → allow', (tool, input) => expectDecision(tool, input, 'allow', 'mcp'));

  it('a write inside the role’s globs is allowed, outside them denied, like a Write', async () => {
    await expectDecision('mcp__filesystem__write_file', { path: 'src/new.ts', content: 'x' }, 'allow', 'mcp');
    await expectDecision(
      'mcp__filesystem__write_file',
      { path: 'tests/a.test.ts', content: 'x' },
      'deny',
      'mcp',
      /may not write/,
    );
  });

  it('path traversal to a credential file asks, whatever the tool calls it', async () => {
    await expectDecision('mcp__filesystem__read_text_file', { path: 'src/../.env' }, 'ask', 'mcp', /credentials/);
    await expectDecision('mcp__fs__read_multiple_files', { paths: ['src/a.ts', '.env'] }, 'ask', 'mcp');
  });

  it('SQL is judged by what it does, not by the tool’s name', async () => {
    await expectDecision('mcp__sqlite__read_query', { query: 'DELETE FROM notes' }, 'ask', 'default');
    await expectDecision('mcp__postgres__query', { sql: 'SELECT 1; DROP TABLE users' }, 'ask', 'default');
    await expectDecision(
      'mcp__postgres__query',
      { sql: "SELECT pg_read_file('/etc/passwd')" },
      'ask',
      'mcp',
      /administ/,
    );
    await expectDecision(
      'mcp__supabase__execute_sql',
      { project_id: 'a', query: 'GRANT ALL ON t TO anon' },
      'ask',
      'mcp',
    );
    await expectDecision('mcp__postgres__query', { sql: 'SELEKT 1' }, 'ask', 'mcp', /cannot classify/);
  });

  it('a role may run more SQL without a human only from the user’s file', async () => {
    const p = makeProject();
    p.write('.hookwise/roles.yml', 'roles:\n  coder:\n    mcp:\n      sql: row-write\n');
    const d = await decide(p, 'mcp__postgres__query', { sql: 'UPDATE t SET a = 1 WHERE id = 2' });
    expect(d.verdict).toBe('ask'); // the project cannot raise it
  });

  it('URLs: cloud metadata is denied, other schemes asked, ordinary sites left to memory', async () => {
    await expectDecision(
      'mcp__fetch__fetch',
      { url: 'http://169.254.169.254/latest/meta-data/iam/' },
      'deny',
      'mcp',
      /metadata/,
    );
    await expectDecision('mcp__fetch__fetch', { url: 'http://[::ffff:169.254.169.254]/' }, 'deny', 'mcp');
    await expectDecision('mcp__fetch__fetch', { url: 'http://2852039166/' }, 'deny', 'mcp');
    await expectDecision(
      'mcp__playwright__browser_navigate',
      { url: 'http://metadata.google.internal/' },
      'deny',
      'mcp',
    );
    await expectDecision(
      'mcp__fetch__fetch',
      { url: 'http://169.254.169.254.nip.io/' },
      'ask',
      'mcp',
      /spells an address/,
    );
    await expectDecision('mcp__fetch__fetch', { url: 'file:///etc/passwd' }, 'ask', 'mcp');
    await expectDecision('mcp__fetch__fetch', { url: 'https://docs.python.org/3/' }, 'ask', 'default');
  });

  it('writes elsewhere and code pass to a human; the role’s mcp.deny denies', async () => {
    await expectDecision(
      'mcp__github__create_issue',
      { owner: 'a', repo: 'b', title: 't', body: 'x' },
      'ask',
      'default',
    );
    await expectDecision('mcp__playwright__browser_evaluate', { function: '() => document.cookie' }, 'ask', 'default');
    await expectDecision(
      'mcp__github__merge_pull_request',
      { owner: 'a', repo: 'b', pullNumber: 3 },
      'deny',
      'mcp',
      /mcp\.deny/,
      'coder',
      (p) => p.write('.hookwise/roles.yml', 'roles:\n  coder:\n    mcp:\n      deny: ["mcp__github__merge_*"]\n'),
    );
  });

  it('a project file cannot allow MCP tools without asking; rules naming a tool and a field still apply', async () => {
    await expectDecision(
      'mcp__github__create_issue',
      { owner: 'a', repo: 'b', title: 't' },
      'ask',
      'default',
      undefined,
      'coder',
      (p) => p.write('.hookwise/roles.yml', 'roles:\n  coder:\n    mcp:\n      allow: ["mcp__github__*"]\n'),
    );
    await expectDecision(
      'mcp__filesystem__read_text_file',
      { path: 'src/secret-plan.md' },
      'deny',
      'rules',
      /plans/,
      'coder',
      (p) =>
        p.write(
          '.hookwise/policy.yml',
          'rules:\n  - tool: "mcp__filesystem__.*"\n    input: { path: "plan" }\n    verdict: deny\n    reason: plans stay private\n',
        ),
    );
  });

  it('the user’s own file may allow a tool that writes elsewhere, and raise the role’s SQL class', async () => {
    const userConfig = (p: TestProject) =>
      p.write(
        join(p.configDir, 'config.yml'),
        'roles:\n  coder:\n    mcp:\n      allow: ["mcp__github__create_issue"]\n      sql: row-write\n',
      );
    await expectDecision(
      'mcp__github__create_issue',
      { owner: 'a', repo: 'b', title: 't' },
      'allow',
      'mcp',
      /mcp\.allow/,
      'coder',
      userConfig,
    );
    await expectDecision(
      'mcp__postgres__query',
      { sql: 'UPDATE t SET a = 1 WHERE id = 2' },
      'allow',
      'mcp',
      /row-write/,
      'coder',
      userConfig,
    );
    await expectDecision(
      'mcp__postgres__query',
      { sql: 'DROP TABLE t' },
      'ask',
      'default',
      undefined,
      'coder',
      userConfig,
    );
  });

  it('annotations passed by config only tighten: destructive asks every call, not read-only is not allowed on knowledge', async () => {
    const annotate = (hints: string) => (p: TestProject) =>
      p.write(
        '.hookwise/policy.yml',
        `mcp:\n  annotations:\n    "mcp__filesystem__*": ${hints}\n    "mcp__notes__*": ${hints}\n`,
      );
    await expectDecision(
      'mcp__filesystem__read_text_file',
      { path: 'src/a.ts' },
      'ask',
      'mcp',
      /destructive/,
      'coder',
      annotate('{ destructiveHint: true }'),
    );
    await expectDecision(
      'mcp__filesystem__read_text_file',
      { path: 'src/a.ts' },
      'ask',
      'default',
      undefined,
      'coder',
      annotate('{ readOnlyHint: false }'),
    );
    await expectDecision(
      'mcp__time__get_current_time',
      { timezone: 'UTC' },
      'allow',
      'mcp',
      undefined,
      'coder',
      annotate('{ readOnlyHint: true }'),
    );
    // A server's claim to be read-only never allows an unknown tool.
    await expectDecision(
      'mcp__notes__delete_all',
      { confirm: 'yes' },
      'ask',
      'default',
      undefined,
      'coder',
      annotate('{ readOnlyHint: true, destructiveHint: false }'),
    );
  });

  it('a tool with a field its entry does not list is an unknown tool', async () => {
    await expectDecision('mcp__filesystem__read_text_file', { path: 'src/a.ts', exec: 'rm -rf /' }, 'ask', 'default');
  });

  it('a project may map a server to an entry, but that never allows', async () => {
    await expectDecision(
      'mcp__files2__read_text_file',
      { path: 'src/a.ts' },
      'ask',
      'default',
      undefined,
      'coder',
      (p) => p.write('.hookwise/policy.yml', 'mcp:\n  servers:\n    files2: filesystem\n'),
    );
  });
});

describe('MCP tier and memory: learning per tool over free text', () => {
  it('after one approval, calls differing only in free text are allowed; a new identifier or field set asks', async () => {
    const p = makeProject();
    const first = { title: 'Groceries', body: 'milk and eggs', folder: 'home' };
    rememberSubject(p, await subjectFor(p, 'mcp__notes__create_note', first), 'allow');
    expect(await decide(p, 'mcp__notes__create_note', { ...first, body: 'bread and butter please' })).toMatchObject({
      verdict: 'allow',
      tier: 'exact-cache',
    });
    expect((await decide(p, 'mcp__notes__create_note', { ...first, folder: 'work' })).verdict).toBe('ask');
    expect((await decide(p, 'mcp__notes__create_note', { ...first, pinned: true })).verdict).toBe('ask');
  });

  it('an approved search tool allows other queries, never a path or SQL in the same field', async () => {
    const p = makeProject();
    rememberSubject(p, await subjectFor(p, 'mcp__docs__search', { query: 'react hooks' }), 'allow');
    expect((await decide(p, 'mcp__docs__search', { query: 'vitest mocking modules' })).verdict).toBe('allow');
    expect((await decide(p, 'mcp__docs__search', { query: 'vitest' })).verdict).toBe('allow');
    expect((await decide(p, 'mcp__docs__search', { query: '/etc/passwd' })).verdict).toBe('ask');
    expect((await decide(p, 'mcp__docs__search', { query: 'DROP TABLE users; SELECT 1 FROM x' })).verdict).toBe('ask');
  });

  it('an unknown tool’s sensitive path asks even after an approval of the tool', async () => {
    const p = makeProject();
    rememberSubject(p, await subjectFor(p, 'mcp__mystery__open', { target: 'src/a.ts' }), 'allow');
    expect((await decide(p, 'mcp__mystery__open', { target: 'src/a.ts' })).verdict).toBe('allow');
    expect(await decide(p, 'mcp__mystery__open', { target: '.env' })).toMatchObject({ verdict: 'ask', tier: 'mcp' });
  });

  it('an approved web-reading tool fetches other public pages; an internal, local or query-carrying URL asks', async () => {
    const p = makeProject();
    rememberSubject(
      p,
      await subjectFor(p, 'mcp__fetch__fetch', { url: 'https://docs.python.org/3/library/os.html' }),
      'allow',
    );
    const fetch = async (url: string) => (await decide(p, 'mcp__fetch__fetch', { url })).verdict;
    expect(await fetch('https://docs.python.org/3/library/re.html')).toBe('allow');
    expect(await fetch('https://nodejs.org/api/test.html')).toBe('allow');
    for (const url of [
      'https://evil.example/?q=docs.python.org', // what a query sends is more than an address
      'https://nodejs.org/api/?leak=1',
      'http://localhost:8080/admin',
      'http://10.0.0.5/admin',
      'http://grafana/d/abc',
      'http://build.internal/status',
      'http://[::1]/',
      'https://user:pw@nodejs.org/',
      'https://nodejs.org:8443/',
      'http://10.0.0.5.nip.io/',
    ])
      expect(await fetch(url), url).toBe('ask');
    expect(await fetch('http://169.254.169.254/latest/meta-data/')).toBe('deny');
  });

  it('an approved internal address covers that origin only', async () => {
    const p = makeProject();
    rememberSubject(p, await subjectFor(p, 'mcp__fetch__fetch', { url: 'http://localhost:3000/health' }), 'allow');
    expect((await decide(p, 'mcp__fetch__fetch', { url: 'http://localhost:3000/metrics' })).verdict).toBe('allow');
    expect((await decide(p, 'mcp__fetch__fetch', { url: 'http://localhost:5432/' })).verdict).toBe('ask');
    expect((await decide(p, 'mcp__fetch__fetch', { url: 'https://nodejs.org/api/' })).verdict).toBe('ask');
  });

  it('an approved unknown reading tool reads other things by identifier; a writing or secret-reading one does not', async () => {
    const p = makeProject();
    rememberSubject(p, await subjectFor(p, 'mcp__tracker__get_issue', { issueKey: 'SHOP-118' }), 'allow');
    expect((await decide(p, 'mcp__tracker__get_issue', { issueKey: 'SHOP-121' })).verdict).toBe('allow');
    // A path, a URL or a new field set is judged as before.
    expect((await decide(p, 'mcp__tracker__get_issue', { issueKey: '../../.ssh/id_ed25519' })).verdict).toBe('ask');
    expect((await decide(p, 'mcp__tracker__get_issue', { issueKey: 'SHOP-121', delete: true })).verdict).toBe('ask');
    rememberSubject(
      p,
      await subjectFor(p, 'mcp__tracker__update_issue', { issueKey: 'SHOP-118', state: 'done' }),
      'allow',
    );
    expect((await decide(p, 'mcp__tracker__update_issue', { issueKey: 'SHOP-121', state: 'done' })).verdict).toBe(
      'ask',
    );
    rememberSubject(p, await subjectFor(p, 'mcp__vault__get_secret', { name: 'staging-db' }), 'allow');
    expect((await decide(p, 'mcp__vault__get_secret', { name: 'prod-db' })).verdict).toBe('ask');
  });

  it('an approved row write is remembered for that exact statement only', async () => {
    const p = makeProject();
    const sql = "UPDATE orders SET state = 'paid' WHERE id = 4";
    rememberSubject(p, await subjectFor(p, 'mcp__postgres__query', { sql }), 'allow');
    expect((await decide(p, 'mcp__postgres__query', { sql })).verdict).toBe('allow');
    expect((await decide(p, 'mcp__postgres__query', { sql: 'DELETE FROM orders' })).verdict).toBe('ask');
  });
});
