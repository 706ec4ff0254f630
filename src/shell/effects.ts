/**
 * What a parsed shell command can do beyond its first word: the code each segment can run (through its
 * environment, its options, bash expansions inside its arguments, or a file written earlier in the same
 * call), the paths it reads, the links it makes, and whether it talks to the network. The shell tier lets
 * packs and role globs allow a segment only when nothing here says it runs something nobody looked at:
 * `GIT_PAGER='sh -c …' git log` is not a read-only `git log`.
 *
 * Pure string work over the segments (no file system): the paths found here are canonicalized and judged
 * at the edge (prepare.ts) and in the tier, like write targets.
 */
import { posix } from 'node:path';
import type { Segment, WriteAnalysis } from './types.js';

export type RunKind = 'environment' | 'option' | 'expansion' | 'planted' | 'config';

/** Code a segment runs that its first word does not show. */
export interface RunEffect {
  kind: RunKind;
  /** What and how, for the reason a human reads: `GIT_PAGER=sh -c id makes git run "sh -c id"`. */
  detail: string;
}

export interface ReadTarget {
  segment: number;
  /** As written (relative paths are relative to `cwd`, then the command's working directory). */
  path: string;
  /** The command (or redirection) that reads it. */
  via: string;
  /** Reads a directory's contents recursively (grep -r, tar, rsync, cp -r, find … -exec cat). */
  recursive: boolean;
  cwd?: string;
}

/** `ln [-s] target link` earlier in the command: a later write to `link` lands on `target`. */
export interface LinkMade {
  segment: number;
  /** The link's path, normalized (relative to the command's working directory unless absolute or `~`). */
  link: string;
  /** Where it points, normalized the same way. */
  target: string;
}

export interface SegmentEffects {
  runs: RunEffect[];
  /** Sends or receives over the network (curl, ssh, nc, /dev/tcp …). */
  network: boolean;
}

export interface CommandEffects {
  segments: SegmentEffects[];
  reads: ReadTarget[];
  links: LinkMade[];
}

/**
 * Whether a path a segment names lies inside the project. `path` is as written: relative to `segment.cwd`
 * (itself relative to the command's working directory) unless absolute or `~`. The edge answers from
 * canonical paths (prepare.ts), so `cd /abs/project`, `git -C <root>/sub`, a trailing slash and a symlinked
 * root all count as inside, and `<root>/..` does not; unknown (an expansion, an unknown working directory)
 * is outside.
 */
export type InProject = (path: string, segment: Pick<Segment, 'cwd' | 'flags'>) => boolean;

/** Without the edge (pure callers, tests): relative, no `..`, not the bare working directory. */
export const lexicalInProject: InProject = (path, segment) => {
  if (path === '' || path === '.' || segment.flags.cwdUnknown === true) return false;
  const where = segment.cwd === undefined ? path : posix.join(segment.cwd, path);
  return !where.startsWith('/') && !where.startsWith('~') && !where.split('/').includes('..');
};

export function analyzeEffects(
  segments: readonly Segment[],
  writes: WriteAnalysis,
  inProject: InProject = lexicalInProject,
): CommandEffects {
  const links = linksMade(segments);
  const codeInValues = segments.some(
    (s) => Object.values(s.assignments).some(isCode) || (DECLARES.has(s.name) && s.argv.slice(1).some(isCode)),
  );
  const out: SegmentEffects[] = segments.map((segment, index) => {
    const runs: RunEffect[] = [];
    const inside = (path: string): boolean => insideProject(path, segment, inProject);
    runs.push(...environmentEffects(segment, inside));
    runs.push(...optionEffects(segment, inside, inProject));
    runs.push(...expansionEffects(segment, codeInValues));
    runs.push(...plantedEffects(segments, index, writes, links));
    return { runs, network: isNetwork(segment) };
  });
  const reads: ReadTarget[] = [];
  segments.forEach((segment, index) => reads.push(...readTargets(segments, index)));
  // A link exposes what it points at (and everything below it) to every later read through it.
  for (const link of links) reads.push({ segment: link.segment, path: link.target, via: 'ln', recursive: true });
  return { segments: out, reads, links };
}

// ── environment ─────────────────────────────────────────────────────────────────────────────────────

/** Variables whose value is a program some tool runs (git, man, make, ssh, sudo, cargo, …). */
const PROGRAM_VARS = new Set([
  'GIT_PAGER',
  'PAGER',
  'MANPAGER',
  'SYSTEMD_PAGER',
  'GH_PAGER',
  'PSQL_PAGER',
  'BAT_PAGER',
  'DELTA_PAGER',
  'GIT_EDITOR',
  'EDITOR',
  'VISUAL',
  'GIT_SEQUENCE_EDITOR',
  'GH_EDITOR',
  'KUBE_EDITOR',
  'SVN_EDITOR',
  'FCEDIT',
  'PSQL_EDITOR',
  'GIT_EXTERNAL_DIFF',
  'GIT_SSH_COMMAND',
  'GIT_SSH',
  'GIT_ASKPASS',
  'SSH_ASKPASS',
  'SUDO_ASKPASS',
  'GIT_PROXY_COMMAND',
  'HGEDITOR',
  'HGMERGE',
  'JJ_EDITOR',
  'BROWSER',
  'CC',
  'CXX',
  'CPP',
  'LD',
  'AR',
  'AS',
  'RUSTC_WRAPPER',
  'RUSTC',
  'RUSTDOC',
  'CARGO_BUILD_RUSTC_WRAPPER',
  'RSYNC_RSH',
  'SHELL',
  'CONFIG_SHELL',
  'MAKESHELL',
  'TERMINAL',
]);

/** Programs that, named as a pager / editor / compiler, run nothing else. */
const HARMLESS_PROGRAMS = new Set([
  '',
  'cat',
  'less',
  'more',
  'most',
  'true',
  'false',
  ':',
  'vim',
  'vi',
  'nvim',
  'nano',
  'emacs',
  'code',
  'subl',
  'delta',
  'bat',
  'diff-so-fancy',
  'gcc',
  'g++',
  'cc',
  'c++',
  'clang',
  'clang++',
  'ld',
  'ar',
  'as',
  'rustc',
  'ssh',
  'bash',
  'sh',
  'zsh',
  'dash',
]);
const SYSTEM_BIN = /^\/(?:usr\/(?:local\/)?)?s?bin\//;

/** Variables that load or run code whatever their value (unless empty). */
const CODE_VARS = new Set([
  'LD_PRELOAD',
  'LD_AUDIT',
  'DYLD_INSERT_LIBRARIES',
  'BASH_ENV',
  'ENV',
  'PROMPT_COMMAND',
  'LESSOPEN',
  'LESSCLOSE',
  'PYTHONSTARTUP',
  'PERL5DB',
  'GIT_CONFIG_PARAMETERS',
  'GIT_CONFIG_COUNT',
  'GIT_CONFIG',
  'GIT_EXEC_PATH',
  'GIT_TEMPLATE_DIR',
  // hg's and jj's configuration files: they name pagers, hooks, extensions, merge and diff tools
  'HGRCPATH',
  'JJ_CONFIG',
  'GCONV_PATH',
  'OPENSSL_CONF',
  'PHPRC',
  'PHP_INI_SCAN_DIR',
  'RIPGREP_CONFIG_PATH',
  'EXINIT',
  'VIMINIT',
  'MYVIMRC',
  'KUBECONFIG',
  'AWS_CONFIG_FILE',
  'DOCKER_CONFIG',
  'CLOUDSDK_CONFIG',
  'HOME',
  'ZDOTDIR',
  'XDG_CONFIG_HOME',
  'PYTEST_PLUGINS',
  'LESSKEY',
  'LESSKEYIN',
  'LESSKEY_SRC',
  'ZIPOPT',
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_COMMON_DIR',
  'NODE_REPL_EXTERNAL_MODULE',
  'PERL5OPT',
  'RUBYOPT',
  'INPUTRC',
  'BASHOPTS',
  'SHELLOPTS',
  'IFS',
]);
const CODE_VAR_PATTERNS = [
  /^GIT_CONFIG_(?:KEY|VALUE)_\d+$/,
  /^BASH_FUNC_/,
  /^CARGO_TARGET_\w+_RUNNER$/,
  /^(?:npm|NPM)_config_/i,
  /^PS[0-4]$/,
];
/** `npm_config_*` settings that change nothing but output. */
const HARMLESS_NPM_CONFIG = /^npm_config_(?:loglevel|progress|fund|audit|update_notifier|color|yes|cache)$/i;

/** Directory lists that code is loaded from: harmless when every entry is inside the project. */
const LOAD_PATH_VARS = new Set([
  'PYTHONPATH',
  'PYTHONHOME',
  'PYTHONUSERBASE',
  'NODE_PATH',
  'PERL5LIB',
  'PERLLIB',
  'RUBYLIB',
  'LD_LIBRARY_PATH',
  'DYLD_LIBRARY_PATH',
  'DYLD_FRAMEWORK_PATH',
  'CLASSPATH',
]);

const SAFE_NODE_OPTION =
  /^--(?:max-old-space-size|max-semi-space-size|stack-size|enable-source-maps|no-warnings|no-deprecation|trace-warnings|trace-deprecation|trace-uncaught|experimental-vm-modules|experimental-specifier-resolution|unhandled-rejections|throw-deprecation|pending-deprecation|no-experimental-fetch|expose-gc|dns-result-order|openssl-legacy-provider|use-openssl-ca|use-bundled-ca|title|conditions|input-type|heapsnapshot-signal|report-on-signal|disable-warning|experimental-strip-types|no-experimental-strip-types|experimental-detect-module|preserve-symlinks)(?:=[\w.:,-]*)?$|^-C$/;
const SAFE_MAKEFLAG =
  /^(?:-?j\d*|-?[sSkBwrRiqe]+|--no-print-directory|--print-directory|-?O\w*|--output-sync(?:=\w+)?|-l\d+(?:\.\d+)?|--jobserver-\S+|--no-builtin-rules|--no-builtin-variables|--silent|--keep-going|-+)$/;
const SAFE_PYTEST_OPTION =
  /^(?:-[xqvsrlfW]+|-ra|-rA|-rf|-n\s*\w*|-n|\d+|auto|--tb=\w+|--maxfail=\d+|--color=\w+|--no-header|--strict-markers|--durations=\d+|--disable-warnings|-p|no:[\w.]+|--lf|--ff|--sw|--cov(?:=[\w./-]*)?|--cov-report=[\w:./-]+|--import-mode=\w+|--showlocals|--capture=\w+|--benchmark-\S+|-m|--dist=\w+|--timeout=\d+)$/;
const RISKY_JAVA_OPTION =
  /-javaagent|-agentlib|-agentpath|-XX:On|-XX:\+?StartFlightRecording|-Djava\.system\.class\.loader/;

function programOf(value: string): string | undefined {
  const words = value.trim().split(/\s+/);
  if (/[;|&$`()<>\\'"]/.test(value)) return undefined;
  const first = words[0] ?? '';
  const name = SYSTEM_BIN.test(first) ? first.slice(first.lastIndexOf('/') + 1) : first;
  if (!HARMLESS_PROGRAMS.has(name) || !words.slice(1).every((w) => /^-[\w=.-]*$/.test(w))) return undefined;
  return name;
}

/** A path a segment names (`$PWD/x` is `x` where it runs) stays inside the project; an expansion does not. */
function insideProject(entry: string, segment: Segment, inProject: InProject): boolean {
  const e = entry.replace(/^\$\{?PWD\}?\//, '');
  if (e === '' || e.includes('$') || e.includes('`')) return false;
  return inProject(e, segment);
}

/** Whether a path stays inside the project, as the caller of environmentRisk judges it. */
type Inside = (path: string) => boolean;

const SYSTEM_PATH_DIRS = new Set([
  '/usr/local/sbin',
  '/usr/local/bin',
  '/usr/sbin',
  '/usr/bin',
  '/sbin',
  '/bin',
  '/opt/homebrew/bin',
  '/opt/homebrew/sbin',
  '/snap/bin',
]);
const HOME_BIN =
  /^(?:~|\$HOME|\$\{HOME\})\/(?:\.local\/bin|bin|\.cargo\/bin|go\/bin|\.bun\/bin|\.deno\/bin|\.npm-global\/bin|\.volta\/bin|\.pyenv\/(?:bin|shims))$/;

/** PATH entries searched before the inherited PATH that could hold a program planted by an agent. */
function riskyPath(value: string): string | undefined {
  for (const entry of value.split(':')) {
    if (entry === '$PATH' || entry === '${PATH}') return undefined; // what follows is searched last
    // A project directory is no better: a file written there earlier (by this call or a Write) runs.
    if (SYSTEM_PATH_DIRS.has(entry) || HOME_BIN.test(entry)) continue;
    return entry === '' || entry === '.' ? 'the current directory' : entry;
  }
  return undefined;
}

/** Why setting NAME=VALUE makes a program run code, or undefined when it does not. */
export function environmentRisk(
  name: string,
  value: string,
  inside: Inside = (path) => lexicalInProject(path, { flags: {} }),
): string | undefined {
  if (PROGRAM_VARS.has(name)) {
    return programOf(value) === undefined
      ? `${name}=${short(value)} names a program that runs instead of (or inside) the command`
      : undefined;
  }
  if (name === 'PATH') {
    const risky = riskyPath(value);
    return risky === undefined
      ? undefined
      : `PATH puts ${short(risky)} before the system directories, so a program planted there runs instead of the one named`;
  }
  if (LOAD_PATH_VARS.has(name)) {
    const outside = value.split(':').filter((e) => e !== '' && !/^\$\{?\w+\}?$/.test(e) && !inside(e));
    return outside.length > 0 ? `${name} loads code from ${short(outside[0]!)}, outside the project` : undefined;
  }
  if (name === 'NODE_OPTIONS') {
    const bad = value.split(/\s+/).filter((o) => o !== '' && !SAFE_NODE_OPTION.test(o));
    return bad.length > 0
      ? `NODE_OPTIONS=${short(value)} can load code into every node process (${short(bad[0]!)})`
      : undefined;
  }
  if (name === 'MAKEFLAGS' || name === 'MFLAGS' || name === 'GNUMAKEFLAGS') {
    const bad = value.split(/\s+/).filter((o) => o !== '' && !SAFE_MAKEFLAG.test(o));
    return bad.length > 0
      ? `${name}=${short(value)} passes make options or variables that can change what its recipes run`
      : undefined;
  }
  if (name === 'PYTEST_ADDOPTS') {
    const bad = value.split(/\s+/).filter((o) => o !== '' && !SAFE_PYTEST_OPTION.test(o));
    return bad.length > 0
      ? `PYTEST_ADDOPTS=${short(value)} passes pytest options hookwise does not vet (${short(bad[0]!)})`
      : undefined;
  }
  if (/^(?:JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|JDK_JAVA_OPTIONS|MAVEN_OPTS|GRADLE_OPTS|JAVA_OPTS)$/.test(name)) {
    return RISKY_JAVA_OPTION.test(value) ? `${name} loads an agent or runs a command in the JVM` : undefined;
  }
  if (name === 'GOFLAGS')
    return /-toolexec|-exec|-overlay/.test(value) ? `GOFLAGS=${short(value)} makes go run another program` : undefined;
  if (name === 'RUSTFLAGS' || name === 'CARGO_ENCODED_RUSTFLAGS')
    return /linker|link-arg|plugin/.test(value) ? `${name} makes rustc run another linker or plugin` : undefined;
  if (name === 'TAR_OPTIONS')
    return /to-command|checkpoint-action|compress-program|-I|rsh-command|info-script|volume-script/.test(value)
      ? 'TAR_OPTIONS makes tar run another program'
      : undefined;
  if (name === 'LESS')
    return /[!|]|-k|lesskey/.test(value) ? 'LESS passes less commands or a key file that can run programs' : undefined;
  if ((name === 'GIT_CONFIG_GLOBAL' || name === 'GIT_CONFIG_SYSTEM') && value !== '/dev/null')
    return `${name} makes git read its configuration (pagers, hooks, aliases) from ${short(value)}`;
  if (HARMLESS_NPM_CONFIG.test(name)) return undefined;
  if (CODE_VARS.has(name) || CODE_VAR_PATTERNS.some((re) => re.test(name))) {
    if (value === '' && !name.startsWith('BASH_FUNC_')) return undefined;
    if (/^PS[0-4]$/.test(name) && !isCode(value)) return undefined;
    return `${name}=${short(value)} makes the programs it reaches load or run other code`;
  }
  return undefined;
}

const DECLARES = new Set(['export', 'declare', 'typeset', 'local', 'readonly']);

function environmentEffects(segment: Segment, inside: Inside): RunEffect[] {
  const out: RunEffect[] = [];
  const pairs: [string, string][] = Object.entries(segment.assignments);
  if (DECLARES.has(segment.name)) {
    for (const word of segment.argv.slice(1)) {
      const eq = word.indexOf('=');
      if (eq > 0 && !word.startsWith('-')) pairs.push([word.slice(0, eq), word.slice(eq + 1)]);
    }
  }
  for (const [name, value] of pairs) {
    const risk = environmentRisk(name, value, inside);
    if (risk !== undefined) out.push({ kind: 'environment', detail: risk });
  }
  for (const name of setAtRunTime(segment)) {
    // Any value could come: a variable that is risky for some value is risky here.
    if (environmentRisk(name, '/run-time/value', inside) !== undefined)
      out.push({
        kind: 'environment',
        detail: `\`${segment.name}\` sets ${name} from data at run time, which changes what later commands run`,
      });
  }
  return out;
}

/** Variables a builtin sets from data: `read [-a] NAME…`, `printf -v NAME`, `mapfile`/`readarray NAME`, `getopts s NAME`. */
function setAtRunTime(segment: Segment): string[] {
  const argv = segment.argv;
  const names = (words: readonly string[]): string[] => words.filter((w) => /^[A-Za-z_]\w*$/.test(w));
  switch (segment.name) {
    case 'read':
      return names(
        argv.slice(1).filter((w, k, all) => !w.startsWith('-') && !/^-[dinNpt]$/.test(all[k - 1] ?? '')),
      ).concat(optionValues(argv, 'a', []));
    case 'printf':
      return optionValues(argv, 'v', []);
    case 'mapfile':
    case 'readarray':
      return names(argv.slice(1).filter((w, k, all) => !w.startsWith('-') && !/^-[dnOsuC]$/.test(all[k - 1] ?? '')));
    case 'getopts':
      return names(argv.slice(2, 3));
    default:
      return [];
  }
}

// ── options ─────────────────────────────────────────────────────────────────────────────────────────

/** `-o value`, `-ovalue`, `--opt value`, `--opt=value`: every value given for the named options. */
function optionValues(argv: readonly string[], short: string, long: readonly string[] = []): string[] {
  const values: string[] = [];
  for (let i = 1; i < argv.length; i++) {
    const w = argv[i]!;
    if (w === '--') break;
    for (const l of long) {
      if (w === `--${l}`) values.push(argv[i + 1] ?? '');
      else if (w.startsWith(`--${l}=`)) values.push(w.slice(l.length + 3));
    }
    if (short !== '' && /^-[A-Za-z0-9]/.test(w) && !w.startsWith('--')) {
      const at = w.indexOf(short, 1);
      if (at === -1) continue;
      // Only when every letter before it is a plain flag letter (a cluster like -avze).
      if (!/^[A-Za-z0-9]*$/.test(w.slice(1, at))) continue;
      const rest = w.slice(at + 1);
      values.push(rest !== '' ? rest.replace(/^=/, '') : (argv[i + 1] ?? ''));
    }
  }
  return values;
}

const has = (argv: readonly string[], ...words: string[]): boolean =>
  argv.some((w) => words.includes(w) || words.some((x) => x.startsWith('--') && w.startsWith(`${x}=`)));

/** `git -c` keys that change only how output looks or who commits. */
const SAFE_GIT_CONFIG =
  /^(?:color\.[\w.-]+|core\.(?:quotepath|abbrev|autocrlf|safecrlf|filemode|ignorecase|precomposeunicode)|user\.(?:name|email)|author\.(?:name|email)|committer\.(?:name|email)|advice\.[\w.-]+|init\.defaultbranch|column\.ui|log\.(?:date|decorate|showsignature|follow)|diff\.(?:noprefix|mnemonicprefix|renames|colormoved|algorithm|indentheuristic)|i18n\.[\w.-]+|format\.pretty|pull\.(?:rebase|ff)|merge\.conflictstyle|commit\.gpgsign|tag\.gpgsign|maintenance\.auto|gc\.auto|fetch\.prune|push\.default|rebase\.autostash|status\.[\w.-]+|blame\.[\w.-]+|protocol\.version|http\.sslverify)$/i;

/** `git config` keys whose value is code git runs later, or that change where it loads code from. */
export const GIT_CODE_CONFIG =
  /^(?:core\.(?:pager|editor|sshcommand|hookspath|fsmonitor|askpass|gitproxy|alternaterefscommand|worktree|bare)|alias\..+|pager\..+|diff\..+\.(?:textconv|command)|diff\.external|difftool\..+\.cmd|mergetool\..+\.cmd|merge\..+\.driver|filter\..+\.(?:clean|smudge|process)|credential(?:\..+)?\.helper|sequence\.editor|gpg(?:\..+)?\.program|include\.path|includeif\..+|uploadpack\.packobjectshook|url\..+\.(?:insteadof|pushinsteadof)|remote\..+\.(?:uploadpack|receivepack|proxy|vcs|url|pushurl)|https?\.(?:.+\.)?proxy|sendemail\..+|web\.browser|browser\..+\.(?:cmd|path)|man\..+\.(?:cmd|path)|instaweb\..+|submodule\..+\.update|safe\.directory|init\.templatedir|receive\.procreceiverefs|protocol\..+\.allow|core\.fsmonitorhookversion)$/i;

function gitEffects(argv: readonly string[], inside: Inside): RunEffect[] {
  const out: RunEffect[] = [];
  let i = 1;
  // Global options before the subcommand.
  for (; i < argv.length; i++) {
    const w = argv[i]!;
    if (!w.startsWith('-')) break;
    if (w === '-c' || (w.startsWith('-c') && w.length > 2)) {
      const pair = w === '-c' ? (argv[++i] ?? '') : w.slice(2);
      const key = pair.split('=')[0]!;
      if (!SAFE_GIT_CONFIG.test(key))
        out.push({
          kind: 'option',
          detail: `git -c ${short(pair)} sets configuration that can make git run a program`,
        });
    } else if (w === '--config-env' || w.startsWith('--config-env=') || w.startsWith('--exec-path=')) {
      out.push({ kind: 'option', detail: `git ${short(w)} changes what git runs` });
      if (w === '--config-env') i++;
    } else if (w === '-C' || w === '--git-dir' || w === '--work-tree') {
      const dir = argv[++i] ?? '';
      if (!inside(dir))
        out.push({
          kind: 'option',
          detail: `git ${w} ${short(dir)} runs git in a repository outside the project, whose configuration and hooks can run programs`,
        });
    } else if (w.startsWith('--git-dir=') || w.startsWith('--work-tree=')) {
      const dir = w.slice(w.indexOf('=') + 1);
      if (!inside(dir))
        out.push({
          kind: 'option',
          detail: `git ${short(w)} runs git in a repository outside the project, whose configuration and hooks can run programs`,
        });
    }
  }
  const sub = argv[i];
  const rest = argv.slice(i);
  const flag = (detail: string): void => {
    out.push({ kind: 'option', detail });
  };
  switch (sub) {
    case 'fetch':
    case 'pull':
    case 'clone':
    case 'ls-remote':
    case 'archive':
    case 'push':
    case 'submodule':
      if (
        rest.some((w) => /^--(?:upload-pack|receive-pack|exec)(?:=|$)/.test(w)) ||
        ((sub === 'clone' || sub === 'ls-remote') && rest.includes('-u'))
      )
        flag(`git ${sub} with a remote program option runs that program`);
      if (
        sub === 'clone' &&
        (optionValues(rest, 'c', ['config']).some((p) => !SAFE_GIT_CONFIG.test(p.split('=')[0]!)) ||
          has(rest, '--template'))
      )
        flag('git clone with configuration or a template can install hooks or programs');
      if (sub === 'submodule' && rest.includes('foreach'))
        flag('git submodule foreach runs a command in every submodule');
      break;
    case 'grep':
      if (rest.some((w) => w === '-O' || /^--open-files-in-pager(?:=|$)/.test(w) || /^-O./.test(w)))
        flag('git grep --open-files-in-pager runs a program on the matches');
      break;
    case 'rebase':
      if (rest.some((w) => w === '-x' || /^--exec(?:=|$)/.test(w)))
        flag('git rebase --exec runs a command after each commit');
      break;
    case 'bisect':
      if (rest[1] === 'run') flag('git bisect run runs a command at each step');
      break;
    case 'difftool':
    case 'mergetool':
      if (rest.some((w) => w === '-x' || /^--(?:extcmd|tool)(?:=|$)/.test(w) || w === '-t'))
        flag(`git ${sub} with a tool option runs that program`);
      break;
    case 'filter-branch':
    case 'filter-repo':
      flag(`git ${sub} runs filter commands over history`);
      break;
    case 'send-email':
      if (rest.some((w) => /^--(?:to-cmd|cc-cmd|header-cmd|sendmail-cmd|smtp-server)(?:=|$)/.test(w)))
        flag('git send-email runs a configured command');
      break;
    case 'config': {
      const key = gitConfigSetKey(rest);
      if (key !== undefined && GIT_CODE_CONFIG.test(key))
        out.push({
          kind: 'config',
          detail: `git config ${short(key)} makes git run a program later (or changes where it loads code from)`,
        });
      break;
    }
    default:
      break;
  }
  return out;
}

/** The key a `git config …` call sets, or undefined when it only reads. */
export function gitConfigSetKey(rest: readonly string[]): string | undefined {
  const positionals: string[] = [];
  let reads = false;
  for (let i = 1; i < rest.length; i++) {
    const w = rest[i]!;
    if (
      /^--(?:get|get-all|get-regexp|get-urlmatch|list|show-origin|show-scope|name-only|null|includes|no-includes)$/.test(
        w,
      ) ||
      w === '-l' ||
      w === '-z'
    ) {
      if (
        w !== '--show-origin' &&
        w !== '--show-scope' &&
        w !== '--includes' &&
        w !== '--null' &&
        w !== '-z' &&
        w !== '--name-only' &&
        w !== '--no-includes'
      )
        reads = true;
      continue;
    }
    if (w === '-f' || w === '--file' || w === '--blob' || w === '--type' || w === '--default' || w === '--comment') {
      i++;
      continue;
    }
    if (w.startsWith('-')) continue;
    positionals.push(w);
  }
  if (reads) return undefined;
  const [first, second] = positionals;
  if (
    first === 'get' ||
    first === 'list' ||
    first === 'unset' ||
    first === 'remove-section' ||
    first === 'rename-section'
  )
    return undefined;
  if (first === 'set') return second;
  return positionals.length >= 2 ? first : undefined;
}

const AWK = new Set(['awk', 'gawk', 'mawk', 'nawk']);
/** awk code that runs a program or writes a file: system(), `cmd | getline`, `print | "cmd"`, `print > "f"`, `|&`. */
const AWK_RUNS = /\bsystem\s*\(|\|\s*getline|\|&|\b(?:print|printf)\b[^;{}\n]*[|>]|@load|\bexec\b/;

function awkEffects(argv: readonly string[], inside: Inside): RunEffect[] {
  const programs = optionValues(argv, 'e', ['source']);
  const files = optionValues(argv, 'f', ['file', 'exec']).concat(optionValues(argv, 'E', []));
  if (has(argv, '-l', '--load') || optionValues(argv, 'l', ['load']).length > 0)
    return [{ kind: 'option', detail: 'awk --load loads a compiled extension' }];
  if (files.some((f) => !inside(f)))
    return [{ kind: 'option', detail: `awk -f runs a program file from outside the project (${short(files[0]!)})` }];
  if (programs.length === 0 && files.length === 0) {
    const first = firstOperand(argv, ['F', 'v', 'f', 'e', 'E', 'i', 'l']);
    if (first !== undefined) programs.push(first);
  }
  return programs.some((p) => AWK_RUNS.test(p))
    ? [{ kind: 'option', detail: 'the awk program runs commands or writes files (system(), pipes, redirections)' }]
    : [];
}

/** The first word that is not an option or an option's value. */
function firstOperand(argv: readonly string[], withValue: readonly string[]): string | undefined {
  for (let i = 1; i < argv.length; i++) {
    const w = argv[i]!;
    if (w === '--') return argv[i + 1];
    if (!w.startsWith('-') || w === '-') return w;
    if (w.length === 2 && withValue.includes(w[1]!)) i++;
  }
  return undefined;
}

export interface SedScript {
  /** An `e` command or an `s///e` flag: runs shell commands. */
  executes: boolean;
  /** `w`/`W` commands or an `s///w` flag: writes files. */
  writes: boolean;
  /** Files read by `r`/`R` commands. */
  reads: string[];
  /** The script could not be read: treat as executing. */
  unknown: boolean;
}

/** Reads a sed script just far enough to find the commands that run, write or read. */
export function sedScript(script: string): SedScript {
  const out: SedScript = { executes: false, writes: false, reads: [], unknown: false };
  let i = 0;
  const n = script.length;
  const skipSpace = (): void => {
    while (i < n && /[\s;]/.test(script[i]!)) i++;
  };
  const delimited = (delim: string): boolean => {
    // Reads up to the next unescaped delim; false when it never comes.
    while (i < n && script[i] !== delim) {
      if (script[i] === '\\') i++;
      else if (script[i] === '\n' && delim !== '\n') return false;
      i++;
    }
    if (i >= n) return false;
    i++;
    return true;
  };
  const address = (): boolean => {
    for (let part = 0; part < 2; part++) {
      if (script[i] === '/' || script[i] === '\\') {
        const delim = script[i] === '\\' ? script[++i]! : '/';
        i++;
        if (!delimited(delim)) return false;
        while (i < n && /[IM]/.test(script[i]!)) i++;
      } else {
        while (i < n && /[\d$~+]/.test(script[i]!)) i++;
      }
      if (script[i] === ',' && part === 0) i++;
      else break;
    }
    while (i < n && /[\s!]/.test(script[i]!)) i++;
    return true;
  };
  const restOfLine = (): string => {
    const start = i;
    while (i < n && script[i] !== '\n' && script[i] !== ';') i++;
    return script.slice(start, i).trim();
  };
  let guard = 0;
  while (i < n && guard++ < 10_000) {
    skipSpace();
    if (i >= n) break;
    if (script[i] === '#') {
      while (i < n && script[i] !== '\n') i++;
      continue;
    }
    if (script[i] === '}' || script[i] === '{') {
      i++;
      continue;
    }
    if (!address()) return { ...out, unknown: true };
    const cmd = script[i++];
    switch (cmd) {
      case 's':
      case 'y': {
        const delim = script[i++];
        if (delim === undefined || delim === '\n' || delim === '\\') return { ...out, unknown: true };
        if (!delimited(delim) || !delimited(delim)) return { ...out, unknown: true };
        if (cmd === 'y') break;
        const flagsStart = i;
        while (i < n && /[gpiImMe0-9]/.test(script[i]!)) i++;
        const flags = script.slice(flagsStart, i);
        if (flags.includes('e')) out.executes = true;
        if (script[i] === 'w') {
          out.writes = true;
          i++;
          restOfLine();
        }
        break;
      }
      case 'e':
        out.executes = true;
        restOfLine();
        break;
      case 'w':
      case 'W':
        out.writes = true;
        restOfLine();
        break;
      case 'r':
      case 'R': {
        const file = restOfLine();
        if (file !== '') out.reads.push(file);
        break;
      }
      case 'a':
      case 'i':
      case 'c':
        // GNU one-line text: the rest of the line is text (a `;` does not end it).
        while (i < n && script[i] !== '\n') i++;
        break;
      case 'b':
      case 't':
      case 'T':
      case ':':
      case 'l':
      case 'L':
      case 'q':
      case 'Q':
        restOfLine();
        break;
      case 'v':
        restOfLine();
        break;
      case undefined:
        break;
      default:
        if (cmd === undefined || !/[=dDgGhHnNpPxzF]/.test(cmd)) return { ...out, unknown: true };
    }
  }
  return out;
}

/** The sed scripts a segment runs (all -e values, or the first operand), and whether it reads script files. */
function sedScripts(argv: readonly string[]): { scripts: string[]; files: string[] } {
  const scripts = optionValues(argv, 'e', ['expression']);
  const files = optionValues(argv, 'f', ['file']);
  if (scripts.length === 0 && files.length === 0) {
    const first = firstOperand(argv, ['e', 'f', 'l']);
    if (first !== undefined) scripts.push(first);
  }
  return { scripts, files };
}

function sedEffects(argv: readonly string[], inside: Inside): RunEffect[] {
  if (argv.includes('--sandbox')) return [];
  const { scripts, files } = sedScripts(argv);
  if (files.some((f) => !inside(f)))
    return [{ kind: 'option', detail: `sed -f runs a script from outside the project (${short(files[0]!)})` }];
  for (const script of scripts) {
    const s = sedScript(script);
    if (s.unknown)
      return [
        {
          kind: 'option',
          detail: `hookwise cannot read the sed script ${short(script)}, so it may run commands (the e command)`,
        },
      ];
    if (s.executes)
      return [{ kind: 'option', detail: 'the sed script runs shell commands (the e command or the s///e flag)' }];
    if (s.writes) return [{ kind: 'option', detail: 'the sed script writes files (w / W commands or the s///w flag)' }];
  }
  return [];
}

const VIM = new Set(['vim', 'vi', 'nvim', 'ex', 'view', 'vimdiff', 'gvim', 'rvim', 'evim']);
const SSH_LIKE = new Set(['ssh', 'scp', 'sftp', 'autossh', 'mosh']);
const SSH_CODE_OPTION =
  /^(?:ProxyCommand|LocalCommand|PermitLocalCommand|KnownHostsCommand|Match|PKCS11Provider|SecurityKeyProvider)\b/i;

/** Test runners, linters and build tools whose configuration files are code (they import plugins, setup files). */
const CONFIGURED_TOOLS = new Set([
  'vitest',
  'jest',
  'mocha',
  'ava',
  'playwright',
  'cypress',
  'eslint',
  'prettier',
  'stylelint',
  'biome',
  'tsc',
  'vue-tsc',
  'webpack',
  'vite',
  'rollup',
  'esbuild',
  'babel',
  'karma',
  'nyc',
  'c8',
  'tsx',
  'ts-node',
]);
const CODE_CONFIG_OPTIONS =
  /^--(?:config|config-file|configFile|globalSetup|globalTeardown|setupFiles|setupFilesAfterEnv|testEnvironment|transform|resolver|testRunner|require|loader|plugin|rulesdir|resolve-plugins-relative-to|project|workspace|reporter|environment|dir)(?:=|$)/;

/** `npx vitest --config /tmp/x.mjs`, `jest --config '{…}'`: the tool loads code from outside the project. */
function toolConfigEffects(segment: Segment, inside: Inside): RunEffect[] {
  const argv = segment.argv;
  const tool = [segment.name, ...argv.slice(1, 4)].find((w) => CONFIGURED_TOOLS.has(w));
  if (tool === undefined) return [];
  for (let i = 1; i < argv.length; i++) {
    const w = argv[i]!;
    const shortOption = w === '-c' || w === '-p' || w === '-r';
    if (!CODE_CONFIG_OPTIONS.test(w) && !shortOption) continue;
    const value = w.includes('=') ? w.slice(w.indexOf('=') + 1) : (argv[i + 1] ?? '');
    if (value.startsWith('{') || (value !== '' && !value.startsWith('-') && !inside(value))) {
      return [
        {
          kind: 'option',
          detail: `${tool} ${short(w)} loads configuration or code from ${short(value)}, outside the project`,
        },
      ];
    }
  }
  return [];
}

/** Programs that run the code of the directory they run in: outside the project, that is not the project's code. */
const RUNS_DIRECTORY_CODE = new Set([
  'git',
  'npm',
  'pnpm',
  'yarn',
  'bun',
  'npx',
  'make',
  'gmake',
  'pytest',
  'py.test',
  'tox',
  'cargo',
  'go',
  'mvn',
  'gradle',
  'rake',
  'bundle',
  'composer',
  'just',
  'task',
  'vitest',
  'jest',
  'mocha',
  'tsc',
  'eslint',
  'prettier',
  'terraform',
  'tofu',
  'direnv',
  'poetry',
  'uv',
  'pip',
  'pip3',
]);

function foreignDirectory(segment: Segment, inProject: InProject): RunEffect[] {
  if (!RUNS_DIRECTORY_CODE.has(segment.name)) return [];
  if (segment.flags.cwdUnknown === true)
    return [
      {
        kind: 'option',
        detail: `\`${segment.name}\` runs in a directory hookwise cannot know (an earlier \`cd\` to an expansion, \`cd -\`, \`popd\`, a \`cd\` through CDPATH, a \`cd\` that may not run), where its configuration, hooks or scripts may not be the project's`,
      },
    ];
  const cwd = segment.cwd;
  // The directory itself, relative to the command's own working directory.
  if (cwd === undefined || insideProject(cwd, { ...segment, cwd: undefined }, inProject)) return [];
  return [
    {
      kind: 'option',
      detail: `\`${segment.name}\` runs in ${short(cwd)}, outside the project, where its configuration, hooks or scripts are not the project's`,
    },
  ];
}

function optionEffects(segment: Segment, inside: Inside, inProject: InProject): RunEffect[] {
  const generic = [...toolConfigEffects(segment, inside), ...foreignDirectory(segment, inProject)];
  return generic.length > 0 ? generic : programOptionEffects(segment, inside);
}

function programOptionEffects(segment: Segment, inside: Inside): RunEffect[] {
  const argv = segment.argv;
  const name = segment.name;
  const one = (detail: string): RunEffect[] => [{ kind: 'option', detail }];
  if (name === 'git') return gitEffects(argv, inside);
  if (AWK.has(name)) return awkEffects(argv, inside);
  if (name === 'sed' || name === 'gsed') return sedEffects(argv, inside);
  if (name === 'less' || name === 'more' || name === 'most') {
    if (argv.some((w) => w.startsWith('+') && /[!|]/.test(w))) return one(`${name} +… runs a shell command`);
    if (
      argv.some((w) => /^-[A-Za-z]*[oOk]/.test(w) || /^--(?:log-file|LOG-FILE|lesskey-file|lesskey-src)(?:=|$)/.test(w))
    )
      return one(`${name} with a log or key file option writes a file or runs key commands`);
    return [];
  }
  if (name === 'man')
    return has(argv, '-P', '--pager', '-H', '--html', '--browser') || argv.some((w) => /^-[A-Za-z]*[PH]/.test(w))
      ? one('man with a pager or browser option runs that program')
      : [];
  if (name === 'tar' || name === 'bsdtar' || name === 'gtar') {
    const risky = argv.some(
      (w, k) =>
        /^--(?:to-command|checkpoint-action|use-compress-program|rsh-command|info-script|new-volume-script|rmt-command)(?:=|$)/.test(
          w,
        ) ||
        (k > 0 && /^-[A-Za-z]*[IF]/.test(w)),
    );
    return risky ? one('tar runs another program (--to-command, --checkpoint-action, -I, --rsh-command, -F)') : [];
  }
  if (name === 'rsync') {
    const shells = optionValues(argv, 'e', ['rsh']);
    if (
      shells.some(
        (v) =>
          !/^ssh(?:\s+-[pi](?:\s*\S+)?|\s+-[oO]\s*(?:StrictHostKeyChecking|UserKnownHostsFile|BatchMode|Port)=\S+)*\s*$/.test(
            v,
          ),
      )
    )
      return one(`rsync -e ${short(shells[0]!)} runs that program as its remote shell`);
    return has(argv, '--rsync-path') ? one('rsync --rsync-path runs a program on the other side') : [];
  }
  if (SSH_LIKE.has(name)) {
    const opts = optionValues(argv, 'o', []);
    if (opts.some((o) => SSH_CODE_OPTION.test(o)))
      return one(`${name} -o ${short(opts.find((o) => SSH_CODE_OPTION.test(o))!)} runs a local command`);
    if (optionValues(argv, 'F', []).some((f) => f !== '/dev/null'))
      return one(`${name} -F reads a configuration that can run commands (ProxyCommand)`);
    if ((name === 'scp' || name === 'sftp') && optionValues(argv, 'S', []).length > 0)
      return one(`${name} -S runs another program as ssh`);
    if (name === 'sftp' && optionValues(argv, 'D', []).length > 0)
      return one('sftp -D runs a local sftp server program');
    if (name === 'ssh' && optionValues(argv, 'I', []).length > 0) return one('ssh -I loads a PKCS#11 library');
    return [];
  }
  if (name === 'ssh-keygen' && optionValues(argv, 'D', []).length > 0)
    return one('ssh-keygen -D loads a PKCS#11 library');
  if (name === 'ssh-add' && (optionValues(argv, 's', []).length > 0 || optionValues(argv, 'S', []).length > 0))
    return one('ssh-add loads a PKCS#11 or security key library');
  if (name === 'make' || name === 'gmake') {
    const files = optionValues(argv, 'f', ['file', 'makefile']);
    if (files.includes('-')) return one('make -f - reads its recipes from stdin');
    if (files.some((f) => !inside(f)))
      return one(`make -f runs recipes from outside the project (${short(files[0]!)})`);
    if (has(argv, '--eval') || optionValues(argv, 'E', []).length > 0)
      return one('make --eval adds recipes given on the command line');
    const dirs = optionValues(argv, 'C', ['directory']);
    if (dirs.some((d) => !inside(d)))
      return one(`make -C runs the Makefile of a directory outside the project (${short(dirs[0]!)})`);
    for (const word of argv.slice(1)) {
      const eq = word.indexOf('=');
      if (eq <= 0 || word.startsWith('-')) continue;
      const variable = word.slice(0, eq).replace(/[:+?!]$/, '');
      // Command-line variables are make variables: only those naming the shell or a program recipes run matter.
      const risky =
        variable === '.SHELLFLAGS' ||
        ((PROGRAM_VARS.has(variable) || variable === 'MAKEFLAGS') &&
          environmentRisk(variable, word.slice(eq + 1)) !== undefined);
      if (risky) return one(`make ${short(word)} changes the program its recipes run`);
    }
    return [];
  }
  if (VIM.has(name)) {
    const code = argv.some(
      (w, k) =>
        k > 0 &&
        (w === '-c' ||
          w === '--cmd' ||
          w === '-S' ||
          w === '-u' ||
          w === '-x' ||
          (w.startsWith('+') && !/^\+\d*$/.test(w) && !w.startsWith('+/'))),
    );
    return code ? one(`${name} runs editor commands given on the command line (they can run shell commands)`) : [];
  }
  if (name === 'emacs' || name === 'emacsclient')
    return argv.some((w) => /^(?:--eval|-l|--load|-f|--funcall|-eval|--script|-x)(?:=|$)/.test(w))
      ? one('emacs evaluates code given on the command line')
      : [];
  if (name === 'rg') return has(argv, '--pre') ? one('rg --pre runs a program on every file it searches') : [];
  if (name === 'fd' || name === 'fdfind')
    return has(argv, '-x', '--exec', '-X', '--exec-batch') ? one(`${name} --exec runs a command on every result`) : [];
  if (name === 'sort') return has(argv, '--compress-program') ? one('sort --compress-program runs that program') : [];
  if (name === 'zip') return has(argv, '-TT', '--unzip-command') ? one('zip -TT runs a test command') : [];
  if (name === 'wget')
    return has(argv, '-e', '--execute', '--use-askpass') || argv.some((w) => /^-[A-Za-z]*e./.test(w))
      ? one('wget --execute / --use-askpass runs wgetrc commands or a program')
      : [];
  if (name === 'openssl') return has(argv, '-engine') ? one('openssl -engine loads a shared library') : [];
  if (
    name === 'pytest' ||
    name === 'py.test' ||
    (name.startsWith('python') && argv[1] === '-m' && argv[2] === 'pytest')
  ) {
    if (has(argv, '--basetemp')) return one('pytest --basetemp deletes and recreates the directory it names');
    const configs = optionValues(argv, 'c', ['config-file']);
    if (configs.some((c) => !inside(c)))
      return one(`pytest -c reads a configuration from outside the project (${short(configs[0]!)})`);
    return [];
  }
  if (name === 'npm' || name === 'pnpm' || name === 'yarn' || name === 'npx' || name === 'bun' || name === 'pnpx') {
    if (has(argv, '--script-shell')) return one(`${name} --script-shell runs scripts with another program`);
    const nodeOptions = optionValues(argv, '', ['node-options']);
    if (nodeOptions.some((o) => environmentRisk('NODE_OPTIONS', o) !== undefined))
      return one(`${name} --node-options can load code into node`);
    if (has(argv, '--userconfig', '--globalconfig'))
      return one(`${name} reads another configuration file (it can set the script shell)`);
    if ((name === 'npx' || argv[1] === 'exec') && has(argv, '-c', '--call'))
      return one(`${name} --call runs a shell command`);
    return [];
  }
  if (name === 'node' || name === 'deno' || name === 'bun' || name === 'tsx') {
    const loaded = optionValues(argv, 'r', ['require', 'import', 'loader', 'experimental-loader']);
    if (loaded.some((m) => m.startsWith('data:') || m.startsWith('/') || m.startsWith('~') || m.includes('..')))
      return one(`${name} preloads code from ${short(loaded[0]!)}`);
    return [];
  }
  return [];
}

// ── expansions that bash evaluates again ──────────────────────────────────────────────────────────────

/** Text that is shell code if evaluated again: a command substitution or a parameter expansion. */
function isCode(text: string): boolean {
  return text.includes('$(') || text.includes('`') || text.includes('${');
}

/** Builtins that evaluate a name or an arithmetic expression given as data — subscripts included. */
const EVALUATES_NAMES = new Set([
  'printf',
  'test',
  '[',
  '[[',
  '((',
  'let',
  'declare',
  'typeset',
  'local',
  'export',
  'readonly',
  'read',
  'unset',
  'mapfile',
  'readarray',
  'getopts',
  'shift',
  'return',
  'exit',
]);

/** printf evaluates a name only with -v; test / [ only with -v / -R. */
function evaluatesNames(segment: Segment): boolean {
  if (!EVALUATES_NAMES.has(segment.name)) return false;
  if (segment.name === 'printf') return segment.argv.includes('-v');
  if (segment.name === 'test' || segment.name === '[')
    return segment.argv.includes('-v') || segment.argv.includes('-R');
  return true;
}

/** `a[$(…)]`: a subscript holding a command substitution, which bash runs when it evaluates the subscript. */
const SUBSCRIPT_CODE = /\[[^\]]*(?:\$\(|`|\$\{)/;

function expansionEffects(segment: Segment, codeInValues: boolean): RunEffect[] {
  const literals = [
    ...Object.entries(segment.assignments).flat(),
    ...segment.argv.filter((_, k) => k > 0 && !segment.dynamicArgs.includes(k)),
  ];
  if (literals.some((w) => SUBSCRIPT_CODE.test(w))) {
    return [
      {
        kind: 'expansion',
        detail: 'an array subscript holds a command substitution, which bash runs when it evaluates the subscript',
      },
    ];
  }
  const literalCode = segment.argv.some((w, k) => k > 0 && !segment.dynamicArgs.includes(k) && isCode(w));
  const stdinCode =
    (segment.name === 'read' || segment.name === 'mapfile' || segment.name === 'readarray') &&
    segment.stdin !== undefined &&
    isCode(segment.stdin);
  if (evaluatesNames(segment) && (literalCode || stdinCode)) {
    return [
      {
        kind: 'expansion',
        detail: `\`${segment.name}\` evaluates a name or number given as text, and the command substitution in it runs`,
      },
    ];
  }
  const text = segment.text;
  if (/@P\}/.test(text))
    return [
      {
        kind: 'expansion',
        detail: '${var@P} expands a value as a prompt string, running the command substitutions in it',
      },
    ];
  if (/\$\{![A-Za-z_]\w*\}/.test(text))
    return [
      { kind: 'expansion', detail: '${!var} expands a name held in a variable; an array subscript in it runs code' },
    ];
  // A value holding code, evaluated again by arithmetic or a subscript: x='a[$(id)]'; echo $((x)).
  if (codeInValues && (evaluatesNames(segment) || /\$\(\(|\$\[|\$\{\w+\[|\$\{\w+:|\(\(/.test(text))) {
    return [
      {
        kind: 'expansion',
        detail:
          'a variable set to code in this command is evaluated again (arithmetic, a subscript or a name), which runs it',
      },
    ];
  }
  return [];
}

// ── planted programs ──────────────────────────────────────────────────────────────────────────────────

/** Interpreters that run a script file named among their arguments. */
const SCRIPT_RUNNERS = new Set([
  'bash',
  'sh',
  'zsh',
  'dash',
  'ksh',
  'fish',
  'source',
  '.',
  'python',
  'python3',
  'python2',
  'node',
  'deno',
  'bun',
  'ruby',
  'perl',
  'php',
  'tsx',
  'ts-node',
  'Rscript',
  'lua',
  'awk',
  'gawk',
  'make',
  'gmake',
  'env',
]);
/** Programs that run the project's own code (scripts, tests, build files, hooks). */
const PROJECT_RUNNERS = new Set([
  'npm',
  'pnpm',
  'yarn',
  'bun',
  'npx',
  'pnpx',
  'bunx',
  'make',
  'gmake',
  'pytest',
  'py.test',
  'tox',
  'nox',
  'jest',
  'vitest',
  'mocha',
  'cargo',
  'go',
  'mvn',
  'mvnw',
  'gradle',
  'gradlew',
  'rake',
  'bundle',
  'composer',
  'dotnet',
  'poetry',
  'uv',
  'pip',
  'pip3',
  'python',
  'python3',
  'node',
  'tsc',
  'eslint',
  'prettier',
  'playwright',
  'git',
  'just',
  'task',
  'ava',
  'tap',
  'rspec',
  'phpunit',
  'terraform',
  'tofu',
]);
/** Writes that plant nothing: an empty directory or file, or a deletion (`rm -rf dist && npm run build`). */
const INERT_WRITES = new Set(['mkdir', 'touch', 'rm', 'rmdir', 'unlink', 'find -delete']);

/** A path as written, relative to the segment's cwd when it has one; `~` and absolute paths kept. */
function normalized(path: string, cwd: string | undefined): string {
  if (path.startsWith('/') || path === '~' || path.startsWith('~/')) return posix.normalize(path);
  return posix.normalize(cwd === undefined ? path : posix.join(cwd, path));
}

const within = (path: string, dir: string): boolean =>
  path === dir || path.startsWith(dir.endsWith('/') ? dir : `${dir}/`);

function plantedEffects(
  segments: readonly Segment[],
  index: number,
  writes: WriteAnalysis,
  links: readonly LinkMade[],
): RunEffect[] {
  const segment = segments[index]!;
  const before = writes.targets.filter((t) => t.segment < index && !t.dynamic && !t.path.startsWith('/dev/'));
  const planted = before
    .map((t) => normalized(t.path, t.cwd))
    .concat(links.filter((l) => l.segment < index).map((l) => l.link));
  if (planted.length === 0) return [];
  const cwd = segment.cwd;
  const runsWritten = (word: string): boolean => {
    if (word === '' || word.startsWith('-')) return false;
    const path = normalized(word, cwd);
    return planted.some((p) => within(path, p));
  };
  const program = segment.argv[0] ?? '';
  if (program.includes('/') && runsWritten(program))
    return [{ kind: 'planted', detail: `runs ${short(program)}, which this command wrote or linked just before` }];
  // An inline program (`node -e '…'`) is code, not a file it runs.
  if (
    SCRIPT_RUNNERS.has(segment.name) &&
    segment.argv.some((w, k) => k > 0 && k !== segment.flags.inlineCodeArg && runsWritten(w))
  ) {
    return [{ kind: 'planted', detail: `\`${segment.name}\` runs a file this command wrote or linked just before` }];
  }
  const changedProject = before.some(
    (t) => !INERT_WRITES.has(t.via) && !normalized(t.path, t.cwd).startsWith('/') && !t.path.startsWith('~'),
  );
  if (PROJECT_RUNNERS.has(segment.name) && changedProject && segment.name !== 'git') {
    return [
      {
        kind: 'planted',
        detail: `\`${segment.name}\` runs project code (scripts, tests, build files) that this command changed just before`,
      },
    ];
  }
  if (
    segment.name === 'git' &&
    changedProject &&
    before.some(
      (t) => within(normalized(t.path, t.cwd), '.git') || /(?:^|\/)\.git(?:modules|attributes)?$/.test(t.path),
    )
  ) {
    return [{ kind: 'planted', detail: 'git runs after this command changed its configuration or hooks' }];
  }
  return [];
}

/** `ln [opts] target [link]`, `ln [opts] targets… dir`, `ln -t dir targets…`; `cp -s`/`cp -l` alike. */
function linksMade(segments: readonly Segment[]): LinkMade[] {
  const out: LinkMade[] = [];
  segments.forEach((segment, index) => {
    const isLn = segment.name === 'ln';
    const isCpLink =
      segment.name === 'cp' &&
      segment.argv.some((w) => /^-[A-Za-z]*[sl]/.test(w) || w === '--symbolic-link' || w === '--link');
    if (!isLn && !isCpLink) return;
    let dir: string | undefined;
    const positionals: string[] = [];
    const argv = segment.argv;
    for (let i = 1; i < argv.length; i++) {
      const w = argv[i]!;
      if (w === '-t' || w === '--target-directory') dir = argv[++i];
      else if (w.startsWith('--target-directory=')) dir = w.slice(19);
      else if (w === '-S' || w === '--suffix') i++;
      else if (!w.startsWith('-') || w === '-') positionals.push(w);
    }
    const symbolic = argv.some((w) => /^-[A-Za-z]*s/.test(w) || w === '--symbolic' || w === '--symbolic-link');
    const add = (target: string, link: string): void => {
      const linkPath = normalized(link, segment.cwd);
      // A relative symlink target is relative to the link's own directory.
      const targetPath =
        symbolic && !target.startsWith('/') && !target.startsWith('~')
          ? posix.normalize(posix.join(posix.dirname(linkPath), target))
          : normalized(target, segment.cwd);
      out.push({ segment: index, link: linkPath, target: targetPath });
    };
    if (dir !== undefined) for (const t of positionals) add(t, posix.join(dir, posix.basename(t)));
    else if (positionals.length === 1) add(positionals[0]!, posix.basename(positionals[0]!));
    else if (positionals.length === 2) add(positionals[0]!, positionals[1]!);
    else if (positionals.length > 2)
      for (const t of positionals.slice(0, -1)) add(t, posix.join(positionals.at(-1)!, posix.basename(t)));
  });
  return out;
}

// ── reads ─────────────────────────────────────────────────────────────────────────────────────────────

/** Commands whose path operands are not read for their content (names, metadata, or written instead). */
const NOT_READING = new Set([
  'echo',
  'printf',
  'cd',
  'pushd',
  'popd',
  'mkdir',
  'touch',
  'rmdir',
  'rm',
  'test',
  '[',
  '[[',
  'basename',
  'dirname',
  'which',
  'type',
  'command',
  'realpath',
  'readlink',
  'ls',
  'dir',
  'stat',
  'file',
  'du',
  'df',
  'wc',
  'chmod',
  'chown',
  'chgrp',
  'ln',
  ':',
  'true',
  'false',
  'export',
  'declare',
  'local',
  'unset',
  'mv',
  'kill',
  'sleep',
  'exit',
  'find',
  'tree',
  'fd',
  'fdfind',
  'locate',
]);
const ALWAYS_RECURSIVE = new Set([
  'rg',
  'ag',
  'ack',
  'pt',
  'tar',
  'bsdtar',
  'rsync',
  '7z',
  'zip',
  'tree',
  'fd',
  'fdfind',
  'find',
]);

function recursive(segment: Segment): boolean {
  if (ALWAYS_RECURSIVE.has(segment.name)) return true;
  const argv = segment.argv;
  const flags = argv.filter((w) => /^-[A-Za-z]+$/.test(w)).join('');
  if (
    has(argv, '--recursive', '--dereference-recursive', '--archive') ||
    (argv.includes('-d') && argv.includes('recurse'))
  )
    return true;
  switch (segment.name) {
    case 'grep':
    case 'egrep':
    case 'fgrep':
    case 'zgrep':
      return /[rR]/.test(flags);
    case 'cp':
    case 'scp':
    case 'zip':
      return /[rRa]/.test(flags);
    default:
      return /[rR]/.test(flags) && segment.name !== 'sort' && segment.name !== 'head' && segment.name !== 'tail';
  }
}

/** A word that names a file: a path, a dotfile, or the value of `--opt=path` / `@path` / `if=path`. */
function pathOf(word: string): string | undefined {
  let w = word;
  if (w.includes('://')) return undefined;
  const eq = w.startsWith('-') ? w.indexOf('=') : -1;
  if (eq !== -1) w = w.slice(eq + 1);
  else if (w.startsWith('-')) return undefined;
  if (/^(?:if|of)=/.test(w)) w = w.slice(3);
  if (/^\w*=@/.test(w)) w = w.slice(w.indexOf('@') + 1);
  else if (w.startsWith('@') || w.startsWith('<')) w = w.slice(1);
  if (w === '' || w === '-' || w.includes('$') || w.includes('`')) return undefined;
  if (w.startsWith('/') || w.startsWith('~') || w.startsWith('.') || w.includes('/')) return w;
  return undefined;
}

/** `$(<path)`, `$( < "path" )`: the literal paths a word's file-reading substitutions read. */
const FILE_SUBSTITUTION = /\$\(\s*<\s*(?:"([^"$`\\]*)"|'([^']*)'|([^\s()$`;|&<>"'\\]+))\s*\)/g;

function fileSubstitutions(word: string): string[] {
  if (!word.includes('$(')) return [];
  return [...word.matchAll(FILE_SUBSTITUTION)].map((m) => m[1] ?? m[2] ?? m[3]!).filter((f) => f !== '');
}

/** The find search roots a `find … -exec cmd {}` / `find … | xargs cmd` segment reads from. */
function appendedRoots(segments: readonly Segment[], index: number): string[] {
  for (let i = index - 1; i >= 0; i--) {
    const s = segments[i]!;
    if (s.name !== 'find' || s.context === 'find-exec') continue;
    const roots: string[] = [];
    for (let k = 1; k < s.argv.length; k++) {
      const t = s.argv[k]!;
      if (t === '-H' || t === '-L' || t === '-P') continue;
      if (t.startsWith('-') || t === '(' || t === '!') break;
      roots.push(t);
    }
    return roots.length > 0 ? roots : ['.'];
  }
  return [];
}

function readTargets(segments: readonly Segment[], index: number): ReadTarget[] {
  const segment = segments[index]!;
  const out: ReadTarget[] = [];
  const add = (path: string, via: string, isRecursive: boolean): void => {
    const t: ReadTarget = { segment: index, path, via, recursive: isRecursive };
    if (segment.cwd !== undefined) t.cwd = segment.cwd;
    out.push(t);
  };
  for (const r of segment.redirects) {
    // `< "$F"` is a read too, of a file only the run will tell; `< <(cmd)` reads cmd's output (its own segments).
    if ((r.op === '<' || r.op === '<>') && !(r.dynamic && /^[<>]\(/.test(r.target))) add(r.target, '<', false);
  }
  // `$(<file)` / `$(cat file)`'s shorthand: bash reads the file itself, in any word or assignment.
  for (const word of [
    ...segment.argv,
    ...Object.values(segment.assignments),
    ...segment.redirects.map((r) => r.target),
  ])
    for (const file of fileSubstitutions(word)) add(file, '$(<…)', false);
  if (segment.flags.appendsArgs === true) {
    for (const root of appendedRoots(segments, index))
      if (!root.includes('$')) add(root, `find … ${segment.name}`, true);
  }
  if (NOT_READING.has(segment.name) || segment.flags.remote !== undefined) return out;
  const isRecursive = recursive(segment);
  segment.argv.forEach((word, k) => {
    // An inline program (`node -e '…'`) is code, not a file name, however many slashes it holds.
    if (k === 0 || segment.dynamicArgs.includes(k) || k === segment.flags.inlineCodeArg) return;
    const path = pathOf(word);
    if (path !== undefined) add(path, segment.name, isRecursive);
  });
  if (segment.name === 'sed' || segment.name === 'gsed') {
    for (const script of sedScripts(segment.argv).scripts)
      for (const file of sedScript(script).reads) add(file, 'sed r', false);
  }
  if (segment.name === 'git') {
    // `git show HEAD~5:.env`: a file as it was in history (its path is relative to the repository root).
    segment.argv.forEach((word, k) => {
      const colon = word.indexOf(':');
      if (k < 2 || word.startsWith('-') || colon === -1 || word.includes('://') || segment.dynamicArgs.includes(k))
        return;
      const path = word.slice(colon + 1).replace(/^\.\//, '');
      if (path !== '' && !path.includes('$')) add(path, 'git (a file from history)', false);
    });
  }
  return out;
}

// ── network ───────────────────────────────────────────────────────────────────────────────────────────

const NETWORK = new Set([
  'curl',
  'wget',
  'nc',
  'ncat',
  'netcat',
  'socat',
  'telnet',
  'ssh',
  'scp',
  'sftp',
  'ftp',
  'lftp',
  'http',
  'https',
  'xh',
  'aria2c',
  'mail',
  'sendmail',
  'mutt',
  'gsutil',
  'rclone',
  'smbclient',
  'tftp',
  'nmap',
  'websocat',
  'grpcurl',
  'httpie',
]);

function isNetwork(segment: Segment): boolean {
  if (NETWORK.has(segment.name) || segment.flags.remote !== undefined) return true;
  if (segment.redirects.some((r) => /^\/dev\/(?:tcp|udp)\//.test(r.target))) return true;
  if (segment.name === 'rsync')
    return segment.argv.slice(1).some((w) => /^[\w.@-]+:/.test(w) || w.startsWith('rsync://'));
  if (segment.name === 'openssl') return segment.argv[1] === 's_client';
  if (segment.name === 'aws' || segment.name === 'az' || segment.name === 'gcloud')
    return segment.argv.includes('cp') || segment.argv.includes('sync') || segment.argv.includes('upload');
  if (segment.name === 'gh') return segment.argv[1] === 'api' || segment.argv[1] === 'gist';
  return false;
}

function short(text: string, max = 60): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
