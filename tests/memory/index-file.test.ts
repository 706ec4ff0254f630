import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  compileIndex,
  compileRecords,
  indexFile,
  indexKey,
  loadIndexed,
  MAX_APPENDED_LINES,
  readIndex,
  readScopes,
  snapshotStamp,
  writeIndex,
} from '../../src/memory/index-file.js';
import { LiveMemory } from '../../src/memory/live.js';
import { loadMemory, loadRecords, type MemorySources } from '../../src/memory/load.js';
import {
  appendRecords,
  fileFor,
  formatProblem,
  loadScope,
  serializeRecord,
  type DecisionRecord,
  type LoadedRecord,
  type StoreProblem,
  type StoreTarget,
} from '../../src/memory/store.js';
import { MemoryView, RawRecordSet } from '../../src/memory/view.js';
import { xxh64BytesHex } from '../../src/util/xxhash.js';
import { tokenize } from '../../src/memory/tokens.js';
import { cacheKey } from '../../src/memory/cache.js';
import type { Sanitized } from '../../src/sanitize/index.js';
import { makeProject, type TestProject } from '../support/project.js';
import { targetOf } from '../support/memory.js';
import { prng } from '../support/prng.js';

const VERBS = ['make', 'npm', 'cargo', 'docker', 'kubectl'];
/** A fixed key for the tests that compile and read bytes directly (loadIndexed takes the user's salt). */
const KEY = 0x1234_5678_9abc_def0n;

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
    appendRecords(targets[0]!, [
      {
        ...records(1, 'user')[0]!,
        key: 'override:0123456789abcdef',
        subject: 'Bash(make *)' as Sanitized,
        tier: 'override',
      },
    ]);
    const ctx = { projectRoot: p.root, home: p.home };
    const compiled = compileIndex(targets, ctx, KEY);
    const indexed = readIndex(compiled.bytes, KEY)!;
    const raw = new RawRecordSet(compiled.records);
    expect(indexed.size).toBe(raw.size);
    expect(indexed.overrides()).toEqual(raw.overrides());
    for (const r of compiled.records.slice(0, 120)) expect(indexed.byKey(r.key)).toEqual(raw.byKey(r.key));
    expect(indexed.byKey('ffffffffffffffff')).toEqual([]);
    for (const q of ['make task-3 --level 3 --shard 3', 'docker task-9 --level 4', 'npm install']) {
      const tokens = tokenize(q, ctx);
      const a = indexed
        .similar()
        .index.matches(tokens, 0.5)
        .map((m) => indexed.similar().record(m.entry).key);
      const b = raw
        .similar(ctx)
        .index.matches(tokens, 0.5)
        .map((m) => raw.similar(ctx).record(m.entry).key);
      expect(a).toEqual(b);
    }
  });

  it('is written only for large stores, private and git-ignored; reused while its sources match', () => {
    const p = makeProject();
    const targets = seed(p, 30, 10);
    const ctx = { projectRoot: p.root, home: p.home };
    expect(loadIndexed(targets, ctx, p.runtimeDir).via).toBe('jsonl');
    expect(existsSync(indexFile(p.root))).toBe(false);
    expect(loadIndexed(targets, ctx, p.runtimeDir, { minRecords: 20 }).via).toBe('built');
    expect(statSync(indexFile(p.root)).mode & 0o777).toBe(0o600);
    expect(statSync(join(p.root, '.hookwise', '.index')).mode & 0o777).toBe(0o700);
    expect(readFileSync(join(p.root, '.hookwise', '.index', '.gitignore'), 'utf8')).toBe('*\n');
    expect(loadIndexed(targets, ctx, p.runtimeDir, { minRecords: 20 }).via).toBe('index');
  });

  it('a touched file with the same content (git checkout) keeps it; an edit that is not an append rebuilds it', () => {
    const p = makeProject();
    const targets = seed(p, 30, 10);
    const ctx = { projectRoot: p.root, home: p.home };
    loadIndexed(targets, ctx, p.runtimeDir, { minRecords: 1 });
    const file = join(p.root, '.hookwise', 'rules', 'allow.jsonl');
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    expect(loadIndexed(targets, ctx, p.runtimeDir, { minRecords: 1 }).via).toBe('index');
    // the same length, one byte changed in the first line: not an append
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.replace('"reason":"test"', '"reason":"tesT"'));
    const after = loadIndexed(targets, ctx, p.runtimeDir, { minRecords: 1 });
    expect(after.via).toBe('built');
    expect(after.set.size).toBe(40);
    expect(loadIndexed(targets, ctx, p.runtimeDir, { minRecords: 1 }).via).toBe('index');
  });

  it('a corrupt or foreign index file is rebuilt, never trusted', () => {
    const p = makeProject();
    const targets = seed(p, 30, 10);
    const ctx = { projectRoot: p.root, home: p.home };
    loadIndexed(targets, ctx, p.runtimeDir, { minRecords: 1 });
    writeFileSync(indexFile(p.root), 'HWMEMIDX\u00ff\u00ff\u00ff\u00ffgarbage');
    expect(loadIndexed(targets, ctx, p.runtimeDir, { minRecords: 1 }).via).toBe('built');
    writeFileSync(indexFile(p.root), 'not an index');
    expect(loadIndexed(targets, ctx, p.runtimeDir, { minRecords: 1 }).via).toBe('built');
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
    expect((await p.check(p.pre('Bash', { command: 'make task-0 --level 0 --shard 0' }))).decision).toMatchObject({
      verdict: 'deny',
      tier: 'exact-cache',
    });
  });
});

// ── integrity: a damaged index is never trusted ──────────────────────────────────────────────────────────

/**
 * Where the parts of an index file are, found the way any version of it lays them out: the header is the
 * JSON object that starts with `{"format":`, its length the u32 just before it, the body 8-aligned after it.
 */
function layout(bytes: Buffer): {
  headerAt: number;
  headerLength: number;
  bodyAt: number;
  sections: Record<string, [number, number]>;
} {
  const headerAt = bytes.indexOf('{"format":');
  const headerLength = bytes.readUInt32LE(headerAt - 4);
  const header = JSON.parse(bytes.toString('utf8', headerAt, headerAt + headerLength)) as {
    sections: Record<string, [number, number]>;
  };
  return { headerAt, headerLength, bodyAt: (headerAt + headerLength + 7) & ~7, sections: header.sections };
}

/** A project store of 40 records with a deny, its index built, and what a load must answer. */
function indexedStore(p: TestProject): {
  targets: StoreTarget[];
  ctx: { projectRoot: string; home: string };
  deny: DecisionRecord;
  allow: DecisionRecord;
} {
  const targets = seed(p, 30, 10);
  const ctx = { projectRoot: p.root, home: p.home };
  const all = [...records(30, 'project'), ...records(10, 'user', 100_000)];
  expect(loadIndexed(targets, ctx, p.runtimeDir, { minRecords: 1 }).via).toBe('built');
  return {
    targets,
    ctx,
    deny: all.find((r) => r.verdict === 'deny')!,
    allow: all.find((r) => r.verdict === 'allow' && r.role === 'coder')!,
  };
}

function expectAnswers(load: ReturnType<typeof loadIndexed>, s: ReturnType<typeof indexedStore>): void {
  const view = new MemoryView([load.set], 0.5);
  expect(view.lookup(s.deny.key, 'coder')?.verdict).toBe('deny');
  expect(view.lookup(s.allow.key, 'coder')?.verdict).toBe('allow');
  expect(view.size).toBe(40);
  const similar = view.similar(tokenize(s.deny.subject, s.ctx), s.ctx);
  expect(similar[0]).toMatchObject({ score: 1, record: { key: s.deny.key, verdict: 'deny' } });
}

describe('reading the scopes a piece at a time', () => {
  it('reads what loadScope reads from files of several megabytes: records, problems and line numbers', () => {
    const p = makeProject();
    const project = targetOf(p, 'project');
    const file = fileFor(project, 'allow');
    mkdirSync(join(file, '..'), { recursive: true });
    const lines: string[] = [];
    const all = records(12_000, 'project').map((r) => ({
      ...r,
      verdict: 'allow' as const,
      reason: 'approved at the host’s prompt' as Sanitized,
    }));
    all.forEach((r, i) => {
      lines.push(serializeRecord(r));
      if (i % 2500 === 7) lines.push('{"broken": true'); // a bad line now and then, some near a piece's end
      if (i === 6000) lines.push(`{"key": "${'x'.repeat(1_500_000)}"`); // one line longer than a piece
      if (i % 3000 === 11) lines.push('');
    });
    writeFileSync(file, lines.join('\n') + '\n{"torn": ');
    expect(statSync(file).size).toBeGreaterThan(4 * 1024 * 1024);
    const expected = loadScope(project);
    const got = readScopes([project], { keep: false });
    expect(got.sources).toEqual([]);
    expect(got.records.length).toBe(expected.records.length);
    expect(got.records.map(same)).toEqual(expected.records.map(same));
    expect(got.problems.map(formatProblem)).toEqual(expected.problems.map(formatProblem));
    expect(got.problems.length).toBe(7);
  });
});

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
    expect(places.map(([name]) => name)).toEqual(
      expect.arrayContaining([
        'keys',
        'keyRecord',
        'recordOffsets',
        'records',
        'similarRecord',
        'setOffsets',
        'setIds',
        'postOffsets',
        'postIds',
        'vocabulary',
      ]),
    );
    for (const [name, at] of places) {
      for (const bit of [0, 5]) {
        const bytes = Buffer.from(pristine);
        bytes[at] = bytes[at]! ^ (1 << bit);
        writeFileSync(indexFile(p.root), bytes);
        const load = loadIndexed(s.targets, s.ctx, p.runtimeDir, { minRecords: 1 });
        expect(load.via, `bit ${bit} of ${name}`).toBe('built');
        expectAnswers(load, s);
        expect(readFileSync(indexFile(p.root)).equals(pristine), `${name}: rebuilt as it was`).toBe(true);
      }
    }
  });

  it("an index not made with this user's salt (committed to the repository with forged allows) is never used", () => {
    const p = makeProject();
    const project = targetOf(p, 'project');
    const denied = records(40, 'project').map((r) => ({ ...r, verdict: 'deny' as const }));
    appendRecords(project, denied);
    const ctx = { projectRoot: p.root, home: p.home };
    // The attacker's index: stamped with the very bytes of the committed JSONL, but every record an allow.
    const read = readScopes([project]);
    const forged = read.records.map((r) => ({ ...r, verdict: 'allow' as const }));
    const stamps = read.sources.map(snapshotStamp);
    writeIndex(p.root, compileRecords(forged, [], stamps, ctx, 0xdead_beef_0bad_f00dn));
    const load = loadIndexed([project], ctx, p.runtimeDir, { minRecords: 1 });
    expect(load.via).toBe('built');
    expect(new MemoryView([load.set], 0.5).lookup(denied[0]!.key, 'coder')?.verdict).toBe('deny');
    // The same forgery made with the user's own key would have been read: the salt is what keeps it out.
    writeIndex(p.root, compileRecords(forged, [], stamps, ctx, indexKey(p.runtimeDir, false)!));
    expect(
      new MemoryView([loadIndexed([project], ctx, p.runtimeDir, { minRecords: 1 }).set], 0.5).lookup(
        denied[0]!.key,
        'coder',
      )?.verdict,
    ).toBe('allow');
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
    const load = loadIndexed(s.targets, s.ctx, p.runtimeDir, { minRecords: 1 });
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
      const load = loadIndexed(s.targets, s.ctx, p.runtimeDir, { minRecords: 1 });
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
    const live = new LiveMemory(
      { projectRoot: p.root, home: p.home, userConfigDir: p.configDir, runtimeDir: p.runtimeDir },
      0.5,
      { minRecords: 1 },
    );
    const load = live.load();
    expect(load.via).toBe('built');
    expect(load.view.lookup(s.deny.key, 'coder')?.verdict).toBe('deny');
    expect(load.view.size).toBe(40);
  });

  it('readIndex rejects what is whole but inconsistent: sections that do not agree with the header', () => {
    const p = makeProject();
    const s = indexedStore(p);
    const good = compileIndex(s.targets, s.ctx, KEY).bytes;
    expect(readIndex(good, KEY)).toBeDefined();
    // rewrite the header with one count off, and a checksum that matches it
    const { headerAt, headerLength } = layout(good);
    const header = JSON.parse(good.toString('utf8', headerAt, headerAt + headerLength)) as { similarCount: number };
    header.similarCount += 1;
    const text = JSON.stringify(header);
    const padded = Buffer.from(text.length <= headerLength ? text.padEnd(headerLength, ' ') : text);
    expect(padded.length).toBe(headerLength);
    const bad = Buffer.from(good);
    padded.copy(bad, headerAt);
    bad.write(xxh64BytesHex(bad.subarray(24), KEY), 8, 'latin1'); // the checksum field: 16 hex digits after the magic
    expect(readIndex(bad, KEY)).toBeUndefined();
  });
});

// ── appends: parsed on top of the index, not rebuilt ─────────────────────────────────────────────────────

function sourcesOf(p: TestProject): MemorySources {
  return { projectRoot: p.root, home: p.home, userConfigDir: p.configDir, runtimeDir: p.runtimeDir };
}

/** The answers of a fresh full parse of every scope, the index ignored. */
function fullParse(p: TestProject, threshold: number): { view: MemoryView; problems: StoreProblem[] } {
  const { records, problems } = loadRecords(sourcesOf(p));
  return { view: MemoryView.of(records, threshold), problems };
}

const same = (r: LoadedRecord | undefined): string | undefined =>
  r === undefined ? undefined : `${serializeRecord(r)} @${r.file}:${r.line}`;

function similarOf(view: MemoryView, subject: string, ctx: { projectRoot: string; home: string }): string[] {
  return view
    .similar(tokenize(subject, ctx), ctx)
    .map((c) => `${c.score.toFixed(6)} ${same(c.record)!}`)
    .sort();
}

describe('compiled memory index: appended lines are layered over it', () => {
  it('one learned record: parsed on top, the index file untouched; a superseding record replaces its base record', () => {
    const p = makeProject();
    const s = indexedStore(p);
    const before = statSync(indexFile(p.root));
    const learned = { ...records(1, 'project', 7000)[0]!, verdict: 'deny' as const };
    const changed: DecisionRecord = {
      ...s.allow,
      scope: 'project',
      verdict: 'ask',
      ts: new Date(Date.UTC(2027, 0, 1)).toISOString(),
    };
    appendRecords(s.targets[1]!, [learned, changed]);
    const load = loadMemory(sourcesOf(p), 0.5, { minRecords: 1 });
    expect(load.via).toBe('appended');
    expect(load.view.lookup(learned.key, 'coder')).toMatchObject({
      verdict: 'deny',
      file: fileFor(s.targets[1]!, 'deny'),
      line: 4,
    }); // after 3 denies
    for (const key of [learned.key, s.allow.key, s.deny.key])
      expect(same(load.view.lookup(key, 'coder'))).toBe(same(fullParse(p, 0.5).view.lookup(key, 'coder')));
    expect(load.view.lookup(s.allow.key, 'coder')).toMatchObject({
      verdict: 'ask',
      file: fileFor(s.targets[1]!, 'ask'),
    });
    expect(load.view.lookup(s.deny.key, 'coder')?.verdict).toBe('deny');
    expect(load.view.size).toBe(41);
    const similar = load.view
      .similar(tokenize(s.allow.subject, s.ctx), s.ctx)
      .filter((c) => c.record.key === s.allow.key);
    expect(similar.map((c) => c.record.verdict)).toEqual(['ask']); // the replaced allow is no candidate any more
    const after = statSync(indexFile(p.root));
    expect([after.ino, after.mtimeMs, after.size]).toEqual([before.ino, before.mtimeMs, before.size]);
  });

  it(`rebuilds once more than ${MAX_APPENDED_LINES} lines were appended, and then layers again`, () => {
    const p = makeProject();
    const s = indexedStore(p);
    const batch = records(MAX_APPENDED_LINES, 'project', 10_000);
    appendRecords(s.targets[1]!, batch);
    expect(loadIndexed(s.targets, s.ctx, p.runtimeDir, { minRecords: 1 }).via).toBe('appended');
    appendRecords(s.targets[1]!, records(1, 'project', 20_000));
    const rebuilt = loadIndexed(s.targets, s.ctx, p.runtimeDir, { minRecords: 1 });
    expect(rebuilt.via).toBe('built');
    expect(rebuilt.set.size).toBe(40 + MAX_APPENDED_LINES + 1);
    appendRecords(s.targets[0]!, records(1, 'user', 30_000));
    expect(loadIndexed(s.targets, s.ctx, p.runtimeDir, { minRecords: 1 }).via).toBe('appended');
  });

  it('a file that appears (a first deny.jsonl, a new org) is appended; one removed, shrunk or grown after a torn line is rebuilt', () => {
    const p = makeProject();
    const user = targetOf(p, 'user');
    const project = targetOf(p, 'project');
    appendRecords(user, records(10, 'user', 100_000));
    appendRecords(
      project,
      records(30, 'project').filter((r) => r.verdict !== 'deny'),
    );
    const load = (): ReturnType<typeof loadMemory> => loadMemory(sourcesOf(p), 0.5, { minRecords: 1 });
    expect(load().via).toBe('built');
    expect(existsSync(fileFor(project, 'deny'))).toBe(false);
    const deny = { ...records(1, 'project', 500)[0]!, verdict: 'deny' as const };
    appendRecords(project, [deny]);
    expect(load().via).toBe('appended');
    expect(load().view.lookup(deny.key, 'coder')).toMatchObject({ verdict: 'deny', line: 1 });
    const org = { ...records(1, 'org', 600)[0]!, verdict: 'ask' as const };
    appendRecords(targetOf(p, 'org'), [org]);
    expect(load().via).toBe('appended');
    expect(load().view.lookup(org.key, 'coder')).toMatchObject({ verdict: 'ask', scope: 'org' });

    // a torn last line: read (and reported) like a full load reads it; a later append after it rebuilds
    const allow = fileFor(project, 'allow');
    loadIndexed([user, project], { projectRoot: p.root, home: p.home }, p.runtimeDir, { rebuild: true });
    appendFileSync(allow, '{"key":"torn');
    const torn = load();
    expect(torn.via).toBe('appended');
    expect(torn.problems.map(formatProblem)).toEqual(fullParse(p, 0.5).problems.map(formatProblem));
    appendFileSync(allow, '"}\n');
    expect(load().via).toBe('appended'); // the index was built before the torn line: still a prefix
    loadIndexed([user, project], { projectRoot: p.root, home: p.home }, p.runtimeDir, { rebuild: true }); // built with the bad line
    appendRecords(project, records(1, 'project', 700));
    expect(load().via).toBe('appended'); // the bad line ended in '\n'
    writeFileSync(allow, readFileSync(allow).subarray(0, 50)); // shrunk
    expect(load().via).toBe('built');
    rmSync(fileFor(project, 'deny'));
    expect(load().via).toBe('built');
    const text = readFileSync(allow, 'utf8');
    writeFileSync(allow, text.slice(0, -1)); // no final newline: the index is built from that
    expect(load().via).toBe('built');
    appendFileSync(allow, '\n');
    expect(load().via).toBe('built'); // grew after an unterminated line: what it became, only a full parse tells
  });

  it('answers lookup() and similar() exactly like a full parse after many random appends, superseding ones and new files included', () => {
    for (const seedValue of [1, 2, 3]) {
      const p = makeProject();
      const random = prng(seedValue);
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
      const scopes = ['user', 'project', 'org'] as const;
      const targetFor = (scope: (typeof scopes)[number], org: string): StoreTarget => targetOf(p, scope, 's1', org);
      const written: { r: DecisionRecord; org: string }[] = [];
      const write = (r: DecisionRecord, org = 'acme'): void => {
        written.push({ r, org });
        appendRecords(targetFor(r.scope as (typeof scopes)[number], org), [r]);
      };
      let clock = Date.UTC(2026, 5, 1);
      const nextTs = (): string => new Date((clock += 1000)).toISOString();
      // the base: user and project records, and one org with an allow file only
      for (let i = 0; i < 80; i++) {
        const [r] = records(1, pick(['user', 'project'] as const), i);
        write({
          ...r!,
          role: pick(['coder', '*', 'tester']),
          verdict: pick(['allow', 'allow', 'ask', 'deny'] as const),
          ts: nextTs(),
        });
      }
      write({ ...records(1, 'org', 90)[0]!, verdict: 'allow', ts: nextTs() });
      const ctx = { projectRoot: p.root, home: p.home };
      expect(loadMemory(sourcesOf(p), 0.5, { minRecords: 1 }).via).toBe('built');
      const index = readFileSync(indexFile(p.root));

      for (let round = 0; round < 10; round++) {
        for (let n = 0; n < 12; n++) {
          const scope = pick(scopes);
          const org = scope === 'org' && random() < 0.3 ? 'beta' : 'acme'; // beta: an org that appears
          const roll = random();
          const earlier = written.filter((w) => w.r.scope === scope && w.org === org);
          if (roll < 0.4 && earlier.length > 0) {
            // the same decision again: mostly newer with another verdict (supersedes), sometimes an equal or older ts
            const prev = pick(earlier).r;
            const ts =
              random() < 0.6 ? nextTs() : random() < 0.5 ? prev.ts : new Date(Date.parse(prev.ts) - 1).toISOString();
            write(
              { ...prev, verdict: pick(['allow', 'ask', 'deny'] as const), ts, reason: `again ${round}` as Sanitized },
              org,
            );
          } else if (roll < 0.5) {
            const subject = `Bash(${pick(VERBS)} task-${Math.floor(random() * 5)} *)` as Sanitized;
            write(
              {
                key: `override:${cacheKey('override', subject)}`,
                tool: 'Bash',
                subject,
                role: pick(['coder', '*']),
                verdict: pick(['allow', 'ask', 'deny'] as const),
                reason: 'test' as Sanitized,
                tier: 'override',
                scope,
                decided_by: 'human',
                ts: nextTs(),
              },
              org,
            );
          } else if (roll < 0.55) {
            const file = fileFor(targetFor(scope, org), pick(['allow', 'ask', 'deny'] as const));
            mkdirSync(join(file, '..'), { recursive: true });
            appendFileSync(file, `{"broken": ${round}\n`);
          } else {
            const [r] = records(1, scope, 200 + Math.floor(random() * 400));
            write(
              {
                ...r!,
                role: pick(['coder', '*', 'tester']),
                verdict: pick(['allow', 'allow', 'ask', 'deny'] as const),
                ts: nextTs(),
              },
              org,
            );
          }
        }
        const got = loadMemory(sourcesOf(p), 0.5, { minRecords: 1 });
        expect(got.via).toBe('appended');
        const fresh = fullParse(p, 0.5);
        expect(got.view.size).toBe(fresh.view.size);
        for (const key of new Set(written.map((w) => w.r.key))) {
          for (const role of ['coder', 'tester', 'reviewer'])
            expect(same(got.view.lookup(key, role)), `${key} ${role}`).toBe(same(fresh.view.lookup(key, role)));
        }
        const overrides = (v: MemoryView): string[] => v.overrides.map((o) => same(o.record)!).sort();
        expect(overrides(got.view)).toEqual(overrides(fresh.view));
        for (let q = 0; q < 20; q++) {
          const subject = `${pick(VERBS)} task-${Math.floor(random() * 37)} --level ${Math.floor(random() * 5)} --shard ${Math.floor(random() * 600)}`;
          expect(similarOf(got.view, subject, ctx)).toEqual(similarOf(fresh.view, subject, ctx));
        }
        expect(got.problems.map(formatProblem).sort()).toEqual(fresh.problems.map(formatProblem).sort());
      }
      expect(readFileSync(indexFile(p.root)).equals(index)).toBe(true); // never rebuilt on the way
    }
  });
});
