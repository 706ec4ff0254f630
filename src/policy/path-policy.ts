/**
 * Tier 0 — path policy. For file tools (Write, Edit, MultiEdit, NotebookEdit, Read, Glob, Grep, and the
 * Gemini/Codex equivalents): sensitive paths ask; the role's deny_write denies; allow_write allows; a
 * path outside the project root gets the configured treatment; anything else passes on. A call touching
 * several paths gets the strictest answer, and is allowed only if every path is.
 */
import type { SyncTier } from '../core/tier.js';
import type { PolicyContext } from './context.js';
import { decision, stricter, type Decision } from '../core/decision.js';
import type { ResolvedPath } from '../core/tool-call.js';
import type { CompiledPattern } from './compiled.js';
import { inTempDir } from '../paths/canonical.js';
import { grepReadsSensitive } from './grep-scope.js';
import { shownId } from '../sanitize/ids.js';

/** Longer paths are cut when shown: a reason names a path, it does not copy 64 KB of it. */
const MAX_SHOWN_PATH = 200;

function show(path: ResolvedPath): string {
  const text = path.relative === null ? path.absolute : path.relative === '' ? '.' : path.relative;
  return text.length <= MAX_SHOWN_PATH ? text : `${text.slice(0, MAX_SHOWN_PATH - 1)}…`;
}

/** A path the file system would not resolve (ResolvedPath.unknown): nobody can tell where it leads. */
function unknownPath(path: ResolvedPath, access: string): Decision | undefined {
  if (path.unknown === undefined) return undefined;
  return decision(
    'ask',
    'path-policy',
    `${show(path)}, where hookwise cannot tell what it leads to (${path.unknown}): a human confirms every ${access} of it`,
    { id: 'unknown-target:unresolvable', source: 'built-in' },
  );
}

function ruleOf(kind: string, pattern: CompiledPattern): { id: string; source: string } {
  return { id: `${kind}:${pattern.glob}`, source: pattern.source };
}

/** One path written by the session's role: also used for the write targets of shell commands. */
export function judgeWrite(path: ResolvedPath, ctx: PolicyContext): Decision | undefined {
  const unknown = unknownPath(path, 'write');
  if (unknown !== undefined) return unknown;
  const { role, matchers, call } = ctx;
  const name = role.role.name;
  const sensitive = matchers.sensitiveWrite.match(path);
  if (sensitive !== undefined) {
    return decision(
      'ask',
      'path-policy',
      `${show(path)} is a sensitive path ("${sensitive.glob}"): a human confirms every write to it`,
      ruleOf('sensitive', sensitive),
    );
  }
  const own = ownState(path, ctx);
  if (own !== undefined) {
    return decision(
      'ask',
      'path-policy',
      `${show(path)} is hookwise's own state (${own}): a human confirms every write to it`,
      { id: 'sensitive:hookwise-state', source: 'built-in' },
    );
  }
  if (ctx.hostDirs?.some((dir) => path.absolute === dir || path.absolute.startsWith(`${dir}/`)) === true) {
    return decision(
      'ask',
      'path-policy',
      `${show(path)} is where the agent's host keeps its session transcripts or settings, which hookwise trusts (approvals are learned from the transcript): a human confirms every write there`,
      { id: 'sensitive:host-transcripts', source: 'built-in' },
    );
  }
  const denied = role.denyWrite.match(path);
  if (denied !== undefined) {
    return decision(
      'deny',
      'path-policy',
      `role "${name}" may not write ${show(path)} (deny_write "${denied.glob}"). Leave this change to a session whose role owns that path, or switch role: hookwise switch --session-id ${shownId(call.sessionId)} --role <role>`,
      ruleOf(`role:${name}:deny_write`, denied),
    );
  }
  const allowed = role.allowWrite.match(path);
  if (allowed !== undefined) {
    return decision(
      'allow',
      'path-policy',
      `role "${name}" may write ${show(path)} (allow_write "${allowed.glob}")`,
      ruleOf(`role:${name}:allow_write`, allowed),
    );
  }
  if (path.relative === null) return outsideRoot('write', path, ctx);
  return undefined;
}

/**
 * A directory a program rewrites file by file (`prettier --write .`, `black src`): every path below it is a
 * write. Allowed only when allow_write covers all of them (`**` covers the project root, which no glob
 * matches as a path) and no sensitive, hookwise or denied path may lie below it outside the directories the
 * program never enters (`skips`). Which files it touches depends on what is there and on its ignore files,
 * which hookwise does not read: where one of those may lie below, the write is unknown until it runs (a
 * shell ask the walls can hold: they keep those paths read-only), not a path-policy verdict.
 */
export function judgeTreeWrite(dir: ResolvedPath, ctx: PolicyContext, skips: readonly string[]): Decision | undefined {
  const direct = judgeWrite(dir, ctx);
  if (direct !== undefined && direct.verdict !== 'allow') return direct;
  const { role, matchers } = ctx;
  const name = role.role.name;
  const within = dir.absolute === '/' ? '/' : `${dir.absolute}/`;
  const sensitive = matchers.sensitiveWrite.reachesBelow(dir, skips);
  const own = (ctx.hookwiseDirs ?? []).find((d) => d === dir.absolute || d.startsWith(within));
  const denied = role.denyWrite.reachesBelow(dir, skips);
  const below =
    sensitive !== undefined
      ? `the sensitive path "${sensitive.glob}"`
      : own !== undefined
        ? `hookwise's own state (${own})`
        : denied !== undefined
          ? `"${denied.glob}", which role "${name}" may not write,`
          : undefined;
  if (below !== undefined)
    return decision(
      'ask',
      'shell',
      `${show(dir)} is rewritten file by file, and ${below} may lie below it: which files are written is only known when it runs`,
      { id: 'shell:unknown-write-target', source: 'built-in' },
    );
  const covers = role.allowWrite.coversBelow(dir);
  if (covers === undefined) return undefined;
  return decision(
    'allow',
    'path-policy',
    `role "${name}" may write every file in ${show(dir)} (allow_write "${covers.glob}")`,
    ruleOf(`role:${name}:allow_write`, covers),
  );
}

/**
 * A read that needs a human whatever the role: a credential file (sensitive read paths), hookwise's own
 * private state (runtime directory: sessions, sockets; the daemon's token), or — for a recursive read (grep
 * -r, tar, rsync, Grep/Glob over a directory) — a directory that holds credentials somewhere below it (`~`,
 * `/`). Shared by the file tools and the read targets of shell commands.
 */
export function judgeSensitiveRead(path: ResolvedPath, ctx: PolicyContext, recursive: boolean): Decision | undefined {
  const unknown = unknownPath(path, 'read');
  if (unknown !== undefined) return unknown;
  const sensitive = ctx.matchers.sensitiveRead.match(path);
  if (sensitive !== undefined) {
    return decision(
      'ask',
      'path-policy',
      `${show(path)}, which may hold credentials ("${sensitive.glob}"): a human confirms every read of it`,
      ruleOf('sensitive-read', sensitive),
    );
  }
  const own = ownState(path, ctx);
  if (own !== undefined)
    return decision(
      'ask',
      'path-policy',
      `${show(path)}, which is hookwise's own state (${own}): a human confirms every access to it`,
      { id: 'sensitive-read:hookwise-state', source: 'built-in' },
    );
  if (recursive) {
    const below = sensitiveBases(ctx).find(
      (base) => base === path.absolute || base.startsWith(path.absolute === '/' ? '/' : `${path.absolute}/`),
    );
    if (below !== undefined) {
      return decision(
        'ask',
        'path-policy',
        `${show(path)} recursively, and ${below} below it holds credentials: a human confirms such a read`,
        { id: 'sensitive-read:recursive', source: 'built-in' },
      );
    }
  }
  return undefined;
}

/** The private directories hookwise keeps its state in, when the path is inside one of them. */
function ownState(path: ResolvedPath, ctx: PolicyContext): string | undefined {
  for (const dir of ctx.hookwiseDirs ?? []) {
    if (path.absolute === dir || path.absolute.startsWith(`${dir}/`)) return dir;
  }
  return undefined;
}

const basesCache = new WeakMap<object, Map<string, string[]>>();

/** The fixed directories (and files) that absolute sensitive read patterns start from: `~/.ssh/**` → ~/.ssh. */
function sensitiveBases(ctx: PolicyContext): string[] {
  let byHome = basesCache.get(ctx.policy);
  if (byHome === undefined) basesCache.set(ctx.policy, (byHome = new Map()));
  let bases = byHome.get(ctx.home);
  if (bases === undefined) {
    bases = [];
    for (const p of ctx.policy.sensitiveRead) {
      if (!p.absolute) continue;
      const glob = p.glob.startsWith('~/') ? `${ctx.home}${p.glob.slice(1)}` : p.glob;
      const cut = glob.search(/[*?[{]/);
      const fixed = cut === -1 ? glob : glob.slice(0, glob.lastIndexOf('/', cut));
      if (fixed !== '') bases.push(fixed.replace(/\/+$/, '') || '/');
    }
    bases.push(...(ctx.hookwiseDirs ?? []));
    byHome.set(ctx.home, bases);
  }
  return bases;
}

const RECURSIVE_READ_TOOLS = new Set(['Grep', 'Glob']);

/** One path read by the session's role (Read, Glob, Grep; an MCP tool's path fields, `recursive` for a directory it walks). */
export function judgeRead(
  path: ResolvedPath,
  ctx: PolicyContext,
  recursive = RECURSIVE_READ_TOOLS.has(ctx.call.tool),
): Decision | undefined {
  const { role } = ctx;
  const sensitive = judgeSensitiveRead(path, ctx, recursive);
  if (sensitive !== undefined) return { ...sensitive, reason: `reading ${sensitive.reason}` };
  const searched = grepReadsSensitive(path, ctx);
  if (searched !== undefined) return searched;
  const allowed = role.allowRead.match(path);
  if (allowed !== undefined) {
    return decision(
      'allow',
      'path-policy',
      `role "${role.role.name}" may read ${show(path)} (allow_read "${allowed.glob}")`,
      ruleOf(`role:${role.role.name}:allow_read`, allowed),
    );
  }
  if (path.relative === null) return outsideRoot('read', path, ctx);
  return undefined;
}

/**
 * Outside the project root: `outside_root.read` / `.write` — except that writing inside the system temp
 * directory (/tmp, /var/tmp, a usual $TMPDIR; canonical, so a symlink planted there is judged where it
 * points) is scratch work, allowed unless outside_root.write is deny. The shell tier still passes a
 * write there that deletes or overwrites (data-loss.ts) to a human. Never inside the home directory (a
 * home under /tmp stays home).
 */
function outsideRoot(access: 'read' | 'write', path: ResolvedPath, ctx: PolicyContext): Decision | undefined {
  const verdict = ctx.policy.outsideRoot[access];
  if (
    access === 'write' &&
    verdict !== 'deny' &&
    inTempDir(path.absolute) &&
    !(path.absolute === ctx.home || path.absolute.startsWith(`${ctx.home}/`))
  ) {
    return decision(
      'allow',
      'path-policy',
      `${show(path)} is in the system temp directory: scratch files there need no human (deleting or overwriting one is judged separately)`,
      {
        id: 'outside-root:temp',
        source: 'built-in',
      },
    );
  }
  if (verdict === 'pass') return undefined;
  return decision(
    verdict,
    'path-policy',
    `${show(path)} is outside the project root (outside_root.${access}: ${verdict})`,
    {
      id: `outside-root:${access}`,
      source: ctx.policy.outsideRoot.source,
    },
  );
}

export const pathPolicyTier: SyncTier<PolicyContext> = {
  name: 'path-policy',
  decide(ctx) {
    const { call, paths } = ctx;
    if (call.action !== 'write' && call.action !== 'read') return undefined;
    if (paths.length === 0) {
      // A file tool whose targets we cannot see must not slip through as "no paths, nothing to check".
      return call.action === 'write'
        ? decision('ask', 'path-policy', `cannot tell which files this ${call.tool} call writes, so a human decides`, {
            id: 'unknown-target',
            source: 'built-in',
          })
        : undefined;
    }
    const judge = call.action === 'write' ? judgeWrite : judgeRead;
    let result: Decision | undefined;
    let undecided = false;
    for (const path of paths) {
      const d = judge(path, ctx);
      if (d === undefined) undecided = true;
      result = stricter(result, d);
    }
    // "allowed only if every path is": one undecided path keeps the call undecided.
    if (undecided && result?.verdict === 'allow') return undefined;
    return result;
  },
};
