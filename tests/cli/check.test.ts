import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { idStoreKey } from '../../src/sanitize/ids.js';
import { SessionRegistry } from '../../src/session/registry.js';
import { makeProject } from '../support/project.js';

describe('bad input fails closed with a message that says what and where', () => {
  it('malformed JSON: exit 2, reason on stderr, nothing on stdout', async () => {
    const p = makeProject();
    const r = await p.check('{"session_id": "s1", ');
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/hookwise: hook payload on stdin is not valid JSON/);
  });

  it('empty stdin', async () => {
    const r = await makeProject().check('   ');
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/no hook payload on stdin/);
  });

  it('a JSON array is not a payload', async () => {
    const r = await makeProject().check('[1,2]');
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/must be a JSON object/);
  });

  it('a PreToolUse payload missing tool_input gets a JSON deny naming the field', async () => {
    const p = makeProject();
    const payload = p.pre('Write', {});
    delete payload.tool_input;
    const r = await p.check(payload);
    expect(r.exitCode).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.hookSpecificOutput.permissionDecision).toBe('deny');
    expect(out.hookSpecificOutput.permissionDecisionReason).toMatch(/field "tool_input" must be an object/);
  });

  it('a Gemini BeforeTool payload missing tool_name gets a Gemini deny', async () => {
    const p = makeProject();
    const r = await p.check({
      session_id: 's',
      cwd: p.root,
      hook_event_name: 'BeforeTool',
      timestamp: 'now',
      tool_input: {},
    });
    expect(JSON.parse(r.stdout)).toMatchObject({ decision: 'deny' });
    expect(JSON.parse(r.stdout).reason).toMatch(/"tool_name"/);
  });

  it('an unknown event blocks via exit 2', async () => {
    const p = makeProject();
    const r = await p.check({
      session_id: 's',
      cwd: p.root,
      hook_event_name: 'PermissionRequest',
      tool_name: 'Bash',
      tool_input: {},
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/hook event "PermissionRequest" is not one hookwise handles/);
  });

  it('a broken config denies and names file and line', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    p.write('.hookwise/roles.yml', 'roles:\n  coder:\n    pathz: {}\n');
    const r = await p.check(p.pre('Write', { file_path: join(p.root, 'src/a.ts'), content: '' }));
    expect(r.decision?.verdict).toBe('deny');
    expect(r.decision?.reason).toMatch(/\.hookwise\/roles\.yml:3: error: roles\.coder\.pathz: unknown field/);
  });

  it('a broken config is re-read once fixed (the compiled cache follows the file)', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    const call = p.pre('Write', { file_path: join(p.root, 'app/a.ts'), content: '' });
    p.write('.hookwise/roles.yml', 'roles: [');
    expect((await p.check(call)).decision?.verdict).toBe('deny');
    p.write('.hookwise/roles.yml', 'roles:\n  coder:\n    paths:\n      allow_write: ["app/**"]\n');
    expect((await p.check(call)).decision?.verdict).toBe('allow');
  });

  it('an unreadable registry entry denies', async () => {
    const p = makeProject();
    mkdirSync(join(p.runtimeDir, 'sessions'), { recursive: true, mode: 0o700 });
    writeFileSync(new SessionRegistry(p.runtimeDir).fileFor('s1'), '{not json');
    const r = await p.check(p.pre('Read', { file_path: join(p.root, 'a') }));
    expect(r.decision?.verdict).toBe('deny');
    expect(r.decision?.reason).toMatch(/session registry file .*sessions\/s-[0-9a-f]{32}\.json is not valid JSON/);
  });

  it('a group- or world-writable runtime dir is made private (0700) before use', async () => {
    const p = makeProject();
    mkdirSync(p.runtimeDir, { mode: 0o777 });
    chmodSync(p.runtimeDir, 0o777);
    p.register('s1', 'coder');
    const r = await p.check(p.pre('Read', { file_path: join(p.root, 'a') }));
    expect(r.decision?.verdict).toBe('allow');
    const { statSync } = await import('node:fs');
    expect(statSync(p.runtimeDir).mode & 0o777).toBe(0o700);
  });

  it('a runtime dir that is a symlink is refused', async () => {
    const p = makeProject();
    const { symlinkSync } = await import('node:fs');
    mkdirSync(join(p.home, 'elsewhere'));
    symlinkSync(join(p.home, 'elsewhere'), p.runtimeDir);
    const r = await p.check(p.pre('Read', { file_path: join(p.root, 'a') }));
    expect(r.decision?.verdict).toBe('deny');
    expect(r.decision?.reason).toMatch(/must be a real directory, not a symlink/);
  });

  it('a registered role that no longer exists denies with the list of roles', async () => {
    const p = makeProject();
    p.register('s1', 'ghost');
    const r = await p.check(p.pre('Write', { file_path: join(p.root, 'src/a.ts'), content: '' }));
    expect(r.decision?.verdict).toBe('deny');
    expect(r.decision?.reason).toMatch(/"ghost", which is not a defined role/);
  });
});

describe("a confined command's mount points", () => {
  it('an empty read-only file where .hookwise/ would be (left until the clean-up runs) is no project config: calls are still decided', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    writeFileSync(join(p.root, '.hookwise'), '', { mode: 0o444 });
    expect((await p.check(p.pre('Bash', { command: 'ls' }))).decision).toMatchObject({ verdict: 'allow' });
    expect((await p.check(p.pre('Bash', { command: 'make x' }))).decision).toMatchObject({
      verdict: 'ask',
      tier: 'default',
    });
    expect(
      (await p.check(p.pre('Write', { file_path: join(p.root, 'src/a.ts'), content: '' }))).decision,
    ).toMatchObject({ verdict: 'allow' });
  });
});

describe('sessions gate the cascade', () => {
  it('an unregistered session waits, then is blocked with instructions', async () => {
    const p = makeProject();
    p.write('.hookwise/policy.yml', 'registration:\n  wait_ms: 300\n  poll_ms: 50\n');
    const started = Date.now();
    const r = await p.check(p.pre('Write', { file_path: join(p.root, 'src/a.ts'), content: '' }, 'new-session'));
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(r.decision?.verdict).toBe('deny');
    expect(r.decision?.reason).toMatch(/hookwise register --session-id new-session --role <role>/);
    expect(r.decision?.reason).toMatch(/implementation: coder, devops, integrator, tester/);
  });

  it("only a session's first call waits: later calls are answered at once, and a registration still counts", async () => {
    const p = makeProject();
    p.write('.hookwise/policy.yml', 'registration:\n  wait_ms: 400\n  poll_ms: 50\n');
    const call = () => p.check(p.pre('Bash', { command: 'git status' }, 'never-registers'));
    let started = Date.now();
    const first = await call();
    expect(Date.now() - started).toBeGreaterThanOrEqual(350);
    expect(first.decision?.reason).toContain('waited 400 ms for a registration');
    started = Date.now();
    const second = await call();
    expect(Date.now() - started).toBeLessThan(350);
    expect(second.decision).toMatchObject({ verdict: 'deny', rule: { id: 'session:unregistered' } });
    expect(second.decision?.reason).toContain('its first call already waited for a registration, so this one did not');
    p.register('never-registers', 'coder');
    expect((await call()).decision?.verdict).toBe('allow');
  });

  it('a registration that lands while the call waits is picked up', async () => {
    const p = makeProject();
    p.write('.hookwise/policy.yml', 'registration:\n  wait_ms: 3000\n  poll_ms: 50\n');
    // Register from another process while this one polls.
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, [
      '-e',
      `setTimeout(()=>{require('fs').mkdirSync(${JSON.stringify(join(p.runtimeDir, 'sessions'))},{recursive:true});require('fs').writeFileSync(${JSON.stringify(new SessionRegistry(p.runtimeDir).fileFor('late'))},JSON.stringify({session_id:'late',role:'coder',disabled:false,registered_at:'x',updated_at:'x',store_key:${JSON.stringify(idStoreKey('late'))}}))},300)`,
    ]);
    const exited = new Promise((resolve) => child.on('exit', resolve));
    const r = await p.check(p.pre('Write', { file_path: join(p.root, 'src/a.ts'), content: '' }, 'late'));
    await exited;
    expect(r.decision?.verdict).toBe('allow');
  });

  it('HOOKWISE_ROLE is the fallback for unregistered sessions', async () => {
    const p = makeProject();
    p.env.HOOKWISE_ROLE = 'tester';
    const r = await p.check(p.pre('Write', { file_path: join(p.root, 'src/a.ts'), content: '' }, 'ci-run'));
    expect(r.decision?.verdict).toBe('deny');
    expect(r.decision?.rule?.id).toBe('role:tester:deny_write:src/**');
  });

  it('an unknown role from HOOKWISE_ROLE is named as that variable, not as a registration', async () => {
    const p = makeProject();
    p.env.HOOKWISE_ROLE = 'testr';
    const r = await p.check(p.pre('Read', { file_path: join(p.root, 'a.ts') }, 'ci-run'));
    expect(r.decision).toMatchObject({
      verdict: 'deny',
      rule: { id: 'session:unknown-role', source: 'HOOKWISE_ROLE' },
    });
    expect(r.decision?.reason).toMatch(
      /^HOOKWISE_ROLE is "testr", which is not a defined role .*set HOOKWISE_ROLE to one of: .*tester/,
    );
    expect(r.decision?.reason).not.toMatch(/registered as/);
  });

  it('a disabled session is allowed without gating', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    const { setDisabledFor } = await import('../support/sessions.js');
    setDisabledFor(p, 's1', true);
    const r = await p.check(p.pre('Write', { file_path: join(p.root, '.env'), content: '' }));
    expect(r.decision).toMatchObject({ verdict: 'allow', tier: 'session' });
  });

  it('the session may register itself without waiting; a full-access role needs a human', async () => {
    const p = makeProject();
    const coder = await p.check(p.pre('Bash', { command: 'hookwise register --session-id s9 --role coder' }, 's9'));
    expect(coder.decision).toMatchObject({ verdict: 'allow', tier: 'session' });
    const maint = await p.check(
      p.pre('Bash', { command: 'hookwise register --session-id s9 --role maintainer' }, 's9'),
    );
    expect(maint.decision?.verdict).toBe('ask');
  });

  it.each([
    ['another session', 'hookwise register --session-id other --role coder'],
    ['shell syntax', 'hookwise register --session-id s9 --role coder && rm -rf /'],
    ['substitution', 'hookwise register --session-id s9 --role $(whoami)'],
    ['other subcommand', 'hookwise disable --session-id s9'],
    ['unknown role', 'hookwise register --session-id s9 --role wizard'],
  ])('no bootstrap for %s', async (_name, command) => {
    const p = makeProject();
    p.write('.hookwise/policy.yml', 'registration:\n  wait_ms: 0\n');
    const r = await p.check(p.pre('Bash', { command }, 's9'));
    expect(r.decision?.verdict).toBe('deny');
    expect(r.decision?.rule?.id).toBe('session:unregistered');
  });
});

describe('until later tiers exist, undecided calls ask', () => {
  it.each([
    ['Bash', { command: 'python3 build.py' }],
    ['WebFetch', { url: 'https://example.com', prompt: 'x' }],
    ['mcp__github__create_issue', { title: 'x' }],
  ])('%s → ask from the default tier', async (tool, input) => {
    const p = makeProject();
    p.register('s1', 'maintainer');
    const r = await p.check(p.pre(tool, input));
    expect(r.decision).toMatchObject({ verdict: 'ask', tier: 'default' });
  });

  it('side-effect-free tools are allowed', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    const r = await p.check(p.pre('TodoWrite', { todos: [] }));
    expect(r.decision).toMatchObject({ verdict: 'allow', tier: 'tool-policy' });
  });
});

describe('call text is never a path it is not, and no error path prints it raw', () => {
  // Built at run time: no literal token in the repository for scanners to trip on.
  const SECRET = ['ghp', '_', 'Zq7Xw2Lk9Mv4Np6Rt8Ys1Ua3Ob5Ic0Ed2Fg4H'].join('');
  /** An inline program of about `bytes` bytes that holds slashes, quotes and the planted secret. */
  const program = (bytes: number): string => {
    const line = 'x.readFileSync("/etc/hostname", "utf8");';
    return `const x = require("fs"); const t = "${SECRET}"; ${line.repeat(Math.ceil(bytes / line.length))}`;
  };

  it.each([4 * 1024, 64 * 1024])('a %d-byte `node -e` program is judged, not an internal error', async (bytes) => {
    const p = makeProject();
    p.register('s1', 'coder');
    const r = await p.check(p.pre('Bash', { command: `mkdir -p d && cd d && node -e '${program(bytes)}'` }));
    expect(r.decision?.tier).not.toBe('input');
    expect(r.decision?.rule?.id ?? '').not.toMatch(/^error:/);
    expect(r.decision?.verdict).toBe('ask');
    expect(r.stderr ?? '').toBe('');
    expect(r.stdout).not.toContain('ENAMETOOLONG');
  });

  it('a Write to a path too long for the file system asks and names why, cut short', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    const file = join(p.root, `${'a'.repeat(300)}/${'b'.repeat(5000)}.ts`);
    const r = await p.check(p.pre('Write', { file_path: file, content: 'x' }));
    expect(r.decision?.verdict).toBe('ask');
    expect(r.decision?.rule?.id).toBe('unknown-target:unresolvable');
    expect(r.decision?.reason).toMatch(/name is too long/);
    expect(r.decision!.reason.length).toBeLessThan(600);
  });

  it('a read through a loop of symbolic links asks instead of failing', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    const { symlinkSync } = await import('node:fs');
    symlinkSync('loop-b', join(p.root, 'loop-a'));
    symlinkSync('loop-a', join(p.root, 'loop-b'));
    const r = await p.check(p.pre('Bash', { command: 'cat loop-a/x' }));
    expect(r.decision?.verdict).toBe('ask');
    expect(r.decision?.reason).toMatch(/loop of symbolic links/);
  });

  it('an internal error that quotes the call is sanitized and cut on stderr, in the answer and in the audit log', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    const command = `node -e '${program(64 * 1024)}'`;
    const failing = {
      load: (): never => {
        throw new Error(`could not load memory for ${command}\nforged: line`);
      },
    };
    const r = await p.check(p.pre('Bash', { command }), undefined, { memory: failing });
    expect(r.decision?.verdict).toBe('deny');
    expect(r.decision?.rule?.id).toBe('error:INTERNAL');
    for (const text of [r.stderr ?? '', r.stdout, r.decision!.reason]) {
      expect(text).not.toContain(SECRET);
      expect(text.length).toBeLessThan(2000);
    }
    expect(r.stderr).toContain('<REDACTED>');
    expect(r.stderr!.trimEnd().split('\n')).toHaveLength(1);
    const { readFileSync } = await import('node:fs');
    expect(readFileSync(join(p.runtimeDir, 'audit.jsonl'), 'utf8')).not.toContain(SECRET);
  });
});
