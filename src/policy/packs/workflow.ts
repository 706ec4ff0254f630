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
 * What it allows is catalogue data (src/catalog/programs/: git, go, cargo, make, npm, pnpm, yarn, bun, tsc,
 * gradle, mvn, dotnet, docker, mktemp, the formatters, terraform init, python -m venv): a form the catalogue
 * accounts for word by word under one of this pack's rules (git-local, git-sync, build, project-script,
 * install-declared, temp-file, format) is allowed here; what an entry leaves unannotated is not.
 * docs/decisions.md ("Built-in packs") says why each form is in and each option out.
 *
 * Still recognised here, by code, because they are the shell's forms and not a program's grammar:
 * `export NAME=value` (which names change how later words run is a judgement on variables, not options),
 * and the exact shell-init generators the parser lets through (`eval "$(direnv hook bash)"`: the parser's
 * known list, shell/shell-init.ts).
 *
 * Conservative by construction: anything the credentials pack would flag is never allowed here (even
 * with that pack switched off), nor a form that names a credential file.
 */
import { matchSegment } from '../../catalog/match.js';
import { catalogPrograms } from '../../catalog/table.js';
import type { Segment } from '../../shell/types.js';
import { SHELL_INIT_GENERATORS, shellInitGenerator } from '../../shell/shell-init.js';
import { effectiveCwd, isDynamic } from './argv.js';
import { credentialsPack, secretFileKind } from './credentials.js';
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
  'vcs-local': {
    verdict: 'allow',
    message:
      "records a change in the local repository (a commit, a description, a bookmark, hg add / rm of named files): nothing is pushed, the working copy's files are kept, and jj's operation log or hg's history brings back the state before.",
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
  'vcs-local',
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

/** The command runs in the project (a tracked `cd` elsewhere, or an unknown one, rules a formatter out). */
function runsInProject(env: PackEnv): boolean {
  if (env.runsInProject !== undefined) return env.runsInProject;
  const cwd = effectiveCwd(env);
  return cwd !== undefined && (cwd === env.projectRoot || cwd.startsWith(`${env.projectRoot}/`));
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

// ── variables ─────────────────────────────────────────────────────────────────────────────────────

/**
 * Environment names that change which program runs, what it loads or where it looks: not "a plain variable"
 * (the effects gate judges them).
 */
const LOADING_NAMES =
  /^(?:PATH|LD_|DYLD_|BASH_ENV$|ENV$|PROMPT_COMMAND$|PS[0-4]$|IFS$|CDPATH$|HOME$|SHELL$|SHELLOPTS$|BASHOPTS$|PAGER$|MANPAGER$|EDITOR$|VISUAL$|GIT_|HG|JJ_|NODE_OPTIONS$|NODE_PATH$|NPM_CONFIG_|npm_config_|PYTHON|PERL|RUBY|GEM_|JAVA_TOOL_OPTIONS$|_JAVA_OPTIONS$|JDK_JAVA_OPTIONS$|MAKEFLAGS$|MFLAGS$|TMPDIR$|LESS|BROWSER$|SSH_|GOFLAGS$|CARGO_|RUSTC|RUSTFLAGS$|CC$|CXX$|LDFLAGS$|CFLAGS$|CPPFLAGS$|TERRAFORM_|TF_CLI|KUBECONFIG$|DOCKER_|AWS_|GOOGLE_|AZURE_)/;

function shellVariable(segment: Segment): PackFinding<RuleId> | undefined {
  if (segment.name !== 'export' || segment.argv.length < 2 || segment.dynamicArgs.length > 0) return undefined;
  const ok = segment.argv.slice(1).every((w) => {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=([A-Za-z0-9._/:,@%+-]*)$/.exec(w);
    return m !== null && !LOADING_NAMES.test(m[1]!) && !m[2]!.startsWith('/') && !m[2]!.startsWith('~');
  });
  return ok ? { rule: 'shell-variable', detail: segment.argv.slice(1).join(' ') } : undefined;
}

function classifyWorkflow(segment: Segment, env: PackEnv): PackFinding<RuleId> | undefined {
  // Never vouch for what the credentials pack would flag, even when that pack is off.
  if (credentialsPack.classify(segment, env) !== undefined) return undefined;
  const known = byCatalogue(segment, env);
  if (known !== undefined) return known;
  return segment.name === 'export' ? shellVariable(segment) : shellInit(segment);
}

const GENERATOR_COMMANDS = [...new Set([...SHELL_INIT_GENERATORS].map((g) => g.split(' ')[0]!))];

export const workflowPack = definePack<RuleId>({
  name: 'workflow',
  kind: 'allow',
  description:
    'git add/commit/switch/stash/fetch/pull, builds (go, cargo, tsc, make), project build/dev scripts, installs of declared dependencies, formatters rewriting project files, known shell init, export of a plain variable, mktemp',
  // A getter: the catalogue's program list is read only when validate asks, never at start-up.
  get commands(): readonly string[] {
    return [...new Set([...catalogPrograms(), 'eval', 'export', ...GENERATOR_COMMANDS])];
  },
  rules: RULES,
  classify: classifyWorkflow,
});
