/**
 * Code identity: what similarity (memory/similar.ts) must compare exactly so that an approval of one
 * program never approves another. A segment *carries code* when what it runs is not just a program and its
 * arguments but code handed to it:
 *
 *   - shell code: a segment parsed out of `bash -c '…'`, `eval '…'`, `ssh host '…'` (context
 *     `shell-string`) or out of a heredoc fed to a shell (`sh <<'EOF'`, context `heredoc`);
 *   - inline code (`flags.inlineCode`: `python -c`, `node -e`, `perl -e`, `ruby -e`, `deno eval`,
 *     `python3 - <<EOF`), or a program piped into an interpreter (`flags.pipeToShell`, both sides);
 *   - stdin data (`segment.stdin`: a heredoc or here-string body — SQL for `psql`, a manifest for
 *     `kubectl apply -f -`, a file body for `cat >`);
 *   - an interpreter running a script (`python3 a.py`, `node x.js`, `bash deploy.sh`, `source env.sh`,
 *     `npx pkg`, `tsx`, …): the script, and every interpreter option before it;
 *   - `awk` / `sed` programs, and database clients (`psql`, `mysql`, `sqlite3`, `redis-cli`, `mongosh`, …),
 *     whose arguments are queries;
 *   - an assignment that loads or picks code (`PATH=`, `LD_PRELOAD=`, `NODE_OPTIONS=`, `PYTHONPATH=`, …).
 *
 * The identity is a digest (XXH3-64) of the **sanitized** code material: the program as written
 * (`./venv/bin/python` is not `/tmp/x/python`), the directory it runs in, the code-bearing words, the
 * code-loading assignments and the stdin data. Words that stay free to vary are those after an
 * interpreter's script (its arguments: `python3 a.py --n 5` ~ `--n 6`), those after an awk or sed program
 * (the input files), and the arguments of a program that only reads stdin data (`kubectl apply -n dev
 * -f - <<EOF` ~ `-n qa`, the same manifest). A database client's arguments all count (`-h`, the database,
 * the query): which database a query runs against is part of what it does.
 *
 * `null` means the code cannot be known as text (an expansion in it, an unknown working directory, a
 * secret redacted out of it, arguments appended at run time by xargs / find -exec): such a call is only
 * remembered exactly, never by similarity. Pure.
 */
import { sanitize, type SanitizeResult } from '../sanitize/index.js';
import type { Segment } from '../shell/types.js';
import { xxh3Hex } from '../util/xxhash.js';

/** How an interpreter's options read: which take a value, which name the code that runs. */
interface RunnerSpec {
  /** Short options whose value is the rest of the cluster or the next word (`-W error`, `-r ./setup.js`). */
  value?: string;
  /** Short options whose value is the rest of the cluster only (`perl -i.bak`): never the next word. */
  attached?: string;
  /** Short options whose value *is* the code that runs (`python -m module`, `php -f file`): it ends the identity. */
  code?: string;
  /** Long options that take the next word as their value (without `=`). */
  long?: readonly string[];
  /** Long options whose value is the code that runs (`--eval`). */
  codeLong?: readonly string[];
  /** Long options known to take no value (an unknown one is taken to take the next word). */
  flagLong?: readonly string[];
  /** Subcommands before the script (`deno run x.ts`, `bun run x.ts`). */
  sub?: readonly string[];
  /** `+o` / `+O` options, as shells have. */
  plus?: boolean;
}

/** Shells that run a script file (`bash deploy.sh`); as shell/unwrap.ts's SHELLS, not imported to keep the parser out of this bundle. */
const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'yash', 'posh', 'rbash']);
const SHELL_SPEC: RunnerSpec = { value: 'oO', long: ['rcfile', 'init-file'], plus: true };
const NODE_LONG = [
  'require',
  'import',
  'loader',
  'experimental-loader',
  'conditions',
  'env-file',
  'input-type',
  'title',
  'watch-path',
  'inspect-port',
  'test-name-pattern',
  'test-reporter',
  'test-reporter-destination',
];
const NODE_FLAGS = [
  'inspect',
  'inspect-brk',
  'enable-source-maps',
  'no-warnings',
  'trace-warnings',
  'trace-deprecation',
  'watch',
  'test',
  'experimental-strip-types',
  'experimental-transform-types',
  'no-deprecation',
  'preserve-symlinks',
  'abort-on-uncaught-exception',
  'expose-gc',
];
const NPX_FLAGS = ['yes', 'no', 'quiet', 'ignore-existing', 'no-install'];

const RUNNERS: Record<string, RunnerSpec> = {
  node: { value: 'rC', code: 'ep', long: NODE_LONG, codeLong: ['eval', 'print'], flagLong: NODE_FLAGS },
  nodejs: { value: 'rC', code: 'ep', long: NODE_LONG, codeLong: ['eval', 'print'], flagLong: NODE_FLAGS },
  deno: {
    value: 'cL',
    long: ['config', 'import-map', 'location', 'seed', 'cert', 'env-file', 'lock', 'preload', 'reload'],
    sub: ['run'],
  },
  bun: {
    value: 'rcd',
    code: 'ep',
    long: [
      'preload',
      'config',
      'cwd',
      'env-file',
      'tsconfig-override',
      'define',
      'loader',
      'conditions',
      'main-fields',
    ],
    codeLong: ['eval', 'print'],
    sub: ['run'],
  },
  tsx: { value: 'r', code: 'ep', long: [...NODE_LONG, 'tsconfig'], codeLong: ['eval', 'print'], flagLong: NODE_FLAGS },
  'ts-node': {
    value: 'rPOCI',
    code: 'ep',
    long: ['require', 'project', 'compiler', 'compiler-options', 'ignore', 'dir', 'scope-dir', 'cwd'],
    codeLong: ['eval', 'print'],
  },
  ruby: { value: 'rICE', attached: 'Fx0', code: 'e' },
  perl: { value: 'IMmdDFCx', attached: 'i0l', code: 'eE' },
  php: { value: 'cdzSt', code: 'rf', codeLong: ['run'] },
  lua: { value: 'l', code: 'e' },
  Rscript: { code: 'e' },
  osascript: { value: 'ls', code: 'e' },
  source: {},
  '.': {},
  npx: { value: 'p', code: 'c', long: ['package', 'cache', 'userconfig'], codeLong: ['call'], flagLong: NPX_FLAGS },
  pnpx: { value: 'p', code: 'c', long: ['package'], codeLong: ['call'], flagLong: NPX_FLAGS },
  bunx: { value: 'p', long: ['package'], flagLong: ['bun'] },
  uvx: { value: 'pw', long: ['from', 'with', 'python', 'index', 'index-url', 'extra-index-url'] },
};

function runnerSpec(name: string): RunnerSpec | undefined {
  if (Object.hasOwn(RUNNERS, name)) return RUNNERS[name];
  if (SHELLS.has(name)) return SHELL_SPEC;
  // python3, python3.12, pypy3
  if (/^(?:python|pypy)[0-9.]*$/.test(name)) return { value: 'WXQ', code: 'cm', long: ['check-hash-based-pycs'] };
  return undefined;
}

/** Database clients: their arguments (and stdin) are queries, so all of them are code. */
const DATABASE_CLIENTS = new Set([
  'psql',
  'pgcli',
  'mysql',
  'mariadb',
  'mycli',
  'sqlite3',
  'sqlite',
  'litecli',
  'duckdb',
  'redis-cli',
  'valkey-cli',
  'keydb-cli',
  'mongosh',
  'mongo',
  'clickhouse-client',
  'cqlsh',
  'sqlcmd',
  'snowsql',
  'usql',
]);

const AWKS = new Set(['awk', 'gawk', 'mawk', 'nawk', 'busybox-awk']);

/** Environment variables that load or pick the code a command runs. */
const CODE_ENV =
  /^(?:PATH|LD_\w+|DYLD_\w+|BASH_ENV|ZDOTDIR|PROMPT_COMMAND|PS4|IFS|SHELLOPTS|BASHOPTS|NODE_OPTIONS|NODE_PATH|PYTHON\w*|PERL5\w*|PERLLIB|RUBY\w*|GEM_\w+|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|JDK_JAVA_OPTIONS|CLASSPATH|GIT_\w*(?:SSH|EXEC|EDITOR|PAGER|ASKPASS|CONFIG)\w*|EDITOR|VISUAL|PAGER|SSH_ASKPASS|SUDO_ASKPASS|GCONV_PATH|MALLOC_\w+)$/;

/** A word naming a file of code. */
const CODE_FILE =
  /\.(?:py|pyw|pyz|js|mjs|cjs|jsx|ts|mts|cts|tsx|rb|pl|pm|php|phar|sh|bash|zsh|ksh|fish|lua|r|scpt|applescript|awk|sed|sql|ps1|wasm)$/i;

/** The words of a segment that are code, by index into argv; `all` for every argument. */
type Selection = { kind: 'all' } | { kind: 'words'; indices: number[] };

const ALL: Selection = { kind: 'all' };

/**
 * The code identity of a segment: undefined when it carries no code, null when its code cannot be known
 * as text, else `code:<xxh3 of the sanitized code material>`. `cwd` is the call's working directory;
 * `stdin`, the segment's stdin data already sanitized (the caller needs it for the subject text too).
 */
export function codeIdentity(segment: Segment, cwd: string, stdin?: SanitizeResult): string | null | undefined {
  const selection = codeWords(segment);
  const env = Object.keys(segment.assignments)
    .filter((name) => CODE_ENV.test(name))
    .sort();
  if (selection === undefined && env.length === 0 && segment.stdin === undefined) return undefined;
  // Code that depends on what is appended at run time, or on a directory nobody knows, is not text.
  if (segment.context === 'xargs' || segment.context === 'find-exec' || segment.flags.appendsArgs === true) return null;
  if (segment.flags.cwdUnknown === true) return null;
  // Where it runs: a relative script (`python3 a.py`), a relative require in inline code, is another file
  // in another directory. Not normalized: `a/link/../x.py` may be another file than `a/x.py`.
  const where = segment.cwd === undefined ? cwd : isRooted(segment.cwd) ? segment.cwd : `${cwd}/${segment.cwd}`;
  const dynamic = new Set(segment.dynamicArgs);
  const indices =
    selection === undefined
      ? []
      : selection.kind === 'all'
        ? segment.argv.map((_, i) => i).slice(1)
        : selection.indices;
  if (dynamic.has(0) || indices.some((i) => dynamic.has(i))) return null;
  const stdinClean = segment.stdin === undefined ? undefined : (stdin ?? sanitize(segment.stdin));
  // Sanitize before digesting: no identity is derived from a secret. Code that a secret was redacted out
  // of is not known as text (two such scripts would look the same): exact memory only.
  if (stdinClean !== undefined && stdinClean.findings.length > 0) return null;
  const material = sanitize(
    JSON.stringify({
      program: segment.argv[0] ?? segment.name,
      cwd: where,
      context: segment.context,
      remote: segment.flags.remote,
      env: env.map((name) => [name, segment.assignments[name]]),
      words: indices.map((i) => segment.argv[i]),
    }),
  );
  if (material.findings.length > 0) return null;
  const data = stdinClean === undefined ? '' : `\u0000stdin\u0000${stdinClean.text}`;
  return `code:${xxh3Hex(material.text + data)}`;
}

function isRooted(path: string): boolean {
  return path.startsWith('/') || path === '~' || path.startsWith('~/');
}

/** Which argv words are code, or undefined when the segment runs no code of its own. */
function codeWords(segment: Segment): Selection | undefined {
  if (segment.context === 'shell-string' || segment.context === 'heredoc') return ALL;
  if (segment.flags.inlineCode !== undefined || segment.flags.pipeToShell === true) return ALL;
  const name = segment.name;
  if (DATABASE_CLIENTS.has(name)) return ALL;
  if (AWKS.has(name)) return awkProgram(segment.argv);
  if (name === 'sed' || name === 'gsed') return sedProgram(segment.argv);
  const spec = runnerSpec(name);
  if (spec !== undefined) return scriptWords(segment.argv, spec);
  return undefined;
}

/**
 * An interpreter's options and script: argv[1] up to and including the script (or the code an option
 * names: `-m module`). No script found (a REPL, code on stdin): every argument.
 */
function scriptWords(argv: readonly string[], spec: RunnerSpec): Selection {
  let i = 1;
  if (spec.sub?.includes(argv[1] ?? '') === true) i = 2;
  let end: number | undefined;
  // An unknown long option was taken to be a flag because a file of code follows it: if it took that file
  // as its value, the real script comes later, so every later file of code is kept too.
  let guessed = false;
  scan: for (; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === '-') return ALL;
    if (word === '--') {
      if (i + 1 < argv.length) end = i + 1;
      break;
    }
    if (word.startsWith('--')) {
      const [long, value] = splitLong(word.slice(2));
      if (spec.codeLong?.includes(long) === true) {
        end = value === undefined ? i + 1 : i;
        break;
      }
      if (value !== undefined) continue;
      // An unknown long option is taken to consume the next word — unless that word names a file of code.
      // Over-consuming only makes the identity longer (stricter); under-consuming could mistake a value
      // for the script and let the real script vary.
      if (
        spec.long?.includes(long) === true ||
        (spec.flagLong?.includes(long) !== true && !CODE_FILE.test(argv[i + 1] ?? ''))
      )
        i++;
      else if (spec.flagLong?.includes(long) !== true) guessed = true;
      continue;
    }
    if (word.length >= 2 && (word[0] === '-' || (spec.plus === true && word[0] === '+'))) {
      for (let k = 1; k < word.length; k++) {
        const letter = word[k]!;
        if (spec.code?.includes(letter) === true) {
          end = k === word.length - 1 ? i + 1 : i;
          break scan;
        }
        if (spec.attached?.includes(letter) === true) break;
        if (spec.value?.includes(letter) === true) {
          if (k === word.length - 1) i++;
          break;
        }
      }
      continue;
    }
    end = i;
    break;
  }
  if (end === undefined || end >= argv.length) return ALL;
  const indices: number[] = [];
  for (let k = 1; k <= end; k++) indices.push(k);
  if (guessed) for (let k = end + 1; k < argv.length; k++) if (CODE_FILE.test(argv[k]!)) indices.push(k);
  return { kind: 'words', indices };
}

function splitLong(text: string): [string, string | undefined] {
  const eq = text.indexOf('=');
  return eq < 0 ? [text, undefined] : [text.slice(0, eq), text.slice(eq + 1)];
}

/**
 * sed: the program (`-e`/`--expression` values, `-f`/`--file` scripts, else the first operand). Input
 * files vary. Anything unexpected: every argument.
 */
function sedProgram(argv: readonly string[]): Selection {
  return programWords(argv, {
    program: 'ef',
    programLong: ['expression', 'file'],
    value: 'l',
    attached: 'i',
    long: ['line-length'],
    flagLong: [
      'in-place',
      'quiet',
      'silent',
      'regexp-extended',
      'separate',
      'unbuffered',
      'null-data',
      'posix',
      'debug',
      'sandbox',
      'follow-symlinks',
    ],
  });
}

/**
 * awk: the program (first operand, or `-f`/`-e`/`-E`/`-i`/`-l` values), `-v` assignments and `var=value`
 * operands (a program may run what they hold). Input files vary.
 */
function awkProgram(argv: readonly string[]): Selection {
  return programWords(argv, {
    program: 'feEilv',
    programLong: ['file', 'source', 'exec', 'include', 'load', 'assign'],
    value: 'F',
    long: ['field-separator'],
    flagLong: [],
    operandAssignments: true,
  });
}

interface ProgramSpec {
  /** Short options whose value is (part of) the program. */
  program: string;
  programLong: readonly string[];
  value: string;
  attached?: string;
  long: readonly string[];
  flagLong: readonly string[];
  /** `var=value` operands are part of the program's input that can steer it (awk). */
  operandAssignments?: boolean;
}

const ASSIGNMENT = /^[A-Za-z_]\w*=/;

function programWords(argv: readonly string[], spec: ProgramSpec): Selection {
  const indices: number[] = [];
  let explicit = false;
  let operand = false;
  for (let i = 1; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === '--') {
      let k = i + 1;
      if (!explicit && !operand && k < argv.length) indices.push(k++);
      if (spec.operandAssignments === true) for (; k < argv.length; k++) if (ASSIGNMENT.test(argv[k]!)) indices.push(k);
      break;
    }
    if (word.startsWith('--')) {
      const [long, value] = splitLong(word.slice(2));
      if (spec.programLong.includes(long)) {
        explicit = true;
        indices.push(i);
        if (value === undefined && i + 1 < argv.length) indices.push(++i);
      } else if (spec.long.includes(long)) {
        if (value === undefined) i++;
      } else if (!spec.flagLong.includes(long)) {
        return ALL;
      }
      continue;
    }
    if (word.length >= 2 && word[0] === '-') {
      for (let k = 1; k < word.length; k++) {
        const letter = word[k]!;
        if (spec.program.includes(letter)) {
          explicit = true;
          indices.push(i);
          if (k === word.length - 1 && i + 1 < argv.length) indices.push(++i);
          break;
        }
        if (spec.attached?.includes(letter) === true) break;
        if (spec.value.includes(letter)) {
          if (k === word.length - 1) i++;
          break;
        }
      }
      continue;
    }
    if (!explicit && !operand) indices.push(i);
    else if (spec.operandAssignments === true && ASSIGNMENT.test(word)) indices.push(i);
    operand = true;
  }
  if (indices.length === 0) return ALL;
  return { kind: 'words', indices };
}
