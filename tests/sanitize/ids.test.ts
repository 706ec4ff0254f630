/**
 * Ids and names from a payload — tool names, session ids, tool-use ids — are untrusted text: none reaches a
 * file name or a file's content unsanitized. An attacker's sweep: secret-shaped names go through every
 * path that writes (registry, pending notes, learned decisions, module state, audit, queue), then every
 * file hookwise owns is searched, names and contents.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { idFileKey, idStoreKey, shownId } from '../../src/sanitize/ids.js';
import { sha256Hex } from '../../src/util/sha256.js';
import { makeProject, type TestProject } from '../support/project.js';

// Built at run time: no literal token in the repository for scanners to trip on.
const TOKEN = ['ghp', '_', 'Zq7Xw2Lk9Mv4Np6Rt8Ys1Ua3Ob5Ic0Ed2Fg4H'].join('');
const SECRET_TOOL = `mcp__vault__${TOKEN}`;
const SECRET_SESSION = `sess-${TOKEN}`;

/** Every file below `dir`, as [path, content]. */
function filesBelow(dir: string): [string, string][] {
  if (!existsSync(dir)) return [];
  const out: [string, string][] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesBelow(path));
    else out.push([path, readFileSync(path, 'latin1')]);
  }
  return out;
}

function expectNoSecretOnDisk(p: TestProject): void {
  const files = [p.runtimeDir, p.configDir, join(p.root, '.hookwise'), p.home].flatMap(filesBelow);
  expect(files.length).toBeGreaterThan(0);
  for (const [path, content] of files) {
    expect(path, 'a file name').not.toContain(TOKEN);
    expect(content, `the content of ${path}`).not.toContain(TOKEN);
  }
}

const payload = (p: TestProject, event: string, tool: string, sessionId: string, toolUseId: string) => ({
  ...p.pre(tool, { query: 'status' }, sessionId),
  hook_event_name: event,
  tool_use_id: toolUseId,
  ...(event === 'PostToolUse' ? { tool_response: { ok: true } } : {}),
});

describe('secret-shaped ids and names never name or enter a file', () => {
  it('a secret-shaped MCP tool name: asked (pending note), approved at the prompt (learned), audited', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    const asked = await p.check(payload(p, 'PreToolUse', SECRET_TOOL, 's1', `toolu_${TOKEN}`));
    expect(asked.decision?.verdict).toBe('ask');
    expect(readdirSync(join(p.runtimeDir, 'pending')).length).toBeGreaterThan(0);
    expectNoSecretOnDisk(p);
    await p.check(payload(p, 'PostToolUse', SECRET_TOOL, 's1', `toolu_${TOKEN}`));
    const again = await p.check(payload(p, 'PreToolUse', SECRET_TOOL, 's1', 'toolu_2'));
    expect(again.decision?.tier).toBe('exact-cache');
    expectNoSecretOnDisk(p);
  });

  it('a secret-shaped session id: registered, its calls asked, learned and audited', async () => {
    const p = makeProject();
    p.register(SECRET_SESSION, 'coder');
    await p.check(payload(p, 'PreToolUse', SECRET_TOOL, SECRET_SESSION, 'toolu_1'));
    await p.check(payload(p, 'PostToolUse', SECRET_TOOL, SECRET_SESSION, 'toolu_1'));
    await p.check(p.pre('Bash', { command: 'make build' }, SECRET_SESSION));
    await p.check(p.pre('Write', { file_path: join(p.root, 'src/a.ts'), content: 'x' }, SECRET_SESSION));
    await p.check({
      ...p.pre('Bash', { command: 'npm test' }, SECRET_SESSION),
      hook_event_name: 'PostToolUse',
      tool_response: { exit_code: 1, stderr: 'failed' },
    });
    await p.check({ session_id: SECRET_SESSION, cwd: p.root, hook_event_name: 'UserPromptSubmit', prompt: 'go on' });
    expectNoSecretOnDisk(p);
  });

  it('a secret-shaped role name (HOOKWISE_ROLE of a scripted run) is not written raw either', async () => {
    const p = makeProject();
    p.env.HOOKWISE_ROLE = TOKEN;
    const r = await p.check(p.pre('Bash', { command: 'ls' }));
    expect(r.decision?.verdict).toBe('deny');
    expect(readFileSync(join(p.runtimeDir, 'audit.jsonl'), 'utf8')).toContain('"role"');
    expectNoSecretOnDisk(p);
  });

  it('what names a file is a hash; what is shown is sanitized', () => {
    expect(idFileKey(SECRET_SESSION)).toMatch(/^[0-9a-f]{16}$/);
    expect(shownId(SECRET_TOOL)).not.toContain(TOKEN);
  });
});

describe('idStoreKey', () => {
  it('is the SHA-256 of the id under its domain, the same when asked again (kept) and for ids too long to keep', () => {
    const long = 'x'.repeat(10_000);
    for (const id of ['sess-1', 'sess-2', long]) {
      const expected = sha256Hex(`hookwise-session\u0000${id}`);
      expect(idStoreKey(id)).toBe(expected);
      expect(idStoreKey(id)).toBe(expected);
    }
    expect(idStoreKey('sess-1')).not.toBe(idStoreKey('sess-2'));
  });
});
