import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  invalidate,
  override,
  rulesCompact,
  rulesList,
  rulesShow,
  type EffectiveDecision,
  type OverrideOptions,
} from '../../src/cli/rules.js';
import { runProgram } from '../../src/cli/program.js';
import { cacheKey } from '../../src/memory/cache.js';
import { overrideKey } from '../../src/memory/overrides.js';
import { appendRecords, fileFor, loadScope, type DecisionRecord, type StoreScope } from '../../src/memory/store.js';
import { sanitize } from '../../src/sanitize/index.js';
import { targetOf } from '../support/memory.js';
import { makeProject, verdictOf, type TestProject } from '../support/project.js';

const fakeToken = (): string => 'ghp_' + 'A1b2C3'.repeat(6);

let clock = Date.parse('2026-01-01T00:00:00.000Z');
/** A remembered exact-cache decision for a Bash command, as the check path would key it. */
function remembered(
  scope: StoreScope,
  command: string,
  fields: Partial<Pick<DecisionRecord, 'role' | 'verdict' | 'tier' | 'decided_by'>> = {},
): DecisionRecord {
  return {
    key: cacheKey('Bash', command),
    tool: 'Bash',
    subject: sanitize(command).text,
    commands: [command.split(' ')[0]!],
    role: 'coder',
    verdict: 'allow',
    reason: sanitize('approved by a human').text,
    tier: 'exact-cache',
    scope,
    decided_by: 'human',
    ts: new Date((clock += 1000)).toISOString(),
    ...fields,
  };
}

const run = (p: TestProject, o: OverrideOptions) => override(o, p.root, p.env);
const bash = (p: TestProject, command: string, sessionId = 's1') => p.check(p.pre('Bash', { command }, sessionId));
const list = (p: TestProject, o: Parameters<typeof rulesList>[0] = {}) => rulesList(o, p.root, p.env);
const listJson = (p: TestProject, o: Parameters<typeof rulesList>[0] = {}) =>
  JSON.parse(list(p, { ...o, json: true }).stdout) as {
    decisions: EffectiveDecision[];
    problems: { file: string; line: number }[];
  };

describe('hookwise override', () => {
  it('--deny goes to the user scope by default, and a matching Bash call is then denied', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    expect(verdictOf(await bash(p, 'curl https://example.com'))).toBe('ask'); // nobody decided
    const r = await run(p, { role: 'coder', command: 'curl *', deny: true });
    const userFile = join(p.configDir, 'user/rules.jsonl');
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(
      `hookwise: override Bash(curl *) → deny for role coder, stored in the user scope: ${userFile}`,
    );
    expect(existsSync(join(p.root, '.hookwise/rules'))).toBe(false); // never silently into the committed files
    const [record] = loadScope(targetOf(p, 'user')).records;
    expect(record).toMatchObject({
      key: overrideKey('Bash', 'curl *'),
      tool: 'Bash',
      subject: 'Bash(curl *)',
      role: 'coder',
      verdict: 'deny',
      reason: 'set by hookwise override',
      tier: 'override',
      scope: 'user',
      decided_by: 'human',
    });
    const d = (await bash(p, 'curl https://example.com')).decision!;
    expect(d).toMatchObject({ verdict: 'deny', tier: 'override' });
    expect(d.rule?.source).toBe(`${userFile}:1`);
    // Another role is not affected.
    p.register('s2', 'tester');
    expect(verdictOf(await bash(p, 'curl https://example.com', 's2'))).toBe('ask');
  });

  it('--allow for `npm run *` allows `npm run seed`, which nobody had decided, and nothing else', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    expect(verdictOf(await bash(p, 'npm run seed'))).toBe('ask');
    await run(p, { role: 'coder', command: 'npm run *', allow: true, reason: 'our build scripts' });
    expect((await bash(p, 'npm run seed')).decision).toMatchObject({ verdict: 'allow', tier: 'override' });
    expect(verdictOf(await bash(p, 'npm run seed && npm publish'))).toBe('ask'); // every segment must match
    expect(verdictOf(await bash(p, 'npx something'))).toBe('ask');
    expect(loadScope(targetOf(p, 'user')).records[0]?.reason).toBe('our build scripts');
  });

  it('--tool with --file is Tool(glob): a path glob; --tool alone is the whole tool; * is every role', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    const write = (path: string) => p.check(p.pre('Write', { file_path: join(p.root, path), content: '' }));
    expect(verdictOf(await write('src/generated/x.ts'))).toBe('allow');
    await run(p, {
      role: '*',
      tool: 'Write',
      file: 'src/generated/**',
      deny: true,
      reason: 'generated code: run the generator',
    });
    expect((await write('src/generated/deep/x.ts')).decision).toMatchObject({ verdict: 'deny', tier: 'override' });
    expect(verdictOf(await write('src/a.ts'))).toBe('allow');
    const r = await run(p, { role: 'coder', tool: 'WebFetch', ask: true, scope: 'project' });
    expect(r.stdout).toMatch(
      /override WebFetch → ask for role coder, stored in the project scope: \.hookwise\/rules\/ask\.jsonl$/,
    );
    expect(verdictOf(await p.check(p.pre('WebFetch', { url: 'https://example.com', prompt: 'x' })))).toBe('ask');
    expect(loadScope(targetOf(p, 'project')).records.map((x) => x.subject)).toEqual(['WebFetch']);
    expect(loadScope(targetOf(p, 'user')).records.map((x) => [x.subject, x.role])).toEqual([
      ['Write(src/generated/**)', '*'],
    ]);
  });

  it('session and org scopes, and a newer override replacing an older one in the same scope', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    await run(p, { role: 'coder', command: 'terraform *', allow: true, scope: 'session', sessionId: 's1' });
    expect(verdictOf(await bash(p, 'terraform init -upgrade'))).toBe('allow');
    p.register('s2', 'coder');
    expect(verdictOf(await bash(p, 'terraform init -upgrade', 's2'))).toBe('ask'); // another session
    const r = await run(p, { role: 'coder', command: 'terraform *', ask: true, scope: 'session', sessionId: 's1' });
    expect(r.stdout).toMatch(
      /\(replaces the allow of \d{4}-\d\d-\d\d at .*sessions\/s-[0-9a-f]{32}\.rules\.jsonl:1\)$/,
    );
    expect((await bash(p, 'terraform init -upgrade')).decision).toMatchObject({ verdict: 'ask', tier: 'override' });
    await run(p, { role: 'coder', command: 'terraform *', deny: true, scope: 'org', org: 'acme' });
    expect(existsSync(join(p.configDir, 'org/acme/rules/deny.jsonl'))).toBe(true);
    expect(verdictOf(await bash(p, 'terraform init -upgrade', 's2'))).toBe('deny');
  });

  it('says when the new override is shadowed by a stricter one in another scope', async () => {
    const p = makeProject();
    await run(p, { role: '*', command: 'curl *', ask: true });
    const r = await run(p, { role: 'coder', command: 'curl *', allow: true, scope: 'project' });
    expect(r.stdout.split('\n')[1]).toBe(
      `note: for role coder this is shadowed by the user scope's ask for every role at ${join(p.configDir, 'user/rules.jsonl')}:1 (across scopes deny > ask > allow)`,
    );
  });

  it.each([
    [{ role: 'coder', command: 'ls' }, /exactly one of --allow, --deny, --ask/],
    [
      { role: 'coder', command: 'ls', allow: true, deny: true },
      /exactly one of --allow, --deny, --ask \(got --allow, --deny\)/,
    ],
    [{ role: 'coder', allow: true }, /--command <pattern> \(Bash\), or --tool/],
    [{ role: 'coder', command: 'ls', tool: 'Write', allow: true }, /either --command .* or --tool/],
    [{ role: 'coder', command: 'ls', file: 'x', allow: true }, /--file goes with --tool/],
    [{ role: 'coder', tool: 'Bash', file: 'x', allow: true }, /for Bash, give the command pattern with --command/],
    [{ role: 'coder', tool: 'Write(x)', allow: true }, /--tool must be a tool name/],
    [{ role: 'coder', command: '  ', allow: true }, /--command needs a pattern/],
    [{ role: 'nobody', command: 'ls', allow: true }, /unknown role "nobody".*\n- implementation: coder/],
    [
      { role: 'coder', command: 'ls', allow: true, scope: 'session' },
      /--session-id goes with --scope session|--scope session needs --session-id/,
    ],
    [{ role: 'coder', command: 'ls', allow: true, scope: 'org' }, /--scope org needs --org/],
    [{ role: 'coder', command: 'ls', allow: true, org: 'acme' }, /use it with --scope org/],
    [{ role: 'coder', command: 'ls', allow: true, scope: 'everywhere' }, /--scope must be one of/],
  ] as [OverrideOptions, RegExp][])('refuses bad flags with a usage error: %j', async (o, message) => {
    const p = makeProject();
    await expect(run(p, o)).rejects.toMatchObject({ code: 'USAGE', message: expect.stringMatching(message) });
    expect(loadScope(targetOf(p, 'user')).records).toEqual([]);
  });

  it('refuses a pattern holding a secret (it would be stored as written), without echoing it; a reason is stored redacted', async () => {
    const p = makeProject();
    const error = await run(p, {
      role: 'coder',
      command: `curl -H "Authorization: token ${fakeToken()}" *`,
      allow: true,
    }).catch((e: unknown) => e as Error);
    expect(error).toMatchObject({
      code: 'USAGE',
      message: expect.stringMatching(/refusing to store this override: its pattern holds what looks like a secret/),
    });
    expect((error as Error).message).not.toContain(fakeToken());
    expect((error as Error).message).toContain('<REDACTED>');
    expect(loadScope(targetOf(p, 'user')).records).toEqual([]);

    const r = await run(p, { role: 'coder', command: 'gh api *', allow: true, reason: `token ${fakeToken()} is fine` });
    expect(r.stderr).toMatch(/stored redacted/);
    const text = readFileSync(join(p.configDir, 'user/rules.jsonl'), 'utf8');
    expect(text).not.toContain(fakeToken());
    expect(text).toContain('<REDACTED>');
  });

  it('warns that a pattern with a shell operator never matches one segment', async () => {
    const p = makeProject();
    const r = await run(p, { role: 'coder', command: 'npm ci && npm test', allow: true });
    expect(r.stderr).toMatch(/matched against each segment/);
  });
});

describe('hookwise rules list', () => {
  it('a project-scope allow does not beat a user-scope ask: the check asks, and the list shows the allow shadowed', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    appendRecords(targetOf(p, 'project'), [remembered('project', 'make deploy', { verdict: 'allow' })]);
    expect((await bash(p, 'make deploy')).decision).toMatchObject({ verdict: 'allow', tier: 'exact-cache' });
    appendRecords(targetOf(p, 'user'), [
      remembered('user', 'make deploy', { verdict: 'ask', role: '*', decided_by: 'host-prompt' }),
    ]);
    expect((await bash(p, 'make deploy')).decision).toMatchObject({ verdict: 'ask', tier: 'exact-cache' });

    const userFile = join(p.configDir, 'user/rules.jsonl');
    const r = list(p);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe('');
    const lines = r.stdout.split('\n');
    // Sorted by tool, subject, role: the every-role entry (*) first.
    expect(lines[0]).toBe(`Bash: make deploy  (every role) → ask   [key ${cacheKey('Bash', 'make deploy')}]`);
    expect(lines[1]).toBe(
      `  ask    user     exact-cache  by host-prompt  ${loadScope(targetOf(p, 'user')).records[0]!.ts}  ${userFile}:1`,
    );
    expect(lines[2]).toBe(`Bash: make deploy  (role coder) → ask   [key ${cacheKey('Bash', 'make deploy')}]`);
    const projectTs = loadScope(targetOf(p, 'project')).records[0]!.ts;
    expect(lines[3]).toBe(
      `  allow  project  exact-cache  by human        ${projectTs}  .hookwise/rules/allow.jsonl:1  — project allow shadowed by user ask for every role at ${userFile}:1`,
    );
    expect(r.stdout).toMatch(/2 decisions \(2 records, 1 shadowed by a stricter entry\)$/);

    const json = listJson(p);
    expect(json.decisions).toHaveLength(2);
    expect(json.decisions[1]).toMatchObject({
      tool: 'Bash',
      subject: 'make deploy',
      role: 'coder',
      effective: { verdict: 'ask', scope: 'user', role: '*', source: `${userFile}:1` },
      records: [
        {
          verdict: 'allow',
          scope: 'project',
          source: '.hookwise/rules/allow.jsonl:1',
          file: join(p.root, '.hookwise/rules/allow.jsonl'),
          line: 1,
          shadowed_by: { verdict: 'ask', scope: 'user', role: '*', source: `${userFile}:1` },
        },
      ],
    });
    expect(json.decisions[0]!.records[0]!.shadowed_by).toBeUndefined();
  });

  it('one group per (key, role) across scopes; filters by role and scope; the session scope with --session-id', async () => {
    const p = makeProject();
    appendRecords(targetOf(p, 'user'), [
      remembered('user', 'git log', { verdict: 'allow' }),
      remembered('user', 'git log', { verdict: 'allow', role: 'tester' }),
    ]);
    appendRecords(targetOf(p, 'project'), [remembered('project', 'git log', { verdict: 'deny' })]);
    appendRecords(targetOf(p, 'session'), [remembered('session', 'npm test', { role: 'tester' })]);
    const all = listJson(p).decisions;
    expect(
      all.map((d) => [
        d.subject,
        d.role,
        d.effective.verdict,
        d.records.map((r) => `${r.scope} ${r.verdict}${r.shadowed_by ? ' shadowed' : ''}`),
      ]),
    ).toEqual([
      ['git log', 'coder', 'deny', ['user allow shadowed', 'project deny']],
      ['git log', 'tester', 'allow', ['user allow']],
    ]);
    expect(listJson(p, { role: 'tester' }).decisions.map((d) => d.role)).toEqual(['tester']);
    expect(listJson(p, { scope: 'project' }).decisions.map((d) => d.records.map((r) => r.scope))).toEqual([
      ['project'],
    ]);
    expect(listJson(p, { sessionId: 's1' }).decisions.map((d) => d.subject)).toEqual([
      'git log',
      'git log',
      'npm test',
    ]);
    expect(() => list(p, { scope: 'session' })).toThrow(/--scope session needs --session-id/);
  });

  it('reports a corrupt line as file:line on stderr (sanitized) and still lists everything else', async () => {
    const p = makeProject();
    await run(p, { role: 'coder', command: 'npm run *', allow: true });
    const file = join(p.configDir, 'user/rules.jsonl');
    appendFileSync(file, `{"key": "torn", token ${fakeToken()}\n`);
    await run(p, { role: 'coder', command: 'make *', allow: true });
    const r = list(p);
    expect(r.stderr).toMatch(new RegExp(`^hookwise: decision memory: ${file}:2: not JSON: .*\\(line skipped\\)$`));
    expect(r.stderr).not.toContain(fakeToken());
    expect(r.stdout).toMatch(/^override Bash\(make \*\)/m);
    expect(r.stdout).toMatch(/^override Bash\(npm run \*\)/m);
    expect(r.stdout).toMatch(/1 line could not be read/);
    const json = listJson(p);
    expect(json.problems).toMatchObject([{ file, line: 2 }]);
    expect(JSON.stringify(json)).not.toContain(fakeToken());
  });

  it('an empty memory says so and where it would be', () => {
    const p = makeProject();
    expect(list(p).stdout).toBe(
      `no remembered decisions (user: ${join(p.configDir, 'user/rules.jsonl')}; project: .hookwise/rules/allow.jsonl)`,
    );
  });
});

describe('hookwise rules show', () => {
  it('finds records by key or by a piece of the subject, with every field and provenance', async () => {
    const p = makeProject();
    await run(p, { role: 'coder', command: 'npm run *', allow: true, reason: 'our scripts' });
    await run(p, { role: '*', command: 'npm run *', ask: true, scope: 'project' });
    appendRecords(targetOf(p, 'user'), [remembered('user', 'git status')]);
    const r = rulesShow('npm run', {}, p.root, p.env);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain(
      'override Bash(npm run *)  (role coder) → ask (from the project scope, .hookwise/rules/ask.jsonl:1)',
    );
    expect(r.stdout).toMatch(/ {4}reason: {5}our scripts\n/);
    expect(r.stdout).toMatch(
      / {4}status: {5}user allow shadowed by project ask for every role at \.hookwise\/rules\/ask\.jsonl:1/,
    );
    expect(r.stdout).not.toContain('git status');
    const byKey = JSON.parse(rulesShow(cacheKey('Bash', 'git status'), { json: true }, p.root, p.env).stdout) as {
      decisions: EffectiveDecision[];
    };
    expect(byKey.decisions.map((d) => d.records.map((x) => [x.subject, x.commands, x.source]))).toEqual([
      [['git status', ['git'], `${join(p.configDir, 'user/rules.jsonl')}:2`]],
    ]);
    const none = rulesShow('nothing like this', {}, p.root, p.env);
    expect(none).toMatchObject({
      exitCode: 1,
      stdout: 'no remembered decision has the key or a subject containing "nothing like this"',
    });
  });
});

describe('hookwise rules compact', () => {
  it('dedups superseded records and drops unreadable lines, reporting them; an empty scope is not created', async () => {
    const p = makeProject();
    await run(p, { role: 'coder', command: 'npm run *', allow: true });
    await run(p, { role: 'coder', command: 'npm run *', deny: true }); // supersedes the allow
    await run(p, { role: 'tester', command: 'npm run *', allow: true });
    const file = join(p.configDir, 'user/rules.jsonl');
    appendFileSync(file, 'not json at all\n');
    const r = rulesCompact({}, p.root, p.env);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe(`user scope: kept 2, dropped 2 (${file})`);
    expect(lines[1]).toMatch(new RegExp(`^ {2}dropped unreadable line ${file}:4: not JSON: `));
    expect(lines.slice(2)).toEqual(['project scope: no decisions stored']);
    expect(
      readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as DecisionRecord).role),
    ).toEqual(['coder', 'tester']);
    expect(loadScope(targetOf(p, 'user')).records.find((x) => x.role === 'coder')?.verdict).toBe('deny');
    expect(existsSync(join(p.root, '.hookwise'))).toBe(false);
    const json = JSON.parse(rulesCompact({ scope: 'user', json: true }, p.root, p.env).stdout) as {
      scopes: { scope: string; kept: number; dropped: number }[];
    };
    expect(json.scopes).toEqual([expect.objectContaining({ scope: 'user', kept: 2, dropped: 0 })]);
  });
});

describe('hookwise invalidate', () => {
  function seed(p: TestProject): void {
    appendRecords(targetOf(p, 'user'), [
      remembered('user', 'git log'),
      remembered('user', 'git log', { role: 'tester' }),
      remembered('user', 'make', { role: 'coder', verdict: 'ask' }),
    ]);
    appendRecords(targetOf(p, 'project'), [
      remembered('project', 'npm test', { role: 'coder' }),
      remembered('project', 'npm test', { role: 'tester', verdict: 'deny' }),
    ]);
    appendRecords(targetOf(p, 'session'), [remembered('session', 'ls', { role: 'coder' })]);
  }
  const roles = (p: TestProject, scope: StoreScope) =>
    loadScope(targetOf(p, scope))
      .records.map((r) => `${r.subject}/${r.role}`)
      .sort();

  it('--role removes only that role’s records, in the user and project scopes (the session scope only with --session-id)', async () => {
    const p = makeProject();
    seed(p);
    await run(p, { role: 'coder', command: 'curl *', deny: true });
    const r = invalidate({ role: 'coder' }, p.root, p.env);
    expect(r.exitCode).toBe(0);
    expect(r.stdout.split('\n')).toEqual([
      `removed 3 from ${join(p.configDir, 'user/rules.jsonl')} (user scope; 1 left in it)`,
      'removed 1 from .hookwise/rules/allow.jsonl (project scope; 0 left in it)',
      'hookwise invalidate: removed 4 remembered decisions from user, project; 2 kept',
    ]);
    expect(roles(p, 'user')).toEqual(['git log/tester']);
    expect(roles(p, 'project')).toEqual(['npm test/tester']);
    expect(roles(p, 'session')).toEqual(['ls/coder']);
    expect(invalidate({ role: 'coder', sessionId: 's1' }, p.root, p.env).stdout).toMatch(
      /removed 1 remembered decision from user, project, session s1; 2 kept/,
    );
    expect(roles(p, 'session')).toEqual([]);
  });

  it('--keep-overrides leaves overrides; --key removes one decision; --scope limits', async () => {
    const p = makeProject();
    seed(p);
    await run(p, { role: 'coder', command: 'curl *', deny: true });
    invalidate({ role: 'coder', keepOverrides: true, scope: 'user' }, p.root, p.env);
    expect(roles(p, 'user')).toEqual(['Bash(curl *)/coder', 'git log/tester']);
    expect(roles(p, 'project')).toEqual(['npm test/coder', 'npm test/tester']);
    const r = invalidate({ key: cacheKey('Bash', 'npm test') }, p.root, p.env);
    expect(r.stdout).toMatch(/removed 2 remembered decisions/);
    expect(roles(p, 'project')).toEqual([]);
    expect(invalidate({ key: 'no-such-key' }, p.root, p.env).stdout).toBe(
      'hookwise invalidate: nothing matched in user, project; nothing was changed',
    );
  });

  it('removing everything needs --yes: without it, it says what would go and changes nothing', async () => {
    const p = makeProject();
    seed(p);
    const dry = invalidate({ all: true }, p.root, p.env);
    expect(dry.exitCode).toBe(1);
    expect(dry.stdout).toMatch(
      /this would remove 5 remembered decisions, overrides included; nothing was changed — run it again with --yes$/,
    );
    expect(roles(p, 'user')).toHaveLength(3);
    expect(invalidate({ scope: 'project' }, p.root, p.env).exitCode).toBe(1);
    expect(roles(p, 'project')).toHaveLength(2);

    const r = invalidate({ all: true, yes: true, sessionId: 's1', json: true }, p.root, p.env);
    expect(JSON.parse(r.stdout)).toMatchObject({ removed: 6, kept: 0 });
    for (const scope of ['user', 'project', 'session'] as const) expect(roles(p, scope)).toEqual([]);
    // The committed files stay (empty), so git sees a change rather than a deletion.
    expect(readFileSync(fileFor(targetOf(p, 'project'), 'deny'), 'utf8')).toBe('');
  });

  it('refuses unclear requests', () => {
    const p = makeProject();
    expect(() => invalidate({}, p.root, p.env)).toThrow(/say what to forget/);
    expect(() => invalidate({ all: true, role: 'coder' }, p.root, p.env)).toThrow(/--all removes everything/);
    expect(() => invalidate({ scope: 'session', yes: true }, p.root, p.env)).toThrow(
      /--scope session needs --session-id/,
    );
    expect(() => invalidate({ role: 'coder', org: 'acme' }, p.root, p.env)).toThrow(/use it with --scope org/);
    expect(() => invalidate({ role: 'coder', scope: 'user', sessionId: 's1' }, p.root, p.env)).toThrow(
      /--session-id adds the session scope/,
    );
  });

  it('a removed override stops applying', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    await run(p, { role: 'coder', command: 'npm run *', allow: true });
    expect(verdictOf(await bash(p, 'npm run seed'))).toBe('allow');
    invalidate({ key: overrideKey('Bash', 'npm run *') }, p.root, p.env);
    expect(verdictOf(await bash(p, 'npm run seed'))).toBe('ask');
  });
});

describe('the commands through the CLI program', () => {
  it('parses the flags (override, rules list --json, invalidate --keep-overrides) and maps usage errors to exit 1', async () => {
    const p = makeProject();
    const saved = {
      cwd: process.cwd(),
      runtime: process.env.HOOKWISE_RUNTIME_DIR,
      config: process.env.HOOKWISE_CONFIG_DIR,
    };
    const out: string[] = [];
    const err: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    const writeErr = process.stderr.write.bind(process.stderr);
    process.env.HOOKWISE_RUNTIME_DIR = p.runtimeDir;
    process.env.HOOKWISE_CONFIG_DIR = p.configDir;
    process.chdir(p.root);
    process.stdout.write = ((chunk: string) => out.push(String(chunk)) > 0) as typeof process.stdout.write;
    process.stderr.write = ((chunk: string) => err.push(String(chunk)) > 0) as typeof process.stderr.write;
    const exitCode = process.exitCode;
    try {
      expect(
        await runProgram([
          'override',
          '--role',
          'coder',
          '--command',
          'npm run *',
          '--allow',
          '--scope',
          'session',
          '--session-id',
          's9',
          '--reason',
          'scripts',
        ]),
      ).toBe(0);
      expect(out.join('')).toMatch(
        /override Bash\(npm run \*\) → allow for role coder, stored in the session s9 scope: .*sessions\/s-[0-9a-f]{32}\.rules\.jsonl\n$/,
      );
      out.length = 0;
      expect(await runProgram(['rules', 'list', '--json', '--session-id', 's9'])).toBe(0);
      expect((JSON.parse(out.join('')) as { decisions: EffectiveDecision[] }).decisions.map((d) => d.subject)).toEqual([
        'Bash(npm run *)',
      ]);
      out.length = 0;
      expect(
        await runProgram(['invalidate', '--scope', 'session', '--session-id', 's9', '--keep-overrides', '--yes']),
      ).toBe(0);
      expect(out.join('')).toMatch(/nothing matched in session s9/);
      expect(await runProgram(['override', '--role', 'coder', '--command', 'x', '--allow', '--deny'])).toBe(1);
      expect(err.join('')).toMatch(/hookwise: give exactly one of --allow, --deny, --ask/);
    } finally {
      process.stdout.write = write;
      process.stderr.write = writeErr;
      process.exitCode = exitCode;
      process.chdir(saved.cwd);
      if (saved.runtime === undefined) delete process.env.HOOKWISE_RUNTIME_DIR;
      else process.env.HOOKWISE_RUNTIME_DIR = saved.runtime;
      if (saved.config === undefined) delete process.env.HOOKWISE_CONFIG_DIR;
      else process.env.HOOKWISE_CONFIG_DIR = saved.config;
    }
  });
});
