/**
 * Session provenance through the real check path: a file the session created (noted before the tool ran,
 * recorded after it) may be deleted or overwritten without a human; anything else that only looks like it
 * still asks.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  mkdirSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  addCreated,
  createdBySession,
  MAX_CREATED,
  noteCreations,
  pathKey,
  provenanceFile,
  readProvenance,
  recordCreations,
  settleCreations,
  type CreatedFile,
} from '../../src/session/provenance.js';
import type { ToolCall } from '../../src/core/tool-call.js';
import { locations } from '../../src/util/locations.js';
import { sleepSync } from '../../src/util/fs-safe.js';
import { sessionPendingDir } from '../../src/memory/learn.js';
import { probeConfinement } from '../../src/confine/probe.js';
import { gitIn, makeProject, verdictOf, type TestProject } from '../support/project.js';

let uses = 0;

function project(): TestProject {
  const p = makeProject();
  p.write(join(p.configDir, 'config.yml'), 'confine:\n  enabled: false\n');
  p.register('s1', 'coder');
  p.register('s2', 'coder');
  p.write('src/tracked.ts', 'export const kept = 1;\n');
  return p;
}

function post(p: TestProject, pre: Record<string, unknown>): Record<string, unknown> {
  return { ...pre, hook_event_name: 'PostToolUse', tool_response: {} };
}

/** A tool call as the host runs it: PreToolUse, the effect (when allowed or asked), PostToolUse. */
async function run(
  p: TestProject,
  tool: string,
  input: Record<string, unknown>,
  effect: () => void,
  session = 's1',
): Promise<string | undefined> {
  const pre = { ...p.pre(tool, input, session), tool_use_id: `toolu_${++uses}` };
  const verdict = verdictOf(await p.check(pre));
  if (verdict !== 'deny') effect();
  await p.check(post(p, pre));
  return verdict;
}

async function bash(p: TestProject, command: string, session = 's1'): Promise<string | undefined> {
  return verdictOf(await p.check({ ...p.pre('Bash', { command }, session), tool_use_id: `toolu_${++uses}` }));
}

async function writeTool(p: TestProject, relative: string, session = 's1'): Promise<void> {
  const file = join(p.root, relative);
  await run(p, 'Write', { file_path: file, content: 'x\n' }, () => writeFileSync(file, 'x\n'), session);
}

describe('files the session created', () => {
  it('may be deleted or overwritten without a human', async () => {
    const p = project();
    expect(await bash(p, 'rm src/scratch.ts')).toBe('ask'); // (it does not exist yet: a deletion asks)
    await writeTool(p, 'src/scratch.ts');
    expect(await bash(p, 'rm src/scratch.ts')).toBe('allow');
    expect(await bash(p, 'echo again > src/scratch.ts')).toBe('allow');
    expect(await bash(p, 'rm -f src/scratch.ts src/tracked.ts')).toBe('ask');
  });

  it('counts what an allowed shell redirect or mkdir created, and a tree of them', async () => {
    const p = project();
    const dir = join(p.root, 'src/gen');
    await run(p, 'Bash', { command: 'mkdir src/gen' }, () => mkdirSync(dir));
    await run(p, 'Bash', { command: 'echo 1 > src/gen/a.ts' }, () => writeFileSync(join(dir, 'a.ts'), '1\n'));
    await writeTool(p, 'src/gen/b.ts');
    expect(await bash(p, 'rm src/gen/a.ts')).toBe('allow');
    expect(await bash(p, 'rm -rf src/gen')).toBe('allow');
  });

  it('a directory it created that now holds a file it did not create still asks', async () => {
    const p = project();
    const dir = join(p.root, 'src/gen');
    await run(p, 'Bash', { command: 'mkdir src/gen' }, () => mkdirSync(dir));
    await writeTool(p, 'src/gen/b.ts');
    writeFileSync(join(dir, 'planted.ts'), 'not the session’s\n');
    expect(await bash(p, 'rm -rf src/gen')).toBe('ask');
    expect(await bash(p, 'rm src/gen/b.ts')).toBe('allow');
  });
});

describe('what only looks like a file the session created still asks', () => {
  it('a file it did not create', async () => {
    const p = project();
    expect(await bash(p, 'rm src/tracked.ts')).toBe('ask');
    expect(await bash(p, 'echo gone > src/tracked.ts')).toBe('ask');
  });

  it('a created file replaced by a symlink to a tracked file', async () => {
    const p = project();
    await writeTool(p, 'src/scratch.ts');
    rmSync(join(p.root, 'src/scratch.ts'));
    symlinkSync(join(p.root, 'src/tracked.ts'), join(p.root, 'src/scratch.ts'));
    expect(await bash(p, 'echo gone > src/scratch.ts')).toBe('ask');
    expect(await bash(p, 'rm src/scratch.ts')).toBe('ask');
  });

  it('a created file replaced by another file under the same name', async () => {
    const p = project();
    await writeTool(p, 'src/scratch.ts');
    renameSync(join(p.root, 'src/tracked.ts'), join(p.root, 'src/scratch.ts'));
    expect(await bash(p, 'rm src/scratch.ts')).toBe('ask');
  });

  it('a glob, even over created files only', async () => {
    const p = project();
    await writeTool(p, 'src/scratch.ts');
    expect(await bash(p, 'rm src/scratch*.ts')).toBe('ask');
  });

  it("another session's file", async () => {
    const p = project();
    await writeTool(p, 'src/scratch.ts', 's1');
    expect(await bash(p, 'rm src/scratch.ts', 's2')).toBe('ask');
    // Its record copied under the other session's name does not verify either.
    const where = locations(p.env);
    writeFileSync(provenanceFile(where.runtimeDir, 's2'), readFileSync(provenanceFile(where.runtimeDir, 's1')));
    expect(readProvenance(where, 's2').kind).toBe('untrusted');
    expect(await bash(p, 'rm src/scratch.ts', 's2')).toBe('ask');
  });

  it('a forged or damaged record is no provenance at all', async () => {
    const p = project();
    await writeTool(p, 'src/scratch.ts');
    const where = locations(p.env);
    const file = provenanceFile(where.runtimeDir, 's1');
    const signed = JSON.parse(readFileSync(file, 'utf8')) as { body: string; mac: string };
    const body = JSON.parse(signed.body) as { created: unknown[] };
    body.created.push([pathKey(join(p.root, 'src/tracked.ts')), '1', '2', 3, 'f']);
    writeFileSync(file, JSON.stringify({ body: JSON.stringify(body), mac: signed.mac }));
    expect(readProvenance(where, 's1').kind).toBe('untrusted');
    expect(await bash(p, 'rm src/scratch.ts')).toBe('ask');
    writeFileSync(file, '{not json');
    expect(await bash(p, 'rm src/scratch.ts')).toBe('ask');
  });

  it('a path outside the project is never recorded', async () => {
    const p = project();
    const outside = join(p.home, 'notes.txt');
    await run(p, 'Bash', { command: `echo hi > ${outside}` }, () => writeFileSync(outside, 'hi\n'));
    expect(readProvenance(locations(p.env), 's1').kind).toBe('absent');
    expect(await bash(p, `rm ${outside}`)).not.toBe('allow');
  });

  it('a file moved in under a noted name between the decision and the run', async () => {
    const p = project();
    const where = locations(p.env);
    const target = join(p.root, 'src/new.ts');
    const call = { sessionId: 's1', toolUseId: 'toolu_move', cwd: p.root } as ToolCall;
    noteCreations(where, call, [target], Date.now() + 5000); // the move comes after the note
    renameSync(join(p.root, 'src/tracked.ts'), target);
    expect(await recordCreations(where, call)).toBe(0);
  });
});

describe('settling waiting notes again and again (a daemon does before every call of the session)', () => {
  // Past the file system's clock tick: what settleCreations read and saw absent is now remembered by stamp.
  const settle = (): void => sleepSync(120);

  it('a path created later under a directory seen unchanged before is found', () => {
    const p = project();
    const where = locations(p.env);
    const target = join(p.root, 'src/later.ts');
    noteCreations(where, { sessionId: 's1', toolUseId: 'toolu_later', cwd: p.root } as ToolCall, [target]);
    settle();
    expect(settleCreations(where, 's1', false).recorded).toBe(0);
    expect(settleCreations(where, 's1', false).recorded).toBe(0);
    writeFileSync(target, 'x\n');
    expect(settleCreations(where, 's1', false).recorded).toBe(1);
    const read = readProvenance(where, 's1');
    expect(read.kind === 'valid' && createdBySession(read.created, target)).toBe(true);
  });

  it('a path whose directories do not exist yet is found once they and it are made', () => {
    const p = project();
    const where = locations(p.env);
    const target = join(p.root, 'src/new/deeper/made.ts');
    noteCreations(where, { sessionId: 's1', toolUseId: 'toolu_deep', cwd: p.root } as ToolCall, [target]);
    settle();
    expect(settleCreations(where, 's1', false).recorded).toBe(0);
    mkdirSync(join(p.root, 'src/new'));
    settle();
    expect(settleCreations(where, 's1', false).recorded).toBe(0);
    mkdirSync(join(p.root, 'src/new/deeper'));
    writeFileSync(target, 'x\n');
    expect(settleCreations(where, 's1', false).recorded).toBe(1);
  });

  it('a note replaced under its name, or rewritten in place, is read afresh', () => {
    const p = project();
    const where = locations(p.env);
    const call = { sessionId: 's1', toolUseId: 'toolu_again', cwd: p.root } as ToolCall;
    const [first, second, third] = ['src/aaaa1.ts', 'src/bbbb2.ts', 'src/cccc3.ts'].map((r) => join(p.root, r));
    noteCreations(where, call, [first!]);
    settle();
    expect(settleCreations(where, 's1', false).recorded).toBe(0);
    noteCreations(where, call, [second!]); // the same tool_use_id again: a new note under the same name
    settle();
    writeFileSync(second!, 'x\n');
    expect(settleCreations(where, 's1', false).recorded).toBe(1);

    noteCreations(where, call, [third!]);
    settle();
    expect(settleCreations(where, 's1', false).recorded).toBe(0);
    const dir = sessionPendingDir(where.runtimeDir, 's1');
    const [note] = readdirSync(dir).filter((n) => n.startsWith('p-'));
    const file = join(dir, note!);
    // Same inode, same size, another path: only the times say it changed.
    writeFileSync(file, readFileSync(file, 'utf8').replace(third!, first!));
    writeFileSync(first!, 'x\n');
    expect(settleCreations(where, 's1', false).recorded).toBe(1);
    const read = readProvenance(where, 's1');
    expect(read.kind === 'valid' && createdBySession(read.created, first!)).toBe(true);
    expect(read.kind === 'valid' && createdBySession(read.created, third!)).toBe(false);
  });
});

describe('the record', () => {
  it('keeps at most MAX_CREATED entries, dropping the oldest', async () => {
    const p = project();
    const where = locations(p.env);
    const first = join(p.root, 'src/first.ts');
    writeFileSync(first, '1\n');
    const call = { sessionId: 's1', toolUseId: 'toolu_first', cwd: p.root } as ToolCall;
    rmSync(first);
    noteCreations(where, call, [first]);
    writeFileSync(first, '1\n');
    expect(await recordCreations(where, call)).toBe(1);
    const read = readProvenance(where, 's1');
    expect(read.kind === 'valid' && createdBySession(read.created, first)).toBe(true);
    const filler: [string, CreatedFile][] = Array.from({ length: MAX_CREATED }, (_, i) => [
      pathKey(`/nowhere/${i}`),
      { dev: '1', ino: String(i), birthMs: 0, type: 'f' },
    ]);
    addCreated(where, 's1', filler);
    const after = readProvenance(where, 's1');
    expect(after.kind).toBe('valid');
    if (after.kind !== 'valid') return;
    expect(after.created.size).toBe(MAX_CREATED);
    expect(createdBySession(after.created, first)).toBe(false);
  });
});

/** A git project whose coder runs scripts confined (each with an undo snapshot); `confineOff()` ends that. */
function confinedProject(): TestProject & { confineOff(): void } {
  const p = makeProject({ git: false });
  p.write(join(p.configDir, 'config.yml'), 'confine:\n  enabled: true\n');
  p.register('s1', 'coder');
  p.write('src/tracked.ts', 'export const kept = 1;\n');
  p.write('src/untracked.ts', 'export const mine = 1;\n');
  gitIn(p.root, 'init', '-q');
  gitIn(p.root, 'add', 'src/tracked.ts');
  gitIn(p.root, 'commit', '-qm', 'one');
  // Judged later with the walls off, so that a deletion asks unless provenance vouches for it.
  return { ...p, confineOff: () => p.write(join(p.configDir, 'config.yml'), 'confine:\n  enabled: false\n') };
}

/** A script run as the host runs it: PreToolUse (confined), the wrapped command, PostToolUse. */
async function confinedRun(p: TestProject, script: string, body: string): Promise<void> {
  p.write(script, `#!/bin/sh\nset -e\n${body}\n`);
  chmodSync(join(p.root, script), 0o755);
  const pre = { ...p.pre('Bash', { command: `./${script}` }), tool_use_id: `toolu_${++uses}` };
  const decided = (await p.check(pre)).decision!;
  expect(decided.tier, decided.reason).toBe('confine');
  expect(decided.confined?.undo?.root).toBe(p.root);
  const ran = spawnSync('/bin/sh', ['-c', decided.confined!.command], {
    cwd: p.root,
    env: { ...process.env, ...p.env },
    encoding: 'utf8',
  });
  expect(ran.status, ran.stderr).toBe(0);
  await p.check(post(p, pre));
}

describe.skipIf(!probeConfinement().available)("a confined run's new files", () => {
  it('that it does not name are recorded: deleting them, or the directory it made, asks no one', async () => {
    const p = confinedProject();
    await confinedRun(p, 'gen.sh', 'mkdir -p src/gen/sub && echo 1 > src/gen/x.json && echo 2 > src/gen/sub/y.json');
    p.confineOff();
    expect(await bash(p, 'rm src/gen/x.json')).toBe('allow');
    expect(await bash(p, 'rm -rf src/gen')).toBe('allow');
    expect(await bash(p, 'rm src/tracked.ts')).toBe('ask');
  });

  it('a tracked file it renamed, copied away and removed, or rewrote is not new', async () => {
    const p = confinedProject();
    p.write('src/other.ts', 'export const other = 2;\n');
    gitIn(p.root, 'add', 'src/other.ts');
    gitIn(p.root, 'commit', '-qm', 'two');
    await confinedRun(
      p,
      'shuffle.sh',
      [
        'mv src/tracked.ts src/renamed.ts',
        'cp src/other.ts src/copied.ts && rm src/other.ts',
        // rewritten through a new file: a new inode born in the run, but the path was there before
        'cp src/untracked.ts src/untracked.tmp && mv src/untracked.tmp src/untracked.ts',
      ].join('\n'),
    );
    p.confineOff();
    expect(await bash(p, 'rm src/renamed.ts')).toBe('ask');
    expect(await bash(p, 'rm src/copied.ts')).toBe('ask');
    expect(await bash(p, 'rm src/untracked.ts')).toBe('ask');
  });

  it('a link it made is not vouched for, nor the file a link planted later points to', async () => {
    const p = confinedProject();
    await confinedRun(p, 'links.sh', 'ln -s tracked.ts src/link.ts && echo new > src/new.ts');
    rmSync(join(p.root, 'src/new.ts'));
    symlinkSync(join(p.root, 'src/tracked.ts'), join(p.root, 'src/new.ts'));
    p.confineOff();
    expect(await bash(p, 'rm src/link.ts')).toBe('ask');
    expect(await bash(p, 'echo gone > src/new.ts')).toBe('ask');
  });

  it("another session's run, whose snapshot replaced this run's, is not this session's", async () => {
    const p = confinedProject();
    p.register('s2', 'coder');
    p.write('mine.sh', '#!/bin/sh\necho 1 > src/mine.json\n');
    p.write('theirs.sh', '#!/bin/sh\necho 2 > src/theirs.json\n');
    chmodSync(join(p.root, 'mine.sh'), 0o755);
    chmodSync(join(p.root, 'theirs.sh'), 0o755);
    const mine = { ...p.pre('Bash', { command: './mine.sh' }, 's1'), tool_use_id: `toolu_${++uses}` };
    const theirs = { ...p.pre('Bash', { command: './theirs.sh' }, 's2'), tool_use_id: `toolu_${++uses}` };
    const run = (d: { confined?: { command: string } }) =>
      spawnSync('/bin/sh', ['-c', d.confined!.command], { cwd: p.root, env: { ...process.env, ...p.env } });
    const one = (await p.check(mine)).decision!;
    const two = (await p.check(theirs)).decision!;
    run(one);
    run(two); // its snapshot replaces this run's before this run is reported
    await p.check(post(p, mine));
    p.confineOff();
    expect(await bash(p, 'rm src/theirs.json', 's1')).toBe('ask');
  });
});
