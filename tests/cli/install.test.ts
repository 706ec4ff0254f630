import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  hookCommand,
  HOST_SPECS,
  isHookwiseHandler,
  learnCommand,
  runInstall,
  wiringFor,
  type InstallIo,
  type InstallOptions,
} from '../../src/cli/install.js';
import type { HostName } from '../../src/core/tool-call.js';
import { sessionPendingDir } from '../../src/memory/learn.js';
import { locations } from '../../src/util/locations.js';

// ── a sandbox: a git project, a home, and a PATH holding a (fake) hookwise ──────────────────────────────

interface Sandbox extends InstallIo {
  base: string;
  /** Absolute path of a file under the project or the home (`~/…`). */
  path(relative: string): string;
  write(relative: string, content: string): string;
  read(relative: string): string;
  backups(relative: string): string[];
  install(options: InstallOptions): { stdout: string; stderr: string };
  uninstall(options: InstallOptions): { stdout: string; stderr: string };
}

const cleanups: string[] = [];
afterEach(() => {
  while (cleanups.length > 0) rmSync(cleanups.pop()!, { recursive: true, force: true });
});

let tick = 0;
function sandbox(env: NodeJS.ProcessEnv = {}): Sandbox {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'hookwise-install-')));
  cleanups.push(base);
  const projectRoot = join(base, 'project');
  const home = join(base, 'home');
  const bin = join(base, 'bin');
  mkdirSync(join(projectRoot, '.git'), { recursive: true });
  mkdirSync(home, { recursive: true });
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'hookwise'), '#!/bin/sh\nexit 0\n');
  chmodSync(join(bin, 'hookwise'), 0o755);
  const path = (relative: string): string =>
    relative.startsWith('~/') ? join(home, relative.slice(2)) : join(projectRoot, relative);
  const box: Sandbox = {
    base,
    projectRoot,
    home,
    env: { PATH: bin, HOME: home, ...env },
    self: '/opt/hook wise/bin/hookwise',
    // A distinct time per call, so that every backup gets its own name.
    now: () => new Date(Date.UTC(2026, 0, 2, 3, 4, 5, tick++)),
    path,
    write(relative, content) {
      const file = path(relative);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, content);
      return file;
    },
    read: (relative) => readFileSync(path(relative), 'utf8'),
    // Backups live in the user's state directory, named by the file's whole path.
    backups: (relative) => {
      const dir = join(home, '.local', 'state', 'hookwise', 'backups');
      const prefix = `${path(relative).replace(/^\/+/, '').replaceAll('/', '%')}.hookwise-backup-`;
      return existsSync(dir)
        ? readdirSync(dir)
            .filter((f) => f.startsWith(prefix))
            .map((f) => f.slice(prefix.length))
        : [];
    },
    // The command wiring unless a test asks for http (which needs the daemon endpoint: box.http).
    install: (options) => runInstall('install', { wiring: 'command', ...options }, box),
    uninstall: (options) => runInstall('uninstall', options, box),
  };
  return box;
}

const CLAUDE_FILE = '.claude/settings.json';

/** Our handlers under each event of a settings object. */
function ours(settings: unknown): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const hooks = (settings as { hooks?: Record<string, { hooks?: unknown[] }[]> }).hooks ?? {};
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) continue;
    const commands = groups.flatMap((g) =>
      (g.hooks ?? []).filter(isHookwiseHandler).map((h) => (h as { command: string }).command),
    );
    if (commands.length > 0) out[event] = commands;
  }
  return out;
}

// ── the http wiring (Claude Code) ──────────────────────────────────────────────────────────────────────

describe('hookwise install --claude --wiring http', () => {
  const endpoint = { port: 41234, token: 'k'.repeat(43) };

  it('tool calls POST to the daemon and block when it is down; session hooks start it; the token stays out of git', () => {
    const box = sandbox();
    box.http = endpoint;
    const result = box.install({ claude: true, wiring: 'http' });
    const file = '.claude/settings.local.json';
    const settings = JSON.parse(box.read(file)) as {
      hooks: Record<string, { matcher?: string; hooks: Record<string, unknown>[] }[]>;
    };
    const gate = {
      type: 'http',
      url: 'http://127.0.0.1:41234/v1/hook/claude',
      headers: { Authorization: `Bearer ${endpoint.token}`, 'X-Hookwise-Role': '$HOOKWISE_ROLE' },
      allowedEnvVars: ['HOOKWISE_ROLE'],
    };
    expect(settings.hooks).toEqual({
      PreToolUse: [{ matcher: '*', hooks: [{ ...gate, timeout: 600, onFailure: 'block' }] }],
      // No PostToolUse (the daemon settles at the next call, Stop, SessionEnd); a failure is rare and reported at once.
      PostToolUseFailure: [{ matcher: 'Bash', hooks: [{ ...gate, timeout: 30 }] }],
      Stop: [{ hooks: [{ ...gate, timeout: 30 }] }],
      SessionEnd: [{ hooks: [{ ...gate, timeout: 5 }] }],
      UserPromptSubmit: [
        { hooks: [{ type: 'command', command: 'hookwise session-check --host claude --ensure-daemon', timeout: 30 }] },
      ],
      SessionStart: [
        { hooks: [{ type: 'command', command: 'hookwise session-check --host claude --ensure-daemon', timeout: 30 }] },
      ],
    });
    expect(statSync(box.path(file)).mode & 0o777).toBe(0o600);
    expect(existsSync(box.path(CLAUDE_FILE))).toBe(false);
    expect(readFileSync(box.path('.git/info/exclude'), 'utf8').split('\n')).toContain('/.claude/settings.local.json');
    expect(result.stdout).toMatch(
      /PreToolUse \(\*\): POST http:\/\/127\.0\.0\.1:<port>\/v1\/hook\/claude \(blocks when the daemon is down\)/,
    );
    expect(result.stdout).not.toContain(endpoint.token);
    expect(result.stderr).toMatch(/hookwise daemon start/);
  });

  it('is recognised as ours: reinstalling replaces it, uninstall removes it, and the exclude line is not repeated', () => {
    const box = sandbox();
    box.http = endpoint;
    box.install({ claude: true, wiring: 'http' });
    box.http = { ...endpoint, port: 41235 };
    box.install({ claude: true, wiring: 'http' });
    const settings = JSON.parse(box.read('.claude/settings.local.json')) as { hooks: Record<string, unknown[]> };
    expect(settings.hooks.PreToolUse).toHaveLength(1);
    expect(JSON.stringify(settings)).toContain(':41235/');
    expect(readFileSync(box.path('.git/info/exclude'), 'utf8').match(/settings\.local\.json/g)).toHaveLength(1);
    expect(runInstall('uninstall', { claude: true, wiring: 'http' }, box).stdout).toMatch(/removed 6 hookwise hooks/);
  });

  it('reinstalling over the wiring with a PostToolUse hook removes that entry, and only ours', () => {
    const box = sandbox();
    box.http = endpoint;
    const theirs = { type: 'command', command: 'my-formatter --check', timeout: 10 };
    const before = {
      hooks: {
        PostToolUse: [
          // What install wrote until the http wiring had no PostToolUse: a background learn command.
          {
            matcher: '*',
            hooks: [{ type: 'command', command: `${learnCommand('hookwise', 'claude')}`, timeout: 30, async: true }],
          },
          { matcher: 'Edit', hooks: [theirs] },
        ],
      },
    };
    box.write('.claude/settings.local.json', `${JSON.stringify(before, null, 2)}\n`);
    box.install({ claude: true, wiring: 'http' });
    const settings = JSON.parse(box.read('.claude/settings.local.json')) as {
      hooks: Record<string, { matcher?: string; hooks: unknown[] }[]>;
    };
    expect(settings.hooks.PostToolUse).toEqual([{ matcher: 'Edit', hooks: [theirs] }]);
    expect(Object.keys(settings.hooks).sort()).toEqual(
      [
        'PostToolUse',
        'PostToolUseFailure',
        'PreToolUse',
        'SessionEnd',
        'SessionStart',
        'Stop',
        'UserPromptSubmit',
      ].sort(),
    );
  });

  it('user scope goes to ~/.claude/settings.json; without the endpoint it refuses', () => {
    const box = sandbox();
    expect(() => box.install({ claude: true, wiring: 'http' })).toThrow(/daemon start --http|--wiring command/);
    box.http = endpoint;
    box.install({ claude: true, wiring: 'http', scope: 'user' });
    expect(JSON.parse(box.read('~/.claude/settings.json')).hooks.PreToolUse[0].hooks[0].type).toBe('http');
  });

  it('Gemini and Codex keep command hooks whatever the wiring asked', () => {
    const box = sandbox();
    box.install({ gemini: true, codex: true, wiring: 'http' });
    expect(JSON.stringify(JSON.parse(box.read('~/.gemini/settings.json')))).not.toContain('"http"');
    expect(JSON.stringify(JSON.parse(box.read('.codex/hooks.json')))).not.toContain('"http"');
  });
});

// ── each host's format ─────────────────────────────────────────────────────────────────────────────────

describe('install --help names the files install writes', () => {
  it.each(['claude', 'gemini', 'codex'] as const)('%s: the default wiring and scope', (host) => {
    const help = spawnSync(
      process.execPath,
      [join(import.meta.dirname, '..', '..', 'dist', 'hookwise.cjs'), 'install', '--help'],
      {
        encoding: 'utf8',
      },
    ).stdout.replace(/\s+/g, ' ');
    const spec = HOST_SPECS[host];
    const root = '/project';
    const file = spec.settingsFile(
      spec.defaultScope,
      { projectRoot: root, home: '/home/u', env: {} },
      wiringFor(host, undefined),
    );
    const shown = file.startsWith(`${root}/`) ? file.slice(root.length + 1) : file.replace('/home/u', '~');
    expect(help).toContain(`--${host} ${spec.label}: `);
    expect(help).toMatch(new RegExp(`--${host} ${spec.label}: [^-]*${shown.replace(/[.]/g, '\\.')}`));
  });
});

describe('hookwise install writes each host its own format', () => {
  it('Claude Code: project .claude/settings.json, PreToolUse for every tool, PostToolUse learning (synchronous, through the session\u2019s fast path), the session hooks, seconds', () => {
    const box = sandbox();
    box.install({ claude: true });
    expect(JSON.parse(box.read(CLAUDE_FILE))).toEqual({
      hooks: {
        PreToolUse: [
          {
            matcher: '*',
            hooks: [{ type: 'command', command: 'hookwise check --host claude || exit 2', timeout: 600 }],
          },
        ],
        // Not `|| exit 2`: learning is not a gate, and it runs in the background.
        PostToolUse: [
          { matcher: '*', hooks: [{ type: 'command', command: learnCommand('hookwise', 'claude'), timeout: 30 }] },
        ],
        // A confined Bash call that hit the walls is learnt before the agent's next call: not in the background.
        PostToolUseFailure: [
          { matcher: 'Bash', hooks: [{ type: 'command', command: learnCommand('hookwise', 'claude'), timeout: 30 }] },
        ],
        UserPromptSubmit: [
          { hooks: [{ type: 'command', command: 'hookwise session-check --host claude', timeout: 30 }] },
        ],
        SessionStart: [{ hooks: [{ type: 'command', command: 'hookwise session-check --host claude', timeout: 30 }] }],
      },
    });
  });

  it('Gemini CLI: user ~/.gemini/settings.json by default, BeforeTool matcher ".*", named handlers, milliseconds', () => {
    const box = sandbox();
    const result = box.install({ gemini: true });
    expect(JSON.parse(box.read('~/.gemini/settings.json'))).toEqual({
      hooks: {
        BeforeTool: [
          {
            matcher: '.*',
            hooks: [
              {
                name: 'hookwise-gate',
                type: 'command',
                command: 'hookwise check --host gemini || exit 2',
                timeout: 600_000,
              },
            ],
          },
        ],
        BeforeAgent: [
          {
            hooks: [
              {
                name: 'hookwise-session',
                type: 'command',
                command: 'hookwise session-check --host gemini',
                timeout: 30_000,
              },
            ],
          },
        ],
        SessionStart: [
          {
            hooks: [
              {
                name: 'hookwise-session-start',
                type: 'command',
                command: 'hookwise session-check --host gemini',
                timeout: 30_000,
              },
            ],
          },
        ],
      },
    });
    expect(existsSync(box.path('.gemini/settings.json'))).toBe(false);
    expect(result.stderr).toMatch(/restart/);
  });

  it('Codex: project .codex/hooks.json in Claude-compatible JSON, and a note that the hooks must be trusted', () => {
    const box = sandbox();
    const result = box.install({ codex: true });
    expect(JSON.parse(box.read('.codex/hooks.json'))).toEqual({
      hooks: {
        PreToolUse: [
          {
            matcher: '*',
            hooks: [{ type: 'command', command: 'hookwise check --host codex || exit 2', timeout: 600 }],
          },
        ],
        UserPromptSubmit: [
          { hooks: [{ type: 'command', command: 'hookwise session-check --host codex', timeout: 30 }] },
        ],
        SessionStart: [{ hooks: [{ type: 'command', command: 'hookwise session-check --host codex', timeout: 30 }] }],
      },
    });
    expect(result.stderr).toMatch(/\/hooks/);
  });

  it.each<[HostName, 'project' | 'user', string]>([
    ['claude', 'project', '.claude/settings.json'],
    ['claude', 'user', '~/.claude/settings.json'],
    ['gemini', 'project', '.gemini/settings.json'],
    ['gemini', 'user', '~/.gemini/settings.json'],
    ['codex', 'project', '.codex/hooks.json'],
    ['codex', 'user', '~/.codex/hooks.json'],
  ])('%s --scope %s writes %s', (host, scope, file) => {
    const box = sandbox();
    box.install({ [host]: true, scope });
    expect(Object.keys(ours(JSON.parse(box.read(file))))).toEqual(HOST_SPECS[host].entries.map((e) => e.event));
  });

  it.each<[HostName, string, string]>([
    ['claude', 'CLAUDE_CONFIG_DIR', 'claude-config/settings.json'],
    ['gemini', 'GEMINI_CLI_HOME', 'gemini-home/.gemini/settings.json'],
    ['codex', 'CODEX_HOME', 'codex-home/hooks.json'],
  ])('%s user scope follows %s, as the host itself does', (host, variable, file) => {
    const box = sandbox();
    const dir = file.split('/')[0]!;
    box.env[variable] = join(box.base, dir);
    box.install({ [host]: true, scope: 'user' });
    expect(existsSync(join(box.base, file))).toBe(true);
  });

  it('several hosts in one call', () => {
    const box = sandbox();
    box.install({ claude: true, gemini: true, codex: true });
    for (const file of [CLAUDE_FILE, '~/.gemini/settings.json', '.codex/hooks.json'])
      expect(existsSync(box.path(file))).toBe(true);
  });
});

// ── merging ────────────────────────────────────────────────────────────────────────────────────────────

describe('hookwise install merges and keeps everything else', () => {
  const existing = {
    permissions: { allow: ['Bash(npm test)'], deny: ['Read(./.env)'] },
    hooks: {
      PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: '/usr/local/bin/audit-bash', timeout: 5 }] }],
      Stop: [{ hooks: [{ type: 'command', command: 'notify-send done' }] }],
    },
    model: 'opus',
  };

  it('keeps other keys, other events and other hooks of the same event (ours come last)', () => {
    const box = sandbox();
    box.write(CLAUDE_FILE, JSON.stringify(existing, null, 2));
    box.install({ claude: true });
    const after = JSON.parse(box.read(CLAUDE_FILE)) as typeof existing & { hooks: Record<string, unknown[]> };
    expect(Object.keys(after)).toEqual(['permissions', 'hooks', 'model']);
    expect(after.permissions).toEqual(existing.permissions);
    expect(after.model).toBe('opus');
    expect(after.hooks.Stop).toEqual(existing.hooks.Stop);
    expect(after.hooks.PreToolUse).toHaveLength(2);
    expect(after.hooks.PreToolUse[0]).toEqual(existing.hooks.PreToolUse[0]);
    expect(ours(after)).toEqual({
      PreToolUse: ['hookwise check --host claude || exit 2'],
      PostToolUse: [learnCommand('hookwise', 'claude')],
      PostToolUseFailure: [learnCommand('hookwise', 'claude')],
      UserPromptSubmit: ['hookwise session-check --host claude'],
      SessionStart: ['hookwise session-check --host claude'],
    });
  });

  it('running it twice gives a byte-identical file and says nothing changed', () => {
    const box = sandbox();
    box.write(CLAUDE_FILE, JSON.stringify(existing));
    box.install({ claude: true });
    const first = box.read(CLAUDE_FILE);
    const second = box.install({ claude: true });
    expect(box.read(CLAUDE_FILE)).toBe(first);
    expect(second.stdout).toMatch(/up to date; nothing changed/);
    expect(box.backups(CLAUDE_FILE)).toHaveLength(1);
  });

  it('a new file gets no backup, and a second run none either', () => {
    const box = sandbox();
    box.install({ codex: true });
    box.install({ codex: true });
    expect(box.backups('.codex/hooks.json')).toEqual([]);
  });

  it('reinstalling with another command replaces our entries instead of adding a second set', () => {
    const box = sandbox();
    box.install({ claude: true });
    box.install({ claude: true, command: '/opt/hookwise/bin/hookwise' });
    expect(ours(JSON.parse(box.read(CLAUDE_FILE)))).toEqual({
      PreToolUse: ['/opt/hookwise/bin/hookwise check --host claude || exit 2'],
      PostToolUse: [learnCommand('/opt/hookwise/bin/hookwise', 'claude')],
      PostToolUseFailure: [learnCommand('/opt/hookwise/bin/hookwise', 'claude')],
      UserPromptSubmit: ['/opt/hookwise/bin/hookwise session-check --host claude'],
      SessionStart: ['/opt/hookwise/bin/hookwise session-check --host claude'],
    });
  });

  it('entries from an older hookwise under events it no longer installs are removed', () => {
    const box = sandbox();
    box.write(
      CLAUDE_FILE,
      JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'hookwise check --host claude' }] }] } }),
    );
    box.install({ claude: true });
    expect(JSON.parse(box.read(CLAUDE_FILE)).hooks.Stop).toBeUndefined();
  });

  it('the note about a committed settings file says how to install the CLI (no template left in it)', () => {
    const box = sandbox();
    const result = box.install({ claude: true });
    expect(result.stderr).toContain(
      'needs the hookwise CLI (from a clone of the hookwise repository: npm install && npm install -g .)',
    );
    expect(result.stderr).not.toContain('${');
  });

  it('writes a backup holding the previous bytes before replacing the file', () => {
    const box = sandbox();
    const previous = '{ "model": "opus" }\n';
    box.write(CLAUDE_FILE, previous);
    const result = box.install({ claude: true });
    const [stamp] = box.backups(CLAUDE_FILE);
    expect(stamp).toMatch(/^20260102T\d{9}Z$/);
    // Not beside the file (.claude/ is usually committed): in the user's state directory, private.
    const backup = join(
      box.home,
      '.local',
      'state',
      'hookwise',
      'backups',
      `${box.path(CLAUDE_FILE).slice(1).replaceAll('/', '%')}.hookwise-backup-${stamp!}`,
    );
    expect(readFileSync(backup, 'utf8')).toBe(previous);
    expect(statSync(backup).mode & 0o777).toBe(0o600);
    expect(readdirSync(dirname(box.path(CLAUDE_FILE)))).toEqual(['settings.json']);
    expect(result.stdout).toContain(`backup of the previous file: ${backup}`);
  });

  it('keeps the file’s indentation and permissions', () => {
    const box = sandbox();
    const file = box.write(CLAUDE_FILE, '{\n    "model": "opus"\n}\n');
    chmodSync(file, 0o600);
    box.install({ claude: true });
    expect(box.read(CLAUDE_FILE)).toMatch(/^{\n {4}"model": "opus",\n {4}"hooks": {\n {8}"PreToolUse"/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('an empty file counts as no settings', () => {
    const box = sandbox();
    box.write(CLAUDE_FILE, '\n');
    box.install({ claude: true });
    expect(Object.keys(ours(JSON.parse(box.read(CLAUDE_FILE))))).toHaveLength(5);
  });

  it('a symlinked settings file stays a symlink; its target gets the hooks', () => {
    const box = sandbox();
    const target = box.write('~/dotfiles/claude-settings.json', '{"model":"opus"}\n');
    mkdirSync(dirname(box.path('~/.claude/settings.json')), { recursive: true });
    symlinkSync(target, box.path('~/.claude/settings.json'));
    box.install({ claude: true, scope: 'user' });
    expect(lstatSync(box.path('~/.claude/settings.json')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(box.path('~/.claude/settings.json'))).toBe(target);
    expect(Object.keys(ours(JSON.parse(readFileSync(target, 'utf8'))))).toHaveLength(5);
  });

  it('non-event keys under Gemini "hooks" (older settings: enabled, disabled) are kept', () => {
    const box = sandbox();
    box.write('~/.gemini/settings.json', JSON.stringify({ hooks: { enabled: true, disabled: ['x'] } }));
    box.install({ gemini: true });
    const after = JSON.parse(box.read('~/.gemini/settings.json')) as { hooks: Record<string, unknown> };
    expect(after.hooks.enabled).toBe(true);
    expect(after.hooks.disabled).toEqual(['x']);
  });

  it('--dry-run prints the merged file and writes nothing', () => {
    const box = sandbox();
    box.write(CLAUDE_FILE, '{"model":"opus"}');
    const result = box.install({ claude: true, dryRun: true });
    expect(box.read(CLAUDE_FILE)).toBe('{"model":"opus"}');
    expect(JSON.parse(result.stdout)).toMatchObject({ model: 'opus', hooks: { PreToolUse: [{ matcher: '*' }] } });
    expect(result.stderr).toContain(`would write ${box.path(CLAUDE_FILE)}`);
    expect(box.backups(CLAUDE_FILE)).toEqual([]);
  });
});

// ── refusing ───────────────────────────────────────────────────────────────────────────────────────────

describe('hookwise install refuses what it cannot merge safely', () => {
  it.each([
    [
      'invalid JSON',
      '{ "model": "opus",\n  oops }\n',
      /settings\.json is not valid JSON \(.*line 2 column 3\); hookwise did not change it/,
    ],
    [
      'JSON with comments (Gemini tolerates them)',
      '{\n  // mine\n  "model": "opus"\n}\n',
      /not valid JSON.*seems to contain comments/,
    ],
    ['a top-level array', '[]', /must hold a JSON object, not an array/],
    ['"hooks" that is not an object', '{"hooks": []}', /"hooks" must be an object keyed by event name/],
    [
      'an event that is not an array',
      '{"hooks": {"PreToolUse": {"matcher": "*"}}}',
      /"hooks\.PreToolUse" must be an array/,
    ],
  ])('%s: names the file and the problem, and leaves the file untouched', (_what, content, message) => {
    const box = sandbox();
    const file = box.write(CLAUDE_FILE, content);
    const before = statSync(file).mtimeMs;
    expect(() => box.install({ claude: true })).toThrow(message);
    expect(() => box.install({ claude: true })).toThrow(file);
    expect(readFileSync(file, 'utf8')).toBe(content);
    expect(statSync(file).mtimeMs).toBe(before);
    expect(readdirSync(dirname(file))).toEqual(['settings.json']);
  });

  it('with several hosts, one unmergeable file means no file is written', () => {
    const box = sandbox();
    box.write('.codex/hooks.json', '{ not json');
    expect(() => box.install({ claude: true, codex: true })).toThrow(/hooks\.json is not valid JSON/);
    expect(existsSync(box.path(CLAUDE_FILE))).toBe(false);
  });

  it('no host chosen is a usage error', () => {
    expect(() => sandbox().install({})).toThrow(/--claude, --gemini or --codex/);
  });

  it('hookwise missing from PATH: refuses, says how to install it from a clone, and suggests pinning the running copy with --command', () => {
    const box = sandbox({ PATH: '/nonexistent' });
    expect(() => box.install({ claude: true })).toThrow(`--command '/opt/hook wise/bin/hookwise'`);
    // Not `npm install -g hookwise`: the package is not on the registry.
    expect(() => box.install({ claude: true })).toThrow(
      'from a clone of the hookwise repository: npm install && npm install -g .',
    );
    expect(existsSync(box.path(CLAUDE_FILE))).toBe(false);
  });

  it('--command must name hookwise, so that its entries can be recognised later', () => {
    expect(() => sandbox().install({ claude: true, command: '/usr/bin/gate' })).toThrow(/must contain "hookwise"/);
  });
});

// ── uninstall ──────────────────────────────────────────────────────────────────────────────────────────

describe('hookwise uninstall removes only hookwise’s entries', () => {
  it('restores the user’s own hooks exactly, keeping a handler that shared a group with ours', () => {
    const box = sandbox();
    box.write(
      CLAUDE_FILE,
      JSON.stringify({
        hooks: {
          PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'audit' }] }],
          SessionStart: [
            {
              hooks: [
                { type: 'command', command: 'hookwise session-check --host claude' },
                { type: 'command', command: 'banner' },
              ],
            },
          ],
        },
      }),
    );
    box.install({ claude: true });
    const result = box.uninstall({ claude: true });
    expect(result.stdout).toMatch(/removed 5 hookwise hooks/);
    expect(JSON.parse(box.read(CLAUDE_FILE))).toEqual({
      hooks: {
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'audit' }] }],
        SessionStart: [{ hooks: [{ type: 'command', command: 'banner' }] }],
      },
    });
  });

  it('a file with only our hooks is left as an empty object', () => {
    const box = sandbox();
    box.install({ codex: true });
    box.uninstall({ codex: true });
    expect(box.read('.codex/hooks.json')).toBe('{}\n');
  });

  it('nothing to remove: says so, and neither creates nor touches a file', () => {
    const box = sandbox();
    expect(box.uninstall({ claude: true }).stdout).toMatch(/no hookwise hooks in .*nothing changed/);
    expect(existsSync(box.path(CLAUDE_FILE))).toBe(false);
  });
});

// ── the installed commands themselves ───────────────────────────────────────────────────────────────────

describe('the installed gate command fails closed', () => {
  function runShell(command: string, path: string, stdin = '{}') {
    return spawnSync('/bin/sh', ['-c', command], { input: stdin, env: { PATH: path }, encoding: 'utf8' });
  }

  it('exits 2 (a block on every host) when hookwise is not on the agent’s PATH', () => {
    const empty = mkdtempSync(join(tmpdir(), 'hookwise-empty-path-'));
    cleanups.push(empty);
    const result = runShell(hookCommand('hookwise', 'gate', 'claude'), empty);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/hookwise.*not found/);
  });

  it('passes hookwise’s answer through: exit 0 with its JSON, exit 2 with its reason', () => {
    const box = sandbox();
    const bin = join(box.base, 'bin', 'hookwise');
    writeFileSync(bin, '#!/bin/sh\necho \'{"decision":"deny"}\'\nexit "${FAKE_EXIT:-0}"\n');
    const ok = runShell(hookCommand('hookwise', 'gate', 'gemini'), `${dirname(bin)}:/usr/bin:/bin`);
    expect([ok.status, ok.stdout]).toEqual([0, '{"decision":"deny"}\n']);
    const blocked = runShell(
      `FAKE_EXIT=2; export FAKE_EXIT; ${hookCommand('hookwise', 'gate', 'gemini')}`,
      `${dirname(bin)}:/usr/bin:/bin`,
    );
    expect(blocked.status).toBe(2);
  });
});

describe('the installed learn command (PostToolUse, PostToolUseFailure) starts hookwise only when this session has a pending note', () => {
  const SESSION = 'd2c1b5e4-7f3a-4c61-9a0e-5b8f2e1c3d47';
  const OTHER = '0b7e9c2a-1d4f-4e8b-a6c3-2f5d7e9b1a08';
  const post = JSON.stringify({
    session_id: SESSION,
    hook_event_name: 'PostToolUse',
    tool_name: 'Bash',
    tool_use_id: 'toolu_1',
  });

  /** A fake hookwise that records its arguments and stdin; sh -c with only the given environment. */
  function run(env: Record<string, string>): { status: number | null; ran: string | undefined } {
    const box = sandbox();
    const bin = join(box.base, 'bin', 'hookwise');
    const log = join(box.base, 'ran');
    writeFileSync(bin, `#!/bin/sh\n{ echo "$*"; cat; } > '${log}'\n`);
    chmodSync(bin, 0o755);
    const r = spawnSync('/bin/sh', ['-c', learnCommand('hookwise', 'claude')], {
      input: post,
      env: { PATH: `${dirname(bin)}:/usr/bin:/bin`, ...env },
      encoding: 'utf8',
    });
    return { status: r.status, ran: existsSync(log) ? readFileSync(log, 'utf8') : undefined };
  }

  function note(runtimeDir: string, session: string): void {
    mkdirSync(sessionPendingDir(runtimeDir, session), { recursive: true });
    writeFileSync(join(sessionPendingDir(runtimeDir, session), 'n.json'), '{}');
  }

  it('no note: no hookwise process; this session’s note: hookwise check with the payload; another session’s note: none', () => {
    const rt = mkdtempSync(join(tmpdir(), 'hookwise-learn-cmd-'));
    cleanups.push(rt);
    expect(run({ HOOKWISE_RUNTIME_DIR: rt, CLAUDE_CODE_SESSION_ID: SESSION })).toEqual({ status: 0, ran: undefined });
    note(rt, OTHER);
    expect(run({ HOOKWISE_RUNTIME_DIR: rt, CLAUDE_CODE_SESSION_ID: SESSION })).toEqual({ status: 0, ran: undefined });
    note(rt, SESSION);
    expect(run({ HOOKWISE_RUNTIME_DIR: rt, CLAUDE_CODE_SESSION_ID: SESSION })).toEqual({
      status: 0,
      ran: `check --host claude\n${post}`,
    });
  });

  it('without CLAUDE_CODE_SESSION_ID (an older Claude Code), any session’s note starts it', () => {
    const rt = mkdtempSync(join(tmpdir(), 'hookwise-learn-cmd-'));
    cleanups.push(rt);
    expect(run({ HOOKWISE_RUNTIME_DIR: rt }).ran).toBeUndefined();
    note(rt, OTHER);
    expect(run({ HOOKWISE_RUNTIME_DIR: rt }).ran).toMatch(/^check --host claude\n/);
  });

  it.each([
    ['HOOKWISE_RUNTIME_DIR', (d: string) => ({ HOOKWISE_RUNTIME_DIR: join(d, 'rt'), HOME: join(d, 'home') })],
    ['XDG_RUNTIME_DIR', (d: string) => ({ XDG_RUNTIME_DIR: join(d, 'xdg-run'), HOME: join(d, 'home') })],
    ['XDG_CACHE_HOME', (d: string) => ({ XDG_CACHE_HOME: join(d, 'xdg-cache'), HOME: join(d, 'home') })],
    ['HOME', (d: string) => ({ HOME: join(d, 'home') })],
  ])('looks where hookwise keeps its notes (%s, as src/util/locations.ts resolves it)', (_name, envOf) => {
    const d = mkdtempSync(join(tmpdir(), 'hookwise-learn-cmd-'));
    cleanups.push(d);
    const env = envOf(d);
    note(locations(env).runtimeDir, SESSION);
    expect(run({ ...env, CLAUDE_CODE_SESSION_ID: SESSION }).ran).toMatch(/^check --host claude\n/);
  });
});
