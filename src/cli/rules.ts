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
import { sanitize } from '../sanitize/index.js';
import { rolesByGroup } from '../session/messages.js';
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
  if (!(STORE_SCOPES as readonly string[]).includes(value)) usage(`--scope must be one of ${STORE_SCOPES.join(', ')} (got "${clean(value)}")`);
  return value as StoreScope;
}

function targetOf(scope: StoreScope, places: Places, o: ScopeOptions): StoreTarget {
  switch (scope) {
    case 'user':
      return { scope, userConfigDir: places.where.userConfigDir };
    case 'project':
      return { scope, projectRoot: places.projectRoot };
    case 'session':
      if (o.sessionId === undefined || o.sessionId === '') usage('--scope session needs --session-id <id>: session decisions belong to one session');
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
  if (o.sessionId !== undefined && scope !== undefined && scope !== 'session') usage('--session-id adds the session scope: use it with --scope session, or without --scope');
  if (scope === undefined) {
    const targets: StoreTarget[] = [targetOf('user', places, o), targetOf('project', places, o)];
    if (o.sessionId !== undefined) targets.push(targetOf('session', places, o));
    return targets;
  }
  if (scope === 'org' && o.org === undefined) {
    return orgNames(places.where.userConfigDir).map((org): StoreTarget => ({ scope: 'org', userConfigDir: places.where.userConfigDir, org }));
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
  if (chosen.length !== 1) usage(`give exactly one of --allow, --deny, --ask${chosen.length > 1 ? ` (got --${chosen.join(', --')})` : ''}`);
  return chosen[0]!;
}

function whatOf(o: OverrideOptions): { tool: string; pattern?: string } {
  if (o.command !== undefined && o.tool !== undefined) usage('give either --command <pattern> (a Bash override) or --tool <name> [--file <glob>], not both');
  if (o.command !== undefined) {
    if (o.file !== undefined) usage('--file goes with --tool (a file tool and a path glob); --command is already the Bash pattern');
    const pattern = o.command.trim();
    if (pattern === '') usage('--command needs a pattern, e.g. --command "npm run *"');
    return { tool: 'Bash', pattern };
  }
  if (o.tool === undefined) usage('say what the override is for: --command <pattern> (Bash), or --tool <name> [--file <glob>]');
  if (!TOOL_NAME.test(o.tool)) usage(`--tool must be a tool name (letters, digits, _ . - or * for every tool); got "${clean(o.tool)}"`);
  if (o.file === undefined) return { tool: o.tool };
  if (o.tool === 'Bash') usage('for Bash, give the command pattern with --command instead of --tool Bash --file');
  const pattern = o.file.trim();
  if (pattern === '') usage('--file needs a glob, e.g. --file "src/**"');
  return { tool: o.tool, pattern };
}

/** `hookwise override`: appends one override record (see memory/overrides.ts for how it applies). */
export async function override(o: OverrideOptions, cwd: string = process.cwd(), env: NodeJS.ProcessEnv = process.env): Promise<CommandResult> {
  const verdict = verdictOf(o);
  const { tool, pattern } = whatOf(o);
  if (o.org !== undefined && o.scope !== 'org') usage('--org names an organisation: use it with --scope org');
  if (o.sessionId !== undefined && o.scope !== 'session') usage('--session-id goes with --scope session');
  const places = placesOf(cwd, env);
  // Personal decisions never go silently into the committed project file: user unless told otherwise.
  const target = targetOf(parseScope(o.scope ?? 'user'), places, o);

  if (o.role !== ANY_ROLE) {
    const policy = await loadPolicy(places.projectRoot, places.where);
    if (roleNamed(policy, o.role) === undefined) usage(`unknown role "${clean(o.role)}" (or * for every role). Roles:\n${rolesByGroup(policy)}`);
  }

  const subject = sanitize(overrideSubject(tool, pattern));
  if (subject.findings.length > 0) {
    const rules = [...new Set(subject.findings.map((f) => f.rule))].join(', ');
    usage(`refusing to store this override: its pattern holds what looks like a secret (${rules}): ${subject.text}. Patterns are stored as written; put * where the secret is`);
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
  const replaces = previous === undefined ? '' : ` (replaces the ${previous.verdict} of ${previous.ts.slice(0, 10)} at ${recordSource(previous, places.projectRoot)})`;
  const stdout = [`hookwise: override ${subject.text} → ${verdict} for ${forRole}, stored in the ${targetName(target)} scope: ${file}${replaces}`];
  const stderr: string[] = [];
  if (reason.findings.length > 0) stderr.push('hookwise: the reason held what looks like a secret; it was stored redacted');
  if (pattern !== undefined && tool === 'Bash' && OPERATOR.test(pattern)) {
    stderr.push('hookwise: note: a Bash pattern is matched against each segment of a command on its own (a && b is two segments), so a pattern with an operator in it never matches');
  }
  // Across scopes the stricter verdict wins: say so when this one does not take effect.
  const { records } = loadRecords({ projectRoot: places.projectRoot, userConfigDir: places.where.userConfigDir, runtimeDir: places.where.runtimeDir, ...(o.sessionId === undefined ? {} : { sessionId: o.sessionId }) });
  const effective = mergeScopes(records.filter((r) => r.key === key && (r.role === o.role || r.role === ANY_ROLE)));
  if (effective !== undefined && strictness(effective.verdict) > strictness(verdict)) {
    stdout.push(`note: for ${forRole} this is shadowed by the ${effective.scope} scope's ${effective.verdict}${effective.role === ANY_ROLE ? ' for every role' : ''} at ${recordSource(effective, places.projectRoot)} (across scopes deny > ask > allow)`);
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

function shownRecord(r: LoadedRecord, projectRoot: string, shadow: LoadedRecord | undefined): ShownRecord {
  const out: ShownRecord = {
    key: r.key,
    tool: clean(r.tool),
    subject: clean(r.subject),
    role: clean(r.role),
    verdict: r.verdict,
    reason: clean(r.reason),
    tier: r.tier,
    scope: r.scope,
    decided_by: r.decided_by,
    ts: r.ts,
    source: clean(recordSource(r, projectRoot)),
    file: clean(r.file),
    line: r.line,
  };
  if (r.commands !== undefined) out.commands = r.commands.map(clean);
  if (r.writes !== undefined) out.writes = r.writes.map(clean);
  if (shadow !== undefined) out.shadowed_by = { verdict: shadow.verdict, scope: shadow.scope, role: clean(shadow.role), source: clean(recordSource(shadow, projectRoot)) };
  return out;
}

const byAuthority = (a: LoadedRecord, b: LoadedRecord): number => SCOPE_AUTHORITY[b.scope] - SCOPE_AUTHORITY[a.scope] || (a.ts < b.ts ? 1 : a.ts > b.ts ? -1 : 0);

/**
 * Groups the loaded winners by (key, role) across scopes. A group's effective verdict merges its records
 * with the same key's every-role (`*`) records — both apply to a call in that role; a record is shadowed
 * when that merge is stricter than it.
 */
export function effectiveDecisions(records: readonly LoadedRecord[], projectRoot: string): EffectiveDecision[] {
  const byKey = new Map<string, LoadedRecord[]>();
  for (const r of records) {
    const list = byKey.get(r.key);
    if (list === undefined) byKey.set(r.key, [r]);
    else list.push(r);
  }
  const out: EffectiveDecision[] = [];
  for (const list of byKey.values()) {
    const roles = [...new Set(list.map((r) => r.role))];
    for (const role of roles) {
      const own = list.filter((r) => r.role === role).sort(byAuthority);
      const effective = mergeScopes(list.filter((r) => r.role === role || r.role === ANY_ROLE))!;
      const first = own[0]!;
      out.push({
        key: first.key,
        tool: clean(first.tool),
        subject: clean(first.subject),
        role: clean(role),
        effective: { verdict: effective.verdict, scope: effective.scope, role: clean(effective.role), source: clean(recordSource(effective, projectRoot)) },
        records: own.map((r) => shownRecord(r, projectRoot, strictness(effective.verdict) > strictness(r.verdict) ? effective : undefined)),
      });
    }
  }
  const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  return out.sort((a, b) => cmp(a.tool, b.tool) || cmp(a.subject, b.subject) || cmp(a.role, b.role) || cmp(a.key, b.key));
}

function shadowText(r: ShownRecord): string {
  const s = r.shadowed_by;
  if (s === undefined) return '';
  const role = s.role === r.role ? '' : s.role === ANY_ROLE ? ' for every role' : ` for role ${s.role}`;
  return `${r.scope} ${r.verdict} shadowed by ${s.scope} ${s.verdict}${role} at ${s.source}`;
}

function problemJson(p: StoreProblem): StoreProblem {
  return { ...p, file: clean(p.file), problem: clean(p.problem) };
}

const problemLine = (p: StoreProblem): string => `hookwise: decision memory: ${clean(formatProblem(p))}`;

function loadAll(places: Places, sessionId: string | undefined): { records: LoadedRecord[]; problems: StoreProblem[]; targets: StoreTarget[] } {
  const src = { projectRoot: places.projectRoot, userConfigDir: places.where.userConfigDir, runtimeDir: places.where.runtimeDir, ...(sessionId === undefined ? {} : { sessionId }) };
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
}

/** `hookwise rules list`: every effective decision with its records, provenance and shadowing. */
export function rulesList(o: ListOptions, cwd: string = process.cwd(), env: NodeJS.ProcessEnv = process.env): CommandResult {
  const scope = o.scope === undefined ? undefined : parseScope(o.scope);
  if (scope === 'session' && o.sessionId === undefined) usage('--scope session needs --session-id <id>');
  const places = placesOf(cwd, env);
  const { records, problems, targets } = loadAll(places, o.sessionId);
  // Shadowing is judged against every scope; the filters only choose what is shown.
  let decisions = effectiveDecisions(records, places.projectRoot);
  if (o.role !== undefined) decisions = decisions.filter((d) => d.role === o.role || d.role === ANY_ROLE);
  if (scope !== undefined) {
    decisions = decisions.map((d) => ({ ...d, records: d.records.filter((r) => r.scope === scope) })).filter((d) => d.records.length > 0);
  }
  const stderr = problems.map(problemLine).join('\n');
  if (o.json === true) {
    return { stdout: JSON.stringify({ project_root: places.projectRoot, decisions, problems: problems.map(problemJson) }, null, 2), stderr, exitCode: 0 };
  }
  const lines: string[] = [];
  for (const d of decisions) {
    lines.push(`${heading(d)} → ${d.effective.verdict}   [key ${d.key}]`);
    for (const r of d.records) {
      const shadow = shadowText(r);
      lines.push(`  ${r.verdict.padEnd(5)}  ${r.scope.padEnd(7)}  ${r.tier.padEnd(11)}  by ${r.decided_by.padEnd(11)}  ${r.ts}  ${r.source}${shadow === '' ? '' : `  — ${shadow}`}`);
    }
  }
  const shownCount = decisions.reduce((n, d) => n + d.records.length, 0);
  const shadowed = decisions.reduce((n, d) => n + d.records.filter((r) => r.shadowed_by !== undefined).length, 0);
  if (decisions.length === 0) {
    const where = targets.map((t) => `${targetName(t)}: ${shown(scopeFiles(t)[0] ?? fileFor(t, 'allow'), places.projectRoot)}`).join('; ');
    lines.push(`no remembered decisions${o.role === undefined && scope === undefined ? '' : ' match'} (${where})`);
  } else {
    lines.push('', `${plural(decisions.length, 'decision')} (${plural(shownCount, 'record')}${shadowed > 0 ? `, ${shadowed} shadowed by a stricter entry` : ''})`);
  }
  if (problems.length > 0) lines.push(`${plural(problems.length, 'line')} could not be read as given (on stderr); compact to drop the unreadable ones: hookwise rules compact`);
  return { stdout: lines.join('\n'), stderr, exitCode: 0 };
}

// ── hookwise rules show ──────────────────────────────────────────────────────────────────────────────────

export interface ShowOptions {
  json?: boolean;
  sessionId?: string;
}

/** `hookwise rules show`: every record (each scope's winner) for a key, or whose subject contains a text. */
export function rulesShow(query: string, o: ShowOptions, cwd: string = process.cwd(), env: NodeJS.ProcessEnv = process.env): CommandResult {
  if (query === '') usage('give a key or a piece of a subject, e.g. hookwise rules show "npm run"');
  const places = placesOf(cwd, env);
  const { records, problems } = loadAll(places, o.sessionId);
  const decisions = effectiveDecisions(records, places.projectRoot);
  const matches = decisions
    .map((d) => ({ ...d, records: d.records.filter((r) => r.key === query || r.subject.includes(query)) }))
    .filter((d) => d.records.length > 0);
  const stderr = problems.map(problemLine).join('\n');
  if (o.json === true) {
    return { stdout: JSON.stringify({ query: clean(query), decisions: matches, problems: problems.map(problemJson) }, null, 2), stderr, exitCode: matches.length === 0 ? 1 : 0 };
  }
  if (matches.length === 0) return { stdout: `no remembered decision has the key or a subject containing "${clean(query)}"`, stderr, exitCode: 1 };
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
        ['status', r.shadowed_by === undefined ? 'in effect' : shadowText(r)],
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
export function rulesCompact(o: CompactOptions, cwd: string = process.cwd(), env: NodeJS.ProcessEnv = process.env): CommandResult {
  const places = placesOf(cwd, env);
  const results = selectTargets(o, places).map((target) => {
    // A scope with no files stays that way: compacting nothing must not create directories.
    if (scopeFiles(target).length === 0) return { scope: targetName(target), kept: 0, dropped: 0, files: [] as string[], problems: [] as StoreProblem[] };
    const r = compactScope(target);
    return { scope: targetName(target), kept: r.kept, dropped: r.dropped, files: r.files, problems: r.problems.map(problemJson) };
  });
  if (o.json === true) return { stdout: JSON.stringify({ scopes: results }, null, 2), stderr: '', exitCode: 0 };
  const lines: string[] = [];
  for (const r of results) {
    if (r.files.length === 0) {
      lines.push(`${r.scope} scope: no decisions stored`);
      continue;
    }
    lines.push(`${r.scope} scope: kept ${r.kept}, dropped ${r.dropped} (${r.files.map((f) => shown(f, places.projectRoot)).join(', ')})`);
    for (const p of r.problems) lines.push(`  dropped unreadable line ${shown(p.file, places.projectRoot)}:${p.line}: ${p.problem}`);
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
export function invalidate(o: InvalidateOptions, cwd: string = process.cwd(), env: NodeJS.ProcessEnv = process.env): CommandResult {
  if (o.role === '' || o.key === '') usage('--role and --key need a value');
  if (o.role === undefined && o.key === undefined && o.scope === undefined && o.all !== true) {
    usage('say what to forget: --role <role>, --key <key>, --scope <scope> (everything in it) or --all (the user and project scopes)');
  }
  if (o.all === true && (o.role !== undefined || o.key !== undefined)) usage('--all removes everything in the scopes; drop --role/--key, or --all');
  const places = placesOf(cwd, env);
  const targets = selectTargets(o, places);
  const selects = (r: LoadedRecord): boolean =>
    (o.role === undefined || r.role === o.role) && (o.key === undefined || r.key === o.key) && !(o.keepOverrides === true && r.tier === 'override');
  const everything = o.role === undefined && o.key === undefined;

  if (everything && o.yes !== true) {
    const would = targets.map((t) => {
      const records = loadScope(t).records.filter(selects);
      const byFile = new Map<string, number>();
      for (const r of records) byFile.set(r.file, (byFile.get(r.file) ?? 0) + 1);
      return { scope: targetName(t), removed: records.length, files: [...byFile].map(([file, removed]) => ({ file: clean(file), removed })) };
    });
    const total = would.reduce((n, w) => n + w.removed, 0);
    if (o.json === true) return { stdout: JSON.stringify({ dry_run: true, removed: 0, would_remove: total, scopes: would }, null, 2), stderr: '', exitCode: 1 };
    const lines = would.flatMap((w) => w.files.map((f) => `would remove ${f.removed} from ${shown(f.file, places.projectRoot)} (${w.scope} scope)`));
    lines.push(`hookwise invalidate: this would remove ${plural(total, 'remembered decision')}${o.keepOverrides === true ? ' (overrides kept)' : ', overrides included'}; nothing was changed — run it again with --yes`);
    return { stdout: lines.join('\n'), stderr: '', exitCode: 1 };
  }

  const results: ScopeRemoval[] = targets.map((t) => {
    const r = removeRecords(t, selects);
    return { scope: targetName(t), removed: r.removed, kept: r.kept, files: r.perFile.map((f) => ({ ...f, file: clean(f.file) })), problems: r.problems.map(problemJson) };
  });
  const removed = results.reduce((n, r) => n + r.removed, 0);
  const kept = results.reduce((n, r) => n + r.kept, 0);
  if (o.json === true) return { stdout: JSON.stringify({ removed, kept, scopes: results }, null, 2), stderr: '', exitCode: 0 };
  const lines: string[] = [];
  for (const r of results) {
    for (const f of r.files) if (f.removed > 0) lines.push(`removed ${f.removed} from ${shown(f.file, places.projectRoot)} (${r.scope} scope; ${f.kept} left in it)`);
    for (const p of r.problems) lines.push(`dropped unreadable line ${shown(p.file, places.projectRoot)}:${p.line}: ${p.problem}`);
  }
  const scopes = targets.map(targetName).join(', ') || 'no scope';
  lines.push(
    removed === 0
      ? `hookwise invalidate: nothing matched in ${scopes}; nothing was changed`
      : `hookwise invalidate: removed ${plural(removed, 'remembered decision')} from ${scopes}${o.keepOverrides === true ? ' (overrides kept)' : ''}; ${kept} kept`,
  );
  return { stdout: lines.join('\n'), stderr: '', exitCode: 0 };
}
