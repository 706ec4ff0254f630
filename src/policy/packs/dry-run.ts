/**
 * Dry runs, plans and check modes of the programs the catalogue has no entry for yet: a command given the
 * option its own documentation says makes it only report what it would do. Per program, only options that
 * are truly no-write for that program — `-n` is a dry run for `git add`, `git clean` and `make`, but
 * `--no-verify` for `git commit` and no-clobber for `cp`/`mv`; `rm` has none. Used by the read-only pack
 * (rule `dry-run`).
 *
 * The dry runs of rsync, kubectl (and oc), helm, terraform/tofu plan, aws, az what-if, apt/apt-get and pip
 * and npm are catalogue entries: an option with `form-effect` (src/catalog/programs/, docs/catalogue.md). What
 * stays here is git's, cargo's and make's (entries of another branch), terragrunt's, pulumi's and patch's,
 * decided per program (docs/decisions.md, "Built-in packs"):
 *   - git add/rm/mv -n|--dry-run, clean -n (without -f: a -f next to the -n is one deleted letter from a
 *     real clean, and the corpus labels it risky), push -n|--dry-run (a network read), fetch --dry-run,
 *     commit --dry-run (commit's -n is --no-verify).
 *   - cargo publish/package --dry-run: builds and verifies the crate (build scripts run, as for cargo test).
 *   - make -n / --just-print / --dry-run / --recon: prints the recipes. Lines marked `+` and `$(shell …)`
 *     in the Makefile still run, so only for targets whose name does not say deploy / release / publish /
 *     clean / install / …, and never with -f / -C / --eval / VAR=value (the repository's own Makefile only).
 *   - terragrunt plan (also `run-all plan`), pulumi preview: compute a plan; the configuration's own programs
 *     (external data sources, the Pulumi program) run, as the project's code.
 *   - patch --dry-run.
 *   - ansible --check is NOT a dry run: a task with `check_mode: false` runs for real, on the inventory's
 *     (often remote, production) hosts.
 */
import type { Segment } from '../../shell/types.js';
import { hasAny, hasExpansion, scan, type ScannedArgs } from './argv.js';
import { gitSubcommand } from './git.js';
import { REACHES_OUT } from '../../catalog/script-names.js';

function git(segment: Segment): string | undefined {
  const sub = gitSubcommand(segment);
  if (sub === undefined || sub.overridesConfig) return undefined;
  const args = scan(segment.argv, {
    from: sub.from,
    withValue: [
      'e',
      'exclude',
      'o',
      'push-option',
      'repo',
      'receive-pack',
      'exec',
      'upload-pack',
      'm',
      'message',
      'F',
      'file',
      'pathspec-from-file',
    ],
  });
  const dry = hasAny(args, 'dry-run');
  switch (sub.name) {
    case 'add':
    case 'rm':
    case 'mv':
      return dry || args.flags.has('n') ? `git ${sub.name} --dry-run` : undefined;
    case 'clean':
      return (dry || args.flags.has('n')) && !hasAny(args, 'f', 'force', 'i', 'interactive')
        ? 'git clean -n'
        : undefined;
    case 'push':
      return (dry || args.flags.has('n')) && !hasAny(args, 'receive-pack', 'exec') ? 'git push --dry-run' : undefined;
    case 'fetch':
      return dry && !hasAny(args, 'upload-pack') && args.positionals.every((p) => !p.text.includes('::'))
        ? 'git fetch --dry-run'
        : undefined;
    case 'commit':
      return dry ? 'git commit --dry-run' : undefined;
    default:
      return undefined;
  }
}

function cargo(segment: Segment): string | undefined {
  const args = scan(segment.argv, {
    withValue: [
      'p',
      'package',
      'config',
      'Z',
      'manifest-path',
      'target-dir',
      'registry',
      'index',
      'token',
      'j',
      'jobs',
      'features',
      'F',
    ],
  });
  const sub = args.positionals[0]?.text;
  if (
    (sub !== 'publish' && sub !== 'package') ||
    !hasAny(args, 'dry-run', 'list', 'l') ||
    hasAny(args, 'config', 'Z', 'manifest-path', 'target-dir')
  )
    return undefined;
  return `cargo ${sub} --dry-run`;
}

/**
 * make options that read another makefile, run elsewhere, evaluate code given on the command line, or
 * pretend files are old/new; and `VAR=value` operands (SHELL=…, MAKEFLAGS=… change what make runs). Only
 * the dry-run recogniser (`make -n`) still reads make's words this way: make's own forms are
 * src/catalog/programs/make.yml.
 */
const MAKE_ELSEWHERE = [
  'f',
  'file',
  'makefile',
  'C',
  'directory',
  'eval',
  'E',
  'e',
  'environment-overrides',
  'I',
  'include-dir',
  'o',
  'old-file',
  'assume-old',
  'W',
  'what-if',
  'new-file',
  'assume-new',
];

/** make's arguments, its optional-numeric `-j [N]` / `-l [N]` understood; undefined when something is not vouched for. */
function makeArgs(argv: readonly string[]): ScannedArgs | undefined {
  const words: string[] = [argv[0] ?? 'make'];
  for (let i = 1; i < argv.length; i++) {
    const w = argv[i]!;
    if (
      /^-[jl]\d*$/.test(w) ||
      /^--(?:jobs|load-average)(?:=\d+)?$/.test(w) ||
      /^-O\w*$/.test(w) ||
      /^--output-sync(?:=\w+)?$/.test(w)
    ) {
      if (/^(?:-[jl]|--jobs|--load-average)$/.test(w) && /^\d+(?:\.\d+)?$/.test(argv[i + 1] ?? '')) i++;
      continue;
    }
    words.push(w);
  }
  const args = scan(words, { withValue: MAKE_ELSEWHERE });
  if (hasAny(args, ...MAKE_ELSEWHERE) || args.positionals.some((p) => p.text.includes('=') || hasExpansion(p.text)))
    return undefined;
  return args;
}

function make(segment: Segment): string | undefined {
  const args = makeArgs(segment.argv);
  if (args === undefined || !hasAny(args, 'n', 'just-print', 'dry-run', 'recon')) return undefined;
  return args.positionals.some((p) => REACHES_OUT.test(p.text)) ? undefined : 'make -n';
}

function terragrunt(segment: Segment): string | undefined {
  const args = scan(segment.argv, { stopAtPositional: true });
  let positionals = args.positionals;
  if (positionals[0]?.text === 'run-all' || positionals[0]?.text === 'run') {
    positionals = scan(segment.argv, { from: positionals[0].index + 1, stopAtPositional: true }).positionals;
  }
  return positionals[0]?.text === 'plan' ? `${segment.name} plan` : undefined;
}

/** What dry run, plan or check mode the segment is, or undefined. */
export function dryRun(segment: Segment): string | undefined {
  // Every option and operand must be known: an expansion could add `--dry-run=false`, `-f` or a target.
  if (segment.dynamicArgs.length > 0 || segment.argv.some(hasExpansion)) return undefined;
  switch (segment.name) {
    case 'git':
      return git(segment);
    case 'cargo':
      return cargo(segment);
    case 'make':
    case 'gmake':
      return make(segment);
    case 'terragrunt':
      return terragrunt(segment);
    case 'pulumi':
      return scan(segment.argv, { withValue: ['C', 'cwd', 's', 'stack'] }).positionals[0]?.text === 'preview'
        ? 'pulumi preview'
        : undefined;
    case 'patch':
      return segment.argv.includes('--dry-run') && !segment.argv.some((w) => w === '-o' || w.startsWith('--output'))
        ? 'patch --dry-run'
        : undefined;
    default:
      return undefined;
  }
}

export const DRY_RUN_COMMANDS: readonly string[] = ['git', 'cargo', 'make', 'gmake', 'terragrunt', 'pulumi', 'patch'];
