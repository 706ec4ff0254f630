/**
 * The `script` kind: the name of a script or target the project defines (a package.json script, a Makefile
 * target). What it runs is the repository's own code, which we do not read here; the name is what says
 * whether its effect stays in the project. A test or check name runs the tests, a build / dev / format name
 * builds or rewrites the project, and a name that says it reaches beyond the project (deploy, publish,
 * migrate, clean, install, …) is not accounted for, whatever else it says (`build-and-deploy`).
 */
import type { CatalogRule } from './compile.js';

/** Words in a script or target name that say it reaches beyond the project or throws work away. */
export const REACHES_OUT =
  /deploy|release|publish|migrat|seed|reset|clean|drop|push|upload|destroy|delete|remove|purge|nuke|wipe|install|prod-?db/i;

/** Base names (before `:` or `-`) of scripts that build, serve, check or rewrite the project. */
const LOCAL_SCRIPTS: ReadonlySet<string> = new Set([
  'all',
  'build',
  'dev',
  'start',
  'serve',
  'watch',
  'compile',
  'bundle',
  'preview',
  'typecheck',
  'check',
  'lint',
  'format',
  'fmt',
  'fix',
  'generate',
  'codegen',
]);
const LOCAL_WHOLE_NAMES: ReadonlySet<string> = new Set(['type-check', 'check-types', 'tsc']);
/** Base names of scripts that run the tests or checks (and do not fix or update anything). */
const CHECK_SCRIPTS: ReadonlySet<string> = new Set(['test', 'tests', 'lint', 'typecheck', 'tsc', 'check']);
const REWRITES = /fix|write|update|snap|format/;

/**
 * The rule a script name is run under, or undefined when the name does not say its effect stays local
 * (an expansion, an unknown name, or a name that reaches out).
 */
export function scriptRule(name: string): CatalogRule | undefined {
  if (name === '' || /[$`*?[\]{}]/.test(name) || REACHES_OUT.test(name)) return undefined;
  const base = name.split(':')[0]!.split('-')[0]!;
  if (!REWRITES.test(name) && (CHECK_SCRIPTS.has(base) || LOCAL_WHOLE_NAMES.has(name)))
    return base === 'lint' ? 'lint' : 'test-runner';
  return LOCAL_SCRIPTS.has(base) || LOCAL_WHOLE_NAMES.has(name) ? 'project-script' : undefined;
}

/**
 * A target whose recipe a dry run may print (`make -n NAME`): any plain name that does not say it reaches
 * beyond the project. Lines marked `+` and `$(shell …)` still run in a dry run, and a name such as deploy says
 * they may reach out; `VAR=value` (SHELL=…, MAKEFLAGS=…, `X=$(shell …)`) changes what make runs.
 */
export function dryRunTarget(name: string): boolean {
  return name !== '' && !name.startsWith('-') && !/[=$`*?[\]{}]/.test(name) && !REACHES_OUT.test(name);
}
