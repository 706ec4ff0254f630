/**
 * Argument structure for the packs: option scanning (short clusters, `--long=value`, `--`), where a
 * relative target points (following literal `cd`s earlier in the same command), and what a deletion
 * target is (the root, a system directory, home, the project or one of its ancestors). Pure string work:
 * no file system access, so no symlink resolution — the write-target tier does that for the paths it
 * checks; the packs only need to recognise the catastrophic shapes.
 */
import { posix } from 'node:path';
import type { Segment } from '../../shell/types.js';
import type { PackEnv } from './types.js';

export interface Positional {
  text: string;
  /** Index into segment.argv. */
  index: number;
}

export interface ScannedArgs {
  /** Short option letters (`-rf` → r, f) and long option names (`--force` → force), without values. */
  flags: Set<string>;
  /** Values of options that take one: `-o x`, `--repo=x`, `--repo x` (keyed by `o` / `repo`). */
  values: Map<string, string[]>;
  positionals: Positional[];
}

export interface ScanSpec {
  /** Options that take a value as the next word: short letters (`o`) and long names (`repo`). */
  withValue?: readonly string[];
  /** Stop option parsing at the first positional (git-style global options before a subcommand). */
  stopAtPositional?: boolean;
  /** Index into argv where scanning starts (default 1: after the command name). */
  from?: number;
}

/** Scan a segment's arguments getopt-style. */
export function scan(argv: readonly string[], spec: ScanSpec = {}): ScannedArgs {
  const withValue = new Set(spec.withValue ?? []);
  const flags = new Set<string>();
  const values = new Map<string, string[]>();
  const positionals: Positional[] = [];
  const addValue = (key: string, value: string): void => {
    const list = values.get(key);
    if (list === undefined) values.set(key, [value]);
    else list.push(value);
  };
  let optionsDone = false;
  for (let i = spec.from ?? 1; i < argv.length; i++) {
    const word = argv[i]!;
    if (optionsDone || word === '-' || !word.startsWith('-')) {
      positionals.push({ text: word, index: i });
      if (spec.stopAtPositional === true) optionsDone = true;
      continue;
    }
    if (word === '--') {
      optionsDone = true;
      continue;
    }
    if (word.startsWith('--')) {
      const eq = word.indexOf('=');
      const name = eq === -1 ? word.slice(2) : word.slice(2, eq);
      if (eq !== -1) addValue(name, word.slice(eq + 1));
      else if (withValue.has(name) && i + 1 < argv.length) addValue(name, argv[++i]!);
      else flags.add(name);
      continue;
    }
    // A short cluster: -rf, -uo value, -ovalue.
    for (let k = 1; k < word.length; k++) {
      const letter = word[k]!;
      if (withValue.has(letter)) {
        const rest = word.slice(k + 1);
        if (rest !== '') addValue(letter, rest);
        else if (i + 1 < argv.length) addValue(letter, argv[++i]!);
        break;
      }
      flags.add(letter);
    }
  }
  return { flags, values, positionals };
}

export function hasAny(scanned: ScannedArgs, ...names: string[]): boolean {
  return names.some((n) => scanned.flags.has(n) || scanned.values.has(n));
}

export function isDynamic(segment: Segment, index: number): boolean {
  return segment.dynamicArgs.includes(index);
}

/** A variable or command substitution (as opposed to a plain glob): the word's value is unknown. */
export function hasExpansion(text: string): boolean {
  return text.includes('$') || text.includes('`');
}

/** Glob characters (plain string checks: the packs use RE2 for every pattern and need none here). */
export function hasGlob(text: string): boolean {
  return text.includes('*') || text.includes('?') || text.includes('[');
}

/** `~`, `~/x`, `$HOME`, `${HOME}/x` → the home directory; `$PWD` → cwd (when known). */
export function expandKnown(text: string, home: string, cwd: string | undefined): string {
  if (text === '~' || text.startsWith('~/')) return home + text.slice(1);
  for (const [variable, value] of [
    ['$HOME', home],
    ['${HOME}', home],
    ['$PWD', cwd],
    ['${PWD}', cwd],
  ] as const) {
    if (value !== undefined && (text === variable || text.startsWith(`${variable}/`)))
      return value + text.slice(variable.length);
  }
  return text;
}

export function isAncestorOrSelf(ancestor: string, path: string): boolean {
  return ancestor === path || ancestor === '/' || path.startsWith(`${ancestor}/`);
}

/**
 * The directory the segment runs in. The parser says so when it tracked a `cd` (`segment.cwd`, relative
 * to the command's directory, or `flags.cwdUnknown`); without either, literal `cd`/`pushd` segments
 * earlier at the same depth are followed here. Undefined when it went somewhere unknowable (`cd $DIR`,
 * `cd -`, `popd`).
 */
export function effectiveCwd(env: PackEnv): string | undefined {
  const self = env.segments[env.index];
  // Unknown, or one of several places (a `cd` joined by `;` may have failed).
  if (self?.flags.cwdUnknown === true || self?.cwdOrElse !== undefined) return undefined;
  if (self?.cwd !== undefined) {
    const moved = expandKnown(self.cwd, env.home, env.cwd);
    if (hasExpansion(moved)) return undefined;
    return moved.startsWith('/') ? posix.normalize(moved) : posix.join(env.cwd, moved);
  }
  let cwd: string | undefined = env.cwd;
  for (let i = 0; i < env.index; i++) {
    const s = env.segments[i]!;
    if (self !== undefined && s.depth !== self.depth) continue;
    if (s.name !== 'cd' && s.name !== 'pushd' && s.name !== 'popd') continue;
    if (s.name === 'popd') {
      cwd = undefined;
      continue;
    }
    const target = scan(s.argv).positionals[0];
    if (target === undefined) {
      cwd = s.name === 'cd' ? env.home : undefined;
      continue;
    }
    const expanded = expandKnown(target.text, env.home, cwd);
    if (target.text === '-' || hasExpansion(expanded) || hasGlob(expanded)) cwd = undefined;
    else if (expanded.startsWith('/')) cwd = posix.normalize(expanded);
    else cwd = cwd === undefined ? undefined : posix.join(cwd, expanded);
  }
  return cwd;
}

/** Top-level system directories (and a few second-level ones) whose deletion breaks the machine. */
const SYSTEM_DIRS = new Set([
  '/bin',
  '/boot',
  '/dev',
  '/etc',
  '/home',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/media',
  '/mnt',
  '/opt',
  '/proc',
  '/root',
  '/run',
  '/sbin',
  '/srv',
  '/sys',
  '/tmp',
  '/usr',
  '/var',
  '/nix',
  '/snap',
  '/usr/bin',
  '/usr/lib',
  '/usr/lib64',
  '/usr/local',
  '/usr/sbin',
  '/usr/share',
  '/usr/include',
  '/var/lib',
  '/Applications',
  '/Library',
  '/System',
  '/Users',
  '/Volumes',
  '/private',
  '/private/etc',
  '/private/var',
]);

export const TARGET_KINDS = ['root', 'system', 'home', 'project', 'ancestor', 'git-dir', 'unknown', 'other'] as const;
export type TargetKind = (typeof TARGET_KINDS)[number];

export interface Target {
  kind: TargetKind;
  /** The path as resolved (or as written when unresolvable), for messages. */
  shown: string;
}

/**
 * What a recursive operation on `text` would hit. `dir/*` and `dir/.*` count as `dir` (everything in
 * it); a variable or substitution is `unknown`; other globs are judged by the directory they expand in.
 */
export function classifyTarget(text: string, env: PackEnv, cwd: string | undefined): Target {
  let t = text;
  if (t === '*' || t === '.*') t = '.';
  else if (t.endsWith('/*') || t.endsWith('/.*')) t = t.slice(0, t.lastIndexOf('/')) || '/';
  t = expandKnown(t, env.home, cwd);
  if (hasExpansion(t)) return { kind: 'unknown', shown: text };
  if (hasGlob(t)) {
    // `/us*`, `build-*`: the entries it expands to live in the directory before the first glob.
    const parts = t.split('/');
    const literal = parts.slice(0, parts.findIndex(hasGlob));
    const dir = literal.join('/') || (t.startsWith('/') ? '/' : '.');
    const abs = dir.startsWith('/') ? posix.normalize(dir) : cwd === undefined ? undefined : posix.join(cwd, dir);
    if (abs === '/') return { kind: 'system', shown: text };
    return { kind: abs === undefined ? 'unknown' : 'other', shown: text };
  }
  let abs: string | undefined;
  if (t.startsWith('/')) abs = posix.normalize(t);
  else if (cwd !== undefined) abs = posix.join(cwd, t);
  if (abs === undefined) {
    const first = t.split('/')[0];
    return { kind: first === '.' || first === '..' || first === '' ? 'unknown' : 'other', shown: text };
  }
  if (abs.length > 1 && abs.endsWith('/')) abs = abs.slice(0, -1);
  if (abs === '/') return { kind: 'root', shown: '/' };
  if (isAncestorOrSelf(abs, env.home)) return { kind: 'home', shown: abs };
  if (abs === env.projectRoot) return { kind: 'project', shown: abs };
  if (abs === `${env.projectRoot}/.git`) return { kind: 'git-dir', shown: abs };
  if (isAncestorOrSelf(abs, env.projectRoot)) return { kind: 'ancestor', shown: abs };
  if (SYSTEM_DIRS.has(abs)) return { kind: 'system', shown: abs };
  return { kind: 'other', shown: abs };
}

/** The index range of the pipeline (`a | b | c`) that segment `index` belongs to, at its depth. */
export function pipelineOf(segments: readonly Segment[], index: number): Segment[] {
  const self = segments[index];
  if (self === undefined) return [];
  const sameLevel = (s: Segment): boolean => s.depth === self.depth && s.context === self.context;
  const piped = (s: Segment): boolean => s.operator === '|' || s.operator === '|&';
  let start = index;
  while (start > 0 && piped(segments[start]!) && sameLevel(segments[start - 1]!)) start--;
  let end = index;
  while (end + 1 < segments.length && piped(segments[end + 1]!) && sameLevel(segments[end + 1]!)) end++;
  return segments.slice(start, end + 1);
}

/** Segments before `index` in its pipeline (what feeds its stdin). */
export function upstreamOf(segments: readonly Segment[], index: number): Segment[] {
  const self = segments[index];
  if (self === undefined) return [];
  const pipeline = pipelineOf(segments, index);
  return pipeline.slice(0, pipeline.indexOf(self));
}

/** `sudo`, `doas`, `su`, `pkexec` among the wrappers: the command runs as root. */
export function runsAsRoot(segment: Segment): boolean {
  return segment.wrappers.some((w) => {
    const first = firstWord(w);
    return first === 'sudo' || first === 'doas' || first === 'su' || first === 'pkexec' || first === 'run0';
  });
}

/** For messages: the segment's text, shortened. */
export function shortText(segment: Segment, max = 80): string {
  const text = segment.text !== '' ? segment.text : segment.argv.join(' ');
  if (text.length <= max && !text.includes('\n')) return text.trim();
  const oneLine = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .join(' ');
  return oneLine.length > max ? `${oneLine.slice(0, max - 1)}…` : oneLine;
}

/** The first space-separated word of a wrapper entry (`sudo -u root` → `sudo`). */
export function firstWord(text: string): string {
  const trimmed = text.trim();
  const space = trimmed.indexOf(' ');
  return space === -1 ? trimmed : trimmed.slice(0, space);
}
