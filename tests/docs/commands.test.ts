/**
 * Every command shown in a shell code block of README.md, CONTRIBUTING.md and docs/*.md runs as written, offline,
 * against this checkout's build — or is in SKIP below with the reason it cannot run here.
 *
 * How a line becomes a command:
 *   - a trailing `# comment` goes; a line that is only a comment is not a command;
 *   - a synopsis's optional parts (`[--json]`, `[--http [port]]`) are left out, so `hookwise stats [--json]`
 *     runs as `hookwise stats`; an indented line continues the one before it;
 *   - placeholders are filled from PLACEHOLDERS (a new one fails the test until it is added there);
 *   - `hookwise` is this checkout's dist/hookwise.cjs, first on PATH; `npx hookwise` runs in the checkout.
 *
 * Each document runs in its own sandbox (HOME, hookwise's config and runtime dirs, a project with `.git`), in
 * document order, so a `register` is there for the `status` after it. `cd DIR` on a line of its own moves the
 * following lines there. The contributor docs (IN_CHECKOUT) show commands a contributor runs in the checkout:
 * they run there, with the sandbox's HOME and hookwise directories. A command must exit 0 unless EXIT names the statuses its document says it has.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'dist', 'hookwise.cjs');
const DOCS = [
  'README.md',
  'CONTRIBUTING.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];

/** Documents for contributors: their commands run in the checkout, not in the sandbox's project. */
const IN_CHECKOUT = new Set(['CONTRIBUTING.md', 'docs/architecture.md']);

/** Commands that cannot run here, as written in the docs (comment stripped), and why. */
const SKIP: Record<string, string> = {
  'npm install':
    'needs the npm registry, and rebuilds dist/ under the tests running in parallel; it is the set-up this suite runs after',
  'npm test': 'runs this whole suite',
  'HOOKWISE_SKIP_E2E=1 npm test': 'runs this whole suite (but the end-to-end tests)',
  'npx tsc --noEmit': 'type-checks the whole repository, about a minute on two loaded CPUs; npm test runs it first',
  'npm run lint':
    'ESLint and the Prettier check over the whole repository, a minute or two on two loaded CPUs; npm test runs it first',
  'npm run format':
    'rewrites files in the checkout under the tests running in parallel; npm run lint checks the format',
  'hookwise bench --eval-mcp':
    'replays a 127-call workload twice (seconds on a loaded machine); tests/bench/eval-mcp.test.ts runs it',
  'npm run build': 'rebuilds dist/ under the tests running in parallel; npm test builds first',
  'npx hookwise bench': 'a full benchmark run takes minutes; npm test runs bench --ci',
  'node dist/hookwise.cjs bench': 'a full benchmark run takes minutes; npm test runs bench --ci',
  'node dist/hookwise.cjs bench --json': 'a full benchmark run takes minutes; npm test runs bench --ci',
  'node dist/hookwise.cjs bench --quick': 'still about a minute of benchmarks on 2 CPUs; npm test runs bench --ci',
  'node dist/hookwise.cjs bench --full':
    'every row with the most samples takes several minutes; npm test runs bench --ci',
  'node dist/hookwise.cjs bench --ci': 'npm test runs it as its last step',
  'node dist/hookwise.cjs bench --fleet':
    'starts a PostgreSQL cluster and loads 100k records, minutes on 2 CPUs; tests/store/ cover the same paths',
  'hookwise bench --eval-tldr':
    'replays the 26,808 filled calls of the development tldr corpus (about a minute on 2 CPUs); tests/bench/eval-tldr.test.ts runs a small corpus',
  'hookwise stats --fleet':
    "reads a team's PostgreSQL store, which the docs' sandbox has not; tests/store/fleet-audit.test.ts runs it against one",
  'hookwise store push-audit --since 2026-11-01':
    "sends to a team's PostgreSQL store, which the docs' sandbox has not; tests/cli/store.test.ts runs it against one",
  'hookwise monitor --fleet':
    "follows a team's PostgreSQL store, which the docs' sandbox has not; tests/store/fleet-audit.test.ts runs it against one",
  'node dist/hookwise.cjs bench --swarm': 'a 15 s load test on a real daemon; tests/cli/swarm.test.ts covers it',
  'npm install && npm install -g .':
    'changes the machine’s global npm prefix; tests/cli/package.test.ts installs the checkout into a temporary prefix',
  'npm install -g .':
    'changes the machine’s global npm prefix; tests/cli/package.test.ts installs the checkout into a temporary prefix',
  'npm pack': 'tests/cli/package.test.ts packs (without rebuilding dist/ under the parallel tests)',
  'ONNXRUNTIME_NODE_INSTALL=skip npm install -g ./hookwise-0.1.0.tgz':
    'tests/cli/package.test.ts installs the packed tarball into a temporary prefix, from a local registry',
  'git clone <the hookwise repository> hookwise && cd hookwise':
    'needs the network, and names the repository by a placeholder',
  'gemini extensions install /path/to/hookwise/plugin/gemini':
    'needs Gemini CLI, a real host (tests/e2e installs the extension into it)',
  'gemini extensions install "$(npm root -g)/hookwise/plugin/gemini"':
    'needs Gemini CLI, a real host, and a global install',
  'hookwise serve [--http [port]] [--idle-exit <s>]':
    'runs in the foreground until it is stopped (for systemd and launchd); tests/daemon covers it',
  'hookwise override --role R (--command PATTERN | --tool T [--file GLOB]) (--allow | --deny | --ask) [--scope user|project|session|org] [--org NAME] [--session-id ID] [--reason TEXT]':
    'a synopsis with alternatives; the examples after it run',
  'hookwise invalidate (--role R | --key K | --scope S | --all) [--scope S] [--org NAME] [--session-id ID] [--keep-overrides] [--yes] [--json]':
    'a synopsis with alternatives; the examples after it run',
};

/** Commands that would not end on their own, and how they run here instead. */
const RUN_AS: Record<string, string> = {
  'hookwise monitor': 'hookwise monitor --no-follow', // it follows the audit log until interrupted, like tail -f
  // npx runs the package's `prepare` first (npm 11), which rebuilds dist/ under the tests running in parallel:
  // the same bin, without the rebuild.
  'npx hookwise demo': 'hookwise demo',
};

/** Exit statuses other than 0 that the docs give a command (after its optional parts are left out). */
const EXIT: Record<string, number[]> = {
  'hookwise daemon status': [0, 3], // exit 3: not running (docs/daemon.md); README shows it before any start
  'hookwise undo': [1], // no confined command has run in the sandbox: nothing to restore, says so, exit 1 (docs/confine.md)
};

const SESSION = 'docs-session-1';
const PLACEHOLDERS: Record<string, string> = {
  '<id>': SESSION,
  '<key-or-subject-text>': "'npm run'",
};

interface DocCommand {
  where: string;
  shown: string;
}

function docCommands(file: string): DocCommand[] {
  const out: DocCommand[] = [];
  let fence: string | undefined;
  readFileSync(join(ROOT, file), 'utf8')
    .split('\n')
    .forEach((line, i) => {
      const marker = /^\s*```(\S*)/.exec(line);
      if (marker !== null) {
        fence = fence === undefined ? marker[1]! : undefined;
        return;
      }
      if (fence === undefined || !/^(sh|bash|shell)$/.test(fence)) return;
      const text = line.replace(/\s+#\s.*$/, '').trimEnd();
      if (text.trim() === '' || text.trim().startsWith('#')) return;
      const last = out.at(-1);
      if (/^\s/.test(text) && last !== undefined) last.shown = `${last.shown} ${text.trim()}`;
      else out.push({ where: `${file}:${i + 1}`, shown: text });
    });
  return out;
}

/** The command without its optional parts, placeholders filled. */
function runnable(shown: string): string {
  let text = shown;
  for (let before = ''; before !== text;) {
    before = text;
    text = text.replace(/\s*\[[^[\]]*\]/g, '');
  }
  for (const [placeholder, value] of Object.entries(PLACEHOLDERS)) text = text.split(placeholder).join(value);
  return text.replace(/\s+/g, ' ').trim();
}

const sandboxes: string[] = [];
afterAll(() => {
  for (const base of sandboxes) {
    // A `hookwise daemon start` shown in the docs leaves a daemon running in the sandbox: stop it.
    spawnSync(process.execPath, [BIN, 'daemon', 'stop'], { env: sandboxEnv(base), encoding: 'utf8', timeout: 20_000 });
    rmSync(base, { recursive: true, force: true });
  }
});

function sandboxEnv(base: string): NodeJS.ProcessEnv {
  return {
    PATH: `${join(base, 'bin')}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: join(base, 'home'),
    HOOKWISE_CONFIG_DIR: join(base, 'config'),
    HOOKWISE_RUNTIME_DIR: join(base, 'runtime'),
    XDG_CONFIG_HOME: join(base, 'home', '.config'),
    XDG_CACHE_HOME: join(base, 'home', '.cache'),
    // The docs' own shell variables.
    SESSION,
    ID: SESSION,
    TEXT: 'deploy with AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    npm_config_offline: 'true',
    npm_config_update_notifier: 'false',
  };
}

function sandbox(): string {
  const base = mkdtempSync(join(tmpdir(), 'hookwise-docs-'));
  sandboxes.push(base);
  for (const dir of ['bin', 'home', 'project/.git', 'project/tests', 'project/your-project/.git'])
    mkdirSync(join(base, dir), { recursive: true });
  writeFileSync(join(base, 'project', 'tests', 'a.ts'), 'export {};\n');
  const bin = join(base, 'bin', 'hookwise');
  writeFileSync(bin, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"\n`);
  chmodSync(bin, 0o755);
  return base;
}

describe('every command in the docs runs, or says why it cannot', () => {
  it('the skip list names only commands the docs still show', () => {
    const shown = new Set(DOCS.flatMap((f) => docCommands(f).map((c) => c.shown.trim().replace(/\s+/g, ' '))));
    for (const command of Object.keys(SKIP))
      expect(shown, `SKIP entry no longer in the docs: ${command}`).toContain(command);
  });

  const runnableDocs = DOCS.filter((f) =>
    docCommands(f).some((c) => SKIP[c.shown.trim().replace(/\s+/g, ' ')] === undefined),
  );
  it.each(runnableDocs)(
    '%s',
    (file) => {
      const base = sandbox();
      const env = sandboxEnv(base);
      let cwd = join(base, 'project');
      const ran: string[] = [];
      for (const { where, shown } of docCommands(file)) {
        const normalized = shown.trim().replace(/\s+/g, ' ');
        if (SKIP[normalized] !== undefined) continue;
        const command = RUN_AS[runnable(shown)] ?? runnable(shown);
        expect(command, `${where}: a placeholder without a value in PLACEHOLDERS: ${command}`).not.toMatch(/<[^>]*>|…/);
        const cd = /^cd (\S+)$/.exec(command);
        if (cd !== null) {
          cwd = join(cwd, cd[1]!);
          continue;
        }
        // `npx hookwise` is shown for the checkout (README set-up): it resolves this package's own bin.
        const r = spawnSync('/bin/sh', ['-c', command], {
          cwd: command.startsWith('npx ') || IN_CHECKOUT.has(file) ? ROOT : cwd,
          env,
          encoding: 'utf8',
          timeout: 60_000,
        });
        const allowed = EXIT[command] ?? [0];
        expect(
          allowed,
          `${where}: \`${command}\` exited ${r.status}${r.signal ? ` (${r.signal})` : ''}\nstdout: ${r.stdout.slice(-1500)}\nstderr: ${r.stderr.slice(-1500)}`,
        ).toContain(r.status);
        ran.push(command);
      }
      expect(ran.length, `${file}: no command ran`).toBeGreaterThan(0);
      console.log(`[docs] ${file}: ${ran.length} commands ran`);
    },
    240_000,
  );
});
