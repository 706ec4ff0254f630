/** The slice of the cascade's context the memory tiers (overrides, exact cache, Jaccard, embedding) read. */
import type { PolicyContext } from '../policy/context.js';
import type { CallSubject } from './subject.js';
import type { MemoryView } from './view.js';

/**
 * What the memory tiers see of one call: the view, and the call's subject and key. Both are computed on
 * first use and kept: most calls are decided by policy before memory is asked, and the key's hash loads a
 * native addon (≈ 3 ms per process) that such calls should not pay for. Pure computations of the call
 * itself — no file or network I/O happens through them.
 */
export interface CallMemory {
  view: MemoryView;
  subject(): CallSubject | undefined;
  key(): string | undefined;
}

export interface MemoryContext {
  /** Remembered decisions and this call's subject and key (loaded and computed at the edge). */
  memory?: CallMemory;
}

/** What the memory tiers read: the call, the role and policy, and the remembered decisions. */
export type MemoryTierContext = PolicyContext & MemoryContext;
