// Bundles the CLI with esbuild into three CommonJS files:
//   dist/hookwise.cjs         the executable; holds the hook hot path (check) inline
//   dist/cli.cjs              every other command (commander, reports, bench, …), loaded only for them
//   dist/policy-compiler.cjs  YAML parsing + glob compilation, loaded only when the policy cache is stale
// Why bundles, and why CommonJS: `hookwise check` is a fresh process on every tool call. On Node 20 the ESM
// loader alone costs ~7 ms per start and every extra module file costs resolution and compilation, so the
// hot path is one CJS file that loads nothing it does not need. The sources stay strict ESM TypeScript.
import { build } from 'esbuild';
import { chmodSync, readFileSync, rmSync } from 'node:fs';

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

const common = {
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  // import() → require(): a dynamic import would start Node's ESM loader, which costs start-up time.
  supported: { 'dynamic-import': false },
  define: { __HOOKWISE_VERSION__: JSON.stringify(pkg.version) },
  // Native and worker-pool packages stay real node_modules imports.
  external: ['re2', '@node-rs/xxhash', 'onnxruntime-node', 'hnswlib-node', 'piscina'],
  logOverride: { 'empty-import-meta': 'silent' },
  logLevel: 'warning',
};
const compilerRoute = [/\/build-policy\.js$/, './policy-compiler.cjs'];

rmSync('dist', { recursive: true, force: true });
await Promise.all([
  build({
    ...common,
    entryPoints: ['src/cli/main.ts'],
    outfile: 'dist/hookwise.cjs',
    banner: { js: '#!/usr/bin/env node' },
    plugins: [lazyBundles([compilerRoute, [/\/program\.js$/, './cli.cjs']])],
  }),
  build({ ...common, entryPoints: ['src/cli/program.ts'], outfile: 'dist/cli.cjs', plugins: [lazyBundles([compilerRoute])] }),
  build({ ...common, entryPoints: ['src/policy/build-policy.ts'], outfile: 'dist/policy-compiler.cjs' }),
]);
chmodSync('dist/hookwise.cjs', 0o755);
