/** The built executable, spawned as a host would spawn it. */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readAudit } from '../../src/audit/log.js';
import { makeProject } from '../support/project.js';

const BIN = join(import.meta.dirname, '..', '..', 'dist', 'hookwise.cjs');

function run(args: string[], input: string, env: NodeJS.ProcessEnv) {
  return spawnSync(process.execPath, [BIN, ...args], { input, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

describe('hookwise check (built executable)', () => {
  it('answers a Claude PreToolUse on stdout', () => {
    const p = makeProject();
    p.register('s1', 'coder');
    const r = run(
      ['check'],
      JSON.stringify(p.pre('Write', { file_path: join(p.root, 'tests/a.ts'), content: '' })),
      p.env,
    );
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).hookSpecificOutput).toMatchObject({
      hookEventName: 'PreToolUse',
      permissionDecision: 'deny',
    });
  });

  it('refuses an oversized payload with exit 2', () => {
    const p = makeProject();
    const huge = JSON.stringify(
      p.pre('Write', { file_path: join(p.root, 'a'), content: 'x'.repeat(17 * 1024 * 1024) }),
    );
    const r = run(['check', '--host', 'claude'], huge, { ...p.env, HOOKWISE_DAEMON: 'off' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/larger than 16777216 bytes/);
    expect(r.stdout).toBe('');
    expect(readAudit(p.runtimeDir).records.map((x) => [x.verdict, x.rule, x.host])).toEqual([
      ['deny', 'error:INPUT_TOO_LARGE', 'claude'],
    ]);
  });

  it('rejects unknown arguments with exit 2 (a block), not a crash', () => {
    const p = makeProject();
    const r = run(['check', '--hots', 'claude'], '{}', p.env);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/unknown argument "--hots"/);
  });

  it('--help prints each command its own usage and exits 0, reading nothing', () => {
    const p = makeProject();
    const check = run(['check', '--help'], '', p.env);
    expect(check.status).toBe(0);
    expect(check.stdout).toMatch(/^Usage: hookwise check \[--host/);
    expect(check.stdout).toContain('--jsonl');
    const session = run(['session-check', '-h'], '', p.env);
    expect(session.status).toBe(0);
    expect(session.stdout).toMatch(/^Usage: hookwise session-check/);
    expect(session.stdout).not.toContain('--jsonl');
    const wrong = run(['session-check', '--hots'], '{}', p.env);
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toContain('usage: hookwise session-check');
  });

  it('--host overrides detection', () => {
    const p = makeProject();
    p.register('s1', 'coder');
    const payload = {
      ...p.pre('Write', { file_path: join(p.root, 'src/a.ts'), content: '' }),
      hook_event_name: 'BeforeTool',
      tool_name: 'write_file',
    };
    const r = run(['check', '--host', 'gemini'], JSON.stringify(payload), p.env);
    expect(JSON.parse(r.stdout)).toMatchObject({ decision: 'allow' });
  });

  // The policy compiler is its own bundle: its errors must keep their code across the bundle boundary.
  it.each([
    ['a misspelt key', 'rulez: []\n', /\.hookwise\/policy\.yml:1: error: rulez: unknown field/],
    ['a YAML syntax error', 'rules: [\n  {tool: Read\n', /\.hookwise\/policy\.yml:\d+: error: /],
  ])('%s in policy.yml denies as error:CONFIG_INVALID naming file:line', (_what, yaml, reason) => {
    const p = makeProject();
    p.register('s1', 'coder');
    p.write('.hookwise/policy.yml', yaml);
    const r = run(['check'], JSON.stringify(p.pre('Read', { file_path: join(p.root, 'a.ts') })), p.env);
    const out = JSON.parse(r.stdout).hookSpecificOutput;
    expect(out.permissionDecision).toBe('deny');
    expect(out.permissionDecisionReason).toContain('rule error:CONFIG_INVALID');
    expect(out.permissionDecisionReason).toMatch(reason);
  });

  it('never prints a stack trace as the only output', () => {
    const p = makeProject();
    const r = run(['check'], 'nope', p.env);
    expect(r.status).toBe(2);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('hookwise check --jsonl', () => {
  it('answers every line in order through the same path, a bad line fail-closed', () => {
    const p = makeProject();
    p.register('s1', 'coder');
    const lines = [
      JSON.stringify(p.pre('Write', { file_path: join(p.root, 'src/a.ts'), content: '' })),
      '{"torn": ',
      '',
      JSON.stringify(p.pre('Write', { file_path: join(p.root, 'tests/a.ts'), content: '' })),
      JSON.stringify({
        ...p.pre('Write', { file_path: join(p.root, 'src/b.ts'), content: '' }),
        hook_event_name: 'BeforeTool',
        tool_name: 'write_file',
      }),
    ];
    const r = run(['check', '--jsonl'], lines.join('\n') + '\n', p.env);
    expect(r.status).toBe(0);
    const out = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(out.map((o) => [o.line, o.verdict, o.tier])).toEqual([
      [1, 'allow', 'path-policy'],
      [2, 'deny', 'input'],
      [4, 'deny', 'path-policy'],
      [5, 'allow', 'path-policy'],
    ]);
    expect(out[1].reason).toMatch(/not valid JSON/);
    expect(JSON.parse(out[3].stdout)).toMatchObject({ decision: 'allow' }); // Gemini detected per line
  });
});
