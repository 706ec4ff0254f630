// Retrains the shipped command-embedding model (workers/model/command-embedding.onnx + command-vocab.json)
// from tldr-pages examples: bundles scripts/embedding/train.ts with esbuild (a devDependency) and runs it.
//   node scripts/train-embedding.mjs [--corpus ../shared/corpora/commands.tldr.jsonl] [--out workers/model]
//                                    [--seed N] [--dim 64] [--epochs 30] [--realizations 4] [--kind-strength 1]
//                                    [--eval-only | --skip-eval] [--variants]
// Deterministic for a given corpus, seed and options. Prints the held-out retrieval evaluation on stdout.
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

let build;
try {
  ({ build } = await import('esbuild'));
} catch {
  console.error('train-embedding: esbuild is not installed. Run `npm install` in the hookwise checkout first.');
  process.exit(1);
}

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// Inside the package (not /tmp) so the bundle resolves the native modules it leaves external.
const outfile = join(root, 'dist', `train-embedding-${process.pid}.mjs`);
await build({
  entryPoints: [join(root, 'scripts', 'embedding', 'train.ts')],
  outfile,
  bundle: true,
  format: 'esm',
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
  banner: {
    js: "import { createRequire as __hwRequire } from 'node:module'; const require = __hwRequire(import.meta.url);",
  },
  define: { __HOOKWISE_VERSION__: '"train"' },
  logLevel: 'warning',
});
process.env.HOOKWISE_ROOT = root;
try {
  await import(pathToFileURL(outfile).href);
} finally {
  rmSync(outfile, { force: true });
}
