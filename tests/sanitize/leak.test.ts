/**
 * The leak test, at the sanitizer's entry points: every tool input of a session full of secrets goes
 * through what hookwise will store (sanitized JSON for ordinary tools, structural keys for file tools),
 * an audit-style line per call is appended, and then every byte written is searched for every secret,
 * raw and encoded. Zero hits. (Issue 4's wiring step extends this to `hookwise check` end to end.)
 */
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { assertSanitized, sanitize, sanitizedJson, structuralInput, type Sanitized } from '../../src/sanitize/index.js';
import { leaksIn, leakySession } from './leak-session.js';

const root = mkdtempSync(join(tmpdir(), 'hookwise-leak-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('leak test (sanitizer entry points)', () => {
  const { secrets, calls } = leakySession();
  const store = join(root, '.hookwise', 'decisions.jsonl');
  const audit = join(root, 'runtime', 'audit.jsonl');
  mkdirSync(join(root, '.hookwise'), { recursive: true });
  mkdirSync(join(root, 'runtime'), { recursive: true });

  it('the session really carries its secrets (the harness is not vacuous)', () => {
    const unsanitized = join(root, 'control-raw', 'calls.json');
    mkdirSync(join(root, 'control-raw'));
    appendFileSync(unsanitized, JSON.stringify(calls));
    const found = new Set(leaksIn([unsanitized], secrets).map((l) => l.secret));
    expect(found.size).toBeGreaterThanOrEqual(secrets.length - 4); // the others are only present encoded (escapes, %xx, base64)
    rmSync(join(root, 'control-raw'), { recursive: true });
    const perCall = calls.map(
      (c) => structuralInput(c.tool, c.input)?.contentFindings.length ?? sanitizedJson(c.input).findings.length,
    );
    expect(perCall.slice(0, -1).every((n) => n > 0)).toBe(true);
    expect(perCall[perCall.length - 1]).toBe(0);
  });

  it('every call is stored sanitized: JSON of the input, or a structural key for file tools', () => {
    for (const call of calls) {
      const structural = structuralInput(call.tool, call.input);
      let line: Sanitized;
      if (structural !== undefined) {
        // Content is never stored; its findings only tell the caller not to keep it.
        line = sanitizedJson({ ...structural.key, contentHadSecrets: structural.contentFindings.length > 0 }).text;
      } else {
        line = sanitizedJson({ tool: call.tool, input: call.input }).text;
      }
      assertSanitized(line, store);
      appendFileSync(store, `${line}\n`);
      const command = typeof call.input.command === 'string' ? sanitize(call.input.command).text : sanitize('').text;
      appendFileSync(audit, `${JSON.stringify({ tool: call.tool, command: assertSanitized(command, audit) })}\n`);
    }
    expect(readFileSync(store, 'utf8').split('\n').filter(Boolean).length).toBe(calls.length);
  });

  it('no secret, raw or encoded, appears in any byte written', () => {
    expect(leaksIn([root], secrets)).toEqual([]);
  });

  it('what was stored still says what happened (key names, hosts, tools and paths survive)', () => {
    const stored = readFileSync(store, 'utf8');
    for (const kept of [
      'GITHUB_TOKEN=<REDACTED>',
      'postgresql://app:<REDACTED>@db.internal:5432/app',
      '/work/app/.env',
      '"change":"write"',
      'mcp__http__request',
      'npm test -- --reporter=dot',
    ]) {
      expect(stored).toContain(kept);
    }
  });

  it('the leak finder does find a leak when there is one', () => {
    const dir = join(root, 'control');
    mkdirSync(dir);
    appendFileSync(join(dir, 'oops.log'), `b64 ${Buffer.from(secrets[0]!).toString('base64')}\n`);
    expect(leaksIn([dir], secrets)).toEqual([{ file: join(dir, 'oops.log'), secret: 0, form: 'base64' }]);
  });
});
