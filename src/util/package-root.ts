/** Where this package is installed, to find dist/hookwise.cjs and bundled files at run time. */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export function packageRoot(): string {
  // In the CommonJS bundles (dist/*.cjs) __filename is defined; from the TS sources (tests) it is not.
  if (typeof __filename === 'string') return join(dirname(__filename), '..');
  return join(dirname(fileURLToPath(import.meta.url)), '..', '..');
}

/** The built executable; spawn it with process.execPath. */
export function hookwiseBin(): string {
  return join(packageRoot(), 'dist', 'hookwise.cjs');
}
