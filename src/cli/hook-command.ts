/** Argument handling for the hook commands, without commander (start-up cost). */
import { writeSync } from 'node:fs';
import { describeError, errorCodeOf, HookwiseError } from '../core/errors.js';
import type { HostName } from '../core/tool-call.js';
import { parseHostName } from '../hosts/index.js';
import { MAX_PAYLOAD_BYTES } from '../core/limits.js';
import { handover, readStdin, stdinIsTerminal } from './stdin.js';
import { askDaemon } from '../daemon/client.js';
import type { HookOutput } from '../hosts/adapter.js';
import { ensurePrivateDir } from '../util/fs-safe.js';
import { locations, type Locations } from '../util/locations.js';

export interface HookArgs {
  host?: HostName;
  /** Batch mode: one payload per stdin line, one decision object per stdout line. */
  jsonl?: boolean;
  /** Session hooks: start the daemon if it is not running, so the session's first tool call finds it warm. */
  ensureDaemon?: boolean;
  /** Print the usage and exit 0. */
  help?: boolean;
}

export type HookCommand = 'check' | 'session-check';

/** What `--help` prints, per command (these commands bypass commander for start-up cost). */
export const HOOK_USAGE: Record<HookCommand, string> = {
  check: [
    'Usage: hookwise check [--host claude|gemini|codex] [--jsonl] [--ensure-daemon] < payload.json',
    '',
    'The hook entry point (PreToolUse / BeforeTool; PostToolUse, Stop, SessionEnd for learning): reads one hook payload (JSON)',
    "on stdin and prints the decision in the host's format. Run by Claude Code, Gemini CLI or Codex, not by hand;",
    'to see how a call would be judged, use `hookwise explain`.',
    '',
    'Options:',
    '  --host <host>     the host format (detected from the payload when omitted)',
    '  --jsonl           batch: one payload per stdin line, one decision object per stdout line',
    '  --ensure-daemon   start the daemon first when it is not running',
    '  -h, --help        this text',
  ].join('\n'),
  'session-check': [
    'Usage: hookwise session-check [--host claude|gemini|codex] [--ensure-daemon] < payload.json',
    '',
    'The prompt and session hooks (UserPromptSubmit / BeforeAgent / SessionStart): asks an unregistered session to',
    'register a role. Run by the host, not by hand; `hookwise status` shows registered sessions.',
    '',
    'Options:',
    '  --host <host>     the host format (detected from the payload when omitted)',
    '  --ensure-daemon   start the daemon when it is not running (so the first tool call finds it warm)',
    '  -h, --help        this text',
  ].join('\n'),
};

export function parseHookArgs(args: string[], command: HookCommand = 'check'): HookArgs {
  const out: HookArgs = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--host') out.host = parseHostName(args[++i] ?? '');
    else if (arg.startsWith('--host=')) out.host = parseHostName(arg.slice('--host='.length));
    else if (arg === '--jsonl' && command === 'check') out.jsonl = true;
    else if (arg === '--ensure-daemon') out.ensureDaemon = true;
    else if (arg === '--help' || arg === '-h') out.help = true;
    else
      throw new HookwiseError(
        'USAGE',
        `unknown argument "${arg}" (${HOOK_USAGE[command].split('\n')[0]!.replace(/^Usage: /, 'usage: ')})`,
      );
  }
  return out;
}

export async function runHookCommand(args: string[], command: HookCommand = 'check'): Promise<number> {
  let options: HookArgs;
  let raw: string;
  let host: HostName | undefined;
  try {
    options = parseHookArgs(args, command);
    host = options.host;
    if (options.help === true) {
      writeSync(1, `${HOOK_USAGE[command]}\n`);
      return 0;
    }
    if (options.jsonl === true) {
      const { runBatch } = await import('./check-batch.js');
      return await runBatch(options.host === undefined ? {} : { host: options.host });
    }
    if (stdinIsTerminal()) {
      throw new HookwiseError(
        'USAGE',
        'hookwise check reads one hook payload (JSON) on stdin; it is meant to be run by Claude Code, Gemini CLI or Codex',
      );
    }
    raw = readStdin(MAX_PAYLOAD_BYTES);
  } catch (error) {
    writeSync(2, `hookwise: ${describeError(error)}\n`);
    // A payload that could not be read (too large) is a denied call: logged. A person at a terminal is not.
    if (errorCodeOf(error) === 'INPUT_TOO_LARGE') await auditUnread(error, host);
    return 2;
  }
  // The engine is loaded only when no daemon answered: a thin client's process stays small.
  const result = (await fromDaemon(raw, options)) ?? (await (await import('./check.js')).runCheck(raw, options));
  if (result.stdout !== '') writeSync(1, result.stdout);
  if (result.stderr !== undefined) writeSync(2, result.stderr);
  return result.exitCode;
}

/**
 * A running daemon's answer, or undefined to decide in process (the same engine, so the same verdict).
 * `HOOKWISE_DAEMON=off` never asks; `no-autostart` asks but never starts one. Otherwise, finding none, this
 * call starts one in the background for the calls after it and decides itself meanwhile.
 */
async function fromDaemon(raw: string, options: HookArgs): Promise<HookOutput | undefined> {
  const mode = process.env.HOOKWISE_DAEMON;
  if (mode === 'off') return undefined;
  let where: Locations;
  try {
    where = locations();
  } catch {
    return undefined; // the in-process path reports it
  }
  if (options.ensureDaemon === true) {
    try {
      const { ensureDaemon } = await import('../daemon/control.js');
      await ensureDaemon(where);
    } catch (error) {
      // This hook only adds context; the gate itself blocks while the daemon is down.
      process.stderr.write(`hookwise: could not start the daemon: ${describeError(error)}\n`);
    }
  }
  // The launcher may have asked already (cli/thin-client.ts): a hung daemon is not waited for twice.
  const asked = handover()?.daemon;
  const answer =
    asked !== undefined
      ? { kind: asked }
      : await askDaemon(raw, where, {
          host: options.host,
          envRole: process.env.HOOKWISE_ROLE,
          geminiAsk: process.env.HOOKWISE_GEMINI_ASK === 'ask',
        });
  if (answer.kind === 'answered') return answer.result;
  if (answer.kind === 'absent' && mode !== 'no-autostart') {
    try {
      const { spawnDaemon } = await import('../daemon/control.js');
      spawnDaemon(where);
    } catch {
      // Starting it is a convenience; this call is decided in process either way.
    }
  }
  return undefined;
}

/** The audit record of a payload that was refused unread; best effort (the deny stands either way). */
async function auditUnread(error: unknown, host: HostName | undefined): Promise<void> {
  try {
    const { appendFailedCall } = await import('../audit/failed-call.js');
    const { runtimeDir } = locations();
    ensurePrivateDir(runtimeDir);
    appendFailedCall(runtimeDir, {
      host: host ?? null,
      payload: undefined,
      raw: '',
      rule: `error:${errorCodeOf(error) ?? 'INTERNAL'}`,
      reason: describeError(error),
      latencyMs: 0,
    });
  } catch (failure) {
    writeSync(2, `hookwise: could not write the audit log: ${describeError(failure)}\n`);
  }
}
