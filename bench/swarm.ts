/**
 * `hookwise bench --swarm`: load on a real daemon. Many concurrent keep-alive HTTP clients (a swarm of
 * agents, each with its hook calls on one connection) POST real payloads to `hookwise serve` over its Unix
 * socket for a while; the report gives decisions/s, client-side latency (p50/p99/max), errors, the daemon's
 * memory and own latency, where the CPU went, and — the point of it all — how many answers differ from the
 * verdict the same engine gives in process.
 *
 * The world is a throw-away fixture (bench/fixture.ts): a project whose committed memory remembers a few
 * hundred synthetic Bash commands for the registered `coder` role — allowed, every tenth kept asking —
 * (lines from the real store writer, subjects from the real parser), and the built daemon started with the
 * fixture's environment.
 *
 * The payload mix (every payload distinct, each its own tool_use_id): remembered Bash commands, synthetic
 * ones nobody remembered, read-only git, force pushes, Writes the role may and may not make, Edits and a
 * Read of sensitive paths, malformed payloads.
 *
 * The reference: before the daemon starts, an Engine in this process with the options `hookwise check`
 * uses in process (memory loaded per call, no parse cache; the daemon's live memory is under test too) plus
 * the daemon's tier 2b (an embedding pool in this process; the indexes built first, as `hookwise build`
 * does), on the same locations, decides every payload twice. Deciding can change state — an ask no tier decided leaves a
 * pending note; an ask propagated by similarity is recorded for that exact call, so its repeat comes from
 * the exact cache — so a payload whose two answers differ is "state-changing": the daemon's answers to it
 * are compared by verdict and exit code with the second (settled) answer. Every other payload must get
 * exactly the reference's stdout, stderr and exit code.
 */
import { Agent, request } from 'node:http';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { buildIndexes } from '../src/cli/build-index.js';
import { EmbeddingService } from '../src/embed/client.js';
import { claudeAdapter } from '../src/hosts/claude.js';
import { Engine, type CheckResult } from '../src/engine/engine.js';
import { cacheKey } from '../src/memory/cache.js';
import { recordFor } from '../src/memory/learn.js';
import { appendRecords, type DecisionRecord, type StoreTarget } from '../src/memory/store.js';
import { callSubject, type CallSubject } from '../src/memory/subject.js';
import { resolvePath } from '../src/paths/canonical.js';
import type { Sanitized } from '../src/sanitize/index.js';
import { SessionRegistry } from '../src/session/registry.js';
import { prepareShell } from '../src/shell/prepare.js';
import { daemonPaths, LOCATIONS_HEADER, locationsTag } from '../src/daemon/paths.js';
import { locations } from '../src/util/locations.js';
import { startDaemon, type BenchDaemon } from './daemon-process.js';
import { createFixture, type BenchFixture } from './fixture.js';
import { benchMeta } from './run.js';
import { preToolPayloads } from './inputs.js';
import { quantile } from './stats.js';
import { syntheticCommands } from './synthetic-commands.js';

export interface SwarmOptions {
  /** Concurrent keep-alive clients (default 64; 8 with quick). */
  clients?: number;
  /** How long they send (default 15; 3 with quick). */
  seconds?: number;
  /** A smaller payload mix and shorter defaults: a smoke test. */
  quick?: boolean;
  /**
   * Calls per second each client sends at most (paced, like an agent that thinks between tool calls); absent,
   * each sends its next call as soon as the last is answered (saturation). Latency at a realistic load.
   */
  rate?: number;
  progress?: (message: string) => void;
  /** Node options for the daemon process, e.g. ['--cpu-prof', '--cpu-prof-dir', dir] to profile it. */
  daemonNodeArgs?: readonly string[];
  /**
   * One registered session for all clients (`shared`), as the swarm was before 2026-11-28's second pass; default
   * `per-client`: each client is an agent of its own session, as in a real swarm (the issue's "64 clients of
   * registered sessions"). What a session leaves waiting (pending notes) then piles up per agent, not for all.
   */
  sessions?: 'per-client' | 'shared';
}

/** The issue's targets on a 2-CPU machine, 64 clients for 15 s. */
export const SWARM_TARGETS = { decisionsPerS: 20_000, p99Ms: 5, differing: 0 } as const;

export const PAYLOAD_KINDS = [
  'bash-remembered',
  'bash-novel',
  'bash-similar',
  'git-read-only',
  'force-push',
  'write-allowed',
  'write-denied',
  'sensitive',
  'malformed',
] as const;
export type PayloadKind = (typeof PAYLOAD_KINDS)[number];

export interface SwarmDifference {
  kind: PayloadKind;
  label: string;
  expected: string;
  got: string;
  count: number;
}

export interface SwarmReport {
  meta: {
    node: string;
    platform: string;
    cpus: number;
    cpuModel: string;
    date: string;
    quick: boolean;
    loadavg: number[];
  };
  clients: number;
  seconds: number;
  /** Calls per second per client, or null: as fast as answered. */
  rate: number | null;
  /** Registered sessions the clients call for: one per client, or one for all. */
  sessions: number;
  payloads: {
    distinct: number;
    byKind: Record<PayloadKind, number>;
    /** Records in the project's memory: allows, and every tenth an ask. */
    remembered: number;
    /** Verdicts of the reference, per kind: `verdict/tier` → payloads. */
    verdicts: Record<string, number>;
    /** Payloads whose in-process answer changed from the first decision to the second (and why). */
    stateChanging: { kind: PayloadKind; label: string; first: string; second: string }[];
  };
  /** One sequential pass over every payload before the swarm (not in the throughput). */
  warmup: { answers: number; differing: number; errors: number };
  /** Seconds from the first request to the last answer. */
  elapsedS: number;
  decisions: number;
  decisionsPerS: number;
  latencyMs: { p50: number; p99: number; max: number; mean: number };
  errors: number;
  errorSamples: string[];
  /** Answers whose verdict or exit code (or, for a payload without state change, any byte) differ from the reference. */
  differing: number;
  differingSamples: SwarmDifference[];
  /** Answers to state-changing payloads with the reference's verdict and exit code but other text (reason, tier). */
  sameVerdictOtherText: number;
  daemon: {
    pid: number;
    rssMbBefore: number;
    rssMbAfter: number;
    heapMbAfter: number;
    p50Ms: number | null;
    p99Ms: number | null;
    decisions: number;
    errors: number;
  };
  /** CPU seconds during the swarm: the daemon (from /proc; null elsewhere) and this process (the clients). */
  cpu: {
    daemonS: number | null;
    /** The daemon's main thread alone (where every decision runs; /proc task stat): its bound on throughput. */
    daemonMainS: number | null;
    clientS: number;
    daemonUsPerDecision: number | null;
    daemonMainUsPerDecision: number | null;
    clientUsPerDecision: number;
  };
  targets: typeof SWARM_TARGETS;
}

interface Payload {
  kind: PayloadKind;
  label: string;
  raw: string;
  body: Buffer;
  /** The daemon's exact response body for the settled reference answer. */
  envelope: string;
  reference: CheckResult;
  verdict: string;
  stateChanging: boolean;
}

const SIZES = {
  quick: { remembered: 60, novel: 20, writes: 10 },
  full: { remembered: 300, novel: 60, writes: 30 },
} as const;
const SEED = 11;
/**
 * [an ask a human kept, a call that differs from it by one value]. Similarity propagates the ask where the
 * threshold and the shape guard let it (the report lists those calls as state-changing); the others are
 * asks no tier decided.
 */
const SIMILAR_ASKS: readonly (readonly [string, string])[] = [
  ['npm run deploy -- --env staging-3', 'npm run deploy -- --env staging-4'],
  ['make release VERSION=1.4.2', 'make release VERSION=1.4.3'],
  ['node scripts/migrate.js --target 20260101', 'node scripts/migrate.js --target 20260102'],
  ['docker compose logs -f --tail 100 api', 'docker compose logs -f --tail 250 api'],
];
/** The session the payloads are made for (and the reference decided); a client of its own session gets its own name in its place. */
const SWARM_SESSION = 'swarm-agent-ref';
const REMEMBERED_REASON = 'approved at the host’s permission prompt after hookwise asked' as Sanitized;

export async function runSwarm(options: SwarmOptions = {}): Promise<SwarmReport> {
  const quick = options.quick === true;
  const clients = options.clients ?? (quick ? 8 : 64);
  const seconds = options.seconds ?? (quick ? 3 : 15);
  if (!Number.isInteger(clients) || clients < 1)
    throw new Error(`bench: --clients takes a positive integer, not ${clients}`);
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new Error(`bench: --seconds takes a positive number, not ${seconds}`);
  const progress = options.progress ?? (() => undefined);
  const fixture = createFixture();
  try {
    const where = locations(fixture.env);
    const sessionIds =
      options.sessions === 'shared'
        ? [SWARM_SESSION]
        : [SWARM_SESSION, ...Array.from({ length: clients }, (_, c) => `swarm-agent-${c}`)];
    const registry = new SessionRegistry(where.runtimeDir);
    for (const id of sessionIds)
      registry.update(id, (existing, now) => ({
        session_id: id,
        role: fixture.role,
        disabled: false,
        registered_at: existing?.registered_at ?? now,
        updated_at: now,
      }));
    progress('swarm: building the payload mix and the project’s memory…');
    const sizes = quick ? SIZES.quick : SIZES.full;
    const { drafts, remembered } = await buildPayloads(fixture, sizes, SWARM_SESSION);

    // Tier 2b's indexes, built now as `hookwise build` does: otherwise the first calls to reach the tier find
    // an index still being built (the tier passes them on) and later ones an index that answers, in the
    // reference and in the daemon alike, and at different moments in each.
    progress('swarm: building the embedding indexes (hookwise build)…');
    const built = await buildIndexes({ json: true }, {}, fixture.env, fixture.projectDir);
    if (built.exitCode !== 0) throw new Error(`bench: hookwise build failed: ${built.stderr.trim()}`);

    progress(`swarm: deciding ${drafts.length} payloads in process (the reference)…`);
    // The daemon decides with tier 2b (its embedding pool); the reference gets the same tier in process, or
    // every call the embedding tier allows would count as a difference.
    const embedding = new EmbeddingService({ places: where });
    const first: CheckResult[] = [];
    const payloads: Payload[] = [];
    try {
      const warm = await embedding.start();
      if (!warm.ok) progress(`swarm: no tier 2b in the reference: ${warm.why}`);
      const engine = new Engine(where, { embedding });
      for (const d of drafts) first.push(await engine.handle(d.raw));
      for (let i = 0; i < drafts.length; i++) {
        const d = drafts[i]!;
        const settled = await engine.handle(d.raw);
        const body = Buffer.from(d.raw, 'utf8');
        payloads.push({
          ...d,
          body,
          reference: settled,
          envelope: envelopeOf(settled),
          verdict: verdictOf(settled),
          stateChanging: !sameAnswer(first[i]!, settled),
        });
      }
    } finally {
      // Saves what the reference added to the indexes (asks recorded by similarity): the daemon starts from it.
      await embedding.close();
    }

    progress('swarm: starting hookwise serve…');
    const daemon = await startDaemon(
      fixture.env,
      options.daemonNodeArgs === undefined ? {} : { nodeArgs: options.daemonNodeArgs },
    );
    try {
      await embeddingReady(daemon);
      const target = { socketPath: daemonPaths(where).socket, tag: locationsTag(where) };
      const tally = new Tally();
      // One pass in order, one connection: every payload answered once before the clock starts.
      const warmAgent = new Agent({ keepAlive: true, maxSockets: 1 });
      for (const p of payloads) tally.check(p, await post(target, warmAgent, p.body));
      warmAgent.destroy();
      const warmup = { answers: payloads.length, differing: tally.differing, errors: tally.errors };
      const before = await daemon.health();

      // Each client's bodies and the answers it must get, made before the clock starts: its own session's (a
      // reason may name the session: `hookwise switch --session-id …`), or the shared one's as they are.
      const expected = Array.from({ length: clients }, (_, c) =>
        options.sessions === 'shared'
          ? payloads.map((p) => p.envelope)
          : payloads.map((p) => p.envelope.replaceAll(SWARM_SESSION, sessionIds[c + 1]!)),
      );
      const bodies = Array.from({ length: clients }, (_, c) =>
        options.sessions === 'shared'
          ? payloads.map((p) => p.body)
          : payloads.map((p) => withSession(p.raw, sessionIds[c + 1]!)),
      );
      progress(`swarm: ${clients} clients for ${seconds} s…`);
      const run = new Tally();
      const daemonCpu0 = procCpuSeconds(daemon.pid);
      const daemonMain0 = procCpuSeconds(daemon.pid, daemon.pid);
      const clientCpu0 = process.cpuUsage();
      const started = process.hrtime.bigint();
      const deadline = started + BigInt(Math.round(seconds * 1e9));
      const latencies: number[] = [];
      let last = started;
      const ticker = setInterval(() => progress(`swarm: ${latencies.length} answers…`), 5000);
      try {
        await Promise.all(
          Array.from({ length: clients }, async (_, c) => {
            const agent = new Agent({ keepAlive: true, maxSockets: 1 });
            try {
              // Each client walks the whole mix from its own starting point.
              const first = Math.floor((c * payloads.length) / clients);
              for (let i = first; process.hrtime.bigint() < deadline; i++) {
                const p = payloads[i % payloads.length]!;
                const body = bodies[c]![i % payloads.length]!;
                if (options.rate !== undefined) {
                  // Client c starts at its own offset within the first period, so the swarm does not send in lockstep.
                  const due =
                    started + BigInt(Math.round(((i - first) / options.rate + c / (clients * options.rate)) * 1e9));
                  const wait = Number(due - process.hrtime.bigint()) / 1e6;
                  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
                  if (process.hrtime.bigint() >= deadline) break;
                }
                const t0 = process.hrtime.bigint();
                const answer = await post(target, agent, body);
                const t1 = process.hrtime.bigint();
                if (t1 > last) last = t1;
                // Latency of answers only: a refused connection is an error, not a fast decision.
                if (run.check(p, answer, expected[c]![i % payloads.length]!)) latencies.push(Number(t1 - t0) / 1e6);
              }
            } finally {
              agent.destroy();
            }
          }),
        );
      } finally {
        clearInterval(ticker);
      }
      const clientCpu = process.cpuUsage(clientCpu0);
      const daemonCpu1 = procCpuSeconds(daemon.pid);
      const daemonMain1 = procCpuSeconds(daemon.pid, daemon.pid);
      const after = await daemon.health();
      const elapsedS = Number(last - started) / 1e9;
      latencies.sort((a, b) => a - b);
      const decisions = latencies.length;
      const clientS = (clientCpu.user + clientCpu.system) / 1e6;
      const daemonS = daemonCpu0 === null || daemonCpu1 === null ? null : daemonCpu1 - daemonCpu0;
      const daemonMainS = daemonMain0 === null || daemonMain1 === null ? null : daemonMain1 - daemonMain0;
      const verdicts: Record<string, number> = {};
      for (const p of payloads) {
        const tier = tierOf(p.reference);
        const key = `${p.kind}: ${p.verdict}${tier === undefined ? '' : ` (${tier})`}`;
        verdicts[key] = (verdicts[key] ?? 0) + 1;
      }
      const byKind = Object.fromEntries(
        PAYLOAD_KINDS.map((k) => [k, payloads.filter((p) => p.kind === k).length]),
      ) as Record<PayloadKind, number>;
      return {
        meta: { ...benchMeta(), quick, loadavg: loadavg().map((l) => Math.round(l * 100) / 100) },
        clients,
        seconds,
        rate: options.rate ?? null,
        sessions: options.sessions === 'shared' ? 1 : clients,
        payloads: {
          distinct: payloads.length,
          byKind,
          remembered,
          verdicts,
          stateChanging: payloads
            .map((p, i) => ({ p, i }))
            .filter(({ p }) => p.stateChanging)
            .map(({ p, i }) => ({
              kind: p.kind,
              label: p.label,
              first: describe(first[i]!),
              second: describe(p.reference),
            })),
        },
        warmup,
        elapsedS,
        decisions,
        decisionsPerS: decisions / elapsedS,
        latencyMs: {
          p50: quantile(latencies, 0.5),
          p99: quantile(latencies, 0.99),
          max: latencies[latencies.length - 1] ?? Number.NaN,
          mean: latencies.reduce((a, b) => a + b, 0) / latencies.length,
        },
        errors: warmup.errors + run.errors,
        errorSamples: [...tally.errorSamples, ...run.errorSamples].slice(0, 5),
        differing: warmup.differing + run.differing,
        differingSamples: mergeSamples(tally.samples, run.samples),
        sameVerdictOtherText: tally.sameVerdictOtherText + run.sameVerdictOtherText,
        daemon: {
          pid: daemon.pid,
          rssMbBefore: before.rss_mb,
          rssMbAfter: after.rss_mb,
          heapMbAfter: after.heap_mb,
          p50Ms: after.p50_ms,
          p99Ms: after.p99_ms,
          decisions: after.decisions,
          errors: after.errors,
        },
        cpu: {
          daemonS,
          daemonMainS,
          clientS,
          daemonUsPerDecision: daemonS === null ? null : (daemonS * 1e6) / decisions,
          daemonMainUsPerDecision: daemonMainS === null ? null : (daemonMainS * 1e6) / decisions,
          clientUsPerDecision: (clientS * 1e6) / decisions,
        },
        targets: SWARM_TARGETS,
      };
    } finally {
      await daemon.stop();
    }
  } finally {
    fixture.cleanup();
  }
}

/**
 * The daemon loads its embedding model in the background once serving; until it is warm, tier 2b passes
 * calls on. Measure the daemon as it serves once warm: wait for the model (or its failure) first.
 */
async function embeddingReady(daemon: BenchDaemon): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const state = (await daemon.health()).embedding?.state;
    if (state === undefined || state === 'ready' || state === 'failed' || state === 'stopped') return;
    if (Date.now() > deadline) throw new Error('bench: the daemon’s embedding model did not load within 120 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

type Answer = { ok: true; status: number; body: string } | { ok: false; error: string };

export function post(target: { socketPath: string; tag: string }, agent: Agent, body: Buffer): Promise<Answer> {
  return new Promise((resolve) => {
    const req = request(
      {
        agent,
        socketPath: target.socketPath,
        method: 'POST',
        path: '/v1/check',
        headers: { 'content-type': 'application/json', 'content-length': body.length, [LOCATIONS_HEADER]: target.tag },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ ok: true, status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', (error) => resolve({ ok: false, error: error.message }));
      },
    );
    req.on('error', (error) => resolve({ ok: false, error: error.message }));
    req.end(body);
  });
}

/** Answers checked against the reference. */
class Tally {
  errors = 0;
  errorSamples: string[] = [];
  differing = 0;
  sameVerdictOtherText = 0;
  samples: SwarmDifference[] = [];

  /** Whether the daemon answered (a decision, right or wrong); false for an error. */
  check(p: Payload, answer: Answer, envelope = p.envelope): boolean {
    if (!answer.ok || answer.status !== 200) {
      this.errors++;
      if (this.errorSamples.length < 5)
        this.errorSamples.push(answer.ok ? `status ${answer.status}: ${answer.body.slice(0, 200)}` : answer.error);
      return false;
    }
    if (answer.body === envelope) return true; // the common case: byte for byte what the engine answered in process
    let got: CheckResult;
    try {
      got = JSON.parse(answer.body) as CheckResult;
    } catch {
      this.errors++;
      if (this.errorSamples.length < 5) this.errorSamples.push(`not JSON: ${answer.body.slice(0, 200)}`);
      return false;
    }
    if (p.stateChanging && got.exitCode === p.reference.exitCode && verdictOf(got) === p.verdict) {
      this.sameVerdictOtherText++;
      return true;
    }
    this.differing++;
    const expected = describe(p.reference);
    const seen = describe(got);
    const held = this.samples.find((s) => s.label === p.label && s.got === seen);
    if (held !== undefined) held.count++;
    else if (this.samples.length < 10)
      this.samples.push({ kind: p.kind, label: p.label, expected, got: seen, count: 1 });
    return true;
  }
}

function mergeSamples(a: SwarmDifference[], b: SwarmDifference[]): SwarmDifference[] {
  const out = a.map((s) => ({ ...s }));
  for (const s of b) {
    const held = out.find((o) => o.label === s.label && o.got === s.got);
    if (held !== undefined) held.count += s.count;
    else if (out.length < 10) out.push({ ...s });
  }
  return out;
}

/** What the daemon's /v1/check answers for this result (src/daemon/server.ts: stdout, exitCode, stderr?). */
function envelopeOf(r: CheckResult): string {
  const envelope: { stdout: string; exitCode: number; stderr?: string } = { stdout: r.stdout, exitCode: r.exitCode };
  if (r.stderr !== undefined) envelope.stderr = r.stderr;
  return JSON.stringify(envelope) + '\n';
}

function sameAnswer(a: CheckResult, b: CheckResult): boolean {
  return a.stdout === b.stdout && a.exitCode === b.exitCode && a.stderr === b.stderr;
}

/** The host verdict in a Claude Code answer (`allow`, `deny`, `ask`), or how it failed (`exit 2`, `empty`). */
export function verdictOf(r: Pick<CheckResult, 'stdout' | 'exitCode'>): string {
  if (r.stdout === '') return r.exitCode === 0 ? 'empty' : `exit ${r.exitCode}`;
  try {
    const out = JSON.parse(r.stdout) as { hookSpecificOutput?: { permissionDecision?: string } };
    return out.hookSpecificOutput?.permissionDecision ?? 'no verdict';
  } catch {
    return 'not JSON';
  }
}

function tierOf(r: Pick<CheckResult, 'stdout'>): string | undefined {
  return /\[tier ([a-z0-9-]+)/.exec(r.stdout)?.[1];
}

function describe(r: Pick<CheckResult, 'stdout' | 'exitCode' | 'stderr'>): string {
  const tier = tierOf(r);
  const stderr =
    r.stderr === undefined || r.stderr === '' ? '' : `, stderr ${JSON.stringify(r.stderr.trim().slice(0, 120))}`;
  return `${verdictOf(r)}${tier === undefined ? '' : ` (tier ${tier})`}, exit ${r.exitCode}${stderr}`;
}

/** utime + stime of a process, or of one of its threads, in seconds (Linux /proc); null where there is none. */
export function procCpuSeconds(pid: number, thread?: number): number | null {
  try {
    const stat = readFileSync(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at ") ": state is field 3; utime, stime are 14, 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks / CLOCK_TICKS : null;
  } catch {
    return null;
  }
}

/** USER_HZ: 100 on every Linux architecture Node runs on. */
const CLOCK_TICKS = 100;

type Draft = Pick<Payload, 'kind' | 'label' | 'raw'>;

/** A payload as another session sends it: its session_id replaced (a malformed one is sent as it is). */
function withSession(raw: string, sessionId: string): Buffer {
  try {
    const value = JSON.parse(raw) as unknown;
    if (typeof value === 'object' && value !== null && !Array.isArray(value) && 'session_id' in value)
      return Buffer.from(JSON.stringify({ ...value, session_id: sessionId }), 'utf8');
  } catch {
    // not JSON: the same bytes for every client
  }
  return Buffer.from(raw, 'utf8');
}

/**
 * The distinct payloads, and the project's memory: the first `remembered` synthetic commands remembered as
 * allowed for the role (the real parser and callSubject make the subject, the real store writer the line).
 */
async function buildPayloads(
  fixture: BenchFixture,
  sizes: { remembered: number; novel: number; writes: number },
  sessionId: string,
): Promise<{ drafts: Draft[]; remembered: number }> {
  const project = fixture.projectDir;
  const pre = preToolPayloads(project, 'toolu_swarm_', () => sessionId);
  const drafts: Draft[] = [];
  const bash = (kind: PayloadKind, command: string): void =>
    void drafts.push({ kind, label: `Bash ${command}`, raw: pre('Bash', { command }) });

  const pathContext = { projectRoot: project, home: fixture.where.home, cwd: project };
  /** What memory stores for a payload's call: the real parser and callSubject. */
  const subjectOf = async (raw: string): Promise<CallSubject | undefined> => {
    const event = claudeAdapter.parse(JSON.parse(raw) as Record<string, unknown>);
    if (event.kind !== 'pre-tool') throw new Error(`bench: a Bash payload parsed as ${event.kind}`);
    const shell = await prepareShell(event.call, pathContext);
    return callSubject(
      event.call,
      event.call.paths.map((p) => resolvePath(p, pathContext)),
      shell,
    );
  };
  const commands = syntheticCommands(sizes.remembered + sizes.novel, SEED);
  const target: StoreTarget = { scope: 'project', projectRoot: project };
  const records: DecisionRecord[] = [];
  for (const [i, command] of commands.entries()) {
    const kind: PayloadKind = i < sizes.remembered ? 'bash-remembered' : 'bash-novel';
    bash(kind, command);
    if (kind !== 'bash-remembered') continue;
    const subject = await subjectOf(drafts[drafts.length - 1]!.raw);
    if (subject === undefined) continue; // no memory subject: a policy tier decides it anyway
    // Mostly approvals; every tenth an ask a human chose to keep asking (a similar call then gets an ask
    // propagated by similarity, which is recorded for that exact call: a state change).
    const verdict = records.length % 10 === 9 ? 'ask' : 'allow';
    const reason = verdict === 'allow' ? REMEMBERED_REASON : ('kept asking by the user' as Sanitized);
    records.push(
      recordFor(
        subject,
        cacheKey(subject.tool, subject.text),
        {
          role: fixture.role,
          verdict,
          reason,
          tier: 'human',
          decided_by: verdict === 'allow' ? 'host-prompt' : 'human',
        },
        target,
      ),
    );
  }
  // Asks kept by a human, and a call like each with one value swapped: similarity propagates the ask, and
  // the engine records it for that exact call (the next time the exact cache answers).
  for (const [kept, similar] of SIMILAR_ASKS) {
    const subject = await subjectOf(pre('Bash', { command: kept }));
    if (subject === undefined) throw new Error(`bench: \`${kept}\` has no memory subject`);
    records.push(
      recordFor(
        subject,
        cacheKey(subject.tool, subject.text),
        {
          role: fixture.role,
          verdict: 'ask',
          reason: 'kept asking by the user' as Sanitized,
          tier: 'human',
          decided_by: 'human',
        },
        target,
      ),
    );
    bash('bash-similar', similar);
  }
  appendRecords(target, records);

  for (const command of [
    'git status',
    'git status --short',
    'git log --oneline -n 20',
    'git diff --stat',
    'git diff HEAD~1',
    'git show HEAD',
    'git branch -a',
    'git remote -v',
    'git rev-parse HEAD',
    'git blame src/index.ts',
  ]) {
    bash('git-read-only', command);
  }
  for (const command of [
    'git push --force origin main',
    'git push -f origin HEAD:main',
    'git push --force-with-lease origin feature/x',
  ])
    bash('force-push', command);

  const modules = [
    'auth',
    'billing',
    'cache',
    'cli',
    'core',
    'db',
    'http',
    'jobs',
    'parser',
    'queue',
    'router',
    'search',
    'session',
    'storage',
    'ui',
  ];
  for (let i = 0; i < sizes.writes; i++) {
    const file = join(project, 'src', modules[i % modules.length]!, `file${i}.ts`);
    drafts.push({
      kind: 'write-allowed',
      label: `Write ${file}`,
      raw: pre('Write', { file_path: file, content: `export const n${i} = ${i};\n` }),
    });
  }
  const denied = [
    'tests/auth.test.ts',
    'tests/unit/db.test.ts',
    'docs/guide.md',
    'docs/api/index.md',
    '.github/workflows/ci.yml',
    'infra/main.tf',
    'terraform/vars.tfvars',
    'src/session.spec.ts',
  ];
  for (const [i, rel] of denied.slice(0, Math.max(4, Math.ceil(sizes.writes / 2))).entries()) {
    const file = join(project, rel);
    drafts.push({
      kind: 'write-denied',
      label: `Write ${file}`,
      raw: pre('Write', { file_path: file, content: `// ${i}\n` }),
    });
  }
  for (const rel of [
    '.env',
    '.env.local',
    'config/.env.production',
    '.hookwise/policy.yml',
    '.claude/settings.json',
    'src/secrets/key.pem',
    '.git/hooks/pre-commit',
  ]) {
    const file = join(project, rel);
    drafts.push({
      kind: 'sensitive',
      label: `Edit ${file}`,
      raw: pre('Edit', { file_path: file, old_string: 'a', new_string: 'b' }),
    });
  }
  drafts.push({
    kind: 'sensitive',
    label: 'Read ~/.ssh/id_rsa',
    raw: pre('Read', { file_path: join(fixture.where.home, '.ssh', 'id_rsa') }),
  });

  const malformed: [string, string][] = [
    ['not JSON', '{"session_id": "hookwise-bench", "tool_name": "Bash",'],
    ['a JSON array', '[1, 2, 3]'],
    ['empty', ''],
    [
      'PreToolUse without a tool',
      JSON.stringify({ session_id: sessionId, cwd: project, hook_event_name: 'PreToolUse' }),
    ],
    [
      'Bash without a command',
      JSON.stringify({
        session_id: sessionId,
        cwd: project,
        hook_event_name: 'PreToolUse',
        tool_name: 'Bash',
        tool_input: {},
        tool_use_id: 'toolu_swarm_bad',
      }),
    ],
  ];
  for (const [label, raw] of malformed) drafts.push({ kind: 'malformed', label, raw });
  return { drafts, remembered: records.length };
}

export function renderSwarm(r: SwarmReport): string {
  const f = (n: number | null, digits = 2): string => (n === null || !Number.isFinite(n) ? 'n/a' : n.toFixed(digits));
  const met = (ok: boolean): string => (ok ? 'ok' : 'MISS');
  const kinds = PAYLOAD_KINDS.map((k) => `${r.payloads.byKind[k]} ${k}`).join(', ');
  const lines = [
    `hookwise bench --swarm: node ${r.meta.node}, ${r.meta.platform}, ${r.meta.cpus} CPUs (${r.meta.cpuModel})${r.meta.quick ? ', --quick' : ''}; load average ${r.meta.loadavg.join(' ')}`,
    '',
    `payloads     ${r.payloads.distinct} distinct: ${kinds}; ${r.payloads.remembered} remembered in the project's memory (every tenth an ask)`,
    `reference    ${Object.entries(r.payloads.verdicts)
      .map(([k, v]) => `${v} ${k}`)
      .join(', ')}`,
    `             ${r.payloads.stateChanging.length} changed state when decided (compared by verdict and exit code)${r.payloads.stateChanging.length === 0 ? '' : ':'}`,
    ...r.payloads.stateChanging.slice(0, 5).map((s) => `               ${s.label}: ${s.first} → ${s.second}`),
    `clients      ${r.clients} keep-alive connections (${r.sessions === 1 ? 'one registered session for all' : `each its own registered session`}) for ${r.seconds} s${r.rate === null ? ', each as fast as answered' : `, each at most ${r.rate} calls/s`} (${f(r.elapsedS)} s to the last answer), after one warm-up pass of ${r.warmup.answers}`,
    '',
    `decisions/s  ${f(r.decisionsPerS, 0)}   (${r.decisions} decisions)   target ≥ ${r.targets.decisionsPerS}: ${met(r.decisionsPerS >= r.targets.decisionsPerS)}`,
    `latency      p50 ${f(r.latencyMs.p50)} ms, p99 ${f(r.latencyMs.p99)} ms, max ${f(r.latencyMs.max)} ms, mean ${f(r.latencyMs.mean)} ms (client side)   target p99 < ${r.targets.p99Ms} ms: ${met(r.latencyMs.p99 < r.targets.p99Ms)}`,
    `differing    ${r.differing} answers differ from the in-process verdict   target ${r.targets.differing}: ${met(r.differing === 0)}${r.sameVerdictOtherText === 0 ? '' : ` (${r.sameVerdictOtherText} more with the same verdict and exit code but another text, for state-changing payloads)`}`,
    ...r.differingSamples.map(
      (d) => `               ${d.count}× ${d.label} [${d.kind}]: expected ${d.expected}, got ${d.got}`,
    ),
    `errors       ${r.errors}${r.errorSamples.length === 0 ? '' : `: ${r.errorSamples.join('; ')}`}`,
    `daemon       pid ${r.daemon.pid}, rss ${r.daemon.rssMbBefore} MB before → ${r.daemon.rssMbAfter} MB after (heap ${r.daemon.heapMbAfter} MB); its own decision time over its last ${Math.min(r.daemon.decisions, 8192)} calls: p50 ${r.daemon.p50Ms ?? '-'} ms, p99 ${r.daemon.p99Ms ?? '-'} ms; ${r.daemon.errors} errors`,
    `cpu          daemon ${f(r.cpu.daemonS)} s (${f(r.cpu.daemonUsPerDecision, 0)} µs per decision, ${f(r.cpu.daemonS === null ? null : r.cpu.daemonS / r.elapsedS)} cores; its main thread ${f(r.cpu.daemonMainUsPerDecision, 0)} µs), clients ${f(r.cpu.clientS)} s (${f(r.cpu.clientUsPerDecision, 0)} µs per decision, ${f(r.cpu.clientS / r.elapsedS)} cores)`,
    `             the daemon decides on one thread: at ${f(r.cpu.daemonMainUsPerDecision, 0)} µs of its CPU per decision it can serve at most ${f(r.cpu.daemonMainUsPerDecision === null ? null : 1e6 / r.cpu.daemonMainUsPerDecision, 0)} decisions/s with a whole core to itself`,
  ];
  return lines.join('\n');
}
