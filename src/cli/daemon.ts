/** `hookwise serve` and `hookwise daemon start | stop | status` (src/daemon/). */
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
  log: string;
}

export async function daemonStatus(json: boolean): Promise<{ stdout: string; exitCode: number }> {
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
          log: paths.log,
        };
  if (json) return { stdout: JSON.stringify(out, null, 2), exitCode: out.running ? 0 : 3 };
  if (!out.running)
    return {
      stdout: `hookwise daemon: not running (socket ${out.socket})\nstart it: hookwise daemon start   (hook calls decide in process meanwhile)`,
      exitCode: 3,
    };
  return {
    stdout: [
      `hookwise daemon: running, pid ${out.pid}, hookwise ${out.version}, up ${out.uptime_s} s`,
      `  socket  ${out.socket}`,
      `  http    ${out.http === null ? 'off (hookwise daemon start --http)' : `http://${out.http.host}:${out.http.port}`}`,
      `  served  ${out.decisions} decisions, ${out.errors} errors; latency p50 ${out.p50_ms ?? '-'} ms, p99 ${out.p99_ms ?? '-'} ms (in the daemon)`,
      `  memory  rss ${out.rss_mb} MB, heap ${out.heap_mb} MB`,
      `  embed   ${embeddingLine(out.embedding ?? null)}`,
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
  const running = await health(where);
  if (running !== undefined && (o.http !== true || running.http !== null)) {
    return o.quiet === true ? { stdout: '', exitCode: 0 } : daemonStatus(o.json === true);
  }
  if (running !== undefined) await daemonStop({ quiet: true });
  if (o.http === true) await ensureHttpConfig(where);
  spawnDaemon(where, { http: o.http === true });
  const up = await waitForDaemon(where, 10_000);
  if (up === undefined) {
    return { stdout: `hookwise daemon: did not start within 10 s; see ${daemonPaths(where).log}`, exitCode: 1 };
  }
  return o.quiet === true ? { stdout: '', exitCode: 0 } : daemonStatus(o.json === true);
}

export async function daemonStop(o: { quiet?: boolean } = {}): Promise<{ stdout: string; exitCode: number }> {
  const where = locations();
  const h = await health(where);
  if (h === undefined) return { stdout: o.quiet === true ? '' : 'hookwise daemon: not running', exitCode: 0 };
  process.kill(h.pid, 'SIGTERM');
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && (await health(where, 200)) !== undefined) await new Promise((r) => setTimeout(r, 50));
  const stopped = (await health(where, 200)) === undefined;
  return {
    stdout:
      o.quiet === true
        ? ''
        : stopped
          ? `hookwise daemon: stopped (pid ${h.pid})`
          : `hookwise daemon: pid ${h.pid} did not stop within 10 s`,
    exitCode: stopped ? 0 : 1,
  };
}
