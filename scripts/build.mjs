// Bundles the CLI with esbuild into three CommonJS files:
//   dist/hookwise.cjs         the executable: a tiny launcher that runs dist/hook.cjs through a V8 code cache
//   dist/hook.cjs             the hook hot path (check) and the command dispatcher
//   dist/cli.cjs              every other command (commander, reports, bench, …), loaded only for them
//   dist/policy-compiler.cjs  YAML parsing + glob compilation, loaded only when the policy cache is stale
//   dist/shell.cjs            Bash parsing (src/shell/index.ts; native tree-sitter under it), loaded only for Bash calls
//   dist/confine.cjs          confinement at decision time (src/confine/decide.ts), loaded only for a confinable call
//   dist/embed.worker.cjs     the daemon's embedding worker (workers/embed.worker.ts; piscina loads it by path)
//   dist/catalog/             the compiled catalogue (src/catalog/programs/*.yml → an index and one text per
//                             program, src/catalog/table-codec.ts; src/catalog/table.ts reads what a call names)
// Why bundles, and why CommonJS: `hookwise check` is a fresh process on every tool call. On Node 20 the ESM
// loader alone costs ~7 ms per start and every extra module file costs resolution and compilation, so the
// hot path is one CJS file that loads nothing it does not need. The sources stay strict ESM TypeScript.
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { buildMcpCatalogue } from './mcp-catalogue.mjs';

// esbuild is a devDependency: present after `npm install` in a clone, absent in an installed package (which
// ships dist/ built and never runs this). Say so instead of an import error, e.g. on `npm install -g .`
// from a clone where `npm install` has not run yet.
let build;
try {
  ({ build } = await import('esbuild'));
} catch {
  console.error(
    'hookwise build: esbuild is not installed. Run `npm install` in the hookwise checkout first (it installs the dependencies and builds dist/), then install the CLI with `npm install -g .`.',
  );
  process.exit(1);
}

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

/** Route lazy imports of the heavy modules to their own bundles instead of inlining them. */
const lazyBundles = (routes) => ({
  name: 'lazy-bundles',
  setup(b) {
    for (const [pattern, target] of routes) {
      b.onResolve({ filter: pattern }, () => ({ path: target, external: true }));
    }
  },
});

/**
 * The native addons of the hook path (src/util/native-addons.ts), found here as their packages' loaders find
 * them at run time, so that a hook process loads each file directly: node-gyp-build for tree-sitter and its
 * Bash grammar, the glibc/macOS/Windows platform package for @node-rs/xxhash. Paths relative to dist/, kept
 * only inside this package's node_modules (an installed copy has the same layout); an addon not found here is
 * left to its package's loader at run time.
 */
function nativeAddonFiles() {
  const req = createRequire(import.meta.url);
  const nodeGypBuild = (pkg) => {
    const manifest = req.resolve(`${pkg}/package.json`);
    return createRequire(manifest)('node-gyp-build').path(dirname(manifest));
  };
  const suffix = process.platform === 'linux' ? '-gnu' : process.platform === 'win32' ? '-msvc' : '';
  const finders = {
    'tree-sitter': () => nodeGypBuild('tree-sitter'),
    'tree-sitter-bash': () => nodeGypBuild('tree-sitter-bash'),
    xxhash: () => req.resolve(`@node-rs/xxhash-${process.platform}-${process.arch}${suffix}`),
  };
  const files = {};
  for (const [name, find] of Object.entries(finders)) {
    let file;
    try {
      file = find();
    } catch {
      continue; // not installed here for this platform: the package's loader decides at run time
    }
    const path = relative(resolve('dist'), file).split('\\').join('/');
    if (/^\.\.\/node_modules\//.test(path) && !path.slice(3).split('/').includes('..')) files[name] = path;
  }
  return files;
}

/**
 * tree-sitter's JavaScript is bundled on its own (dist/tree-sitter.cjs) and every other bundle requires that one
 * file: it patches the shared native binding's prototypes and keeps the buffers the binding writes nodes into,
 * so a process (the CLI loads shell.cjs and parses with its own code too) must hold exactly one copy. Its
 * `require('node-gyp-build')(__dirname)` is routed to treeSitterBinding() (src/util/native-addons.ts), since
 * __dirname in a bundle is dist/. Any other package that would bundle node-gyp-build stops the build: it would
 * look for its addon in dist/.
 */
const treeSitterBinding = {
  name: 'tree-sitter-binding',
  setup(b) {
    b.onResolve({ filter: /^tree-sitter$/ }, () => ({ path: './tree-sitter.cjs', external: true }));
    b.onResolve({ filter: /^node-gyp-build$/ }, (args) =>
      /[\\/]node_modules[\\/]tree-sitter[\\/]/.test(args.importer)
        ? { path: 'tree-sitter-binding', namespace: 'hookwise-native' }
        : { errors: [{ text: `node-gyp-build required by ${args.importer}: make that package external or route it` }] },
    );
    // Its Bun-only branch requires the prebuilt files by a template, which esbuild expands to every file;
    // that branch never runs under Node, so they are bundled as nothing.
    b.onLoad({ filter: /[\\/]node_modules[\\/]tree-sitter[\\/]prebuilds[\\/].*\.node$/ }, () => ({
      contents: '',
      loader: 'empty',
    }));
    b.onLoad({ filter: /.*/, namespace: 'hookwise-native' }, () => ({
      contents: `module.exports = () => require(${JSON.stringify(resolve('src/util/native-addons.ts'))}).treeSitterBinding();`,
      resolveDir: resolve('.'),
      loader: 'js',
    }));
  },
};

const common = {
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  // import() → require(): a dynamic import would start Node's ESM loader, which costs start-up time.
  supported: { 'dynamic-import': false },
  define: {
    __HOOKWISE_VERSION__: JSON.stringify(pkg.version),
    __HOOKWISE_NATIVE_ADDONS__: JSON.stringify(nativeAddonFiles()),
  },
  // Native and worker-pool packages stay real node_modules imports; so does the Anthropic SDK, required only
  // when a call reaches the supervisor (src/supervisor/api.ts), never at start-up.
  plugins: [treeSitterBinding],
  external: [
    're2',
    '@node-rs/xxhash',
    'onnxruntime-node',
    'hnswlib-node',
    'piscina',
    'tree-sitter-bash',
    '@anthropic-ai/sdk',
    // PostgreSQL's driver: required only where a team store is configured (src/store/postgres.ts).
    'pg',
  ],
  logOverride: { 'empty-import-meta': 'silent' },
  logLevel: 'warning',
};
const compilerRoute = [/\/build-policy\.js$/, './policy-compiler.cjs'];
const shellRoute = [/\/shell\/index\.js$/, './shell.cjs'];
const confineRoute = [/\/confine\/decide\.js$/, './confine.cjs'];

// Data compiled into the bundles: the MCP catalogue (issue 29).
if (!(await buildMcpCatalogue(build))) {
  console.error('hookwise build: the MCP catalogue has errors (above); nothing was built.');
  process.exit(1);
}

rmSync('dist', { recursive: true, force: true });
await Promise.all([
  build({
    ...common,
    entryPoints: ['src/cli/launcher.ts'],
    outfile: 'dist/hookwise.cjs',
    sourcemap: false,
    banner: { js: '#!/usr/bin/env node' },
  }),
  build({
    ...common,
    entryPoints: ['src/cli/main.ts'],
    outfile: 'dist/hook.cjs',
    plugins: [
      ...common.plugins,
      lazyBundles([compilerRoute, shellRoute, confineRoute, [/\/program\.js$/, './cli.cjs']]),
    ],
  }),
  build({
    ...common,
    entryPoints: ['src/cli/program.ts'],
    outfile: 'dist/cli.cjs',
    plugins: [...common.plugins, lazyBundles([compilerRoute, shellRoute, confineRoute])],
  }),
  build({ ...common, entryPoints: ['src/policy/build-policy.ts'], outfile: 'dist/policy-compiler.cjs' }),
  build({ ...common, entryPoints: ['src/shell/index.ts'], outfile: 'dist/shell.cjs' }),
  build({
    ...common,
    entryPoints: [createRequire(import.meta.url).resolve('tree-sitter')],
    outfile: 'dist/tree-sitter.cjs',
  }),
  build({ ...common, entryPoints: ['src/confine/decide.ts'], outfile: 'dist/confine.cjs' }),
  build({ ...common, entryPoints: ['workers/embed.worker.ts'], outfile: 'dist/embed.worker.cjs' }),
]);
chmodSync('dist/hookwise.cjs', 0o755);

// Every bundle as pure ASCII. esbuild escapes non-ASCII characters in strings, regular expressions and names,
// but keeps comments as written (box-drawing rules, `≈`, `→`): one such character makes the whole source a
// two-byte string, which Node decodes on the slow UTF-8 path (≈ 3 ms of CPU per hook process for hook.cjs,
// measured with perf stat). Escaped, the comments still read; what runs is unchanged.
for (const file of readdirSync('dist').filter((f) => f.endsWith('.cjs'))) {
  const path = join('dist', file);
  const text = readFileSync(path, 'utf8');
  // eslint-disable-next-line no-control-regex
  const ascii = text.replace(/[^\u0000-\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (ascii !== text) writeFileSync(path, ascii);
}

// The catalogue's grammar table (dist/catalog-grammar/): Fig's specs + our GNU/Linux entries, imported here,
// never at run time. Bundled to a throw-away module inside dist/ so that it resolves node_modules like the CLI.
await build({
  ...common,
  entryPoints: ['scripts/catalog/build-grammar.ts'],
  outfile: 'dist/build-grammar.tmp.mjs',
  format: 'esm',
  sourcemap: false,
  supported: {},
  external: [...common.external, 'yaml', '@withfig/autocomplete'],
});
try {
  await import(new URL('../dist/build-grammar.tmp.mjs', import.meta.url).href);
} finally {
  rmSync('dist/build-grammar.tmp.mjs', { force: true });
}

// The catalogue, compiled once here so the hot path reads plain JSON (no YAML parser, no entry files), only of
// the programs a call names (src/catalog/table-codec.ts). The compiler is the same TypeScript the tests run
// (src/catalog/sources.ts), bundled for this one use.
{
  const compiler = 'dist/.catalog-compiler.cjs';
  await build({ ...common, entryPoints: ['src/catalog/sources.ts'], outfile: compiler, sourcemap: false });
  const { compileSources, formatProblem, serializeCatalog, xxh64BytesHex } = createRequire(import.meta.url)(
    `../${compiler}`,
  );
  rmSync(compiler);
  const { table, problems } = compileSources();
  if (problems.length > 0) {
    console.error(`hookwise build: the catalogue has errors:\n${problems.map(formatProblem).join('\n')}`);
    process.exit(1);
  }
  const { index, entries } = serializeCatalog(table, (bytes) => xxh64BytesHex(bytes));
  mkdirSync('dist/catalog');
  writeFileSync('dist/catalog/entries.jsonl', entries);
  writeFileSync('dist/catalog/index.tsv', index);
}

// The team store's schema migrations ship in dist/ (the package carries no source tree); src/store/postgres.ts
// reads them from there, or from src/ in a checkout that has not been built.
rmSync('dist/store-migrations', { recursive: true, force: true });
cpSync('src/store/migrations', 'dist/store-migrations', { recursive: true });

// Warm the V8 code cache with one real decision in a throw-away project (see src/cli/launcher.ts).
const warm = mkdtempSync(join(tmpdir(), 'hookwise-build-'));
try {
  const project = join(warm, 'project');
  mkdirSync(join(project, '.git'), { recursive: true });
  const env = {
    ...process.env,
    HOOKWISE_RUNTIME_DIR: join(warm, 'runtime'),
    HOOKWISE_CONFIG_DIR: join(warm, 'config'),
    HOOKWISE_ROLE: 'coder',
    HOOKWISE_DAEMON: 'off',
  };
  const write = {
    session_id: 'build',
    cwd: project,
    hook_event_name: 'PreToolUse',
    tool_name: 'Write',
    tool_input: { file_path: join(project, 'src/a.ts'), content: '' },
  };
  const bash = {
    ...write,
    tool_name: 'Bash',
    tool_input: { command: 'cd src && git status --short | grep -v x > /dev/null && echo ok > out.txt' },
  };
  const check = (payload, extraEnv = {}) => {
    const r = spawnSync(process.execPath, ['dist/hookwise.cjs', 'check'], {
      input: JSON.stringify(payload),
      env: { ...env, ...extraEnv },
      encoding: 'utf8',
    });
    if (r.status !== 0 || !r.stdout.includes('"allow"'))
      throw new Error(`warm-up check failed: ${r.status} ${r.stdout} ${r.stderr}`);
  };
  // The first run compiles the policy cache (cold path); the caches are then made by the usual hot paths:
  // dist/hook.*.v8cache by a Write decision and then a Bash decision (refreshed: it holds both paths, so a
  // Bash call compiles no hook function of its own), dist/shell.*.v8cache by the Bash decision.
  check(write);
  for (const cache of ['hook', 'shell'])
    rmSync(join('dist', `${cache}.${process.version}.${process.arch}.v8cache`), { force: true });
  check(write);
  check(bash, { HOOKWISE_CODE_CACHE: 'refresh' });
} finally {
  rmSync(warm, { recursive: true, force: true });
}
