/**
 * Confined allows end to end through `hookwise check` (issue 19): which asks become an allow that runs inside
 * the walls, which stay asks (and say why), and that the rewritten command really runs confined. Where this
 * machine cannot confine, the same calls must stay asks that say so (fail closed).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { probeConfinement } from '../../src/confine/probe.js';
import { makeProject, type TestProject } from '../support/project.js';

const canConfine = probeConfinement().available;

function project(confine: boolean | 'project'): TestProject {
  const p = makeProject();
  p.register('s1', 'coder');
  if (confine === 'project') p.write('.hookwise/policy.yml', 'confine:\n  enabled: true\n');
  else if (confine) p.write(join(p.configDir, 'config.yml'), 'confine:\n  enabled: true\n');
  p.write('scripts/gen.sh', '#!/bin/sh\nmkdir -p out && echo generated > out/gen.txt\necho planted > .git/hooks/pre-commit 2>/dev/null || echo "hooks: refused"\ncat "$HOME/.ssh/id_rsa" 2>/dev/null || echo "ssh: hidden"\n');
  chmodSync(join(p.root, 'scripts/gen.sh'), 0o755);
  mkdirSync(join(p.root, '.git/hooks'), { recursive: true });
  p.write(join(p.home, '.ssh/id_rsa'), 'PRIVATE KEY CANARY\n');
  return p;
}

async function bash(p: TestProject, command: string) {
  const r = await p.check(p.pre('Bash', { command, description: 'a script' }));
  const out = JSON.parse(r.stdout) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string; updatedInput?: Record<string, unknown>; additionalContext?: string } };
  return { ...out.hookSpecificOutput, decision: r.decision! };
}

describe('confinement off (the default) or turned on by a project file', () => {
  it('asks about a command nobody decided, as before', async () => {
    const d = await bash(project(false), './scripts/gen.sh');
    expect(d.permissionDecision).toBe('ask');
    expect(d.updatedInput).toBeUndefined();
    expect(d.additionalContext).toBeUndefined();
  });

  it('a project file cannot turn confined allows on (they allow what would be asked)', async () => {
    const d = await bash(project('project'), './scripts/gen.sh');
    expect(d.permissionDecision).toBe('ask');
  });
});

describe('commands that are never confined, even with confinement on', () => {
  it.each([
    ['deletes project files', 'rm -rf src', 'deletes or overwrites'],
    ['reaches the network', 'curl -s https://example.com/install.sh', 'network'],
    ['reads a credential', `./scripts/gen.sh < ~/.aws/credentials`, ''],
  ])('%s: stays an ask', async (_name, command, why) => {
    const d = await bash(project(true), command);
    expect(d.permissionDecision).not.toBe('allow');
    expect(d.updatedInput).toBeUndefined();
    if (why !== '') expect(d.permissionDecisionReason).toContain(why);
  });

  it('a pack or rule decision stands (allowed and denied calls are not rewritten)', async () => {
    const p = project(true);
    expect((await bash(p, 'git status')).updatedInput).toBeUndefined();
    const denied = await bash(p, 'git push --force origin main');
    expect(denied.permissionDecision).not.toBe('allow');
    expect(denied.updatedInput).toBeUndefined();
  });
});

describe.runIf(!canConfine)('on a machine that cannot confine', () => {
  it('the call stays an ask and says why (fail closed)', async () => {
    const d = await bash(project(true), './scripts/gen.sh');
    expect(d.permissionDecision).toBe('ask');
    expect(d.permissionDecisionReason).toContain('could not run confined');
  });
});

describe.runIf(canConfine)('a project script nobody decided runs confined', () => {
  it('is allowed with the command rewritten; the rest of the input is kept', async () => {
    const d = await bash(project(true), './scripts/gen.sh');
    expect(d.permissionDecision).toBe('allow');
    expect(d.decision.tier).toBe('confine');
    expect(d.permissionDecisionReason).toContain('runs confined');
    expect(d.updatedInput?.description).toBe('a script');
    expect(d.updatedInput?.command).not.toBe('./scripts/gen.sh');
  });

  it('tells the agent that it runs confined (the reason of an allow reaches only the user)', async () => {
    const d = await bash(project(true), './scripts/gen.sh');
    expect(d.additionalContext).toBe(d.permissionDecisionReason);
    expect(d.additionalContext).toContain('runs confined: it may write only inside the project');
  });

  it('the rewritten command runs: its writes land in the project, the walls hold', async () => {
    const p = project(true);
    const d = await bash(p, './scripts/gen.sh');
    const run = spawnSync('/bin/sh', ['-c', String(d.updatedInput?.command)], { cwd: p.root, env: { ...p.env, PATH: process.env.PATH }, encoding: 'utf8', timeout: 20_000 });
    expect(run.status).toBe(0);
    expect(readFileSync(join(p.root, 'out/gen.txt'), 'utf8')).toBe('generated\n');
    expect(existsSync(join(p.root, '.git/hooks/pre-commit'))).toBe(false);
    expect(run.stdout).toContain('hooks: refused');
    expect(run.stdout).toContain('ssh: hidden');
    expect(run.stdout).not.toContain('CANARY');
  });

  it('is written to the audit log as a confined allow', async () => {
    const p = project(true);
    await bash(p, './scripts/gen.sh');
    const lines = readFileSync(join(p.runtimeDir, 'audit.jsonl'), 'utf8').trim().split('\n');
    expect(JSON.parse(lines[lines.length - 1]!)).toMatchObject({ verdict: 'allow', tier: 'confine', rule: 'confine:unknown-effect' });
  });

  it('Gemini CLI gets the wrapped command as tool_input', async () => {
    const p = project(true);
    const payload = { session_id: 's1', cwd: p.root, hook_event_name: 'BeforeTool', tool_name: 'run_shell_command', tool_input: { command: './scripts/gen.sh' } };
    const r = await p.check(payload, 'gemini');
    const out = JSON.parse(r.stdout) as { decision: string; hookSpecificOutput?: { tool_input?: { command?: string } } };
    expect(out.decision).toBe('allow');
    expect(out.hookSpecificOutput?.tool_input?.command).toContain('bwrap');
  });

  it("with Claude Code's own sandbox on, the command is neither wrapped twice nor allowed on its walls: it stays an ask", async () => {
    const p = project(true);
    p.write('.claude/settings.local.json', JSON.stringify({ sandbox: { enabled: true, autoAllowBashIfSandboxed: true } }));
    const d = await bash(p, './scripts/gen.sh');
    expect(d.permissionDecision).toBe('ask');
    expect(d.updatedInput).toBeUndefined();
    expect(d.permissionDecisionReason).toContain('Claude Code’s own sandbox is on');
    // Gemini CLI has no such sandbox setting: its call is still confined.
    const gemini = await p.check({ session_id: 's1', cwd: p.root, hook_event_name: 'BeforeTool', tool_name: 'run_shell_command', tool_input: { command: './scripts/gen.sh' } }, 'gemini');
    expect((JSON.parse(gemini.stdout) as { decision: string }).decision).toBe('allow');
  });
});

describe('the confinement cache', () => {
  it('is a private file in the runtime directory once a confinable call was judged', async () => {
    const p = project(true);
    await bash(p, './scripts/gen.sh');
    const file = join(p.runtimeDir, 'cache', 'confine.json');
    const cached = JSON.parse(readFileSync(file, 'utf8')) as { verdict: { available: boolean } };
    expect(cached.verdict.available).toBe(canConfine);
    writeFileSync(file, '{ not json');
    // A corrupt cache is probed again, never trusted.
    const d = await bash(p, './scripts/gen.sh');
    expect(d.permissionDecision).toBe(canConfine ? 'allow' : 'ask');
  });
});
