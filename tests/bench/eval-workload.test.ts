/**
 * The workload replay (bench/eval-workload.ts) on a tiny project and corpus of its own: asks before and after
 * confinement, and confined calls run for real — one that works, one that the walls stop, one that fails on
 * its own. Where this machine cannot confine, the replay says so and runs nothing.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evaluateWorkload, renderWorkloadEval } from '../../bench/eval-workload.js';
import { probeConfinement } from '../../src/confine/probe.js';

const canConfine = probeConfinement().available;

function fixture(): { project: string; corpus: string } {
  const base = mkdtempSync(join(tmpdir(), 'hookwise-workload-test-'));
  const project = join(base, 'project');
  mkdirSync(join(project, 'scripts'), { recursive: true });
  writeFileSync(join(project, 'scripts', 'gen.sh'), '#!/bin/sh\nmkdir -p out && echo x > out/x && echo generated\n', {
    mode: 0o755,
  });
  writeFileSync(join(project, 'scripts', 'hook.sh'), '#!/bin/sh\nset -e\necho planted > .git/hooks/pre-commit\n', {
    mode: 0o755,
  });
  writeFileSync(join(project, 'scripts', 'broken.sh'), '#!/bin/sh\nexit 3\n', { mode: 0o755 });
  spawnSync('git', ['init', '-q', project]);
  spawnSync('git', ['-C', project, 'add', '-A']);
  spawnSync('git', ['-C', project, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init']);
  const corpus = join(base, 'workload.jsonl');
  writeFileSync(
    corpus,
    ['./scripts/gen.sh', './scripts/hook.sh', './scripts/broken.sh', 'ls -la']
      .map((command) => JSON.stringify({ command, label: 'benign' }))
      .join('\n') + '\n',
  );
  return { project, corpus };
}

describe('bench --eval-workload', () => {
  it('counts asks before and after confinement and runs the confined calls for real', () => {
    const { project, corpus } = fixture();
    const e = evaluateWorkload(corpus, { project, timeoutMs: 30_000 });
    expect(e.rows).toBe(4);
    expect(e.before).toEqual({ allow: 1, ask: 3, deny: 0, confined: 0 });
    if (!canConfine) {
      expect(e.after).toEqual(e.before);
      expect(e.runs).toEqual([]);
      expect(renderWorkloadEval(e)).toContain('this machine cannot confine');
      return;
    }
    expect(e.after).toEqual({ allow: 4, ask: 0, deny: 0, confined: 3 });
    expect(e.runs.map((r) => [r.command, r.outcome])).toEqual([
      ['./scripts/gen.sh', 'ok'],
      ['./scripts/hook.sh', 'walls'],
      ['./scripts/broken.sh', 'own-failure'],
    ]);
    expect(e.runs[1]!.walls?.kind).toBe('write');
    const text = renderWorkloadEval(e);
    expect(text).toContain('asks 3 → 0');
    expect(text).toContain(
      '1 ran, 1 stopped by the walls (recognised), 0 failed only confined (unrecognised), 1 failed unconfined too, 0 timed out',
    );
  }, 120_000);
});
