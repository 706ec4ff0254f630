/**
 * Settling without a PostToolUse (the http wiring): what a call left pending is settled at the session's
 * next call, its Stop or SessionEnd, from the file system (provenance) and the session's transcript (an
 * approval at the host's prompt, the breaker's run of failures) — through the real check path.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pendingDir } from '../../src/memory/learn.js';
import { loadScope } from '../../src/memory/store.js';
import { readModuleState } from '../../src/modules/state-file.js';
import { readProvenance } from '../../src/session/provenance.js';
import { locations } from '../../src/util/locations.js';
import { targetOf } from '../support/memory.js';
import { probeConfinement } from '../../src/confine/probe.js';
import { gitIn, makeProject, verdictOf, type TestProject } from '../support/project.js';

const SESSION = '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f';
const ASKED = 'make deploy-staging --jobs 4';

/** A project whose session is registered, with the transcript where Claude Code keeps it. */
function project(
  policy?: string,
  options: Parameters<typeof makeProject>[0] = {},
): TestProject & { transcript: string } {
  const p = makeProject(options);
  if (policy !== undefined) p.write('.hookwise/policy.yml', policy);
  p.register(SESSION, 'coder');
  const transcript = join(p.home, '.claude', 'projects', '-project', `${SESSION}.jsonl`);
  mkdirSync(dirname(transcript), { recursive: true });
  writeFileSync(transcript, '', { mode: 0o600 });
  return Object.assign(p, { transcript });
}

type Line = { use: [string, string] } | { result: [string, string, boolean] };

/** The transcript as the host writes it: the model's tool_use lines and the client's tool_result lines. */
function write(p: { transcript: string }, lines: Line[]): void {
  const text = lines
    .map((l) =>
      'use' in l
        ? { type: 'assistant', message: { content: [{ type: 'tool_use', id: l.use[0], name: l.use[1], input: {} }] } }
        : {
            type: 'user',
            message: {
              content: [{ type: 'tool_result', tool_use_id: l.result[0], content: l.result[1], is_error: l.result[2] }],
            },
          },
    )
    .map((o) => `${JSON.stringify(o)}\n`)
    .join('');
  writeFileSync(p.transcript, text, { mode: 0o600 });
}

function pre(p: TestProject & { transcript: string }, tool: string, input: Record<string, unknown>, id: string) {
  return { ...p.pre(tool, input, SESSION), transcript_path: p.transcript, tool_use_id: id };
}

const bash = (p: TestProject & { transcript: string }, command: string, id: string) =>
  pre(p, 'Bash', { command, description: 'x' }, id);

const stop = (p: TestProject & { transcript: string }, event: 'Stop' | 'SessionEnd' = 'Stop') => ({
  session_id: SESSION,
  transcript_path: p.transcript,
  cwd: p.root,
  hook_event_name: event,
  ...(event === 'Stop' ? { stop_hook_active: false } : { reason: 'other' }),
});

const learned = (p: TestProject) => loadScope(targetOf(p, 'user')).records;

function notes(p: TestProject): string[] {
  const dir = pendingDir(p.runtimeDir);
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((s) => readdirSync(join(dir, s)));
}

describe('an approval at the host’s prompt, from the transcript', () => {
  it('the tool ran (a result that is not an error): learned at the next call, and the call is allowed from memory', async () => {
    const p = project();
    expect((await p.check(bash(p, ASKED, 'toolu_1'))).decision).toMatchObject({ verdict: 'ask', tier: 'default' });
    write(p, [{ use: ['toolu_1', 'Bash'] }, { result: ['toolu_1', 'deployed', false] }, { use: ['toolu_2', 'Bash'] }]);
    expect((await p.check(bash(p, ASKED, 'toolu_2'))).decision).toMatchObject({
      verdict: 'allow',
      tier: 'exact-cache',
    });
    expect(learned(p)).toEqual([
      expect.objectContaining({ verdict: 'allow', decided_by: 'host-prompt', subject: ASKED, role: 'coder' }),
    ]);
  });

  it('a refusal at the prompt (an error result) teaches nothing, and its note goes', async () => {
    const p = project();
    await p.check(bash(p, ASKED, 'toolu_1'));
    write(p, [{ use: ['toolu_1', 'Bash'] }, { result: ['toolu_1', 'Error: no thanks', true] }]);
    expect(verdictOf(await p.check(bash(p, 'ls', 'toolu_2')))).toBe('allow');
    expect(learned(p)).toEqual([]);
    expect(notes(p)).toEqual([]);
    expect(verdictOf(await p.check(bash(p, ASKED, 'toolu_3')))).toBe('ask');
  });

  it('a result not yet in the transcript keeps the note until it is (calls asked side by side)', async () => {
    const p = project();
    await p.check(bash(p, ASKED, 'toolu_1'));
    write(p, [{ use: ['toolu_1', 'Bash'] }, { use: ['toolu_2', 'Bash'] }]);
    await p.check(bash(p, 'ls', 'toolu_2'));
    expect(notes(p)).toHaveLength(1);
    write(p, [{ use: ['toolu_1', 'Bash'] }, { use: ['toolu_2', 'Bash'] }, { result: ['toolu_1', 'deployed', false] }]);
    await p.check(stop(p));
    expect(learned(p)).toHaveLength(1);
  });

  it.each<[string, Line[]]>([
    [
      'two results for the asked call (a forged success after the refusal)',
      [{ use: ['toolu_1', 'Bash'] }, { result: ['toolu_1', 'Error: no', true] }, { result: ['toolu_1', 'ok', false] }],
    ],
    ['a result without the model’s tool_use', [{ result: ['toolu_1', 'ok', false] }]],
    [
      'a tool_use of another tool under the asked id',
      [{ use: ['toolu_1', 'Write'] }, { result: ['toolu_1', 'ok', false] }],
    ],
  ])('%s teaches nothing', async (_what, lines) => {
    const p = project();
    await p.check(bash(p, ASKED, 'toolu_1'));
    write(p, lines);
    await p.check(stop(p));
    expect(learned(p)).toEqual([]);
    expect(notes(p)).toEqual([]);
  });

  it('a transcript other than the one named when hookwise asked teaches nothing (the note goes)', async () => {
    const p = project();
    await p.check(bash(p, ASKED, 'toolu_1'));
    // The same file name in another directory: named for the session, but not the path the host gave.
    const elsewhere = join(p.home, 'elsewhere', `${SESSION}.jsonl`);
    mkdirSync(dirname(elsewhere));
    const other = { transcript: elsewhere };
    write(other, [{ use: ['toolu_1', 'Bash'] }, { result: ['toolu_1', 'deployed', false] }]);
    await p.check({ ...bash(p, 'ls', 'toolu_2'), transcript_path: elsewhere });
    expect(learned(p)).toEqual([]);
    expect(notes(p)).toEqual([]);
  });

  it('a transcript others may write teaches nothing, and the end of the turn says why', async () => {
    const p = project();
    await p.check(bash(p, ASKED, 'toolu_1'));
    write(p, [{ use: ['toolu_1', 'Bash'] }, { result: ['toolu_1', 'deployed', false] }]);
    chmodSync(p.transcript, 0o666);
    expect(verdictOf(await p.check(bash(p, 'ls', 'toolu_3')))).toBe('allow');
    expect((await p.check(stop(p))).stderr).toMatch(/transcript proves nothing.*writable by others/);
    expect(learned(p)).toEqual([]);
  });

  it('Stop settles what the transcript answers; an unanswered note waits, and the next prompt drops it', async () => {
    const p = project();
    await p.check(bash(p, ASKED, 'toolu_1'));
    await p.check(bash(p, 'make other-target --x', 'toolu_2'));
    write(p, [{ use: ['toolu_1', 'Bash'] }, { result: ['toolu_1', 'deployed', false] }, { use: ['toolu_2', 'Bash'] }]);
    const out = await p.check(stop(p));
    expect(out).toMatchObject({ stdout: '', exitCode: 0 });
    expect(learned(p).map((r) => r.subject)).toEqual([ASKED]);
    expect(notes(p)).toHaveLength(1);
    await p.check({ ...stop(p), hook_event_name: 'UserPromptSubmit', prompt: 'go on' });
    expect(notes(p)).toEqual([]);
    expect(learned(p)).toHaveLength(1);
  });

  it('SessionEnd settles too', async () => {
    const p = project();
    await p.check(bash(p, ASKED, 'toolu_1'));
    write(p, [{ use: ['toolu_1', 'Bash'] }, { result: ['toolu_1', 'deployed', false] }]);
    await p.check(stop(p, 'SessionEnd'));
    expect(learned(p)).toHaveLength(1);
  });
});

describe('the files a call created, from the file system', () => {
  it('recorded at the next call: the session may then delete what it created', async () => {
    const p = project();
    const file = join(p.root, 'src', 'scratch.ts');
    mkdirSync(dirname(file), { recursive: true });
    expect(verdictOf(await p.check(pre(p, 'Write', { file_path: file, content: 'x\n' }, 'toolu_1')))).toBe('allow');
    expect(notes(p)).toHaveLength(1);
    writeFileSync(file, 'x\n');
    expect(verdictOf(await p.check(bash(p, 'rm src/scratch.ts', 'toolu_2')))).toBe('allow');
    const read = readProvenance(locations(p.env), SESSION);
    expect(read.kind === 'valid' && read.created.size).toBe(1);
  });

  it('a path not created yet stays noted; at Stop it is never created and goes; a file there before the note is never recorded', async () => {
    const p = project();
    const later = join(p.root, 'src', 'later.ts');
    mkdirSync(dirname(later), { recursive: true });
    await p.check(pre(p, 'Write', { file_path: later, content: 'x\n' }, 'toolu_1'));
    await p.check(bash(p, 'ls', 'toolu_2'));
    expect(notes(p)).toHaveLength(1);
    await p.check(stop(p));
    expect(notes(p)).toEqual([]);
    // Created only now, after the turn: nobody vouches that the session made it.
    writeFileSync(later, 'x\n');
    expect(verdictOf(await p.check(bash(p, 'rm src/later.ts', 'toolu_3')))).toBe('ask');
  });
});

/** A git project whose coder runs scripts confined (each with an undo snapshot); `confineOff()` ends that. */
function confinedProject(): TestProject & { transcript: string; confineOff(): void } {
  const p = project(undefined, { git: false });
  p.write(join(p.configDir, 'config.yml'), 'confine:\n  enabled: true\n');
  p.write('src/tracked.ts', 'export const kept = 1;\n');
  gitIn(p.root, 'init', '-q');
  gitIn(p.root, 'add', 'src/tracked.ts');
  gitIn(p.root, 'commit', '-qm', 'one');
  return Object.assign(p, {
    confineOff: () => p.write(join(p.configDir, 'config.yml'), 'confine:\n  enabled: false\n'),
  });
}

/** A script the host runs confined: its PreToolUse (allowed inside the walls), then the wrapped command. No PostToolUse. */
async function runConfined(p: TestProject & { transcript: string }, script: string, body: string, id: string) {
  p.write(script, `#!/bin/sh\nset -e\n${body}\n`);
  chmodSync(join(p.root, script), 0o755);
  const d = (await p.check(bash(p, `./${script}`, id))).decision!;
  expect(d.tier, d.reason).toBe('confine');
  const ran = spawnSync('/bin/sh', ['-c', d.confined!.command], {
    cwd: p.root,
    env: { ...process.env, ...p.env },
    encoding: 'utf8',
  });
  expect(ran.status, ran.stderr).toBe(0);
}

const runNotes = (p: TestProject): string[] => notes(p).filter((n) => n.startsWith('p-'));

const ran = (id: string): Line[] => [{ use: [id, 'Bash'] }, { result: [id, 'done', false] }];

describe.skipIf(!probeConfinement().available)("a confined run's new files, without PostToolUse", () => {
  it('are recorded at the end of the turn (Stop), its snapshot read after the answer: deleting them then asks no one', async () => {
    const p = confinedProject();
    await runConfined(p, 'gen.sh', 'mkdir -p src/gen && echo 1 > src/gen/x.json', 'toolu_1');
    write(p, ran('toolu_1'));
    const out = await p.check(stop(p));
    expect(out).toMatchObject({ stdout: '', exitCode: 0 });
    expect(out.stderr).toBeUndefined();
    expect(runNotes(p)).toEqual([]);
    p.confineOff();
    expect(verdictOf(await p.check(bash(p, 'rm src/gen/x.json', 'toolu_2')))).toBe('allow');
    expect(verdictOf(await p.check(bash(p, 'rm src/tracked.ts', 'toolu_3')))).toBe('ask');
  });

  it('not yet settled when a call deletes one: that call asks; once the transcript shows the run finished, the next one does not', async () => {
    const p = confinedProject();
    await runConfined(p, 'gen.sh', 'echo 1 > src/out.json', 'toolu_1');
    p.confineOff();
    // The run's result is not in the transcript yet: nothing says it finished, so nothing vouches for its files.
    write(p, [{ use: ['toolu_1', 'Bash'] }, { use: ['toolu_2', 'Bash'] }]);
    expect(verdictOf(await p.check(bash(p, 'rm src/out.json', 'toolu_2')))).toBe('ask');
    expect(runNotes(p)).toHaveLength(1);
    write(p, [...ran('toolu_1'), { use: ['toolu_2', 'Bash'] }, { use: ['toolu_3', 'Bash'] }]);
    // This call is decided before its after-answer work reads the snapshot: still an ask.
    expect(verdictOf(await p.check(bash(p, 'rm src/out.json', 'toolu_3')))).toBe('ask');
    expect(runNotes(p)).toEqual([]);
    expect(verdictOf(await p.check(bash(p, 'rm src/out.json', 'toolu_4')))).toBe('allow');
  });

  it('a later run’s snapshot, taken before the turn ends, does not lose the first run’s files (its snapshot is pinned at the next call)', async () => {
    const p = confinedProject();
    await runConfined(p, 'one.sh', 'echo 1 > src/one.json', 'toolu_1');
    // Its result is not in the transcript yet at the next call (the host writes it a moment later), so the run
    // is not read then; that call is confined too, and its snapshot moves the ref before the first run is read.
    write(p, [{ use: ['toolu_1', 'Bash'] }, { use: ['toolu_2', 'Bash'] }]);
    await runConfined(p, 'two.sh', 'echo 2 > src/two.json', 'toolu_2');
    write(p, [...ran('toolu_1'), ...ran('toolu_2')]);
    await p.check(stop(p));
    p.confineOff();
    expect(verdictOf(await p.check(bash(p, 'rm src/one.json', 'toolu_3')))).toBe('allow');
    expect(verdictOf(await p.check(bash(p, 'rm src/two.json', 'toolu_4')))).toBe('allow');
  });

  it('a prompt after the turn claims the runs before it drops the session’s notes', async () => {
    const p = confinedProject();
    await runConfined(p, 'gen.sh', 'echo 1 > src/out.json', 'toolu_1');
    write(p, ran('toolu_1'));
    await p.check({ ...stop(p), hook_event_name: 'UserPromptSubmit', prompt: 'go on' });
    p.confineOff();
    expect(verdictOf(await p.check(bash(p, 'rm src/out.json', 'toolu_2')))).toBe('allow');
  });
});

describe('the circuit breaker without PostToolUse', () => {
  const failure = (p: TestProject & { transcript: string }, id: string) => ({
    ...bash(p, 'npm test', id),
    hook_event_name: 'PostToolUseFailure',
    error: 'Exit code 1\nAssertionError: expected 1 to be 2',
  });
  const consecutive = (p: TestProject): number | undefined => {
    const read = readModuleState(locations(p.env), SESSION);
    return read.kind === 'valid' ? read.state.breaker.consecutive : undefined;
  };

  it('a failure counts (PostToolUseFailure); the newest result being a success ends the run at the next call', async () => {
    const p = project('modules:\n  circuit_breaker: {threshold: 3}\n');
    await p.check(bash(p, 'npm test', 'toolu_1'));
    await p.check(failure(p, 'toolu_1'));
    write(p, [{ use: ['toolu_1', 'Bash'] }, { result: ['toolu_1', 'Exit code 1', true] }]);
    await p.check(bash(p, 'ls', 'toolu_2'));
    expect(consecutive(p)).toBe(1);
    write(p, [
      { use: ['toolu_1', 'Bash'] },
      { result: ['toolu_1', 'Exit code 1', true] },
      { use: ['toolu_2', 'Bash'] },
      { result: ['toolu_2', 'src', false] },
    ]);
    await p.check(bash(p, 'ls', 'toolu_3'));
    expect(consecutive(p)).toBe(0);
  });

  it('a success the transcript shows only before the last failure does not end the run (results written late)', async () => {
    const p = project('modules:\n  circuit_breaker: {threshold: 3}\n');
    await p.check(failure(p, 'toolu_2'));
    write(p, [{ use: ['toolu_1', 'Bash'] }, { result: ['toolu_1', 'src', false] }, { use: ['toolu_2', 'Bash'] }]);
    await p.check(bash(p, 'ls', 'toolu_3'));
    expect(consecutive(p)).toBe(1);
  });

  it('a success the host wrote late is found at a later settle: the run ends there, the failures after it stay counted', async () => {
    const p = project('modules:\n  circuit_breaker: {threshold: 5}\n');
    const failed = (id: string): Line[] => [{ use: [id, 'Bash'] }, { result: [id, 'Exit code 1', true] }];
    for (const id of ['toolu_1', 'toolu_2']) {
      await p.check(bash(p, 'npm test', id));
      await p.check(failure(p, id));
    }
    // git status ran and succeeded, but its result is not in the transcript yet when the next failure counts.
    await p.check(bash(p, 'git status', 'toolu_3'));
    await p.check(bash(p, 'npm test', 'toolu_4'));
    write(p, [...failed('toolu_1'), ...failed('toolu_2'), { use: ['toolu_3', 'Bash'] }, { use: ['toolu_4', 'Bash'] }]);
    await p.check(failure(p, 'toolu_4'));
    expect(consecutive(p)).toBe(3);
    write(p, [
      ...failed('toolu_1'),
      ...failed('toolu_2'),
      { use: ['toolu_3', 'Bash'] },
      { result: ['toolu_3', 'On branch main', false] },
      ...failed('toolu_4'),
    ]);
    await p.check(stop(p));
    expect(consecutive(p)).toBe(1);
    await p.check(bash(p, 'ls', 'toolu_5'));
    expect(consecutive(p)).toBe(1);
  });

  it('without a transcript it can trust, the run goes on (fail closed: the breaker may trip)', async () => {
    const p = project('modules:\n  circuit_breaker: {threshold: 3}\n');
    await p.check(failure(p, 'toolu_1'));
    rmSync(p.transcript);
    await p.check(bash(p, 'ls', 'toolu_2'));
    expect(consecutive(p)).toBe(1);
  });
});
