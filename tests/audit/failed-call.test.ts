/** The audit record of a call denied because hookwise could not read it: what could be read, sanitized. */
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { failedCallRecord, type FailedCall } from '../../src/audit/failed-call.js';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length > 0) rmSync(dirs.pop()!, { recursive: true, force: true });
});

const TOKEN = `ghp_${'Zq9xW2vB7n'.repeat(3)}k4M8pQ`;
const at = new Date('2026-01-02T03:04:05.000Z');

function failed(over: Partial<FailedCall>): FailedCall {
  return {
    host: 'claude',
    payload: undefined,
    raw: '',
    rule: 'error:INPUT_NOT_JSON',
    reason: 'x',
    latencyMs: 1,
    ...over,
  };
}

describe('failedCallRecord', () => {
  it('a payload that is not JSON: a deny of tier input with the error code, session and tool unknown', () => {
    const r = failedCallRecord(failed({ raw: '{"session_id": ', reason: 'hook payload is not valid JSON' }), at);
    expect(r).toMatchObject({
      ts: '2026-01-02T03:04:05.000Z',
      host: 'claude',
      session: '-',
      tool: '-',
      verdict: 'deny',
      tier: 'input',
      rule: 'error:INPUT_NOT_JSON',
      input: 'hook payload is not valid JSON',
      paths: [],
    });
    expect(r.project).toBeUndefined();
  });

  it('keeps what parsed: session, tool and the project of the cwd', () => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), 'hookwise-failed-')));
    dirs.push(base);
    mkdirSync(join(base, '.git'));
    mkdirSync(join(base, 'src'));
    const payload = { session_id: 's-7', tool_name: 'Write', cwd: join(base, 'src') };
    const r = failedCallRecord(failed({ payload, rule: 'error:INPUT_INVALID' }), at);
    expect(r).toMatchObject({ session: 's-7', tool: 'Write', project: base, rule: 'error:INPUT_INVALID' });
  });

  it('a secret in the session id, the tool name or the message is redacted; the raw payload is never stored', () => {
    const raw = JSON.stringify({ session_id: TOKEN, tool_name: `mcp__x__${TOKEN}`, tool_input: { key: TOKEN } });
    const r = failedCallRecord(
      failed({
        host: null,
        payload: JSON.parse(raw) as Record<string, unknown>,
        raw,
        reason: `field "cwd" is missing; near ${TOKEN}`,
      }),
      at,
    );
    expect(JSON.stringify(r)).not.toContain(TOKEN);
    expect(r.session).toContain('<REDACTED');
    expect(r.tool).toContain('<REDACTED');
    expect(r.secrets).toBeGreaterThan(0);
    expect(r.host).toBeNull();
  });

  it.each([
    ['relative', 'src/app'],
    ['too long', `/${'a/'.repeat(5000)}`],
    ['a NUL byte', '/tmp/\0x'],
  ])('a cwd that cannot be looked up (%s) places the record nowhere, without throwing', (_what, cwd) => {
    expect(failedCallRecord(failed({ payload: { cwd } }), at).project).toBeUndefined();
  });
});
