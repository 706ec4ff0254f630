/** `hookwise doctor`'s line on the confined network: the allowlist, and whether the proxy can serve it here. */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { doctor, networkCheck } from '../../src/cli/doctor.js';
import type { DaemonStats } from '../../src/daemon/server.js';
import { serve, type RunningDaemon } from '../../src/daemon/server.js';
import { locations } from '../../src/util/locations.js';
import { makeProject } from '../support/project.js';

const daemons: RunningDaemon[] = [];
afterEach(async () => {
  while (daemons.length > 0) await daemons.pop()!.close();
});

const daemon = { version: 'x', netproxy: { allowlists: 1 } } as DaemonStats;
const base = {
  allow: ['registry.npmjs.org', '*.github.com'],
  source: 'config.yml:4',
  socat: '/usr/bin/socat',
  daemon,
  confinable: true,
};

describe('the confined network line', () => {
  it('no allowlist: no network, and says so', () => {
    expect(networkCheck({ ...base, allow: [] })).toMatchObject({
      status: 'ok',
      detail: expect.stringMatching(/^none: confined commands have no network/),
    });
  });

  it('available: names the domains and where they are set', () => {
    expect(networkCheck(base)).toMatchObject({
      status: 'ok',
      detail: expect.stringMatching(
        /^allowlist registry\.npmjs\.org, \*\.github\.com \(config\.yml:4\): served over HTTP\(S\) by the daemon's filtering proxy/,
      ),
    });
  });

  it.each([
    ['no socat', { socat: undefined }, /needs socat/, /apt-get install socat/],
    ['no daemon', { daemon: undefined }, /daemon, which is not running/, /hookwise daemon start/],
    ['an older daemon', { daemon: { version: '0.0.1' } as DaemonStats }, /hosts no filtering proxy/, /daemon stop/],
    ['no confinement', { confinable: false }, /cannot confine/, /confinement line/],
  ])('%s: a warning with the fix, network commands asked', (_name, change, detail, fix) => {
    expect(networkCheck({ ...base, ...change })).toMatchObject({
      status: 'warn',
      detail: expect.stringMatching(detail),
      fix: expect.stringMatching(fix),
    });
  });

  it('doctor reads the effective allowlist and asks the running daemon', async () => {
    const p = makeProject();
    p.write(
      join(p.configDir, 'config.yml'),
      'confine:\n  enabled: true\n  network:\n    allow: [registry.npmjs.org]\n',
    );
    const where = locations(p.env);
    daemons.push(await serve({ where }));
    const bin = join(p.home, 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'hookwise'), '#!/bin/sh\nexit 0\n');
    chmodSync(join(bin, 'hookwise'), 0o755);
    const r = await doctor(where, {
      projectRoot: p.root,
      home: p.home,
      env: { ...p.env, PATH: `${bin}:${process.env.PATH}` },
    });
    const line = r.checks.find((c) => c.what === 'confined network')!;
    expect(line.detail).toMatch(/^allowlist registry\.npmjs\.org \(.*config\.yml:4\)/);
    expect(['ok', 'warn']).toContain(line.status); // warn where this machine cannot confine or has no socat
  });
});
