/**
 * Parser coverage on the development corpora (../shared/corpora): how many commands parse, why the others
 * do not, and what parse + unwrap + write-target extraction costs per command. Measures only: the rows
 * are not copied anywhere.
 *
 *   npx esbuild bench/eval-parse.ts --bundle --platform=node --format=cjs --packages=external \
 *     --outfile=node_modules/.cache/hookwise/eval-parse.cjs && node node_modules/.cache/hookwise/eval-parse.cjs [corpus.jsonl …]
 *
 * Without arguments it reads commands.tldr.jsonl and commands.shellfirm.jsonl from ../shared/corpora next
 * to the repository (or $HOOKWISE_CORPORA), and says so plainly when that folder is absent. A CLI can call
 * runEvalParse(args) instead (it prints and returns the exit code).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseCommand } from '../src/shell/parse.js';
import { loadShellParser } from '../src/shell/syntax.js';
import { writeTargets } from '../src/shell/writes.js';
import { packageRoot } from '../src/util/package-root.js';

interface CorpusReport {
  file: string;
  commands: number;
  unparseable: number;
  /** Reasons, with the number of commands each, most frequent first (the reason text up to its first detail). */
  reasons: [string, number][];
  /** Commands that threw instead of returning a result: must be 0. */
  internalErrors: number;
  withWrites: number;
  withUnknownWrites: number;
  microsPerCommand: { median: number; p99: number; max: number };
}

function corpusFiles(argv: readonly string[]): string[] | undefined {
  if (argv.length > 0) return argv.map((f) => resolve(f));
  const dir = process.env.HOOKWISE_CORPORA ?? join(packageRoot(), '..', 'shared', 'corpora');
  if (!existsSync(dir)) {
    console.error(
      `eval-parse: no corpora at ${dir} (the shared folder is not next to this checkout); pass corpus files as arguments or set HOOKWISE_CORPORA`,
    );
    return undefined;
  }
  return ['commands.tldr.jsonl', 'commands.shellfirm.jsonl'].map((f) => join(dir, f)).filter((f) => existsSync(f));
}

function evaluate(file: string): CorpusReport {
  const lines = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
  const reasons = new Map<string, number>();
  const times: number[] = [];
  let unparseable = 0;
  let internalErrors = 0;
  let withWrites = 0;
  let withUnknownWrites = 0;
  for (const line of lines) {
    const command = (JSON.parse(line) as { command: string }).command;
    const start = process.hrtime.bigint();
    const result = parseCommand(command);
    const writes = writeTargets(result.segments);
    times.push(Number(process.hrtime.bigint() - start) / 1000);
    if (writes.targets.length > 0) withWrites++;
    if (writes.unknown.length > 0) withUnknownWrites++;
    if (result.ok) continue;
    unparseable++;
    if (result.reason.startsWith('hookwise could not analyze')) internalErrors++;
    const key = result.reason
      .replace(/ (near|at character) .*$/, '')
      .replace(/the command name .* is computed/, 'the command name … is computed')
      .replace(/ of \S+,/, ' of …,')
      .slice(0, 90);
    reasons.set(key, (reasons.get(key) ?? 0) + 1);
  }
  times.sort((a, b) => a - b);
  const at = (q: number): number => times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0;
  return {
    file,
    commands: lines.length,
    unparseable,
    reasons: [...reasons].sort((a, b) => b[1] - a[1]).slice(0, 12),
    internalErrors,
    withWrites,
    withUnknownWrites,
    microsPerCommand: { median: at(0.5), p99: at(0.99), max: times[times.length - 1] ?? 0 },
  };
}

/** Evaluate the corpora named in `args` (or the shared ones); prints the report, returns the exit code. */
export function runEvalParse(args: readonly string[]): number {
  const files = corpusFiles(args);
  if (files === undefined) return 2;
  loadShellParser();
  let internal = 0;
  for (const file of files) {
    const r = evaluate(file);
    internal += r.internalErrors;
    const pct = (n: number): string => `${((100 * n) / Math.max(1, r.commands)).toFixed(1)} %`;
    console.log(`\n${r.file}`);
    console.log(
      `  commands ${r.commands}, unparseable ${r.unparseable} (${pct(r.unparseable)}), internal errors ${r.internalErrors}`,
    );
    console.log(
      `  with write targets ${r.withWrites} (${pct(r.withWrites)}), with unknown writes ${r.withUnknownWrites} (${pct(r.withUnknownWrites)})`,
    );
    console.log(
      `  parse + unwrap + writes per command: median ${r.microsPerCommand.median.toFixed(0)} µs, p99 ${r.microsPerCommand.p99.toFixed(0)} µs, max ${r.microsPerCommand.max.toFixed(0)} µs`,
    );
    for (const [reason, n] of r.reasons) console.log(`  ${String(n).padStart(6)}  ${reason}`);
  }
  return internal > 0 ? 1 : 0;
}

// Run directly (the esbuild recipe above): evaluate and exit with the result.
if (typeof require === 'function' && require.main === module) process.exitCode = runEvalParse(process.argv.slice(2));
