/**
 * `hookwise build`: compiles decision memory into `.hookwise/.index/memory.idx`, and builds (or brings up
 * to date) every scope's embedding index for tier 2b (embed/index.ts), now instead of on the next calls.
 * The embedding model is loaded in this process; a progress bar goes to stderr when it is a terminal.
 */
import { statSync } from 'node:fs';
import { describeError } from '../core/errors.js';
import type { Embedder, ModelChoice } from '../embed/embedder.js';
import { loadIndexed, indexFile } from '../memory/index-file.js';
import { memoryTargets } from '../memory/load.js';
import { formatProblem } from '../memory/store.js';
import { findProjectRoot } from '../paths/canonical.js';
import { loadPolicy } from '../policy/load.js';
import { sanitize } from '../sanitize/index.js';
import { locations } from '../util/locations.js';

export interface BuildOptions {
  json?: boolean;
  /** The embedding model (default: the policy's `embedding.model`). */
  model?: ModelChoice;
  /** Tests: the embedder to use instead of loading the model. */
  embedder?: Embedder;
}

export interface BuildIo {
  /** Progress output (stderr); absent: no progress bar. */
  progress?: (text: string) => void;
}

export interface BuildResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

export async function buildIndexes(
  options: BuildOptions,
  io: BuildIo = {},
  env: NodeJS.ProcessEnv = process.env,
  cwd = process.cwd(),
): Promise<BuildResult> {
  const where = locations(env);
  const projectRoot = findProjectRoot(cwd);
  const targets = memoryTargets({
    projectRoot,
    userConfigDir: where.userConfigDir,
    runtimeDir: where.runtimeDir,
  }).filter((t) => t.scope !== 'session');
  const started = process.hrtime.bigint();
  const load = loadIndexed(targets, { projectRoot, home: where.home }, where.runtimeDir, { rebuild: true });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const file = indexFile(projectRoot);
  const bytes = statSync(file, { throwIfNoEntry: false })?.size ?? 0;
  const problems = load.problems.map((p) => `hookwise: ${sanitize(formatProblem(p)).text}\n`);
  const memory = { file, records: load.set.size, bytes, ms, problems: load.problems.length };

  const notes: string[] = [];
  const embedStarted = process.hrtime.bigint();
  let embedding:
    | {
        model: string;
        records: number;
        embedded: number;
        ms: number;
        peak_rss_mb: number;
        scopes: { scope: string; file: string; records: number; embedded: number }[];
      }
    | { error: string }
    | { skipped: string };
  let peakRss = process.memoryUsage.rss();
  try {
    let model = options.model;
    if (model === undefined && options.embedder === undefined) {
      const policy = await loadPolicy(projectRoot, where);
      if (!policy.embedding.enabled) throw new Skip(`embedding.enabled is false (${policy.embedding.source})`);
      model = policy.embedding.model;
    }
    const { buildIndexes: build } = await import('../embed/build.js');
    const embedder =
      options.embedder ?? (await (await import('../embed/model.js')).loadEmbedder(model ?? { kind: 'builtin' }));
    const bar = io.progress === undefined ? undefined : progressBar(io.progress);
    const { scopes } = await build(targets, where, embedder, {
      progress: (scope, done, total) => {
        peakRss = Math.max(peakRss, process.memoryUsage.rss());
        bar?.(scope, done, total);
      },
      log: (line) => notes.push(`hookwise: ${sanitize(line).text}\n`),
    });
    bar?.('', 0, 0);
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
    embedding = {
      model: embedder.id,
      records: scopes.reduce((n, s) => n + s.records, 0),
      embedded: scopes.reduce((n, s) => n + s.embedded, 0),
      ms: Number(process.hrtime.bigint() - embedStarted) / 1e6,
      peak_rss_mb: Math.round(peakRss / 1048576),
      scopes,
    };
  } catch (error) {
    embedding =
      error instanceof Skip
        ? { skipped: sanitize(error.message).text }
        : { error: sanitize(describeError(error)).text };
  }
  const stderr = [
    ...problems,
    ...notes,
    ...('error' in embedding ? [`hookwise: embedding indexes not built: ${embedding.error}\n`] : []),
  ].join('');
  const exitCode = 'error' in embedding ? 1 : 0;
  if (options.json === true) return { stdout: JSON.stringify({ ...memory, embedding }), stderr, exitCode };
  const lines = [`built ${file}: ${memory.records} records, ${bytes} bytes, in ${ms.toFixed(1)} ms`];
  if ('skipped' in embedding) lines.push(`embedding indexes not built: ${embedding.skipped}`);
  else if (!('error' in embedding)) {
    for (const s of embedding.scopes)
      lines.push(
        `built ${s.file}: ${s.records} records (${s.embedded === 0 ? 'up to date' : `${s.embedded} embedded`})`,
      );
    lines.push(
      `embedding indexes: ${embedding.records} records, ${embedding.embedded} embedded, in ${embedding.ms.toFixed(0)} ms, peak RSS ${embedding.peak_rss_mb} MB`,
    );
  }
  return { stdout: lines.join('\n'), stderr, exitCode };
}

/** Tier 2b is switched off: nothing to build, not a failure. */
class Skip extends Error {}

/** A one-line bar redrawn in place; `total` 0 clears it. */
function progressBar(write: (text: string) => void): (scope: string, done: number, total: number) => void {
  const WIDTH = 30;
  return (scope, done, total) => {
    if (total === 0) return write('\r\x1b[2K');
    const filled = Math.round((done / total) * WIDTH);
    write(`\r\x1b[2Kembedding ${scope} [${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}] ${done}/${total}`);
  };
}
