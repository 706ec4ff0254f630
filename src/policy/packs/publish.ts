/**
 * Publishing: a released package, image or release cannot be taken back from everyone who already
 * fetched it, so a human confirms every publish (ask); unpublishing breaks every dependent and the
 * version can never be reused (deny). Dry runs are left alone.
 */
import type { Segment } from '../../shell/types.js';
import { hasAny, scan } from './argv.js';
import { definePack, type PackFinding } from './types.js';

const RULES = {
  'package-publish': {
    verdict: 'ask',
    message:
      'publishes a package to a public registry, where every version is permanent and fetched by others at once. Run it with --dry-run to check the contents; a human confirms the real publish.',
  },
  'package-unpublish': {
    verdict: 'deny',
    message:
      'unpublishes a package version: every project depending on it breaks and the version number can never be reused. Deprecate it instead (npm deprecate), by hand.',
  },
  'package-yank': {
    verdict: 'ask',
    message: 'yanks a published version, so new installs can no longer resolve it. A human confirms.',
  },
  'image-push': {
    verdict: 'ask',
    message:
      'pushes a container image to a registry, where deployments may pick it up immediately. A human confirms the tag and registry.',
  },
  'release-publish': {
    verdict: 'ask',
    message:
      'creates, edits or deletes a public release (tags, notes, assets) that users are notified of. Create it as a draft (--draft); a human confirms.',
  },
} as const;
type RuleId = keyof typeof RULES;

const NODE_MANAGERS = new Set(['npm', 'pnpm', 'bun']);
const PYTHON_PUBLISHERS = new Set(['poetry', 'flit', 'hatch', 'uv', 'pdm']);

/** `--dry-run` only: short spellings differ per tool (`poetry publish -n` means --no-interaction). */
function dryRun(segment: Segment): boolean {
  return hasAny(scan(segment.argv), 'dry-run');
}

const GENERIC_WITH_VALUE = [
  'registry',
  'tag',
  'access',
  'otp',
  'r',
  'repository',
  'token',
  'workspace',
  'w',
  'C',
  'dir',
  'prefix',
  'filter',
];
const CONTAINER_WITH_VALUE = [
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

function subcommandWords(segment: Segment, withValue: string[]): string[] {
  return scan(segment.argv, { withValue }).positionals.map((p) => p.text);
}

function classifyPublish(segment: Segment): PackFinding<RuleId> | undefined {
  const name = segment.name;
  if (!PUBLISHERS.has(name)) return undefined; // most segments: no scanning at all
  const container = name === 'docker' || name === 'podman' || name === 'nerdctl';
  const words = subcommandWords(segment, container ? CONTAINER_WITH_VALUE : GENERIC_WITH_VALUE);
  const [first, second] = words;
  const publish = (detail: string): PackFinding<RuleId> | undefined =>
    dryRun(segment) ? undefined : { rule: 'package-publish', detail };
  if (NODE_MANAGERS.has(name)) {
    if (first === 'unpublish') return { rule: 'package-unpublish', detail: `${name} unpublish` };
    return first === 'publish' ? publish(`${name} publish`) : undefined;
  }
  if (name === 'yarn') {
    if (first === 'publish' || (first === 'npm' && second === 'publish')) return publish('yarn publish');
    return first === 'npm' && second === 'unpublish'
      ? { rule: 'package-unpublish', detail: 'yarn npm unpublish' }
      : undefined;
  }
  if (name === 'cargo') {
    if (first === 'publish') return publish('cargo publish');
    return first === 'yank' && !segment.argv.includes('--undo')
      ? { rule: 'package-yank', detail: 'cargo yank' }
      : undefined;
  }
  if (name === 'twine') return first === 'upload' ? publish('twine upload') : undefined;
  if (
    (name === 'python' || name === 'python3') &&
    segment.argv[1] === '-m' &&
    segment.argv[2] === 'twine' &&
    segment.argv[3] === 'upload'
  ) {
    return publish('python -m twine upload');
  }
  if (PYTHON_PUBLISHERS.has(name)) return first === 'publish' ? publish(`${name} publish`) : undefined;
  if (name === 'gem') {
    if (first === 'push') return publish('gem push');
    return first === 'yank' ? { rule: 'package-yank', detail: 'gem yank' } : undefined;
  }
  if (container) {
    const push =
      first === 'push' ||
      (first === 'image' && second === 'push') ||
      (first === 'buildx' && segment.argv.includes('--push'));
    return push ? { rule: 'image-push', detail: `${name} ${words.slice(0, 3).join(' ')}` } : undefined;
  }
  if (
    name === 'gh' &&
    first === 'release' &&
    (second === 'create' || second === 'edit' || second === 'delete' || second === 'upload')
  ) {
    return segment.argv.includes('--draft') && second === 'create'
      ? undefined
      : { rule: 'release-publish', detail: `gh release ${second}` };
  }
  if (name === 'mvn' || name === 'mvnw') return words.includes('deploy') ? publish(`${name} deploy`) : undefined;
  if (name === 'gradle' || name === 'gradlew') {
    return words.some((w) => w === 'publish' || w.startsWith('publish')) ? publish(`${name} publish`) : undefined;
  }
  if (name === 'dotnet' && first === 'nuget' && second === 'push') return publish('dotnet nuget push');
  return undefined;
}

const PUBLISHERS = new Set([
  'npm',
  'pnpm',
  'bun',
  'yarn',
  'cargo',
  'twine',
  'python',
  'python3',
  'poetry',
  'flit',
  'hatch',
  'uv',
  'pdm',
  'gem',
  'docker',
  'podman',
  'nerdctl',
  'gh',
  'mvn',
  'mvnw',
  'gradle',
  'gradlew',
  'dotnet',
]);

export const publishPack = definePack<RuleId>({
  name: 'publish',
  kind: 'guard',
  description:
    'npm/yarn/pnpm/bun publish, cargo publish, twine/poetry/uv publish, gem push, docker push, gh release, mvn deploy (unpublish: deny)',
  commands: [...PUBLISHERS],
  rules: RULES,
  classify: classifyPublish,
});
