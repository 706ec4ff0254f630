/**
 * A real daemon for the benchmarks: the built `hookwise serve` spawned as a child of the bench process with
 * the fixture's environment (so it serves the fixture's runtime and config directories, never the user's),
 * waited for until its health endpoint answers, and stopped by its pid — SIGTERM, then SIGKILL if it does
 * not drain in time. A bench process that exits before `stop()` (process.exit, SIGINT/SIGTERM/SIGHUP)
 * kills it on the way out; callers still put `stop()` in a `finally`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { health } from '../src/daemon/control.js';
import type { DaemonStats } from '../src/daemon/server.js';
import { locations, type Locations } from '../src/util/locations.js';
import { hookwiseBin } from '../src/util/package-root.js';

export interface BenchDaemon {
  /** The locations it serves (those of the environment it was started with). */
  where: Locations;
  pid: number;
  /** Its health endpoint; throws when it does not answer. */
  health(): Promise<DaemonStats>;
  /** The last lines it logged (stderr), for error messages. */
  log(): string;
  /** Stop it and wait until it has exited. Idempotent. */
  stop(): Promise<void>;
}

export interface StartDaemonOptions {
  /** Node options before the script, e.g. ['--cpu-prof', '--cpu-prof-dir', dir]. */
  nodeArgs?: readonly string[];
  /** How long to wait for its health endpoint. */
  timeoutMs?: number;
}

const LOG_TAIL = 4096;
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

export async function startDaemon(env: NodeJS.ProcessEnv, options: StartDaemonOptions = {}): Promise<BenchDaemon> {
  const bin = hookwiseBin();
  if (!existsSync(bin)) throw new Error(`bench: ${bin} not found; build it first (npm run build)`);
  const where = locations(env);
  const other = await health(where, 500);
  if (other !== undefined)
    throw new Error(`bench: a daemon (pid ${other.pid}) already serves ${other.socket}; the bench starts its own`);

  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), bin, 'serve'], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let tail = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    tail = (tail + chunk).slice(-LOG_TAIL);
  });
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  // The last resort: never leave a daemon behind a bench process that exits without stopping it, or that a
  // signal ends (the signal is raised again once the daemon is dead, unless someone else handles it).
  const killOnExit = (): void => void child.kill('SIGKILL');
  const onSignal = (signal: NodeJS.Signals): void => {
    killOnExit();
    forget();
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };
  const forget = (): void => {
    process.off('exit', killOnExit);
    for (const signal of SIGNALS) process.off(signal, onSignal);
  };
  process.on('exit', killOnExit);
  for (const signal of SIGNALS) process.on(signal, onSignal);

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      try {
        await terminate(child, exited);
      } finally {
        forget();
      }
    })();
    return stopping;
  };

  try {
    if (child.pid === undefined) throw new Error('bench: could not spawn the daemon');
    const up = await waitForHealth(where, exited, options.timeoutMs ?? 15_000);
    if (up === undefined)
      throw new Error(
        `bench: the daemon did not answer its health endpoint (exit ${child.exitCode ?? child.signalCode ?? 'none yet'}): ${tail.trim()}`,
      );
    if (up.pid !== child.pid)
      throw new Error(
        `bench: the socket is served by pid ${up.pid}, not the daemon the bench started (pid ${child.pid})`,
      );
  } catch (error) {
    await stop();
    throw error;
  }
  const pid = child.pid;
  return {
    where,
    pid,
    async health() {
      const h = await health(where, 5000);
      if (h === undefined) throw new Error(`bench: the daemon (pid ${pid}) stopped answering: ${tail.trim()}`);
      return h;
    },
    log: () => tail,
    stop,
  };
}

async function waitForHealth(
  where: Locations,
  exited: Promise<void>,
  timeoutMs: number,
): Promise<DaemonStats | undefined> {
  let gone = false;
  void exited.then(() => (gone = true));
  const deadline = Date.now() + timeoutMs;
  while (!gone && Date.now() < deadline) {
    const h = await health(where, 500);
    if (h !== undefined) return h;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return undefined;
}

/** SIGTERM (the daemon drains and removes its socket), SIGKILL after 5 s; resolves once it has exited. */
async function terminate(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), 5000)));
  const outcome = await Promise.race([exited.then(() => 'exited' as const), late]);
  clearTimeout(timer);
  if (outcome === 'late') {
    child.kill('SIGKILL');
    await exited;
  }
}
