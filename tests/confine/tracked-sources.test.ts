/**
 * The ask confinement keeps: a command that deletes tracked source files, decided from git's index — build
 * outputs (regenerable directories, `out/`, tracked files the ignore rules name) and untracked files do not
 * count; a path known only at run time does.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deletesTrackedSources } from '../../src/confine/tracked-sources.js';
import { probeConfinement } from '../../src/confine/probe.js';
import type { ToolCall } from '../../src/core/tool-call.js';
import { prepareShell } from '../../src/shell/prepare.js';
import { gitIn, makeProject, type TestProject } from '../support/project.js';

const canConfine = probeConfinement().available;

function git(p: TestProject, ...args: string[]): void {
  gitIn(p.root, ...args);
}

function repo(userConfig = 'confine:\n  enabled: true\n'): TestProject {
  const p = makeProject({ git: false });
  p.write(join(p.configDir, 'config.yml'), userConfig);
  p.register('s1', 'coder');
  git(p, 'init', '-q');
  p.write('src/lib/a.ts', 'export const a = 1;\n');
  p.write('src/lib/b.ts', 'export const b = 1;\n');
  p.write('src/main.ts', 'export {};\n');
  p.write('dist/main.js', 'built\n');
  p.write('out/page.html', 'built\n');
  p.write('generated/schema.ts', 'generated\n');
  p.write('.gitignore', 'generated/\n');
  git(p, 'add', '-A');
  git(p, 'add', '-f', 'generated/schema.ts');
  git(p, 'commit', '-qm', 'one');
  mkdirSync(join(p.root, 'scratch'));
  writeFileSync(join(p.root, 'scratch/tmp.txt'), 'untracked\n');
  p.write('scripts/clean.sh', '#!/bin/sh\nrm -rf scratch\n');
  chmodSync(join(p.root, 'scripts/clean.sh'), 0o755);
  return p;
}

async function deletion(p: TestProject, command: string) {
  const call = { action: 'shell', input: { command }, cwd: p.root, hostTool: 'Bash' } as unknown as ToolCall;
  const shell = await prepareShell(call, { projectRoot: p.root, home: p.home, cwd: p.root });
  return deletesTrackedSources(shell!, p.root, (name) => name);
}

describe('which deletions remove tracked sources', () => {
  it.each([
    ['rm -rf src/lib', /2 tracked source files \(src\/lib\/a\.ts, src\/lib\/b\.ts\)/],
    ['find src -delete', /3 tracked source files/],
    ['rm src/*.ts', /1 tracked source file \(src\/main\.ts\)/],
    ['rm -rf "$TARGET"', /known only when it runs/],
  ])('%s: yes', async (command, why) => {
    const d = await deletion(repo(), command);
    expect(d.deletes).toBe(true);
    if (d.deletes) expect(d.why).toMatch(why);
  });

  it.each([
    ['rm -rf dist', 'a build output'],
    ['rm -rf out', 'a build output (out/)'],
    ['rm -rf generated', 'tracked, but the ignore rules name it: an output'],
    ['rm -rf scratch', 'untracked'],
    ['echo x > src/main.ts', 'an overwrite, not a deletion'],
    ['ls src', 'no deletion'],
  ])('%s: no (%s)', async (command) => {
    expect((await deletion(repo(), command)).deletes).toBe(false);
  });
});

describe.runIf(canConfine)('through the gate, with confinement on', () => {
  async function bash(p: TestProject, command: string) {
    const r = await p.check(p.pre('Bash', { command }));
    return r.decision!;
  }

  it('deleting tracked sources stays an ask and says why', async () => {
    const d = await bash(repo(), 'rm -rf src/lib');
    expect(d.verdict).toBe('ask');
    expect(d.reason).toContain('not run confined: it deletes 2 tracked source files');
  });

  it('deleting what is not tracked source runs confined', async () => {
    const p = repo();
    expect((await bash(p, 'rm -rf scratch')).tier).toBe('confine');
    expect((await bash(p, './scripts/clean.sh')).tier).toBe('confine');
  });
});
