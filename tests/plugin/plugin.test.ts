/**
 * The Claude Code plugin (plugin/), the Gemini CLI extension (plugin/gemini/) and the marketplace entry:
 * manifest shapes, and the hook wrapper's behaviour with and without the hookwise CLI on PATH.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { BUILT_IN_ROLES, ROLE_GROUPS } from '../../src/policy/defaults.js';
import { sessionPendingDir } from '../../src/memory/learn.js';
import { locations } from '../../src/util/locations.js';

const ROOT = join(import.meta.dirname, '..', '..');
const PLUGIN = join(ROOT, 'plugin');
const GEMINI = join(PLUGIN, 'gemini');
const WRAPPER = join(PLUGIN, 'bin', 'hookwise-hook');
const VERSION = (readJson(join(ROOT, 'package.json')) as { version: string }).version;

type Json = Record<string, unknown>;

function readJson(path: string): unknown {
  return JSON.parse(readFileSync(path, 'utf8')) as unknown;
}

interface Handler {
  type: string;
  command: string;
  args?: string[];
  timeout?: number;
  name?: string;
}
type HooksFile = { description?: string; hooks: Record<string, { matcher?: string; hooks: Handler[] }[]> };

// ── manifests ──────────────────────────────────────────────────────────────────────────────────────────

describe('Claude Code plugin manifest and marketplace', () => {
  it('plugin.json names the plugin, carries the package version, and leaves hooks/hooks.json to auto-discovery', () => {
    const manifest = readJson(join(PLUGIN, '.claude-plugin', 'plugin.json')) as Json;
    expect(manifest).toMatchObject({
      name: 'hookwise',
      version: VERSION,
      license: 'MIT',
      author: { name: expect.any(String) },
    });
    expect(manifest.description).toMatch(/npm install && npm install -g \./);
    // Declaring the standard hooks/hooks.json again makes Claude Code report a duplicate hooks file.
    expect(manifest).not.toHaveProperty('hooks');
  });

  it('marketplace.json at the repository root lists the plugin from ./plugin, at the package version', () => {
    const marketplace = readJson(join(ROOT, '.claude-plugin', 'marketplace.json')) as Json & { plugins: Json[] };
    expect(marketplace).toMatchObject({ name: 'hookwise', owner: { name: expect.any(String) } });
    expect(marketplace.plugins).toEqual([
      expect.objectContaining({ name: 'hookwise', source: './plugin', version: VERSION }),
    ]);
    expect(existsSync(join(ROOT, 'plugin', '.claude-plugin', 'plugin.json'))).toBe(true);
  });

  it('hooks.json: the gate on every tool, learning after it (synchronous: a one-shot run waits for it), the walls after a failed Bash call, the session check on prompts and start-up, all through the wrapper', () => {
    const { hooks } = readJson(join(PLUGIN, 'hooks', 'hooks.json')) as HooksFile;
    expect(Object.keys(hooks)).toEqual([
      'PreToolUse',
      'PostToolUse',
      'PostToolUseFailure',
      'UserPromptSubmit',
      'SessionStart',
    ]);
    const only = (event: string): { matcher?: string; handler: Handler } => {
      expect(hooks[event]).toHaveLength(1);
      expect(hooks[event]![0]!.hooks).toHaveLength(1);
      return { matcher: hooks[event]![0]!.matcher, handler: hooks[event]![0]!.hooks[0]! };
    };
    const wrapper = ['sh', '${CLAUDE_PLUGIN_ROOT}/bin/hookwise-hook'];
    expect(only('PreToolUse')).toEqual({
      matcher: '*',
      handler: { type: 'command', command: 'sh', args: [wrapper[1], 'check', '--host', 'claude'], timeout: 600 },
    });
    // PostToolUse records approvals given at Claude Code's prompt; async, so it never holds the agent up.
    expect(only('PostToolUse')).toEqual({
      matcher: '*',
      handler: { type: 'command', command: 'sh', args: [wrapper[1], 'learn', '--host', 'claude'], timeout: 30 },
    });
    // A confined Bash call that failed against the walls: learnt before the agent's next call (synchronous);
    // the wrapper starts no Node process unless hookwise left a note.
    expect(only('PostToolUseFailure')).toEqual({
      matcher: 'Bash',
      handler: { type: 'command', command: 'sh', args: [wrapper[1], 'learn', '--host', 'claude'], timeout: 30 },
    });
    expect(only('UserPromptSubmit')).toEqual({
      matcher: undefined,
      handler: { type: 'command', command: 'sh', args: [wrapper[1], 'session-check', '--host', 'claude'], timeout: 30 },
    });
    // SessionStart starts the daemon, so the session's first tool call finds it warm.
    expect(only('SessionStart')).toEqual({
      matcher: undefined,
      handler: {
        type: 'command',
        command: 'sh',
        args: [wrapper[1], 'session-check', '--host', 'claude', '--ensure-daemon'],
        timeout: 30,
      },
    });
  });

  const SKILLS: [string, RegExp, boolean][] = [
    ['register', /^\s*hookwise register --session-id \$\{CLAUDE_SESSION_ID\} --role <role>$/m, true],
    ['switch', /^\s*hookwise switch --session-id \$\{CLAUDE_SESSION_ID\} --role <role>$/m, false],
    ['disable', /^hookwise disable --session-id \$\{CLAUDE_SESSION_ID\}$/m, false],
    ['enable', /^hookwise enable --session-id \$\{CLAUDE_SESSION_ID\}$/m, true],
    ['status', /^hookwise status --session-id \$\{CLAUDE_SESSION_ID\}$/m, true],
  ];

  it('ships exactly the five session skills', () => {
    expect(readdirSync(join(PLUGIN, 'skills')).sort()).toEqual(SKILLS.map(([name]) => name).sort());
  });

  it.each(SKILLS)(
    'skill %s: frontmatter, and the CLI command with this session’s id',
    (name, command, modelMayInvoke) => {
      const text = readFileSync(join(PLUGIN, 'skills', name, 'SKILL.md'), 'utf8');
      const match = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(text);
      expect(match).not.toBeNull();
      const front = parseYaml(match![1]!) as Json;
      expect(front.name).toBe(name);
      expect(front.description).toEqual(expect.stringMatching(/hookwise/));
      // Widening or switching off its own gate is for the user to ask for, not for the model to decide.
      expect(front['disable-model-invocation'] === true).toBe(!modelMayInvoke);
      expect(match![2]).toMatch(command);
    },
  );

  it('register and switch list the built-in roles by group, and ask the user when no role was given', () => {
    const expected = ROLE_GROUPS.filter((g) => g !== 'custom').map(
      (group) =>
        `- ${group}: ${Object.entries(BUILT_IN_ROLES)
          .filter(([, r]) => r.group === group)
          .map(([n]) => n)
          .join(', ')}`,
    );
    for (const name of ['register', 'switch']) {
      const text = readFileSync(join(PLUGIN, 'skills', name, 'SKILL.md'), 'utf8');
      for (const line of expected) expect(text).toContain(line);
      expect(text).toMatch(/ask the user which role/i);
      expect(text).toContain('$ARGUMENTS');
    }
  });
});

describe('Gemini CLI extension (plugin/gemini)', () => {
  it('gemini-extension.json names the extension and carries the package version', () => {
    const manifest = readJson(join(GEMINI, 'gemini-extension.json')) as Json;
    expect(manifest).toMatchObject({ name: 'hookwise', version: VERSION });
    if (manifest.contextFileName !== undefined)
      expect(existsSync(join(GEMINI, manifest.contextFileName as string))).toBe(true);
  });

  it('hooks/hooks.json: {"hooks": …} with BeforeTool ".*", BeforeAgent and SessionStart, timeouts in milliseconds', () => {
    const file = readJson(join(GEMINI, 'hooks', 'hooks.json')) as HooksFile;
    expect(Object.keys(file)).toEqual(['hooks']);
    const { hooks } = file;
    expect(Object.keys(hooks)).toEqual(['BeforeTool', 'BeforeAgent', 'SessionStart']);
    expect(hooks.BeforeTool![0]!.matcher).toBe('.*');
    const command = (event: string): string => hooks[event]![0]!.hooks[0]!.command;
    expect(command('BeforeTool')).toBe('sh "${extensionPath}/bin/hookwise-hook" check --host gemini');
    expect(command('BeforeAgent')).toBe('sh "${extensionPath}/bin/hookwise-hook" session-check --host gemini');
    expect(command('SessionStart')).toBe('sh "${extensionPath}/bin/hookwise-hook" session-check --host gemini');
    for (const groups of Object.values(hooks)) {
      for (const handler of groups.flatMap((g) => g.hooks)) {
        expect(handler.type).toBe('command');
        expect(handler.name).toMatch(/^hookwise-/);
        expect(handler.timeout).toBeGreaterThanOrEqual(30_000);
      }
    }
  });

  it('is self-contained: `gemini extensions install` copies only this directory, so nothing may point outside it', () => {
    const text = readFileSync(join(GEMINI, 'hooks', 'hooks.json'), 'utf8');
    expect(text).not.toMatch(/\.\.\//);
    expect(statSync(join(GEMINI, 'bin', 'hookwise-hook')).mode & 0o111).not.toBe(0);
  });

  it('its wrapper is a byte-identical copy of plugin/bin/hookwise-hook', () => {
    expect(readFileSync(join(GEMINI, 'bin', 'hookwise-hook'), 'utf8')).toBe(readFileSync(WRAPPER, 'utf8'));
  });
});

// ── the wrapper ────────────────────────────────────────────────────────────────────────────────────────

const cleanups: string[] = [];
afterEach(() => {
  while (cleanups.length > 0) rmSync(cleanups.pop()!, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hookwise-plugin-'));
  cleanups.push(dir);
  return dir;
}

/** A stand-in `hookwise` that records its arguments, echoes stdin to stdout and exits with $FAKE_EXIT. */
function fakeHookwise(dir: string, name = 'hookwise'): { bin: string; argsFile: string } {
  const bin = join(dir, name);
  const argsFile = join(dir, `${name}.args`);
  writeFileSync(bin, `#!/bin/sh\nprintf '%s\\n' "$@" > '${argsFile}'\ncat\nexit "\${FAKE_EXIT:-0}"\n`);
  chmodSync(bin, 0o755);
  return { bin, argsFile };
}

function runWrapper(args: string[], options: { path: string; stdin?: string; env?: Record<string, string> }) {
  // Only PATH (and what the test adds): the wrapper must get by with sh builtins when hookwise is missing.
  return spawnSync('/bin/sh', [WRAPPER, ...args], {
    input: options.stdin ?? '',
    env: { PATH: options.path, ...options.env },
    encoding: 'utf8',
  });
}

const payload = (event: string, extra: Json = {}): string =>
  JSON.stringify({ session_id: 's-1', cwd: '/tmp', hook_event_name: event, ...extra });

describe('plugin/bin/hookwise-hook without the hookwise CLI', () => {
  it.each([
    ['Claude Code PreToolUse', 'claude', payload('PreToolUse', { tool_name: 'Bash', tool_input: { command: 'ls' } })],
    [
      'Gemini CLI BeforeTool',
      'gemini',
      payload('BeforeTool', { tool_name: 'run_shell_command', tool_input: { command: 'ls' } }),
    ],
  ])('%s: the gate blocks (exit 2) and says how to install the CLI', (_host, host, stdin) => {
    const result = runWrapper(['check', '--host', host], { path: tempDir(), stdin });
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /blocked because the hookwise CLI.*cannot be run: "hookwise" is not on the PATH.*npm install && npm install -g \./,
    );
  });

  it.each(['claude', 'gemini'])('SessionStart (%s): tells the user and the model, exit 0', (host) => {
    const result = runWrapper(['session-check', '--host', host], {
      path: tempDir(),
      stdin: payload('SessionStart', { source: 'startup' }),
    });
    expect(result.status).toBe(0);
    const out = JSON.parse(result.stdout) as { systemMessage: string; hookSpecificOutput: Json };
    expect(out.systemMessage).toMatch(/hookwise CLI was not found.*npm install && npm install -g \./);
    expect(out.hookSpecificOutput).toEqual({
      hookEventName: 'SessionStart',
      additionalContext: expect.stringMatching(/not installed.*npm install && npm install -g \./),
    });
  });

  it.each([
    ['UserPromptSubmit', payload('UserPromptSubmit', { prompt: 'say "hook_event_name":"SessionStart"' })],
    ['BeforeAgent', payload('BeforeAgent', { prompt: 'hi' })],
  ])('%s: a message for the user, and the prompt goes through (exit 0, no block)', (_event, stdin) => {
    const result = runWrapper(['session-check'], { path: tempDir(), stdin });
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      systemMessage: expect.stringMatching(/npm install && npm install -g \./),
    });
  });

  it('HOOKWISE_BIN that is not an executable file blocks and names the variable', () => {
    const result = runWrapper(['check'], { path: tempDir(), env: { HOOKWISE_BIN: '/nonexistent/hookwise' } });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('HOOKWISE_BIN=/nonexistent/hookwise is not an executable file');
  });

  it.each([[[]], [['post-check']]])(
    'a wrong first argument %j blocks (exit 2): a broken hook configuration must not fail open',
    (args) => {
      const result = runWrapper(args, { path: tempDir() });
      expect(result.status).toBe(2);
      expect(result.stderr).toMatch(/expects "check", "session-check" or "learn"/);
    },
  );
});

describe('plugin/bin/hookwise-hook with the hookwise CLI', () => {
  it.each([
    ['check', '--host', 'claude'],
    ['session-check', '--host', 'gemini'],
  ])('runs hookwise %s %s %s with the arguments and stdin unchanged, and passes its stdout on', (...args) => {
    const dir = tempDir();
    const fake = fakeHookwise(dir);
    const stdin = payload('PreToolUse', { tool_input: { command: "echo 'a b'" } });
    const result = runWrapper(args, { path: `${dir}:/usr/bin:/bin`, stdin });
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(stdin);
    expect(readFileSync(fake.argsFile, 'utf8')).toBe(`${args.join('\n')}\n`);
  });

  it('hookwise’s own block (exit 2) stays a block', () => {
    const dir = tempDir();
    fakeHookwise(dir);
    expect(runWrapper(['check'], { path: `${dir}:/usr/bin:/bin`, env: { FAKE_EXIT: '2' } }).status).toBe(2);
  });

  it.each(['1', '126', '127'])('a gate CLI that exits %s (crashed, or could not start) blocks with exit 2', (code) => {
    const dir = tempDir();
    fakeHookwise(dir);
    const result = runWrapper(['check', '--host', 'claude'], {
      path: `${dir}:/usr/bin:/bin`,
      env: { FAKE_EXIT: code },
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(
      `"hookwise check --host claude" exited with status ${code} instead of giving a decision`,
    );
  });

  it('session-check is handed over as is (its failure cannot open the gate, which blocks on its own)', () => {
    const dir = tempDir();
    fakeHookwise(dir);
    expect(runWrapper(['session-check'], { path: `${dir}:/usr/bin:/bin`, env: { FAKE_EXIT: '1' } }).status).toBe(1);
  });

  it('HOOKWISE_BIN wins over PATH', () => {
    const onPath = tempDir();
    const pinned = tempDir();
    const a = fakeHookwise(onPath);
    const b = fakeHookwise(pinned, 'hookwise-dev');
    const result = runWrapper(['check'], { path: `${onPath}:/usr/bin:/bin`, env: { HOOKWISE_BIN: b.bin } });
    expect(result.status).toBe(0);
    expect(existsSync(b.argsFile)).toBe(true);
    expect(existsSync(a.argsFile)).toBe(false);
  });

  it('needs nothing but sh: no external command on the way to hookwise', () => {
    // PATH holds only the fake: `cat` etc. are unavailable to the wrapper, yet it reaches hookwise.
    const dir = tempDir();
    mkdirSync(join(dir, 'only'));
    const fake = join(dir, 'only', 'hookwise');
    writeFileSync(fake, '#!/bin/sh\necho reached\n');
    chmodSync(fake, 0o755);
    const result = runWrapper(['check'], { path: join(dir, 'only') });
    expect([result.status, result.stdout]).toEqual([0, 'reached\n']);
  });
});

describe('plugin/bin/hookwise-hook learn (PostToolUse)', () => {
  const post = payload('PostToolUse', { tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 'toolu_1' });
  // Claude Code gives its hooks the session id as CLAUDE_CODE_SESSION_ID; notes are kept per session.
  const SESSION = 'd2c1b5e4-7f3a-4c61-9a0e-5b8f2e1c3d47';
  const OTHER = '0b7e9c2a-1d4f-4e8b-a6c3-2f5d7e9b1a08';
  const note = (runtime: string, session = SESSION): void => {
    // Where hookwise itself puts them (src/memory/learn.ts): the wrapper must look in the same place.
    mkdirSync(sessionPendingDir(runtime, session), { recursive: true });
    writeFileSync(join(sessionPendingDir(runtime, session), 'abc.json'), '{}');
  };

  it('starts no hookwise process when hookwise left no pending note (the usual case)', () => {
    const dir = tempDir();
    const fake = fakeHookwise(dir);
    const result = runWrapper(['learn', '--host', 'claude'], {
      path: `${dir}:/usr/bin:/bin`,
      stdin: post,
      env: { HOOKWISE_RUNTIME_DIR: join(dir, 'runtime'), CLAUDE_CODE_SESSION_ID: SESSION },
    });
    expect(result.status).toBe(0);
    expect(existsSync(fake.argsFile)).toBe(false);
  });

  it('hands the payload to hookwise check when a note is pending for this session', () => {
    const dir = tempDir();
    const fake = fakeHookwise(dir);
    note(join(dir, 'runtime'));
    const result = runWrapper(['learn', '--host', 'claude'], {
      path: `${dir}:/usr/bin:/bin`,
      stdin: post,
      env: { HOOKWISE_RUNTIME_DIR: join(dir, 'runtime'), CLAUDE_CODE_SESSION_ID: SESSION },
    });
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(post);
    expect(readFileSync(fake.argsFile, 'utf8')).toBe('check\n--host\nclaude\n');
  });

  it('a note another session left behind (a declined ask) starts no hookwise process in this one', () => {
    const dir = tempDir();
    const fake = fakeHookwise(dir);
    note(join(dir, 'runtime'), OTHER);
    mkdirSync(join(dir, 'runtime', 'pending', `s-${SESSION}`), { recursive: true }); // this session's, emptied
    const result = runWrapper(['learn', '--host', 'claude'], {
      path: `${dir}:/usr/bin:/bin`,
      stdin: post,
      env: { HOOKWISE_RUNTIME_DIR: join(dir, 'runtime'), CLAUDE_CODE_SESSION_ID: SESSION },
    });
    expect(result.status).toBe(0);
    expect(existsSync(fake.argsFile)).toBe(false);
  });

  it.each([
    ['unset (an older Claude Code)', undefined],
    ['not a UUID', 'not-a-uuid/../x'],
  ])('session id %s: any session’s note counts (the old cost, never a missed note)', (_what, id) => {
    const dir = tempDir();
    const fake = fakeHookwise(dir);
    note(join(dir, 'runtime'), OTHER);
    const env: Record<string, string> = {
      HOOKWISE_RUNTIME_DIR: join(dir, 'runtime'),
      ...(id === undefined ? {} : { CLAUDE_CODE_SESSION_ID: id }),
    };
    expect(runWrapper(['learn', '--host', 'claude'], { path: `${dir}:/usr/bin:/bin`, stdin: post, env }).status).toBe(
      0,
    );
    expect(existsSync(fake.argsFile)).toBe(true);
  });

  it.each([
    ['HOOKWISE_RUNTIME_DIR', (d: string) => ({ HOOKWISE_RUNTIME_DIR: join(d, 'rt') })],
    ['XDG_RUNTIME_DIR', (d: string) => ({ XDG_RUNTIME_DIR: join(d, 'xdg-run'), HOME: join(d, 'home') })],
    ['XDG_CACHE_HOME', (d: string) => ({ XDG_CACHE_HOME: join(d, 'xdg-cache'), HOME: join(d, 'home') })],
    ['HOME', (d: string) => ({ HOME: join(d, 'home') })],
  ])('finds the notes where hookwise keeps them (%s, as src/util/locations.ts resolves it)', (_name, envOf) => {
    const dir = tempDir();
    const fake = fakeHookwise(dir);
    const env = envOf(dir);
    note(locations(env).runtimeDir);
    expect(
      runWrapper(['learn'], {
        path: `${dir}:/usr/bin:/bin`,
        stdin: post,
        env: { ...env, CLAUDE_CODE_SESSION_ID: SESSION },
      }).status,
    ).toBe(0);
    expect(existsSync(fake.argsFile)).toBe(true);
  });

  it('without the CLI there is nothing to learn: exit 0, silently (the gate blocks the tool calls itself)', () => {
    const dir = tempDir();
    note(join(dir, 'runtime'));
    const result = runWrapper(['learn'], {
      path: tempDir(),
      stdin: post,
      env: { HOOKWISE_RUNTIME_DIR: join(dir, 'runtime'), CLAUDE_CODE_SESSION_ID: SESSION },
    });
    expect([result.status, result.stderr]).toEqual([0, '']);
  });
});
