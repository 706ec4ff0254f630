/** The slice of the cascade's context the stateful modules (safemode, breaker, hierarchy, delegation) add. */
import type { PolicyContext } from '../policy/context.js';
import type { ShellContext } from '../shell/prepare.js';
import type { ReadState } from './state-file.js';

export interface ModulesContext {
  /** The session's signed module state (read and verified at the edge; absent: the modules tier passes). */
  modules?: ReadState;
  /** The clock, epoch ms (the delegation window; default Date.now). */
  ports?: { now?: () => number };
}

/** What the modules tier reads: the call and policy, the shell analysis (writes), and its own slice. */
export type ModuleTierContext = PolicyContext & ShellContext & ModulesContext;
