/**
 * A fair measure of the tldr corpus (../shared/corpora/commands.tldr.jsonl, development only): its rows are
 * examples with placeholders (`{{path/to/file}}`, `{{number}}`, `{{[-r|--recursive]}}`) that no agent sends, so
 * replaying them as written measures the placeholders. Here each placeholder is filled with a realistic value
 * chosen by what it names — a file or directory that exists in the eval project, an output path that does not,
 * a number, a loopback URL or host, a package name — and a `{{[-x|--long]}}` alternation is measured in both
 * spellings (every first spelling, then every last one).
 *
 * Each row is put in a group by what the command does, judged from the tldr page's program and the words of its
 * description — never from the catalogue's effects, which are what is measured. The rule, reviewed here:
 *   1. the description's leading verb (after adverbs such as "Recursively") picks a group from VERB_GROUPS;
 *   2. the page moves it: a write verb on a page of SYSTEM_PAGES is a system change (`useradd`: "Create a
 *      user"); any row of NETWORK_PAGES is at least network; any row of DESTRUCTIVE_PAGES is destructive;
 *   3. the command raises it: `sudo`/`doas` → at least system; a URL, host or address placeholder → at least
 *      network; an output placeholder or a redirect `>` → at least local write;
 *   4. the highest group wins: destructive > system > network > local write > read-only. A verb outside the
 *      table with nothing raising it is `other` (run, start, open, use, specify: what they do depends on what
 *      is run).
 *
 * Report: per group, calls and how many were asked or denied; the programs with most asks in the read-only
 * group (what to catalogue next). Run: `hookwise bench --eval-tldr [corpus] [--verbose] [--json]`; without a
 * corpus it uses ../shared/corpora/commands.tldr.jsonl and says it skips when that is absent (a user's clone).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { packageRoot } from '../src/util/package-root.js';
import { replayTimed, type CorpusRow } from './eval-commands.js';

export const TLDR_GROUPS = ['read-only', 'local-write', 'system', 'network', 'destructive', 'other'] as const;
export type TldrGroup = (typeof TLDR_GROUPS)[number];

/** Which of a `{{[-x|--long]}}` alternation's spellings a filled command uses. */
export type Spelling = 'first' | 'last';

export interface TldrRow {
  line: number;
  command: string;
  page: string;
  description: string;
}

/** The tldr corpus of the development environment (../shared beside the repository; not in a user's clone). */
export function defaultTldrCorpus(): string {
  return resolve(packageRoot(), '..', 'shared', 'corpora', 'commands.tldr.jsonl');
}

export function readTldrCorpus(corpus: string): TldrRow[] {
  if (!existsSync(corpus))
    throw new Error(`tldr corpus not found: ${corpus} (it lives in ../shared/corpora, in the development environment)`);
  const rows: TldrRow[] = [];
  readFileSync(corpus, 'utf8')
    .split('\n')
    .forEach((text, i) => {
      if (text.trim() === '') return;
      let row: Partial<TldrRow>;
      try {
        row = JSON.parse(text) as Partial<TldrRow>;
      } catch (error) {
        throw new Error(`${corpus}:${i + 1}: not JSON: ${(error as Error).message}`);
      }
      if (typeof row.command !== 'string' || typeof row.page !== 'string' || typeof row.description !== 'string')
        throw new Error(`${corpus}:${i + 1}: a tldr row is {"command", "page", "description"}, all strings`);
      rows.push({ line: i + 1, command: row.command, page: row.page, description: row.description });
    });
  return rows;
}

// ---------------------------------------------------------------------------------------------------------
// Filling placeholders

/** What a filled command needs in the project: files and directories to create before it runs. */
export interface Needs {
  files: Set<string>;
  dirs: Set<string>;
}

/** Where the filled paths live inside the eval project. */
export const DATA_DIR = 'data';

const NUMBER_WORDS =
  /^(number_of_[a-z_]+|n|num|number|count|amount|size|width|height|depth|level|limit|index|offset|interval|timeout|delay|seconds|minutes|hours|days|lines?|bytes|columns?|rows?|times|percent|percentage|quality|priority|niceness|length|max|min|[a-z_]*_(number|count|size|length|seconds|width|height))$/;
const HOST_WORDS =
  /^(host|hostname|hostname_or_ip|remote_host|server|domain|domain_name|ip|ip_address|ipv4|ipv6|address|example\.com|www\.example\.com|[a-z_]*_(host|hostname|server|ip|ip_address|domain))$/;
const URL_WORDS = /(^|_)(url|uri|link|endpoint)s?$|^https?:|^(ftp|ssh|git|ws|wss):\/\//;
const OUTPUT_WORDS = /(^|[/_.-])(output|out|dest|destination|target|new|result|backup)([/_.\d-]|$)/;
const DIR_WORDS =
  /(^|[/_.-])(dir|directory|directories|folder|repository|repo|project|workspace|root|mount_?point)(\d*)$/;

const clean = (word: string): string => word.replace(/[^A-Za-z0-9._:@=,+-]+/g, '_').replace(/^_+|_+$/g, '') || 'x';

/** A placeholder that names a path: `path/to/x`, `/path/...`, `~/...`, `file.ext`, `input_file`, `dir`. */
function isPathPlaceholder(text: string): boolean {
  if (/^(https?|ftp|ssh|git):/.test(text)) return false;
  if (text.includes('/')) return true;
  return /(^|_)(file|filename|files|dir|directory|folder|path|archive|image|script|binary|executable)\d*$/.test(text) ||
    /^[A-Za-z0-9_-]+\.[a-z0-9]{1,5}$/.test(text)
    ? !/^(example|www)\./.test(text) && !/\.(com|org|net|io)$/.test(text)
    : false;
}

/** One path placeholder: a path under data/ in the project; an input is created, an output is not. */
function fillPath(text: string, project: string, needs: Needs): string {
  if (/^\/dev\//.test(text)) return text.replace(/X$/, 'b');
  const isDir = DIR_WORDS.test(text.replace(/\/$/, '')) || text.endsWith('/');
  const isOutput = OUTPUT_WORDS.test(text);
  const base = clean(text.replace(/\/+$/, '').split('/').pop() ?? 'file');
  const relative = `${DATA_DIR}/${base}`;
  if (!isOutput) (isDir ? needs.dirs : needs.files).add(relative);
  // tldr's `/path/to/x` or `~/path/to/x` means "some absolute path": the same file, named absolutely.
  return text.startsWith('/') || text.startsWith('~') ? join(project, relative) : relative;
}

/** The value of one placeholder's text (already past any alternation). */
export function fillOne(text: string, project: string, needs: Needs): string {
  const t = text.trim();
  const lower = t.toLowerCase();
  if (t.includes(' ')) {
    // A list (`path/to/file1 path/to/file2 ...`) or a command (`cat path/to/file.json`, `find . -print0`):
    // each word filled by itself, options and shell text kept.
    return t
      .split(/\s+/)
      .filter((w) => w !== '...' && w !== '…')
      .map((w) => (/^[-.%$'"\\|]/.test(w) ? w : fillOne(w, project, needs)))
      .join(' ');
  }
  if (t === '/') return t;
  if (/^-?\d+(\.\d+)?[a-z%]{0,3}$/i.test(t)) return t; // tldr's own example number: 10, 30s, 5M
  if (URL_WORDS.test(lower)) return 'http://127.0.0.1:8080/';
  if (HOST_WORDS.test(lower) || /^\d{1,3}(\.\d{1,3}){3}(\/\d+)?$/.test(t) || /\.(com|org|net|io)$/.test(lower))
    return '127.0.0.1';
  if (/(^|_)port$/.test(lower)) return '8080';
  if (/(^|_)pid$/.test(lower)) return '4242';
  if (NUMBER_WORDS.test(lower)) return '10';
  if (isPathPlaceholder(lower)) return fillPath(t, project, needs);
  if (/(^|_)(package|packages|package_name|module|module_name|crate|gem|formula)\d*$/.test(lower)) return 'jq';
  if (/(^|_)(user|username|owner|login)$/.test(lower)) return 'alice';
  if (/(^|_)group(_name)?$/.test(lower)) return 'staff';
  if (/(^|_)password$/.test(lower)) return 'correct-horse';
  if (/^(command|program|executable_name|cmd)\d*$/.test(lower)) return 'ls';
  if (/(pattern|regex|regexp|search_string|search_term|query|keyword)\d*$/.test(lower)) return 'TODO';
  return clean(t);
}

/**
 * The command with every `{{…}}` filled: an alternation `[a|b]` takes its first or last spelling as `spelling`
 * says, a bare `a|b` its first choice (a choice of values, not of spellings).
 */
export function fillPlaceholders(command: string, spelling: Spelling, project: string, needs: Needs): string {
  return command.replace(/\{\{(.*?)\}\}/g, (_, inner: string) => {
    const alternation = /^\[(.*)\]$/.exec(inner);
    if (alternation !== null) {
      const choices = alternation[1]!.split('|');
      return spelling === 'first' ? choices[0]! : choices[choices.length - 1]!;
    }
    const choice = inner.includes('|') && !inner.includes(' ') ? inner.split('|')[0]! : inner;
    // A choice that is shell text already (`$?`, `-`) is the value itself.
    return /^[$\-+=:,.]/.test(choice) && !choice.startsWith('./') ? choice : fillOne(choice, project, needs);
  });
}

/** Whether a tldr command has a spelling alternation, so that it is measured twice. */
export const hasAlternation = (command: string): boolean => /\{\{\[[^\]]*\|[^\]]*\]\}\}/.test(command);

// ---------------------------------------------------------------------------------------------------------
// Classifying

/** The description's leading verb → group. Reviewed: each verb's usual meaning on a tldr page. */
export const VERB_GROUPS: Readonly<Record<string, TldrGroup>> = Object.fromEntries(
  (
    [
      [
        'read-only',
        'display list show print view search check get find read compare count calculate query describe inspect ' +
          'preview verify validate analyze analyse lint look see tell determine identify browse filter match ' +
          'evaluate monitor watch follow diff measure explain estimate summarize sort select output grep trace ' +
          'locate lookup test dump page highlight visualize decode tail benchmark examine review detect audit',
      ],
      [
        'local-write',
        'create generate convert compile build extract decompress compress write save edit add copy move rename ' +
          'append initialize init export render make merge split replace encrypt decrypt store produce patch commit ' +
          'stage touch archive unpack unzip zip resize crop transform record concatenate join combine encode ' +
          'format fix sign package bundle insert modify update change rotate scale optimize minify transpile ' +
          'tag stash rebase checkout switch duplicate link symlink',
      ],
      [
        'system',
        'install uninstall stop restart reload enable disable mount unmount umount upgrade kill shutdown reboot ' +
          'poweroff suspend hibernate configure register unregister load unload set attach detach renice ' +
          'terminate signal schedule',
      ],
      [
        'network',
        'download upload connect send fetch push pull clone ping scan sync publish deploy serve login log ' +
          'authenticate resolve transfer share stream broadcast request post expose forward tunnel mirror ' +
          'subscribe email tweet',
      ],
      [
        'destructive',
        'delete remove erase wipe destroy purge clear clean overwrite shred truncate drop reset restore revert ' +
          'discard prune',
      ],
    ] as const
  ).flatMap(([group, verbs]) => verbs.split(' ').map((verb) => [verb, group as TldrGroup])),
);

/** Words a description may start with before its verb. */
const LEADING_WORDS = new Set([
  '[interactive]',
  'interactively',
  'recursively',
  'only',
  'also',
  'quickly',
  'automatically',
  'safely',
  'silently',
  'forcefully',
  'just',
  'then',
  'and',
]);

/** Pages where a write verb changes the system, not a project file ("Create a user", "Add a repository"). */
export const SYSTEM_PAGES: ReadonlySet<string> = new Set(
  (
    'apt apt-get aptitude dpkg dnf yum rpm pacman zypper apk brew snap flatpak emerge port nix-env systemctl ' +
    'service journalctl mount umount useradd usermod userdel groupadd groupmod groupdel passwd chpasswd ' +
    'sysctl modprobe insmod rmmod iptables ip6tables nft ufw firewall-cmd crontab timedatectl hostnamectl ' +
    'localectl update-alternatives swapon swapoff mkswap hwclock loginctl launchctl defaults sc reg ' +
    'chsh chfn visudo adduser deluser addgroup delgroup ip ifconfig route nmcli iwconfig setfacl'
  ).split(' '),
);

/** Pages whose every example talks to another host. */
export const NETWORK_PAGES: ReadonlySet<string> = new Set(
  (
    'ssh scp sftp curl wget http https xh httpie dig nslookup host ping ping6 traceroute tracepath mtr nc ncat ' +
    'netcat nmap telnet ftp whois aria2c ab socat mosh iperf iperf3 yt-dlp youtube-dl aws az gcloud gsutil ' +
    'kubectl helm heroku gh glab doctl flyctl vercel netlify firebase s3cmd rclone rsync mosquitto_pub ' +
    'mosquitto_sub grpcurl websocat tldr'
  ).split(' '),
);

/** Pages whose examples destroy data or devices whatever the description's verb. */
export const DESTRUCTIVE_PAGES: ReadonlySet<string> = new Set(
  'rm rmdir shred dd wipefs mkfs mke2fs mkfs.ext4 mkfs.vfat mkfs.fat mkfs.btrfs mkfs.xfs fdisk sfdisk parted gdisk sgdisk srm unlink'.split(
    ' ',
  ),
);

/**
 * The programs of a Debian or Ubuntu base system and its usual admin packages — coreutils, findutils, grep,
 * sed, gawk, diffutils, procps, psmisc, util-linux, bsdutils, iproute2, net-tools, systemd's tools, dpkg/apt,
 * rpm, tar and the compressors, file, less, man, binutils' inspectors: what an agent on Linux finds and runs.
 * The read-only group's figure is also given for these alone.
 */
export const BASE_TOOLS: ReadonlySet<string> = new Set(
  // coreutils
  (
    '[ arch b2sum base32 base64 basename basenc cat chgrp chmod chown chroot cksum comm cp csplit cut date dd df ' +
    'dir dircolors dirname du echo env expand expr factor false fmt fold groups head hostid id install join link ' +
    'ln logname ls md5sum mkdir mkfifo mknod mktemp mv nice nl nohup nproc numfmt od paste pathchk pinky pr ' +
    'printenv printf ptx pwd readlink realpath rm rmdir runcon seq sha1sum sha224sum sha256sum sha384sum ' +
    'sha512sum shred shuf sleep sort split stat stdbuf stty sum sync tac tail tee test timeout touch tr true ' +
    'truncate tsort tty uname unexpand uniq unlink users vdir wc who whoami yes ' +
    // findutils, grep, sed, awk, diffutils
    'find xargs locate updatedb grep egrep fgrep zgrep bzgrep xzgrep sed awk gawk mawk diff diff3 sdiff cmp ' +
    // procps, psmisc
    'ps pgrep pkill pidof top free uptime vmstat w watch sysctl pmap pwdx slabtop tload kill killall fuser pstree ' +
    // util-linux, bsdutils
    'lsblk lscpu lsipc lslocks lslogins lsmem lsns findmnt blkid mount umount dmesg column rev hexdump look ' +
    'cal getopt hardlink ionice renice setsid taskset uuidgen whereis logger script flock ' +
    // iproute2, net-tools, hostname, systemd
    'ip ss bridge tc netstat ifconfig route arp hostname dnsdomainname systemctl journalctl hostnamectl ' +
    'timedatectl localectl loginctl networkctl resolvectl busctl systemd-analyze ' +
    // packages, archives, files, pages, binaries
    'dpkg dpkg-query apt apt-get apt-cache rpm tar gzip gunzip zcat bzip2 bunzip2 bzcat xz unxz xzcat zstd ' +
    'unzstd zip unzip cpio file less more most man info strings nm objdump readelf size ldd getent ' +
    'lsmod modinfo lspci lsusb id which type command hash jq xxd tree'
  ).split(/\s+/),
);

const RANK: Record<TldrGroup, number> = {
  other: 0,
  'read-only': 1,
  'local-write': 2,
  network: 3,
  system: 4,
  destructive: 5,
};
const higher = (a: TldrGroup, b: TldrGroup): TldrGroup => (RANK[b] > RANK[a] ? b : a);

/** The description's leading verb, lower-case, after the leading adverbs. */
export function leadingVerb(description: string): string {
  const words = description
    .toLowerCase()
    .split(/\s+/)
    // tldr marks mnemonics inside words: `[l]ist`, `[c]reate`; `[interactive]` alone is a tag.
    .map((w) => (w === '[interactive]' ? w : w.replace(/[[\]]/g, '').replace(/^[`"'(]+|[`"'):,.]+$/g, '')));
  return words.find((w) => w !== '' && !LEADING_WORDS.has(w)) ?? '';
}

/** The program a tldr page is about: its name before a subcommand suffix (`git-stash` → git for the tables). */
const pageProgram = (page: string): string => page.replace(/\.\d+$/, '');

/** The group of a tldr row, and which rule put it there. */
export function classifyTldr(row: Pick<TldrRow, 'command' | 'page' | 'description'>): {
  group: TldrGroup;
  because: string;
} {
  const verb = leadingVerb(row.description);
  const page = pageProgram(row.page);
  const first = page.split('-')[0]!;
  let group: TldrGroup = VERB_GROUPS[verb] ?? 'other';
  let because = group === 'other' ? `verb "${verb}" not in the table` : `verb "${verb}"`;
  const raise = (to: TldrGroup, why: string): void => {
    if (RANK[to] > RANK[group]) [group, because] = [higher(group, to), why];
  };
  if (group === 'local-write' && (SYSTEM_PAGES.has(page) || SYSTEM_PAGES.has(first)))
    raise('system', `verb "${verb}" on a system page`);
  if (NETWORK_PAGES.has(page) || NETWORK_PAGES.has(first)) raise('network', 'a network page');
  if (DESTRUCTIVE_PAGES.has(page) || DESTRUCTIVE_PAGES.has(first)) raise('destructive', 'a destructive page');
  if (/(^|[;&|]\s*)(sudo|doas)\s/.test(row.command)) raise('system', 'run as root (sudo/doas)');
  // A page that points at another program's (`tldr uname` on arch's page): that program's table applies.
  if (NETWORK_PAGES.has(/^[\w.-]+/.exec(row.command)?.[0] ?? '')) raise('network', 'runs a network program');
  const placeholders = [...row.command.matchAll(/\{\{(.*?)\}\}/g)].map((m) => m[1]!.toLowerCase());
  if (placeholders.some((p) => URL_WORDS.test(p) || HOST_WORDS.test(p) || /\.(com|org|net|io)(\/|$)/.test(p)))
    raise('network', 'a URL or host placeholder');
  if (/https?:\/\//.test(row.command)) raise('network', 'a URL');
  if (
    placeholders.some((p) => isPathPlaceholder(p) && OUTPUT_WORDS.test(p)) ||
    /(^|[^<>&2])>>?\s*\{\{/.test(row.command)
  )
    raise('local-write', 'an output path');
  return { group, because };
}

// ---------------------------------------------------------------------------------------------------------
// Evaluating

export interface TldrCall {
  line: number;
  page: string;
  group: TldrGroup;
  spelling: Spelling | 'only';
  command: string;
  verdict: string;
  tier: string;
}

export interface GroupFigures {
  rows: number;
  calls: number;
  /** Calls asked or denied (not allowed). */
  asked: number;
  denied: number;
}

export type TldrConfinement = 'off' | 'default';

export interface TldrEval {
  corpus: string;
  /** Whether confinement was off (the catalogue alone) or at its default. */
  confinement?: TldrConfinement;
  rows: number;
  calls: number;
  /** Figures per group; `first` and `last` restrict to the calls of rows with an alternation in that spelling. */
  groups: Record<TldrGroup, GroupFigures & { first: GroupFigures; last: GroupFigures }>;
  /** The read-only group restricted to BASE_TOOLS pages. */
  readOnlyBase: GroupFigures;
  /** The read-only group's programs (first word of the page) with the most asked calls. */
  topReadOnlyAsks: { program: string; asked: number; calls: number }[];
  secondsPerThousand: number;
  calls_: TldrCall[];
}

const emptyFigures = (): GroupFigures => ({ rows: 0, calls: 0, asked: 0, denied: 0 });

/** The calls of a corpus: each row filled once, or twice (first and last spelling) when it has an alternation. */
export function tldrCalls(
  rows: readonly TldrRow[],
  project: string,
  needs: Needs,
): { row: TldrRow; group: TldrGroup; spelling: Spelling | 'only'; command: string }[] {
  return rows.flatMap((row) => {
    const { group } = classifyTldr(row);
    const spellings: (Spelling | 'only')[] = hasAlternation(row.command) ? ['first', 'last'] : ['only'];
    return spellings.map((spelling) => ({
      row,
      group,
      spelling,
      command: fillPlaceholders(row.command, spelling === 'last' ? 'last' : 'first', project, needs),
    }));
  });
}

/** Creates the inputs the filled commands name: empty directories, and files with a line of text. */
export function createNeeds(project: string, needs: Needs): void {
  for (const dir of needs.dirs) mkdirSync(join(project, dir), { recursive: true });
  for (const file of needs.files) {
    if (needs.dirs.has(file)) continue;
    mkdirSync(dirname(join(project, file)), { recursive: true });
    writeFileSync(join(project, file), 'example line\n');
  }
}

/**
 * `confinement: 'off'` measures the catalogue alone (the cascade's own verdicts); `'default'` what a user of this
 * machine sees, with confinement at its default (on where bubblewrap works and Claude Code's sandbox is off), so
 * that a call of unknown effect the walls can hold runs confined instead of being asked.
 */
export function evaluateTldr(
  corpus: string = defaultTldrCorpus(),
  top = 25,
  confinement: TldrConfinement = 'off',
): TldrEval {
  const rows = readTldrCorpus(corpus);
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'hookwise-eval-tldr-')));
  try {
    const project = join(base, 'project');
    mkdirSync(join(project, '.git'), { recursive: true });
    const needs: Needs = { files: new Set(), dirs: new Set() };
    const calls = tldrCalls(rows, project, needs);
    createNeeds(project, needs);
    const asRows: CorpusRow[] = calls.map((c, i) => ({ line: i + 1, command: c.command }));
    const { answers, seconds } = replayTimed(
      asRows,
      project,
      base,
      'tldr',
      confinement === 'default' ? 'default' : undefined,
    );
    const judged: TldrCall[] = calls.map((c, i) => ({
      line: c.row.line,
      page: c.row.page,
      group: c.group,
      spelling: c.spelling,
      // Shown with the project's path as `$PROJECT`, so that two runs compare.
      command: c.command.split(project).join('$PROJECT'),
      verdict: answers[i]!.verdict ?? 'none',
      tier: answers[i]!.tier ?? 'none',
    }));
    return { ...summarizeTldr(corpus, rows.length, judged, seconds, top), confinement };
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

export function summarizeTldr(corpus: string, rows: number, calls: TldrCall[], seconds: number, top = 25): TldrEval {
  const groups = Object.fromEntries(
    TLDR_GROUPS.map((g) => [g, { ...emptyFigures(), first: emptyFigures(), last: emptyFigures() }]),
  ) as TldrEval['groups'];
  const seenRows = new Set<string>();
  const asksByProgram = new Map<string, { asked: number; calls: number }>();
  const readOnlyBase = emptyFigures();
  for (const c of calls) {
    const g = groups[c.group];
    const key = `${c.line}`;
    const count = (f: GroupFigures, newRow: boolean): void => {
      if (newRow) f.rows++;
      f.calls++;
      if (c.verdict !== 'allow') f.asked++;
      if (c.verdict === 'deny') f.denied++;
    };
    count(g, !seenRows.has(key));
    seenRows.add(key);
    if (c.spelling !== 'only') count(g[c.spelling], true);
    if (c.group === 'read-only') {
      const program = pageProgram(c.page).split('-')[0]!;
      if (BASE_TOOLS.has(pageProgram(c.page)) || BASE_TOOLS.has(program)) count(readOnlyBase, c.spelling !== 'last');
      const p = asksByProgram.get(program) ?? { asked: 0, calls: 0 };
      p.calls++;
      if (c.verdict !== 'allow') p.asked++;
      asksByProgram.set(program, p);
    }
  }
  const topReadOnlyAsks = [...asksByProgram]
    .map(([program, p]) => ({ program, ...p }))
    .filter((p) => p.asked > 0)
    .sort((a, b) => b.asked - a.asked || a.program.localeCompare(b.program))
    .slice(0, top);
  return {
    corpus,
    rows,
    calls: calls.length,
    groups,
    readOnlyBase,
    topReadOnlyAsks,
    secondsPerThousand: (seconds / Math.max(1, calls.length)) * 1000,
    calls_: calls,
  };
}

const pct = (n: number, of: number): string => (of === 0 ? '-' : `${((n / of) * 100).toFixed(1)} %`);

export function renderTldrEval(e: TldrEval, verbose = false): string {
  const lines = [
    `${e.corpus}: ${e.rows} rows, ${e.calls} calls (a row with a {{[-x|--long]}} alternation is measured in both spellings), ${e.secondsPerThousand.toFixed(2)} s per 1000`,
    e.confinement === 'default'
      ? 'confinement at its default (on where bubblewrap works): a call of unknown effect the walls hold runs confined'
      : 'confinement off: the catalogue and the cascade alone (--confined: as a user of this machine sees it)',
    '',
    `${'group'.padEnd(12)} ${'rows'.padStart(6)} ${'calls'.padStart(6)} ${'asked'.padStart(6)} ${'asked %'.padStart(8)} ${'denied'.padStart(6)}   ${'first spelling'.padStart(14)} ${'last spelling'.padStart(14)}`,
  ];
  const total = { ...emptyFigures() };
  for (const group of TLDR_GROUPS) {
    const g = e.groups[group];
    total.rows += g.rows;
    total.calls += g.calls;
    total.asked += g.asked;
    total.denied += g.denied;
    lines.push(
      `${group.padEnd(12)} ${String(g.rows).padStart(6)} ${String(g.calls).padStart(6)} ${String(g.asked).padStart(6)} ${pct(g.asked, g.calls).padStart(8)} ${String(g.denied).padStart(6)}   ${pct(g.first.asked, g.first.calls).padStart(14)} ${pct(g.last.asked, g.last.calls).padStart(14)}`,
    );
  }
  lines.push(
    `${'total'.padEnd(12)} ${String(total.rows).padStart(6)} ${String(total.calls).padStart(6)} ${String(total.asked).padStart(6)} ${pct(total.asked, total.calls).padStart(8)} ${String(total.denied).padStart(6)}`,
    '',
    `read-only group, base Linux tools only (coreutils, findutils, procps, util-linux, iproute2, systemd, dpkg, …): ${e.readOnlyBase.asked} of ${e.readOnlyBase.calls} calls asked (${pct(e.readOnlyBase.asked, e.readOnlyBase.calls)}), ${e.readOnlyBase.rows} rows`,
    `read-only group, programs with most asked calls: ${e.topReadOnlyAsks.map((p) => `${p.program} ${p.asked}/${p.calls}`).join(', ')}`,
  );
  if (verbose)
    for (const c of e.calls_)
      if (c.group === 'read-only' && c.verdict !== 'allow')
        lines.push(
          `  asked (read-only) line ${c.line} [${c.page}]: ${c.command.replace(/\n/g, '\\n')}  (${c.verdict} by ${c.tier})`,
        );
  return lines.join('\n');
}
