/** Session commands: role names are data, validated before they name or look up anything. */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hookwiseBin } from '../../src/util/package-root.js';
import { makeProject } from '../support/project.js';

describe('role names that are object properties, not roles', () => {
  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])(
    'register --role %s is refused with a usage message, not a TypeError',
    (role) => {
      const p = makeProject();
      const r = spawnSync(process.execPath, [hookwiseBin(), 'register', '--session-id', 's1', '--role', role], {
        cwd: p.root,
        env: p.env,
        encoding: 'utf8',
      });
      expect(r.status).not.toBe(0);
      expect(r.stderr).toMatch(/unknown role/);
      expect(r.stderr).not.toMatch(/TypeError/);
    },
  );

  it.each(['__proto__', 'constructor', 'toString'])(
    'a session recorded as %s is denied with a clear reason on every check',
    async (role) => {
      const p = makeProject();
      p.register('s1', role);
      const r = await p.check(p.pre('Bash', { command: 'git status' }));
      expect(r.decision).toMatchObject({ verdict: 'deny', rule: { id: 'session:unknown-role' } });
    },
  );

  it('a roles.yml key that is no role name is ignored with a warning', async () => {
    const p = makeProject();
    mkdirSync(join(p.root, '.hookwise'), { recursive: true });
    writeFileSync(
      join(p.root, '.hookwise', 'roles.yml'),
      'roles:\n  __proto__:\n    paths:\n      allow_write: ["**"]\n',
    );
    p.register('s1', 'coder');
    const r = await p.check(p.pre('Write', { file_path: join(p.root, 'tests', 'a.test.ts'), content: 'x' }));
    expect(r.decision?.verdict).toBe('deny');
  });
});

const cli = (p: ReturnType<typeof makeProject>, ...args: string[]) =>
  spawnSync(process.execPath, [hookwiseBin(), ...args], { cwd: p.root, env: p.env, encoding: 'utf8' });

describe('hookwise roles', () => {
  it('lists the built-in roles and the project’s own, with the paths each may write', () => {
    const p = makeProject();
    mkdirSync(join(p.root, '.hookwise'), { recursive: true });
    writeFileSync(
      join(p.root, '.hookwise', 'roles.yml'),
      'roles:\n  translator:\n    description: Translates the UI strings\n    paths:\n      allow_write: ["locales/**"]\n',
    );
    const text = cli(p, 'roles');
    expect(text.status, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^coder \(implementation, from built-in\)/m);
    expect(text.stdout).toMatch(/^translator \(.*\): Translates the UI strings\n {2}may write: {5}locales\/\*\*$/m);
    const json = JSON.parse(cli(p, 'roles', '--json').stdout) as { name: string; may_write: string[] }[];
    expect(json.find((r) => r.name === 'translator')?.may_write).toEqual(['locales/**']);
    expect(json.map((r) => r.name)).toEqual(expect.arrayContaining(['coder', 'tester', 'docs', 'maintainer']));
  });
});

describe('hookwise status', () => {
  it('says where asks go: the host prompt by default, or the human queue with its timeout', () => {
    const p = makeProject();
    expect(cli(p, 'status').stdout).toContain("asks: go to the host's prompt (human.channel: host-prompt)");
    p.write('.hookwise/policy.yml', 'human:\n  channel: queue\n  timeout: 45s\n');
    expect(cli(p, 'status').stdout).toContain(
      'asks: wait in the human queue up to 45s, then deny (hookwise queue; from .hookwise/policy.yml:2)',
    );
    expect(JSON.parse(cli(p, 'status', '--json').stdout)).toMatchObject({
      human: { channel: 'queue', timeout_s: 45, source: '.hookwise/policy.yml:2' },
    });
  });
});

describe('hookwise switch', () => {
  it('refuses a session that is not registered instead of registering it', () => {
    const p = makeProject();
    const r = cli(p, 'switch', '--session-id', 'typo-id', '--role', 'tester');
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('session typo-id is not registered');
    expect(cli(p, 'status', '--session-id', 'typo-id').stdout).toContain('not registered');
  });

  it('changes the role of a registered session', () => {
    const p = makeProject();
    p.register('s1', 'coder');
    const r = cli(p, 'switch', '--session-id', 's1', '--role', 'tester');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('switched from coder to tester');
  });
});
