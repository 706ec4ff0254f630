/**
 * The slice of the cascade's context the policy tiers read — and nearly every later tier with them: the
 * session's role and the compiled policy, on top of the call itself.
 */
import type { CallContext } from '../core/tier.js';
import type { CompiledPolicy, PolicyMatchers, RoleMatchers } from './compiled.js';

export interface PolicyContext extends CallContext {
  role: RoleMatchers;
  policy: CompiledPolicy;
  matchers: PolicyMatchers;
}
