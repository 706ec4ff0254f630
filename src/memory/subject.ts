/**
 * What decision memory remembers a call by: its normalized, sanitized subject. Never the raw string:
 *
 *   - Bash: the parsed segments (wrappers, `VAR=` assignments, argv, redirections, joined by their
 *     operators), then the canonical write targets — so `git status > ~/.bashrc` can never share a key with
 *     `git status`, and `rm -rf build` run in two projects names two different directories;
 *   - file tools: `<change> <canonical path>` (Write/Edit/… by path and change type, never by content);
 *   - other tools (WebFetch, MCP, …): the URL or query where that is what the call is about, else the
 *     sanitized JSON of the input.
 *
 * The subject is sanitized (secrets → <REDACTED>) before anything hashes, tokenizes or stores it, so two
 * calls that differ only in a secret share a key, and no key or token is derived from a secret.
 * Pure: the shell call was parsed and its targets canonicalized at the edge (shell/prepare.ts).
 */
import type { ResolvedPath, ToolCall } from '../core/tool-call.js';
import { sanitize, sanitizedJson, structuralInput, type Sanitized } from '../sanitize/index.js';
import type { PreparedShell } from '../shell/prepare.js';
import { segmentLosesData } from '../shell/data-loss.js';
import type { Segment } from '../shell/types.js';

export interface CallSubject {
  tool: string;
  /** The normalized, sanitized subject: what is hashed into the key and stored. */
  text: Sanitized;
  /** Shell: each segment's wrappers and command name (`sudo npm`, `git`); file tools and others: the tool. */
  commands: string[];
  /** Canonical write targets (absolute), sanitized. */
  writes: Sanitized[];
  /** The call loses data (deletes, truncates, overwrites): similarity never approves it. */
  lossy: boolean;
  /** Whether similarity (Jaccard) may consider this call at all. */
  similar: boolean;
  /** Per shell segment, the normalized text an override pattern is matched against. */
  segments: Sanitized[];
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
  if (segment.flags.remote !== undefined) parts.push(`[ssh ${quote(segment.flags.remote)}]`);
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
export function callSubject(call: ToolCall, paths: readonly ResolvedPath[], shell: PreparedShell | undefined): CallSubject | undefined {
  switch (call.action) {
    case 'shell':
      return shell === undefined ? undefined : shellSubject(call, shell);
    case 'write':
    case 'read':
      return fileSubject(call, paths);
    case 'other':
      return otherSubject(call);
  }
}

function shellSubject(call: ToolCall, shell: PreparedShell): CallSubject | undefined {
  if (!shell.parse.ok || shell.parse.segments.length === 0) return undefined;
  if (shell.targets.some((t) => t === null) || shell.writes.unknown.length > 0) return undefined;
  const segments: Sanitized[] = [];
  let text = '';
  shell.parse.segments.forEach((segment, i) => {
    const line = sanitize(segmentText(segment)).text;
    segments.push(line);
    if (i > 0) text += ` ${segment.operator === '\n' || segment.operator === undefined ? ';' : segment.operator} `;
    text += line;
  });
  const writes = [...new Set(shell.targets.map((t) => t!.absolute))].sort().map((w) => sanitize(w).text);
  if (writes.length > 0) text += `  # writes ${writes.join(' ')}`;
  if (text.length > MAX_SUBJECT) return undefined;
  const lossy = shell.parse.segments.some((_, i) => segmentLosesData(shell, i));
  // `sudo npm` is not `npm`: a wrapper changes what an approval means, so it is part of the name compared.
  const commands = shell.parse.segments.map((s) => [...s.wrappers, s.name].join(' '));
  return { tool: call.tool, text: sanitize(text).text, commands, writes, lossy, similar: true, segments };
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
  return { tool: call.tool, text: sanitize(text).text, commands: [call.tool], writes, lossy: false, similar: false, segments: [] };
}

/** The fields that say what a call is about, for tools where the rest (a prompt) varies every time. */
const SUBJECT_FIELD: Record<string, string> = { WebFetch: 'url', WebSearch: 'query' };

function otherSubject(call: ToolCall): CallSubject | undefined {
  const field = SUBJECT_FIELD[call.tool];
  const value = field === undefined ? undefined : call.input[field];
  const text = typeof value === 'string' ? sanitize(value).text : sanitizedJson(call.input).text;
  if (text.length > MAX_SUBJECT || text.length === 0) return undefined;
  return { tool: call.tool, text, commands: [call.tool], writes: [], lossy: false, similar: true, segments: [] };
}
