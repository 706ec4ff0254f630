/**
 * Containers (docker, podman, nerdctl, docker compose). Volumes hold data (databases, uploads): pruning
 * them is irreversible → deny. Pruning images/containers/networks and mass removal through a
 * substitution (`docker rm -f $(docker ps -aq)`) are recoverable but wide → ask. Removing one named
 * container is left to later tiers.
 */
import type { Segment } from '../../shell/types.js';
import { hasAny, hasExpansion, isDynamic, scan, type ScannedArgs } from './argv.js';
import { definePack, type PackFinding } from './types.js';

const RULES = {
  'prune-volumes': {
    verdict: 'deny',
    message:
      'deletes every unused volume (volume prune / system prune --volumes) — the data of any database or service whose container is not running right now. Remove the specific volume by name (docker volume rm <name>) after checking it.',
  },
  'system-prune': {
    verdict: 'ask',
    message:
      'removes all stopped containers, unused networks, and dangling (with -a: all unused) images and build cache. A human confirms; prune one kind at a time to keep control.',
  },
  prune: {
    verdict: 'ask',
    message: 'prunes unused containers, images, networks or build cache in bulk. A human confirms.',
  },
  'remove-all': {
    verdict: 'ask',
    message:
      'removes containers, images or volumes listed at run time (e.g. $(docker ps -aq)): every one of them, including ones other projects need. Remove the ones you mean by name; a human confirms.',
  },
  'volume-remove': {
    verdict: 'ask',
    message: 'removes a volume and the data in it. A human confirms it is the right one.',
  },
  'compose-down-volumes': {
    verdict: 'ask',
    message:
      "with -v, also deletes the project's named volumes and their data (e.g. the dev database). Drop -v to keep them; a human confirms.",
  },
} as const;
type RuleId = keyof typeof RULES;

const GLOBAL_WITH_VALUE = [
  'H',
  'host',
  'context',
  'c',
  'config',
  'l',
  'log-level',
  'url',
  'connection',
  'namespace',
  'n',
];
const COMPOSE_WITH_VALUE = ['f', 'file', 'p', 'project-name', 'project-directory', 'env-file', 'profile'];

function removes(segment: Segment, args: ScannedArgs, from: number, what: string): PackFinding<RuleId> | undefined {
  const operands = args.positionals.filter((p) => p.index >= from);
  const dynamic =
    operands.some((p) => isDynamic(segment, p.index) || hasExpansion(p.text)) || segment.flags.appendsArgs === true;
  return dynamic
    ? { rule: 'remove-all', detail: `${segment.name} ${what} ${operands.map((p) => p.text).join(' ')}` }
    : undefined;
}

function compose(segment: Segment, from: number): PackFinding<RuleId> | undefined {
  const args = scan(segment.argv, { from, withValue: COMPOSE_WITH_VALUE });
  const sub = args.positionals[0]?.text;
  if (sub === 'down' && hasAny(args, 'v', 'volumes')) return { rule: 'compose-down-volumes' };
  if (sub === 'rm' && hasAny(args, 'v', 'volumes')) return { rule: 'compose-down-volumes', detail: 'compose rm -v' };
  return undefined;
}

function classifyContainers(segment: Segment): PackFinding<RuleId> | undefined {
  if (segment.name === 'docker-compose' || segment.name === 'podman-compose') return compose(segment, 1);
  if (segment.name !== 'docker' && segment.name !== 'podman' && segment.name !== 'nerdctl') return undefined;
  const globals = scan(segment.argv, { withValue: GLOBAL_WITH_VALUE, stopAtPositional: true });
  const first = globals.positionals[0];
  if (first === undefined) return undefined;
  if (first.text === 'compose') return compose(segment, first.index + 1);
  const args = scan(segment.argv, {
    from: first.index + 1,
    withValue: ['filter', 'format', 't', 'time', 's', 'signal'],
  }); // -f is --force here
  const second = args.positionals[0];
  const management = ['system', 'volume', 'container', 'image', 'network', 'builder', 'buildx'];
  if (management.includes(first.text)) {
    const action = second?.text;
    if (action === 'prune') {
      if (first.text === 'volume' || (first.text === 'system' && args.flags.has('volumes')))
        return { rule: 'prune-volumes', detail: `${first.text} prune` };
      return first.text === 'system'
        ? { rule: 'system-prune', detail: hasAny(args, 'a', 'all') ? 'system prune -a' : 'system prune' }
        : { rule: 'prune', detail: `${first.text} prune` };
    }
    if (action === 'rm' || action === 'remove') {
      if (first.text === 'volume')
        return removes(segment, args, second!.index + 1, 'volume rm') ?? { rule: 'volume-remove' };
      return removes(segment, args, second!.index + 1, `${first.text} rm`);
    }
    return undefined;
  }
  if (first.text === 'rm' || first.text === 'rmi' || first.text === 'kill' || first.text === 'stop') {
    return removes(segment, args, first.index + 1, first.text);
  }
  return undefined;
}

export const containersPack = definePack<RuleId>({
  name: 'containers',
  kind: 'guard',
  description: 'docker/podman volume & system prune, mass rm $(docker ps -aq), compose down -v',
  commands: ['docker', 'podman', 'nerdctl', 'docker-compose', 'podman-compose'],
  rules: RULES,
  classify: classifyContainers,
});
