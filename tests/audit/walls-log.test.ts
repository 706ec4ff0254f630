import { appendFileSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../src/audit/log.js';
import { computeStats, renderStats } from '../../src/audit/stats.js';
import { appendWallsHit, readWallsHits, wallsLogPath, type WallsHitRecord } from '../../src/audit/walls-log.js';
import { sanitize, type Sanitized } from '../../src/sanitize/index.js';
import { ensurePrivateDir } from '../../src/util/fs-safe.js';

const hit = (kind: WallsHitRecord['kind'], session = 's1'): WallsHitRecord => ({
  ts: new Date(0).toISOString(),
  session: sanitize(session).text,
  tool: sanitize('Bash').text,
  input: sanitize('./scripts/x.sh').text,
  kind,
  line: sanitize('cp: Read-only file system').text,
});

const decision = (tier: AuditRecord['tier'], verdict: AuditRecord['verdict']): AuditRecord => ({
  ts: new Date(0).toISOString(),
  session: sanitize('s1').text,
  role: 'coder',
  host: 'claude',
  tool: sanitize('Bash').text,
  verdict,
  tier,
  rule: null,
  latency_ms: 1,
  paths: [],
  input: sanitize('x').text,
  secrets: 0,
  input_hash: '0',
});

describe('the walls log', () => {
  it('appends private lines and reads them back; an unreadable line is skipped and named', () => {
    const dir = ensurePrivateDir(join(mkdtempSync(join(tmpdir(), 'hookwise-walls-')), 'runtime'));
    expect(readWallsHits(dir)).toEqual({ records: [], problems: [] });
    appendWallsHit(dir, hit('write'));
    appendFileSync(wallsLogPath(dir), '{"torn\n');
    appendWallsHit(dir, hit('network'));
    const read = readWallsHits(dir);
    expect(read.records.map((r) => r.kind)).toEqual(['write', 'network']);
    expect(read.problems).toEqual([expect.stringContaining('walls.jsonl:2: skipped unreadable line')]);
    expect(statSync(wallsLogPath(dir)).mode & 0o777).toBe(0o600);
  });

  it('refuses text that was not sanitized', () => {
    const dir = ensurePrivateDir(join(mkdtempSync(join(tmpdir(), 'hookwise-walls-')), 'runtime'));
    const token = `ghp_${'a1B2c3D4e5'.repeat(3)}123456`;
    expect(() => appendWallsHit(dir, { ...hit('write'), line: `token ${token}` as Sanitized })).toThrow();
    expect(readWallsHits(dir).records).toEqual([]);
  });
});

describe('stats: confined allows and the walls', () => {
  it('share of decisions confined, and of those how many the walls stopped, by kind', () => {
    const records = [
      decision('confine', 'allow'),
      decision('confine', 'allow'),
      decision('confine', 'allow'),
      decision('default', 'ask'),
    ];
    const s = computeStats(records, [hit('write'), hit('network')]);
    expect(s.confinement).toEqual({
      confined: { count: 3, rate: 0.75 },
      wallsHits: { count: 2, rate: 2 / 3 },
      byKind: { write: 1, network: 1 },
    });
    expect(renderStats(s)).toContain(
      'confined allows: 3 (75.0% of decisions); the walls stopped 2 of their runs (66.7%): 1 network, 1 write',
    );
    expect(renderStats(computeStats([decision('default', 'ask')]))).not.toContain('confined allows');
  });
});
