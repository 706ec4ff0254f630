/**
 * The human queue with confined allows on (issue 19): a command that can run inside the walls runs there and
 * never waits for a human; one whose walls cannot be drawn after all (Claude Code's own sandbox is on) waits in
 * the queue instead of going to the host's prompt.
 */
import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { queueAnswer } from '../../src/cli/queue.js';
import { probeConfinement } from '../../src/confine/probe.js';
import { FileQueue } from '../../src/queue/file-queue.js';
import { makeProject, type TestProject } from '../support/project.js';
import { fileItems, queueMode } from './support.js';

const canConfine = probeConfinement().available;

function project(): TestProject {
  const p = makeProject();
  p.register('s1', 'coder');
  queueMode(p);
  p.write(join(p.configDir, 'config.yml'), 'confine:\n  enabled: true\n');
  p.write('scripts/gen.sh', '#!/bin/sh\nmkdir -p out && echo generated > out/gen.txt\n');
  chmodSync(join(p.root, 'scripts/gen.sh'), 0o755);
  mkdirSync(join(p.root, '.git/hooks'), { recursive: true });
  return p;
}

describe.skipIf(!canConfine)(
  `the queue with confined allows${canConfine ? '' : ' (skipped: this machine cannot confine)'}`,
  () => {
    it('a confinable command runs confined: allowed at once, nothing queued', async () => {
      const p = project();
      const r = await p.check(p.pre('Bash', { command: './scripts/gen.sh' }));
      expect(r.decision).toMatchObject({ verdict: 'allow', tier: 'confine' });
      expect(new FileQueue(p.runtimeDir).list()).toEqual([]);
    });

    it("walls that cannot be drawn after all (Claude Code's sandbox is on): the ask waits for a human", async () => {
      const p = project();
      p.write('.claude/settings.local.json', JSON.stringify({ sandbox: { enabled: true } }));
      const waiting = p.check(p.pre('Bash', { command: './scripts/gen.sh' }));
      const [item] = await fileItems(p);
      expect(item!.reason).toContain('Claude Code’s own sandbox is on');
      await queueAnswer('approve', item!.id, {}, p.env);
      const r = await waiting;
      expect(r.decision).toMatchObject({ verdict: 'allow', tier: 'human' });
      expect(r.decision!.confined).toBeUndefined();
    });
  },
);
