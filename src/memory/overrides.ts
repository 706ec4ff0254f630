/**
 * Explicit overrides (`hookwise override`): a human's standing decision for a pattern of calls, stored in
 * the decision store like any record (tier `override`, subject `Tool` or `Tool(pattern)`).
 *
 * Patterns: for Bash, a glob over each segment's normalized text (`*` any text, `?` one character:
 * `npm run *`, `git push origin feature/*`); for file tools, a path glob over the root-relative path (or
 * the absolute path outside the root: `*` within a directory, `**` across); for other tools, a glob over the
 * subject (a URL, a query, the input's JSON). No pattern: every call of the tool.
 *
 * The tiers that apply them are memory/override-tiers.ts.
 */
import { lazyRe2, type RE2 } from '../util/re2.js';
import { xxh3Hex } from '../util/xxhash.js';
import type { LoadedRecord } from './store.js';

export interface CompiledOverride {
  record: LoadedRecord;
  tool: string;
  /** The pattern as written, if any. */
  pattern?: string;
  /** Full-match matcher of the pattern (RE2, compiled on first use). */
  matcher?: () => RE2;
}

const SUBJECT = /^([A-Za-z0-9_.*-]+)(?:\((.*)\))?$/s;

/** `Tool` or `Tool(pattern)`: the stored form of an override. */
export function overrideSubject(tool: string, pattern?: string): string {
  return pattern === undefined ? tool : `${tool}(${pattern})`;
}

export function parseOverrideSubject(subject: string): { tool: string; pattern?: string } | undefined {
  const m = SUBJECT.exec(subject);
  if (m === null) return undefined;
  return m[2] === undefined ? { tool: m[1]! } : { tool: m[1]!, pattern: m[2] };
}

/** The store key of an override: one identity per (tool, pattern), so a newer override replaces it. */
export function overrideKey(tool: string, pattern?: string): string {
  return `override:${xxh3Hex(overrideSubject(tool, pattern))}`;
}

const escape = (c: string): string => (/[\\^$.|?*+()[\]{}]/.test(c) ? `\\${c}` : c);

/** A command or text glob: `*` any text, `?` one character. */
export function textGlobSource(glob: string): string {
  let out = '';
  for (const c of glob) out += c === '*' ? '.*' : c === '?' ? '.' : escape(c);
  return `^${out}$`;
}

/** A path glob: `**` across directories, `*` and `?` within one. */
export function pathGlobSource(glob: string): string {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      const slash = glob[i + 2] === '/';
      out += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else out += c === '*' ? '[^/]*' : c === '?' ? '[^/]' : escape(c);
  }
  return `^${out}$`;
}

export function compileOverride(
  record: LoadedRecord,
  fileTool: (tool: string) => boolean,
): CompiledOverride | undefined {
  const parsed = parseOverrideSubject(record.subject);
  if (parsed === undefined) return undefined;
  if (parsed.pattern === undefined) return { record, tool: parsed.tool };
  const source = fileTool(parsed.tool) ? pathGlobSource(parsed.pattern) : textGlobSource(parsed.pattern);
  return { record, tool: parsed.tool, pattern: parsed.pattern, matcher: lazyRe2(source) };
}
