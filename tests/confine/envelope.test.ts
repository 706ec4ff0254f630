/** The envelope: pure data from the project, temp, home and runtime directories and the settings. */
import { describe, expect, it } from 'vitest';
import {
  buildEnvelope,
  DEFAULT_CONFINE_SETTINGS,
  type ConfineSettings,
  type DenyRule,
  type Envelope,
} from '../../src/confine/envelope.js';
import { DEFAULT_SENSITIVE_READ, DEFAULT_SENSITIVE_WRITE } from '../../src/policy/defaults.js';

const input = {
  projectRoot: '/p/app',
  tempDir: '/tmp',
  home: '/h/me',
  runtimeDir: '/run/user/1/hookwise',
  userConfigDir: '/h/me/.config/hookwise',
};
const envelope = (settings: Partial<ConfineSettings> = {}): Envelope =>
  buildEnvelope({ ...input, settings: { ...DEFAULT_CONFINE_SETTINGS, ...settings } });
const paths = (rules: readonly DenyRule[]) => rules.flatMap((r) => (r.kind === 'path' ? [r.path] : []));
const names = (rules: readonly DenyRule[]) => rules.flatMap((r) => (r.kind === 'names' ? [r] : []));

describe('buildEnvelope', () => {
  it('writes land in the project and the temp dir; no network', () => {
    const e = envelope();
    expect(e.writable).toEqual([
      { path: '/p/app', why: 'project' },
      { path: '/tmp', why: 'temp' },
    ]);
    expect(e.network).toEqual({ kind: 'none' });
  });

  it("keeps issue 11's protected files read-only: git hooks and config, hookwise, agent settings, MCP configs", () => {
    const e = envelope();
    expect(paths(e.denyWrite)).toEqual(
      expect.arrayContaining([
        '/p/app/.git/hooks',
        '/p/app/.git/config',
        '/p/app/.hookwise',
        '/p/app/.claude',
        '/p/app/.mcp.json',
        '/p/app/.vscode/tasks.json',
        '/p/app/.envrc',
        '/h/me/.bashrc',
      ]),
    );
    // Any depth: nested MCP configs and .env files are found by the scan when wrapping.
    expect(names(e.denyWrite).map((r) => r.match)).toEqual(expect.arrayContaining(['.mcp.json', '.env*', '.envrc']));
  });

  it("keeps hg's and jj's repository directories and nested repositories' git config and hooks read-only", () => {
    const e = envelope();
    expect(paths(e.denyWrite)).toEqual(
      expect.arrayContaining(['/p/app/.hg', '/p/app/.jj', '/p/app/.git/config.worktree', '/h/me/.hgrc']),
    );
    const nested = names(e.denyWrite).map((r) => [r.match, r.depth > 1, r.within ?? []]);
    expect(nested).toEqual(
      expect.arrayContaining([
        ['.hg', true, []],
        ['.jj', true, []],
        ['.git', true, ['config']],
        ['.git', true, ['hooks']],
      ]),
    );
  });

  it('hides secrets: ~/.ssh, ~/.aws, gcloud, .netrc, docker credentials, keychains, the runtime dir, the daemon token', () => {
    const e = envelope();
    expect(paths(e.denyRead)).toEqual(
      expect.arrayContaining([
        '/h/me/.ssh',
        '/h/me/.aws',
        '/h/me/.config/gcloud',
        '/h/me/.netrc',
        '/h/me/.docker/config.json',
        '/h/me/.local/share/keyrings',
        '/h/me/Library/Keychains',
        '/run/user/1/hookwise',
        '/h/me/.config/hookwise/daemon',
      ]),
    );
  });

  it('.env files at any depth are unreadable, their templates are not', () => {
    const rule = names(envelope().denyRead).find((r) => r.match.startsWith('.env!'))!;
    expect(rule.test.kind).toBe('regex');
    const re = new RegExp(rule.test.value);
    expect(['.env', '.env.local', '.env.production'].every((n) => re.test(n))).toBe(true);
    expect(['.env.example', '.env.sample', 'x.env'].some((n) => re.test(n))).toBe(false);
  });

  it.each([
    ...DEFAULT_SENSITIVE_WRITE.map((p) => ['write', p]),
    ...DEFAULT_SENSITIVE_READ.map((p) => ['read', p]),
  ] as const)(
    'takes the sensitive %s pattern %s from policy/defaults.ts: a rule, or a note saying why not',
    (list, pattern) => {
      const e = buildEnvelope({
        ...input,
        sensitive: { write: list === 'write' ? [pattern] : [], read: list === 'read' ? [pattern] : [] },
      });
      const rules = (list === 'write' ? e.denyWrite : e.denyRead).filter((r) => r.source.pattern === pattern);
      const notes = e.notes.filter((n) => n.pattern === pattern);
      expect(rules.length + notes.length).toBeGreaterThan(0);
      if (notes.length > 0) expect(pattern).toBe('/proc/*/environ');
    },
  );

  it('the effective lists of a policy can replace the defaults', () => {
    const e = buildEnvelope({ ...input, sensitive: { write: ['deploy/**'], read: ['*.key'] } });
    expect(paths(e.denyWrite)).toContain('/p/app/deploy');
    expect(paths(e.denyWrite)).not.toContain('/p/app/.mcp.json');
    expect(names(e.denyRead).map((r) => r.match)).toContain('*.key');
  });

  it('the host’s places (transcripts, settings) are read-only as paths, not globs', () => {
    const e = buildEnvelope({ ...input, hostDirs: ['/tmp/claude [cfg]', '/tmp/claude [cfg]/projects/-p/s.jsonl'] });
    expect(paths(e.denyWrite)).toEqual(
      expect.arrayContaining(['/tmp/claude [cfg]', '/tmp/claude [cfg]/projects/-p/s.jsonl']),
    );
  });

  it('a role that writes only some directories gets only those', () => {
    expect(envelope({ projectWrites: ['docs', '../escape'] }).writable).toEqual([
      { path: '/p/app/docs', why: 'project' },
      { path: '/tmp', why: 'temp' },
    ]);
  });

  it('a private temp dir is not a shared writable root', () => {
    const e = envelope({ temp: 'private' });
    expect(e.temp).toBe('private');
    expect(e.writable.map((w) => w.path)).toEqual(['/p/app']);
  });

  it('refuses extra writable roots that would open the home directory or everything', () => {
    const e = envelope({ extraWritable: ['/', '~/', '/h', '~/.cache/go-build', 'relative'] });
    expect(e.writable.map((w) => w.path)).toEqual(['/p/app', '/tmp', '/h/me/.cache/go-build']);
    expect(e.notes.filter((n) => n.list === 'settings')).toHaveLength(4);
  });

  it('allowed domains need the filtering proxy (a hook point: wrapping refuses it)', () => {
    expect(envelope({ network: { allow: ['registry.npmjs.org'] } }).network).toEqual({
      kind: 'proxy',
      domains: ['registry.npmjs.org'],
    });
  });

  it('wants absolute paths', () => {
    expect(() => buildEnvelope({ ...input, projectRoot: 'app' })).toThrow(/absolute/);
  });
});
