/**
 * The daemon's queue: in memory, so a waiting call's promise resolves the moment an answer arrives (no file,
 * no poll). Identical calls (same dedupe key) join one item; one answer resolves every call waiting on it.
 * Each call keeps its own deadline: when it passes, that call alone ends as a timeout, and the item goes
 * when nobody waits on it any more. Listeners (the web page's event stream) hear every change.
 */
import { itemFrom, join, newItemId, pushRecent, recentOf } from './item.js';
import {
  CALLER_GONE,
  unknownId,
  type AnswerResult,
  type HumanAnswer,
  type PendingItem,
  type PendingRequest,
  type QueueBackend,
  type RecentItem,
  type WaitOutcome,
} from './types.js';

interface Waiter {
  resolve(outcome: WaitOutcome): void;
  timer: NodeJS.Timeout;
}

interface Held {
  item: PendingItem;
  waiters: Set<Waiter>;
}

export type QueueEvent = { kind: 'changed' };

export class MemoryQueue implements QueueBackend {
  private readonly items = new Map<string, Held>();
  private readonly byDedupe = new Map<string, string>();
  private readonly recentList: RecentItem[] = [];
  private readonly listeners = new Set<(event: QueueEvent) => void>();

  wait(request: PendingRequest, timeoutMs: number, signal?: AbortSignal): Promise<WaitOutcome> {
    if (signal?.aborted === true) return Promise.resolve({ kind: 'unavailable', why: CALLER_GONE });
    let held = this.heldFor(request.dedupe);
    if (held === undefined) {
      const id = newItemId();
      held = { item: itemFrom(id, request), waiters: new Set() };
      this.items.set(id, held);
      this.byDedupe.set(request.dedupe, id);
    } else join(held.item, request);
    const h = held;
    const promise = new Promise<WaitOutcome>((resolve) => {
      const waiter: Waiter = {
        resolve,
        timer: setTimeout(() => this.expire(h, waiter), timeoutMs),
      };
      h.waiters.add(waiter);
      h.item.waiting = h.waiters.size;
      signal?.addEventListener('abort', () => this.leave(h, waiter), { once: true });
    });
    this.emit();
    return promise;
  }

  list(): PendingItem[] {
    return [...this.items.values()].map((h) => ({ ...h.item, sessions: [...h.item.sessions] }));
  }

  recent(): RecentItem[] {
    return [...this.recentList];
  }

  answer(id: string, answer: HumanAnswer): AnswerResult {
    const held = this.items.get(id);
    if (held === undefined) return { ok: false, why: unknownId(id) };
    this.remove(held);
    const resolved = held.waiters.size;
    // The longest-waiting call remembers the answer: the one that made the item, unless it went away.
    let first = true;
    for (const waiter of held.waiters) {
      clearTimeout(waiter.timer);
      waiter.resolve({ kind: 'answered', id, answer, first });
      first = false;
    }
    pushRecent(this.recentList, recentOf(held.item, answer, resolved));
    this.emit();
    return { ok: true, item: held.item, resolved };
  }

  /** Hear every change (an item added, joined, answered or expired); returns the unsubscribe. */
  subscribe(listener: (event: QueueEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Daemon shutdown: every waiting call ends now as a timeout (denied), not after the host kills it. */
  close(): void {
    for (const held of [...this.items.values()]) {
      for (const waiter of held.waiters) this.expire(held, waiter);
    }
  }

  private heldFor(dedupe: string): Held | undefined {
    const id = this.byDedupe.get(dedupe);
    return id === undefined ? undefined : this.items.get(id);
  }

  private expire(held: Held, waiter: Waiter): void {
    this.drop(held, waiter, { kind: 'timeout', id: held.item.id });
  }

  private leave(held: Held, waiter: Waiter): void {
    this.drop(held, waiter, { kind: 'unavailable', why: CALLER_GONE });
  }

  /** One call stops waiting (its deadline, or it went away); the item goes with its last call. */
  private drop(held: Held, waiter: Waiter, outcome: WaitOutcome): void {
    if (!held.waiters.delete(waiter)) return;
    clearTimeout(waiter.timer);
    held.item.waiting = held.waiters.size;
    if (held.waiters.size === 0) {
      this.remove(held);
      pushRecent(this.recentList, recentOf(held.item, undefined, 0));
    }
    waiter.resolve(outcome);
    this.emit();
  }

  private remove(held: Held): void {
    this.items.delete(held.item.id);
    if (this.byDedupe.get(held.item.dedupe) === held.item.id) this.byDedupe.delete(held.item.dedupe);
  }

  private emit(): void {
    for (const listener of this.listeners) {
      try {
        listener({ kind: 'changed' });
      } catch {
        // A listener's failure (a closed page's stream) is its own; the queue goes on.
      }
    }
  }
}
