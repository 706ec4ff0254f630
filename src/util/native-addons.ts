/**
 * The native addons a hook process loads (the Bash parser and its grammar, xxHash), loaded from the file the
 * build found for each rather than through their packages' loaders, which cost a Bash call milliseconds:
 * node-gyp-build (tree-sitter's) requires its own JavaScript, reads the package's package.json and lists
 * build/Release; every bare require walks node_modules and reads package.json files.
 *
 * scripts/build.mjs asks those same loaders once which file they pick and writes the path, relative to the
 * bundles' directory (dist/) and inside this package's node_modules, into the bundles. Where that file is not
 * there at run time (another install layout, another platform, a copied dist/) or does not load, the package's
 * own loader runs as before; when that fails too, the error names both, and the caller fails closed (no Bash
 * parser: the call is not analyzed, never allowed on that account). Run from sources (tests), the packages'
 * own loaders are used.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export const NATIVE_ADDONS = ['tree-sitter', 'tree-sitter-bash', 'xxhash'] as const;
export type NativeAddon = (typeof NATIVE_ADDONS)[number];

/** Set by scripts/build.mjs: each addon's file relative to the bundle's directory, when the build found one. */
declare const __HOOKWISE_NATIVE_ADDONS__: Partial<Record<NativeAddon, string>> | undefined;

/** require() relative to this code: the bundle in dist/ (CommonJS defines __filename) or its source file. */
export function localRequire(): NodeJS.Require {
  return createRequire(typeof __filename === 'string' ? __filename : import.meta.url);
}

/** The file the build found for `name`, absolute; undefined when it found none or this is not a bundle. */
export function builtAddonPath(name: NativeAddon): string | undefined {
  if (typeof __HOOKWISE_NATIVE_ADDONS__ !== 'object' || typeof __dirname !== 'string') return undefined;
  const relative = __HOOKWISE_NATIVE_ADDONS__[name];
  return relative === undefined ? undefined : join(__dirname, relative);
}

/**
 * The addon's exports: from the file the build found, else through `packageLoader` (the package's own
 * resolution). Throws when neither loads, naming the file and both reasons.
 */
export function loadNativeAddon(name: NativeAddon, packageLoader: () => unknown): unknown {
  return loadAddonFile(name, builtAddonPath(name), packageLoader);
}

/** loadNativeAddon with the file given (undefined: none found). */
export function loadAddonFile(name: NativeAddon, file: string | undefined, packageLoader: () => unknown): unknown {
  if (file === undefined) return packageLoader();
  let direct: unknown;
  try {
    return localRequire()(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // Missing here, or built for another libc/ABI: the package's loader may know better. Anything else
    // (the addon threw while initializing) is the addon's own failure.
    if (code !== 'MODULE_NOT_FOUND' && code !== 'ERR_DLOPEN_FAILED') throw error;
    direct = error;
  }
  try {
    return packageLoader();
  } catch (error) {
    throw new Error(
      `cannot load the native addon ${name}: ${file}: ${(direct as Error).message.split('\n')[0]}; ` +
        `through its package: ${(error as Error).message.split('\n')[0]}`,
      { cause: error },
    );
  }
}

/**
 * tree-sitter's native binding, in place of its `require('node-gyp-build')(__dirname)`: the build bundles
 * tree-sitter's JavaScript and routes that require here (its __dirname would be dist/). The fallback is
 * node-gyp-build itself, run on the installed tree-sitter package as tree-sitter would.
 */
export function treeSitterBinding(): unknown {
  return loadNativeAddon('tree-sitter', () => {
    const manifest = localRequire().resolve('tree-sitter/package.json');
    const nodeGypBuild = createRequire(manifest)('node-gyp-build') as (dir: string) => unknown;
    return nodeGypBuild(dirname(manifest));
  });
}
