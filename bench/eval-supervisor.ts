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
import type { BackendFactory } from '../src/engine/supervise.js';
import type { Sanitized } from '../src/sanitize/index.js';
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
  /**
   * Medians in the daemon's engine for one call that reaches tier 3: supervisor off; on with an in-process
   * backend answering at once (tierOnlyMs: hookwise's own added work); on with the SDK and a fake API in
   * another process (addedMs; besidesApiMs: minus the bare loopback round trip of a same-sized request).
   */
  latency: {
    iterations: number;
    offMs: number;
    tierOnlyMs: number;
    onMs: number;
    addedMs: number;
    loopbackMs: number;
    besidesApiMs: number;
  };
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
  return {
    base,
    home,
    runtimeDir: join(base, 'runtime'),
    configDir,
    cleanup: () => rmSync(base, { recursive: true, force: true }),
  };
}

/** The rows through one built `check --jsonl` (async: the fake API answers from this process meanwhile). */
async function replay(
  rows: ReturnType<typeof readCorpus>,
  cwd: string,
  dirs: { runtimeDir: string; configDir: string },
  api: FakeApi,
  prefix: string,
): Promise<{ tier: string }[]> {
  registerRoles(dirs.runtimeDir, prefix, rows);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOOKWISE_RUNTIME_DIR: dirs.runtimeDir,
    HOOKWISE_CONFIG_DIR: dirs.configDir,
    HOOKWISE_DAEMON: 'off',
    ANTHROPIC_BASE_URL: api.url,
    ANTHROPIC_API_KEY: 'fake-key-for-the-loopback-api',
  };
  delete env.HOOKWISE_ROLE;
  const input = rows
    .map((row, i) =>
      JSON.stringify({
        session_id: sessionFor(prefix, roleOf(row)),
        cwd,
        permission_mode: 'default',
        hook_event_name: 'PreToolUse',
        ...toolCallOf(row, cwd),
        tool_use_id: `${prefix}-${i}`,
      }),
    )
    .join('\n');
  const stdout = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, [hookwiseBin(), 'check', '--jsonl'], { env, cwd });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`hookwise check --jsonl failed (${code}): ${err}`)),
    );
    child.stdin.end(input);
  });
  return stdout
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { tier: string });
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
    return {
      rows: rows.length,
      first: { reached, share: reached / Math.max(1, rows.length), byTier },
      again: { reached: again, share: again / Math.max(1, rows.length) },
    };
  } finally {
    dirs.cleanup();
  }
}

/**
 * A Messages API in another process, answering every request at once with a fixed tool call: the latency
 * rows measure this process's work, not the fake server's (which, in-process, would run on the same thread).
 */
const INSTANT_API = `
const http = require('node:http');
const body = JSON.stringify({ id: 'msg_fake', type: 'message', role: 'assistant', model: 'fake-model', content: [{ type: 'tool_use', id: 'toolu_1', name: 'record_decision', input: { decision: 'allow', confidence: 0.5, reason: 'a recommendation' } }], stop_reason: 'tool_use', stop_sequence: null, usage: { input_tokens: 100, output_tokens: 20 } });
const server = http.createServer((req, res) => { req.resume(); req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(body)); });
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
process.stdin.on('end', () => process.exit(0)); process.stdin.resume();
`;

async function instantApi(): Promise<{ url: string; stop(): void }> {
  const child = spawn(process.execPath, ['-e', INSTANT_API], { stdio: ['pipe', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout.once('data', (d: Buffer) => resolve(d.toString().trim()));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the fake API exited (${code})`)));
  });
  return { url: `http://127.0.0.1:${port}`, stop: () => child.stdin.end() };
}

async function measureLatency(iterations: number): Promise<SupervisorEval['latency']> {
  const api = await instantApi();
  const engines: Engine[] = [];
  const dirsList: ReturnType<typeof scratch>[] = [];
  const payloads: string[] = [];
  try {
    // off; on with an in-process backend that answers at once (hookwise's own work); on with the SDK.
    const backends: (BackendFactory | undefined)[] = [
      undefined,
      () => ({
        name: 'api',
        review: async () => ({
          kind: 'answer',
          decision: 'allow',
          confidence: 0.5,
          reason: 'a recommendation' as Sanitized,
          by: 'api:instant',
        }),
      }),
      (s) =>
        apiSupervisor({
          model: s.model,
          timeoutMs: s.timeoutMs,
          maxTokens: s.maxTokens,
          stream: s.stream,
          client: { baseURL: api.url, apiKey: 'fake-key-for-the-loopback-api' },
        }),
    ];
    for (const factory of backends) {
      const dirs = scratch();
      dirsList.push(dirs);
      const project = join(dirs.base, 'project');
      mkdirSync(join(project, '.git'), { recursive: true });
      if (factory !== undefined) writeFileSync(join(dirs.configDir, 'config.yml'), USER_CONFIG);
      new SessionRegistry(dirs.runtimeDir).update('lat', (_e, now) => ({
        session_id: 'lat',
        role: 'coder',
        disabled: false,
        task: 'fix the staging deploy',
        registered_at: now,
        updated_at: now,
      }));
      engines.push(
        new Engine(
          { home: dirs.home, runtimeDir: dirs.runtimeDir, userConfigDir: dirs.configDir },
          {
            parseCacheSize: 4096,
            memory: new LiveMemoryPool(),
            ...(factory === undefined ? {} : { supervisorBackends: factory }),
          },
        ),
      );
      // Below the threshold: every call reaches tier 3 again (nothing is remembered) and ends as the default ask.
      payloads.push(
        JSON.stringify({
          session_id: 'lat',
          cwd: project,
          hook_event_name: 'PreToolUse',
          tool_name: 'Bash',
          tool_input: { command: 'make deploy-staging --jobs 4' },
        }),
      );
    }
    const time = async (i: number): Promise<number> => {
      const started = process.hrtime.bigint();
      const r = await engines[i]!.handle(payloads[i]!);
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (r.decision?.tier !== 'default')
        throw new Error(`expected the call to pass every tier, got ${r.decision?.tier}: ${r.decision?.reason}`);
      if (i > 0 && r.decision.recommendation === undefined)
        throw new Error(`expected a recommendation: ${r.decision.reason}`);
      return ms;
    };
    const samples: number[][] = [[], [], []];
    for (let i = 0; i < 20; i++) for (const e of [0, 1, 2]) await time(e); // warm: the SDK, the client, the parse cache
    for (let i = 0; i < iterations; i++) for (const e of [0, 1, 2]) samples[e]!.push(await time(e));
    // The bare round trip of a request of the same size to the same fake API, through the fetch the SDK uses.
    const body = JSON.stringify({
      model: 'fake-model',
      max_tokens: 512,
      messages: [{ role: 'user', content: 'x'.repeat(2500) }],
    });
    const loop: number[] = [];
    for (let i = 0; i < iterations; i++) {
      const started = process.hrtime.bigint();
      const res = await fetch(`${api.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'fake' },
        body,
      });
      await res.text();
      loop.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
    const [offMs, tierMs, onMs] = samples.map(median) as [number, number, number];
    const loopbackMs = median(loop);
    return {
      iterations,
      offMs,
      tierOnlyMs: tierMs - offMs,
      onMs,
      addedMs: onMs - offMs,
      loopbackMs,
      besidesApiMs: onMs - offMs - loopbackMs,
    };
  } finally {
    api.stop();
    for (const d of dirsList) d.cleanup();
  }
}

function measureSdkImport(runs: number): SupervisorEval['sdkImport'] {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const r = spawnSync(
      process.execPath,
      [
        '-e',
        "const t = process.hrtime.bigint(); require('@anthropic-ai/sdk'); console.log(Number(process.hrtime.bigint() - t) / 1e6)",
      ],
      { cwd: packageRoot(), encoding: 'utf8' },
    );
    if (r.status !== 0) throw new Error(`could not load @anthropic-ai/sdk: ${r.stderr}`);
    times.push(Number(r.stdout.trim()));
  }
  return { runs, medianMs: median(times) };
}

export async function evaluateSupervisor(
  corpus: string = defaultWorkload(),
  options: { iterations?: number; progress?: (message: string) => void } = {},
): Promise<SupervisorEval> {
  const api = await startFakeApi();
  try {
    options.progress?.(`replaying ${corpus} twice through check --jsonl`);
    const { rows, ...reach } = await measureReach(corpus, api);
    options.progress?.('daemon latency, supervisor off and on');
    const latency = await measureLatency(options.iterations ?? 200);
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
  const tiers = Object.entries(e.reach.first.byTier)
    .sort(([, a], [, b]) => b - a)
    .map(([t, n]) => `${n} ${t}`)
    .join(', ');
  return [
    `supervisor plumbing on ${e.corpus} (${e.rows} calls), fake Messages API on loopback`,
    `reach: ${e.reach.first.reached} calls reached tier 3 on the first replay (${pct(e.reach.first.share)}; decided by: ${tiers})`,
    `       ${e.reach.again.reached} on the replay after (${pct(e.reach.again.share)}): its answers are remembered`,
    `latency in the daemon's engine (medians of ${e.latency.iterations}): ${ms(e.latency.offMs)} supervisor off; the tier itself (a backend answering at once) adds ${ms(e.latency.tierOnlyMs)}`,
    `       through the SDK to a fake API in another process: ${ms(e.latency.onMs)}, ${ms(e.latency.addedMs)} added, of which the bare loopback round trip is ${ms(e.latency.loopbackMs)}: ${ms(e.latency.besidesApiMs)} besides the API call (the SDK's own work, and hookwise's)`,
    `SDK import (only a process whose call reaches tier 3 pays it): median ${ms(e.sdkImport.medianMs)} over ${e.sdkImport.runs} fresh processes`,
  ].join('\n');
}
