/**
 * The bundled sample session for `hookwise demo`: a swarm of three registered agents (coder, tester,
 * docs) on Claude Code, Gemini CLI and Codex, plus one agent that never registered. Paths are relative
 * to the demo project; the demo makes them absolute as the hosts do.
 */
export interface SampleCall {
  session: string;
  host: 'claude' | 'gemini' | 'codex';
  tool: string;
  input: Record<string, unknown>;
  /** What this call shows. */
  note: string;
}

export const SAMPLE_ROLES: Record<string, string> = {
  'alice-coder': 'coder',
  'tess-tester': 'tester',
  'dora-docs': 'docs',
};
export const UNREGISTERED_SESSION = 'ghost-agent';

export const SAMPLE_SESSION: SampleCall[] = [
  {
    session: 'alice-coder',
    host: 'claude',
    tool: 'Read',
    input: { file_path: 'src/auth.ts' },
    note: 'reading source is fine for every role',
  },
  {
    session: 'alice-coder',
    host: 'claude',
    tool: 'Edit',
    input: { file_path: 'src/auth.ts', old_string: 'a', new_string: 'b' },
    note: 'the coder owns src/',
  },
  {
    session: 'alice-coder',
    host: 'claude',
    tool: 'Write',
    input: { file_path: 'tests/auth.test.ts', content: '…' },
    note: "tests are the tester's: denied",
  },
  {
    session: 'alice-coder',
    host: 'claude',
    tool: 'Write',
    input: { file_path: '.env', content: '…' },
    note: 'a sensitive path asks a human, whatever the role',
  },
  {
    session: 'alice-coder',
    host: 'claude',
    tool: 'Write',
    input: { file_path: 'src/../.claude/settings.json', content: '{}' },
    note: '`..` is collapsed before matching: still sensitive',
  },
  {
    session: 'alice-coder',
    host: 'claude',
    tool: 'TodoWrite',
    input: { todos: [] },
    note: 'bookkeeping tools have no side effects',
  },
  {
    session: 'tess-tester',
    host: 'gemini',
    tool: 'write_file',
    input: { file_path: 'tests/auth.test.ts', content: '…' },
    note: 'Gemini CLI: the tester owns tests/',
  },
  {
    session: 'tess-tester',
    host: 'gemini',
    tool: 'replace',
    input: { file_path: 'src/auth.ts', old_string: 'a', new_string: 'b' },
    note: 'Gemini CLI: the tester may not change source',
  },
  {
    session: 'alice-coder',
    host: 'claude',
    tool: 'Read',
    input: { file_path: '.env.local' },
    note: 'reading credentials asks a human (Claude Code prompts)',
  },
  {
    session: 'tess-tester',
    host: 'gemini',
    tool: 'read_file',
    input: { file_path: '.env.local' },
    note: 'Gemini CLI cannot prompt from a hook in a headless run: the same ask is a deny that says what to do',
  },
  {
    session: 'dora-docs',
    host: 'codex',
    tool: 'apply_patch',
    input: { command: '*** Begin Patch\n*** Update File: docs/guide.md\n@@\n-old\n+new\n*** End Patch\n' },
    note: 'Codex: docs may edit docs/',
  },
  {
    session: 'dora-docs',
    host: 'codex',
    tool: 'apply_patch',
    input: {
      command: '*** Begin Patch\n*** Update File: docs/guide.md\n*** Update File: src/auth.ts\n*** End Patch\n',
    },
    note: 'Codex: one forbidden file denies the whole patch',
  },
  {
    session: 'dora-docs',
    host: 'claude',
    tool: 'Write',
    input: { file_path: '/etc/motd', content: '…' },
    note: 'outside the project root asks',
  },
  {
    session: 'dora-docs',
    host: 'claude',
    tool: 'Bash',
    input: { command: 'git status && npm test' },
    note: 'every segment of a compound is read-only: allowed',
  },
  {
    session: 'alice-coder',
    host: 'claude',
    tool: 'Bash',
    input: { command: 'FOO=1 sudo git push --force origin main' },
    note: 'wrappers and VAR= prefixes do not hide a force-push to main',
  },
  {
    session: 'alice-coder',
    host: 'claude',
    tool: 'Bash',
    input: { command: "bash -c 'echo ok > tests/fixture.json'" },
    note: 'a redirect inside bash -c is a write the coder may not make',
  },
  {
    session: 'tess-tester',
    host: 'gemini',
    tool: 'run_shell_command',
    input: { command: 'grep -rn "rm -rf" src' },
    note: 'arguments are data: grep for "rm -rf" is a search',
  },
  {
    session: 'alice-coder',
    host: 'claude',
    tool: 'Bash',
    input: { command: 'rm -rf src/generated' },
    note: 'deleting is never auto-allowed by path policy: a human decides (for now)',
  },
  {
    session: UNREGISTERED_SESSION,
    host: 'claude',
    tool: 'Write',
    input: { file_path: 'src/x.ts', content: '…' },
    note: 'an unregistered session is blocked with instructions',
  },
];
