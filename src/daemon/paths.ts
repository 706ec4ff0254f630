/**
 * Where a user's daemon lives: everything in the private runtime directory (0700) — the socket (0600), the
 * state file that says which process serves it, the log — and the loopback HTTP token in the user's config
 * directory, because Claude Code's settings name it and it must survive a reboot that empties the runtime
 * directory.
 */
import { join } from 'node:path';
import type { Locations } from '../util/locations.js';

export interface DaemonPaths {
  socket: string;
  /** JSON: pid, socket, http port, version, started — written by the serving process. */
  state: string;
  log: string;
  /** Held while a process starts a daemon, so a burst of hook calls starts one, not sixty-four. */
  startLock: string;
  /** The loopback HTTP bearer token and port (0600 in a 0700 directory). */
  httpDir: string;
  http: string;
}

export function daemonPaths(where: Locations): DaemonPaths {
  const httpDir = join(where.userConfigDir, 'daemon');
  return {
    socket: join(where.runtimeDir, 'daemon.sock'),
    state: join(where.runtimeDir, 'daemon.json'),
    log: join(where.runtimeDir, 'daemon.log'),
    startLock: join(where.runtimeDir, 'daemon.start.lock'),
    httpDir,
    http: join(httpDir, 'http.json'),
  };
}

/** The state file the serving daemon writes. */
export interface DaemonState {
  pid: number;
  socket: string;
  http: { host: string; port: number } | null;
  version: string;
  started: string;
}

/**
 * A client's locations must be the daemon's: a daemon answers for one home, config and runtime directory.
 * Sent with every request; a daemon started under other locations refuses and the client decides in process.
 */
export function locationsTag(where: Locations): string {
  return encodeURIComponent(`${where.home}\u0000${where.userConfigDir}\u0000${where.runtimeDir}`);
}

/** Header names: lower case, as node:http delivers them. */
export const ROLE_HEADER = 'x-hookwise-role';
export const LOCATIONS_HEADER = 'x-hookwise-locations';
/** The client's hookwise version: a daemon of another version does not answer for it. */
export const VERSION_HEADER = 'x-hookwise-version';
/** HOOKWISE_GEMINI_ASK of the hook's process ("ask"). */
export const GEMINI_ASK_HEADER = 'x-hookwise-gemini-ask';
