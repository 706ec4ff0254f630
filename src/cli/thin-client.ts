/**
 * The thin client, run by the launcher (dist/hookwise.cjs) before anything else is loaded: a hook call is
 * handed to the running daemon and its answer printed, so the process never loads the engine bundle
 * (compiling it alone costs more than the daemon's whole answer). When there is no daemon, or it does not
 * answer, the launcher loads the full CLI, which decides in process; what was read from stdin and what
 * became of the daemon are handed over (stdin.ts), so neither is done twice.
 */
import { statSync, writeSync } from 'node:fs';
import { MAX_PAYLOAD_BYTES } from '../core/limits.js';
import { HOSTS, type HostName } from '../core/tool-call.js';
import { askDaemon } from '../daemon/client.js';
import { daemonPaths } from '../daemon/paths.js';
import { locations } from '../util/locations.js';
import { handOver, readStdin, stdinIsTerminal } from './stdin.js';

/** The exit code when the daemon answered; undefined to go on with the full CLI. */
export async function answerFromDaemon(argv: readonly string[]): Promise<number | undefined> {
  const command = argv[0];
  if ((command !== 'check' && command !== 'session-check') || process.env.HOOKWISE_DAEMON === 'off') return undefined;
  let host: HostName | undefined;
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = arg === '--host' ? argv[++i] : arg.startsWith('--host=') ? arg.slice('--host='.length) : undefined;
    if (value !== undefined && (HOSTS as readonly string[]).includes(value)) host = value as HostName;
    // Anything else (--jsonl, --ensure-daemon, a typo) is the full CLI's to handle and report.
    else return undefined;
  }
  let socketExists: boolean;
  let where;
  try {
    where = locations();
    socketExists = statSync(daemonPaths(where).socket, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return undefined;
  }
  // No socket: nothing read, nothing asked; the full CLI starts a daemon and decides.
  if (!socketExists || stdinIsTerminal()) return undefined;
  let raw: string;
  try {
    raw = readStdin(MAX_PAYLOAD_BYTES);
  } catch (error) {
    handOver({ error, daemon: 'unusable' });
    return undefined;
  }
  const answer = await askDaemon(raw, where, {
    host,
    envRole: process.env.HOOKWISE_ROLE,
    geminiAsk: process.env.HOOKWISE_GEMINI_ASK === 'ask',
  });
  if (answer.kind !== 'answered') {
    handOver({ payload: raw, daemon: answer.kind });
    return undefined;
  }
  if (answer.result.stdout !== '') writeSync(1, answer.result.stdout);
  if (answer.result.stderr !== undefined) writeSync(2, answer.result.stderr);
  return answer.result.exitCode;
}
