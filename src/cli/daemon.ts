/** `hookwise serve` and `hookwise daemon start | stop | status` (src/daemon/). */
import { describeMode, describeQueueMode } from './store.js';
import type { FleetQueueStatus } from '../store/queue.js';
import type { SyncStatus } from '../store/sync.js';
import { existsSync, unlinkSync } from 'node:fs';
import { HookwiseError } from '../core/errors.js';
import { health, spawnDaemon, waitForDaemon } from '../daemon/control.js';
import { ensureHttpConfig } from '../daemon/http-config.js';
import { daemonPaths } from '../daemon/paths.js';
import type { EmbeddingStats } from '../embed/client.js';
import { shortModelId } from '../embed/embedder.js';
import { serve } from '../daemon/server.js';
import { VERSION } from '../policy/load.js';
import { locations } from '../util/locations.js';
import { defaultInstallIo, type InstallContext } from './install.js';
import { httpGates, scanWiring } from './wired.js';

export interface ServeCliOptions {
  http?: string | boolean;
  idleExit?: string;
  startLock?: string;
}

/** Foreground: for service managers (systemd, launchd), tests, and the detached start. */
export async function serveCommand(o: ServeCliOptions): Promise<void> {
  const where = locations();
  const log = (line: string): void =>
    void process.stderr.write(`${new Date().toISOString()} hookwise daemon: ${line}\n`);
  const releaseStartLock = (): void => {
    if (o.startLock === undefined) return;
    try {
      unlinkSync(o.startLock);
    } catch {
      // Already gone (taken over as stale): nothing to release.
    }
  };
  // Started in the background by a hook call: if its start lock is gone, the runtime directory went away
  // meanwhile (a throw-away test or build directory) and there is nobody to serve.
  if (o.startLock !== undefined && !existsSync(o.startLock)) {
    log(`start lock ${o.startLock} is gone: not starting`);
    return;
  }
  let daemon;
  try {
    const http =
      o.http === undefined || o.http === false
        ? undefined
        : await ensureHttpConfig(where, o.http === true ? undefined : parsePort(o.http));
    daemon = await serve({
      where,
      log,
      idleExitMs: Number(o.idleExit ?? 0) * 1000,
      ...(http === undefined ? {} : { http }),
    });
    if (o.startLock !== undefined && !existsSync(o.startLock)) {
      // The runtime directory was removed while this daemon started (and serve() made a new one): nobody
      // will look for it there.
      log('the runtime directory went away while starting: exiting');
      await daemon.close();
      return;
    }
  } finally {
    releaseStartLock();
  }
  const running = daemon;
  process.on('SIGHUP', () => running.reload());
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      log(`${signal}: draining`);
      void running.close().then(() => process.exit(0));
    });
  }
  // Stopped by a signal, or on its own (socket removed, idle).
  await running.closed;
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new HookwiseError('USAGE', `--http takes a port number 1-65535, not "${value}"`);
  return port;
}

export interface StatusJson {
  running: boolean;
  pid: number | null;
  socket: string;
  http: { host: string; port: number } | null;
  version: string;
  uptime_s?: number;
  decisions?: number;
  errors?: number;
  p50_ms?: number | null;
  p99_ms?: number | null;
  rss_mb?: number;
  heap_mb?: number;
  /** Tier 2b's worker pool (null: the daemon runs without one). */
  embedding?: EmbeddingStats | null;
  store?: SyncStatus | null;
  queue_store?: FleetQueueStatus | null;
  log: string;
}

/**
 * What a stopped or http-less daemon means for the wiring this user has: the Claude Code http gate blocks
 * every tool call until the daemon serves its endpoint; command wirings decide in process meanwhile.
 */
interface WiringHint {
  /** The settings files whose gate posts to the daemon (empty: no http gate). */
  httpGates: string[];
  /** Whether any hookwise wiring (settings file or plugin) was found. */
  wired: boolean;
}

function wiringHint(ctx: InstallContext): WiringHint {
  const scan = scanWiring(ctx);
  return { httpGates: httpGates(scan), wired: scan.wired.length > 0 || scan.plugin !== undefined };
}

/** The command that starts the daemon this wiring needs, and what happens until it runs. */
export function startHint(hint: WiringHint): string {
  if (hint.httpGates.length > 0)
    return `start it: hookwise daemon start --http   (the Claude Code http gate in ${hint.httpGates.join(', ')} blocks every tool call until it runs; the next session start or prompt also starts it)`;
  if (!hint.wired)
    return 'start it: hookwise daemon start   (no agent is wired to hookwise here yet: hookwise install --claude, or the plugin)';
  return 'start it: hookwise daemon start   (hook calls decide in process meanwhile)';
}

/** The status line of a running daemon's loopback endpoint. */
export function httpLine(http: { host: string; port: number } | null, hint: WiringHint): string {
  if (http !== null) return `http://${http.host}:${http.port}`;
  if (hint.httpGates.length > 0)
    return `off — the Claude Code http gate in ${hint.httpGates.join(', ')} is blocked: hookwise daemon start --http (restarts it with the endpoint)`;
  return "off (Claude Code's http wiring needs it: hookwise daemon start --http)";
}

export async function daemonStatus(
  json: boolean,
  ctx: InstallContext = defaultInstallIo(),
): Promise<{ stdout: string; exitCode: number }> {
  const where = locations();
  const paths = daemonPaths(where);
  const h = await health(where);
  const out: StatusJson =
    h === undefined
      ? { running: false, pid: null, socket: paths.socket, http: null, version: VERSION, log: paths.log }
      : {
          running: true,
          pid: h.pid,
          socket: h.socket,
          http: h.http,
          version: h.version,
          uptime_s: h.uptime_s,
          decisions: h.decisions,
          errors: h.errors,
          p50_ms: h.p50_ms,
          p99_ms: h.p99_ms,
          rss_mb: h.rss_mb,
          heap_mb: h.heap_mb,
          embedding: h.embedding ?? null,
          store: h.store ?? null,
          queue_store: h.queue_store ?? null,
          log: paths.log,
        };
  if (json) return { stdout: JSON.stringify(out, null, 2), exitCode: out.running ? 0 : 3 };
  const hint = wiringHint(ctx);
  if (!out.running)
    return { stdout: `hookwise daemon: not running (socket ${out.socket})\n${startHint(hint)}`, exitCode: 3 };
  return {
    stdout: [
      `hookwise daemon: running, pid ${out.pid}, hookwise ${out.version}, up ${out.uptime_s} s`,
      `  socket  ${out.socket}`,
      `  http    ${httpLine(out.http, hint)}`,
      `  served  ${out.decisions} decisions, ${out.errors} errors; latency p50 ${out.p50_ms ?? '-'} ms, p99 ${out.p99_ms ?? '-'} ms (in the daemon)`,
      `  memory  rss ${out.rss_mb} MB, heap ${out.heap_mb} MB`,
      `  embed   ${embeddingLine(out.embedding ?? null)}`,
      `  store   ${out.store === null || out.store === undefined ? 'the files on this machine' : `team ${out.store.team}: ${describeMode(out.store)}`}`,
      ...(out.queue_store === null || out.queue_store === undefined
        ? []
        : [`  queue   ${describeQueueMode(out.queue_store)}`]),
      `  log     ${out.log}`,
    ].join('\n'),
    exitCode: 0,
  };
}

function embeddingLine(e: EmbeddingStats | null): string {
  if (e === null) return 'off (tier 2b passes every call on)';
  const model = e.model === null ? '' : ` model ${shortModelId(e.model)},`;
  const last = e.lastUnavailable === null ? '' : ` (last: ${e.lastUnavailable})`;
  return `${e.state},${model} ${e.calls} searches, ${e.unavailable} unavailable${last}`;
}

export async function daemonStart(o: {
  http?: boolean;
  json?: boolean;
  quiet?: boolean;
}): Promise<{ stdout: string; exitCode: number }> {
  const where = locations();
  // With an endpoint config (the http wiring made it, or an earlier --http), the daemon serves it even without
  // --http, as the session hooks start it: a plain `daemon start` must not leave the http gate blocked.
  const http = o.http === true || existsSync(daemonPaths(where).http);
  const running = await health(where);
  if (running !== undefined && (!http || running.http !== null)) {
    return o.quiet === true ? { stdout: '', exitCode: 0 } : daemonStatus(o.json === true);
  }
  if (running !== undefined) await daemonStop({ quiet: true });
  if (http) await ensureHttpConfig(where);
  spawnDaemon(where, { http });
  const up = await waitForDaemon(where, 10_000);
  if (up === undefined) {
    return { stdout: `hookwise daemon: did not start within 10 s; see ${daemonPaths(where).log}`, exitCode: 1 };
  }
  return o.quiet === true ? { stdout: '', exitCode: 0 } : daemonStatus(o.json === true);
}

export async function daemonStop(
  o: { quiet?: boolean } = {},
  ctx: InstallContext = defaultInstallIo(),
): Promise<{ stdout: string; exitCode: number }> {
  const where = locations();
  const h = await health(where);
  if (h === undefined) return { stdout: o.quiet === true ? '' : 'hookwise daemon: not running', exitCode: 0 };
  process.kill(h.pid, 'SIGTERM');
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && (await health(where, 200)) !== undefined) await new Promise((r) => setTimeout(r, 50));
  const stopped = (await health(where, 200)) === undefined;
  if (o.quiet === true) return { stdout: '', exitCode: stopped ? 0 : 1 };
  if (!stopped) return { stdout: `hookwise daemon: pid ${h.pid} did not stop within 10 s`, exitCode: 1 };
  const gates = wiringHint(ctx).httpGates;
  const after =
    gates.length > 0
      ? `; the Claude Code http gate in ${gates.join(', ')} blocks every tool call until it runs again (hookwise daemon start --http; the next session start or prompt also starts it)`
      : '; hook calls decide in process until it runs again';
  return { stdout: `hookwise daemon: stopped (pid ${h.pid})${after}`, exitCode: 0 };
}

/**
 * After `install --claude` wrote the http wiring: the gate posts to the endpoint in the daemon's http config,
 * so a running daemon that does not serve it (started without --http, or on another port) blocks every tool
 * call. Restart it with the endpoint; say what to run if that fails. Returns a line for the user.
 */
export async function daemonForHttpGate(http: { port: number }): Promise<string> {
  const where = locations();
  const running = await health(where);
  if (running === undefined)
    return 'hookwise: the daemon is not running; the next Claude Code session starts it (now: hookwise daemon start --http)';
  if (running.http !== null && running.http.port === http.port)
    return `hookwise: the running daemon (pid ${running.pid}) serves the gate's endpoint (127.0.0.1:${http.port})`;
  const why =
    running.http === null
      ? 'ran without the http endpoint the gate posts to'
      : `served port ${running.http.port}, and the gate posts to port ${http.port}`;
  const stopped = await daemonStop({ quiet: true });
  const up =
    stopped.exitCode === 0 && spawnDaemon(where, { http: true }) ? await waitForDaemon(where, 10_000) : undefined;
  if (up?.http?.port === http.port)
    return `hookwise: the running daemon (pid ${running.pid}) ${why}: restarted it with the endpoint (pid ${up.pid}, 127.0.0.1:${http.port})`;
  return `hookwise: the running daemon (pid ${running.pid}) ${why}, and restarting it failed: tool calls are blocked until you run hookwise daemon stop && hookwise daemon start --http (log: ${daemonPaths(where).log})`;
}
