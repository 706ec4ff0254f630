/** The escape corpus (bench/confine-escapes.ts): its shape everywhere, a sample of it for real where confinement works. */
import { describe, expect, it } from 'vitest';
import { ESCAPE_CATEGORIES, escapeCases, renderEscapeReport, runEscapeCorpus } from '../../bench/confine-escapes.js';
import { probeConfinement, which } from '../../src/confine/probe.js';

const probe = probeConfinement();
const socat = which('socat', process.env);

describe('the escape corpus', () => {
  it('has at least 100 cases, in every category of the issue', () => {
    const cases = escapeCases();
    expect(cases.length).toBeGreaterThanOrEqual(100);
    for (const category of ESCAPE_CATEGORIES)
      expect(cases.filter((c) => c.category === category).length, category).toBeGreaterThan(0);
    expect(new Set(cases.map((c) => c.id)).size).toBe(cases.length);
  });

  it('where the machine cannot confine, reports that with the reason and fix, and runs nothing', async () => {
    const report = await runEscapeCorpus({
      probe: {
        available: false,
        failure: 'bwrap-missing',
        reason: 'bubblewrap (bwrap) is not installed',
        fix: 'apt-get install bubblewrap socat',
        ms: 0,
      },
    });
    expect(report).toMatchObject({ available: false, results: [] });
    expect(renderEscapeReport(report)).toMatch(/not available.*bwrap.*\n.*apt-get install bubblewrap socat/);
  });

  it.runIf(probe.available)(
    'one case of each category, for real: held, and its control did escape',
    { timeout: 60_000 },
    async () => {
      const sample = [
        'write-outside/canary by planted symlink',
        'protected-write/.git/hooks/pre-commit directory moved away',
        'secret-read/~/.ssh/id_rsa copied into the project',
        'network/Unix socket of a local daemon, node',
        'processes/kill -9 a process outside',
        'persistence/setsid',
      ];
      for (const id of sample) {
        const report = await runEscapeCorpus({ filter: id, probe, timing: false });
        expect(report.results.map((r) => [r.id, r.outcome])).toEqual([[id, 'held']]);
      }
    },
  );

  // The whole corpus, as `hookwise bench --eval-confine` runs it (≈ 3 min on 2 loaded CPUs): no case may escape,
  // and none may fail to run. A known gap (docs/confine.md) and n/a (the control showed no effect here) are reported.
  it.runIf(probe.available)('the whole corpus, for real: 0 escapes, no errors', { timeout: 900_000 }, async () => {
    const report = await runEscapeCorpus({ probe, timing: false });
    const text = renderEscapeReport(report);
    expect(report.results.length, text).toBe(escapeCases().length);
    expect(
      report.results
        .filter((r) => r.outcome === 'escaped' || r.outcome === 'error')
        .map((r) => [r.id, r.outcome, r.detail]),
      text,
    ).toEqual([]);
    console.log(text.split('\n').slice(0, 12).join('\n'));
  });

  it.runIf(probe.available && socat !== undefined)(
    'with a network allowlist, for real: the allowed request gets through, the rest is held',
    { timeout: 60_000 },
    async () => {
      const sample = [
        'network-proxy/the allowlisted name, through the proxy (must work)',
        'network-proxy/CONNECT to the allowlisted name on another port',
        'network-proxy/raw TCP around the proxy, bash /dev/tcp',
        'network-proxy/plain HTTP to the allowed name with another Host header (fronting)',
      ];
      for (const id of sample) {
        const report = await runEscapeCorpus({ filter: id, probe, timing: false });
        expect(report.results.map((r) => [r.id, r.outcome])).toEqual([[id, 'held']]);
      }
    },
  );
});
