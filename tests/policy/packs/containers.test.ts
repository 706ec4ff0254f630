import { describe, it } from 'vitest';
import { containersPack } from '../../../src/policy/packs/containers.js';
import { expectPack } from '../../support/packs.js';
import { seg } from '../../support/segments.js';

const expectContainers = (command: Parameters<typeof expectPack>[1], expected: string | null) =>
  expectPack(containersPack, command, expected);

describe('containers pack', () => {
  it.each([
    ['docker system prune -a', 'ask system-prune'],
    ['docker system prune -af', 'ask system-prune'],
    ['docker system prune --volumes -f', 'deny prune-volumes'],
    ['docker volume prune -f', 'deny prune-volumes'],
    ['podman volume prune', 'deny prune-volumes'],
    ['docker image prune -a', 'ask prune'],
    ['docker container prune', 'ask prune'],
    ['docker builder prune --all', 'ask prune'],
    ['docker rm -f $(docker ps -aq)', 'ask remove-all'],
    ['docker rmi $(docker images -q)', 'ask remove-all'],
    ['docker container rm -f `docker ps -q`', 'ask remove-all'],
    ['docker volume rm pgdata', 'ask volume-remove'],
    ['docker compose down -v', 'ask compose-down-volumes'],
    ['docker-compose -f dev.yml down --volumes', 'ask compose-down-volumes'],
  ])('%s → %s', (command, expected) => expectContainers(command, expected));

  it('mass removal through xargs (arguments appended at run time) asks', () => {
    expectContainers([seg('docker rm -f', { context: 'xargs', flags: { appendsArgs: true } })], 'ask remove-all');
  });

  it.each([
    ['docker ps -a', null],
    ['docker rm old-container', null],
    ['docker compose down', null],
    ['docker compose up -d', null],
    ['docker run --rm -v $PWD:/src node:20 npm test', null],
    ['docker images', null],
    ['echo docker system prune -a', null],
  ])('not a bulk removal: %s', (command, expected) => expectContainers(command, expected));
});
