import { describe, expect, it } from 'vitest';
import { remotePlace } from '../../src/shell/remote.js';
import { segments } from './helpers.js';

describe('where a segment runs when not here', () => {
  it.each([
    ["ssh deploy@web 'ls /srv'", { kind: 'ssh', name: 'deploy@web', via: 'ssh' }],
    ['docker exec -i db psql', { kind: 'container', name: 'db', via: 'docker exec' }],
    ['docker compose exec -T db psql', { kind: 'container', name: 'db', via: 'docker compose exec' }],
    ['kubectl exec pg-0 -c pg -- psql', { kind: 'container', name: 'pg-0 (pg)', via: 'kubectl exec' }],
    ["ssh host 'docker exec db psql'", { kind: 'container', name: 'db', via: 'docker exec' }],
  ])('%s → %j', (command, place) => {
    const parsed = segments(command);
    expect(remotePlace(parsed[parsed.length - 1]!)).toEqual(place);
  });

  it('a segment that runs here has no place elsewhere (the container client included)', () => {
    expect(segments('docker exec -i db psql').map((s) => remotePlace(s)?.kind)).toEqual([undefined, 'container']);
  });
});
