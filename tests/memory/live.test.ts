import {
  appendFileSync,
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Verdict } from '../../src/core/decision.js';
import { cacheKey } from '../../src/memory/cache.js';
import { indexFile, INDEX_MIN_RECORDS } from '../../src/memory/index-file.js';
import { LiveMemory, LiveMemoryPool } from '../../src/memory/live.js';
import { loadMemory, type MemorySources } from '../../src/memory/load.js';
import {
  appendRecords,
  compactScope,
  fileFor,
  formatProblem,
  serializeRecord,
  type DecisionRecord,
  type LoadedRecord,
  type StoreScope,
  type StoreTarget,
} from '../../src/memory/store.js';
import { tokenize, type TokenContext } from '../../src/memory/tokens.js';
import type { MemoryView } from '../../src/memory/view.js';
import type { Sanitized } from '../../src/sanitize/index.js';
import { prng } from '../support/prng.js';

// Plain temp directories (not tests/support/project.ts): this suite needs no CLI, engine or git.
const cleanups: string[] = [];
afterEach(() => {
  while (cleanups.length > 0) rmSync(cleanups.pop()!, { recursive: true, force: true });
});

interface Dirs extends MemorySources {
  home: string;
  ctx: TokenContext;
}

function dirs(): Dirs {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'hookwise-live-')));
  cleanups.push(base);
  const projectRoot = join(base, 'project');
  const home = join(base, 'home');
  mkdirSync(projectRoot, { recursive: true });
  mkdirSync(home, { recursive: true });
  return {
    projectRoot,
    home,
    userConfigDir: join(home, '.config', 'hookwise'),
    runtimeDir: join(base, 'runtime'),
    ctx: { projectRoot, home },
  };
}

function target(d: Dirs, scope: StoreScope, sessionId = 's1', org = 'acme'): StoreTarget {
  switch (scope) {
    case 'user':
      return { scope, userConfigDir: d.userConfigDir };
    case 'project':
      return { scope, projectRoot: d.projectRoot };
    case 'org':
      return { scope, userConfigDir: d.userConfigDir, org };
    case 'session':
      return { scope, runtimeDir: d.runtimeDir, sessionId };
  }
}

const VERBS = ['make', 'npm', 'cargo', 'docker', 'kubectl'];
let clock = Date.parse('2026-02-01T00:00:00.000Z');
const nextTs = (): string => new Date((clock += 1000)).toISOString();

/** A remembered shell call (a similarity candidate): subject, key and commands consistent. */
function call(i: number, scope: StoreScope, fields: Partial<DecisionRecord> = {}): DecisionRecord {
  const verb = VERBS[i % VERBS.length]!;
  const subject = `${verb} task-${i % 37} --level ${i % 5} --shard ${i}` as Sanitized;
  return {
    key: cacheKey('Bash', subject),
    tool: 'Bash',
    subject,
    commands: [verb],
    role: 'coder',
    verdict: 'allow',
    reason: 'test' as Sanitized,
    tier: 'human',
    scope,
    decided_by: 'human',
    ts: nextTs(),
    ...fields,
  };
}

function override(
  pattern: string,
  scope: StoreScope,
  verdict: Verdict,
  fields: Partial<DecisionRecord> = {},
): DecisionRecord {
  const subject = `Bash(${pattern})` as Sanitized;
  return {
    key: `override:${cacheKey('override', subject)}`,
    tool: 'Bash',
    subject,
    role: 'coder',
    verdict,
    reason: 'test' as Sanitized,
    tier: 'override',
    scope,
    decided_by: 'human',
    ts: nextTs(),
    ...fields,
  };
}

const same = (r: LoadedRecord | undefined): string | undefined =>
  r === undefined ? undefined : `${serializeRecord(r)} @${r.file}:${r.line}`;

function similarKeys(view: MemoryView, subject: string, ctx: TokenContext): string[] {
  return view
    .similar(tokenize(subject, ctx), ctx)
    .map(
      (c) =>
        `${c.score.toFixed(6)} ${c.record.key} ${c.record.role} ${c.record.scope} ${c.record.verdict} ${c.record.ts} ${c.record.file}:${c.record.line}`,
    )
    .sort();
}

describe('live memory (daemon): appends become visible without a reload', () => {
  it('a record appended to the user and the project scope is looked up on the next load, incrementally', () => {
    const d = dirs();
    appendRecords(target(d, 'project'), [call(1, 'project')]);
    const live = new LiveMemory(d, 0.7);
    const first = live.load();
    expect(first.freshness).toBe('unchanged');
    expect(first.view.lookup(call(1, 'project').key, 'coder')?.scope).toBe('project');

    const u = call(2, 'user');
    const p = call(3, 'project', { verdict: 'deny' });
    appendRecords(target(d, 'user'), [u]);
    appendRecords(target(d, 'project'), [p]);
    const next = live.load();
    expect(next.freshness).toBe('appended');
    expect(live.stats.fullLoads).toBe(1);
    expect(next.view.lookup(u.key, 'coder')).toMatchObject({
      verdict: 'allow',
      scope: 'user',
      file: fileFor(target(d, 'user'), 'allow'),
      line: 1,
    });
    expect(next.view.lookup(p.key, 'coder')).toMatchObject({
      verdict: 'deny',
      scope: 'project',
      file: fileFor(target(d, 'project'), 'deny'),
      line: 1,
    });
    expect(next.view.size).toBe(3);

    // Nothing changed: the same view object, and no reading.
    const again = live.load();
    expect(again.freshness).toBe('unchanged');
    expect(again.view).toBe(next.view);
  });

  it('a view keeps answering as of when it was taken; a newer one sees the newer records', () => {
    const d = dirs();
    appendRecords(target(d, 'user'), [call(1, 'user')]);
    const live = new LiveMemory(d, 0.7);
    const before = live.load().view;
    const denied = call(1, 'user', { verdict: 'deny' });
    appendRecords(target(d, 'user'), [denied, call(2, 'user')]);
    const after = live.load().view;
    expect(before.lookup(denied.key, 'coder')?.verdict).toBe('allow');
    expect(before.lookup(call(2, 'user').key, 'coder')).toBeUndefined();
    expect(before.size).toBe(1);
    expect(before.similar(tokenize(call(2, 'user').subject, d.ctx), d.ctx)).toEqual([]);
    expect(after.similar(tokenize(call(2, 'user').subject, d.ctx), d.ctx).map((c) => c.record.key)).toEqual([
      call(2, 'user').key,
    ]);
    expect(after.lookup(denied.key, 'coder')?.verdict).toBe('deny');
    expect(after.size).toBe(2);
  });

  it('similarity candidates include an appended record, and a superseded one drops out', () => {
    const d = dirs();
    const old = call(10, 'project');
    appendRecords(target(d, 'project'), [old, call(11, 'project')]);
    const live = new LiveMemory(d, 0.5);
    const query = `make task-10 --level 0 --shard 999`;
    expect(similarKeys(live.load().view, query, d.ctx).some((s) => s.includes(old.key))).toBe(true);

    const appended = call(195, 'user'); // make task-10 --level 0 --shard 195
    appendRecords(target(d, 'user'), [appended]);
    const found = live.load().view.similar(tokenize(query, d.ctx), d.ctx);
    expect(found.map((c) => c.record.key)).toContain(appended.key);

    // The project's decision about the same call changes to deny (another file of the scope): only the new one is a candidate.
    appendRecords(target(d, 'project'), [{ ...old, verdict: 'deny', ts: nextTs() }]);
    const now = live.load();
    expect(now.freshness).toBe('appended');
    const same10 = now.view.similar(tokenize(query, d.ctx), d.ctx).filter((c) => c.record.key === old.key);
    expect(same10.map((c) => c.record.verdict)).toEqual(['deny']);
    expect(now.view.lookup(old.key, 'coder')?.verdict).toBe('deny');
    expect(live.stats.fullLoads).toBe(1);
  });

  it('an appended override applies, and a newer one for the same pattern replaces it', () => {
    const d = dirs();
    appendRecords(target(d, 'user'), [call(1, 'user')]);
    const live = new LiveMemory(d, 0.7);
    expect(live.load().view.overrides).toEqual([]);
    const allow = override('npm run *', 'user', 'allow');
    appendRecords(target(d, 'user'), [allow]);
    const first = live.load();
    expect(first.freshness).toBe('appended');
    expect(first.view.overrides.map((o) => [o.tool, o.pattern, o.record.verdict])).toEqual([
      ['Bash', 'npm run *', 'allow'],
    ]);

    appendRecords(target(d, 'user'), [{ ...allow, verdict: 'deny', ts: nextTs() }]);
    const second = live.load();
    expect(second.view.overrides.map((o) => [o.pattern, o.record.verdict])).toEqual([['npm run *', 'deny']]);
    expect(first.view.overrides.map((o) => o.record.verdict)).toEqual(['allow']);
    // An older record for the same identity (a clock behind) loses, as in a full load.
    appendRecords(target(d, 'user'), [{ ...allow, ts: '2020-01-01T00:00:00.000Z' }]);
    expect(live.load().view.overrides.map((o) => o.record.verdict)).toEqual(['deny']);
    expect(live.stats.fullLoads).toBe(1);
  });

  it('a partial trailing line is left until it is complete', () => {
    const d = dirs();
    appendRecords(target(d, 'user'), [call(1, 'user')]);
    const live = new LiveMemory(d, 0.7);
    live.load();
    const r = call(2, 'user');
    const line = serializeRecord(r);
    const file = fileFor(target(d, 'user'), 'allow');
    appendFileSync(file, line.slice(0, 50));
    const torn = live.load();
    expect(torn.view.lookup(r.key, 'coder')).toBeUndefined();
    expect(torn.problems).toEqual([]);
    expect(live.load().problems).toEqual([]);
    appendFileSync(file, line.slice(50, 120));
    expect(live.load().view.lookup(r.key, 'coder')).toBeUndefined();
    appendFileSync(file, `${line.slice(120)}\n`);
    const done = live.load();
    expect(done.freshness).toBe('appended');
    expect(done.view.lookup(r.key, 'coder')).toMatchObject({ verdict: 'allow', line: 2 });
    expect(done.problems).toEqual([]);
    expect(live.stats.fullLoads).toBe(1);
  });

  it('a compaction (files replaced by rename) and a truncation reload, with the right records', () => {
    const d = dirs();
    const t = target(d, 'project');
    const a = call(1, 'project');
    const b = call(2, 'project');
    appendRecords(t, [a, b, { ...a, verdict: 'ask', ts: nextTs() }]);
    const live = new LiveMemory(d, 0.7);
    expect(live.load().view.lookup(a.key, 'coder')?.verdict).toBe('ask');

    compactScope(t);
    const compacted = live.load();
    expect(compacted.freshness).toBe('loaded');
    expect(live.stats.fullLoads).toBe(2);
    expect(live.stats.lastReload).toMatch(/replaced|removed/);
    expect(same(compacted.view.lookup(a.key, 'coder'))).toBe(same(loadMemory(d, 0.7).view.lookup(a.key, 'coder')));
    expect(compacted.view.lookup(b.key, 'coder')?.file).toBe(fileFor(t, 'allow'));

    // Truncated in place (same inode, smaller): b is gone.
    const allowFile = fileFor(t, 'allow');
    const inode = statSync(allowFile).ino;
    writeFileSync(allowFile, '');
    expect(statSync(allowFile).ino).toBe(inode);
    const truncated = live.load();
    expect(truncated.freshness).toBe('loaded');
    expect(live.stats.lastReload).toMatch(/shrank/);
    expect(truncated.view.lookup(b.key, 'coder')).toBeUndefined();
    expect(truncated.view.lookup(a.key, 'coder')?.verdict).toBe('ask');
  });

  it('a rewrite in place that grows the file is not taken for an append', () => {
    const d = dirs();
    const file = fileFor(target(d, 'user'), 'allow');
    const a = call(1, 'user');
    appendRecords(target(d, 'user'), [a]);
    const live = new LiveMemory(d, 0.7);
    live.load();
    const denied = serializeRecord({ ...a, verdict: 'deny' });
    writeFileSync(file, `${denied}\n${serializeRecord(call(2, 'user'))}\n`); // same inode, longer, first line changed
    const got = live.load();
    expect(got.freshness).toBe('loaded');
    expect(got.view.lookup(a.key, 'coder')?.verdict).toBe('deny');
    expect(readFileSync(file, 'utf8').startsWith(denied)).toBe(true);
  });

  it('a same-length edit of the first line of a large file, then an append, is not taken for an append alone', () => {
    const d = dirs();
    const t = target(d, 'user');
    const file = fileFor(t, 'allow');
    const records = Array.from({ length: 60 }, (_, i) => call(i, 'user'));
    appendRecords(t, records);
    expect(statSync(file).size).toBeGreaterThan(3 * 4096);
    const live = new LiveMemory(d, 0.7);
    live.load();
    const first = serializeRecord(records[0]!);
    const edited = serializeRecord({ ...records[0]!, reason: 'TEST' as Sanitized });
    expect(edited.length).toBe(first.length);
    writeFileSync(file, readFileSync(file, 'utf8').replace(first, edited)); // in place: same inode, same size
    appendRecords(t, [call(100, 'user')]); // ... and then it grew
    const got = live.load();
    expect(got.freshness).toBe('loaded');
    expect(live.stats.lastReload).toMatch(/rewritten/);
    expect(got.view.lookup(records[0]!.key, 'coder')?.reason).toBe('TEST');
  });

  it('where a record lies decides ties as a full load does (a misfiled record in a later file wins an exact tie)', () => {
    const d = dirs();
    const t = target(d, 'project');
    const base = call(1, 'project', { reason: 'in the deny file' as Sanitized });
    mkdirSync(join(fileFor(t, 'deny'), '..'), { recursive: true });
    writeFileSync(fileFor(t, 'deny'), `${serializeRecord(base)}\n`); // an allow filed under deny (kept, reported)
    const live = new LiveMemory(d, 0.7);
    expect(live.load().view.lookup(base.key, 'coder')?.reason).toBe('in the deny file');
    appendRecords(t, [{ ...base, reason: 'appended to allow' as Sanitized }]); // same ts and verdict, an earlier file
    appendRecords(t, [{ ...call(2, 'project'), ts: base.ts }]);
    const got = live.load();
    expect(got.freshness).toBe('appended');
    const fresh = loadMemory(d, 0.7);
    expect(fresh.view.lookup(base.key, 'coder')?.reason).toBe('in the deny file');
    expect(same(got.view.lookup(base.key, 'coder'))).toBe(same(fresh.view.lookup(base.key, 'coder')));
    // and the other way round: the same tie appended to a later file wins over the earlier one
    appendRecords(t, [
      { ...base, verdict: 'ask', reason: 'x' as Sanitized },
      { ...base, verdict: 'ask', reason: 'y' as Sanitized },
    ]);
    expect(same(live.load().view.lookup(base.key, 'coder'))).toBe(
      same(loadMemory(d, 0.7).view.lookup(base.key, 'coder')),
    );
    expect(live.load().view.lookup(base.key, 'coder')?.reason).toBe('y');
  });

  it('a refresh that fails midway loses nothing: the next load starts over', () => {
    const d = dirs();
    appendRecords(target(d, 'project'), [call(1, 'project', { verdict: 'deny' })]);
    const live = new LiveMemory(d, 0.7);
    live.load();
    const u = call(2, 'user');
    appendRecords(target(d, 'user'), [u]); // read (consumed) first: the user file comes before the project's
    const ask = fileFor(target(d, 'project'), 'ask');
    mkdirSync(ask); // ... then the project's (new) ask.jsonl cannot be read
    expect(() => live.load()).toThrow(/EISDIR/);
    rmSync(ask, { recursive: true }); // as if it had never been there: only the failed refresh knows
    const got = live.load();
    expect(got.freshness).toBe('loaded');
    expect(got.view.lookup(u.key, 'coder')?.verdict).toBe('allow');
  });

  it('a corrupt appended line costs only that line, and is reported as file:line', () => {
    const d = dirs();
    const t = target(d, 'user');
    appendRecords(t, [call(1, 'user')]);
    const live = new LiveMemory(d, 0.7);
    live.load();
    const file = fileFor(t, 'allow');
    appendFileSync(file, '{"key": "not a record"\n');
    const bad = live.load();
    expect(bad.freshness).toBe('appended');
    expect(bad.problems.map(formatProblem)).toEqual([expect.stringMatching(new RegExp(`^${file}:2: not JSON`))]);
    appendFileSync(file, '{"key":"k2","tool":"Bash"}\n');
    const good = call(2, 'user');
    appendRecords(t, [good]);
    const got = live.load();
    expect(got.freshness).toBe('appended');
    expect(got.view.lookup(good.key, 'coder')).toMatchObject({ line: 4 });
    expect(got.problems.map(formatProblem)).toEqual([
      expect.stringMatching(new RegExp(`^${file}:2: not JSON`)),
      expect.stringMatching(new RegExp(`^${file}:3: `)),
    ]);
    expect(got.problems.map(formatProblem)).toEqual(loadMemory(d, 0.7).problems.map(formatProblem));
  });

  it('a session scope follows appends too, per session id, with a bounded number of sessions kept', () => {
    const d = dirs();
    const live = new LiveMemory(d, 0.7, { maxSessions: 2 });
    const r = call(1, 'session');
    expect(live.load('s1').view.lookup(r.key, 'coder')).toBeUndefined();
    appendRecords(target(d, 'session', 's1'), [r]); // the session's file appears: it grew from nothing
    const got = live.load('s1');
    expect(got.freshness).toBe('appended');
    expect(got.view.lookup(r.key, 'coder')).toMatchObject({ scope: 'session', line: 1 });
    const more = call(2, 'session', { verdict: 'ask' });
    appendRecords(target(d, 'session', 's1'), [more]);
    expect(live.load('s1').view.lookup(more.key, 'coder')).toMatchObject({ verdict: 'ask', line: 2 });
    expect(live.stats.sessionLoads).toBe(1);
    expect(live.load('s2').view.lookup(r.key, 'coder')).toBeUndefined();
    expect(live.load().view.lookup(r.key, 'coder')).toBeUndefined();
    live.load('s3');
    expect(live.sessionCount).toBe(2);
    expect(live.load('s1').view.lookup(more.key, 'coder')?.verdict).toBe('ask'); // evicted, loaded again
    expect(live.stats.sessionLoads).toBe(4);
  });

  it('a new org, and a new file in an org, are seen', () => {
    const d = dirs();
    const live = new LiveMemory(d, 0.7);
    live.load();
    const r = call(1, 'org', { verdict: 'deny' });
    appendRecords(target(d, 'org', 's1', 'acme'), [r]);
    const got = live.load();
    expect(got.freshness).toBe('loaded'); // an org was added
    expect(got.view.lookup(r.key, 'coder')).toMatchObject({ scope: 'org', verdict: 'deny' });
    const s = call(2, 'org', { verdict: 'ask' });
    appendRecords(target(d, 'org', 's1', 'acme'), [s]); // ask.jsonl appears next to deny.jsonl
    const next = live.load();
    expect(next.freshness).toBe('appended');
    expect(next.view.lookup(s.key, 'coder')).toMatchObject({ scope: 'org', verdict: 'ask' });
  });

  it('two orgs are two scopes: a newer allow appended by one org never replaces the deny of another', () => {
    const d = dirs();
    const deny = call(1, 'org', { verdict: 'deny' });
    appendRecords(target(d, 'org', 's1', 'acme'), [deny]);
    appendRecords(target(d, 'org', 's1', 'beta'), [call(2, 'org')]);
    const live = new LiveMemory(d, 0.7);
    expect(live.load().view.lookup(deny.key, 'coder')?.verdict).toBe('deny');
    appendRecords(target(d, 'org', 's1', 'beta'), [{ ...deny, verdict: 'allow', ts: nextTs() }]);
    const got = live.load();
    expect(got.freshness).toBe('appended');
    expect(loadMemory(d, 0.7).view.lookup(deny.key, 'coder')?.verdict).toBe('deny');
    expect(got.view.lookup(deny.key, 'coder')?.verdict).toBe('deny');
    expect(got.view.size).toBe(3);
  });

  it('answers lookup() and similar() exactly like a fresh loadMemory after many random appends', () => {
    for (const minRecords of [INDEX_MIN_RECORDS, 40]) {
      const d = dirs();
      const random = prng(minRecords);
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
      const appended: DecisionRecord[] = [];
      const seed: DecisionRecord[] = [];
      for (let i = 0; i < 60; i++)
        seed.push(
          call(i, pick(['user', 'project'] as const), {
            role: pick(['coder', '*', 'tester']),
            verdict: pick(['allow', 'allow', 'ask', 'deny'] as const),
          }),
        );
      for (const r of seed) appendRecords(target(d, r.scope), [r]);
      const live = new LiveMemory(d, 0.5, { minRecords });
      expect(live.load('s1').via).toBe(minRecords === 40 ? 'built' : 'jsonl');
      for (let round = 0; round < 12; round++) {
        for (let n = 0; n < 15; n++) {
          const scope = pick(['user', 'project', 'session'] as const);
          const roll = random();
          let r: DecisionRecord;
          const earlier = [...seed, ...appended].filter((x) => x.scope === scope);
          if (roll < 0.35 && earlier.length > 0) {
            // the same decision again: newer, equal or older ts, maybe another verdict
            const prev = pick(earlier);
            const ts =
              random() < 0.3 ? prev.ts : random() < 0.5 ? new Date(Date.parse(prev.ts) - 1).toISOString() : nextTs();
            r = {
              ...prev,
              verdict: pick(['allow', 'ask', 'deny'] as const),
              ts,
              reason: `again ${round}` as Sanitized,
            };
          } else if (roll < 0.45) {
            r = override(
              `${pick(VERBS)} task-${Math.floor(random() * 5)} *`,
              scope,
              pick(['allow', 'ask', 'deny'] as const),
              { role: pick(['coder', '*']) },
            );
          } else if (roll < 0.5) {
            const file =
              scope === 'session'
                ? fileFor(target(d, scope), 'allow')
                : fileFor(target(d, scope), pick(['allow', 'ask', 'deny'] as const));
            mkdirSync(join(file, '..'), { recursive: true });
            appendFileSync(file, `{"broken": ${round}\n`);
            continue;
          } else {
            r = call(100 + Math.floor(random() * 400), scope, {
              role: pick(['coder', '*', 'tester']),
              verdict: pick(['allow', 'allow', 'ask', 'deny'] as const),
            });
          }
          appended.push(r);
          appendRecords(target(d, scope), [r]);
        }
        const got = live.load('s1');
        expect(got.freshness).toBe('appended');
        const fresh = loadMemory({ ...d, sessionId: 's1' }, 0.5, { minRecords });
        expect(got.view.size).toBe(fresh.view.size);
        const keys = new Set([...seed, ...appended].map((r) => r.key));
        for (const key of keys) {
          for (const role of ['coder', 'tester', 'reviewer'])
            expect(same(got.view.lookup(key, role))).toBe(same(fresh.view.lookup(key, role)));
        }
        const overrides = (v: MemoryView): string[] => v.overrides.map((o) => same(o.record)!).sort();
        expect(overrides(got.view)).toEqual(overrides(fresh.view));
        for (let q = 0; q < 20; q++) {
          const subject = `${pick(VERBS)} task-${Math.floor(random() * 37)} --level ${Math.floor(random() * 5)} --shard ${Math.floor(random() * 500)}`;
          expect(similarKeys(got.view, subject, d.ctx)).toEqual(similarKeys(fresh.view, subject, d.ctx));
        }
        expect(got.problems.map(formatProblem).sort()).toEqual(fresh.problems.map(formatProblem).sort());
      }
      expect(live.stats.fullLoads).toBe(1);
      expect(live.stats.sessionLoads).toBe(1);
    }
  });

  it('a large store loaded through the index takes appends without rewriting memory.idx', () => {
    const d = dirs();
    const t = target(d, 'project');
    appendRecords(
      t,
      Array.from({ length: INDEX_MIN_RECORDS + 100 }, (_, i) => call(i, 'project')),
    );
    const built = new LiveMemory(d, 0.7);
    expect(built.load().via).toBe('built');
    const idx = indexFile(d.projectRoot);
    const before = statSync(idx);
    const live = new LiveMemory(d, 0.7);
    expect(live.load().via).toBe('index');

    const r = call(5000, 'project', { verdict: 'deny' });
    const replaced = call(7, 'project', { verdict: 'ask', ts: nextTs() });
    appendRecords(t, [r, replaced]);
    for (const m of [live, built]) {
      const got = m.load();
      expect(got.freshness).toBe('appended');
      expect(got.view.lookup(r.key, 'coder')).toMatchObject({ verdict: 'deny', file: fileFor(t, 'deny') });
      expect(got.view.lookup(replaced.key, 'coder')?.verdict).toBe('ask');
      expect(got.view.size).toBe(INDEX_MIN_RECORDS + 101);
      const similar = got.view.similar(tokenize(r.subject, d.ctx), d.ctx);
      expect(similar[0]).toMatchObject({ score: 1, record: { key: r.key } });
      expect(
        got.view
          .similar(tokenize(replaced.subject, d.ctx), d.ctx)
          .filter((c) => c.record.key === replaced.key)
          .map((c) => c.record.verdict),
      ).toEqual(['ask']);
    }
    const after = statSync(idx);
    expect([after.ino, after.mtimeMs, after.size]).toEqual([before.ino, before.mtimeMs, before.size]);
    expect(live.stats.fullLoads).toBe(1);
  });

  it('a pool keeps one live memory per project, and serves sessions from it', () => {
    const a = dirs();
    const pool = new LiveMemoryPool();
    const r = call(1, 'project');
    appendRecords(target(a, 'project'), [r]);
    expect(pool.load({ ...a, sessionId: 's1' }, 0.7).view.lookup(r.key, 'coder')?.verdict).toBe('allow');
    appendRecords(target(a, 'project'), [{ ...r, verdict: 'deny', ts: nextTs() }]);
    const got = pool.load({ ...a, sessionId: 's2' }, 0.7);
    expect(got.freshness).toBe('loaded'); // s2's first use; the project scope came incrementally
    expect(got.view.lookup(r.key, 'coder')?.verdict).toBe('deny');
    expect(pool.load(a, 0.8).view.jaccardThreshold).toBe(0.8);
  });
});

describe('live memory: session files that are not ours', () => {
  it('a session rules file others may write is refused, whether there at the first load or appearing later', () => {
    const d = dirs();
    const live = new LiveMemory(d, 0.7);
    live.load('s1'); // no file yet
    appendRecords(target(d, 'session', 's1'), [call(1, 'session')]);
    chmodSync(fileFor(target(d, 'session', 's1'), 'allow'), 0o666);
    expect(() => live.load('s1')).toThrow(/writable by others/);
    expect(() => new LiveMemory(d, 0.7).load('s1')).toThrow(/writable by others/);
  });
});
