import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readAudit } from '../../src/audit/log.js';
import { computeStats, renderStats } from '../../src/audit/stats.js';
import { hookwiseBin } from '../../src/util/package-root.js';
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

describe('stats and monitor: commands, not hashes; one project at a time', () => {
  it('an ask about a command shows the sanitized command; each record names its project; the CLI filters by it', async () => {
    const p = makeProject();
    const other = makeProject();
    p.register('s1', 'coder');
    const token = `ghp_${'a1B2c3D4e5'.repeat(3)}123456`;
    await p.check(p.pre('Bash', { command: `make deploy-staging TOKEN=${token}` }));
    await p.check({ ...p.pre('Bash', { command: 'make release' }), cwd: other.root });
    const records = readAudit(p.runtimeDir).records;
    expect(records.map((r) => r.project)).toEqual([p.root, other.root]);
    const s = computeStats(records);
    expect(s.topAsks.map((a) => a.subject)).toEqual(['make deploy-staging TOKEN=<REDACTED>', 'make release']);
    expect(renderStats(s)).not.toContain(token);
    const cli = (cwd: string, ...args: string[]) =>
      spawnSync(process.execPath, [hookwiseBin(), ...args], { cwd, env: p.env, encoding: 'utf8' });
    const here = cli(p.root, 'stats', '--json');
    expect((JSON.parse(here.stdout) as { total: number }).total).toBe(1);
    expect(
      (JSON.parse(cli(p.root, 'stats', '--json', '--project', other.root).stdout) as { total: number }).total,
    ).toBe(1);
    expect((JSON.parse(cli(p.root, 'stats', '--json', '--all-projects').stdout) as { total: number }).total).toBe(2);
    const shown = cli(p.root, 'monitor', '--no-follow');
    expect(shown.stdout).toContain('make deploy-staging TOKEN=<REDACTED>');
    expect(shown.stdout).not.toContain('make release');
  });
});

describe('stats and monitor: calls hookwise could not read are decisions too', () => {
  it('malformed, incomplete and unknown payloads are denies in the log, with what could be read', async () => {
    const p = makeProject();
    await p.check('{"session_id": "s9", ', 'claude');
    const incomplete = p.pre('Write', {}, 's9');
    delete incomplete.tool_input;
    await p.check(incomplete);
    await p.check({ session_id: 's9', cwd: p.root, hook_event_name: 'PermissionRequest', tool_name: 'Bash' });
    const records = readAudit(p.runtimeDir).records;
    expect(records.map((r) => [r.verdict, r.tier, r.rule, r.host, r.tool])).toEqual([
      ['deny', 'input', 'error:INPUT_NOT_JSON', 'claude', '-'],
      ['deny', 'input', 'error:INPUT_INVALID', 'claude', 'Write'],
      ['deny', 'input', 'error:UNKNOWN_EVENT', 'claude', 'Bash'],
    ]);
    expect(records.slice(1).map((r) => r.project)).toEqual([p.root, p.root]);
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, [hookwiseBin(), ...args], { cwd: p.root, env: p.env, encoding: 'utf8' });
    const s = JSON.parse(cli('stats', '--json').stdout) as { total: number; byVerdict: Record<string, number> };
    // The first one carries no cwd: it is shown in every project's view rather than in none.
    expect(s).toMatchObject({ total: 3, byVerdict: { deny: 3 } });
    const shown = cli('monitor', '--no-follow').stdout;
    expect(shown).toMatch(/deny\s+input .*error:INPUT_NOT_JSON/);
    expect(shown).toMatch(/Write .*field "tool_input".*error:INPUT_INVALID/);
    expect(shown).toContain('error:UNKNOWN_EVENT');
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
      const base = {
        ts: new Date().toISOString(),
        session: sanitize('s2').text,
        role: 'docs',
        host: 'claude' as const,
        tool: sanitize('Edit').text,
        tier: 'path-policy' as const,
        rule: 'r',
        latency_ms: 1,
        paths: [sanitize('/x/src/b.ts').text],
        input: sanitize('edit /x/src/b.ts').text,
        secrets: 0,
        input_hash: '0',
      };
      appendAudit(p.runtimeDir, { ...base, verdict: 'deny' }, { maxBytes: 1e6, keep: 3 });
      await new Promise((r) => setTimeout(r, 100));
      controller.abort();
      await following; // the loop ends at its next tick
    } finally {
      controller.abort();
      process.env.HOOKWISE_RUNTIME_DIR = previous;
    }
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /deny\s+path-policy\s+coder\s+s1\s+Write .*tests\/a\.ts\s+\(role:coder:deny_write:tests\/\*\*\)/,
    );
    expect(lines[1]).toMatch(/deny\s+path-policy\s+docs\s+s2\s+Edit\s+\/x\/src\/b\.ts/);
  });
});

describe('stats: decision memory hit rates', () => {
  it('counts what overrides and the exact cache decided, as a share of every decision, in text and JSON', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    const { override } = await import('../../src/cli/rules.js');
    const { appendRecords } = await import('../../src/memory/store.js');
    const { cacheKey } = await import('../../src/memory/cache.js');
    const { sanitize } = await import('../../src/sanitize/index.js');
    await override({ role: 'coder', command: 'npm run *', allow: true }, p.root, p.env);
    appendRecords({ scope: 'user', userConfigDir: p.configDir }, [
      {
        key: cacheKey('Bash', 'make deploy'),
        tool: 'Bash',
        subject: sanitize('make deploy').text,
        role: 'coder',
        verdict: 'allow',
        reason: sanitize('ok').text,
        tier: 'human',
        scope: 'user',
        decided_by: 'human',
        ts: new Date().toISOString(),
      },
    ]);
    const bash = (command: string) => p.check(p.pre('Bash', { command }));
    expect((await bash('npm run seed')).decision?.tier).toBe('override');
    expect((await bash('npm run migrate')).decision?.tier).toBe('override');
    expect((await bash('make deploy')).decision?.tier).toBe('exact-cache');
    expect((await bash('terraform init -upgrade')).decision?.tier).toBe('default');
    expect((await p.check(p.pre('Write', { file_path: join(p.root, 'src/a.ts'), content: '' }))).decision?.tier).toBe(
      'path-policy',
    );

    const s = computeStats(readAudit(p.runtimeDir).records);
    expect(s.memory).toEqual({
      decisions: 5,
      byTier: {
        override: { count: 2, rate: 0.4 },
        'exact-cache': { count: 1, rate: 0.2 },
        jaccard: { count: 0, rate: 0 },
        embedding: { count: 0, rate: 0 },
      },
      overall: { count: 3, rate: 0.6 },
    });
    const text = renderStats(s);
    expect(text).toMatch(/^5 decisions: /); // the existing report is still there, first
    expect(text).toContain(
      [
        'decision memory hit rates (share of 5 decisions):',
        '  override          2   40.0%',
        '  exact-cache       1   20.0%',
        '  jaccard           0    0.0%',
        '  embedding         0    0.0%',
        '  all memory        3   60.0%',
      ].join('\n'),
    );

    const { stats } = await import('../../src/cli/monitor.js');
    const previous = process.env.HOOKWISE_RUNTIME_DIR;
    process.env.HOOKWISE_RUNTIME_DIR = p.runtimeDir;
    try {
      const json = JSON.parse(stats({}, true)) as { total: number; memory: unknown };
      expect(json.total).toBe(5);
      expect(json.memory).toEqual(s.memory);
      // Filters apply first: the rates are over the selected decisions.
      expect(
        (JSON.parse(stats({ tier: 'override' }, true)) as { memory: { overall: unknown } }).memory.overall,
      ).toEqual({ count: 2, rate: 1 });
    } finally {
      if (previous === undefined) delete process.env.HOOKWISE_RUNTIME_DIR;
      else process.env.HOOKWISE_RUNTIME_DIR = previous;
    }
  });

  it('covers similarity (jaccard) too, and reports zeros without decisions', async () => {
    const { memoryHits, renderMemoryHits } = await import('../../src/audit/stats.js');
    const { sanitize } = await import('../../src/sanitize/index.js');
    const base = {
      ts: new Date().toISOString(),
      session: sanitize('s').text,
      role: 'coder',
      host: 'claude' as const,
      tool: sanitize('Bash').text,
      verdict: 'allow' as const,
      rule: null,
      latency_ms: 1,
      paths: [],
      input: sanitize('x').text,
      secrets: 0,
      input_hash: '0',
    };
    const tiers = ['jaccard', 'jaccard', 'exact-cache', 'rules'] as const;
    const m = memoryHits(tiers.map((tier) => ({ ...base, tier })));
    expect(m.byTier.jaccard).toEqual({ count: 2, rate: 0.5 });
    expect(m.overall).toEqual({ count: 3, rate: 0.75 });
    expect(renderMemoryHits(m)[3]).toBe('  jaccard           2   50.0%');
    expect(memoryHits([])).toEqual({
      decisions: 0,
      byTier: {
        override: { count: 0, rate: 0 },
        'exact-cache': { count: 0, rate: 0 },
        jaccard: { count: 0, rate: 0 },
        embedding: { count: 0, rate: 0 },
      },
      overall: { count: 0, rate: 0 },
    });
  });
});
