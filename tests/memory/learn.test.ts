import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pendingDir } from '../../src/memory/learn.js';
import { loadScope } from '../../src/memory/store.js';
import { makeProject, type TestProject } from '../support/project.js';
import { rememberCommand, targetOf } from '../support/memory.js';

function post(p: TestProject, tool: string, input: Record<string, unknown>, toolUseId: string, sessionId = 's1'): Record<string, unknown> {
  return { ...p.pre(tool, input, sessionId), hook_event_name: 'PostToolUse', tool_use_id: toolUseId, tool_response: { stdout: '' } };
}

function pre(p: TestProject, command: string, toolUseId: string, sessionId = 's1'): Record<string, unknown> {
  return { ...p.pre('Bash', { command }, sessionId), tool_use_id: toolUseId };
}

const learned = (p: TestProject, scope: 'user' | 'session' | 'project' = 'user') => loadScope(targetOf(p, scope)).records;

describe("learning from the host's own prompt", () => {
  it('ask (nobody decided) → the host runs the tool (PostToolUse, same tool_use_id) → a human allow is remembered', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    const first = await p.check(pre(p, 'make deploy-staging --jobs 4', 'toolu_1'));
    expect(first.decision).toMatchObject({ verdict: 'ask', tier: 'default' });
    const after = await p.check(post(p, 'Bash', { command: 'make deploy-staging --jobs 4' }, 'toolu_1'));
    expect(after).toMatchObject({ stdout: '', exitCode: 0 });
    expect(learned(p)).toEqual([expect.objectContaining({ verdict: 'allow', tier: 'human', decided_by: 'host-prompt', role: 'coder', scope: 'user', subject: 'make deploy-staging --jobs 4', commands: ['make'] })]);
    expect((await p.check(pre(p, 'make deploy-staging --jobs 4', 'toolu_2'))).decision).toMatchObject({ verdict: 'allow', tier: 'exact-cache' });
    // The note is consumed: a second PostToolUse for the same id records nothing more.
    await p.check(post(p, 'Bash', { command: 'make deploy-staging --jobs 4' }, 'toolu_1'));
    expect(learned(p)).toHaveLength(1);
  });

  it('no PostToolUse (the human said no) or another tool_use_id records nothing', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    await p.check(pre(p, 'make deploy-staging --jobs 4', 'toolu_1'));
    await p.check(post(p, 'Bash', { command: 'make deploy-staging --jobs 4' }, 'toolu_other'));
    expect(learned(p)).toEqual([]);
    expect(readdirSync(pendingDir(p.runtimeDir))).toHaveLength(1);
  });

  it('an ask that a pack, a sensitive path or memory produced is never converted into an allow', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    await rememberCommand(p, 'make migrate-db --env prod', 'ask');
    const cases: [string, Record<string, unknown>][] = [
      ['Bash', { command: 'git push --force origin feature-x' }],
      ['Write', { file_path: `${p.root}/.env`, content: 'A=1' }],
      ['Bash', { command: 'make migrate-db --env prod' }],
    ];
    for (const [i, [tool, input]] of cases.entries()) {
      const r = await p.check({ ...p.pre(tool, input), tool_use_id: `toolu_${i}` });
      expect(r.decision?.verdict).toBe('ask');
      expect(r.decision?.tier).not.toBe('default');
      await p.check(post(p, tool, input, `toolu_${i}`));
    }
    expect(learned(p).filter((r) => r.verdict === 'allow')).toEqual([]);
  });

  it('an ask remembered for the call by the time the tool ran is not overwritten', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    await p.check(pre(p, 'make deploy-staging --jobs 4', 'toolu_1'));
    await rememberCommand(p, 'make deploy-staging --jobs 4', 'ask');
    await p.check(post(p, 'Bash', { command: 'make deploy-staging --jobs 4' }, 'toolu_1'));
    expect(learned(p).map((r) => r.verdict)).toEqual(['ask']);
  });

  it('memory.learn_scope (user config only) sends approvals to the session scope; a project file cannot set it', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    p.write('.hookwise/policy.yml', 'memory:\n  learn_scope: project\n');
    await p.check(pre(p, 'make a-target --x', 'toolu_1'));
    await p.check(post(p, 'Bash', { command: 'make a-target --x' }, 'toolu_1'));
    expect(learned(p, 'project')).toEqual([]);
    expect(learned(p, 'user')).toHaveLength(1);
    p.write(`${p.configDir}/config.yml`, 'memory:\n  learn_scope: session\n');
    await p.check(pre(p, 'make b-target --x', 'toolu_2'));
    await p.check(post(p, 'Bash', { command: 'make b-target --x' }, 'toolu_2'));
    expect(learned(p, 'session').map((r) => r.subject)).toEqual(['make b-target --x']);
  });

  it('memory.learn: false (a project may switch learning off) leaves no note', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    p.write('.hookwise/policy.yml', 'memory:\n  learn: false\n');
    await p.check(pre(p, 'make a-target --x', 'toolu_1'));
    expect(existsSync(pendingDir(p.runtimeDir)) ? readdirSync(pendingDir(p.runtimeDir)) : []).toEqual([]);
  });

  it('hosts that cannot show hookwise’s ask (Codex, headless Gemini: ask becomes deny) leave no note', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    const codex = { session_id: 's1', cwd: p.root, hook_event_name: 'PreToolUse', model: 'gpt', turn_id: 't', tool_name: 'Bash', tool_input: { command: 'make a-target --x' }, tool_use_id: 'call_1' };
    await p.check(codex, 'codex');
    expect(existsSync(pendingDir(p.runtimeDir)) ? readdirSync(pendingDir(p.runtimeDir)) : []).toEqual([]);
  });

  it('a secret in the approved command reaches neither the note nor the store', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    const secret = 'sk_live_' + '51HqLyjWDarjtT1zdp7dc9Zq8w3R4y6T';
    const command = `make charge STRIPE_KEY=${secret} --dry-run`;
    await p.check(pre(p, command, 'toolu_1'));
    for (const name of readdirSync(pendingDir(p.runtimeDir))) expect(readFileSync(join(pendingDir(p.runtimeDir), name), 'utf8')).not.toContain(secret);
    await p.check(post(p, 'Bash', { command }, 'toolu_1'));
    const file = join(p.configDir, 'user', 'rules.jsonl');
    expect(readFileSync(file, 'utf8')).toContain('<REDACTED>');
    expect(readFileSync(file, 'utf8')).not.toContain(secret);
  });

  it('in every permission mode Claude Code puts a hook ask to a human in; never without a mode or with an unknown one', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    const modes = ['default', 'acceptEdits', 'plan', 'auto', 'dontAsk', 'bypassPermissions', undefined, 'someFutureMode'];
    for (const [i, mode] of modes.entries()) {
      const command = `make target-${i} --x`;
      const payload: Record<string, unknown> = { ...pre(p, command, `toolu_${i}`), permission_mode: mode };
      if (mode === undefined) delete payload.permission_mode;
      expect((await p.check(payload)).decision).toMatchObject({ verdict: 'ask', tier: 'default' });
      await p.check({ ...payload, hook_event_name: 'PostToolUse', tool_response: {} });
    }
    expect(learned(p).map((r) => r.subject).sort()).toEqual([0, 1, 2, 3, 4, 5].map((i) => `make target-${i} --x`));
  });
});
