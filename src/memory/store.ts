/**
 * The decision store: remembered decisions as sanitized JSONL, one file set per scope.
 *
 *   project  <root>/.hookwise/rules/{allow,ask,deny}.jsonl      committed to git, mode 0644
 *   user     <userConfigDir>/user/rules.jsonl                   private, 0600 in a 0700 dir
 *   org      <userConfigDir>/org/<org>/rules/*.jsonl            private; appends go to <verdict>.jsonl
 *   session  <runtimeDir>/sessions/<id>.rules.jsonl             private, lives as long as the runtime dir
 *
 * One record per line, fields always in the order of RECORD_FIELDS, so files diff line by line.
 *
 * Writers: `appendRecords` validates every record (the same checks loading applies, so nothing is written
 * that a later load would skip), re-checks the text fields with `assertSanitized`, then appends all lines
 * for one file in a single O_APPEND write while holding that file's lock (`<file>.lock`). Appends never
 * hold two locks at once; `compactScope` and `removeRecords` take every lock of the scope in path order, so
 * they cannot deadlock, and an append racing a rewrite lands either before the read or after the rename.
 *
 * Readers: `loadScope` never throws on file content. A line that is not JSON (a torn last line, garbage)
 * or not a valid record (missing field, wrong type, unknown verdict/tier) is skipped and reported once as
 * a `file:line` problem; every other line is kept. A record's `form` (what its approval generalizes over)
 * must be a form of its own subject (memory/form.ts formFitsSubject): a wider one — hand-edited, committed
 * by someone else, or written by a prompt-injected agent — is dropped and reported, and the record still
 * decides its exact call. Every scope is checked, not only the committed one: any file can be edited.
 *
 * Resolution (the same rule for load and compaction, so compaction never changes what a load answers):
 *  - identity is (key, role): within one scope, the record with the newest `ts` wins, whatever its verdict —
 *    a later decision in the same scope supersedes an earlier one (a human changing their mind, an override).
 *    Precedence *across* scopes (deny > ask > allow, a project entry cannot weaken org/user) is not the
 *    store's business; the scope merger applies it.
 *  - equal `ts`: the stricter verdict wins (deny > ask > allow), so a tie never weakens.
 *  - equal `ts` and verdict: the later line wins (files are read in name order, lines top to bottom).
 * Compaction rewrites the scope's files atomically with only the winners, sorted by tool, subject, role
 * (then verdict, key — code-unit order, not locale order), each record in the file its verdict belongs to.
 */
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { isVerdict, strictness, TIERS, VERDICTS, type TierName, type Verdict } from '../core/decision.js';
import { HookwiseError } from '../core/errors.js';
import { assertSanitized, findSecrets, type Sanitized } from '../sanitize/index.js';
import { SessionRegistry } from '../session/registry.js';
import { formFitsSubject } from './form.js';
import {
  appendOwnedLines,
  ensurePrivateDir,
  isAbsent,
  readOwnedFile,
  statIfPresent,
  withLockSync,
  writeFileAtomic,
} from '../util/fs-safe.js';

export const STORE_SCOPES = ['org', 'project', 'user', 'session'] as const;
export type StoreScope = (typeof STORE_SCOPES)[number];

/** `confine`: the walls of a confined run stopped it (memory/learn.ts); a human's approval replaces that ask. */
export const DECIDERS = ['human', 'rule', 'supervisor', 'host-prompt', 'confine'] as const;
export type Decider = (typeof DECIDERS)[number];

/** A role name, or this for "every role". */
export const ANY_ROLE = '*';

/** One remembered decision, as persisted. */
export interface DecisionRecord {
  /** The cache key the caller computed (e.g. an xxhash hex of the normalized call, tool and role). */
  key: string;
  tool: string;
  /** The normalized command, or `<change> <path>` for file tools, or `Tool(pattern)` for an override. */
  subject: Sanitized;
  /** Optional: the command names of a shell call's segments (argv[0] after unwrapping), for the similarity guard. */
  commands?: string[];
  /** Optional: the call's canonical write targets, for the similarity guard. */
  writes?: Sanitized[];
  /** Optional: the shell call's form (memory/form.ts): what the approval generalizes over. */
  form?: Sanitized;
  /** A role name or `*`. */
  role: string;
  verdict: Verdict;
  reason: Sanitized;
  /** The tier that decided. */
  tier: TierName;
  scope: StoreScope;
  decided_by: Decider;
  /** `Date.prototype.toISOString()` form: `2026-01-02T03:04:05.678Z` (compared as text). */
  ts: string;
}

/** Serialization order: stable, so files diff line by line. */
export const RECORD_FIELDS = [
  'key',
  'tool',
  'subject',
  'commands',
  'writes',
  'form',
  'role',
  'verdict',
  'reason',
  'tier',
  'scope',
  'decided_by',
  'ts',
] as const satisfies readonly (keyof DecisionRecord)[];

/** A loaded record and the line it came from (provenance for `rules list`). */
export interface LoadedRecord extends DecisionRecord {
  file: string;
  line: number;
}

/** Where a scope's files are. */
export type StoreTarget =
  | { scope: 'project'; projectRoot: string }
  | { scope: 'user'; userConfigDir: string }
  | { scope: 'org'; userConfigDir: string; org: string }
  | { scope: 'session'; runtimeDir: string; sessionId: string };

export interface StoreProblem {
  file: string;
  line: number;
  /** The offending field, when the line was JSON but not a valid record. */
  field?: string;
  problem: string;
  /** `skipped`: the line was not loaded. `kept`: loaded anyway (e.g. filed under the wrong verdict). */
  action: 'skipped' | 'kept';
}

export interface StoreLoad {
  /** The winning record per (key, role), in the order each (key, role) first appears. */
  records: LoadedRecord[];
  /** Each bad line once. */
  problems: StoreProblem[];
  /** Files that were read. */
  files: string[];
  /** Valid lines that lost to a newer record for the same (key, role). */
  superseded: number;
}

export function formatProblem(p: StoreProblem): string {
  return `${p.file}:${p.line}: ${p.problem}${p.action === 'skipped' ? ' (line skipped)' : ''}`;
}

// ── locations ────────────────────────────────────────────────────────────────────────────────────────────

const SAFE_ORG = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** The directory holding the scope's files. */
export function scopeDir(target: StoreTarget): string {
  switch (target.scope) {
    case 'project':
      return join(target.projectRoot, '.hookwise', 'rules');
    case 'user':
      return join(target.userConfigDir, 'user');
    case 'org':
      if (!SAFE_ORG.test(target.org)) {
        throw new HookwiseError(
          'USAGE',
          `org name "${target.org}" may hold only letters, digits, '.', '_' and '-' (it names a directory)`,
        );
      }
      return join(target.userConfigDir, 'org', target.org, 'rules');
    case 'session':
      return new SessionRegistry(target.runtimeDir).dir;
  }
}

/** The file a record with this verdict is appended to. */
export function fileFor(target: StoreTarget, verdict: Verdict): string {
  switch (target.scope) {
    case 'project':
    case 'org':
      return join(scopeDir(target), `${verdict}.jsonl`);
    case 'user':
      return join(scopeDir(target), 'rules.jsonl');
    case 'session':
      // The registry's file name rule (the id's hash, never the id), with our own extension.
      return new SessionRegistry(target.runtimeDir).fileFor(target.sessionId).replace(/\.json$/, '.rules.jsonl');
  }
}

/** The scope's existing files, in the order they are read. */
export function scopeFiles(target: StoreTarget): string[] {
  switch (target.scope) {
    case 'project':
      return VERDICTS.map((v) => fileFor(target, v)).filter(exists);
    case 'org': {
      const dir = scopeDir(target);
      let names: string[];
      try {
        names = readdirSync(dir);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw error;
      }
      return names
        .filter((n) => n.endsWith('.jsonl'))
        .sort()
        .map((n) => join(dir, n));
    }
    case 'user':
    case 'session':
      return [fileFor(target, 'allow')].filter(exists);
  }
}

/** Project rules are committed and shared; everything else is one user's. */
function isPrivate(scope: StoreScope): boolean {
  return scope !== 'project';
}

function exists(path: string): boolean {
  return statIfPresent(path) !== undefined;
}

function prepareDir(target: StoreTarget): void {
  const dir = scopeDir(target);
  if (isPrivate(target.scope)) ensurePrivateDir(dir);
  else mkdirSync(dir, { recursive: true });
}

// ── validation (shared by writers and readers) ───────────────────────────────────────────────────────────

/** Keys are hashes the caller computed: a restricted alphabet, so a key cannot carry text (nor a secret). */
const KEY_SHAPE = /^[A-Za-z0-9._:-]{1,128}$/;
const ISO_TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const TIER_SET: ReadonlySet<string> = new Set(TIERS);
const SCOPE_SET: ReadonlySet<string> = new Set(STORE_SCOPES);
const DECIDER_SET: ReadonlySet<string> = new Set(DECIDERS);

interface FieldProblem {
  field: string;
  problem: string;
}

/** The first problem with a parsed line, or undefined for a valid record. */
function checkRecord(value: unknown): FieldProblem | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { field: '', problem: 'not a JSON object' };
  const r = value as Record<string, unknown>;
  if (typeof r.key !== 'string' || !KEY_SHAPE.test(r.key))
    return { field: 'key', problem: 'key must be 1-128 letters, digits or . _ : - (a hash)' };
  for (const field of ['tool', 'role'] as const) {
    if (typeof r[field] !== 'string' || r[field] === '')
      return { field, problem: `${field} must be a non-empty string` };
  }
  for (const field of ['subject', 'reason'] as const) {
    if (typeof r[field] !== 'string') return { field, problem: `${field} must be a string` };
  }
  if (r.form !== undefined && typeof r.form !== 'string')
    return { field: 'form', problem: 'form, when present, must be a string' };
  for (const field of ['commands', 'writes'] as const) {
    const list = r[field];
    if (list !== undefined && (!Array.isArray(list) || !list.every((x) => typeof x === 'string')))
      return { field, problem: `${field}, when present, must be a list of strings` };
  }
  if (!isVerdict(r.verdict)) return { field: 'verdict', problem: `verdict must be one of ${VERDICTS.join(', ')}` };
  if (typeof r.tier !== 'string' || !TIER_SET.has(r.tier))
    return { field: 'tier', problem: `tier must be one of ${TIERS.join(', ')}` };
  if (typeof r.scope !== 'string' || !SCOPE_SET.has(r.scope))
    return { field: 'scope', problem: `scope must be one of ${STORE_SCOPES.join(', ')}` };
  if (typeof r.decided_by !== 'string' || !DECIDER_SET.has(r.decided_by))
    return { field: 'decided_by', problem: `decided_by must be one of ${DECIDERS.join(', ')}` };
  if (typeof r.ts !== 'string' || !ISO_TS.test(r.ts))
    return { field: 'ts', problem: 'ts must be an ISO time like 2026-01-02T03:04:05.678Z' };
  return undefined;
}

/** One line of JSON, fields in RECORD_FIELDS order (extra properties, such as a LoadedRecord's, dropped). */
export function serializeRecord(r: DecisionRecord): string {
  return JSON.stringify({
    key: r.key,
    tool: r.tool,
    subject: r.subject,
    commands: r.commands,
    writes: r.writes,
    form: r.form,
    role: r.role,
    verdict: r.verdict,
    reason: r.reason,
    tier: r.tier,
    scope: r.scope,
    decided_by: r.decided_by,
    ts: r.ts,
  });
}

function refuse(message: string): never {
  throw new HookwiseError('INTERNAL', message);
}

function guardForWrite(target: StoreTarget, r: DecisionRecord, where: string): void {
  const bad = checkRecord(r);
  if (bad !== undefined) refuse(`refusing to write to ${where}: ${bad.problem} (key ${JSON.stringify(r.key)})`);
  if (r.scope !== target.scope)
    refuse(`refusing to write a ${r.scope}-scope record to the ${target.scope} scope (${where})`);
  assertWritableRecord(r, where);
}

/**
 * Throws unless the record is valid and every text field is sanitized: what `appendRecords` requires before
 * a line reaches disk, and what the shared store (store/postgres.ts) requires before a row leaves the machine.
 */
export function assertWritableRecord(r: DecisionRecord, where: string): void {
  const bad = checkRecord(r);
  if (bad !== undefined) refuse(`refusing to write to ${where}: ${bad.problem} (key ${JSON.stringify(r.key)})`);
  // The type says subject and reason are sanitized; the guard makes sure. Tool and role are names, checked
  // the same way so no free-text field can carry a secret to disk (the key's shape already excludes text,
  // and a hash would trip the entropy detectors).
  assertSanitized(r.subject, where);
  assertSanitized(r.reason, where);
  for (const w of r.writes ?? []) assertSanitized(w, where);
  if (r.form !== undefined) assertSanitized(r.form, where);
  for (const field of ['tool', 'role'] as const) {
    if (findSecrets(r[field]).length > 0) refuse(`refusing to write to ${where}: the ${field} field holds a secret`);
  }
  if ((r.commands ?? []).some((c) => findSecrets(c).length > 0))
    refuse(`refusing to write to ${where}: the commands field holds a secret`);
}

// ── append ───────────────────────────────────────────────────────────────────────────────────────────────

/**
 * Appends records to the target scope: each file's lines in one write under that file's lock. All records
 * are checked before anything is written, so a refused record writes nothing.
 */
export function appendRecords(target: StoreTarget, records: readonly DecisionRecord[]): void {
  if (records.length === 0) return;
  const byFile = new Map<string, string[]>();
  for (const r of records) {
    const file = fileFor(target, r.verdict);
    guardForWrite(target, r, file);
    const lines = byFile.get(file);
    if (lines === undefined) byFile.set(file, [serializeRecord(r)]);
    else lines.push(serializeRecord(r));
  }
  prepareDir(target);
  const mode = isPrivate(target.scope) ? 0o600 : 0o644;
  for (const [file, lines] of byFile) {
    withLockSync(`${file}.lock`, () =>
      appendOwnedLines(file, lines.join('\n') + '\n', {
        mode,
        purpose: `${target.scope} decisions`,
        trust: isPrivate(target.scope) ? 'private' : 'project',
      }),
    );
  }
}

// ── load ─────────────────────────────────────────────────────────────────────────────────────────────────

/** Reads the scope's files; never throws on their content (see the module comment for the rules). */
export function loadScope(target: StoreTarget): StoreLoad {
  const files = scopeFiles(target);
  const problems: StoreProblem[] = [];
  const all: LoadedRecord[] = [];
  for (const file of files) {
    let text: string;
    try {
      // A session's file is in the runtime directory, which may have held planted files before it was
      // made private: only a file of ours that nobody else may write is read there.
      if (target.scope === 'session') {
        const bytes = readOwnedFile(file, 'session decisions');
        if (bytes === undefined) continue;
        text = bytes.toString('utf8');
      } else text = readFileSync(file, 'utf8');
    } catch (error) {
      if (isAbsent(error)) continue; // removed since we listed it
      throw error;
    }
    parseLines(text, file, target, all, problems);
  }
  const records = resolve(all);
  return { records, problems, files, superseded: all.length - records.length };
}

/** Parses JSONL text into `into`, reporting each bad line once into `problems`. Exported for tests and tools. */
export function parseLines(
  text: string,
  file: string,
  target: StoreTarget,
  into: LoadedRecord[],
  problems: StoreProblem[],
): void {
  // project and org files named after a verdict should hold only that verdict
  const perVerdict = target.scope === 'project' || target.scope === 'org';
  const fileVerdict = perVerdict ? VERDICTS.find((v) => basename(file) === `${v}.jsonl`) : undefined;
  let start = 0;
  let lineNo = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    lineNo++;
    const line = text.slice(start, end);
    start = end + 1;
    if (line.length === 0 || (line.charCodeAt(0) !== 0x7b && line.trim() === '')) continue; // 0x7b: '{'
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      const torn = end === text.length ? ' (the last line has no newline: probably a torn write)' : '';
      problems.push({ file, line: lineNo, problem: `not JSON: ${(error as Error).message}${torn}`, action: 'skipped' });
      continue;
    }
    const bad = checkRecord(value);
    if (bad !== undefined) {
      problems.push({ file, line: lineNo, field: bad.field, problem: bad.problem, action: 'skipped' });
      continue;
    }
    // The parsed object itself becomes the loaded record (copying 10k objects shows in the load time);
    // properties this version does not know stay on it but are never written back (serializeRecord).
    const record = value as LoadedRecord;
    const written = record.scope;
    record.scope = target.scope;
    record.file = file;
    record.line = lineNo;
    // Where a record lies decides its scope; a copied line says otherwise: keep it, under this scope.
    if (written !== target.scope) {
      problems.push({
        file,
        line: lineNo,
        field: 'scope',
        problem: `record says scope ${written}, but this file belongs to the ${target.scope} scope; loaded as ${target.scope}`,
        action: 'kept',
      });
    } else if (fileVerdict !== undefined && record.verdict !== fileVerdict) {
      problems.push({
        file,
        line: lineNo,
        field: 'verdict',
        problem: `a ${record.verdict} record in the ${fileVerdict} file; loaded as ${record.verdict} (compaction moves it)`,
        action: 'kept',
      });
    }
    if (record.form !== undefined && !formFitsSubject(record.form, record.subject)) {
      delete record.form;
      problems.push({ file, line: lineNo, field: 'form', problem: FORM_MISFIT, action: 'kept' });
    }
    into.push(record);
  }
}

const FORM_MISFIT =
  'its form is not a form of its subject, so it would generalize over calls the decision never covered; the form is dropped and the decision kept for its exact call';

/** Does `a` beat `b` for the same (key, role)? `a` is the later line. */
function wins(a: DecisionRecord, b: DecisionRecord): boolean {
  if (a.ts !== b.ts) return a.ts > b.ts;
  if (a.verdict !== b.verdict) return strictness(a.verdict) > strictness(b.verdict);
  return true;
}

/**
 * For readers that add lines as they are appended (memory/live.ts): does `later` — read after `earlier`
 * (a later line of the same file, or a line of a file read later in the scope's order) — win over it for
 * the same (key, role)? The same rule `loadScope` applies.
 */
export function laterWins(later: DecisionRecord, earlier: DecisionRecord): boolean {
  return wins(later, earlier);
}

/** The winner per (key, role) of lines parsed in reading order (what `loadScope` keeps), for memory/live.ts. */
export function resolveRecords(all: readonly LoadedRecord[]): LoadedRecord[] {
  return resolve(all);
}

/** The winner per (key, role), in the order of each winner's first-seen identity. */
function resolve(all: readonly LoadedRecord[]): LoadedRecord[] {
  const best = new Map<string, LoadedRecord>();
  for (const r of all) {
    const id = `${r.key}\u0000${r.role}`;
    const current = best.get(id);
    if (current === undefined || wins(r, current)) best.set(id, r);
  }
  return [...best.values()];
}

// ── compaction ───────────────────────────────────────────────────────────────────────────────────────────

export interface CompactResult {
  /** Records written. */
  kept: number;
  /** Lines dropped: superseded duplicates and conflicts, plus unreadable lines. */
  dropped: number;
  /** The unreadable lines that were dropped (reported here one last time). */
  problems: StoreProblem[];
  files: string[];
}

export function compareRecords(a: DecisionRecord, b: DecisionRecord): number {
  return (
    cmp(a.tool, b.tool) ||
    cmp(a.subject, b.subject) ||
    cmp(a.role, b.role) ||
    cmp(a.verdict, b.verdict) ||
    cmp(a.key, b.key) ||
    cmp(a.ts, b.ts)
  );
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Rewrites the scope's files with only the winning records, sorted, each under its verdict's file; every
 * file is replaced atomically (temp + rename) while all the scope's locks are held. Unreadable lines are
 * dropped — they are in the returned problems, so a caller can show what went. A file left with no records
 * is kept empty (not deleted: a committed file stays tracked).
 */
export function compactScope(target: StoreTarget): CompactResult {
  const done = underScopeLocks(target, () => rewrite(target));
  return { kept: done.kept, dropped: done.dropped, problems: done.problems, files: done.files };
}

export interface RemoveResult {
  /** Winning records removed (decisions, not lines: superseded lines of a removed decision go with it). */
  removed: number;
  /** Records written back. */
  kept: number;
  /** The scope's files (after the rewrite; when nothing was removed, nothing is rewritten). */
  files: string[];
  /** Per file: records removed from it (counted where each lay) and records it holds now. */
  perFile: { file: string; removed: number; kept: number }[];
  /** Lines the rewrite dropped besides the removed records: superseded duplicates, plus unreadable lines. */
  dropped: number;
  /** The unreadable lines that were dropped (reported one last time). */
  problems: StoreProblem[];
}

/**
 * Removes the winning records the predicate selects (`hookwise invalidate`): under every lock of the scope,
 * like `compactScope`, the scope's files are rewritten with only the other winners — so the rewrite is also
 * a compaction. The predicate sees each (key, role)'s winner, never a superseded line: removing a decision
 * can never bring back an older one. When nothing matches, nothing is written (and no corrupt line dropped);
 * a scope with no files is not created.
 */
export function removeRecords(target: StoreTarget, predicate: (r: LoadedRecord) => boolean): RemoveResult {
  if (scopeFiles(target).length === 0) return { removed: 0, kept: 0, files: [], perFile: [], dropped: 0, problems: [] };
  return underScopeLocks(target, () => rewrite(target, (r) => !predicate(r)));
}

/** Runs `fn` holding every lock of the scope, taken in path order (appends hold one lock: no deadlock). */
function underScopeLocks<T>(target: StoreTarget, fn: () => T): T {
  prepareDir(target);
  const files = [...new Set([...scopeFiles(target), ...VERDICTS.map((v) => fileFor(target, v))])].sort();
  const locked = (i: number): T => {
    if (i < files.length) return withLockSync(`${files[i]}.lock`, () => locked(i + 1));
    return fn();
  };
  return locked(0);
}

/**
 * Rewrites the scope with the winners `keep` accepts (all of them without a filter). With a filter that
 * rejects nothing, nothing is written.
 */
function rewrite(target: StoreTarget, keep?: (r: LoadedRecord) => boolean): RemoveResult {
  const load = loadScope(target);
  const kept = keep === undefined ? load.records : load.records.filter(keep);
  const removedFrom = new Map<string, number>();
  if (keep !== undefined) {
    for (const r of load.records) if (!keep(r)) removedFrom.set(r.file, (removedFrom.get(r.file) ?? 0) + 1);
    if (removedFrom.size === 0) {
      const files = [...load.files].sort();
      const count = (file: string): number => kept.reduce((n, r) => n + (r.file === file ? 1 : 0), 0);
      return {
        removed: 0,
        kept: kept.length,
        files,
        perFile: files.map((file) => ({ file, removed: 0, kept: count(file) })),
        dropped: 0,
        problems: [],
      };
    }
  }
  const outputs = new Map<string, string[]>();
  for (const file of load.files) outputs.set(file, []);
  for (const r of [...kept].sort(compareRecords)) {
    const file = fileFor(target, r.verdict);
    const lines = outputs.get(file);
    if (lines === undefined) outputs.set(file, [serializeRecord(r)]);
    else lines.push(serializeRecord(r));
  }
  const mode = isPrivate(target.scope) ? 0o600 : 0o644;
  for (const [file, lines] of outputs) {
    writeFileAtomic(file, lines.length === 0 ? '' : lines.join('\n') + '\n', { mode, durable: true });
  }
  const skipped = load.problems.filter((p) => p.action === 'skipped');
  const files = [...outputs.keys()].sort();
  return {
    removed: load.records.length - kept.length,
    kept: kept.length,
    files,
    perFile: files.map((file) => ({ file, removed: removedFrom.get(file) ?? 0, kept: outputs.get(file)!.length })),
    dropped: load.superseded + skipped.length,
    problems: skipped,
  };
}
