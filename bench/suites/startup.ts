/**
 * Start-up cost of the hook process: the built `hookwise check` spawned the way a host spawns it (payload
 * on stdin, registered session, compiled-policy cache warm), against `node -e 0` on the same machine in the
 * same run. Commands are interleaved round by round, with the order rotated each round, so machine drift
 * and position effects (a page cache warmed by the previous command) hit every command alike; the row is
 * the ratio of medians. tinybench is not used here: it times one task at a time and cannot interleave.
 *
 * Both commands get the same environment, so what they share (process creation, pipes, Node's own
 * start-up, and reading NODE_EXTRA_CA_CERTS, which Node does at every start) is in both medians and their
 * difference is hookwise's own work. Shared costs do dilute the ratio, hence the no-CA rows. That
 * environment is the fixture's, with HOOKWISE_DAEMON=off (for `node -e 0` too, so the two stay alike):
 * these rows time the process-per-call path, a `hookwise check` that decides in its own process. Without
 * it, check asks a running daemon first and, finding none, starts one in the background, which would then
 * answer every later round (the daemon path has rows of its own: bench/suites/daemon.ts).
 *
 * The cache-hit rows time a Bash call that decision memory answers: a second project whose committed
 * `.hookwise/rules/allow.jsonl` remembers `npm run seed` as allowed (written by the real store writer,
 * keyed by the real parser + subject code). A project of its own, so the Write rows keep measuring a
 * project without memory. They share the `node -e 0` runs of the Write rows (same environment; node
 * does not read stdin).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { callSubject } from '../../src/memory/subject.js';
import { cacheKey } from '../../src/memory/cache.js';
import { recordFor } from '../../src/memory/learn.js';
import { appendRecords, type StoreTarget } from '../../src/memory/store.js';
import { claudeAdapter } from '../../src/hosts/claude.js';
import { resolvePath } from '../../src/paths/canonical.js';
import type { Sanitized } from '../../src/sanitize/index.js';
import { prepareShell } from '../../src/shell/prepare.js';
import { hookwiseBin } from '../../src/util/package-root.js';
import type { BenchFixture } from '../fixture.js';
import { summarize } from '../stats.js';
import type { Measurement, PerSize, Suite, SuiteContext } from '../suite.js';
import type { TargetId } from '../targets.js';

export interface Command {
  label: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  /** Working directory and stdin (default: the fixture's project and its Write payload). */
  cwd?: string;
  input?: string;
  /** Throws when the run did not do what it is meant to time. */
  verify(stdout: string): void;
}

const ROUNDS: PerSize<number> = { quick: 8, standard: 12, full: 60 };
const WARMUP_ROUNDS: PerSize<number> = { quick: 1, standard: 1, full: 3 };

export const startupSuite: Suite = {
  name: 'startup',
  measures: [
    'check.startup-ratio',
    'check.startup-ratio.no-extra-ca',
    'check.cache-hit-ratio',
    'check.cache-hit-ratio.no-extra-ca',
  ],
  async run(ctx) {
    const { fixture } = ctx;
    const bin = hookwiseBin();
    if (!existsSync(bin)) throw new Error(`bench: ${bin} not found; build it first (npm run build)`);
    const withCa = fixture.env;
    const withoutCa: NodeJS.ProcessEnv = { ...fixture.env };
    delete withoutCa.NODE_EXTRA_CA_CERTS;

    // Register through the real CLI; this also compiles the policy into the fixture's cache.
    registerThroughCli(fixture);

    const hit = await cacheHitProject(fixture);
    const check = (env: NodeJS.ProcessEnv, label: string): Command => ({
      label,
      args: [bin, 'check'],
      env,
      verify: expectAllow,
    });
    const checkHit = (env: NodeJS.ProcessEnv, label: string): Command => ({
      label,
      args: [bin, 'check'],
      env,
      cwd: hit.projectDir,
      input: hit.payload,
      verify: expectCacheHit,
    });
    const node = (env: NodeJS.ProcessEnv, label: string): Command => ({
      label,
      args: ['-e', '0'],
      env,
      verify: () => undefined,
    });
    const baseline = node(withCa, 'node');
    const baselineNoCa = node(withoutCa, 'node, no CA');
    const rows: { id: TargetId; check: Command; baseline: Command; label: string }[] = [
      { id: 'check.startup-ratio', check: check(withCa, 'check'), baseline, label: 'hookwise check' },
      {
        id: 'check.startup-ratio.no-extra-ca',
        check: check(withoutCa, 'check, no CA'),
        baseline: baselineNoCa,
        label: 'hookwise check',
      },
      {
        id: 'check.cache-hit-ratio',
        check: checkHit(withCa, 'check, cache hit'),
        baseline,
        label: 'hookwise check (Bash, cache hit)',
      },
      {
        id: 'check.cache-hit-ratio.no-extra-ca',
        check: checkHit(withoutCa, 'check, cache hit, no CA'),
        baseline: baselineNoCa,
        label: 'hookwise check (Bash, cache hit)',
      },
    ];
    // Once before timing: the cache-hit project's policy gets compiled, and a miss fails loudly here.
    for (const env of [withCa, withoutCa]) {
      const run = spawnSync(process.execPath, [bin, 'check'], {
        cwd: hit.projectDir,
        env,
        input: hit.payload,
        encoding: 'utf8',
      });
      if (run.status !== 0) throw new Error(`bench: hookwise check (cache hit) exited ${run.status}: ${run.stderr}`);
      expectCacheHit(run.stdout);
    }
    const commands = [...new Set(rows.flatMap((r) => [r.check, r.baseline]))];
    const times = await interleave(commands, ctx);

    return rows.map((row) =>
      ratioRow(
        row.id,
        times.get(row.check)!,
        times.get(row.baseline)!,
        row.label,
        row.id === 'check.startup-ratio' || row.id === 'check.cache-hit-ratio' ? caNote() : undefined,
      ),
    );
  },
};

/** Which NODE_EXTRA_CA_CERTS the with-CA rows ran with (both commands read it at every start). */
export function caNote(): string {
  const caFile = process.env.NODE_EXTRA_CA_CERTS;
  return caFile === undefined || caFile === ''
    ? 'NODE_EXTRA_CA_CERTS is not set here: same conditions as the no-extra-ca row'
    : `NODE_EXTRA_CA_CERTS=${caFile}`;
}

/** A ratio row: hookwise's median over `node -e 0`'s, each command's own summary shown under it. */
export function ratioRow(
  id: TargetId,
  check: readonly number[],
  baseline: readonly number[],
  label: string,
  note: string | undefined,
): Measurement {
  const c = summarize(check);
  const b = summarize(baseline);
  return {
    id,
    median: c.median / b.median,
    // The p99 column of a ratio row is the ratio of the p99s (tails of both commands).
    p99: c.p99 / b.p99,
    samples: Math.min(c.samples, b.samples),
    parts: [
      { label, unit: 'ms', ...c },
      { label: 'node -e 0', unit: 'ms', ...b },
    ],
    ...(note === undefined ? {} : { note }),
  };
}

/** Registers the fixture's session (its role) through the built CLI, in the runtime dir of `fixture.env`. */
export function registerThroughCli(fixture: BenchFixture): void {
  const registered = spawnSync(
    process.execPath,
    [hookwiseBin(), 'register', '--session-id', fixture.sessionId, '--role', fixture.role],
    {
      cwd: fixture.projectDir,
      env: fixture.env,
      encoding: 'utf8',
    },
  );
  if (registered.status !== 0)
    throw new Error(`bench: hookwise register failed (exit ${registered.status}): ${registered.stderr}`);
}

/** Throws unless `stdout` is a Claude Code allow from tier exact-cache (the cache-hit call). */
export function expectCacheHit(stdout: string): void {
  const out = JSON.parse(stdout) as {
    hookSpecificOutput?: { permissionDecision?: string; permissionDecisionReason?: string };
  };
  const verdict = out.hookSpecificOutput?.permissionDecision;
  const reason = out.hookSpecificOutput?.permissionDecisionReason ?? stdout;
  if (verdict !== 'allow' || !reason.includes('[tier exact-cache')) {
    throw new Error(
      `bench: hookwise check answered ${verdict ?? 'nothing'} (${reason}); expected an exact-cache allow for \`${CACHE_HIT_COMMAND}\``,
    );
  }
}

/** Throws unless `stdout` is a Claude Code allow (the fixture's Write). */
export function expectAllow(stdout: string): void {
  const out = JSON.parse(stdout) as {
    hookSpecificOutput?: { permissionDecision?: string; permissionDecisionReason?: string };
  };
  const verdict = out.hookSpecificOutput?.permissionDecision;
  if (verdict !== 'allow') {
    throw new Error(
      `bench: hookwise check answered ${verdict ?? 'nothing'} (${out.hookSpecificOutput?.permissionDecisionReason ?? stdout}); expected allow for a registered coder's Write in src/`,
    );
  }
}

/**
 * Runs every command once per round, `rounds` rounds after a warm-up, rotating the order each round;
 * returns each command's wall times (ms), warm-up excluded. `name` labels the progress lines.
 */
export async function interleave(
  commands: readonly Command[],
  ctx: SuiteContext,
  name = 'startup',
): Promise<Map<Command, number[]>> {
  const { fixture, size } = ctx;
  const rounds = ROUNDS[size];
  const warmup = WARMUP_ROUNDS[size];
  const times = new Map<Command, number[]>(commands.map((c) => [c, []]));
  for (let round = -warmup; round < rounds; round++) {
    for (let k = 0; k < commands.length; k++) {
      // Rotate the order each round so no command always runs first or right after the same neighbour.
      const command = commands[(k + Math.max(round, 0)) % commands.length]!;
      const start = process.hrtime.bigint();
      const run = spawnSync(process.execPath, command.args, {
        cwd: command.cwd ?? fixture.projectDir,
        env: command.env,
        input: command.input ?? fixture.payload,
        encoding: 'utf8',
      });
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      if (run.error !== undefined) throw run.error;
      if (run.status !== 0) throw new Error(`bench: ${command.label} exited ${run.status}: ${run.stderr}`);
      command.verify(run.stdout);
      if (round >= 0) times.get(command)!.push(ms);
    }
    if (round >= 0 && (round + 1) % 20 === 0) ctx.progress(`${name}: ${round + 1}/${rounds} rounds`);
    // Let the event loop breathe between rounds (progress output, signals).
    await new Promise((resolve) => setImmediate(resolve));
  }
  return times;
}

/** The command the cache-hit rows time: short, and decided by no policy tier (see bench/suites/memory.ts). */
export const CACHE_HIT_COMMAND = 'npm run seed';

export interface CacheHitProject {
  projectDir: string;
  /** A Claude Code PreToolUse payload for CACHE_HIT_COMMAND in that project. */
  payload: string;
}

const cacheHitProjects = new WeakMap<BenchFixture, Promise<CacheHitProject>>();

/**
 * A second project beside the fixture's, whose committed rules remember CACHE_HIT_COMMAND as allowed for
 * the fixture's role: the key and subject come from the real parser and callSubject, the line from the
 * real store writer. Made once per fixture (the startup and daemon suites share it). Returns the project
 * and a Claude Code PreToolUse payload for the call.
 */
export function cacheHitProject(fixture: BenchFixture): Promise<CacheHitProject> {
  let made = cacheHitProjects.get(fixture);
  if (made === undefined) {
    made = makeCacheHitProject(fixture);
    cacheHitProjects.set(fixture, made);
  }
  return made;
}

async function makeCacheHitProject(fixture: BenchFixture): Promise<CacheHitProject> {
  const projectDir = join(dirname(fixture.projectDir), 'project-with-memory');
  mkdirSync(join(projectDir, '.git'), { recursive: true });
  const hostPayload = {
    session_id: fixture.sessionId,
    transcript_path: join(dirname(fixture.projectDir), 'transcript.jsonl'),
    cwd: projectDir,
    permission_mode: 'default',
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command: CACHE_HIT_COMMAND, description: 'Build the project' },
    tool_use_id: 'toolu_bench_cache_hit',
  };
  const event = claudeAdapter.parse(hostPayload);
  if (event.kind !== 'pre-tool') throw new Error(`bench: the cache-hit payload parsed as ${event.kind}`);
  const pathContext = { projectRoot: projectDir, home: fixture.where.home, cwd: projectDir };
  const shell = await prepareShell(event.call, pathContext);
  const subject = callSubject(
    event.call,
    event.call.paths.map((p) => resolvePath(p, pathContext)),
    shell,
  );
  if (subject === undefined) throw new Error(`bench: \`${CACHE_HIT_COMMAND}\` has no memory subject`);
  const target: StoreTarget = { scope: 'project', projectRoot: projectDir };
  const reason = 'approved at the host’s permission prompt after hookwise asked' as Sanitized;
  appendRecords(target, [
    recordFor(
      subject,
      cacheKey(subject.tool, subject.text),
      { role: fixture.role, verdict: 'allow', reason, tier: 'human', decided_by: 'host-prompt' },
      target,
    ),
  ]);
  return { projectDir, payload: JSON.stringify(hostPayload) };
}
