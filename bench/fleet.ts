/**
 * `hookwise bench --fleet`: a team's fleet on one real PostgreSQL (a throwaway cluster it starts and removes:
 * bench/postgres-cluster.ts). Four machines — separate runtime and config directories, each with the
 * replication a daemon runs (store/sync.ts), in this one process — and:
 *   - time to visible: a decision learned on one machine (appended to its org file, as learning does) until
 *     it is in each other machine's files, where their daemons decide from (p50, p99, max);
 *   - the store killed mid-run (SIGKILL to the postmaster) and restarted while one machine learns: records
 *     lost on the others (target 0), wrong allows — a learned ask or deny that another machine answers
 *     allow, during the outage or after (target 0);
 *   - 100k shared records: a new machine's first sync (time, records) and loading them as the daemon's
 *     memory (time, heap and rss growth);
 *   - the shared human queue: four real daemons with 16 waiting clients each, one answer given in the queue,
 *     until each waiting call has its answer (p50, p99; bench/fleet-queue.ts);
 *   - one daemon's decisions/s with 16 clients, on the files alone and with the store set (the ratio; target
 *     within 10 %; bench/fleet-throughput.ts);
 *   - as many session registrations, supervisor answers and audit rows: a new daemon's start with its sharing
 *     parts (store/fleet-share.ts: it holds the sessions and answers in memory), heap and rss growth, and
 *     `stats --fleet`'s queries over the audit.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HookwiseError } from '../src/core/errors.js';
import type { Verdict } from '../src/core/decision.js';
import { loadMemory } from '../src/memory/load.js';
import { appendRecords, fileFor, type DecisionRecord } from '../src/memory/store.js';
import type { Sanitized } from '../src/sanitize/index.js';
import { PostgresStore } from '../src/store/postgres.js';
import { FleetSync } from '../src/store/sync.js';
import { FleetShare } from '../src/store/fleet-share.js';
import { fleetCounts, recentFleetAudit } from '../src/store/fleet-audit.js';
import { FLEET_STATS_ROWS } from '../src/cli/fleet.js';
import { findPostgres, startCluster, type Cluster } from './postgres-cluster.js';
import { sharedRecord } from './store-records.js';
import { queueAnswerBench, type QueueBenchReport } from './fleet-queue.js';
import { renderThroughput, throughputBench, type ThroughputReport } from './fleet-throughput.js';

export interface FleetBenchOptions {
  quick?: boolean;
  progress?: (message: string) => void;
}

export interface FleetReport {
  machines: number;
  visible: { samples: number; p50_ms: number; p99_ms: number; max_ms: number };
  outage: { learned: number; lost: number; wrong_allows: number; recovered_ms: number };
  big: { records: number; first_sync_ms: number; load_ms: number; heap_mb: number; rss_mb: number };
  queue: QueueBenchReport;
  /** One daemon's decisions/s on the files alone and with the store set (bench/fleet-throughput.ts). */
  throughput: ThroughputReport;
  /**
   * As many session registrations, supervisor answers and audit rows in the store: a new daemon's start with
   * its sharing parts (the decisions above too), what it holds and costs, and `stats --fleet` over the audit.
   */
  shared: {
    rows: number;
    start_ms: number;
    held_sessions: number;
    held_answers: number;
    heap_mb: number;
    rss_mb: number;
    stats_ms: number;
    /** The sharing parts alone: a fresh daemon's pulls of the sessions and answers into memory, and the heap they hold. */
    pull_ms: number;
    pull_heap_mb: number;
  };
}

interface Machine {
  runtimeDir: string;
  userConfigDir: string;
  projectRoot: string;
  sync: FleetSync;
  share?: FleetShare;
}

const TEAM = 'bench';
const settingsOf = (cluster: Cluster) => ({
  kind: 'postgres' as const,
  url: cluster.url(),
  team: TEAM,
  user: 'bench',
  source: 'bench',
});

/** An org-scope record learned now (the store's shared builder, `bench` as its reason). */
function record(key: string, verdict: Verdict): DecisionRecord & { scope: 'org' } {
  return sharedRecord(key, verdict, { reason: 'bench' as Sanitized, ts: new Date().toISOString() });
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function pct(sorted: number[], p: number): number {
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! * 10) / 10;
}

export async function fleetBench(options: FleetBenchOptions = {}): Promise<FleetReport> {
  const progress = options.progress ?? (() => undefined);
  const binaries = findPostgres();
  if ('missing' in binaries) throw new HookwiseError('USAGE', `bench --fleet needs PostgreSQL: ${binaries.missing}`);
  const root = mkdtempSync(join(tmpdir(), 'hookwise-bench-fleet-'));
  const cluster = startCluster(binaries);
  const machines: Machine[] = [];
  const machine = async (sharing = false): Promise<Machine> => {
    const dir = mkdtempSync(join(root, 'm-'));
    const places = { runtimeDir: join(dir, 'run'), userConfigDir: join(dir, 'config'), projectRoot: join(dir, 'p') };
    const share = sharing ? new FleetShare(places.runtimeDir) : undefined;
    const sync = new FleetSync(settingsOf(cluster), places, (s, origin) => PostgresStore.open(s, origin), {
      retryMs: 100,
      maxRetryMs: 500,
      ...(share === undefined ? {} : { parts: share.parts }),
    });
    await sync.start();
    const m = { ...places, sync, ...(share === undefined ? {} : { share }) };
    machines.push(m);
    return m;
  };
  try {
    const admin = await PostgresStore.open(settingsOf(cluster), 'f'.repeat(32));
    await admin.migrate();
    const fleet = await Promise.all([machine(), machine(), machine(), machine()]);
    progress('4 machines synced');

    // ── time to visible ──
    const samples: number[] = [];
    const rounds = options.quick === true ? 10 : 40;
    for (let i = 0; i < rounds; i++) {
      const from = fleet[i % 4]!;
      const key = `vis-${i}`;
      const t0 = performance.now();
      appendRecords(orgOf(from), [record(key, 'ask')]);
      const waiting = new Set(fleet.filter((m) => m !== from));
      while (waiting.size > 0) {
        for (const m of waiting)
          if (orgText(m, 'ask').includes(`"${key}"`)) {
            samples.push(performance.now() - t0);
            waiting.delete(m);
          }
        if (performance.now() - t0 > 10_000) throw new Error(`${key} never reached every machine`);
        await sleep(2);
      }
    }
    samples.sort((a, b) => a - b);
    progress(`time to visible: p50 ${pct(samples, 50)} ms`);

    // ── the shared queue: an answer reaching the waiting calls of four daemons ──
    const queue = await queueAnswerBench(settingsOf(cluster), { rounds: options.quick === true ? 3 : 10, progress });
    progress(`queue answer to every waiting call: p50 ${queue.p50_ms} ms, p99 ${queue.p99_ms} ms`);

    // ── one daemon's decisions/s, the files alone and with the store ──
    const throughput = await throughputBench(settingsOf(cluster), root, {
      rounds: options.quick === true ? 3 : 5,
      seconds: options.quick === true ? 2 : 4,
      progress,
    });
    progress(`decisions/s: files ${throughput.files.median}, store ${throughput.store.median}`);

    // ── the store killed mid-run ──
    const learner = fleet[0]!;
    const others = fleet.slice(1);
    appendRecords(orgOf(learner), [record('outage-deny', 'deny')]);
    await until(() => others.every((m) => decides(m, 'outage-deny') === 'deny'), 'the deny reaches everyone');
    const learned: { key: string; verdict: Verdict }[] = [];
    const total = options.quick === true ? 90 : 300;
    let wrongAllows = 0;
    for (let i = 0; i < total; i++) {
      if (i === Math.floor(total / 3)) cluster.kill();
      if (i === Math.floor((2 * total) / 3)) {
        // during the outage, every machine still denies what it saw denied
        for (const m of others) if (decides(m, 'outage-deny') !== 'deny') wrongAllows++;
        cluster.start();
      }
      const r = { key: `outage-${i}`, verdict: (i % 3 === 0 ? 'deny' : 'ask') as Verdict };
      appendRecords(orgOf(learner), [record(r.key, r.verdict)]);
      learned.push(r);
      await sleep(5);
    }
    const restarted = performance.now();
    const views = () => others.map((m) => loadMemory(sources(m), 0.9).view);
    await until(
      () => views().every((view) => learned.every((r) => view.lookup(r.key, 'coder')?.verdict === r.verdict)),
      'every learned record reaches everyone',
      60_000,
    ).catch(() => undefined); // what never arrived is counted as lost just below
    const recovered = performance.now() - restarted;
    let lost = 0;
    for (const view of views())
      for (const r of learned) {
        const v = view.lookup(r.key, 'coder')?.verdict;
        if (v === undefined) lost++;
        else if (v === 'allow') wrongAllows++;
      }
    progress(`outage: ${lost} lost, ${wrongAllows} wrong allows`);

    // ── 100k shared records ──
    const big = options.quick === true ? 10_000 : 100_000;
    const batch: { owner: string; record: DecisionRecord & { scope: 'org' } }[] = [];
    for (let i = 0; i < big; i++)
      batch.push({ owner: 'acme', record: record(`big-${i}`, i % 10 === 0 ? 'ask' : 'allow') });
    await admin.append(batch);
    await fillSharedTables(admin, big);
    const heap0 = process.memoryUsage();
    const t0 = performance.now();
    const newcomer = await machine();
    const firstSync = performance.now() - t0;
    if (newcomer.sync.status().received < big)
      throw new Error(`the new machine received ${newcomer.sync.status().received} of ${big}`);
    const t1 = performance.now();
    const view = loadMemory(sources(newcomer), 0.9).view;
    const loadMs = performance.now() - t1;
    const heap1 = process.memoryUsage();
    if (view.size < big) throw new Error(`the new machine's memory holds ${view.size} of ${big}`);
    progress(`${big} decisions: first sync ${Math.round(firstSync)} ms`);

    // ── as many sessions, supervisor answers and audit rows: a daemon's start with its sharing parts ──
    globalThis.gc?.();
    const heap2 = process.memoryUsage();
    const t2 = performance.now();
    const sharer = await machine(true);
    const startMs = performance.now() - t2;
    globalThis.gc?.();
    const heap3 = process.memoryUsage();
    const held = sharer.share!.status().held;
    if (held.sessions < big || held.answers < big)
      throw new Error(`the new daemon holds ${held.sessions} sessions and ${held.answers} answers of ${big}`);
    // The sharing parts alone: a fresh daemon's pulls of the sessions and answers into memory.
    const fresh = new FleetShare(join(mkdtempSync(join(root, 'm-')), 'run'));
    const reader = await PostgresStore.open(settingsOf(cluster), 'e'.repeat(32));
    globalThis.gc?.();
    const heap4 = process.memoryUsage();
    const t4 = performance.now();
    for (const part of fresh.parts) await part.pull(reader);
    const pullMs = performance.now() - t4;
    globalThis.gc?.();
    const heap5 = process.memoryUsage();
    await reader.close();
    if (fresh.status().held.sessions < big) throw new Error('the fresh pull missed sessions');
    const t3 = performance.now();
    await fleetCounts(admin, {});
    await recentFleetAudit(admin, {}, FLEET_STATS_ROWS);
    const statsMs = performance.now() - t3;
    await admin.close();
    progress(`${big} shared rows of each table: start ${Math.round(startMs)} ms`);
    return {
      machines: 4,
      visible: {
        samples: samples.length,
        p50_ms: pct(samples, 50),
        p99_ms: pct(samples, 99),
        max_ms: pct(samples, 100),
      },
      outage: { learned: learned.length, lost, wrong_allows: wrongAllows, recovered_ms: Math.round(recovered) },
      big: {
        records: big,
        first_sync_ms: Math.round(firstSync),
        load_ms: Math.round(loadMs),
        heap_mb: Math.round((heap1.heapUsed - heap0.heapUsed) / 1048576),
        rss_mb: Math.round((heap1.rss - heap0.rss) / 1048576),
      },
      queue,
      throughput,
      shared: {
        rows: big,
        start_ms: Math.round(startMs),
        held_sessions: held.sessions,
        held_answers: held.answers,
        heap_mb: Math.round((heap3.heapUsed - heap2.heapUsed) / 1048576),
        rss_mb: Math.round((heap3.rss - heap2.rss) / 1048576),
        stats_ms: Math.round(statsMs),
        pull_ms: Math.round(pullMs),
        pull_heap_mb: Math.round((heap5.heapUsed - heap4.heapUsed) / 1048576),
      },
    };
  } finally {
    await Promise.all(machines.map((m) => m.sync.close()));
    cluster.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

export function renderFleet(r: FleetReport): string {
  return [
    `fleet: ${r.machines} machines on one PostgreSQL (one process; replication as each daemon runs it)`,
    `  learned decision visible on the others: p50 ${r.visible.p50_ms} ms, p99 ${r.visible.p99_ms} ms, max ${r.visible.max_ms} ms (${r.visible.samples} samples: ${r.visible.samples / 3} decisions × 3 other machines; target < 1000 ms)`,
    `  store killed mid-run, restarted: ${r.outage.learned} learned, lost ${r.outage.lost} (target 0), wrong allows ${r.outage.wrong_allows} (target 0), all back ${r.outage.recovered_ms} ms after the restart`,
    `  ${r.big.records} shared records: a new machine's first sync ${r.big.first_sync_ms} ms; loading them as memory ${r.big.load_ms} ms; heap +${r.big.heap_mb} MB, rss +${r.big.rss_mb} MB`,
    `  queue answer reaching the waiting calls: p50 ${r.queue.p50_ms} ms, p99 ${r.queue.p99_ms} ms, max ${r.queue.max_ms} ms (${r.queue.samples} calls: ${r.queue.rounds} answers × ${r.queue.daemons} daemons × ${r.queue.clients_per_daemon} waiting clients, each daemon its own process; target p99 < 100 ms); the store's share alone (answer → each wait resolved, no engine or HTTP): p50 ${r.queue.store_only.p50_ms} ms, p99 ${r.queue.store_only.p99_ms} ms; load average ${r.queue.loadavg.join(' ')}`,
    renderThroughput(r.throughput),
    `  ${r.shared.rows} sessions, supervisor answers and audit rows as well: a new daemon's start (sharing on, the decisions too) ${r.shared.start_ms} ms, holding ${r.shared.held_sessions} sessions and ${r.shared.held_answers} answers, heap +${r.shared.heap_mb} MB, rss +${r.shared.rss_mb} MB; of that, pulling the sessions and answers into memory ${r.shared.pull_ms} ms, heap +${r.shared.pull_heap_mb} MB (measured alone); stats --fleet's queries over the audit ${r.shared.stats_ms} ms`,
  ].join('\n');
}

const orgOf = (m: Machine) => ({ scope: 'org' as const, userConfigDir: m.userConfigDir, org: 'acme' });

function orgText(m: Machine, verdict: Verdict): string {
  try {
    return readFileSync(fileFor(orgOf(m), verdict), 'utf8');
  } catch {
    return '';
  }
}

const sources = (m: Machine) => ({
  projectRoot: m.projectRoot,
  userConfigDir: m.userConfigDir,
  runtimeDir: m.runtimeDir,
});

/** What the machine's memory answers for this key and the coder role, from its files (no network). */
function decides(m: Machine, key: string): Verdict | undefined {
  return loadMemory(sources(m), 0.9).view.lookup(key, 'coder')?.verdict;
}

async function until(ok: () => boolean, what: string, ms = 20_000): Promise<void> {
  const start = performance.now();
  while (!ok()) {
    if (performance.now() - start > ms) throw new Error(`never: ${what}`);
    await sleep(50);
  }
}

/** `rows` session registrations, supervisor answers and audit rows of other machines, made by the server. */
async function fillSharedTables(admin: PostgresStore, rows: number): Promise<void> {
  const t = `"${admin.schema}"`;
  const when = 'to_char(now() AT TIME ZONE \'UTC\', \'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"\')';
  await admin.query(
    `INSERT INTO ${t}.sessions (session_key, shown_id, role, disabled, task, registered_at, updated_at, origin)
     SELECT encode(sha256(('bench-session-' || i)::bytea), 'hex'), 'bench-session-' || i, 'coder', false,
       'bench task', ${when}, ${when}, 'bench'
     FROM generate_series(1, $1) AS i`,
    [rows],
  );
  await admin.query(
    `INSERT INTO ${t}.supervisor_answers (key, role, tool, verdict, confidence, reason, answered_by, ts, origin)
     SELECT lpad(to_hex(i), 16, '0'), 'coder', 'Bash', 'allow', 0.9, 'bench', 'api:bench', ${when}, 'bench'
     FROM generate_series(1, $1) AS i`,
    [rows],
  );
  await admin.query(
    `INSERT INTO ${t}.audit (origin, machine, ts, session, role, host, tool, verdict, tier, latency_ms, paths, input,
       secrets, input_hash, src_ino, src_offset)
     SELECT 'bench', 'machine-' || (i % 4), now(), 'bench-session-' || (i % 100), 'coder', 'claude',
       (ARRAY['Bash', 'Write', 'Read'])[1 + i % 3], (ARRAY['allow', 'allow', 'ask', 'deny'])[1 + i % 4], 'rules',
       1.5, '[]', 'echo ' || i, 0, '0123456789abcdef', 1, i
     FROM generate_series(1, $1) AS i`,
    [rows],
  );
}
