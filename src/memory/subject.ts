/**
 * What decision memory remembers a call by: its normalized, sanitized subject. Never the raw string:
 *
 *   - Bash: the parsed segments (wrappers, `VAR=` assignments, argv, redirections, the stdin data a
 *     heredoc or here-string feeds it, joined by their operators), then the canonical write targets — so
 *     `git status > ~/.bashrc` can never share a key with `git status`, `psql <<SQL` with one body never
 *     with another, and `rm -rf build` run in two projects names two different directories;
 *   - file tools: `<change> <canonical path>` (Write/Edit/… by path and change type, never by content);
 *   - MCP tools: the field names (a new field set is a new shape) and the values of every field that is judged
 *     — paths (canonical), URLs (by origin for a catalogued tool), SQL, code, identifiers — but not of free
 *     text (a query, a note's body): an approval carries over to calls that differ only in free text;
 *   - other tools (WebFetch, …): the URL or query where that is what the call is about, else the
 *     sanitized JSON of the input.
 *
 * The subject is sanitized (secrets → <REDACTED>) before anything hashes, tokenizes or stores it, so two
 * calls that differ only in a secret share a key, and no key or token is derived from a secret.
 * Pure: the shell call was parsed and its targets canonicalized at the edge (shell/prepare.ts).
 */
import type { ResolvedPath, ToolCall } from '../core/tool-call.js';
import { shownId } from '../sanitize/ids.js';
import { sanitize, sanitizedJson, structuralInput, type Sanitized } from '../sanitize/index.js';
import type { PreparedShell } from '../shell/prepare.js';
import { segmentLosesData } from '../shell/data-loss.js';
import type { Segment } from '../shell/types.js';
import { xxh3Hex } from '../util/xxhash.js';
import { codeIdentity } from './code.js';
import { remoteMarker, segmentForm } from './form.js';
import type { McpField, PreparedMcp } from '../catalog/mcp-call.js';
import { FREE_KINDS } from '../catalog/mcp-grammar.js';
import { learnsAcross, publicWebPage } from '../catalog/mcp-learning.js';

export interface CallSubject {
  /** The tool's name as it may be stored (sanitize/ids.ts): a name comes from the payload like any input. */
  tool: Sanitized;
  /** The normalized, sanitized subject: what is hashed into the key and stored. */
  text: Sanitized;
  /**
   * Shell: each segment's wrappers and program as written (`sudo npm`, `git`, `./venv/bin/python`), then the
   * identity of the code it carries, if any (`python3 code:…`: memory/code.ts); file tools and others: the tool.
   */
  commands: Sanitized[];
  /** Canonical write targets (absolute), sanitized. */
  writes: Sanitized[];
  /** The call loses data (deletes, truncates, overwrites): similarity never approves it. */
  lossy: boolean;
  /** Whether similarity (Jaccard) may consider this call at all (not when code it runs cannot be known as text). */
  similar: boolean;
  /** Per shell segment, the normalized text an override pattern is matched against. */
  segments: Sanitized[];
  /**
   * Shell: the call with the words the catalogue marks as free abstracted (memory/form.ts), when every
   * segment is fully accounted for — what an approval generalizes over.
   */
  form?: Sanitized;
}

/** A subject longer than this is not remembered (a 50 KB heredoc is not a decision worth a key). */
export const MAX_SUBJECT = 4096;

/** Words that need no quoting to read unambiguously. */
const PLAIN_WORD = /^[A-Za-z0-9_@%+=:,./~^-]+$/;

function quote(word: string): string {
  if (word !== '' && PLAIN_WORD.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A segment as one line: context marker, wrappers, assignments, argv, redirections. */
export function segmentText(segment: Segment): string {
  const parts: string[] = [];
  if (segment.context !== 'command') parts.push(`[${segment.context}]`);
  const remote = remoteMarker(segment, quote);
  if (remote !== undefined) parts.push(remote);
  for (const wrapper of segment.wrappers) parts.push(wrapper);
  for (const [name, value] of Object.entries(segment.assignments)) parts.push(`${name}=${quote(value)}`);
  for (const word of segment.argv) parts.push(quote(word));
  for (const r of segment.redirects) parts.push(`${r.fd ?? ''}${r.op} ${quote(r.target)}`);
  if (segment.flags.background === true) parts.push('&');
  return parts.join(' ');
}

const FILE_CHANGE_OF_READ: Record<string, string> = { Read: 'read', Glob: 'glob', Grep: 'grep' };

/**
 * The subject of a call, or undefined when it is not rememberable: an unparseable or empty command, a
 * write target only known at run time, no paths for a file tool, an oversized subject.
 */
export function callSubject(
  call: ToolCall,
  paths: readonly ResolvedPath[],
  shell: PreparedShell | undefined,
  mcp?: PreparedMcp,
  projectRoot?: string,
): CallSubject | undefined {
  if (mcp !== undefined) return mcpSubject(call, mcp);
  switch (call.action) {
    case 'shell':
      return shell === undefined ? undefined : shellSubject(call, shell, projectRoot);
    case 'write':
    case 'read':
      return fileSubject(call, paths);
    case 'other':
      return otherSubject(call);
  }
}

/** Stdin data up to this length (sanitized and quoted) is part of the subject as text; longer, as a digest. */
export const MAX_STDIN_TEXT = 256;

/** Data as one shell word: plain, single-quoted, or `$'…'` when it holds newlines or other control characters. */
function quoteData(data: string): string {
  // eslint-disable-next-line no-control-regex
  if (!/[\x00-\x1f\x7f]/.test(data)) return quote(data);
  // eslint-disable-next-line no-control-regex
  const escaped = data.replace(/[\\'\x00-\x1f\x7f]/g, (c) => {
    if (c === '\n') return '\\n';
    if (c === '\t') return '\\t';
    if (c === '\r') return '\\r';
    if (c === '\\' || c === "'") return `\\${c}`;
    return `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;
  });
  return `$'${escaped}'`;
}

/**
 * The stdin data a segment reads (heredoc and here-string bodies), as it joins the subject: sanitized,
 * then quoted when short, else its XXH3-64 digest. Undefined when there is none, or when it is already in
 * the segment's text word for word (here-strings only: their redirect target is their body).
 */
function stdinMarker(segment: Segment, clean: Sanitized): string | undefined {
  const herestrings = segment.redirects.filter((r) => r.op === '<<<').map((r) => `${r.target}\n`);
  if (herestrings.length > 0 && herestrings.join('') === segment.stdin) return undefined;
  const quoted = quoteData(clean);
  return quoted.length <= MAX_STDIN_TEXT ? `[stdin ${quoted}]` : `[stdin xxh3:${xxh3Hex(clean)}]`;
}

/** A digest of what the edge read for a segment's SQL files (their sanitized text, or why one was not read). */
function sqlFilesMarker(shell: PreparedShell, segment: number): string | undefined {
  if (shell.sqlFiles === undefined) return undefined;
  const prefix = `${segment}\u0000`;
  const read = [...shell.sqlFiles].filter(([key]) => key.startsWith(prefix)).sort(([a], [b]) => (a < b ? -1 : 1));
  return read.length === 0 ? undefined : `[sql-files xxh3:${xxh3Hex(JSON.stringify(read))}]`;
}

function shellSubject(call: ToolCall, shell: PreparedShell, projectRoot: string | undefined): CallSubject | undefined {
  if (!shell.parse.ok || shell.parse.segments.length === 0) return undefined;
  if (shell.targets.some((t) => t === null) || shell.writes.unknown.length > 0) return undefined;
  const segments: Sanitized[] = [];
  const markers: string[] = [];
  const commands: Sanitized[] = [];
  let similar = true;
  let text = '';
  // The form is built alongside the text; a segment the catalogue does not account for leaves the call none.
  let form: string | undefined = '';
  const place = { cwd: call.cwd, projectRoot: projectRoot ?? call.cwd, quote };
  for (const [i, segment] of shell.parse.segments.entries()) {
    const line = sanitize(segmentText(segment)).text;
    // Override patterns match the segment as written; the stdin data is the subject's (the key's) business.
    segments.push(line);
    const operator = ` ${segment.operator === '\n' || segment.operator === undefined ? ';' : segment.operator} `;
    if (i > 0) text += operator;
    text += line;
    const shape = projectRoot === undefined ? undefined : segmentForm(segment, shell.catalog[i], place);
    form = form === undefined || shape === undefined ? undefined : `${form}${i > 0 ? operator : ''}${shape}`;
    // Sanitize before anything is derived from the data: the subject text, its digest, the code identity.
    const stdin = segment.stdin === undefined ? undefined : sanitize(segment.stdin);
    const marker = stdin === undefined ? undefined : stdinMarker(segment, stdin.text);
    if (marker !== undefined) {
      markers.push(marker);
      text += ` ${marker}`;
      if (form !== undefined) form += ` ${marker}`;
    }
    // The names similarity compares for equality. `sudo npm` is not `npm` (a wrapper changes what an
    // approval means), `/tmp/x/python3` is not `python3` (the program as written), and a segment that
    // carries code (a script, inline code, stdin data, shell code) names its code's identity too, so that
    // similarity never matches across different code (memory/code.ts).
    // The SQL files a database client reads are what it runs: their content is part of the key and of the
    // name similarity compares, so an approval never carries over to a file that has changed since.
    const files = sqlFilesMarker(shell, i);
    if (files !== undefined) {
      markers.push(files);
      text += ` ${files}`;
      if (form !== undefined) form += ` ${files}`;
    }
    const code = codeIdentity(segment, call.cwd, stdin);
    const name = [...segment.wrappers, segment.argv[0] ?? segment.name].join(' ');
    const entry = [name, code ?? undefined, files].filter((w) => w !== undefined).join(' ');
    const clean = sanitize(entry);
    // Unknown code, or an identity the sanitizer touched (two could then read alike): exact memory only.
    if (code === null || (code !== undefined && clean.findings.length > 0)) similar = false;
    // After a `cd` hookwise cannot follow, no file it names has a place (`cat notes` ~ `cat credentials` in
    // whatever directory that is): exact memory only.
    if (segment.flags.cwdUnknown === true) similar = false;
    commands.push(clean.text);
  }
  const writes = [...new Set(shell.targets.map((t) => t!.absolute))].sort().map((w) => sanitize(w).text);
  if (writes.length > 0) text += `  # writes ${writes.join(' ')}`;
  if (text.length > MAX_SUBJECT) return undefined;
  const subject = sanitize(text).text;
  // The data must reach the key intact: were a marker redacted as a whole, two bodies could share a key.
  if (markers.some((m) => !subject.includes(m))) return undefined;
  const lossy = shell.parse.segments.some((_, i) => segmentLosesData(shell, i, { provenance: false }));
  const out: CallSubject = { tool: shownId(call.tool), text: subject, commands, writes, lossy, similar, segments };
  // A form the sanitizer touched could read alike for two different calls: no generalization then.
  const cleanForm = form === undefined || form.length > MAX_SUBJECT ? undefined : sanitize(form);
  if (cleanForm !== undefined && cleanForm.findings.length === 0 && similar) out.form = cleanForm.text;
  return out;
}

function fileSubject(call: ToolCall, paths: readonly ResolvedPath[]): CallSubject | undefined {
  if (paths.length === 0) return undefined;
  const change = structuralInput(call.tool, call.input)?.key.change ?? FILE_CHANGE_OF_READ[call.tool] ?? call.action;
  const absolute = paths.map((p) => sanitize(p.absolute).text);
  let text = `${change} ${absolute.join(' ')}`;
  // What is searched for is part of a Grep/Glob call; what is written never is (content is not a key).
  if (call.action === 'read' && typeof call.input.pattern === 'string') text += ` ${quote(call.input.pattern)}`;
  if (text.length > MAX_SUBJECT) return undefined;
  const writes = call.action === 'write' ? absolute : [];
  // A similar path is a different file: approving one write or read says nothing about another.
  const tool = shownId(call.tool);
  return {
    tool,
    text: sanitize(text).text,
    commands: [tool],
    writes,
    lossy: false,
    similar: false,
    segments: [],
  };
}

/** The fields that say what a call is about, for tools where the rest (a prompt) varies every time. */
const SUBJECT_FIELD: Record<string, string> = { WebFetch: 'url', WebSearch: 'query' };

function otherSubject(call: ToolCall): CallSubject | undefined {
  const field = SUBJECT_FIELD[call.tool];
  const value = field === undefined ? undefined : call.input[field];
  const text = typeof value === 'string' ? sanitize(value).text : sanitizedJson(call.input).text;
  if (text.length > MAX_SUBJECT || text.length === 0) return undefined;
  const tool = shownId(call.tool);
  return { tool, text, commands: [tool], writes: [], lossy: false, similar: true, segments: [] };
}

/**
 * Fields of an unknown tool named for free text: a one-word value there (`react`) is a query, not an identifier.
 * A value that looks like a path, URL, SQL or code is judged whatever the field's name.
 */
const FREE_TEXT_FIELDS = new Set([
  'query',
  'q',
  'search',
  'text',
  'body',
  'content',
  'message',
  'title',
  'description',
  'note',
  'comment',
  'prompt',
  'question',
  'topic',
  'thought',
  'instructions',
  'summary',
  'reason',
]);

/**
 * How a field is remembered: `free` (left out: a query, a note's body, the identifier of a thing an unknown
 * reading tool reads), `public web` (a catalogued web-reading tool's public page: any such page), `origin` (a
 * catalogued tool's other URLs), or `value`. See catalog/mcp-learning.ts.
 */
export type RememberedAs = 'free' | 'public web' | 'origin' | 'value';

export function rememberedAs(field: McpField, mcp: PreparedMcp): RememberedAs {
  if (FREE_KINDS.has(field.kind)) return 'free';
  const learns = learnsAcross(mcp);
  if (field.guessed && field.kind === 'identifier')
    return learns.identifiers || FREE_TEXT_FIELDS.has(field.name.toLowerCase()) ? 'free' : 'value';
  if ((field.kind === 'url' || field.kind === 'host') && !field.guessed)
    return field.kind === 'url' && learns.publicWeb && field.values.length > 0 && field.values.every(publicWebPage)
      ? 'public web'
      : 'origin';
  return 'value';
}

/** Whether a field's value is left out of the subject (free for learning). */
export function freeField(field: McpField, mcp: PreparedMcp): boolean {
  return rememberedAs(field, mcp) === 'free';
}

function mcpSubject(call: ToolCall, mcp: PreparedMcp): CallSubject | undefined {
  const parts: string[] = [mcp.match === undefined ? 'mcp' : `mcp ${mcp.match.entry.server}.${mcp.name.tool}`];
  for (const field of mcp.fields) {
    const remembered = rememberedAs(field, mcp);
    if (remembered === 'free') {
      // An unknown tool's field set is its shape; a catalogued tool's optional free fields (a count, a flag) are not.
      if (mcp.match === undefined) parts.push(`${field.name}=*`);
      continue;
    }
    let values: string[];
    if (field.paths !== undefined) values = field.paths.map((p) => p.absolute);
    else if (remembered === 'public web') values = ['<public web page>'];
    else if (remembered === 'origin') values = field.values.map(origin);
    else values = field.values;
    parts.push(`${field.name}=${values.map(quote).join(',')}`);
  }
  const text = sanitize(parts.join(' ')).text;
  if (text.length > MAX_SUBJECT) return undefined;
  // Similarity never decides an MCP call: what carries over is exactly what the subject leaves out.
  const tool = shownId(call.tool);
  return { tool, text, commands: [tool], writes: [], lossy: false, similar: false, segments: [] };
}

/** A URL's origin (scheme, host, port): one approval of a catalogued fetch covers a site, never another one. */
function origin(value: string): string {
  try {
    const url = new URL(/^[a-z][a-z0-9+.-]*:/i.test(value) ? value : `https://${value}`);
    return url.origin === 'null' ? value : url.origin;
  } catch {
    return value;
  }
}
