/**
 * A small schema walker over the YAML AST. Why not a generic validator: we want every problem reported
 * with file, line and the dotted field path, plus "did you mean" for misspelt keys — an unknown key is an
 * error, because a typo like `deny_writes` would otherwise silently weaken policy (fail open).
 */
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node } from 'yaml';

export interface Diagnostic {
  severity: 'error' | 'warning';
  file: string;
  line: number;
  field: string;
  problem: string;
  suggestion?: string;
}

export function formatDiagnostic(d: Diagnostic): string {
  const hint = d.suggestion === undefined ? '' : ` (${d.suggestion})`;
  return `${d.file}:${d.line}: ${d.severity}: ${d.field === '' ? '' : `${d.field}: `}${d.problem}${hint}`;
}

export type Schema =
  | { type: 'string'; nonEmpty?: boolean }
  | { type: 'number'; min?: number; max?: number; integer?: boolean }
  | { type: 'boolean' }
  /** A time span: a number of seconds, or text like `90s`, `2m`, `1500ms`; the value is milliseconds. */
  | { type: 'duration'; minMs: number; maxMs: number }
  | { type: 'enum'; values: readonly string[] }
  | { type: 'list'; of: Schema }
  | { type: 'object'; fields: Record<string, Schema> }
  | { type: 'map'; of: Schema; keyPattern?: RegExp; keyHint?: string };

export interface Parsed {
  value: unknown;
  /** Dotted field path (`roles.coder.paths.deny_write[2]`) → 1-based line, for provenance. */
  lines: Map<string, number>;
}

/** Parse and validate one YAML text; problems go to `diagnostics`, never thrown. */
export function parseYaml(text: string, file: string, schema: Schema, diagnostics: Diagnostic[]): Parsed {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const lines = new Map<string, number>();
  for (const error of doc.errors) {
    const line = error.linePos?.[0]?.line ?? lineCounter.linePos(error.pos[0]).line;
    diagnostics.push({ severity: 'error', file, line, field: '', problem: `YAML syntax: ${firstLine(error.message)}` });
  }
  if (doc.errors.length > 0) return { value: undefined, lines };
  const lineOf = (node: Node | null | undefined): number =>
    node?.range === undefined || node.range === null ? 1 : lineCounter.linePos(node.range[0]).line;

  function walk(node: Node | null, s: Schema, field: string): unknown {
    const line = lineOf(node);
    lines.set(field, line);
    const problem = (text: string, suggestion?: string): undefined => {
      diagnostics.push(
        suggestion === undefined
          ? { severity: 'error', file, line, field, problem: text }
          : { severity: 'error', file, line, field, problem: text, suggestion },
      );
      return undefined;
    };
    if (node === null || (isScalar(node) && node.value === null)) {
      // An empty value: an empty list/map is fine; an empty scalar is not.
      if (s.type === 'list') return [];
      if (s.type === 'object' || s.type === 'map') return {};
      return problem(`a value is required (${describeSchema(s)})`);
    }
    switch (s.type) {
      case 'string': {
        if (!isScalar(node) || typeof node.value !== 'string') return problem(`expected a string, got ${kindOf(node)}`);
        if (s.nonEmpty === true && node.value.trim() === '') return problem('must not be empty');
        return node.value;
      }
      case 'number': {
        if (!isScalar(node) || typeof node.value !== 'number') return problem(`expected a number, got ${kindOf(node)}`);
        if (s.integer === true && !Number.isInteger(node.value)) return problem('expected a whole number');
        if (s.min !== undefined && node.value < s.min) return problem(`must be at least ${s.min}`);
        if (s.max !== undefined && node.value > s.max) return problem(`must be at most ${s.max}`);
        return node.value;
      }
      case 'boolean': {
        if (!isScalar(node) || typeof node.value !== 'boolean')
          return problem(`expected true or false, got ${kindOf(node)}`);
        return node.value;
      }
      case 'duration': {
        const ms = isScalar(node) ? parseDuration(node.value) : undefined;
        if (ms === undefined)
          return problem(`expected a duration (seconds, or like 60s, 2m, 1500ms, 1h), got ${kindOf(node)}`);
        if (ms < s.minMs) return problem(`must be at least ${showMs(s.minMs)}`);
        if (ms > s.maxMs) return problem(`must be at most ${showMs(s.maxMs)}`);
        return ms;
      }
      case 'enum': {
        if (!isScalar(node) || typeof node.value !== 'string' || !s.values.includes(node.value)) {
          const got = isScalar(node) ? JSON.stringify(node.value) : kindOf(node);
          return problem(`expected one of ${s.values.join(', ')}, got ${got}`);
        }
        return node.value;
      }
      case 'list': {
        if (!isSeq(node)) return problem(`expected a list, got ${kindOf(node)}`);
        const out: unknown[] = [];
        node.items.forEach((item, i) => {
          const v = walk(item as Node | null, s.of, `${field}[${i}]`);
          if (v !== undefined) out.push(v);
        });
        return out;
      }
      case 'object':
      case 'map': {
        if (!isMap(node)) return problem(`expected a mapping, got ${kindOf(node)}`);
        const out: Record<string, unknown> = {};
        for (const pair of node.items) {
          const keyNode = pair.key as Node | null;
          const key = isScalar(keyNode) ? String(keyNode.value) : '';
          const childField = field === '' ? key : `${field}.${key}`;
          if (s.type === 'object') {
            const child = s.fields[key];
            if (child === undefined) {
              lines.set(childField, lineOf(keyNode));
              diagnostics.push(
                withSuggestion(
                  { severity: 'error', file, line: lineOf(keyNode), field: childField, problem: 'unknown field' },
                  key,
                  Object.keys(s.fields),
                ),
              );
              continue;
            }
            const v = walk(pair.value as Node | null, child, childField);
            if (v !== undefined) out[key] = v;
          } else {
            if (s.keyPattern !== undefined && !s.keyPattern.test(key)) {
              diagnostics.push({
                severity: 'error',
                file,
                line: lineOf(keyNode),
                field: childField,
                problem: `invalid name "${key}"`,
                ...(s.keyHint === undefined ? {} : { suggestion: s.keyHint }),
              });
              continue;
            }
            const v = walk(pair.value as Node | null, s.of, childField);
            if (v !== undefined) out[key] = v;
          }
        }
        return out;
      }
    }
  }

  const root = doc.contents as Node | null;
  if (root === null) return { value: {}, lines };
  return { value: walk(root, schema, ''), lines };
}

/** `90s`, `10m`, `1h`, `1500ms`, or a number of seconds: a duration in milliseconds (undefined: not a duration). */
export function parseDuration(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value > 0 ? value * 1000 : undefined;
  if (typeof value !== 'string') return undefined;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(value);
  if (m === null) return undefined;
  const n = Number(m[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
  return n > 0 ? n : undefined;
}

/** Milliseconds as the shortest unit that says them exactly (60000 → 60s). */
export function showMs(ms: number): string {
  if (ms % 60_000 === 0 && ms >= 60_000 * 5) return `${ms / 60_000}m`;
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

function withSuggestion(d: Diagnostic, key: string, known: string[]): Diagnostic {
  const best = closest(key, known);
  return best === undefined
    ? { ...d, suggestion: `known fields: ${known.join(', ')}` }
    : { ...d, suggestion: `did you mean "${best}"?` };
}

/** The known name within edit distance 3 of `word`, if any. */
export function closest(word: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 4;
  for (const candidate of known) {
    const d = editDistance(word, candidate);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length]!;
}

function kindOf(node: Node): string {
  if (isMap(node)) return 'a mapping';
  if (isSeq(node)) return 'a list';
  if (isScalar(node)) return node.value === null ? 'nothing' : `${typeof node.value} ${JSON.stringify(node.value)}`;
  return 'something else';
}

function describeSchema(s: Schema): string {
  return s.type === 'enum' ? `one of ${s.values.join(', ')}` : s.type === 'duration' ? 'a duration, like 60s' : s.type;
}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? text;
}
