/**
 * Decision memory at scale, on the real code paths:
 *   - what one learned record costs the next one-shot hook process (`hookwise check` without the daemon):
 *     a record is appended to the project's allow.jsonl (untimed), then `loadMemory` — the index read and
 *     checked, the appended line parsed over it — and the exact lookup of that record, in process, at 10k
 *     records and (in a full run only) at 100k;
 *   - `hookwise rules list` over 100k records, the built CLI spawned (full run only): wall time, and the
 *     child's peak RSS in the note.
 *
 * The stores are bench/memory-scale.ts's: realistic records in the project and user scopes, some decisions
 * restated later in the same or the other scope. Each learned record is a new decision; from the 513th
 * since the index was built, a load rebuilds the index (memory/index-file.ts MAX_APPENDED_LINES), which a
 * long run shows in its p99.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadMemory, type MemorySources } from '../../src/memory/load.js';
import { appendRecords } from '../../src/memory/store.js';
import { hookwiseBin } from '../../src/util/package-root.js';
import { runInProcess } from '../in-process.js';
import { learnedRecord, writeScaleStore } from '../memory-scale.js';
import { summarize } from '../stats.js';
import type { BenchSize, Measurement, PerSize, Suite } from '../suite.js';
import type { TargetId } from '../targets.js';

const SIZES: readonly { records: number; id: TargetId; large: boolean }[] = [
  { records: 10_000, id: 'memory.index.learned-10k', large: false },
  { records: 100_000, id: 'memory.index.learned-100k', large: true },
];
const LIST_RUNS = 5;

interface Store {
  base: string;
  sources: MemorySources;
  env: NodeJS.ProcessEnv;
}

function scaleStore(records: number): Store {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'hookwise-bench-scale-')));
  const projectRoot = join(base, 'project');
  const home = join(base, 'home');
  const sources: MemorySources = {
    projectRoot,
    home,
    userConfigDir: join(home, '.config', 'hookwise'),
    runtimeDir: join(base, 'runtime'),
  };
  mkdirSync(join(projectRoot, '.git'), { recursive: true });
  mkdirSync(sources.runtimeDir, { recursive: true, mode: 0o700 });
  writeScaleStore(projectRoot, sources.userConfigDir, records);
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    HOOKWISE_CONFIG_DIR: sources.userConfigDir,
    HOOKWISE_RUNTIME_DIR: sources.runtimeDir,
    HOOKWISE_DAEMON: 'off',
  };
  return { base, sources, env };
}

/** Loads with nothing appended, timed for the note. */
const UNCHANGED_LOADS: PerSize<number> = { quick: 3, standard: 5, full: 10 };

/** Median ms of `n` loads with nothing appended: what every call pays, for the note. */
function unchangedMs(sources: MemorySources, n: number): number {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = process.hrtime.bigint();
    loadMemory(sources, 0.7);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return summarize(times).median;
}

async function learnedRow(
  scale: (typeof SIZES)[number],
  size: BenchSize,
  progress: (message: string) => void,
): Promise<Measurement> {
  progress(`memory-index: writing a ${scale.records}-record store and building its index…`);
  const store = scaleStore(scale.records);
  try {
    const first = loadMemory(store.sources, 0.7);
    if (first.via !== 'built')
      throw new Error(`bench: the first load of the ${scale.records}-record store was ${first.via}, not built`);
    const target = { scope: 'project' as const, projectRoot: store.sources.projectRoot };
    let learned = 0;
    let record = learnedRecord(0);
    const vias = new Map<string, number>();
    const [m] = await runInProcess(
      [
        {
          id: scale.id,
          batch: 1,
          before: () => {
            record = learnedRecord(++learned);
            appendRecords(target, [record]);
          },
          fn: () => {
            const load = loadMemory(store.sources, 0.7);
            if (load.view.lookup(record.key, 'coder')?.verdict !== 'allow')
              throw new Error(`bench: the learned record ${record.key} is not looked up after the append`);
            vias.set(load.via, (vias.get(load.via) ?? 0) + 1);
            return load.via;
          },
        },
      ],
      size,
    );
    const how = [...vias].map(([via, n]) => `${n}× ${via}`).join(', ');
    const note = `${first.view.size} records; loads after ${learned} learned records: ${how}; a load with nothing appended: ${unchangedMs(store.sources, UNCHANGED_LOADS[size]).toFixed(1)} ms`;
    return { ...m!, median: m!.median / 1000, p99: m!.p99 / 1000, note };
  } finally {
    rmSync(store.base, { recursive: true, force: true });
  }
}

/** `hookwise rules list` spawned over a 100k-record store: wall time per run, and the child's peak RSS. */
function rulesListRow(progress: (message: string) => void): Measurement {
  const bin = hookwiseBin();
  if (!existsSync(bin)) throw new Error(`bench: ${bin} not found; build it first (npm run build)`);
  progress('memory-index: writing a 100000-record store for rules list…');
  const store = scaleStore(100_000);
  try {
    // The child reports its own peak RSS as it exits (process.resourceUsage().maxRSS, in KiB).
    const preload = join(store.base, 'peak-rss.cjs');
    const peakFile = join(store.base, 'peak-rss');
    writeFileSync(
      preload,
      `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(peakFile)}, String(process.resourceUsage().maxRSS)));\n`,
    );
    const run = (stdout: 'pipe' | 'ignore') =>
      spawnSync(process.execPath, ['-r', preload, bin, 'rules', 'list'], {
        cwd: store.sources.projectRoot,
        env: store.env,
        stdio: ['ignore', stdout, 'pipe'],
        maxBuffer: 256 * 1024 * 1024,
        encoding: 'utf8',
      });
    const check = run('pipe');
    if (check.status !== 0 || !/\n\d+ decisions \(\d+ records/.test(check.stdout))
      throw new Error(`bench: rules list failed (${check.status}): ${check.stderr}`);
    const times: number[] = [];
    const peaks: number[] = [];
    for (let i = 0; i < LIST_RUNS; i++) {
      const start = process.hrtime.bigint();
      const r = run('ignore');
      times.push(Number(process.hrtime.bigint() - start) / 1e6);
      if (r.status !== 0) throw new Error(`bench: rules list failed (${r.status}): ${r.stderr}`);
      peaks.push(Number(readFileSync(peakFile, 'utf8')) / 1024);
    }
    const printed = Buffer.byteLength(check.stdout);
    return {
      id: 'rules.list-100k',
      ...summarize(times),
      note: `${(printed / 1e6).toFixed(1)} MB printed; peak RSS of the process: median ${summarize(peaks).median.toFixed(0)} MB`,
    };
  } finally {
    rmSync(store.base, { recursive: true, force: true });
  }
}

export const memoryIndexSuite: Suite = {
  name: 'memory-index',
  measures: ['memory.index.learned-10k', 'memory.index.learned-100k', 'rules.list-100k'],
  async run({ size, large, progress }) {
    const rows: Measurement[] = [];
    for (const scale of SIZES) if (large || !scale.large) rows.push(await learnedRow(scale, size, progress));
    if (large) rows.push(rulesListRow(progress));
    return rows;
  },
};
