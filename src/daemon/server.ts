/**
 * The daemon (`hookwise serve`): one long-lived process per user that answers every hook call of every
 * session and project through one warm engine (src/engine/). HTTP/1.1 over a Unix socket in the private
 * runtime directory, and on request on 127.0.0.1 with a bearer token for Claude Code `http` hooks.
 *
 *   POST /v1/check[?host=h]  the thin client (`hookwise check`): body = the host's payload; answer =
 *                            {stdout, stderr?, exitCode}, exactly what `hookwise check` prints and exits with
 *   POST /v1/hook/<host>     an `http` hook: body = the payload; answer = the JSON `check` would print (a
 *                            failure that `check` reports by exit 2 becomes a blocking JSON answer)
 *   GET  /v1/health          {ok, version, pid, uptime_s, decisions, p50_ms, p99_ms, rss_mb, …}
 *   GET  /v1/queue           the human queue (tier 4): {items, recent, problems} (socket only)
 *   POST /v1/queue/answer    {id, answer}, with the queue's answer token as bearer (socket only)
 *   /queue…                  the queue's web page (loopback HTTP only; src/queue/web.ts)
 *
 * Every bad request — too large, malformed, unauthenticated, from a browser page — gets a fail-closed answer,
 * never a crash. Limits count bytes; the only clocks are the transport's own timeouts (a client that stops
 * sending), never a verdict.
 */
import { timingSafeEqual } from 'node:crypto';
import { existsSync, lstatSync, type Stats } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { appendFailedCall } from '../audit/failed-call.js';
import { AuditGroupCommit } from '../audit/log.js';
import { describeError, HookwiseError } from '../core/errors.js';
import type { HostName } from '../core/tool-call.js';
import { Engine, MAX_PAYLOAD_BYTES, type CheckResult, type EngineOptions } from '../engine/engine.js';
import { parseHostName } from '../hosts/index.js';
import { LiveMemoryPool } from '../memory/live.js';
import { sanitize } from '../sanitize/index.js';
import { VERSION } from '../policy/load.js';
import { ensurePrivateDir, unlinkBestEffort, writeFileAtomic } from '../util/fs-safe.js';
import type { Locations } from '../util/locations.js';
import { EmbeddingService, type EmbeddingServiceOptions, type EmbeddingStats } from '../embed/client.js';
import { NetProxyHost } from './netproxy.js';
import { FileQueue } from '../queue/file-queue.js';
import { SessionRegistry } from '../session/registry.js';
import { storeSettings, type StoreSettings } from '../store/settings.js';
import type { FleetSync, SyncStatus } from '../store/sync.js';
import type { FleetQueue, FleetQueueStatus } from '../store/queue.js';
import type { FleetShare, FleetShareStatus } from '../store/fleet-share.js';
import { MemoryQueue } from '../queue/memory-queue.js';
import { answerAny, newAnswerToken, snapshotOf } from '../queue/combined.js';
import {
  ANSWER_SCOPES,
  ANSWER_VERDICTS,
  answerExtrasValid,
  type AnswerResult,
  type HumanAnswer,
} from '../queue/types.js';
import { handleQueueWeb, type QueueWebOptions } from '../queue/web.js';
import {
  daemonPaths,
  GEMINI_ASK_HEADER,
  LOCATIONS_HEADER,
  locationsTag,
  ROLE_HEADER,
  VERSION_HEADER,
  type DaemonPaths,
  type DaemonState,
} from './paths.js';

export interface ServeOptions {
  where: Locations;
  /** Also listen on 127.0.0.1:<port> (0: any free port) with this bearer token. */
  http?: { port: number; token: string };
  /** Exit after this long without a request (0: never). */
  idleExitMs?: number;
  engine?: EngineOptions;
  /**
   * Tier 2b's embedding pool (embed/client.ts), started warm with the daemon; `false`: none (tier 2b then
   * passes every call on, as in command mode). Default: the shipped model.
   */
  embedding?: Omit<EmbeddingServiceOptions, 'places' | 'log'> | false;
  log?: (line: string) => void;
  /**
   * The team store to replicate the shared scopes with (store/sync.ts); default: what the user's config or
   * HOOKWISE_STORE_URL says (store/settings.ts), the files alone when nothing does. false: the files alone.
   */
  store?: StoreSettings | false;
}

export interface RunningDaemon {
  paths: DaemonPaths;
  /** The loopback port, when serving HTTP. */
  httpPort: number | undefined;
  stats(): DaemonStats;
  /** SIGHUP: drop every cached project state (policy, memory, parses); the next call loads afresh. */
  reload(): void;
  /** SIGTERM: stop accepting, finish what is in flight, remove the socket and state file. */
  close(): Promise<void>;
  /** Settles when the daemon has stopped, whoever stopped it (close, socket removed, idle). */
  closed: Promise<void>;
}

export interface DaemonStats {
  ok: true;
  version: string;
  pid: number;
  uptime_s: number;
  decisions: number;
  errors: number;
  p50_ms: number | null;
  p99_ms: number | null;
  rss_mb: number;
  heap_mb: number;
  socket: string;
  http: { host: string; port: number } | null;
  /** The filtering proxies it hosts for confined commands (one per network allowlist, started on first use). */
  netproxy?: { allowlists: number };
  /** Tier 2b's worker pool: its state, model, calls and calls answered unavailable. */
  embedding?: EmbeddingStats | null;
  /** The team store's replication: synced or offline (deciding from the last copy), the outbox; null: files only. */
  store?: (SyncStatus & { shared?: FleetShareStatus }) | null;
  /** The human queue shared through the team store: shared, or local (the store unreachable); null: files only. */
  queue_store?: FleetQueueStatus | null;
}

/** Latencies of the most recent calls, for p50/p99 without unbounded memory. */
class LatencyWindow {
  private readonly samples = new Float64Array(8192);
  private count = 0;

  add(ms: number): void {
    this.samples[this.count++ % this.samples.length] = ms;
  }

  percentile(p: number): number | null {
    const n = Math.min(this.count, this.samples.length);
    if (n === 0) return null;
    const sorted = this.samples.slice(0, n).sort();
    return Math.round(sorted[Math.min(n - 1, Math.floor((p / 100) * n))]! * 1000) / 1000;
  }
}

const MAX_HEADER_BYTES = 16 * 1024;
/** A thin client waits about a second for headers before it takes the daemon for hung. */
const EARLY_HEADERS_MS = 200;

function sendHeadersEarly(res: ServerResponse): void {
  if (res.headersSent) return;
  res.writeHead(200, { 'content-type': 'application/json' });
  res.flushHeaders();
}
/** What an `http` hook gets when `check` would have exited 2: a block every Claude Code event understands. */
const blockBody = (reason: string): string =>
  JSON.stringify({ decision: 'block', reason: `hookwise: ${reason}` }) + '\n';

export async function serve(options: ServeOptions): Promise<RunningDaemon> {
  const { where } = options;
  const paths = daemonPaths(where);
  // Every line goes through the sanitizer: an error's message can quote the request (a JSON parse error does).
  const sink = options.log ?? (() => undefined);
  const log = (line: string): void => sink(sanitize(line).text);
  ensurePrivateDir(where.runtimeDir);
  await clearStaleSocket(paths.socket);

  // Outlives engine reloads: a confined command that is running keeps its proxy.
  const netProxy = new NetProxyHost(where.runtimeDir, {
    onLog: (e) => {
      if (e.verdict === 'refused')
        log(`network proxy refused ${e.method} ${e.host}${e.port === null ? '' : `:${e.port}`}: ${e.why}`);
    },
  });
  // Outlives engine reloads too: the model stays loaded and the indexes warm (they follow the record files).
  const embedding =
    options.embedding === false ? undefined : new EmbeddingService({ ...options.embedding, places: where, log });
  // Outlives engine reloads too: calls waiting on it keep waiting; answers reach them.
  const queue = new MemoryQueue();
  const fileQueue = new FileQueue(where.runtimeDir);
  const answerToken = newAnswerToken(where.runtimeDir);
  // Registrations an older hookwise wrote get their new names and store keys now, before the store shares them.
  upgradeRegistrations(where.runtimeDir, log);
  // The team store's replication runs in the background: calls are decided from the files, whatever the
  // store is doing.
  const fleetParts = await startFleet(where, options.store, log, queue);
  const fleet = fleetParts?.sync;
  const share = fleetParts?.share;
  const fleetQueue = fleetParts?.queue;
  // This machine's queue first (its own items and the files'), then the team's items in the store.
  const answerQueue = async (id: string, answer: HumanAnswer): Promise<AnswerResult> => {
    const here = answerAny(queue, fileQueue, id, answer);
    return here.ok || fleetQueue === undefined ? here : fleetQueue.answerAsync(id, answer);
  };
  // Outlives engine reloads too: lines of calls in flight are written with their turn's batch.
  const auditSink = new AuditGroupCommit();
  const engineOptions = (): EngineOptions => ({
    parseCacheSize: 4096,
    auditSink,
    memory: new LiveMemoryPool(),
    netProxy,
    queue: fleetQueue ?? queue,
    ...(embedding === undefined ? {} : { embedding }),
    ...(share === undefined ? {} : { fleet: { sessions: share.sessions, answers: share.answers } }),
    ...options.engine,
  });
  let engine = new Engine(where, engineOptions());
  const tag = locationsTag(where);
  const started = Date.now();
  const latency = new LatencyWindow();
  let decisions = 0;
  let queueWeb: QueueWebOptions | undefined;
  let errors = 0;
  let lastRequest = Date.now();
  let versionSkewLogged = false;
  let closing: Promise<void> | undefined;
  let markClosed: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => (markClosed = resolve));

  const handle =
    (local: boolean) =>
    async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
      lastRequest = Date.now();
      try {
        if (
          !local &&
          queueWeb !== undefined &&
          handleQueueWeb(req, res, new URL(req.url ?? '/', 'http://daemon'), queueWeb)
        )
          return;
        if (!local) {
          const refused = refuseRemote(req, options.http!.token);
          if (refused !== undefined) return send(res, refused.status, blockBody(refused.reason));
        }
        const url = new URL(req.url ?? '/', 'http://daemon');
        if (req.method === 'GET' && url.pathname === '/v1/health')
          return send(res, 200, JSON.stringify(stats()) + '\n');
        if (local && url.pathname.startsWith('/v1/queue')) return await queueRoute(req, res, url);
        const route = routeOf(req.method, url);
        if (route === undefined)
          return send(
            res,
            404,
            blockBody(
              `no such endpoint: ${req.method} ${url.pathname} (POST /v1/hook/<claude|gemini|codex>, POST /v1/check, GET /v1/health)`,
            ),
          );
        const theirs = req.headers[LOCATIONS_HEADER];
        if (route.kind === 'check' && theirs !== undefined && theirs !== tag) {
          // Another home, config or runtime directory: not ours to answer. The client decides in process.
          return send(res, 409, JSON.stringify({ error: 'this daemon serves other hookwise locations' }) + '\n');
        }
        const version = req.headers[VERSION_HEADER];
        if (route.kind === 'check' && version !== undefined && version !== VERSION && VERSION !== 'dev') {
          // After an upgrade: the client's own code decides (in process) until this daemon is restarted.
          if (!versionSkewLogged)
            log(
              `a hookwise ${String(version)} client called this ${VERSION} daemon; it decides in process until the daemon restarts (hookwise daemon stop)`,
            );
          versionSkewLogged = true;
          return send(
            res,
            409,
            JSON.stringify({ error: `this daemon runs hookwise ${VERSION}, the client ${String(version)}` }) + '\n',
          );
        }
        const body = await readBody(req);
        if (body === undefined) {
          const reason = `hook payload larger than ${MAX_PAYLOAD_BYTES} bytes`;
          auditTooLarge(where.runtimeDir, route.host ?? null, reason, log);
          return answer(res, route, { stdout: '', stderr: `hookwise: ${reason}\n`, exitCode: 2 });
        }
        const t0 = process.hrtime.bigint();
        // A decision that takes long (a session that is registering right now) sends the thin client its
        // headers early: it tells a slow decision from a hung daemon by them. Most answer well before.
        const early = route.kind === 'check' ? setTimeout(() => sendHeadersEarly(res), EARLY_HEADERS_MS) : undefined;
        // A client that goes away (its host stopped the hook) stops waiting in the human queue, if it was.
        const gone = new AbortController();
        res.on('close', () => {
          if (!res.writableFinished) gone.abort();
        });
        const result = await engine.handle(body, {
          ...(route.host === undefined ? {} : { host: route.host }),
          envRole: roleOf(req),
          geminiAsk: req.headers[GEMINI_ASK_HEADER] === 'ask',
          signal: gone.signal,
          // A thin client forwards what its hook read on stdin; an http hook's payload is the body itself.
          payloadFrom: route.kind === 'hook' ? 'http' : 'stdin',
        });
        clearTimeout(early);
        latency.add(Number(process.hrtime.bigint() - t0) / 1e6);
        // Its audit line is written with the rest of this turn's (one write): the answer leaves only after.
        if (result.audited !== undefined) await result.audited;
        decisions++;
        answer(res, route, result);
        // Then what may take a while (a confined run's snapshot read for the files it made): off the call's path.
        if (result.after !== undefined)
          void result.after().then((problem) => {
            if (problem !== undefined) log(problem.trimEnd());
          });
        return;
      } catch (error) {
        errors++;
        log(`request failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        if (!res.headersSent)
          send(
            res,
            500,
            blockBody(`the daemon could not answer: ${error instanceof Error ? error.message : String(error)}`),
          );
        else res.destroy();
      }
    };

  const queueRoute = async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> => {
    if (req.method === 'GET' && url.pathname === '/v1/queue')
      return send(res, 200, JSON.stringify(snapshotOf(queue, fileQueue, fleetQueue)) + '\n');
    if (req.method !== 'POST' || url.pathname !== '/v1/queue/answer')
      return send(res, 404, JSON.stringify({ error: `no such queue endpoint: ${req.method} ${url.pathname}` }) + '\n');
    const given = Buffer.from(/^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '');
    if (given.length !== Buffer.byteLength(answerToken) || !timingSafeEqual(given, Buffer.from(answerToken))) {
      return send(
        res,
        401,
        JSON.stringify({
          error: "missing or wrong queue answer token (it is in the runtime directory's queue/answer-token)",
        }) + '\n',
      );
    }
    const body = await readBody(req);
    let parsed: { id?: unknown; answer?: Partial<HumanAnswer> };
    try {
      parsed = JSON.parse(body ?? '') as typeof parsed;
    } catch {
      return send(res, 400, JSON.stringify({ error: 'the answer is not JSON' }) + '\n');
    }
    const a = parsed.answer;
    if (
      typeof parsed.id !== 'string' ||
      a === undefined ||
      !(ANSWER_VERDICTS as readonly unknown[]).includes(a.verdict) ||
      typeof a.alwaysAsk !== 'boolean' ||
      typeof a.addRule !== 'boolean' ||
      (a.scope !== undefined && !(ANSWER_SCOPES as readonly unknown[]).includes(a.scope)) ||
      !answerExtrasValid({ via: a.via ?? 'cli', supervisor: a.supervisor })
    ) {
      return send(
        res,
        400,
        JSON.stringify({ error: 'expected {id, answer: {verdict, alwaysAsk, addRule, scope?, via?, supervisor?}}' }) +
          '\n',
      );
    }
    // Only the lead session's MCP server says `mcp` (with or without a supervisor answer); anything else is the CLI.
    const answer: HumanAnswer = {
      verdict: a.verdict!,
      alwaysAsk: a.alwaysAsk,
      addRule: a.addRule,
      via: a.via === 'mcp' ? 'mcp' : 'cli',
      ...(a.scope === undefined ? {} : { scope: a.scope }),
      ...(a.supervisor === undefined ? {} : { supervisor: a.supervisor }),
    };
    const result = await answerQueue(parsed.id, answer);
    if (result.ok)
      log(
        `queue item ${result.item.id} answered (${answer.verdict}${answer.alwaysAsk ? ', always ask' : ''}): ${result.resolved} waiting call(s) resolved`,
      );
    return send(res, result.ok ? 200 : 404, JSON.stringify(result) + '\n');
  };

  const stats = (): DaemonStats => {
    const mem = process.memoryUsage();
    return {
      ok: true,
      version: VERSION,
      pid: process.pid,
      uptime_s: Math.round((Date.now() - started) / 1000),
      decisions,
      errors,
      p50_ms: latency.percentile(50),
      p99_ms: latency.percentile(99),
      rss_mb: Math.round(mem.rss / 1048576),
      heap_mb: Math.round(mem.heapUsed / 1048576),
      socket: paths.socket,
      http: httpAddress,
      netproxy: { allowlists: netProxy.count() },
      embedding: embedding?.stats() ?? null,
      store:
        fleet === undefined || share === undefined
          ? null
          : {
              ...fleet.status(),
              shared: share.status(),
            },
      queue_store: fleetQueue?.status() ?? null,
    };
  };

  const serverOptions = {
    maxHeaderSize: MAX_HEADER_BYTES,
    requestTimeout: 60_000,
    headersTimeout: 10_000,
    keepAliveTimeout: 30_000,
  };
  const unixServer = createServer(serverOptions, (req, res) => void handle(true)(req, res));
  await listen(unixServer, paths.socket).catch(async (error: unknown) => {
    await fleet?.close();
    throw error;
  });
  const socketIno = lstatSync(paths.socket).ino;
  let httpServer: Server | undefined;
  let httpAddress: DaemonState['http'] = null;
  if (options.http !== undefined) {
    httpServer = createServer(serverOptions, (req, res) => void handle(false)(req, res));
    try {
      await listen(httpServer, { host: '127.0.0.1', port: options.http.port });
    } catch (error) {
      unixServer.close();
      unlinkBestEffort(paths.socket);
      await embedding?.close();
      await fleet?.close();
      throw new HookwiseError(
        'USAGE',
        `cannot listen on 127.0.0.1:${options.http.port}: ${(error as Error).message} (another process holds the port? hookwise daemon status)`,
      );
    }
    const address = httpServer.address();
    httpAddress = {
      host: '127.0.0.1',
      port: typeof address === 'object' && address !== null ? address.port : options.http.port,
    };
    queueWeb = {
      queue: fleetQueue ?? queue,
      token: options.http.token,
      port: httpAddress.port,
      answer: async (id, answer) => {
        const result = await answerQueue(id, answer);
        if (result.ok)
          log(
            `queue item ${result.item.id} answered on the web page (${answer.verdict}${answer.alwaysAsk ? ', always ask' : ''}): ${result.resolved} waiting call(s) resolved`,
          );
        return result.ok ? { ok: true, resolved: result.resolved } : result;
      },
      snapshot: () => snapshotOf(queue, fileQueue, fleetQueue),
    };
  }
  const state: DaemonState = {
    pid: process.pid,
    socket: paths.socket,
    http: httpAddress,
    version: VERSION,
    started: new Date(started).toISOString(),
  };
  writeFileAtomic(paths.state, JSON.stringify(state) + '\n');
  // Warmed in the background once serving: calls that come first wait in the pool's queue (or pass the tier on).
  void embedding?.start();
  log(
    `serving ${paths.socket}${httpAddress === null ? '' : ` and http://127.0.0.1:${httpAddress.port}`} (pid ${process.pid}, hookwise ${VERSION})`,
  );

  // Housekeeping every few seconds: a daemon whose socket was removed or replaced (its runtime directory
  // deleted, another daemon took over) has nobody to serve and exits; so does an idle one, if asked to — but not
  // while calls wait in its human queue (stopping would deny them).
  const housekeeping = setInterval(() => {
    const current = lstatSync(paths.socket, { throwIfNoEntry: false }) as Stats | undefined;
    if (current === undefined || current.ino !== socketIno || !existsSync(paths.state)) {
      log('socket or state file removed or replaced: exiting');
      void close();
    } else if (
      options.idleExitMs !== undefined &&
      options.idleExitMs > 0 &&
      Date.now() - lastRequest > options.idleExitMs &&
      queue.list().length === 0 &&
      (fleetQueue?.status().waiting_shared ?? 0) === 0
    ) {
      log(`idle for ${Math.round(options.idleExitMs / 1000)} s: exiting`);
      void close();
    }
  }, 2000);
  housekeeping.unref();

  const close = (): Promise<void> => {
    closing ??= (async () => {
      clearInterval(housekeeping);
      // Calls waiting for a human end now, denied, rather than when their host gives up on them.
      queue.close();
      await fleetQueue?.close();
      await Promise.all([closeServer(unixServer), httpServer === undefined ? undefined : closeServer(httpServer)]);
      auditSink.flush();
      await netProxy.close();
      await embedding?.close();
      await fleet?.close();
      // Only our own socket and state: a successor may already have replaced them.
      const current = lstatSync(paths.socket, { throwIfNoEntry: false });
      if (current !== undefined && current.ino === socketIno) unlinkBestEffort(paths.socket);
      unlinkBestEffort(paths.state);
      log('stopped');
      markClosed();
    })();
    return closing;
  };

  return {
    paths,
    httpPort: httpAddress?.port,
    stats,
    reload() {
      engine = new Engine(where, engineOptions());
      log('reloaded: cached policy, memory and parses dropped');
    },
    close,
    closed,
  };
}

function upgradeRegistrations(runtimeDir: string, log: (line: string) => void): void {
  try {
    const r = new SessionRegistry(runtimeDir).upgradeLegacy();
    if (r.upgraded > 0) log(`sessions: ${r.upgraded} registrations of an older hookwise moved to their new names`);
    if (r.left.length > 0)
      log(
        `sessions: ${r.left.length} registrations of an older hookwise kept their old names (their ids were stored cut or redacted): those sessions must register again`,
      );
  } catch (error) {
    // Not fatal: each is upgraded when its session is next looked up; until then it is unknown (fail-closed).
    log(`sessions: upgrading older registrations failed: ${(error as Error).message}`);
  }
}

/**
 * The store's replication and the shared human queue, when a team store is set: their modules (and the
 * driver) loaded only then.
 */
async function startFleet(
  where: Locations,
  given: StoreSettings | false | undefined,
  log: (line: string) => void,
  queue: MemoryQueue,
): Promise<{ sync: FleetSync; queue: FleetQueue; share: FleetShare } | undefined> {
  let settings = given;
  if (settings === undefined) {
    const load = storeSettings(where.userConfigDir);
    for (const problem of load.problems) log(`store: ${problem}`);
    settings = load.settings;
  }
  if (settings === false || settings.kind === 'files') return undefined;
  const [{ FleetSync }, { PostgresStore }, { FleetQueue, queueStatusFile }, { FleetShare }, { ForgetPart }] =
    await Promise.all([
      import('../store/sync.js'),
      import('../store/postgres.js'),
      import('../store/queue.js'),
      import('../store/fleet-share.js'),
      import('../store/forget.js'),
    ]);
  const open = (s: typeof settings, origin: string) => PostgresStore.open(s, origin);
  const share = new FleetShare(where.runtimeDir, log);
  // What `hookwise invalidate` forgot on any machine: forgotten in this one's files and held answers too.
  const forget = new ForgetPart(where, settings.user, share.answers, log);
  const sync = new FleetSync(settings, where, open, { log, parts: [...share.parts, forget] });
  const shared = new FleetQueue(queue, settings, sync.origin, open, {
    log,
    statusFile: queueStatusFile(where.runtimeDir),
  });
  void sync.start();
  void shared.start();
  return { sync, queue: shared, share };
}

/** HOOKWISE_ROLE of the calling process (the thin client) or of Claude Code (an http hook's header). */
function roleOf(req: IncomingMessage): string | undefined {
  const value = req.headers[ROLE_HEADER];
  if (typeof value !== 'string' || value === '') return undefined;
  if (!value.startsWith('=')) return value;
  try {
    return decodeURIComponent(value.slice(1));
  } catch {
    return value;
  }
}

type Route = { kind: 'check'; host: HostName | undefined } | { kind: 'hook'; host: HostName };

function routeOf(method: string | undefined, url: URL): Route | undefined {
  if (method !== 'POST') return undefined;
  if (url.pathname === '/v1/check') {
    const host = url.searchParams.get('host');
    return { kind: 'check', host: host === null || host === '' ? undefined : parseHostName(host) };
  }
  const m = /^\/v1\/hook\/([a-z]+)$/.exec(url.pathname);
  if (m === null) return undefined;
  return { kind: 'hook', host: parseHostName(m[1]!) };
}

function answer(res: ServerResponse, route: Route, result: CheckResult): void {
  if (route.kind === 'check') {
    const envelope: { stdout: string; stderr?: string; exitCode: number } = {
      stdout: result.stdout,
      exitCode: result.exitCode,
    };
    if (result.stderr !== undefined) envelope.stderr = result.stderr;
    const body = JSON.stringify(envelope) + '\n';
    if (res.headersSent) res.end(body);
    else send(res, 200, body);
    return;
  }
  if (result.exitCode === 2 && result.stdout === '')
    return send(res, 200, blockBody((result.stderr ?? 'blocked').replace(/^hookwise: /, '').trim()));
  send(res, 200, result.stdout);
}

function send(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/**
 * Loopback HTTP is reachable by every local user and by web pages in the user's browser: a request needs the
 * bearer token (constant-time compare), a Host naming the loopback address (DNS rebinding), and no Origin (a
 * page's fetch always sends one; Claude Code never does).
 */
function refuseRemote(req: IncomingMessage, token: string): { status: number; reason: string } | undefined {
  const host = req.headers.host ?? '';
  if (!/^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/.test(host))
    return { status: 403, reason: `refused: Host "${host.slice(0, 64)}" is not the loopback address` };
  if (req.headers.origin !== undefined)
    return { status: 403, reason: 'refused: requests from web pages (with an Origin header) are not served' };
  const given = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  if (a.length !== b.length || !timingSafeEqual(a, b))
    return { status: 401, reason: 'refused: missing or wrong bearer token (see hookwise daemon status)' };
  return undefined;
}

/** The body, or undefined when it is larger than a hook payload may be (the rest is not read). */
function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      if (over) return;
      size += chunk.length;
      if (size > MAX_PAYLOAD_BYTES) {
        over = true;
        chunks.length = 0;
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!over) resolve(Buffer.concat(chunks).toString('utf8'));
    });
    req.on('error', reject);
  });
}

function listen(server: Server, where: string | { host: string; port: number }): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    const done = (): void => {
      server.off('error', reject);
      resolve();
    };
    if (typeof where === 'string') {
      // The socket is created 0600 whatever the umask (its directory is 0700 too).
      const umask = process.umask(0o177);
      try {
        server.listen(where, done);
      } finally {
        process.umask(umask);
      }
    } else server.listen(where.port, where.host, done);
  });
}

/** Calls in flight get this long to finish when the daemon stops; then their connections are cut. */
const DRAIN_MS = 5000;

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    const cut = setTimeout(() => server.closeAllConnections(), DRAIN_MS);
    server.close(() => {
      clearTimeout(cut);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/**
 * A socket file left by a dead daemon refuses connections: remove it. One that answers belongs to a live
 * daemon: refuse to start a second.
 */
async function clearStaleSocket(socket: string): Promise<void> {
  const stat = lstatSync(socket, { throwIfNoEntry: false });
  if (stat === undefined) return;
  if (!stat.isSocket())
    throw new HookwiseError('RUNTIME_DIR_UNSAFE', `${socket} exists and is not a socket; remove it and retry`);
  const alive = await new Promise<boolean>((resolve) => {
    const s = connect(socket);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
  if (alive) throw new HookwiseError('USAGE', `a hookwise daemon already serves ${socket} (hookwise daemon status)`);
  unlinkBestEffort(socket);
}

/** A refused, unread payload is a denied call: in the audit log like any other (best effort; the deny stands). */
function auditTooLarge(runtimeDir: string, host: HostName | null, reason: string, log: (line: string) => void): void {
  try {
    appendFailedCall(runtimeDir, {
      host,
      payload: undefined,
      raw: '',
      rule: 'error:INPUT_TOO_LARGE',
      reason,
      latencyMs: 0,
    });
  } catch (error) {
    log(`could not write the audit log: ${describeError(error)}`);
  }
}
