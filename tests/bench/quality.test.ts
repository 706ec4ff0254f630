/**
 * The README's quality table: the section `hookwise bench --quality-table` writes between its markers is there
 * and in the form that command writes (not its figures, which move with every change to the decisions), and
 * rendering, reading back and replacing the section are exact inverses.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  parseQualitySection,
  QUALITY_END,
  QUALITY_START,
  renderQualitySection,
  replaceQualitySection,
  stepRow,
  stepTimeFile,
  type QualityTable,
} from '../../bench/quality.js';
import { packageRoot } from '../../src/util/package-root.js';

const table: QualityTable = {
  measured: 'Measured 2026-11-28 on 2 CPUs (a test CPU), Node v20.0.0',
  rows: [
    {
      what: 'Adversarial corpus: risky calls allowed (target 0)',
      figure: '0 of 400 (0.0 %)',
      command: 'hookwise bench --eval-commands',
    },
    { what: 'a figure with a | in it', figure: '1 | 2', command: 'hookwise sanitize --eval builtin' },
  ],
};

describe('the README quality section', () => {
  const readme = readFileSync(join(packageRoot(), 'README.md'), 'utf8');

  it('is in the README once, between its markers, in the form bench --quality-table writes', () => {
    expect(readme.split(QUALITY_START)).toHaveLength(2);
    expect(readme.split(QUALITY_END)).toHaveLength(2);
    const parsed = parseQualitySection(readme);
    expect(parsed, 'the section between the markers is not what renderQualitySection writes').toBeDefined();
    expect(renderQualitySection(parsed!)).toBe(
      readme.slice(readme.indexOf(QUALITY_START), readme.indexOf(QUALITY_END) + QUALITY_END.length),
    );
  });

  it('has the rows the issue asks for, each with the command that reproduces it', () => {
    const rows = parseQualitySection(readme)!.rows;
    for (const what of [
      /^Adversarial corpus: risky calls allowed/,
      /^Adversarial corpus: benign calls asked/,
      /^Development workload/,
      /^Secrets, built-in corpus: recall/,
      /Claude Code tool call/,
    ])
      expect(
        rows.some((r) => what.test(r.what)),
        String(what),
      ).toBe(true);
    for (const r of rows) expect(r.command).toMatch(/^([A-Z0-9_]+=\S+ )*(hookwise |npx vitest run )/);
  });
});

describe('rendering and replacing the section', () => {
  it('reads back what it renders, a | in a cell included', () => {
    expect(parseQualitySection(`# x\n\n${renderQualitySection(table)}\n\nmore\n`)).toEqual(table);
  });

  it('replaces only what lies between the markers, and says so when they are missing', () => {
    const before = `# title\n\nintro\n\n${QUALITY_START}\nold text\n${QUALITY_END}\n\n## Docs\n`;
    const after = replaceQualitySection(before, renderQualitySection(table));
    expect(after.startsWith('# title\n\nintro\n\n')).toBe(true);
    expect(after.endsWith('\n\n## Docs\n')).toBe(true);
    expect(parseQualitySection(after)).toEqual(table);
    expect(() => replaceQualitySection('# no markers\n', 'x')).toThrow(/has no quality section/);
    expect(parseQualitySection(before)).toBeUndefined();
  });

  it('the step row gives the ratio of the installed wiring, the floor of an http hook and the load it was measured at', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookwise-quality-'));
    try {
      const file = join(dir, 'step-time.json');
      writeFileSync(
        file,
        JSON.stringify({
          date: '2026-11-28T13:55:11.528Z',
          claudeCode: '2.1.330',
          hookedMs: 52.4,
          bareMs: 50,
          steps: 100,
          floorMs: 52,
          load: { average: 0.42, cpus: 2 },
        }),
      );
      const { row, kept } = stepRow(undefined, file);
      expect(kept).toBe(false);
      expect(row.figure).toBe(
        '1.05× (52 vs 50 ms, median of 100 steps; an http hook to a server that answers at once: 1.04×, Claude Code 2.1.330, 2026-11-28, load average 0.4 on 2 CPUs)',
      );
      expect(row.command).toMatch(/npx vitest run tests\/e2e\/daemon-wiring\.test\.ts -t "step time"$/);
      // Without a record, a figure the README already had is kept.
      rmSync(file);
      expect(stepRow({ measured: '', rows: [row] }, file)).toEqual({ row, kept: true });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the step-time record lives in the e2e cache, which HOOKWISE_E2E_CACHE_DIR moves', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookwise-quality-'));
    const saved = process.env.HOOKWISE_E2E_CACHE_DIR;
    try {
      process.env.HOOKWISE_E2E_CACHE_DIR = dir;
      expect(stepTimeFile('/repo')).toBe(join(dir, 'step-time.json'));
      delete process.env.HOOKWISE_E2E_CACHE_DIR;
      expect(stepTimeFile('/repo')).toBe('/repo/node_modules/.cache/hookwise-e2e/step-time.json');
    } finally {
      if (saved === undefined) delete process.env.HOOKWISE_E2E_CACHE_DIR;
      else process.env.HOOKWISE_E2E_CACHE_DIR = saved;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
