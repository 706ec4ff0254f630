import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/policy/config.js';
import { configFiles } from '../../src/policy/files.js';
import { formatDiagnostic } from '../../src/policy/schema.js';
import { makeProject, type TestProject } from '../support/project.js';

function load(p: TestProject) {
  return loadConfig(p.root, configFiles(p.root, p.configDir));
}
function problems(p: TestProject, severity: 'error' | 'warning' = 'error'): string[] {
  return load(p)
    .diagnostics.filter((d) => d.severity === severity)
    .map(formatDiagnostic);
}

describe('config validation names file, line and field', () => {
  it('a misspelt field is an error with a suggestion', () => {
    const p = makeProject();
    p.write('.hookwise/roles.yml', 'roles:\n  coder:\n    paths:\n      deny_writes:\n        - "x/**"\n');
    expect(problems(p)).toEqual([
      '.hookwise/roles.yml:4: error: roles.coder.paths.deny_writes: unknown field (did you mean "deny_write"?)',
    ]);
  });

  it('a wrong type names the field and what was expected', () => {
    const p = makeProject();
    p.write('.hookwise/policy.yml', 'version: 1\nregistration:\n  wait_ms: soon\n');
    expect(problems(p)).toEqual([
      '.hookwise/policy.yml:3: error: registration.wait_ms: expected a number, got string "soon"',
    ]);
  });

  it('an invalid enum value lists the allowed ones', () => {
    const p = makeProject();
    p.write('.hookwise/policy.yml', 'outside_root:\n  write: maybe\n');
    expect(problems(p)[0]).toMatch(/policy\.yml:2: error: outside_root\.write: expected one of allow, ask, deny, pass/);
  });

  it('broken YAML is reported with its line', () => {
    const p = makeProject();
    p.write('.hookwise/roles.yml', 'roles:\n  coder:\n    paths: [unclosed\n');
    const [first] = problems(p);
    expect(first).toMatch(/^\.hookwise\/roles\.yml:\d+: error: YAML syntax:/);
  });

  it('an unknown category macro is an error naming the role', () => {
    const p = makeProject();
    p.write('.hookwise/roles.yml', 'roles:\n  coder:\n    paths:\n      allow_write:\n        - "{{sources}}"\n');
    expect(problems(p)[0]).toMatch(
      /roles\.yml:5: error: roles\.coder\.paths\.allow_write\[0\]: role "coder" uses unknown category \{\{sources\}\}/,
    );
  });

  it('the user config is validated too', () => {
    const p = makeProject();
    p.write(join(p.configDir, 'config.yml'), 'safe_tools:\n  - Bash\n');
    expect(problems(p)[0]).toMatch(/config\.yml:2: error: safe_tools\[0\]: "Bash" reads, writes or runs commands/);
  });
});

describe('roles: built-ins, overrides and custom roles', () => {
  it('has the fourteen built-in roles by default', () => {
    const { config } = load(makeProject());
    expect(Object.keys(config.roles).sort()).toEqual([
      'architect',
      'coder',
      'conductor',
      'devops',
      'docs',
      'integrator',
      'maintainer',
      'musician',
      'planner',
      'researcher',
      'reviewer',
      'security-reviewer',
      'tester',
      'troubleshooter',
    ]);
  });

  it('overriding a built-in replaces only the fields given, and records where', () => {
    const p = makeProject();
    p.write('.hookwise/roles.yml', 'roles:\n  coder:\n    paths:\n      allow_write: ["{{source}}", "app/**"]\n');
    const coder = load(p).config.roles.coder!;
    expect(coder.allowWrite.map((x) => x.glob)).toEqual(['src/**', 'lib/**', 'app/**']);
    expect(coder.allowWrite[2]!.source).toBe('.hookwise/roles.yml:4');
    expect(coder.denyWrite.map((x) => x.glob)).toContain('tests/**'); // untouched
  });

  it('a custom role works end to end', async () => {
    const p = makeProject();
    p.write(
      '.hookwise/roles.yml',
      'roles:\n  release:\n    description: Releases\n    paths:\n      allow_write: ["CHANGELOG.md"]\n      deny_write: ["{{source}}"]\n',
    );
    p.register('s1', 'release');
    const ok = await p.check(p.pre('Write', { file_path: join(p.root, 'CHANGELOG.md'), content: '' }));
    expect(ok.decision?.verdict).toBe('allow');
    const no = await p.check(p.pre('Write', { file_path: join(p.root, 'src/x.ts'), content: '' }));
    expect(no.decision?.verdict).toBe('deny');
    expect(no.decision?.rule?.source).toBe('.hookwise/roles.yml:6');
  });

  it('category overrides apply to every role using them', () => {
    const p = makeProject();
    p.write('.hookwise/roles.yml', 'categories:\n  source: ["app/**"]\n');
    expect(load(p).config.roles.coder!.allowWrite.map((x) => x.glob)).toContain('app/**');
    expect(load(p).config.roles.tester!.denyWrite.map((x) => x.glob)).toContain('app/**');
  });
});

describe('a project file can only tighten', () => {
  it('cannot remove default sensitive paths (warning), the user can', () => {
    const p = makeProject();
    p.write('.hookwise/policy.yml', 'sensitive_paths_exclude: [".claude/**"]\n');
    expect(load(p).config.sensitiveWrite.map((s) => s.glob)).toContain('.claude/**');
    expect(problems(p, 'warning')[0]).toMatch(/cannot remove sensitive paths/);
    p.write(join(p.configDir, 'config.yml'), 'sensitive_paths_exclude: [".claude/**"]\n');
    expect(load(p).config.sensitiveWrite.map((s) => s.glob)).not.toContain('.claude/**');
  });

  it('cannot declare tools safe', () => {
    const p = makeProject();
    p.write('.hookwise/policy.yml', 'safe_tools: [WebFetch]\n');
    expect(load(p).config.safeTools.map((t) => t.name)).not.toContain('WebFetch');
    expect(problems(p, 'warning')[0]).toMatch(/cannot declare "WebFetch" safe/);
  });

  it('can add sensitive paths', async () => {
    const p = makeProject();
    p.write('.hookwise/policy.yml', 'sensitive_paths: ["src/generated/**"]\n');
    p.register('s1', 'coder');
    const r = await p.check(p.pre('Write', { file_path: join(p.root, 'src/generated/api.ts'), content: '' }));
    expect(r.decision?.verdict).toBe('ask');
    expect(r.decision?.rule?.source).toBe('.hookwise/policy.yml:1');
  });
});
