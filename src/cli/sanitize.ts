/**
 * `hookwise sanitize` (stdin → stdout, `--json`, `--jsonl`, `--eval`) and `hookwise scan` (files or the git
 * index → `file:line:col: rule` with values masked, exit 1 on findings: for CI and pre-commit).
 *
 * Functions take their inputs and return `{ stdout, stderr, exitCode }`; only the small `*Command`
 * wrappers at the bottom touch the process, so the behaviour is tested without spawning.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, readFileSync, statSync, type Stats } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import {
  BUILTIN_CORPUS,
  BUILTIN_SOURCE,
  builtinCorpus,
  evaluateSecrets,
  HOLDOUT_CORPUS,
  HOLDOUT_SOURCE,
  holdoutCorpus,
  parseCorpus,
  renderEval,
} from '../../bench/eval-secrets.js';
import { describeError } from '../core/errors.js';
import { readHttpConfig } from '../daemon/http-config.js';
import {
  findSecrets,
  keptOnPurpose,
  redact,
  sanitize,
  type Finding,
  type KeptOnPurpose,
  type Sanitized,
} from '../sanitize/index.js';
import { keywordIndex, setKeywordCacheDir } from '../sanitize/keywords.js';
import { patternStats } from '../sanitize/patterns.js';
import { ensurePrivateDir } from '../util/fs-safe.js';
import { locations } from '../util/locations.js';
import { knownTokenSpans } from './scan-known.js';

export interface CommandResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** A finding as printed: rule, layer and span only — never the matched text. */
interface PrintedFinding {
  rule: string;
  layer: Finding['layer'];
  start: number;
  end: number;
}
const printable = (f: Finding): PrintedFinding => ({ rule: f.rule, layer: f.layer, start: f.start, end: f.end });

// ── hookwise sanitize ────────────────────────────────────────────────────────────────────────────────────

export interface SanitizeOptions {
  json?: boolean;
  jsonl?: boolean;
}

/**
 * stdin text → sanitized text, and a note on stderr for each value kept on purpose (AWS's documented example
 * keys); `--json`: `{sanitized, findings, kept?}`; `--jsonl`: one JSON string per line in, one object per line out.
 */
export function sanitizeText(input: string, options: SanitizeOptions): CommandResult {
  if (options.jsonl === true) return sanitizeLines(input);
  const { text, findings } = sanitize(input);
  const kept = keptOnPurpose(input, findings);
  if (options.json === true)
    return { stdout: `${JSON.stringify(sanitizedRecord(text, findings, kept))}\n`, stderr: '', exitCode: 0 };
  return { stdout: text, stderr: keptNotes(kept), exitCode: 0 };
}

/** The JSON record of one sanitized text; `kept` only when something was kept on purpose. */
function sanitizedRecord(text: string, findings: readonly Finding[], kept: readonly KeptOnPurpose[]): object {
  return kept.length === 0
    ? { sanitized: text, findings: findings.map(printable) }
    : { sanitized: text, findings: findings.map(printable), kept };
}

/** One stderr line per distinct value kept on purpose (a documented example may occur many times). */
function keptNotes(kept: readonly KeptOnPurpose[]): string {
  const byValue = new Map<string, { why: string; count: number }>();
  for (const k of kept) {
    const seen = byValue.get(k.value);
    if (seen === undefined) byValue.set(k.value, { why: k.why, count: 1 });
    else seen.count++;
  }
  return [...byValue]
    .map(
      ([value, { why, count }]) =>
        `hookwise sanitize: kept ${value}${count > 1 ? ` (${count} times)` : ''} on purpose: ${why}\n`,
    )
    .join('');
}

function sanitizeLines(input: string): CommandResult {
  const out: string[] = [];
  const problems: string[] = [];
  const lines = input.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  lines.forEach((line, i) => {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      value = undefined;
    }
    if (typeof value !== 'string') {
      // The line itself is not echoed: it may be a secret that failed to parse.
      out.push(JSON.stringify({ error: `line ${i + 1}: expected one JSON string per line` }));
      problems.push(`hookwise sanitize: line ${i + 1} is not a JSON string; wrote an {"error"} object in its place\n`);
      return;
    }
    const { text, findings } = sanitize(value);
    out.push(JSON.stringify(sanitizedRecord(text, findings, keptOnPurpose(value, findings))));
  });
  return {
    stdout: out.length === 0 ? '' : `${out.join('\n')}\n`,
    stderr: problems.join(''),
    exitCode: problems.length > 0 ? 1 : 0,
  };
}

/**
 * `--eval [corpus]`: recall on secret rows and false positives on clean rows, overall and per kind (see
 * bench/eval-secrets.ts). `builtin` (the default) is hookwise's own generated corpus (bench/corpora/secrets.ts),
 * `holdout` the held-out one (bench/corpora/secrets-holdout.ts); a file of either name is `./builtin`, `./holdout`.
 */
export function evaluateCorpus(path: string | undefined, verbose: boolean): CommandResult {
  if (path === undefined || path === BUILTIN_CORPUS)
    return {
      stdout: `${renderEval(evaluateSecrets(builtinCorpus(), sanitize), BUILTIN_SOURCE, verbose)}\n`,
      stderr: '',
      exitCode: 0,
    };
  if (path === HOLDOUT_CORPUS)
    return {
      stdout: `${renderEval(evaluateSecrets(holdoutCorpus(), sanitize), HOLDOUT_SOURCE, verbose)}\n`,
      stderr: '',
      exitCode: 0,
    };
  const file = path;
  if (!existsSync(file)) {
    const hint = ` (give a JSONL corpus path, or --eval ${BUILTIN_CORPUS} for hookwise's own corpus)`;
    return { stdout: '', stderr: `hookwise sanitize --eval: corpus not found: ${file}${hint}\n`, exitCode: 2 };
  }
  const rows = parseCorpus(readFileSync(file, 'utf8'), file);
  return { stdout: `${renderEval(evaluateSecrets(rows, sanitize), file, verbose)}\n`, stderr: '', exitCode: 0 };
}

// ── hookwise scan ────────────────────────────────────────────────────────────────────────────────────────

export interface ScanOptions {
  /** Scan the staged content (git index) of the given pathspecs instead of the working tree. */
  staged?: boolean;
  json?: boolean;
  /** Also descend into node_modules/ and .git/ (skipped by default). */
  all?: boolean;
  /** Larger files are skipped (and counted). */
  maxFileBytes?: number;
  cwd: string;
  /** This user's daemon token: known in hookwise's own http hooks (scan-known.ts), reported anywhere else. */
  daemonToken?: string | undefined;
}

export interface ScanFinding {
  file: string;
  line: number;
  column: number;
  rule: string;
  layer: Finding['layer'];
  /** The line with every finding redacted (and sanitized again), shortened around the finding. */
  excerpt: Sanitized;
}

export interface ScanReport {
  files: number;
  bytes: number;
  skipped: { binary: number; large: number; unreadable: number };
  findings: ScanFinding[];
  /** Findings left out because hookwise wrote them: its daemon token in its own http hooks. */
  known: number;
  /** Wall time of reading and detecting, ms. */
  ms: number;
  problems: string[];
}

export const DEFAULT_MAX_FILE_BYTES = 8 * 1024 * 1024;
const SKIPPED_DIRS = new Set(['node_modules', '.git']);
const BINARY_SNIFF = 8000;

/** A scan session: accumulates files into one report. */
class Scanner {
  readonly report: ScanReport = {
    files: 0,
    bytes: 0,
    skipped: { binary: 0, large: 0, unreadable: 0 },
    findings: [],
    known: 0,
    ms: 0,
    problems: [],
  };
  private readonly started = process.hrtime.bigint();
  constructor(
    private readonly maxFileBytes: number,
    private readonly daemonToken: string | undefined,
  ) {}

  /** One file's bytes, under the name it is reported by. */
  content(name: string, bytes: Buffer): void {
    if (bytes.length > this.maxFileBytes) {
      this.report.skipped.large++;
      return;
    }
    if (bytes.subarray(0, BINARY_SNIFF).includes(0)) {
      this.report.skipped.binary++;
      return;
    }
    this.report.files++;
    this.report.bytes += bytes.length;
    const text = bytes.toString('utf8');
    const found = findSecrets(text);
    const known = found.length === 0 ? [] : knownTokenSpans(text, this.daemonToken);
    const findings = found.filter((f) => !known.some((k) => k.start <= f.start && f.end <= k.end));
    this.report.known += found.length - findings.length;
    if (findings.length > 0) this.report.findings.push(...locate(name, text, findings));
  }

  finish(): ScanReport {
    this.report.ms = Number(process.hrtime.bigint() - this.started) / 1e6;
    return this.report;
  }
}

/** Scans files and directories (recursively; symlinks are not followed). */
export function scanPaths(paths: readonly string[], options: ScanOptions): ScanReport {
  const scanner = new Scanner(options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES, options.daemonToken);
  const visit = (path: string, explicit: boolean): void => {
    let stat: Stats;
    try {
      // A path named on the command line is followed if it is a link; links met while walking are not
      // (a link to a file is scanned where it lives, a link to a directory could loop).
      stat = explicit ? statSync(path) : lstatSync(path);
    } catch (error) {
      scanner.report.problems.push(`${display(path, options.cwd)}: ${describeError(error)}`);
      return;
    }
    if (stat.isSymbolicLink()) return;
    if (stat.isDirectory()) {
      if (!explicit && options.all !== true && SKIPPED_DIRS.has(basename(path))) return;
      let names: string[];
      try {
        names = readdirSync(path).sort();
      } catch (error) {
        scanner.report.problems.push(`${display(path, options.cwd)}: ${describeError(error)}`);
        return;
      }
      for (const name of names) visit(join(path, name), false);
      return;
    }
    if (!stat.isFile()) return;
    if (stat.size > (options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES)) {
      scanner.report.skipped.large++;
      return;
    }
    let bytes: Buffer;
    try {
      bytes = readFileSync(path);
    } catch {
      scanner.report.skipped.unreadable++;
      return;
    }
    scanner.content(display(path, options.cwd), bytes);
  };
  for (const p of paths.length === 0 ? ['.'] : paths) visit(resolve(options.cwd, p), true);
  return scanner.finish();
}

/** Scans what is staged for commit (the index), limited to the pathspecs. Paths are relative to the repository root. */
export function scanStaged(pathspecs: readonly string[], options: ScanOptions): ScanReport {
  const scanner = new Scanner(options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES, options.daemonToken);
  const names = git(['diff', '--cached', '--name-only', '-z', '--diff-filter=ACMR', '--', ...pathspecs], options.cwd);
  if (names.status !== 0) {
    scanner.report.problems.push(
      `git diff --cached failed (exit ${names.status}): ${names.stderr.toString('utf8').trim()}`,
    );
    return scanner.finish();
  }
  const paths = names.stdout
    .toString('utf8')
    .split('\0')
    .filter((p) => p !== '');
  const batchable = paths.filter((p) => !p.includes('\n'));
  if (batchable.length > 0) {
    // One `git cat-file --batch` for all staged blobs (`:path` names the index entry) instead of a process per file.
    const batch = git(['cat-file', '--batch'], options.cwd, batchable.map((p) => `:${p}\n`).join(''));
    if (batch.status !== 0)
      scanner.report.problems.push(
        `git cat-file --batch failed (exit ${batch.status}): ${batch.stderr.toString('utf8').trim()}`,
      );
    else readBatch(batch.stdout, batchable, scanner);
  }
  for (const p of paths.filter((q) => q.includes('\n'))) {
    const one = git(['cat-file', 'blob', `:${p}`], options.cwd);
    if (one.status === 0) scanner.content(p, one.stdout);
    else scanner.report.skipped.unreadable++;
  }
  return scanner.finish();
}

/** `<oid> <type> <size>\n<content>\n` per object, or `<name> missing\n`. */
function readBatch(out: Buffer, paths: readonly string[], scanner: Scanner): void {
  let at = 0;
  for (const path of paths) {
    const eol = out.indexOf(0x0a, at);
    if (eol < 0) break;
    const header = out.subarray(at, eol).toString('utf8').split(' ');
    at = eol + 1;
    if (header[header.length - 1] === 'missing' || header.length < 3) {
      scanner.report.skipped.unreadable++;
      continue;
    }
    const size = Number(header[2]);
    const content = out.subarray(at, at + size);
    at += size + 1;
    if (header[1] === 'blob') scanner.content(path, content);
  }
}

function git(
  args: readonly string[],
  cwd: string,
  input?: string,
): { status: number | null; stdout: Buffer; stderr: Buffer } {
  const r = spawnSync('git', args, { cwd, input, maxBuffer: 1024 * 1024 * 1024 });
  if (r.error !== undefined) return { status: null, stdout: Buffer.alloc(0), stderr: Buffer.from(r.error.message) };
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function display(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel === '' ? '.' : rel.startsWith('..') ? path : rel;
}

/**
 * A line holding this marker (in a comment) is not reported by `scan`: documented examples and test fixtures
 * that look like secrets. `sanitize` ignores it — whatever reaches storage is redacted regardless.
 */
export const ALLOW_MARKER = 'hookwise:allow';

/** Line, column and a masked excerpt for each finding (findings on lines with ALLOW_MARKER are dropped). */
function locate(file: string, text: string, findings: readonly Finding[]): ScanFinding[] {
  const lineStarts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lineStarts.push(i + 1);
  const lineOf = (offset: number): number => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  const out: ScanFinding[] = [];
  for (const f of findings) {
    const line = lineOf(f.start);
    const start = lineStarts[line]!;
    const end = line + 1 < lineStarts.length ? lineStarts[line + 1]! - 1 : text.length;
    if (text.slice(start, end).includes(ALLOW_MARKER)) continue;
    // Every finding that touches this line is cut out, then the line is sanitized once more on its own.
    const onLine = findings
      .filter((g) => g.start < end && g.end > start)
      .map((g) => ({ ...g, start: Math.max(g.start, start) - start, end: Math.min(g.end, end) - start }));
    const masked = sanitize(redact(text.slice(start, end), onLine)).text;
    out.push({
      file,
      line: line + 1,
      column: f.start - start + 1,
      rule: f.rule,
      layer: f.layer,
      excerpt: shorten(masked, f.start - start),
    });
  }
  return out;
}

function shorten(line: Sanitized, around: number): Sanitized {
  const trimmed = line.trim();
  if (trimmed.length <= 160) return trimmed as Sanitized;
  const from = Math.max(0, Math.min(around - 60, line.length - 160));
  // Cutting a sanitized line never uncovers a secret (the redaction markers were placed before the cut).
  return `…${line.slice(from, from + 160).trim()}…` as Sanitized;
}

/** Below this, a scan's time is mostly start-up (the keyword index, RE2): a rate would say nothing. */
const MIN_RATE_BYTES = 1024 * 1024;

export function renderScan(report: ScanReport, json: boolean): CommandResult {
  const mb = report.bytes / (1024 * 1024);
  const rate = report.ms > 0 ? mb / (report.ms / 1000) : 0;
  const skipped = report.skipped;
  const shownRate = report.bytes >= MIN_RATE_BYTES && report.ms > 0 ? `, ${rate.toFixed(1)} MB/s` : '';
  const known =
    report.known > 0
      ? `; ${report.known} left out as hookwise's own (its daemon token in its http hooks in a personal settings file)`
      : '';
  const summary =
    `hookwise scan: ${report.files} file(s), ${(report.bytes / 1024).toFixed(0)} KiB in ${report.ms.toFixed(0)} ms${shownRate}; ` +
    `${report.findings.length} finding(s) in ${new Set(report.findings.map((f) => f.file)).size} file(s)${known}` +
    (skipped.binary + skipped.large + skipped.unreadable > 0
      ? `; skipped ${skipped.binary} binary, ${skipped.large} larger than the limit, ${skipped.unreadable} unreadable`
      : '');
  const problems = report.problems.map((p) => `hookwise scan: ${p}\n`).join('');
  const exitCode = report.problems.length > 0 ? 2 : report.findings.length > 0 ? 1 : 0;
  if (json) {
    return { stdout: `${JSON.stringify({ ...report, mbPerSecond: rate })}\n`, stderr: problems, exitCode };
  }
  const lines = report.findings.map((f) => `${f.file}:${f.line}:${f.column}: ${f.rule} (${f.layer}): ${f.excerpt}`);
  const advice =
    report.findings.length > 0
      ? 'hookwise scan: remove these secrets (rotate any that were real) before committing; the values above are masked.\n'
      : '';
  return {
    stdout: lines.length === 0 ? '' : `${lines.join('\n')}\n`,
    stderr: `${problems}${advice}${summary}\n`,
    exitCode,
  };
}

// ── process edges ────────────────────────────────────────────────────────────────────────────────────────

/** Keep the keyword index in the private runtime dir, so the next process loads it instead of rebuilding. */
export function useRuntimeKeywordCache(env: NodeJS.ProcessEnv = process.env): void {
  const dir = locations(env).runtimeDir;
  try {
    ensurePrivateDir(dir);
    setKeywordCacheDir(dir);
  } catch {
    setKeywordCacheDir(undefined); // an unsafe or unwritable runtime dir: build in memory each time
  }
}

/** HOOKWISE_DEBUG=1: what the sanitizer cost this process (the bench reads this line). */
export function debugTimings(firstCallMs: number): string {
  const index = keywordIndex();
  const stats = patternStats();
  return `hookwise: sanitize timings ${JSON.stringify({ firstCallMs, index: index.origin, indexMicros: index.micros, re2LoadMs: stats.re2LoadMs, patternsCompiled: stats.compiled, compileMs: stats.compileMs })}\n`;
}

export function sanitizeCommand(
  input: string,
  options: SanitizeOptions,
  env: NodeJS.ProcessEnv = process.env,
): CommandResult {
  useRuntimeKeywordCache(env);
  const started = process.hrtime.bigint();
  const result = sanitizeText(input, options);
  if (env.HOOKWISE_DEBUG === '1') result.stderr += debugTimings(Number(process.hrtime.bigint() - started) / 1e6);
  return result;
}

export function scanCommand(paths: readonly string[], options: ScanOptions): CommandResult {
  useRuntimeKeywordCache();
  const withToken = { ...options, daemonToken: options.daemonToken ?? daemonToken() };
  const report = options.staged === true ? scanStaged(paths, withToken) : scanPaths(paths, withToken);
  return renderScan(report, options.json === true);
}

/** This user's daemon token, if the http wiring made one; an unreadable config knows none (everything is reported). */
function daemonToken(): string | undefined {
  try {
    return readHttpConfig(locations())?.token;
  } catch {
    return undefined;
  }
}
