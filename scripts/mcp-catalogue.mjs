// The MCP catalogue's build step (issue 29): src/catalog/mcp/<server>.yml → src/catalog/mcp-table.generated.ts,
// through the same compiler the tests run (src/catalog/mcp-compile.ts, bundled on the fly by esbuild). Kept
// apart from the program catalogue's step so the two change independently. The generated file is committed
// (tests and type checks run without a build); tests/catalog/mcp-compile.test.ts fails when it is stale.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';

export const MCP_DIR = 'src/catalog/mcp';
export const MCP_TABLE = 'src/catalog/mcp-table.generated.ts';

/** Compiles the entries; returns false (after printing every problem with file and line) when one is wrong. */
export async function buildMcpCatalogue(build) {
  const tmp = mkdtempSync(join(tmpdir(), 'hookwise-mcp-'));
  try {
    const out = join(tmp, 'mcp-compile.cjs');
    await build({
      entryPoints: ['src/catalog/mcp-compile.ts'],
      outfile: out,
      bundle: true,
      format: 'cjs',
      platform: 'node',
      target: 'node20',
      logLevel: 'warning',
      logOverride: { 'empty-import-meta': 'silent' },
    });
    const { compileMcpCatalogue, renderMcpTable } = createRequire(import.meta.url)(out);
    const sources = readdirSync(MCP_DIR)
      .filter((f) => f.endsWith('.yml'))
      .map((f) => ({ file: `${MCP_DIR}/${f}`, text: readFileSync(join(MCP_DIR, f), 'utf8') }));
    const { servers, diagnostics } = compileMcpCatalogue(sources);
    for (const d of diagnostics) console.error(`${d.file}:${d.line}: ${d.severity}: ${d.field}: ${d.problem}`);
    if (diagnostics.some((d) => d.severity === 'error')) return false;
    const text = renderMcpTable(servers);
    let current = '';
    try {
      current = readFileSync(MCP_TABLE, 'utf8');
    } catch {
      // first build: no table yet
    }
    if (current !== text) writeFileSync(MCP_TABLE, text);
    return true;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
