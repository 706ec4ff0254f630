/** The engine asks its embedding supplier (the daemon's pool) for a port per decision, for the call's project and session. */
import { describe, expect, it } from 'vitest';
import type { EmbeddingPort } from '../../src/embed/port.js';
import { Engine, type EmbeddingSupplier } from '../../src/engine/engine.js';
import { InProcessEmbedding } from '../../src/embed/in-process.js';
import { loadEmbedder } from '../../src/embed/model.js';
import { cacheKey } from '../../src/memory/cache.js';
import { appendRecords } from '../../src/memory/store.js';
import type { Sanitized } from '../../src/sanitize/index.js';
import { locations } from '../../src/util/locations.js';
import { makeProject } from '../support/project.js';

describe('the embedding port', () => {
  it('is asked for per decision with the call’s project root and session', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    const asked: [string, string | undefined][] = [];
    const supplier: EmbeddingSupplier = {
      portFor(projectRoot, sessionId): EmbeddingPort {
        asked.push([projectRoot, sessionId]);
        return { nearest: async () => ({ unavailable: 'not used by this test' }) };
      },
    };
    const engine = new Engine(locations(p.env), { embedding: supplier });
    await engine.handle(JSON.stringify(p.pre('Bash', { command: 'make deploy-everything' }, 's1')));
    expect(asked).toEqual([[p.root, 's1']]);
  });

  it('in process (as evaluations replay the daemon), the shipped model allows a call near a remembered allow', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    const subject = 'mytool lint src/api/server.ts' as Sanitized;
    appendRecords({ scope: 'project', projectRoot: p.root }, [
      {
        key: cacheKey('Bash', subject),
        tool: 'Bash',
        subject,
        commands: ['mytool'],
        role: 'coder',
        verdict: 'allow',
        reason: 'approved' as Sanitized,
        tier: 'human',
        scope: 'project',
        decided_by: 'human',
        ts: '2026-03-01T00:00:00.000Z',
      },
    ]);
    const where = locations(p.env);
    const engine = new Engine(where, {
      embedding: new InProcessEmbedding(where, await loadEmbedder({ kind: 'builtin' })),
    });
    const r = await engine.handle(JSON.stringify(p.pre('Bash', { command: 'mytool lint src/web/client.ts' }, 's1')));
    expect(r.decision).toMatchObject({ verdict: 'allow', tier: 'embedding' });
  });
});
