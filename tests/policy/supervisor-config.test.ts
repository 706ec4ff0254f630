/** supervisor: in config.yml / policy.yml — off by default; only the user's file turns it on; a project only tightens. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/policy/config.js';
import { configFiles } from '../../src/policy/files.js';
import { formatDiagnostic } from '../../src/policy/schema.js';
import { makeProject, type TestProject } from '../support/project.js';

function load(p: TestProject) {
  const loaded = loadConfig(p.root, configFiles(p.root, p.configDir));
  return { supervisor: loaded.config.supervisor, diagnostics: loaded.diagnostics.map(formatDiagnostic) };
}
const user = (p: TestProject, yaml: string) => p.write(join(p.configDir, 'config.yml'), yaml);
const project = (p: TestProject, yaml: string) => p.write('.hookwise/policy.yml', yaml);

describe('supervisor config', () => {
  it('is off by default', () => {
    expect(load(makeProject()).supervisor).toEqual({
      backend: 'off',
      model: 'claude-haiku-4-5',
      confidence: 0.8,
      timeoutMs: 20_000,
      maxTokens: 512,
      stream: false,
      source: 'built-in',
    });
  });

  it("the user's file turns it on and sets every field", () => {
    const p = makeProject();
    user(
      p,
      'supervisor:\n  backend: api\n  model: claude-sonnet-4-5\n  confidence: 0.9\n  timeout: 7.5\n  max_tokens: 300\n  stream: true\n',
    );
    const { supervisor, diagnostics } = load(p);
    expect(diagnostics).toEqual([]);
    expect(supervisor).toEqual({
      backend: 'api',
      model: 'claude-sonnet-4-5',
      confidence: 0.9,
      timeoutMs: 7500,
      maxTokens: 300,
      stream: true,
      source: expect.stringMatching(/config\.yml:2$/),
    });
  });

  it('a project cannot turn it on, choose the model, tokens or streaming, lower the confidence or lengthen the timeout', () => {
    const p = makeProject();
    user(p, 'supervisor:\n  backend: api\n  confidence: 0.8\n  timeout: 10\n');
    project(
      p,
      'supervisor:\n  backend: agent\n  model: cheap-model\n  max_tokens: 4096\n  stream: true\n  confidence: 0.5\n  timeout: 60\n',
    );
    const { supervisor, diagnostics } = load(p);
    expect(supervisor).toMatchObject({
      backend: 'api',
      model: 'claude-haiku-4-5',
      confidence: 0.8,
      timeoutMs: 10_000,
      maxTokens: 512,
      stream: false,
    });
    expect(diagnostics).toEqual([
      expect.stringMatching(
        /policy\.yml:2: warning: supervisor\.backend: ignored: a project file cannot turn the supervisor on/,
      ),
      expect.stringMatching(
        /policy\.yml:3: warning: supervisor\.model: ignored: which model answers, and how, is personal/,
      ),
      expect.stringMatching(/policy\.yml:4: warning: supervisor\.max_tokens: ignored/),
      expect.stringMatching(/policy\.yml:5: warning: supervisor\.stream: ignored/),
      expect.stringMatching(/policy\.yml:6: warning: supervisor\.confidence: ignored: 0\.5 is looser than 0\.8/),
      expect.stringMatching(/policy\.yml:7: warning: supervisor\.timeout: ignored: 60 s is longer than 10 s/),
    ]);
  });

  it('a project may turn it off, raise the confidence and shorten the timeout', () => {
    const p = makeProject();
    user(p, 'supervisor:\n  backend: api\n');
    project(p, 'supervisor:\n  confidence: 0.95\n  timeout: 3\n');
    expect(load(p).supervisor).toMatchObject({
      backend: 'api',
      confidence: 0.95,
      timeoutMs: 3000,
      source: '.hookwise/policy.yml:2',
    });
    project(p, 'supervisor:\n  backend: off\n');
    expect(load(p)).toMatchObject({ supervisor: { backend: 'off' }, diagnostics: [] });
  });

  it.each([
    ['supervisor:\n  backend: gpt\n', /supervisor\.backend: expected one of api, agent, off, got "gpt"/],
    ['supervisor:\n  confidence: 1.5\n', /supervisor\.confidence: must be at most 1/],
    ['supervisor:\n  timeout: 0\n', /supervisor\.timeout: must be at least 0\.1/],
    ['supervisor:\n  max_tokens: 10\n', /supervisor\.max_tokens: must be at least 64/],
    ['supervisor:\n  confidance: 0.9\n', /supervisor\.confidance: unknown field \(did you mean "confidence"\?\)/],
  ])('%j is an error naming file, line and field', (yaml, problem) => {
    const p = makeProject();
    user(p, yaml);
    expect(load(p).diagnostics).toEqual([expect.stringMatching(problem)]);
  });
});

it('a timeout above 100 s is an error (the thin client waits 120 s for the daemon)', () => {
  const p = makeProject();
  user(p, 'supervisor:\n  timeout: 150\n');
  expect(load(p).diagnostics).toEqual([expect.stringMatching(/supervisor\.timeout: must be at most 100/)]);
});
