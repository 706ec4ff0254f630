/**
 * The compiled policy cache and the reading of config files under faults: a planted or damaged cache, an
 * empty or cut-short config file, and a config rewritten in place (as editors save) while calls are checked.
 */
import { spawn } from 'node:child_process';
import { chownSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HookwiseError } from '../../src/core/errors.js';
import { cacheChecksum, loadPolicy, policyCachePath } from '../../src/policy/load.js';
import { locations } from '../../src/util/locations.js';
import { makeProject, type TestProject } from '../support/project.js';

const DENY_GIT_STATUS =
  'bash_rules:\n  - command: git\n    args: "^status"\n    verdict: deny\n    reason: not today\n';

function setup(): { p: TestProject; status: () => Promise<string | undefined> } {
  const p = makeProject();
  p.register('s1', 'coder');
  p.write('.hookwise/policy.yml', DENY_GIT_STATUS);
  const status = async (): Promise<string | undefined> =>
    (await p.check(p.pre('Bash', { command: 'git status' }))).decision?.verdict;
  return { p, status };
}

/** The cached policy's JSON without its bash rules: git status would be allowed. */
function permissive(body: string): string {
  const policy = JSON.parse(body) as { rules: { bash: unknown[] } };
  expect(policy.rules.bash).toHaveLength(1);
  return JSON.stringify({ ...policy, rules: { ...policy.rules, bash: [] } });
}

/** A cache file's header line and (first copy of its) body. */
function parts(file: string): { header: string; body: string } {
  const text = readFileSync(file, 'utf8');
  const header = text.slice(0, text.indexOf('\n'));
  const rest = text.slice(header.length + 1);
  const body = rest.slice(0, (rest.length - 1) / 2);
  expect(`${body}\n${body}`).toBe(rest);
  return { header, body };
}

const salt = (p: TestProject): string => readFileSync(join(p.runtimeDir, 'cache', 'salt'), 'latin1').trim();
const cacheFile = (p: TestProject): string => policyCachePath(p.root, locations(p.env), salt(p));

describe('the compiled policy cache', () => {
  it('is named by a per-user salt: no file name in the cache directory can be predicted', async () => {
    const { p, status } = setup();
    expect(await status()).toBe('deny');
    expect(salt(p)).toMatch(/^[0-9a-f]{64}$/);
    const names = readdirSync(join(p.runtimeDir, 'cache')).filter((n) => n.startsWith('policy-'));
    expect(names.map((n) => join(p.runtimeDir, 'cache', n))).toEqual([cacheFile(p)]);
  });

  it('a cache whose body copies differ (damaged, or one copy edited) is rebuilt, never used', async () => {
    const { p, status } = setup();
    expect(await status()).toBe('deny');
    const file = cacheFile(p);
    const { header, body } = parts(file);
    // The first copy edited to a cache with no rules at all, so git status would be allowed.
    writeFileSync(file, `${header}\n${permissive(body)}\n${body}`, { mode: 0o600 });
    expect(await status()).toBe('deny');
    // One flipped bit anywhere.
    for (const at of [20, header.length + 50, readFileSync(file).length - 10]) {
      const bytes = readFileSync(file);
      bytes[at]! ^= 0x01;
      writeFileSync(file, bytes, { mode: 0o600 });
      expect(await status(), `bit flipped at ${at}`).toBe('deny');
      expect(readFileSync(file).equals(bytes)).toBe(false); // rebuilt whole
    }
  });

  it('a cache made with another salt (copied from another user or machine) is not used', async () => {
    const { p, status } = setup();
    expect(await status()).toBe('deny');
    const file = cacheFile(p);
    const { header, body } = parts(file);
    const loose = permissive(body);
    const key = (JSON.parse(header) as { key: string }).key;
    writeFileSync(
      file,
      `${JSON.stringify({ ...JSON.parse(header), sum: cacheChecksum('0'.repeat(64), key) })}\n${loose}\n${loose}`,
      { mode: 0o600 },
    );
    expect(await status()).toBe('deny');
  });

  it.skipIf(process.getuid?.() !== 0)(
    'a cache file owned by another user is never read, even when whole and salted right',
    async () => {
      const { p, status } = setup();
      expect(await status()).toBe('deny');
      const file = cacheFile(p);
      const { header, body } = parts(file);
      const loose = permissive(body);
      writeFileSync(file, `${header}\n${loose}\n${loose}`, { mode: 0o600 });
      chownSync(file, 4242, 4242);
      expect(await status()).toBe('deny');
    },
  );
});

describe('config files read while they change', () => {
  it('an empty policy file is refused with a message, not compiled as "no policy"', async () => {
    const { p, status } = setup();
    expect(await status()).toBe('deny');
    p.write('.hookwise/policy.yml', '');
    const r = await p.check(p.pre('Bash', { command: 'git status' }));
    expect(r.decision?.verdict).toBe('deny');
    expect(r.stdout).toMatch(/policy\.yml is empty/);
    await expect(loadPolicy(p.root, locations(p.env))).rejects.toThrow(HookwiseError);
  });

  it('a policy file cut short of the version last compiled is refused', async () => {
    const { p } = setup();
    await loadPolicy(p.root, locations(p.env));
    p.write('.hookwise/policy.yml', DENY_GIT_STATUS.slice(0, 30)); // "bash_rules:\n  - command: git\n  …" (valid YAML, no rule)
    await expect(loadPolicy(p.root, locations(p.env))).rejects.toThrow(/looks cut short/);
    // A shorter file that was saved whole (ends with a newline) is simply the new policy.
    p.write('.hookwise/policy.yml', 'registration:\n  wait_ms: 0\n');
    expect(await loadPolicy(p.root, locations(p.env))).toBeDefined();
  });

  it(
    'rewritten in place during checks, the policy never lets through what it denies',
    { timeout: 120_000 },
    async () => {
      const { p, status } = setup();
      const policy = join(p.root, '.hookwise', 'policy.yml');
      // An editor saving in place, over and over: truncate, then write (same inode).
      const writer = spawn(process.execPath, [
        '-e',
        `const fs = require('fs'); const end = Date.now() + 60000;
       process.on('SIGTERM', () => process.exit(0));
       (function loop() { if (Date.now() > end) return; const fd = fs.openSync(${JSON.stringify(policy)}, 'w'); fs.writeSync(fd, ${JSON.stringify(DENY_GIT_STATUS)}); fs.closeSync(fd); setTimeout(loop, 1); })();`,
      ]);
      const verdicts: Record<string, number> = {};
      try {
        for (let i = 0; i < 300; i++) {
          const v = (await status()) ?? 'none';
          verdicts[v] = (verdicts[v] ?? 0) + 1;
        }
      } finally {
        writer.kill('SIGTERM');
      }
      expect(verdicts.allow ?? 0, JSON.stringify(verdicts)).toBe(0);
      expect(verdicts.deny).toBe(300);
    },
  );
});
