/** The host-independent shape of one hook event, built by the adapters in src/hosts/. */

export const HOSTS = ['claude', 'gemini', 'codex'] as const;
export type HostName = (typeof HOSTS)[number];

/** What a tool does, as far as path policy cares. */
export const TOOL_ACTIONS = ['shell', 'write', 'read', 'other'] as const;
export type ToolAction = (typeof TOOL_ACTIONS)[number];

export interface ToolCall {
  host: HostName;
  sessionId: string;
  cwd: string;
  /** The host's own tool name (`run_shell_command`, `apply_patch`, `mcp__x__y`, …). */
  hostTool: string;
  /** The canonical name used by policy: Claude's vocabulary (`Bash`, `Write`, `Edit`, `Read`, …). */
  tool: string;
  action: ToolAction;
  /** Paths the call reads or writes, as the host gave them (resolved later, at the edge). */
  paths: string[];
  input: Record<string, unknown>;
  toolUseId?: string;
  /** Claude Code's `permission_mode` (default, acceptEdits, plan, auto, dontAsk, bypassPermissions), if sent. */
  permissionMode?: string;
  /** Claude Code's `agent_id`: the call comes from a subagent of the session (a conductor's musician). */
  agentId?: string;
  /** Claude Code's `agent_type`: which subagent definition runs (e.g. `hookwise:supervisor`), set by the host. */
  agentType?: string;
  /** The session's transcript as the host names it (EventBase.transcriptPath): writes to where it lives need a human. */
  transcriptPath?: string;
}

/** A path after canonicalization (see src/paths/canonical.ts). */
export interface ResolvedPath {
  /** As the host gave it. */
  input: string;
  /** Absolute, `~` expanded, `..` collapsed, symlinks resolved on the longest existing prefix. */
  absolute: string;
  /** Relative to the project root with `/` separators, or null when outside the root. */
  relative: string | null;
  /**
   * The file system would not say where the path leads (a name too long, a symlink loop, a directory that
   * cannot be searched): why. `absolute` is then only its lexical form, and path policy asks a human.
   */
  unknown?: string;
}

export const HOOK_EVENTS = ['pre-tool', 'post-tool', 'prompt-submit', 'session-start', 'turn-end'] as const;
export type HookEventKind = (typeof HOOK_EVENTS)[number];

interface EventBase {
  host: HostName;
  /** The host's event name, echoed back in outputs that need it. */
  hostEvent: string;
  sessionId: string;
  cwd: string;
  /**
   * The session's transcript as the host names it (Claude Code's `transcript_path`): where the next call's
   * edge finds what became of the calls before it (engine/settle.ts). Untrusted until checked there.
   */
  transcriptPath?: string;
}

/** What the host reports of a tool's run after it: whether it failed, and its output (untrusted text). */
export interface ToolOutcome {
  failed: boolean;
  output: string;
}

export type HookEvent =
  | (EventBase & { kind: 'pre-tool'; call: ToolCall })
  | (EventBase & { kind: 'post-tool'; call: ToolCall; outcome?: ToolOutcome })
  | (EventBase & { kind: 'prompt-submit'; prompt: string })
  | (EventBase & { kind: 'session-start'; source: string })
  /** The agent's turn ended (Claude Code `Stop`), or the session did (`SessionEnd`): every call it made has finished. */
  | (EventBase & { kind: 'turn-end'; sessionOver: boolean });
