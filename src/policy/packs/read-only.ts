/**
 * The read-only allow pack: commands that only look (ls, cat of ordinary files, grep/rg, find without
 * actions, git status/log/diff/show, …), test runners, type checkers and linters in check mode, and
 * `--version` / `--help` of well-known tools. Allowed without prompting, so that the common safe
 * commands — and compounds made only of them — do not wear the user down.
 *
 * Conservative by construction: every option that writes (sort -o, tree -o, eslint --fix, prettier
 * --write, git diff --output, find -delete/-exec/-fprint, yq -i, …) or runs another program (rg --pre,
 * fd -x, git -c …) takes the segment out of this pack, and anything the credentials pack would flag is
 * never allowed here, even when that pack is switched off. Redirections (`echo x > f`) are writes the
 * write-target tier judges; this pack only vouches for the command itself.
 *
 * Test runners execute the project's own code (package.json scripts, Makefiles, test files): allowing
 * them trusts what is in the repository, as running the tests by hand would.
 *
 * Also: dry runs, plans and previews with the option the program documents as no-write (dry-run.ts), sed
 * scripts that only print, GETs to a service on localhost, package queries, terraform checks and a few
 * system listings (looks.ts). Changes that stay in the project (commits, builds, installs) are the
 * workflow pack's.
 */
import type { CatalogMatch } from '../../catalog/match.js';
import { matchSegment, toolSegment } from '../../catalog/match.js';
import { catalogPrograms } from '../../catalog/table.js';
import type { Segment } from '../../shell/types.js';
import { hasAny, hasExpansion, isDynamic, scan } from './argv.js';
import { credentialsPack } from './credentials.js';
import { DRY_RUN_COMMANDS, dryRun } from './dry-run.js';
import { listsSystem, localFetch, LOOKS_COMMANDS, packageQuery, sedPrintOperands, terraformLooks } from './looks.js';
import { definePack, type PackEnv, type PackFinding } from './types.js';

const RULES = {
  inspect: { verdict: 'allow', message: 'only inspects the system or prints text.' },
  navigate: { verdict: 'allow', message: 'only changes the working directory of this command.' },
  'read-file': { verdict: 'allow', message: 'only reads ordinary (non-credential) files.' },
  'write-named': {
    verdict: 'allow',
    message: 'writes only the files it names, each allowed by the path policy for this role.',
  },
  search: { verdict: 'allow', message: 'only searches or lists files (no -exec, -delete or output files).' },
  'git-read': { verdict: 'allow', message: 'only reads git state or history.' },
  'test-runner': { verdict: 'allow', message: "runs the project's tests (trusting the repository's own test code)." },
  lint: {
    verdict: 'allow',
    message: 'checks code without changing it (type checker / linter / formatter in check mode).',
  },
  version: { verdict: 'allow', message: "only prints a tool's version or help." },
  'cli-query': {
    verdict: 'allow',
    message:
      'only queries state (list / show / describe / get / status) of a cloud, cluster, container or service CLI.',
  },
  'dry-run': {
    verdict: 'allow',
    message: 'only reports what it would do (a dry run, plan or preview that its documentation says changes nothing).',
  },
  'local-fetch': {
    verdict: 'allow',
    message: 'only fetches (GET) from a service on this machine (localhost); nothing is uploaded.',
  },
  'package-query': {
    verdict: 'allow',
    message: 'only queries package metadata or the installed dependency tree (ls / info / outdated / audit / why).',
  },
} as const;
type RuleId = keyof typeof RULES;

const NAVIGATE = new Set(['cd', 'pushd', 'popd', 'dirs']);

/** An operand whose content cannot be vetted: a variable, a substitution, or a glob that may reach dotfiles. */
function unvettable(segment: Segment, index: number, text: string): boolean {
  if (hasExpansion(text)) return true;
  if (!isDynamic(segment, index)) return false;
  const base = text.slice(text.lastIndexOf('/') + 1);
  return base === '*' || base.startsWith('.');
}

const PACKAGE_QUERY_TOOLS = new Set(['npm', 'pnpm', 'yarn', 'pip', 'pip3']);

/** `sed -n '1,20p' file`, `sed 's/a/b/' file`: a script that only prints (looks.ts), over vetted files. */
function sedPrint(segment: Segment): PackFinding<RuleId> | undefined {
  const files = sedPrintOperands(segment);
  if (files === undefined || segment.flags.appendsArgs === true) return undefined;
  return files.some((p) => unvettable(segment, p.index, p.text)) ? undefined : { rule: 'read-file' };
}

/** package.json script names that run tests or checks (and not fixers). */
function checkScript(name: string | undefined): boolean {
  if (name === undefined) return false;
  const base = name.split(':')[0]!.split('-')[0]!;
  const fixes = ['fix', 'write', 'update', 'snap', 'format'].some((w) => name.includes(w));
  return (
    !fixes &&
    (['test', 'tests', 'lint', 'typecheck', 'tsc'].includes(base) || name === 'type-check' || name === 'check-types')
  );
}

const PACKAGE_MANAGERS = new Set(['npm', 'pnpm', 'yarn', 'bun']);
const PACKAGE_RUNNERS = new Set(['npx', 'pnpx', 'bunx']);
/** Test runners and checkers that may be started through npx / pnpm exec / yarn. */
const NODE_TOOLS = new Set([
  'vitest',
  'jest',
  'mocha',
  'ava',
  'tap',
  'tsc',
  'eslint',
  'prettier',
  'biome',
  'stylelint',
  'playwright',
  'vue-tsc',
  'tsd',
]);

function nodeTool(segment: Segment, from: number): PackFinding<RuleId> | undefined {
  const args = scan(segment.argv, { from, stopAtPositional: true, withValue: ['p', 'package', 'c', 'call'] });
  if (hasAny(args, 'p', 'package', 'c', 'call')) return undefined; // installs or runs something else
  const tool = args.positionals[0];
  if (tool === undefined || !NODE_TOOLS.has(tool.text)) return undefined;
  const inner = toolSegment(segment, tool.index);
  const known = byCatalogue(matchSegment(inner));
  return known === 'declined' ? undefined : (known ?? direct(inner));
}

function packageManager(segment: Segment): PackFinding<RuleId> | undefined {
  const args = scan(segment.argv, {
    stopAtPositional: true,
    withValue: ['C', 'dir', 'prefix', 'filter', 'F', 'w', 'workspace', 'cwd'],
  });
  const first = args.positionals[0];
  if (first === undefined) return undefined;
  const words = segment.argv.slice(first.index);
  const [sub, script] = words;
  if (sub === 'test' || sub === 't' || (segment.name === 'bun' && sub === 'test')) return { rule: 'test-runner' };
  if ((sub === 'run' || sub === 'run-script') && checkScript(script))
    return { rule: script!.startsWith('lint') ? 'lint' : 'test-runner' };
  if (segment.name === 'yarn' && checkScript(sub)) return { rule: 'test-runner' };
  if ((segment.name === 'pnpm' || segment.name === 'yarn') && sub === 'exec') return nodeTool(segment, first.index + 1);
  if (segment.name === 'yarn' && sub !== undefined && NODE_TOOLS.has(sub)) return nodeTool(segment, first.index);
  return undefined;
}

/** A checker given directly: allowed unless an option makes it change files. */
function direct(segment: Segment): PackFinding<RuleId> | undefined {
  const args = scan(segment.argv, {
    withValue: ['c', 'config', 'p', 'project', 'o', 'output-file', 'f', 'format', 'reporter', 't', 'testNamePattern'],
  });
  const sub = args.positionals[0]?.text;
  const none = (...names: string[]): boolean => !hasAny(args, ...names);
  switch (segment.name) {
    case 'vitest':
    case 'jest':
      return none('u', 'update', 'updateSnapshot') &&
        (sub === undefined || sub === 'run' || !['init', 'bench'].includes(sub))
        ? { rule: 'test-runner' }
        : undefined;
    case 'mocha':
    case 'ava':
    case 'tap':
    case 'pytest':
    case 'py.test':
    case 'tox':
    case 'rspec':
    case 'phpunit':
    case 'tsd':
      return { rule: 'test-runner' };
    case 'playwright':
      return sub === 'test' ? { rule: 'test-runner' } : undefined;
    case 'tsc':
    case 'vue-tsc':
      return hasAny(args, 'noEmit') && none('b', 'build', 'w', 'watch') ? { rule: 'lint' } : undefined;
    case 'eslint':
    case 'stylelint':
    case 'markdownlint':
      return none('fix', 'o', 'output-file') ? { rule: 'lint' } : undefined;
    case 'prettier':
      return hasAny(args, 'check', 'c', 'list-different', 'l') && none('w', 'write') ? { rule: 'lint' } : undefined;
    case 'biome':
      return (sub === 'check' || sub === 'lint' || sub === 'ci' || sub === 'format') &&
        none('write', 'apply', 'apply-unsafe', 'fix', 'unsafe')
        ? { rule: 'lint' }
        : undefined;
    case 'ruff':
      if (sub === 'format') return hasAny(args, 'check', 'diff') ? { rule: 'lint' } : undefined;
      return (sub === undefined || sub === 'check') && none('fix', 'unsafe-fixes', 'add-noqa')
        ? { rule: 'lint' }
        : undefined;
    case 'black':
      return hasAny(args, 'check', 'diff') ? { rule: 'lint' } : undefined;
    case 'isort':
      return hasAny(args, 'check-only', 'check', 'c', 'diff') ? { rule: 'lint' } : undefined;
    case 'flake8':
    case 'pylint':
    case 'mypy':
    case 'pyright':
    case 'shellcheck':
    case 'hadolint':
    case 'actionlint':
    case 'yamllint':
      return none('o', 'output-file') ? { rule: 'lint' } : undefined;
    case 'gofmt':
      return hasAny(args, 'l', 'd') && none('w') ? { rule: 'lint' } : undefined;
    case 'golangci-lint':
      return sub === 'run' && none('fix') ? { rule: 'lint' } : undefined;
    default:
      return undefined;
  }
}

function toolchain(segment: Segment): PackFinding<RuleId> | undefined {
  const words = scan(segment.argv, {
    stopAtPositional: true,
    withValue: ['C', 'f', 'file', 'manifest-path', 'p', 'package'],
  }).positionals.map((p) => p.text);
  const sub = words[0];
  switch (segment.name) {
    case 'cargo':
      if (sub === 'test' || sub === 'check') return { rule: 'test-runner' };
      if (sub === 'clippy') return segment.argv.includes('--fix') ? undefined : { rule: 'lint' };
      return sub === 'fmt' && segment.argv.includes('--check') ? { rule: 'lint' } : undefined;
    case 'make':
    case 'gmake':
      return words.length > 0 && words.every((w) => w === 'test' || w === 'check' || w === 'lint')
        ? { rule: 'test-runner' }
        : undefined;
    case 'python':
    case 'python3': {
      if (
        segment.argv[1] !== '-m' ||
        !['pytest', 'unittest', 'mypy', 'flake8', 'pylint'].includes(segment.argv[2] ?? '')
      )
        return undefined;
      // The module's own options decide (`python -m pytest --junitxml=F` writes F), as for the program itself.
      const known = byCatalogue(matchSegment(toolSegment(segment, 2)));
      return known === 'declined' ? undefined : (known ?? { rule: 'test-runner' });
    }
    case 'dotnet':
      return sub === 'test' ? { rule: 'test-runner' } : undefined;
    case 'gradle':
    case 'gradlew':
    case 'mvn':
    case 'mvnw':
      return words.length > 0 && words.every((w) => w === 'test' || w === 'check')
        ? { rule: 'test-runner' }
        : undefined;
    default:
      return undefined;
  }
}

const VERSIONED_TOOLS = new Set([
  'node',
  'npm',
  'npx',
  'yarn',
  'pnpm',
  'bun',
  'deno',
  'python',
  'python3',
  'pip',
  'pip3',
  'pipx',
  'uv',
  'poetry',
  'go',
  'cargo',
  'rustc',
  'rustup',
  'java',
  'javac',
  'mvn',
  'gradle',
  'ruby',
  'gem',
  'bundle',
  'php',
  'composer',
  'dotnet',
  'git',
  'docker',
  'podman',
  'kubectl',
  'helm',
  'terraform',
  'tofu',
  'pulumi',
  'aws',
  'gcloud',
  'az',
  'gh',
  'tsc',
  'eslint',
  'prettier',
  'vitest',
  'jest',
  'pytest',
  'make',
  'cmake',
  'gcc',
  'g++',
  'clang',
  'clang++',
  'bash',
  'sh',
  'zsh',
  'fish',
  'jq',
  'yq',
  'rg',
  'fd',
  'curl',
  'wget',
  'openssl',
  'ssh',
  'psql',
  'mysql',
  'sqlite3',
  'redis-cli',
  'hookwise',
  'claude',
  'gemini',
  'codex',
]);
const SHORT_V_MEANS_VERSION = new Set(['node', 'npm', 'npx', 'yarn', 'pnpm', 'bun', 'deno', 'hookwise']);

function version(segment: Segment): PackFinding<RuleId> | undefined {
  if (!VERSIONED_TOOLS.has(segment.name) || segment.argv.length !== 2) return undefined;
  const arg = segment.argv[1]!;
  const asks =
    ['--version', '-V', 'version', '--help', '-h', 'help'].includes(arg) ||
    (arg === '-v' && SHORT_V_MEANS_VERSION.has(segment.name));
  return asks ? { rule: 'version' } : undefined;
}

/**
 * The catalogue's answer for a program it has an entry for (closed world): allowed only when every word is
 * accounted for and the effects found are ones knowledge may allow; the paths it found are judged by the
 * shell tier (write targets, sensitive reads). Undefined when the catalogue has no entry for the program.
 */
function byCatalogue(match: CatalogMatch): PackFinding<RuleId> | undefined | 'declined' {
  if (match.entry === undefined) return undefined;
  if (match.knowledge !== 'allow' || match.rule === undefined) return 'declined';
  // A form the catalogue allows under a workflow rule (a commit, a build) is the workflow pack's to allow.
  if (!isReadOnlyRule(match.rule)) return 'declined';
  return { rule: match.rule, detail: match.reason };
}

function isReadOnlyRule(rule: string): rule is RuleId {
  return Object.hasOwn(RULES, rule);
}

function classifyReadOnly(segment: Segment, env: PackEnv): PackFinding<RuleId> | undefined {
  // Never vouch for what the credentials pack would flag, even when that pack is off.
  if (credentialsPack.classify(segment, env) !== undefined) return undefined;
  const name = segment.name;
  const known = byCatalogue(env.catalog?.[env.index] ?? matchSegment(segment));
  if (known === 'declined') {
    // git's dry runs (`git add -n .`) are not entries yet: the dry-run recogniser still vouches for them.
    const preview = dryRun(segment);
    return preview !== undefined ? { rule: 'dry-run', detail: preview } : version(segment);
  }
  if (known !== undefined) return known;
  // Programs the catalogue has no entry for yet: the recognisers below, each strict about the options it knows.
  const args = scan(segment.argv);
  const preview = dryRun(segment);
  if (preview !== undefined) return { rule: 'dry-run', detail: preview };
  if (name === 'sed') return sedPrint(segment);
  if ((name === 'curl' || name === 'wget') && localFetch(segment)) return { rule: 'local-fetch' };
  if (PACKAGE_QUERY_TOOLS.has(name) && packageQuery(segment)) return { rule: 'package-query' };
  if (name === 'terraform' || name === 'tofu') {
    const looks = terraformLooks(segment);
    if (looks !== undefined) return { rule: looks === 'lint' ? 'lint' : 'cli-query' };
  }
  if (listsSystem(segment)) return { rule: 'inspect' };
  if (NAVIGATE.has(name)) return { rule: 'navigate' };
  // `:` stands for a bare assignment (`X=1`); a bare `:` call may be a function defined in the command (`:(){ :|:& };:`).
  if (name === ':') return Object.keys(segment.assignments).length > 0 ? { rule: 'inspect' } : undefined;
  if (name === 'command') return hasAny(args, 'v', 'V') ? { rule: 'inspect' } : undefined; // command -v: a lookup
  return (
    version(segment) ??
    (PACKAGE_MANAGERS.has(name) ? packageManager(segment) : undefined) ??
    (PACKAGE_RUNNERS.has(name) ? nodeTool(segment, 1) : undefined) ??
    toolchain(segment) ??
    direct(segment) ??
    cliQuery(segment)
  );
}

/**
 * Cloud, cluster, container and service CLIs whose query verbs only read state. The verb must be one of the
 * first few words (`gcloud compute instances list`, `az vm show`, `kubectl get pods`, `docker volume ls`).
 * Anything touching secrets, credentials, tokens or env values is left out (`kubectl get secret -o yaml`,
 * `netlify env:get X` print secret values), and so is any option that names an output file.
 */
const QUERY_CLIS = new Set([
  'aws',
  'az',
  'gcloud',
  'gsutil',
  'kubectl',
  'helm',
  'docker',
  'podman',
  'fly',
  'flyctl',
  'heroku',
  'vercel',
  'netlify',
  'gh',
  'glab',
  'systemctl',
  'ip',
  'nft',
  'ufw',
  'doctl',
]);
const QUERY_VERBS = new Set([
  'list',
  'ls',
  'show',
  'describe',
  'get',
  'inspect',
  'status',
  'view',
  'history',
  'top',
  'ps',
  'images',
  'is-active',
  'list-units',
  'whoami',
  'logs',
]);
const SENSITIVE_WORD = /secret|credential|password|passwd|token|key|env|config|auth|login/i;
/** `file://…`, `fileb://…`, `@file`: the CLI reads the file (and echoes it in its errors). */
const FILE_ARGUMENT = /(?:^|=)(?:file|fileb):\/\/|^@/;
const OUTPUT_FILE_OPTIONS = /^--?(output-file|out-file|outfile|output-document|dump|save|export)\b/;

function cliQuery(segment: Segment): PackFinding<RuleId> | undefined {
  if (!QUERY_CLIS.has(segment.name) || segment.dynamicArgs.length > 0) return undefined;
  const args = segment.argv.slice(1);
  if (args.some((a) => SENSITIVE_WORD.test(a) || OUTPUT_FILE_OPTIONS.test(a) || FILE_ARGUMENT.test(a)))
    return undefined;
  // `topic:verb` CLIs (heroku ps:kill, netlify sites:list): the verb is what follows the last colon.
  const words = args
    .filter((a) => !a.startsWith('-'))
    .slice(0, 4)
    .map((w) => w.slice(w.lastIndexOf(':') + 1));
  if (segment.name === 'aws') {
    // aws verbs are `describe-*` / `list-*` (get-* can download objects or secrets); `aws s3 ls`.
    return words.some((w) => /^(describe|list)-/.test(w)) || (words[0] === 's3' && words[1] === 'ls')
      ? { rule: 'cli-query' }
      : undefined;
  }
  return words.some((w) => QUERY_VERBS.has(w)) ? { rule: 'cli-query' } : undefined;
}

export const readOnlyPack = definePack<RuleId>({
  name: 'read-only',
  kind: 'allow',
  description:
    'ls, cat/head/grep/rg/find (read-only forms), sed that only prints, git status/log/diff/show, test runners, tsc --noEmit, linters in check mode, dry runs and plans, GETs to localhost, package queries, --version',
  // A getter: the catalogue's program list is read only when validate asks, never at start-up.
  get commands(): readonly string[] {
    return [
      ...new Set([
        ...catalogPrograms(),
        ...NAVIGATE,
        'git',
        'command',
        ':',
        ...PACKAGE_MANAGERS,
        ...PACKAGE_RUNNERS,
        ...VERSIONED_TOOLS,
        ...QUERY_CLIS,
        ...DRY_RUN_COMMANDS,
        ...LOOKS_COMMANDS,
      ]),
    ];
  },
  rules: RULES,
  classify: classifyReadOnly,
});
