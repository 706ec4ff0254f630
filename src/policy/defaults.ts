/**
 * Built-in defaults: path categories, the fourteen roles and the sensitive paths. Projects override any of
 * them in .hookwise/roles.yml and .hookwise/policy.yml; users in ~/.config/hookwise/config.yml.
 *
 * Glob semantics (picomatch, dotfiles included): a pattern with a `/` is anchored at the project root;
 * a pattern without one matches the file name at any depth, as in .gitignore (`*.test.*` matches
 * `src/a.test.ts`). `~/` patterns match absolute paths under the home directory.
 */

export const DEFAULT_CATEGORIES: Readonly<Record<string, readonly string[]>> = {
  source: ['src/**', 'lib/**'],
  tests: ['tests/**', 'test/**', 'test-fixtures/**', '__tests__/**', '*.test.*', '*.spec.*', '*_test.go', 'test_*.py'],
  docs: ['docs/**'],
  ci: ['.github/**', '.gitlab-ci.yml', '.circleci/**', 'Jenkinsfile', '.buildkite/**'],
  infra: [
    '*.tf',
    '*.tfvars',
    '*.hcl',
    'terraform/**',
    'infra/**',
    'pulumi/**',
    'cdk/**',
    'cloudformation/**',
    'ansible/**',
    'helm/**',
  ],
  config_files: [
    'package.json',
    'package-lock.json',
    'Cargo.toml',
    'Cargo.lock',
    'go.mod',
    'go.sum',
    'pyproject.toml',
    'requirements*.txt',
  ],
  devops: [
    'Dockerfile*',
    'docker-compose*',
    '.dockerignore',
    'Makefile',
    '.eslintrc*',
    '.prettierrc*',
    '.editorconfig',
    'tsconfig*',
    '.tool-versions',
    '.nvmrc',
    '.python-version',
    '.ruby-version',
    'rust-toolchain.toml',
    'lefthook.yml',
    '.husky/**',
    '.pre-commit-config.yaml',
  ],
  test_config: ['jest.config.*', 'vitest.config.*', 'pytest.ini', '.coveragerc', 'codecov.yml'],
  research_output: ['docs/research/**'],
  architecture_output: ['docs/architecture/**', 'docs/adr/**'],
  plans_output: ['docs/plans/**'],
  reviews_output: ['docs/reviews/**'],
  security_reviews_output: ['docs/reviews/security/**'],
  docs_output: ['docs/**', '*.md', 'CHANGELOG*', 'LICENSE*'],
};

/** What a role may be called: a plain lower-case word (never `__proto__`, `constructor`, a path or a secret). */
export const ROLE_NAME = /^[a-z][a-z0-9_-]{0,62}$/;

export const ROLE_GROUPS = ['implementation', 'knowledge', 'full-access', 'orchestration', 'custom'] as const;
export type RoleGroup = (typeof ROLE_GROUPS)[number];

export interface RoleDefaults {
  group: RoleGroup;
  description: string;
  allow_write: readonly string[];
  deny_write: readonly string[];
  allow_read: readonly string[];
}

const EVERYTHING = ['**'] as const;
const KNOWLEDGE_DENY = ['{{source}}', '{{tests}}', '{{ci}}', '{{infra}}'] as const;

export const BUILT_IN_ROLES: Readonly<Record<string, RoleDefaults>> = {
  coder: {
    group: 'implementation',
    description:
      'Implements features in application source and project config; leaves tests, docs, CI and infra to their roles.',
    allow_write: ['{{source}}', '{{config_files}}'],
    deny_write: ['{{tests}}', '{{docs}}', '{{ci}}', '{{infra}}'],
    allow_read: EVERYTHING,
  },
  tester: {
    group: 'implementation',
    description: 'Writes and runs tests and test configuration; does not change application source.',
    allow_write: ['{{tests}}', '{{test_config}}'],
    deny_write: ['{{source}}', '{{docs}}', '{{ci}}', '{{infra}}'],
    allow_read: EVERYTHING,
  },
  integrator: {
    group: 'implementation',
    description:
      'Maintains infrastructure as code (terraform, pulumi, CDK, ansible, helm); never applies without a human.',
    allow_write: ['{{infra}}'],
    deny_write: ['{{source}}', '{{tests}}', '{{docs}}', '{{ci}}'],
    allow_read: EVERYTHING,
  },
  devops: {
    group: 'implementation',
    description: 'Maintains CI pipelines, container files and developer tooling configuration.',
    allow_write: ['{{ci}}', '{{devops}}'],
    deny_write: ['{{source}}', '{{tests}}', '{{docs}}', '{{infra}}'],
    allow_read: EVERYTHING,
  },
  researcher: {
    group: 'knowledge',
    description: 'Investigates and reports findings in docs/research/; writes no code.',
    allow_write: ['{{research_output}}'],
    deny_write: KNOWLEDGE_DENY,
    allow_read: EVERYTHING,
  },
  architect: {
    group: 'knowledge',
    description: 'Designs systems; writes design documents and ADRs in docs/architecture/ and docs/adr/.',
    allow_write: ['{{architecture_output}}'],
    deny_write: KNOWLEDGE_DENY,
    allow_read: EVERYTHING,
  },
  planner: {
    group: 'knowledge',
    description: 'Turns requirements into implementation plans in docs/plans/.',
    allow_write: ['{{plans_output}}'],
    deny_write: KNOWLEDGE_DENY,
    allow_read: EVERYTHING,
  },
  reviewer: {
    group: 'knowledge',
    description: 'Reviews changes; writes review reports in docs/reviews/ (not the security ones).',
    allow_write: ['{{reviews_output}}'],
    deny_write: [...KNOWLEDGE_DENY, '{{security_reviews_output}}'],
    allow_read: EVERYTHING,
  },
  'security-reviewer': {
    group: 'knowledge',
    description: 'Reviews for vulnerabilities; writes findings in docs/reviews/security/.',
    allow_write: ['{{security_reviews_output}}'],
    deny_write: [...KNOWLEDGE_DENY, 'docs/reviews/*.md'],
    allow_read: EVERYTHING,
  },
  docs: {
    group: 'knowledge',
    description: 'Writes and maintains documentation (docs/, Markdown files).',
    allow_write: ['{{docs_output}}'],
    deny_write: KNOWLEDGE_DENY,
    allow_read: EVERYTHING,
  },
  maintainer: {
    group: 'full-access',
    description: 'Project maintainer: may write anywhere in the project (sensitive paths still ask).',
    allow_write: EVERYTHING,
    deny_write: [],
    allow_read: EVERYTHING,
  },
  // Orchestrated teams (issue 16): a conductor plans and delegates through the Task/Agent tool; its subagents
  // are its musicians. With `modules: hierarchy` a conductor may edit only this allow-list (plus a project's
  // additions in roles.yml); `delegation` makes it hand work over instead of doing it.
  conductor: {
    group: 'orchestration',
    description:
      'Orchestrates a team: plans and delegates through the Task/Agent tool; edits only its own notes and settings.',
    allow_write: ['.claude/**', 'memory/**', 'pyproject.toml', 'settings.json', '.gitignore'],
    deny_write: [],
    allow_read: EVERYTHING,
  },
  musician: {
    group: 'full-access',
    description:
      "A conductor's worker (its subagents run as musicians): may write anywhere in the project (sensitive paths still ask).",
    allow_write: EVERYTHING,
    deny_write: [],
    allow_read: EVERYTHING,
  },
  troubleshooter: {
    group: 'full-access',
    description: 'Debugging and incident response: may write anywhere in the project (sensitive paths still ask).',
    allow_write: EVERYTHING,
    deny_write: [],
    allow_read: EVERYTHING,
  },
};

/**
 * Writing these always needs a human, whatever the role: hookwise's own policy and the agents' hook
 * settings (a write there can switch the gate off), credentials, and files that make code run later
 * without a tool call — git, hg and jj hooks and config, MCP server lists, direnv, editor tasks, shell
 * start-up files.
 */
export const DEFAULT_SENSITIVE_WRITE: readonly string[] = [
  '.claude/**',
  '.hookwise/**',
  '.gemini/**',
  '.codex/**',
  '.cursor/**',
  '.env*',
  '**/.env*',
  '.envrc',
  '**/.envrc',
  '.git/hooks/**',
  '.git/config',
  // git reads these too: a worktree's own config (extensions.worktreeConfig), submodules' git directories,
  // and repositories nested in the project (a vendored checkout), whose config and hooks run when git runs there.
  '.git/config.worktree',
  '.git/worktrees/**',
  '.git/modules/**',
  '**/.git/config',
  '**/.git/hooks/**',
  '.gitmodules',
  // Mercurial's and Jujutsu's repository directories: .hg/hgrc names hooks (pre-<any command>), extensions
  // (Python modules) and shell aliases; .hg/sharedpath points at another repository whose hgrc is read;
  // .jj/repo/config.toml names pagers, diff and merge tools, aliases, fix tools and signing programs that
  // jj log or jj diff run. Nothing but hg and jj themselves has a reason to write there.
  '.hg/**',
  '**/.hg/**',
  '.jj/**',
  '**/.jj/**',
  '.husky/**',
  '.pre-commit-config.yaml',
  'lefthook.yml',
  '.lefthook.yml',
  '.mcp.json',
  '**/.mcp.json',
  '.vscode/tasks.json',
  '.vscode/launch.json',
  '.vscode/settings.json',
  '**/secrets/**',
  '~/.claude/**',
  '~/.claude.json',
  '~/.gemini/**',
  '~/.codex/**',
  '~/.config/**',
  '~/.ssh/**',
  '~/.gitconfig',
  // hg's and jj's user config outside ~/.config (~/.config/hg/hgrc and ~/.config/jj/ are under ~/.config/**)
  '~/.hgrc',
  '~/.jjconfig.toml',
  '~/.bashrc',
  '~/.bash_profile',
  '~/.bash_login',
  '~/.profile',
  '~/.zshrc',
  '~/.zshenv',
  '~/.zprofile',
  '~/.local/bin/**',
];

/**
 * Reading these needs a human: they hold credentials. (Reading .claude/ or .hookwise/ is harmless, so
 * the read list is narrower than the write list.)
 */
/** Shell, REPL and client history files, by the name they have in a home directory. */
const HISTORY_FILES = [
  '.bash_history',
  '.zsh_history',
  '.zhistory',
  '.histfile',
  '.sh_history',
  '.ksh_history',
  '.python_history',
  '.node_repl_history',
  '.ts_node_repl_history',
  '.psql_history',
  '.mysql_history',
  '.sqlite_history',
  '.rediscli_history',
  '.irb_history',
  '.pry_history',
  '.Rhistory',
  '.lesshst',
  '.dbshell',
];

export const DEFAULT_SENSITIVE_READ: readonly string[] = [
  // Templates (.env.example, …) and public SSH material hold no secret: reading them is ordinary work.
  '.env!(.example|.sample|.template|.dist)',
  '**/.env!(.example|.sample|.template|.dist)',
  '**/secrets/**',
  '~/.ssh/**/!(*.pub|known_hosts|known_hosts.old|authorized_keys|config)',
  '~/.aws/**',
  '~/.gnupg/**',
  '~/.config/gcloud/**',
  '~/.netrc',
  '~/.npmrc',
  '~/.docker/config.json',
  '~/.kube/**',
  '~/.config/gh/**',
  '~/.config/hub',
  '~/.config/rclone/**',
  '~/.config/doctl/**',
  '~/.azure/**',
  '~/.git-credentials',
  // git's credential store at its XDG place (credential.helper store), and gh/glab-style helpers beside it.
  '~/.config/git/credentials',
  '~/.config/glab-cli/**',
  '~/.pypirc',
  '~/.pgpass',
  '~/.my.cnf',
  '~/.boto',
  '~/.s3cfg',
  '~/.vault-token',
  '~/.terraform.d/credentials.tfrc.json',
  '~/.cargo/credentials*',
  '~/.gem/credentials',
  '~/.password-store/**',
  '~/.local/share/keyrings/**',
  '~/Library/Keychains/**',
  '~/.claude/.credentials.json',
  '~/.codex/auth.json',
  '~/.gemini/oauth_creds.json',
  'id_rsa',
  'id_dsa',
  'id_ecdsa',
  'id_ed25519',
  '*.key',
  '*.pem',
  '*.p12',
  '*.pfx',
  '*.jks',
  '*.keystore',
  '*.kdbx',
  '.netrc',
  '.pgpass',
  // Histories: a command line, a REPL line or a query typed with a password or token in it stays there.
  ...HISTORY_FILES.flatMap((name) => [`~/${name}`, `/root/${name}`, `/home/*/${name}`, name]),
  '~/.local/share/fish/fish_history',
  '~/.config/fish/fish_history',
  '~/.local/state/lesshst',
  '~/.local/share/psql_history',
  '~/.mongodb/mongosh/*_history',
  '~/.ipython/profile_*/history.sqlite',
  '/proc/*/environ',
  '/etc/shadow',
  '/etc/gshadow',
  '/etc/sudoers',
];

/** Tools with no side effects on files, shell or network: allowed without asking. */
export const DEFAULT_SAFE_TOOLS: readonly string[] = [
  // Spawning a subagent: every tool call it makes goes through this gate itself.
  'Task',
  'Agent',
  'TodoWrite',
  'TaskCreate',
  'TaskGet',
  'TaskList',
  'TaskUpdate',
  'TaskOutput',
  'ToolSearch',
  'ListMcpResourcesTool',
  'ListAgents',
  'CronList',
  'EnterPlanMode',
  'ExitPlanMode',
  'AskUserQuestion',
];

/** How a path outside the project root is treated. `pass` = no opinion (later tiers decide). */
export const OUTSIDE_ROOT_VERDICTS = ['allow', 'ask', 'deny', 'pass'] as const;
export type OutsideRootVerdict = (typeof OUTSIDE_ROOT_VERDICTS)[number];

export const DEFAULT_OUTSIDE_ROOT: { write: OutsideRootVerdict; read: OutsideRootVerdict } = {
  write: 'ask',
  read: 'pass',
};
export const DEFAULT_REGISTRATION = { wait_ms: 5000, poll_ms: 200 } as const;
export const DEFAULT_AUDIT = { max_bytes: 10 * 1024 * 1024, keep: 3 } as const;

/** Where an approval learned from the host's own prompt is remembered (never the committed project file by default). */
export const LEARN_SCOPES = ['user', 'session', 'project'] as const;
export type LearnScope = (typeof LEARN_SCOPES)[number];

/** Decision memory: learning on, personal approvals per user, Jaccard threshold 0.7. */
export const DEFAULT_MEMORY = { learn: true, learn_scope: 'user' as LearnScope, jaccard_threshold: 0.7 };
/** Tier 2b: on (it runs where the daemon serves the call); the threshold is calibrated in docs/embedding.md. */
export const DEFAULT_EMBEDDING = { enabled: true, threshold: 0.9 };

/** Tier 3's backends (issue 15): the Anthropic API, a subagent of the lead session, or none. */
export const SUPERVISOR_BACKENDS = ['api', 'agent', 'off'] as const;
export type SupervisorBackendName = (typeof SUPERVISOR_BACKENDS)[number];

/**
 * Where an ask goes (issue 15, tier 4): `host-prompt` lets the host prompt (interactive use; Claude Code in
 * `-p` mode denies an ask silently); `queue` makes the call wait for an answer through `hookwise queue`.
 */
export const HUMAN_CHANNELS = ['host-prompt', 'queue'] as const;
export type HumanChannel = (typeof HUMAN_CHANNELS)[number];
/**
 * How long a queued call waits before it is denied. At most 9 minutes: the hosts kill a PreToolUse hook after
 * 10 (and a killed hook fails open), so the queue's own deny must always come first.
 */
export const DEFAULT_HUMAN = { channel: 'host-prompt' as HumanChannel, timeoutMs: 60_000 };
export const MAX_HUMAN_TIMEOUT_MS = 540_000;
