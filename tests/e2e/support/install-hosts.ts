/**
 * On-demand installation of the real host CLIs for the end-to-end tests.
 *
 * The hosts are deliberately NOT dependencies of hookwise: users of hookwise must never download a
 * ~380 MB Claude Code binary or the Gemini CLI. Instead the e2e tests install pinned versions into a
 * cache directory inside the repository (`node_modules/.cache/hookwise-e2e/<host>`, ignored together
 * with `node_modules/`), once, and reuse them on every later run.
 *
 * Concurrency: vitest runs test files in parallel workers (processes or threads), and several of them may
 * call `ensureClaude()` at the same moment. A `mkdir` lock per host serialises the installers; the others
 * wait and then find the finished install. A marker file written only after a successful, verified install
 * makes the fast path a single stat-and-read, and makes a half-finished install (killed run, full disk)
 * look "not installed" rather than "installed".
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

interface HostPackage {
  /** Sub-directory of the cache, and the name used in messages. */
  key: 'claude' | 'gemini';
  packageName: string;
  version: string;
  /** Name of the executable under `node_modules/.bin`. */
  binName: string;
  /** `<bin> --version` must print a line containing this, proving the executable really runs. */
  versionOutput: string;
}

/**
 * Pinned versions. Claude Code 2.1.330 declares `node >= 22` but runs on Node 20; without the pin npm
 * silently resolves an older release on Node 20. Bump deliberately, together with the payload fixtures.
 */
export const CLAUDE_CODE: HostPackage = {
  key: 'claude',
  packageName: '@anthropic-ai/claude-code',
  version: '2.1.330',
  binName: 'claude',
  versionOutput: '2.1.330 (Claude Code)',
};

export const GEMINI_CLI: HostPackage = {
  key: 'gemini',
  packageName: '@google/gemini-cli',
  version: '0.61.0',
  binName: 'gemini',
  versionOutput: '0.61.0',
};

/**
 * The repository root: the nearest ancestor of this file holding a package.json. Searched rather than
 * hard-coded as `../../..` so a moved or bundled copy of this file can't silently install into some
 * unrelated directory (e.g. `/node_modules`).
 */
function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) {
      throw new Error('[hookwise-e2e] no package.json above install-hosts.ts; set HOOKWISE_E2E_CACHE_DIR');
    }
    dir = parent;
  }
}

/** Where the hosts are installed. `HOOKWISE_E2E_CACHE_DIR` lets CI point it at a cached volume. */
export function hostCacheRoot(): string {
  const override = process.env.HOOKWISE_E2E_CACHE_DIR;
  return override !== undefined && override !== ''
    ? resolve(override)
    : join(repoRoot(), 'node_modules', '.cache', 'hookwise-e2e');
}

const INSTALL_TIMEOUT_MS = 10 * 60_000;
/** A waiter gives up after this long; longer than one install so a slow first run still succeeds. */
const LOCK_WAIT_MS = 15 * 60_000;
/** A lock older than this is assumed abandoned (its owner can't still be installing). */
const LOCK_STALE_MS = INSTALL_TIMEOUT_MS + 60_000;
const MARKER_FILE = '.hookwise-e2e-installed.json';

interface Marker {
  packageName: string;
  version: string;
  bin: string;
  installedAt: string;
  installMs: number;
}

function binPath(dir: string, pkg: HostPackage): string {
  return join(dir, 'node_modules', '.bin', pkg.binName);
}

async function readJson(path: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as unknown;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Fast path: the marker says this exact version was installed and verified, and the bin still exists. */
async function installedBin(dir: string, pkg: HostPackage): Promise<string | undefined> {
  const marker = await readJson(join(dir, MARKER_FILE));
  if (!isRecord(marker) || marker.packageName !== pkg.packageName || marker.version !== pkg.version) return undefined;
  const bin = binPath(dir, pkg);
  return existsSync(bin) ? bin : undefined;
}

interface ProcessOutcome {
  code: number | null;
  output: string;
  timedOut: boolean;
}

function run(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<ProcessOutcome> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let timedOut = false;
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, output, timedOut });
    });
  });
}

/**
 * The environment for npm. When the tests run under `npm test`, npm exports its own config as
 * `npm_config_*` variables; some of them (`omit=optional`, `global`, `prefix`, `ignore_scripts`,
 * `dry_run`, …) would break this install. Drop every `npm_*` variable except the ones that only say where
 * and how to download (a CI may set those on purpose, e.g. a cached `npm_config_cache`).
 */
const KEPT_NPM_ENV = new Set([
  'npm_config_cache',
  'npm_config_registry',
  'npm_config_cafile',
  'npm_config_strict_ssl',
  'npm_config_userconfig',
  'npm_config_globalconfig',
  'npm_config_proxy',
  'npm_config_https_proxy',
  'npm_config_noproxy',
]);

function npmEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^npm_/i.test(key) || KEPT_NPM_ENV.has(key.toLowerCase())) env[key] = value;
  }
  return env;
}

/** Runs `<bin> --version` with a throwaway HOME, so verification never writes into the real one. */
async function verify(bin: string, pkg: HostPackage): Promise<{ ok: boolean; output: string }> {
  const home = await mkdtemp(join(tmpdir(), `hookwise-e2e-verify-${pkg.key}-`));
  try {
    const outcome = await run(bin, ['--version'], {
      cwd: home,
      env: {
        PATH: process.env.PATH,
        HOME: home,
        CLAUDE_CONFIG_DIR: join(home, '.claude'),
        DISABLE_AUTOUPDATER: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      },
      timeoutMs: 60_000,
    });
    return { ok: outcome.code === 0 && outcome.output.includes(pkg.versionOutput), output: outcome.output };
  } catch (error) {
    return { ok: false, output: String(error) };
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

async function installedVersion(dir: string, pkg: HostPackage): Promise<string | undefined> {
  const manifest = await readJson(join(dir, 'node_modules', ...pkg.packageName.split('/'), 'package.json'));
  return isRecord(manifest) && typeof manifest.version === 'string' ? manifest.version : undefined;
}

/**
 * Claude Code's postinstall copies/links the native binary from the optional platform package over the
 * `bin/claude.exe` placeholder. npm is moving towards not running install scripts by default (npm 11
 * already warns "install scripts not yet covered by allowScripts"), so if the placeholder is still there
 * we run the postinstall ourselves.
 */
async function runClaudePostinstall(dir: string): Promise<string> {
  const packageDir = join(dir, 'node_modules', '@anthropic-ai', 'claude-code');
  const outcome = await run(process.execPath, ['install.cjs'], { cwd: packageDir, env: npmEnv(), timeoutMs: 120_000 });
  return outcome.output;
}

async function install(dir: string, pkg: HostPackage): Promise<string> {
  const bin = binPath(dir, pkg);

  // An existing install of the right version (e.g. from before markers existed) only needs verifying.
  if ((await installedVersion(dir, pkg)) === pkg.version && (await verify(bin, pkg)).ok) {
    await writeMarker(dir, pkg, 0);
    return bin;
  }

  // Start from an empty directory: never layer a new version over a broken or older one.
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  process.stderr.write(`[hookwise-e2e] installing ${pkg.packageName}@${pkg.version} into ${dir} (first run only)…\n`);
  const started = Date.now();
  const args = [
    'install',
    '--prefix',
    dir,
    `${pkg.packageName}@${pkg.version}`,
    '--no-save',
    '--no-audit',
    '--no-fund',
    // The Claude Code binary lives in an optional dependency; make sure no inherited config omits it.
    '--include=optional',
    '--ignore-scripts=false',
    '--global=false',
    '--loglevel=error',
  ];
  const outcome = await run(process.platform === 'win32' ? 'npm.cmd' : 'npm', args, {
    cwd: dir,
    env: npmEnv(),
    timeoutMs: INSTALL_TIMEOUT_MS,
  });
  if (outcome.timedOut || outcome.code !== 0) {
    throw new Error(
      `[hookwise-e2e] npm install of ${pkg.packageName}@${pkg.version} ${outcome.timedOut ? 'timed out' : `failed (exit ${outcome.code})`}:\n${outcome.output}`,
    );
  }

  let check = await verify(bin, pkg);
  if (!check.ok && pkg.key === 'claude') {
    const postinstall = await runClaudePostinstall(dir);
    check = await verify(bin, pkg);
    check.output += `\n(postinstall re-run output: ${postinstall})`;
  }
  if (!check.ok) {
    throw new Error(
      `[hookwise-e2e] ${pkg.packageName}@${pkg.version} installed but \`${bin} --version\` failed:\n${check.output}`,
    );
  }
  const installMs = Date.now() - started;
  await writeMarker(dir, pkg, installMs);
  process.stderr.write(
    `[hookwise-e2e] installed ${pkg.packageName}@${pkg.version} in ${(installMs / 1000).toFixed(1)} s\n`,
  );
  return bin;
}

async function writeMarker(dir: string, pkg: HostPackage, installMs: number): Promise<void> {
  const marker: Marker = {
    packageName: pkg.packageName,
    version: pkg.version,
    bin: binPath(dir, pkg),
    installedAt: new Date().toISOString(),
    installMs,
  };
  await writeFile(join(dir, MARKER_FILE), `${JSON.stringify(marker, null, 2)}\n`);
}

interface LockOwner {
  pid: number;
  host: string;
  since: number;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** True when the lock at `lockDir` was left behind by a dead or long-gone installer. */
async function isStale(lockDir: string): Promise<boolean> {
  const owner = await readJson(join(lockDir, 'owner.json'));
  let since: number;
  try {
    since = (await stat(lockDir)).mtimeMs;
  } catch {
    return false; // Vanished meanwhile: not stale, just retry.
  }
  if (Date.now() - since > LOCK_STALE_MS) return true;
  if (isRecord(owner) && owner.host === hostname() && typeof owner.pid === 'number') return !isAlive(owner.pid);
  // Owner file not written yet (the owner is between mkdir and writeFile): give it a moment.
  return !isRecord(owner) && Date.now() - since > 30_000;
}

async function withLock<T>(lockDir: string, action: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      await mkdir(lockDir); // Atomic: exactly one caller succeeds.
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (await isStale(lockDir)) {
        await rm(lockDir, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`[hookwise-e2e] timed out waiting for install lock ${lockDir}`);
      await sleep(250);
    }
  }
  const owner: LockOwner = { pid: process.pid, host: hostname(), since: Date.now() };
  await writeFile(join(lockDir, 'owner.json'), JSON.stringify(owner));
  try {
    return await action();
  } finally {
    await rm(lockDir, { recursive: true, force: true });
  }
}

/** Per-process memo: concurrent callers in one worker share one attempt. */
const pending = new Map<string, Promise<string>>();

async function ensureHost(pkg: HostPackage): Promise<string> {
  const root = hostCacheRoot();
  const dir = join(root, pkg.key);
  const fast = await installedBin(dir, pkg);
  if (fast !== undefined) return fast;

  let attempt = pending.get(pkg.key);
  if (attempt === undefined) {
    attempt = (async () => {
      await mkdir(root, { recursive: true });
      return withLock(join(root, `${pkg.key}.lock`), async () => {
        // Another worker may have finished the install while we waited for the lock.
        return (await installedBin(dir, pkg)) ?? install(dir, pkg);
      });
    })();
    pending.set(pkg.key, attempt);
    // A failed attempt must not be cached: the next caller retries.
    attempt.catch(() => pending.delete(pkg.key));
  }
  return attempt;
}

/** Path to the pinned Claude Code CLI, installing it on first use. */
export function ensureClaude(): Promise<string> {
  return ensureHost(CLAUDE_CODE);
}

/** Path to the pinned Gemini CLI, installing it on first use. */
export function ensureGemini(): Promise<string> {
  return ensureHost(GEMINI_CLI);
}
