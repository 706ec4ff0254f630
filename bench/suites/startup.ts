/**
 * Start-up cost of the hook process: the built `hookwise check` spawned the way a host spawns it (payload
 * on stdin, registered session, compiled-policy cache warm), against `node -e 0` on the same machine in the
 * same run. Commands are interleaved round by round, with the order rotated each round, so machine drift
 * and position effects (a page cache warmed by the previous command) hit every command alike; the row is
 * the ratio of medians. tinybench is not used here: it times one task at a time and cannot interleave.
 *
 * Both commands get the same stdin and environment, so what they share (process creation, pipes, Node's
 * own start-up, and reading NODE_EXTRA_CA_CERTS, which Node does at every start) is in both medians and
 * their difference is hookwise's own work. Shared costs do dilute the ratio, hence the no-CA row.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { hookwiseBin } from '../../src/util/package-root.js';
import { summarize } from '../stats.js';
import type { Measurement, Suite, SuiteContext } from '../suite.js';
import type { TargetId } from '../targets.js';

interface Command {
  label: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  /** Throws when the run did not do what it is meant to time. */
  verify(stdout: string): void;
}

const ROUNDS = { quick: 8, full: 60 } as const;
const WARMUP_ROUNDS = { quick: 1, full: 3 } as const;

export const startupSuite: Suite = {
  name: 'startup',
  measures: ['check.startup-ratio', 'check.startup-ratio.no-extra-ca'],
  async run(ctx) {
    const { fixture } = ctx;
    const bin = hookwiseBin();
    if (!existsSync(bin)) throw new Error(`bench: ${bin} not found; build it first (npm run build)`);
    const withCa = fixture.env;
    const withoutCa: NodeJS.ProcessEnv = { ...fixture.env };
    delete withoutCa.NODE_EXTRA_CA_CERTS;

    // Register through the real CLI; this also compiles the policy into the fixture's cache.
    const registered = spawnSync(process.execPath, [bin, 'register', '--session-id', fixture.sessionId, '--role', fixture.role], {
      cwd: fixture.projectDir,
      env: withCa,
      encoding: 'utf8',
    });
    if (registered.status !== 0) throw new Error(`bench: hookwise register failed (exit ${registered.status}): ${registered.stderr}`);

    const check = (env: NodeJS.ProcessEnv, label: string): Command => ({ label, args: [bin, 'check'], env, verify: expectAllow });
    const node = (env: NodeJS.ProcessEnv, label: string): Command => ({ label, args: ['-e', '0'], env, verify: () => undefined });
    const rows: { id: TargetId; check: Command; baseline: Command }[] = [
      { id: 'check.startup-ratio', check: check(withCa, 'check'), baseline: node(withCa, 'node') },
      { id: 'check.startup-ratio.no-extra-ca', check: check(withoutCa, 'check, no CA'), baseline: node(withoutCa, 'node, no CA') },
    ];
    const commands = rows.flatMap((r) => [r.check, r.baseline]);
    const times = await interleave(commands, ctx);

    const caFile = process.env.NODE_EXTRA_CA_CERTS;
    return rows.map((row): Measurement => {
      const c = summarize(times.get(row.check)!);
      const b = summarize(times.get(row.baseline)!);
      const note =
        row.id !== 'check.startup-ratio'
          ? undefined
          : caFile === undefined || caFile === ''
            ? 'NODE_EXTRA_CA_CERTS is not set here: same conditions as the no-extra-ca row'
            : `NODE_EXTRA_CA_CERTS=${caFile}`;
      return {
        id: row.id,
        median: c.median / b.median,
        // The p99 column of a ratio row is the ratio of the p99s (tails of both commands).
        p99: c.p99 / b.p99,
        samples: Math.min(c.samples, b.samples),
        parts: [
          { label: 'hookwise check', unit: 'ms', ...c },
          { label: 'node -e 0', unit: 'ms', ...b },
        ],
        ...(note === undefined ? {} : { note }),
      };
    });

    function expectAllow(stdout: string): void {
      const out = JSON.parse(stdout) as { hookSpecificOutput?: { permissionDecision?: string; permissionDecisionReason?: string } };
      const verdict = out.hookSpecificOutput?.permissionDecision;
      if (verdict !== 'allow') {
        throw new Error(`bench: hookwise check answered ${verdict ?? 'nothing'} (${out.hookSpecificOutput?.permissionDecisionReason ?? stdout}); expected allow for a registered coder's Write in src/`);
      }
    }
  },
};

async function interleave(commands: readonly Command[], ctx: SuiteContext): Promise<Map<Command, number[]>> {
  const { fixture, quick } = ctx;
  const rounds = quick ? ROUNDS.quick : ROUNDS.full;
  const warmup = quick ? WARMUP_ROUNDS.quick : WARMUP_ROUNDS.full;
  const times = new Map<Command, number[]>(commands.map((c) => [c, []]));
  for (let round = -warmup; round < rounds; round++) {
    for (let k = 0; k < commands.length; k++) {
      // Rotate the order each round so no command always runs first or right after the same neighbour.
      const command = commands[(k + Math.max(round, 0)) % commands.length]!;
      const start = process.hrtime.bigint();
      const run = spawnSync(process.execPath, command.args, { cwd: fixture.projectDir, env: command.env, input: fixture.payload, encoding: 'utf8' });
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      if (run.error !== undefined) throw run.error;
      if (run.status !== 0) throw new Error(`bench: ${command.label} exited ${run.status}: ${run.stderr}`);
      command.verify(run.stdout);
      if (round >= 0) times.get(command)!.push(ms);
    }
    if (round >= 0 && (round + 1) % 20 === 0) ctx.progress(`startup: ${round + 1}/${rounds} rounds`);
    // Let the event loop breathe between rounds (progress output, signals).
    await new Promise((resolve) => setImmediate(resolve));
  }
  return times;
}
