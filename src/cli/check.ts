/**
 * `hookwise check` in process: one hook event in, one host answer out, through the engine
 * (src/engine/engine.ts). The hook command (hook-command.ts) asks a running daemon first and comes here
 * when none answers; both paths run the same engine, so the verdict is the same.
 */
import { Engine, type CheckResult, type EngineOptions } from '../engine/engine.js';
import type { HostName } from '../core/tool-call.js';
import { locations } from '../util/locations.js';

export { MAX_PAYLOAD_BYTES, type CheckResult } from '../engine/engine.js';

export interface CheckOptions {
  host?: HostName;
  env?: NodeJS.ProcessEnv;
  /** What a daemon would hold (e.g. tier 2b's embedding pool): for evaluations that replay the daemon's path in process. */
  engine?: EngineOptions;
}

export async function runCheck(raw: string, options: CheckOptions = {}): Promise<CheckResult> {
  const env = options.env ?? process.env;
  let engine: Engine;
  try {
    engine = new Engine(locations(env), options.engine);
  } catch (error) {
    return { stdout: '', stderr: `hookwise: ${(error as Error).message}\n`, exitCode: 2 };
  }
  const result = await engine.handle(raw, {
    ...(options.host === undefined ? {} : { host: options.host }),
    envRole: env.HOOKWISE_ROLE,
    geminiAsk: env.HOOKWISE_GEMINI_ASK === 'ask',
  });
  return await withAfterWork(result);
}

/**
 * A one-shot process does the after-answer work before it answers: a command hook's host waits for the
 * process to end either way, and the process must not end with the work undone.
 */
export async function withAfterWork(result: CheckResult): Promise<CheckResult> {
  if (result.after === undefined) return result;
  const { after, ...answer } = result;
  const problem = await after();
  return problem === undefined ? answer : { ...answer, stderr: `${answer.stderr ?? ''}${problem}` };
}
