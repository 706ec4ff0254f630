import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readWallsHits } from '../../src/audit/walls-log.js';
import { probeConfinement } from '../../src/confine/probe.js';
import { PENDING_TTL_MS, pendingDir, pruneStale, sessionPendingDir } from '../../src/memory/learn.js';
import { loadScope } from '../../src/memory/store.js';
import { makeProject, type TestProject } from '../support/project.js';
import { rememberCommand, targetOf } from '../support/memory.js';

function post(
  p: TestProject,
  tool: string,
  input: Record<string, unknown>,
  toolUseId: string,
  sessionId = 's1',
): Record<string, unknown> {
  return {
    ...p.pre(tool, input, sessionId),
    hook_event_name: 'PostToolUse',
    tool_use_id: toolUseId,
    tool_response: { stdout: '' },
  };
}

function pre(p: TestProject, command: string, toolUseId: string, sessionId = 's1'): Record<string, unknown> {
  return { ...p.pre('Bash', { command }, sessionId), tool_use_id: toolUseId };
}

/** Every pending note, as `<session dir>/<note>`. */
function notes(runtimeDir: string): string[] {
  const dir = pendingDir(runtimeDir);
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((session) => readdirSync(join(dir, session)).map((note) => `${session}/${note}`));
}

const statMode = (path: string): number => statSync(path).mode & 0o777;

const learned = (p: TestProject, scope: 'user' | 'session' | 'project' = 'user') =>
  loadScope(targetOf(p, scope)).records;

describe("learning from the host's own prompt", () => {
  it('ask (nobody decided) → the host runs the tool (PostToolUse, same tool_use_id) → a human allow is remembered', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    const first = await p.check(pre(p, 'make deploy-staging --jobs 4', 'toolu_1'));
    expect(first.decision).toMatchObject({ verdict: 'ask', tier: 'default' });
    const after = await p.check(post(p, 'Bash', { command: 'make deploy-staging --jobs 4' }, 'toolu_1'));
    expect(after).toMatchObject({ stdout: '', exitCode: 0 });
    expect(learned(p)).toEqual([
      expect.objectContaining({
        verdict: 'allow',
        tier: 'human',
        decided_by: 'host-prompt',
        role: 'coder',
        scope: 'user',
        subject: 'make deploy-staging --jobs 4',
        commands: ['make'],
      }),
    ]);
    expect((await p.check(pre(p, 'make deploy-staging --jobs 4', 'toolu_2'))).decision).toMatchObject({
      verdict: 'allow',
      tier: 'exact-cache',
    });
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
    expect(notes(p.runtimeDir)).toHaveLength(1);
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
    expect(notes(p.runtimeDir)).toEqual([]);
  });

  it('hosts that cannot show hookwise’s ask (Codex, headless Gemini: ask becomes deny) leave no note', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    const codex = {
      session_id: 's1',
      cwd: p.root,
      hook_event_name: 'PreToolUse',
      model: 'gpt',
      turn_id: 't',
      tool_name: 'Bash',
      tool_input: { command: 'make a-target --x' },
      tool_use_id: 'call_1',
    };
    await p.check(codex, 'codex');
    expect(notes(p.runtimeDir)).toEqual([]);
  });

  it('a secret in the approved command reaches neither the note nor the store', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    const secret = 'sk_live_' + '51HqLyjWDarjtT1zdp7dc9Zq8w3R4y6T';
    const command = `make charge STRIPE_KEY=${secret} --dry-run`;
    await p.check(pre(p, command, 'toolu_1'));
    expect(notes(p.runtimeDir)).toHaveLength(1);
    for (const name of notes(p.runtimeDir))
      expect(readFileSync(join(pendingDir(p.runtimeDir), name), 'utf8')).not.toContain(secret);
    await p.check(post(p, 'Bash', { command }, 'toolu_1'));
    const file = join(p.configDir, 'user', 'rules.jsonl');
    expect(readFileSync(file, 'utf8')).toContain('<REDACTED>');
    expect(readFileSync(file, 'utf8')).not.toContain(secret);
  });

  it('in every permission mode Claude Code puts a hook ask to a human in; never without a mode or with an unknown one', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    const modes = [
      'default',
      'acceptEdits',
      'plan',
      'auto',
      'dontAsk',
      'bypassPermissions',
      undefined,
      'someFutureMode',
    ];
    for (const [i, mode] of modes.entries()) {
      const command = `make target-${i} --x`;
      const payload: Record<string, unknown> = { ...pre(p, command, `toolu_${i}`), permission_mode: mode };
      if (mode === undefined) delete payload.permission_mode;
      expect((await p.check(payload)).decision).toMatchObject({ verdict: 'ask', tier: 'default' });
      await p.check({ ...payload, hook_event_name: 'PostToolUse', tool_response: {} });
    }
    expect(
      learned(p)
        .map((r) => r.subject)
        .sort(),
    ).toEqual([0, 1, 2, 3, 4, 5].map((i) => `make target-${i} --x`));
  });
});

const canConfine = probeConfinement().available;

describe('pending notes: one directory per session, dropped at the next prompt, expired', () => {
  const uuid = 'd2c1b5e4-7f3a-4c61-9a0e-5b8f2e1c3d47';
  const other = '0b7e9c2a-1d4f-4e8b-a6c3-2f5d7e9b1a08';

  it('a Claude Code session (a UUID) keeps its notes in pending/s-<id>/, where the PostToolUse wrapper looks; any other id is hashed', async () => {
    const p = makeProject();
    p.register(uuid, 'coder');
    p.register('s1', 'coder');
    await p.check(pre(p, 'make deploy-staging --jobs 4', 'toolu_1', uuid));
    await p.check(pre(p, 'make deploy-staging --jobs 4', 'toolu_2', 's1'));
    expect(sessionPendingDir(p.runtimeDir, uuid)).toBe(join(pendingDir(p.runtimeDir), `s-${uuid}`));
    const all = notes(p.runtimeDir);
    expect(all.filter((n) => n.startsWith(`s-${uuid}/`))).toHaveLength(1);
    expect(all.filter((n) => /^h-[0-9a-f]{16}\//.test(n))).toHaveLength(1);
    expect(all.join()).not.toContain('s1/');
    // Private, like the runtime dir: 0700 directories.
    for (const dir of readdirSync(pendingDir(p.runtimeDir)))
      expect(statMode(join(pendingDir(p.runtimeDir), dir))).toBe(0o700);
    // Each session's PostToolUse claims its own note.
    await p.check(post(p, 'Bash', { command: 'make deploy-staging --jobs 4' }, 'toolu_1', uuid));
    expect(notes(p.runtimeDir).filter((n) => n.startsWith('s-'))).toEqual([]);
    expect(learned(p)).toHaveLength(1);
  });

  it('a new prompt drops the session’s notes (an ask the human declined) and no other session’s, recording nothing', async () => {
    const p = makeProject();
    p.register(uuid, 'coder');
    p.register(other, 'coder');
    await p.check(pre(p, 'make deploy-staging --jobs 4', 'toolu_1', uuid));
    await p.check(pre(p, 'make deploy-staging --jobs 4', 'toolu_1', other));
    expect(notes(p.runtimeDir)).toHaveLength(2);
    const prompt = { session_id: uuid, cwd: p.root, hook_event_name: 'UserPromptSubmit', prompt: 'next' };
    expect((await p.check(prompt, 'claude')).exitCode).toBe(0);
    expect(notes(p.runtimeDir)).toEqual([expect.stringMatching(new RegExp(`^s-${other}/`))]);
    expect(learned(p)).toEqual([]);
    // The declined call's PostToolUse can no longer come; had a forged one come, it finds no note.
    await p.check(post(p, 'Bash', { command: 'make deploy-staging --jobs 4' }, 'toolu_1', uuid));
    expect(learned(p)).toEqual([]);
  });

  it('pruning removes notes older than the TTL, session directories left empty, and notes of the older flat layout', () => {
    const p = makeProject();
    const dir = pendingDir(p.runtimeDir);
    const old = (Date.now() - PENDING_TTL_MS - 60_000) / 1000;
    const at = (path: string, content?: string): string => {
      if (content === undefined) mkdirSync(path, { recursive: true });
      else writeFileSync(path, content);
      return path;
    };
    at(join(dir, `s-${uuid}`));
    utimesSync(at(join(dir, `s-${uuid}`, 'stale.json'), '{}'), old, old);
    at(join(dir, `s-${uuid}`, 'fresh.json'), '{}');
    at(join(dir, `s-${other}`));
    utimesSync(join(dir, `s-${other}`), old, old);
    at(join(dir, 'h-0123456789abcdef'));
    at(join(dir, 'a1b2c3d4e5f60718.json'), '{}');
    pruneStale(dir);
    expect(notes(p.runtimeDir)).toEqual([`s-${uuid}/fresh.json`]);
    // A recent empty directory stays (a note may be about to land in it).
    expect(readdirSync(dir).sort()).toEqual(['h-0123456789abcdef', `s-${uuid}`]);
  });
});

describe.skipIf(!canConfine)('learning from the walls (a confined run that the walls stopped)', () => {
  function confinedProject(): TestProject {
    const p = makeProject();
    p.register('s1', 'coder');
    p.write(join(p.configDir, 'config.yml'), 'confine:\n  enabled: true\n');
    return p;
  }
  const failure = (p: TestProject, command: string, toolUseId: string, error: string): Record<string, unknown> => ({
    ...p.pre('Bash', { command }),
    hook_event_name: 'PostToolUseFailure',
    tool_use_id: toolUseId,
    error,
    is_interrupt: false,
  });

  it('confined allow → PostToolUseFailure shows the walls → the same call is asked, saying what they stopped; a human approval replaces that ask', async () => {
    const p = confinedProject();
    const first = await p.check(pre(p, './scripts/release.sh --tag v2', 'toolu_1'));
    expect(first.decision).toMatchObject({ verdict: 'allow', tier: 'confine' });
    // The host reports the run with the rewritten input; the note carries the agent's own command.
    const wrapped = (JSON.parse(first.stdout) as { hookSpecificOutput: { updatedInput: { command: string } } })
      .hookSpecificOutput.updatedInput.command;
    await p.check(
      failure(
        p,
        wrapped,
        'toolu_1',
        "Exit code 1\ncp: cannot create regular file '/home/u/.local/bin/release': Read-only file system",
      ),
    );
    expect(learned(p)).toEqual([
      expect.objectContaining({
        verdict: 'ask',
        tier: 'confine',
        decided_by: 'confine',
        subject: './scripts/release.sh --tag v2',
        role: 'coder',
        scope: 'user',
      }),
    ]);
    const again = await p.check(pre(p, './scripts/release.sh --tag v2', 'toolu_2'));
    expect(again.decision).toMatchObject({ verdict: 'ask', tier: 'exact-cache', rule: { id: 'confine:walls-hit' } });
    expect(again.decision?.reason).toContain('the walls of a confined run');
    expect(again.decision?.reason).toContain('the walls stopped a write where they allow none');
    expect(again.decision?.reason).toContain('Read-only file system');
    expect(readWallsHits(p.runtimeDir).records).toEqual([
      expect.objectContaining({ kind: 'write', input: './scripts/release.sh --tag v2', tool: 'Bash' }),
    ]);
    // The human approves at the host's prompt: the call ran unconfined; from now on it is allowed as it is.
    await p.check(post(p, 'Bash', { command: './scripts/release.sh --tag v2' }, 'toolu_2'));
    const third = await p.check(pre(p, './scripts/release.sh --tag v2', 'toolu_3'));
    expect(third.decision).toMatchObject({ verdict: 'allow', tier: 'exact-cache' });
    expect(third.decision?.confined).toBeUndefined();
  });

  it('a confined run that failed for its own reasons, or succeeded, teaches nothing; an output that shows the walls does, even with exit 0', async () => {
    const p = confinedProject();
    await p.check(pre(p, './scripts/a.sh', 'toolu_a'));
    await p.check(failure(p, 'wrapped', 'toolu_a', 'Exit code 2\nmake: *** No rule to make target'));
    await p.check(pre(p, './scripts/b.sh', 'toolu_b'));
    await p.check(post(p, 'Bash', { command: 'wrapped' }, 'toolu_b'));
    expect(learned(p)).toEqual([]);
    await p.check(pre(p, './scripts/c.sh', 'toolu_c'));
    await p.check({
      ...post(p, 'Bash', { command: 'wrapped' }, 'toolu_c'),
      tool_response: { stdout: 'curl: (6) Could not resolve host: example.com', stderr: '' },
    });
    expect(learned(p)).toEqual([
      expect.objectContaining({ verdict: 'ask', subject: './scripts/c.sh', decided_by: 'confine' }),
    ]);
    expect(readWallsHits(p.runtimeDir).records.map((r) => r.kind)).toEqual(['network']);
  });

  it('the walls never weaken a deny the scope holds, and what they print is sanitized before it is kept', async () => {
    const p = confinedProject();
    await p.check(pre(p, './scripts/d.sh', 'toolu_d'));
    await rememberCommand(p, './scripts/d.sh', 'deny');
    await p.check(failure(p, 'wrapped', 'toolu_d', 'cp: Read-only file system'));
    expect(learned(p).map((r) => r.verdict)).toEqual(['deny']);
    await p.check(pre(p, './scripts/e.sh', 'toolu_e'));
    const token = `ghp_${'a1B2c3D4e5'.repeat(3)}123456`;
    await p.check(
      failure(
        p,
        'wrapped',
        'toolu_e',
        `curl -H "Authorization: token ${token}": Could not resolve host: api.github.com`,
      ),
    );
    const kept = readFileSync(join(p.runtimeDir, 'walls.jsonl'), 'utf8') + JSON.stringify(learned(p));
    expect(kept).toContain('Could not resolve host');
    expect(kept).not.toContain(token);
  });
});
