import type { Decision } from './decision.js';

/**
 * The text hosts show for a decision: names the tier and rule so a user can find and change what decided.
 * e.g. `hookwise deny (path-policy, role:coder:deny_write "tests/**" at .hookwise/roles.yml:14): …`
 */
export function formatReason(decision: Decision): string {
  const rule = decision.rule === undefined ? '' : `, rule ${decision.rule.id} from ${decision.rule.source}`;
  return `hookwise ${decision.verdict} [tier ${decision.tier}${rule}]: ${decision.reason}`;
}
