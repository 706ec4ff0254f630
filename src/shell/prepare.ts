/**
 * The edge work for a shell call, done before the cascade (which does no I/O): parse the command (loading
 * the parser bundle and native grammar lazily — only Bash calls pay for it), extract write targets, and
 * canonicalize each target exactly like a Tier 0 path.
 */
import { statSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { loadWithCodeCache } from '../util/code-cache.js';
import type * as ShellBundle from './index.js';
import type { ResolvedPath, ToolCall } from '../core/tool-call.js';
import { resolvePath, type PathContext } from '../paths/canonical.js';
import type { ParseResult, WriteAnalysis, WriteTarget } from './types.js';

export interface PreparedShell {
  command: string;
  parse: ParseResult;
  writes: WriteAnalysis;
  /** writes.targets[i], canonicalized; null when the path cannot be known (an expansion, an unknown cwd). */
  targets: (ResolvedPath | null)[];
  /** Whether writes.targets[i] exists now (an overwrite loses data; creating a file does not). */
  exists: boolean[];
}

/** `$VAR`, `$(…)`, backticks: the path is decided at run time. A glob alone is judged as written. */
const EXPANSION = /[$`]/;

/** Parses kept across calls, by command text (a parse and its write analysis depend on nothing else). */
export interface ParseMemo {
  get(command: string): Pick<PreparedShell, 'parse' | 'writes'> | undefined;
  set(command: string, parsed: Pick<PreparedShell, 'parse' | 'writes'>): void;
}

export async function prepareShell(call: ToolCall, pathContext: PathContext, memo?: ParseMemo): Promise<PreparedShell | undefined> {
  if (call.action !== 'shell') return undefined;
  const command = call.input.command;
  if (typeof command !== 'string') {
    return { command: '', parse: { ok: false, reason: `${call.hostTool} input has no "command" string`, segments: [] }, writes: { targets: [], unknown: [] }, targets: [], exists: [] };
  }
  const { parse, writes } = memo?.get(command) ?? (await parseFresh(command, memo));
  const targets = writes.targets.map((t) => resolveTarget(t, parse, pathContext));
  const exists = targets.map((t) => t !== null && existsForLoss(t.absolute));
  return { command, parse, writes, targets, exists };
}

async function parseFresh(command: string, memo: ParseMemo | undefined): Promise<Pick<PreparedShell, 'parse' | 'writes'>> {
  const shell = await loadShell();
  const parse = shell.parseCommand(command);
  const parsed = { parse, writes: parse.ok ? shell.writeTargets(parse.segments) : { targets: [], unknown: [] } };
  memo?.set(command, parsed);
  return parsed;
}

/**
 * Whether a write target exists now. A path through a file (`/dev/null/x` from `mv a b /dev/null`) does
 * not; any other error (permissions) counts as existing: an unknown target may hold data.
 */
function existsForLoss(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ENOTDIR';
  }
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
    shellModule = loadWithCodeCache(join(dirname(__filename), 'shell.cjs'), require, { writeCache: true }) as ShellModule;
  } else {
    shellModule = await import('../shell/index.js');
  }
  return shellModule;
}

function resolveTarget(target: WriteTarget, parse: ParseResult, ctx: PathContext): ResolvedPath | null {
  if (EXPANSION.test(target.path)) return null;
  const path = target.path;
  const absoluteish = isAbsolute(path) || path === '~' || path.startsWith('~/');
  if (!absoluteish && parse.segments[target.segment]?.flags.cwdUnknown === true) return null;
  const written = absoluteish || target.cwd === undefined ? path : join(target.cwd, path);
  if (EXPANSION.test(written)) return null;
  return resolvePath(written, ctx);
}
