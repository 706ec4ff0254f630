import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { candidateEntries, IndexSet, indexLocation, ScopeIndex, type IndexPlaces } from '../../src/embed/index.js';
import { cacheKey } from '../../src/memory/cache.js';
import { appendRecords, removeRecords, type StoreTarget } from '../../src/memory/store.js';
import { hashEmbedder, hashVector } from './fixtures/hash-embedder.js';
import { record } from './fixtures/records.js';

const cleanups: string[] = [];
afterEach(() => {
  while (cleanups.length > 0) rmSync(cleanups.pop()!, { recursive: true, force: true });
});

interface Dirs extends IndexPlaces {
  projectRoot: string;
  project: StoreTarget;
}

function dirs(): Dirs {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'hookwise-embed-')));
  cleanups.push(base);
  const projectRoot = join(base, 'project');
  mkdirSync(projectRoot, { recursive: true });
  return {
    projectRoot,
    project: { scope: 'project', projectRoot },
    userConfigDir: join(base, 'config'),
    runtimeDir: join(base, 'runtime'),
  };
}

const SUBJECTS = [
  'rm -rf /tmp/build-output',
  'npm run test',
  'cargo build --release',
  'docker compose up -d',
  'git log --oneline',
];

describe('candidateEntries', () => {
  it('indexes shell calls once per key, never overrides or file tools', () => {
    const shell = { ...record('npm run test'), file: 'f', line: 1 };
    const again = { ...shell, role: 'reviewer', line: 2 };
    const write = { ...record('write /x', { tool: 'Write', commands: undefined }), file: 'f', line: 3 };
    const override = { ...record('Bash(npm *)', { tier: 'override' }), file: 'f', line: 4 };
    expect(candidateEntries([shell, again, write, override])).toEqual([
      { key: shell.key, tool: 'Bash', text: 'npm run test' },
    ]);
  });
});

describe('ScopeIndex', () => {
  it('finds the nearest record with its cosine similarity, only among calls of the same tool', async () => {
    const index = ScopeIndex.empty('project', hashEmbedder());
    const entries = SUBJECTS.map((text) => ({ key: cacheKey('Bash', text), tool: 'Bash', text }));
    await index.sync(
      [...entries, { key: 'mcp1', tool: 'mcp__db__query', text: 'rm -rf /tmp/build-cache' }],
      hashEmbedder(),
    );
    const found = index.search(hashVector('rm -rf /tmp/build-cache'), 'Bash', 3);
    expect(found[0]!.key).toBe(cacheKey('Bash', 'rm -rf /tmp/build-output'));
    expect(found[0]!.similarity).toBeGreaterThan(0.5);
    expect(found[0]!.similarity).toBeLessThan(1);
    expect(found.every((m) => m.key !== 'mcp1')).toBe(true);
    expect(index.search(hashVector('npm run test'), 'Bash', 1)[0]!.similarity).toBeCloseTo(1, 5);
  });

  it('adds the new and marks the removed deleted, growing past its capacity', async () => {
    const embedder = hashEmbedder();
    const index = ScopeIndex.empty('project', embedder);
    const many = Array.from({ length: 150 }, (_, i) => ({
      key: `k${i}`,
      tool: 'Bash',
      text: `make target-${i} --jobs ${i % 7}`,
    }));
    expect(await index.sync(many, embedder)).toMatchObject({ added: 150, removed: 0, pending: 0 });
    expect(index.size).toBe(150);
    const kept = many.filter((_, i) => i !== 42);
    expect(await index.sync(kept, embedder)).toMatchObject({ added: 0, removed: 1 });
    expect(index.has('k42')).toBe(false);
    expect(index.search(hashVector('make target-42 --jobs 0'), 'Bash', 5).map((m) => m.key)).not.toContain('k42');
    const texts = embedder.texts;
    await index.sync(kept, embedder);
    expect(embedder.texts).toBe(texts); // nothing new: nothing embedded
  });

  it('embeds at most the budget and says what is pending', async () => {
    const embedder = hashEmbedder();
    const index = ScopeIndex.empty('project', embedder);
    const many = Array.from({ length: 100 }, (_, i) => ({ key: `k${i}`, tool: 'Bash', text: `make t${i}` }));
    expect(await index.sync(many, embedder, 30)).toMatchObject({ added: 30, pending: 70 });
    expect(await index.sync(many, embedder, 1000)).toMatchObject({ added: 70, pending: 0 });
    expect(index.size).toBe(100);
  });

  it('compacts once deleted entries outnumber live ones, keeping the live vectors', async () => {
    const embedder = hashEmbedder();
    const index = ScopeIndex.empty('project', embedder);
    const many = Array.from({ length: 2100 }, (_, i) => ({ key: `k${i}`, tool: 'Bash', text: `make target-${i}` }));
    await index.sync(many, embedder);
    const got = await index.sync(many.slice(0, 20), embedder);
    expect(got).toMatchObject({ removed: 2080, compacted: true });
    expect(index.size).toBe(20);
    const v = index.vectorOf('k7')!;
    expect(Array.from(v).map((x) => Math.round(x * 1e5))).toEqual(
      Array.from(hashVector('make target-7')).map((x) => Math.round(x * 1e5)),
    );
    expect(index.search(v, 'Bash', 1)[0]!.similarity).toBeCloseTo(1, 5);
    expect(index.search(hashVector('make target-2000'), 'Bash', 20).map((m) => m.key)).not.toContain('k2000');
  });
});

describe('index files', () => {
  async function built(d: Dirs, embedder = hashEmbedder()): Promise<ScopeIndex> {
    const index = ScopeIndex.empty('project', embedder);
    await index.sync(
      SUBJECTS.map((text) => ({ key: cacheKey('Bash', text), tool: 'Bash', text })),
      embedder,
    );
    index.save(indexLocation(d.project, d), d);
    return index;
  }

  it('saves and loads back the same answers, private and gitignored', async () => {
    const d = dirs();
    await built(d);
    const at = indexLocation(d.project, d);
    expect(at.hnsw).toBe(join(d.projectRoot, '.hookwise', '.index', 'embed-project.hnsw'));
    expect([statSync(at.dir).mode & 0o777, statSync(at.hnsw).mode & 0o777, statSync(at.meta).mode & 0o777]).toEqual([
      0o700, 0o600, 0o600,
    ]);
    const loaded = ScopeIndex.load(at, d, hashEmbedder());
    expect(loaded.ok).toBe(true);
    if (!loaded.ok) return;
    expect(loaded.index.size).toBe(SUBJECTS.length);
    expect(loaded.index.search(hashVector('cargo build --release'), 'Bash', 1)[0]!.key).toBe(
      cacheKey('Bash', 'cargo build --release'),
    );
  });

  it.each([
    ['a flipped bit in the graph', (at: { hnsw: string; meta: string }) => flip(at.hnsw), /checksum does not match/],
    [
      'a truncated graph',
      (at: { hnsw: string; meta: string }) => writeFileSync(at.hnsw, readFileSync(at.hnsw).subarray(0, 100)),
      /checksum does not match/,
    ],
    [
      'an edited meta (a label pointed at another key)',
      (at: { hnsw: string; meta: string }) =>
        writeFileSync(at.meta, readFileSync(at.meta, 'utf8').replace(/"[0-9a-f]{16}"/, '"0000000000000000"')),
      /meta checksum/,
    ],
    ['a meta that is not JSON', (at: { hnsw: string; meta: string }) => writeFileSync(at.meta, '{'), /not JSON/],
  ])('is not used after %s', async (_what, damage, why) => {
    const d = dirs();
    await built(d);
    const at = indexLocation(d.project, d);
    damage(at);
    const loaded = ScopeIndex.load(at, d, hashEmbedder());
    expect(loaded).toEqual({ ok: false, why: expect.stringMatching(why) });
  });

  it('is not used when another user salt wrote it (an index committed to the repository)', async () => {
    const d = dirs();
    await built(d);
    const other = { ...d, runtimeDir: join(d.runtimeDir, '..', 'other-runtime') };
    expect(ScopeIndex.load(indexLocation(d.project, other), other, hashEmbedder())).toEqual({
      ok: false,
      why: expect.stringMatching(/meta checksum/),
    });
  });

  it('is not used for another model or dimension', async () => {
    const d = dirs();
    await built(d);
    const at = indexLocation(d.project, d);
    expect(ScopeIndex.load(at, d, hashEmbedder('hash-bow-v2'))).toEqual({
      ok: false,
      why: expect.stringMatching(/another model/),
    });
    expect(ScopeIndex.load(at, d, { id: 'hash-bow-v1', dimensions: 32 })).toEqual({
      ok: false,
      why: expect.stringMatching(/64 dimensions/),
    });
  });

  it('refuses an index directory that is a symbolic link', async () => {
    const d = dirs();
    const elsewhere = join(d.projectRoot, '..', 'elsewhere');
    mkdirSync(elsewhere, { mode: 0o700 });
    mkdirSync(join(d.projectRoot, '.hookwise'));
    symlinkSync(elsewhere, join(d.projectRoot, '.hookwise', '.index'));
    expect(() => ScopeIndex.load(indexLocation(d.project, d), d, hashEmbedder())).toThrow(
      /must be a real directory, not a symlink/,
    );
  });

  it('names session indexes by a hash of the session id, in the private runtime directory', () => {
    const d = dirs();
    const at = indexLocation({ scope: 'session', runtimeDir: d.runtimeDir, sessionId: '../../etc/passwd' }, d);
    expect(at.hnsw).toMatch(new RegExp(`^${d.runtimeDir}/index/embed-session-[0-9a-f]{16}\\.hnsw$`));
  });
});

describe('IndexSet', () => {
  it('builds from the records, follows appends and removals, and rebuilds a damaged file with a log line', async () => {
    const d = dirs();
    appendRecords(
      d.project,
      SUBJECTS.map((s) => record(s)),
    );
    const log: string[] = [];
    const embedder = hashEmbedder();
    const set = new IndexSet(d, embedder, (l) => log.push(l));
    expect(await set.refresh(d.project)).toMatchObject({ ready: true, embedded: 5 });
    expect(set.get(d.project)!.size).toBe(5);
    // unchanged files: nothing read, nothing embedded
    expect(await set.refresh(d.project)).toMatchObject({ ready: true, embedded: 0 });

    appendRecords(d.project, [record('rm -rf /tmp/build-cache')]);
    expect(await set.refresh(d.project)).toMatchObject({ embedded: 1 });
    expect(set.get(d.project)!.search(hashVector('rm -rf /tmp/build-cache'), 'Bash', 1)[0]!.key).toBe(
      cacheKey('Bash', 'rm -rf /tmp/build-cache'),
    );

    removeRecords(d.project, (r) => r.subject === 'npm run test');
    await set.refresh(d.project);
    expect(set.get(d.project)!.has(cacheKey('Bash', 'npm run test'))).toBe(false);
    expect(set.save()).toEqual({ saved: 1, failed: 0 });

    // a new process loads it without embedding anything
    const again = hashEmbedder();
    const reloaded = new IndexSet(d, again);
    expect(await reloaded.refresh(d.project)).toMatchObject({ ready: true, embedded: 0 });
    expect(again.texts).toBe(0);

    flip(indexLocation(d.project, d).hnsw);
    const third = new IndexSet(d, hashEmbedder(), (l) => log.push(l));
    expect(await third.refresh(d.project)).toMatchObject({ ready: true, embedded: 5 });
    expect(log.join('\n')).toMatch(/embed-project\.hnsw: the \.hnsw checksum does not match .*; rebuilding it/);
  });

  it('reads only the appended lines when a file was only appended to, and the whole scope otherwise', async () => {
    const d = dirs();
    appendRecords(
      d.project,
      SUBJECTS.map((s) => record(s)),
    );
    const set = new IndexSet(d, hashEmbedder());
    await set.refresh(d.project);
    expect(set.reads).toEqual({ full: 1, appended: 0 });
    appendRecords(d.project, [record('make deploy'), record('npm run test', { role: 'reviewer' })]);
    expect(await set.refresh(d.project)).toMatchObject({ ready: true, embedded: 1 });
    expect(set.reads).toEqual({ full: 1, appended: 1 });
    expect(set.get(d.project)!.has(cacheKey('Bash', 'make deploy'))).toBe(true);
    // a first ask.jsonl: a file added
    appendRecords(d.project, [record('make release', { verdict: 'ask' })]);
    await set.refresh(d.project);
    expect(set.reads).toEqual({ full: 2, appended: 1 });
    // an override appended under a key that is indexed: not a candidate, so the whole scope is read again
    appendRecords(d.project, [record('make deploy', { tier: 'override' })]);
    await set.refresh(d.project);
    expect(set.reads.full).toBe(3);
    // a torn line being written: nothing complete yet, nothing read in full
    appendFileSync(join(d.projectRoot, '.hookwise', 'rules', 'allow.jsonl'), '{"key":"abc');
    expect(await set.refresh(d.project)).toMatchObject({ ready: true, embedded: 0 });
    expect(set.reads.full).toBe(3);
  });

  it('removes the files of an index left empty instead of writing them', async () => {
    const d = dirs();
    appendRecords(d.project, [record('npm run test')]);
    const set = new IndexSet(d, hashEmbedder());
    await set.refresh(d.project);
    set.save();
    const at = indexLocation(d.project, d);
    expect(existsSync(at.hnsw)).toBe(true);
    removeRecords(d.project, () => true);
    await set.refresh(d.project);
    set.save();
    expect([existsSync(at.hnsw), existsSync(at.meta)]).toEqual([false, false]);
  });

  it('rebuilds every index when the model changes', async () => {
    const d = dirs();
    appendRecords(
      d.project,
      SUBJECTS.map((s) => record(s)),
    );
    const first = new IndexSet(d, hashEmbedder());
    await first.refresh(d.project);
    first.save();
    const log: string[] = [];
    const other = hashEmbedder('hash-bow-v2');
    const second = new IndexSet(d, other, (l) => log.push(l));
    expect(await second.refresh(d.project)).toMatchObject({ ready: true, embedded: 5 });
    expect(log[0]).toMatch(/built by another model .*rebuilding it/);
    second.save();
    expect(ScopeIndex.load(indexLocation(d.project, d), d, other).ok).toBe(true);
  });
});

function flip(path: string): void {
  const bytes = readFileSync(path);
  bytes[bytes.length - 9]! ^= 0xff;
  writeFileSync(path, bytes);
}
