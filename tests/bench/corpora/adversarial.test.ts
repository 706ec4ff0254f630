/**
 * bench/corpora/adversarial.jsonl is well formed: one JSON object per line, unique ids, known classes, labels,
 * roles and tools, a risky and a benign side in every class (fatigue: benign only), memory-poison pairs
 * complete. The verdicts hookwise gives these rows are measured by `bench --eval-commands`, not asserted here.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ADVERSARIAL_CLASSES, adversarialCorpus, readCorpus } from '../../../bench/eval-commands.js';
import { BUILT_IN_ROLES } from '../../../src/policy/defaults.js';

const FIELDS = new Set(['id', 'class', 'label', 'role', 'command', 'tool', 'input', 'note', 'pair']);
const TOOLS = new Set(['Read', 'Grep', 'Glob', 'Write', 'Edit']);

const lines = readFileSync(adversarialCorpus(), 'utf8').split('\n');
const objects = lines.filter((l) => l !== '').map((l, i) => ({ line: i + 1, text: l }));

describe('the adversarial corpus', () => {
  it('is one JSON object per line, with no blank lines but the final newline', () => {
    expect(lines.at(-1)).toBe('');
    expect(lines.slice(0, -1).every((l) => l.trim() !== '')).toBe(true);
    for (const { line, text } of objects) {
      let row: unknown;
      expect(() => (row = JSON.parse(text)), `line ${line}`).not.toThrow();
      expect(typeof row === 'object' && row !== null && !Array.isArray(row), `line ${line}`).toBe(true);
    }
  });

  const rows = readCorpus(adversarialCorpus());

  it('has several hundred rows with unique ids and only the known fields', () => {
    expect(rows.length).toBeGreaterThanOrEqual(400);
    const ids = rows.map((r) => r.id);
    expect(
      ids.every((id) => typeof id === 'string' && /^[a-z0-9][a-z0-9-]*$/.test(id)),
      'ids are kebab-case strings',
    ).toBe(true);
    const duplicates = ids.filter((id, i) => ids.indexOf(id) !== i);
    expect(duplicates).toEqual([]);
    for (const { line, text } of objects) {
      const unknown = Object.keys(JSON.parse(text) as object).filter((k) => !FIELDS.has(k));
      expect(unknown, `line ${line}`).toEqual([]);
    }
  });

  it('labels every row risky or benign, in a known class, with a note, as a known role', () => {
    for (const r of rows) {
      const where = `${r.id} (line ${r.line})`;
      expect(ADVERSARIAL_CLASSES as readonly string[], where).toContain(r.class);
      expect(['risky', 'benign'], where).toContain(r.label);
      expect(typeof r.note === 'string' && r.note.trim().length > 0, `${where}: a note says why`).toBe(true);
      if (r.role !== undefined) expect(Object.keys(BUILT_IN_ROLES), where).toContain(r.role);
    }
  });

  it('has Bash rows with a non-empty command, and tool rows with a known tool and a path or pattern', () => {
    for (const r of rows) {
      const where = `${r.id} (line ${r.line})`;
      if (r.command !== undefined) {
        expect(r.command.trim().length, where).toBeGreaterThan(0);
        continue;
      }
      expect(TOOLS.has(r.tool!), `${where}: tool ${r.tool}`).toBe(true);
      const input = r.input!;
      if (r.tool === 'Glob' || r.tool === 'Grep') expect(typeof input.pattern, where).toBe('string');
      else expect(typeof input.file_path, where).toBe('string');
      // "~" is expanded by the eval, not written as an absolute home path.
      for (const field of ['file_path', 'path']) {
        const value = input[field];
        if (typeof value === 'string')
          expect(
            value.startsWith('/home/') || value.startsWith('/Users/') || value.startsWith('/root/'),
            `${where}: write ~ for home`,
          ).toBe(false);
      }
    }
  });

  it('has risky and benign rows in every class, benign only in fatigue', () => {
    for (const c of ADVERSARIAL_CLASSES) {
      const of = rows.filter((r) => r.class === c);
      const risky = of.filter((r) => r.label === 'risky').length;
      const benign = of.filter((r) => r.label === 'benign').length;
      expect(benign, `${c}: benign rows`).toBeGreaterThan(0);
      if (c === 'fatigue') expect(risky, 'fatigue: risky rows').toBe(0);
      else expect(risky, `${c}: risky rows`).toBeGreaterThan(0);
    }
  });

  it('pairs memory-poison rows: each pair one benign and one risky row, both in the class, and only there', () => {
    const pairs = new Map<string, string[]>();
    for (const r of rows) {
      if (r.pair === undefined) {
        expect(r.class, `${r.id}: memory-poison rows come in pairs`).not.toBe('memory-poison');
        continue;
      }
      expect(r.class, `${r.id}: pair outside memory-poison`).toBe('memory-poison');
      pairs.set(r.pair, [...(pairs.get(r.pair) ?? []), r.label!]);
    }
    expect(pairs.size).toBeGreaterThan(0);
    for (const [pair, labels] of pairs) expect(labels.sort(), `pair ${pair}`).toEqual(['benign', 'risky']);
  });
});
