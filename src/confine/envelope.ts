/**
 * The envelope: the walls a confined command runs inside, as plain data. A pure function of the project
 * root, the system temp dir, the home and runtime directories and the settings; no file system access
 * (what exists on disk is wrap.ts's business, at the moment it wraps).
 *
 * - writes land only in the writable roots: the project (or, for a role that writes less, some of its
 *   directories) and the temp dir;
 * - inside them, the paths of issue 11's sensitive-write list stay read-only (git hooks and config, agent
 *   and hookwise settings, MCP configs, .envrc, editor tasks, …) — imported from policy/defaults.ts, the one
 *   list, never copied;
 * - the sensitive-read list (credentials) plus a few paths only a confined command needs hidden (all of
 *   ~/.ssh, the private runtime dir with the daemon's socket, the daemon's HTTP token) are unreadable;
 * - no network, unless the settings allow domains (served by a filtering proxy that is not built yet:
 *   wrap.ts refuses such an envelope, so the caller falls back to asking).
 *
 * Each glob of the sensitive lists becomes a rule wrap.ts can enforce with mounts: a `path` (one file or
 * directory, the whole subtree) or `names` (entries of that name below a directory, found by a bounded
 * scan when wrapping). A glob that neither shape can express exactly is over-approximated towards more
 * protection where that is harmless, and otherwise reported in `notes` (never silently dropped).
 */
import { isAbsolute, join, normalize } from 'node:path';
import picomatch from 'picomatch';
import { HookwiseError } from '../core/errors.js';
import { DEFAULT_SENSITIVE_READ, DEFAULT_SENSITIVE_WRITE } from '../policy/defaults.js';

export const TEMP_MODES = ['shared', 'private'] as const;
/** `shared`: the system temp dir, as the host's own shell sees it (files pass between commands);
 *  `private`: an empty tmpfs per command. */
export type TempMode = (typeof TEMP_MODES)[number];

export interface ScanLimits {
  /** How deep below a directory a `names` rule looks (1 = its entries). */
  depth: number;
  /** Entries visited in one wrap, over all scans; past it the wrap fails closed. */
  maxEntries: number;
  /** Directory names never descended into (dependencies and build output: not the project's secrets). */
  skipDirs: readonly string[];
}

export interface ConfineSettings {
  /** Domains a confined command may reach through the filtering proxy. Empty (the default): no network. */
  network: { allow: readonly string[] };
  temp: TempMode;
  /** Where in the project writes may land: everywhere (default), or only these project-relative directories. */
  projectWrites: 'all' | readonly string[];
  /** More writable directories (absolute or `~/…`); never `/`, the home directory or one of its ancestors. */
  extraWritable: readonly string[];
  /** More globs not to write / not to read, in the syntax of the sensitive lists. */
  denyWrite: readonly string[];
  denyRead: readonly string[];
  scan: ScanLimits;
}

export const DEFAULT_CONFINE_SETTINGS: ConfineSettings = {
  network: { allow: [] },
  temp: 'shared',
  projectWrites: 'all',
  extraWritable: [],
  denyWrite: [],
  denyRead: [],
  scan: {
    depth: 4,
    maxEntries: 20_000,
    skipDirs: [
      'node_modules',
      '.git',
      '.hg',
      '.svn',
      '.venv',
      'venv',
      '__pycache__',
      'target',
      'dist',
      'build',
      '.next',
      '.cache',
    ],
  },
};

/**
 * Hidden from every confined command besides the sensitive-read list. A command inside the walls has no
 * use for any of ~/.ssh (no network, no agent socket), and the daemon's socket and HTTP token would let it
 * answer hookwise's own questions. (Keychains are in the sensitive-read list already.)
 */
export const CONFINE_EXTRA_READ: readonly string[] = ['~/.ssh/**', '/run/secrets/**'];

/**
 * Kept read-only for a confined command besides the sensitive-write list: the project's whole git directory
 * (a worktree's `.git` file), not only its hooks and config. It holds the undo snapshot (snapshot.ts): its
 * objects and its ref must be out of the command's reach, and so must the history itself (`rm -rf .git`).
 * Submodules' git directories (`.git/modules`) are inside it. A confined `git commit` fails against it,
 * which is why an undecided `git` command is not confinable (confinable.ts). Nested repositories' hooks and
 * config are added by buildEnvelope.
 */
export const CONFINE_EXTRA_WRITE: readonly string[] = ['.git/**'];

export type NetworkPolicy =
  | { kind: 'none' }
  /** Reaching these domains needs the daemon's filtering proxy (issue 10): a typed hook point, not built. */
  | { kind: 'proxy'; domains: readonly string[] };

export const RULE_LISTS = ['sensitive-write', 'sensitive-read', 'confine', 'settings'] as const;
export type RuleList = (typeof RULE_LISTS)[number];

export interface RuleSource {
  pattern: string;
  list: RuleList;
}

export type DenyRule =
  /** One absolute path: a file, or a directory with everything below it. */
  | { kind: 'path'; path: string; source: RuleSource }
  /**
   * Entries (files or directories) whose name matches the glob `match`, at most `depth` levels below
   * `under`; with `within`, not the entry itself but those children of it. `test` is the glob compiled here
   * (picomatch is the reference), so that wrapping matches names without loading a glob library.
   */
  | {
      kind: 'names';
      under: string;
      match: string;
      test: NameTest;
      depth: number;
      within?: readonly string[];
      source: RuleSource;
    };

export const NAME_TEST_KINDS = ['exact', 'prefix', 'suffix', 'regex'] as const;
/** How a file name is matched: compared as a string when the glob has that shape, else a regex source. */
export interface NameTest {
  kind: (typeof NAME_TEST_KINDS)[number];
  value: string;
}

export const WRITABLE_REASONS = ['project', 'temp', 'settings'] as const;
export interface WritableRoot {
  path: string;
  why: (typeof WRITABLE_REASONS)[number];
}

export interface EnvelopeNote {
  pattern: string;
  list: RuleList;
  problem: string;
}

export interface Envelope {
  projectRoot: string;
  home: string;
  tempDir: string;
  temp: TempMode;
  writable: readonly WritableRoot[];
  denyWrite: readonly DenyRule[];
  denyRead: readonly DenyRule[];
  network: NetworkPolicy;
  scan: ScanLimits;
  notes: readonly EnvelopeNote[];
}

export interface EnvelopeInput {
  /** Canonical (real) absolute paths. */
  projectRoot: string;
  tempDir: string;
  home: string;
  /** hookwise's private runtime directory (sessions, queue, daemon socket, audit log). */
  runtimeDir: string;
  /** hookwise's user config directory: its `daemon/` holds the loopback HTTP token. */
  userConfigDir?: string;
  settings?: ConfineSettings;
  /** The effective sensitive lists of the policy in force (default: policy/defaults.ts's, the one source). */
  sensitive?: { write: readonly string[]; read: readonly string[] };
  /**
   * Absolute paths where the agent's host keeps what hookwise trusts (its session transcripts and settings:
   * hosts/claude-transcript.ts transcriptDirs), each with everything below it: read-only inside the walls.
   */
  hostDirs?: readonly string[];
}

/** The "any depth" of a `names` rule, before the scan limits cut it. */
const ANY_DEPTH = Number.POSITIVE_INFINITY;

export function buildEnvelope(input: EnvelopeInput): Envelope {
  const settings = input.settings ?? DEFAULT_CONFINE_SETTINGS;
  for (const [what, path] of [
    ['projectRoot', input.projectRoot],
    ['tempDir', input.tempDir],
    ['home', input.home],
    ['runtimeDir', input.runtimeDir],
  ] as const) {
    if (!isAbsolute(path))
      throw new HookwiseError('INTERNAL', `confine: ${what} must be an absolute path, not "${path}"`);
  }
  const root = normalize(input.projectRoot);
  const home = normalize(input.home);
  const notes: EnvelopeNote[] = [];
  const bases: Bases = { root, home };

  const writable: WritableRoot[] = [];
  if (settings.projectWrites === 'all') writable.push({ path: root, why: 'project' });
  else {
    for (const dir of settings.projectWrites) {
      const path = normalize(join(root, dir));
      if (isAbsolute(dir) || !isInside(path, root))
        notes.push({
          pattern: dir,
          list: 'settings',
          problem: 'projectWrites entries are directories inside the project: ignored',
        });
      else writable.push({ path, why: 'project' });
    }
  }
  if (settings.temp === 'shared') writable.push({ path: normalize(input.tempDir), why: 'temp' });
  for (const dir of settings.extraWritable) {
    const path = dir.startsWith('~/') ? normalize(join(home, dir.slice(2))) : dir;
    if (!isAbsolute(path) || path === '/' || isInside(home, path)) {
      notes.push({
        pattern: dir,
        list: 'settings',
        problem:
          'an extra writable directory must be absolute and neither /, the home directory nor one of its ancestors: ignored',
      });
    } else writable.push({ path: normalize(path), why: 'settings' });
  }

  const denyWrite: DenyRule[] = [];
  const denyRead: DenyRule[] = [];
  const add = (into: DenyRule[], patterns: readonly string[], list: RuleList) => {
    for (const pattern of patterns) {
      const rules = rulesOf(pattern, list, bases);
      if ('problem' in rules) notes.push({ pattern, list, problem: rules.problem });
      else into.push(...rules);
    }
  };
  add(denyWrite, input.sensitive?.write ?? DEFAULT_SENSITIVE_WRITE, 'sensitive-write');
  add(denyWrite, CONFINE_EXTRA_WRITE, 'confine');
  // Paths as they are, not globs: a directory's name may hold a glob's characters.
  for (const dir of input.hostDirs ?? [])
    if (isAbsolute(dir))
      denyWrite.push({ kind: 'path', path: normalize(dir), source: { pattern: dir, list: 'sensitive-write' } });
  add(denyWrite, settings.denyWrite, 'settings');
  // A repository nested anywhere in the project runs its own hooks when someone commits in it.
  denyWrite.push({
    ...names(root, '.git', ANY_DEPTH, { pattern: '**/.git/{hooks/**,config}', list: 'confine' }),
    within: ['hooks', 'config'],
  });
  add(denyRead, input.sensitive?.read ?? DEFAULT_SENSITIVE_READ, 'sensitive-read');
  add(denyRead, CONFINE_EXTRA_READ, 'confine');
  add(denyRead, settings.denyRead, 'settings');
  denyRead.push({
    kind: 'path',
    path: normalize(input.runtimeDir),
    source: { pattern: input.runtimeDir, list: 'confine' },
  });
  if (input.userConfigDir !== undefined) {
    const token = join(normalize(input.userConfigDir), 'daemon');
    denyRead.push({ kind: 'path', path: token, source: { pattern: token, list: 'confine' } });
  }

  const network: NetworkPolicy =
    settings.network.allow.length === 0 ? { kind: 'none' } : { kind: 'proxy', domains: [...settings.network.allow] };
  return {
    projectRoot: root,
    home,
    tempDir: normalize(input.tempDir),
    temp: settings.temp,
    writable,
    denyWrite: dedupe(denyWrite),
    denyRead: dedupe(denyRead),
    network,
    scan: settings.scan,
    notes,
  };
}

interface Bases {
  root: string;
  home: string;
}

/**
 * One glob of the sensitive lists as mount-enforceable rules. Semantics as in policy/defaults.ts: a pattern
 * with a `/` is anchored at the project root (or at home for `~/`, at `/` for an absolute one); one without
 * a `/` matches the file name at any depth of the project.
 */
function rulesOf(pattern: string, list: RuleList, bases: Bases): DenyRule[] | { problem: string } {
  const source: RuleSource = { pattern, list };
  let base: string;
  let rest: string;
  if (pattern.startsWith('~/')) [base, rest] = [bases.home, pattern.slice(2)];
  else if (pattern.startsWith('/')) [base, rest] = ['/', pattern.slice(1)];
  else [base, rest] = [bases.root, pattern];
  if (base === '/' && (rest === 'proc' || rest.startsWith('proc/'))) {
    return { problem: 'not needed: a confined command has its own /proc, where only its own processes are visible' };
  }

  const scan = picomatch.scan(rest);
  const literal = scan.base; // the directories before the first glob character ('' when it starts with one)
  const glob = scan.isGlob ? scan.glob : '';
  const dir = literal === '' ? base : join(base, literal);
  if (!scan.isGlob) {
    const rules: DenyRule[] = [{ kind: 'path', path: join(base, rest), source }];
    // A bare file name (".envrc") is any depth of the project. The one at the root is a path as well, so that
    // a write rule blocks its creation (a scan finds only names that exist already).
    if (!pattern.includes('/')) rules.push(names(base, rest, ANY_DEPTH, source));
    return rules;
  }
  if (glob === '**') return [{ kind: 'path', path: dir, source }];
  const segments = glob.split('/');
  if (!pattern.includes('/')) return [names(base, glob, ANY_DEPTH, source)];
  if (segments.length === 1) return [names(dir, glob, 1, source)];
  if (
    segments[0] === '**' &&
    (segments.length === 2 || (segments.length === 3 && segments[2] === '**')) &&
    !segments[1]!.includes('**')
  ) {
    return [names(dir, segments[1]!, ANY_DEPTH, source)];
  }
  // `**/.git/config`, `**/.git/hooks/**`: one child of a directory of that name at any depth.
  if (
    segments[0] === '**' &&
    (segments.length === 3 || (segments.length === 4 && segments[3] === '**')) &&
    !GLOB_SPECIAL.test(segments[1]!) &&
    !GLOB_SPECIAL.test(segments[2]!)
  ) {
    return [{ ...names(dir, segments[1]!, ANY_DEPTH, source), within: [segments[2]!] }];
  }
  // Anything else (a glob in a middle directory): the whole literal directory, when that is not a root of
  // its own — hiding all of a project or home directory would be a different envelope, not a safer one.
  if (literal !== '' && dir !== bases.root && dir !== bases.home) return [{ kind: 'path', path: dir, source }];
  return {
    problem: `no mount can express "${glob}" below ${dir}: not enforced inside the walls (hookwise's own checks still apply)`,
  };
}

type NamesRule = Extract<DenyRule, { kind: 'names' }>;

function names(under: string, match: string, depth: number, source: RuleSource): NamesRule {
  return { kind: 'names', under, match, test: nameTest(match), depth, source };
}

const GLOB_SPECIAL = /[*?[\]{}()!+@\\]/;

const nameTests = new Map<string, NameTest>();

/** A file-name glob as a string comparison when it has that shape, else picomatch's regex. */
export function nameTest(glob: string): NameTest {
  let test = nameTests.get(glob);
  if (test !== undefined) return test;
  if (!GLOB_SPECIAL.test(glob)) test = { kind: 'exact', value: glob };
  else if (glob.endsWith('*') && !GLOB_SPECIAL.test(glob.slice(0, -1)))
    test = { kind: 'prefix', value: glob.slice(0, -1) };
  else if (glob.startsWith('*') && !GLOB_SPECIAL.test(glob.slice(1))) test = { kind: 'suffix', value: glob.slice(1) };
  else test = { kind: 'regex', value: picomatch.makeRe(glob, { dot: true }).source };
  nameTests.set(glob, test);
  return test;
}

function dedupe(rules: DenyRule[]): DenyRule[] {
  const seen = new Set<string>();
  return rules.filter((r) => {
    const key =
      r.kind === 'path' ? `p\0${r.path}` : `n\0${r.under}\0${r.match}\0${r.depth}\0${(r.within ?? []).join('/')}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Whether `path` is `dir` or below it (both normalized, absolute). */
export function isInside(path: string, dir: string): boolean {
  return path === dir || dir === '/' || path.startsWith(dir + '/');
}
