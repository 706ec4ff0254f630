/**
 * Reconnecting to the team store with a doubling delay: the queue and the replication each keep one, so a
 * store that is down is tried again soon, then less and less often, and never by two timers at once.
 */
export class StoreRetry {
  private timer: NodeJS.Timeout | undefined;
  private delayMs: number;

  constructor(
    private readonly firstMs: number,
    private readonly maxMs: number,
    private readonly attempt: () => void,
  ) {
    this.delayMs = firstMs;
  }

  /** A try is waiting for its time. */
  get pending(): boolean {
    return this.timer !== undefined;
  }

  /** Try again after the current delay (in place of a try already waiting), then double the delay. */
  schedule(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.attempt();
    }, this.delayMs);
    this.timer.unref();
    this.delayMs = Math.min(this.delayMs * 2, this.maxMs);
  }

  /** Connected: the next outage starts from the first delay again. */
  succeeded(): void {
    this.delayMs = this.firstMs;
  }

  cancel(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
