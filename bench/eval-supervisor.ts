/**
 * Tier 3's plumbing (issue 15, "Measure"), against a fake Messages API on loopback (bench/fake-anthropic.ts):
 * a model's precision on a fake API means nothing, so this measures what hookwise adds around the model.
 *
 *   - reach: a workload (default: hookwise's own development workload, bench/corpora/dev-workload.jsonl)
 *     replayed through the built `hookwise check --jsonl` in this repository with the API supervisor on and
 *     empty memory: the share of calls that reach tier 3 (one API request each; tiers 0–2 decide the rest),
 *     then the same replay again, with the supervisor's confident answers remembered;
 *   - latency: the engine a daemon holds, one call that reaches tier 3 with the fake API answering at once,
 *     against the same call with the supervisor off: the median added time, and within it the bare loopback
 *     round trip of a request of the same size (the "API call" a real API makes much longer);
 *   - the SDK's import cost, paid only by a process whose call reaches tier 3 (median of fresh processes).
 *
 * Run: `hookwise bench --eval-supervisor [corpus] [--json]`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine } from '../src/engine/engine.js';
import { LiveMemoryPool } from '../src/memory/live.js';
import { SessionRegistry } from '../src/session/registry.js';
import { apiSupervisor } from '../src/supervisor/api.js';
import { hookwiseBin, packageRoot } from '../src/util/package-root.js';
import { readCorpus, registerRoles, roleOf, sessionFor, toolCallOf } from './eval-commands.js';
import { defaultWorkload } from './eval-workload.js';
import { answer, startFakeApi, type FakeApi } from './fake-anthropic.js';

export interface SupervisorEval {
  corpus: string;
  rows: number;
  reach: {
    /** Calls that reached tier 3 on the first replay (empty memory), and their share of the rows. */
    first: { reached: number; share: number; byTier: Record<string, number> };
    /** The same replay again, the supervisor's answers remembered. */
    again: { reached: number; share: number };
  };
  latency: { iterations: number; offMs: number; onMs: number; addedMs: number; loopbackMs: number; besidesApiMs: number };
  sdkImport: { runs: number; medianMs: number };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length === 0 ? 0 : s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

const USER_CONFIG = 'supervisor:\n  backend: api\n  model: fake-model\n  confidence: 0.8\n  timeout: 10\n';

function scratch(): { base: string; runtimeDir: string; configDir: string; home: string; cleanup(): void } {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'hookwise-eval-supervisor-')));
  const home = join(base, 'home');
  const configDir = join(base, 'config');
  mkdirSync(home, { recursive: true });
  mkdirSync(configDir, { recursive: true });
  return { base, home, runtimeDir: join(base, 'runtime'), configDir, cleanup: () => rmSync(base, { recursive: true, force: true }) };
}

/** The rows through one built `check --jsonl` (async: the fake API answers from this process meanwhile). */
async function replay(rows: ReturnType<typeof readCorpus>, cwd: string, dirs: { runtimeDir: string; configDir: string }, api: FakeApi, prefix: string): Promise<{ tier: string }[]> {
  registerRoles(dirs.runtimeDir, prefix, rows);
  const env: NodeJS.ProcessEnv = { ...process.env, HOOKWISE_RUNTIME_DIR: dirs.runtimeDir, HOOKWISE_CONFIG_DIR: dirs.configDir, HOOKWISE_DAEMON: 'off', ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'fake-key-for-the-loopback-api' };
  delete env.HOOKWISE_ROLE;
  const input = rows.map((row, i) => JSON.stringify({ session_id: sessionFor(prefix, roleOf(row)), cwd, permission_mode: 'default', hook_event_name: 'PreToolUse', ...toolCallOf(row, cwd), tool_use_id: `${prefix}-${i}` })).join('\n');
  const stdout = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, [hookwiseBin(), 'check', '--jsonl'], { env, cwd });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`hookwise check --jsonl failed (${code}): ${err}`))));
    child.stdin.end(input);
  });
  return stdout.trim().split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { tier: string });
}

async function measureReach(corpus: string, api: FakeApi): Promise<SupervisorEval['reach'] & { rows: number }> {
  const rows = readCorpus(corpus);
  const dirs = scratch();
  try {
    writeFileSync(join(dirs.configDir, 'config.yml'), USER_CONFIG);
    api.reply = answer('allow', 0.95, 'fits the task');
    const before = api.requests.length;
    const first = await replay(rows, packageRoot(), dirs, api, 'eval-sup');
    const reached = api.requests.length - before;
    const byTier: Record<string, number> = {};
    for (const a of first) byTier[a.tier] = (byTier[a.tier] ?? 0) + 1;
    const mid = api.requests.length;
    await replay(rows, packageRoot(), dirs, api, 'eval-sup');
    const again = api.requests.length - mid;
    return { rows: rows.length, first: { reached, share: reached / Math.max(1, rows.length), byTier }, again: { reached: again, share: again / Math.max(1, rows.length) } };
  } finally {
    dirs.cleanup();
  }
}

async function measureLatency(api: FakeApi, iterations: number): Promise<SupervisorEval['latency']> {
  // Below the threshold: every call reaches tier 3 again (nothing is remembered), and the cascade goes on.
  api.reply = answer('allow', 0.5, 'a recommendation');
  const engines: Engine[] = [];
  const dirsList: ReturnType<typeof scratch>[] = [];
  const payloads: string[] = [];
  try {
    for (const on of [false, true]) {
      const dirs = scratch();
      dirsList.push(dirs);
      const project = join(dirs.base, 'project');
      mkdirSync(join(project, '.git'), { recursive: true });
      if (on) writeFileSync(join(dirs.configDir, 'config.yml'), USER_CONFIG);
      new SessionRegistry(dirs.runtimeDir).update('lat', (_e, now) => ({ session_id: 'lat', role: 'coder', disabled: false, task: 'fix the staging deploy', registered_at: now, updated_at: now }));
      engines.push(new Engine({ home: dirs.home, runtimeDir: dirs.runtimeDir, userConfigDir: dirs.configDir }, {
        parseCacheSize: 4096,
        memory: new LiveMemoryPool(),
        supervisorBackends: (s) => apiSupervisor({ model: s.model, timeoutMs: s.timeoutMs, maxTokens: s.maxTokens, stream: s.stream, client: { baseURL: api.url, apiKey: 'fake-key-for-the-loopback-api' } }),
      }));
      payloads.push(JSON.stringify({ session_id: 'lat', cwd: project, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'make deploy-staging --jobs 4' } }));
    }
    const time = async (i: number): Promise<number> => {
      const started = process.hrtime.bigint();
      const r = await engines[i]!.handle(payloads[i]!);
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (r.decision?.tier !== 'default') throw new Error(`expected the call to pass every tier, got ${r.decision?.tier}`);
      return ms;
    };
    const off: number[] = [];
    const on: number[] = [];
    for (let i = 0; i < 20; i++) await Promise.all([time(0), time(1)]); // warm: the SDK, the client, the parse cache
    for (let i = 0; i < iterations; i++) {
      off.push(await time(0));
      on.push(await time(1));
    }
    // The bare round trip of one request of that size to the fake API, through the same fetch the SDK uses.
    const body = api.requests.at(-1)!.raw;
    const loop: number[] = [];
    for (let i = 0; i < iterations; i++) {
      const started = process.hrtime.bigint();
      const res = await fetch(`${api.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'fake' }, body });
      await res.text();
      loop.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
    const offMs = median(off);
    const onMs = median(on);
    const loopbackMs = median(loop);
    return { iterations, offMs, onMs, addedMs: onMs - offMs, loopbackMs, besidesApiMs: onMs - offMs - loopbackMs };
  } finally {
    for (const d of dirsList) d.cleanup();
  }
}

function measureSdkImport(runs: number): SupervisorEval['sdkImport'] {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const r = spawnSync(process.execPath, ['-e', "const t = process.hrtime.bigint(); require('@anthropic-ai/sdk'); console.log(Number(process.hrtime.bigint() - t) / 1e6)"], { cwd: packageRoot(), encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`could not load @anthropic-ai/sdk: ${r.stderr}`);
    times.push(Number(r.stdout.trim()));
  }
  return { runs, medianMs: median(times) };
}

export async function evaluateSupervisor(corpus: string = defaultWorkload(), options: { iterations?: number; progress?: (message: string) => void } = {}): Promise<SupervisorEval> {
  const api = await startFakeApi();
  try {
    options.progress?.(`replaying ${corpus} twice through check --jsonl`);
    const { rows, ...reach } = await measureReach(corpus, api);
    options.progress?.('daemon latency, supervisor off and on');
    const latency = await measureLatency(api, options.iterations ?? 200);
    options.progress?.('SDK import cost');
    const sdkImport = measureSdkImport(9);
    return { corpus, rows, reach, latency, sdkImport };
  } finally {
    await api.close();
  }
}

export function renderSupervisorEval(e: SupervisorEval): string {
  const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
  const ms = (x: number): string => `${x.toFixed(2)} ms`;
  const tiers = Object.entries(e.reach.first.byTier).sort(([, a], [, b]) => b - a).map(([t, n]) => `${n} ${t}`).join(', ');
  return [
    `supervisor plumbing on ${e.corpus} (${e.rows} calls), fake Messages API on loopback`,
    `reach: ${e.reach.first.reached} calls reached tier 3 on the first replay (${pct(e.reach.first.share)}; decided by: ${tiers})`,
    `       ${e.reach.again.reached} on the replay after (${pct(e.reach.again.share)}): its answers are remembered`,
    `latency in the daemon's engine (median of ${e.latency.iterations}): ${ms(e.latency.offMs)} supervisor off, ${ms(e.latency.onMs)} on → ${ms(e.latency.addedMs)} added, of which the loopback round trip is ${ms(e.latency.loopbackMs)}: ${ms(e.latency.besidesApiMs)} besides the API call`,
    `SDK import (only a process whose call reaches tier 3 pays it): median ${ms(e.sdkImport.medianMs)} over ${e.sdkImport.runs} fresh processes`,
  ].join('\n');
}
