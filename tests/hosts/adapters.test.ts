import { describe, expect, it } from 'vitest';
import { decision } from '../../src/core/decision.js';
import { claudeAdapter } from '../../src/hosts/claude.js';
import { codexAdapter, patchTargets } from '../../src/hosts/codex.js';
import { geminiAdapter } from '../../src/hosts/gemini.js';
import { detectHost } from '../../src/hosts/index.js';

const deny = decision('deny', 'path-policy', 'role "coder" may not write tests/a.ts', {
  id: 'role:coder:deny_write:tests/**',
  source: '.hookwise/roles.yml:9',
});
const ask = decision('ask', 'path-policy', '.env is sensitive', { id: 'sensitive:.env*', source: 'built-in' });
const allow = decision('allow', 'tool-policy', 'no side effects');

const claudePre = {
  session_id: 'abc123',
  transcript_path: '/home/u/.claude/projects/x/t.jsonl',
  cwd: '/home/u/proj',
  permission_mode: 'default',
  hook_event_name: 'PreToolUse',
  tool_name: 'Write',
  tool_input: { file_path: '/home/u/proj/tests/a.ts', content: 'x' },
  tool_use_id: 'toolu_01ABC',
};

describe('Claude Code adapter', () => {
  it('parses PreToolUse into a write call', () => {
    const event = claudeAdapter.parse(claudePre);
    expect(event).toMatchObject({ kind: 'pre-tool', sessionId: 'abc123', cwd: '/home/u/proj' });
    if (event.kind !== 'pre-tool') throw new Error('kind');
    expect(event.call).toMatchObject({
      tool: 'Write',
      action: 'write',
      paths: ['/home/u/proj/tests/a.ts'],
      toolUseId: 'toolu_01ABC',
    });
  });

  it.each([
    ['Edit', { file_path: '/p/a', old_string: 'a', new_string: 'b' }, 'write', ['/p/a']],
    ['MultiEdit', { file_path: '/p/a', edits: [] }, 'write', ['/p/a']],
    ['NotebookEdit', { notebook_path: '/p/n.ipynb', new_source: '' }, 'write', ['/p/n.ipynb']],
    ['Read', { file_path: '/p/a' }, 'read', ['/p/a']],
    ['Grep', { pattern: 'x' }, 'read', ['/home/u/proj']],
    ['Glob', { pattern: '*.ts', path: '/p/src' }, 'read', ['/p/src']],
    ['Bash', { command: 'ls' }, 'shell', []],
    ['WebFetch', { url: 'https://x', prompt: 'p' }, 'other', []],
    ['mcp__github__create_issue', { title: 't' }, 'other', []],
  ])('maps %s', (tool, input, action, paths) => {
    const event = claudeAdapter.parse({ ...claudePre, tool_name: tool, tool_input: input });
    if (event.kind !== 'pre-tool') throw new Error('kind');
    expect(event.call.action).toBe(action);
    expect(event.call.paths).toEqual(paths);
  });

  it('renders a decision as hookSpecificOutput naming tier and rule', () => {
    const out = JSON.parse(claudeAdapter.renderDecision(claudeAdapter.parse(claudePre), deny).stdout);
    expect(out).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason:
          'hookwise deny [tier path-policy, rule role:coder:deny_write:tests/** from .hookwise/roles.yml:9]: role "coder" may not write tests/a.ts',
      },
    });
  });

  it('UserPromptSubmit and SessionStart carry additional context, or stay silent', () => {
    const prompt = claudeAdapter.parse({ ...claudePre, hook_event_name: 'UserPromptSubmit', prompt: 'hi' });
    expect(prompt.kind).toBe('prompt-submit');
    expect(JSON.parse(claudeAdapter.renderContext(prompt, 'register please').stdout)).toEqual({
      hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: 'register please' },
    });
    expect(claudeAdapter.renderContext(prompt, undefined)).toEqual({ stdout: '', exitCode: 0 });
    const start = claudeAdapter.parse({
      session_id: 's',
      cwd: '/p',
      hook_event_name: 'SessionStart',
      source: 'startup',
      model: 'm',
    });
    expect(JSON.parse(claudeAdapter.renderContext(start, 'ctx').stdout).hookSpecificOutput.hookEventName).toBe(
      'SessionStart',
    );
  });

  it('PostToolUse is observed, not answered', () => {
    const post = claudeAdapter.parse({
      ...claudePre,
      hook_event_name: 'PostToolUse',
      tool_response: {},
      duration_ms: 3,
    });
    expect(post.kind).toBe('post-tool');
    expect(claudeAdapter.renderNothing()).toEqual({ stdout: '', exitCode: 0 });
  });

  it.each([
    [{ ...claudePre, session_id: '' }, /"session_id" must be a non-empty string/],
    [{ ...claudePre, cwd: 42 }, /"cwd" must be a non-empty string \(got number\)/],
    [{ ...claudePre, tool_input: [] }, /"tool_input" must be an object \(got an array\)/],
    [{ ...claudePre, hook_event_name: 'PreCompact' }, /"PreCompact" is not one hookwise handles/],
  ])('rejects malformed payloads by naming the field', (payload, message) => {
    expect(() => claudeAdapter.parse(payload as Record<string, unknown>)).toThrow(message);
  });

  it('Stop and SessionEnd end a turn (the session is over only at SessionEnd), with the transcript the host names', () => {
    const base = { session_id: 's1', transcript_path: '/home/u/.claude/projects/p/s1.jsonl', cwd: '/home/u/proj' };
    expect(claudeAdapter.parse({ ...base, hook_event_name: 'Stop', stop_hook_active: false })).toEqual({
      kind: 'turn-end',
      host: 'claude',
      hostEvent: 'Stop',
      sessionId: 's1',
      cwd: '/home/u/proj',
      transcriptPath: base.transcript_path,
      sessionOver: false,
    });
    expect(claudeAdapter.parse({ ...base, hook_event_name: 'SessionEnd', reason: 'other' })).toMatchObject({
      kind: 'turn-end',
      sessionOver: true,
    });
  });
});

describe('Gemini CLI adapter', () => {
  const geminiPre = {
    session_id: 'g1',
    transcript_path: '/t',
    cwd: '/home/u/proj',
    hook_event_name: 'BeforeTool',
    timestamp: '2026-11-21T10:00:00.000Z',
    tool_name: 'write_file',
    tool_input: { file_path: '/home/u/proj/src/a.ts', content: 'x' },
  };

  it.each([
    ['write_file', { file_path: '/p/a', content: '' }, 'Write', 'write', ['/p/a']],
    ['replace', { file_path: '/p/a', old_string: 'a', new_string: 'b' }, 'Edit', 'write', ['/p/a']],
    ['read_file', { file_path: '/p/a' }, 'Read', 'read', ['/p/a']],
    ['run_shell_command', { command: 'ls', description: 'list' }, 'Bash', 'shell', []],
    ['grep_search', { pattern: 'x', dir_path: '/p/src' }, 'Grep', 'read', ['/p/src']],
    ['web_fetch', { prompt: 'x' }, 'WebFetch', 'other', []],
    ['mcp_github_create_issue', {}, 'mcp_github_create_issue', 'other', []],
  ])('maps %s to %s', (hostTool, input, tool, action, paths) => {
    const event = geminiAdapter.parse({ ...geminiPre, tool_name: hostTool, tool_input: input });
    if (event.kind !== 'pre-tool') throw new Error('kind');
    expect(event.call).toMatchObject({ hostTool, tool, action, paths });
  });

  it('run_shell_command in another directory uses that directory as cwd', () => {
    const event = geminiAdapter.parse({
      ...geminiPre,
      tool_name: 'run_shell_command',
      tool_input: { command: 'ls', dir_path: '/p/sub' },
    });
    if (event.kind !== 'pre-tool') throw new Error('kind');
    expect(event.call.cwd).toBe('/p/sub');
  });

  it('renders decisions with a top-level decision and reason', () => {
    const event = geminiAdapter.parse(geminiPre);
    expect(JSON.parse(geminiAdapter.renderDecision(event, deny).stdout)).toMatchObject({
      decision: 'deny',
      reason: expect.stringMatching(/^hookwise deny \[tier path-policy/),
    });
    const asked = JSON.parse(geminiAdapter.renderDecision(event, ask).stdout);
    expect(asked.decision).toBe('deny'); // headless Gemini hangs on "ask"
    expect(asked.reason).toMatch(/needs a human's approval.*HOOKWISE_GEMINI_ASK=ask/);
    expect(JSON.parse(geminiAdapter.renderDecision(event, allow).stdout).decision).toBe('allow');
  });

  it('HOOKWISE_GEMINI_ASK=ask (passed as a render option) opts into the native prompt', () => {
    expect(
      JSON.parse(geminiAdapter.renderDecision(geminiAdapter.parse(geminiPre), ask, { geminiAsk: true }).stdout)
        .decision,
    ).toBe('ask');
  });

  it('BeforeAgent adds context; AfterTool answers an empty object', () => {
    const agent = geminiAdapter.parse({ ...geminiPre, hook_event_name: 'BeforeAgent', prompt: 'hi' });
    expect(JSON.parse(geminiAdapter.renderContext(agent, 'ctx').stdout)).toEqual({
      hookSpecificOutput: { hookEventName: 'BeforeAgent', additionalContext: 'ctx' },
    });
    expect(geminiAdapter.parse({ ...geminiPre, hook_event_name: 'AfterTool', tool_response: {} }).kind).toBe(
      'post-tool',
    );
    expect(geminiAdapter.renderNothing().stdout).toBe('{}\n');
  });
});

describe('Codex adapter', () => {
  const codexPre = {
    session_id: 'c1',
    turn_id: 't1',
    model: 'gpt-5',
    cwd: '/p',
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command: 'ls' },
  };

  it('turns ask into a deny that says how a human lets it through', () => {
    const out = JSON.parse(codexAdapter.renderDecision(codexAdapter.parse(codexPre), ask).stdout);
    expect(out.hookSpecificOutput.permissionDecision).toBe('deny');
    expect(out.hookSpecificOutput.permissionDecisionReason).toMatch(/Codex hooks cannot prompt/);
    expect(out.hookSpecificOutput.permissionDecisionReason).toMatch(/hookwise switch --session-id c1/);
  });

  it('reads apply_patch targets from the patch', () => {
    const patch =
      '*** Begin Patch\n*** Add File: a/new.ts\n+x\n*** Update File: b/old.ts\n*** Move to: b/moved.ts\n*** Delete File: c/gone.ts\n*** End Patch';
    expect(patchTargets(patch)).toEqual(['a/new.ts', 'b/old.ts', 'b/moved.ts', 'c/gone.ts']);
    const event = codexAdapter.parse({ ...codexPre, tool_name: 'apply_patch', tool_input: { command: patch } });
    if (event.kind !== 'pre-tool') throw new Error('kind');
    expect(event.call).toMatchObject({
      tool: 'Edit',
      action: 'write',
      paths: ['a/new.ts', 'b/old.ts', 'b/moved.ts', 'c/gone.ts'],
    });
  });
});

describe('host detection', () => {
  it.each([
    [{ hook_event_name: 'PreToolUse' }, 'claude'],
    [{ hook_event_name: 'SessionStart', model: 'claude-x' }, 'claude'],
    [{ hook_event_name: 'BeforeTool' }, 'gemini'],
    [{ hook_event_name: 'SessionStart', timestamp: '2026-01-01T00:00:00Z' }, 'gemini'],
    [{ hook_event_name: 'PreToolUse', turn_id: 't1' }, 'codex'],
  ])('%j → %s', (payload, host) => {
    expect(detectHost(payload)).toBe(host);
  });
});
