/**
 * The `hookwise` executable: runs the hook-path bundle (dist/hook.cjs) through a V8 code cache (see
 * src/util/code-cache.ts). The cache is (re)written only by a `check` run, so it holds the functions a
 * decision needs rather than those of some other command.
 */
import { join } from 'node:path';
import { loadWithCodeCache } from '../util/code-cache.js';

declare const __dirname: string;

loadWithCodeCache(join(__dirname, 'hook.cjs'), require, { writeCache: process.argv[2] === 'check' });
