/** Where this package is installed, to find dist/hookwise.cjs and bundled files at run time. */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

/** The nearest directory above this module whose package.json names hookwise (works bundled and from sources). */
export function packageRoot(): string {
  if (cached !== undefined) return cached;
  // The CommonJS bundles define __filename; test runners may too. import.meta is empty in the bundles.
  let dir = typeof __filename === 'string' ? dirname(__filename) : dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string };
      if (pkg.name === 'hookwise') return (cached = dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    const parent = dirname(dir);
    if (parent === dir)
      throw new Error(
        'cannot find the hookwise package root (package.json) above ' + dirname(fileURLToPath(import.meta.url)),
      );
    dir = parent;
  }
}

/** The built executable; spawn it with process.execPath. */
export function hookwiseBin(): string {
  return join(packageRoot(), 'dist', 'hookwise.cjs');
}
