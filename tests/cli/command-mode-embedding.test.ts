/**
 * Command mode (no daemon) never pays for tier 2b: the built `hookwise check` loads neither onnxruntime,
 * hnswlib nor piscina — even with remembered shell decisions near the call — and tier 2b passes the call on.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cacheKey } from '../../src/memory/cache.js';
import { appendRecords } from '../../src/memory/store.js';
import type { Sanitized } from '../../src/sanitize/index.js';
import { makeProject } from '../support/project.js';

const BIN = join(import.meta.dirname, '..', '..', 'dist', 'hookwise.cjs');

describe('hookwise check without a daemon', () => {
  it('loads no embedding module', () => {
    const p = makeProject();
    p.register('s1', 'coder');
    const subject = 'rm -rf /tmp/build-output' as Sanitized;
    appendRecords({ scope: 'project', projectRoot: p.root }, [
      {
        key: cacheKey('Bash', subject),
        tool: 'Bash',
        subject,
        commands: ['rm'],
        role: 'coder',
        verdict: 'allow',
        reason: 'approved' as Sanitized,
        tier: 'human',
        scope: 'project',
        decided_by: 'human',
        ts: '2026-03-01T00:00:00.000Z',
      },
    ]);
    // A preload that records every module request naming the embedding stack.
    const trace = p.write(
      'trace.cjs',
      `const M = require('node:module'); const load = M._load; const seen = new Set();
M._load = function (request, ...rest) { if (/onnxruntime|hnswlib|piscina/.test(request)) seen.add(request); return load.call(this, request, ...rest); };
process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(join(p.root, 'loaded.txt'))}, [...seen].join(',')));`,
    );
    writeFileSync(join(p.root, 'loaded.txt'), 'not run');
    const r = spawnSync(process.execPath, ['-r', trace, BIN, 'check'], {
      input: JSON.stringify(p.pre('Bash', { command: 'rm -rf /tmp/build-cache' }, 's1')),
      env: { ...p.env, HOOKWISE_DAEMON: 'off' },
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).hookSpecificOutput.permissionDecision).not.toBe('allow');
    expect(readFileSync(join(p.root, 'loaded.txt'), 'utf8')).toBe('');
  });
});
