import { spawn } from 'node:child_process';
import { buildSync } from 'esbuild';
import {
  chmodSync,
  chownSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { idFileKey, idStoreKey, shownId } from '../../src/sanitize/ids.js';
import { SessionRegistry } from '../../src/session/registry.js';
import { SharedSessions } from '../../src/store/fleet-share.js';
import { makeProject } from '../support/project.js';

const BIN = join(import.meta.dirname, '..', '..', 'dist', 'hookwise.cjs');

function hookwise(
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, cwd });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('session registry', () => {
  it('50 concurrent register processes leave 50 registrations', async () => {
    const p = makeProject();
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        hookwise(['register', '--session-id', `par-${i}`, '--role', i % 2 === 0 ? 'coder' : 'tester'], p.env, p.root),
      ),
    );
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    const { records, problems } = new SessionRegistry(p.runtimeDir).list();
    expect(problems).toEqual([]);
    expect(records).toHaveLength(50);
    for (let i = 0; i < 50; i++) {
      expect(records.find((r) => r.session_id === `par-${i}`)?.role).toBe(i % 2 === 0 ? 'coder' : 'tester');
    }
  }, 60_000);

  it('concurrent updates of one session serialize: no update is lost', async () => {
    const p = makeProject();
    const registry = new SessionRegistry(p.runtimeDir);
    registry.update('one', (_e, now) => ({
      session_id: 'one',
      role: 'coder',
      disabled: false,
      task: '',
      registered_at: now,
      updated_at: now,
    }));
    // Each process appends its id to `task` under the lock; a lost update would drop ids.
    const bundle = join(p.home, 'registry.cjs');
    buildSync({
      entryPoints: [join(import.meta.dirname, '../../src/session/registry.ts')],
      bundle: true,
      format: 'cjs',
      platform: 'node',
      outfile: bundle,
      logLevel: 'silent',
    });
    const script = (i: number) => `
      const { SessionRegistry } = require(${JSON.stringify(bundle)});
      new SessionRegistry(${JSON.stringify(p.runtimeDir)}).update('one', (e, now) => ({ ...e, task: (e.task || '') + ' ${i}', updated_at: now }));`;
    await Promise.all(
      Array.from(
        { length: 20 },
        (_, i) => new Promise((resolve) => spawn(process.execPath, ['-e', script(i)]).on('close', resolve)),
      ),
    );
    const ids = (registry.get('one')?.task ?? '')
      .trim()
      .split(' ')
      .map(Number)
      .sort((a, b) => a - b);
    expect(ids).toEqual(Array.from({ length: 20 }, (_, i) => i));
  }, 60_000);

  it('session ids with path characters cannot escape the registry directory', () => {
    const p = makeProject();
    const registry = new SessionRegistry(p.runtimeDir);
    const file = registry.fileFor('../../etc/passwd');
    expect(file.startsWith(registry.dir + '/')).toBe(true);
    expect(file).toMatch(/\/s-[0-9a-f]{32}\.json$/);
  });

  it('names every session file by the hash of its id, never by the id (an id may hold a secret)', () => {
    const p = makeProject();
    const registry = new SessionRegistry(p.runtimeDir);
    expect(registry.fileFor('plain-id')).toMatch(/\/s-[0-9a-f]{32}\.json$/);
    expect(registry.fileFor('plain-id')).not.toMatch(/plain-id/);
    expect(registry.fileFor('a')).not.toBe(registry.fileFor('b'));
  });

  it("a file under a session's name that holds another id's registration is not that session's", () => {
    const p = makeProject();
    const registry = new SessionRegistry(p.runtimeDir);
    registry.update('victim', (_e, now) => ({
      session_id: 'victim',
      role: 'admin',
      disabled: false,
      registered_at: now,
      updated_at: now,
    }));
    // As if 'intruder' hashed to the victim's file name: the record's whole SHA-256 says whose it is.
    renameSync(registry.fileFor('victim'), registry.fileFor('intruder'));
    expect(new SessionRegistry(p.runtimeDir).get('intruder')).toBeUndefined();
  });

  describe('registrations an older hookwise wrote under 64-bit names', () => {
    /** A registration as hookwise wrote it before: `s-<fnv1a64 of the id>.json`, no store key. */
    const legacy = (runtimeDir: string, id: string, record: object = {}): string => {
      const dir = join(runtimeDir, 'sessions');
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      chmodSync(dir, 0o700);
      const file = join(dir, `s-${idFileKey(id)}.json`);
      const body = { session_id: id, role: 'coder', disabled: false, registered_at: 'x', updated_at: 'x', ...record };
      writeFileSync(file, JSON.stringify(body), { mode: 0o600 });
      return file;
    };

    it('move to their new names with their store key when looked up, their rules file too; the old file goes', () => {
      const p = makeProject();
      const old = legacy(p.runtimeDir, 'sess-old-1');
      writeFileSync(old.replace(/\.json$/, '.rules.jsonl'), '', { mode: 0o600 });
      legacy(p.runtimeDir, 'sess-old-2', { role: 'reviewer' });
      const registry = new SessionRegistry(p.runtimeDir);
      expect(registry.get('sess-old-1')).toMatchObject({ role: 'coder', store_key: idStoreKey('sess-old-1') });
      // One lookup upgrades the directory: the other session's file moved as well.
      const names = readdirSync(registry.dir).filter((n) => !n.endsWith('.lock'));
      expect(names.sort()).toEqual(
        [
          registry.fileFor('sess-old-1'),
          registry.fileFor('sess-old-1').replace(/\.json$/, '.rules.jsonl'),
          registry.fileFor('sess-old-2'),
        ]
          .map((f) => f.slice(registry.dir.length + 1))
          .sort(),
      );
      expect(registry.get('sess-old-2')?.role).toBe('reviewer');
      expect(registry.list()).toMatchObject({ problems: [] });
    });

    it('are vouched for by their own id, not by the id that finds them: a colliding id claims nothing', () => {
      const p = makeProject();
      // The victim's registration under the name 'intruder' hashes to (as if the 64-bit names collided).
      const planted = join(p.runtimeDir, 'sessions', `s-${idFileKey('intruder')}.json`);
      renameSync(legacy(p.runtimeDir, 'victim', { role: 'admin' }), planted);
      const registry = new SessionRegistry(p.runtimeDir);
      expect(registry.get('intruder')).toBeUndefined();
      expect(registry.get('victim')).toBeUndefined(); // its file is not under its name: register again
      expect(registry.list().problems).toEqual([expect.stringMatching(/register that session again/)]);
    });

    it('whose id was stored cut (too long to show) stay unknown, and say so: those sessions register again', () => {
      const p = makeProject();
      const long = `long-${'x'.repeat(200)}`;
      legacy(p.runtimeDir, long, { session_id: shownId(long) });
      const registry = new SessionRegistry(p.runtimeDir);
      expect(registry.get(long)).toBeUndefined();
      expect(registry.upgradeLegacy()).toMatchObject({ upgraded: 0, left: [`s-${idFileKey(long)}.json`] });
    });

    it('are upgraded before an update of the same session (which takes the same lock)', () => {
      const p = makeProject();
      legacy(p.runtimeDir, 'sess-3', { role: 'coder', registered_at: '2026-01-01T00:00:00.000Z' });
      const registry = new SessionRegistry(p.runtimeDir);
      const next = registry.update('sess-3', (existing, now) => ({ ...existing!, role: 'docs', updated_at: now }));
      expect(next).toMatchObject({ role: 'docs', registered_at: '2026-01-01T00:00:00.000Z' });
      expect(registry.get('sess-3')?.role).toBe('docs');
    });
  });

  it('files are private (0600) in a private directory (0700)', async () => {
    const p = makeProject();
    await hookwise(['register', '--session-id', 'x', '--role', 'coder'], p.env, p.root);
    const { statSync } = await import('node:fs');
    expect(statSync(p.runtimeDir).mode & 0o777).toBe(0o700);
    expect(statSync(new SessionRegistry(p.runtimeDir).fileFor('x')).mode & 0o777).toBe(0o600);
  });
});

describe('session commands', () => {
  it('register, switch, disable, enable, status', async () => {
    const p = makeProject();
    const run = (...args: string[]) => hookwise(args, p.env, p.root);
    expect(
      (await run('register', '--session-id', 'a1', '--role', 'coder', '--task', 'auth', '--team', 'red')).stdout,
    ).toMatch(/registered as coder \(team red\)/);
    expect((await run('switch', '--session-id', 'a1', '--role', 'tester')).stdout).toMatch(
      /switched from coder to tester/,
    );
    expect((await run('disable', '--session-id', 'a1')).stdout).toMatch(/gating disabled/);
    const status = JSON.parse((await run('status', '--json')).stdout);
    expect(status.sessions[0]).toMatchObject({
      session_id: 'a1',
      role: 'tester',
      disabled: true,
      task: 'auth',
      team: 'red',
    });
    expect((await run('enable', '--session-id', 'a1')).stdout).toMatch(/gating enabled .*tester/);
    const one = await run('status', '--session-id', 'a1');
    expect(one.stdout).toMatch(/a1: role tester/);
    expect(one.stdout).toMatch(/may not write: .*src\/\*\*/);
  }, 30_000);

  it('an unknown role is refused with the list of roles', async () => {
    const p = makeProject();
    const r = await hookwise(['register', '--session-id', 'a1', '--role', 'wizard'], p.env, p.root);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/unknown role "wizard"/);
    expect(r.stderr).toMatch(/knowledge: architect, docs, planner, researcher, reviewer, security-reviewer/);
  });
});

describe('a runtime directory with planted files', () => {
  const asRoot = process.getuid?.() === 0;
  const planted = (p: ReturnType<typeof makeProject>, id: string): string => {
    const registry = new SessionRegistry(p.runtimeDir);
    mkdirSync(registry.dir, { recursive: true, mode: 0o700 });
    const file = registry.fileFor(id);
    writeFileSync(
      file,
      JSON.stringify({
        session_id: id,
        role: 'maintainer',
        disabled: true,
        registered_at: 'x',
        updated_at: 'x',
        store_key: idStoreKey(id),
      }),
      { mode: 0o600 },
    );
    return file;
  };

  it.skipIf(!asRoot)(
    'a session file owned by another user is refused, and the call is denied, not allowed',
    async () => {
      const p = makeProject();
      chownSync(planted(p, 's-foreign'), 4242, 4242);
      expect(() => new SessionRegistry(p.runtimeDir).get('s-foreign')).toThrow(/belongs to uid 4242/);
      const r = await p.check(p.pre('Bash', { command: 'rm -rf ~/important' }, 's-foreign'));
      expect(r.stdout).toMatch(/"permissionDecision":"deny"/);
      expect(r.stdout).toMatch(/belongs to uid 4242/);
    },
  );

  it.skipIf(!asRoot)('a sessions directory owned by another user is refused', () => {
    const p = makeProject();
    const file = planted(p, 's-dir');
    chownSync(dirname(file), 4242, 4242);
    expect(() => new SessionRegistry(p.runtimeDir).get('s-dir')).toThrow(/belongs to uid 4242/);
  });

  it('a session file others may write is refused', async () => {
    const p = makeProject();
    chmodSync(planted(p, 's-open'), 0o666);
    expect(() => new SessionRegistry(p.runtimeDir).get('s-open')).toThrow(/writable by others/);
    const r = await p.check(p.pre('Bash', { command: 'rm -rf ~/important' }, 's-open'));
    expect(r.stdout).toMatch(/"permissionDecision":"deny"/);
  });

  it('a symlink at a session file is never followed', () => {
    const p = makeProject();
    const file = planted(p, 's-link');
    const target = join(p.home, 'elsewhere.json');
    renameSync(file, target);
    symlinkSync(target, file);
    expect(() => new SessionRegistry(p.runtimeDir).get('s-link')).toThrow(/symbolic link/);
  });

  it('a sessions directory others could enter is made private before it is used', () => {
    const p = makeProject();
    const file = planted(p, 's-mode');
    chmodSync(dirname(file), 0o777);
    expect(new SessionRegistry(p.runtimeDir).get('s-mode')?.role).toBe('maintainer');
    expect(statSync(dirname(file)).mode & 0o777).toBe(0o700);
  });
});

describe('untrusted session ids', () => {
  const SECRET = 'ghp_16C7e42F292c6912E7710c838347Ae178B4a';

  it('a secret in a session id names no file and is written nowhere', async () => {
    const p = makeProject();
    const run = (...args: string[]) => hookwise(args, p.env, p.root);
    expect(
      (await run('register', '--session-id', SECRET, '--role', 'coder', '--task', `deploy with ${SECRET}`)).code,
    ).toBe(0);
    // decided, learned, audited: every file hookwise writes for a session
    const call = { ...p.pre('Bash', { command: 'make deploy-x' }, SECRET), tool_use_id: `toolu_${SECRET}` };
    expect((await p.check(call)).stdout).toMatch(/"permissionDecision":"ask"/);
    expect(listFiles(join(p.runtimeDir, 'pending'))).toHaveLength(1);
    await p.check({ ...call, hook_event_name: 'PostToolUse', tool_response: { stdout: '' } });
    expect(readFileSync(join(p.configDir, 'user', 'rules.jsonl'), 'utf8')).toMatch(/make deploy-x/); // learned
    const written = listFiles(dirname(p.root));
    expect(written.length).toBeGreaterThan(2);
    for (const file of written) {
      expect(file).not.toContain(SECRET);
      expect(readFileSync(file, 'latin1'), file).not.toContain(SECRET);
    }
    // and the session still works: registered, its role applies
    expect(new SessionRegistry(p.runtimeDir).get(SECRET)).toMatchObject({ role: 'coder', session_id: '<REDACTED>' });
  }, 30_000);
});

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((d) => d.isFile())
    .map((d) => join(d.parentPath, d.name));
}

describe("a team's registrations (held in a daemon's memory: store/fleet-share.ts)", () => {
  /** A row as the store holds it (store/fleet-rows.ts SessionRow). */
  const record = (role: string | null, disabled: boolean, updated: string, storeKey: string) => ({
    session_key: storeKey,
    shown_id: 'shown',
    role,
    disabled,
    task: null,
    team: null,
    registered_at: '2026-01-01T00:00:00.000Z',
    updated_at: updated,
  });

  it('a session with no file here is looked up in them; this machine’s own file wins; disabled elsewhere is unknown here', () => {
    const p = makeProject();
    const shared = new SharedSessions();
    const registry = new SessionRegistry(p.runtimeDir, shared);
    shared.hold(record('reviewer', false, '2026-01-01T00:00:01.000Z', idStoreKey('remote-1')));
    shared.hold(record('coder', true, '2026-01-01T00:00:01.000Z', idStoreKey('remote-2')));
    shared.hold(record('coder', false, '2026-01-01T00:00:01.000Z', idStoreKey('both')));
    expect(registry.get('remote-1')?.role).toBe('reviewer');
    expect(registry.get('remote-2')).toBeUndefined();
    expect(registry.get('nobody')).toBeUndefined();
    const written = registry.update('both', (_e, now) => ({
      session_id: 'both',
      role: 'docs',
      disabled: false,
      registered_at: now,
      updated_at: now,
    }));
    // Every registration carries the key a team's store knows it by: a SHA-256, not the id.
    expect(written.store_key).toBe(idStoreKey('both'));
    expect(written.store_key).toMatch(/^[0-9a-f]{64}$/);
    expect(registry.get('both')?.role).toBe('docs');
    // An older update never replaces a newer one.
    expect(shared.hold(record('coder', false, '2026-01-01T00:00:00.500Z', idStoreKey('remote-1')))).toBe(false);
    expect(registry.get('remote-1')?.role).toBe('reviewer');
    // Checked when first used: a row whose role is not a name is never a registration.
    shared.hold(record('coder; rm -rf /', false, '2026-01-01T00:00:01.000Z', idStoreKey('bad-role')));
    expect(registry.get('bad-role')).toBeUndefined();
  });
});
