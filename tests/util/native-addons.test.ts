/**
 * A native addon loads from the file the build found; where that file is missing or built for another
 * platform, the package's own loader decides; where both fail, the error names the file and both reasons
 * (the Bash parser then fails closed). The built bundles' use of it is checked in tests/cli/launcher.test.ts.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { builtAddonPath, loadAddonFile } from '../../src/util/native-addons.js';

const dir = mkdtempSync(join(tmpdir(), 'hookwise-native-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const fromPackage = { from: 'package' };
const packageLoader = () => fromPackage;

describe('loadAddonFile', () => {
  it('loads the file the build found, without the package loader', () => {
    const file = join(dir, 'addon.cjs');
    writeFileSync(file, 'module.exports = { from: "file" };\n');
    let asked = false;
    const loaded = loadAddonFile('xxhash', file, () => {
      asked = true;
      return fromPackage;
    });
    expect(loaded).toEqual({ from: 'file' });
    expect(asked).toBe(false);
  });

  it('uses the package loader when the build found no file', () => {
    expect(loadAddonFile('tree-sitter', undefined, packageLoader)).toBe(fromPackage);
  });

  it('uses the package loader when the file is not there (another install layout)', () => {
    expect(loadAddonFile('tree-sitter-bash', join(dir, 'missing', 'addon.node'), packageLoader)).toBe(fromPackage);
  });

  it('uses the package loader when the file is no loadable addon (another platform or libc)', () => {
    const file = join(dir, 'foreign.node');
    writeFileSync(file, 'not an ELF file');
    expect(loadAddonFile('xxhash', file, packageLoader)).toBe(fromPackage);
  });

  it('names the file and both reasons when neither loads', () => {
    const file = join(dir, 'gone', 'tree_sitter_runtime_binding.node');
    expect(() =>
      loadAddonFile('tree-sitter', file, () => {
        throw new Error('No native build was found for platform=linux');
      }),
    ).toThrow(
      new RegExp(
        `cannot load the native addon tree-sitter: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: Cannot find module .*; through its package: No native build was found`,
      ),
    );
  });

  it('does not hide an addon that fails while it initializes', () => {
    const file = join(dir, 'throws.cjs');
    writeFileSync(file, 'throw new Error("addon init failed");\n');
    expect(() => loadAddonFile('xxhash', file, packageLoader)).toThrow(/addon init failed/);
  });
});

describe('builtAddonPath', () => {
  it('is undefined when run from sources (the build sets the paths in the bundles only)', () => {
    expect(builtAddonPath('tree-sitter')).toBeUndefined();
  });
});
