/**
 * The built CLI in command mode (dist/hookwise.cjs check, one process per call, as a host spawns it) with the
 * API supervisor on: the Anthropic SDK is required only by a call that reaches tier 3, and such a call is
 * answered through the SDK's standard configuration (ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY) by a fake
 * Messages API on loopback. Needs dist/ built (npm test builds first).
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { answer, startFakeApi, type FakeApi } from '../support/fake-anthropic.js';
import { makeProject, type TestProject } from '../support/project.js';

const ROOT = join(import.meta.dirname, '..', '..');
const CLI = join(ROOT, 'dist', 'hookwise.cjs');

let api: FakeApi;
beforeEach(async () => {
  if (!existsSync(CLI)) throw new Error('dist/ is not built: run npm run build (npm test does) first');
  api = await startFakeApi();
});
afterEach(async () => {
  await api.close();
});

/** Runs one hook call; a preload notes every require of the SDK in `marker`. */
function check(
  p: TestProject,
  payload: Record<string, unknown>,
  marker: string,
): Promise<{ stdout: string; stderr: string; code: number | null }> {
  const preload = join(p.root, '..', 'note-sdk.cjs');
  writeFileSync(
    preload,
    `const M = require('module'); const fs = require('fs'); const load = M._load;
M._load = function (request, ...rest) { if (request === '@anthropic-ai/sdk') fs.appendFileSync(${JSON.stringify(marker)}, 'loaded\\n'); return load.call(this, request, ...rest); };`,
  );
  const env = {
    ...p.env,
    HOOKWISE_DAEMON: 'off',
    HOOKWISE_ROLE: 'coder',
    ANTHROPIC_BASE_URL: api.url,
    ANTHROPIC_API_KEY: 'test-key-not-secret',
    NODE_OPTIONS: `--require ${preload}`,
  };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'check'], { env, cwd: p.root });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ stdout, stderr, code }));
    child.stdin.end(JSON.stringify(payload));
  });
}

it('the SDK is loaded only by a call that reaches the supervisor, and answers it there', async () => {
  const p = makeProject();
  p.write(join(p.configDir, 'config.yml'), 'supervisor:\n  backend: api\n  model: claude-test\n');
  const marker = join(p.root, '..', 'sdk-loads.txt');
  const loads = (): number =>
    existsSync(marker) ? readFileSync(marker, 'utf8').split('\n').filter(Boolean).length : 0;

  const decidedEarlier = await check(p, p.pre('Write', { file_path: `${p.root}/src/a.ts`, content: '' }), marker);
  expect(decidedEarlier.stdout).toContain('"allow"');
  expect(loads()).toBe(0);
  const pack = await check(p, p.pre('Bash', { command: 'git push --force origin main' }), marker);
  expect(pack.stdout).toMatch(/"(ask|deny)"/);
  expect(loads()).toBe(0);
  expect(api.requests).toEqual([]);

  api.reply = answer('deny', 0.97, 'deploys are not part of this task');
  const novel = await check(p, p.pre('Bash', { command: 'make deploy-staging --jobs 4' }), marker);
  expect(novel.code).toBe(0);
  expect(novel.stdout).toContain('"deny"');
  expect(novel.stdout).toContain('deploys are not part of this task');
  expect(loads()).toBe(1);
  expect(api.requests).toHaveLength(1);
  expect(novel.stderr).toBe('');
});
