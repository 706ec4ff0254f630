import { existsSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileIndex, indexFile, loadIndexed, readIndex } from '../../src/memory/index-file.js';
import { appendRecords, type DecisionRecord, type StoreTarget } from '../../src/memory/store.js';
import { RawRecordSet } from '../../src/memory/view.js';
import { tokenize } from '../../src/memory/tokens.js';
import { cacheKey } from '../../src/memory/cache.js';
import type { Sanitized } from '../../src/sanitize/index.js';
import { makeProject, type TestProject } from '../support/project.js';
import { targetOf } from '../support/memory.js';

const VERBS = ['make', 'npm', 'cargo', 'docker', 'kubectl'];

function records(n: number, scope: StoreTarget['scope'], offset = 0): DecisionRecord[] {
  return Array.from({ length: n }, (_, j) => {
    const i = j + offset;
    const subject = `${VERBS[i % VERBS.length]} task-${i % 37} --level ${i % 5} --shard ${i}` as Sanitized;
    return {
      key: cacheKey('Bash', subject),
      tool: 'Bash',
      subject,
      commands: [VERBS[i % VERBS.length]!],
      role: i % 3 === 0 ? '*' : 'coder',
      verdict: i % 11 === 0 ? 'deny' : i % 7 === 0 ? 'ask' : 'allow',
      reason: 'test' as Sanitized,
      tier: 'human',
      scope,
      decided_by: 'human',
      ts: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
    };
  });
}

function seed(p: TestProject, project: number, user: number): StoreTarget[] {
  const targets = [targetOf(p, 'user'), targetOf(p, 'project')];
  appendRecords(targets[0]!, records(user, 'user', 100_000));
  appendRecords(targets[1]!, records(project, 'project'));
  return targets;
}

describe('compiled memory index (.hookwise/.index/memory.idx)', () => {
  it('answers exactly what the parsed JSONL answers: lookups by key, similarity candidates, overrides', () => {
    const p = makeProject();
    const targets = seed(p, 300, 100);
    appendRecords(targets[0]!, [{ ...records(1, 'user')[0]!, key: 'override:0123456789abcdef', subject: 'Bash(make *)' as Sanitized, tier: 'override' }]);
    const ctx = { projectRoot: p.root, home: p.home };
    const compiled = compileIndex(targets, ctx);
    const indexed = readIndex(compiled.bytes)!;
    const raw = new RawRecordSet(compiled.records);
    expect(indexed.size).toBe(raw.size);
    expect(indexed.overrides()).toEqual(raw.overrides());
    for (const r of compiled.records.slice(0, 120)) expect(indexed.byKey(r.key)).toEqual(raw.byKey(r.key));
    expect(indexed.byKey('ffffffffffffffff')).toEqual([]);
    for (const q of ['make task-3 --level 3 --shard 3', 'docker task-9 --level 4', 'npm install']) {
      const tokens = tokenize(q, ctx);
      const a = indexed.similar().index.matches(tokens, 0.5).map((m) => indexed.similar().record(m.entry).key);
      const b = raw.similar(ctx).index.matches(tokens, 0.5).map((m) => raw.similar(ctx).record(m.entry).key);
      expect(a).toEqual(b);
    }
  });

  it('is written only for large stores, private and git-ignored; reused while its sources match', () => {
    const p = makeProject();
    const targets = seed(p, 30, 10);
    const ctx = { projectRoot: p.root, home: p.home };
    expect(loadIndexed(targets, ctx).via).toBe('jsonl');
    expect(existsSync(indexFile(p.root))).toBe(false);
    expect(loadIndexed(targets, ctx, { minRecords: 20 }).via).toBe('built');
    expect(statSync(indexFile(p.root)).mode & 0o777).toBe(0o600);
    expect(statSync(join(p.root, '.hookwise', '.index')).mode & 0o777).toBe(0o700);
    expect(readFileSync(join(p.root, '.hookwise', '.index', '.gitignore'), 'utf8')).toBe('*\n');
    expect(loadIndexed(targets, ctx, { minRecords: 20 }).via).toBe('index');
  });

  it('a new record rebuilds it; a touched file with the same content (git checkout) does not', () => {
    const p = makeProject();
    const targets = seed(p, 30, 10);
    const ctx = { projectRoot: p.root, home: p.home };
    loadIndexed(targets, ctx, { minRecords: 1 });
    const file = join(p.root, '.hookwise', 'rules', 'allow.jsonl');
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    expect(loadIndexed(targets, ctx, { minRecords: 1 }).via).toBe('index');
    appendRecords(targets[1]!, records(1, 'project', 500));
    const after = loadIndexed(targets, ctx, { minRecords: 1 });
    expect(after.via).toBe('built');
    expect(after.set.size).toBe(41);
  });

  it('a corrupt or foreign index file is rebuilt, never trusted', () => {
    const p = makeProject();
    const targets = seed(p, 30, 10);
    const ctx = { projectRoot: p.root, home: p.home };
    loadIndexed(targets, ctx, { minRecords: 1 });
    writeFileSync(indexFile(p.root), 'HWMEMIDX\u00ff\u00ff\u00ff\u00ffgarbage');
    expect(loadIndexed(targets, ctx, { minRecords: 1 }).via).toBe('built');
    writeFileSync(indexFile(p.root), 'not an index');
    expect(loadIndexed(targets, ctx, { minRecords: 1 }).via).toBe('built');
  });

  it('check answers from it: a large project store, an exact-cache hit, the index on disk', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    seed(p, 600, 0);
    const r = await p.check(p.pre('Bash', { command: 'make task-5 --level 0 --shard 5' }));
    expect(r.decision).toMatchObject({ verdict: 'allow', tier: 'exact-cache' });
    expect(existsSync(indexFile(p.root))).toBe(true);
    const again = await p.check(p.pre('Bash', { command: 'make task-5 --level 0 --shard 5' }));
    expect(again.decision).toMatchObject({ verdict: 'allow', tier: 'exact-cache' });
    // 0 % 11 = 0: shard 0 was remembered as deny.
    expect((await p.check(p.pre('Bash', { command: 'make task-0 --level 0 --shard 0' }))).decision).toMatchObject({ verdict: 'deny', tier: 'exact-cache' });
  });
});
