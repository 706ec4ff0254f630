/**
 * `hookwise bench --fleet`'s throughput row: decisions per second of one daemon on the files alone and of the
 * same daemon with a team store set — the "within 10 %" of the file backend. Two machines (each its
 * own runtime and config directory, each a real `hookwise serve` process), the same world on both: 16
 * registered sessions, a project, and a user scope that remembers most of the Bash commands (on the store
 * machine that scope is the shared one: its lines go to the store). 16 keep-alive clients, one per session,
 * send the same payload mix as fast as each is answered; rounds alternate between the two machines (the other
 * sits idle meanwhile, its replication running) so that a machine made busier by other work hits both alike.
 * The figure per machine is the median of its rounds' decisions/s; the ratio is store ÷ files.
 */
import { Agent } from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { claudeAdapter } from '../src/hosts/claude.js';
import { cacheKey } from '../src/memory/cache.js';
import { recordFor } from '../src/memory/learn.js';
import { appendRecords, type DecisionRecord, type StoreTarget } from '../src/memory/store.js';
import { callSubject } from '../src/memory/subject.js';
import { resolvePath } from '../src/paths/canonical.js';
import type { Sanitized } from '../src/sanitize/index.js';
import { SessionRegistry } from '../src/session/registry.js';
import { prepareShell } from '../src/shell/prepare.js';
import { daemonPaths, locationsTag } from '../src/daemon/paths.js';
import type { StoreSettings } from '../src/store/settings.js';
import { locations } from '../src/util/locations.js';
import { startDaemon, type BenchDaemon } from './daemon-process.js';
import { quantile } from './stats.js';
import { preToolPayloads } from './inputs.js';
import { post, procCpuSeconds } from './swarm.js';
import { syntheticCommands } from './synthetic-commands.js';

type Postgres = Extract<StoreSettings, { kind: 'postgres' }>;

export interface ThroughputReport {
  clients: number;
  rounds: number;
  seconds_per_round: number;
  payloads: number;
  /** Decisions/s of each round, in the order run, and their median. */
  files: { per_round: number[]; median: number };
  store: { per_round: number[]; median: number };
  /** store ÷ files, of the medians (target ≥ 0.9). */
  ratio: number;
  /**
   * The daemon process's CPU per decision (user + system, every thread; median of the rounds, µs): what the
   * store adds to the daemon itself, apart from a machine too busy to give it the CPU (the bench's
   * PostgreSQL runs on this machine too, where a team's runs on its own).
   */
  cpu_us_per_decision: { files: number | null; store: number | null; per_round: { files: number[]; store: number[] } };
  errors: number;
  /** Calls answered differently by the two machines (same world, so 0 expected). */
  differing: number;
  loadavg: number[];
}

const CLIENTS = 16;
const ROLE = 'coder';

interface Machine {
  name: 'files' | 'store';
  daemon: BenchDaemon;
  target: { socketPath: string; tag: string };
  payloads: Buffer[];
}

export async function throughputBench(
  settings: Postgres,
  root: string,
  options: { rounds: number; seconds: number; progress?: (m: string) => void },
): Promise<ThroughputReport> {
  const machines: Machine[] = [];
  try {
    for (const name of ['files', 'store'] as const)
      machines.push(await machine(name, join(root, `throughput-${name}`), name === 'store' ? settings : undefined));
    // Measured as each serves once warm: the store machine synced, both embedding models loaded (or failed).
    await until(async () => {
      const states = await Promise.all(machines.map((m) => m.daemon.health()));
      return states[1]!.store?.mode === 'synced' && states.every((h) => h.embedding?.state !== 'starting');
    }, 'both daemons warm, the store machine synced');
    options.progress?.('throughput: both daemons up; a warm-up pass on each');
    // One pass of every payload on each, unmeasured (a cold daemon loads policy and catalogue on its first
    // calls); the answers, compared, must be the same on both machines.
    const answers: string[][] = [];
    for (const m of machines) {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const got: string[] = [];
      for (const body of m.payloads) {
        const a = await post(m.target, agent, body);
        got.push(a.ok ? verdictOf(a.body) : `error ${a.error}`);
      }
      agent.destroy();
      answers.push(got);
    }
    const differing = answers[0]!.filter((v, i) => v !== answers[1]![i]).length;
    const perRound: Record<Machine['name'], number[]> = { files: [], store: [] };
    const cpuPerDecision: Record<Machine['name'], number[]> = { files: [], store: [] };
    let errors = 0;
    for (let round = 0; round < options.rounds; round++)
      for (const m of round % 2 === 0 ? machines : [...machines].reverse()) {
        const cpu0 = procCpuSeconds(m.daemon.pid);
        const r = await drive(m, options.seconds);
        const cpu1 = procCpuSeconds(m.daemon.pid);
        if (cpu0 !== null && cpu1 !== null && r.answered > 0)
          cpuPerDecision[m.name].push(((cpu1 - cpu0) * 1e6) / r.answered);
        errors += r.errors;
        perRound[m.name].push(Math.round(r.perS));
        options.progress?.(`throughput: round ${round + 1}, ${m.name}: ${Math.round(r.perS)} decisions/s`);
      }
    const median = (xs: number[]) =>
      Math.round(
        quantile(
          [...xs].sort((a, b) => a - b),
          0.5,
        ),
      );
    const cpuMedian = (xs: number[]) => (xs.length === 0 ? null : median(xs));
    const files = median(perRound.files);
    const store = median(perRound.store);
    return {
      clients: CLIENTS,
      rounds: options.rounds,
      seconds_per_round: options.seconds,
      payloads: machines[0]!.payloads.length,
      files: { per_round: perRound.files, median: files },
      store: { per_round: perRound.store, median: store },
      ratio: Math.round((store / files) * 1000) / 1000,
      cpu_us_per_decision: {
        files: cpuMedian(cpuPerDecision.files),
        store: cpuMedian(cpuPerDecision.store),
        per_round: {
          files: cpuPerDecision.files.map((x) => Math.round(x)),
          store: cpuPerDecision.store.map((x) => Math.round(x)),
        },
      },
      errors,
      differing,
      loadavg: loadavg().map((l) => Math.round(l * 10) / 10),
    };
  } finally {
    await Promise.all(machines.map((m) => m.daemon.stop()));
  }
}

/** 16 clients, one per session, each walking the mix from its own offset until the time is up. */
async function drive(m: Machine, seconds: number): Promise<{ perS: number; answered: number; errors: number }> {
  let answered = 0;
  let errors = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, c) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        const payloads = m.payloads.filter((_, i) => i % CLIENTS === c);
        for (let i = c; performance.now() < deadline; i++) {
          const a = await post(m.target, agent, payloads[i % payloads.length]!);
          if (a.ok && a.status === 200) answered++;
          else errors++;
        }
      } finally {
        agent.destroy();
      }
    }),
  );
  return { perS: answered / ((performance.now() - started) / 1000), answered, errors };
}

async function machine(name: Machine['name'], dir: string, store: Postgres | undefined): Promise<Machine> {
  const project = join(dir, 'project');
  mkdirSync(join(project, '.git'), { recursive: true });
  mkdirSync(join(project, 'src'));
  writeFileSync(join(project, 'src', 'index.ts'), 'export {};\n');
  mkdirSync(join(dir, 'config'), { recursive: true });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: dir,
    HOOKWISE_RUNTIME_DIR: join(dir, 'run'),
    HOOKWISE_CONFIG_DIR: join(dir, 'config'),
    ...(store === undefined
      ? {}
      : { HOOKWISE_STORE_URL: store.url, HOOKWISE_STORE_TEAM: store.team, HOOKWISE_STORE_USER: store.user }),
  };
  for (const v of ['HOOKWISE_ROLE', 'HOOKWISE_DEBUG', 'HOOKWISE_DAEMON']) delete env[v];
  if (store === undefined)
    for (const v of ['HOOKWISE_STORE_URL', 'HOOKWISE_STORE_TEAM', 'HOOKWISE_STORE_USER']) delete env[v];
  const where = locations(env);
  const registry = new SessionRegistry(where.runtimeDir);
  const sessions = Array.from({ length: CLIENTS }, (_, c) => `throughput-${c}`);
  for (const id of sessions)
    registry.update(id, (existing, now) => ({
      session_id: id,
      role: ROLE,
      disabled: false,
      registered_at: existing?.registered_at ?? now,
      updated_at: now,
    }));
  const payloads = await worldPayloads(project, where.home, where.userConfigDir, sessions);
  const daemon = await startDaemon(env, { timeoutMs: 60_000 });
  return { name, daemon, target: { socketPath: daemonPaths(where).socket, tag: locationsTag(where) }, payloads };
}

/**
 * The mix: 120 Bash commands, 100 of them remembered in the user scope (every tenth as an ask), 20 nobody
 * remembered; read-only git; Writes in src/; a sensitive Edit. Each payload names one of the sessions.
 */
async function worldPayloads(project: string, home: string, userConfigDir: string, sessions: string[]) {
  const raws: string[] = [];
  const pre = preToolPayloads(project, 'toolu_tp_', (n) => sessions[n % sessions.length]!);
  const pathContext = { projectRoot: project, home, cwd: project };
  const target: StoreTarget = { scope: 'user', userConfigDir };
  const records: DecisionRecord[] = [];
  for (const [i, command] of syntheticCommands(120, 23).entries()) {
    const raw = pre('Bash', { command });
    raws.push(raw);
    if (i >= 100) continue;
    const event = claudeAdapter.parse(JSON.parse(raw) as Record<string, unknown>);
    if (event.kind !== 'pre-tool') continue;
    const shell = await prepareShell(event.call, pathContext);
    const subject = callSubject(
      event.call,
      event.call.paths.map((p) => resolvePath(p, pathContext)),
      shell,
    );
    if (subject === undefined) continue;
    const verdict = records.length % 10 === 9 ? 'ask' : 'allow';
    records.push(
      recordFor(
        subject,
        cacheKey(subject.tool, subject.text),
        { role: ROLE, verdict, reason: 'remembered for the bench' as Sanitized, tier: 'human', decided_by: 'human' },
        target,
      ),
    );
  }
  appendRecords(target, records);
  for (const command of ['git status', 'git log --oneline -n 20', 'git diff --stat', 'git show HEAD'])
    raws.push(pre('Bash', { command }));
  for (let i = 0; i < 8; i++)
    raws.push(pre('Write', { file_path: join(project, 'src', `file${i}.ts`), content: `export const n = ${i};\n` }));
  raws.push(pre('Edit', { file_path: join(project, '.env'), old_string: 'a', new_string: 'b' }));
  return raws.map((r) => Buffer.from(r, 'utf8'));
}

function verdictOf(body: string): string {
  try {
    const r = JSON.parse(body) as { stdout?: string; exitCode?: number };
    const out = JSON.parse(r.stdout ?? '{}') as { hookSpecificOutput?: { permissionDecision?: string } };
    return out.hookSpecificOutput?.permissionDecision ?? `exit ${r.exitCode}`;
  } catch {
    return 'unreadable';
  }
}

async function until(ok: () => Promise<boolean>, what: string, ms = 60_000): Promise<void> {
  const start = performance.now();
  while (!(await ok())) {
    if (performance.now() - start > ms) throw new Error(`never: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export function renderThroughput(r: ThroughputReport): string {
  return `  decisions/s of one daemon, ${r.clients} clients of registered sessions, ${r.payloads} payloads: files ${r.files.median}, store ${r.store.median} (medians of ${r.rounds} rounds × ${r.seconds_per_round} s; per round files ${r.files.per_round.join(', ')}, store ${r.store.per_round.join(', ')}): store ÷ files ${r.ratio} (target ≥ 0.9); the daemon's CPU per decision: files ${r.cpu_us_per_decision.files ?? '?'} µs, store ${r.cpu_us_per_decision.store ?? '?'} µs (per round files ${r.cpu_us_per_decision.per_round.files.join(', ')}, store ${r.cpu_us_per_decision.per_round.store.join(', ')}); ${r.errors} errors, ${r.differing} payloads answered differently; load average ${r.loadavg.join(' ')}`;
}
