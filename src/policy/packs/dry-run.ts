/**
 * Dry runs, plans and check modes: a command given the option its own documentation says makes it only
 * report what it would do. Per program, only options that are truly no-write for that program — `-n` is
 * a dry run for `rsync`, `git add`, `git clean` and `make`, but `--no-verify` for `git commit` and
 * no-clobber for `cp`/`mv`; `rm` has none. Used by the read-only pack (rule `dry-run`).
 *
 * Decided per program (docs/decisions.md, "Built-in packs"):
 *   - rsync -n / --dry-run: nothing transferred or deleted. Not with -e / --rsh / --rsync-path (a program
 *     runs), --daemon, --password-file, a log or batch file; and not together with --delete* or
 *     --remove-source-files: harmless in itself, but the evaluation corpus labels exactly that preview
 *     risky, and a gate that must not raise unsafe allows leaves it to a human (and decision memory).
 *   - git add/rm/mv -n|--dry-run, clean -n (without -f: a -f next to the -n is one deleted letter from a
 *     real clean, and the corpus labels it risky), push -n|--dry-run (a network read), fetch --dry-run,
 *     commit --dry-run (commit's -n is --no-verify).
 *   - npm ci/install/update/uninstall/prune/dedupe/publish/pack --dry-run: npm makes no change (publish and
 *     pack still run the project's own prepack scripts, trusted like its tests). Not with another script
 *     shell or config file.
 *   - cargo publish/package --dry-run: builds and verifies the crate (build scripts run, as for cargo test).
 *   - pip install --dry-run only with --only-binary=:all: — otherwise pip builds sdists to learn their
 *     metadata, which runs each package's setup code even in a dry run.
 *   - make -n / --just-print / --dry-run / --recon: prints the recipes. Lines marked `+` and `$(shell …)`
 *     in the Makefile still run, so only for targets whose name does not say deploy / release / publish /
 *     clean / install / …, and never with -f / -C / --eval / VAR=value (the repository's own Makefile only).
 *   - terraform/tofu/terragrunt plan (also `run-all plan`), pulumi preview: compute a plan; the
 *     configuration's own programs (external data sources, the Pulumi program) run, as the project's code.
 *     `plan -out=FILE` writes FILE, which the write-target tier judges.
 *   - kubectl <change> --dry-run[=client|server]: not `=none`; not for exec/cp/edit/port-forward, nor with
 *     --from-file / --from-env-file or a secret (the dry run prints what it built: the secret's content).
 *   - helm install/upgrade/rollback/uninstall --dry-run[=client], helm template, helm lint: render locally.
 *     Not `--dry-run=server` (templates may `lookup` live secrets and print them), --post-renderer (a
 *     program), --set-file (puts a file's content in the output).
 *   - aws … --dry-run / --dryrun (EC2 permission checks, s3 cp/mv/rm/sync previews); az deployment …
 *     what-if.
 *   - apt-get / apt -s|--simulate|--just-print|--dry-run|--recon|--no-act; patch --dry-run.
 *   - ansible --check is NOT a dry run: a task with `check_mode: false` runs for real, on the inventory's
 *     (often remote, production) hosts.
 */
import type { Segment } from '../../shell/types.js';
import { hasAny, hasExpansion, scan, type ScannedArgs } from './argv.js';
import { gitSubcommand } from './git.js';
import { makeArgs, REACHES_OUT } from './workflow.js';

const RSYNC_WITH_VALUE = [
  'e',
  'rsh',
  'rsync-path',
  'exclude',
  'include',
  'filter',
  'f',
  'files-from',
  'exclude-from',
  'include-from',
  'log-file',
  'log-file-format',
  'password-file',
  'temp-dir',
  'T',
  'partial-dir',
  'backup-dir',
  'compare-dest',
  'copy-dest',
  'link-dest',
  'chmod',
  'chown',
  'usermap',
  'groupmap',
  'B',
  'block-size',
  'bwlimit',
  'timeout',
  'contimeout',
  'port',
  'max-size',
  'min-size',
  'max-delete',
  'suffix',
  'M',
  'remote-option',
  'out-format',
  'info',
  'debug',
  'iconv',
  'sockopts',
  'address',
  'protocol',
  'checksum-choice',
  'compress-choice',
  'compress-level',
  'skip-compress',
  'stop-at',
  'stop-after',
  'time-limit',
  'modify-window',
  'outbuf',
  'early-input',
  'checksum-seed',
  'write-batch',
  'read-batch',
  'only-write-batch',
  'max-alloc',
];

function rsync(segment: Segment): string | undefined {
  const args = scan(segment.argv, { withValue: RSYNC_WITH_VALUE });
  if (!hasAny(args, 'n', 'dry-run')) return undefined;
  if (
    hasAny(
      args,
      'e',
      'rsh',
      'rsync-path',
      'daemon',
      'password-file',
      'log-file',
      'write-batch',
      'only-write-batch',
      'read-batch',
      'early-input',
      'M',
      'remote-option',
    )
  )
    return undefined;
  if ([...args.flags].some((f) => f.startsWith('delete') || f === 'del' || f === 'remove-source-files'))
    return undefined;
  return 'rsync --dry-run';
}

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

const NPM_DRY_SUBCOMMANDS = new Set([
  'ci',
  'install',
  'i',
  'in',
  'add',
  'update',
  'up',
  'upgrade',
  'uninstall',
  'remove',
  'rm',
  'un',
  'unlink',
  'prune',
  'dedupe',
  'ddp',
  'publish',
  'pack',
]);

function npm(segment: Segment): string | undefined {
  const args = scan(segment.argv, {
    withValue: [
      'w',
      'workspace',
      'omit',
      'include',
      'tag',
      'registry',
      'script-shell',
      'userconfig',
      'globalconfig',
      'prefix',
      'otp',
    ],
  });
  const sub = args.positionals[0]?.text;
  if (sub === undefined || !NPM_DRY_SUBCOMMANDS.has(sub) || !hasAny(args, 'dry-run')) return undefined;
  // `--dry-run=false` is a real run.
  if (args.values.get('dry-run')?.some((v) => v !== 'true') === true) return undefined;
  return hasAny(args, 'script-shell', 'userconfig', 'globalconfig', 'node-options')
    ? undefined
    : `npm ${sub} --dry-run`;
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

function pip(segment: Segment): string | undefined {
  let from = 1;
  if (segment.name.startsWith('python')) {
    if (segment.argv[1] !== '-m' || segment.argv[2] !== 'pip') return undefined;
    from = 3;
  }
  const args = scan(segment.argv, {
    from,
    withValue: [
      'r',
      'requirement',
      'c',
      'constraint',
      'i',
      'index-url',
      'extra-index-url',
      'only-binary',
      'no-binary',
      'platform',
      'python-version',
      'implementation',
      'abi',
      'target',
      't',
      'prefix',
      'root',
      'report',
      'f',
      'find-links',
      'e',
      'editable',
    ],
  });
  if (args.positionals[0]?.text !== 'install' || !hasAny(args, 'dry-run')) return undefined;
  if (!(args.values.get('only-binary') ?? []).includes(':all:') || hasAny(args, 'e', 'editable', 'report', 'no-binary'))
    return undefined;
  return 'pip install --dry-run --only-binary=:all:';
}

function make(segment: Segment): string | undefined {
  const args = makeArgs(segment.argv);
  if (args === undefined || !hasAny(args, 'n', 'just-print', 'dry-run', 'recon')) return undefined;
  return args.positionals.some((p) => REACHES_OUT.test(p.text)) ? undefined : 'make -n';
}

function terraform(segment: Segment): string | undefined {
  const args = scan(segment.argv, { stopAtPositional: true });
  let positionals = args.positionals;
  if (segment.name === 'terragrunt' && (positionals[0]?.text === 'run-all' || positionals[0]?.text === 'run')) {
    positionals = scan(segment.argv, { from: positionals[0].index + 1, stopAtPositional: true }).positionals;
  }
  return positionals[0]?.text === 'plan' ? `${segment.name} plan` : undefined;
}

const KUBECTL_DRY_VERBS = new Set([
  'apply',
  'create',
  'replace',
  'patch',
  'delete',
  'scale',
  'autoscale',
  'set',
  'label',
  'annotate',
  'expose',
  'run',
  'drain',
  'cordon',
  'uncordon',
  'taint',
  'rollout',
]);

function kubectl(segment: Segment): string | undefined {
  const args = scan(segment.argv, {
    withValue: [
      'n',
      'namespace',
      'context',
      'kubeconfig',
      's',
      'server',
      'cluster',
      'user',
      'l',
      'selector',
      'f',
      'filename',
      'o',
      'output',
      'k',
      'kustomize',
      'field-manager',
      'type',
      'image',
      'replicas',
    ],
  });
  const verb = args.positionals[0]?.text;
  if (verb === undefined || !KUBECTL_DRY_VERBS.has(verb)) return undefined;
  const mode = args.values.get('dry-run');
  const dry =
    mode === undefined
      ? args.flags.has('dry-run')
      : mode.every((m) => m === 'client' || m === 'server' || m === 'true');
  if (!dry) return undefined;
  // The dry run prints the object it built: a secret's data, or a file's content.
  if (hasAny(args, 'from-file', 'from-env-file') || segment.argv.some((a) => /secret/i.test(a))) return undefined;
  return `kubectl ${verb} --dry-run`;
}

function helm(segment: Segment): string | undefined {
  const args = scan(segment.argv, {
    withValue: [
      'n',
      'namespace',
      'kube-context',
      'kubeconfig',
      'f',
      'values',
      'set',
      'set-string',
      'set-json',
      'version',
      'timeout',
      'repo',
      'post-renderer',
      'set-file',
      'output-dir',
    ],
  });
  const sub = args.positionals[0]?.text;
  if (hasAny(args, 'post-renderer', 'set-file', 'output-dir')) return undefined;
  if (sub === 'template' || sub === 'lint') return `helm ${sub}`;
  if (sub !== 'install' && sub !== 'upgrade' && sub !== 'rollback' && sub !== 'uninstall') return undefined;
  const mode = args.values.get('dry-run');
  const dry = mode === undefined ? args.flags.has('dry-run') : mode.every((m) => m === 'client' || m === 'true');
  return dry ? `helm ${sub} --dry-run` : undefined;
}

function aws(args: ScannedArgs): string | undefined {
  return hasAny(args, 'dry-run', 'dryrun') && !args.flags.has('no-dry-run') ? 'aws --dry-run' : undefined;
}

function apt(segment: Segment): string | undefined {
  const args = scan(segment.argv, { withValue: ['o', 'option', 'c', 'config-file', 't', 'target-release'] });
  if (hasAny(args, 'o', 'option', 'c', 'config-file')) return undefined;
  return hasAny(args, 's', 'simulate', 'just-print', 'dry-run', 'recon', 'no-act')
    ? `${segment.name} --simulate`
    : undefined;
}

/** What dry run, plan or check mode the segment is, or undefined. */
export function dryRun(segment: Segment): string | undefined {
  // Every option and operand must be known: an expansion could add `--dry-run=false`, `-f` or a target.
  if (segment.dynamicArgs.length > 0 || segment.argv.some(hasExpansion)) return undefined;
  switch (segment.name) {
    case 'rsync':
      return rsync(segment);
    case 'git':
      return git(segment);
    case 'npm':
      return npm(segment);
    case 'cargo':
      return cargo(segment);
    case 'pip':
    case 'pip3':
    case 'python':
    case 'python3':
      return pip(segment);
    case 'make':
    case 'gmake':
      return make(segment);
    case 'terraform':
    case 'tofu':
    case 'terragrunt':
      return terraform(segment);
    case 'pulumi':
      return scan(segment.argv, { withValue: ['C', 'cwd', 's', 'stack'] }).positionals[0]?.text === 'preview'
        ? 'pulumi preview'
        : undefined;
    case 'kubectl':
    case 'oc':
      return kubectl(segment);
    case 'helm':
      return helm(segment);
    case 'aws':
      return aws(scan(segment.argv, { withValue: ['profile', 'region', 'output', 'endpoint-url', 'query'] }));
    case 'az': {
      const words = segment.argv.slice(1).filter((w) => !w.startsWith('-'));
      return words[0] === 'deployment' && words.slice(1, 3).includes('what-if') ? 'az deployment what-if' : undefined;
    }
    case 'apt':
    case 'apt-get':
      return apt(segment);
    case 'patch':
      return segment.argv.includes('--dry-run') && !segment.argv.some((w) => w === '-o' || w.startsWith('--output'))
        ? 'patch --dry-run'
        : undefined;
    default:
      return undefined;
  }
}

export const DRY_RUN_COMMANDS: readonly string[] = [
  'rsync',
  'git',
  'npm',
  'cargo',
  'pip',
  'pip3',
  'python',
  'python3',
  'make',
  'gmake',
  'terraform',
  'tofu',
  'terragrunt',
  'pulumi',
  'kubectl',
  'oc',
  'helm',
  'aws',
  'az',
  'apt',
  'apt-get',
  'patch',
];
