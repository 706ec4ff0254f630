/** Host detection: from `--host`, else from the payload's shape. */
import { HookwiseError } from '../core/errors.js';
import { HOSTS, type HostName } from '../core/tool-call.js';
import type { HostAdapter } from './adapter.js';
import { claudeAdapter } from './claude.js';
import { codexAdapter } from './codex.js';
import { GEMINI_EVENTS, geminiAdapter } from './gemini.js';

const ADAPTERS: Record<HostName, HostAdapter> = { claude: claudeAdapter, gemini: geminiAdapter, codex: codexAdapter };

export function adapterFor(host: HostName): HostAdapter {
  return ADAPTERS[host];
}

export function parseHostName(value: string): HostName {
  if ((HOSTS as readonly string[]).includes(value)) return value as HostName;
  throw new HookwiseError('UNKNOWN_HOST', `--host ${value}: expected one of ${HOSTS.join(', ')}`);
}

/**
 * Gemini's events have their own names (BeforeTool, …) and every payload carries `timestamp`;
 * Codex adds `turn_id`; everything else is Claude Code.
 */
export function detectHost(payload: Record<string, unknown>): HostName {
  const event = payload.hook_event_name;
  if (typeof event === 'string' && event in GEMINI_EVENTS && event !== 'SessionStart') return 'gemini';
  if (event === 'SessionStart' && typeof payload.timestamp === 'string') return 'gemini';
  if (typeof payload.turn_id === 'string') return 'codex';
  return 'claude';
}
