/**
 * The workflow allow pack: everyday development steps whose effects stay inside the project or the local
 * repository — committing and branching, fetching, building, running the project's own scripts,
 * installing the dependencies the project already declares, loading a known tool's shell init, creating a
 * temp file. Allowed without prompting, so that a normal working session is not a stream of questions.
 *
 * Not read-only (that is the read-only pack): these change files, the index or history, but only in ways a
 * human running them would not think twice about, and none loses work git cannot bring back. What writes
 * files the command names (`go build -o x`, redirections) is still judged by the write-target tier; the
 * shell tier's data-loss rule still passes deletions and overwrites to a human.
 *
 * Most of what it allows is catalogue data (src/catalog/programs/: git, go, cargo, make, npm, pnpm, yarn,
 * bun, gradle, mvn, dotnet, docker, mktemp): a form the catalogue accounts for word by word under one of
 * this pack's rules (git-local, git-sync, build, project-script, install-declared, temp-file, format) is
 * allowed here; what an entry leaves unannotated is not. docs/decisions.md ("Built-in packs") says why
 * each form is in and each option out.
 *
 * Still recognised here, by code: `tsc` emitting (and through npx / pnpm exec), whose file operands would
 * emit beside themselves, which no operand kind says yet; the formatters of programs whose entries are not
 * this pack's (prettier --write, eslint --fix, gofmt -w, black, ruff, biome, terraform fmt, sed -i);
 * `export NAME=value`; the exact shell-init generators the parser lets through (shell/shell-init.ts);
 * `terraform init` and `python -m venv`.
 *
 * Conservative by construction: anything the credentials pack would flag is never allowed here (even
 * with that pack switched off), nor a form that names a credential file.
 */
import { matchSegment } from '../../catalog/match.js';
import type { Segment } from '../../shell/types.js';
import { SHELL_INIT_GENERATORS, shellInitGenerator } from '../../shell/shell-init.js';
import { effectiveCwd, hasAny, hasExpansion, isDynamic, scan } from './argv.js';
import { credentialsPack, secretFileKind } from './credentials.js';
import { sedPrintOperands } from './looks.js';
import { definePack, type PackEnv, type PackFinding } from './types.js';

const RULES = {
  'git-local': {
    verdict: 'allow',
    message:
      'changes only the local repository (index, commits, branches, stash): nothing is pushed, and nothing git cannot bring back is discarded.',
  },
  'git-sync': {
    verdict: 'allow',
    message:
      'fetches from the remote (a network read) and fast-forwards or merges it into the current branch; git refuses to overwrite uncommitted work, and a merge can be undone.',
  },
  build: {
    verdict: 'allow',
    message:
      "builds the project with its own toolchain and configuration (build output stays in the project's build directories).",
  },
  'project-script': {
    verdict: 'allow',
    message:
      "runs one of the project's own build / dev / format scripts (trusting the repository's code, as running its tests does).",
  },
  'install-declared': {
    verdict: 'allow',
    message: 'installs the dependencies the project already declares (package.json and its lockfile) into the project.',
  },
  'shell-init': {
    verdict: 'allow',
    message:
      "loads a well-known tool's shell integration exactly as its documentation says (eval of the init code it prints).",
  },
  'temp-file': {
    verdict: 'allow',
    message: 'creates a new, private, empty temporary file or directory in the system temp directory.',
  },
  format: {
    verdict: 'allow',
    message:
      "rewrites project files in place with the project's own formatter or fixer, or a sed substitution (nothing is deleted; the files are judged as writes).",
  },
  'shell-variable': {
    verdict: 'allow',
    message: 'only sets a plain variable for the rest of this command.',
  },
} as const;
type RuleId = keyof typeof RULES;

// ── what the catalogue knows ─────────────────────────────────────────────────────────────────────────

const CATALOGUE_RULES: ReadonlySet<RuleId> = new Set<RuleId>([
  'git-local',
  'git-sync',
  'build',
  'project-script',
  'install-declared',
  'temp-file',
  'format',
]);

/**
 * A form the catalogue allows under one of the workflow's rules (src/catalog/programs/*.yml: every word
 * accounted for). Not when it names a credential file (`git add .env`: the path policy would ask for the
 * read, but this pack must not vouch for it either), nor a formatter run outside the project.
 */
function byCatalogue(segment: Segment, env: PackEnv): PackFinding<RuleId> | undefined {
  const match = env.catalog?.[env.index] ?? matchSegment(segment);
  const rule = match.rule;
  if (match.knowledge !== 'allow' || rule === undefined || !isCatalogueRule(rule)) return undefined;
  const cwd = effectiveCwd(env);
  if (match.paths.some((p) => secretFileKind(p.path, env, cwd) !== undefined)) return undefined;
  if (rule === 'format' && !runsInProject(env)) return undefined;
  return { rule, detail: match.reason };
}

function isCatalogueRule(rule: string): rule is RuleId {
  return (CATALOGUE_RULES as ReadonlySet<string>).has(rule);
}

/** tsc emitting per tsconfig; not with an output location on the command line, nor a config outside the project. */
function tsc(segment: Segment): PackFinding<RuleId> | undefined {
  const args = scan(segment.argv, {
    withValue: [
      'p',
      'project',
      'outDir',
      'outFile',
      'out',
      'declarationDir',
      'tsBuildInfoFile',
      'rootDir',
      'target',
      't',
      'module',
      'm',
      'lib',
      'jsx',
      'moduleResolution',
    ],
  });
  if (hasAny(args, 'outDir', 'outFile', 'out', 'declarationDir', 'tsBuildInfoFile', 'generateTrace', 'init'))
    return undefined;
  const project = [...(args.values.get('p') ?? []), ...(args.values.get('project') ?? [])];
  const inProject = (p: string): boolean => !(p.startsWith('/') || p.startsWith('~') || p.split('/').includes('..'));
  if (!project.every(inProject)) return undefined;
  // `tsc file.ts` compiles that file next to itself; only project builds here (`tsc -b dir` names projects).
  if (args.positionals.length > 0 && !(hasAny(args, 'b', 'build') && args.positionals.every((p) => inProject(p.text))))
    return undefined;
  return { rule: 'build', detail: 'tsc' };
}

/** `npx tsc`, `pnpm exec tsc`: the project's own compiler. */
function throughRunner(segment: Segment): PackFinding<RuleId> | undefined {
  const at = segment.name === 'pnpm' || segment.name === 'yarn' ? segment.argv.indexOf('exec') : 0;
  if (at === -1) return undefined;
  const args = scan(segment.argv, { from: at + 1, stopAtPositional: true, withValue: ['p', 'package', 'c', 'call'] });
  if (hasAny(args, 'p', 'package', 'c', 'call', 'y', 'yes')) return undefined;
  const tool = args.positionals[0];
  if (tool === undefined || (tool.text !== 'tsc' && tool.text !== 'vue-tsc')) return undefined;
  return tsc({ ...segment, name: tool.text, argv: segment.argv.slice(tool.index), dynamicArgs: [] });
}

// ── shell init ───────────────────────────────────────────────────────────────────────────────────

function shellInit(segment: Segment): PackFinding<RuleId> | undefined {
  const joined = segment.argv.join(' ');
  if (segment.name === 'eval') {
    // Only the form the parser lets through: eval of exactly one known generator's output.
    const generator =
      segment.argv.length === 2 && isDynamic(segment, 1) ? shellInitGenerator(segment.argv[1]!) : undefined;
    return generator === undefined ? undefined : { rule: 'shell-init', detail: generator };
  }
  return segment.dynamicArgs.length === 0 && SHELL_INIT_GENERATORS.has(joined)
    ? { rule: 'shell-init', detail: joined }
    : undefined;
}

// ── formatters, variables, other installs ───────────────────────────────────────────────────────────

/** A path operand inside the project: relative, no `..`, not home, not an expansion. */
function inProjectOperand(segment: Segment, index: number, text: string): boolean {
  return (
    !isDynamicNonGlob(segment, index, text) &&
    !text.startsWith('/') &&
    !text.startsWith('~') &&
    !text.split('/').includes('..')
  );
}

/** An expansion (a glob alone is fine: it expands to files where it stands). */
function isDynamicNonGlob(segment: Segment, index: number, text: string): boolean {
  return isDynamic(segment, index) && hasExpansion(text);
}

/** The command runs in the project (a tracked `cd` elsewhere, or an unknown one, rules a formatter out). */
function runsInProject(env: PackEnv): boolean {
  if (env.runsInProject !== undefined) return env.runsInProject;
  const cwd = effectiveCwd(env);
  return cwd !== undefined && (cwd === env.projectRoot || cwd.startsWith(`${env.projectRoot}/`));
}

/** Options that load a configuration, plugin or rule file: code, when it is JavaScript. */
const CONFIG_OPTIONS = [
  'c',
  'config',
  'plugin',
  'plugins',
  'resolve-plugins-relative-to',
  'rulesdir',
  'ignore-path',
  'config-path',
  'manifest-path',
  'o',
  'output-file',
  'stdin-filepath',
];

function formatter(segment: Segment, env: PackEnv): PackFinding<RuleId> | undefined {
  if (!runsInProject(env)) return undefined;
  const run = (name: string, argv: readonly string[], offset: number): PackFinding<RuleId> | undefined => {
    const args = scan(argv, { withValue: CONFIG_OPTIONS });
    const local = (values: readonly string[]): boolean =>
      values.every((v) => !v.startsWith('/') && !v.startsWith('~') && !v.split('/').includes('..'));
    if (!CONFIG_OPTIONS.every((o) => local(args.values.get(o) ?? []))) return undefined;
    if (hasAny(args, 'o', 'output-file')) return undefined;
    const operands = args.positionals.filter(
      (p) => !(name === 'terraform' && p.text === 'fmt') && !(p.text === 'format' || p.text === 'check'),
    );
    if (!operands.every((p) => inProjectOperand(segment, p.index + offset, p.text))) return undefined;
    const found = { rule: 'format', detail: name } as const;
    switch (name) {
      case 'prettier':
        return hasAny(args, 'w', 'write') ? found : undefined;
      case 'eslint':
      case 'stylelint':
        return hasAny(args, 'fix') ? found : undefined;
      case 'gofmt':
        return hasAny(args, 'w') && !hasAny(args, 'r') ? found : undefined; // -r rewrites by a rule given here
      case 'black':
      case 'isort':
      case 'rustfmt':
        return found;
      case 'ruff':
        return argv[1] === 'format' || (argv[1] === 'check' && hasAny(args, 'fix')) ? found : undefined;
      case 'biome':
        return (argv[1] === 'format' || argv[1] === 'check' || argv[1] === 'lint') &&
          hasAny(args, 'write', 'fix', 'apply') &&
          !hasAny(args, 'unsafe', 'apply-unsafe')
          ? found
          : undefined;
      default:
        return undefined;
    }
  };
  const argv = segment.argv;
  switch (segment.name) {
    case 'npx':
    case 'pnpx':
    case 'bunx': {
      const args = scan(argv, { stopAtPositional: true, withValue: ['p', 'package', 'c', 'call'] });
      const tool = args.positionals[0];
      if (tool === undefined || hasAny(args, 'p', 'package', 'c', 'call', 'y', 'yes')) return undefined;
      return run(tool.text, argv.slice(tool.index), tool.index);
    }
    case 'terraform':
    case 'tofu': {
      if (argv[1] !== 'fmt') return undefined;
      // `-write=false`, `-check`, `-diff` only look (read-only pack); options are -recursive / -list.
      const rest = argv.slice(2);
      if (
        !rest.every(
          (w, i) =>
            ['-recursive', '-list=false', '-list=true'].includes(w) ||
            (!w.startsWith('-') && inProjectOperand(segment, i + 2, w)),
        )
      )
        return undefined;
      return { rule: 'format', detail: `${segment.name} fmt` };
    }
    case 'sed':
      return sedInPlace(segment);
    default:
      return run(segment.name, argv, 0);
  }
}

/** `sed -i 's/a/b/' files`: a script that only substitutes, deletes or prints (no w / r / e), over named files. */
function sedInPlace(segment: Segment): PackFinding<RuleId> | undefined {
  // Drop the -i option (`-i`, `-i.bak`, `-ni`, `-Ei.bak` — in a cluster everything after `i` is the suffix —,
  // BSD's `-i ''`, `--in-place[=suffix]`), keeping each remaining word's dynamic mark.
  const argv: string[] = [];
  const dynamicArgs: number[] = [];
  let inPlace = false;
  for (let i = 0; i < segment.argv.length; i++) {
    let word = segment.argv[i]!;
    if (i > 0 && /^--in-place(?:=.*)?$/.test(word)) {
      inPlace = true;
      continue;
    }
    if (i > 0 && /^-[A-Za-z]*i/.test(word) && !word.startsWith('--')) {
      inPlace = true;
      const before = word.slice(0, word.indexOf('i'));
      if (word === '-i' && segment.argv[i + 1] === '') i++;
      if (before === '-') continue;
      word = before;
    }
    if (isDynamic(segment, i)) dynamicArgs.push(argv.length);
    argv.push(word);
  }
  if (!inPlace) return undefined;
  const files = sedPrintOperands({ ...segment, argv, dynamicArgs });
  if (files === undefined || files.length === 0) return undefined;
  return files.every((f) => inProjectOperand({ ...segment, argv, dynamicArgs }, f.index, f.text))
    ? { rule: 'format', detail: 'sed -i' }
    : undefined;
}

/**
 * Environment names that change which program runs, what it loads or where it looks: not "a plain variable"
 * (the effects gate judges them).
 */
const LOADING_NAMES =
  /^(?:PATH|LD_|DYLD_|BASH_ENV$|ENV$|PROMPT_COMMAND$|PS[0-4]$|IFS$|CDPATH$|HOME$|SHELL$|SHELLOPTS$|BASHOPTS$|PAGER$|MANPAGER$|EDITOR$|VISUAL$|GIT_|NODE_OPTIONS$|NODE_PATH$|NPM_CONFIG_|npm_config_|PYTHON|PERL|RUBY|GEM_|JAVA_TOOL_OPTIONS$|_JAVA_OPTIONS$|JDK_JAVA_OPTIONS$|MAKEFLAGS$|MFLAGS$|TMPDIR$|LESS|BROWSER$|SSH_|GOFLAGS$|CARGO_|RUSTC|RUSTFLAGS$|CC$|CXX$|LDFLAGS$|CFLAGS$|CPPFLAGS$|TERRAFORM_|TF_CLI|KUBECONFIG$|DOCKER_|AWS_|GOOGLE_|AZURE_)/;

function shellVariable(segment: Segment): PackFinding<RuleId> | undefined {
  if (segment.name !== 'export' || segment.argv.length < 2 || segment.dynamicArgs.length > 0) return undefined;
  const ok = segment.argv.slice(1).every((w) => {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=([A-Za-z0-9._/:,@%+-]*)$/.exec(w);
    return m !== null && !LOADING_NAMES.test(m[1]!) && !m[2]!.startsWith('/') && !m[2]!.startsWith('~');
  });
  return ok ? { rule: 'shell-variable', detail: segment.argv.slice(1).join(' ') } : undefined;
}

/** `terraform init` (providers and modules the configuration declares), `python3 -m venv .venv`. */
function declaredTooling(segment: Segment, env: PackEnv): PackFinding<RuleId> | undefined {
  if (segment.dynamicArgs.length > 0) return undefined;
  const argv = segment.argv;
  if ((segment.name === 'terraform' || segment.name === 'tofu') && argv[1] === 'init') {
    // -upgrade picks new versions (a new trust decision), -migrate-state / -force-copy / -reconfigure move or
    // forget state, -from-module copies code in.
    const refused = /^-(?:upgrade|migrate-state|force-copy|reconfigure|from-module)/;
    return argv.slice(2).every((w) => w.startsWith('-') && !refused.test(w))
      ? { rule: 'install-declared', detail: `${segment.name} init` }
      : undefined;
  }
  if (/^python3?(?:\.\d+)?$/.test(segment.name) && argv[1] === '-m' && argv[2] === 'venv') {
    const dirs = argv.slice(3).filter((w) => !w.startsWith('-'));
    const flags = argv.slice(3).filter((w) => w.startsWith('-'));
    // Not --clear (empties an existing environment first).
    if (
      dirs.length !== 1 ||
      !flags.every((f) =>
        ['--upgrade-deps', '--without-pip', '--copies', '--symlinks', '--system-site-packages'].includes(f),
      )
    )
      return undefined;
    return inProjectOperand(segment, 3, dirs[0]!) && runsInProject(env)
      ? { rule: 'install-declared', detail: 'python -m venv' }
      : undefined;
  }
  return undefined;
}

function classifyWorkflow(segment: Segment, env: PackEnv): PackFinding<RuleId> | undefined {
  // Never vouch for what the credentials pack would flag, even when that pack is off.
  if (credentialsPack.classify(segment, env) !== undefined) return undefined;
  const known = byCatalogue(segment, env);
  if (known !== undefined) return known;
  switch (segment.name) {
    case 'pnpm':
    case 'yarn':
      return throughRunner(segment);
    case 'npx':
    case 'pnpx':
    case 'bunx':
      return throughRunner(segment) ?? formatter(segment, env);
    case 'tsc':
    case 'vue-tsc':
      return segment.dynamicArgs.length > 0 ? undefined : tsc(segment);
    case 'export':
      return shellVariable(segment);
    default:
      return (
        shellInit(segment) ??
        declaredTooling(segment, env) ??
        (FORMATTERS.has(segment.name) ? formatter(segment, env) : undefined)
      );
  }
}

const FORMATTERS = new Set([
  'prettier',
  'eslint',
  'stylelint',
  'gofmt',
  'black',
  'isort',
  'rustfmt',
  'ruff',
  'biome',
  'terraform',
  'tofu',
  'sed',
]);

const GENERATOR_COMMANDS = [...new Set([...SHELL_INIT_GENERATORS].map((g) => g.split(' ')[0]!))];

export const workflowPack = definePack<RuleId>({
  name: 'workflow',
  kind: 'allow',
  description:
    'git add/commit/switch/stash/fetch/pull, builds (go, cargo, tsc, make), project build/dev scripts, installs of declared dependencies, known shell init, mktemp',
  commands: [
    ...new Set([
      'docker',
      'podman',
      'git',
      'npm',
      'pnpm',
      'yarn',
      'bun',
      'npx',
      'pnpx',
      'bunx',
      'go',
      'cargo',
      'tsc',
      'vue-tsc',
      'make',
      'gmake',
      'gradle',
      'gradlew',
      'mvn',
      'mvnw',
      'dotnet',
      'mktemp',
      'eval',
      'export',
      'python',
      'python3',
      ...FORMATTERS,
      ...GENERATOR_COMMANDS,
    ]),
  ],
  rules: RULES,
  classify: classifyWorkflow,
});
