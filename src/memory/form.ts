/**
 * The *form* of a shell call: what an approval generalizes over (issue 28 item 5). From the catalogue's
 * per-word account of each segment (catalog/match.ts), every word the grammar marks as free — free text, a
 * pattern, a number — becomes its kind (`<text>`), a file operand becomes its kind and place (`<path-read
 * project>`, `<dir /tmp/>`), and every other word stays as written: the program, subcommands, options,
 * enums, URLs and hosts, code and programs it runs, expansions, broad paths (`.`, `/`, `~`, globs). Two calls
 * of one form differ only in free words, so a remembered approval of one may decide the other (tiers 2a and
 * 2b: memory/similar.ts, embed/tier.ts); write classes, data loss and code identity are still checked there.
 *
 * A call has no form when a segment is not fully accounted for by the catalogue (no entry, an unknown option
 * or form): it gets today's guard rails only. Pure: paths are placed lexically (resolved against the cwd).
 */
import { posix } from 'node:path';
import type { CatalogMatch } from '../catalog/match.js';
import type { ValueKind } from '../catalog/grammar.js';
import type { Segment } from '../shell/types.js';

/** The kinds an approval generalizes over: any value of the kind is the same form. */
export const FREE_VALUE_KINDS: ReadonlySet<ValueKind> = new Set(['text', 'pattern', 'number']);
/** The kinds generalized over within a place: the project, or one directory outside it. */
const PATH_KINDS: ReadonlySet<ValueKind> = new Set(['path-read', 'path-write', 'dir']);

/** Values that widen what a command touches: the whole directory, root, home, globs, expansions. */
const BROAD_PATH = /^(?:\.{1,2}\/?|\/|~\/?|-)$|[*?[\]{}$`]/;
/** An expansion: the value is only known when the command runs. */
const EXPANSION = /[$`]/;

/**
 * Where a path points: `project` (inside the project root), or the directory it lies in outside it
 * (`/tmp/`, `/etc/`). A path through `~` stays as written: a home file is never one of many.
 */
export function placeOf(path: string, cwd: string, projectRoot: string): string {
  if (path.startsWith('~')) return path;
  const absolute = posix.resolve(cwd, path);
  if (absolute === projectRoot || absolute.startsWith(`${projectRoot}/`)) return 'project';
  return absolute.slice(0, absolute.lastIndexOf('/') + 1);
}

/** One word of a form: the word as written, or its kind (and place) when the grammar marks it free. */
function formWord(word: string, kind: ValueKind | undefined, dynamic: boolean, where: FormPlace): string {
  const { cwd, projectRoot, quote } = where;
  if (kind === undefined || dynamic || EXPANSION.test(word)) return quote(word);
  // `--x=value`: the option stays, its value may be free.
  const eq = word.startsWith('-') ? word.indexOf('=') : -1;
  const [head, value] = eq > 0 ? [word.slice(0, eq + 1), word.slice(eq + 1)] : ['', word];
  const option = head === '' ? '' : quote(head);
  if (FREE_VALUE_KINDS.has(kind)) return `${option}<${kind}>`;
  if (PATH_KINDS.has(kind) && value !== '' && !BROAD_PATH.test(value))
    return `${option}<${kind} ${placeOf(value, cwd, projectRoot)}>`;
  return quote(word);
}

/** Where a segment runs, and how a word as written is quoted in the subject (so words cannot run together). */
export interface FormPlace {
  cwd: string;
  projectRoot: string;
  quote: (word: string) => string;
}

/** Both calls have a form and it is the same: they differ only in words the grammar marks as free. */
export function sameForm(record: { form?: string | undefined }, call: { form?: string | undefined }): boolean {
  return record.form !== undefined && record.form === call.form;
}

/**
 * A segment's form, or undefined when the catalogue does not account for every word. Wrappers, assignments
 * and redirection operators stay as written (a redirect's target is its place: the write class is checked
 * by the tiers).
 */
export function segmentForm(segment: Segment, match: CatalogMatch | undefined, where: FormPlace): string | undefined {
  const { cwd, projectRoot, quote } = where;
  if (match === undefined || match.entry === undefined || match.unaccounted !== undefined) return undefined;
  const kinds = new Map<number, ValueKind | undefined>();
  for (const w of match.words) if (!kinds.has(w.index) || w.kind !== undefined) kinds.set(w.index, w.kind);
  const words: string[] = [];
  if (segment.context !== 'command') words.push(`[${segment.context}]`);
  if (segment.flags.remote !== undefined) words.push(`[ssh ${quote(segment.flags.remote)}]`);
  words.push(...segment.wrappers);
  for (const [name, value] of Object.entries(segment.assignments)) words.push(`${name}=${quote(value)}`);
  for (const [i, word] of segment.argv.entries()) {
    // Every word must be accounted for: one nobody accounted for never becomes free.
    if (!kinds.has(i)) return undefined;
    words.push(formWord(word, kinds.get(i), segment.dynamicArgs.includes(i), where));
  }
  for (const r of segment.redirects)
    words.push(
      `${r.fd ?? ''}${r.op}`,
      r.op.startsWith('<<') || BROAD_PATH.test(r.target) ? quote(r.target) : `<${placeOf(r.target, cwd, projectRoot)}>`,
    );
  if (segment.flags.background === true) words.push('&');
  return words.join(' ');
}
