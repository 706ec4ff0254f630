/**
 * `hookwise check --jsonl`: replays and evaluations. One host payload per stdin line through the very same
 * engine as a single call, one decision object per stdout line, in order. A bad line gets its own
 * fail-closed decision and the batch goes on.
 */
import { createInterface } from 'node:readline';
import type { HostName } from '../core/tool-call.js';
import { Engine, MAX_PAYLOAD_BYTES } from '../engine/engine.js';
import { withAfterWork } from './check.js';
import { locations } from '../util/locations.js';

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

export async function runBatch(
  options: { host?: HostName },
  input: NodeJS.ReadableStream = process.stdin,
  write: (line: string) => void = (l) => process.stdout.write(l),
): Promise<number> {
  const lines = createInterface({ input, crlfDelay: Infinity });
  // One engine for the whole batch: policy, parses and the parser stay warm from line to line, as in the daemon.
  const engine = new Engine(locations(), { parseCacheSize: 4096 });
  const check = async (raw: string) =>
    await withAfterWork(
      await engine.handle(raw, {
        ...(options.host === undefined ? {} : { host: options.host }),
        envRole: process.env.HOOKWISE_ROLE,
        geminiAsk: process.env.HOOKWISE_GEMINI_ASK === 'ask',
        queue: false,
      }),
    );
  let n = 0;
  for await (const line of lines) {
    n++;
    if (line.trim() === '') continue;
    const result =
      Buffer.byteLength(line) > MAX_PAYLOAD_BYTES
        ? await check('') // empty → a fail-closed "no payload" decision; the size is named below
        : await check(line);
    const out: BatchDecision = {
      line: n,
      verdict: result.decision?.verdict ?? null,
      tier: result.decision?.tier ?? null,
      rule: result.decision?.rule?.id ?? null,
      reason:
        Buffer.byteLength(line) > MAX_PAYLOAD_BYTES
          ? `line ${n} is larger than ${MAX_PAYLOAD_BYTES} bytes`
          : (result.decision?.reason ?? null),
      exit_code: result.exitCode,
      stdout: result.stdout,
    };
    if (result.stderr !== undefined) out.stderr = result.stderr;
    write(JSON.stringify(out) + '\n');
  }
  return 0;
}
