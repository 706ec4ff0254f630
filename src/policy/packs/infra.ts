/**
 * Live infrastructure. Changing it (terraform/tofu apply, pulumi up, kubectl apply/delete/drain, helm
 * install/upgrade/uninstall, cloud CLI delete-/terminate- operations) → ask: normal work, but a human
 * should see it happen. Destroying whole environments (terraform destroy, pulumi destroy, deleting
 * namespaces or everything in one, recursive bucket deletion, deleting a cloud project or resource
 * group) → deny: irreversible, and a human should run it deliberately.
 * Plans, diffs, dry runs and reads (terraform plan, kubectl get, `aws s3 rm --dryrun`, aws … describe-*) are
 * not this pack's concern (the read-only pack allows the ones it can vouch for).
 */
import type { Segment } from '../../shell/types.js';
import { hasAny, scan, type ScannedArgs } from './argv.js';
import { definePack, type PackFinding } from './types.js';

const RULES = {
  'terraform-apply': {
    verdict: 'ask',
    message:
      'applies infrastructure changes to a live environment. Run plan first and let a human review it; a human confirms the apply.',
  },
  'terraform-destroy': {
    verdict: 'deny',
    message:
      'destroys every resource the configuration manages (terraform destroy / apply -destroy). A human runs destroys by hand, after a plan -destroy review.',
  },
  'terraform-state': {
    verdict: 'ask',
    message:
      'edits terraform state directly (state rm/mv/push, import, taint, force-unlock, workspace delete); mistakes orphan or duplicate real resources. A human confirms.',
  },
  'pulumi-up': {
    verdict: 'ask',
    message:
      'deploys infrastructure changes (pulumi up / refresh / state edits). Run pulumi preview first; a human confirms.',
  },
  'pulumi-destroy': {
    verdict: 'deny',
    message: 'destroys every resource in the stack, or removes the stack and its history. A human runs this by hand.',
  },
  'kubectl-change': {
    verdict: 'ask',
    message:
      'changes a live Kubernetes cluster (apply, patch, scale, rollout, exec, drain, cordon, …). Check the context (kubectl config current-context) and use --dry-run=server first; a human confirms.',
  },
  'kubectl-delete': {
    verdict: 'ask',
    message: 'deletes Kubernetes resources from a live cluster. Check the context and namespace; a human confirms.',
  },
  'kubectl-delete-bulk': {
    verdict: 'deny',
    message:
      'deletes a namespace, persistent volumes, CRDs or nodes, or every resource of a kind (--all / --all-namespaces): everything inside goes with it. A human does this by hand.',
  },
  'helm-change': {
    verdict: 'ask',
    message:
      'installs, upgrades, rolls back or uninstalls a Helm release on a live cluster. Use helm diff or --dry-run first; a human confirms.',
  },
  'cloud-delete': {
    verdict: 'ask',
    message: 'deletes or terminates cloud resources. Check the account/project and region; a human confirms.',
  },
  'cloud-bulk-delete': {
    verdict: 'deny',
    message:
      'deletes data or resources wholesale (aws s3 rm --recursive, s3 rb --force, s3 sync --delete, gcloud projects delete, az group delete). A human does this by hand.',
  },
} as const;
type RuleId = keyof typeof RULES;

function terraform(segment: Segment): PackFinding<RuleId> | undefined {
  // Global options are -chdir=DIR style (one word), so the first positional is the subcommand.
  const args = scan(segment.argv, { stopAtPositional: true });
  let positionals = args.positionals;
  let sub = positionals[0]?.text;
  if (segment.name === 'terragrunt' && (sub === 'run-all' || sub === 'run')) {
    positionals = scan(segment.argv, { from: positionals[0]!.index + 1, stopAtPositional: true }).positionals;
    sub = positionals[0]?.text;
  }
  if (sub === undefined) return undefined;
  const rest = scan(segment.argv, { from: positionals[0]!.index + 1 });
  switch (sub) {
    case 'apply':
      // terraform spells long options with one dash (-destroy, -auto-approve).
      return segment.argv.includes('-destroy') || segment.argv.includes('--destroy')
        ? { rule: 'terraform-destroy', detail: 'apply -destroy' }
        : { rule: 'terraform-apply' };
    case 'destroy':
      return { rule: 'terraform-destroy' };
    case 'import':
    case 'taint':
    case 'untaint':
    case 'force-unlock':
      return { rule: 'terraform-state', detail: sub };
    case 'state':
    case 'workspace': {
      const action = rest.positionals[0]?.text;
      const edits = sub === 'state' ? ['rm', 'mv', 'push', 'replace-provider'] : ['delete'];
      return action !== undefined && edits.includes(action)
        ? { rule: 'terraform-state', detail: `${sub} ${action}` }
        : undefined;
    }
    default:
      return undefined;
  }
}

function pulumi(segment: Segment): PackFinding<RuleId> | undefined {
  const args = scan(segment.argv, { withValue: ['C', 'cwd', 's', 'stack'] });
  const [sub, action] = args.positionals.map((p) => p.text);
  if (sub === 'destroy' || (sub === 'stack' && action === 'rm'))
    return { rule: 'pulumi-destroy', detail: action === 'rm' ? 'stack rm' : 'destroy' };
  if (
    sub === 'up' ||
    sub === 'update' ||
    sub === 'refresh' ||
    sub === 'import' ||
    (sub === 'state' && (action === 'delete' || action === 'unprotect'))
  ) {
    return { rule: 'pulumi-up', detail: sub };
  }
  return undefined;
}

const KUBECTL_WITH_VALUE = [
  'n',
  'namespace',
  'context',
  'kubeconfig',
  's',
  'server',
  'cluster',
  'user',
  'token',
  'l',
  'selector',
  'f',
  'filename',
  'o',
  'output',
  'as',
  'as-group',
  'field-selector',
  'grace-period',
  'timeout',
  'c',
  'container',
  'replicas',
  'type',
  'k',
  'kustomize',
];
const KUBECTL_CHANGES = new Set([
  'apply',
  'create',
  'replace',
  'patch',
  'edit',
  'scale',
  'autoscale',
  'set',
  'label',
  'annotate',
  'rollout',
  'expose',
  'run',
  'exec',
  'cp',
  'drain',
  'cordon',
  'uncordon',
  'taint',
]);
const BULK_KINDS = new Set([
  'namespace',
  'namespaces',
  'ns',
  'pv',
  'persistentvolume',
  'persistentvolumes',
  'pvc',
  'persistentvolumeclaim',
  'persistentvolumeclaims',
  'crd',
  'crds',
  'customresourcedefinition',
  'customresourcedefinitions',
  'node',
  'nodes',
  'no',
]);

function kubectl(segment: Segment): PackFinding<RuleId> | undefined {
  const args = scan(segment.argv, { withValue: KUBECTL_WITH_VALUE });
  const sub = args.positionals[0]?.text;
  if (sub === undefined) return undefined;
  if (sub === 'delete') {
    if (args.flags.has('dry-run') || args.values.get('dry-run')?.some((v) => v !== 'none') === true) return undefined;
    const kinds = (args.positionals[1]?.text ?? '')
      .split(',')
      .map((k) => k.split('/')[0]!.split('.')[0]!.toLowerCase());
    if (hasAny(args, 'all', 'A', 'all-namespaces')) return { rule: 'kubectl-delete-bulk', detail: '--all' };
    const bulk = kinds.find((k) => BULK_KINDS.has(k));
    if (bulk !== undefined) return { rule: 'kubectl-delete-bulk', detail: `kind ${bulk}` };
    return {
      rule: 'kubectl-delete',
      detail:
        args.positionals
          .slice(1)
          .map((p) => p.text)
          .join(' ') || 'from file',
    };
  }
  if (KUBECTL_CHANGES.has(sub)) {
    if (sub === 'rollout' && ['status', 'history'].includes(args.positionals[1]?.text ?? '')) return undefined;
    if (args.flags.has('dry-run') || args.values.get('dry-run')?.some((v) => v === 'client' || v === 'server') === true)
      return undefined;
    return { rule: 'kubectl-change', detail: sub };
  }
  return undefined;
}

const HELM_CHANGES = new Set(['install', 'upgrade', 'rollback', 'uninstall', 'delete', 'del', 'un']);

function helm(segment: Segment): PackFinding<RuleId> | undefined {
  const args = scan(segment.argv, {
    withValue: ['n', 'namespace', 'kube-context', 'kubeconfig', 'f', 'values', 'set', 'version', 'timeout', 'repo'],
  });
  const sub = args.positionals[0]?.text;
  const dryRun =
    args.flags.has('dry-run') || args.values.get('dry-run')?.every((v) => v !== 'none' && v !== 'false') === true;
  if (sub === undefined || !HELM_CHANGES.has(sub) || dryRun) return undefined;
  return { rule: 'helm-change', detail: sub };
}

const AWS_WITH_VALUE = [
  'profile',
  'region',
  'output',
  'endpoint-url',
  'query',
  'color',
  'ca-bundle',
  'cli-read-timeout',
  'cli-connect-timeout',
  'cli-binary-format',
];
const AWS_DESTRUCTIVE_PREFIXES = ['delete-', 'terminate-', 'deregister-', 'remove-', 'purge-', 'destroy-'];

function aws(args: ScannedArgs): PackFinding<RuleId> | undefined {
  const [service, operation] = args.positionals.map((p) => p.text);
  if (service === undefined || operation === undefined) return undefined;
  if (service === 's3') {
    // `--dryrun` only lists what the s3 command would do.
    if (args.flags.has('dryrun')) return undefined;
    if (
      (operation === 'rm' && args.flags.has('recursive')) ||
      (operation === 'rb' && args.flags.has('force')) ||
      (operation === 'sync' && args.flags.has('delete'))
    ) {
      return { rule: 'cloud-bulk-delete', detail: `aws s3 ${operation}` };
    }
    return operation === 'rm' || operation === 'rb'
      ? { rule: 'cloud-delete', detail: `aws s3 ${operation}` }
      : undefined;
  }
  if (args.flags.has('dry-run')) return undefined;
  return AWS_DESTRUCTIVE_PREFIXES.some((p) => operation.startsWith(p))
    ? { rule: 'cloud-delete', detail: `aws ${service} ${operation}` }
    : undefined;
}

function verbCli(segment: Segment, bulk: readonly (readonly [string, string])[]): PackFinding<RuleId> | undefined {
  const words = scan(segment.argv, {
    withValue: [
      'project',
      'account',
      'configuration',
      'subscription',
      'g',
      'resource-group',
      'n',
      'name',
      'zone',
      'region',
      'format',
    ],
  }).positionals.map((p) => p.text);
  const verbAt = words.findIndex((w) => w === 'delete' || w === 'purge');
  if (verbAt === -1) return undefined;
  const group = words[verbAt - 1];
  if (bulk.some(([noun, verb]) => group === noun && words[verbAt] === verb))
    return { rule: 'cloud-bulk-delete', detail: `${segment.name} ${group} delete` };
  return { rule: 'cloud-delete', detail: `${segment.name} ${words.slice(0, verbAt + 1).join(' ')}` };
}

export const infraPack = definePack<RuleId>({
  name: 'infra',
  kind: 'guard',
  description:
    'terraform/tofu apply & destroy, pulumi up & destroy, kubectl changes & deletes, helm releases, aws/gcloud/az deletes',
  commands: ['terraform', 'tofu', 'terragrunt', 'pulumi', 'kubectl', 'oc', 'helm', 'aws', 'gcloud', 'az'],
  rules: RULES,
  classify(segment) {
    switch (segment.name) {
      case 'terraform':
      case 'tofu':
      case 'terragrunt':
        return terraform(segment);
      case 'pulumi':
        return pulumi(segment);
      case 'kubectl':
      case 'oc':
        return kubectl(segment);
      case 'helm':
        return helm(segment);
      case 'aws':
        return aws(scan(segment.argv, { withValue: AWS_WITH_VALUE }));
      case 'gcloud':
        return verbCli(segment, [['projects', 'delete']]);
      case 'az':
        return verbCli(segment, [['group', 'delete']]);
      default:
        return undefined;
    }
  },
});
