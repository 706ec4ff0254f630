/**
 * The modules end to end through Engine.handle (hookwise check): policy.yml turns them on, the human's
 * prompt and post-tool events drive the signed state, the modules tier denies edits and writes.
 */
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { explain } from '../../src/cli/explain.js';
import { breakerCommand, safemodeCommand } from '../../src/cli/modules.js';
import { status } from '../../src/cli/session.js';
import { moduleStateFile } from '../../src/modules/state-file.js';
import { watchMarker } from '../../src/modules/watch.js';
import { makeProject, type TestProject } from '../support/project.js';

function project(modules: string): TestProject {
  const p = makeProject();
  p.write('.hookwise/policy.yml', `modules:\n${modules}`);
  p.register('s1', 'coder');
  return p;
}

const prompt = (p: TestProject, text: string, sessionId = 's1') => ({
  session_id: sessionId,
  transcript_path: join(p.home, 't.jsonl'),
  cwd: p.root,
  hook_event_name: 'UserPromptSubmit',
  prompt: text,
});
const failure = (p: TestProject, command: string, error: string, sessionId = 's1') => ({
  ...p.pre('Bash', { command }, sessionId),
  hook_event_name: 'PostToolUseFailure',
  error,
});
const success = (p: TestProject, command: string, sessionId = 's1') => ({
  ...p.pre('Bash', { command }, sessionId),
  hook_event_name: 'PostToolUse',
  tool_response: { stdout: 'ok', stderr: '' },
});
const context = (stdout: string): string =>
  stdout.trim() === ''
    ? ''
    : ((JSON.parse(stdout) as { hookSpecificOutput?: { additionalContext?: string } }).hookSpecificOutput
        ?.additionalContext ?? '');

async function verdicts(p: TestProject, sessionId = 's1') {
  const write = await p.check(p.pre('Write', { file_path: `${p.root}/src/a.ts`, content: 'x' }, sessionId));
  const edit = await p.check(
    p.pre('Edit', { file_path: `${p.root}/src/a.ts`, old_string: 'a', new_string: 'b' }, sessionId),
  );
  const bashWrite = await p.check(p.pre('Bash', { command: 'echo hi > src/out.txt' }, sessionId));
  const bashRead = await p.check(p.pre('Bash', { command: 'ls src' }, sessionId));
  const read = await p.check(p.pre('Read', { file_path: `${p.root}/src/a.ts` }, sessionId));
  return {
    write: write.decision!,
    edit: edit.decision!,
    bashWrite: bashWrite.decision!,
    bashRead: bashRead.decision!,
    read: read.decision!,
  };
}

describe('safemode', () => {
  it('s+ blocks every edit and write (file tools and shell writes), not reads; s? reports; s- lifts it', async () => {
    const p = project('  safemode: {}\n');
    const before = await verdicts(p);
    expect(before.write.tier).not.toBe('module');
    const on = await p.check(prompt(p, 's+'));
    expect(context(on.stdout)).toMatch(/safemode is ON/);
    const during = await verdicts(p);
    for (const d of [during.write, during.edit, during.bashWrite])
      expect(d).toMatchObject({ verdict: 'deny', tier: 'module', rule: { id: 'module:safemode' } });
    expect(during.write.reason).toMatch(/prompt `s-`/);
    expect(during.bashRead.tier).not.toBe('module');
    expect(during.read.tier).not.toBe('module');
    expect(context((await p.check(prompt(p, 's?'))).stdout)).toMatch(/safemode is ON/);
    // Another session is not affected.
    p.register('s2', 'coder');
    expect((await verdicts(p, 's2')).write.tier).not.toBe('module');
    await p.check(prompt(p, 's-'));
    expect((await verdicts(p)).write.tier).not.toBe('module');
  });

  it('is never taken from tool input, nor from a prompt that only contains it; off unless policy.yml turns it on', async () => {
    const p = project('  safemode: {}\n');
    await p.check(p.pre('Bash', { command: 'echo s+' }));
    await p.check(prompt(p, 'please do s+ later'));
    expect((await verdicts(p)).write.tier).not.toBe('module');
    const off = makeProject();
    off.register('s1', 'coder');
    expect(context((await off.check(prompt(off, 's+'))).stdout)).toBe('');
    expect((await verdicts(off)).write.tier).not.toBe('module');
  });

  it('the CLI turns it on and off, and reports it', async () => {
    const p = project('  safemode: {}\n');
    vi.stubEnv('HOOKWISE_RUNTIME_DIR', p.runtimeDir);
    vi.stubEnv('HOOKWISE_CONFIG_DIR', p.configDir);
    vi.stubEnv('HOME', p.home);
    expect(safemodeCommand('on', 's1')).toMatch(/safemode is ON/);
    expect((await verdicts(p)).edit).toMatchObject({ verdict: 'deny', rule: { id: 'module:safemode' } });
    expect(safemodeCommand('status', 's1')).toMatch(/ON/);
    expect(await status('s1', false)).toMatch(/\n {2}safemode: ON \(edits and writes denied\)/);
    expect(JSON.parse(await status('s1', true))).toMatchObject({ modules: { safemode: { on: true } } });
    // explain --session-id shows the module's decision like check makes it.
    const shown = await explain({ tool: 'Write', file: 'src/a.ts', role: 'coder', cwd: p.root, sessionId: 's1' });
    expect(shown.decision).toMatchObject({ verdict: 'deny', tier: 'module', rule: { id: 'module:safemode' } });
    expect(shown.trace[0]).toMatchObject({ step: 'module', verdict: 'deny' });
    expect(safemodeCommand('off', 's1')).toMatch(/off/);
    expect((await verdicts(p)).edit.tier).not.toBe('module');
    expect(() => safemodeCommand('maybe', 's1')).toThrow(/on, off or status/);
  });
});

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('circuit breaker', () => {
  it('3 consecutive failures trip it; edits and writes are denied; rb? reports; rb- resets', async () => {
    const p = project('  circuit_breaker: {threshold: 3}\n');
    await p.check(failure(p, 'pytets', 'Exit code 127\nbash: pytets: command not found'));
    await p.check(failure(p, 'npm test', 'Exit code 1\n Tests  2 failed | 3 passed'));
    expect((await verdicts(p)).write.tier).not.toBe('module');
    await p.check(failure(p, 'cat x', 'Exit code 1\ncat: x: Permission denied'));
    const tripped = await verdicts(p);
    for (const d of [tripped.write, tripped.edit, tripped.bashWrite])
      expect(d).toMatchObject({ verdict: 'deny', tier: 'module', rule: { id: 'module:circuit-breaker' } });
    expect(tripped.write.reason).toMatch(/3 consecutive tool failures.*reset breaker/);
    expect(tripped.bashRead.tier).not.toBe('module');
    expect(context((await p.check(prompt(p, 'rb?'))).stdout)).toMatch(/TRIPPED/);
    // A success does not untrip it.
    await p.check(success(p, 'ls'));
    expect((await verdicts(p)).write.tier).toBe('module');
    expect(context((await p.check(prompt(p, 'rb-'))).stdout)).toMatch(/closed.*0 consecutive/);
    expect((await verdicts(p)).write.tier).not.toBe('module');
  });

  it('failed results reported in a plain PostToolUse count too (an error flag, a non-zero exit, an "Exit code" text)', async () => {
    const p = project('  circuit_breaker: {threshold: 3}\n');
    const post = (response: unknown) => ({
      ...p.pre('Bash', { command: 'make' }),
      hook_event_name: 'PostToolUse',
      tool_response: response,
    });
    await p.check(post({ stdout: '', stderr: 'make: *** No rule to make target', exit_code: 2 }));
    await p.check(post('Exit code 127\nbash: pytets: command not found'));
    expect((await verdicts(p)).write.tier).not.toBe('module');
    await p.check({
      ...p.pre('mcp__db__query', { sql: 'select 1' }),
      hook_event_name: 'PostToolUse',
      tool_response: { is_error: true, content: 'connection refused' },
    });
    expect((await verdicts(p)).write).toMatchObject({ verdict: 'deny', rule: { id: 'module:circuit-breaker' } });
  });

  it('a success in between resets the run; the same signature 3 times still trips it', async () => {
    const p = project('  circuit_breaker: {}\n');
    for (let i = 0; i < 2; i++) {
      await p.check(failure(p, 'npm test', 'Exit code 1\nAssertionError: expected 1 to be 2'));
      await p.check(success(p, 'git status'));
    }
    expect((await verdicts(p)).write.tier).not.toBe('module');
    await p.check(failure(p, 'npm test', 'Exit code 1\nAssertionError: expected 1 to be 2'));
    expect((await verdicts(p)).write.reason).toMatch(/same error \(test-failure\) 3 times/);
    // `reset breaker` from the human, and the CLI, reset it.
    await p.check(prompt(p, 'reset breaker'));
    expect((await verdicts(p)).write.tier).not.toBe('module');
  });

  it('failures do not count while the breaker is off; the CLI resets it; failures with a threshold of 1 trip at once', async () => {
    const off = makeProject();
    off.register('s1', 'coder');
    for (let i = 0; i < 4; i++) await off.check(failure(off, 'x', 'Exit code 127\nx: command not found'));
    expect(existsSync(moduleStateFile(off.runtimeDir, 's1'))).toBe(false);
    const p = project('  circuit_breaker: {threshold: 1}\n');
    await p.check(failure(p, 'x', 'Exit code 127\nx: command not found'));
    expect((await verdicts(p)).edit.rule?.id).toBe('module:circuit-breaker');
    vi.stubEnv('HOOKWISE_RUNTIME_DIR', p.runtimeDir);
    vi.stubEnv('HOOKWISE_CONFIG_DIR', p.configDir);
    vi.stubEnv('HOME', p.home);
    expect(breakerCommand('status', 's1')).toMatch(/TRIPPED/);
    expect(breakerCommand('reset', 's1')).toMatch(/closed/);
    expect((await verdicts(p)).edit.tier).not.toBe('module');
  });

  it('sessions count apart: interleaved failures trip only the session that reached the threshold', async () => {
    const p = project('  circuit_breaker: {}\n');
    p.register('s2', 'coder');
    await Promise.all([
      p.check(failure(p, 'a', 'boom', 's1')),
      p.check(failure(p, 'b', 'boom', 's2')),
      p.check(failure(p, 'c', 'boom', 's1')),
      p.check(failure(p, 'd', 'boom', 's2')),
      p.check(failure(p, 'e', 'boom', 's1')),
    ]);
    expect((await verdicts(p, 's1')).write.rule?.id).toBe('module:circuit-breaker');
    expect((await verdicts(p, 's2')).write.tier).not.toBe('module');
  });

  it('hook processes recording failures of one session at once lose no update (the per-session lock; needs the build)', async () => {
    const p = project('  circuit_breaker: {threshold: 100}\n');
    const bin = new URL('../../dist/hookwise.cjs', import.meta.url).pathname;
    const runs = Array.from(
      { length: 8 },
      (_, i) =>
        new Promise<number>((resolve) => {
          const child = spawn(process.execPath, [bin, 'check'], { env: p.env, stdio: ['pipe', 'ignore', 'inherit'] });
          child.on('exit', (code) => resolve(code ?? 1));
          child.stdin.end(JSON.stringify(failure(p, `run ${i}`, 'boom')));
        }),
    );
    expect(await Promise.all(runs)).toEqual(Array(8).fill(0));
    vi.stubEnv('HOOKWISE_RUNTIME_DIR', p.runtimeDir);
    vi.stubEnv('HOOKWISE_CONFIG_DIR', p.configDir);
    vi.stubEnv('HOME', p.home);
    expect(breakerCommand('status', 's1')).toMatch(/closed for this session: 8 consecutive failure\(s\) \(other ×8\)/);
  }, 60_000);

  it('the gate leaves the wake-up marker the plugin wrapper looks for, only with a breaker on', async () => {
    const p = project('  circuit_breaker: {}\n');
    await p.check(p.pre('Read', { file_path: `${p.root}/x` }));
    expect(existsSync(watchMarker(p.runtimeDir, 's1'))).toBe(true);
    const off = makeProject();
    off.register('s1', 'coder');
    await off.check(off.pre('Read', { file_path: `${off.root}/x` }));
    expect(existsSync(watchMarker(off.runtimeDir, 's1'))).toBe(false);
  });
});

describe('tampered state fails closed', () => {
  it('a state file rewritten by the agent denies edits and writes, says so and how to reset; a human reset clears it', async () => {
    const p = project('  circuit_breaker: {}\n');
    await p.check(failure(p, 'x', 'boom'));
    const file = moduleStateFile(p.runtimeDir, 's1');
    // What an agent would do to reset its own counters: write a clean-looking state.
    writeFileSync(
      file,
      JSON.stringify({
        body: JSON.stringify({ format: 1, state: { safemode: false, breaker: { consecutive: 0, signatures: {} } } }),
        mac: '0'.repeat(64),
      }),
    );
    const d = await verdicts(p);
    expect(d.write).toMatchObject({ verdict: 'deny', tier: 'module', rule: { id: 'module:state-tampered' } });
    expect(d.write.reason).toMatch(/tampered.*hookwise breaker reset --session-id s1/);
    expect(d.bashRead.tier).not.toBe('module');
    // Further failures do not overwrite the evidence; the human's reset does.
    await p.check(failure(p, 'x', 'boom'));
    expect((await verdicts(p)).write.rule?.id).toBe('module:state-tampered');
    expect(context((await p.check(prompt(p, 'rb?'))).stdout)).toMatch(/tampered/);
    await p.check(prompt(p, 'rb-'));
    expect((await verdicts(p)).write.tier).not.toBe('module');
  });

  it('deleting the state file is a write the gate does not let through: denied while tripped, asked otherwise', async () => {
    const p = project('  circuit_breaker: {threshold: 1}\n');
    const rm = () => p.pre('Bash', { command: `rm ${moduleStateFile(p.runtimeDir, 's1')}` });
    await p.check(failure(p, 'x', 'boom'));
    expect((await p.check(rm())).decision).toMatchObject({ verdict: 'deny', rule: { id: 'module:circuit-breaker' } });
    await p.check(prompt(p, 'rb-'));
    expect((await p.check(rm())).decision?.verdict).not.toBe('allow');
  });
});
