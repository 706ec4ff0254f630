/**
 * `hookwise bench --fleet`'s queue row: four real daemons (`hookwise serve` processes, as four machines: each
 * its own runtime and config directory) on one PostgreSQL, 16 clients each asking the same call that a human
 * must answer (`human.channel: queue`), so 64 calls wait on one shared item. The answer is given through one
 * daemon's queue, as `hookwise approve` gives it (its socket and answer token), and each waiting call's
 * latency is from just before the answer is sent until its daemon's answer reaches the client. A new call per
 * round (the approval is remembered, and a remembered call would not wait); the daemons' embedding models are
 * loaded and one round is run unmeasured first (a cold daemon's first calls load policy and catalogue).
 *
 * Beside it, the store's share alone: the same 4 × 16 calls waiting on the daemon's queue over the store
 * (store/queue.ts) in this process, from the answer until each wait resolves — no engine finishing the calls,
 * no HTTP — so a slow figure can be told apart: the store and NOTIFY, or the daemons finishing 16 calls each.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { answerItem } from '../src/cli/queue.js';
import { askDaemon } from '../src/daemon/client.js';
import { PostgresStore } from '../src/store/postgres.js';
import { MemoryQueue } from '../src/queue/memory-queue.js';
import type { PendingRequest } from '../src/queue/types.js';
import type { Sanitized } from '../src/sanitize/index.js';
import { answerShared, FleetQueue, listShared } from '../src/store/queue.js';
import type { StoreSettings } from '../src/store/settings.js';
import { startDaemon, type BenchDaemon } from './daemon-process.js';

export interface QueueBenchReport {
  daemons: number;
  clients_per_daemon: number;
  rounds: number;
  samples: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  /** The store's share: answer → every wait resolved, the queues in this process (no engine, no HTTP). */
  store_only: { samples: number; p50_ms: number; p99_ms: number };
  /** The machine's load average (1, 5, 15 min) when the answers were measured: the figures follow it. */
  loadavg: number[];
}

const DAEMONS = 4;
const CLIENTS = 16;

type Postgres = Extract<StoreSettings, { kind: 'postgres' }>;

export async function queueAnswerBench(
  settings: Postgres,
  options: { rounds: number; progress?: (m: string) => void },
): Promise<QueueBenchReport> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'hookwise-bench-fleet-queue-')));
  // One project at the same path for all four (a dev container's /workspace): the same call is one item.
  const project = join(root, 'project');
  mkdirSync(join(project, '.git'), { recursive: true });
  mkdirSync(join(project, '.hookwise'));
  writeFileSync(
    join(project, '.hookwise', 'policy.yml'),
    'registration:\n  wait_ms: 0\nhuman:\n  channel: queue\n  timeout: 60s\n',
  );
  const daemons: BenchDaemon[] = [];
  const admin = await PostgresStore.open(settings, 'b'.repeat(32));
  try {
    for (let i = 0; i < DAEMONS; i++) {
      const dir = join(root, `machine-${i}`);
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        HOME: dir,
        HOOKWISE_RUNTIME_DIR: join(dir, 'run'),
        HOOKWISE_CONFIG_DIR: join(dir, 'config'),
        HOOKWISE_STORE_URL: settings.url,
        HOOKWISE_STORE_TEAM: settings.team,
        HOOKWISE_STORE_USER: settings.user,
      };
      delete env.HOOKWISE_ROLE;
      delete env.HOOKWISE_DEBUG;
      mkdirSync(join(dir, 'config'), { recursive: true });
      // Confinement off (it is on by default where bubblewrap works): an unknown command would run confined
      // instead of waiting for a human, and no call would reach the queue.
      writeFileSync(join(dir, 'config', 'config.yml'), 'confine:\n  enabled: false\n');
      daemons.push(await startDaemon(env, { timeoutMs: 60_000 }));
    }
    await until(async () => {
      const states = await Promise.all(daemons.map((d) => d.health()));
      return states.every((h) => h.queue_store?.mode === 'shared' && h.embedding?.state !== 'starting');
    }, 'every daemon shares the queue and has loaded its model');
    options.progress?.(`${DAEMONS} daemons share the queue`);

    const samples: number[] = [];
    for (let round = -1; round < options.rounds; round++) {
      const command = `make deploy-bench-${round + 1}`;
      const sent: Promise<number>[] = [];
      for (const d of daemons)
        for (let c = 0; c < CLIENTS; c++) {
          const payload = JSON.stringify({
            session_id: `bench-${c}`,
            transcript_path: join(root, 'transcript.jsonl'),
            cwd: project,
            permission_mode: 'default',
            hook_event_name: 'PreToolUse',
            tool_name: 'Bash',
            tool_input: { command },
            tool_use_id: 'toolu_bench',
          });
          sent.push(
            askDaemon(payload, d.where, { envRole: 'coder', headerTimeoutMs: 120_000 }).then((a) => {
              const at = performance.now();
              if (a.kind !== 'answered') throw new Error(`a waiting call got no answer: ${a.kind}`);
              const verdict = (JSON.parse(a.result.stdout) as { hookSpecificOutput?: { permissionDecision?: string } })
                .hookSpecificOutput?.permissionDecision;
              if (verdict !== 'allow') throw new Error(`a waiting call was answered ${String(verdict)}, not allow`);
              return at;
            }),
          );
        }
      let id: string | undefined;
      await until(
        async () => {
          const { items } = await listShared(admin);
          const item = items.find((i) => i.call === command);
          id = item?.id;
          return item !== undefined && item.waiting === DAEMONS * CLIENTS;
        },
        `${DAEMONS * CLIENTS} calls wait on one item`,
      );
      const answeredAt = performance.now();
      const result = await answerItem(daemons[(round + DAEMONS) % DAEMONS]!.where, id!, {
        verdict: 'approve',
        alwaysAsk: false,
        addRule: false,
        via: 'cli',
      });
      if (!result.ok) throw new Error(`the answer was refused: ${result.why}`);
      const arrived = await Promise.all(sent);
      if (round >= 0) for (const at of arrived) samples.push(at - answeredAt);
    }
    samples.sort((a, b) => a - b);
    const load = loadavg().map((l) => Math.round(l * 10) / 10);
    const storeOnly = await storeShare(settings, admin, options.rounds);
    return {
      daemons: DAEMONS,
      clients_per_daemon: CLIENTS,
      rounds: options.rounds,
      samples: samples.length,
      p50_ms: pct(samples, 50),
      p99_ms: pct(samples, 99),
      max_ms: pct(samples, 100),
      store_only: { samples: storeOnly.length, p50_ms: pct(storeOnly, 50), p99_ms: pct(storeOnly, 99) },
      loadavg: load,
    };
  } finally {
    await Promise.all(daemons.map((d) => d.stop()));
    await admin.close();
    rmSync(root, { recursive: true, force: true });
  }
}

function pct(sorted: number[], p: number): number {
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! * 10) / 10;
}

/** 4 queues over the store in this process, 16 waits each on one item; answer → each wait resolved (sorted ms). */
async function storeShare(settings: Postgres, admin: PostgresStore, rounds: number): Promise<number[]> {
  const open = (s: Postgres, origin: string) => PostgresStore.open(s, origin);
  const queues = Array.from(
    { length: DAEMONS },
    (_, i) => new FleetQueue(new MemoryQueue(), settings, i.toString(16).repeat(32), open),
  );
  const samples: number[] = [];
  try {
    await Promise.all(queues.map((q) => q.start()));
    for (let round = -1; round < rounds; round++) {
      const call = `make store-share-${round + 1}` as Sanitized;
      const request = (session: string): PendingRequest => ({
        dedupe: Buffer.from(call).toString('hex').slice(0, 60),
        session: session as Sanitized,
        role: 'coder',
        tool: 'Bash' as Sanitized,
        call,
        reason: 'bench' as Sanitized,
        tier: 'default',
        project: '/bench' as Sanitized,
      });
      const waits = queues.flatMap((q) =>
        Array.from({ length: CLIENTS }, (_, c) => q.wait(request(`s${c}`), 60_000).then(() => performance.now())),
      );
      let id: string | undefined;
      await until(async () => {
        const item = (await listShared(admin)).items.find((i) => i.call === call);
        id = item?.id;
        return item !== undefined && item.waiting === DAEMONS * CLIENTS;
      }, 'every wait joined the item');
      const t0 = performance.now();
      const answered = await answerShared(
        admin,
        id!,
        { verdict: 'approve', alwaysAsk: false, addRule: false, via: 'cli' },
        'b'.repeat(32),
      );
      if (!answered.ok) throw new Error(`the answer was refused: ${answered.why}`);
      const at = await Promise.all(waits);
      if (round >= 0) for (const t of at) samples.push(t - t0);
    }
  } finally {
    await Promise.all(queues.map((q) => q.close()));
  }
  return samples.sort((a, b) => a - b);
}

async function until(ok: () => Promise<boolean>, what: string, ms = 60_000): Promise<void> {
  const start = performance.now();
  while (!(await ok())) {
    if (performance.now() - start > ms) throw new Error(`never: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
