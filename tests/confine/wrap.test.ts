/**
 * Wrapping: the mount plan on real directories (no bubblewrap needed), and the command string, run through
 * a stand-in for bubblewrap that only drops its options, so that quoting is tested on any machine: the
 * wrapped command must do exactly what the command does unwrapped.
 */
import { chmodSync, linkSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeBox, runShell, type ConfineBox } from '../../bench/confine-box.js';
import { buildEnvelope, DEFAULT_CONFINE_SETTINGS, type ConfineSettings } from '../../src/confine/envelope.js';
import { planMounts, renderCommand, wrapCommand, type ConfineRuntime, type MountPlan } from '../../src/confine/wrap.js';

const boxes: ConfineBox[] = [];
afterEach(() => {
  while (boxes.length > 0) boxes.pop()!.cleanup();
});
function box(settings?: Partial<ConfineSettings>): ConfineBox {
  const b = makeBox(
    undefined,
    settings === undefined ? {} : { settings: { ...DEFAULT_CONFINE_SETTINGS, ...settings } },
  );
  boxes.push(b);
  return b;
}
function plan(b: ConfineBox, settings?: Partial<ConfineSettings>): MountPlan {
  const envelope = buildEnvelope({
    projectRoot: b.project,
    tempDir: b.tmp,
    home: b.home,
    runtimeDir: b.runtimeDir,
    settings: { ...DEFAULT_CONFINE_SETTINGS, ...settings },
  });
  const r = planMounts(envelope);
  if (!r.ok) throw new Error(r.reason);
  return r.plan;
}
function refusal(b: ConfineBox, settings?: Partial<ConfineSettings>): string {
  const envelope = buildEnvelope({
    projectRoot: b.project,
    tempDir: b.tmp,
    home: b.home,
    runtimeDir: b.runtimeDir,
    settings: { ...DEFAULT_CONFINE_SETTINGS, ...settings },
  });
  const r = planMounts(envelope);
  return r.ok ? 'planned' : r.reason;
}
const mount = (op: string, path: string) => ({ op, path });

describe('planMounts', () => {
  it('binds the writable roots, keeps all of .git read-only (hooks, config, objects, the undo ref) and stubs what does not exist yet', () => {
    const b = box();
    const p = plan(b);
    expect(p.writable).toEqual([b.project, b.tmp]);
    expect(p.mounts).toEqual(
      expect.arrayContaining([
        mount('bind', b.project),
        mount('bind', b.tmp),
        mount('ro-bind', join(b.project, '.git')),
        mount('ro-bind', join(b.project, '.hookwise')),
        mount('stub', join(b.project, '.mcp.json')),
        mount('stub', join(b.project, '.claude')),
        mount('hide-dir', join(b.home, '.ssh')),
        mount('hide-dir', join(b.home, '.aws')),
        mount('hide-file', join(b.home, '.netrc')),
        mount('hide-file', join(b.project, '.env')),
        mount('hide-file', join(b.project, 'packages/api/.env.local')),
        mount('hide-dir', b.runtimeDir),
      ]),
    );
    expect(p.stubs).toContain(join(b.project, '.mcp.json'));
    // A hidden file is not also bound read-only, and the template stays a plain read-only file.
    expect(p.mounts.filter((m) => m.path === join(b.project, '.env'))).toHaveLength(1);
    expect(p.mounts).toContainEqual(mount('ro-bind', join(b.project, '.env.example')));
    // Parents before children.
    const at = (path: string) => p.mounts.findIndex((m) => m.path === path);
    expect(at(b.project)).toBeLessThan(at(join(b.project, '.git')));
    // What the read-only .git covers is not mounted again (a pin inside it would make it writable).
    expect(p.mounts.filter((m) => m.path.startsWith(join(b.project, '.git') + '/'))).toEqual([]);
  });

  it('stubs a protected path at its first missing directory', () => {
    const b = box();
    mkdirSync(join(b.project, '.vscode'));
    const p = plan(b);
    expect(p.mounts).toContainEqual(mount('bind', join(b.project, '.vscode')));
    expect(p.mounts).toContainEqual(mount('stub', join(b.project, '.vscode/tasks.json')));
  });

  it('treats an empty read-only file left by an earlier run as absent: stubbed and removed again', () => {
    const b = box();
    b.put('project/.mcp.json', '', 0o444);
    expect(plan(b).stubs).toContain(join(b.project, '.mcp.json'));
    chmodSync(join(b.project, '.mcp.json'), 0o644); // the user's own empty file: kept, bound read-only
    expect(plan(b).mounts).toContainEqual(mount('ro-bind', join(b.project, '.mcp.json')));
  });

  it('a worktree: the .git file itself is read-only', () => {
    const b = box();
    const wt = join(b.base, 'wt');
    mkdirSync(wt);
    writeFileSync(join(wt, '.git'), 'gitdir: /elsewhere\n');
    const r = planMounts(buildEnvelope({ projectRoot: wt, tempDir: b.tmp, home: b.home, runtimeDir: b.runtimeDir }));
    expect(r.ok && r.plan.mounts).toContainEqual(mount('ro-bind', join(wt, '.git')));
  });

  it('finds protected names deeper in the project: a nested repository, an MCP config', () => {
    const b = box();
    b.put('project/vendor/lib/.git/hooks/post-checkout', '#!/bin/sh\n');
    b.put('project/vendor/lib/.git/config', '[core]\n');
    b.put('project/tools/.mcp.json', '{}');
    const p = plan(b);
    expect(p.mounts).toEqual(
      expect.arrayContaining([
        mount('bind', join(b.project, 'vendor/lib/.git')),
        mount('ro-bind', join(b.project, 'vendor/lib/.git/hooks')),
        mount('ro-bind', join(b.project, 'vendor/lib/.git/config')),
        mount('ro-bind', join(b.project, 'tools/.mcp.json')),
      ]),
    );
  });

  it("keeps git's core.hooksPath directory read-only, the repository's and the user's", () => {
    const b = box();
    b.put('project/.git/config', '[core]\n\trepositoryformatversion = 0\n\thooksPath = .githooks ; team hooks\n');
    b.put('project/.githooks/pre-commit', '#!/bin/sh\n');
    b.put('home/.gitconfig', '[core]\n  hooksPath = "~/hooks"\n[alias]\n  hookspath = x\n');
    const p = plan(b);
    expect(p.mounts).toContainEqual(mount('ro-bind', join(b.project, '.githooks')));
    expect(p.mounts.map((m) => m.path)).not.toContain(join(b.home, 'hooks')); // home is read-only anyway
  });

  it('fails closed on a symbolic link on the way to a protected path (no mount can pin a link)', () => {
    const b = box();
    mkdirSync(join(b.project, 'shared'));
    symlinkSync(join(b.project, 'shared'), join(b.project, '.claude'));
    expect(refusal(b)).toMatch(/\.claude is a symbolic link/);
  });

  it('fails closed on a protected file with another hard link', () => {
    const b = box();
    linkSync(join(b.project, '.git/config'), join(b.project, 'cfg'));
    expect(refusal(b)).toMatch(/hard links/);
  });

  it("git's object files may have other links (a clone of a local path hard-links them): still confinable", () => {
    const b = box();
    b.put('project/.git/objects/ab/cdef0123', 'object');
    b.put('outside/other-repo/objects/ab/cdef0123', '');
    rmSync(join(b.outside, 'other-repo/objects/ab/cdef0123'));
    linkSync(join(b.project, '.git/objects/ab/cdef0123'), join(b.outside, 'other-repo/objects/ab/cdef0123'));
    expect(refusal(b)).toBe('planned');
  });

  it('fails closed past the scan limit', () => {
    const b = box();
    for (let i = 0; i < 30; i++) b.put(`project/many/f${i}`, '');
    expect(refusal(b, { scan: { ...DEFAULT_CONFINE_SETTINGS.scan, maxEntries: 20 } })).toMatch(/more than 20 entries/);
  });

  it('fails closed when a writable root lies inside a hidden one', () => {
    const b = box();
    expect(refusal(b, { extraWritable: [join(b.runtimeDir)] })).toMatch(/inside the hidden/);
  });

  it('a role writing only docs/: nothing else is bound writable, nothing else pinned', () => {
    const b = box();
    mkdirSync(join(b.project, 'docs'));
    const p = plan(b, { projectWrites: ['docs'] });
    expect(p.writable).toEqual([join(b.project, 'docs'), b.tmp]);
    expect(p.mounts.filter((m) => m.op === 'bind').map((m) => m.path)).toEqual([b.tmp, join(b.project, 'docs')]);
  });

  it('a private temp dir is an empty tmpfs', () => {
    const b = box();
    const p = plan(b, { temp: 'private' });
    expect(p.mounts).toContainEqual(mount('tmpfs', b.tmp));
    expect(p.mounts).not.toContainEqual(mount('bind', b.tmp));
  });

  it('a network allowlist is refused until the filtering proxy exists', () => {
    const b = box({ network: { allow: ['registry.npmjs.org'] } });
    expect(wrapCommand(b.envelope, 'npm ci', standIn(b))).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/filtering proxy/),
    });
  });
});

/** A bubblewrap that drops its options and runs the command: the quoting, without the walls. */
function standIn(b: ConfineBox): ConfineRuntime {
  const fake = b.put(
    'bin/bwrap',
    '#!/bin/sh\nwhile [ "$#" -gt 0 ] && [ "$1" != "--" ]; do shift; done\nshift\nexec "$@"\n',
    0o755,
  );
  return { bwrap: fake, shell: '/bin/bash', lockFile: join(b.runtimeDir, 'confine.lock'), arch: 'x64', userns: true };
}

describe('renderCommand', () => {
  const hostile = [
    `echo "it's" 'single'"double"`,
    'echo $(echo sub) `echo tick` $((1+2))',
    `printf '%s|' "a b" 'c\\'d' "e\\"f" 'g\\\\h'; echo`,
    'echo one\necho two\nif true; then\n  echo three\nfi',
    "cat <<'EOF'\n$HOME 'q' \"dq\" `x`\nEOF",
    'echo "$#" "$0" "$@"',
    `x='; rm -rf / #'; echo "$x"`,
    "echo 'héllo ✓' $'tab\\there'",
    "echo '\\' \\\\ '\\''",
    'for i in 1 2; do echo "n$i"; done | tac',
    'f() { echo "fn:$1"; }; f \'arg with spaces\'',
    "echo '}' ')' ';' '&&' '|' \"'\" '\"'",
    'exit 7',
  ];
  it.each(hostile)('runs %j exactly as bash -c would', async (command) => {
    const b = box();
    const wrapped = wrapCommand(b.envelope, command, standIn(b));
    if (!wrapped.ok) throw new Error(wrapped.reason);
    const direct = await runShell(command, { cwd: b.project, env: b.env, timeoutMs: 10_000 });
    const confined = await runShell(wrapped.command, { cwd: b.project, env: b.env, timeoutMs: 10_000 });
    expect(confined.stdout).toBe(direct.stdout);
    expect(confined.status).toBe(direct.status);
  });

  it('passes stdin through', async () => {
    const b = box();
    const wrapped = wrapCommand(b.envelope, 'tr a-z A-Z', standIn(b));
    const r = await runShell(wrapped.ok ? wrapped.command : 'false', {
      cwd: b.project,
      env: b.env,
      timeoutMs: 10_000,
      input: 'hello\n',
    });
    expect(r.stdout).toBe('HELLO\n');
  });

  it('refuses what one shell argument cannot carry', () => {
    const b = box();
    const p = plan(b);
    expect(renderCommand(p, 'echo \0', standIn(b))).toMatchObject({ ok: false, reason: expect.stringMatching(/NUL/) });
    expect(renderCommand(p, `echo ${'x'.repeat(200_000)}`, standIn(b))).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/bytes/),
    });
  });

  it('names bubblewrap, the lock and the clean-up by absolute path', () => {
    const b = box();
    const r = renderCommand(plan(b), 'true', {
      ...standIn(b),
      bwrap: '/usr/bin/bwrap',
      flock: '/usr/bin/flock',
      find: '/usr/bin/find',
    });
    expect(r.ok && r.command).toMatch(/^\/bin\/sh -c '/);
    expect(r.ok && r.command).toContain("'\\''/usr/bin/flock'\\'' '\\''-s'\\''");
    expect(r.ok && r.command).toContain("'\\''--seccomp'\\'' '\\''3'\\''");
    expect(r.ok && r.command).toContain('-delete');
  });
});
