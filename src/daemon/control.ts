/**
 * Starting, finding and stopping a user's daemon from another process: `hookwise daemon start|stop|status`,
 * the SessionStart hook, and `hookwise check` when it finds none running.
 */
import { spawn } from 'node:child_process';
import { closeSync, constants, existsSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { dirname, join } from 'node:path';
import { VERSION } from '../core/version.js';
import { breakStaleLock, ensurePrivateDir, openOwnedFile, staleLock, tryLockFile } from '../util/fs-safe.js';
import { hookwiseBin } from '../util/package-root.js';
import type { Locations } from '../util/locations.js';
import { daemonPaths } from './paths.js';
import type { DaemonStats } from './server.js';

/** The built executable next to this bundle (cheap: no package.json lookup on the hot path). */
function executable(): string {
  return typeof __filename === 'string' && __filename.endsWith('.cjs')
    ? join(dirname(__filename), 'hookwise.cjs')
    : hookwiseBin();
}

export interface StartOptions {
  /**
   * Serve loopback HTTP too (the port and token come from the user's config: daemon/http.json). Default: when
   * that file exists — the user chose the http wiring, whose hooks need the endpoint.
   */
  http?: boolean;
  /** Exit after this long idle (seconds; 0 never). */
  idleExitS?: number;
  env?: NodeJS.ProcessEnv;
}

/**
 * Start a detached daemon unless another process is starting one right now (a start lock, taken over when
 * its holder is dead or it is older than 10 s). Returns whether this call started one. Its output goes to
 * the log in the runtime directory.
 */
export function spawnDaemon(where: Locations, options: StartOptions = {}): boolean {
  const paths = daemonPaths(where);
  ensurePrivateDir(where.runtimeDir);
  if (!takeStartLock(paths.startLock)) return false;
  let log: number;
  try {
    // Never through a link or into a file that is not ours (its output would land wherever the link points).
    log = openOwnedFile(
      paths.log,
      constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT,
      0o600,
      'the daemon log',
    );
  } catch (error) {
    rmSync(paths.startLock, { force: true }); // no start is under way
    throw error;
  }
  try {
    const args = [
      executable(),
      'serve',
      '--idle-exit',
      String(options.idleExitS ?? 3600),
      '--start-lock',
      paths.startLock,
    ];
    if (options.http ?? existsSync(paths.http)) args.push('--http');
    const child = spawn(process.execPath, args, {
      detached: true,
      stdio: ['ignore', log, log],
      env: options.env ?? process.env,
    });
    child.unref();
    return true;
  } finally {
    closeSync(log);
  }
}

function takeStartLock(lock: string): boolean {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      if (tryLockFile(lock)) return true;
    } catch {
      return false;
    }
    try {
      // A start that has not finished within 10 s failed; before that, the lock is stale only if its holder is gone.
      const stale = staleLock(lock, 10_000, 10_000);
      if (stale === undefined || !breakStaleLock(lock, stale, 10_000)) return false;
    } catch {
      return false;
    }
  }
  return false;
}

/** The running daemon's health, or undefined when none answers on the socket. */
export function health(where: Locations, timeoutMs = 1000): Promise<DaemonStats | undefined> {
  const { socket } = daemonPaths(where);
  return new Promise((resolve) => {
    const req = request({ socketPath: socket, path: '/v1/health', method: 'GET', timeout: timeoutMs }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => {
        try {
          resolve(res.statusCode === 200 ? (JSON.parse(body) as DaemonStats) : undefined);
        } catch {
          resolve(undefined);
        }
      });
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(undefined));
    req.end();
  });
}

/** Wait until a daemon answers (polling the socket), up to `timeoutMs`. */
export async function waitForDaemon(where: Locations, timeoutMs: number): Promise<DaemonStats | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const h = await health(where, 500);
    if (h !== undefined || Date.now() >= deadline) return h;
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * Make sure a daemon of this version answers, with its loopback endpoint when `http` (the session hooks):
 * start one if none runs, restart one that runs without the endpoint or another version. Waits until it
 * answers (bounded).
 */
export async function ensureDaemon(
  where: Locations,
  options: { http?: boolean; timeoutMs?: number } = {},
): Promise<DaemonStats | undefined> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  // By default with its loopback endpoint when the user has one (the http wiring made it), as spawnDaemon.
  const http = options.http ?? existsSync(daemonPaths(where).http);
  let running = await health(where);
  // Restarted when it lacks the endpoint, or runs another hookwise version (an upgrade since it started).
  if (running !== undefined && (!http || running.http !== null) && running.version === VERSION) return running;
  if (running !== undefined) {
    process.kill(running.pid, 'SIGTERM');
    const deadline = Date.now() + timeoutMs;
    while (running !== undefined && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      running = await health(where, 200);
    }
  }
  spawnDaemon(where, { http });
  return waitForDaemon(where, timeoutMs);
}
