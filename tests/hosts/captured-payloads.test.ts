/**
 * Round trips over payloads captured from the real Claude Code 2.1.330 and Gemini CLI 0.61.0 (see
 * tests/e2e/): every event hookwise is wired to parses, and the answer has the shape the host expects.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectHost } from '../../src/hosts/index.js';
import { makeProject } from '../support/project.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'payloads');
const cases = readdirSync(FIXTURES).flatMap((host) =>
  readdirSync(join(FIXTURES, host)).map((file) => [host, file.replace(/\.json$/, '')] as const),
);

/** Move a captured payload into a fresh test project (its temp paths are long gone). */
function relocate(payload: Record<string, unknown>, from: string, to: string): Record<string, unknown> {
  return JSON.parse(JSON.stringify(payload).split(from).join(to)) as Record<string, unknown>;
}

describe('captured host payloads', () => {
  it('cover every event hookwise is wired to', () => {
    expect(cases.map(([h, e]) => `${h}/${e}`).sort()).toEqual([
      'claude/PostToolUse',
      'claude/PreToolUse',
      'claude/SessionStart',
      'claude/UserPromptSubmit',
      'gemini/AfterTool',
      'gemini/BeforeAgent',
      'gemini/BeforeTool',
      'gemini/SessionStart',
    ]);
  });

  it.each(cases)('%s %s round-trips through check', async (host, event) => {
    const captured = JSON.parse(readFileSync(join(FIXTURES, host, `${event}.json`), 'utf8')) as Record<string, unknown>;
    expect(detectHost(captured)).toBe(host);
    const p = makeProject();
    const payload = relocate(captured, captured.cwd as string, p.root);
    const sessionId = payload.session_id as string;

    // Unregistered: context events ask the agent to register; tool events are blocked after the wait.
    p.write('.hookwise/policy.yml', 'registration:\n  wait_ms: 0\n');
    const unregistered = await p.check(payload);
    expect(unregistered.exitCode).toBe(0);
    p.register(sessionId, 'maintainer');
    const registered = await p.check(payload);
    expect(registered.exitCode).toBe(0);

    switch (event) {
      case 'PreToolUse': {
        const out = JSON.parse(registered.stdout);
        expect(out.hookSpecificOutput).toMatchObject({ hookEventName: 'PreToolUse', permissionDecision: 'allow' });
        expect(JSON.parse(unregistered.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
        break;
      }
      case 'BeforeTool':
        expect(JSON.parse(registered.stdout)).toMatchObject({ decision: 'allow' });
        expect(JSON.parse(unregistered.stdout)).toMatchObject({ decision: 'deny' });
        break;
      case 'UserPromptSubmit':
      case 'BeforeAgent':
      case 'SessionStart': {
        const context = JSON.parse(unregistered.stdout).hookSpecificOutput;
        expect(context.hookEventName).toBe(event);
        expect(context.additionalContext).toMatch(
          new RegExp(`hookwise register --session-id ${sessionId} --role <role>`),
        );
        expect(registered.stdout).toBe('');
        break;
      }
      case 'PostToolUse':
        expect(registered.stdout).toBe('');
        break;
      case 'AfterTool':
        expect(JSON.parse(registered.stdout)).toEqual({});
        break;
      default:
        throw new Error(`no expectation for ${host}/${event}`);
    }
  });
});
