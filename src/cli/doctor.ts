/**
 * `hookwise doctor`: checks the wiring a user actually has and says what to fix — the CLI on PATH, each
 * agent's settings files (which events are wired, how, and whether twice: plugin and settings, or two
 * settings files), the http wiring's endpoint against the daemon's, the daemon's health, the project's config
 * (validate's checks: an error there denies every call), and whether calls hookwise cannot judge can run
 * confined here (src/confine/probe.ts) or fall back to ask.
 */
import type { HostName } from '../core/tool-call.js';
import { health } from '../daemon/control.js';
import { storeCheck } from './store.js';
import { readHttpConfig, type HttpConfig } from '../daemon/http-config.js';
import { probeConfinement, which, type ProbeReport } from '../confine/probe.js';
import type { DaemonStats } from '../daemon/server.js';
import { loadConfig } from '../policy/config.js';
import type { SupervisorSettings } from '../policy/config-types.js';
import { configFiles } from '../policy/files.js';
import { VERSION } from '../policy/load.js';
import { formatDiagnostic } from '../policy/schema.js';
import type { Locations } from '../util/locations.js';
import { validateProject, type ValidateReport } from './validate.js';
import { confinementStatus } from './confine-status.js';
import { CatalogDamaged, verifyCatalog, type Catalog } from '../catalog/table.js';
import { DEFAULT_COMMAND, entriesOf, findOnPath, INSTALL_CLI, HOST_SPECS, type InstallContext } from './install.js';
import { gateEvent, httpGates, scanWiring, type Wired } from './wired.js';

export const CHECK_STATUSES = ['ok', 'warn', 'fail'] as const;
export type CheckStatus = (typeof CHECK_STATUSES)[number];

export interface DoctorCheck {
  status: CheckStatus;
  what: string;
  detail: string;
  /** What to do about it (warn and fail). */
  fix?: string;
}

export interface DoctorReport {
  version: string;
  checks: DoctorCheck[];
}

export async function doctor(where: Locations, ctx: InstallContext): Promise<DoctorReport> {
  const checks: DoctorCheck[] = [];
  const onPath = findOnPath(DEFAULT_COMMAND, ctx.env);
  checks.push(
    onPath === undefined
      ? {
          status: 'warn',
          what: 'CLI on PATH',
          detail: '"hookwise" is not on PATH',
          fix: `install it ${INSTALL_CLI}; hooks that run "hookwise" block every tool call without it`,
        }
      : { status: 'ok', what: 'CLI on PATH', detail: onPath },
  );

  const scan = scanWiring(ctx);
  for (const { file, problem } of scan.unreadable)
    checks.push({
      status: 'fail',
      what: 'settings file',
      detail: `${file}: ${problem}`,
      fix: 'fix the JSON: the host ignores a settings file it cannot read, hooks included',
    });
  const { wired, plugin: pluginOn } = scan;
  let http: HttpConfig | undefined;
  try {
    http = readHttpConfig(where);
  } catch (error) {
    checks.push({ status: 'fail', what: 'daemon endpoint', detail: (error as Error).message });
  }
  const daemon = await health(where);

  for (const host of ['claude', 'gemini', 'codex'] as const) {
    const files = wired.filter((w) => w.host === host);
    const label = HOST_SPECS[host].label;
    const gates = files.filter((w) => (w.events.get(gateEvent(host)) ?? []).length > 0);
    if (host === 'claude' && pluginOn !== undefined) {
      if (gates.length > 0) {
        checks.push({
          status: 'fail',
          what: `${label} wiring`,
          detail: `the plugin is enabled (${pluginOn}) and ${gates.map((g) => g.file).join(', ')} also wires hookwise: every tool call is checked twice`,
          fix: `use one: hookwise uninstall --claude, or disable the plugin`,
        });
      } else checks.push({ status: 'ok', what: `${label} wiring`, detail: `the hookwise plugin (${pluginOn})` });
      continue;
    }
    if (files.length === 0) {
      checks.push({
        status: host === 'claude' ? 'warn' : 'ok',
        what: `${label} wiring`,
        detail: 'not wired',
        ...(host === 'claude' ? { fix: 'hookwise install --claude (or the plugin)' } : {}),
      });
      continue;
    }
    if (gates.length > 1) {
      checks.push({
        status: 'fail',
        what: `${label} wiring`,
        detail: `wired in ${gates.length} files (${gates.map((g) => g.file).join(', ')}): every tool call is checked twice`,
        fix: `keep one: hookwise uninstall --${host} --scope <scope>`,
      });
    }
    for (const w of files) checks.push(...eventChecks(w, http, daemon === undefined ? undefined : daemon.http));
  }

  if (daemon === undefined) {
    const needed = httpGates(scan).length > 0;
    checks.push({
      status: needed ? 'fail' : 'warn',
      what: 'daemon',
      detail: needed
        ? 'not running, and the http wiring needs it: tool calls are blocked until it runs'
        : 'not running: every tool call starts a process (slower, same verdicts)',
      fix: needed
        ? 'hookwise daemon start --http (the session hooks start it at the next session or prompt)'
        : 'hookwise daemon start (a hook call also starts it)',
    });
  } else {
    checks.push(
      daemon.version === VERSION
        ? {
            status: 'ok',
            what: 'daemon',
            detail: `running, pid ${daemon.pid}, up ${daemon.uptime_s} s, ${daemon.decisions} decisions, p99 ${daemon.p99_ms ?? '-'} ms`,
          }
        : {
            status: 'warn',
            what: 'daemon',
            detail: `running hookwise ${daemon.version}, but this CLI is ${VERSION}`,
            fix: 'hookwise daemon stop && hookwise daemon start (or let it idle out)',
          },
    );
  }
  checks.push(configCheck(validateProject(ctx.projectRoot, ctx.env)));
  checks.push(catalogueCheck());
  const probe = probeConfinement({ env: ctx.env, runtimeDir: where.runtimeDir });
  const probed = confinementCheck(probe);
  // Whether it is on (by default, or set by a file) and why, before what the probe found.
  const status = await confinementStatus(ctx.projectRoot, where);
  checks.push({ ...probed, detail: `${status.summary}; ${probed.detail}` });
  checks.push(await storeCheck(where));
  const { confine, supervisor, human } = loadConfig(
    ctx.projectRoot,
    configFiles(ctx.projectRoot, where.userConfigDir),
  ).config;
  if (human.channel === 'queue') checks.push(humanQueueCheck(human, wired));
  if (confine.mode !== 'off')
    checks.push(
      networkCheck({
        allow: confine.network.allow.map((e) => e.text),
        source: confine.network.source,
        socat: which('socat', ctx.env),
        daemon,
        confinable: probe.available,
      }),
    );
  const supervised = supervisorCheck(supervisor, ctx.env, daemon !== undefined);
  if (supervised !== undefined) checks.push(supervised);
  return { version: VERSION, checks };
}

const SHOWN_DIAGNOSTICS = 3;

/**
 * `hookwise validate`'s verdict on this project's config: while it has an error, every gated call is denied
 * (error:CONFIG_INVALID), so that is a failure here, not a footnote.
 */
/** The compiled catalogue (dist/catalog/), every text read and checked: a damaged one allows nothing on knowledge. */
export function catalogueCheck(catalog?: Catalog): DoctorCheck {
  try {
    const programs = verifyCatalog(catalog);
    return { status: 'ok', what: 'catalogue', detail: `${programs} program names, every entry intact` };
  } catch (error) {
    if (!(error instanceof CatalogDamaged)) throw error;
    return {
      status: 'fail',
      what: 'catalogue',
      detail: error.message,
      fix: 'reinstall hookwise (in a clone: npm run build); until then no command is allowed on what the catalogue knows, so more calls ask',
    };
  }
}

export function configCheck(report: ValidateReport): DoctorCheck {
  const what = 'config';
  const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
  const shown = report.diagnostics
    .filter((d) => report.errors === 0 || d.severity === 'error')
    .slice(0, SHOWN_DIAGNOSTICS)
    .map(formatDiagnostic);
  const more = (n: number): string => (n > shown.length ? `; … ${n - shown.length} more` : '');
  if (report.errors > 0)
    return {
      status: 'fail',
      what,
      detail: `${plural(report.errors, 'error')}: every gated tool call is denied until they are fixed: ${shown.join('; ')}${more(report.errors)}`,
      fix: 'fix them (hookwise validate lists each with file:line), then run hookwise validate again',
    };
  if (report.warnings > 0)
    return {
      status: 'warn',
      what,
      detail: `${plural(report.warnings, 'warning')}: ${shown.join('; ')}${more(report.warnings)}`,
      fix: 'hookwise validate lists each with file:line and what to do',
    };
  return { status: 'ok', what, detail: `valid (${report.files.policy}, ${report.files.roles}, ${report.files.user})` };
}

/**
 * Tier 3 (docs/supervisor.md), when on: whether the API backend can find credentials the SDK's standard way
 * (named, never shown); for the agent backend, that the lead session answers through hookwise's MCP tools. Calls
 * it cannot review go to a human.
 */
export function supervisorCheck(
  s: SupervisorSettings,
  env: NodeJS.ProcessEnv,
  daemonRunning: boolean,
): DoctorCheck | undefined {
  const what = 'supervisor';
  switch (s.backend) {
    case 'off':
      return undefined;
    case 'agent':
      // Nothing to probe: whether a lead session listens shows only when a call waits (its timeout then sends it to a human).
      return {
        status: 'ok',
        what,
        detail: `agent, confidence ${s.confidence}, timeout ${s.timeoutMs / 1000} s (${s.source}): calls wait in the queue for the lead session (a conductor) to answer through hookwise's MCP tool answer_request (the plugin's supervisor agent); unanswered, a human decides`,
      };
    case 'api': {
      const via = ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'ANTHROPIC_PROFILE'].filter(
        (name) => (env[name] ?? '') !== '',
      );
      const where = daemonRunning ? 'this shell (the daemon reviews with its own environment)' : 'this shell';
      const base = (env.ANTHROPIC_BASE_URL ?? '') === '' ? '' : `, ANTHROPIC_BASE_URL set`;
      const head = `api, model ${s.model}, confidence ${s.confidence}, timeout ${s.timeoutMs / 1000} s (${s.source})`;
      return via.length > 0
        ? { status: 'ok', what, detail: `${head}; credentials from ${via.join(', ')} in ${where}${base}` }
        : {
            status: 'warn',
            what,
            detail: `${head}; no ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN or ANTHROPIC_PROFILE in ${where}: the SDK looks for a profile on disk, and without one every review fails and goes to a human`,
            fix: 'export ANTHROPIC_API_KEY in the environment your agents (or the daemon) start from',
          };
    }
  }
}

/**
 * The network of confined commands: which hosts the allowlist names (and where it is set), and whether the
 * daemon's filtering proxy can serve them here (a running daemon that hosts proxies, socat for the relay).
 */
export function networkCheck(input: {
  allow: readonly string[];
  source: string;
  socat: string | undefined;
  daemon: DaemonStats | undefined;
  confinable: boolean;
}): DoctorCheck {
  const what = 'confined network';
  if (input.allow.length === 0)
    return {
      status: 'ok',
      what,
      detail:
        'none: confined commands have no network (confine.network.allow is empty); commands that need it are asked',
    };
  const listed = `allowlist ${input.allow.join(', ')} (${input.source})`;
  const asked = 'until then, confined commands that need the network are asked and the rest run with none';
  if (!input.confinable)
    return {
      status: 'warn',
      what,
      detail: `${listed}; not usable: this machine cannot confine`,
      fix: 'see the confinement line above',
    };
  if (input.socat === undefined)
    return {
      status: 'warn',
      what,
      detail: `${listed}; the proxy relay needs socat, which is not installed; ${asked}`,
      fix: 'apt-get install socat (dnf install socat; pacman -S socat)',
    };
  if (input.daemon === undefined)
    return {
      status: 'warn',
      what,
      detail: `${listed}; the filtering proxy runs in the daemon, which is not running; ${asked}`,
      fix: 'hookwise daemon start',
    };
  if (input.daemon.netproxy === undefined)
    return {
      status: 'warn',
      what,
      detail: `${listed}; the running daemon (hookwise ${input.daemon.version}) hosts no filtering proxy; ${asked}`,
      fix: 'hookwise daemon stop && hookwise daemon start',
    };
  return {
    status: 'ok',
    what,
    detail: `${listed}: served over HTTP(S) by the daemon's filtering proxy (${input.daemon.netproxy.allowlists} allowlist${input.daemon.netproxy.allowlists === 1 ? '' : 's'} in use), relay ${input.socat}`,
  };
}

/** The hosts' own gate timeouts when a handler names none (seconds): hook-protocols.md. */
const DEFAULT_GATE_TIMEOUT_S: Record<HostName, number> = { claude: 600, gemini: 60, codex: 600 };

/**
 * With the human queue on, a call may wait up to human.timeout: every gate handler's own timeout must be longer,
 * or the host stops the hook first (a command hook then fails open; an http hook blocks, and the answer is lost).
 */
export function humanQueueCheck(
  human: { timeoutMs: number; source: string },
  wired: readonly { file: string; host: HostName; events: Map<string, Record<string, unknown>[]> }[],
): DoctorCheck {
  const what = 'human queue';
  const waitS = human.timeoutMs / 1000;
  const short: string[] = [];
  for (const w of wired) {
    for (const h of w.events.get(gateEvent(w.host)) ?? []) {
      const raw = typeof h.timeout === 'number' ? h.timeout : undefined;
      const seconds = raw === undefined ? DEFAULT_GATE_TIMEOUT_S[w.host] : w.host === 'gemini' ? raw / 1000 : raw;
      if (seconds <= waitS) short.push(`${w.file} (${seconds}s${raw === undefined ? ', the host default' : ''})`);
    }
  }
  const on = `on: asks wait up to ${waitS}s for hookwise approve / deny (${human.source})`;
  if (short.length === 0) return { status: 'ok', what, detail: on };
  return {
    status: 'warn',
    what,
    detail: `${on}, but the host stops the gate sooner in ${short.join(', ')}: a call still waiting is cut off (a command hook then falls back to the host's own rules)`,
    fix: 'hookwise install again (it writes a 10-minute gate timeout), or a shorter human.timeout',
  };
}

/** Whether calls hookwise cannot judge can run confined here, or are asked (fail closed). */
export function confinementCheck(probe: ProbeReport): DoctorCheck {
  if (!probe.available) {
    return {
      status: 'warn',
      what: 'confinement',
      detail: `not available: ${probe.reason}${probe.detail === undefined ? '' : ` (${probe.detail})`}; calls hookwise cannot judge fall back to ask`,
      fix: probe.fix,
    };
  }
  const r = probe.runtime;
  const detail = `confined allows are available: ${probe.bwrapVersion} at ${r.bwrap}, ${r.userns ? 'own user namespace' : 'no user namespace (root, capabilities dropped)'}, seccomp, no network; probe ${Math.round(probe.ms)} ms`;
  if (probe.warnings.length > 0)
    return {
      status: 'warn',
      what: 'confinement',
      detail: `${detail}; ${probe.warnings.join('; ')}`,
      fix: 'install util-linux (flock) and findutils (find)',
    };
  return { status: 'ok', what: 'confinement', detail };
}

function eventChecks(
  w: Wired,
  http: HttpConfig | undefined,
  daemonHttp: { port: number } | null | undefined,
): DoctorCheck[] {
  const label = HOST_SPECS[w.host].label;
  const checks: DoctorCheck[] = [];
  // The events of the wiring this file has (the http wiring has no PostToolUse, and Stop and SessionEnd).
  const wiring = [...w.events.values()].some((handlers) => handlers.some((h) => h.type === 'http'))
    ? 'http'
    : 'command';
  const expected = entriesOf(w.host, wiring).map((e) => e.event);
  const missing = expected.filter((e) => !w.events.has(e));
  checks.push(
    missing.length === 0
      ? { status: 'ok', what: `${label} hooks`, detail: `${w.file}: ${expected.join(', ')}` }
      : {
          status: missing.includes(gateEvent(w.host)) ? 'fail' : 'warn',
          what: `${label} hooks`,
          detail: `${w.file} lacks ${missing.join(', ')}${missing.includes(gateEvent(w.host)) ? ': tool calls are not gated' : ''}`,
          fix: `hookwise install --${w.host} again`,
        },
  );
  for (const [event, handlers] of w.events) {
    if (handlers.length > 1)
      checks.push({
        status: 'warn',
        what: `${label} hooks`,
        detail: `${w.file}: ${handlers.length} hookwise handlers on ${event}`,
        fix: `hookwise install --${w.host} again (it keeps one)`,
      });
  }
  for (const handler of w.events.get('PreToolUse') ?? []) {
    if (handler.type !== 'http') continue;
    const port = Number(/:(\d+)\//.exec(String(handler.url))?.[1]);
    if (handler.onFailure !== 'block')
      checks.push({
        status: 'fail',
        what: `${label} http gate`,
        detail: `${w.file}: no "onFailure": "block": a dead daemon lets every tool call through`,
        fix: 'hookwise install --claude again',
      });
    if (http === undefined)
      checks.push({
        status: 'fail',
        what: `${label} http gate`,
        detail: `${w.file} posts to port ${port}, but there is no daemon endpoint config`,
        fix: 'hookwise daemon start --http, then hookwise install --claude again',
      });
    else if (http.port !== port)
      checks.push({
        status: 'fail',
        what: `${label} http gate`,
        detail: `${w.file} posts to port ${port}; the daemon's endpoint is port ${http.port}`,
        fix: 'hookwise install --claude again',
      });
    else if (!JSON.stringify(handler.headers ?? {}).includes(http.token))
      checks.push({
        status: 'fail',
        what: `${label} http gate`,
        detail: `${w.file} sends another token than the daemon expects: every tool call is refused`,
        fix: 'hookwise install --claude again',
      });
    else if (daemonHttp === null)
      checks.push({
        status: 'fail',
        what: `${label} http gate`,
        detail: 'the daemon runs without its http endpoint: tool calls are blocked',
        fix: 'hookwise daemon start --http',
      });
    else
      checks.push({
        status: 'ok',
        what: `${label} http gate`,
        detail: `${String(handler.url)} (blocks when the daemon is down)`,
      });
  }
  return checks;
}

export function renderDoctor(report: DoctorReport): string {
  const mark: Record<CheckStatus, string> = { ok: 'ok  ', warn: 'WARN', fail: 'FAIL' };
  const lines = [`hookwise ${report.version} doctor`];
  for (const c of report.checks) {
    lines.push(`  ${mark[c.status]} ${c.what}: ${c.detail}`);
    if (c.fix !== undefined) lines.push(`       fix: ${c.fix}`);
  }
  const fails = report.checks.filter((c) => c.status === 'fail').length;
  const warns = report.checks.filter((c) => c.status === 'warn').length;
  lines.push(
    fails + warns === 0
      ? 'all good'
      : `${fails} problem${fails === 1 ? '' : 's'}, ${warns} warning${warns === 1 ? '' : 's'}`,
  );
  return lines.join('\n');
}
