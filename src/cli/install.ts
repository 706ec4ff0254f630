/**
 * `hookwise install` / `hookwise uninstall`: merge hookwise's hook entries into (or out of) a host's settings
 * file. Everything else in the file is kept; our own entries are recognised and replaced, so running it twice
 * gives a byte-identical file. The previous file is backed up before it is replaced (atomically); a file that
 * is not valid JSON is never touched.
 *
 * The hook command is `hookwise` looked up on PATH, not an absolute path: a project settings file is usually
 * committed, and an absolute path from one machine (or one npm prefix / node version) is wrong on the next,
 * whereas the PATH lookup survives upgrades. When the agent's PATH lacks hookwise the gate entry still fails
 * closed (`|| exit 2`: every host treats exit 2 as a block, and the message names the missing command).
 * `--command <cmd>` pins another command, e.g. an absolute path.
 */
import {
  accessSync,
  chmodSync,
  constants,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  statSync,
} from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { HookwiseError } from '../core/errors.js';
import { HOSTS, type HostName } from '../core/tool-call.js';
import { findProjectRoot } from '../paths/canonical.js';
import { ensurePrivateDir, writeFileAtomic } from '../util/fs-safe.js';
import { locations } from '../util/locations.js';

export const INSTALL_SCOPES = ['project', 'user'] as const;
export type InstallScope = (typeof INSTALL_SCOPES)[number];

export const DEFAULT_COMMAND = 'hookwise';

/**
 * How to install the CLI, as messages say it. The package is not on the npm registry (yet): a clone
 * installs it (docs/install.md); `npm install` in the clone installs the dependencies and builds dist/.
 */
export const INSTALL_CLI = 'from a clone of the hookwise repository: npm install && npm install -g .';

type JsonObject = Record<string, unknown>;

/**
 * What a hook entry is for: the gate must fail closed; the session hooks only add context; the learn hook
 * (Claude Code PostToolUse, command wiring) records a human's approval at the host's prompt; the walls hook
 * (PostToolUseFailure of Bash) learns that a confined run hit the walls, and counts the failure for the
 * circuit breaker, before the agent's next call. As commands both start Node only when this session has a
 * pending note (learnCommand). The settle hooks (Stop, SessionEnd: http wiring) do at the end of a turn
 * what the http wiring's missing PostToolUse would have done (engine/settle.ts).
 */
type EntryKind = 'gate' | 'session' | 'learn' | 'walls' | 'settle';

/**
 * How Claude Code reaches hookwise. `http` (the default): the tool-call events POST to the user's daemon
 * on 127.0.0.1 — no Node process per call, and `onFailure: "block"` makes a dead daemon block the call instead of
 * letting it through; the session events run a command that starts the daemon when it is not running.
 * `command`: every event runs `hookwise check` (a thin client of the daemon, deciding in process when none
 * answers). Gemini CLI and Codex have command hooks only.
 */
export const WIRINGS = ['http', 'command'] as const;
export type Wiring = (typeof WIRINGS)[number];

interface EntrySpec {
  event: string;
  matcher?: string;
  kind: EntryKind;
  /** Over the daemon's loopback HTTP endpoint instead of a command (Claude Code `http` handler). */
  http?: boolean;
  /** Gemini handlers carry a name (shown in its hook listings). */
  name?: string;
  timeout: number;
}

interface HostSpec {
  label: string;
  defaultScope: InstallScope;
  settingsFile(scope: InstallScope, where: InstallContext, wiring: Wiring): string;
  entries: readonly EntrySpec[];
  /** The entries of the http wiring, for hosts that have one. */
  httpEntries?: readonly EntrySpec[];
  notes(scope: InstallScope, wiring: Wiring): string[];
}

export interface InstallContext {
  /** The project root (git root) for project scope. */
  projectRoot: string;
  home: string;
  env: NodeJS.ProcessEnv;
}

// Timeouts: a timed-out PreToolUse hook fails OPEN on every host, so the gate gets the hosts' own 10-minute
// default (hookwise bounds its own waits); the session hooks only add context, and a prompt should not wait.
const GATE_TIMEOUT_S = 600;
const SESSION_TIMEOUT_S = 30;
// An http gate answers in milliseconds — unless the call waits in the human queue (human.channel: queue), for
// up to human.timeout (at most 9 minutes, policy/defaults.ts): the host must not give up first (a timed-out
// http hook blocks with onFailure "block", and the answer a human gave would be lost).
const HTTP_GATE_TIMEOUT_S = 600;
// SessionEnd hooks share the client's exit budget, raised to the largest timeout among them: keep it short
// (settling reads a few files; a dead daemon refuses the connection at once).
const SESSION_END_TIMEOUT_S = 5;

const DOUBLE_PLUGIN_NOTE =
  'If the hookwise Claude Code plugin is enabled as well, every tool call is checked twice: use the plugin or these settings, not both.';

export const HOST_SPECS: Record<HostName, HostSpec> = {
  claude: {
    label: 'Claude Code',
    defaultScope: 'project',
    // The http wiring names this user's daemon token: never in the committed project file, in the personal
    // settings.local.json instead (kept out of git).
    settingsFile: (scope, where, wiring) =>
      scope === 'project'
        ? join(where.projectRoot, '.claude', wiring === 'http' ? 'settings.local.json' : 'settings.json')
        : join(nonEmpty(where.env.CLAUDE_CONFIG_DIR) ?? join(where.home, '.claude'), 'settings.json'),
    entries: [
      { event: 'PreToolUse', matcher: '*', kind: 'gate', timeout: GATE_TIMEOUT_S },
      { event: 'PostToolUse', matcher: '*', kind: 'learn', timeout: SESSION_TIMEOUT_S },
      { event: 'PostToolUseFailure', matcher: 'Bash', kind: 'walls', timeout: SESSION_TIMEOUT_S },
      { event: 'UserPromptSubmit', kind: 'session', timeout: SESSION_TIMEOUT_S },
      { event: 'SessionStart', kind: 'session', timeout: SESSION_TIMEOUT_S },
    ],
    // No PostToolUse: Claude Code runs one on every tool call and the step pays for it even when it has nothing
    // to do (an http hook is waited for even with `async: true`; a background command still costs its spawn:
    // tests/e2e/daemon-wiring.test.ts). The daemon settles what a call left pending at the session's next
    // call, and at Stop and SessionEnd (once per turn, per session): engine/settle.ts. PostToolUseFailure
    // stays: it fires only when a Bash call failed, and counts the failure for the circuit breaker.
    httpEntries: [
      { event: 'PreToolUse', matcher: '*', kind: 'gate', http: true, timeout: HTTP_GATE_TIMEOUT_S },
      { event: 'PostToolUseFailure', matcher: 'Bash', kind: 'walls', http: true, timeout: SESSION_TIMEOUT_S },
      { event: 'Stop', kind: 'settle', http: true, timeout: SESSION_TIMEOUT_S },
      { event: 'SessionEnd', kind: 'settle', http: true, timeout: SESSION_END_TIMEOUT_S },
      { event: 'UserPromptSubmit', kind: 'session', timeout: SESSION_TIMEOUT_S },
      { event: 'SessionStart', kind: 'session', timeout: SESSION_TIMEOUT_S },
    ],
    notes: (scope, wiring) => [
      ...(scope === 'project' && wiring === 'command'
        ? [
            `.claude/settings.json is usually committed: everyone working in this repository then needs the hookwise CLI (${INSTALL_CLI}), or their tool calls are blocked. Use --scope user to install for yourself only.`,
          ]
        : []),
      ...(wiring === 'http'
        ? [
            'Tool calls go to your hookwise daemon on 127.0.0.1 (no Node process per call). The session hooks start it; while it is down, tool calls are blocked (hookwise daemon start --http). Run it under systemd or launchd to keep it up: docs/daemon.md.',
            'The settings file holds your daemon token: keep it private (it is not committed).',
          ]
        : []),
      DOUBLE_PLUGIN_NOTE,
    ],
  },
  gemini: {
    label: 'Gemini CLI',
    defaultScope: 'user',
    settingsFile: (scope, where) =>
      scope === 'project'
        ? join(where.projectRoot, '.gemini', 'settings.json')
        : join(nonEmpty(where.env.GEMINI_CLI_HOME) ?? where.home, '.gemini', 'settings.json'),
    entries: [
      { event: 'BeforeTool', matcher: '.*', kind: 'gate', name: 'hookwise-gate', timeout: GATE_TIMEOUT_S * 1000 },
      { event: 'BeforeAgent', kind: 'session', name: 'hookwise-session', timeout: SESSION_TIMEOUT_S * 1000 },
      { event: 'SessionStart', kind: 'session', name: 'hookwise-session-start', timeout: SESSION_TIMEOUT_S * 1000 },
    ],
    notes: (scope) => [
      scope === 'project'
        ? 'Gemini CLI reads .gemini/settings.json only in trusted folders, and project-level hooks did not run in headless mode (gemini -p) in our tests: prefer the default --scope user.'
        : 'Gemini CLI loads hooks at start-up: restart running sessions.',
    ],
  },
  codex: {
    label: 'Codex',
    defaultScope: 'project',
    settingsFile: (scope, where) =>
      scope === 'project'
        ? join(where.projectRoot, '.codex', 'hooks.json')
        : join(nonEmpty(where.env.CODEX_HOME) ?? join(where.home, '.codex'), 'hooks.json'),
    entries: [
      { event: 'PreToolUse', matcher: '*', kind: 'gate', timeout: GATE_TIMEOUT_S },
      { event: 'UserPromptSubmit', kind: 'session', timeout: SESSION_TIMEOUT_S },
      { event: 'SessionStart', kind: 'session', timeout: SESSION_TIMEOUT_S },
    ],
    notes: (scope) => [
      'Codex runs new or changed hooks only after you trust them: start codex, open /hooks and trust the hookwise entries (automation: --dangerously-bypass-hook-trust).',
      ...(scope === 'project' ? ['Codex loads .codex/hooks.json only when it trusts this project.'] : []),
    ],
  },
};

// ── the merge (pure) ─────────────────────────────────────────────────────────────────────────────────

export function hookCommand(command: string, kind: EntryKind, host: HostName, wiring: Wiring = 'command'): string {
  switch (kind) {
    case 'gate':
      return `${command} check --host ${host} || exit 2`;
    case 'learn':
    case 'walls':
      return learnCommand(command, host);
    case 'settle':
      return `${command} check --host ${host}`;
    case 'session':
      // With the http wiring, the session hooks start the daemon (with its loopback endpoint) if it is down.
      return `${command} session-check --host ${host}${wiring === 'http' ? ' --ensure-daemon' : ''}`;
  }
}

/**
 * The learn and walls entries (PostToolUse, PostToolUseFailure) fire after every tool call but have work only
 * when this session has a pending note: the test the plugin's wrapper makes (plugin/bin/hookwise-hook learn),
 * inline for `sh -c`, with POSIX sh builtins only. The notes live in hookwise's runtime dir (resolved as in
 * util/locations.ts), one directory per session, named by the session id Claude Code gives its hooks as
 * CLAUDE_CODE_SESSION_ID (memory/learn.ts sessionPendingDir); without it, any session's note counts.
 */
export function learnCommand(command: string, host: HostName): string {
  const uuid = '$h$h$h$h$h$h$h$h-$h$h$h$h-$h$h$h$h-$h$h$h$h-$h$h$h$h$h$h$h$h$h$h$h$h';
  const check = `${command} check --host ${host}`;
  return [
    'r=${HOOKWISE_RUNTIME_DIR:-${XDG_RUNTIME_DIR:+$XDG_RUNTIME_DIR/hookwise}}',
    'r=${r:-${XDG_CACHE_HOME:-$HOME/.cache}/hookwise}',
    "h='[0-9a-fA-F]'",
    "d='*'",
    `case \${CLAUDE_CODE_SESSION_ID-} in ${uuid}) d=s-$CLAUDE_CODE_SESSION_ID;; esac`,
    'for n in "$r"/pending/$d/*.json; do [ -e "$n" ] || exit 0; break; done',
    `exec ${check}`,
  ].join('; ');
}

/** The daemon's loopback endpoint for a host's hooks. */
export function hookUrl(port: number, host: HostName): string {
  return `http://127.0.0.1:${port}/v1/hook/${host}`;
}

const OUR_URL = /^http:\/\/127\.0\.0\.1:\d+\/v1\/hook\/(?:claude|gemini|codex)$/;

/** Our own entries, whatever command prefix they were installed with: they name hookwise and our arguments. */
const OUR_ARGUMENTS = /\s(?:check|session-check) --host (?:claude|gemini|codex)\b/;

export function isHookwiseHandler(handler: unknown): boolean {
  if (isObject(handler) && handler.type === 'http') return typeof handler.url === 'string' && OUR_URL.test(handler.url);
  if (!isObject(handler) || typeof handler.command !== 'string') return false;
  return handler.command.includes('hookwise') && OUR_ARGUMENTS.test(handler.command);
}

/** Remove our handlers from every event; groups and events left empty by that removal go too. */
function removeOurs(hooks: JsonObject): number {
  let removed = 0;
  for (const [event, groups] of Object.entries(hooks)) {
    // Not every key under `hooks` is an event (older Gemini settings keep `enabled` / `disabled` there).
    if (!Array.isArray(groups)) continue;
    const kept: unknown[] = [];
    for (const group of groups) {
      if (!isObject(group) || !Array.isArray(group.hooks)) {
        kept.push(group);
        continue;
      }
      const handlers = group.hooks.filter((h) => !isHookwiseHandler(h));
      const dropped = group.hooks.length - handlers.length;
      removed += dropped;
      if (dropped === 0) kept.push(group);
      else if (handlers.length > 0) kept.push({ ...group, hooks: handlers });
    }
    if (kept.length === groups.length && kept.every((g, i) => g === groups[i])) continue;
    if (kept.length === 0) delete hooks[event];
    else hooks[event] = kept;
  }
  return removed;
}

/** What the hooks run: the command, and for the http wiring the daemon's endpoint. */
export interface HookTarget {
  command: string;
  wiring: Wiring;
  http?: { port: number; token: string } | undefined;
}

function ourGroup(spec: EntrySpec, host: HostName, target: HookTarget): JsonObject {
  const group = (handler: JsonObject): JsonObject => ({
    ...(spec.matcher === undefined ? {} : { matcher: spec.matcher }),
    hooks: [handler],
  });
  if (spec.http === true) {
    if (target.http === undefined) throw new HookwiseError('INTERNAL', 'the http wiring needs the daemon endpoint');
    return group({
      type: 'http',
      url: hookUrl(target.http.port, host),
      // The role fallback travels as a header: an http hook has no environment of its own.
      headers: { Authorization: `Bearer ${target.http.token}`, 'X-Hookwise-Role': '$HOOKWISE_ROLE' },
      allowedEnvVars: ['HOOKWISE_ROLE'],
      timeout: spec.timeout,
      // A dead or hung daemon blocks the gate (fail closed); a missed settle only forgets an approval.
      ...(spec.kind === 'gate' ? { onFailure: 'block' } : {}),
    });
  }
  const command = target.command;
  const handler: JsonObject = {
    ...(spec.name === undefined ? {} : { name: spec.name }),
    type: 'command',
    command: hookCommand(command, spec.kind, host, target.wiring),
    timeout: spec.timeout,
  };
  return group(handler);
}

export function entriesOf(host: HostName, wiring: Wiring): readonly EntrySpec[] {
  const spec = HOST_SPECS[host];
  return wiring === 'http' && spec.httpEntries !== undefined ? spec.httpEntries : spec.entries;
}

/** Only Claude Code has http hooks; the other hosts always get commands. */
export function wiringFor(host: HostName, requested: Wiring | undefined): Wiring {
  return HOST_SPECS[host].httpEntries === undefined ? 'command' : (requested ?? 'http');
}

export interface MergeResult {
  text: string;
  changed: boolean;
  /** How many of our handlers were there before. */
  removed: number;
}

/**
 * The settings file's new text. `before` is its current text (undefined: no file); `command` is what our
 * hooks run, or null to only remove our entries (uninstall). Throws CONFIG_INVALID, naming the file and the
 * problem, when it is not a JSON object we can merge into.
 */
export function mergeSettings(
  file: string,
  before: string | undefined,
  host: HostName,
  target: HookTarget | null,
): MergeResult {
  const settings = parseSettings(file, before);
  const hooks = hooksOf(file, settings);
  const removed = removeOurs(hooks);
  // Uninstall with nothing of ours: leave the file (or its absence) exactly as it is.
  if (target === null && removed === 0) return { text: before ?? '', changed: false, removed };
  if (target !== null) {
    for (const spec of entriesOf(host, target.wiring)) {
      const existing = hooks[spec.event];
      if (existing !== undefined && !Array.isArray(existing)) {
        throw new HookwiseError(
          'CONFIG_INVALID',
          `${file}: "hooks.${spec.event}" must be an array of hook groups (it is ${typeof existing}); hookwise did not change the file. Fix it by hand and retry.`,
        );
      }
      hooks[spec.event] = [...(existing ?? []), ourGroup(spec, host, target)];
    }
  }
  if (Object.keys(hooks).length > 0) settings.hooks = hooks;
  else delete settings.hooks; // only reachable by uninstall emptying it
  const text = `${JSON.stringify(settings, null, indentOf(before))}\n`;
  return { text, changed: text !== before, removed };
}

function parseSettings(file: string, text: string | undefined): JsonObject {
  if (text === undefined || text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // Gemini CLI tolerates comments in its settings; JSON.parse (and a rewrite) would lose them.
    const comments = /^\s*\/[/*]/m.test(text)
      ? ' It seems to contain comments, which hookwise cannot keep: remove them, or add the hooks by hand (docs/install.md).'
      : '';
    throw new HookwiseError(
      'CONFIG_INVALID',
      `${file} is not valid JSON (${describeJsonError(text, error)}); hookwise did not change it. Fix the file (or move it aside) and run the command again.${comments}`,
    );
  }
  if (!isObject(value)) {
    throw new HookwiseError(
      'CONFIG_INVALID',
      `${file} must hold a JSON object, not ${Array.isArray(value) ? 'an array' : typeof value}; hookwise did not change it.`,
    );
  }
  return value;
}

function hooksOf(file: string, settings: JsonObject): JsonObject {
  const hooks = settings.hooks;
  if (hooks === undefined) return {};
  if (!isObject(hooks)) {
    throw new HookwiseError(
      'CONFIG_INVALID',
      `${file}: "hooks" must be an object keyed by event name; hookwise did not change the file. Fix it by hand and retry.`,
    );
  }
  return { ...hooks };
}

/** Node's JSON.parse message plus line:column, so the user can find the problem. */
function describeJsonError(text: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const position = /position (\d+)/.exec(message);
  if (position === null) return message;
  const before = text.slice(0, Number(position[1]));
  const line = before.split('\n').length;
  const column = before.length - before.lastIndexOf('\n');
  return `${message}, line ${line} column ${column}`;
}

/** Keep the file's own indentation (two spaces for a new file). */
function indentOf(text: string | undefined): string {
  const match = text === undefined ? null : /^[{[][^\n]*\n([ \t]+)\S/.exec(text);
  return match?.[1] ?? '  ';
}

// ── the edges: files, PATH, output ───────────────────────────────────────────────────────────────────

export type InstallAction = 'install' | 'uninstall';

export interface InstallOptions {
  claude?: boolean;
  gemini?: boolean;
  codex?: boolean;
  scope?: InstallScope;
  command?: string;
  dryRun?: boolean;
  /** Claude Code only: http (default) or command. */
  wiring?: Wiring;
}

export interface InstallIo extends InstallContext {
  /** The daemon's loopback port and token (<config>/daemon/http.json), for the http wiring. */
  http?: { port: number; token: string } | undefined;
  /** The hookwise executable that is running, to suggest as `--command` when PATH lacks hookwise. */
  self: string | undefined;
  now(): Date;
}

export interface InstallOutput {
  /** The report (or, with --dry-run, the would-be file contents). */
  stdout: string;
  /** Notes for the user; with --dry-run, also which file each JSON block is for. */
  stderr: string;
}

export function selectedHosts(options: InstallOptions): HostName[] {
  const hosts = HOSTS.filter((h) => options[h] === true);
  if (hosts.length === 0)
    throw new HookwiseError(
      'USAGE',
      'choose the agent to wire up: --claude, --gemini or --codex (several are allowed)',
    );
  return hosts;
}

export function resolveCommand(options: InstallOptions, io: InstallIo): string {
  if (options.command !== undefined) {
    const command = options.command.trim();
    if (!command.includes('hookwise')) {
      throw new HookwiseError(
        'USAGE',
        `--command "${options.command}" must contain "hookwise" (that is how install and uninstall recognise their own entries)`,
      );
    }
    return command;
  }
  if (findOnPath(DEFAULT_COMMAND, io.env) !== undefined) return DEFAULT_COMMAND;
  const pin = io.self === undefined ? '/path/to/hookwise' : shellQuote(io.self);
  throw new HookwiseError(
    'USAGE',
    `"${DEFAULT_COMMAND}" is not on your PATH, so hooks calling it would block every tool call. ` +
      `Install the CLI (${INSTALL_CLI}) and run this again, or pin this copy: --command ${pin}`,
  );
}

interface Planned {
  host: HostName;
  scope: InstallScope;
  wiring: Wiring;
  file: string;
  before: string | undefined;
  merged: MergeResult;
}

export function runInstall(action: InstallAction, options: InstallOptions, io: InstallIo): InstallOutput {
  const command = action === 'install' ? resolveCommand(options, io) : null;
  // Merge every file before writing any: one unmergeable file leaves all of them untouched.
  const plans: Planned[] = selectedHosts(options).flatMap((host) => {
    const scope = options.scope ?? HOST_SPECS[host].defaultScope;
    const wiring = wiringFor(host, options.wiring);
    if (command !== null && wiring === 'http' && io.http === undefined) {
      throw new HookwiseError(
        'USAGE',
        'the http wiring needs the daemon endpoint (hookwise daemon start --http creates it), or choose --wiring command',
      );
    }
    // Uninstall removes ours from the files of every wiring (project scope: settings.json and settings.local.json).
    const wirings: Wiring[] = command === null ? [...WIRINGS] : [wiring];
    const files = [...new Set(wirings.map((w) => HOST_SPECS[host].settingsFile(scope, io, w)))];
    return files.map((file) => {
      const before = readIfExists(file);
      const target = command === null ? null : { command, wiring, http: io.http };
      return { host, scope, wiring, file, before, merged: mergeSettings(file, before, host, target) };
    });
  });
  const out: string[] = [];
  const err: string[] = [];
  for (const plan of plans) {
    const spec = HOST_SPECS[plan.host];
    if (options.dryRun === true) {
      err.push(
        `hookwise: dry run: ${plan.merged.changed ? 'would write' : 'would leave unchanged'} ${plan.file} (${spec.label}, ${plan.scope} scope):`,
      );
      out.push(plan.merged.text.trimEnd());
      continue;
    }
    // A file holding the daemon token is created private.
    const backup = plan.merged.changed
      ? writeSettings(
          plan.file,
          plan.before,
          plan.merged.text,
          io.now(),
          plan.wiring === 'http' ? 0o600 : 0o644,
          backupDir(io),
        )
      : undefined;
    if (action === 'install' && plan.wiring === 'http' && plan.scope === 'project')
      keepOutOfGit(io.projectRoot, plan.file);
    out.push(report(action, plan, backup, command));
    if (action === 'install' && plan.merged.changed)
      err.push(...spec.notes(plan.scope, plan.wiring).map((n) => `note: ${n}`));
  }
  return { stdout: out.join('\n'), stderr: err.join('\n') };
}

function report(action: InstallAction, plan: Planned, backup: string | undefined, command: string | null): string {
  const { label } = HOST_SPECS[plan.host];
  const entries = entriesOf(plan.host, plan.wiring);
  const { file, merged } = plan;
  const backedUp = backup === undefined ? '' : `\n  backup of the previous file: ${backup}`;
  if (action === 'uninstall') {
    if (merged.removed === 0)
      return `hookwise: no hookwise hooks in ${file} (${label}, ${plan.scope} scope); nothing changed`;
    return `hookwise: removed ${merged.removed} hookwise hook${merged.removed === 1 ? '' : 's'} from ${file}${backedUp}`;
  }
  if (!merged.changed) return `hookwise: the ${label} hooks in ${file} are up to date; nothing changed`;
  const lines = [`hookwise: installed the ${label} hooks in ${file} (${plan.scope} scope)`];
  for (const spec of entries) {
    const what =
      spec.http === true
        ? `POST ${hookUrl(0, plan.host).replace(':0/', ':<port>/')}${spec.kind === 'gate' ? ' (blocks when the daemon is down)' : ''}`
        : hookCommand(command ?? DEFAULT_COMMAND, spec.kind, plan.host, plan.wiring);
    lines.push(`  ${spec.event}${spec.matcher === undefined ? '' : ` (${spec.matcher})`}: ${what}`);
  }
  return lines.join('\n') + backedUp;
}

function readIfExists(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new HookwiseError('CONFIG_INVALID', `cannot read ${file}: ${(error as Error).message}`);
  }
}

/**
 * Where the previous settings files go: the user's state directory (XDG_STATE_HOME, else ~/.local/state), never
 * beside the file — `.claude/` is usually committed, and a backup there would be committed with it.
 */
export function backupDir(io: Pick<InstallContext, 'home' | 'env'>): string {
  return join(nonEmpty(io.env.XDG_STATE_HOME) ?? join(io.home, '.local', 'state'), 'hookwise', 'backups');
}

/** Back up the old file (private: it may hold the daemon's token), then replace it atomically. Returns the backup's path. */
function writeSettings(
  file: string,
  before: string | undefined,
  text: string,
  now: Date,
  newMode: number,
  backups: string,
): string | undefined {
  let backup: string | undefined;
  let target = file;
  let mode = newMode;
  if (before !== undefined) {
    // The file's whole path in the name (slashes as %), so backups of different projects' files never collide.
    backup = join(
      ensurePrivateDir(backups),
      `${file.replace(/^\/+/, '').replaceAll('/', '%')}.hookwise-backup-${now.toISOString().replace(/[-:.]/g, '')}`,
    );
    copyFileSync(file, backup, constants.COPYFILE_EXCL);
    chmodSync(backup, 0o600);
    // A symlinked settings file (dotfile managers) stays a symlink: write through to its target.
    target = realpathSync(file);
    mode = statSync(target).mode & 0o777;
  } else {
    mkdirSync(dirname(file), { recursive: true });
  }
  writeFileAtomic(target, text, { mode, durable: true });
  return backup;
}

/** A personal settings file in a git project: listed in .git/info/exclude unless it is there already. */
function keepOutOfGit(projectRoot: string, file: string): void {
  const gitDir = join(projectRoot, '.git');
  if (!existsSync(gitDir) || !statSync(gitDir).isDirectory() || !file.startsWith(`${projectRoot}/`)) return;
  const entry = `/${file.slice(projectRoot.length + 1)}`;
  const exclude = join(gitDir, 'info', 'exclude');
  const current = readIfExists(exclude) ?? '';
  if (current.split('\n').includes(entry)) return;
  mkdirSync(dirname(exclude), { recursive: true });
  writeFileAtomic(exclude, `${current}${current === '' || current.endsWith('\n') ? '' : '\n'}${entry}\n`, {
    mode: 0o644,
  });
}

export function findOnPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not here (or not executable): keep looking
    }
  }
  return undefined;
}

export function shellQuote(value: string): string {
  return /^[A-Za-z0-9_/.,:@%+=-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/** The real process's edges: cwd's project root, HOME, the running hookwise executable. */
export function defaultInstallIo(env: NodeJS.ProcessEnv = process.env): InstallIo {
  const { home } = locations(env);
  const argv1 = process.argv[1];
  // As invoked (an npm bin link survives upgrades), not its realpath into a versioned package directory.
  const self = argv1 !== undefined && existsSync(argv1) ? resolve(argv1) : undefined;
  return { projectRoot: findProjectRoot(process.cwd()), home, env, self, now: () => new Date() };
}
