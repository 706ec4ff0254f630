/**
 * More commands that only look, for the read-only pack: `sed` scripts that only print, `curl`/`wget` GETs
 * to a service on this machine, package-manager queries, terraform's checks and listings, and a few
 * system listings. Each recogniser is strict: an option or script command it does not know keeps the
 * segment out.
 */
import type { Segment } from '../../shell/types.js';
import { sedScriptPrintsOnly } from '../../catalog/code-checks.js';
import { hasAny, hasExpansion, scan } from './argv.js';

// ── sed ──────────────────────────────────────────────────────────────────────────────────────────────

/** sed options that take a value, and those that only change how it reads or prints. */
const SED_HARMLESS_FLAGS = new Set([
  'n',
  'quiet',
  'silent',
  'E',
  'r',
  'regexp-extended',
  's',
  'separate',
  'u',
  'unbuffered',
  'z',
  'null-data',
  'posix',
  'debug',
  'sandbox',
  'b',
  'binary',
]);

/**
 * `sed [-n] SCRIPT [FILE…]` that prints only: no -i (in place), no -f (a script hookwise cannot read), and a
 * script with no command that writes a file or runs one (`w`, `W`, `r`/`R` read files into the output, `e`,
 * `s///w`, `s///e`). Returns the scripts' file operands (for the caller to vet), or undefined.
 */
export function sedPrintOperands(segment: Segment): { text: string; index: number }[] | undefined {
  const args = scan(segment.argv, { withValue: ['e', 'expression', 'l', 'line-length'] });
  if ([...args.flags].some((f) => !SED_HARMLESS_FLAGS.has(f))) return undefined; // -i, --in-place, -f, --follow-symlinks, unknown
  if (hasAny(args, 'f', 'file', 'i', 'in-place')) return undefined;
  const given = [...(args.values.get('e') ?? []), ...(args.values.get('expression') ?? [])];
  const scripts = given.length > 0 ? given : args.positionals.slice(0, 1).map((p) => p.text);
  const files = given.length > 0 ? args.positionals : args.positionals.slice(1);
  if (scripts.length === 0 || !scripts.every(sedScriptPrintsOnly)) return undefined;
  // The scripts and options must be literal (an expansion could be any command); file operands are vetted by the caller.
  const fileIndices = new Set(files.map((f) => f.index));
  if (segment.dynamicArgs.some((i) => !fileIndices.has(i))) return undefined;
  return files;
}

// ── curl / wget to localhost ─────────────────────────────────────────────────────────────────────────

/** http(s) to this machine: localhost, 127.x.x.x, [::1], 0.0.0.0 — and nothing after the host but a port and a path. */
const LOCAL_URL = /^(?:https?:\/\/)?(?:localhost|127(?:\.\d{1,3}){3}|\[::1\]|0\.0\.0\.0)(?::\d{1,5})?(?:[/?#]|$)/i;

export function isLocalUrl(text: string): boolean {
  return LOCAL_URL.test(text);
}

const CURL_WITH_VALUE = [
  'o',
  'output',
  'output-dir',
  'D',
  'dump-header',
  'c',
  'cookie-jar',
  'b',
  'cookie',
  'H',
  'header',
  'A',
  'user-agent',
  'e',
  'referer',
  'u',
  'user',
  'm',
  'max-time',
  'connect-timeout',
  'retry',
  'retry-delay',
  'retry-max-time',
  'w',
  'write-out',
  'url',
  'X',
  'request',
  'r',
  'range',
  'C',
  'continue-at',
  'trace',
  'trace-ascii',
  'stderr',
  'cacert',
  'capath',
  'cert',
  'E',
  'key',
  'oauth2-bearer',
  'Y',
  'speed-limit',
  'y',
  'speed-time',
  'limit-rate',
  'max-filesize',
  'z',
  'time-cond',
  'interface',
  'url-query',
  'max-redirs',
  // refused below, listed so that their values are not read as URLs
  'd',
  'data',
  'data-binary',
  'data-raw',
  'data-ascii',
  'data-urlencode',
  'F',
  'form',
  'form-string',
  'T',
  'upload-file',
  'json',
  'K',
  'config',
  'x',
  'proxy',
  'preproxy',
  'socks4',
  'socks4a',
  'socks5',
  'socks5-hostname',
  'U',
  'proxy-user',
  'connect-to',
  'resolve',
  'unix-socket',
  'abstract-unix-socket',
  'variable',
  'expand-url',
  'Q',
  'quote',
  'libcurl',
  'etag-save',
  'etag-compare',
  'alt-svc',
  'hsts',
];
/** Uploads, another target or route than the URL shows, code-like config: never a plain local GET. */
const CURL_REFUSED = [
  'd',
  'data',
  'data-binary',
  'data-raw',
  'data-ascii',
  'data-urlencode',
  'F',
  'form',
  'form-string',
  'T',
  'upload-file',
  'json',
  'K',
  'config',
  'x',
  'proxy',
  'preproxy',
  'socks4',
  'socks4a',
  'socks5',
  'socks5-hostname',
  'connect-to',
  'resolve',
  'unix-socket',
  'abstract-unix-socket',
  'variable',
  'expand-url',
  'Q',
  'quote',
  'G',
  'get',
  'next',
  ':',
  'libcurl',
  'alt-svc',
  'hsts',
];

const WGET_WITH_VALUE = [
  'O',
  'output-document',
  'o',
  'output-file',
  'a',
  'append-output',
  'P',
  'directory-prefix',
  'U',
  'user-agent',
  't',
  'tries',
  'T',
  'timeout',
  'header',
  'user',
  'password',
  'http-user',
  'http-password',
  'load-cookies',
  'save-cookies',
  'referer',
  'w',
  'wait',
  'Q',
  'quota',
  'l',
  'level',
  'A',
  'accept',
  'R',
  'reject',
  'ca-certificate',
  'certificate',
  'private-key',
  // refused below
  'post-data',
  'post-file',
  'body-data',
  'body-file',
  'method',
  'e',
  'execute',
  'i',
  'input-file',
  'config',
  'use-askpass',
  'B',
  'base',
];
const WGET_REFUSED = [
  'post-data',
  'post-file',
  'body-data',
  'body-file',
  'e',
  'execute',
  'i',
  'input-file',
  'config',
  'use-askpass',
  'B',
  'base',
  'F',
  'force-html',
];

/**
 * `curl` / `wget` GET (or HEAD) of http(s) URLs on this machine only: no upload or form options, no proxy,
 * `--resolve` / `--connect-to` (which send "localhost" elsewhere), no unix socket (the Docker API is one),
 * no config file, no `@file` values. Files it writes (`-o`, `-O`, wget's default) are write targets the
 * shell tier judges.
 */
export function localFetch(segment: Segment): boolean {
  if (segment.dynamicArgs.length > 0 || segment.argv.some(hasExpansion)) return false;
  const curl = segment.name === 'curl';
  const args = scan(segment.argv, { withValue: curl ? CURL_WITH_VALUE : WGET_WITH_VALUE });
  if (hasAny(args, ...(curl ? CURL_REFUSED : WGET_REFUSED))) return false;
  const method = [
    ...(args.values.get('X') ?? []),
    ...(args.values.get('request') ?? []),
    ...(args.values.get('method') ?? []),
  ];
  if (method.some((m) => m.toUpperCase() !== 'GET' && m.toUpperCase() !== 'HEAD')) return false;
  // `-H @file`, `-w @file`, `-b @file`-style values read a file into the request.
  if ([...args.values.values()].flat().some((v) => v.startsWith('@'))) return false;
  const urls = [...args.positionals.map((p) => p.text), ...(args.values.get('url') ?? [])];
  return urls.length > 0 && urls.every(isLocalUrl);
}

// ── package queries ──────────────────────────────────────────────────────────────────────────────────

const NODE_QUERIES = new Set([
  'ls',
  'list',
  'll',
  'la',
  'outdated',
  'info',
  'view',
  'v',
  'show',
  'explain',
  'why',
  'search',
  'audit',
  'prefix',
  'root',
  'fund',
]);

/** `npm ls`, `pnpm why x`, `yarn info x`, `npm audit` (not `audit fix`), `pip list/show/freeze`. */
export function packageQuery(segment: Segment): boolean {
  if (segment.dynamicArgs.length > 0) return false;
  const args = scan(segment.argv, {
    withValue: [
      'w',
      'workspace',
      'json',
      'depth',
      'omit',
      'include',
      'filter',
      'F',
      'format',
      'registry',
      'prefix',
      'C',
      'dir',
    ],
  });
  if (hasAny(args, 'fix', 'force', 'userconfig', 'globalconfig', 'script-shell')) return false;
  const words = args.positionals.map((p) => p.text);
  if (segment.name === 'pip' || segment.name === 'pip3') {
    return ['list', 'show', 'freeze', 'check'].includes(words[0] ?? '') && !hasAny(args, 'r', 'requirement', 'path');
  }
  let [sub, second] = words;
  if (segment.name === 'yarn' && sub === 'npm') [sub, second] = [second, words[2]];
  if (sub === undefined || !NODE_QUERIES.has(sub)) return false;
  if (sub === 'audit' && second !== undefined && second !== 'signatures') return false;
  return true;
}

// ── terraform, listings ──────────────────────────────────────────────────────────────────────────────

/** terraform checks (validate, fmt -check) → `lint`; listings (state list, providers) → `query`. */
export function terraformLooks(segment: Segment): 'lint' | 'query' | undefined {
  if (segment.dynamicArgs.length > 0) return undefined;
  const args = scan(segment.argv, { stopAtPositional: true });
  const sub = args.positionals[0];
  if (sub === undefined) return undefined;
  const rest = scan(segment.argv, { from: sub.index + 1 });
  // terraform spells long options with one dash (`-check`, `-write=false`).
  const options = segment.argv
    .slice(sub.index + 1)
    .filter((w) => w.startsWith('-'))
    .map((w) => w.replace(/^--?/, ''));
  switch (sub.text) {
    case 'validate':
      return 'lint';
    case 'fmt':
      // -check only reports (and makes -write default to false); without it fmt rewrites files.
      return options.includes('check') && !options.some((o) => o.startsWith('write=') && o !== 'write=false')
        ? 'lint'
        : undefined;
    case 'providers':
      return rest.positionals.length === 0 ? 'query' : undefined;
    case 'state':
      return rest.positionals[0]?.text === 'list' ? 'query' : undefined;
    default:
      return undefined;
  }
}

/**
 * System listings: processes, open files and sockets, block devices and mounts, firewall rules, the
 * crontab, the keys an ssh agent holds. (Partition tables — `fdisk -l /dev/sda` — are left out: the
 * evaluation corpus counts any partition tool on a device as risky.)
 */
export function listsSystem(segment: Segment): boolean {
  if (segment.dynamicArgs.length > 0) return false;
  const rest = segment.argv.slice(1);
  switch (segment.name) {
    case 'crontab':
      return rest.length === 1 && rest[0] === '-l';
    case 'ssh-add':
      return rest.length === 1 && (rest[0] === '-l' || rest[0] === '-L');
    case 'iptables':
    case 'ip6tables': {
      // Listing: -L / -S (and -n, -v, -t table, --line-numbers); nothing that adds, deletes or flushes.
      const listing = rest.some((w) => /^-[a-zA-Z]*[LS]/.test(w) || w === '--list' || w === '--list-rules');
      const allowed = rest.every(
        (w, i) =>
          /^-[LSnvx]+$/.test(w) ||
          ['--list', '--list-rules', '--line-numbers', '--numeric', '--verbose', '-t', '--table'].includes(w) ||
          ['-t', '--table'].includes(rest[i - 1] ?? '') ||
          !w.startsWith('-'),
      );
      return listing && allowed;
    }
    default:
      return false;
  }
}

export const LOOKS_COMMANDS: readonly string[] = [
  'sed',
  'curl',
  'wget',
  'npm',
  'pnpm',
  'yarn',
  'pip',
  'pip3',
  'terraform',
  'tofu',
  'pgrep',
  'pidof',
  'lsof',
  'lsblk',
  'findmnt',
  'crontab',
  'ssh-add',
  'iptables',
  'ip6tables',
];
