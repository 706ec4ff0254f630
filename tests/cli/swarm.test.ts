/**
 * `hookwise bench --swarm` in small: a real daemon (the built dist/hookwise.cjs; `npm test` builds it first),
 * a few keep-alive clients for two seconds, every answer compared with the engine's verdict in process. No
 * timing assertions: only that the daemon decided, and decided the same.
 */
import { describe, expect, it } from 'vitest';
import { startDaemon } from '../../bench/daemon-process.js';
import { createFixture } from '../../bench/fixture.js';
import { PAYLOAD_KINDS, renderSwarm, runSwarm } from '../../bench/swarm.js';
import { swarm } from '../../src/cli/bench.js';
import { HookwiseError } from '../../src/core/errors.js';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('bench --swarm', () => {
  it('4 clients for 2 s: the daemon decides, and every answer is the in-process verdict', async () => {
    const report = await runSwarm({ clients: 4, seconds: 2, quick: true });
    expect(report.decisions).toBeGreaterThan(0);
    expect(report.sessions, 'each client an agent of its own session').toBe(4);
    expect(report.errors, report.errorSamples.join('\n')).toBe(0);
    expect(report.differing, JSON.stringify(report.differingSamples, null, 2)).toBe(0);
    expect(report.warmup).toMatchObject({ answers: report.payloads.distinct, differing: 0, errors: 0 });
    for (const kind of PAYLOAD_KINDS) expect(report.payloads.byKind[kind], kind).toBeGreaterThan(0);
    // The mix is worth comparing: allows, asks and denies from several tiers, and failures.
    const verdicts = Object.keys(report.payloads.verdicts).join('\n');
    for (const v of ['allow (exact-cache)', 'ask (default)', 'deny (path-policy)', 'deny (rules)', 'exit 2'])
      expect(verdicts, v).toContain(v);
    expect(alive(report.daemon.pid), 'the daemon outlived the run').toBe(false);
    const text = renderSwarm(report);
    expect(text).toMatch(/^decisions\/s +\d+/m);
    expect(text).toContain('differing    0 answers');
  }, 90_000);

  it('clients of one shared session get the same answers', async () => {
    const report = await runSwarm({ clients: 3, seconds: 1, quick: true, sessions: 'shared' });
    expect(report.sessions).toBe(1);
    expect(report.decisions).toBeGreaterThan(0);
    expect(report.errors, report.errorSamples.join('\n')).toBe(0);
    expect(report.differing, JSON.stringify(report.differingSamples, null, 2)).toBe(0);
    expect(renderSwarm(report)).toContain('one registered session for all');
  }, 90_000);

  it('stopping a bench daemon leaves no process behind, and stop() may be called twice', async () => {
    const fixture = createFixture();
    try {
      const daemon = await startDaemon(fixture.env);
      expect(alive(daemon.pid)).toBe(true);
      expect((await daemon.health()).pid).toBe(daemon.pid);
      await daemon.stop();
      await daemon.stop();
      expect(alive(daemon.pid)).toBe(false);
    } finally {
      fixture.cleanup();
    }
  }, 30_000);

  it('the CLI entry checks --clients and --seconds before starting anything', async () => {
    for (const o of [
      { clients: '0' },
      { clients: 'x' },
      { clients: '2.5' },
      { seconds: '0' },
      { seconds: '-1' },
      { seconds: 'soon' },
    ]) {
      await expect(
        swarm(o, () => undefined),
        JSON.stringify(o),
      ).rejects.toThrow(HookwiseError);
    }
  });
});
