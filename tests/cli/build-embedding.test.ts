/** `hookwise build` builds the embedding indexes too; `rules list --neighbours` shows each record's nearest. */
import { describe, expect, it } from 'vitest';
import { buildIndexes } from '../../src/cli/build-index.js';
import { rulesList, type NeighbourFinder } from '../../src/cli/rules.js';
import { buildIndexes as buildEmbedding, neighboursOf } from '../../src/embed/build.js';
import { cacheKey } from '../../src/memory/cache.js';
import { memoryTargets } from '../../src/memory/load.js';
import { appendRecords } from '../../src/memory/store.js';
import { locations } from '../../src/util/locations.js';
import { hashEmbedder } from '../embed/fixtures/hash-embedder.js';
import { makeProject, type TestProject } from '../support/project.js';
import { record } from '../embed/fixtures/records.js';

function withRecords(): TestProject {
  const p = makeProject();
  appendRecords(
    { scope: 'project', projectRoot: p.root },
    ['rm -rf /tmp/build-output', 'rm -rf /tmp/build-cache', 'npm run test', 'cargo build --release'].map((s) =>
      record(s),
    ),
  );
  return p;
}

describe('hookwise build', () => {
  it('builds every scope’s embedding index, then finds them up to date, with a progress bar when asked', async () => {
    const p = withRecords();
    const progress: string[] = [];
    const first = await buildIndexes(
      { json: true, embedder: hashEmbedder() },
      { progress: (t) => progress.push(t) },
      p.env,
      p.root,
    );
    expect(first.exitCode).toBe(0);
    const summary = JSON.parse(first.stdout) as {
      records: number;
      embedding: {
        model: string;
        records: number;
        embedded: number;
        ms: number;
        peak_rss_mb: number;
        scopes: { scope: string; records: number }[];
      };
    };
    expect(summary.embedding).toMatchObject({ model: 'hash-bow-v1', records: 4, embedded: 4 });
    expect(summary.embedding.peak_rss_mb).toBeGreaterThan(0);
    expect(summary.embedding.scopes).toEqual(
      expect.arrayContaining([expect.objectContaining({ scope: 'project', records: 4 })]),
    );
    expect(progress.join('')).toMatch(/embedding project \[#+\] 4\/4/);
    const second = await buildIndexes({ embedder: hashEmbedder() }, {}, p.env, p.root);
    expect(second.stdout).toMatch(/embed-project\.hnsw: 4 records \(up to date\)/);
    expect(second.stdout).toMatch(/embedding indexes: 4 records, 0 embedded/);
  });

  it('says why, and exits 1, when the model cannot be loaded (the memory index is still built)', async () => {
    const p = withRecords();
    const failing = { id: 'x', dimensions: 8, embed: async () => Promise.reject(new Error('inference failed')) };
    const r = await buildIndexes({ embedder: failing }, {}, p.env, p.root);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/memory\.idx: 4 records/);
    expect(r.stderr).toMatch(/embedding indexes not built: Error: inference failed/);
  });

  it('builds no embedding index where the policy switches tier 2b off', async () => {
    const p = withRecords();
    p.write('.hookwise/policy.yml', 'embedding:\n  enabled: false\n');
    const r = await buildIndexes({}, {}, p.env, p.root);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/embedding indexes not built: embedding\.enabled is false/);
  });

  it('builds with the policy’s model: the shipped one by default', async () => {
    const p = withRecords();
    const r = await buildIndexes({ json: true }, {}, p.env, p.root);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout).embedding).toMatchObject({
      model: expect.stringMatching(/^builtin:sha256:/),
      records: 4,
    });
  });
});

describe('hookwise rules list --neighbours', () => {
  it('shows each decision’s nearest other records with their similarity', async () => {
    const p = withRecords();
    const where = locations(p.env);
    const targets = memoryTargets({
      projectRoot: p.root,
      userConfigDir: where.userConfigDir,
      runtimeDir: where.runtimeDir,
    });
    const { set } = await buildEmbedding(targets, where, hashEmbedder());
    const near: NeighbourFinder = (key, tool) => neighboursOf(set, targets, key, tool, 1);
    const text = rulesList({}, p.root, p.env);
    expect(text.stdout).not.toMatch(/near/);
    const { writeRulesList } = await import('../../src/cli/rules.js');
    const chunks: Buffer[] = [];
    writeRulesList({}, (c) => chunks.push(c), p.root, p.env, near);
    const out = Buffer.concat(chunks).toString('utf8');
    const block = out
      .split('\n\n')[0]!
      .split(/\n(?=Bash: )/)
      .find((b) => b.startsWith('Bash: rm -rf /tmp/build-output'))!;
    expect(block).toMatch(/\n {2}near {3}0\.\d{3} {2}Bash: rm -rf \/tmp\/build-cache {3}\[key [0-9a-f]{16}\]/);
    const json = [] as Buffer[];
    writeRulesList({ json: true }, (c) => json.push(c), p.root, p.env, near);
    const parsed = JSON.parse(Buffer.concat(json).toString('utf8')) as {
      decisions: { subject: string; neighbours: { subject: string; similarity: number }[] }[];
    };
    const d = parsed.decisions.find((x) => x.subject === 'rm -rf /tmp/build-output')!;
    expect(d.neighbours).toEqual([
      {
        key: cacheKey('Bash', 'rm -rf /tmp/build-cache'),
        similarity: expect.any(Number),
        subject: 'Bash: rm -rf /tmp/build-cache',
      },
    ]);
  });
});
