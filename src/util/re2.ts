/**
 * RE2 for every user- and pack-supplied pattern and every secret pattern: linear-time matching, so no rule
 * can ever be a ReDoS. The one place that loads the native addon.
 *
 * Loaded lazily (not `import RE2 from 're2'` at the top): `hookwise check` is a fresh process per tool
 * call and loading the native addon costs ~3 ms, which a Read or Write call that never tests a pattern
 * should not pay. The compiled policy keeps only pattern sources (JSON-cacheable); each process builds
 * the RE2 objects it actually uses, once.
 */
import { createRequire } from 'node:module';
import type RE2Module from 're2';

export type RE2 = RE2Module;
type RE2Constructor = typeof RE2Module;

let ctor: RE2Constructor | undefined;

/** The RE2 constructor, loaded on first use. */
export function re2Constructor(): RE2Constructor {
  if (ctor === undefined) {
    // The CommonJS bundles define __filename (import.meta is empty there); ESM test runners define both.
    const load = createRequire(typeof __filename === 'string' ? __filename : import.meta.url);
    ctor = load('re2') as RE2Constructor;
  }
  return ctor;
}

/** Compile a pattern with RE2 (never with flags `g`/`y`: those make `test` stateful). Throws SyntaxError. */
export function compileRe2(source: string): RE2 {
  const RE2 = re2Constructor();
  return new RE2(source, 'u');
}

/** The RE2 error for a pattern, or undefined when it compiles. */
export function re2Problem(source: string): string | undefined {
  try {
    compileRe2(source);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * Full-match form of a pattern. Safe only for a pattern that compiles on its own (so its parentheses
 * balance and `a)|(b` cannot escape the group): validate the raw pattern first.
 */
export function anchored(source: string): string {
  return `^(?:${source})$`;
}

/** A pattern compiled on first use and kept for the life of the process. */
export function lazyRe2(source: string): () => RE2 {
  let compiled: RE2 | undefined;
  return () => (compiled ??= compileRe2(source));
}
