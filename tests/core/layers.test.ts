/**
 * The layers hold (docs/architecture.md): the ground (src/core, src/util) knows no tier — a tier declares the
 * slice of context it reads beside its code and the engine composes them (src/engine/context.ts); the domain
 * (sanitize, shell, the tiers' folders, …) imports neither the engine nor the edges; only the CLI and the
 * daemon import the engine; only the engine and the edges know a host's JSON. Type imports, re-exports and
 * import() count: they tie the design just the same.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '..', '..', 'src');
const GROUND = new Set(['core', 'util']);
const EDGES = new Set(['hosts', 'daemon', 'mcp', 'cli']);
/** Who may import a folder, where that is restricted (a folder not listed: anyone the other rules allow). */
const IMPORTED_ONLY_BY: Record<string, ReadonlySet<string>> = {
  engine: new Set(['engine', 'cli', 'daemon']),
  hosts: new Set(['hosts', 'engine', 'daemon', 'cli']),
  cli: new Set(['cli']),
};

/** Every module specifier a TypeScript source names: import/export … from, side-effect imports, import(). */
function specifiers(source: string): string[] {
  const out: string[] = [];
  const pattern =
    /^\s*(?:import|export)\b[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]|^\s*import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/gm;
  for (const m of source.matchAll(pattern)) out.push((m[1] ?? m[2] ?? m[3])!);
  return out;
}

/** The top-level folder of src a path is in ('' for a file at src's top, undefined outside src). */
function folderOf(path: string): string | undefined {
  const rel = relative(SRC, path);
  if (rel.startsWith('..')) return undefined;
  const parts = rel.split(sep);
  return parts.length > 1 ? parts[0]! : '';
}

/** What is wrong with one import of `file` (undefined: nothing). Packages and Node built-ins are not layers. */
function violation(file: string, spec: string): string | undefined {
  const from = folderOf(file);
  if (from === undefined || !spec.startsWith('.')) return undefined;
  const to = folderOf(resolve(dirname(file), spec));
  // Only the CLI reaches outside src (`hookwise bench` runs bench/).
  if (to === undefined) return EDGES.has(from) ? undefined : `imports from outside src (${spec})`;
  if (to === from) return undefined;
  if (GROUND.has(from) && !GROUND.has(to)) return `the ground imports from src/${to}`;
  const domain = !GROUND.has(from) && !EDGES.has(from) && from !== 'engine';
  if (domain && (to === 'engine' || EDGES.has(to))) return `the domain imports from src/${to}`;
  const only = IMPORTED_ONLY_BY[to];
  if (only !== undefined && !only.has(from)) return `src/${to} is imported only by ${[...only].join(', ')}`;
  return undefined;
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

describe('the layers', () => {
  it('every import in src keeps them', () => {
    const files = tsFiles(SRC);
    expect(files.some((f) => folderOf(f) === 'core')).toBe(true);
    const found = files.flatMap((file) =>
      specifiers(readFileSync(file, 'utf8')).flatMap((spec) => {
        const why = violation(file, spec);
        return why === undefined ? [] : [`${relative(SRC, file)} → ${spec}: ${why}`];
      }),
    );
    expect(found).toEqual([]);
  });

  it.each([
    ["import type { CompiledPolicy } from '../policy/compiled.js';", ['../policy/compiled.js']],
    ["import {\n  a,\n  b,\n} from '../memory/view.js';", ['../memory/view.js']],
    ["export { x } from '../shell/prepare.js';", ['../shell/prepare.js']],
    ["export * from '../embed/port.js';", ['../embed/port.js']],
    ["const m = await import('../supervisor/api.js');", ['../supervisor/api.js']],
    ["import '../hosts/claude.js';", ['../hosts/claude.js']],
  ])('the scan sees %j', (source, expected) => {
    expect(specifiers(source)).toEqual(expected);
  });

  it.each([
    ['core/tier.ts', '../policy/compiled.js', 'the ground imports from src/policy'],
    ['core/tier.ts', '../memory/context.js', 'the ground imports from src/memory'],
    ['util/lru.ts', '../engine/engine.js', 'the ground imports from src/engine'],
    ['core/tier.ts', '../../bench/run.js', 'imports from outside src (../../bench/run.js)'],
    ['policy/rules.ts', '../engine/context.js', 'the domain imports from src/engine'],
    ['memory/learn.ts', '../hosts/claude.js', 'the domain imports from src/hosts'],
    ['shell/parse.ts', '../cli/program.js', 'the domain imports from src/cli'],
    ['mcp/server.ts', '../engine/engine.js', 'src/engine is imported only by engine, cli, daemon'],
    ['daemon/server.ts', '../cli/program.js', 'src/cli is imported only by cli'],
  ])('%s importing %s breaks them: %s', (file, spec, why) => {
    expect(violation(join(SRC, file), spec)).toBe(why);
  });

  it.each([
    ['core/tier.ts', './decision.js'],
    ['core/tier.ts', '../util/fs-safe.js'],
    ['core/limits.ts', 'node:path'],
    ['policy/rules.ts', '../core/tier.js'],
    ['memory/learn.ts', '../session/registry.js'],
    ['engine/cascade.ts', '../memory/exact-tier.js'],
    ['daemon/server.ts', '../engine/engine.js'],
    ['cli/check.ts', '../hosts/index.js'],
    ['shell/syntax.ts', 'tree-sitter'],
    ['cli/bench.ts', '../../bench/run.js'],
  ])('%s may import %s', (file, spec) => {
    expect(violation(join(SRC, file), spec)).toBeUndefined();
  });
});
