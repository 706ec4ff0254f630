import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readAudit } from '../../src/audit/log.js';
import { computeStats, renderStats } from '../../src/audit/stats.js';
import { makeProject } from '../support/project.js';

describe('stats over real decisions', () => {
  it('counts by tier, verdict and role, and lists what keeps asking', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    p.register('s2', 'tester');
    await p.check(p.pre('Write', { file_path: join(p.root, 'src/a.ts'), content: '' }, 's1'));
    await p.check(p.pre('Write', { file_path: join(p.root, 'tests/a.ts'), content: '' }, 's1'));
    await p.check(p.pre('Write', { file_path: join(p.root, '.env'), content: '' }, 's2'));
    await p.check(p.pre('Write', { file_path: join(p.root, '.env'), content: '' }, 's2'));
    const s = computeStats(readAudit(p.runtimeDir).records);
    expect(s.total).toBe(4);
    expect(s.byVerdict).toEqual({ allow: 1, deny: 1, ask: 2 });
    expect(s.byRole).toEqual({ coder: { allow: 1, deny: 1 }, tester: { ask: 2 } });
    expect(s.byTier['path-policy']).toEqual({ allow: 1, deny: 1, ask: 2 });
    expect(s.askRate).toBe(0.5);
    expect(s.topAsks).toEqual([{ tool: 'Write', subject: join(p.root, '.env'), count: 2 }]);
    expect(renderStats(s)).toMatch(/4 decisions: 1 allow, 2 ask, 1 deny; 50\.0% asked a human/);
  });
});
