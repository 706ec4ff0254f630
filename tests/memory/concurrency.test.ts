/**
 * 50 hook processes at once, as a swarm of agents would run them (the first starts a daemon, so some are
 * answered by it and some in process, as when a swarm starts): every `check` answering an ask leaves
 * its note, then 50 PostToolUse `check` processes record their approvals into the same file at the same
 * time. Every record must be there exactly once, every line valid JSON. Uses the built bin (`npm test`
 * builds first).
 */
import { spawn } from 'node:child_process';
import { buildSync } from 'esbuild';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeProject, type TestProject } from '../support/project.js';

const BIN = join(import.meta.dirname, '..', '..', 'dist', 'hookwise.cjs');
const N = 50;

function run(
  p: TestProject,
  payload: Record<string, unknown>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'check', '--host', 'claude'], { env: p.env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(JSON.stringify(payload));
  });
}

describe('50 concurrent check processes recording decisions into the same file', () => {
  it('every record is present exactly once and every line is valid JSON', { timeout: 240_000 }, async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    // Bash calls no tier decides (a human does): 50 parsers at once on a small machine. The parser is bounded
    // by work done, not time, so load cannot turn one into "too complex" (an ask that teaches nothing).
    const payload = (i: number, event: string): Record<string, unknown> => ({
      ...p.pre('Bash', { command: `make deploy-${i} ENV=staging` }),
      hook_event_name: event,
      tool_use_id: `toolu_${i}`,
    });

    const asks = await Promise.all(Array.from({ length: N }, (_, i) => run(p, payload(i, 'PreToolUse'))));
    for (const r of asks) {
      expect(r).toMatchObject({ code: 0, stderr: '' });
      expect(JSON.parse(r.stdout).hookSpecificOutput.permissionDecision).toBe('ask');
    }
    const posts = await Promise.all(Array.from({ length: N }, (_, i) => run(p, payload(i, 'PostToolUse'))));
    for (const r of posts) expect(r).toMatchObject({ code: 0, stderr: '' });

    const lines = readFileSync(join(p.configDir, 'user', 'rules.jsonl'), 'utf8').split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(N);
    const subjects = lines.map((line) => (JSON.parse(line) as { subject: string }).subject).sort();
    expect(subjects).toEqual(Array.from({ length: N }, (_, i) => `make deploy-${i} ENV=staging`).sort());

    // And they are in effect: each repeat is an exact-cache allow.
    const repeats = await Promise.all(
      [0, 17, 49].map((i) => run(p, { ...payload(i, 'PreToolUse'), tool_use_id: `toolu_again_${i}` })),
    );
    for (const r of repeats)
      expect(JSON.parse(r.stdout).hookSpecificOutput.permissionDecisionReason).toMatch(/exact-cache/);
  });
});

describe('a learner killed while it holds the store lock', () => {
  it('costs no approval: the others see its holder is dead and take the lock over', { timeout: 240_000 }, async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    const M = 20;
    const payload = (i: number, event: string): Record<string, unknown> => ({
      ...p.pre('Bash', { command: `make ship-${i} ENV=staging` }),
      hook_event_name: event,
      tool_use_id: `toolu_k${i}`,
    });
    for (const r of await Promise.all(Array.from({ length: M }, (_, i) => run(p, payload(i, 'PreToolUse'))))) {
      expect(JSON.parse(r.stdout).hookSpecificOutput.permissionDecision).toBe('ask');
    }

    // A process takes the user store's lock the way appendRecords does, and is SIGKILLed holding it.
    const rules = join(p.configDir, 'user', 'rules.jsonl');
    mkdirSync(join(p.configDir, 'user'), { recursive: true, mode: 0o700 });
    const bundle = join(p.home, 'fs-safe.cjs');
    buildSync({
      entryPoints: [join(import.meta.dirname, '../../src/util/fs-safe.ts')],
      bundle: true,
      format: 'cjs',
      platform: 'node',
      outfile: bundle,
      logLevel: 'silent',
    });
    const holder = spawn(process.execPath, [
      '-e',
      `require(${JSON.stringify(bundle)}).withLockSync(${JSON.stringify(`${rules}.lock`)}, () => { process.stdout.write('held'); Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0); })`,
    ]);
    await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));
    holder.kill('SIGKILL');
    await new Promise((resolve) => holder.once('close', resolve));
    expect(readFileSync(`${rules}.lock`, 'utf8')).toMatch(/^\d+ /); // left behind, naming a dead process

    const posts = await Promise.all(Array.from({ length: M }, (_, i) => run(p, payload(i, 'PostToolUse'))));
    for (const r of posts) expect(r).toMatchObject({ code: 0, stderr: '' });
    const subjects = readFileSync(rules, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { subject: string }).subject)
      .sort();
    expect(subjects).toEqual(Array.from({ length: M }, (_, i) => `make ship-${i} ENV=staging`).sort());
  });
});
