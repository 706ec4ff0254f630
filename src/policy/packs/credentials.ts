/**
 * Credential reads: printing, searching, copying or uploading files that hold secrets (.env files, SSH
 * private keys, cloud and registry credentials, *.pem / *.key), and dumping the environment (`env`,
 * `printenv`, `set`, `export -p`) or a secret-looking variable (`printenv GITHUB_TOKEN`,
 * `echo $AWS_SECRET_ACCESS_KEY`). Whatever the agent reads lands in the model's context (and its
 * provider's logs) → ask: sometimes needed, always a human's call.
 * Template files (.env.example, .env.sample, …) and public keys are not secrets.
 */
import { posix } from 'node:path';
import type { Segment } from '../../shell/types.js';
import { lazyRe2 } from '../../util/re2.js';
import { effectiveCwd, expandKnown, hasExpansion, scan, type Positional } from './argv.js';
import { definePack, type PackEnv, type PackFinding } from './types.js';

const RULES = {
  'read-secret-file': {
    verdict: 'ask',
    message:
      'reads a file that holds credentials; its contents would land in the model context and transcript. Read only the key names (e.g. cut -d= -f1 .env) or use the example file; a human confirms.',
  },
  'copy-secret-file': {
    verdict: 'ask',
    message:
      'copies, archives or uploads a file that holds credentials, where hookwise can no longer protect it. A human confirms.',
  },
  'dump-environment': {
    verdict: 'ask',
    message:
      'prints every environment variable, including tokens and passwords. Print the one non-secret variable you need (printenv PATH) or only the names (env | cut -d= -f1); a human confirms.',
  },
  'print-secret-variable': {
    verdict: 'ask',
    message:
      'prints a variable whose name says it holds a secret. Check that it is set without printing it ([ -n "$VAR" ] && echo set); a human confirms.',
  },
} as const;
type RuleId = keyof typeof RULES;

/** Commands that print or search a file's content. */
export const CONTENT_READERS = new Set([
  'cat',
  'tac',
  'nl',
  'less',
  'more',
  'most',
  'head',
  'tail',
  'bat',
  'batcat',
  'view',
  'strings',
  'xxd',
  'hexdump',
  'od',
  'base64',
  'base32',
  'grep',
  'egrep',
  'fgrep',
  'rg',
  'ag',
  'ack',
  'awk',
  'gawk',
  'mawk',
  'sed',
  'cut',
  'sort',
  'uniq',
  'diff',
  'cmp',
  'jq',
  'yq',
  'vi',
  'vim',
  'nvim',
  'nano',
  'emacs',
  'openssl',
  'paste',
  'column',
]);
/** Commands that copy a file somewhere else: SOURCE… DEST (or -t DEST SOURCE…). */
const COPIERS = new Set(['cp', 'mv', 'scp', 'rsync', 'install', 'ln']);
/** Commands that pack every operand into an archive. */
const ARCHIVERS = new Set(['tar', 'zip', '7z', 'gzip', 'bzip2', 'xz', 'zstd']);
/** Commands that send files over the network (`-d @file`, `-T file`, …). */
const UPLOADERS = new Set(['curl', 'wget', 'http', 'https', 'xh']);
/** Pattern-first searchers: their first positional is a pattern, not a file (unless -e/-f gave it). */
const PATTERN_FIRST = new Set(['grep', 'egrep', 'fgrep', 'rg', 'ag', 'ack', 'awk', 'gawk', 'mawk', 'sed']);

const TEMPLATE_SUFFIXES = ['.example', '.sample', '.template', '.dist', '.defaults', '.schema', '.tmpl', '.tpl'];
const KEY_EXTENSIONS = ['.pem', '.key', '.p12', '.pfx', '.jks', '.keystore', '.ppk'];
const SECRET_BASENAMES = new Set([
  '.netrc',
  '_netrc',
  '.npmrc',
  '.pypirc',
  '.git-credentials',
  '.pgpass',
  '.my.cnf',
  '.dockercfg',
  'credentials.db',
  'application_default_credentials.json',
  'access_tokens.db',
  'htpasswd',
  '.htpasswd',
  'shadow',
  'gshadow',
  'secrets.yml',
  'secrets.yaml',
  'secrets.json',
  'secrets.toml',
  '.vault-token',
]);
/** Relative to the home directory. */
const HOME_SECRETS = [
  '.aws/credentials',
  '.docker/config.json',
  '.kube/config',
  '.config/gcloud',
  '.gnupg',
  '.password-store',
];
const SSH_KEY_NAMES = ['id_rsa', 'id_dsa', 'id_ecdsa', 'id_ed25519', 'id_ecdsa_sk', 'id_ed25519_sk', 'identity'];

/** Why `text` (a path as written, maybe with a glob) names a credential file; undefined when it does not. */
export function secretFileKind(text: string, env: Pick<PackEnv, 'home'>, cwd: string | undefined): string | undefined {
  const expanded = expandKnown(text, env.home, cwd);
  if (hasExpansion(expanded)) return undefined; // unknown: the write-target / later tiers see it
  const joined = expanded.startsWith('/') || cwd === undefined ? expanded : `${cwd}/${expanded}`;
  // normalize only when there is something to normalize (this runs for every operand of every reader)
  const path =
    joined.includes('/.') || joined.includes('//') || joined.startsWith('.') ? posix.normalize(joined) : joined;
  const base = path.slice(path.lastIndexOf('/') + 1);
  const envFile =
    base === '.env' ||
    base === '.envrc' ||
    base.startsWith('.env.') ||
    base.endsWith('.env') ||
    base.startsWith('.env*');
  if (envFile) return TEMPLATE_SUFFIXES.some((s) => base.endsWith(s)) ? undefined : 'an environment file';
  if (base.endsWith('.pub')) return undefined;
  if (SSH_KEY_NAMES.includes(base)) return 'an SSH private key';
  if (
    path.startsWith(`${env.home}/.ssh/`) &&
    !['known_hosts', 'known_hosts.old', 'config', 'authorized_keys'].includes(base)
  )
    return 'an SSH key';
  if (KEY_EXTENSIONS.some((e) => base.endsWith(e))) return 'a private key or keystore';
  if (SECRET_BASENAMES.has(base)) return 'a credentials file';
  if (path.startsWith(`${env.home}/`)) {
    const inHome = path.slice(env.home.length + 1);
    if (HOME_SECRETS.some((p) => inHome === p || inHome.startsWith(`${p}/`))) return 'a credentials file';
  }
  if (path.includes('/secrets/') || path.startsWith('secrets/')) return 'a file in a secrets directory';
  if (path.startsWith('/proc/') && base === 'environ') return "a process's environment";
  return undefined;
}

/**
 * Options that take a value, per reader. Kept short on purpose: a value misread as an operand is only
 * checked as a file too (harmless), while an operand misread as a value would hide a secret file.
 */
const SEARCHER_WITH_VALUE = [
  'e',
  'regexp',
  'f',
  'file',
  'm',
  'max-count',
  'A',
  'B',
  'C',
  'context',
  'after-context',
  'before-context',
  'g',
  'glob',
  't',
  'type',
  'T',
  'type-not',
  'd',
  'directories',
  'exclude',
  'include',
  'max-depth',
];
const READER_WITH_VALUE: Readonly<Record<string, readonly string[]>> = {
  head: ['n', 'c', 'bytes', 'lines'],
  tail: ['n', 'c', 'bytes', 'lines'],
  cut: ['d', 'f', 'c', 'b', 'delimiter', 'fields', 'characters', 'bytes'],
  sort: ['k', 'key', 't', 'field-separator', 'S', 'T'],
};

/** The file operands of a reader (skipping a searcher's pattern). */
function fileOperands(segment: Segment): Positional[] {
  const withValue = PATTERN_FIRST.has(segment.name) ? SEARCHER_WITH_VALUE : (READER_WITH_VALUE[segment.name] ?? []);
  const args = scan(segment.argv, { withValue });
  let operands = args.positionals;
  const patternGiven =
    args.values.has('e') || args.values.has('regexp') || (segment.name !== 'sed' && args.values.has('f'));
  if (PATTERN_FIRST.has(segment.name) && !patternGiven) operands = operands.slice(1);
  // `-f FILE` of a searcher is read too (a pattern file), as are option values naming files for copiers.
  const valueFiles = [
    ...(args.values.get('file') ?? []),
    ...(PATTERN_FIRST.has(segment.name) ? (args.values.get('f') ?? []) : []),
  ];
  return [...operands, ...valueFiles.map((text) => ({ text, index: -1 }))];
}

/** curl/wget/httpie upload syntax: `-d @file`, `--data-binary @file`, `-F k=@file`, `-T file`. */
function uploadOperands(segment: Segment): string[] {
  const out: string[] = [];
  const argv = segment.argv;
  for (let i = 1; i < argv.length; i++) {
    const word = argv[i]!;
    const at = word.indexOf('@');
    if (at !== -1 && (at === 0 || word[at - 1] === '=')) out.push(word.slice(at + 1));
    if (
      (word === '-T' || word === '--upload-file' || word === '--post-file' || word === '--body-file') &&
      i + 1 < argv.length
    )
      out.push(argv[i + 1]!);
    if (word.startsWith('--post-file=') || word.startsWith('--body-file=')) out.push(word.slice(word.indexOf('=') + 1));
  }
  return out;
}

/** Variable names that say they hold a secret (PWD, OLDPWD and friends excluded). */
const SECRET_NAME = lazyRe2(
  '(?i)(?:secret|token|passw|passphrase|credential|api_?key|access_?key|private_?key|auth|cookie|session|signing|_key$|^key$|dsn$|database_url)',
);
const HARMLESS_NAMES = new Set(['PWD', 'OLDPWD', 'SSH_AUTH_SOCK', 'GPG_AGENT_INFO', 'XAUTHORITY']);

export function secretVariable(name: string): boolean {
  return !HARMLESS_NAMES.has(name) && SECRET_NAME().test(name);
}

/** `$NAME`, `${NAME}`, `${NAME:-x}` references in a word. */
function referencedVariables(word: string): string[] {
  const names: string[] = [];
  for (let i = word.indexOf('$'); i !== -1; i = word.indexOf('$', i + 1)) {
    let j = i + 1;
    if (word[j] === '{') j++;
    let k = j;
    while (k < word.length && isNameChar(word.charCodeAt(k))) k++;
    if (k > j) names.push(word.slice(j, k));
  }
  return names;
}

function isNameChar(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || (code >= 48 && code <= 57) || code === 95;
}

const ENVIRONMENT_COMMANDS = new Set(['env', 'printenv', 'set', 'export', 'declare', 'typeset', 'echo', 'printf']);

function environment(segment: Segment): PackFinding<RuleId> | undefined {
  if (!ENVIRONMENT_COMMANDS.has(segment.name)) return undefined;
  const args = scan(segment.argv, { withValue: ['u', 'unset', 'C', 'chdir', 'S', 'split-string'] });
  switch (segment.name) {
    case 'env':
      // A bare `env` (the parser unwraps `env VAR=x cmd`, so a segment named env has no command).
      return args.positionals.length === 0 ? { rule: 'dump-environment', detail: 'env' } : undefined;
    case 'printenv': {
      if (args.positionals.length === 0) return { rule: 'dump-environment', detail: 'printenv' };
      const secret = args.positionals.find((p) => secretVariable(p.text));
      return secret === undefined ? undefined : { rule: 'print-secret-variable', detail: secret.text };
    }
    case 'set':
    case 'export':
    case 'declare':
    case 'typeset':
      // Listing forms only: `set`, `export`, `export -p`, `declare -p` / `-x` with no names.
      if (args.positionals.length === 0 && (segment.name === 'set' ? segment.argv.length === 1 : true)) {
        return { rule: 'dump-environment', detail: segment.argv.join(' ') };
      }
      return undefined;
    case 'echo':
    case 'printf': {
      const name = segment.argv.slice(1).flatMap(referencedVariables).find(secretVariable);
      return name === undefined ? undefined : { rule: 'print-secret-variable', detail: `$${name}` };
    }
    default:
      return undefined;
  }
}

/** The files a copier, archiver or uploader takes content from (not the destination: that is a write). */
function copiedFiles(segment: Segment): string[] {
  if (UPLOADERS.has(segment.name)) return uploadOperands(segment);
  if (ARCHIVERS.has(segment.name)) {
    return scan(segment.argv, {
      withValue: ['C', 'directory', 'f', 'file', 'T', 'files-from', 'X', 'exclude-from'],
    }).positionals.map((p) => p.text);
  }
  if (!COPIERS.has(segment.name)) return [];
  const args = scan(segment.argv, {
    withValue: [
      't',
      'target-directory',
      'S',
      'suffix',
      'm',
      'mode',
      'o',
      'owner',
      'g',
      'group',
      'e',
      'rsh',
      'i',
      'P',
      'F',
      'l',
      'c',
      'J',
      'exclude',
      'include',
      'filter',
    ],
  });
  const operands = args.positionals.map((p) => p.text);
  return args.values.has('t') || args.values.has('target-directory') ? operands : operands.slice(0, -1);
}

function classifyCredentials(segment: Segment, env: PackEnv): PackFinding<RuleId> | undefined {
  const dumped = environment(segment);
  if (dumped !== undefined) return dumped;
  const name = segment.name;
  const inputRedirect = segment.redirects.some((r) => r.op === '<' || r.op === '<>');
  const relevant =
    CONTENT_READERS.has(name) || COPIERS.has(name) || ARCHIVERS.has(name) || UPLOADERS.has(name) || name === 'dd';
  if (!relevant && !inputRedirect) return undefined;
  const cwd = effectiveCwd(env);
  const check = (text: string): string | undefined => {
    const kind = secretFileKind(text, env, cwd);
    return kind === undefined ? undefined : `${text} (${kind})`;
  };
  // Anything reading a secret on stdin: `cmd < .env`.
  for (const r of segment.redirects) {
    if (r.op !== '<' && r.op !== '<>') continue;
    const found = check(r.target);
    if (found !== undefined) return { rule: 'read-secret-file', detail: found };
  }
  if (CONTENT_READERS.has(segment.name)) {
    for (const operand of fileOperands(segment)) {
      const found = check(operand.text);
      if (found !== undefined) return { rule: 'read-secret-file', detail: found };
    }
  }
  if (segment.name === 'dd') {
    const input = segment.argv.find((w) => w.startsWith('if='));
    const found = input === undefined ? undefined : check(input.slice(3));
    if (found !== undefined) return { rule: 'read-secret-file', detail: found };
  }
  for (const text of copiedFiles(segment)) {
    const found = check(text);
    if (found !== undefined) return { rule: 'copy-secret-file', detail: found };
  }
  return undefined;
}

export const credentialsPack = definePack<RuleId>({
  name: 'credentials',
  kind: 'guard',
  description:
    'reading, copying or uploading .env files, SSH keys, cloud credentials, *.pem; env / printenv dumps; printing secret variables',
  commands: [
    ...CONTENT_READERS,
    ...COPIERS,
    ...ARCHIVERS,
    ...UPLOADERS,
    'dd',
    'env',
    'printenv',
    'set',
    'export',
    'declare',
    'typeset',
    'echo',
    'printf',
  ],
  rules: RULES,
  classify: classifyCredentials,
});
