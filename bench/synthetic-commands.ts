/**
 * Realistic synthetic Bash commands for the decision-memory benchmarks: what a coding agent runs all day
 * (git, npm, docker, kubectl, make, pytest, cargo, ls, rg, curl, …) with varied subcommands, flags, paths,
 * branch names, numbers and the odd `cd … &&` prefix. Seeded: the same list for the same seed.
 *
 * The commands are written in hookwise's normalized subject form (memory/subject.ts: one space between
 * words, plain words unquoted, segments joined by their operator), so a command is also the subject text
 * memory stores for it. The memory suite checks that on a sample through the real parser.
 */
import { prng } from './prng.js';

const MODULES = [
  'auth',
  'billing',
  'cache',
  'cli',
  'config',
  'core',
  'db',
  'events',
  'gateway',
  'http',
  'i18n',
  'jobs',
  'logging',
  'mailer',
  'memory',
  'metrics',
  'models',
  'orders',
  'parser',
  'payments',
  'policy',
  'queue',
  'router',
  'sanitize',
  'search',
  'session',
  'shell',
  'storage',
  'sync',
  'telemetry',
  'ui',
  'users',
  'utils',
  'web',
  'workers',
  'api',
];
const FILES = [
  'index',
  'client',
  'server',
  'handler',
  'types',
  'schema',
  'store',
  'service',
  'utils',
  'main',
  'routes',
  'view',
  'model',
  'worker',
  'hooks',
];
const EXTS = ['ts', 'tsx', 'js', 'py', 'rs', 'go', 'json', 'yaml', 'md'];
const WORDS = [
  'fix',
  'retry',
  'timeout',
  'flaky',
  'cleanup',
  'refactor',
  'perf',
  'docs',
  'lint',
  'deps',
  'release',
  'hotfix',
  'login',
  'signup',
  'export',
  'import',
  'upload',
  'migrate',
  'rollback',
  'cursor',
  'paging',
  'oauth',
  'webhook',
  'cron',
];
const SCRIPTS = [
  'build',
  'test',
  'lint',
  'dev',
  'start',
  'typecheck',
  'format',
  'bench',
  'e2e',
  'storybook',
  'docs',
  'release',
  'clean',
  'coverage',
];
const PACKAGES = [
  'lodash',
  'zod',
  'react',
  'vitest',
  'esbuild',
  'typescript',
  'express',
  'axios',
  'dayjs',
  'pino',
  'commander',
  'yaml',
  'undici',
  'fastify',
  'prisma',
];
const NAMESPACES = ['default', 'staging', 'prod', 'dev', 'monitoring', 'ingress', 'payments', 'kube-system'];
const SERVICES = ['api', 'web', 'worker', 'db', 'redis', 'queue', 'proxy', 'scheduler', 'search', 'mailer'];
const TARGETS = [
  'all',
  'build',
  'test',
  'lint',
  'clean',
  'install',
  'docs',
  'release',
  'check',
  'fmt',
  'proto',
  'docker',
];
const CRATES = ['core', 'cli', 'server', 'parser', 'store', 'proto', 'macros', 'bench'];
const HOSTS = [
  'api.example.com',
  'registry.npmjs.org',
  'api.github.com',
  'localhost:8080',
  'httpbin.org',
  'status.internal.dev',
];

/**
 * `n` distinct commands for `seed` (memory holds one entry per subject: a repeat is the same key). The
 * small families (`make <target>`, `npm ci`) run out of new commands first, so a large list leans towards
 * the families with numbers, branches and paths in them — as a long-lived memory would.
 */
export function syntheticCommands(n: number, seed: number): string[] {
  const random = prng(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const int = (lo: number, hi: number): number => lo + Math.floor(random() * (hi - lo + 1));
  const hex = (len: number): string => Array.from({ length: len }, () => '0123456789abcdef'[int(0, 15)]).join('');
  const dir = (): string =>
    random() < 0.5 ? `src/${pick(MODULES)}` : `${pick(['packages', 'services', 'apps', 'crates'])}/${pick(MODULES)}`;
  const file = (ext = pick(EXTS)): string => `${dir()}/${pick(FILES)}.${ext}`;
  const branch = (): string =>
    `${pick(['feature', 'fix', 'chore', 'release'])}/${pick(MODULES)}-${pick(WORDS)}-${int(1, 999)}`;

  const families: (() => string)[] = [
    () =>
      pick([
        () => 'git status --short',
        () => `git log --oneline -n ${int(5, 50)}`,
        () => `git log --oneline -n ${int(5, 50)} -- ${file()}`,
        () => `git diff --stat ${pick(['HEAD', 'main', 'origin/main', `HEAD~${int(1, 9)}`])}`,
        () => `git diff ${file()}`,
        () => `git checkout -b ${branch()}`,
        () => `git switch ${branch()}`,
        () => `git add ${file()} ${file()}`,
        () => `git commit -m ${pick(WORDS)}-${pick(MODULES)}`,
        () => `git push origin ${branch()}`,
        () => `git pull --rebase origin ${pick(['main', 'develop', branch()])}`,
        () => `git fetch --all --prune`,
        () => `git show ${hex(7)}`,
        () => `git rebase -i HEAD~${int(2, 12)}`,
        () => 'git stash list',
        () => `git blame -L ${int(1, 400)},+${int(5, 40)} ${file()}`,
      ])(),
    () =>
      pick([
        () => `npm run ${pick(SCRIPTS)}`,
        () => `npm run ${pick(SCRIPTS)} -- --filter ${pick(MODULES)}`,
        () => `npm install ${pick(PACKAGES)}@${int(1, 9)}.${int(0, 30)}.${int(0, 20)}`,
        () => `npm install -D ${pick(PACKAGES)}`,
        () => `npm test -- ${file('ts')}`,
        () => `npm ci`,
        () => `npx tsc --noEmit -p ${pick(['.', `packages/${pick(MODULES)}`])}`,
        () => `npx vitest run ${dir()}`,
        () => `npm view ${pick(PACKAGES)} version`,
        () => `cd ${pick(['packages', 'apps'])}/${pick(MODULES)} && npm run ${pick(SCRIPTS)}`,
      ])(),
    () =>
      pick([
        () => `docker build -t ${pick(SERVICES)}:${pick(['latest', 'dev', hex(7), `v${int(1, 4)}.${int(0, 20)}`])} .`,
        () => `docker compose up -d ${pick(SERVICES)}`,
        () => `docker compose logs -f --tail ${int(10, 500)} ${pick(SERVICES)}`,
        () => `docker ps -a --filter name=${pick(SERVICES)}`,
        () => `docker run --rm -p ${int(3000, 9000)}:${int(80, 8080)} ${pick(SERVICES)}:latest`,
        () => `docker restart ${pick(SERVICES)}-${int(1, 3)}`,
        () => `docker images --format table`,
      ])(),
    () =>
      pick([
        () =>
          `kubectl get ${pick(['pods', 'svc', 'deployments', 'ingress', 'configmaps', 'events'])} -n ${pick(NAMESPACES)}`,
        () => `kubectl describe deployment ${pick(SERVICES)} -n ${pick(NAMESPACES)}`,
        () => `kubectl logs ${pick(SERVICES)}-${hex(5)} -n ${pick(NAMESPACES)} --tail=${int(50, 1000)}`,
        () => `kubectl apply -f k8s/${pick(NAMESPACES)}/${pick(SERVICES)}.yaml`,
        () => `kubectl rollout status deployment/${pick(SERVICES)} -n ${pick(NAMESPACES)}`,
        () => `kubectl top pods -n ${pick(NAMESPACES)}`,
      ])(),
    () =>
      pick([
        () => `make ${pick(TARGETS)}`,
        () => `make -C ${dir()} ${pick(TARGETS)}`,
        () => `make -j${int(2, 16)} ${pick(TARGETS)}`,
      ])(),
    () =>
      pick([
        () => `pytest tests/${pick(MODULES)}/test_${pick(FILES)}.py -k ${pick(WORDS)} -x`,
        () => `pytest -q tests/${pick(MODULES)}`,
        () => `python -m pytest --maxfail=${int(1, 5)} tests/${pick(MODULES)}/test_${pick(FILES)}.py`,
        () => `python scripts/${pick(WORDS)}_${pick(MODULES)}.py --dry-run`,
      ])(),
    () =>
      pick([
        () => `cargo build --release -p ${pick(CRATES)}`,
        () => `cargo test ${pick(WORDS)} -- --nocapture`,
        () => `cargo test -p ${pick(CRATES)} --lib`,
        () => `cargo clippy --all-targets -- -D warnings`,
        () => `cargo run --bin ${pick(CRATES)} -- --port ${int(3000, 9000)}`,
        () => `cargo fmt --all -- --check`,
      ])(),
    () => pick([() => `ls -la ${dir()}`, () => `ls ${dir()}`, () => `ls -R ${dir()}`])(),
    () =>
      pick([
        () => `rg -n ${pick(WORDS)} ${dir()}`,
        () => `rg -l ${pick(MODULES)}${pick(['Client', 'Store', 'Error', 'Handler'])} ${dir()}`,
        () => `rg -n --type ${pick(['ts', 'py', 'rust', 'go'])} ${pick(WORDS)}`,
        () => `grep -rn ${pick(WORDS)} ${dir()}`,
      ])(),
    () =>
      pick([
        () => `curl -s https://${pick(HOSTS)}/v${int(1, 3)}/${pick(MODULES)}/${int(1, 99999)}`,
        () => `curl -sS -X ${pick(['GET', 'POST', 'DELETE'])} https://${pick(HOSTS)}/${pick(MODULES)}`,
        () => `curl -I https://${pick(HOSTS)}/health`,
      ])(),
    () =>
      pick([
        () => `cat ${file()}`,
        () => `head -n ${int(10, 200)} ${file()}`,
        () => `wc -l ${file()}`,
        () => `node scripts/${pick(WORDS)}.js --${pick(['dry-run', 'verbose', 'force'])}`,
        () => `go test ./${dir()}/...`,
        () => `go build -o bin/${pick(SERVICES)} ./cmd/${pick(SERVICES)}`,
        () => `terraform plan -var-file=envs/${pick(NAMESPACES)}.tfvars`,
        () => `git add -A && git commit -m ${pick(WORDS)}`,
        () => `npm run build && npm test`,
      ])(),
  ];
  // Agents run git and the package manager most; the rest in roughly equal shares.
  const weights = [6, 5, 2, 2, 2, 2, 2, 2, 3, 1, 3];
  const total = weights.reduce((a, b) => a + b, 0);
  const family = (): (() => string) => {
    let r = random() * total;
    for (let i = 0; i < families.length; i++) if ((r -= weights[i]!) < 0) return families[i]!;
    return families[0]!;
  };
  const out = new Set<string>();
  for (let attempts = 0; out.size < n; attempts++) {
    if (attempts > n * 100)
      throw new Error(`bench: the synthetic command generator cannot make ${n} distinct commands`);
    out.add(family()());
  }
  return [...out];
}

/** The command names of a synthetic command's segments (argv[0] of each `&&`-joined part). */
export function commandNames(command: string): string[] {
  return command.split(' && ').map((segment) => segment.split(' ')[0]!);
}
