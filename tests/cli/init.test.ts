import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { init } from '../../src/cli/init.js';
import { loadConfig } from '../../src/policy/config.js';
import { configFiles } from '../../src/policy/files.js';
import { makeProject } from '../support/project.js';

/** Commented-out config (`# key:`, `#   - item`), not prose, back to YAML. */
const uncomment = (text: string): string =>
  text
    .split('\n')
    .filter((l) => /^# ([a-z_]+:|\s)/.test(l))
    .map((l) => l.slice(2))
    .join('\n');

describe('hookwise init', () => {
  it('creates .hookwise/ with valid commented defaults and the .gitignore entries', () => {
    const p = makeProject();
    const message = init(join(p.root), false);
    expect(message).toMatch(/wrote: policy\.yml, roles\.yml, \.gitignore/);
    const ignore = readFileSync(join(p.root, '.hookwise/.gitignore'), 'utf8');
    expect(ignore).toMatch(/^\.index\/$/m);
    expect(ignore).toMatch(/^\.user\/$/m);
    expect(loadConfig(p.root, configFiles(p.root, p.configDir)).diagnostics).toEqual([]);
  });

  it('the commented reference, uncommented, is exactly the built-in defaults', () => {
    const p = makeProject();
    init(p.root, false);
    const builtIn = loadConfig(p.root, configFiles(p.root, p.configDir)).config;
    const roles = readFileSync(join(p.root, '.hookwise/roles.yml'), 'utf8');
    const reference = uncomment(roles.slice(roles.indexOf('# categories:')));
    writeFileSync(join(p.root, '.hookwise/roles.yml'), reference);
    const policy = uncomment(readFileSync(join(p.root, '.hookwise/policy.yml'), 'utf8'));
    writeFileSync(join(p.root, '.hookwise/policy.yml'), policy);
    const { config, diagnostics } = loadConfig(p.root, configFiles(p.root, p.configDir));
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const globs = (c: typeof config) =>
      Object.fromEntries(
        Object.entries(c.roles).map(([n, r]) => [
          n,
          [r.group, r.allowWrite.map((x) => x.glob), r.denyWrite.map((x) => x.glob)],
        ]),
      );
    expect(globs(config)).toEqual(globs(builtIn));
    expect(new Set(config.sensitiveWrite.map((s) => s.glob))).toEqual(
      new Set(builtIn.sensitiveWrite.map((s) => s.glob)),
    );
    expect(config.outsideRoot.write).toBe(builtIn.outsideRoot.write);
  });

  it('keeps existing files unless --force', () => {
    const p = makeProject();
    p.write('.hookwise/roles.yml', 'roles: {}\n');
    expect(init(p.root, false)).toMatch(/kept existing: roles\.yml \(use --force/);
    expect(readFileSync(join(p.root, '.hookwise/roles.yml'), 'utf8')).toBe('roles: {}\n');
    init(p.root, true);
    expect(readFileSync(join(p.root, '.hookwise/roles.yml'), 'utf8')).toMatch(/built-in categories and roles/);
  });
});

describe('hookwise init --pre-commit', () => {
  it('installs the scan hook once, however often it runs', async () => {
    const { spawnSync } = await import('node:child_process');
    const { readFileSync: read } = await import('node:fs');
    const p = makeProject();
    spawnSync('git', ['init', '-q'], { cwd: p.root });
    const bin = join(import.meta.dirname, '..', '..', 'dist', 'hookwise.cjs');
    for (let i = 0; i < 2; i++) {
      const r = spawnSync(process.execPath, [bin, 'init', '--pre-commit'], {
        cwd: p.root,
        env: p.env,
        encoding: 'utf8',
      });
      expect(r.status, r.stderr).toBe(0);
    }
    const hook = read(join(p.root, '.git/hooks/pre-commit'), 'utf8');
    expect(hook.match(/hookwise scan --staged \.hookwise\//g)).toHaveLength(1);
  });
});
