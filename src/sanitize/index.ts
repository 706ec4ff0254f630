/**
 * The sanitizer: secrets in tool inputs become `<REDACTED>` before anything is cached, stored, logged,
 * embedded or sent to a supervisor.
 *
 * `Sanitized` is a branded string: the only way to obtain one is through this module, whose every exit
 * runs `sanitize()`. Persistence points take `Sanitized` (a type error otherwise) and can re-check at
 * run time with `assertSanitized`, in case someone cast their way around the type.
 */
import { HookwiseError } from '../core/errors.js';
import { detect, detectBounded } from './detect.js';
import { documentedExamplesIn, isPlaceholder, isSecretName } from './heuristics.js';
import { SpanIndex } from './spans.js';
import { REDACTED, type Finding } from './types.js';

export { LAYERS, REDACTED, type Finding, type Layer } from './types.js';

declare const SANITIZED: unique symbol;
/** A string that went through `sanitize()`. */
export type Sanitized = string & { readonly [SANITIZED]: true };

export interface SanitizeResult {
  text: Sanitized;
  /** Spans in the input text, sorted by start (they may overlap; the redaction covers their union). */
  findings: Finding[];
}

/** Redacts every secret in `text`. Idempotent: sanitizing the output again finds nothing. */
export function sanitize(text: string): SanitizeResult {
  if (text.length > MEMO_MAX_CHARS) return sanitizeNow(text);
  const held = memo.get(text);
  if (held !== undefined) return { text: held.text, findings: held.findings.slice() };
  const result = sanitizeNow(text);
  if (memo.size >= MEMO_ENTRIES) memo.delete(memo.keys().next().value!);
  memo.set(text, { text: result.text, findings: result.findings.slice() });
  return result;
}

function sanitizeNow(text: string): SanitizeResult {
  const findings = detectBounded(text);
  return { text: redact(text, findings) as Sanitized, findings };
}

/**
 * sanitize() is a pure function of the text (the patterns are built in), and in a long-lived process the same
 * short texts come back call after call — a session id, a tool name, the project root, a path, a command an
 * agent repeats — each sanitized several times per decision (the memory subject, the audit line and its
 * checks). Their results are kept: texts up to MEMO_MAX_CHARS, the oldest of MEMO_ENTRIES dropped first, so
 * the memory it holds stays bounded (a few MB at most).
 */
const MEMO_MAX_CHARS = 512;
const MEMO_ENTRIES = 4096;
const memo = new Map<string, SanitizeResult>();

/** A value the sanitizer saw and kept on purpose, and why (a provider's documented example key). */
export interface KeptOnPurpose {
  value: string;
  start: number;
  end: number;
  why: string;
}

/**
 * What `sanitize` left in the text on purpose: the documented example keys (AWS's `AKIAIOSFODNN7EXAMPLE`, …)
 * that no finding covers. They are public and never issued, so keeping them loses nothing; saying so tells a
 * user why a key-shaped string survived.
 */
export function keptOnPurpose(text: string, findings: readonly Finding[]): KeptOnPurpose[] {
  const redacted = SpanIndex.of(findings);
  return documentedExamplesIn(text)
    .filter((hit) => !redacted.covers(hit.start, hit.end))
    .map((hit) => ({
      value: hit.value,
      start: hit.start,
      end: hit.end,
      why: `${hit.what}, published at ${hit.source} and never issued to anyone`,
    }));
}

/** Findings only (for callers that refuse to store text instead of storing a redacted copy, and `scan`). */
export function findSecrets(text: string): Finding[] {
  return detect(text);
}

/** Replaces the union of the findings' spans with REDACTED. */
export function redact(text: string, findings: readonly Finding[]): string {
  if (findings.length === 0) return text;
  let out = '';
  let at = 0;
  let spanStart = -1;
  let spanEnd = -1;
  for (const f of findings) {
    // findings are sorted by start: merge overlapping and touching spans into one marker
    if (spanEnd >= 0 && f.start <= spanEnd) {
      spanEnd = Math.max(spanEnd, f.end);
      continue;
    }
    if (spanEnd >= 0) {
      out += text.slice(at, spanStart) + REDACTED;
      at = spanEnd;
    }
    spanStart = f.start;
    spanEnd = f.end;
  }
  out += text.slice(at, spanStart) + REDACTED + text.slice(spanEnd);
  return out;
}

/** Run-time guard for persistence points: refuses text in which the detectors still find a secret. */
export function assertSanitized(text: Sanitized, where: string): Sanitized {
  // A text sanitize() has already seen and found nothing in needs no second look.
  if (memo.get(text)?.findings.length === 0) return text;
  const left = detect(text);
  if (left.length > 0) {
    throw new HookwiseError(
      'INTERNAL',
      `refusing to write to ${where}: the text still holds ${left.length} secret(s) (${[...new Set(left.map((f) => f.rule))].join(', ')}); it was not produced by sanitize()`,
    );
  }
  return text;
}

// ── JSON values ──────────────────────────────────────────────────────────────────────────────────────────

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** A finding inside a JSON value: `path` is a JSON Pointer to the string (or key) it was found in. */
export interface ValueFinding extends Finding {
  path: string;
  /** The finding is in an object key, not in a value. */
  inKey?: boolean;
}

export interface SanitizedValue {
  /** The same shape with every string (keys included) sanitized. */
  value: JsonValue;
  findings: ValueFinding[];
}

/** Deeper than this, a value is replaced as a whole (no tool input nests this deep; a hostile one might). */
const MAX_VALUE_DEPTH = 64;

/**
 * Sanitizes every string in a JSON value (a tool input): values, array items and object keys. A string
 * under a key that names a secret (`password`, `apiKey`, `client_secret`, …) is redacted as a whole, because
 * without its key the value carries no context the detectors could see. Non-JSON leaves (functions,
 * symbols, bigint, undefined) are dropped, as JSON.stringify would.
 */
export function sanitizeValue(input: unknown): SanitizedValue {
  const findings: ValueFinding[] = [];
  const value = walk(input, '', 0, false, findings);
  return { value: value === undefined ? null : value, findings };
}

function walk(
  node: unknown,
  path: string,
  depth: number,
  secretKey: boolean,
  findings: ValueFinding[],
): JsonValue | undefined {
  if (depth > MAX_VALUE_DEPTH) {
    findings.push({ rule: 'too-deep', layer: 'pattern', start: 0, end: 0, path });
    return REDACTED;
  }
  if (typeof node === 'string') {
    if (secretKey && !isPlaceholder(node)) {
      findings.push({ rule: 'secret-field', layer: 'pattern', start: 0, end: node.length, path });
      return REDACTED;
    }
    const found = detectBounded(node);
    for (const f of found) findings.push({ ...f, path });
    return redact(node, found);
  }
  if (typeof node === 'number') return Number.isFinite(node) ? node : null;
  if (typeof node === 'boolean' || node === null) return node;
  if (Array.isArray(node))
    return node.map((item, i) => walk(item, `${path}/${i}`, depth + 1, secretKey, findings) ?? null);
  if (typeof node === 'object') {
    const out: { [key: string]: JsonValue } = {};
    for (const [key, child] of Object.entries(node as Record<string, unknown>)) {
      const keyPath = `${path}/${pointerEscape(key)}`;
      const keyFindings = detect(key);
      for (const f of keyFindings) findings.push({ ...f, path: keyPath, inKey: true });
      const safeKey = redact(key, keyFindings);
      const value = walk(child, keyPath, depth + 1, isSecretName(key), findings);
      if (value !== undefined) out[safeKey] = value;
    }
    return out;
  }
  return undefined;
}

const pointerEscape = (key: string): string => key.replaceAll('~', '~0').replaceAll('/', '~1');

/** JSON text of a sanitized value (e.g. one JSONL record), as a Sanitized string. */
export function sanitizedJson(input: unknown): { text: Sanitized; findings: ValueFinding[] } {
  const { value, findings } = sanitizeValue(input);
  return { text: JSON.stringify(value) as Sanitized, findings };
}

// ── file tools: judged and remembered by (path, change), never by content ─────────────────────────────────

export const FILE_CHANGES = [
  'create',
  'overwrite',
  'write',
  'edit',
  'edit-all',
  'multi-edit',
  'notebook-replace',
  'notebook-insert',
  'notebook-delete',
] as const;
export type FileChange = (typeof FILE_CHANGES)[number];

export interface StructuralKey {
  tool: string;
  /** The target path, sanitized (paths rarely hold secrets, but a path is stored like any other text). */
  path: Sanitized;
  change: FileChange;
}

export interface StructuralInput {
  key: StructuralKey;
  /** Secrets found in the content (file text, old/new strings, notebook source). Never stored: callers refuse to keep content at all. */
  contentFindings: ValueFinding[];
}

const FILE_TOOLS: Record<string, { pathField: string; contentFields: readonly string[] }> = {
  Write: { pathField: 'file_path', contentFields: ['content'] },
  Edit: { pathField: 'file_path', contentFields: ['old_string', 'new_string'] },
  MultiEdit: { pathField: 'file_path', contentFields: ['edits'] },
  NotebookEdit: { pathField: 'notebook_path', contentFields: ['new_source', 'old_source'] },
};

/**
 * For Write / Edit / MultiEdit / NotebookEdit: the structural key the cascade judges and remembers instead
 * of the input. `exists` (whether the target file exists, if the caller checked) refines a Write into
 * `create` or `overwrite`. Returns undefined for every other tool.
 */
export function structuralInput(
  tool: string,
  input: Record<string, unknown>,
  options: { exists?: boolean } = {},
): StructuralInput | undefined {
  const shape = FILE_TOOLS[tool];
  if (shape === undefined) return undefined;
  const rawPath = input[shape.pathField];
  const path = sanitize(typeof rawPath === 'string' ? rawPath : '').text;
  const contentFindings: ValueFinding[] = [];
  for (const field of shape.contentFields) {
    if (input[field] === undefined) continue;
    for (const f of sanitizeValue(input[field]).findings) contentFindings.push({ ...f, path: `/${field}${f.path}` });
  }
  return { key: { tool, path, change: changeOf(tool, input, options.exists) }, contentFindings };
}

function changeOf(tool: string, input: Record<string, unknown>, exists: boolean | undefined): FileChange {
  switch (tool) {
    case 'Write':
      return exists === undefined ? 'write' : exists ? 'overwrite' : 'create';
    case 'Edit':
      return input.replace_all === true ? 'edit-all' : 'edit';
    case 'MultiEdit':
      return 'multi-edit';
    default: {
      const mode = input.edit_mode;
      return mode === 'insert' ? 'notebook-insert' : mode === 'delete' ? 'notebook-delete' : 'notebook-replace';
    }
  }
}
