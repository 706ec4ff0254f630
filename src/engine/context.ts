/**
 * The cascade's context, composed where the tiers meet: each tier declares the slice it reads beside its
 * code, and the engine builds one object that carries them all (judge.ts). Plain data and injected ports.
 */
import type { EmbeddingContext } from '../embed/port.js';
import type { MemoryContext } from '../memory/context.js';
import type { ModulesContext } from '../modules/context.js';
import type { PolicyContext } from '../policy/context.js';
import type { PreconditionContext, PreconditionRunner } from '../policy/precondition.js';
import type { ShellContext } from '../shell/prepare.js';
import type { McpContext } from '../catalog/mcp-call.js';
import type { SupervisionContext } from '../supervisor/backend.js';

/** Effects a tier may need, injected so tiers stay pure and testable; an absent port uses its default. */
export interface CascadePorts {
  /** Runs bash rules' precondition scripts (default: spawn with a timeout, see policy/precondition.ts). */
  precondition?: PreconditionRunner;
  /** The clock, epoch ms (the delegation window; default Date.now). */
  now?: () => number;
}

/** Everything a tier may look at: the union of the tiers' slices. */
export type CascadeContext = PolicyContext &
  ShellContext &
  McpContext &
  PreconditionContext &
  ModulesContext &
  MemoryContext &
  EmbeddingContext &
  SupervisionContext & { ports?: CascadePorts };
