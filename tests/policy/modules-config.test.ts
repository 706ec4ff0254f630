/** modules: in policy.yml / config.yml — off by default, any scope turns one on, later scopes only tighten. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/policy/config.js';
import { configFiles } from '../../src/policy/files.js';
import { formatDiagnostic } from '../../src/policy/schema.js';
import { makeProject, type TestProject } from '../support/project.js';

function load(p: TestProject) {
  const loaded = loadConfig(p.root, configFiles(p.root, p.configDir));
  return { modules: loaded.config.modules, diagnostics: loaded.diagnostics.map(formatDiagnostic) };
}
const user = (p: TestProject, yaml: string) => p.write(join(p.configDir, 'config.yml'), yaml);
const project = (p: TestProject, yaml: string) => p.write('.hookwise/policy.yml', yaml);

describe('modules config', () => {
  it('is off by default', () => {
    expect(load(makeProject()).modules).toEqual({
      safemode: { enabled: false, source: 'built-in' },
      circuitBreaker: { enabled: false, threshold: 3, source: 'built-in' },
      hierarchy: { enabled: false, source: 'built-in' },
      delegation: { enabled: false, warnAt: 3, denyAt: 5, windowMs: 600_000, source: 'built-in' },
    });
  });

  it('a project turns them on (an empty value or {} is on, the default threshold is 3)', () => {
    const p = makeProject();
    project(p, 'modules:\n  safemode:\n  circuit_breaker: {}\n');
    const { modules, diagnostics } = load(p);
    expect(diagnostics).toEqual([]);
    expect(modules.safemode).toEqual({ enabled: true, source: '.hookwise/policy.yml:2' });
    expect(modules.circuitBreaker).toMatchObject({ enabled: true, threshold: 3 });
  });

  it("a project may lower the user's threshold, not raise it", () => {
    const p = makeProject();
    user(p, 'modules:\n  circuit_breaker: {threshold: 4}\n');
    project(p, 'modules:\n  circuit_breaker: {threshold: 2}\n');
    expect(load(p).modules.circuitBreaker).toMatchObject({
      enabled: true,
      threshold: 2,
      source: '.hookwise/policy.yml:2',
    });
    project(p, 'modules:\n  circuit_breaker:\n    threshold: 9\n');
    const { modules, diagnostics } = load(p);
    expect(modules.circuitBreaker).toMatchObject({ threshold: 4 });
    expect(diagnostics).toEqual([
      expect.stringMatching(/policy\.yml:3: warning: modules\.circuit_breaker\.threshold: ignored: 9 is looser than 4/),
    ]);
  });

  it('unknown modules, unknown keys and bad thresholds are errors with file and line', () => {
    const p = makeProject();
    project(p, 'modules:\n  safe_mode: {}\n  circuit_breaker:\n    threshold: 0\n    treshold: 3\n');
    const { diagnostics } = load(p);
    expect(diagnostics).toEqual([
      expect.stringMatching(/policy\.yml:2: error: modules\.safe_mode/),
      expect.stringMatching(/policy\.yml:4: error: modules\.circuit_breaker\.threshold/),
      expect.stringMatching(/policy\.yml:5: error: modules\.circuit_breaker\.treshold/),
    ]);
  });
});
