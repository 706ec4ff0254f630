/**
 * `hookwise check --jsonl`: replays and evaluations. One host payload per stdin line through the very same
 * runCheck as a single call, one decision object per stdout line, in order. A bad line gets its own
 * fail-closed decision and the batch goes on.
 */
import { createInterface } from 'node:readline';
import type { HostName } from '../core/tool-call.js';
import { MAX_PAYLOAD_BYTES, runCheck } from './check.js';

export interface BatchDecision {
  line: number;
  verdict: string | null;
  tier: string | null;
  rule: string | null;
  reason: string | null;
  /** What the host would have received. */
  exit_code: number;
  stdout: string;
  stderr?: string;
}

export async function runBatch(options: { host?: HostName }, input: NodeJS.ReadableStream = process.stdin, write: (line: string) => void = (l) => process.stdout.write(l)): Promise<number> {
  const lines = createInterface({ input, crlfDelay: Infinity });
  let n = 0;
  for await (const line of lines) {
    n++;
    if (line.trim() === '') continue;
    const result =
      Buffer.byteLength(line) > MAX_PAYLOAD_BYTES
        ? await runCheck('', options) // empty → a fail-closed "no payload" decision; the size is named below
        : await runCheck(line, options);
    const out: BatchDecision = {
      line: n,
      verdict: result.decision?.verdict ?? null,
      tier: result.decision?.tier ?? null,
      rule: result.decision?.rule?.id ?? null,
      reason: Buffer.byteLength(line) > MAX_PAYLOAD_BYTES ? `line ${n} is larger than ${MAX_PAYLOAD_BYTES} bytes` : result.decision?.reason ?? null,
      exit_code: result.exitCode,
      stdout: result.stdout,
    };
    if (result.stderr !== undefined) out.stderr = result.stderr;
    write(JSON.stringify(out) + '\n');
  }
  return 0;
}
