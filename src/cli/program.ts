/** The full CLI (everything but the hook hot path). Command actions import their modules lazily. */
import { Command, Option } from 'commander';
import { shownError } from '../sanitize/shown.js';
import { VERSION } from '../policy/load.js';
import type {
  CompactOptions,
  InvalidateOptions,
  ListOptions,
  NeighbourFinder,
  OverrideOptions,
  ShowOptions,
} from './rules.js';

function print(text: string): void {
  if (text !== '') process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

export async function runProgram(argv: string[]): Promise<number> {
  // `hookwise rules list | head`: a reader that stops early is not an error (and no stack trace).
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
  const program = new Command('hookwise')
    .description('Permission gate for AI coding agents: allow / deny / ask for every tool call')
    .version(VERSION)
    .showHelpAfterError()
    .exitOverride();

  program
    .command('check')
    .description('hook entry point: read one hook payload (JSON) on stdin, print the decision for the host')
    .addOption(
      new Option('--host <host>', 'host format (detected from the payload when omitted)').choices([
        'claude',
        'gemini',
        'codex',
      ]),
    );
  program
    .command('session-check')
    .description('UserPromptSubmit / BeforeAgent / SessionStart hook: asks an unregistered session to register')
    .addOption(new Option('--host <host>', 'host format').choices(['claude', 'gemini', 'codex']));

  program
    .command('register')
    .description('register a session with a role')
    .requiredOption('--session-id <id>', 'the host session id')
    .requiredOption('--role <role>', 'role name (hookwise roles lists them)')
    .option('--task <text>', 'what this session is working on')
    .option('--prompt-file <path>', 'file holding the task prompt')
    .option('--team <name>', 'team (swarm) this session belongs to')
    .action(async (o: { sessionId: string; role: string; task?: string; promptFile?: string; team?: string }) => {
      const { register } = await import('./session.js');
      print(await register(o));
    });
  program
    .command('switch')
    .description("change a session's role")
    .requiredOption('--session-id <id>', 'the host session id')
    .requiredOption('--role <role>', 'new role (hookwise roles lists them)')
    .action(async (o: { sessionId: string; role: string }) => {
      const { switchRole } = await import('./session.js');
      print(await switchRole(o.sessionId, o.role));
    });
  for (const [name, disabled] of [
    ['disable', true],
    ['enable', false],
  ] as const) {
    program
      .command(name)
      .description(
        disabled
          ? 'turn gating off for a session (its calls are allowed unchecked)'
          : 'turn gating back on for a session',
      )
      .requiredOption('--session-id <id>', 'the host session id')
      .action(async (o: { sessionId: string }) => {
        const { setDisabled } = await import('./session.js');
        print(setDisabled(o.sessionId, disabled));
      });
  }
  program
    .command('safemode')
    .description("a session's safemode (policy module): on blocks every edit and write until off; status shows it")
    .argument('<action>', 'on, off or status')
    .requiredOption('--session-id <id>', 'the host session id')
    .action(async (action: string, o: { sessionId: string }) => {
      const { safemodeCommand } = await import('./modules.js');
      print(safemodeCommand(action, o.sessionId));
    });
  program
    .command('breaker')
    .description("a session's circuit breaker (policy module): reset it after it tripped, or show its status")
    .argument('<action>', 'reset or status')
    .requiredOption('--session-id <id>', 'the host session id')
    .action(async (action: string, o: { sessionId: string }) => {
      const { breakerCommand } = await import('./modules.js');
      print(breakerCommand(action, o.sessionId));
    });
  program
    .command('roles')
    .description(
      'list the roles a session may register as here (built-in and the project’s) and the paths each may write',
    )
    .option('--json', 'machine-readable output')
    .action(async (o: { json?: boolean }) => {
      const { listRoles } = await import('./session.js');
      print(await listRoles(o.json === true));
    });
  program
    .command('status')
    .description('show registered sessions (or one session and its path policy)')
    .option('--session-id <id>', 'one session')
    .option('--json', 'machine-readable output')
    .action(async (o: { sessionId?: string; json?: boolean }) => {
      const { status } = await import('./session.js');
      print(await status(o.sessionId, o.json === true));
    });

  program
    .command('init')
    .description('create .hookwise/ with commented defaults in the current project')
    .option('--force', 'overwrite existing policy.yml / roles.yml')
    .option('--pre-commit', 'also install a git pre-commit hook that runs `hookwise scan --staged .hookwise/`')
    .action(async (o: { force?: boolean; preCommit?: boolean }) => {
      const { init } = await import('./init.js');
      print(init(process.cwd(), o.force === true));
      const { findProjectRoot } = await import('../paths/canonical.js');
      print(await confinementLine(findProjectRoot(process.cwd())));
      if (o.preCommit === true) {
        const { installPreCommitHook } = await import('./precommit.js');
        const { findProjectRoot } = await import('../paths/canonical.js');
        print(installPreCommitHook(findProjectRoot(process.cwd())));
      }
    });

  const filters = (c: Command): Command =>
    c
      .option('--session <id>', 'only this session')
      .option('--role <role>', 'only this role')
      .addOption(new Option('--verdict <verdict>', 'only this verdict').choices(['allow', 'ask', 'deny']))
      .option('--tier <tier>', 'only this tier')
      .option('--project <dir>', 'only calls judged in this project (default: the project of the current directory)')
      .option('--all-projects', 'calls of every project (one audit log per user holds them all)');
  filters(program.command('stats').description('decisions by tier, verdict and role; ask frequency; latency'))
    .option('--json', 'machine-readable output')
    .option(
      '--fleet',
      "the team's decisions from its store, per machine, verdict and tool (every project unless --project)",
    )
    .action(
      async (o: {
        session?: string;
        role?: string;
        verdict?: string;
        tier?: string;
        project?: string;
        allProjects?: boolean;
        json?: boolean;
        fleet?: boolean;
      }) => {
        const { projectFilter, stats } = await import('./monitor.js');
        if (o.fleet === true) {
          const { fleetStats } = await import('./fleet.js');
          print(await fleetStats({ ...o, project: fleetProject(o, projectFilter) }, o.json === true));
          return;
        }
        print(stats({ ...o, project: projectFilter(o) }, o.json === true));
      },
    );
  filters(program.command('monitor').description('follow decisions live'))
    .option('--json', 'print raw audit records')
    .option('-n, --lines <n>', 'show the last n decisions first', (v) => Number.parseInt(v, 10), 10)
    .option('--no-follow', 'print and exit')
    .option('--fleet', "every machine's decisions from the team's store (every project unless --project)")
    .action(
      async (o: {
        session?: string;
        role?: string;
        verdict?: string;
        tier?: string;
        project?: string;
        allProjects?: boolean;
        json?: boolean;
        lines: number;
        follow: boolean;
        fleet?: boolean;
      }) => {
        const { monitor, projectFilter } = await import('./monitor.js');
        if (o.fleet === true) {
          const { fleetMonitor } = await import('./fleet.js');
          await fleetMonitor({ ...o, project: fleetProject(o, projectFilter) }, (line) => print(line));
          return;
        }
        await monitor({ ...o, project: projectFilter(o) }, (line) => print(line));
      },
    );

  program
    .command('demo')
    .description('replay a bundled sample session through the real check path and show each decision')
    .option('--keep', 'keep the throw-away project afterwards')
    .action(async (o: { keep?: boolean }) => {
      const { demo } = await import('./demo.js');
      process.exitCode = demo((line) => print(line), { keep: o.keep === true });
    });

  program
    .command('explain')
    .description('show how a call is decided: paths, each tier of the cascade, the verdict')
    .argument('[command]', 'a shell command, explained as a Bash call')
    .option('--tool <name>', 'explain a tool call instead (Write, Edit, Read, WebFetch, mcp__…)')
    .option('--file <path>', "the tool's file path")
    .option('--input <json>', "the tool's input as JSON")
    .option('--role <role>', 'role to judge as (default: HOOKWISE_ROLE, else maintainer)')
    .option('--session-id <id>', "judge with this session's module state (safemode, circuit breaker)")
    .option('--json', 'machine-readable output')
    .action(
      async (
        command: string | undefined,
        o: { tool?: string; file?: string; input?: string; role?: string; json?: boolean; sessionId?: string },
      ) => {
        const { explain, renderExplanation } = await import('./explain.js');
        const envRole = process.env.HOOKWISE_ROLE;
        const [role, roleFrom] =
          o.role !== undefined
            ? [o.role, 'option' as const]
            : envRole !== undefined && envRole !== ''
              ? [envRole, 'HOOKWISE_ROLE' as const]
              : ['maintainer', 'default' as const];
        const e = await explain({
          ...o,
          role,
          roleFrom,
          ...(command === undefined ? {} : { command }),
          cwd: process.cwd(),
        });
        print(o.json === true ? JSON.stringify(e, null, 2) : renderExplanation(e));
      },
    );

  // ── more commands: each registers itself below this line ──
  program
    .command('serve')
    .description(
      'run the daemon in the foreground (for systemd, launchd and tests): one warm engine for every session, on a Unix socket in the runtime directory',
    )
    .option(
      '--http [port]',
      'also serve Claude Code http hooks on 127.0.0.1 (port and token kept in <config>/daemon/http.json)',
    )
    .option('--idle-exit <seconds>', 'exit after this long without a request (0: never)', '0')
    .addOption(new Option('--start-lock <path>').hideHelp())
    .action(async (o: { http?: string | boolean; idleExit?: string; startLock?: string }) => {
      const { serveCommand } = await import('./daemon.js');
      await serveCommand(o);
    });
  program
    .command('doctor')
    .description(
      "check the wiring you actually have: CLI on PATH, each agent's hooks (events, double wiring), the http endpoint, the daemon, the config (validate's checks) (exit 1 on a problem)",
    )
    .option('--json', 'machine-readable output')
    .action(async (o: { json?: boolean }) => {
      const { doctor, renderDoctor } = await import('./doctor.js');
      const { defaultInstallIo } = await import('./install.js');
      const { locations } = await import('../util/locations.js');
      const report = await doctor(locations(), defaultInstallIo());
      print(o.json === true ? JSON.stringify(report, null, 2) : renderDoctor(report));
      process.exitCode = report.checks.some((c) => c.status === 'fail') ? 1 : 0;
    });
  const store = program
    .command('store')
    .description("where shared state lives: this machine's files, or a team's PostgreSQL (docs/team.md)");
  store
    .command('migrate')
    .description("apply the schema migrations this hookwise needs to the team's store (all or none)")
    .action(async () => {
      const { storeMigrate } = await import('./store.js');
      const { locations } = await import('../util/locations.js');
      const r = await storeMigrate(locations());
      print(r.stdout);
      process.exitCode = r.exitCode;
    });
  store
    .command('push-audit')
    .description(
      "send this machine's audit history from a date on to the team's store (the daemon sends what is logged after sharing was turned on)",
    )
    .requiredOption('--since <date>', 'the first day or time to send (2026-11-01, 2026-11-01T09:00Z)')
    .action(async (o: { since: string }) => {
      const { storePushAudit } = await import('./store.js');
      const { locations } = await import('../util/locations.js');
      const r = await storePushAudit(locations(), o.since);
      print(r.stdout);
      process.exitCode = r.exitCode;
    });
  store
    .command('status')
    .description("which store, its schema version, and the daemon's mode (synced, or offline on its last copy)")
    .option('--json', 'machine-readable output')
    .action(async (o: { json?: boolean }) => {
      const { renderStoreReport, storeReport } = await import('./store.js');
      const { locations } = await import('../util/locations.js');
      const r = await storeReport(locations());
      print(o.json === true ? JSON.stringify(r, null, 2) : renderStoreReport(r));
    });
  const daemon = program.command('daemon').description('the per-user daemon: start, stop, status');
  daemon
    .command('start')
    .description(
      'start the daemon in the background unless it runs (and wait until it answers); with an http endpoint config (install --claude makes one) it serves that endpoint too',
    )
    .option(
      '--http',
      'serve Claude Code http hooks on 127.0.0.1, making the endpoint config if there is none (restarts a running daemon without it)',
    )
    .option('--quiet', 'print nothing on success (for hooks)')
    .option('--json', 'machine-readable status')
    .action(async (o: { http?: boolean; quiet?: boolean; json?: boolean }) => {
      const { daemonStart } = await import('./daemon.js');
      const r = await daemonStart(o);
      print(r.stdout);
      process.exitCode = r.exitCode;
    });
  daemon
    .command('stop')
    .description(
      'stop the daemon (it finishes the calls in flight); command hooks then decide in process, the http gate blocks until it runs again',
    )
    .action(async () => {
      const { daemonStop } = await import('./daemon.js');
      const r = await daemonStop();
      print(r.stdout);
      process.exitCode = r.exitCode;
    });
  daemon
    .command('status')
    .description(
      'is it running; pid, socket, http, version, uptime, decisions served, p50/p99 latency, memory (exit 3 when not running)',
    )
    .option('--json', 'machine-readable output')
    .action(async (o: { json?: boolean }) => {
      const { daemonStatus } = await import('./daemon.js');
      const r = await daemonStatus(o.json === true);
      print(r.stdout);
      process.exitCode = r.exitCode;
    });
  program
    .command('undo')
    .description(
      "restore the project's files as they were just before the most recent confined command (from its snapshot under refs/hookwise/undo; the index and HEAD are not touched)",
    )
    .option('--dry-run', 'say what would be restored; change nothing')
    .option(
      '--remove-created',
      'also delete the files that did not exist before that command (default: list them and leave them)',
    )
    .option('--json', 'machine-readable output')
    .action(async (o: { dryRun?: boolean; removeCreated?: boolean; json?: boolean }) => {
      const { undoCommand } = await import('./undo.js');
      const r = undoCommand(o);
      print(r.stdout);
      if (r.stderr !== '') process.stderr.write(r.stderr);
      process.exitCode = r.exitCode;
    });
  registerMemoryCommands(program);
  program
    .command('build')
    .description(
      'compile decision memory (org, user and project scopes) into .hookwise/.index/memory.idx and build their embedding indexes now (otherwise the next calls do)',
    )
    .option('--json', 'machine-readable output')
    .action(async (o: { json?: boolean }) => {
      const { buildIndexes } = await import('./build-index.js');
      const r = await buildIndexes(
        o,
        process.stderr.isTTY === true ? { progress: (text) => process.stderr.write(text) } : {},
      );
      if (r.stderr !== '') process.stderr.write(r.stderr);
      print(r.stdout);
      process.exitCode = r.exitCode;
    });
  for (const action of ['install', 'uninstall'] as const) {
    const command = program
      .command(action)
      .description(
        action === 'install'
          ? "merge hookwise's hooks into an agent's settings file (everything else is kept; the old file is backed up)"
          : "remove hookwise's hooks from an agent's settings file (everything else is kept; the old file is backed up)",
      )
      .option(
        '--claude',
        action === 'install'
          ? 'Claude Code: .claude/settings.local.json (default scope: project; the http wiring, the default), .claude/settings.json (--wiring command), or ~/.claude/settings.json'
          : 'Claude Code: .claude/settings.local.json and .claude/settings.json (default scope: project), or ~/.claude/settings.json',
      )
      .option('--gemini', 'Gemini CLI: ~/.gemini/settings.json (default scope: user), or .gemini/settings.json')
      .option('--codex', 'Codex: .codex/hooks.json (default scope: project), or ~/.codex/hooks.json')
      .addOption(
        new Option('--scope <scope>', 'project (this repository) or user (your home directory)').choices([
          'project',
          'user',
        ]),
      )
      .option('--dry-run', 'print the resulting settings file instead of writing it');
    if (action === 'install') {
      command.option('--command <cmd>', 'what the hooks run instead of "hookwise" from PATH, e.g. an absolute path');
      command.addOption(
        new Option(
          '--wiring <wiring>',
          'Claude Code: http (default: tool calls POST to your daemon, no process per call; the token goes in a personal settings file) or command (hookwise check per call)',
        ).choices(['http', 'command']),
      );
    }
    command.action(
      async (o: {
        claude?: boolean;
        gemini?: boolean;
        codex?: boolean;
        scope?: 'project' | 'user';
        dryRun?: boolean;
        command?: string;
        wiring?: 'http' | 'command';
      }) => {
        const { defaultInstallIo, runInstall, wiringFor } = await import('./install.js');
        const io = defaultInstallIo();
        if (action === 'install' && o.claude === true && wiringFor('claude', o.wiring) === 'http') {
          const { ensureHttpConfig, readHttpConfig } = await import('../daemon/http-config.js');
          const { locations } = await import('../util/locations.js');
          // A dry run writes nothing, not even the token; a placeholder shows where it would go.
          io.http =
            o.dryRun === true
              ? (readHttpConfig(locations()) ?? { port: 0, token: '<token made on install>' })
              : await ensureHttpConfig(locations());
        }
        const result = runInstall(action, o, io);
        print(result.stdout);
        if (result.stderr !== '') process.stderr.write(`${result.stderr}\n`);
        if (action === 'install' && o.dryRun !== true && io.http !== undefined) {
          const { daemonForHttpGate } = await import('./daemon.js');
          process.stderr.write(`${await daemonForHttpGate(io.http)}\n`);
        }
        if (action === 'install' && o.dryRun !== true) print(await confinementLine(io.projectRoot));
      },
    );
  }
  program
    .command('bench')
    .description(
      'measure the hot path against its targets (bench/targets.ts): in-process tiers and check start-up; about a minute (--full: every row, several minutes)',
    )
    .option('--json', 'machine-readable output')
    .option(
      '--ci',
      'the standard run as a gate: exit 1 when a target is missed by more than 3× (shared CI machines are noisy), or a % row (a rate on a fixed corpus) misses at all',
    )
    .option('--quick', 'fewer iterations: a smoke test, rough numbers')
    .option(
      '--fleet',
      "instead: four machines on a throwaway PostgreSQL (needs its binaries): a learned decision's time to visible, the store killed mid-run, 100k shared records",
    )
    .option(
      '--full',
      'every row, the large ones too (stores and indexes of 100k records, a 40k-file repository), and more samples: several minutes',
    )
    .option('--progress', 'a progress line per step on stderr even when it is not a terminal (a terminal gets a bar)')
    .option(
      '--eval-commands [corpus]',
      'instead: replay a labelled corpus of tool calls through check --jsonl (unsafe-allow, catch and fatigue rates, per class); default: bench/corpora/adversarial.jsonl and, in development, the shellfirm corpus',
    )
    .option(
      '--eval-tldr [corpus]',
      'instead: the tldr corpus with its placeholders filled (files that exist, loopback URLs, both spellings of an alternation), asked % per group of what the commands do; default: ../shared/corpora/commands.tldr.jsonl, skipped when absent',
    )
    .option(
      '--confined',
      'with --eval-tldr: confinement at its default (on where bubblewrap works), as a user of this machine sees it; without it, the catalogue alone',
    )
    .option(
      '--eval-learning [corpus]',
      'instead: replay a labelled command corpus with a simulated human answering the prompts (how fast memory decides; wrong auto-allows)',
    )
    .option(
      '--poison',
      'with --eval-learning: the learning-poison replay: a human approves every benign row, then every risky row is checked (default corpus: bench/corpora/adversarial.jsonl)',
    )
    .option(
      '--project <dir>',
      'with --eval-commands, --eval-learning or --eval-workload: run the commands in this project (default: an empty throw-away one; for --eval-workload, a copy of this repository)',
    )
    .option('--seed <n>', 'with --eval-learning: the shuffle seed (default 1)')
    .option(
      '--generalize',
      'with --eval-learning: approve a training split of the benign rows, then report how many unseen benign rows memory allows and whether any risky row became allowed (tier 2b, with the shipped model), with the precision / coverage curve',
    )
    .option(
      '--verbose',
      'with --eval-commands: also list every benign row that was asked or denied; with --eval-tldr, every read-only call asked',
    )
    .option(
      '--swarm',
      'instead: load a real daemon with concurrent keep-alive clients (decisions/s, latency, answers that differ from in process)',
    )
    .option('--clients <n>', 'with --swarm: concurrent clients (default 64)')
    .option('--seconds <n>', 'with --swarm: how long they send (default 15)')
    .option('--rate <n>', 'with --swarm: calls per second per client at most (default: each as fast as answered)')
    .option(
      '--shared-session',
      'with --swarm: every client calls for one registered session (default: each client its own, as agents of a swarm are)',
    )
    .option(
      '--cpu-prof <dir>',
      'with --swarm: profile the daemon (node --cpu-prof): its .cpuprofile goes to this directory when it stops',
    )
    .option(
      '--eval-confine',
      'instead: run the confinement escape corpus for real (bench/confine-escapes.ts): escapes per category, target 0; exit 1 on an escape or when this machine cannot confine',
    )
    .option('--filter <text>', 'with --eval-confine: only the cases whose id contains this')
    .option(
      '--eval-workload [corpus]',
      'instead: replay an agent workload with confinement off and on in a copy of --project (default: this repository and its own development workload), run every confined call for real, and report asks before/after, the share confined and what the walls stopped',
    )
    .option(
      '--eval-mcp [corpus]',
      'instead: replay a workload of MCP calls (default: bench/corpora/mcp-workload.jsonl) on first sight and with one approval per tool: asks per 100 calls, asks per read-only tool, unsafe allows (exit 1 on one), the SQL classifier’s cost',
    )
    .option(
      '--quality-table',
      "instead: measure the README's quality table (unsafe allows and asks on the adversarial corpus and the development workload, confinement escapes, secret recall and false positives, the Claude Code step ratio the e2e test last measured) and rewrite it between its markers; in a clone, several minutes",
    )
    .option(
      '--eval-supervisor [corpus]',
      'instead: measure the supervisor tier against a fake Messages API on loopback: the share of a workload that reaches it (default: the development workload), its added latency in the daemon, the SDK import cost',
    )
    .action(
      async (o: {
        json?: boolean;
        ci?: boolean;
        quick?: boolean;
        full?: boolean;
        progress?: boolean;
        evalCommands?: string | boolean;
        evalTldr?: string | boolean;
        confined?: boolean;
        evalLearning?: string | boolean;
        poison?: boolean;
        generalize?: boolean;
        project?: string;
        seed?: string;
        verbose?: boolean;
        swarm?: boolean;
        fleet?: boolean;
        clients?: string;
        seconds?: string;
        rate?: string;
        cpuProf?: string;
        sharedSession?: boolean;
        evalConfine?: boolean;
        filter?: string;
        evalWorkload?: string | boolean;
        evalSupervisor?: string | boolean;
        evalMcp?: string | boolean;
        qualityTable?: boolean;
      }) => {
        if (o.qualityTable === true) {
          const { qualityTable } = await import('./bench.js');
          await qualityTable((text) => print(text));
          return;
        }
        if (o.evalMcp !== undefined) {
          const { evalMcp } = await import('./bench.js');
          if (!(await evalMcp(o, (text) => print(text)))) process.exitCode = 1;
          return;
        }
        if (o.evalSupervisor !== undefined) {
          const { evalSupervisor } = await import('./bench.js');
          await evalSupervisor(o, (text) => print(text));
          return;
        }
        if (o.evalWorkload !== undefined) {
          const { evalWorkload } = await import('./bench.js');
          evalWorkload(o, (text) => print(text));
          return;
        }
        if (o.evalConfine === true) {
          const { evalConfine } = await import('./bench.js');
          await evalConfine(o, (text) => print(text));
          return;
        }
        if (o.fleet === true) {
          const { fleetBench, renderFleet } = await import('../../bench/fleet.js');
          const report = await fleetBench({
            quick: o.quick === true,
            progress: (message) => process.stderr.write(`bench: ${message}\n`),
          });
          print(o.json === true ? JSON.stringify(report, null, 2) : renderFleet(report));
          return;
        }
        if (o.swarm === true) {
          const { swarm } = await import('./bench.js');
          await swarm(o, (text) => print(text));
          return;
        }
        if (o.evalLearning !== undefined || o.poison === true) {
          const { evalLearning } = await import('./bench.js');
          await evalLearning(o, (text) => print(text));
          return;
        }
        if (o.evalTldr !== undefined) {
          const { evalTldr } = await import('./bench.js');
          evalTldr(o, (text) => print(text));
          return;
        }
        if (o.evalCommands !== undefined) {
          const { evalCommands } = await import('./bench.js');
          evalCommands(o, (text) => print(text));
          return;
        }
        const { bench } = await import('./bench.js');
        await bench(o, (text) => print(text));
      },
    );
  program
    .command('queue')
    .description(
      "the human queue (human.channel: queue): calls waiting for an answer — id, sessions, role, task, call, the supervisor's recommendation, age, how many wait",
    )
    .option('--json', 'machine-readable output')
    .option('--web', "also print the queue page's address (served by the daemon: hookwise daemon start --http)")
    .action(async (o: { json?: boolean; web?: boolean }) => {
      const { queueList } = await import('./queue.js');
      reportResult(await queueList(o));
    });
  for (const verdict of ['approve', 'deny'] as const) {
    const command = program
      .command(verdict)
      .description(
        verdict === 'approve'
          ? 'approve a queued call (and every identical call waiting with it): allowed now, remembered as allow'
          : 'deny a queued call (and every identical call waiting with it): remembered as deny',
      )
      .argument('<id>', 'the item id (hookwise queue)');
    if (verdict === 'approve')
      command.option('--always-ask', 'allowed now, but remembered as ask: a human decides every time');
    command
      .option(
        '--add-rule',
        "remember it as a standing override for this call's pattern (see hookwise override), not only the exact call",
      )
      .addOption(
        new Option('--scope <scope>', 'where it is remembered (default: memory.learn_scope)').choices([
          'user',
          'project',
          'session',
        ]),
      )
      .action(async (id: string, o: { alwaysAsk?: boolean; addRule?: boolean; scope?: string }) => {
        const { queueAnswer } = await import('./queue.js');
        reportResult(await queueAnswer(verdict, id, o));
      });
  }
  program
    .command('mcp')
    .description(
      "the queue's MCP server on stdio (the plugin starts it): pending_requests and answer_request for the team's lead session",
    )
    .action(async () => {
      const { mcpServe } = await import('./mcp.js');
      await mcpServe();
    });
  program
    .command('validate')
    .description(
      'lint the effective config of every scope: patterns, unknown fields, unreachable and duplicate rules, precondition scripts, project rules that try to weaken',
    )
    .option('--json', 'machine-readable output')
    .action(async (o: { json?: boolean }) => {
      const { validate } = await import('./validate.js');
      const result = validate(process.cwd(), process.env, o.json === true);
      print(result.stdout);
      process.exitCode = result.exitCode;
    });
  program
    .command('sanitize')
    .description('redact secrets: text on stdin → sanitized text on stdout (values become <REDACTED>, key names stay)')
    .option(
      '--json',
      'print {"sanitized", "findings": [{rule, layer, start, end}]}, and "kept": [{value, start, end, why}] when a documented example key (AWS\'s AKIAIOSFODNN7EXAMPLE, …) was kept on purpose (without --json: a note on stderr)',
    )
    .option('--jsonl', 'batch: one JSON string per input line → one {"sanitized", "findings"} object per output line')
    .option(
      '--eval [corpus]',
      'recall and false positives, overall and per kind: on hookwise\'s own generated corpus ("builtin", the default: bench/corpora/secrets.ts), on the held-out one ("holdout": bench/corpora/secrets-holdout.ts), or on a labelled JSONL corpus (a path)',
    )
    .option('--verbose', 'with --eval: list every row, not only those that did not pass')
    .action(async (o: { json?: boolean; jsonl?: boolean; eval?: string | boolean; verbose?: boolean }) => {
      const { evaluateCorpus, sanitizeCommand } = await import('./sanitize.js');
      const { readStdin } = await import('./stdin.js');
      const r =
        o.eval !== undefined
          ? evaluateCorpus(typeof o.eval === 'string' ? o.eval : undefined, o.verbose === true)
          : sanitizeCommand(readStdin(256 * 1024 * 1024), o);
      process.stdout.write(r.stdout);
      process.stderr.write(r.stderr);
      process.exitCode = r.exitCode;
    });
  program
    .command('scan [paths...]')
    .description(
      'find secrets in files (default: .; node_modules/ and .git/ skipped) or, with --staged, in the git index; exit 1 with file:line:col: rule (values masked)',
    )
    .option('--staged', 'scan what is staged for commit (pathspecs limit it), e.g. hookwise scan --staged .hookwise/')
    .option('--json', 'machine-readable report')
    .option('--all', 'also descend into node_modules/ and .git/')
    .option('--max-file-size <bytes>', 'skip larger files (default 8 MiB)', (v) => Number.parseInt(v, 10))
    .action(async (paths: string[], o: { staged?: boolean; json?: boolean; all?: boolean; maxFileSize?: number }) => {
      const { scanCommand } = await import('./sanitize.js');
      const r = scanCommand(paths, { ...o, maxFileBytes: o.maxFileSize, cwd: process.cwd() });
      process.stdout.write(r.stdout);
      process.stderr.write(r.stderr);
      process.exitCode = r.exitCode;
    });

  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'commander.helpDisplayed' || code === 'commander.version' || code === 'commander.help') return 0;
    if (typeof code === 'string' && code.startsWith('commander.')) return 1; // commander already printed why
    process.stderr.write(`hookwise: ${shownError(error)}\n`);
    return 1;
  }
}

function reportResult(r: { stdout: string; stderr: string; exitCode: number }): void {
  if (r.stdout !== '') print(r.stdout);
  if (r.stderr !== '') process.stderr.write(r.stderr.endsWith('\n') ? r.stderr : `${r.stderr}\n`);
  process.exitCode = r.exitCode;
}

/** Decision memory: override, invalidate, rules list / show / compact (src/cli/rules.ts). */
function registerMemoryCommands(program: Command): void {
  const report = (r: { stdout: string; stderr: string; exitCode: number }): void => {
    print(r.stdout);
    if (r.stderr !== '') process.stderr.write(r.stderr.endsWith('\n') ? r.stderr : `${r.stderr}\n`);
    process.exitCode = r.exitCode;
  };
  const scopeOption = (what: string): Option =>
    new Option('--scope <scope>', what).choices(['user', 'project', 'session', 'org']);
  program
    .command('override')
    .description('a standing decision for a pattern of calls: Bash(<command glob>), a whole tool, or Tool(<path glob>)')
    .requiredOption('--role <role>', 'the role it applies to, or * for every role')
    .option(
      '--command <pattern>',
      'a Bash command glob, matched against each segment (* any text, ? one character): "npm run *"',
    )
    .option('--tool <name>', 'a tool (Write, Edit, WebFetch, mcp__…); alone: every call of it')
    .option('--file <glob>', 'with --tool: a path glob (root-relative; * within a directory, ** across)')
    .option(
      '--allow',
      'allow matching calls (never lifts a sensitive path, a pack or rule ask/deny, or a role deny_write)',
    )
    .option('--deny', 'deny matching calls')
    .option('--ask', 'always ask a human about matching calls')
    .addOption(scopeOption('where to store it (default user; project is committed and shared)'))
    .option('--org <name>', 'with --scope org: the organisation')
    .option('--session-id <id>', 'with --scope session: the session')
    .option('--reason <text>', 'why (sanitized; default "set by hookwise override")')
    .action(async (o: OverrideOptions) => {
      const { override } = await import('./rules.js');
      report(await override(o));
    });
  program
    .command('invalidate')
    .description(
      'forget remembered decisions and overrides: by role, by key, a whole scope, or all of the user and project scopes',
    )
    .option('--role <role>', 'only records for this role (* : the every-role records)')
    .option('--key <key>', 'only the records with this key (see hookwise rules list)')
    .option('--all', 'everything in the user and project scopes (and the session scope with --session-id)')
    .addOption(scopeOption('only this scope (alone: everything in it)'))
    .option('--org <name>', 'with --scope org: only this organisation')
    .option('--session-id <id>', 'also (or with --scope session: only) this session')
    .option('--keep-overrides', 'leave override records in place')
    .option(
      '--yes',
      'needed to remove everything in a scope (--all, or --scope alone); without it, only says what would go',
    )
    .option('--json', 'machine-readable output')
    .action(async (o: InvalidateOptions) => {
      const { invalidate } = await import('./rules.js');
      report(invalidate(o));
    });
  const rules = program.command('rules').description('remembered decisions and overrides: list, show, compact');
  rules
    .command('list')
    .description('every effective remembered decision and override, with its source file:line and what shadows it')
    .option('--role <role>', 'only decisions that apply to this role (its own and every-role ones)')
    .addOption(scopeOption('only records from this scope (shadowing is still judged across all)'))
    .option('--session-id <id>', "include this session's decisions")
    .option(
      '--neighbours [k]',
      "each decision's k nearest other records by embedding, with their cosine similarity (default 3; loads the model)",
    )
    .option('--json', 'machine-readable output')
    .action(async (o: ListOptions) => {
      const { writeRulesList } = await import('./rules.js');
      let near: NeighbourFinder | undefined;
      if (o.neighbours !== undefined && o.neighbours !== false) {
        const { neighbourCount, neighbourFinder } = await import('./neighbours.js');
        const found = await neighbourFinder(neighbourCount(o.neighbours), o);
        for (const note of found.notes) process.stderr.write(`hookwise: ${note}\n`);
        near = found.near;
      }
      // written as it is made: a large memory prints tens of megabytes
      report({ stdout: '', ...writeRulesList(o, (chunk) => process.stdout.write(chunk), undefined, undefined, near) });
    });
  rules
    .command('show')
    .description('every record for a key, or whose subject contains a text, with all fields and provenance')
    .argument('<key-or-text>', 'a key, or part of a subject (e.g. "npm run")')
    .option('--session-id <id>', "include this session's decisions")
    .option('--json', 'machine-readable output')
    .action(async (query: string, o: ShowOptions) => {
      const { rulesShow } = await import('./rules.js');
      report(rulesShow(query, o));
    });
  rules
    .command('export')
    .description(
      "write the team store's org decisions into this project's .hookwise/rules/ for review and commit (docs/team.md)",
    )
    .option('--org <name>', "only this organisation's decisions")
    .option('--json', 'machine-readable output')
    .action(async (o: { org?: string; json?: boolean }) => {
      const { rulesExport } = await import('./store.js');
      const { locations } = await import('../util/locations.js');
      const { findProjectRoot } = await import('../paths/canonical.js');
      const r = await rulesExport(locations(), findProjectRoot(process.cwd()), o);
      print(r.stdout);
      process.exitCode = r.exitCode;
    });
  rules
    .command('compact')
    .description('rewrite a scope keeping one record per decision, sorted; drops superseded and unreadable lines')
    .addOption(scopeOption('only this scope (default: user and project)'))
    .option('--org <name>', 'with --scope org: only this organisation')
    .option('--session-id <id>', 'also (or with --scope session: only) this session')
    .option('--json', 'machine-readable output')
    .action(async (o: CompactOptions) => {
      const { rulesCompact } = await import('./rules.js');
      report(rulesCompact(o));
    });
}

/** With --fleet, every project unless --project names one: a project's path differs from machine to machine. */
function fleetProject(
  o: { project?: string; allProjects?: boolean },
  projectFilter: (o: { project?: string; allProjects?: boolean }) => string | undefined,
): string | undefined {
  return o.project === undefined ? undefined : projectFilter(o);
}

/** What `init` and `install` tell a new user about confinement (cli/confine-status.ts); never fails the command. */
async function confinementLine(projectRoot: string): Promise<string> {
  const { confinementStatus } = await import('./confine-status.js');
  const { locations } = await import('../util/locations.js');
  try {
    return (await confinementStatus(projectRoot, locations())).line;
  } catch (error) {
    const { shownError } = await import('../sanitize/shown.js');
    return `confinement: could not tell whether it is on (${shownError(error)}); hookwise doctor says more`;
  }
}
