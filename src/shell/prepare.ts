/**
 * The edge work for a shell call, done before the cascade (which does no I/O): parse the command (loading
 * the parser bundle and native grammar lazily — only Bash calls pay for it), extract write targets, and
 * canonicalize each target exactly like a Tier 0 path.
 */
import { lstatSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, posix } from 'node:path';
import { loadWithCodeCache } from '../util/code-cache.js';
import { statIfPresent } from '../util/fs-safe.js';
import type * as ShellBundle from './index.js';
import type { ResolvedPath, ToolCall } from '../core/tool-call.js';
import { resolvePath, type PathContext } from '../paths/canonical.js';
import { deletedAfterCreation } from './created-here.js';
import { hasFreshTempMarker, mapFreshTemp } from './fresh-temp.js';
import type { ParseResult, Segment, WriteAnalysis, WriteTarget } from './types.js';
import type { CommandEffects, InProject, LinkMade, ReadTarget } from './effects.js';
import type { CatalogMatch } from '../catalog/match.js';
import type { SqlFiles } from '../sql/files.js';
import { readSqlFiles } from './sql-files.js';

export interface PreparedShell {
  command: string;
  parse: ParseResult;
  writes: WriteAnalysis;
  /** writes.targets[i], canonicalized; null when the path cannot be known (an expansion, an unknown cwd). */
  targets: (ResolvedPath | null)[];
  /** Whether writes.targets[i] exists now (an overwrite loses data; creating a file does not). */
  exists: boolean[];
  /** Whether writes.targets[i] is a directory its program rewrites file by file (WriteTarget.treeSkips). */
  trees: boolean[];
  /**
   * What each segment can run, read and reach beyond its first word (see effects.ts), with "outside the
   * project" judged on canonical paths: it depends on the file system, so it is worked out for every call.
   */
  effects: CommandEffects;
  /** Whether each segment runs inside the project (its working directory, canonical); false when unknown. */
  runsInProject: boolean[];
  /** effects.reads[i], canonicalized; null when the path is only known at run time. */
  reads: (ResolvedPath | null)[];
  /** Each segment matched against the catalogue (its paths are already among `writes` and `effects.reads`). */
  catalog: CatalogMatch[];
  /** The SQL files its database clients read (sql-files.ts; each also among `effects.reads`); absent: none. */
  sqlFiles?: SqlFiles;
  /**
   * Whether writes.targets[i] is a file (or a tree of files) this session created and that is still that file
   * (session/provenance.ts, filled in at the edge for a registered session); absent: no provenance known.
   */
  created?: boolean[];
  /**
   * Whether writes.targets[i] deletes a path an earlier part of this same command creates, and at which
   * nothing was when the call was judged (created-here.ts); absent: no such deletion.
   */
  createdHere?: boolean[];
}

/** The slice of the cascade's context a shell call adds: its analysis, prepared at the edge. */
export interface ShellContext {
  shell?: PreparedShell;
}

const NO_EFFECTS: CommandEffects = { segments: [], reads: [], links: [] };

/** `$VAR`, `$(…)`, backticks: the path is decided at run time. A glob alone is judged as written. */
const EXPANSION = /[$`]/;

/**
 * What is kept across calls, by command text: the parse, its write analysis and catalogue match (they
 * depend on nothing else), and the effects when working them out asked nothing of the file system.
 */
type Parsed = Pick<PreparedShell, 'parse' | 'writes' | 'catalog'> & { effects?: CommandEffects };

export interface ParseMemo {
  get(command: string): Parsed | undefined;
  set(command: string, parsed: Parsed): void;
}

export async function prepareShell(
  call: ToolCall,
  pathContext: PathContext,
  memo?: ParseMemo,
): Promise<PreparedShell | undefined> {
  if (call.action !== 'shell') return undefined;
  const command = call.input.command;
  if (typeof command !== 'string') {
    return {
      command: '',
      parse: { ok: false, reason: `${call.hostTool} input has no "command" string`, segments: [] },
      writes: { targets: [], unknown: [] },
      targets: [],
      exists: [],
      trees: [],
      effects: NO_EFFECTS,
      runsInProject: [],
      reads: [],
      catalog: [],
    };
  }
  const parsed = memo?.get(command) ?? (await parseFresh(command, memo));
  const { parse, writes, catalog } = parsed;
  // Asked once per path and directory in a call (the effects and the packs ask about the same `cd`).
  const asked = new Map<string, boolean>();
  const inProject: InProject = (path, segment) => {
    const key = `${segment.flags.cwdUnknown === true ? '?' : (segment.cwd ?? '')}\u0000${path}`;
    let inside = asked.get(key);
    if (inside === undefined) asked.set(key, (inside = insideProject(path, segment, pathContext)));
    return inside;
  };
  const analyzed = parsed.effects ?? (await effectsOf(parsed, inProject, () => asked.size > 0));
  const targets = writes.targets.map((t) => resolveTarget(throughLinks(t, analyzed.links), parse, pathContext));
  // SQL files are read for every call: their content is what runs, and it changes between calls.
  const written = writes.targets.flatMap((t, i) => {
    const absolute = targets[i]?.absolute;
    return absolute === undefined ? [] : [{ segment: t.segment, absolute }];
  });
  const sql = parse.ok ? readSqlFiles(parse.segments, pathContext, written) : undefined;
  const effects = sql === undefined ? analyzed : { ...analyzed, reads: [...analyzed.reads, ...sql.reads] };
  // The command's own directory: inside when it already is the canonical root or below it (the usual case).
  const root = pathContext.projectRoot;
  const here = pathContext.cwd === root || pathContext.cwd.startsWith(root === '/' ? '/' : `${root}/`);
  const byCwd = new Map<string | undefined, boolean>(here ? [[undefined, true]] : []);
  const inside = (cwd: string | undefined): boolean => {
    let answer = byCwd.get(cwd);
    if (answer === undefined) byCwd.set(cwd, (answer = inProject(cwd ?? '.', { flags: {} })));
    return answer;
  };
  const runsInProject = parse.segments.map(
    (segment) =>
      segment.flags.cwdUnknown !== true &&
      inside(segment.cwd) &&
      (segment.cwdOrElse ?? []).every((dir) => inside(dir === '' ? undefined : dir)),
  );
  const exists = targets.map((t) => t !== null && existsForLoss(t.absolute));
  const trees = targets.map(
    (t, i) => t !== null && writes.targets[i]!.treeSkips !== undefined && isDirectory(t.absolute),
  );
  const reads = effects.reads.map((r) => resolveTarget(throughLinks(r, effects.links), parse, pathContext));
  const prepared: PreparedShell = {
    command,
    parse,
    writes,
    targets,
    exists,
    trees,
    effects,
    runsInProject,
    reads,
    catalog,
  };
  if (sql !== undefined) prepared.sqlFiles = sql.files;
  const absent = (absolute: string, i: number): boolean =>
    nothingAt(absolute) && nothingAt(asWritten(writes.targets[i]!, pathContext));
  const createdHere = parse.ok ? deletedAfterCreation(parse.segments, writes, targets, absent) : [];
  if (createdHere.includes(true)) prepared.createdHere = createdHere;
  return prepared;
}

async function parseFresh(command: string, memo: ParseMemo | undefined): Promise<Parsed> {
  const shell = await loadShell();
  const parse = shell.parseCommand(command);
  if (!parse.ok) {
    const failed = { parse, writes: { targets: [], unknown: [] }, effects: NO_EFFECTS, catalog: [] };
    memo?.set(command, failed);
    return failed;
  }
  const catalog = parse.segments.map((s) => shell.matchSegment(s));
  const found = withCatalogWrites(shell.writeTargets(parse.segments), parse.segments, catalog);
  const writes = { ...found, targets: inEveryCwd(found.targets, parse.segments) };
  const parsed: Parsed = { parse, writes, catalog };
  memo?.set(command, parsed);
  return parsed;
}

/**
 * The files the catalogue says a segment writes (`sort -o F`, `pytest --junitxml=F`, `go test -o F`) join
 * the write targets, so the path policy judges them like any other write.
 */
function withCatalogWrites(
  writes: WriteAnalysis,
  segments: readonly Segment[],
  catalog: readonly CatalogMatch[],
): WriteAnalysis {
  const added: WriteTarget[] = [];
  catalog.forEach((match, segment) => {
    for (const p of match.paths) {
      if (p.kind !== 'path-write') continue;
      if (writes.targets.some((t) => t.segment === segment && t.path === p.path)) continue;
      const target: WriteTarget = {
        segment,
        path: p.path,
        via: p.via,
        dynamic: segments[segment]!.dynamicArgs.includes(p.index),
      };
      const cwd = segments[segment]!.cwd;
      if (cwd !== undefined) target.cwd = cwd;
      if (p.treeSkips !== undefined) target.treeSkips = p.treeSkips;
      added.push(target);
    }
  });
  return added.length === 0 ? writes : { ...writes, targets: [...writes.targets, ...added] };
}

/**
 * A relative path of a segment that may run in another directory (`cd missing; rm -rf build`: the `cd` may
 * have failed) is also judged there: one more target per other directory, and the strictest verdict wins.
 */
function inEveryCwd<T extends { segment: number; path: string; cwd?: string }>(
  targets: readonly T[],
  segments: readonly Segment[],
): T[] {
  const out = [...targets];
  for (const t of targets) {
    const elsewhere = segments[t.segment]?.cwdOrElse;
    if (elsewhere === undefined || isAbsolute(t.path) || t.path === '~' || t.path.startsWith('~/')) continue;
    for (const dir of elsewhere) {
      const copy: T = { ...t };
      if (dir === '') delete copy.cwd;
      else copy.cwd = dir;
      out.push(copy);
    }
  }
  return out;
}

/** And the files it reads (an option's file, `date -r F`) join the reads the sensitive-read rules judge. */
function withCatalogReads(
  effects: CommandEffects,
  segments: readonly Segment[],
  catalog: readonly CatalogMatch[],
): CommandEffects {
  const added: ReadTarget[] = [];
  catalog.forEach((match, segment) => {
    for (const p of match.paths) {
      if (p.kind === 'path-write') continue;
      if (effects.reads.some((r) => r.segment === segment && r.path === p.path)) continue;
      const read: ReadTarget = { segment, path: p.path, via: p.via, recursive: false };
      const cwd = segments[segment]!.cwd;
      if (cwd !== undefined) read.cwd = cwd;
      added.push(read);
    }
  });
  return added.length === 0 ? effects : { ...effects, reads: [...effects.reads, ...added] };
}

/** The effects, with the catalogue's reads, kept with the parse when no answer came from the file system (most commands). */
async function effectsOf(parsed: Parsed, inProject: InProject, consulted: () => boolean): Promise<CommandEffects> {
  if (!parsed.parse.ok) return NO_EFFECTS;
  const shell = await loadShell();
  const segments = parsed.parse.segments;
  const found = withCatalogReads(shell.analyzeEffects(segments, parsed.writes, inProject), segments, parsed.catalog);
  const effects = { ...found, reads: inEveryCwd(found.reads, segments) };
  if (!consulted()) parsed.effects = effects;
  return effects;
}

/**
 * A path a segment names lies inside the project, judged like a path policy path: canonical (symlinks,
 * `..`, a trailing slash), against the canonical root. A path known only at run time is not inside.
 */
function insideProject(path: string, segment: Pick<Segment, 'cwd' | 'flags'>, ctx: PathContext): boolean {
  const absoluteish = isAbsolute(path) || path === '~' || path.startsWith('~/');
  if (!absoluteish && segment.flags.cwdUnknown === true) return false;
  const written = absoluteish || segment.cwd === undefined ? path : join(segment.cwd, path);
  if (EXPANSION.test(written) || hasFreshTempMarker(written)) return false;
  const resolved = resolvePath(written, ctx);
  return resolved.unknown === undefined && resolved.relative !== null;
}

/** A directory (through symlinks); an error (permissions) counts as one: it may hold a tree of files. */
function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code !== 'ENOENT' && code !== 'ENOTDIR';
  }
}

/**
 * Whether a write target exists now. A path through a file (`/dev/null/x` from `mv a b /dev/null`) does
 * not; any other error (permissions) counts as existing: an unknown target may hold data.
 */
function existsForLoss(path: string): boolean {
  try {
    return statIfPresent(path) !== undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ENOTDIR';
  }
}

/** Nothing at all is at a path now, not even a dangling link; a path that cannot be looked at may hold something. */
function nothingAt(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) === undefined;
  } catch {
    return false;
  }
}

/** A write target's path as written, made absolute without resolving a link (`~` is the home directory). */
function asWritten(target: Pick<WriteTarget, 'path' | 'cwd'>, ctx: PathContext): string {
  const { path } = target;
  if (path === '~' || path.startsWith('~/')) return join(ctx.home, path.slice(1));
  if (isAbsolute(path)) return path;
  const dir = target.cwd ?? '';
  if (dir === '~' || dir.startsWith('~/')) return join(ctx.home, dir.slice(1), path);
  return isAbsolute(dir) ? join(dir, path) : join(ctx.cwd, dir, path);
}

type ShellModule = typeof ShellBundle;

let shellModule: ShellModule | undefined;

/**
 * The parser bundle. Built (dist/*.cjs): dist/shell.cjs through its own V8 code cache (≈ 4 ms per Bash
 * call). From sources (tests): a plain import — which scripts/build.mjs would also route to dist/shell.cjs,
 * hence '../shell/index.js' rather than './index.js'.
 */
async function loadShell(): Promise<ShellModule> {
  // Once per process: `check --jsonl` and the replays prepare thousands of calls.
  if (shellModule !== undefined) return shellModule;
  if (typeof __filename === 'string' && __filename.endsWith('.cjs')) {
    shellModule = loadWithCodeCache(join(dirname(__filename), 'shell.cjs'), require, {
      writeCache: true,
    }) as ShellModule;
  } else {
    shellModule = await import('../shell/index.js');
  }
  return shellModule;
}

function resolveTarget(
  target: Pick<WriteTarget, 'path' | 'segment' | 'cwd'>,
  parse: ParseResult,
  ctx: PathContext,
): ResolvedPath | null {
  if (EXPANSION.test(target.path)) return null;
  const path = target.path;
  const absoluteish = isAbsolute(path) || path === '~' || path.startsWith('~/');
  if (!absoluteish && parse.segments[target.segment]?.flags.cwdUnknown === true) return null;
  if (hasFreshTempMarker(path) || (!absoluteish && hasFreshTempMarker(target.cwd ?? ''))) {
    // `$(mktemp -d)`: a fresh entry the command creates in the temp directory (fresh-temp.ts). A path that
    // climbs out of it (`$d/..`) is not known here.
    const mapped = mapFreshTemp(absoluteish ? path : `${target.cwd}/${path}`, tmpdir());
    return mapped === undefined || EXPANSION.test(mapped) ? null : resolvePath(mapped, ctx);
  }
  const written = absoluteish || target.cwd === undefined ? path : join(target.cwd, path);
  if (EXPANSION.test(written)) return null;
  return resolvePath(written, ctx);
}

/**
 * A path used after an earlier segment of the same command made a link on its way (`ln -s ~/.config/x l &&
 * echo > l/f`): the link does not exist yet when hookwise looks, so the path is rewritten to where the link
 * points and judged there. Chains are followed a bounded number of times.
 */
function throughLinks<T extends WriteTarget | ReadTarget>(target: T, links: readonly LinkMade[]): T {
  if (links.length === 0 || EXPANSION.test(target.path)) return target;
  const absoluteish = isAbsolute(target.path) || target.path === '~' || target.path.startsWith('~/');
  let path = posix.normalize(
    absoluteish || target.cwd === undefined ? target.path : posix.join(target.cwd, target.path),
  );
  let changed = false;
  for (let hop = 0; hop < 8; hop++) {
    const link = links.find((l) => l.segment < target.segment && (path === l.link || path.startsWith(`${l.link}/`)));
    if (link === undefined) break;
    path = link.target + path.slice(link.link.length);
    changed = true;
  }
  if (!changed) return target;
  const out = { ...target, path };
  delete out.cwd;
  return out;
}
