/**
 * The ground knows no tier: a file under src/core imports only from src/core and src/util (and Node's
 * built-ins) — type imports included, since they tie the design just the same. Tiers declare the slice of
 * context they read beside their code; the engine composes them (src/engine/context.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '..', '..', 'src');
const CORE = join(SRC, 'core');
const ALLOWED = [CORE, join(SRC, 'util')];

/** Every module specifier a TypeScript source names: import/export … from, side-effect imports, import(). */
function specifiers(source: string): string[] {
  const out: string[] = [];
  const pattern =
    /^\s*(?:import|export)\b[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]|^\s*import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/gm;
  for (const m of source.matchAll(pattern)) out.push((m[1] ?? m[2] ?? m[3])!);
  return out;
}

/** The specifiers of a file under `dir` that reach outside the allowed folders (relative, or a package). */
function outsideImports(file: string, source: string): string[] {
  return specifiers(source).filter((spec) => {
    if (spec.startsWith('node:')) return false;
    if (!spec.startsWith('.')) return true;
    const target = resolve(dirname(file), spec);
    return !ALLOWED.some((dir) => target === dir || target.startsWith(dir + '/'));
  });
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

describe('src/core', () => {
  it('imports nothing from outside src/core and src/util', () => {
    const files = tsFiles(CORE);
    expect(files.length).toBeGreaterThan(0);
    const found = files.flatMap((f) =>
      outsideImports(f, readFileSync(f, 'utf8')).map((spec) => `${relative(SRC, f)} → ${spec}`),
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
    ["import yaml from 'yaml';", ['yaml']],
    ["import type { Decision } from './decision.js';", []],
    ["import { writeFileAtomic } from '../util/fs-safe.js';", []],
    ["import { join } from 'node:path';", []],
  ])('the check sees %j', (source, expected) => {
    expect(outsideImports(join(CORE, 'tier.ts'), source)).toEqual(expected);
  });
});
