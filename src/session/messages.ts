/** What hookwise tells an agent (and its user) about registration. Kept together so they stay consistent. */
import type { CompiledPolicy } from '../policy/compiled.js';
import { ROLE_GROUPS } from '../policy/defaults.js';
import { shownId } from '../sanitize/ids.js';

export function rolesByGroup(policy: CompiledPolicy): string {
  const lines: string[] = [];
  for (const group of ROLE_GROUPS) {
    const names = Object.values(policy.roles)
      .filter((r) => r.group === group)
      .map((r) => r.name)
      .sort();
    if (names.length > 0) lines.push(`- ${group}: ${names.join(', ')}`);
  }
  return lines.join('\n');
}

export function registrationPrompt(rawId: string, policy: CompiledPolicy): string {
  const sessionId = shownId(rawId);
  return [
    `This session (${sessionId}) is not registered with hookwise, the permission gate for tool calls; until it is, tool calls are blocked.`,
    'Ask the user which role this session should work as, then register it by running:',
    `  hookwise register --session-id ${sessionId} --role <role>`,
    'Roles (each bounds which paths the session may write):',
    rolesByGroup(policy),
    `To run this session without hookwise instead: hookwise disable --session-id ${sessionId}`,
  ].join('\n');
}

export function unregisteredReason(rawId: string, policy: CompiledPolicy, waitedMs: number): string {
  const sessionId = shownId(rawId);
  return [
    `session ${sessionId} is not registered (${waitedMs > 0 ? `waited ${waitedMs} ms for a registration` : 'its first call already waited for a registration, so this one did not'}).`,
    `Register with: hookwise register --session-id ${sessionId} --role <role>`,
    `Roles:\n${rolesByGroup(policy)}`,
    `Or disable gating for this session: hookwise disable --session-id ${sessionId}`,
    'Or set HOOKWISE_ROLE=<role> in the environment of scripted runs.',
  ].join('\n');
}
