/** `hookwise scan` knows the daemon token install --claude writes into its own http hooks, and nothing more. */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { mergeSettings } from '../../src/cli/install.js';
import { knownTokenSpans } from '../../src/cli/scan-known.js';
import { renderScan, scanPaths } from '../../src/cli/sanitize.js';

const TOKEN = 'Hk7qP2xW9mZ4rT8vB3nL6cJ1sD5fG0aYeUoIiRtEwQp';
const OTHER = 'Xc4vB7nM1qW9eR3tY6uI8oP2aS5dF0gHjKlZxCvBnMq';
const GITHUB = `ghp_${'Zq9xW2vB7n'.repeat(3)}k4M8pQ`;

/** The settings file install --claude writes (http wiring), with the given daemon token. */
function installed(token: string): string {
  const file = '/p/.claude/settings.local.json';
  return mergeSettings(file, undefined, 'claude', { command: 'hookwise', wiring: 'http', http: { port: 41234, token } })
    .text;
}

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length > 0) rmSync(dirs.pop()!, { recursive: true, force: true });
});

function scan(text: string, daemonToken: string | undefined) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'hookwise-scan-known-')));
  dirs.push(dir);
  mkdirSync(join(dir, '.claude'));
  writeFileSync(join(dir, '.claude', 'settings.local.json'), text);
  return scanPaths([], { cwd: dir, daemonToken });
}

describe('knownTokenSpans', () => {
  it("finds the Authorization header of each of hookwise's http hooks", () => {
    const text = installed(TOKEN);
    const spans = knownTokenSpans(text, TOKEN);
    expect(spans).toHaveLength(4); // PreToolUse, PostToolUseFailure, Stop, SessionEnd (no PostToolUse)
    for (const s of spans) expect(text.slice(s.start, s.end)).toMatch(/^"Authorization": "Bearer Hk7q/);
  });

  it('knows nothing without a token, with another token, or when the token also appears elsewhere', () => {
    expect(knownTokenSpans(installed(TOKEN), undefined)).toEqual([]);
    expect(knownTokenSpans(installed(TOKEN), OTHER)).toEqual([]);
    const copied = JSON.stringify({ ...JSON.parse(installed(TOKEN)), env: { LEAK: TOKEN } }, null, 2);
    expect(knownTokenSpans(copied, TOKEN)).toEqual([]);
    expect(knownTokenSpans(`${installed(TOKEN)} not json`, TOKEN)).toEqual([]);
  });
});

describe('hookwise scan on the settings file install wrote', () => {
  it("reports nothing for hookwise's own token, and says it left it out", () => {
    const report = scan(installed(TOKEN), TOKEN);
    expect(report.findings).toEqual([]);
    expect(report.known).toBe(4);
    const r = renderScan(report, false);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(/4 left out as hookwise's own/);
  });

  it('still finds a real secret planted in the same file', () => {
    const planted = JSON.stringify({ ...JSON.parse(installed(TOKEN)), env: { GITHUB_TOKEN: GITHUB } }, null, 2);
    const report = scan(planted, TOKEN);
    expect(report.findings.map((f) => f.rule)).toEqual(['github-token']);
    expect(report.known).toBe(4);
  });

  it('reports the headers when they hold another token than the daemon has, or no daemon token is known', () => {
    expect(scan(installed(OTHER), TOKEN).findings).toHaveLength(4);
    expect(scan(installed(TOKEN), undefined).findings).toHaveLength(4);
  });

  it('reports every copy when the token also sits elsewhere in the file', () => {
    const copied = JSON.stringify({ ...JSON.parse(installed(TOKEN)), env: { API_TOKEN: TOKEN } }, null, 2);
    const report = scan(copied, TOKEN);
    expect(report.known).toBe(0);
    expect(report.findings.length).toBeGreaterThanOrEqual(2);
  });
});
