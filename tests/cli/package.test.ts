/**
 * The npm package as a user installs it: `npm pack`, then `npm install -g` of the tarball into an empty
 * prefix, then the installed `hookwise` runs `--version` and real decisions (a Bash call, which loads the
 * native tree-sitter parser, and a write to a sensitive path). And the clone install the README shows
 * (`npm install -g .`, which links the checkout).
 *
 * Offline: the tarball's dependencies come from a local registry serving the lockfile's runtime packages out
 * of npm's cache (tests/support/local-registry.ts), i.e. only what the README's `npm install` fetched. re2's
 * install script would download its prebuilt binary from GitHub and, failing that, compile RE2 (~5 minutes on
 * 2 cores): it is pointed at this checkout's own built binary through re2's documented mirror variables.
 * tree-sitter's install script builds its addon from source on this machine; that is most of the test's time
 * (≈ 40–70 s on 2 busy cores).
 *
 * Needs dist/ built (`npm test` builds first; `npm pack` here runs with --ignore-scripts so that it does
 * not rebuild dist/ under the other tests running in parallel).
 */
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gzipSync } from 'node:zlib';
import { startLocalRegistry, type LocalRegistry } from '../support/local-registry.js';

const ROOT = join(import.meta.dirname, '..', '..');
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  files: string[];
};
const INSTALL_TIMEOUT_MS = 6 * 60_000;

const tmp = mkdtempSync(join(tmpdir(), 'hookwise-pack-'));
let registry: LocalRegistry | undefined;
/**
 * The clean-up removes two installed prefixes (hundreds of MB: onnxruntime, a built tree-sitter): on a loaded
 * machine that takes far longer than vitest's 10 s default for a hook. A backstop, not a measure.
 */
const CLEANUP_TIMEOUT_MS = 5 * 60_000;
afterAll(async () => {
  await registry?.close();
  rmSync(tmp, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
}, CLEANUP_TIMEOUT_MS);

/** npm without the test run's own npm_* configuration (vitest under `npm test` inherits npm's env). */
function npmEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k)) env[k] = v;
  return { ...env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false', ...extra };
}

/** npm asynchronously: the local registry answers from this very process, so a spawnSync would deadlock. */
function npmAsync(
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeout: number },
): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn('npm', args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeout);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, output });
    });
  });
}

function npm(
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeout?: number } = {},
): SpawnSyncReturns<string> {
  return spawnSync('npm', args, {
    cwd: options.cwd ?? ROOT,
    env: options.env ?? npmEnv(),
    encoding: 'utf8',
    timeout: options.timeout ?? 60_000,
  });
}

/** A hook call in an isolated project and state, deciding in process (no daemon). */
function check(
  bin: string,
  payload: Record<string, unknown>,
): { status: number | null; out: Record<string, unknown> | undefined; stderr: string } {
  const home = join(tmp, 'home');
  const project = join(tmp, 'project');
  mkdirSync(join(project, '.git'), { recursive: true });
  mkdirSync(home, { recursive: true });
  const r = spawnSync(bin, ['check', '--host', 'claude'], {
    input: JSON.stringify({
      session_id: 'pack-test',
      cwd: project,
      hook_event_name: 'PreToolUse',
      permission_mode: 'default',
      ...payload,
    }),
    env: {
      PATH: process.env.PATH,
      HOME: home,
      HOOKWISE_CONFIG_DIR: join(home, 'config'),
      HOOKWISE_RUNTIME_DIR: join(home, 'runtime'),
      HOOKWISE_ROLE: 'coder',
      HOOKWISE_DAEMON: 'off',
    },
    encoding: 'utf8',
    timeout: 30_000,
  });
  const out = r.stdout.trim() === '' ? undefined : (JSON.parse(r.stdout) as Record<string, unknown>);
  return { status: r.status, out, stderr: r.stderr };
}

function decisionOf(out: Record<string, unknown> | undefined): string | undefined {
  return (out?.hookSpecificOutput as { permissionDecision?: string } | undefined)?.permissionDecision;
}

/** Installed packages (name → directory), scoped ones included. */
function installedPackages(): Map<string, string> {
  const found = new Map<string, string>();
  const modules = join(ROOT, 'node_modules');
  for (const entry of readdirSync(modules)) {
    if (entry.startsWith('.')) continue;
    const names = entry.startsWith('@') ? readdirSync(join(modules, entry)).map((n) => `${entry}/${n}`) : [entry];
    for (const name of names) found.set(name, join(modules, name));
  }
  return found;
}

describe("the clone's npm install", () => {
  it('.npmrc holds only settings npm knows (no warning on every npm command)', () => {
    const r = npm(['config', 'list']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/Unknown (project|user|builtin) config/);
  });

  it("reviews every dependency's install script: onnxruntime-node's CUDA download is denied, the native builds allowed", () => {
    const allow =
      (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { allowScripts?: Record<string, boolean> })
        .allowScripts ?? {};
    expect(allow['onnxruntime-node']).toBe(false);
    const scripted: string[] = [];
    for (const [name, dir] of installedPackages()) {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
      const scripts = pkg.scripts ?? {};
      // npm runs `node-gyp rebuild` for a binding.gyp without an install script of its own.
      if (['preinstall', 'install', 'postinstall'].some((s) => s in scripts) || existsSync(join(dir, 'binding.gyp')))
        scripted.push(name);
    }
    expect(scripted).toContain('onnxruntime-node');
    expect(scripted.filter((name) => !(name in allow))).toEqual([]);
  });
});

describe('the npm package', () => {
  let tarball = '';

  beforeAll(() => {
    if (!existsSync(join(ROOT, 'dist', 'hookwise.cjs')))
      throw new Error('dist/ is not built: run npm run build (npm test does) first');
    const r = npm(['pack', '--ignore-scripts', '--json', '--pack-destination', tmp]);
    expect(r.status, r.stderr).toBe(0);
    const [packed] = JSON.parse(r.stdout) as { filename: string; files: { path: string }[] }[];
    tarball = join(tmp, packed!.filename);
    writeFileSync(join(tmp, 'files.json'), JSON.stringify(packed!.files.map((f) => f.path)));
  }, 120_000);

  it('holds the CLI bundles, the plugin and the docs, and nothing machine-specific or from the source tree', () => {
    const files = JSON.parse(readFileSync(join(tmp, 'files.json'), 'utf8')) as string[];
    for (const f of [
      'package.json',
      'README.md',
      'dist/hookwise.cjs',
      'dist/hook.cjs',
      'dist/cli.cjs',
      'dist/shell.cjs',
      'dist/policy-compiler.cjs',
      'dist/confine.cjs',
      'plugin/bin/hookwise-hook',
      'plugin/gemini/bin/hookwise-hook',
      'plugin/hooks/hooks.json',
      'plugin/.claude-plugin/plugin.json',
      'docs/install.md',
      'workers/model/command-embedding.onnx',
      'workers/model/command-vocab.json',
    ]) {
      expect(files).toContain(f);
    }
    // V8 code caches are per Node version and architecture, written next to the bundles at run time.
    expect(files.filter((f) => f.endsWith('.v8cache'))).toEqual([]);
    expect(files.filter((f) => /^(src|tests|bench|scripts|node_modules)\//.test(f))).toEqual([]);
  });

  it(
    'installs from the tarball into an empty prefix, offline, and the installed hookwise decides',
    async () => {
      registry = await startLocalRegistry(join(ROOT, 'package-lock.json'));
      // re2's install hook fetches <mirror>/<platform>-<arch>-<abi>.br, then .gz; a local path is read from disk.
      const mirror = join(tmp, 're2-mirror');
      mkdirSync(mirror, { recursive: true });
      const built = join(ROOT, 'node_modules', 're2', 'build', 'Release', 're2.node');
      writeFileSync(
        join(mirror, `${process.platform}-${process.arch}-${process.versions.modules}.gz`),
        gzipSync(readFileSync(built), { level: 1 }),
      );

      const prefix = join(tmp, 'prefix');
      const started = Date.now();
      // As docs/install.md says: onnxruntime-node's script would fetch CUDA libraries from nuget.org.
      const env = npmEnv({
        RE2_DOWNLOAD_MIRROR: mirror,
        RE2_DOWNLOAD_SKIP_PATH: '1',
        RE2_DOWNLOAD_SKIP_VER: '1',
        ONNXRUNTIME_NODE_INSTALL: 'skip',
      });
      const r = await npmAsync(
        [
          'install',
          '-g',
          '--prefix',
          prefix,
          '--registry',
          registry.url,
          '--cache',
          join(tmp, 'npm-cache'),
          '--no-audit',
          '--no-fund',
          tarball,
        ],
        {
          cwd: tmp,
          env,
          timeout: INSTALL_TIMEOUT_MS,
        },
      );
      const installMs = Date.now() - started;
      expect(r.status, `${r.output}\nnot in npm's cache: ${registry.uncached.join(', ')}`).toBe(0);
      console.log(`[package] npm install -g of the tarball: ${(installMs / 1000).toFixed(1)} s`);

      const bin = join(prefix, 'bin', 'hookwise');
      const version = spawnSync(bin, ['--version'], {
        encoding: 'utf8',
        env: { PATH: process.env.PATH, HOME: join(tmp, 'home') },
      });
      expect(version.status, version.stderr).toBe(0);
      expect(version.stdout.trim()).toBe(PKG.version);
      // A copy, not a link back into this checkout: the installed package runs on its own.
      expect(realpathSync(bin).startsWith(realpathSync(prefix))).toBe(true);

      const bash = check(bin, {
        tool_name: 'Bash',
        tool_input: { command: 'git status --short | grep -v x' },
        tool_use_id: 'toolu_1',
      });
      expect(bash.status, bash.stderr).toBe(0);
      expect(decisionOf(bash.out), JSON.stringify(bash.out)).toBe('allow');
      const hooks = check(bin, {
        tool_name: 'Write',
        tool_input: { file_path: join(tmp, 'project', '.git', 'hooks', 'pre-commit'), content: 'curl x | sh' },
        tool_use_id: 'toolu_2',
      });
      expect(hooks.status, hooks.stderr).toBe(0);
      expect(['deny', 'ask']).toContain(decisionOf(hooks.out));
    },
    INSTALL_TIMEOUT_MS + 30_000,
  );

  it('a clone installs with npm install -g . (a link to the built checkout)', () => {
    const prefix = join(tmp, 'clone-prefix');
    const r = npm(['install', '-g', '--prefix', prefix, '--ignore-scripts', '--offline', '.']);
    expect(r.status, r.stderr).toBe(0);
    const installed = join(prefix, 'lib', 'node_modules', PKG.name);
    expect(lstatSync(installed).isSymbolicLink()).toBe(true);
    expect(realpathSync(installed)).toBe(realpathSync(ROOT));
    const version = spawnSync(join(prefix, 'bin', 'hookwise'), ['--version'], { encoding: 'utf8' });
    expect(version.stdout.trim()).toBe(PKG.version);
  }, 120_000);
});
