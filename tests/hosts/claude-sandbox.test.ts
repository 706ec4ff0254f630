import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeSandbox, claudeSettingsFiles } from '../../src/hosts/claude-sandbox.js';

function places() {
  const base = mkdtempSync(join(tmpdir(), 'hookwise-claude-sandbox-'));
  const projectRoot = join(base, 'project');
  const home = join(base, 'home');
  mkdirSync(join(projectRoot, '.claude'), { recursive: true });
  mkdirSync(join(home, '.claude'), { recursive: true });
  return { projectRoot, home, env: {} as NodeJS.ProcessEnv };
}

describe("Claude Code's own sandbox, from its settings files", () => {
  it('off when no file sets it; the first file in precedence order that sets it decides', () => {
    const p = places();
    expect(claudeSandbox(p)).toBe('off');
    writeFileSync(join(p.home, '.claude', 'settings.json'), JSON.stringify({ sandbox: { enabled: true } }));
    expect(claudeSandbox(p)).toBe('on');
    writeFileSync(
      join(p.projectRoot, '.claude', 'settings.json'),
      JSON.stringify({ permissions: {}, sandbox: { enabled: false } }),
    );
    expect(claudeSandbox(p)).toBe('off');
    writeFileSync(
      join(p.projectRoot, '.claude', 'settings.local.json'),
      JSON.stringify({ sandbox: { enabled: true, autoAllowBashIfSandboxed: true } }),
    );
    expect(claudeSandbox(p)).toBe('on');
  });

  it('CLAUDE_CONFIG_DIR moves the user file; managed settings come first', () => {
    const p = places();
    const dir = join(p.home, 'elsewhere');
    mkdirSync(dir);
    writeFileSync(join(dir, 'settings.json'), JSON.stringify({ sandbox: { enabled: true } }));
    expect(claudeSandbox(p)).toBe('off');
    expect(claudeSandbox({ ...p, env: { CLAUDE_CONFIG_DIR: dir } })).toBe('on');
    expect(claudeSettingsFiles(p)[0]).toMatch(/managed-settings\.json$/);
    const managed = claudeSettingsFiles(p)[0]!;
    expect(
      claudeSandbox({ ...p, env: { CLAUDE_CONFIG_DIR: dir } }, (f) =>
        f === managed
          ? '{"sandbox":{"enabled":false}}'
          : f === join(dir, 'settings.json')
            ? '{"sandbox":{"enabled":true}}'
            : undefined,
      ),
    ).toBe('off');
  });

  it('a file that cannot be read or parsed, or a value that is not a boolean, is unknown (fail closed)', () => {
    const p = places();
    writeFileSync(join(p.projectRoot, '.claude', 'settings.json'), '{ not json');
    expect(claudeSandbox(p)).toBe('unknown');
    writeFileSync(join(p.projectRoot, '.claude', 'settings.json'), JSON.stringify({ sandbox: { enabled: 'yes' } }));
    expect(claudeSandbox(p)).toBe('unknown');
    writeFileSync(join(p.projectRoot, '.claude', 'settings.json'), 'null');
    expect(claudeSandbox(p)).toBe('unknown');
    expect(
      claudeSandbox(p, () => {
        throw new Error('EACCES');
      }),
    ).toBe('unknown');
  });
});
