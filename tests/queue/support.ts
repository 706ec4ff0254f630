/** Helpers for queue tests: a project in queue mode, waiting until items appear. */
import { FileQueue } from '../../src/queue/file-queue.js';
import type { PendingItem } from '../../src/queue/types.js';
import type { TestProject } from '../support/project.js';

export function queueMode(p: TestProject, timeout = '30s'): void {
  p.write('.hookwise/policy.yml', `registration:\n  wait_ms: 0\nhuman:\n  channel: queue\n  timeout: ${timeout}\n`);
}

/** Polls a list until `ready` holds (bounded by the count of looks, not a clock). */
export async function until<T>(look: () => T | Promise<T>, ready: (value: T) => boolean, tries = 500): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const value = await look();
    if (ready(value)) return value;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('the condition never held');
}

export function fileItems(p: TestProject): Promise<PendingItem[]> {
  const q = new FileQueue(p.runtimeDir);
  return until(
    () => q.list(),
    (items) => items.length > 0,
  );
}

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
