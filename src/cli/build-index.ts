/** `hookwise build`: compiles decision memory into `.hookwise/.index/memory.idx` now, instead of on the next call. */
import { statSync } from 'node:fs';
import { loadIndexed, indexFile } from '../memory/index-file.js';
import { memoryTargets } from '../memory/load.js';
import { formatProblem } from '../memory/store.js';
import { findProjectRoot } from '../paths/canonical.js';
import { sanitize } from '../sanitize/index.js';
import { locations } from '../util/locations.js';

export interface BuildOptions {
  json?: boolean;
}

export function buildMemoryIndex(options: BuildOptions, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): { stdout: string; stderr: string } {
  const where = locations(env);
  const projectRoot = findProjectRoot(cwd);
  const targets = memoryTargets({ projectRoot, userConfigDir: where.userConfigDir, runtimeDir: where.runtimeDir }).filter((t) => t.scope !== 'session');
  const started = process.hrtime.bigint();
  const load = loadIndexed(targets, { projectRoot, home: where.home }, where.runtimeDir, { rebuild: true });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const file = indexFile(projectRoot);
  const bytes = statSync(file, { throwIfNoEntry: false })?.size ?? 0;
  const stderr = load.problems.map((p) => `hookwise: ${sanitize(formatProblem(p)).text}\n`).join('');
  if (options.json === true) return { stdout: JSON.stringify({ file, records: load.set.size, bytes, ms, problems: load.problems.length }), stderr };
  return { stdout: `built ${file}: ${load.set.size} records, ${bytes} bytes, in ${ms.toFixed(1)} ms`, stderr };
}
