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

describe('monitor', () => {
  it('follows new decisions live, across a rotation, with filters', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    const { ensurePrivateDir } = await import('../../src/util/fs-safe.js');
    ensurePrivateDir(p.runtimeDir);
    const { monitor } = await import('../../src/cli/monitor.js');
    const { appendAudit, auditPath } = await import('../../src/audit/log.js');
    const { renameSync } = await import('node:fs');
    const previous = process.env.HOOKWISE_RUNTIME_DIR;
    process.env.HOOKWISE_RUNTIME_DIR = p.runtimeDir;
    const lines: string[] = [];
    const controller = new AbortController();
    try {
      const following = monitor({ verdict: 'deny', intervalMs: 20 }, (l) => lines.push(l), controller.signal);
      await new Promise((r) => setTimeout(r, 60));
      await p.check(p.pre('Write', { file_path: join(p.root, 'tests/a.ts'), content: '' })); // deny: shown
      await p.check(p.pre('Write', { file_path: join(p.root, 'src/a.ts'), content: '' })); // allow: filtered out
      await new Promise((r) => setTimeout(r, 100));
      renameSync(auditPath(p.runtimeDir), auditPath(p.runtimeDir, 1)); // rotation
      const { sanitize } = await import('../../src/sanitize/index.js');
      const base = { ts: new Date().toISOString(), session: 's2', role: 'docs', host: 'claude' as const, tool: 'Edit', tier: 'path-policy' as const, rule: 'r', latency_ms: 1, paths: [sanitize('/x/src/b.ts').text], input: sanitize('edit /x/src/b.ts').text, secrets: 0, input_hash: '0' };
      appendAudit(p.runtimeDir, { ...base, verdict: 'deny' }, { maxBytes: 1e6, keep: 3 });
      await new Promise((r) => setTimeout(r, 100));
      controller.abort();
      await following; // the loop ends at its next tick
    } finally {
      controller.abort();
      process.env.HOOKWISE_RUNTIME_DIR = previous;
    }
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/deny\s+path-policy\s+coder\s+s1\s+Write .*tests\/a\.ts\s+\(role:coder:deny_write:tests\/\*\*\)/);
    expect(lines[1]).toMatch(/deny\s+path-policy\s+docs\s+s2\s+Edit\s+\/x\/src\/b\.ts/);
  });
});
