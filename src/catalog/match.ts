/**
 * The matcher: one segment, word by word, against its program's entry (closed world). Every word must be
 * accounted for — the program, a known subcommand path, every option (short clusters, `--x=v`, `-oVALUE`,
 * `--`), every value and operand judged by its kind — and the form's effects must be annotated. The first
 * word nothing accounts for, and why, is the answer for everything else ("`--files0-from` of wc: not in the
 * catalogue"): effect unknown, never an allow on knowledge.
 *
 * Pure and synchronous (no file system): paths are returned with their kind for the path policy to judge
 * at the edge (prepare.ts → the write-target and sensitive-read checks of the shell tier).
 */
import type { Segment } from '../shell/types.js';
import type { CatalogRule, CompiledArg, CompiledNode, CompiledOption, CodeCheck, PackageRunner } from './compile.js';
import type { Effect, ValueKind } from './grammar.js';
import { awkPrintsOnly, jqPure, sedScriptPrintsOnly, yqPure } from './code-checks.js';
import { dryRunTarget, scriptRule } from './script-names.js';
import { CatalogDamaged, loadCatalog, type Catalog } from './table.js';

/** How one word was accounted for. */
export interface WordAccount {
  index: number;
  word: string;
  /** `wc`, `git stash`, `--lines of wc`, `value of --output (path-write)`, `operand (path-read)`. */
  as: string;
  /** The kind of a value or operand word (for `--x=v`, of the part after `=`); absent for structure. */
  kind?: ValueKind;
  /** Where in the word a joined value starts (`-n5`, `-sf2`: after the option letters); absent: see `kind`. */
  valueAt?: number;
}

export type PathKind = 'path-read' | 'path-write' | 'dir';

export interface CatalogPath {
  /** Index into argv. */
  index: number;
  path: string;
  kind: PathKind;
  /** `wc`, `sort --output`: what reads or writes it (for reasons). */
  via: string;
  /**
   * A write that rewrites a directory file by file below it (a formatter given `.`): the directory names it
   * never enters (CompiledNode.treeSkips; empty: none). Absent: the path alone is written.
   */
  treeSkips?: string[];
}

export interface CatalogMatch {
  /** The entry file (or imported grammar) that knows the program; undefined: no entry. */
  entry?: string;
  /** The program and subcommands matched: `git stash list`. */
  form: string;
  words: WordAccount[];
  effects: Effect[];
  /** The reason id of an allow on knowledge (the entry's, or derived from the effects). */
  rule?: CatalogRule;
  paths: CatalogPath[];
  /** The first word nothing accounts for. */
  unaccounted?: { index: number; word: string; why: string };
  /**
   * `allow`: every word accounted for and the effects are ones knowledge may allow (the paths still go to the
   * path policy). `decline`: an unknown word, or a known effect knowledge never allows (runs a program).
   */
  knowledge: 'allow' | 'decline';
  /**
   * The program word names a file that only shares its name with a program (`./tools/cat`): no pack may vouch
   * for it by that name, whatever its hand-written rules say about the program.
   */
  namedFile?: true;
  /** One line for explain and the asks: what was found. */
  reason: string;
}

/**
 * Rules that vouch for effects beyond reading, and which: the reviewed entry says the form is fine to run
 * (a plan or dry run may run the configuration's own code and ask its service, and changes nothing; a cloud
 * or cluster CLI's query asks its own service for state).
 * A write the rule vouches for is one the form makes where the program keeps it (the index, the build
 * directory, the system temp directory); the files a form names are still judged by the path policy.
 */
const VOUCHES: Partial<Record<CatalogRule, readonly Effect[]>> = {
  // A test run or a build may fetch the dependencies the project declares (mvn, dotnet).
  'test-runner': ['runs', 'writes', 'network'],
  lint: ['runs', 'writes'],
  'git-local': ['writes'],
  'vcs-local': ['writes'],
  'git-sync': ['network', 'writes'],
  build: ['runs', 'writes', 'network'],
  'project-script': ['runs', 'writes'],
  'install-declared': ['network', 'runs', 'writes'],
  'temp-file': ['writes'],
  format: ['writes'],
  'package-query': ['network'],
  'dry-run': ['runs', 'network'],
  'cli-query': ['network'],
};
const NUMBER = /^[+-]?\d+(?:\.\d+)?[a-zA-Z%]{0,3}$/;
const EXPANSION = /[$`]/;
const NUMBER_LIST = /^\d+(?:[, ]\d+)*$/;
/** `host:path`, `user@host:path`, `rsync://…`, `host::module`: a path on another machine. */
const REMOTE_PATH = /^[^/]*:|^[a-z]+:\/\//i;
/** http(s) to this machine — localhost, 127.x.x.x, [::1], 0.0.0.0 — with nothing after the host but a port and a path. */
export const LOCAL_URL =
  /^(?:https?:\/\/)?(?:localhost|127(?:\.\d{1,3}){3}|\[::1\]|0\.0\.0\.0)(?::\d{1,5})?(?:[/?#]|$)/i;
const LOADABLE: ReadonlySet<ValueKind> = new Set(['text', 'pattern', 'number', 'enum', 'url', 'host']);

const KIND_EFFECT: Partial<Record<ValueKind, Effect>> = {
  'path-read': 'reads',
  dir: 'reads',
  'path-write': 'writes',
  program: 'runs',
  code: 'runs',
  url: 'network',
  host: 'network',
};

class Walk {
  readonly words: WordAccount[] = [];
  readonly paths: CatalogPath[] = [];
  readonly effects = new Set<Effect>();
  unaccounted: CatalogMatch['unaccounted'];
  /** A program or code value (not proven harmless): knowledge never allows it. */
  runsSomething = false;
  rules: CatalogRule[] = [];
  /** argv indices of the operands (not option values): `writes-operands` turns their reads into writes. */
  readonly operandIndices = new Set<number>();
  /** Files a source operand's compilation writes beside it (`tsc a.ts` → `a.js`), unless an option sends them elsewhere. */
  readonly emitted: CatalogPath[] = [];
  /** A source operand whose outputs are unknown (`tsc a.js`): a stop, but only when the form emits. */
  emitProblem: { index: number; why: string } | undefined;

  constructor(
    readonly segment: Segment,
    readonly program: string,
    readonly fileValues: readonly string[] = [],
  ) {}

  stop(index: number, why: string): void {
    this.unaccounted ??= { index, word: this.segment.argv[index] ?? '', why };
  }

  account(index: number, as: string, kind?: ValueKind, valueAt?: number): void {
    const account: WordAccount = { index, word: this.segment.argv[index]!, as };
    if (kind !== undefined) account.kind = kind;
    if (valueAt !== undefined) account.valueAt = valueAt;
    this.words.push(account);
  }

  isDynamic(index: number): boolean {
    return this.segment.dynamicArgs.includes(index);
  }

  /** Judge one value (of an option or an operand) by its kind. Returns false when it is not accounted for. */
  value(
    index: number,
    text: string,
    kind: ValueKind | undefined,
    spec: { values?: string[] | undefined; check?: CodeCheck | undefined },
    via: string,
    mayExpand: boolean,
  ): boolean {
    const where = `${via}`;
    if (kind === undefined || kind === 'unknown') {
      this.stop(index, `${where}: the grammar knows a value here, but nobody said what it is`);
      return false;
    }
    const dynamic = this.isDynamic(index);
    if (dynamic && EXPANSION.test(text) && !mayExpand) {
      this.stop(index, `${where}: \`${text}\` is only known when the command runs`);
      return false;
    }
    const prefix = LOADABLE.has(kind) ? this.fileValues.find((p) => text.startsWith(p)) : undefined;
    if (prefix !== undefined) {
      // `--cli-input-json file://F`, `-H @F`: the program reads F into the value (and may echo it in errors).
      if (text.length === prefix.length) {
        this.stop(index, `${where}: \`${text}\` names no file to load`);
        return false;
      }
      return this.value(index, text.slice(prefix.length), 'path-read', {}, `${where}, loaded from a file`, mayExpand);
    }
    const effect = KIND_EFFECT[kind];
    switch (kind) {
      case 'number':
      case 'process':
        if (!(spec.check === undefined ? NUMBER.test(text) : passes(spec.check, text)) && !(dynamic && mayExpand)) {
          this.stop(
            index,
            `${where}: \`${text}\` is not a number${spec.check === undefined ? '' : ` (${spec.check})`}`,
          );
          return false;
        }
        break;
      case 'enum':
        if (spec.values !== undefined && !spec.values.includes(text)) {
          this.stop(index, `${where}: \`${text}\` is not one of ${spec.values.join(', ')}`);
          return false;
        }
        break;
      case 'path-read':
      case 'path-write':
      case 'dir': {
        if (spec.check !== undefined && !passes(spec.check, text)) {
          this.stop(index, `${where}: \`${text}\` is not the form the catalogue knows (${spec.check})`);
          return false;
        }
        if (text.startsWith('+')) {
          // `less +!cmd file`, `more +/x`: a command to the program, not a file name.
          this.stop(index, `${where}: \`${text}\` is a command to the program, not a file`);
          return false;
        }
        if (dynamic) {
          const base = text.slice(text.lastIndexOf('/') + 1);
          if (EXPANSION.test(text) || base === '*' || base.startsWith('.')) {
            this.stop(index, `${where}: \`${text}\` may name any file (hidden ones too), so it cannot be vetted`);
            return false;
          }
        }
        // `-`: standard input or output, no file.
        if (text === '-') return true;
        this.paths.push({ index, path: text, kind, via: where });
        break;
      }
      case 'script': {
        const rule = dynamic ? undefined : scriptRule(text);
        if (rule === undefined) {
          this.stop(index, `${where}: \`${text}\` is not a name that says its effect stays in the project`);
          return false;
        }
        this.rules.push(rule);
        break;
      }
      case 'code':
      case 'program':
        if (spec.check !== undefined && !dynamic && passes(spec.check, text)) {
          this.effects.add('none');
          return true;
        }
        this.runsSomething = true;
        break;
      case 'url':
        // A URL of this machine (`check: local-url`) reaches no other host: no network effect.
        if (spec.check === 'local-url' && !dynamic && passes(spec.check, text)) return true;
        break;
      default:
        if (spec.check !== undefined && !passes(spec.check, text)) {
          this.stop(index, `${where}: \`${text}\` is not the form the catalogue knows (${spec.check})`);
          return false;
        }
        break;
    }
    if (effect !== undefined) this.effects.add(effect);
    return true;
  }
}

function passes(check: CodeCheck, text: string): boolean {
  switch (check) {
    case 'awk-print':
      return awkPrintsOnly(text);
    case 'sed-print':
      return sedScriptPrintsOnly(text);
    case 'jq-pure':
      return jqPure(text);
    case 'yq-pure':
      return yqPure(text);
    case 'date-format':
      return text.startsWith('+');
    case 'pathspec-named':
      return namesFiles(text);
    case 'git-refspec':
      return !text.includes('::') && !text.startsWith('+') && !text.startsWith('-');
    case 'go-package':
      return text !== '' && GO_PACKAGE.test(text) && inProject(text);
    case 'plain-variable':
      return /^[A-Za-z_][A-Za-z0-9_]*(?:=.*)?$/.test(text) && !SECRET_NAME.test(text.split('=')[0]!);
    case 'in-project':
      return inProject(text.startsWith('-') && text.includes('=') ? text.slice(text.indexOf('=') + 1) : text);
    case 'number-list':
      return NUMBER_LIST.test(text);
    case 'local-path':
      return !REMOTE_PATH.test(text);
    case 'local-url':
      return LOCAL_URL.test(text);
    case 'backup-suffix':
      return /^[\w.~+-]*$/.test(text);
    case 'requirement':
      return REQUIREMENT.test(text);
    case 'npm-package':
      return NPM_PACKAGE.test(text);
    case 'api-path':
      return API_PATH.test(text) && !text.includes('//') && !/^\/?graphql(?:[/?#]|$)/i.test(text);
    case 'dry-run-target':
      return dryRunTarget(text);
    case 'setting-name':
      return SETTING_NAME.test(text);
    case 'config-name':
      return credentialFreeConfigName(text);
  }
}

/**
 * Sections of git's and hg's configuration that hold no credential. Left out on purpose: remote and paths
 * (a URL may carry `https://user:token@host`), credential, http (actions/checkout keeps its token in
 * `http.<url>.extraheader`), url (insteadOf rewrites carry URLs), auth (hg's passwords), alias and hooks
 * (whole command lines), submodule (URLs), and every section a tool we do not know may keep a token in
 * (`github.token`, `hub.oauthtoken`).
 */
const CREDENTIAL_FREE_SECTIONS = new Set([
  // git
  'core',
  'init',
  'branch',
  'pull',
  'push',
  'fetch',
  'merge',
  'rebase',
  'commit',
  'tag',
  'gpg',
  'diff',
  'color',
  'log',
  'status',
  'advice',
  'rerere',
  'safe',
  'help',
  'apply',
  'blame',
  'column',
  'grep',
  'i18n',
  'index',
  'pack',
  'gc',
  'feature',
  'checkout',
  'clone',
  'am',
  'format',
  'interactive',
  'pager',
  'sequence',
  // hg
  'ui',
  'phases',
  'extensions',
  'experimental',
  'merge-tools',
  'commands',
  'templates',
  'revsetalias',
  'annotate',
  'hostsecurity',
  'largefiles',
  'share',
  'worker',
  'devel',
]);
/** `user.name`, `user.email` and `user.signingkey` (a key's id, not the key); never another `user.*`. */
const USER_KEYS = new Set(['name', 'email', 'signingkey']);

/** `section.key` or `section.sub.section.key`: the section and the key compare without case, as git and hg do. */
function credentialFreeConfigName(text: string): boolean {
  const m = /^([A-Za-z][\w-]*)(?:\.[^\s=]+)?\.([A-Za-z][\w-]*)$/.exec(text);
  if (m === null) return false;
  const section = m[1]!.toLowerCase();
  if (section === 'user') return text.indexOf('.') === text.lastIndexOf('.') && USER_KEYS.has(m[2]!.toLowerCase());
  return CREDENTIAL_FREE_SECTIONS.has(section);
}

/** `requests`, `flask[async]>=3,<4`, `numpy==2.*`: a name from the index, never a path, URL or VCS link. */
const REQUIREMENT =
  /^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?(?:\[[A-Za-z0-9._,-]+\])?(?:(?:===?|~=|!=|<=?|>=?)[A-Za-z0-9.*+!-]+(?:,(?:===?|~=|!=|<=?|>=?)[A-Za-z0-9.*+!-]+)*)?$/;
/** `express`, `express@4.18`, `@scope/pkg@^1.2`: a registry package, never a path, URL, git spec or `npm:` alias. */
const NPM_PACKAGE = /^(?:@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*(?:@[\w.^~<>=*|+ -]+)?$/i;
/** `vm.swappiness`, `net/ipv4/ip_forward`: a kernel setting's name, without the `=value` that would set it. */
const SETTING_NAME = /^[\w][\w./-]*$/;
/** `repos/o/r/pulls`, `/user`, `search/issues?q=x`: a path of the service's API, no scheme or host. */
const API_PATH = /^\/?[\w.{}-]+(?:\/[\w.{}-]+)*(?:\?[\w.%+=&:,/-]*)?$/;

/** A pathspec that names files: not the whole tree, not pathspec magic (`:(top)`, `:/`), not a bare glob. */
function namesFiles(text: string): boolean {
  if (text === '' || text.startsWith(':') || text.split('/').includes('..')) return false;
  const trimmed = text.replace(/^(?:\.\/)+/, '').replace(/\/+$/, '');
  return trimmed !== '' && trimmed !== '.' && !/^\*+$/.test(trimmed);
}

/** `.`, `./cmd/app`, `./...`, `example.com/m/pkg`, `net/...`, `std`: path elements of a Go import path. */
const GO_PACKAGE = /^(?:\.|\.\/)?[\w.~+@-]*(?:\/[\w.~+@-]+)*(?:\/\.\.\.)?$/;

const SECRET_NAME = /secret|token|passw|key|credential|auth/i;

function inProject(text: string): boolean {
  return (
    text !== '-' &&
    !text.startsWith('/') &&
    !text.startsWith('~') &&
    !text.includes('://') &&
    !text.split('/').includes('..')
  );
}

/** The subcommand a word names: by name, else by a pattern (`describe-*`) of the entry. */
function subcommand(node: CompiledNode, word: string): CompiledNode | undefined {
  if (word.includes('*')) return undefined;
  if (Object.hasOwn(node.commandIndex, word)) return node.commands[node.commandIndex[word]!];
  return node.commands.find((c) =>
    c.names.some((n) => n.endsWith('*') && word.length >= n.length && word.startsWith(n.slice(0, -1))),
  );
}

function findOption(path: readonly CompiledNode[], spelling: string): CompiledOption | undefined {
  const node = path[path.length - 1]!;
  const own = Object.hasOwn(node.optionIndex, spelling) ? node.options[node.optionIndex[spelling]!] : undefined;
  if (own !== undefined) return own;
  for (let k = path.length - 2; k >= 0; k--) {
    const up = path[k]!;
    if (Object.hasOwn(up.optionIndex, spelling)) {
      const o = up.options[up.optionIndex[spelling]!]!;
      if (o.persistent === true) return o;
    }
  }
  return undefined;
}

/** A single-dash word of several letters: one option so spelled (`-name`, Fig's `-am`), or a cluster (`-la`, `-n5`). */
const SHORT_WORD = /^-[^-]./s;
/** `-vv`, `-qq`: one letter again, the same option either way. */
const REPEATED_LETTER = /^-(.)\1+$/s;

/** The one-letter options a cluster reads (`-am` → -a -m, `-n5` → -n with 5), or undefined when a letter is not one. */
function clusterOptions(path: readonly CompiledNode[], word: string): string[] | undefined {
  const spellings: string[] = [];
  for (let k = 1; k < word.length; k++) {
    const o = findOption(path, `-${word[k]}`);
    if (o === undefined) return undefined;
    spellings.push(`-${word[k]}`);
    if (o.value !== undefined) break;
  }
  return spellings;
}

/**
 * Per node (a node has one path from its program's root, so the node names the path): its answer, computed
 * once — a scan of every option name cost a program such as rg a few µs on each clustered word.
 */
const severalLetterByNode = new WeakMap<CompiledNode, string | null>();

/** A spelling of several letters after one dash (not one letter again): the program may not read clusters. */
function severalLetterOption(path: readonly CompiledNode[]): string | undefined {
  const node = path[path.length - 1];
  if (node === undefined) return undefined;
  const known = severalLetterByNode.get(node);
  if (known !== undefined) return known ?? undefined;
  let found: string | null = null;
  scan: for (let k = path.length - 1; k >= 0; k--)
    for (const o of path[k]!.options)
      if (k === path.length - 1 || o.persistent === true)
        for (const n of o.names)
          if (SHORT_WORD.test(n) && !REPEATED_LETTER.test(n)) {
            found = n;
            break scan;
          }
  severalLetterByNode.set(node, found);
  return found ?? undefined;
}

/**
 * How a single-dash word of several letters reads. getopt reads `-am` as `-a -m`; find and java read `-name`
 * as one option; Apache Commons CLI tries the option so spelled first. Fig's specs write some clusters as
 * options of their own (git commit's `-am`), so a spelling in the grammar does not tell which rule the
 * program follows: the entry says it (`short-words`, `no-clusters`). Undeclared, a word both readings fit,
 * or a cluster in a program that has options of several letters, is unknown — closed world.
 */
function shortWordReading(
  path: readonly CompiledNode[],
  word: string,
  exact: CompiledOption | undefined,
  form: string,
): 'exact' | 'cluster' | { why: string } {
  let declared: CompiledNode['shortWords'];
  for (let k = path.length - 1; k >= 0 && declared === undefined; k--) declared = path[k]!.shortWords;
  if (declared === 'clusters') return 'cluster';
  if (declared === 'listed-first' || (exact !== undefined && REPEATED_LETTER.test(word)))
    return exact === undefined ? 'cluster' : 'exact';
  const cluster = clusterOptions(path, word);
  if (cluster === undefined) return exact === undefined ? 'cluster' : 'exact';
  if (exact !== undefined)
    return {
      why: `\`${word}\` of ${form}: the option \`${word}\` or the options ${cluster.join(' ')}? The catalogue does not say how ${form} reads it`,
    };
  const several = severalLetterOption(path);
  if (several === undefined) return 'cluster';
  return {
    why: `\`${word}\` of ${form}: not in the catalogue (it has options of several letters after one dash, such as \`${several}\`, so this is not surely ${cluster.join(' ')})`,
  };
}

/** The table entry for a program name; also the empty answer for a program nobody wrote an entry for. */
function unknownProgram(
  segment: Segment,
  why = `\`${segment.name}\`: not in the catalogue`,
  reason = `\`${segment.name}\` is not in the catalogue, so its effect is unknown`,
): CatalogMatch {
  return {
    form: segment.name,
    words: [],
    effects: [],
    paths: [],
    unaccounted: { index: 0, word: segment.argv[0] ?? '', why },
    knowledge: 'decline',
    reason,
  };
}

/** Where the system's own programs live: a program named by a path elsewhere is that file, not the entry's. */
const SYSTEM_BIN = /^\/(?:usr\/(?:local\/)?)?s?bin\/[^/]+$/;
/** A build tool's wrapper committed at the project's root, run as `./gradlew`: the project's build, by design. */
const PROJECT_WRAPPERS = new Set(['./gradlew', './mvnw']);
/** A project's installed package binary (`node_modules/.bin/eslint`): what `npx eslint` runs too. */
const PACKAGE_BIN = /^(?:\.\/)?(?:[^/]+\/)*node_modules\/\.bin\/[^/]+$/;

/**
 * Why the program word is not the catalogue's program, or undefined when it is. `./tools/cat`, `/tmp/x/cat`
 * and `bin/cat` are files that happen to share a name with cat: whatever they do, it is not what cat.yml
 * says. A bare name (found on PATH), the system's bin directories, and — for a tool a package runner starts —
 * the project's `node_modules/.bin` are the program itself.
 */
function namedByPath(segment: Segment, catalog: Catalog): string | undefined {
  const word = segment.argv[0] ?? '';
  const bare = word.startsWith('\\') ? word.slice(1) : word;
  if (!bare.includes('/') || SYSTEM_BIN.test(bare) || PROJECT_WRAPPERS.has(bare)) return undefined;
  if (
    PACKAGE_BIN.test(bare) &&
    !bare.split('/').includes('..') &&
    catalog.entry(segment.name)?.root.packageRunner === 'node'
  )
    return undefined;
  return `\`${word}\` is a file named like ${segment.name}, not the system's ${segment.name}: what it runs is unknown`;
}

/**
 * Runners that start a tool by name: the tool's entry accounts for its words (`npx jest --coverageDirectory=D`
 * writes D). Only for tools whose entry says `package-runner: node` (or `python`, for `python -m`):
 * `npx <anything>` may download and run a package, and `python -m` runs any module.
 */
const RUNNERS: Readonly<Record<string, { runner: PackageRunner; toolAt(argv: readonly string[]): number }>> = {
  npx: { runner: 'node', toolAt: () => 1 },
  pnpx: { runner: 'node', toolAt: () => 1 },
  bunx: { runner: 'node', toolAt: () => 1 },
  pnpm: { runner: 'node', toolAt: (argv) => (argv[1] === 'exec' ? 2 : -1) },
  yarn: { runner: 'node', toolAt: (argv) => (argv[1] === 'exec' ? 2 : 1) },
  python: { runner: 'python', toolAt: (argv) => (argv[1] === '-m' ? 2 : -1) },
  python3: { runner: 'python', toolAt: (argv) => (argv[1] === '-m' ? 2 : -1) },
};

/** The tool's words of a runner segment, as their own segment (indices shifted back by `from`). */
export function toolSegment(segment: Segment, from: number): Segment {
  const argv = segment.argv.slice(from);
  return {
    ...segment,
    argv,
    name: argv[0] ?? '',
    dynamicArgs: segment.dynamicArgs.filter((i) => i >= from).map((i) => i - from),
  };
}

/** Match a segment against the catalogue (through a runner such as `npx` or `python -m` to the tool it starts). */
export function matchSegment(segment: Segment, catalog: Catalog = loadCatalog()): CatalogMatch {
  try {
    return matchThroughRunner(segment, catalog);
  } catch (error) {
    // A table that cannot be trusted knows nothing: the segment is unknown, and the reason says why.
    if (!(error instanceof CatalogDamaged)) throw error;
    return unknownProgram(segment, error.message, `\`${segment.name}\` cannot be judged: ${error.message}`);
  }
}

function matchThroughRunner(segment: Segment, catalog: Catalog): CatalogMatch {
  const runner = Object.hasOwn(RUNNERS, segment.name) ? RUNNERS[segment.name] : undefined;
  const at = runner?.toolAt(segment.argv) ?? -1;
  const tool = at < 1 ? undefined : catalog.entry(segment.argv[at] ?? '');
  if (runner === undefined || tool?.root.packageRunner !== runner.runner || segment.dynamicArgs.includes(at))
    return matchProgram(segment, catalog);
  const inner = matchProgram(toolSegment(segment, at), catalog);
  const shift = <T extends { index: number }>(x: T): T => ({ ...x, index: x.index + at });
  const out: CatalogMatch = {
    ...inner,
    form: `${segment.argv.slice(0, at).join(' ')} ${inner.form}`,
    words: [
      ...segment.argv.slice(0, at).map((word, index) => ({ index, word, as: `runner of ${segment.argv[at]}` })),
      ...inner.words.map(shift),
    ],
    paths: inner.paths.map(shift),
  };
  if (inner.unaccounted !== undefined) out.unaccounted = shift(inner.unaccounted);
  return out;
}

/**
 * `P --version`, `node -v`, `python --help`: the only word is a spelling of P's own version or help option in
 * its grammar (CatalogTable.versionForms). Such a form prints and exits, whatever else P's entry says.
 */
function versionForm(segment: Segment, catalog: Catalog): CatalogMatch | undefined {
  const [, word] = segment.argv;
  // Every version or help spelling is an option (compile.ts versionSpellings): `cat f` reads no forms.
  if (segment.argv.length !== 2 || word?.startsWith('-') !== true || segment.dynamicArgs.length > 0) return undefined;
  if (segment.flags.appendsArgs === true) return undefined;
  const forms = catalog.versionForms();
  if (forms === undefined) return undefined;
  const at = forms.indexOf(`\n${segment.name}\t`);
  if (at < 0) return undefined;
  const line = forms.slice(at + segment.name.length + 2, forms.indexOf('\n', at + 1));
  if (!line.split(' ').includes(word)) return undefined;
  const entry = catalog.entry(segment.name)?.source.entry ?? 'grammar table';
  return {
    entry,
    form: `${segment.name} ${word}`,
    words: [
      { index: 0, word: segment.argv[0]!, as: `${segment.name} (${entry})` },
      { index: 1, word, as: `${word} of ${segment.name}: its version or help option` },
    ],
    effects: ['none'],
    paths: [],
    knowledge: 'allow',
    rule: 'version',
    reason: `only prints its version or help; every word is in the catalogue: ${entry}`,
  };
}

const NO_FORM_ARGS: ReadonlyMap<number, readonly CompiledArg[]> = new Map();

/**
 * `firstOperandGiven`: an option that stands for the first operand (`sed -e SCRIPT`) came after an operand
 * was already taken as that first operand (`sed a.txt -e p`), so the walk starts again knowing it.
 * `formArgsAt`: likewise for an option that gives its form's operands (`make build -n`): by the depth of the
 * node it belongs to, the operands that node takes from its first operand on.
 */
function matchProgram(
  segment: Segment,
  catalog: Catalog,
  firstOperandGiven = false,
  formArgsAt: ReadonlyMap<number, readonly CompiledArg[]> = NO_FORM_ARGS,
): CatalogMatch {
  const byPath = namedByPath(segment, catalog);
  if (byPath !== undefined) return { ...unknownProgram(segment, byPath, byPath), namedFile: true };
  const version = versionForm(segment, catalog);
  if (version !== undefined) return version;
  const program = catalog.entry(segment.name);
  if (program === undefined || segment.argv.length === 0) return unknownProgram(segment);
  const walk = new Walk(segment, segment.name, program.root.fileValues);
  const path: CompiledNode[] = [program.root];
  const form = [segment.name];
  walk.account(0, `${segment.name} (${program.source.entry ?? program.source.grammar ?? 'catalogue'})`);
  const mayExpand = program.root.mayExpand === true;
  if (!mayExpand && segment.dynamicArgs.includes(0)) walk.stop(0, `the program name is only known at run time`);
  if (segment.flags.appendsArgs === true)
    walk.stop(0, `\`${segment.name}\` gets more words when it runs (${segment.context}), which nobody has seen`);
  let argIndex = 0;
  let operands = 0;
  let optionsDone = program.root.allOperands === true;
  let formEffects: Effect[] | undefined;
  /** The first operand was given by an option (`sed -e`, `grep -e`): operands fill the positions after it. */
  let shifted = firstOperandGiven;
  let restart = false;
  /** A dry run (an option of rule dry-run naming the form) reports what the other options would do: it prevails. */
  let dryRunForm = false;
  /** The operands of the form an option named (CompiledOption.args), by the depth of its node. */
  // Copied only when an option names a form (the common walk allocates nothing for it).
  let formArgs: Map<number, readonly CompiledArg[]> | undefined;
  const formArgsHere = (): readonly CompiledArg[] | undefined => (formArgs ?? formArgsAt).get(path.length);
  let restartArgs: Map<number, readonly CompiledArg[]> | undefined;
  /** An operand the node's own kinds do not account for, while an option further on may still name its form. */
  let pendingStop: CatalogMatch['unaccounted'];
  const used: { option: CompiledOption; spelling: string; index: number }[] = [];
  /** Operands accounted for only together with an option (CompiledArg.with). */
  const needing: { with: string[]; word: string; index: number }[] = [];
  const argv = segment.argv;
  const node = (): CompiledNode => path[path.length - 1]!;
  const formName = (): string => form.join(' ');

  const useOption = (o: CompiledOption, spelling: string, index: number): boolean => {
    if (!o.annotated) {
      walk.stop(index, `\`${spelling}\` of ${formName()}: known to the grammar, its effect is not annotated`);
      return false;
    }
    o.effects?.forEach((e) => walk.effects.add(e));
    if (o.formEffects !== undefined && !dryRunForm) formEffects = o.formEffects;
    if (o.formEffects !== undefined && o.rule === 'dry-run') dryRunForm = true;
    if (o.rule !== undefined) walk.rules.push(o.rule);
    if (o.args !== undefined && formArgsHere() !== o.args) {
      if (formArgsHere() !== undefined) {
        walk.stop(index, `\`${spelling}\` of ${formName()} names another form than an option before it`);
        return false;
      }
      (formArgs ??= new Map(formArgsAt)).set(path.length, o.args);
      // Operands already judged by the node's own kinds: judge them again as this form's.
      if (operands > 0) restartArgs = formArgs;
    }
    used.push({ option: o, spelling, index });
    if (o.insteadOfOperand === true && !shifted) {
      if (operands === 0) shifted = true;
      else if (!firstOperandGiven && path.length === 1) restart = true;
      else {
        walk.stop(index, `\`${spelling}\` of ${formName()} comes after the operand it stands for`);
        return false;
      }
    }
    return true;
  };
  /** The value words of an option: `inline` (joined: `--x=v`, `-ov`) and/or the next words. Returns the last index used. */
  const takeValues = (o: CompiledOption, spelling: string, i: number, inline: string | undefined): number => {
    const kind = o.value!;
    const label = `value of ${spelling} (${kind})`;
    let at = i;
    let needed = o.arity ?? 1;
    if (inline !== undefined) {
      if (!walk.value(i, inline, kind, o, label, mayExpand)) return -1;
      needed--;
    } else if (o.requiresEquals === true) {
      if (o.valueOptional === true) return i;
      walk.stop(i, `\`${spelling}\` of ${formName()} needs a value (joined with =)`);
      return -1;
    }
    for (; needed > 0; needed--) {
      if (at + 1 >= argv.length) {
        walk.stop(i, `\`${spelling}\` of ${formName()} needs a value`);
        return -1;
      }
      at++;
      if (!walk.value(at, argv[at]!, kind, o, label, mayExpand)) return -1;
      walk.account(at, label, kind);
    }
    return at;
  };

  if (program.root.responseFiles === true) {
    // Expanded before the program parses anything, wherever it stands: option value, operand or after `--`.
    const at = argv.findIndex((w, i) => i > 0 && (w.startsWith('@') || segment.dynamicArgs.includes(i)));
    if (at > 0)
      walk.stop(at, `\`${argv[at]}\`: ${segment.name} reads the words of a file named \`@FILE\` as its arguments`);
  }
  for (let i = 1; i < argv.length && walk.unaccounted === undefined; i++) {
    const word = argv[i]!;
    const here = node();
    if (!optionsDone && word === '--') {
      optionsDone = true;
      walk.account(i, 'end of options');
      continue;
    }
    if (!optionsDone && operands === 0 && here.optionCommands?.includes(word) === true) {
      // `python -m venv`: the option's value names the form, and only the forms listed are known.
      const next = argv[i + 1];
      const command = next === undefined || walk.isDynamic(i + 1) ? undefined : subcommand(here, next);
      if (command === undefined) {
        walk.stop(Math.min(i + 1, argv.length - 1), `\`${word} ${next ?? ''}\` of ${formName()}: not in the catalogue`);
        break;
      }
      path.push(command);
      form.push(`${word} ${next}`);
      argIndex = 0;
      shifted = false;
      optionsDone = command.allOperands === true;
      walk.account(i, formName());
      walk.account(i + 1, formName());
      i++;
      continue;
    }
    const optionLike = !optionsDone && ((word.length > 1 && word.startsWith('-')) || here.noClusters === true);
    // `+x` options (lsof +D, tail +5 is a value) are looked up by exact spelling only.
    let exact = optionLike || (!optionsDone && word.startsWith('+')) ? findOption(path, word) : undefined;
    if (
      optionLike &&
      SHORT_WORD.test(word) &&
      here.noClusters !== true &&
      !(here.numericOption && /^-\d+$/.test(word))
    ) {
      const reading = shortWordReading(path, word, exact, formName());
      if (typeof reading !== 'string') {
        walk.stop(i, reading.why);
        break;
      }
      if (reading === 'cluster') exact = undefined;
    }
    if (exact !== undefined) {
      if (!useOption(exact, word, i)) break;
      walk.account(i, `${word} of ${formName()}`);
      if (exact.value !== undefined) {
        const last = takeValues(exact, word, i, undefined);
        if (last < 0) break;
        i = last;
      }
      continue;
    }
    const eq = word.indexOf('=');
    if (optionLike && word.startsWith('-') && eq > 1 && (word.startsWith('--') || here.noClusters === true)) {
      // `--name=value`, and `-name=value` where options are single-dash words (go, find).
      const spelling = word.slice(0, eq);
      const o = findOption(path, spelling);
      if (o === undefined) {
        walk.stop(i, `\`${spelling}\` of ${formName()}: not in the catalogue`);
        break;
      }
      if (!useOption(o, spelling, i)) break;
      if (o.value === undefined) {
        walk.stop(i, `\`${spelling}\` of ${formName()} takes no value`);
        break;
      }
      const last = takeValues(o, spelling, i, word.slice(eq + 1));
      if (last < 0) break;
      walk.account(i, `${spelling}=value (${o.value}) of ${formName()}`, o.value);
      i = last;
      continue;
    }
    if (optionLike && word.startsWith('--')) {
      walk.stop(i, `\`${word}\` of ${formName()}: not in the catalogue`);
      break;
    }
    if (optionLike && word.startsWith('-')) {
      if (here.numericOption === true && /^-\d+$/.test(word)) {
        walk.account(i, `count of ${formName()}`, 'number', 1);
        continue;
      }
      if (here.noClusters === true) {
        walk.stop(i, `\`${word}\` of ${formName()}: not in the catalogue`);
        break;
      }
      // A short cluster: -la, -n5, -o FILE.
      let last = i;
      let joined: { kind: ValueKind; at: number } | undefined;
      for (let k = 1; k < word.length; k++) {
        const spelling = `-${word[k]}`;
        const o = findOption(path, spelling);
        if (o === undefined) {
          walk.stop(i, `\`${spelling}\` of ${formName()}: not in the catalogue`);
          last = -1;
          break;
        }
        if (!useOption(o, spelling, i)) {
          last = -1;
          break;
        }
        if (o.value === undefined) continue;
        const rest = word.slice(k + 1);
        if (rest !== '') joined = { kind: o.value, at: k + 1 };
        last = takeValues(o, spelling, i, rest === '' ? undefined : rest);
        break;
      }
      if (last < 0) break;
      walk.account(i, `${word} of ${formName()}`, joined?.kind, joined?.at);
      i = last;
      continue;
    }
    // An operand: a subcommand (before any operand of this node), or the next operand position.
    // A node with option-commands (`python -m venv`) has no plain subcommands: `python venv` runs a file.
    const command = operands === 0 && here.optionCommands === undefined ? subcommand(here, word) : undefined;
    if (command !== undefined) {
      path.push(command);
      form.push(word);
      argIndex = 0;
      shifted = false;
      optionsDone = path[path.length - 1]!.allOperands === true;
      walk.account(i, formName());
      continue;
    }
    const specs = formArgsHere() ?? here.args;
    const variadic = specs.length > 0 && specs[specs.length - 1]!.variadic === true;
    const arg: CompiledArg | undefined = specs[argIndex + (shifted ? 1 : 0)] ?? (variadic ? specs.at(-1) : undefined);
    if (arg === undefined) {
      walk.stop(
        i,
        here.commands.length > 0 && operands === 0
          ? `\`${word}\` is not a subcommand of ${formName()} in the catalogue`
          : `\`${word}\`: ${formName()} takes no more operands in the catalogue`,
      );
      break;
    }
    if (arg.isCommand === true) {
      walk.runsSomething = true;
      walk.effects.add('runs');
      for (let k = i; k < argv.length; k++) walk.account(k, `command run by ${formName()}`);
      break;
    }
    const label = `operand of ${formName()} (${arg.kind ?? 'unannotated'})`;
    if (!walk.value(i, word, arg.kind, arg, label, mayExpand)) {
      // An option further on may name a form whose operands this one is (`git add . -n`): walk on to see.
      if (formArgsHere() !== undefined || !here.options.some((o) => o.args !== undefined)) break;
      pendingStop ??= walk.unaccounted;
      walk.unaccounted = undefined;
      operands++;
      continue;
    }
    if (arg.emits !== undefined && word !== '-') emitsBeside(walk, i, word, arg.emits, formName());
    walk.account(i, label, arg.kind);
    walk.operandIndices.add(i);
    if (arg.with !== undefined) needing.push({ with: arg.with, word, index: i });
    if (arg.formEffects !== undefined && !dryRunForm) formEffects = arg.formEffects;
    if (arg.rule !== undefined) walk.rules.push(arg.rule);
    operands++;
    if (arg.variadic !== true) argIndex++;
    if (here.optionsBeforeArgs === true) optionsDone = true;
  }

  if (restart || restartArgs !== undefined)
    return matchProgram(segment, catalog, restart || firstOperandGiven, restartArgs ?? formArgsAt);
  // No option named another form: the first operand left unaccounted is the answer.
  if (pendingStop !== undefined) walk.unaccounted = pendingStop;
  const last = node();
  if (walk.unaccounted === undefined && (needing.length > 0 || used.some((u) => u.option.with !== undefined))) {
    // `pip install --dry-run` only together with `--only-binary`: the option alone says nothing.
    const usedNames = new Set(used.flatMap((u) => u.option.names));
    const operand = needing.find((n) => !n.with.some((w) => usedNames.has(w)));
    if (operand !== undefined)
      walk.stop(
        operand.index,
        `\`${operand.word}\`: an operand of ${formName()} only together with ${operand.with.join(' or ')}`,
      );
    const alone = used.find((u) => u.option.with !== undefined && !u.option.with.some((w) => usedNames.has(w)));
    if (alone !== undefined)
      walk.stop(
        alone.index,
        `\`${alone.spelling}\` of ${formName()}: only together with ${alone.option.with!.join(' or ')}`,
      );
  }
  if (walk.unaccounted === undefined) {
    const required = (formArgsHere() ?? last.args).slice(argIndex + (shifted ? 1 : 0)).find((a) => a.optional !== true);
    // An option with a form effect names the form by itself (`git config --get`): the node may leave its
    // other forms (`git config name value`) unannotated.
    if ((formEffects ?? last.effects) === undefined)
      walk.stop(argv.length - 1, `${formName()}: known to the grammar, its effect is not annotated`);
    else if (required !== undefined && operands === 0 && last.commands.length > 0)
      walk.stop(argv.length - 1, `${formName()} needs a subcommand the catalogue knows`);
  }
  (formEffects ?? last.effects)?.forEach((e) => walk.effects.add(e));
  if (last.rule !== undefined) walk.rules.push(last.rule);
  if (dryRunForm) walk.rules.unshift('dry-run');
  // `sed -i`, `prettier --write`, `black src`: every file operand read is also rewritten, judged as a write.
  const rewrites =
    used.some((u) => u.option.writesOperands === true) ||
    (last.writesOperands === true && (formEffects ?? last.effects)?.includes('writes') === true);
  if (rewrites) {
    // A directory operand is rewritten file by file below it (`prettier --write .`).
    let treeSkips: string[] | undefined;
    for (let k = path.length - 1; k >= 0 && treeSkips === undefined; k--) treeSkips = path[k]!.treeSkips;
    for (const p of [...walk.paths])
      if (walk.operandIndices.has(p.index) && p.kind !== 'path-write')
        walk.paths.push({ ...p, kind: 'path-write', via: `${p.via}, rewritten in place`, treeSkips: treeSkips ?? [] });
  }
  // `tsc a.ts` writes beside a.ts, unless --outDir sends the outputs there or --noEmit writes nothing.
  const emits = (formEffects ?? last.effects)?.includes('writes') === true;
  if (emits && walk.emitProblem !== undefined) walk.stop(walk.emitProblem.index, walk.emitProblem.why);
  if (emits && !used.some((u) => u.option.emitsInto === true)) walk.paths.push(...walk.emitted);
  return conclude(walk, program.source.entry ?? program.source.grammar, formName());
}

/**
 * The outputs a source operand's compilation writes beside it (`a.ts` → `a.js`, `a.d.ts`, `a.js.map`). A word
 * whose ending the entry does not list, or that is only known at run time, is a problem only if the form
 * emits (`tsc --noEmit --allowJs a.js` writes nothing): the walk's end decides.
 */
function emitsBeside(walk: Walk, index: number, word: string, emits: Record<string, string[]>, form: string): void {
  if (walk.isDynamic(index)) {
    walk.emitProblem ??= {
      index,
      why: `\`${word}\`: ${form} writes beside each file it compiles, and these are only known when it runs`,
    };
    return;
  }
  const ending = Object.keys(emits)
    .filter((e) => word.length > e.length && word.endsWith(e))
    .sort((a, b) => b.length - a.length)[0];
  if (ending === undefined) {
    walk.emitProblem ??= {
      index,
      why: `\`${word}\`: not a source ${form} compiles in the catalogue (${Object.keys(emits).join(', ')})`,
    };
    return;
  }
  const stem = word.slice(0, -ending.length);
  for (const out of emits[ending]!)
    walk.emitted.push({ index, path: stem + out, kind: 'path-write', via: `${form}, compiling ${word}` });
}

/**
 * After a `cd` hookwise cannot follow (`cd "$D"`, `cd -`, one through CDPATH), a relative file lies in a
 * directory nobody knows — `cd "$D" && cat credentials` is `cat ~/.aws/credentials` when D is ~/.aws — and so
 * does the directory a reading program reads when it names no file (`ls`, `grep -r key`, `git status`): the
 * effect is unknown either way. A program fed by a pipe or a redirection reads that instead.
 */
function inUnknownDirectory(walk: Walk): void {
  const segment = walk.segment;
  if (segment.flags.cwdUnknown !== true) return;
  const relative = walk.paths.find((p) => !p.path.startsWith('/') && !p.path.startsWith('~'));
  const after = 'only known when the command runs (after a `cd` hookwise cannot follow)';
  if (relative !== undefined) {
    walk.stop(relative.index, `\`${relative.path}\` is relative to a working directory ${after}`);
    return;
  }
  const fed =
    segment.operator === '|' ||
    segment.operator === '|&' ||
    segment.stdin !== undefined ||
    segment.redirects.some((r) => r.op === '<' || r.op === '<>');
  if (walk.paths.length === 0 && walk.effects.has('reads') && !fed)
    walk.stop(0, `\`${walk.program}\` names no file, so it reads its working directory, ${after}`);
}

function conclude(walk: Walk, entry: string | undefined, form: string): CatalogMatch {
  inUnknownDirectory(walk);
  const effects = [...walk.effects].sort();
  const out: CatalogMatch = { form, words: walk.words, effects, paths: walk.paths, knowledge: 'decline', reason: '' };
  if (entry !== undefined) out.entry = entry;
  if (walk.unaccounted !== undefined) {
    out.unaccounted = walk.unaccounted;
    out.reason = `${walk.unaccounted.why}, so the effect of \`${form}\` is unknown`;
    return out;
  }
  const vouch = walk.rules.find((r) => VOUCHES[r] !== undefined);
  const vouched = vouch === undefined ? [] : VOUCHES[vouch]!;
  const writesNamed = walk.paths.some((p) => p.kind === 'path-write');
  const beyond = effects.filter((e) => e !== 'none' && e !== 'reads' && !(e === 'writes' && writesNamed));
  if (walk.runsSomething) {
    out.reason = `\`${form}\` runs a program or code it is given, which knowledge never vouches for`;
    return out;
  }
  if (beyond.some((e) => !vouched.includes(e))) {
    out.reason = `\`${form}\` ${beyond.map(describeEffect).join(' and ')}: known, but not allowed on knowledge`;
    return out;
  }
  out.knowledge = 'allow';
  out.rule =
    vouch ?? walk.rules[0] ?? (writesNamed ? 'write-named' : effects.includes('reads') ? 'read-file' : 'inspect');
  if (writesNamed && out.rule !== 'write-named' && vouch === undefined) out.rule = 'write-named';
  out.reason = describeAllow(out);
  return out;
}

export function describeEffect(e: Effect): string {
  switch (e) {
    case 'none':
      return 'only prints or computes';
    case 'reads':
      return 'reads files';
    case 'writes':
      return 'writes files';
    case 'runs':
      return 'runs other code';
    case 'network':
      return 'uses the network';
    case 'process':
      return 'controls processes';
    case 'system':
      return 'changes the system';
  }
}

function describeAllow(m: CatalogMatch): string {
  const reads = m.paths.filter((p) => p.kind !== 'path-write').map((p) => p.path);
  const writes = m.paths.filter((p) => p.kind === 'path-write').map((p) => p.path);
  const parts: string[] = [];
  if (writes.length > 0) parts.push(`writes ${list(writes)}`);
  if (reads.length > 0) parts.push(`reads ${list(reads)}`);
  // What the form does beyond the files it names: a commit writes the repository, a build runs its code.
  const beyond = m.effects.filter((e) => e !== 'none' && e !== 'reads' && !(e === 'writes' && writes.length > 0));
  parts.push(...beyond.map(describeEffect));
  if (parts.length === 0) parts.push(m.effects.includes('reads') ? 'reads only its input' : 'only prints or computes');
  return `${parts.join(' and ')}; every word is in the catalogue: ${m.entry ?? m.form}`;
}

function list(paths: readonly string[]): string {
  const shown = paths.slice(0, 3).join(', ');
  return paths.length > 3 ? `${shown} and ${paths.length - 3} more` : shown;
}
