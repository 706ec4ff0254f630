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
import { LOCAL_URL, type CatalogMatch } from '../catalog/match.js';
import type { ValueKind } from '../catalog/grammar.js';
import { remotePlace } from '../shell/remote.js';
import type { Segment } from '../shell/types.js';

/** The kinds an approval generalizes over: any value of the kind is the same form. */
export const FREE_VALUE_KINDS: ReadonlySet<ValueKind> = new Set(['text', 'pattern', 'number']);
/** The kinds generalized over within a place: the project, or one directory outside it. */
const PATH_KINDS: ReadonlySet<ValueKind> = new Set(['path-read', 'path-write', 'dir']);

/** Values that widen what a command touches: the whole directory, root, home, globs, expansions. */
const BROAD_PATH = /^(?:\.{1,2}\/?|\/|~\/?|-)$|[*?[\]{}$`]/;
/** An expansion: the value is only known when the command runs. */
const EXPANSION = /[$`]/;
/** A URL's origin: the scheme (when written), host and port. */
const URL_ORIGIN = /^(?:[a-z]+:\/\/)?[^/?#]+/i;

/**
 * The origin of a URL of this machine (`http://127.0.0.1:8080` of `http://127.0.0.1:8080/api/users`), the
 * place a form keeps for it: another path on the same local server is a value, as another file in the same
 * directory is. Undefined for any other URL, which stays as written (another host is another destination).
 */
function localOrigin(url: string): string | undefined {
  if (!LOCAL_URL.test(url) || BROAD_PATH.test(url) || EXPANSION.test(url)) return undefined;
  return URL_ORIGIN.exec(url)![0].toLowerCase();
}

/** A path through a hidden file or directory (`.git/info/x`, `src/.env`): not `.` or `..`. */
const HIDDEN_PART = /(?:^|\/)\.(?!\.?(?:\/|$))/;

/**
 * Whether a path goes through a hidden file or directory. Such a path is never one of many: `.git/`, `.husky/`,
 * `.vscode/` and dotfiles hold a tool's state and configuration (what runs), not the project's data, so an
 * approval that wrote `reports/a.txt` never carries over to `.git/info/attributes`.
 */
export function throughHidden(path: string): boolean {
  return HIDDEN_PART.test(path);
}

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

/** What the catalogue said of one word: its value's kind, and where a value joined to options starts. */
interface WordKind {
  kind: ValueKind | undefined;
  valueAt?: number | undefined;
}

/** One word of a form: the word as written, or its kind (and place) when the grammar marks it free. */
function formWord(word: string, account: WordKind, dynamic: boolean, where: FormPlace): string {
  const { cwd, projectRoot, quote } = where;
  const { kind } = account;
  if (kind === undefined || dynamic || EXPANSION.test(word)) return quote(word);
  // `--x=value`, `-n5`, `-sf2`: the option letters stay, the value joined to them may be free.
  const eq = account.valueAt ?? (word.startsWith('-') ? word.indexOf('=') + 1 : 0);
  const [head, value] = eq > 0 ? [word.slice(0, eq), word.slice(eq)] : ['', word];
  const option = head === '' ? '' : quote(head);
  if (FREE_VALUE_KINDS.has(kind)) return `${option}<${kind}>`;
  const origin = kind === 'url' ? localOrigin(value) : undefined;
  if (origin !== undefined) return `${option}<url ${origin}>`;
  if (PATH_KINDS.has(kind) && value !== '' && !BROAD_PATH.test(value) && !throughHidden(value))
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
/** Where a segment that does not run here runs, as subjects and forms name it: `[ssh host]`, `[in container]`. */
export function remoteMarker(segment: Segment, quote: (word: string) => string): string | undefined {
  const place = remotePlace(segment);
  if (place === undefined) return undefined;
  return `[${place.kind === 'ssh' ? 'ssh' : 'in'} ${quote(place.name)}]`;
}

export function segmentForm(segment: Segment, match: CatalogMatch | undefined, where: FormPlace): string | undefined {
  const { cwd, projectRoot, quote } = where;
  if (match === undefined || match.entry === undefined || match.unaccounted !== undefined) return undefined;
  const kinds = new Map<number, WordKind>();
  for (const w of match.words)
    if (!kinds.has(w.index) || w.kind !== undefined) kinds.set(w.index, { kind: w.kind, valueAt: w.valueAt });
  const words: string[] = [];
  if (segment.context !== 'command') words.push(`[${segment.context}]`);
  const remote = remoteMarker(segment, quote);
  if (remote !== undefined) words.push(remote);
  words.push(...segment.wrappers);
  for (const [name, value] of Object.entries(segment.assignments)) words.push(`${name}=${quote(value)}`);
  for (const [i, word] of segment.argv.entries()) {
    // Every word must be accounted for: one nobody accounted for never becomes free.
    if (!kinds.has(i)) return undefined;
    words.push(formWord(word, kinds.get(i)!, segment.dynamicArgs.includes(i), where));
  }
  for (const r of segment.redirects)
    words.push(
      `${r.fd ?? ''}${r.op}`,
      r.op.startsWith('<<') || BROAD_PATH.test(r.target) || throughHidden(r.target)
        ? quote(r.target)
        : `<${placeOf(r.target, cwd, projectRoot)}>`,
    );
  if (segment.flags.background === true) words.push('&');
  return words.join(' ');
}

// ── a form received from elsewhere ───────────────────────────────────────────────────────────────────────

/**
 * A hole in a form: a free kind (`<text>`), a file operand's kind and place (`<path-read project>`), a local
 * URL's origin (`<url http://127.0.0.1:8080>`), a redirect's place.
 */
const HOLE = /<(?:(text|pattern|number)|(path-read|path-write|dir|url) ([^<>]+)|([^<>\s]+))>/y;
/** A run of characters wordsOf copies as they are (none of them starts a quote, an escape, a hole or a tail). */
const PLAIN_RUN = /[^ '$\\<#]+/y;

interface FormWord {
  /** The word as written (quotes kept), a hole replaced by NUL. */
  text: string;
  hole?: { kind: string; place?: string };
}

/**
 * The words of a subject or form line, split where the subject's quoting (subject.ts `quote`, `quoteData`)
 * splits them; a subject's `# writes …` tail ends it. Undefined when the text is not of that shape (an
 * unterminated quote, two holes in a word, a hole that does not end its word).
 */
function wordsOf(text: string, holes: boolean): FormWord[] | undefined {
  const words: FormWord[] = [];
  let current: FormWord | undefined;
  const word = (): FormWord => (current ??= { text: '' });
  let hole: RegExpExecArray | null;
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (current?.hole !== undefined && c !== ' ') return undefined;
    if (c === ' ') {
      if (current !== undefined) words.push(current);
      current = undefined;
      i++;
    } else if (c === '#' && current === undefined && !holes) {
      break;
    } else if (c === "'" || (c === '$' && text[i + 1] === "'")) {
      // '…' has no escapes; $'…' escapes with a backslash.
      const start = i;
      i += c === '$' ? 2 : 1;
      while (i < text.length && text[i] !== "'") i += c === '$' && text[i] === '\\' ? 2 : 1;
      if (i >= text.length) return undefined;
      i++;
      word().text += text.slice(start, i);
    } else if (c === '\\') {
      word().text += text.slice(i, i + 2);
      i += 2;
    } else if (c === '<' && holes && (hole = matchAt(HOLE, text, i)) !== null) {
      const w = word();
      w.text += '\u0000';
      w.hole =
        hole[1] !== undefined
          ? { kind: hole[1] }
          : hole[2] !== undefined
            ? { kind: hole[2], place: hole[3]! }
            : { kind: 'redirect', place: hole[4]! };
      i += hole[0].length;
    } else {
      // Loads check every stored form (memory/store.ts): copy plain runs whole, not a character at a time.
      const run = matchAt(PLAIN_RUN, text, i);
      const part = run === null ? c : run[0];
      word().text += part;
      i += part.length;
    }
  }
  if (current !== undefined) words.push(current);
  return words;
}

/** A sticky pattern's match starting exactly at `at`. */
function matchAt(pattern: RegExp, text: string, at: number): RegExpExecArray | null {
  pattern.lastIndex = at;
  return pattern.exec(text);
}

/** The value of a subject word as written: a plain word, or single-quoted parts (`'a'\''b'`). */
function unquoted(word: string): string | undefined {
  if (!word.includes("'") && !word.includes('\\')) return word;
  if (word.startsWith("$'")) return undefined; // data with control characters: never a path a form abstracts
  let out = '';
  for (let i = 0; i < word.length;) {
    if (word[i] === "'") {
      const end = word.indexOf("'", i + 1);
      out += word.slice(i + 1, end);
      i = end + 1;
    } else if (word[i] === '\\') {
      out += word[i + 1] ?? '';
      i += 2;
    } else out += word[i++];
  }
  return out;
}

/** Whether the form builder (formWord, segmentForm) could have made this hole from this value. */
function holeFits(hole: NonNullable<FormWord['hole']>, value: string): boolean {
  if (FREE_VALUE_KINDS.has(hole.kind as ValueKind)) return true;
  if (hole.kind === 'url') return localOrigin(value) === hole.place;
  if (value === '' || BROAD_PATH.test(value) || EXPANSION.test(value) || throughHidden(value)) return false;
  const place = hole.place!;
  if (value.startsWith('~')) return place === value;
  if (place === 'project') return true;
  if (!place.startsWith('/') || !place.endsWith('/')) return false;
  if (!value.startsWith('/')) return true; // relative to a directory only the machine that made it knew
  const absolute = posix.normalize(value);
  return absolute.slice(0, absolute.lastIndexOf('/') + 1) === place;
}

/**
 * Whether `form` is a form of the call `subject` describes (a record from another machine: untrusted). Every
 * word of the form must be the subject's word as written, except holes, each standing for one subject word
 * the form builder could have abstracted that way: a free kind, or a file operand (not a broad path or an
 * expansion) in the place it names. A form that fails generalizes over something its record never decided.
 */
export function formFitsSubject(form: string, subject: string): boolean {
  const f = wordsOf(form, true);
  const s = wordsOf(subject, false);
  if (f === undefined || s === undefined || f.length !== s.length) return false;
  return f.every((fw, i) => {
    const sw = s[i]!.text;
    if (fw.hole === undefined) return fw.text === sw;
    const prefix = fw.text.slice(0, -1);
    // `--x=<text>`: the option as written; the subject quotes the whole word when its value needs it.
    const value = unquoted(sw);
    if (value === undefined || !value.startsWith(unquoted(prefix) ?? '\u0000')) return false;
    return holeFits(fw.hole, value.slice((unquoted(prefix) ?? '').length));
  });
}
