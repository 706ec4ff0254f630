import { existsSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileIndex, indexFile, loadIndexed, readIndex } from '../../src/memory/index-file.js';
import { LiveMemory } from '../../src/memory/live.js';
import { appendRecords, type DecisionRecord, type StoreTarget } from '../../src/memory/store.js';
import { MemoryView, RawRecordSet } from '../../src/memory/view.js';
import { xxh64BytesHex } from '../../src/util/xxhash.js';
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

  it('a touched file with the same content (git checkout) keeps it; an edit that is not an append rebuilds it', () => {
    const p = makeProject();
    const targets = seed(p, 30, 10);
    const ctx = { projectRoot: p.root, home: p.home };
    loadIndexed(targets, ctx, { minRecords: 1 });
    const file = join(p.root, '.hookwise', 'rules', 'allow.jsonl');
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    expect(loadIndexed(targets, ctx, { minRecords: 1 }).via).toBe('index');
    // the same length, one byte changed in the first line: not an append
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.replace('"reason":"test"', '"reason":"tesT"'));
    const after = loadIndexed(targets, ctx, { minRecords: 1 });
    expect(after.via).toBe('built');
    expect(after.set.size).toBe(40);
    expect(loadIndexed(targets, ctx, { minRecords: 1 }).via).toBe('index');
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

// ── integrity: a damaged index is never trusted ──────────────────────────────────────────────────────────

/**
 * Where the parts of an index file are, found the way any version of it lays them out: the header is the
 * JSON object that starts with `{"format":`, its length the u32 just before it, the body 8-aligned after it.
 */
function layout(bytes: Buffer): { headerAt: number; headerLength: number; bodyAt: number; sections: Record<string, [number, number]> } {
  const headerAt = bytes.indexOf('{"format":');
  const headerLength = bytes.readUInt32LE(headerAt - 4);
  const header = JSON.parse(bytes.toString('utf8', headerAt, headerAt + headerLength)) as { sections: Record<string, [number, number]> };
  return { headerAt, headerLength, bodyAt: (headerAt + headerLength + 7) & ~7, sections: header.sections };
}

/** A project store of 40 records with a deny, its index built, and what a load must answer. */
function indexedStore(p: TestProject): { targets: StoreTarget[]; ctx: { projectRoot: string; home: string }; deny: DecisionRecord; allow: DecisionRecord } {
  const targets = seed(p, 30, 10);
  const ctx = { projectRoot: p.root, home: p.home };
  const all = [...records(30, 'project'), ...records(10, 'user', 100_000)];
  expect(loadIndexed(targets, ctx, { minRecords: 1 }).via).toBe('built');
  return { targets, ctx, deny: all.find((r) => r.verdict === 'deny')!, allow: all.find((r) => r.verdict === 'allow' && r.role === 'coder')! };
}

function expectAnswers(load: ReturnType<typeof loadIndexed>, s: ReturnType<typeof indexedStore>): void {
  const view = new MemoryView([load.set], 0.5);
  expect(view.lookup(s.deny.key, 'coder')?.verdict).toBe('deny');
  expect(view.lookup(s.allow.key, 'coder')?.verdict).toBe('allow');
  expect(view.size).toBe(40);
  const similar = view.similar(tokenize(s.deny.subject, s.ctx), s.ctx);
  expect(similar[0]).toMatchObject({ score: 1, record: { key: s.deny.key, verdict: 'deny' } });
}

describe('compiled memory index: integrity', () => {
  it('a bit flipped in any section, in the header or in its length, or in the checksum: rebuilt, and the deny is still a deny', () => {
    const p = makeProject();
    const s = indexedStore(p);
    const pristine = readFileSync(indexFile(p.root));
    const { headerAt, headerLength, bodyAt, sections } = layout(pristine);
    const places: [string, number][] = [
      ['checksum', 8 + 3],
      ['header length', headerAt - 4],
      ['header', headerAt + Math.floor(headerLength / 2)],
      ...Object.entries(sections).map(([name, [offset, length]]): [string, number] => {
        expect(length, name).toBeGreaterThan(0);
        return [name, bodyAt + offset + Math.floor(length / 2)];
      }),
    ];
    expect(places.map(([name]) => name)).toEqual(expect.arrayContaining(['keys', 'keyRecord', 'recordOffsets', 'records', 'similarRecord', 'setOffsets', 'setIds', 'postOffsets', 'postIds', 'vocabulary']));
    for (const [name, at] of places) {
      for (const bit of [0, 5]) {
        const bytes = Buffer.from(pristine);
        bytes[at] = bytes[at]! ^ (1 << bit);
        writeFileSync(indexFile(p.root), bytes);
        const load = loadIndexed(s.targets, s.ctx, { minRecords: 1 });
        expect(load.via, `bit ${bit} of ${name}`).toBe('built');
        expectAnswers(load, s);
        expect(readFileSync(indexFile(p.root)).equals(pristine), `${name}: rebuilt as it was`).toBe(true);
      }
    }
  });

  it('the deny record itself with one bit flipped (deny → denx): rebuilt, never read as another verdict', () => {
    const p = makeProject();
    const s = indexedStore(p);
    const bytes = readFileSync(indexFile(p.root));
    const { bodyAt, sections } = layout(bytes);
    const [offset, length] = sections.records!;
    const blob = bytes.subarray(bodyAt + offset, bodyAt + offset + length);
    const at = blob.indexOf(`"key":"${s.deny.key}"`);
    const verdict = blob.indexOf('"verdict":"deny"', at) + '"verdict":"den'.length;
    blob[verdict] = blob[verdict]! ^ 0x01; // y → x
    writeFileSync(indexFile(p.root), bytes);
    const load = loadIndexed(s.targets, s.ctx, { minRecords: 1 });
    expect(load.via).toBe('built');
    expectAnswers(load, s);
  });

  it('a truncated index (the header alone, or half the body) is rebuilt, and answers correctly', () => {
    const p = makeProject();
    const s = indexedStore(p);
    const pristine = readFileSync(indexFile(p.root));
    const { bodyAt } = layout(pristine);
    for (const end of [bodyAt, bodyAt + Math.floor((pristine.length - bodyAt) / 2), pristine.length - 1]) {
      writeFileSync(indexFile(p.root), pristine.subarray(0, end));
      const load = loadIndexed(s.targets, s.ctx, { minRecords: 1 });
      expect(load.via, `cut at ${end} of ${pristine.length}`).toBe('built');
      expectAnswers(load, s);
    }
  });

  it('the daemon does not trust a damaged index either', () => {
    const p = makeProject();
    const s = indexedStore(p);
    const bytes = readFileSync(indexFile(p.root));
    const { bodyAt, sections } = layout(bytes);
    const at = bodyAt + sections.keys![0] + 3;
    bytes[at] = bytes[at]! ^ 0x10;
    writeFileSync(indexFile(p.root), bytes);
    const live = new LiveMemory({ projectRoot: p.root, home: p.home, userConfigDir: p.configDir, runtimeDir: p.runtimeDir }, 0.5, { minRecords: 1 });
    const load = live.load();
    expect(load.via).toBe('built');
    expect(load.view.lookup(s.deny.key, 'coder')?.verdict).toBe('deny');
    expect(load.view.size).toBe(40);
  });

  it('readIndex rejects what is whole but inconsistent: sections that do not agree with the header', () => {
    const p = makeProject();
    const s = indexedStore(p);
    const good = compileIndex(s.targets, s.ctx).bytes;
    expect(readIndex(good)).toBeDefined();
    // rewrite the header with one count off, and a checksum that matches it
    const { headerAt, headerLength } = layout(good);
    const header = JSON.parse(good.toString('utf8', headerAt, headerAt + headerLength)) as { similarCount: number };
    header.similarCount += 1;
    const text = JSON.stringify(header);
    const padded = Buffer.from(text.length <= headerLength ? text.padEnd(headerLength, ' ') : text);
    expect(padded.length).toBe(headerLength);
    const bad = Buffer.from(good);
    padded.copy(bad, headerAt);
    bad.write(xxh64BytesHex(bad.subarray(24)), 8, 'latin1'); // the checksum field: 16 hex digits after the magic
    expect(readIndex(bad)).toBeUndefined();
  });
});
