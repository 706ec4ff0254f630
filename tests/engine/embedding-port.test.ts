/** The engine asks its embedding supplier (the daemon's pool) for a port per decision, for the call's project and session. */
import { describe, expect, it } from 'vitest';
import type { EmbeddingPort } from '../../src/core/tier.js';
import { Engine, type EmbeddingSupplier } from '../../src/engine/engine.js';
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
});
