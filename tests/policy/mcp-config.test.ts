import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/policy/config.js';
import { configFiles } from '../../src/policy/files.js';
import { formatDiagnostic } from '../../src/policy/schema.js';
import { toolGlobSource } from '../../src/policy/mcp-settings.js';
import { makeProject, type TestProject } from '../support/project.js';

const load = (p: TestProject) => loadConfig(p.root, configFiles(p.root, p.configDir));
const lines = (p: TestProject) => load(p).diagnostics.map(formatDiagnostic).join('\n');
const userConfig = (p: TestProject, text: string) => p.write(join(p.configDir, 'config.yml'), text);

describe('MCP config: server mappings and role settings', () => {
  it('maps servers to catalogue entries, with where each mapping was written and whether it is trusted', () => {
    const p = makeProject();
    p.write('.hookwise/policy.yml', 'mcp:\n  servers:\n    files2: filesystem\n    notes: none\n');
    const { config, diagnostics } = load(p);
    expect(diagnostics).toEqual([]);
    expect(config.mcp.servers.files2).toMatchObject({ entry: 'filesystem', trusted: false });
    expect(config.mcp.servers.files2!.source).toMatch(/policy\.yml:3/);
    expect(config.mcp.servers.notes!.entry).toBe('none');
  });

  it('an entry the catalogue does not have is an error with a suggestion', () => {
    const p = makeProject();
    p.write('.hookwise/policy.yml', 'mcp:\n  servers:\n    fs: filesystm\n');
    expect(lines(p)).toMatch(
      /policy\.yml:3: error: mcp\.servers\.fs: "filesystm" is not a server.*did you mean "filesystem"/,
    );
  });

  it('a project cannot re-map a server the user mapped', () => {
    const p = makeProject();
    userConfig(p, 'mcp:\n  servers:\n    db: postgres\n');
    p.write('.hookwise/policy.yml', 'mcp:\n  servers:\n    db: sqlite\n');
    const { config, diagnostics } = load(p);
    expect(config.mcp.servers.db).toMatchObject({ entry: 'postgres', trusted: true });
    expect(diagnostics.map(formatDiagnostic).join()).toMatch(/ignored: .*maps "db" to postgres/);
  });

  it('role mcp settings: globs must be MCP tool globs; a project may deny and lower SQL, not allow or raise', () => {
    const p = makeProject();
    p.write(
      '.hookwise/roles.yml',
      'roles:\n  coder:\n    mcp:\n      deny: ["mcp__github__merge_*", "Bash"]\n      allow: ["mcp__github__*"]\n      sql: schema\n',
    );
    const { config } = load(p);
    const text = lines(p);
    expect(text).toMatch(/"Bash" is not an MCP tool glob/);
    expect(text).toMatch(/mcp\.allow: ignored: a project file cannot allow/);
    expect(text).toMatch(/mcp\.sql: ignored: "schema"/);
    expect(config.roles.coder!.mcp).toMatchObject({ allow: [], sql: { ceiling: 'read' } });
    expect(config.roles.coder!.mcp!.deny.map((d) => d.glob)).toEqual(['mcp__github__merge_*']);
  });

  it('the user’s file may allow tools and raise the SQL class', () => {
    const p = makeProject();
    userConfig(p, 'roles:\n  coder:\n    mcp:\n      allow: ["mcp__github__create_issue"]\n      sql: row-write\n');
    const { config, diagnostics } = load(p);
    expect(diagnostics).toEqual([]);
    expect(config.roles.coder!.mcp).toMatchObject({
      allow: [{ glob: 'mcp__github__create_issue' }],
      sql: { ceiling: 'row-write' },
    });
  });

  it('unknown keys under mcp are errors (a typo must not fail open)', () => {
    const p = makeProject();
    p.write('.hookwise/policy.yml', 'mcp:\n  server:\n    fs: filesystem\n');
    expect(lines(p)).toMatch(/mcp\.server/);
  });

  it('tool globs match whole names: * any run, ? one character, the rest literal', () => {
    const re = new RegExp(toolGlobSource('mcp__github__create_*'));
    expect(re.test('mcp__github__create_issue')).toBe(true);
    expect(re.test('mcp__github__merge_pull_request')).toBe(false);
    expect(re.test('xmcp__github__create_issue')).toBe(false);
    expect(new RegExp(toolGlobSource('mcp__a.b__*')).test('mcp__aXb__t')).toBe(false);
  });
});
