import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileMcpCatalogue, renderMcpTable } from '../../src/catalog/mcp-compile.js';

const DIR = 'src/catalog/mcp';
const sources = () =>
  readdirSync(DIR)
    .filter((f) => f.endsWith('.yml'))
    .map((f) => ({ file: `${DIR}/${f}`, text: readFileSync(join(DIR, f), 'utf8') }));

describe('MCP catalogue compiler', () => {
  it('compiles every shipped entry without a problem, and the committed table is up to date', () => {
    const { servers, diagnostics } = compileMcpCatalogue(sources());
    expect(diagnostics).toEqual([]);
    expect(servers.map((s) => s.server)).toEqual(
      expect.arrayContaining(['filesystem', 'fetch', 'git', 'memory', 'sequential-thinking', 'time', 'github']),
    );
    // scripts/build.mjs regenerates it; a stale committed table would judge with yesterday's entries.
    expect(readFileSync('src/catalog/mcp-table.generated.ts', 'utf8')).toBe(renderMcpTable(servers));
  });

  it('every entry names its source, and its file is named after its server', () => {
    for (const s of compileMcpCatalogue(sources()).servers) {
      expect(s.source.length, s.file).toBeGreaterThan(10);
      expect(s.file).toBe(`${DIR}/${s.server}.yml`);
    }
  });

  it.each([
    [
      'an unknown field kind',
      'server: x\nsource: docs\ntools:\n  t: { effect: reads-local, fields: { p: filepath } }\n',
      /tools\.t\.fields\.p.*filepath/,
    ],
    ['an unknown effect', 'server: x\nsource: docs\ntools:\n  t: { effect: deletes, fields: {} }\n', /deletes/],
    ['a missing source', 'server: x\ntools:\n  t: { effect: none, fields: {} }\n', /source/],
    ['a tool without fields', 'server: x\nsource: docs\ntools:\n  t: { effect: none }\n', /fields/],
    ['a server named unlike its file', 'server: y\nsource: docs\ntools: {}\n', /one file per server/],
  ])('reports %s with file and line', (_what, text, problem) => {
    const { diagnostics } = compileMcpCatalogue([{ file: 'src/catalog/mcp/x.yml', text }]);
    expect(diagnostics.length).toBeGreaterThan(0);
    expect(diagnostics.map((d) => `${d.field} ${d.problem}`).join('\n')).toMatch(problem);
    expect(diagnostics[0]!.file).toBe('src/catalog/mcp/x.yml');
  });

  it('a name two servers claim is reported', () => {
    const a = { file: 'src/catalog/mcp/a.yml', text: 'server: a\naliases: [db]\nsource: docs\ntools: {}\n' };
    const b = { file: 'src/catalog/mcp/b.yml', text: 'server: b\naliases: [db]\nsource: docs\ntools: {}\n' };
    expect(
      compileMcpCatalogue([a, b])
        .diagnostics.map((d) => d.problem)
        .join(),
    ).toMatch(/"db" already names/);
  });
});
