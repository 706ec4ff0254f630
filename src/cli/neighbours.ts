/**
 * `hookwise rules list --neighbours [k]`: each remembered record's nearest others by embedding — what tier
 * 2b would compare a call with. The indexes are brought up to date (and saved) in this process first, with
 * the model loaded here.
 */
import type { ModelChoice } from '../embed/embedder.js';
import { buildIndexes, neighboursOf } from '../embed/build.js';
import { memoryTargets } from '../memory/load.js';
import { findProjectRoot } from '../paths/canonical.js';
import { loadPolicy } from '../policy/load.js';
import { HookwiseError } from '../core/errors.js';
import { sanitize } from '../sanitize/index.js';
import { locations } from '../util/locations.js';
import type { NeighbourFinder } from './rules.js';

export const DEFAULT_NEIGHBOURS = 3;

/** How many neighbours `--neighbours [k]` asks for (a bare flag: DEFAULT_NEIGHBOURS). */
export function neighbourCount(value: unknown): number {
  if (value === true || value === undefined) return DEFAULT_NEIGHBOURS;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 50)
    throw new HookwiseError('USAGE', `--neighbours takes a whole number from 1 to 50, not "${String(value)}"`);
  return n;
}

export async function neighbourFinder(
  k: number,
  o: { sessionId?: string; model?: ModelChoice },
  cwd = process.cwd(),
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ near: NeighbourFinder; notes: string[] }> {
  const where = locations(env);
  const projectRoot = findProjectRoot(cwd);
  const targets = memoryTargets({
    projectRoot,
    userConfigDir: where.userConfigDir,
    runtimeDir: where.runtimeDir,
    ...(o.sessionId === undefined ? {} : { sessionId: o.sessionId }),
  });
  const { loadEmbedder } = await import('../embed/model.js');
  // the model tier 2b uses here: the policy's (only the user's or org's file may choose one)
  const embedder = await loadEmbedder(o.model ?? (await loadPolicy(projectRoot, where)).embedding.model);
  const notes: string[] = [];
  const { set } = await buildIndexes(targets, where, embedder, { log: (line) => notes.push(sanitize(line).text) });
  return { near: (key, tool) => neighboursOf(set, targets, key, tool, k), notes };
}
