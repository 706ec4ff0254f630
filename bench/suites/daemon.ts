/**
 * The daemon path (src/daemon/): one long-lived `hookwise serve` answers every hook call through one warm
 * engine, and `hookwise check` is a thin client that forwards the payload over the Unix socket.
 *
 *   - daemon.round-trip: the thin client's own request (askDaemon: connect, POST /v1/check, read the answer,
 *     close) from the bench process to a real daemon process, one call at a time, for the fixture's Write.
 *     Every answer is checked to be the allow `check` gives in process.
 *   - daemon.cache-hit: what the daemon spends deciding a remembered Bash call (an exact-cache hit), in
 *     process: a long-lived Engine with the daemon's options (a parse cache of 4096, live decision memory)
 *     calling engine.handle on the payload — JSON, session, policy stamps, cached parse, memory freshness
 *     check, cascade, audit line. tinybench, so no transport in it: the round trip is the other row.
 *   - daemon.settle.*: what each PreToolUse pays first to settle what earlier calls left pending (the http
 *     wiring has no PostToolUse: engine/settle.ts), with nothing pending and with an asked call whose result the
 *     session's transcript does not hold yet.
 *   - check.client-ratio[.no-extra-ca]: a spawned `hookwise check` answered by the daemon ÷ `node -e 0`, the
 *     way startup.ts times the process-per-call rows (same interleaving, same environment for both commands)
 *     — but in the default environment (no HOOKWISE_DAEMON), with the daemon running. The daemon's decision
 *     counter must grow by exactly the number of check runs: each was answered by the daemon, none decided
 *     in process.
 *
 * The daemon is the built bin (`node dist/hookwise.cjs serve`) with the fixture's environment, started
 * here and stopped in `finally` whatever happens.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HookEvent } from '../../src/core/tool-call.js';
import { askDaemon } from '../../src/daemon/client.js';
import { health } from '../../src/daemon/control.js';
import { Engine, type EngineOptions } from '../../src/engine/engine.js';
import { settleSession } from '../../src/engine/settle.js';
import { noteCreations } from '../../src/session/provenance.js';
import { pendingNoteName, sessionPendingDir } from '../../src/memory/learn.js';
import { LiveMemoryPool } from '../../src/memory/live.js';
import { SessionRegistry } from '../../src/session/registry.js';
import { hookwiseBin } from '../../src/util/package-root.js';
import { startDaemon, type BenchDaemon } from '../daemon-process.js';
import type { BenchFixture } from '../fixture.js';
import { runInProcess } from '../in-process.js';
import { summarize } from '../stats.js';
import type { Measurement, PerSize, Suite, SuiteContext } from '../suite.js';
import type { TargetId } from '../targets.js';
import {
  caNote,
  cacheHitProject,
  expectAllow,
  expectCacheHit,
  interleave,
  ratioRow,
  registerThroughCli,
  type Command,
} from './startup.js';

/** Sequential thin-client calls timed for daemon.round-trip (after as many again to warm up). */
const ROUND_TRIPS: PerSize<number> = { quick: 300, standard: 500, full: 3000 };
/** The options the daemon builds its engine with (src/daemon/server.ts serve()): keep the two alike. */
export function daemonEngineOptions(): EngineOptions {
  return { parseCacheSize: 4096, memory: new LiveMemoryPool() };
}

export const daemonSuite: Suite = {
  name: 'daemon',
  measures: [
    'daemon.round-trip',
    'daemon.cache-hit',
    'daemon.settle.nothing-pending',
    'daemon.settle.asked-note',
    'daemon.settle.run-note',
    'check.client-ratio',
    'check.client-ratio.no-extra-ca',
  ],
  async run(ctx) {
    const { fixture } = ctx;
    // In process first, while no daemon competes for the CPU.
    const cacheHit = await inDaemonCacheHit(ctx);
    const settles = await settleCosts(ctx);

    registerThroughCli(fixture);
    // The default environment: check asks the daemon (the fixture turns that off for the other rows).
    const withCa: NodeJS.ProcessEnv = { ...fixture.env };
    delete withCa.HOOKWISE_DAEMON;
    const withoutCa: NodeJS.ProcessEnv = { ...withCa };
    delete withoutCa.NODE_EXTRA_CA_CERTS;

    ctx.progress('daemon: starting hookwise serve…');
    const daemon = await startDaemon(withCa);
    try {
      const roundTrip = await roundTrips(daemon, fixture, ctx);
      const ratios = await clientRatios(daemon, withCa, withoutCa, ctx);
      return [roundTrip, cacheHit, ...settles, ...ratios];
    } finally {
      await daemon.stop();
      // A check that found no daemon would have started one in the background: none may outlive the bench.
      await stopStray(daemon);
    }
  },
};

async function roundTrips(daemon: BenchDaemon, fixture: BenchFixture, ctx: SuiteContext): Promise<Measurement> {
  const n = ROUND_TRIPS[ctx.size];
  const times: number[] = [];
  for (let i = -n; i < n; i++) {
    const start = process.hrtime.bigint();
    const answer = await askDaemon(fixture.payload, daemon.where, {});
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    if (answer.kind !== 'answered')
      throw new Error(
        `bench: the daemon did not answer the thin client (${answer.kind}${answer.kind === 'unusable' ? `: ${answer.why}` : ''}): ${daemon.log().trim()}`,
      );
    if (answer.result.exitCode !== 0)
      throw new Error(`bench: the daemon's answer exits ${answer.result.exitCode}: ${answer.result.stderr ?? ''}`);
    expectAllow(answer.result.stdout);
    if (i >= 0) times.push(ms);
  }
  const h = await daemon.health();
  return {
    id: 'daemon.round-trip',
    ...summarize(times),
    note: `${n} sequential calls after ${n} to warm up; the daemon's own decision time (its health endpoint, last ${Math.min(h.decisions, 8192)} calls): p50 ${h.p50_ms ?? '-'} ms, p99 ${h.p99_ms ?? '-'} ms; rss ${h.rss_mb} MB`,
  };
}

async function inDaemonCacheHit(ctx: SuiteContext): Promise<Measurement> {
  const { fixture } = ctx;
  const hit = await cacheHitProject(fixture);
  // The in-process runtime dir (fixture.where): the session must be registered there too.
  new SessionRegistry(fixture.where.runtimeDir).update(fixture.sessionId, (existing, now) => ({
    session_id: fixture.sessionId,
    role: fixture.role,
    disabled: false,
    registered_at: existing?.registered_at ?? now,
    updated_at: now,
  }));
  const engine = new Engine(fixture.where, daemonEngineOptions());
  const first = await engine.handle(hit.payload, { host: 'claude' });
  if (first.exitCode !== 0)
    throw new Error(`bench: the engine's answer exits ${first.exitCode}: ${first.stderr ?? ''}`);
  expectCacheHit(first.stdout);
  let answers = 0;
  const [m] = await runInProcess(
    [
      {
        id: 'daemon.cache-hit',
        batch: 8,
        async: true,
        fn: async () => {
          const out = await engine.handle(hit.payload, { host: 'claude' });
          // Cheap enough to keep inside: a verdict that changed mid-run would time the wrong path.
          if (out.decision?.tier !== 'exact-cache' || out.decision.verdict !== 'allow')
            throw new Error(
              `bench: the engine answered ${out.decision?.verdict ?? 'nothing'} from tier ${out.decision?.tier ?? '-'}; expected an exact-cache allow`,
            );
          answers++;
          return out;
        },
      },
    ],
    ctx.size,
  );
  return {
    ...m!,
    note: `engine.handle on \`${hitCommand(hit.payload)}\`, remembered in the project's allow.jsonl; ${answers} calls, every one an exact-cache allow`,
  };
}

/** The session id the settle rows use: a Claude Code session id (a UUID), as its transcript is named. */
const SETTLE_SESSION = '5e1f0c2a-9b3d-4e7f-8a6b-0c1d2e3f4a5b';

/**
 * daemon.settle.*: settleSession (engine/settle.ts) as the engine runs it before each PreToolUse, in process:
 * with nothing pending, and with one asked note whose result the transcript does not hold yet.
 */
async function settleCosts(ctx: SuiteContext): Promise<Measurement[]> {
  const { where } = ctx.fixture;
  const dir = join(where.home, 'settle-bench');
  mkdirSync(dir, { recursive: true });
  const transcript = join(dir, `${SETTLE_SESSION}.jsonl`);
  // 200 tool calls, each a tool_use line, a tool_result line with 4 KiB of output, and a line of another kind.
  const lines: string[] = [];
  for (let i = 0; i < 200; i++) {
    const id = `toolu_bench${String(i).padStart(6, '0')}`;
    lines.push(
      JSON.stringify({
        type: 'assistant',
        message: { content: [{ type: 'tool_use', id, name: 'Bash', input: { command: 'ls' } }] },
      }),
    );
    const output = `src/file-${i}.ts\n`.repeat(256);
    lines.push(
      JSON.stringify({
        type: 'user',
        message: { content: [{ type: 'tool_result', tool_use_id: id, content: output, is_error: false }] },
        toolUseResult: { stdout: output },
      }),
    );
    lines.push(JSON.stringify({ type: 'attachment', attachment: { type: 'todo', content: [] } }));
  }
  writeFileSync(transcript, `${lines.join('\n')}\n`, { mode: 0o600 });
  const event: HookEvent = {
    kind: 'pre-tool',
    host: 'claude',
    hostEvent: 'PreToolUse',
    sessionId: SETTLE_SESSION,
    cwd: ctx.fixture.projectDir,
    transcriptPath: transcript,
    call: {
      host: 'claude',
      sessionId: SETTLE_SESSION,
      cwd: ctx.fixture.projectDir,
      hostTool: 'Bash',
      tool: 'Bash',
      action: 'shell',
      paths: [],
      input: { command: 'ls' },
      toolUseId: 'toolu_next',
    },
  };
  const settleOnce = (): string => {
    const { problem } = settleSession(where, event, 'next-call');
    if (problem !== undefined) throw new Error(`bench: settling failed: ${problem}`);
    return 'settled';
  };
  const [nothing] = await runInProcess([{ id: 'daemon.settle.nothing-pending', batch: 16, fn: settleOnce }], ctx.size);
  // An asked call not answered yet: a note named for its tool_use id, which the transcript does not hold.
  const notes = sessionPendingDir(where.runtimeDir, SETTLE_SESSION);
  mkdirSync(notes, { recursive: true, mode: 0o700 });
  const note = join(notes, pendingNoteName(SETTLE_SESSION, 'toolu_pending'));
  writeFileSync(note, '{}', { mode: 0o600 });
  const [asked] = await runInProcess([{ id: 'daemon.settle.asked-note', batch: 1, fn: settleOnce }], ctx.size);
  if (!existsSync(note)) throw new Error('bench: the pending note was settled; the row would time the wrong path');
  rmSync(note);
  // A confined run's note (its snapshot already pinned): the gate reads it and leaves it for after the answer.
  noteCreations(where, { ...event.call, toolUseId: 'toolu_run' }, [], Date.now(), {
    root: ctx.fixture.projectDir,
    label: 'make',
  });
  const [runNote] = readdirSync(notes).filter((n) => n.startsWith('p-'));
  const body = JSON.parse(readFileSync(join(notes, runNote!), 'utf8')) as { run: Record<string, string> };
  body.run.commit = 'a'.repeat(40);
  writeFileSync(join(notes, runNote!), JSON.stringify(body), { mode: 0o600 });
  const [run] = await runInProcess([{ id: 'daemon.settle.run-note', batch: 16, fn: settleOnce }], ctx.size);
  if (!existsSync(join(notes, runNote!)))
    throw new Error('bench: the run note was claimed; the row would time the wrong path');
  const size = (statSync(transcript).size / 1024 / 1024).toFixed(1);
  return [
    { ...nothing!, note: 'no notes, no module state: one failed readdir and one failed lstat' },
    {
      ...asked!,
      note: `a ${size} MiB transcript, its last 512 KiB read (${lines.length} lines in all); the note stays pending`,
    },
    { ...run!, note: "one confined run's note, its snapshot pinned: read and left for after the answer" },
  ];
}

function hitCommand(payload: string): string {
  return (JSON.parse(payload) as { tool_input: { command: string } }).tool_input.command;
}

async function clientRatios(
  daemon: BenchDaemon,
  withCa: NodeJS.ProcessEnv,
  withoutCa: NodeJS.ProcessEnv,
  ctx: SuiteContext,
): Promise<Measurement[]> {
  const bin = hookwiseBin();
  let runs = 0; // every check run, warm-up rounds included
  const check = (env: NodeJS.ProcessEnv, label: string): Command => ({
    label,
    args: [bin, 'check'],
    env,
    verify: (stdout) => {
      expectAllow(stdout);
      runs++;
    },
  });
  const node = (env: NodeJS.ProcessEnv, label: string): Command => ({
    label,
    args: ['-e', '0'],
    env,
    verify: () => undefined,
  });
  const rows: { id: TargetId; check: Command; baseline: Command }[] = [
    { id: 'check.client-ratio', check: check(withCa, 'check via the daemon'), baseline: node(withCa, 'node') },
    {
      id: 'check.client-ratio.no-extra-ca',
      check: check(withoutCa, 'check via the daemon, no CA'),
      baseline: node(withoutCa, 'node, no CA'),
    },
  ];
  const before = (await daemon.health()).decisions;
  const commands = rows.flatMap((r) => [r.check, r.baseline]);
  const times = await interleave(commands, ctx, 'daemon');
  const after = await daemon.health();
  const answered = after.decisions - before;
  if (answered !== runs) {
    throw new Error(
      `bench: the daemon answered ${answered} of ${runs} spawned checks; the others were decided in process, so the client rows would time the wrong path`,
    );
  }
  return rows.map((row) => {
    const answeredBy = `all ${runs} check runs (warm-up included) answered by the daemon (pid ${daemon.pid}, its decision counter checked)`;
    return ratioRow(
      row.id,
      times.get(row.check)!,
      times.get(row.baseline)!,
      'hookwise check (answered by the daemon)',
      row.id === 'check.client-ratio' ? `${answeredBy}; ${caNote()}` : answeredBy,
    );
  });
}

/** Stops a daemon other than ours that serves the fixture's socket (one a check started), by its pid. */
async function stopStray(ours: BenchDaemon): Promise<void> {
  const other = await health(ours.where, 500);
  if (other === undefined || other.pid === ours.pid) return;
  try {
    process.kill(other.pid, 'SIGTERM');
  } catch {
    // already gone
  }
}
