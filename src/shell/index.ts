/**
 * The shell analysis, as one lazily loaded unit (bundled to dist/shell.cjs by scripts/build.mjs, so the hook
 * hot path loads it — and the native parser under it — only when a Bash call arrives):
 *
 *   const shell = await import('../shell/index.js');
 *   const parsed = shell.parseCommand(command);          // loads tree-sitter on first use (~10 ms)
 *   const writes = shell.writeTargets(parsed.segments);
 */
export {
  DEFAULT_MAX_LENGTH,
  DEFAULT_MAX_NODES,
  DEFAULT_MAX_SHELL_DEPTH,
  DEFAULT_MAX_PARSE_STEPS,
  parseCommand,
  type ParseOptions,
} from './parse.js';
export { isShellParserLoaded, loadShellParser } from './syntax.js';
export { WRITE_COMMANDS, writeTargets } from './writes.js';
export { analyzeEffects } from './effects.js';
export { matchSegment } from '../catalog/match.js';
export type * from './effects.js';
export type * from './types.js';
