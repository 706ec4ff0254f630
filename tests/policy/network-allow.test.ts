/** confine.network.allow: set by the user's file, only narrowed by a project's, every entry validated. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/policy/config.js';
import { configFiles } from '../../src/policy/files.js';
import { formatDiagnostic } from '../../src/policy/schema.js';
import { makeProject, type TestProject } from '../support/project.js';

function load(p: TestProject) {
  const loaded = loadConfig(p.root, configFiles(p.root, p.configDir));
  return {
    allow: loaded.config.confine.network.allow.map((e) => e.text),
    source: loaded.config.confine.network.source,
    diagnostics: loaded.diagnostics.map(formatDiagnostic),
  };
}
const user = (p: TestProject, yaml: string) => p.write(join(p.configDir, 'config.yml'), yaml);

describe('confine.network.allow', () => {
  it('is empty by default: no network', () => {
    expect(load(makeProject())).toMatchObject({ allow: [], source: 'built-in', diagnostics: [] });
  });

  it('the user file sets it', () => {
    const p = makeProject();
    user(
      p,
      'confine:\n  enabled: true\n  network:\n    allow:\n      - registry.npmjs.org\n      - "*.github.com"\n      - example.com:8443\n',
    );
    expect(load(p)).toMatchObject({
      allow: ['registry.npmjs.org', '*.github.com', 'example.com:8443'],
      diagnostics: [],
    });
    expect(load(p).source).toMatch(/config\.yml:5$/);
  });

  it('rejects junk entries with file, line, key and what is wrong; keeps the rest', () => {
    const p = makeProject();
    user(
      p,
      'confine:\n  network:\n    allow:\n      - registry.npmjs.org\n      - https://evil.example/x\n      - "*.com"\n',
    );
    const { allow, diagnostics } = load(p);
    expect(allow).toEqual(['registry.npmjs.org']);
    expect(diagnostics).toEqual([
      expect.stringMatching(
        /config\.yml:5: error: confine\.network\.allow\[1\]: not a network allowlist entry: "https:\/\/evil\.example\/x" is a URL/,
      ),
      expect.stringMatching(
        /config\.yml:6: error: confine\.network\.allow\[2\]: not a network allowlist entry: "\*\.com" would match every name under \.com/,
      ),
    ]);
  });

  it('a misspelt key is an error, not a silent no-network', () => {
    const p = makeProject();
    user(p, 'confine:\n  network:\n    allowed:\n      - registry.npmjs.org\n');
    expect(load(p).diagnostics[0]).toMatch(
      /config\.yml:3: error: confine\.network\.allowed: unknown field \(did you mean "allow"\?\)/,
    );
  });

  it('a project file cannot widen it: entries the user did not allow are ignored with a warning', () => {
    const p = makeProject();
    p.write('.hookwise/policy.yml', 'confine:\n  network:\n    allow:\n      - evil.example\n');
    expect(load(p)).toMatchObject({
      allow: [],
      diagnostics: [
        expect.stringMatching(
          /policy\.yml:4: warning: confine\.network\.allow\[0\]: ignored: "evil\.example" is not on the user's network allowlist/,
        ),
      ],
    });
  });

  it('a project file may narrow it: a subset, a more specific entry, or nothing', () => {
    const p = makeProject();
    user(p, 'confine:\n  network:\n    allow: [registry.npmjs.org, "*.github.com", pypi.org]\n');
    p.write(
      '.hookwise/policy.yml',
      'confine:\n  network:\n    allow: [api.github.com, registry.npmjs.org:443, pypi.org:8080]\n',
    );
    const narrowed = load(p);
    expect(narrowed.allow).toEqual(['api.github.com', 'registry.npmjs.org:443']);
    expect(narrowed.source).toMatch(/policy\.yml:3$/);
    expect(narrowed.diagnostics).toEqual([
      expect.stringMatching(/warning: confine\.network\.allow\[2\]: ignored: "pypi\.org:8080"/),
    ]);
    p.write('.hookwise/policy.yml', 'confine:\n  network:\n    allow: []\n');
    expect(load(p).allow).toEqual([]);
  });
});
