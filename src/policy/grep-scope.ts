/**
 * The files a Grep call reads: every file below its `path`, narrowed by `glob` and `type` (ripgrep's, which
 * override its hidden-file and ignore rules: `glob: ".env*"` does search `.env`). Grep over credentials is a
 * read of them, in every output mode — the content, and the file names or counts too: a pattern that
 * matches or not is an oracle on a secret, one character at a time.
 *
 * Pure: the sensitive-read patterns are tested against sample names drawn from the patterns themselves
 * (`.env!(.example|…)` → `.env`, `*.pem` → `x.pem`, `**\/secrets/**` → `secrets/x`), placed under the
 * searched directory, and the call's glob and type are tested against the same names.
 */
import { decision, type Decision } from '../core/decision.js';
import type { ResolvedPath } from '../core/tool-call.js';
import type { PolicyContext } from './context.js';

/**
 * ripgrep's built-in types (`rg --type-list`) that select only source, markup and data files of a
 * language: none of them holds a credential file's name. Any other type — one added in a ripgreprc, or one
 * hookwise does not know — may, so it is judged like a search of everything.
 */
const SAFE_TYPES = new Set([
  'c',
  'cpp',
  'cs',
  'css',
  'csharp',
  'clojure',
  'cmake',
  'coffeescript',
  'd',
  'dart',
  'elixir',
  'elm',
  'erlang',
  'fsharp',
  'go',
  'groovy',
  'h',
  'haskell',
  'html',
  'java',
  'js',
  'json',
  'jsonl',
  'julia',
  'kotlin',
  'less',
  'lua',
  'make',
  'markdown',
  'md',
  'nim',
  'objc',
  'ocaml',
  'perl',
  'php',
  'protobuf',
  'py',
  'python',
  'r',
  'rst',
  'ruby',
  'rust',
  'sass',
  'scala',
  'svelte',
  'sql',
  'swift',
  'tex',
  'toml',
  'ts',
  'typescript',
  'txt',
  'vue',
  'xml',
  'yaml',
  'zig',
]);

/** A sample path a glob pattern matches (`**\/secrets/**` → `secrets/x`): what a search could find. */
function sampleOf(glob: string): string | undefined {
  const name = (s: string): string =>
    s
      .replace(/[!@+?*]\([^)]*\)/g, '')
      .replace(/\{([^,}]*)[^}]*\}/g, '$1')
      .replace(/\[[^\]]*\]/g, 'x')
      .replace(/\*+/g, 'x')
      .replace(/\?/g, 'x');
  const segments = glob.replace(/^~?\//, '').split('/');
  const last = segments.pop() ?? '';
  const file = last === '**' ? 'x' : name(last);
  if (file === '') return undefined;
  const dirs = segments.filter((d) => d !== '**' && d !== '').map(name);
  return [...dirs, file].join('/');
}

const samplesCache = new WeakMap<object, string[]>();

function samplesFor(ctx: PolicyContext): string[] {
  let samples = samplesCache.get(ctx.policy);
  if (samples === undefined) {
    const set = new Set<string>();
    for (const p of ctx.policy.sensitiveRead) {
      const sample = sampleOf(p.glob);
      if (sample !== undefined) set.add(sample);
    }
    samplesCache.set(ctx.policy, (samples = [...set]));
  }
  return samples;
}

/** ripgrep's glob: without a `/` it matches a file's name, with one its path below the search root. */
export function grepGlobMatches(glob: string, path: string): boolean {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      re += '.*';
      i++;
      if (glob[i + 1] === '/') i++;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '{') {
      const end = glob.indexOf('}', i);
      if (end === -1) return true; // unbalanced: ripgrep refuses it; judged as selecting anything
      re += `(?:${glob
        .slice(i + 1, end)
        .split(',')
        .map((a) =>
          a
            .replace(/[.+^$()|[\]\\]/g, '\\$&')
            .replace(/\*/g, '[^/]*')
            .replace(/\?/g, '[^/]'),
        )
        .join('|')})`;
      i = end;
    } else if (c === '[') {
      const end = glob.indexOf(']', i + 1);
      if (end === -1) return true;
      re += `[${glob
        .slice(i + 1, end)
        .replace(/^!/, '^')
        .replace(/\\/g, '\\\\')}]`;
      i = end;
    } else re += c.replace(/[.+^$()|\\\]]/g, '\\$&');
  }
  const subject = glob.replace(/^\//, '').includes('/') ? path : path.slice(path.lastIndexOf('/') + 1);
  return new RegExp(`^${re.replace(/^\\?\//, '')}$`).test(subject);
}

/** The call's globs: several may be given space- or comma-separated; `!x` excludes. */
function globsOf(input: Record<string, unknown>): { include: string[]; exclude: string[] } {
  const glob = typeof input.glob === 'string' ? input.glob : '';
  const all = glob.split(/[\s,]+(?![^{]*\})/).filter((g) => g !== '');
  return {
    include: all.filter((g) => !g.startsWith('!')),
    exclude: all.filter((g) => g.startsWith('!')).map((g) => g.slice(1)),
  };
}

/** Whether the call's globs and type make it search a file at `sample` (below the search root). */
function selects(input: Record<string, unknown>, sample: string): boolean {
  const { include, exclude } = globsOf(input);
  const type = typeof input.type === 'string' && input.type !== '' ? input.type : undefined;
  // Only exclusions and no type: a plain search, which skips hidden and ignored files.
  if (include.length === 0 && type === undefined) return false;
  if (exclude.some((g) => grepGlobMatches(g, sample))) return false;
  if (include.length > 0 && !include.some((g) => grepGlobMatches(g, sample))) return false;
  return type === undefined || !SAFE_TYPES.has(type);
}

/** The names to try: the policy's samples, and each again in the directory a glob names (`deploy/id_*`). */
function candidates(input: Record<string, unknown>, ctx: PolicyContext): string[] {
  const samples = samplesFor(ctx);
  const out = new Set(samples);
  for (const glob of globsOf(input).include) {
    const own = sampleOf(glob);
    if (own === undefined) continue;
    out.add(own);
    const dir = own.includes('/') ? own.slice(0, own.lastIndexOf('/')) : '';
    if (dir !== '') for (const s of samples) out.add(`${dir}/${s.slice(s.lastIndexOf('/') + 1)}`);
  }
  return [...out];
}

/**
 * A Grep whose scope takes in a credential file: ask. Only when the call narrows its search (a glob or a
 * type): a plain search skips hidden and ignored files, and a search of a directory that holds credentials
 * is asked about already (path-policy's recursive reads).
 */
export function grepReadsSensitive(path: ResolvedPath, ctx: PolicyContext): Decision | undefined {
  const input = ctx.call.input;
  if (ctx.call.tool !== 'Grep' || (typeof input.glob !== 'string' && typeof input.type !== 'string')) return undefined;
  for (const sample of candidates(input, ctx)) {
    if (!selects(input, sample)) continue;
    const candidate: ResolvedPath = {
      input: sample,
      absolute: path.absolute === '/' ? `/${sample}` : `${path.absolute}/${sample}`,
      relative: path.relative === null ? null : path.relative === '' ? sample : `${path.relative}/${sample}`,
    };
    const sensitive = ctx.matchers.sensitiveRead.match(candidate);
    if (sensitive === undefined) continue;
    const narrowed = [
      typeof input.glob === 'string' ? `glob "${input.glob.slice(0, 80)}"` : '',
      typeof input.type === 'string' ? `type "${input.type.slice(0, 40)}"` : '',
    ]
      .filter((s) => s !== '')
      .join(' and ');
    return decision(
      'ask',
      'path-policy',
      `Grep with ${narrowed} searches files like ${sample}, which may hold credentials ("${sensitive.glob}"): a human confirms every read of them, matches and file names included`,
      { id: `sensitive-read:${sensitive.glob}`, source: sensitive.source },
    );
  }
  return undefined;
}
