/**
 * Confinement by default (issue 30, item 17): with no `confine.enabled` in any config file, a command whose
 * effect is unknown runs confined where bubblewrap works and Claude Code's own sandbox is off; elsewhere it is
 * asked exactly as with confinement off. The user's file, or a project's, turns it off.
 */
import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { probeConfinement } from '../../src/confine/probe.js';
import { confinementByDefault } from '../../src/engine/confine.js';
import { locations } from '../../src/util/locations.js';
import { makeProject, type TestProject } from '../support/project.js';

const canConfine = probeConfinement().available;

function project(): TestProject {
  const p = makeProject({ confine: 'default' });
  p.register('s1', 'coder');
  p.write('scripts/gen.sh', '#!/bin/sh\nmkdir -p out && echo generated > out/gen.txt\n');
  chmodSync(join(p.root, 'scripts/gen.sh'), 0o755);
  mkdirSync(join(p.root, '.git/hooks'), { recursive: true });
  return p;
}

async function decide(p: TestProject, host: 'claude' | 'gemini' = 'claude') {
  const payload =
    host === 'claude'
      ? p.pre('Bash', { command: './scripts/gen.sh' })
      : {
          session_id: 's1',
          cwd: p.root,
          hook_event_name: 'BeforeTool',
          tool_name: 'run_shell_command',
          tool_input: { command: './scripts/gen.sh' },
        };
  return (await p.check(payload, host)).decision!;
}

describe('confinement by default', () => {
  it.runIf(canConfine)('where bubblewrap works, a command nobody decided runs confined', async () => {
    const d = await decide(project());
    expect(d.verdict).toBe('allow');
    expect(d.tier).toBe('confine');
    expect(d.rule?.source).toBe('built-in');
  });

  it.runIf(!canConfine)('where bubblewrap does not work, it is asked without a remark about the walls', async () => {
    const d = await decide(project());
    expect(d.verdict).toBe('ask');
    expect(d.reason).not.toContain('confined');
  });

  it('the user turns it off in their config.yml', async () => {
    const p = project();
    p.write(join(p.configDir, 'config.yml'), 'confine:\n  enabled: false\n');
    expect((await decide(p)).verdict).toBe('ask');
  });

  it('a project turns it off in .hookwise/policy.yml', async () => {
    const p = project();
    p.write('.hookwise/policy.yml', 'confine:\n  enabled: false\n');
    expect((await decide(p)).verdict).toBe('ask');
  });

  it("Claude Code's own sandbox on: off for Claude Code, silently, and still on for Gemini CLI", async () => {
    const p = project();
    p.write('.claude/settings.json', JSON.stringify({ sandbox: { enabled: true } }));
    const d = await decide(p);
    expect(d.verdict).toBe('ask');
    expect(d.reason).not.toContain('confined');
    expect((await decide(p, 'gemini')).verdict).toBe(canConfine ? 'allow' : 'ask');
    const why = await confinementByDefault(locations(p.env), { host: 'claude' }, p.root);
    expect(why).toEqual({ on: false, why: expect.stringContaining('sandbox is on') as string });
  });

  it('says why it is on or off', async () => {
    const p = project();
    const why = await confinementByDefault(locations(p.env), { host: 'claude' }, p.root);
    expect(why.on).toBe(canConfine);
    expect(why.why).toMatch(canConfine ? /bubblewrap works here/ : /bubblewrap does not work here/);
  });
});
