/**
 * Build step (scripts/build.mjs bundles and runs this): the grammar table in dist/catalog-grammar/ from
 * Fig's autocomplete specs (@withfig/autocomplete, a devDependency: read here, never at run time) and our
 * own GNU/Linux grammar in src/catalog/grammar/*.yml, merged by each entry's rule.
 *
 * The table's layout is described in src/catalog/grammar-build.ts.
 *
 * Deterministic: the same inputs give the same bytes (sorted programs, sorted nodes, no timestamps). So a
 * table is kept in node_modules/.cache/hookwise-grammar/<key>/, keyed by this step's own bundled code, Fig's
 * version and our entries: importing Fig's 77 MB of spec modules takes 10–20 s on a busy 2-CPU machine, and
 * most builds change none of the three. A fresh clone (CI) has no cache and builds the table.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildGrammarTable, type GrammarTableInput } from '../../src/catalog/grammar-build.js';
import type { FigModuleLoader } from '../../src/catalog/fig-import.js';
import { xxh64BytesHex } from '../../src/util/xxhash.js';

const FIG_PACKAGE = '@withfig/autocomplete';

async function main(): Promise<void> {
  const root = process.cwd();
  const out = join(root, 'dist', 'catalog-grammar');
  const require = createRequire(join(root, 'package.json'));
  // The package exports only its specs; its folder is two levels above the main module (build/index.js).
  let figRoot: string;
  try {
    figRoot = dirname(dirname(require.resolve(FIG_PACKAGE)));
  } catch {
    console.error(
      `hookwise build: ${FIG_PACKAGE} (a devDependency: the catalogue's grammar source) is not installed. Run \`npm install\` in the hookwise checkout first.`,
    );
    process.exit(1);
  }
  const figVersion = (JSON.parse(readFileSync(join(figRoot, 'package.json'), 'utf8')) as { version: string }).version;
  const licence = readFileSync(join(figRoot, 'LICENSE'), 'utf8');

  // Fig's own list of spec modules: the keys of build/dynamic/index.js (path → lazy import).
  const dynamic = (await import(pathToFileURL(join(figRoot, 'build', 'dynamic', 'index.js')).href)) as {
    default: Record<string, () => Promise<Record<string, unknown>>>;
  };
  const modules = dynamic.default;
  const load: FigModuleLoader = async (path) => (Object.hasOwn(modules, path) ? modules[path]!() : undefined);

  const handDir = join(root, 'src', 'catalog', 'grammar');
  const hand = readdirSync(handDir)
    .filter((f) => f.endsWith('.yml'))
    .sort()
    .map((f) => ({ file: `src/catalog/grammar/${f}`, text: readFileSync(join(handDir, f), 'utf8') }));

  // The key: this very step (bundled, so every source it runs is in it), the YAML parser it leaves external,
  // Fig's version, our entries.
  const self = readFileSync(fileURLToPath(import.meta.url), 'utf8');
  const yamlVersion = (JSON.parse(readFileSync(require.resolve('yaml/package.json'), 'utf8')) as { version: string })
    .version;
  const keyParts = [self, yamlVersion, figVersion, ...hand.map((h) => `${h.file}\n${h.text}`)];
  const key = xxh64BytesHex(Buffer.from(keyParts.join('\u0000')));
  const cacheRoot = join(root, 'node_modules', '.cache', 'hookwise-grammar');
  const cached = join(cacheRoot, key);
  if (existsSync(join(cached, 'complete'))) {
    rmSync(out, { recursive: true, force: true });
    cpSync(cached, out, { recursive: true, filter: (src) => !src.endsWith('complete') });
    console.log(`grammar table: from the build cache (${cached})`);
    return;
  }

  const input: GrammarTableInput = {
    fig: { version: figVersion, licence, modules: Object.keys(modules), load },
    hand,
  };
  const started = process.hrtime.bigint();
  const table = await buildGrammarTable(input);
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (table.errors.length > 0) {
    for (const e of table.errors) console.error(`hookwise build: ${e}`);
    process.exit(1);
  }
  mkdirSync(out, { recursive: true });
  for (const [file, text] of table.files) writeFileSync(join(out, file), text);
  // The cache holds one table (the last one built), written whole before it is marked complete.
  rmSync(cacheRoot, { recursive: true, force: true });
  const staging = `${cached}.tmp`;
  cpSync(out, staging, { recursive: true });
  writeFileSync(join(staging, 'complete'), '');
  renameSync(staging, cached);
  const r = table.report;
  console.log(
    `grammar table: ${r.programs.total} programs (Fig ${r.programs.fig}, ours ${r.programs.hookwise} of which ${r.programs.replacedFig} replace Fig's, both ${r.programs.both}), ` +
      `${r.subcommands} subcommands, ${r.options} options, ${(r.bytes / 1e6).toFixed(1)} MB, ${Math.round(ms)} ms`,
  );
}

await main();
