/**
 * Confined allows (issue 19): what a confined allow costs at decision time, and what the walls cost when the
 * command runs. Confinement is turned on for this suite only (its own user config and runtime dir; the
 * fixture's project). Each decision row compares a novel project script — the cascade asks, the call is
 * confinable, the mount plan is made (an lstat per protected name), the wrapped command rendered, the note for
 * learning from the walls written — with a Bash call a pack allows (`ls -la src`), every answer checked.
 *
 * - confine.decision-ratio: spawned `hookwise check`, answered by a running daemon (the default set-up),
 *   interleaved with startup.ts's `interleave`; no NODE_EXTRA_CA_CERTS (it only adds the same to both).
 * - confine.decision-ratio.no-daemon: the same in command mode (HOOKWISE_DAEMON=off).
 * - confine.decision-in-process: the difference inside one warm engine built with the daemon's options.
 * - confine.true-overhead: the wrapped `true` minus `bash -c true`, spawned, interleaved (confine-escapes.ts).
 *
 * Where this machine cannot confine (no bubblewrap, no user namespaces) the rows are not measured: the suite
 * says why, and the report leaves them out (targets.ts `needs`).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { probeConfinement } from '../../src/confine/probe.js';
import { Engine } from '../../src/engine/engine.js';
import { locations } from '../../src/util/locations.js';
import { hookwiseBin } from '../../src/util/package-root.js';
import { timeTrue } from '../confine-escapes.js';
import { startDaemon } from '../daemon-process.js';
import { summarize } from '../stats.js';
import type { Measurement, PerSize, Suite, SuiteContext } from '../suite.js';
import type { TargetId } from '../targets.js';
import { daemonEngineOptions } from './daemon.js';
import { interleave, ratioRow, type Command } from './startup.js';

const NOVEL = './scripts/gen.sh --out build';
const PLAIN = 'ls -la src';
const IN_PROCESS_SAMPLES: PerSize<number> = { quick: 40, standard: 60, full: 400 };
const TRUE_RUNS: PerSize<number> = { quick: 15, standard: 15, full: 61 };

type Expected = 'confined' | 'plain';

export const confineSuite: Suite = {
  name: 'confine',
  measures: [
    'confine.decision-ratio',
    'confine.decision-ratio.no-daemon',
    'confine.decision-in-process',
    'confine.true-overhead',
  ],
  async run(ctx) {
    const probe = probeConfinement();
    if (!probe.available) {
      ctx.progress(`confine: rows not measured, this machine cannot confine: ${probe.reason}`);
      return [];
    }
    const base = mkdtempSync(join(tmpdir(), 'hookwise-bench-confine-'));
    try {
      const env: NodeJS.ProcessEnv = {
        ...ctx.fixture.env,
        HOOKWISE_CONFIG_DIR: join(base, 'config'),
        HOOKWISE_RUNTIME_DIR: join(base, 'runtime'),
      };
      delete env.NODE_EXTRA_CA_CERTS;
      mkdirSync(env.HOOKWISE_CONFIG_DIR!, { recursive: true });
      writeFileSync(join(env.HOOKWISE_CONFIG_DIR!, 'config.yml'), 'confine:\n  enabled: true\n');
      register(ctx, env);

      ctx.progress('confine: decision time in process…');
      const inProcess = await decisionInProcess(ctx, env);

      ctx.progress('confine: decision time, command mode…');
      const noDaemon = await spawnedRatio(ctx, env, 'confine.decision-ratio.no-daemon', 'command mode');

      const withDaemon: NodeJS.ProcessEnv = { ...env };
      delete withDaemon.HOOKWISE_DAEMON;
      ctx.progress('confine: decision time through the daemon…');
      const daemon = await startDaemon(withDaemon);
      let viaDaemon: Measurement;
      try {
        viaDaemon = await spawnedRatio(ctx, withDaemon, 'confine.decision-ratio', 'answered by the daemon');
        viaDaemon.note = `answered by the daemon (pid ${daemon.pid})`;
      } finally {
        await daemon.stop();
      }

      ctx.progress('confine: wall time of `true`…');
      const t = timeTrue(probe.runtime, TRUE_RUNS[ctx.size]);
      return [
        viaDaemon,
        noDaemon,
        inProcess,
        difference('confine.true-overhead', t.confined, t.plain, 'confined `true`', 'bash -c true'),
      ];
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  },
};

function register(ctx: SuiteContext, env: NodeJS.ProcessEnv): void {
  const { fixture } = ctx;
  const r = spawnSync(
    process.execPath,
    [hookwiseBin(), 'register', '--session-id', fixture.sessionId, '--role', fixture.role],
    { cwd: fixture.projectDir, env, encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`bench: hookwise register failed (exit ${r.status}): ${r.stderr}`);
}

function payload(ctx: SuiteContext, command: string, id: string): string {
  return JSON.stringify({
    ...(JSON.parse(ctx.fixture.payload) as Record<string, unknown>),
    tool_name: 'Bash',
    tool_input: { command },
    tool_use_id: id,
  });
}

/** Throws unless the host answer is the allow this row means to time. */
function verify(stdout: string, command: string, expected: Expected): void {
  const out = JSON.parse(stdout) as {
    hookSpecificOutput?: { permissionDecision?: string; permissionDecisionReason?: string; updatedInput?: unknown };
  };
  const h = out.hookSpecificOutput;
  const ok = h?.permissionDecision === 'allow' && (expected === 'confined') === (h.updatedInput !== undefined);
  if (!ok)
    throw new Error(
      `bench: \`${command}\` was answered ${h?.permissionDecision ?? 'nothing'} (${h?.permissionDecisionReason ?? stdout}); expected a ${expected} allow`,
    );
}

async function spawnedRatio(
  ctx: SuiteContext,
  env: NodeJS.ProcessEnv,
  id: TargetId,
  how: string,
): Promise<Measurement> {
  const bin = hookwiseBin();
  const command = (text: string, expected: Expected): Command => ({
    label: `hookwise check, ${expected} allow (${how})`,
    args: [bin, 'check'],
    env,
    input: payload(ctx, text, `toolu_bench_${expected}`),
    verify: (stdout) => verify(stdout, text, expected),
  });
  const confined = command(NOVEL, 'confined');
  const plain = command(PLAIN, 'plain');
  const times = await interleave([confined, plain], ctx, 'confine');
  const row = ratioRow(id, times.get(confined)!, times.get(plain)!, confined.label, undefined);
  // ratioRow labels its second part `node -e 0`: here it is the plain allow.
  row.parts![1] = { ...row.parts![1]!, label: `hookwise check, plain allow (${how})` };
  return row;
}

async function decisionInProcess(ctx: SuiteContext, env: NodeJS.ProcessEnv): Promise<Measurement> {
  const engine = new Engine(locations(env), daemonEngineOptions());
  const decide = async (command: string, i: number, expected: Expected): Promise<number> => {
    const start = performance.now();
    const out = await engine.handle(payload(ctx, command, `toolu_bench_${i}`), { host: 'claude' });
    const ms = performance.now() - start;
    verify(out.stdout, command, expected);
    return ms;
  };
  const confined: number[] = [];
  const plain: number[] = [];
  const samples = IN_PROCESS_SAMPLES[ctx.size];
  for (let i = -20; i < samples; i++) {
    // Alternate which goes first; the warm-up (i < 0) is not kept.
    let c: number;
    let p: number;
    if (i % 2 === 0) {
      c = await decide(NOVEL, i, 'confined');
      p = await decide(PLAIN, i, 'plain');
    } else {
      p = await decide(PLAIN, i, 'plain');
      c = await decide(NOVEL, i, 'confined');
    }
    if (i < 0) continue;
    confined.push(c);
    plain.push(p);
  }
  return difference(
    'confine.decision-in-process',
    confined,
    plain,
    'confined allow (Engine.handle)',
    'plain allow (Engine.handle)',
  );
}

/** A row of `a` minus `b` (medians, and p99s), both shown under it. */
function difference(id: TargetId, a: number[], b: number[], aLabel: string, bLabel: string): Measurement {
  const x = summarize(a);
  const y = summarize(b);
  return {
    id,
    median: x.median - y.median,
    p99: x.p99 - y.p99,
    samples: Math.min(x.samples, y.samples),
    parts: [
      { label: aLabel, unit: 'ms', ...x },
      { label: bLabel, unit: 'ms', ...y },
    ],
  };
}
