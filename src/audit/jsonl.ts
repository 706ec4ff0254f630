/** Reading hookwise's own append-only JSON Lines logs (walls hits, supervisor reviews): total, never throwing on a bad line. */
import { readFileSync } from 'node:fs';

/**
 * Every record of `file` that parses and passes `check` (which names what is missing, or undefined), oldest
 * first; an unreadable line is skipped and named in `problems`. A missing file is an empty log.
 */
export function readJsonLines<T>(
  file: string,
  check: (value: T) => string | undefined,
): { records: T[]; problems: string[] } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { records: [], problems: [] };
    throw error;
  }
  const records: T[] = [];
  const problems: string[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    try {
      const value = JSON.parse(line) as T;
      const missing = value === null || typeof value !== 'object' ? 'not an object' : check(value);
      if (missing !== undefined) throw new Error(missing);
      records.push(value);
    } catch (error) {
      problems.push(`${file}:${i + 1}: skipped unreadable line (${(error as Error).message})`);
    }
  });
  return { records, problems };
}
