/**
 * created-here: a path the command itself creates before it deletes it is no data loss — only when the parse
 * knows for certain that the creation ran first, made that very path, and nothing moved data into it.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ToolCall } from '../../src/core/tool-call.js';
import { segmentLosesData } from '../../src/shell/data-loss.js';
import { prepareShell } from '../../src/shell/prepare.js';
import { makeProject, type TestProject } from '../support/project.js';

function project(): TestProject {
  const p = makeProject();
  p.write('src/kept.ts', 'export const kept = 1;\n');
  return p;
}

/** The segments of `command` (run in the project) that lose data, by their argv. */
async function lossy(p: TestProject, command: string): Promise<string[]> {
  const call = { action: 'shell', cwd: p.root, input: { command }, hostTool: 'Bash' } as unknown as ToolCall;
  const shell = await prepareShell(call, { projectRoot: p.root, home: p.home, cwd: p.root });
  expect(shell?.parse.ok).toBe(true);
  return shell!.parse.segments.flatMap((s, i) => (segmentLosesData(shell!, i) ? [s.argv.join(' ')] : []));
}

const deletes = (segments: string[]): string[] => segments.filter((s) => /^(rm|unlink|shred|find|rmdir)\b/.test(s));

describe('a file the command writes, then deletes', () => {
  it.each([
    "echo 'print(1)' > t.py && python t.py && rm t.py",
    'cat > t.sh <<EOF\necho hi\nEOF\nbash t.sh; rm -f t.sh',
    "printf 'a\\n' > src/t.txt; wc -l src/t.txt; rm -f src/t.txt",
    'node gen.js > out.json && jq . out.json && unlink out.json',
    'echo x | tee scratch.txt && rm scratch.txt',
    'cp src/kept.ts copy.ts && diff src/kept.ts copy.ts && rm copy.ts',
    'echo x 2> err.log && rm err.log',
    'echo x > t.txt && rm -rf t.txt',
    'mkdir scratch && echo 1 > scratch/a && rm -rf scratch',
    'mkdir scratch && cd scratch && echo 1 > a && cd .. && rm -r scratch',
    'mkdir scratch && touch scratch/a && rm scratch/a',
    'cd src && echo x > t.ts && rm ./t.ts',
    'echo x > src/t.ts && rm src/../src/t.ts',
  ])('%j: the deletion loses nothing', async (command) => {
    const p = project();
    expect(deletes(await lossy(p, command))).toEqual([]);
  });
});

describe('what only looks like it still counts as a deletion', () => {
  it.each([
    // the path is there when the call is judged: the creation overwrites it, the deletion deletes it
    ['echo x > src/kept.ts && rm src/kept.ts', 'a file that existed before the command'],
    // only a creation that surely ran first counts
    ['test -f cfg && echo x > t.txt; rm t.txt', 'created only when a test passed'],
    ['true || echo x > t.txt; rm t.txt', 'created only when something failed'],
    ['echo x > t.txt || rm t.txt', 'deleted only when the creation failed'],
    ['if false; then echo x > t.txt; fi; rm t.txt', 'created in an if body'],
    ['for i in 1; do echo x > t.txt; done; rm t.txt', 'created in a loop body'],
    ['f() { echo x > t.txt; }; rm t.txt', 'created in a function never called'],
    ['! mkdir d && rm -r d', 'a negated creation: the chain goes on when it failed'],
    ['echo x > t.txt & rm t.txt', 'created in the background'],
    ['echo x > t.txt | cat; rm t.txt', 'created in a pipeline'],
    ['x=$(echo y > t.txt); rm t.txt', 'created in a substitution'],
    ['mkdir d || { :; } && rm -r d', 'a failed creation hidden behind a group'],
    // a creation that leaves what it finds in place: a racing writer's file would be deleted
    ['touch t.txt && rm t.txt', 'touch keeps an existing file'],
    ['echo x >> t.txt && rm t.txt', 'an append keeps an existing file'],
    ['echo x | tee -a t.txt && rm t.txt', 'tee -a keeps an existing file'],
    ['cp -n src/kept.ts t.ts && rm t.ts', 'cp -n keeps an existing file'],
    ['mkdir -p d && rm -rf d', 'mkdir -p succeeds on an existing directory'],
    ['mkdir d; rm -rf d', 'after `;` a failed mkdir does not stop the deletion'],
    ['echo x > t.txt; rm -rf t.txt', 'a recursive deletion after `;`'],
    ['cp -r src copy && rm -rf copy', 'cp onto a directory copies into it'],
    // data moved or linked in goes with it
    ['echo x > t.ts && mv src/kept.ts t.ts && rm t.ts', 'a file moved over it'],
    ['mkdir d && mv src d/ && rm -rf d', 'a directory moved into it'],
    ['mkdir d && ln src/kept.ts d/k && rm -rf d', 'a hard link made in it'],
    ['mkdir d && git mv src d && rm -rf d', 'git mv into it'],
    ['echo x > t.ts && ls | xargs mv -t . && rm t.ts', 'a write hookwise cannot place'],
    // paths the parse does not know
    ['echo x > t.txt && rm t.*', 'a glob'],
    ['echo x > "$F" && rm "$F"', 'an expansion'],
    ['echo x > t.txt && rm t2.txt', 'another path'],
    ['mkdir d && rm d/../src/kept.ts', 'a path that climbs out of the directory'],
    ['cd src; echo x > t.ts; cd ..; rm src/t.ts', 'after `;` a `cd` on the way may have failed'],
  ])('%j (%s)', async (command) => {
    const p = project();
    expect(deletes(await lossy(p, command)).length).toBeGreaterThan(0);
  });

  it('a symlink planted at the path before the call is judged', async () => {
    const p = project();
    symlinkSync(join(p.root, 'src/kept.ts'), join(p.root, 't.ts'));
    expect(deletes(await lossy(p, 'echo x > t.ts && rm t.ts'))).toEqual(['rm t.ts']);
    symlinkSync(join(p.root, 'nowhere'), join(p.root, 'dangling.ts'));
    expect(deletes(await lossy(p, 'echo x > dangling.ts && rm dangling.ts'))).toEqual(['rm dangling.ts']);
  });

  it('a directory that is there before the call is judged', async () => {
    const p = project();
    mkdirSync(join(p.root, 'd'));
    writeFileSync(join(p.root, 'd/keep'), 'x\n');
    expect(deletes(await lossy(p, 'mkdir d && rm -rf d'))).toEqual(['rm -rf d']);
  });
});

describe('through the check path', () => {
  it('a scratch file written, read and removed in one command is allowed; one that existed still asks', async () => {
    const p = project();
    p.register('s1', 'coder');
    const verdict = async (command: string): Promise<string | undefined> =>
      (await p.check(p.pre('Bash', { command }, 's1'))).decision?.verdict;
    expect(await verdict('echo hi > src/t.txt && cat src/t.txt && rm src/t.txt')).toBe('allow');
    expect(await verdict('echo hi > src/kept.ts && cat src/kept.ts && rm src/kept.ts')).toBe('ask');
  });
});
