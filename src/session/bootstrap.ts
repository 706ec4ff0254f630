/**
 * An unregistered session must be able to run the one command that registers it — otherwise its own
 * `hookwise register` (through the agent's Bash tool) would wait on itself and be blocked. Only a plain
 * command (no shell syntax at all) registering *this* session is let through; registering a full-access
 * role still needs a human's yes, so an agent cannot grant itself unrestricted writes.
 */
import { decision, type Decision } from '../core/decision.js';
import type { ToolCall } from '../core/tool-call.js';
import { roleNamed, type CompiledPolicy } from '../policy/compiled.js';

/** Words only: no quotes, substitutions, redirections, separators or globs. */
const PLAIN_COMMAND = /^[A-Za-z0-9_./:=@ -]+$/;

export function bootstrapDecision(call: ToolCall, policy: CompiledPolicy): Decision | undefined {
  if (call.action !== 'shell') return undefined;
  const command = call.input.command;
  if (typeof command !== 'string') return undefined;
  const trimmed = command.trim();
  if (!PLAIN_COMMAND.test(trimmed)) return undefined;
  const argv = trimmed.split(/ +/);
  if (argv[0] !== 'hookwise' && argv[0] !== 'npx') return undefined;
  const args = argv[0] === 'npx' ? argv.slice(1) : argv;
  if (args[0] !== 'hookwise' || args[1] !== 'register') return undefined;
  const options = parseOptions(args.slice(2));
  if (options === undefined || options.get('--session-id') !== call.sessionId) return undefined;
  const role = options.get('--role');
  const spec = role === undefined ? undefined : roleNamed(policy, role);
  if (spec === undefined) return undefined; // unknown role: let it fail the normal way, with instructions
  const rule = { id: 'session:bootstrap-register', source: 'built-in' };
  if (spec.group === 'full-access') {
    return decision(
      'ask',
      'session',
      `registering this session as full-access role "${role}" needs a human's confirmation`,
      rule,
    );
  }
  return decision('allow', 'session', `this is the session registering itself as "${role}"`, rule);
}

const KNOWN = new Set(['--session-id', '--role', '--task', '--team']);

function parseOptions(args: string[]): Map<string, string> | undefined {
  const out = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const eq = arg.indexOf('=');
    const [name, value] = eq > 0 ? [arg.slice(0, eq), arg.slice(eq + 1)] : [arg, args[++i]];
    if (!KNOWN.has(name) || value === undefined || value === '' || out.has(name)) return undefined;
    out.set(name, value);
  }
  return out;
}
