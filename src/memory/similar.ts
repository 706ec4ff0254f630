/**
 * Tier 2a — token Jaccard over remembered calls (index: memory/jaccard.ts, tokens: memory/tokens.ts).
 *
 * The best match at or above the threshold (0.7 by default, `memory.jaccard_threshold`) decides:
 *   - allow → auto-approve, with the score as confidence;
 *   - ask   → ask (and the edge records that ask for this exact call, so a repeat cannot drift to allow);
 *   - deny  → pass on: similarity never auto-denies (and a deny that is closest blocks an auto-allow).
 * Equal scores: the stricter verdict wins.
 *
 * Guard rails — a match may only approve a call when:
 *   - the call has at least 3 tokens (short calls are too easy to look alike);
 *   - it is a shell or other-tool call (a similar path is a different file: file tools are exact-only);
 *   - it loses no data (delete, truncate, overwrite: exact only);
 *   - its command names (wrappers and argv[0] as written, per segment, in order: `sudo npm` is not `npm`,
 *     `/tmp/x/python3` is not `python3`) equal the entry's — and with them the identity of any code a segment
 *     carries (memory/code.ts: a script and the options before it, inline code, stdin data, shell code run by
 *     `bash -c` / `eval` / a heredoc, a database query, an awk or sed program, a code-loading assignment).
 *     So similarity never matches across different code: `python3 a.py --n 5` ~ `--n 6`, never
 *     `python3 /tmp/evil.py`. A record from before code identities names no code, so it never matches a
 *     call that carries some; a call whose code is not known as text (an expansion, a secret) is exact-only;
 *   - it has the entry's form (memory/form.ts): the catalogue accounts for every word of both, and they differ
 *     only in words its grammar marks as free — text, patterns, numbers, file operands in the same place
 *     (`git commit -m 'a'` ~ `git commit -m 'b'`); never in a program, subcommand, option, code, URL or enum.
 *     When both have a form, that is all: forms that differ never match by shape. Failing a form (a call the
 *     catalogue does not account for, a record from before forms), the entry's shape: the same words in the
 *     same order, except argument *values* swapped one for another (`pytest tests/a.py -x` ~
 *     `pytest tests/b.py -x`), a file operand only for one in the same place (carriesOver). An added, dropped or changed option
 *     (`--privileged`, `-a`, `--force`), an added or dropped word, a value swapped for a broad one (`.`,
 *     `/`, `~`, a glob, an expansion) or one through a hidden file or directory (`.git/…`), or a swapped destination (a URL of another origin, `user@host:path`,
 *     an `@file` to load) is a different command, however many tokens it shares;
 *   - its write targets fall in the same path-policy classes as the entry's, for this role;
 *   - no segment is marked deny or ask by a pack or rule — structurally true here: such a segment
 *     decided in the shell/rules tiers before this one.
 */
import type { SyncTier } from '../core/tier.js';
import type { MemoryTierContext } from './context.js';
import { decision, strictness, type Decision } from '../core/decision.js';
import type { ResolvedPath } from '../core/tool-call.js';
import { judgeWrite } from '../policy/path-policy.js';
import { describeRecord, recordSource } from './cache.js';
import { ANY_ROLE, type LoadedRecord } from './store.js';
import { sameForm, throughHidden } from './form.js';
import type { CallSubject } from './subject.js';
import { tokenize } from './tokens.js';

export const MIN_TOKENS = 3;

function resolvedOf(absolute: string, projectRoot: string): ResolvedPath {
  const relative =
    absolute === projectRoot
      ? ''
      : absolute.startsWith(`${projectRoot}/`)
        ? absolute.slice(projectRoot.length + 1)
        : null;
  return { input: absolute, absolute, relative };
}

/** The path-policy classes of a set of write targets, for this role: e.g. `allow role:coder:allow_write:src/**`. */
export function writeClasses(writes: readonly string[], ctx: MemoryTierContext): string {
  const classes = new Set<string>();
  for (const w of writes) {
    const d = judgeWrite(resolvedOf(w, ctx.projectRoot), ctx);
    classes.add(d === undefined ? 'pass' : `${d.verdict} ${d.rule?.id ?? ''}`);
  }
  return [...classes].sort().join('\n');
}

const sameList = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/** Words that are structure, not values: operators and our `# writes` marker. */
const STRUCTURE = new Set(['&&', '||', '|', '|&', ';', '&', '#', 'writes']);
/** Values that widen what a command touches: the whole directory, root, home, globs, expansions. */
const BROAD = /^(?:\.{1,2}\/?|\/|~\/?|-)$|[*?[\]{}$`]/;
/**
 * Values that name where a command reaches or what it loads, not data: a URL, a remote path
 * (`user@host:path`), a file loaded by `@` (`curl -d @.env`, `-F f=@x`). Swapping one is another command —
 * except a URL for another of the same origin (sameOrigin).
 */
const DESTINATION = /:\/\/|^'?@|=@|^'?[\w.-]+@[\w.-]+:/;
/** A URL's origin: scheme, user, host and port. */
const ORIGIN = /^'?([a-z][a-z\d+.-]*:\/\/[^/?#'\s]+)(?:[/?#][^\s]*)?$/i;

/** Two URLs of one origin (`http://127.0.0.1:8080/api/a` ~ `/api/b`): the same server, another path. */
function sameOrigin(a: string, b: string): boolean {
  const [x, y] = [ORIGIN.exec(a), ORIGIN.exec(b)];
  return x !== null && y !== null && x[1]!.toLowerCase() === y[1]!.toLowerCase() && !BROAD.test(a) && !BROAD.test(b);
}

/** Redirection operators (`>`, `>>`, `2>`, `&>`, `<<`): `>` for `>>` truncates instead of appending. */
const REDIRECT = /^[\d&]*[<>]/;

function isPlainValue(word: string): boolean {
  return (
    !word.startsWith('-') &&
    !word.startsWith("'-") &&
    !STRUCTURE.has(word) &&
    !REDIRECT.test(word) &&
    !BROAD.test(word) &&
    !DESTINATION.test(word) &&
    !throughHidden(word.replace(/^'|'$/g, ''))
  );
}

/**
 * Same words in the same order, except plain argument values swapped for other plain values — or, with
 * `swappable`, only for values that pair passes.
 */
export function sameShape(
  a: string,
  b: string,
  swappable: (from: string, to: string) => boolean = () => true,
): boolean {
  const x = a.split(/\s+/);
  const y = b.split(/\s+/);
  if (x.length !== y.length) return false;
  return x.every(
    (w, i) => w === y[i] || ((sameOrigin(w, y[i]!) || (isPlainValue(w) && isPlainValue(y[i]!))) && swappable(w, y[i]!)),
  );
}

/** A word that names a file: it has a directory part, or a file name with an extension (`a.py`, `./b`, `/tmp/x`). */
const PATH_LIKE = /\/|^[^/=:@]*[A-Za-z0-9_-]\.[A-Za-z0-9]{1,8}$/;
/** Numbers, versions, IPs: a value swap there is a different target (`init 1` vs `init 6`), never a file. */
const NUMERIC = /^[\d.:]+$/;

/** Where a path operand points: the project (relative, or absolute below the root), or an outside directory. */
function pathPlace(word: string, projectRoot: string): string {
  // `.git/…`, `.husky/…`: a tool's state or configuration, never one file among many.
  if (throughHidden(word)) return `hidden:${word}`;
  if (word.startsWith('/'))
    return word === projectRoot || word.startsWith(`${projectRoot}/`)
      ? 'project'
      : `outside:${word.slice(0, word.lastIndexOf('/') + 1)}`;
  if (word.startsWith('~') || word === '..' || word.startsWith('../') || word.includes('/../'))
    return `outside:${word}`;
  return 'project';
}

/**
 * A file operand swapped for another in the same place — inside the project, or the same directory outside
 * it (`/tmp/build-output` → `/tmp/build-cache`); never a number, a version or a URL.
 */
export function pathSwap(from: string, to: string, projectRoot: string): boolean {
  const [a, b] = [unquote(from), unquote(to)];
  if (
    !PATH_LIKE.test(a) ||
    !PATH_LIKE.test(b) ||
    NUMERIC.test(a) ||
    NUMERIC.test(b) ||
    /:\/\//.test(a) ||
    /:\/\//.test(b)
  )
    return false;
  return pathPlace(a, projectRoot) === pathPlace(b, projectRoot);
}

function unquote(word: string): string {
  return word.length >= 2 && word.startsWith("'") && word.endsWith("'") ? word.slice(1, -1) : word;
}

/**
 * Tier 2a's value swap on the shape rail: a URL for one of the same origin, a file operand only for one in the
 * same place (pathSwap), any other plain value (a name, a number, a version) for another.
 */
function valueSwap(projectRoot: string): (from: string, to: string) => boolean {
  return (from, to) => {
    if (sameOrigin(from, to)) return true;
    const [a, b] = [unquote(from), unquote(to)];
    if (NUMERIC.test(a) && NUMERIC.test(b)) return true;
    return (!PATH_LIKE.test(a) && !PATH_LIKE.test(b)) || pathSwap(a, b, projectRoot);
  };
}

/**
 * Whether a remembered call carries over to this one. When the catalogue accounts for both, the grammar
 * decides: they must have one form, since forms that differ differ in something the grammar does not mark
 * free (a read of `/var/log/auth.log` is not a read of `logs/api.log`, however alike their words). Only when
 * one has no form (a word the catalogue does not know, a record from before forms): the shape rail, with the
 * tier's value swap.
 */
export function carriesOver(
  record: Pick<LoadedRecord, 'form' | 'subject'>,
  subject: Pick<CallSubject, 'form' | 'text'>,
  swappable: (from: string, to: string) => boolean,
): boolean {
  if (record.form !== undefined && subject.form !== undefined) return sameForm(record, subject);
  return sameShape(record.subject, subject.text, swappable);
}

function judgeSimilar(ctx: MemoryTierContext): Decision | undefined {
  const memory = ctx.memory;
  if (memory === undefined || memory.view.empty) return undefined;
  const subject = memory.subject();
  if (subject === undefined || !subject.similar || subject.lossy) return undefined;
  const tokens = tokenize(subject.form ?? subject.text, ctx);
  if (tokens.length < MIN_TOKENS) return undefined;
  const role = ctx.role.role.name;
  let callClasses: string | undefined;
  let best: { record: LoadedRecord; score: number } | undefined;
  for (const { record: r, score } of memory.view.similar(tokens, ctx)) {
    if (best !== undefined && score < best.score) break;
    if (r.tool !== subject.tool || (r.role !== role && r.role !== ANY_ROLE)) continue;
    if (!sameList(r.commands ?? [], subject.commands)) continue;
    if (!carriesOver(r, subject, valueSwap(ctx.projectRoot))) continue;
    callClasses ??= writeClasses(subject.writes, ctx);
    if (writeClasses(r.writes ?? [], ctx) !== callClasses) continue;
    if (best === undefined || strictness(r.verdict) > strictness(best.record.verdict)) best = { record: r, score };
  }
  if (best === undefined || best.record.verdict === 'deny') return undefined;
  // A call that asks to leave the host's sandbox is judged as unconfined: a near match never allows it.
  if (best.record.verdict === 'allow' && ctx.call.input.dangerouslyDisableSandbox === true) return undefined;
  const { record, score } = best;
  const how = record.verdict === 'allow' ? 'allowed' : 'always asks a human about';
  return decision(
    record.verdict,
    'jaccard',
    `similar (${score.toFixed(2)}) to \`${record.subject.length > 80 ? `${record.subject.slice(0, 77)}…` : record.subject}\`, which ${describeRecord(record)} ${how}`,
    { id: `memory:${record.key}`, source: recordSource(record, ctx.projectRoot) },
    score,
  );
}

export const jaccardTier: SyncTier<MemoryTierContext> = { name: 'jaccard', decide: judgeSimilar };
