/** `hookwise init`: .hookwise/ with commented defaults and its .gitignore. */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findProjectRoot } from '../paths/canonical.js';
import {
  BUILT_IN_ROLES,
  DEFAULT_AUDIT,
  DEFAULT_CATEGORIES,
  DEFAULT_OUTSIDE_ROOT,
  DEFAULT_REGISTRATION,
  DEFAULT_SAFE_TOOLS,
  DEFAULT_SENSITIVE_READ,
  DEFAULT_SENSITIVE_WRITE,
} from '../policy/defaults.js';

const yamlList = (items: readonly string[], indent: string): string =>
  items.map((i) => `${indent}- ${JSON.stringify(i)}`).join('\n');
const commented = (text: string): string =>
  text
    .split('\n')
    .map((l) => (l === '' ? '#' : `# ${l}`))
    .join('\n');

export function policyTemplate(): string {
  return `# hookwise project policy (committed: shared by everyone working on this repository).
# Every setting is optional; the commented values are the built-in defaults.
# A project file can only tighten the gate: settings that would loosen it (removing sensitive paths,
# declaring tools safe, allowing writes outside the root) are honoured only in ~/.config/hookwise/config.yml.
version: 1

# Writing these always asks a human, whatever the role. Entries here are added to the defaults:
${commented(`sensitive_paths:\n${yamlList(DEFAULT_SENSITIVE_WRITE, '  ')}`)}

# Reading these always asks a human (credentials). Added to the defaults:
${commented(`sensitive_read_paths:\n${yamlList(DEFAULT_SENSITIVE_READ, '  ')}`)}

# Paths outside the project root (the git root): allow | ask | deny | pass (= no opinion, later tiers decide).
${commented(`outside_root:\n  write: ${DEFAULT_OUTSIDE_ROOT.write}\n  read: ${DEFAULT_OUTSIDE_ROOT.read}`)}

# How long a tool call of an unregistered session waits for its registration before it is blocked.
${commented(`registration:\n  wait_ms: ${DEFAULT_REGISTRATION.wait_ms}\n  poll_ms: ${DEFAULT_REGISTRATION.poll_ms}`)}

# Audit log rotation (the log lives in the private runtime directory, not in the repo).
${commented(`audit:\n  max_bytes: ${DEFAULT_AUDIT.max_bytes}\n  keep: ${DEFAULT_AUDIT.keep}`)}

# Built-in tools allowed without asking (user config only may add more): ${DEFAULT_SAFE_TOOLS.join(', ')}
`;
}

export function rolesTemplate(): string {
  const categories = Object.entries(DEFAULT_CATEGORIES)
    .map(([name, globs]) => `  ${name}:\n${yamlList(globs, '    ')}`)
    .join('\n');
  const roles = Object.entries(BUILT_IN_ROLES)
    .map(([name, r]) => {
      const list = (key: string, globs: readonly string[]): string =>
        globs.length === 0 ? `      ${key}: []` : `      ${key}:\n${yamlList(globs, '        ')}`;
      return `  ${name}:\n    group: ${r.group}\n    description: ${JSON.stringify(r.description)}\n    paths:\n${list('allow_write', r.allow_write)}\n${list('deny_write', r.deny_write)}\n${list('allow_read', r.allow_read)}`;
    })
    .join('\n');
  return `# hookwise roles (committed). A session registers one role; the role bounds which paths it may write.
# Path rules, in order: sensitive paths (policy.yml) ask; deny_write denies; allow_write allows; anything
# else is left to the later tiers (and, until one decides, a human).
# Globs: a pattern with "/" is anchored at the project root; one without "/" matches a file name at any
# depth (like .gitignore); "~/" is the home directory. {{category}} expands to a category's globs.
#
# Override a built-in role by naming it (only the fields you give are replaced), or add your own:
#
# roles:
#   coder:
#     paths:
#       allow_write: ["{{source}}", "app/**"]
#   release-manager:
#     group: custom
#     description: Prepares releases.
#     paths:
#       allow_write: ["CHANGELOG.md", "package.json"]
#       deny_write: ["{{source}}"]
#
# The built-in categories and roles, for reference:
${commented(`categories:\n${categories}\n\nroles:\n${roles}`)}
version: 1
`;
}

export const GITIGNORE = `# derived indexes and personal state: never committed
.index/
.user/
# transient lock and temp files of the decision store
rules/*.lock
rules/*.tmp
`;

export function init(cwd: string, force: boolean): string {
  const root = findProjectRoot(cwd);
  const dir = join(root, '.hookwise');
  mkdirSync(join(dir, 'rules'), { recursive: true });
  const written: string[] = [];
  const kept: string[] = [];
  const files: [string, string][] = [
    ['policy.yml', policyTemplate()],
    ['roles.yml', rolesTemplate()],
    ['.gitignore', GITIGNORE],
  ];
  for (const [name, content] of files) {
    const path = join(dir, name);
    if (existsSync(path) && !(force && name !== '.gitignore')) {
      kept.push(name);
      continue;
    }
    writeFileSync(path, content);
    written.push(name);
  }
  const lines = [`hookwise: initialized ${dir}`];
  if (written.length > 0) lines.push(`  wrote: ${written.join(', ')}`);
  if (kept.length > 0)
    lines.push(
      `  kept existing: ${kept.join(', ')}${force ? '' : ' (use --force to overwrite policy.yml and roles.yml)'}`,
    );
  lines.push('Next: hookwise install --claude (or --gemini, --codex) to wire the hooks into your agent.');
  return lines.join('\n');
}
