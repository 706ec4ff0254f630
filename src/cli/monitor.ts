/** `hookwise monitor` (follow the audit log live) and `hookwise stats`. */
import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { auditPath, parseAuditLines, readAudit, type AuditRecord } from '../audit/log.js';
import { readWallsHits } from '../audit/walls-log.js';
import { readSupervisorReviews } from '../audit/supervisor-log.js';
import { computeStats, matchesFilter, renderRecord, renderStats, type AuditFilter } from '../audit/stats.js';
import { findProjectRoot } from '../paths/canonical.js';
import { sanitize } from '../sanitize/index.js';
import { locations } from '../util/locations.js';

/**
 * The project filter of stats and monitor: the project of `--project` or of the current directory, as the
 * audit log records it (sanitized); undefined with `--all-projects`.
 */
export function projectFilter(o: { project?: string; allProjects?: boolean }): string | undefined {
  if (o.allProjects === true) return undefined;
  return sanitize(findProjectRoot(resolve(o.project ?? process.cwd()))).text;
}

export function stats(filter: AuditFilter, asJson: boolean): string {
  const { runtimeDir } = locations();
  const { records, problems } = readAudit(runtimeDir);
  const selected = records.filter((r) => matchesFilter(r, filter));
  const walls = readWallsHits(runtimeDir);
  problems.push(...walls.problems);
  // A walls hit knows its session, not its role or verdict: the session filter applies, the others do not.
  const hits = walls.records.filter(
    (h) =>
      (filter.session === undefined || h.session === filter.session) &&
      (filter.project === undefined || h.project === filter.project),
  );
  const reviewLog = readSupervisorReviews(runtimeDir);
  problems.push(...reviewLog.problems);
  // Like a walls hit, a review knows its session and project, not the decision's role or verdict.
  const reviews = reviewLog.records.filter(
    (v) =>
      (filter.session === undefined || v.session === filter.session) &&
      (filter.project === undefined || v.project === filter.project),
  );
  const s = computeStats(selected, hits, reviews);
  if (asJson) return JSON.stringify({ ...s, problems }, null, 2);
  return [renderStats(s), ...problems.map((p) => `warning: ${p}`)].join('\n');
}

export interface MonitorOptions extends AuditFilter {
  json?: boolean;
  /** Print the last N matching records before following. */
  lines?: number;
  /** Print what is there and exit instead of following. */
  follow?: boolean;
  intervalMs?: number;
}

/** Follows audit.jsonl across rotations (a new inode or a shrink means: start the new file from 0). */
export async function monitor(
  options: MonitorOptions,
  write: (line: string) => void,
  signal?: AbortSignal,
): Promise<void> {
  const runtimeDir = locations().runtimeDir;
  const show = (r: AuditRecord): void => {
    if (matchesFilter(r, options)) write(options.json === true ? JSON.stringify(r) : renderRecord(r));
  };
  const initial = readAudit(runtimeDir).records.filter((r) => matchesFilter(r, options));
  for (const r of initial.slice(Math.max(0, initial.length - (options.lines ?? 10)))) show(r);
  if (options.follow === false) return;

  const path = auditPath(runtimeDir);
  let inode = statSync(path, { throwIfNoEntry: false })?.ino;
  let offset = statSync(path, { throwIfNoEntry: false })?.size ?? 0;
  let partial = '';
  while (signal?.aborted !== true) {
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 250));
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat === undefined) continue;
    if (stat.ino !== inode || stat.size < offset) {
      inode = stat.ino;
      offset = 0;
      partial = '';
    }
    if (stat.size === offset) continue;
    const fd = openSync(path, 'r');
    try {
      const size = fstatSync(fd).size;
      const buffer = Buffer.alloc(size - offset);
      readSync(fd, buffer, 0, buffer.length, offset);
      offset = size;
      const text = partial + buffer.toString('utf8');
      const end = text.lastIndexOf('\n');
      partial = text.slice(end + 1); // keep an incomplete last line for the next round
      const records: AuditRecord[] = [];
      const problems: string[] = [];
      parseAuditLines(text.slice(0, end + 1), path, 0, records, problems);
      records.forEach(show);
      problems.forEach((p) => write(`warning: ${p}`));
    } finally {
      closeSync(fd);
    }
  }
}
