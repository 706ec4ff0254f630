/**
 * The sanitizer: in process (a typical command, one with secrets, a 2 KB command, building the keyword
 * index, scan throughput over this package's sources) and in fresh processes (what its first call costs
 * the hook: loading the cached keyword index, and for a command with secrets also loading re2 and
 * compiling the patterns it needs; and building the index when no cache exists yet). And how well it
 * redacts: its miss and false-positive rates on the built-in secret corpus, computed once (not timings).
 *
 * The spawned rows run the built `hookwise sanitize` with HOOKWISE_DEBUG=1 and read the timings it prints
 * for its own first call: process start and commander are the same for every command and are not what
 * these rows are about (check.startup-ratio covers the whole hook process).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scanPaths } from '../../src/cli/sanitize.js';
import { findSecrets, sanitize } from '../../src/sanitize/index.js';
import { buildIndex } from '../../src/sanitize/keywords.js';
import { hookwiseBin, packageRoot } from '../../src/util/package-root.js';
import { builtinCorpus, evaluateSecrets, falsePositiveRate, missRate, type KindResult } from '../eval-secrets.js';
import { runInProcess } from '../in-process.js';
import { secretDenseText } from '../secret-dense.js';
import { summarize } from '../stats.js';
import type { Measurement, PerSize, Suite, SuiteContext, Summary } from '../suite.js';

/** A typical agent command (114 chars): no secret, a path, a pipe, a URL-free compound. */
export const SHORT_COMMAND =
  'git log --oneline -n 20 -- src/cli/check.ts | grep -i "fix" && npm run build && ls -la /usr/local/lib/node_modules';

/** Built at run time, so this file holds no literal secret: a bearer token and a database password. */
function secretCommand(): string {
  const chars = [...Array(26).keys()]
    .flatMap((i) => [String.fromCharCode(65 + i), String.fromCharCode(97 + i)])
    .concat([...'0123456789']);
  const body = Array.from({ length: 36 }, (_, i) => chars[(i * 17 + 5) % chars.length]).join('');
  return `curl -H "Authorization: Bearer ghp_${body}" https://api.github.com/user && psql postgres://app:Zx8${'q'}Lm2Vt9@db/app`; // hookwise:allow
}

/** ~2 KB: a long compound command of ordinary steps, as agents write for setup scripts. */
export const LONG_COMMAND = Array.from(
  { length: 20 },
  (_, i) => `npm run build:part${i} && node dist/tool.cjs --input src/part${i}/index.ts --out dist/part${i}`,
).join(' && ');

/** Fresh processes per start-up row. */
const ROUNDS: PerSize<number> = { quick: 5, standard: 6, full: 20 };
/** Timed calls of the 1 MB and 4 MB rows (about a second each at 4 MB). */
const DENSE_ROUNDS: PerSize<number> = { quick: 3, standard: 3, full: 7 };

interface Timings {
  firstCallMs: number;
  index: 'built' | 'cache';
  indexMicros: number;
  re2LoadMs: number | null;
  patternsCompiled: number;
  compileMs: number;
}

export const sanitizeSuite: Suite = {
  name: 'sanitize',
  measures: [
    'sanitize.short-command',
    'sanitize.secret-command',
    'sanitize.2kb-command',
    'sanitize.index-build',
    'scan.ms-per-mb',
    'sanitize.dense-1kb',
    'sanitize.dense-64kb',
    'sanitize.dense-1mb',
    'sanitize.dense-4mb',
    'sanitize.dense-linearity',
    'sanitize.startup.first-call',
    'sanitize.startup.first-secret',
    'sanitize.startup.index-cold',
    'sanitize.miss-rate',
    'sanitize.false-positive-rate',
  ],
  async run(ctx) {
    const secret = secretCommand();
    if (sanitize(secret).findings.length < 2)
      throw new Error('bench: the secret command no longer has two findings; it measures the wrong path');
    if (sanitize(SHORT_COMMAND).findings.length !== 0 || sanitize(LONG_COMMAND).findings.length !== 0)
      throw new Error('bench: the plain commands now have findings');

    const inProcess = await runInProcess(
      [
        { id: 'sanitize.short-command', batch: 32, fn: () => sanitize(SHORT_COMMAND) },
        { id: 'sanitize.secret-command', batch: 8, fn: () => sanitize(secret) },
        { id: 'sanitize.2kb-command', batch: 4, fn: () => sanitize(LONG_COMMAND) },
        { id: 'sanitize.index-build', batch: 1, fn: () => buildIndex() },
      ],
      ctx.size,
    );
    const short = inProcess.find((m) => m.id === 'sanitize.short-command')!;
    short.note = `${SHORT_COMMAND.length} chars, no secret; the secret command is ${secret.length} chars with 2 secrets; the long one ${LONG_COMMAND.length} chars`;

    return [
      ...inProcess,
      await scanThroughput(ctx),
      ...(await denseThroughput(ctx)),
      ...spawned(ctx, secret),
      ...corpusRates(),
    ];
  },
};

/**
 * The built-in secret corpus (bench/corpora/secrets.ts, fixed seed) through sanitize(), once: the same figures
 * on every run and machine, so there is nothing to repeat or take a median of. Last in the suite, so it
 * compiles no pattern ahead of the timed rows.
 */
export function corpusRates(): Measurement[] {
  const e = evaluateSecrets(builtinCorpus(), sanitize);
  const worst = (label: KindResult['label']): string => {
    const failing = e.kinds.filter((k) => k.label === label && k.passed < k.rows);
    const shown = failing.slice(0, 5).map((k) => `${k.kind} ${k.rows - k.passed}/${k.rows}`);
    return failing.length === 0
      ? 'none'
      : `${shown.join(', ')}${failing.length > shown.length ? `, … (${failing.length} kinds)` : ''}`;
  };
  const missed = e.secretRows - e.secretPassed;
  const miss = missRate(e);
  const fp = falsePositiveRate(e);
  return [
    {
      id: 'sanitize.miss-rate',
      median: miss,
      p99: miss,
      samples: e.secretRows,
      note: `${missed} of ${e.secretRows} secret rows not fully redacted; worst kinds: ${worst('secret')} (hookwise sanitize --eval builtin lists them)`,
    },
    {
      id: 'sanitize.false-positive-rate',
      median: fp,
      p99: fp,
      samples: e.cleanRows,
      note: `${e.cleanFlagged} of ${e.cleanRows} clean rows redacted; worst kinds: ${worst('clean')}`,
    },
  ];
}

/** Scan of this package's sources (src/, or dist/ in an installed package), in ms per MB. */
async function scanThroughput(ctx: SuiteContext): Promise<Measurement> {
  const root = packageRoot();
  const tree = existsSync(join(root, 'src')) ? 'src' : 'dist';
  const probe = scanPaths([tree], { cwd: root });
  if (probe.bytes === 0)
    throw new Error(`bench: scanning ${join(root, tree)} read nothing; the throughput row would measure no work`);
  const mb = probe.bytes / (1024 * 1024);
  const [m] = await runInProcess(
    [{ id: 'scan.ms-per-mb', batch: 1, fn: () => scanPaths([tree], { cwd: root }) }],
    ctx.size,
  );
  // runInProcess reports µs per call; one call scans the whole tree.
  const median = m!.median / 1000 / mb;
  return {
    id: 'scan.ms-per-mb',
    median,
    p99: m!.p99 / 1000 / mb,
    samples: m!.samples,
    note: `= ${(1000 / median).toFixed(1)} MB/s over ${tree}/ (${probe.files} files, ${(probe.bytes / 1024).toFixed(0)} KiB, ${probe.findings.length} findings), reading files included`,
  };
}

const KB = 1024;
const MB = 1024 * 1024;

/**
 * The detection pipeline (findSecrets: what `hookwise scan` runs, and sanitize() on up to its 1 MiB per-call
 * cap) on secret-dense text (bench/secret-dense.ts) at four sizes, in ms per MB (the note gives MB/s), and the
 * 4 MB / 1 MB time ratio: linear work keeps it near 4, quadratic work (issue 13) made it ~11. Not sanitize()
 * itself: past 1 MiB it scans no further, which would hide the pipeline's growth.
 */
async function denseThroughput(ctx: SuiteContext): Promise<Measurement[]> {
  const texts = {
    'sanitize.dense-1kb': secretDenseText(KB, 13),
    'sanitize.dense-64kb': secretDenseText(64 * KB, 13),
    'sanitize.dense-1mb': secretDenseText(MB, 13),
    'sanitize.dense-4mb': secretDenseText(4 * MB, 13),
  } as const;
  for (const [id, text] of Object.entries(texts)) {
    if (findSecrets(text).length < text.length / 200)
      throw new Error(`bench: ${id}'s input is not secret-dense any more; the row measures the wrong path`);
  }
  const small = await runInProcess(
    [
      { id: 'sanitize.dense-1kb', batch: 4, fn: () => findSecrets(texts['sanitize.dense-1kb']) },
      { id: 'sanitize.dense-64kb', batch: 1, fn: () => findSecrets(texts['sanitize.dense-64kb']) },
    ],
    ctx.size,
  );
  // A 4 MB call takes about a second: a few timed calls each, interleaved so drift hits both sizes alike.
  const rounds = DENSE_ROUNDS[ctx.size];
  const ms: { 'sanitize.dense-1mb': number[]; 'sanitize.dense-4mb': number[] } = {
    'sanitize.dense-1mb': [],
    'sanitize.dense-4mb': [],
  };
  for (let r = 0; r < rounds; r++) {
    for (const id of ['sanitize.dense-1mb', 'sanitize.dense-4mb'] as const) {
      const started = process.hrtime.bigint();
      findSecrets(texts[id]);
      ms[id].push(Number(process.hrtime.bigint() - started) / 1e6);
    }
  }
  const perMb = (id: keyof typeof texts, summary: Summary): Measurement => {
    const mb = texts[id].length / MB;
    const median = summary.median / mb;
    return {
      id,
      median,
      p99: summary.p99 / mb,
      samples: summary.samples,
      note: `= ${(1000 / median).toFixed(2)} MB/s; ${texts[id].length} chars, median call ${summary.median.toFixed(2)} ms`,
    };
  };
  const big = {
    'sanitize.dense-1mb': summarize(ms['sanitize.dense-1mb']),
    'sanitize.dense-4mb': summarize(ms['sanitize.dense-4mb']),
  };
  // runInProcess reports µs per call; these rows are ms per MB.
  const fromMicros = (m: Measurement): Summary => ({ median: m.median / 1000, p99: m.p99 / 1000, samples: m.samples });
  return [
    ...small.map((m) => perMb(m.id as keyof typeof texts, fromMicros(m))),
    perMb('sanitize.dense-1mb', big['sanitize.dense-1mb']),
    perMb('sanitize.dense-4mb', big['sanitize.dense-4mb']),
    {
      id: 'sanitize.dense-linearity',
      median: big['sanitize.dense-4mb'].median / big['sanitize.dense-1mb'].median,
      p99: big['sanitize.dense-4mb'].p99 / big['sanitize.dense-1mb'].median,
      samples: rounds,
      parts: [
        { label: '1 MB call', unit: 'ms', ...big['sanitize.dense-1mb'] },
        { label: '4 MB call', unit: 'ms', ...big['sanitize.dense-4mb'] },
      ],
      note: `4 MB text is ${(texts['sanitize.dense-4mb'].length / texts['sanitize.dense-1mb'].length).toFixed(2)}× the 1 MB one`,
    },
  ];
}

function spawned(ctx: SuiteContext, secret: string): Measurement[] {
  const bin = hookwiseBin();
  if (!existsSync(bin)) throw new Error(`bench: ${bin} not found; build it first (npm run build)`);
  const rounds = ROUNDS[ctx.size];
  const warmDir = mkdtempSync(join(tmpdir(), 'hookwise-bench-sanitize-'));
  const first: Timings[] = [];
  const firstSecret: Timings[] = [];
  const cold: Timings[] = [];
  try {
    run(bin, SHORT_COMMAND, warmDir, ctx); // writes the index cache the other rounds load
    for (let r = 0; r < rounds; r++) {
      first.push(run(bin, SHORT_COMMAND, warmDir, ctx));
      firstSecret.push(run(bin, secret, warmDir, ctx));
      const coldDir = mkdtempSync(join(tmpdir(), 'hookwise-bench-sanitize-cold-'));
      try {
        cold.push(run(bin, SHORT_COMMAND, coldDir, ctx));
      } finally {
        rmSync(coldDir, { recursive: true, force: true });
      }
    }
  } finally {
    rmSync(warmDir, { recursive: true, force: true });
  }
  if (first.some((t) => t.index !== 'cache') || cold.some((t) => t.index !== 'built'))
    throw new Error(
      'bench: the keyword index cache did not behave as expected (warm runs must load it, cold runs build it)',
    );
  const ms = (ts: Timings[], pick: (t: Timings) => number): ReturnType<typeof summarize> => summarize(ts.map(pick));
  const med = (ts: Timings[], pick: (t: Timings) => number): string => ms(ts, pick).median.toFixed(2);
  return [
    {
      id: 'sanitize.startup.first-call',
      ...ms(first, (t) => t.firstCallMs),
      note: `keyword index loaded from the cache in ${med(first, (t) => t.indexMicros / 1000)} ms; re2 not loaded`,
    },
    {
      id: 'sanitize.startup.first-secret',
      ...ms(firstSecret, (t) => t.firstCallMs),
      note: `of which loading re2 ${med(firstSecret, (t) => t.re2LoadMs ?? Number.NaN)} ms and compiling ${firstSecret[0]?.patternsCompiled ?? 0} patterns ${med(firstSecret, (t) => t.compileMs)} ms`,
    },
    {
      id: 'sanitize.startup.index-cold',
      ...ms(cold, (t) => t.indexMicros / 1000),
      note: 'building the keyword index without a cache and writing it (once per install and pattern set)',
    },
  ];
}

function run(bin: string, input: string, runtimeDir: string, ctx: SuiteContext): Timings {
  const env: NodeJS.ProcessEnv = { ...ctx.fixture.env, HOOKWISE_DEBUG: '1', HOOKWISE_RUNTIME_DIR: runtimeDir };
  const r = spawnSync(process.execPath, [bin, 'sanitize'], {
    input,
    env,
    encoding: 'utf8',
    cwd: ctx.fixture.projectDir,
  });
  if (r.error !== undefined) throw r.error;
  if (r.status !== 0) throw new Error(`bench: hookwise sanitize exited ${r.status}: ${r.stderr}`);
  const line = r.stderr.split('\n').find((l) => l.startsWith('hookwise: sanitize timings '));
  if (line === undefined)
    throw new Error(`bench: hookwise sanitize printed no timings (is dist/ built from these sources?): ${r.stderr}`);
  return JSON.parse(line.slice('hookwise: sanitize timings '.length)) as Timings;
}
