/**
 * The human queue from the command line (tier 4, src/queue/):
 *
 *   hookwise queue [--json] [--web]     what waits for an answer (and, --web, the page's address)
 *   hookwise approve <id> [--always-ask] [--add-rule] [--scope S]
 *   hookwise deny <id> [--add-rule] [--scope S]
 *
 * With a daemon running, its queue is asked over the socket (calls it serves wait there); the queue files are
 * read and answered directly too (calls decided in process wait there). An unknown id is an error (exit 1).
 */
import { request } from 'node:http';
import { HookwiseError } from '../core/errors.js';
import { socketProblem } from '../daemon/client.js';
import { readHttpConfig } from '../daemon/http-config.js';
import { daemonPaths } from '../daemon/paths.js';
import { answerAny, readAnswerToken, snapshotOf, type QueueSnapshot } from '../queue/combined.js';
import { FileQueue } from '../queue/file-queue.js';
import { REMEMBERED_ASK_TIERS } from '../queue/tier.js';
import {
  ANSWER_SCOPES,
  ID_PATTERN,
  unknownId,
  type AnswerResult,
  type AnswerScope,
  type AnswerVerdict,
  type HumanAnswer,
} from '../queue/types.js';
import { loadConfig } from '../policy/config.js';
import type { MemorySettings } from '../policy/config-types.js';
import { configFiles } from '../policy/files.js';
import { sanitize } from '../sanitize/index.js';
import { shownError } from '../sanitize/shown.js';
import type { PostgresStore } from '../store/postgres.js';
import { storeSettings } from '../store/settings.js';
import { nodeCrypto } from '../util/node-crypto.js';
import { locations, type Locations } from '../util/locations.js';
import type { CommandResult } from './rules.js';

export interface QueueListOptions {
  json?: boolean;
  web?: boolean;
}

export interface AnswerOptions {
  alwaysAsk?: boolean;
  addRule?: boolean;
  scope?: string;
}

/** A daemon request over the socket: the JSON answer, or undefined when no daemon answers (use the files). */
async function daemonCall(
  where: Locations,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  token?: string,
): Promise<{ status: number; value: unknown } | undefined> {
  const { socket } = daemonPaths(where);
  const problem = socketProblem(socket);
  if (problem === 'absent') return undefined;
  if (problem !== undefined)
    throw new HookwiseError('RUNTIME_DIR_UNSAFE', `${problem.why}: the daemon's queue is not asked`);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        socketPath: socket,
        method,
        path,
        headers: {
          host: 'hookwise',
          ...(payload === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
          ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        },
        timeout: 5000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          try {
            resolve({
              status: res.statusCode ?? 0,
              value: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown,
            });
          } catch {
            reject(
              new HookwiseError(
                'INTERNAL',
                `the daemon's queue answered ${method} ${path} with something that is not JSON`,
              ),
            );
          }
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('no answer within 5 s')));
    req.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'ECONNREFUSED' || error.code === 'ENOENT' ? resolve(undefined) : reject(error),
    );
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

/**
 * What waits: the daemon's view (its items, the files' and the team store's) when one runs, else the files'
 * and, with a team store set, the store's read directly.
 */
export async function snapshot(where: Locations): Promise<QueueSnapshot> {
  const fromDaemon = await daemonCall(where, 'GET', '/v1/queue');
  if (fromDaemon !== undefined && fromDaemon.status === 200) return fromDaemon.value as QueueSnapshot;
  const snap = snapshotOf(undefined, new FileQueue(where.runtimeDir));
  try {
    const team = await withTeamStore(where, async (store) => (await import('../store/queue.js')).listShared(store));
    if (team !== undefined) {
      snap.items.push(...team.items.map((i) => ({ ...i, backend: 'store' as const })));
      snap.problems.push(...team.problems);
    }
  } catch (error) {
    snap.problems.push(`the team store's queue could not be read: ${shownError(error)}`);
  }
  return snap;
}

/** Runs `use` on the team store when one is set (no daemon runs here to ask); undefined without one. */
async function withTeamStore<T>(where: Locations, use: (store: PostgresStore) => Promise<T>): Promise<T | undefined> {
  const { settings } = storeSettings(where.userConfigDir);
  if (settings.kind !== 'postgres') return undefined;
  const { PostgresStore } = await import('../store/postgres.js');
  const store = await PostgresStore.open(settings, 'cli');
  try {
    return await use(store);
  } finally {
    await store.close().catch(() => undefined);
  }
}

const clean = (text: string): string => sanitize(text).text;

function age(created: string, now = Date.now()): number {
  return Math.max(0, Math.round((now - Date.parse(created)) / 1000));
}

export async function queueList(o: QueueListOptions, env: NodeJS.ProcessEnv = process.env): Promise<CommandResult> {
  const where = locations(env);
  const snap = await snapshot(where);
  const stderr = snap.problems.map((p) => `hookwise: queue: ${clean(p)}`);
  const exitCode = snap.problems.length > 0 ? 1 : 0;
  const web = o.web === true ? webAddress(where) : undefined;
  if (o.json === true) {
    const items = snap.items.map((i) => ({
      id: i.id,
      kind: i.kind ?? 'human',
      sessions: i.sessions,
      role: i.role,
      task: i.task ?? null,
      tool: i.tool,
      call: i.call,
      reason: i.reason,
      tier: i.tier,
      project: i.project,
      recommendation: i.recommendation ?? null,
      age_s: age(i.created),
      waiting: i.waiting,
      backend: i.backend,
    }));
    return {
      stdout: JSON.stringify(
        { items, recent: snap.recent, problems: snap.problems, ...(web === undefined ? {} : { web }) },
        null,
        2,
      ),
      stderr: stderr.join('\n'),
      exitCode,
    };
  }
  const lines: string[] = [];
  if (web !== undefined) lines.push(`web page: ${web}`, '');
  if (snap.items.length === 0) lines.push('hookwise: nothing waits for an answer');
  for (const i of snap.items) {
    const sessions =
      i.sessions.length <= 2
        ? i.sessions.join(', ')
        : `${i.sessions.slice(0, 2).join(', ')} and ${i.sessions.length - 2} more`;
    const where = i.backend === 'store' ? ' (team)' : '';
    lines.push(
      `${i.id}  ${age(i.created)}s  ${i.waiting} waiting${where}  role ${i.role}  session ${sessions}  ${i.tool}`,
    );
    lines.push(`    call: ${i.call}`);
    lines.push(`    why:  ${i.reason}`);
    if (i.task !== undefined) lines.push(`    task: ${i.task}`);
    if (i.recommendation !== undefined)
      lines.push(
        `    supervisor: ${i.recommendation.decision} (confidence ${i.recommendation.confidence.toFixed(2)}): ${i.recommendation.reason}`,
      );
  }
  if (snap.items.length > 0)
    lines.push(
      '',
      'answer: hookwise approve <id> [--always-ask] [--add-rule] [--scope user|project|session] · hookwise deny <id>',
    );
  return { stdout: lines.join('\n'), stderr: stderr.join('\n'), exitCode };
}

/** Answers an item through the daemon when one runs (its token read from the runtime directory), else the files. */
export async function answerItem(where: Locations, id: string, answer: HumanAnswer): Promise<AnswerResult> {
  let result: AnswerResult | undefined;
  const token = readAnswerToken(where.runtimeDir);
  const fromDaemon =
    token === undefined ? undefined : await daemonCall(where, 'POST', '/v1/queue/answer', { id, answer }, token);
  if (fromDaemon !== undefined && (fromDaemon.status === 200 || fromDaemon.status === 404))
    result = fromDaemon.value as AnswerResult;
  else if (fromDaemon !== undefined)
    throw new HookwiseError(
      'INTERNAL',
      `the daemon refused the answer: ${clean(JSON.stringify(fromDaemon.value)).slice(0, 300)}`,
    );
  if (result !== undefined) return result;
  // No daemon (or a stale token): the files, then the team store's items, answered there directly.
  const here = answerAny(undefined, new FileQueue(where.runtimeDir), id, answer);
  if (here.ok) return here;
  const team = await withTeamStore(where, async (store) =>
    (await import('../store/queue.js')).answerShared(store, id, answer, nodeCrypto().randomBytes(16).toString('hex')),
  );
  return team ?? here;
}

/** The page's address with the token in the fragment (never sent to the server, removed by the page). */
function webAddress(where: Locations): string {
  const http = readHttpConfig(where);
  if (http === undefined)
    throw new HookwiseError(
      'USAGE',
      'the queue page is served by the daemon on loopback HTTP: start it with hookwise daemon start --http',
    );
  return `http://127.0.0.1:${http.port}/queue#token=${http.token}`;
}

export async function queueAnswer(
  verdict: AnswerVerdict,
  id: string,
  o: AnswerOptions,
  env: NodeJS.ProcessEnv = process.env,
): Promise<CommandResult> {
  if (o.alwaysAsk === true && verdict === 'deny')
    throw new HookwiseError(
      'USAGE',
      '--always-ask goes with approve (allowed now, asked every time); deny is remembered as deny',
    );
  if (o.scope !== undefined && !(ANSWER_SCOPES as readonly string[]).includes(o.scope)) {
    throw new HookwiseError(
      'USAGE',
      `--scope must be one of ${ANSWER_SCOPES.join(', ')} (got "${clean(o.scope)}"; org decisions: hookwise override --scope org)`,
    );
  }
  if (!ID_PATTERN.test(id)) return { stdout: '', stderr: `hookwise: ${unknownId(id)}`, exitCode: 1 };
  const answer: HumanAnswer = {
    verdict,
    alwaysAsk: o.alwaysAsk === true,
    addRule: o.addRule === true,
    via: 'cli',
    ...(o.scope === undefined ? {} : { scope: o.scope as AnswerScope }),
  };
  const where = locations(env);
  const result = await answerItem(where, id, answer);
  if (!result.ok) return { stdout: '', stderr: `hookwise: ${result.why}`, exitCode: 1 };
  const { item, resolved } = result;
  const done = verdict === 'deny' ? 'denied' : answer.alwaysAsk ? 'approved (this once; asked every time)' : 'approved';
  const remembered = REMEMBERED_ASK_TIERS.has(item.tier)
    ? rememberedAs(verdict, answer, memorySettings(item.project, where))
    : `for these calls only: ${item.rule ?? item.tier} asks a human every time`;
  return {
    stdout: `hookwise: ${done} queue item ${item.id} (${item.tool}: ${item.call.length > 120 ? `${item.call.slice(0, 120)}…` : item.call}); ${resolved} waiting call${resolved === 1 ? '' : 's'} answered; ${remembered}`,
    stderr: '',
    exitCode: 0,
  };
}

/** The memory settings the waiting call remembers the answer by (memory.learn_scope is the user's own). */
function memorySettings(project: string, where: Locations): MemorySettings {
  return loadConfig(project, configFiles(project, where.userConfigDir)).config.memory;
}

/** What the waiting call does with the answer, in the words its own note uses (queue/remember.ts). */
function rememberedAs(verdict: AnswerVerdict, answer: HumanAnswer, memory: MemorySettings): string {
  if (!memory.learn && !answer.addRule) return `not remembered: memory.learn is off (${memory.source})`;
  const as = verdict === 'deny' ? 'deny' : answer.alwaysAsk ? 'ask' : 'allow';
  const scope = answer.scope ?? memory.learnScope;
  const why = answer.scope === undefined ? ` (memory.learn_scope, ${memory.source})` : '';
  return `remembered as ${as}${answer.addRule ? ' (as an override)' : ''} in the ${scope} scope${why}`;
}
