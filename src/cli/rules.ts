/**
 * Decision memory from the command line:
 *
 *   hookwise override     a human's standing decision for a pattern of calls (`Bash(npm run *)`, `Write`)
 *   hookwise invalidate   forget remembered decisions (and overrides) by role, key or scope
 *   hookwise rules list   every effective remembered decision, where it comes from, what shadows it
 *   hookwise rules show   every record for one key, or whose subject contains a text
 *   hookwise rules compact
 *
 * Each command resolves the project root from the working directory and the user's directories from the
 * environment. Everything printed that came from a store file goes through sanitize() again: the files are
 * written sanitized, but a hand edit (or a corrupt line quoted in a parse error) could carry a secret.
 */
import { strictness, type Verdict } from '../core/decision.js';
import type { EmbeddingMatch } from '../embed/port.js';
import { HookwiseError } from '../core/errors.js';
import { recordSource } from '../memory/cache.js';
import { memoryTargets, orgNames, loadRecords } from '../memory/load.js';
import { overrideKey, overrideSubject } from '../memory/overrides.js';
import {
  ANY_ROLE,
  appendRecords,
  compactScope,
  fileFor,
  formatProblem,
  loadScope,
  removeRecords,
  scopeFiles,
  STORE_SCOPES,
  type DecisionRecord,
  type LoadedRecord,
  type StoreProblem,
  type StoreScope,
  type StoreTarget,
} from '../memory/store.js';
import { findProjectRoot } from '../paths/canonical.js';
import { roleNamed } from '../policy/compiled.js';
import { loadPolicy } from '../policy/load.js';
import { mergeScopes, SCOPE_AUTHORITY } from '../policy/scopes.js';
import { sanitize, type Sanitized } from '../sanitize/index.js';
import { appendSupervisorReview } from '../audit/supervisor-log.js';
import { rolesByGroup } from '../session/messages.js';
import { recordForgetting, type Tombstone } from '../store/forget.js';
import { storeSettings } from '../store/settings.js';
import { locations, type Locations } from '../util/locations.js';

export interface CommandResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

interface Places {
  projectRoot: string;
  where: Locations;
}

/** A call's memory key (memory/cache.ts cacheKey): what the team's supervisor answers are keyed by. */
const MEMORY_KEY = /^[0-9a-f]{16}$/;

function logInvalidated(r: LoadedRecord, places: Places): void {
  appendSupervisorReview(places.where.runtimeDir, {
    ts: new Date().toISOString(),
    session: '' as Sanitized,
    tool: sanitize(r.tool).text,
    subject: sanitize(r.subject).text,
    supervisor: { decision: r.verdict, confidence: null, by: 'supervisor', decided: true },
    human: 'invalidated',
    channel: 'rules',
    override: true,
    project: sanitize(places.projectRoot).text,
  });
}

function placesOf(cwd: string, env: NodeJS.ProcessEnv): Places {
  return { projectRoot: findProjectRoot(cwd), where: locations(env) };
}

function usage(message: string): never {
  throw new HookwiseError('USAGE', message);
}

/** Text from a store file, for printing: sanitized again (see the module comment). */
const clean = (text: string): string => sanitize(text).text;

/** A file for printing: relative to the project root when inside it (like a record's source). */
function shown(file: string, projectRoot: string): string {
  return file.startsWith(`${projectRoot}/`) ? file.slice(projectRoot.length + 1) : file;
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

// ── scopes ───────────────────────────────────────────────────────────────────────────────────────────────

interface ScopeOptions {
  scope?: string;
  org?: string;
  sessionId?: string;
}

function parseScope(value: string): StoreScope {
  if (!(STORE_SCOPES as readonly string[]).includes(value))
    usage(`--scope must be one of ${STORE_SCOPES.join(', ')} (got "${clean(value)}")`);
  return value as StoreScope;
}

function targetOf(scope: StoreScope, places: Places, o: ScopeOptions): StoreTarget {
  switch (scope) {
    case 'user':
      return { scope, userConfigDir: places.where.userConfigDir };
    case 'project':
      return { scope, projectRoot: places.projectRoot };
    case 'session':
      if (o.sessionId === undefined || o.sessionId === '')
        usage('--scope session needs --session-id <id>: session decisions belong to one session');
      return { scope, runtimeDir: places.where.runtimeDir, sessionId: o.sessionId };
    case 'org':
      if (o.org === undefined || o.org === '') usage('--scope org needs --org <name>');
      return { scope, userConfigDir: places.where.userConfigDir, org: o.org };
  }
}

/**
 * The scopes a maintenance command works on: the one named (`--scope org` without `--org`: every org), or
 * by default the user and project scopes, plus the session's with `--session-id`. Orgs only when named:
 * they are administered, not a personal cache.
 */
function selectTargets(o: ScopeOptions, places: Places): StoreTarget[] {
  const scope = o.scope === undefined ? undefined : parseScope(o.scope);
  if (o.org !== undefined && scope !== 'org') usage('--org names an organisation: use it with --scope org');
  if (o.sessionId !== undefined && scope !== undefined && scope !== 'session')
    usage('--session-id adds the session scope: use it with --scope session, or without --scope');
  if (scope === undefined) {
    const targets: StoreTarget[] = [targetOf('user', places, o), targetOf('project', places, o)];
    if (o.sessionId !== undefined) targets.push(targetOf('session', places, o));
    return targets;
  }
  if (scope === 'org' && o.org === undefined) {
    return orgNames(places.where.userConfigDir).map((org): StoreTarget => ({
      scope: 'org',
      userConfigDir: places.where.userConfigDir,
      org,
    }));
  }
  return [targetOf(scope, places, o)];
}

function targetName(t: StoreTarget): string {
  switch (t.scope) {
    case 'org':
      return `org ${t.org}`;
    case 'session':
      return `session ${clean(t.sessionId)}`;
    default:
      return t.scope;
  }
}

// ── hookwise override ────────────────────────────────────────────────────────────────────────────────────

export interface OverrideOptions extends ScopeOptions {
  role: string;
  /** A Bash command pattern: the override is `Bash(pattern)`. */
  command?: string;
  /** A tool: the whole tool, or with `file` `Tool(glob)`. */
  tool?: string;
  file?: string;
  allow?: boolean;
  deny?: boolean;
  ask?: boolean;
  reason?: string;
}

/** What an override's subject may start with (memory/overrides.ts parses `Tool` or `Tool(pattern)`). */
const TOOL_NAME = /^[A-Za-z0-9_.*-]+$/;
/** Shell operators: a pattern is matched against one segment at a time, so they never match. */
const OPERATOR = /\s(?:&&|\|\||\||;)\s|;\s*$/;

function verdictOf(o: OverrideOptions): Verdict {
  const chosen = (['allow', 'deny', 'ask'] as const).filter((v) => o[v] === true);
  if (chosen.length !== 1)
    usage(`give exactly one of --allow, --deny, --ask${chosen.length > 1 ? ` (got --${chosen.join(', --')})` : ''}`);
  return chosen[0]!;
}

function whatOf(o: OverrideOptions): { tool: string; pattern?: string } {
  if (o.command !== undefined && o.tool !== undefined)
    usage('give either --command <pattern> (a Bash override) or --tool <name> [--file <glob>], not both');
  if (o.command !== undefined) {
    if (o.file !== undefined)
      usage('--file goes with --tool (a file tool and a path glob); --command is already the Bash pattern');
    const pattern = o.command.trim();
    if (pattern === '') usage('--command needs a pattern, e.g. --command "npm run *"');
    return { tool: 'Bash', pattern };
  }
  if (o.tool === undefined)
    usage('say what the override is for: --command <pattern> (Bash), or --tool <name> [--file <glob>]');
  if (!TOOL_NAME.test(o.tool))
    usage(`--tool must be a tool name (letters, digits, _ . - or * for every tool); got "${clean(o.tool)}"`);
  if (o.file === undefined) return { tool: o.tool };
  if (o.tool === 'Bash') usage('for Bash, give the command pattern with --command instead of --tool Bash --file');
  const pattern = o.file.trim();
  if (pattern === '') usage('--file needs a glob, e.g. --file "src/**"');
  return { tool: o.tool, pattern };
}

/** `hookwise override`: appends one override record (see memory/overrides.ts for how it applies). */
export async function override(
  o: OverrideOptions,
  cwd: string = process.cwd(),
  env: NodeJS.ProcessEnv = process.env,
): Promise<CommandResult> {
  const verdict = verdictOf(o);
  const { tool, pattern } = whatOf(o);
  if (o.org !== undefined && o.scope !== 'org') usage('--org names an organisation: use it with --scope org');
  if (o.sessionId !== undefined && o.scope !== 'session') usage('--session-id goes with --scope session');
  const places = placesOf(cwd, env);
  // Personal decisions never go silently into the committed project file: user unless told otherwise.
  const target = targetOf(parseScope(o.scope ?? 'user'), places, o);

  if (o.role !== ANY_ROLE) {
    const policy = await loadPolicy(places.projectRoot, places.where);
    if (roleNamed(policy, o.role) === undefined)
      usage(`unknown role "${clean(o.role)}" (or * for every role). Roles:\n${rolesByGroup(policy)}`);
  }

  const subject = sanitize(overrideSubject(tool, pattern));
  if (subject.findings.length > 0) {
    const rules = [...new Set(subject.findings.map((f) => f.rule))].join(', ');
    usage(
      `refusing to store this override: its pattern holds what looks like a secret (${rules}): ${subject.text}. Patterns are stored as written; put * where the secret is`,
    );
  }
  const reason = sanitize(o.reason ?? 'set by hookwise override');
  const key = overrideKey(tool, pattern);
  const record: DecisionRecord = {
    key,
    tool,
    subject: subject.text,
    role: o.role,
    verdict,
    reason: reason.text,
    tier: 'override',
    scope: target.scope,
    decided_by: 'human',
    ts: new Date().toISOString(),
  };
  const previous = loadScope(target).records.find((r) => r.key === key && r.role === o.role);
  appendRecords(target, [record]);

  const file = shown(fileFor(target, verdict), places.projectRoot);
  const forRole = o.role === ANY_ROLE ? 'every role' : `role ${o.role}`;
  const replaces =
    previous === undefined
      ? ''
      : ` (replaces the ${previous.verdict} of ${previous.ts.slice(0, 10)} at ${recordSource(previous, places.projectRoot)})`;
  const stdout = [
    `hookwise: override ${subject.text} → ${verdict} for ${forRole}, stored in the ${targetName(target)} scope: ${file}${replaces}`,
  ];
  const stderr: string[] = [];
  if (reason.findings.length > 0)
    stderr.push('hookwise: the reason held what looks like a secret; it was stored redacted');
  if (pattern !== undefined && tool === 'Bash' && OPERATOR.test(pattern)) {
    stderr.push(
      'hookwise: note: a Bash pattern is matched against each segment of a command on its own (a && b is two segments), so a pattern with an operator in it never matches',
    );
  }
  // Across scopes the stricter verdict wins: say so when this one does not take effect.
  const { records } = loadRecords({
    projectRoot: places.projectRoot,
    userConfigDir: places.where.userConfigDir,
    runtimeDir: places.where.runtimeDir,
    ...(o.sessionId === undefined ? {} : { sessionId: o.sessionId }),
  });
  const effective = mergeScopes(records.filter((r) => r.key === key && (r.role === o.role || r.role === ANY_ROLE)));
  if (effective !== undefined && strictness(effective.verdict) > strictness(verdict)) {
    stdout.push(
      `note: for ${forRole} this is shadowed by the ${effective.scope} scope's ${effective.verdict}${effective.role === ANY_ROLE ? ' for every role' : ''} at ${recordSource(effective, places.projectRoot)} (across scopes deny > ask > allow)`,
    );
  }
  return { stdout: stdout.join('\n'), stderr: stderr.join('\n'), exitCode: 0 };
}

// ── the view: effective decisions and what shadows what ──────────────────────────────────────────────────

export interface ShownRecord {
  key: string;
  tool: string;
  subject: string;
  commands?: string[];
  writes?: string[];
  role: string;
  verdict: Verdict;
  reason: string;
  tier: string;
  scope: StoreScope;
  decided_by: string;
  ts: string;
  /** `file:line`, relative to the project root when inside it. */
  source: string;
  file: string;
  line: number;
  /** The stricter entry that decides instead of this one, for this record's role. */
  shadowed_by?: { verdict: Verdict; scope: StoreScope; role: string; source: string };
}

export interface EffectiveDecision {
  key: string;
  tool: string;
  subject: string;
  role: string;
  /** What a call with this key gets for this role, from all scopes (DENY > ASK > ALLOW). */
  effective: { verdict: Verdict; scope: StoreScope; role: string; source: string };
  /** This (key, role)'s record in each scope, most authoritative scope first. */
  records: ShownRecord[];
}

const byAuthority = (a: LoadedRecord, b: LoadedRecord): number =>
  SCOPE_AUTHORITY[b.scope] - SCOPE_AUTHORITY[a.scope] || (a.ts < b.ts ? 1 : a.ts > b.ts ? -1 : 0);

/**
 * One (key, role) across scopes, not yet rendered: what `rules list` and `rules show` print. Only what it
 * is sorted by is sanitized up front; the rest when it is printed (`Printer`).
 */
interface Decision {
  key: string;
  /** The tool, subject and role of its first record, sanitized. */
  tool: string;
  subject: string;
  role: string;
  /** The record they come from. */
  first: LoadedRecord;
  /** This (key, role)'s record in each scope, most authoritative scope first. */
  records: LoadedRecord[];
  /** What a call with this key gets for this role, from all scopes (DENY > ASK > ALLOW). */
  effective: LoadedRecord;
}

/**
 * Sanitizes what a listing prints, no text twice where it can tell: the texts records share (tools, roles,
 * reasons, files, command names) are remembered (a bounded map, cleared when full), and a decision's first
 * subject and its effective record's source are reused for every record that has the same.
 */
class Printer {
  private readonly seen = new Map<string, string>();
  private effectiveOf: LoadedRecord | undefined;
  private effectiveSource = '';

  constructor(readonly projectRoot: string) {}

  /** For texts many records share. */
  repeated(text: string): string {
    let out = this.seen.get(text);
    if (out === undefined) {
      out = clean(text);
      if (this.seen.size >= 4096) this.seen.clear();
      this.seen.set(text, out);
    }
    return out;
  }

  subject(d: Decision, r: LoadedRecord): string {
    return r.subject === d.first.subject ? d.subject : clean(r.subject);
  }

  /** A record's `file:line`, sanitized (the effective record's once: it is also each shadowed record's shadow). */
  source(r: LoadedRecord, d: Decision): string {
    if (r !== d.effective) return clean(recordSource(r, this.projectRoot));
    if (this.effectiveOf !== r) {
      this.effectiveOf = r;
      this.effectiveSource = clean(recordSource(r, this.projectRoot));
    }
    return this.effectiveSource;
  }
}

function shownRecord(r: LoadedRecord, d: Decision, p: Printer): ShownRecord {
  const out: ShownRecord = {
    key: r.key,
    tool: p.repeated(r.tool),
    subject: p.subject(d, r),
    role: p.repeated(r.role),
    verdict: r.verdict,
    reason: p.repeated(r.reason),
    tier: r.tier,
    scope: r.scope,
    decided_by: r.decided_by,
    ts: r.ts,
    source: p.source(r, d),
    file: p.repeated(r.file),
    line: r.line,
  };
  if (r.commands !== undefined) out.commands = r.commands.map((c) => p.repeated(c));
  if (r.writes !== undefined) out.writes = r.writes.map(clean);
  const e = d.effective;
  if (shadows(d, r))
    out.shadowed_by = { verdict: e.verdict, scope: e.scope, role: p.repeated(e.role), source: p.source(e, d) };
  return out;
}

/**
 * Groups the loaded winners by (key, role) across scopes, sorted by tool, subject, role and key. A group's
 * effective verdict merges its records with the same key's every-role (`*`) records — both apply to a call
 * in that role; a record is shadowed when that merge is stricter than it.
 */
function decisionsOf(records: readonly LoadedRecord[], p: Printer): Decision[] {
  const byKey = new Map<string, LoadedRecord[]>();
  for (const r of records) {
    const list = byKey.get(r.key);
    if (list === undefined) byKey.set(r.key, [r]);
    else list.push(r);
  }
  const out: Decision[] = [];
  const add = (own: LoadedRecord[], role: string, effective: LoadedRecord): void => {
    const first = own[0]!;
    out.push({
      key: first.key,
      tool: p.repeated(first.tool),
      subject: clean(first.subject),
      role: p.repeated(role),
      first,
      records: own,
      effective,
    });
  };
  for (const list of byKey.values()) {
    // most keys have one record in one scope: that one group needs no merge
    if (list.length === 1) {
      add(list, list[0]!.role, list[0]!);
      continue;
    }
    for (const role of new Set(list.map((r) => r.role))) {
      add(
        list.filter((r) => r.role === role).sort(byAuthority),
        role,
        mergeScopes(list.filter((r) => r.role === role || r.role === ANY_ROLE))!,
      );
    }
  }
  const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  return out.sort(
    (a, b) => cmp(a.tool, b.tool) || cmp(a.subject, b.subject) || cmp(a.role, b.role) || cmp(a.key, b.key),
  );
}

const shadows = (d: Decision, r: LoadedRecord): boolean => strictness(d.effective.verdict) > strictness(r.verdict);

/** A decision as printed (and in --json). */
function rendered(d: Decision, p: Printer): EffectiveDecision {
  const e = d.effective;
  return {
    key: d.key,
    tool: d.tool,
    subject: d.subject,
    role: d.role,
    effective: { verdict: e.verdict, scope: e.scope, role: p.repeated(e.role), source: p.source(e, d) },
    records: d.records.map((r) => shownRecord(r, d, p)),
  };
}

/**
 * Groups the loaded winners by (key, role) across scopes (see `decisionsOf`), each with its effective
 * verdict and every record, sanitized for printing.
 */
export function effectiveDecisions(records: readonly LoadedRecord[], projectRoot: string): EffectiveDecision[] {
  const p = new Printer(projectRoot);
  return decisionsOf(records, p).map((d) => rendered(d, p));
}

/** How a shadowed record reads (roles and source sanitized). */
function shadowText(
  r: Pick<ShownRecord, 'scope' | 'verdict' | 'role'>,
  s: NonNullable<ShownRecord['shadowed_by']>,
): string {
  const role = s.role === r.role ? '' : s.role === ANY_ROLE ? ' for every role' : ` for role ${s.role}`;
  return `${r.scope} ${r.verdict} shadowed by ${s.scope} ${s.verdict}${role} at ${s.source}`;
}

function problemJson(p: StoreProblem): StoreProblem {
  return { ...p, file: clean(p.file), problem: clean(p.problem) };
}

const problemLine = (p: StoreProblem): string => `hookwise: decision memory: ${clean(formatProblem(p))}`;

function loadAll(
  places: Places,
  sessionId: string | undefined,
): { records: LoadedRecord[]; problems: StoreProblem[]; targets: StoreTarget[] } {
  const src = {
    projectRoot: places.projectRoot,
    userConfigDir: places.where.userConfigDir,
    runtimeDir: places.where.runtimeDir,
    ...(sessionId === undefined ? {} : { sessionId }),
  };
  return { ...loadRecords(src), targets: memoryTargets(src) };
}

function heading(d: { tool: string; subject: string; role: string; records: { tier: string }[] }): string {
  const what = d.records.some((r) => r.tier === 'override') ? `override ${d.subject}` : `${d.tool}: ${d.subject}`;
  return `${what}  (${d.role === ANY_ROLE ? 'every role' : `role ${d.role}`})`;
}

// ── hookwise rules list ──────────────────────────────────────────────────────────────────────────────────

export interface ListOptions {
  json?: boolean;
  role?: string;
  scope?: string;
  sessionId?: string;
  /** Show each decision's nearest other records by embedding: how many (true: 3). */
  neighbours?: number | boolean;
}

/** A remembered record's nearest others by embedding, best first (cli/neighbours.ts builds one). */
export type NeighbourFinder = (key: string, tool: string) => EmbeddingMatch[];

const BATCH = 64 * 1024;

/**
 * Output handed on in UTF-8 pieces of ≤ 64 KB: each text encoded straight into the piece (no joining of
 * strings, no one string of everything), one write per piece. Each piece is a new Buffer: a consumer may
 * hold on to it (an asynchronous stdout).
 */
function batched(write: (chunk: Buffer) => void): { add(text: string): void; end(): void } {
  let piece = Buffer.allocUnsafe(BATCH);
  let used = 0;
  const end = (): void => {
    if (used > 0) write(piece.subarray(0, used));
    piece = Buffer.allocUnsafe(BATCH);
    used = 0;
  };
  return {
    add(text) {
      // a UTF-16 code unit is at most 3 bytes of UTF-8
      if (used + text.length * 3 > BATCH) end();
      if (text.length * 3 > BATCH) write(Buffer.from(text, 'utf8'));
      else used += piece.write(text, used, 'utf8');
    },
    end,
  };
}

/**
 * JSON.stringify(value, null, 2) as it reads `depth` levels down in a larger document (every line after
 * the first indented 2 × depth spaces more): stringified inside `depth` arrays and cut out of them, which
 * costs half of re-indenting it afterwards. Level i (from 1) opens with "[\n" and 2i spaces; closes with
 * "\n", 2(i - 1) spaces and "]".
 */
function jsonAt(value: unknown, depth: number): string {
  let wrapped = value;
  for (let i = 0; i < depth; i++) wrapped = [wrapped];
  const text = JSON.stringify(wrapped, null, 2);
  const open = 2 * depth + depth * (depth + 1);
  const close = 2 * depth + depth * (depth - 1);
  return text.slice(open, text.length - close);
}

/** `hookwise rules list`: every effective decision with its records, provenance and shadowing. */
export function rulesList(
  o: ListOptions,
  cwd: string = process.cwd(),
  env: NodeJS.ProcessEnv = process.env,
): CommandResult {
  const chunks: Buffer[] = [];
  const { stderr, exitCode } = writeRulesList(o, (chunk) => chunks.push(chunk), cwd, env);
  return { stdout: Buffer.concat(chunks).toString('utf8').replace(/\n$/, ''), stderr, exitCode };
}

/**
 * `hookwise rules list`, its stdout written as it is made, in UTF-8 pieces, through `write` (the whole is
 * what `rulesList` returns plus a final newline). A store of 100k records prints ≈ 20 MB of text, ≈ 100 MB
 * of JSON: never built as one string, nor as one object to stringify.
 */
export function writeRulesList(
  o: ListOptions,
  write: (chunk: Buffer) => void,
  cwd: string = process.cwd(),
  env: NodeJS.ProcessEnv = process.env,
  near?: NeighbourFinder,
): { stderr: string; exitCode: number } {
  const scope = o.scope === undefined ? undefined : parseScope(o.scope);
  if (scope === 'session' && o.sessionId === undefined) usage('--scope session needs --session-id <id>');
  const places = placesOf(cwd, env);
  const { records, problems, targets } = loadAll(places, o.sessionId);
  const printer = new Printer(places.projectRoot);
  // Shadowing is judged against every scope; the filters only choose what is shown.
  let decisions = decisionsOf(records, printer);
  const subjects = new Map(decisions.map((d) => [d.key, `${d.tool}: ${d.subject}`]));
  const neighbours = (d: Decision): { key: string; similarity: number; subject: string }[] =>
    near === undefined
      ? []
      : near(d.key, d.tool).map((m) => ({
          key: m.key,
          similarity: Math.round(m.similarity * 1000) / 1000,
          subject: subjects.get(m.key) ?? '',
        }));
  if (o.role !== undefined) decisions = decisions.filter((d) => d.role === o.role || d.role === ANY_ROLE);
  if (scope !== undefined) {
    decisions = decisions
      .map((d) => ({ ...d, records: d.records.filter((r) => r.scope === scope) }))
      .filter((d) => d.records.length > 0);
  }
  const stderr = problems.map(problemLine).join('\n');
  const projectRoot = places.projectRoot;
  const out = batched(write);
  if (o.json === true) {
    // What JSON.stringify({ project_root, decisions, problems }, null, 2) prints, one decision at a time.
    out.add(`{\n  "project_root": ${JSON.stringify(projectRoot)},\n  "decisions": [`);
    decisions.forEach((d, i) =>
      out.add(
        `${i === 0 ? '' : ','}\n    ${jsonAt(near === undefined ? rendered(d, printer) : { ...rendered(d, printer), neighbours: neighbours(d) }, 2)}`,
      ),
    );
    out.add(`${decisions.length === 0 ? '' : '\n  '}],\n  "problems": ${jsonAt(problems.map(problemJson), 1)}\n}\n`);
    out.end();
    return { stderr, exitCode: 0 };
  }
  let shownCount = 0;
  let shadowed = 0;
  for (const d of decisions) {
    out.add(`${heading(d)} → ${d.effective.verdict}   [key ${d.key}]\n`);
    const e = d.effective;
    for (const r of d.records) {
      shownCount++;
      let shadow = '';
      if (shadows(d, r)) {
        shadowed++;
        const by = { verdict: e.verdict, scope: e.scope, role: printer.repeated(e.role), source: printer.source(e, d) };
        shadow = `  — ${shadowText({ scope: r.scope, verdict: r.verdict, role: printer.repeated(r.role) }, by)}`;
      }
      out.add(
        `  ${r.verdict.padEnd(5)}  ${r.scope.padEnd(7)}  ${r.tier.padEnd(11)}  by ${r.decided_by.padEnd(11)}  ${r.ts}  ${printer.source(r, d)}${shadow}\n`,
      );
    }
    for (const n of neighbours(d))
      out.add(`  near  ${n.similarity.toFixed(3).padStart(6)}  ${n.subject}   [key ${n.key}]\n`);
  }
  if (decisions.length === 0) {
    const where = targets
      .map((t) => `${targetName(t)}: ${shown(scopeFiles(t)[0] ?? fileFor(t, 'allow'), projectRoot)}`)
      .join('; ');
    out.add(`no remembered decisions${o.role === undefined && scope === undefined ? '' : ' match'} (${where})\n`);
  } else {
    out.add(
      `\n${plural(decisions.length, 'decision')} (${plural(shownCount, 'record')}${shadowed > 0 ? `, ${shadowed} shadowed by a stricter entry` : ''})\n`,
    );
  }
  if (problems.length > 0)
    out.add(
      `${plural(problems.length, 'line')} could not be read as given (on stderr); compact to drop the unreadable ones: hookwise rules compact\n`,
    );
  out.end();
  return { stderr, exitCode: 0 };
}

// ── hookwise rules show ──────────────────────────────────────────────────────────────────────────────────

export interface ShowOptions {
  json?: boolean;
  sessionId?: string;
}

/** `hookwise rules show`: every record (each scope's winner) for a key, or whose subject contains a text. */
export function rulesShow(
  query: string,
  o: ShowOptions,
  cwd: string = process.cwd(),
  env: NodeJS.ProcessEnv = process.env,
): CommandResult {
  if (query === '') usage('give a key or a piece of a subject, e.g. hookwise rules show "npm run"');
  const places = placesOf(cwd, env);
  const { records, problems } = loadAll(places, o.sessionId);
  const decisions = effectiveDecisions(records, places.projectRoot);
  const matches = decisions
    .map((d) => ({ ...d, records: d.records.filter((r) => r.key === query || r.subject.includes(query)) }))
    .filter((d) => d.records.length > 0);
  const stderr = problems.map(problemLine).join('\n');
  if (o.json === true) {
    return {
      stdout: JSON.stringify({ query: clean(query), decisions: matches, problems: problems.map(problemJson) }, null, 2),
      stderr,
      exitCode: matches.length === 0 ? 1 : 0,
    };
  }
  if (matches.length === 0)
    return {
      stdout: `no remembered decision has the key or a subject containing "${clean(query)}"`,
      stderr,
      exitCode: 1,
    };
  const lines: string[] = [];
  for (const d of matches) {
    lines.push(`${heading(d)} → ${d.effective.verdict} (from the ${d.effective.scope} scope, ${d.effective.source})`);
    for (const r of d.records) {
      const fields: [string, string | undefined][] = [
        ['key', r.key],
        ['tool', r.tool],
        ['subject', r.subject],
        ['commands', r.commands?.join(', ')],
        ['writes', r.writes?.join(', ')],
        ['role', r.role],
        ['verdict', r.verdict],
        ['reason', r.reason],
        ['tier', r.tier],
        ['scope', r.scope],
        ['decided_by', r.decided_by],
        ['ts', r.ts],
        ['source', r.source],
        ['status', r.shadowed_by === undefined ? 'in effect' : shadowText(r, r.shadowed_by)],
      ];
      lines.push(`  ${r.scope} scope:`);
      for (const [name, value] of fields) if (value !== undefined) lines.push(`    ${`${name}:`.padEnd(12)}${value}`);
    }
  }
  return { stdout: lines.join('\n'), stderr, exitCode: 0 };
}

// ── hookwise rules compact ───────────────────────────────────────────────────────────────────────────────

export interface CompactOptions extends ScopeOptions {
  json?: boolean;
}

/** `hookwise rules compact`: compactScope for the user and project scopes (or the one named). */
export function rulesCompact(
  o: CompactOptions,
  cwd: string = process.cwd(),
  env: NodeJS.ProcessEnv = process.env,
): CommandResult {
  const places = placesOf(cwd, env);
  const results = selectTargets(o, places).map((target) => {
    // A scope with no files stays that way: compacting nothing must not create directories.
    if (scopeFiles(target).length === 0)
      return { scope: targetName(target), kept: 0, dropped: 0, files: [] as string[], problems: [] as StoreProblem[] };
    const r = compactScope(target);
    return {
      scope: targetName(target),
      kept: r.kept,
      dropped: r.dropped,
      files: r.files,
      problems: r.problems.map(problemJson),
    };
  });
  if (o.json === true) return { stdout: JSON.stringify({ scopes: results }, null, 2), stderr: '', exitCode: 0 };
  const lines: string[] = [];
  for (const r of results) {
    if (r.files.length === 0) {
      lines.push(`${r.scope} scope: no decisions stored`);
      continue;
    }
    lines.push(
      `${r.scope} scope: kept ${r.kept}, dropped ${r.dropped} (${r.files.map((f) => shown(f, places.projectRoot)).join(', ')})`,
    );
    for (const p of r.problems)
      lines.push(`  dropped unreadable line ${shown(p.file, places.projectRoot)}:${p.line}: ${p.problem}`);
  }
  return { stdout: lines.join('\n'), stderr: '', exitCode: 0 };
}

// ── hookwise invalidate ──────────────────────────────────────────────────────────────────────────────────

export interface InvalidateOptions extends ScopeOptions {
  role?: string;
  key?: string;
  all?: boolean;
  keepOverrides?: boolean;
  yes?: boolean;
  json?: boolean;
}

interface ScopeRemoval {
  scope: string;
  removed: number;
  kept: number;
  files: { file: string; removed: number; kept: number }[];
  /** Unreadable lines the rewrite dropped. */
  problems: StoreProblem[];
}

/**
 * `hookwise invalidate`: removes remembered decisions (and overrides, unless --keep-overrides). Narrow
 * selections (--role, --key) act at once; removing everything in a scope (--all, or --scope alone) needs
 * --yes, and without it only says what it would remove.
 */
export function invalidate(
  o: InvalidateOptions,
  cwd: string = process.cwd(),
  env: NodeJS.ProcessEnv = process.env,
): CommandResult {
  if (o.role === '' || o.key === '') usage('--role and --key need a value');
  if (o.role === undefined && o.key === undefined && o.scope === undefined && o.all !== true) {
    usage(
      'say what to forget: --role <role>, --key <key>, --scope <scope> (everything in it) or --all (the user and project scopes)',
    );
  }
  if (o.all === true && (o.role !== undefined || o.key !== undefined))
    usage('--all removes everything in the scopes; drop --role/--key, or --all');
  const places = placesOf(cwd, env);
  const targets = selectTargets(o, places);
  const selects = (r: LoadedRecord): boolean =>
    (o.role === undefined || r.role === o.role) &&
    (o.key === undefined || r.key === o.key) &&
    !(o.keepOverrides === true && r.tier === 'override');
  const everything = o.role === undefined && o.key === undefined;

  if (everything && o.yes !== true) {
    const would = targets.map((t) => {
      const records = loadScope(t).records.filter(selects);
      const byFile = new Map<string, number>();
      for (const r of records) byFile.set(r.file, (byFile.get(r.file) ?? 0) + 1);
      return {
        scope: targetName(t),
        removed: records.length,
        files: [...byFile].map(([file, removed]) => ({ file: clean(file), removed })),
      };
    });
    const total = would.reduce((n, w) => n + w.removed, 0);
    if (o.json === true)
      return {
        stdout: JSON.stringify({ dry_run: true, removed: 0, would_remove: total, scopes: would }, null, 2),
        stderr: '',
        exitCode: 1,
      };
    const lines = would.flatMap((w) =>
      w.files.map((f) => `would remove ${f.removed} from ${shown(f.file, places.projectRoot)} (${w.scope} scope)`),
    );
    lines.push(
      `hookwise invalidate: this would remove ${plural(total, 'remembered decision')}${o.keepOverrides === true ? ' (overrides kept)' : ', overrides included'}; nothing was changed — run it again with --yes`,
    );
    return { stdout: lines.join('\n'), stderr: '', exitCode: 1 };
  }

  const results: ScopeRemoval[] = targets.map((t) => {
    // A human forgetting a supervisor's decision by name says it was wrong: an override (audit/supervisor-log.ts).
    const overruled = everything ? [] : loadScope(t).records.filter((r) => selects(r) && r.decided_by === 'supervisor');
    const r = removeRecords(t, selects);
    for (const record of overruled) logInvalidated(record, places);
    return {
      scope: targetName(t),
      removed: r.removed,
      kept: r.kept,
      files: r.perFile.map((f) => ({ ...f, file: clean(f.file) })),
      problems: r.problems.map(problemJson),
    };
  });
  const removed = results.reduce((n, r) => n + r.removed, 0);
  const kept = results.reduce((n, r) => n + r.kept, 0);
  const team = forgetOnTeam(o, targets, places, env);
  if (o.json === true)
    return {
      stdout: JSON.stringify({ removed, kept, scopes: results, team_tombstones: team }, null, 2),
      stderr: '',
      exitCode: 0,
    };
  const lines: string[] = [];
  for (const r of results) {
    for (const f of r.files)
      if (f.removed > 0)
        lines.push(
          `removed ${f.removed} from ${shown(f.file, places.projectRoot)} (${r.scope} scope; ${f.kept} left in it)`,
        );
    for (const p of r.problems)
      lines.push(`dropped unreadable line ${shown(p.file, places.projectRoot)}:${p.line}: ${p.problem}`);
  }
  const scopes = targets.map(targetName).join(', ') || 'no scope';
  lines.push(
    removed === 0
      ? `hookwise invalidate: nothing matched in ${scopes}; nothing was changed`
      : `hookwise invalidate: removed ${plural(removed, 'remembered decision')} from ${scopes}${o.keepOverrides === true ? ' (overrides kept)' : ''}; ${kept} kept`,
  );
  if (team > 0)
    lines.push(
      `the team's machines forget it too: ${plural(team, 'tombstone')} in this machine's outbox, sent to the team's store by the daemon (docs/team.md)`,
    );
  return { stdout: lines.join('\n'), stderr: '', exitCode: 0 };
}

/**
 * With a team store set, what was forgotten here is forgotten on every machine (store/forget.ts): a tombstone
 * per shared scope invalidated, and one for the team's supervisor answers when a memory key was named (the
 * supervisor's answer for that call, whichever scope remembered it). Returns how many went to the outbox.
 */
function forgetOnTeam(o: InvalidateOptions, targets: StoreTarget[], places: Places, env: NodeJS.ProcessEnv): number {
  const settings = storeSettings(places.where.userConfigDir, env).settings;
  if (settings.kind !== 'postgres') return 0;
  const at = new Date().toISOString();
  const key = o.key ?? null;
  const role = o.role ?? null;
  const tombstones: Tombstone[] = targets.flatMap((t): Tombstone[] =>
    t.scope === 'user' || t.scope === 'org'
      ? [
          {
            kind: 'decisions',
            scope: t.scope,
            owner: t.scope === 'user' ? settings.user : t.org,
            key,
            role,
            keep_overrides: o.keepOverrides === true,
            at,
          },
        ]
      : [],
  );
  if (key !== null && MEMORY_KEY.test(key)) tombstones.push({ kind: 'answers', key, role, at });
  recordForgetting(places.where.runtimeDir, tombstones);
  return tombstones.length;
}
