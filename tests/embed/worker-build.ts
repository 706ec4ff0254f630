/**
 * The embedding worker built for tests: piscina loads a worker by path in a new thread, where vitest's
 * TypeScript transform does not run, so the worker (and the test embedder) are bundled with esbuild — the
 * same way scripts/build.mjs builds dist/embed.worker.cjs — into a temp directory under dist/ (inside the
 * checkout, so the bundle's external native modules resolve from its node_modules), once per test file.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../src/util/package-root.js';
import { build, type BuildOptions } from 'esbuild';

export interface BuiltWorker {
  workerFile: string;
  embedderModule: string;
  remove(): void;
}

export async function buildWorker(): Promise<BuiltWorker> {
  const parent = join(packageRoot(), 'dist', 'test-workers');
  mkdirSync(parent, { recursive: true });
  const dir = mkdtempSync(join(parent, 'embed-'));
  const common: BuildOptions = {
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    external: [
      're2',
      '@node-rs/xxhash',
      'onnxruntime-node',
      'hnswlib-node',
      'piscina',
      'tree-sitter',
      'tree-sitter-bash',
    ],
    logLevel: 'error',
    logOverride: { 'empty-import-meta': 'silent' },
  };
  await Promise.all([
    build({
      ...common,
      entryPoints: [join(packageRoot(), 'workers/embed.worker.ts')],
      outfile: join(dir, 'embed.worker.cjs'),
      define: { __HOOKWISE_VERSION__: '"test"' },
    }),
    build({
      ...common,
      entryPoints: [join(packageRoot(), 'tests/embed/fixtures/hash-embedder.ts')],
      outfile: join(dir, 'hash-embedder.cjs'),
    }),
  ]);
  return {
    workerFile: join(dir, 'embed.worker.cjs'),
    embedderModule: join(dir, 'hash-embedder.cjs'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
