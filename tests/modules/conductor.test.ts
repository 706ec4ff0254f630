/**
 * hierarchy and delegation end to end through the real check path: a conductor session (role group
 * `orchestration`) may edit only its allow-list, and must delegate through the Task/Agent tool.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadPolicy } from '../../src/policy/load.js';
import { locations } from '../../src/util/locations.js';
import { makeProject, type TestProject } from '../support/project.js';

function conductor(modules: string, role = 'conductor'): TestProject {
  const p = makeProject();
  p.write('.hookwise/policy.yml', `modules:\n${modules}`);
  p.register('s1', role);
  return p;
}

const context = (stdout: string): string =>
  (JSON.parse(stdout) as { hookSpecificOutput?: { additionalContext?: string } }).hookSpecificOutput
    ?.additionalContext ?? '';
const bash = (p: TestProject, command: string, sessionId = 's1') => p.pre('Bash', { command }, sessionId);
const delegate = (p: TestProject, sessionId = 's1') =>
  p.pre('Agent', { description: 'implement', prompt: 'add the parser', subagent_type: 'general-purpose' }, sessionId);

afterEach(() => {
  vi.useRealTimers();
});

describe('hierarchy', () => {
  it('a conductor may edit only its allow-list: other writes are denied, naming how to delegate', async () => {
    const p = conductor('  hierarchy: {}\n');
    const write = await p.check(p.pre('Write', { file_path: `${p.root}/src/a.ts`, content: 'x' }));
    expect(write.decision).toMatchObject({ verdict: 'deny', tier: 'module', rule: { id: 'module:hierarchy' } });
    expect(write.decision?.reason).toMatch(/Delegate the change: start a musician with the Task\/Agent tool/);
    expect((await p.check(bash(p, 'echo x > src/out.txt'))).decision?.rule?.id).toBe('module:hierarchy');
    expect(
      (await p.check(p.pre('Edit', { file_path: `${p.root}/memory/notes.md`, old_string: 'a', new_string: 'b' })))
        .decision?.tier,
    ).not.toBe('module');
    expect((await p.check(bash(p, 'ls src'))).decision?.tier).not.toBe('module');
  });

  it('off unless policy.yml turns it on; other roles are not conductors', async () => {
    const off = conductor('  safemode: {}\n');
    expect(
      (await off.check(off.pre('Write', { file_path: `${off.root}/src/a.ts`, content: 'x' }))).decision?.rule?.id,
    ).not.toBe('module:hierarchy');
    const coder = conductor('  hierarchy: {}\n', 'coder');
    expect(
      (await coder.check(coder.pre('Write', { file_path: `${coder.root}/src/a.ts`, content: 'x' }))).decision,
    ).toMatchObject({ verdict: 'allow', tier: 'path-policy' });
  });

  it("a conductor's subagent (agent_id) is its musician: it may write the project", async () => {
    const p = conductor('  hierarchy: {}\n  delegation: {}\n');
    const r = await p.check({
      ...p.pre('Write', { file_path: `${p.root}/src/a.ts`, content: 'x' }),
      agent_id: 'agent-1',
      agent_type: 'general-purpose',
    });
    expect(r.decision).toMatchObject({ verdict: 'allow', tier: 'path-policy' });
    expect(r.decision?.reason).toMatch(/role "musician"/);
  });
});

describe('delegation', () => {
  it('calls 1–2 pass, 3–4 pass with a reminder the agent sees, from the 5th denied until a Task/Agent call resets it', async () => {
    const p = conductor('  delegation: {warn_at: 3, deny_at: 5, window: 10m}\n');
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await p.check(bash(p, `ls src/${i}`)));
    expect(answers.slice(0, 2).map((a) => context(a.stdout))).toEqual(['', '']);
    expect(context(answers[2]!.stdout)).toMatch(/work call 3 in 10 min without delegating/);
    expect(context(answers[3]!.stdout)).toMatch(/The next work call will be denied/);
    expect(answers[3]!.decision?.verdict).not.toBe('deny');
    expect(answers[4]!.decision).toMatchObject({ verdict: 'deny', tier: 'module', rule: { id: 'module:delegation' } });
    expect(answers[4]!.decision?.reason).toMatch(/work call 5 in 10 min .*\(denied from the 5th\)/);
    // Still denied: denied calls count too.
    expect((await p.check(bash(p, 'ls'))).decision?.rule?.id).toBe('module:delegation');
    // A Task/Agent call without a subagent type is not a delegation.
    await p.check(p.pre('Agent', { description: 'x', prompt: 'y' }));
    expect((await p.check(bash(p, 'ls'))).decision?.rule?.id).toBe('module:delegation');
    const delegated = await p.check(delegate(p));
    expect(delegated.decision?.verdict).not.toBe('deny');
    const after = await p.check(bash(p, 'ls'));
    expect(after.decision?.rule?.id).not.toBe('module:delegation');
    expect(context(after.stdout)).toBe('');
  });

  it('a sliding window: calls older than the window no longer count', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-26T10:00:00Z'));
    const p = conductor('  delegation: {warn_at: 3, deny_at: 5, window: 10m}\n');
    for (let i = 0; i < 4; i++) await p.check(bash(p, 'ls'));
    vi.setSystemTime(new Date('2026-11-26T10:09:00Z'));
    expect((await p.check(bash(p, 'ls'))).decision?.rule?.id).toBe('module:delegation');
    vi.setSystemTime(new Date('2026-11-26T10:10:30Z'));
    // The first four fell out of the window; the denied one at 10:09 is still in it: this is call 2.
    const r = await p.check(bash(p, 'ls'));
    expect(r.decision?.rule?.id).not.toBe('module:delegation');
    expect(context(r.stdout)).toBe('');
  });

  it("edits of the conductor's own allow-list do not count; reads never do", async () => {
    const p = conductor('  delegation: {warn_at: 2, deny_at: 3, window: 10m}\n');
    for (let i = 0; i < 4; i++) await p.check(p.pre('Write', { file_path: `${p.root}/memory/n${i}.md`, content: 'x' }));
    for (let i = 0; i < 4; i++) await p.check(p.pre('Read', { file_path: `${p.root}/README.md` }));
    expect(context((await p.check(bash(p, 'ls'))).stdout)).toBe('');
  });

  it('a session start resets the window; sessions count apart', async () => {
    const p = conductor('  delegation: {warn_at: 2, deny_at: 3, window: 10m}\n');
    p.register('s2', 'conductor');
    for (let i = 0; i < 3; i++) await p.check(bash(p, 'ls'));
    expect((await p.check(bash(p, 'ls'))).decision?.rule?.id).toBe('module:delegation');
    expect((await p.check(bash(p, 'ls', 's2'))).decision?.rule?.id).not.toBe('module:delegation');
    await p.check({
      session_id: 's1',
      transcript_path: join(p.home, 't.jsonl'),
      cwd: p.root,
      hook_event_name: 'SessionStart',
      source: 'startup',
    });
    expect((await p.check(bash(p, 'ls'))).decision?.rule?.id).not.toBe('module:delegation');
  });

  it('a later scope may only tighten the window; a bad duration is reported, not guessed', async () => {
    const p = makeProject();
    p.write(`${p.configDir}/config.yml`, 'modules:\n  delegation: {warn_at: 3, deny_at: 5, window: 10m}\n');
    p.write('.hookwise/policy.yml', 'modules:\n  delegation: {deny_at: 8}\n');
    const where = locations(p.env);
    let policy = await loadPolicy(p.root, where);
    expect(policy.modules.delegation).toMatchObject({ enabled: true, warnAt: 3, denyAt: 5, windowMs: 600_000 });
    expect(policy.warnings.map((w) => w.problem).join('\n')).toMatch(/only tighten/);
    p.write('.hookwise/policy.yml', 'modules:\n  delegation: {deny_at: 4, window: 15m}\n');
    policy = await loadPolicy(p.root, where);
    expect(policy.modules.delegation).toMatchObject({ denyAt: 4, windowMs: 900_000 });
    p.write('.hookwise/policy.yml', 'modules:\n  delegation: {window: soon}\n');
    policy = await loadPolicy(p.root, where);
    expect(policy.warnings.map((w) => w.problem).join('\n')).toMatch(/"soon" is not a duration/);
  });
});
