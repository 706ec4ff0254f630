/**
 * Peels wrappers off a simple command so rules see what actually runs: `timeout 5 sudo -u bob rm x` is an
 * `rm` with wrappers `timeout`, `sudo`. Each wrapper's own options are skipped with its real option syntax
 * (a value is never mistaken for the command). Wrappers that run a *string* as shell code (`bash -c`, `eval`,
 * `ssh host cmd`, `su -c`, `watch`, `trap`) hand the string back for the parser to parse recursively;
 * `find -exec` hands back the commands find runs. Interpreters with inline code (`python -c`, `node -e`, …)
 * are flagged, not parsed: their code is not shell.
 *
 * A wrapper that runs nothing (`command -v rm`, `sudo -l`, `timeout --help`, `bash script.sh`) is the
 * command itself: `command -v rm` is a segment named `command`, never `rm`.
 *
 * Pure: no I/O. Throws UnwrapError when what runs cannot be known (`sudo $CMD`, `eval "$X"`).
 */
import {
  commandName,
  hasOption,
  optionValues,
  parseArgs,
  type OptionSpec,
  type ParsedArgs,
  type Word,
} from './options.js';
import { shellInitGenerator } from './shell-init.js';
import type { Redirect, Segment } from './types.js';

export type SegmentFlags = Segment['flags'];

/** Code that a wrapper hands to a shell; the parser parses it recursively (depth-bounded). */
export interface ShellCode {
  source: string;
  /** How it appears in `wrappers`: `bash -c`, `eval`, `ssh`, `su -c`, `watch`, `trap`, `flock -c`. */
  wrapper: string;
  /** ssh: the code runs on this host. */
  remote?: string;
}

export interface Unwrapped {
  /**
   * What runs after every wrapper is peeled (or the last wrapper itself when it runs nothing). For a
   * shell string this is empty unless `local` says otherwise; for find it is the find command.
   */
  words: Word[];
  /** Wrappers peeled, outermost first. */
  wrappers: string[];
  /** `env VAR=value`, `sudo VAR=value` assignments. */
  assignments: Record<string, string>;
  flags: SegmentFlags;
  /** Run by xargs: more arguments are appended at run time. */
  viaXargs: boolean;
  /** A wrapper changed the directory the command runs in (`env -C dir`, `sudo -D dir`). */
  chdir?: Word;
  /** Files a wrapper itself writes (`time -o file`), expressed as redirects of the command. */
  redirects: Redirect[];
  /** The command is shell code in a string: parse it. */
  shell?: ShellCode;
  /** `ssh host cmd`: the local ssh command, emitted as its own segment before the remote ones. */
  local?: Word[];
  /**
   * `docker exec db psql …`, `kubectl exec pod -- psql …`: the command runs in this container, its argv as
   * written (no shell in between). `local` is then the client's own command (`docker exec db`), run here with
   * the wrappers and assignments before it; `words`, `wrappers` after it and `assignments` are the container's.
   */
  container?: { name: string; via: string; localWrappers: number; localAssignments: Record<string, string> };
  /** `find … -exec cmd {} ;`: the commands find runs, each to unwrap again. `words` stays the find. */
  execs: Word[][];
  /** The program reads its code from stdin (`sh`, `bash -s`, `python3 -`): the language. */
  stdinCode?: string;
}

export class UnwrapError extends Error {
  override readonly name = 'UnwrapError';
}

/** Shells whose `-c` string is Bash-compatible enough to parse with the Bash grammar. */
export const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'yash', 'posh', 'rbash']);

/** Interpreters that run inline code from an option (`python -c`), flagged with their language. */
interface InlineSpec {
  lang: string;
  /** Short options whose value is the code: `-c`, `-e`. */
  code: string;
  long?: readonly string[];
  /** Short options that take a value (attached, or the next word). */
  value?: string;
  /** Short options whose value is the rest of the cluster (`perl -i.bak`, `-Mstrict`). */
  attached?: string;
  /** Short options followed by optional digits in the same cluster (`perl -l0`, `-0777`). */
  digits?: string;
  /** Short options after which what follows is not inline code (`python -m module`). */
  stop?: string;
}

const INLINE: Record<string, InlineSpec> = {
  python: { lang: 'python', code: 'c', value: 'WXQ', stop: 'm' },
  pypy: { lang: 'python', code: 'c', value: 'WXQ', stop: 'm' },
  node: { lang: 'javascript', code: 'ep', long: ['eval', 'print'], value: 'r' },
  nodejs: { lang: 'javascript', code: 'ep', long: ['eval', 'print'], value: 'r' },
  bun: { lang: 'javascript', code: 'ep', long: ['eval', 'print'], value: 'r' },
  perl: { lang: 'perl', code: 'eE', attached: 'iIMmdDFCx', digits: '0l' },
  ruby: { lang: 'ruby', code: 'e', value: 'rICE', attached: 'Fx', digits: '0' },
  php: { lang: 'php', code: 'r', value: 'cdfz' },
  lua: { lang: 'lua', code: 'e', value: 'l' },
  Rscript: { lang: 'r', code: 'e' },
  osascript: { lang: 'applescript', code: 'e' },
};

/** python3, python3.12, pypy3 → their INLINE entry. */
function inlineSpec(name: string): InlineSpec | undefined {
  if (Object.hasOwn(INLINE, name)) return INLINE[name];
  const m = /^(python|pypy)[0-9.]*$/.exec(name);
  return m === null ? undefined : INLINE[m[1]!];
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** At most this many wrappers are peeled from one command (each peel consumes words, so this only bounds work). */
const MAX_PEELS = 64;

export function unwrap(input: readonly Word[]): Unwrapped {
  const out: Unwrapped = {
    words: [...input],
    wrappers: [],
    assignments: {},
    flags: {},
    viaXargs: false,
    redirects: [],
    execs: [],
  };
  for (let peel = 0; peel < MAX_PEELS; peel++) {
    const words = out.words;
    const head = words[0];
    if (head === undefined) return out;
    const name = commandName(head.text);
    const next = peelOnce(name, words, out);
    if (next === 'stop') return finish(name, out);
    if (next === 'done') return out;
    const inner = words.slice(next);
    if (inner.length === 0) {
      // The wrapper runs nothing (`sudo -i`, `env`, `xargs` alone): it is the command.
      out.wrappers.pop();
      return finish(name, out);
    }
    const command = inner[0]!;
    if (command.dynamic) {
      throw new UnwrapError(
        `the command run by ${name} is an expansion (${command.text}), so hookwise cannot tell which program runs`,
      );
    }
    out.words = inner;
  }
  throw new UnwrapError(`more than ${MAX_PEELS} nested wrappers`);
}

/** Flags for the command that finally runs: inline code and stdin-fed interpreters. */
function finish(name: string, out: Unwrapped): Unwrapped {
  const inline = inlineSpec(name);
  if (inline !== undefined) {
    const found = inlineCode(out.words, inline);
    if (typeof found === 'number') {
      out.flags.inlineCode = inline.lang;
      out.flags.inlineCodeArg = found;
    } else if (found === 'stdin') out.stdinCode = inline.lang;
  } else if (name === 'deno' && out.words[1]?.text === 'eval') {
    out.flags.inlineCode = 'javascript';
    out.flags.inlineCodeArg = 2;
  }
  return out;
}

/**
 * Peel one wrapper: returns the index of the inner command in `words`, `stop` when `words` is the
 * command that runs (not a wrapper, or a wrapper that runs nothing), or `done` when `out` was rewritten
 * (shell strings, find).
 */
function peelOnce(name: string, words: Word[], out: Unwrapped): number | 'stop' | 'done' {
  switch (name) {
    case 'sudo':
      return peelSudo(words, out);
    case 'doas': {
      const args = wrapperArgs(words, { short: 'uC', stopAtOperand: true });
      if (args === undefined || hasOption(args, '-C', '-L')) return 'stop';
      return wrapped(out, 'doas', args.rest);
    }
    case 'env':
      return peelEnv(words, out);
    case 'command': {
      const args = wrapperArgs(words, { stopAtOperand: true });
      // `command -v x` / `-V x` only look x up.
      if (args === undefined || hasOption(args, '-v', '-V')) return 'stop';
      return wrapped(out, 'command', args.rest);
    }
    case 'builtin':
      return wrapped(out, 'builtin', words[1]?.text === '--' ? 2 : 1);
    case 'exec': {
      const args = wrapperArgs(words, { short: 'a', stopAtOperand: true });
      return args === undefined ? 'stop' : wrapped(out, 'exec', args.rest);
    }
    case 'nohup':
    case 'setsid':
    case 'coproc': {
      const args = wrapperArgs(words, { stopAtOperand: true });
      return args === undefined ? 'stop' : wrapped(out, name, args.rest);
    }
    case 'nice': {
      const args = wrapperArgs(words, { short: 'n', long: ['adjustment'], stopAtOperand: true });
      return args === undefined ? 'stop' : wrapped(out, 'nice', args.rest);
    }
    case 'ionice': {
      const args = wrapperArgs(words, {
        short: 'cnpPu',
        long: ['class', 'classdata', 'pid', 'pgid', 'uid'],
        stopAtOperand: true,
      });
      if (args === undefined || hasOption(args, '-p', '-P', '-u', '--pid', '--pgid', '--uid')) return 'stop';
      return wrapped(out, 'ionice', args.rest);
    }
    case 'taskset': {
      const args = wrapperArgs(words, { stopAtOperand: true });
      if (args === undefined || hasOption(args, '-p', '--pid')) return 'stop';
      // The first operand is the CPU mask or list.
      return wrapped(out, 'taskset', args.rest + 1);
    }
    case 'time': {
      const args = wrapperArgs(words, { short: 'fo', long: ['format', 'output'], stopAtOperand: true });
      if (args === undefined) return 'stop';
      for (const file of optionValues(args, '-o', '--output')) {
        out.redirects.push({
          op: hasOption(args, '-a', '--append') ? '>>' : '>',
          target: file.text,
          dynamic: file.dynamic,
        });
      }
      return wrapped(out, 'time', args.rest);
    }
    case 'timeout': {
      const args = wrapperArgs(words, { short: 'sk', long: ['signal', 'kill-after'], stopAtOperand: true });
      // The first operand is the duration.
      return args === undefined ? 'stop' : wrapped(out, 'timeout', args.rest + 1);
    }
    case 'stdbuf': {
      const args = wrapperArgs(words, { short: 'ioe', long: ['input', 'output', 'error'], stopAtOperand: true });
      return args === undefined ? 'stop' : wrapped(out, 'stdbuf', args.rest);
    }
    case 'xargs': {
      const args = wrapperArgs(words, {
        short: 'adEILnPs',
        shortOptional: 'eil',
        long: ['arg-file', 'delimiter', 'max-args', 'max-procs', 'max-chars', 'process-slot-var'],
        stopAtOperand: true,
      });
      if (args === undefined || args.rest >= words.length) return 'stop';
      out.viaXargs = true;
      out.flags.appendsArgs = true;
      // With -I/-i the replace string stands for each input item: those words are only known at run time.
      const replace =
        optionValues(args, '-I', '--replace', '-i')[0]?.text ?? (hasOption(args, '-i', '--replace') ? '{}' : undefined);
      if (replace !== undefined && replace !== '') {
        for (let k = args.rest; k < words.length; k++)
          if (words[k]!.text.includes(replace)) words[k] = { text: words[k]!.text, dynamic: true };
      }
      return wrapped(out, 'xargs', args.rest);
    }
    case 'busybox': {
      // `busybox rm -rf x`: the applet is the command.
      const applet = words[1];
      if (applet === undefined || applet.text.startsWith('-')) return 'stop';
      return wrapped(out, 'busybox', 1);
    }
    case 'find':
      return peelFind(words, out);
    case 'eval':
      return peelEval(words, out);
    case 'ssh':
      return peelSsh(words, out);
    case 'su':
    case 'runuser':
      return peelSu(name, words, out);
    case 'docker':
    case 'podman':
    case 'nerdctl':
    case 'docker-compose':
    case 'podman-compose':
    case 'kubectl':
    case 'oc':
      return peelContainerExec(name, words, out);
    case 'watch':
      return peelWatch(words, out);
    case 'flock':
      return peelFlock(words, out);
    case 'trap':
      return peelTrap(words, out);
    default:
      if (SHELLS.has(name)) return peelShell(name, words, out);
      return 'stop';
  }
}

/** Record the wrapper and return the index of the inner command. */
function wrapped(out: Unwrapped, wrapper: string, index: number): number {
  out.wrappers.push(wrapper);
  return index;
}

/** Parse a wrapper's options; undefined when it asks for help or its version (then it runs nothing). */
function wrapperArgs(words: readonly Word[], spec: OptionSpec): ParsedArgs | undefined {
  const args = parseArgs(words, 1, spec);
  return hasOption(args, '--help', '--version') ? undefined : args;
}

/** `VAR=value` operands before the command (env, sudo): recorded as assignments. Returns the next index. */
function takeAssignments(words: readonly Word[], from: number, out: Unwrapped): number {
  let i = from;
  while (i < words.length && ASSIGNMENT.test(words[i]!.text)) {
    const text = words[i]!.text;
    const eq = text.indexOf('=');
    out.assignments[text.slice(0, eq)] = text.slice(eq + 1);
    i++;
  }
  return i;
}

function peelSudo(words: Word[], out: Unwrapped): number | 'stop' {
  const args = wrapperArgs(words, {
    short: 'ugCDhprtTUR',
    long: [
      'user',
      'group',
      'close-from',
      'chdir',
      'host',
      'prompt',
      'role',
      'type',
      'command-timeout',
      'other-user',
      'chroot',
    ],
    stopAtOperand: true,
  });
  // -l lists, -v/-k/-K manage credentials, -e edits files (sudoedit), -h alone is help: none runs a command.
  if (
    args === undefined ||
    hasOption(args, '-l', '--list', '-v', '--validate', '-K', '--remove-timestamp', '-e', '--edit', '-V')
  )
    return 'stop';
  if (args.options.some((o) => o.name === '-h' && o.value === undefined)) return 'stop';
  const dir = optionValues(args, '-D', '--chdir')[0];
  if (dir !== undefined) out.chdir = dir;
  if (hasOption(args, '-b', '--background')) out.flags.background = true;
  out.wrappers.push('sudo');
  return takeAssignments(words, args.rest, out);
}

function peelEnv(words: Word[], out: Unwrapped): number | 'stop' {
  const args = wrapperArgs(words, { short: 'uCS', long: ['unset', 'chdir', 'split-string'], stopAtOperand: true });
  if (args === undefined) return 'stop';
  if (hasOption(args, '-S', '--split-string')) {
    throw new UnwrapError(
      'env -S splits its argument into a command with its own quoting rules; hookwise does not follow them',
    );
  }
  const dir = optionValues(args, '-C', '--chdir')[0];
  if (dir !== undefined) out.chdir = dir;
  out.wrappers.push('env');
  // `env - cmd` is `env -i cmd`.
  const from = words[args.rest]?.text === '-' ? args.rest + 1 : args.rest;
  return takeAssignments(words, from, out);
}

/** `find roots… expr -exec cmd {} ;|+`: find stays the segment; each exec'd command is returned. */
function peelFind(words: Word[], out: Unwrapped): 'done' {
  for (let i = 1; i < words.length; i++) {
    const action = words[i]!.text;
    if (action !== '-exec' && action !== '-execdir' && action !== '-ok' && action !== '-okdir') continue;
    const command: Word[] = [];
    let j = i + 1;
    for (; j < words.length; j++) {
      const w = words[j]!;
      // `;` ends the command; `+` ends it only right after `{}`.
      if (w.text === ';' || (w.text === '+' && command.length > 0 && command[command.length - 1]!.text === '{}')) break;
      // `{}` is replaced by each path find visits.
      command.push(w.text.includes('{}') ? { text: w.text, dynamic: true } : w);
    }
    if (command.length > 0) out.execs.push(command);
    i = j;
  }
  return 'done';
}

/**
 * `eval "$(direnv hook bash)"`: shell init code printed by a well-known tool (shell-init.ts), exactly as
 * its documentation tells users to load it. The substitution's command is parsed as its own segment (and
 * judged there); the `eval` stays a segment of its own with that one argument, for the packs to recognise.
 * A substitution (dynamic), not the same text quoted as a literal (`eval '$(…)'` parses it as code).
 */
function isShellInit(args: readonly Word[]): boolean {
  return args.length === 1 && args[0]!.dynamic && shellInitGenerator(args[0]!.text) !== undefined;
}

function peelEval(words: Word[], out: Unwrapped): 'stop' | 'done' {
  const args = words.slice(words[1]?.text === '--' ? 2 : 1);
  if (args.length === 0) return 'stop';
  if (words[1]?.text !== '--' && isShellInit(args)) return 'stop';
  const dynamic = args.find((w) => w.dynamic);
  if (dynamic !== undefined) {
    throw new UnwrapError(`eval runs the value of ${dynamic.text}, which is only known at run time`);
  }
  // eval joins its arguments with spaces and parses the result as shell code.
  return shellCode(out, { source: args.map((w) => w.text).join(' '), wrapper: 'eval' });
}

function peelTrap(words: Word[], out: Unwrapped): 'stop' | 'done' {
  const args = parseArgs(words, 1, { stopAtOperand: true });
  const action = args.operands[0];
  // `trap -p`, `trap -l`, `trap - INT`, `trap '' INT` (ignore), `trap INT` (reset): no code.
  if (
    action === undefined ||
    args.options.length > 0 ||
    action.text === '-' ||
    action.text === '' ||
    args.operands.length < 2
  )
    return 'stop';
  if (action.dynamic)
    throw new UnwrapError(`trap installs the value of ${action.text} as code, which is only known at run time`);
  return shellCode(out, { source: action.text, wrapper: 'trap' });
}

function shellCode(out: Unwrapped, code: ShellCode): 'done' {
  out.shell = code;
  out.words = [];
  return 'done';
}

/** bash|sh|zsh|… [options] -c 'string' [name [args…]], or a script file, or code from stdin. */
function peelShell(name: string, words: Word[], out: Unwrapped): 'stop' | 'done' {
  let command = false;
  let stdin = false;
  let i = 1;
  for (; i < words.length; i++) {
    const text = words[i]!.text;
    if (text === '--' || text === '-') {
      i++;
      break;
    }
    if (text.startsWith('--')) {
      if (text === '--help' || text === '--version') return 'stop';
      if (text === '--rcfile' || text === '--init-file') i++;
      continue;
    }
    if (text.length < 2 || (text[0] !== '-' && text[0] !== '+')) break;
    for (const letter of text.slice(1)) {
      if (letter === 'c') command = true;
      else if (letter === 's') stdin = true;
    }
    // -o option / +o option / -O shopt take the next word.
    if (/[oO]/.test(text.slice(1))) i++;
  }
  if (!command) {
    // `bash script.sh args` runs a file (the segment stays `bash`); `bash`, `bash -s` read code from stdin.
    if (stdin || i >= words.length) out.stdinCode = 'shell';
    return 'stop';
  }
  const code = words[i];
  if (code === undefined) return 'stop';
  if (code.dynamic) throw new UnwrapError(`${name} -c runs the value of ${code.text}, which is only known at run time`);
  return shellCode(out, { source: code.text, wrapper: `${name} -c` });
}

const SSH_VALUE_OPTIONS = 'BbcDEeFIiJLlmOoPpQRSWw';

function peelSsh(words: Word[], out: Unwrapped): 'stop' | 'done' {
  const args = wrapperArgs(words, { short: SSH_VALUE_OPTIONS, stopAtOperand: true });
  if (args === undefined) return 'stop';
  for (const option of optionValues(args, '-o')) {
    // These run a *local* command, with or without a remote one.
    if (/^\s*(ProxyCommand|LocalCommand|KnownHostsCommand)\b/i.test(option.text)) {
      throw new UnwrapError(`ssh -o ${option.text.split(/[\s=]/)[0]} runs a local command hookwise does not parse`);
    }
  }
  if (args.operands.length < 2) return 'stop';
  const host = args.operands[0]!;
  const remote = args.operands.slice(1);
  const dynamic = remote.find((w) => w.dynamic);
  if (dynamic !== undefined)
    throw new UnwrapError(`the remote command of ssh contains ${dynamic.text}, whose value is only known at run time`);
  out.local = words.slice(0, args.rest + 1);
  // ssh joins the remote words with spaces; the remote shell parses the result.
  return shellCode(out, { source: remote.map((w) => w.text).join(' '), wrapper: 'ssh', remote: host.text });
}

/** Options with a value before the subcommand: docker's and compose's global ones, kubectl's. */
const DOCKER_GLOBAL: OptionSpec = {
  short: 'Hcl',
  long: ['host', 'context', 'config', 'log-level', 'tlscacert', 'tlscert', 'tlskey'],
  stopAtOperand: true,
};
const COMPOSE_GLOBAL: OptionSpec = {
  short: 'fp',
  long: ['file', 'project-name', 'profile', 'env-file', 'project-directory', 'ansi', 'progress', 'parallel'],
  stopAtOperand: true,
};
const DOCKER_EXEC: OptionSpec = {
  short: 'euw',
  long: ['env', 'env-file', 'user', 'workdir', 'detach-keys', 'index', 'preserve-fds'],
  stopAtOperand: true,
};
const KUBECTL_VALUES: OptionSpec = {
  short: 'cnfs',
  long: [
    'container',
    'namespace',
    'filename',
    'server',
    'context',
    'kubeconfig',
    'cluster',
    'user',
    'token',
    'as',
    'as-group',
    'as-uid',
    'request-timeout',
    'pod-running-timeout',
    'certificate-authority',
    'client-certificate',
    'client-key',
    'tls-server-name',
    'cache-dir',
    'log-file',
    'v',
  ],
};

/**
 * `docker|podman|nerdctl exec [opts] CONTAINER cmd…`, `docker compose exec [opts] SERVICE cmd…` (and
 * docker-compose, podman-compose), `kubectl|oc exec [opts] POD [-c C] -- cmd…`: the command runs inside a
 * running container, its argv passed as is. Like `ssh host cmd`, what it names — files, paths — is the
 * container's, and what it does is judged as that command (a `DROP TABLE` through `docker exec db psql` is
 * one); the client's own part stays a local segment. Anything else (`docker run`, `kubectl exec` without
 * `--`, a second container inside the first) is the command itself.
 */
function peelContainerExec(name: string, words: Word[], out: Unwrapped): number | 'stop' {
  if (out.container !== undefined || out.local !== undefined) return 'stop';
  const kube = name === 'kubectl' || name === 'oc';
  const global = parseArgs(words, 1, kube ? { ...KUBECTL_VALUES, stopAtOperand: true } : DOCKER_GLOBAL);
  let at = global.rest;
  let via = name;
  if (!kube && name !== 'docker-compose' && name !== 'podman-compose' && words[at]?.text === 'compose') {
    at = parseArgs(words, at + 1, COMPOSE_GLOBAL).rest;
    via = `${name} compose`;
  } else if (!kube && words[at]?.text === 'container') at++;
  if (name.endsWith('-compose')) at = parseArgs(words, at, COMPOSE_GLOBAL).rest;
  if (words[at]?.text !== 'exec') return 'stop';
  let container: string;
  let command: number;
  const env: Record<string, string> = {};
  if (kube) {
    // kubectl takes options anywhere before `--`; the command is only ever after it.
    const dashes = words.findIndex((w, i) => i > at && w.text === '--');
    if (dashes === -1) return 'stop';
    const args = parseArgs(words.slice(0, dashes), at + 1, KUBECTL_VALUES);
    if (args.operands.length !== 1 || hasOption(args, '--help')) return 'stop';
    const inner = optionValues(args, '-c', '--container')[0];
    container = `${args.operands[0]!.text}${inner === undefined ? '' : ` (${inner.text})`}`;
    command = dashes + 1;
  } else {
    const args = parseArgs(words, at + 1, DOCKER_EXEC);
    if (hasOption(args, '--help')) return 'stop';
    if (optionValues(args, '--env-file').length > 0)
      throw new UnwrapError(
        `${via} exec --env-file sets variables in the container from a file hookwise does not read`,
      );
    for (const value of optionValues(args, '-e', '--env')) {
      const eq = value.text.indexOf('=');
      // `-e NAME` passes this shell's value of NAME: known only at run time.
      if (eq === -1) env[value.text] = `$${value.text}`;
      else env[value.text.slice(0, eq)] = value.text.slice(eq + 1);
    }
    // podman's --latest names no container: the first operand is already the command.
    const latest = name === 'podman' && hasOption(args, '-l', '--latest');
    container = latest ? 'the latest container' : (words[args.rest]?.text ?? '');
    command = latest ? args.rest : args.rest + 1;
    if (!latest && words[args.rest] === undefined) return 'stop';
  }
  if (command >= words.length) return 'stop';
  out.local = words.slice(0, command);
  out.container = {
    name: container,
    via: `${via} exec`,
    localWrappers: out.wrappers.length,
    localAssignments: out.assignments,
  };
  out.assignments = env;
  return wrapped(out, `${via} exec`, command);
}

function peelSu(name: string, words: Word[], out: Unwrapped): 'stop' | 'done' {
  // su permutes its arguments: `su - bob -c 'cmd'`.
  const args = wrapperArgs(words, {
    short: 'cgGsw',
    long: ['command', 'session-command', 'group', 'supp-group', 'shell', 'whitelist-environment'],
  });
  const code = args === undefined ? undefined : optionValues(args, '-c', '--command', '--session-command')[0];
  if (code === undefined) return 'stop';
  if (code.dynamic) throw new UnwrapError(`${name} -c runs the value of ${code.text}, which is only known at run time`);
  return shellCode(out, { source: code.text, wrapper: `${name} -c` });
}

function peelWatch(words: Word[], out: Unwrapped): number | 'stop' | 'done' {
  const args = wrapperArgs(words, {
    short: 'nq',
    long: ['interval', 'equexit'],
    shortOptional: 'd',
    stopAtOperand: true,
  });
  if (args === undefined || args.rest >= words.length) return 'stop';
  if (hasOption(args, '-x', '--exec')) return wrapped(out, 'watch', args.rest);
  // Without -x, watch joins its words and runs them with `sh -c`.
  const command = words.slice(args.rest);
  const dynamic = command.find((w) => w.dynamic);
  if (dynamic !== undefined)
    throw new UnwrapError(`watch runs ${dynamic.text} through sh -c; its value is only known at run time`);
  return shellCode(out, { source: command.map((w) => w.text).join(' '), wrapper: 'watch' });
}

function peelFlock(words: Word[], out: Unwrapped): number | 'stop' | 'done' {
  const args = wrapperArgs(words, {
    short: 'wEc',
    long: ['timeout', 'wait', 'conflict-exit-code', 'command'],
    stopAtOperand: true,
  });
  if (args === undefined) return 'stop';
  // flock [options] FILE (-c 'string' | cmd args…); `flock FD` runs nothing.
  const rest = parseArgs(words, args.rest + 1, { short: 'c', long: ['command'], stopAtOperand: true });
  const code = optionValues(args, '-c', '--command')[0] ?? optionValues(rest, '-c', '--command')[0];
  if (code !== undefined) {
    if (code.dynamic) throw new UnwrapError(`flock -c runs the value of ${code.text}, which is only known at run time`);
    return shellCode(out, { source: code.text, wrapper: 'flock -c' });
  }
  return args.rest + 1 < words.length ? wrapped(out, 'flock', args.rest + 1) : 'stop';
}

/**
 * Does an interpreter run inline code (`-c`/`-e`: the index of the word holding the program), read code
 * from stdin (no script, or `-`), or run a file?
 */
function inlineCode(words: readonly Word[], spec: InlineSpec): number | 'stdin' | 'file' {
  for (let i = 1; i < words.length; i++) {
    const text = words[i]!.text;
    if (text === '-') return 'stdin';
    if (text === '--') return i + 1 < words.length ? 'file' : 'stdin';
    if (!text.startsWith('-') || text.length < 2) return 'file';
    if (text.startsWith('--')) {
      const long = text.slice(2).split('=')[0]!;
      if (spec.long?.includes(long) === true) return text.includes('=') ? i : i + 1;
      continue;
    }
    for (let k = 1; k < text.length; k++) {
      const letter = text[k]!;
      if (spec.code.includes(letter)) return k === text.length - 1 ? i + 1 : i;
      if (spec.stop?.includes(letter) === true) return 'file';
      // perl -i.bak, -Mstrict: the rest of the cluster is the option's value.
      if (spec.attached?.includes(letter) === true) break;
      if (spec.digits?.includes(letter) === true) {
        while (k + 1 < text.length && /[0-9a-fA-Fx]/.test(text[k + 1]!) && !spec.code.includes(text[k + 1]!)) k++;
        continue;
      }
      if (spec.value?.includes(letter) === true) {
        if (k === text.length - 1) i++;
        break;
      }
    }
  }
  return 'stdin';
}
