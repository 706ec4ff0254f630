/**
 * More commands that only look, for the read-only pack, for programs the catalogue has no entry for yet: `sed`
 * scripts that only print, the node package managers' queries, and a few system listings. Each recogniser is
 * strict: an option or script command it does not know keeps the segment out. (curl, wget, terraform and pip
 * are catalogue entries: src/catalog/programs/.)
 */
import type { Segment } from '../../shell/types.js';
import { sedScriptPrintsOnly } from '../../catalog/code-checks.js';
import { hasAny, scan } from './argv.js';

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

/** `npm ls`, `pnpm why x`, `yarn info x`, `npm audit` (not `audit fix`). (pip's queries are catalogue entries.) */
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
  let [sub, second] = words;
  if (segment.name === 'yarn' && sub === 'npm') [sub, second] = [second, words[2]];
  if (sub === undefined || !NODE_QUERIES.has(sub)) return false;
  if (sub === 'audit' && second !== undefined && second !== 'signatures') return false;
  return true;
}

// ── listings ─────────────────────────────────────────────────────────────────────────────────────────

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
  'npm',
  'pnpm',
  'yarn',
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
