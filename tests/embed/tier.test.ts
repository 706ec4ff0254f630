import { describe, expect, it } from 'vitest';
import type { EmbeddingMatch, EmbeddingPort } from '../../src/embed/port.js';
import type { CheckResult, EngineOptions } from '../../src/engine/engine.js';
import { loadScope } from '../../src/memory/store.js';
import { makeProject, type TestProject } from '../support/project.js';
import { rememberCommand, subjectFor, targetOf } from '../support/memory.js';

const bash = (command: string): Record<string, unknown> => ({ command });

/**
 * The tier's port with its neighbours given by the test: which remembered calls are how near. The tier's
 * decision over neighbours is what these tests pin; the model and index are tested in model/index tests.
 */
function near(neighbours: EmbeddingMatch[] | { unavailable: string }, seen: string[] = []): EngineOptions {
  const port: EmbeddingPort = {
    nearest: (query) => {
      seen.push(query.text);
      return Promise.resolve(Array.isArray(neighbours) ? { matches: neighbours } : neighbours);
    },
  };
  return { embedding: { portFor: () => port } };
}

async function keyOf(p: TestProject, command: string): Promise<string> {
  return (await subjectFor(p, 'Bash', bash(command))).key;
}

/** The answer to `command` after `remembered` was allowed, with it proposed as the nearest neighbour. */
async function answerNear(remembered: string, command: string, similarity: number): Promise<CheckResult['decision']> {
  const p = await setup();
  await rememberCommand(p, remembered, 'allow');
  const r = await p.check(
    p.pre('Bash', bash(command)),
    undefined,
    near([{ key: await keyOf(p, remembered), similarity }]),
  );
  return r.decision;
}

async function setup(): Promise<TestProject> {
  const p = makeProject();
  p.register('s1', 'coder');
  return p;
}

describe('tier 2b: embedding similarity', () => {
  it('the nearest remembered allow above the threshold approves, naming the record and the similarity', async () => {
    const p = await setup();
    await rememberCommand(p, 'mytool lint --fix src/a.ts', 'allow');
    const seen: string[] = [];
    const r = await p.check(
      p.pre('Bash', bash('mytool lint --fix src/b.ts')),
      undefined,
      near([{ key: await keyOf(p, 'mytool lint --fix src/a.ts'), similarity: 0.95 }], seen),
    );
    expect(r.decision).toMatchObject({ verdict: 'allow', tier: 'embedding', confidence: 0.95 });
    expect(r.decision?.reason).toMatch(/near \(0\.950\) `mytool lint --fix src\/a\.ts`, which .* allowed/);
    expect(r.decision?.rule?.id).toMatch(/^memory:/);
    // The port sees the sanitized subject, nothing else.
    expect(seen).toEqual(['mytool lint --fix src/b.ts']);
  });

  it('below the threshold (0.9 by default) it passes on; the user may lower it, a project may only raise it', async () => {
    const p = await setup();
    await rememberCommand(p, 'mytool lint --fix src/a.ts', 'allow');
    const options = near([{ key: await keyOf(p, 'mytool lint --fix src/a.ts'), similarity: 0.85 }]);
    expect((await p.check(p.pre('Bash', bash('mytool lint --fix src/b.ts')), undefined, options)).decision?.tier).toBe(
      'default',
    );
    p.write(`${p.configDir}/config.yml`, 'embedding:\n  threshold: 0.8\n');
    expect((await p.check(p.pre('Bash', bash('mytool lint --fix src/b.ts')), undefined, options)).decision?.tier).toBe(
      'embedding',
    );
    p.write('.hookwise/policy.yml', 'embedding:\n  threshold: 0.6\n');
    expect((await p.check(p.pre('Bash', bash('mytool lint --fix src/b.ts')), undefined, options)).decision?.tier).toBe(
      'embedding',
    );
    p.write('.hookwise/policy.yml', 'embedding:\n  threshold: 0.95\n');
    expect((await p.check(p.pre('Bash', bash('mytool lint --fix src/b.ts')), undefined, options)).decision?.tier).toBe(
      'default',
    );
    p.write('.hookwise/policy.yml', 'embedding:\n  enabled: false\n');
    p.write(`${p.configDir}/config.yml`, 'embedding:\n  threshold: 0.5\n');
    expect((await p.check(p.pre('Bash', bash('mytool lint --fix src/b.ts')), undefined, options)).decision?.tier).toBe(
      'default',
    );
  });

  it('a nearest ask propagates, and is recorded for this exact call so a repeat cannot drift to allow', async () => {
    const p = await setup();
    await rememberCommand(p, 'mytool publish dist/a-1.0.tgz', 'ask');
    const r = await p.check(
      p.pre('Bash', bash('mytool publish dist/a-1.1.tgz')),
      undefined,
      near([{ key: await keyOf(p, 'mytool publish dist/a-1.0.tgz'), similarity: 0.93 }]),
    );
    expect(r.decision).toMatchObject({ verdict: 'ask', tier: 'embedding' });
    const recorded = loadScope(targetOf(p, 'user')).records.filter((x) => x.tier === 'embedding');
    expect(recorded).toEqual([
      expect.objectContaining({ verdict: 'ask', decided_by: 'rule', subject: 'mytool publish dist/a-1.1.tgz' }),
    ]);
    const repeat = await p.check(p.pre('Bash', bash('mytool publish dist/a-1.1.tgz')));
    expect(repeat.decision).toMatchObject({ verdict: 'ask', tier: 'exact-cache' });
  });

  it('never auto-denies: a nearest deny passes on, and a deny as near as an allow blocks it', async () => {
    const p = await setup();
    await rememberCommand(p, 'mytool seed db/prod.sql', 'deny');
    await rememberCommand(p, 'mytool seed db/dev.sql', 'allow');
    const [deny, allow] = [await keyOf(p, 'mytool seed db/prod.sql'), await keyOf(p, 'mytool seed db/dev.sql')];
    const call = p.pre('Bash', bash('mytool seed db/test.sql'));
    expect((await p.check(call, undefined, near([{ key: deny, similarity: 0.97 }]))).decision?.tier).toBe('default');
    expect(
      (
        await p.check(
          call,
          undefined,
          near([
            { key: deny, similarity: 0.97 },
            { key: allow, similarity: 0.92 },
          ]),
        )
      ).decision?.tier,
    ).toBe('default');
    expect(
      (
        await p.check(
          call,
          undefined,
          near([
            { key: allow, similarity: 0.95 },
            { key: deny, similarity: 0.95 },
          ]),
        )
      ).decision?.tier,
    ).toBe('default');
    expect(
      (
        await p.check(
          call,
          undefined,
          near([
            { key: allow, similarity: 0.96 },
            { key: deny, similarity: 0.95 },
          ]),
        )
      ).decision?.tier,
    ).toBe('embedding');
  });

  it.each([
    ['a program it never ran', 'mytool lint src/a.ts', 'othertool lint src/a.ts'],
    ['a script it never ran', './scripts/a.sh src/a.ts', './scripts/b.sh src/a.ts'],
    ['different inline code', `python3 -c 'print(1)'`, `python3 -c 'print(2)'`],
    ['a wrapper it never ran', 'mytool lint src/a.ts', 'nice mytool lint src/a.ts'],
    ['a pipe into a program it never ran', 'mytool lint src/a.ts', 'mytool lint src/a.ts | tee /dev/null'],
    ['an added option', 'mytool lint src/a.ts', 'mytool lint --fix src/a.ts'],
    ['a dropped option', 'mytool lint --dry-run src/a.ts', 'mytool lint src/a.ts'],
    ['an added operand', 'mytool env rm', 'mytool env rm API_URL'],
    ['a swapped number', 'mytool runlevel 1', 'mytool runlevel 6'],
    ['a swapped word', 'mytool env list', 'mytool env purge'],
    ['a file swapped for one outside the project', 'mytool lint src/a.ts', 'mytool lint /etc/hosts.conf'],
    ['a file swapped for one in another outside directory', 'mytool lint /tmp/x/a.log', 'mytool lint /var/log/a.log'],
  ])('never across %s', async (_what, remembered, command) => {
    expect((await answerNear(remembered, command, 0.99))?.tier).toBe('default');
  });

  it('a guard-railed neighbour does not hide a nearer-than-threshold one behind it', async () => {
    const p = await setup();
    await rememberCommand(p, 'othertool lint src/a.ts', 'allow');
    await rememberCommand(p, 'mytool lint src/a.ts', 'allow');
    const r = await p.check(
      p.pre('Bash', bash('mytool lint src/b.ts')),
      undefined,
      near([
        { key: await keyOf(p, 'othertool lint src/a.ts'), similarity: 0.99 },
        { key: await keyOf(p, 'mytool lint src/a.ts'), similarity: 0.91 },
      ]),
    );
    expect(r.decision).toMatchObject({ verdict: 'allow', tier: 'embedding', confidence: 0.91 });
  });

  it('never for a call that loses data, nor one that asks to leave the host sandbox', async () => {
    const p = await setup();
    await rememberCommand(p, 'mytool lint src/a.ts', 'allow');
    const options = near([{ key: await keyOf(p, 'mytool lint src/a.ts'), similarity: 0.99 }]);
    expect(
      (await p.check(p.pre('Bash', bash('mytool lint src/a.ts > README.md')), undefined, options)).decision?.tier,
    ).toBe('default');
    expect(
      (
        await p.check(
          p.pre('Bash', { ...bash('mytool lint src/b.ts'), dangerouslyDisableSandbox: true }),
          undefined,
          options,
        )
      ).decision?.tier,
    ).toBe('default');
  });

  it('never reaches a host the remembered call did not', async () => {
    const p = await setup();
    // Jaccard only for identical calls here, so every near match below is the embedding tier's to judge.
    p.write(`${p.configDir}/config.yml`, 'memory:\n  jaccard_threshold: 1\n');
    await rememberCommand(p, 'mytool fetch https://data.example.org/a.csv data/a.csv', 'allow');
    const key = await keyOf(p, 'mytool fetch https://data.example.org/a.csv data/a.csv');
    const options = near([{ key, similarity: 0.99 }]);
    expect(
      (await p.check(p.pre('Bash', bash('mytool fetch https://data.example.org/a.csv data/b.csv')), undefined, options))
        .decision?.tier,
    ).toBe('embedding');
    // A URL is never a file operand: a different URL, even on the same host, is a different call.
    expect(
      (await p.check(p.pre('Bash', bash('mytool fetch https://data.example.org/b.csv data/a.csv')), undefined, options))
        .decision?.tier,
    ).toBe('default');
    expect(
      (await p.check(p.pre('Bash', bash('mytool fetch https://evil.example.net/a.csv data/a.csv')), undefined, options))
        .decision?.tier,
    ).toBe('default');
  });

  it('an unavailable pool, or no port at all (command mode without a daemon), passes on', async () => {
    const p = await setup();
    await rememberCommand(p, 'mytool lint src/a.ts', 'allow');
    expect(
      (
        await p.check(
          p.pre('Bash', bash('mytool lint src/b.ts')),
          undefined,
          near({ unavailable: 'the embedding worker is restarting' }),
        )
      ).decision?.tier,
    ).toBe('default');
    expect((await p.check(p.pre('Bash', bash('mytool lint src/b.ts')))).decision?.tier).toBe('default');
  });

  it('file tools are exact-only: a near path is a different file', async () => {
    const p = await setup();
    const seen: string[] = [];
    const r = await p.check(
      p.pre('Write', { file_path: `${p.root}/notes/b.txt`, content: 'x' }),
      undefined,
      near([], seen),
    );
    expect(r.decision?.tier).not.toBe('embedding');
    expect(seen).toEqual([]);
  });
});

describe('tier 2b: the model proposes, the grammar decides (memory/form.ts)', () => {
  it.each([
    ['free text', "echo 'first note' > notes.txt", "echo 'something else entirely' > todo.txt"],
    ['numbers', 'seq 1 10 > nums.txt', 'seq 40 9000 > other.txt'],
    ['a pattern', "rg -n 'needle' src > hits.txt", "rg -n 'other|thing' src > hits.txt"],
  ])('a neighbour of the same form decides, over %s', async (_what, remembered, command) => {
    const d = await answerNear(remembered, command, 0.95);
    expect(d?.verdict).toBe('allow');
    expect(['jaccard', 'embedding']).toContain(d?.tier);
  });

  it.each([
    ['an option', 'sort -o sorted.txt input.txt', 'sort -r -o sorted.txt input.txt'],
    ['a subcommand', 'go test ./pkg -run TestA > out.txt', 'go vet ./pkg > out.txt'],
    ['code (a jq program)', "jq '.name' a.json > out.txt", "jq '.token' a.json > out.txt"],
    ['a number the catalogue does not know as one', 'mytool runlevel 1', 'mytool runlevel 6'],
    ['a write class', "echo 'a' > notes.txt ; echo 'b' > src/gen.ts", "echo 'a' > notes.txt ; echo 'b' > more.txt"],
    ['the process a signal goes to', 'kill 4242', 'kill 1'],
    ['a file in a hidden directory', 'ls -la src/a > reports/a.txt', 'ls -la src/b > .git/info/attributes'],
    [
      'a file in a hidden directory, by shape',
      'mytool pack logs/a.log archive/a.gz',
      'mytool pack logs/a.log .git/a.gz',
    ],
  ])('a neighbour of another form never decides: %s', async (_what, remembered, command) => {
    const d = await answerNear(remembered, command, 0.99);
    expect(d?.verdict).not.toBe('allow');
    expect(['jaccard', 'embedding']).not.toContain(d?.tier);
  });
});
