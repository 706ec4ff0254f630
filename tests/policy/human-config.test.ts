/** human: {channel, timeout} in policy.yml / config.yml — host-prompt by default; a project may only tighten. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/policy/config.js';
import { configFiles } from '../../src/policy/files.js';
import { formatDiagnostic } from '../../src/policy/schema.js';
import { makeProject, type TestProject } from '../support/project.js';

function load(p: TestProject) {
  const loaded = loadConfig(p.root, configFiles(p.root, p.configDir));
  return { human: loaded.config.human, diagnostics: loaded.diagnostics.map(formatDiagnostic) };
}
const user = (p: TestProject, yaml: string) => p.write(join(p.configDir, 'config.yml'), yaml);
const project = (p: TestProject, yaml: string) => p.write('.hookwise/policy.yml', yaml);

describe('human config', () => {
  it("is the host's prompt with a 60 s timeout by default", () => {
    expect(load(makeProject()).human).toEqual({ channel: 'host-prompt', timeoutMs: 60_000, source: 'built-in' });
  });

  it.each([
    ['60s', 60_000],
    ['2m', 120_000],
    ['1500ms', 1500],
    ['90', 90_000],
  ])('timeout %s is %i ms', (text, ms) => {
    const p = makeProject();
    user(p, `human:\n  channel: queue\n  timeout: ${text}\n`);
    const { human, diagnostics } = load(p);
    expect(diagnostics).toEqual([]);
    expect(human).toMatchObject({ channel: 'queue', timeoutMs: ms });
  });

  it('a project may switch to the queue and shorten the timeout', () => {
    const p = makeProject();
    project(p, 'human:\n  channel: queue\n  timeout: 20s\n');
    const { human, diagnostics } = load(p);
    expect(diagnostics).toEqual([]);
    expect(human).toEqual({ channel: 'queue', timeoutMs: 20_000, source: '.hookwise/policy.yml:2' });
  });

  it("a project cannot switch the user's queue back to the host's prompt, nor lengthen the wait", () => {
    const p = makeProject();
    user(p, 'human: {channel: queue, timeout: 30s}\n');
    project(p, 'human:\n  channel: host-prompt\n  timeout: 5m\n');
    const { human, diagnostics } = load(p);
    expect(human).toMatchObject({ channel: 'queue', timeoutMs: 30_000 });
    expect(diagnostics).toEqual([
      expect.stringMatching(/policy\.yml:2: warning: human\.channel: ignored: a project file cannot switch the queue/),
      expect.stringMatching(/policy\.yml:3: warning: human\.timeout: ignored: 300s is longer than 30s/),
    ]);
  });

  it("bad values are errors with file and line; the timeout stays under the hosts' 10-minute hook limit", () => {
    const p = makeProject();
    project(p, 'human:\n  channel: slack\n  timeout: 11m\n  timout: 3s\n');
    const { human, diagnostics } = load(p);
    expect(human).toMatchObject({ channel: 'host-prompt', timeoutMs: 60_000 });
    expect(diagnostics).toEqual([
      expect.stringMatching(/policy\.yml:2: error: human\.channel: expected one of host-prompt, queue/),
      expect.stringMatching(/policy\.yml:3: error: human\.timeout: must be at most 9m/),
      expect.stringMatching(/policy\.yml:4: error: human\.timout: unknown field \(did you mean "timeout"\?\)/),
    ]);
  });

  it('a timeout that is not a duration is an error', () => {
    const p = makeProject();
    project(p, 'human:\n  timeout: soon\n');
    expect(load(p).diagnostics).toEqual([
      expect.stringMatching(/policy\.yml:2: error: human\.timeout: expected a duration/),
    ]);
  });
});
