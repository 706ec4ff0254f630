/** What doctor, init and install say about confinement: on or off, and why. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { confinementStatus } from '../../src/cli/confine-status.js';
import { probeConfinement } from '../../src/confine/probe.js';
import { locations } from '../../src/util/locations.js';
import { makeProject } from '../support/project.js';

const canConfine = probeConfinement().available;

describe('the confinement line', () => {
  it('by default: on where bubblewrap works, with how to turn it off; otherwise off and why', async () => {
    const p = makeProject({ confine: 'default' });
    const status = await confinementStatus(p.root, locations(p.env));
    expect(status.on).toBe(canConfine);
    if (canConfine) {
      expect(status.line).toMatch(/^confinement: on by default \(bubblewrap works here/);
      expect(status.line).toContain('enabled: false');
    } else expect(status.line).toMatch(/^confinement: off by default here \(bubblewrap does not work here/);
  });

  it('off by default for Claude Code when its own sandbox is on', async () => {
    const p = makeProject({ confine: 'default' });
    p.write('.claude/settings.local.json', JSON.stringify({ sandbox: { enabled: true } }));
    const status = await confinementStatus(p.root, locations(p.env));
    expect(status.on).toBe(false);
    expect(status.line).toContain('Claude Code’s own sandbox is on');
  });

  it('turned off by a file: names it', async () => {
    const p = makeProject({ confine: 'default' });
    p.write('.hookwise/policy.yml', 'confine:\n  enabled: false\n');
    const status = await confinementStatus(p.root, locations(p.env));
    expect(status).toMatchObject({ on: false });
    expect(status.line).toMatch(/^confinement: off \(confine\.enabled: false in .*policy\.yml/);
  });

  it('turned on by the user: says so, and why it cannot run where it cannot', async () => {
    const p = makeProject({ confine: 'default' });
    p.write(join(p.configDir, 'config.yml'), 'confine:\n  enabled: true\n');
    const status = await confinementStatus(p.root, locations(p.env));
    expect(status.line).toMatch(/^confinement: on \(confine\.enabled: true in .*config\.yml/);
    expect(status.on).toBe(canConfine);
  });
});
