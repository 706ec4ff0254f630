/** `hookwise doctor`'s supervisor line: credentials named (never shown), where the agent backend's answers come from. */
import { expect, it } from 'vitest';
import { supervisorCheck } from '../../src/cli/doctor.js';
import { DEFAULT_SUPERVISOR, type SupervisorSettings } from '../../src/policy/config-types.js';

const settings = (over: Partial<SupervisorSettings>): SupervisorSettings => ({
  ...DEFAULT_SUPERVISOR,
  source: 'config.yml:2',
  ...over,
});

it('off: no line', () => {
  expect(supervisorCheck(settings({ backend: 'off' }), {}, false)).toBeUndefined();
});

it('api with a key: ok, naming the variable and never its value', () => {
  const check = supervisorCheck(
    settings({ backend: 'api' }),
    { ANTHROPIC_API_KEY: 'value-that-must-not-show' },
    false,
  )!;
  expect(check).toMatchObject({ status: 'ok', what: 'supervisor' });
  expect(check.detail).toContain('credentials from ANTHROPIC_API_KEY');
  expect(JSON.stringify(check)).not.toContain('value-that-must-not-show');
});

it('api without credentials: a warning that says reviews go to a human, and the fix', () => {
  const check = supervisorCheck(settings({ backend: 'api' }), {}, true)!;
  expect(check.status).toBe('warn');
  expect(check.detail).toMatch(/every review fails and goes to a human/);
  expect(check.fix).toMatch(/ANTHROPIC_API_KEY/);
});

it('agent: says the lead session answers through the MCP tool, and what happens unanswered', () => {
  expect(supervisorCheck(settings({ backend: 'agent' }), {}, false)).toMatchObject({
    status: 'ok',
    detail: expect.stringMatching(/lead session .* answer_request .* unanswered, a human decides/),
  });
});
