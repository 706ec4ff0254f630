/**
 * More commands that only look, for the read-only pack, for programs the catalogue has no entry for yet: a few
 * system listings (crontab -l, ssh-add -l, iptables -L). Each recogniser is strict: an option it does not know
 * keeps the segment out. (sed, the node package managers' queries, curl, wget, terraform and pip are
 * catalogue entries: src/catalog/programs/.)
 */
import type { Segment } from '../../shell/types.js';

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
