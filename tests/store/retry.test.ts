import { afterEach, describe, expect, it, vi } from 'vitest';
import { StoreRetry } from '../../src/store/retry.js';

afterEach(() => vi.useRealTimers());

describe('StoreRetry: one pending try, a doubling delay up to the cap', () => {
  it('tries after 250, 500, 1000 … ms, capped, and from the first delay again after a success', () => {
    vi.useFakeTimers();
    const tries: number[] = [];
    const retry = new StoreRetry(250, 800, () => tries.push(Date.now()));
    const start = Date.now();
    const gaps: number[] = [];
    for (let i = 0; i < 4; i++) {
      const before = Date.now();
      retry.schedule();
      expect(retry.pending).toBe(true);
      vi.runOnlyPendingTimers();
      expect(retry.pending).toBe(false);
      gaps.push(tries.at(-1)! - before);
    }
    expect(gaps).toEqual([250, 500, 800, 800]);
    retry.succeeded();
    const before = Date.now();
    retry.schedule();
    vi.runOnlyPendingTimers();
    expect(tries.at(-1)! - before).toBe(250);
    expect(tries).toHaveLength(5);
    expect(Date.now()).toBeGreaterThan(start);
  });

  it('a new schedule replaces the waiting try; cancel drops it', () => {
    vi.useFakeTimers();
    let tries = 0;
    const retry = new StoreRetry(100, 1000, () => tries++);
    retry.schedule();
    retry.schedule();
    vi.runAllTimers();
    expect(tries).toBe(1);
    retry.schedule();
    retry.cancel();
    expect(retry.pending).toBe(false);
    vi.runAllTimers();
    expect(tries).toBe(1);
  });
});
