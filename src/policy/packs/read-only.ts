/**
 * The read-only allow pack: commands that only look (ls, cat of ordinary files, grep/rg, find without
 * actions, git status/log/diff/show, …), test runners, type checkers and linters in check mode, dry runs,
 * cloud and cluster queries, GETs to a service on this machine, and a program's own `--version` / `--help`.
 * Allowed without prompting, so that the common safe commands — and compounds made only of them — do not
 * wear the user down.
 *
 * What a program's words do is the catalogue's (src/catalog/programs/, docs/catalogue.md): the entry alone
 * decides (closed world: a word it does not list is never vouched for), dry runs, system listings and service
 * queries included. What stays here is the shell's own forms, which are no program's grammar: `cd` / `pushd`
 * (navigation), `command -v` (a lookup), a bare assignment. Anything the credentials pack would flag is never
 * allowed here, even when that pack is switched off: a judgement on paths and words across programs, not
 * grammar. Redirections (`echo x > f`) are writes the write-target tier
 * judges.
 *
 * Test runners execute the project's own code (package.json scripts, Makefiles, test files): allowing
 * them trusts what is in the repository, as running the tests by hand would. Changes that stay in the
 * project (commits, builds, installs) are the workflow pack's.
 */
import type { CatalogMatch } from '../../catalog/match.js';
import { matchSegment } from '../../catalog/match.js';
import { catalogPrograms } from '../../catalog/table.js';
import type { Segment } from '../../shell/types.js';
import { hasAny, scan } from './argv.js';
import { credentialsPack, secretFileKind } from './credentials.js';
import { definePack, type PackEnv, type PackFinding } from './types.js';

const RULES = {
  inspect: { verdict: 'allow', message: 'only inspects the system or prints text.' },
  navigate: { verdict: 'allow', message: 'only changes the working directory of this command.' },
  'read-file': { verdict: 'allow', message: 'only reads ordinary (non-credential) files.' },
  'write-named': {
    verdict: 'allow',
    message: 'writes only the files it names, each allowed by the path policy for this role.',
  },
  search: { verdict: 'allow', message: 'only searches or lists files (no -exec, -delete or output files).' },
  'git-read': { verdict: 'allow', message: 'only reads git state or history.' },
  'vcs-read': { verdict: 'allow', message: "only reads the repository's state or history (jj, hg)." },
  'test-runner': { verdict: 'allow', message: "runs the project's tests (trusting the repository's own test code)." },
  lint: {
    verdict: 'allow',
    message: 'checks code without changing it (type checker / linter / formatter in check mode).',
  },
  version: { verdict: 'allow', message: "only prints a tool's version or help." },
  'cli-query': {
    verdict: 'allow',
    message:
      'only queries state (list / show / describe / get / status) of a cloud, cluster, container or service CLI.',
  },
  'dry-run': {
    verdict: 'allow',
    message: 'only reports what it would do (a dry run, plan or preview that its documentation says changes nothing).',
  },
  'local-fetch': {
    verdict: 'allow',
    message: 'only fetches (GET) from a service on this machine (localhost); nothing is uploaded.',
  },
  'package-query': {
    verdict: 'allow',
    message: 'only queries package metadata or the installed dependency tree (ls / info / outdated / audit / why).',
  },
} as const;
type RuleId = keyof typeof RULES;

const NAVIGATE = new Set(['cd', 'pushd', 'popd', 'dirs']);

/**
 * The shell's own forms this pack judges (navigation, `command -v`, a bare assignment as `:`): the catalogue
 * lists programs, so it never accounts for these words, and an ask should name another word than theirs.
 */
export function isShellOwnForm(name: string): boolean {
  return NAVIGATE.has(name) || name === 'command' || name === ':';
}

/**
 * The catalogue's answer for a program it has an entry for (closed world): allowed only when every word is
 * accounted for and the effects found are ones knowledge may allow; the paths it found are judged by the
 * shell tier (write targets, sensitive reads). Undefined when the catalogue has no entry for the program.
 */
function byCatalogue(match: CatalogMatch): PackFinding<RuleId> | undefined | 'declined' {
  if (match.entry === undefined) return undefined;
  if (match.knowledge !== 'allow' || match.rule === undefined) return 'declined';
  // A form the catalogue allows under a workflow rule (a commit, a build) is the workflow pack's to allow.
  if (!isReadOnlyRule(match.rule)) return 'declined';
  return { rule: match.rule, detail: match.reason };
}

function isReadOnlyRule(rule: string): rule is RuleId {
  return Object.hasOwn(RULES, rule);
}

function classifyReadOnly(segment: Segment, env: PackEnv): PackFinding<RuleId> | undefined {
  // Never vouch for what the credentials pack would flag, even when that pack is off.
  if (credentialsPack.classify(segment, env) !== undefined) return undefined;
  const name = segment.name;
  const match = env.catalog?.[env.index] ?? matchSegment(segment);
  // The files an entry says the segment reads, also those only an option's value names (`file://.npmrc`,
  // `-H @.netrc`): the credentials pack's judgement of file names, which the grammar cannot make.
  if (match.paths.some((p) => p.kind !== 'path-write' && secretFileKind(p.path, env, segment.cwd) !== undefined))
    return undefined;
  const known = byCatalogue(match);
  if (known === 'declined') return undefined;
  if (known !== undefined) return known;
  // The shell's own forms: no program's grammar.
  if (NAVIGATE.has(name)) return { rule: 'navigate' };
  // `:` stands for a bare assignment (`X=1`); a bare `:` call may be a function defined in the command (`:(){ :|:& };:`).
  if (name === ':') return Object.keys(segment.assignments).length > 0 ? { rule: 'inspect' } : undefined;
  if (name === 'command') return hasAny(scan(segment.argv), 'v', 'V') ? { rule: 'inspect' } : undefined; // a lookup
  return undefined;
}

export const readOnlyPack = definePack<RuleId>({
  name: 'read-only',
  kind: 'allow',
  description:
    'ls, cat/head/grep/rg/find (read-only forms), sed that only prints, git status/log/diff/show, test runners, tsc --noEmit, linters in check mode, dry runs and plans, GETs to localhost, package queries, --version',
  // A getter: the catalogue's program list is read only when validate asks, never at start-up.
  get commands(): readonly string[] {
    return [...new Set([...catalogPrograms(), ...NAVIGATE, 'command', ':'])];
  },
  rules: RULES,
  classify: classifyReadOnly,
});
