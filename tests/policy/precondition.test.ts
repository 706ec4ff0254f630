import { chmodSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  parsePreconditionOutput,
  spawnPreconditionRunner,
  type PreconditionRequest,
} from '../../src/policy/precondition.js';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length > 0) rmSync(dirs.pop()!, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'hookwise-pre-')));
  dirs.push(dir);
  return dir;
}

function script(dir: string, body: string, mode = 0o755): string {
  const path = join(dir, `check-${dirs.length}-${Math.random().toString(36).slice(2)}.sh`);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, mode);
  return path;
}

function request(scriptPath: string, cwd: string): PreconditionRequest {
  return {
    script: scriptPath,
    ruleId: 'user:bash_rules[0]',
    tool: 'Bash',
    command: 'terraform',
    argv: ['terraform', 'apply', '-auto-approve'],
    segmentText: 'terraform apply -auto-approve',
    cwd,
    projectRoot: cwd,
    role: 'integrator',
    session: 'sess-1',
  };
}

describe('reading the answer', () => {
  it.each([
    ['allow\n', { kind: 'answered', verdict: 'allow', note: '' }],
    ['deny not on the release branch\nmore', { kind: 'answered', verdict: 'deny', note: 'not on the release branch' }],
    ['  ask\tworkspace unknown', { kind: 'answered', verdict: 'ask', note: 'workspace unknown' }],
  ])('%j', (stdout, outcome) => {
    expect(parsePreconditionOutput(stdout)).toEqual(outcome);
  });

  it.each([
    ['', /no output/],
    ['yes\n', /printed "yes" instead of allow, ask or deny/],
    ['ALLOW', /printed "ALLOW"/],
    ['allowed', /printed "allowed"/],
  ])('anything else fails (→ ask): %j', (stdout, problem) => {
    const outcome = parsePreconditionOutput(stdout);
    expect(outcome.kind).toBe('failed');
    expect(outcome.kind === 'failed' ? outcome.problem : '').toMatch(problem);
  });
});

describe('the spawning runner, with real scripts', () => {
  it('passes a minimal environment describing the call, and runs in the cwd', () => {
    const dir = tempDir();
    const out = join(dir, 'env.txt');
    const path = script(dir, `env | sort > "${out}"\npwd >> "${out}"\necho allow`);
    const runner = spawnPreconditionRunner({ path: '/usr/bin:/bin', home: '/home/tester' });
    expect(runner.run(request(path, dir))).toEqual({ kind: 'answered', verdict: 'allow', note: '' });
    const seen = new Map(
      readFileSync(out, 'utf8')
        .trim()
        .split('\n')
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)] as const),
    );
    expect(seen.get('HOOKWISE_TOOL')).toBe('Bash');
    expect(seen.get('HOOKWISE_COMMAND')).toBe('terraform');
    expect(JSON.parse(seen.get('HOOKWISE_ARGV')!)).toEqual(['terraform', 'apply', '-auto-approve']);
    expect(seen.get('HOOKWISE_ROLE')).toBe('integrator');
    expect(seen.get('HOOKWISE_SESSION')).toBe('sess-1');
    expect(seen.get('HOOKWISE_RULE')).toBe('user:bash_rules[0]');
    expect(seen.get('HOOKWISE_CWD')).toBe(dir);
    expect(seen.get('PATH')).toBe('/usr/bin:/bin');
    expect(seen.get('HOME')).toBe('/home/tester');
    // Nothing else leaks in from hookwise's own environment (tokens, HOOKWISE_CONFIG_DIR, …).
    const names = [...seen.keys()].filter(
      (k) => !k.startsWith('/') && k !== '' && k !== 'PWD' && k !== 'SHLVL' && k !== '_',
    );
    expect(names.sort()).toEqual(
      [
        'HOME',
        'HOOKWISE_ARGV',
        'HOOKWISE_COMMAND',
        'HOOKWISE_CWD',
        'HOOKWISE_PROJECT_ROOT',
        'HOOKWISE_ROLE',
        'HOOKWISE_RULE',
        'HOOKWISE_SEGMENT',
        'HOOKWISE_SESSION',
        'HOOKWISE_TOOL',
        'PATH',
      ].sort(),
    );
  });

  it('a deny with a note', () => {
    const dir = tempDir();
    expect(spawnPreconditionRunner().run(request(script(dir, 'echo "deny workspace is prod"'), dir))).toEqual({
      kind: 'answered',
      verdict: 'deny',
      note: 'workspace is prod',
    });
  });

  it.each([
    ['a non-zero exit, even after printing allow', 'echo allow; echo boom >&2; exit 3', /exited with status 3: boom/],
    ['other output', 'echo "looks fine to me"', /printed "looks fine to me"/],
    ['no output', 'true', /no output/],
  ])('fails (→ ask) on %s', (_name, body, problem) => {
    const dir = tempDir();
    const outcome = spawnPreconditionRunner().run(request(script(dir, body), dir));
    expect(outcome.kind).toBe('failed');
    expect(outcome.kind === 'failed' ? outcome.problem : '').toMatch(problem);
  });

  it('fails on a timeout, without waiting for the script', () => {
    const dir = tempDir();
    const started = Date.now();
    const outcome = spawnPreconditionRunner({ timeoutMs: 300 }).run(request(script(dir, 'sleep 5; echo allow'), dir));
    expect(outcome).toEqual({ kind: 'failed', problem: 'did not answer within 300 ms' });
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('fails on a script that is not executable, or missing', () => {
    const dir = tempDir();
    const notExecutable = spawnPreconditionRunner().run(request(script(dir, 'echo allow', 0o644), dir));
    expect(notExecutable).toEqual({ kind: 'failed', problem: 'is not executable (chmod +x it)' });
    const missing = spawnPreconditionRunner().run(request(join(dir, 'nope.sh'), dir));
    expect(missing.kind === 'failed' ? missing.problem : '').toMatch(/does not exist/);
  });

  it('fails when the output is too large to be a verdict', () => {
    const dir = tempDir();
    const outcome = spawnPreconditionRunner().run(request(script(dir, 'yes allow | head -c 200000'), dir));
    expect(outcome.kind).toBe('failed');
  });
});
