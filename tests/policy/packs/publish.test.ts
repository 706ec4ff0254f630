import { describe, it } from 'vitest';
import { publishPack } from '../../../src/policy/packs/publish.js';
import { expectPack } from '../../support/packs.js';

const expectPublish = (command: string, expected: string | null) => expectPack(publishPack, command, expected);

describe('publish pack', () => {
  it.each([
    ['npm publish', 'ask package-publish'],
    ['npm publish --access public', 'ask package-publish'],
    ['pnpm publish -r', 'ask package-publish'],
    ['yarn publish', 'ask package-publish'],
    ['yarn npm publish', 'ask package-publish'],
    ['bun publish', 'ask package-publish'],
    ['cargo publish', 'ask package-publish'],
    ['twine upload dist/*', 'ask package-publish'],
    ['python3 -m twine upload dist/*', 'ask package-publish'],
    ['poetry publish --build', 'ask package-publish'],
    ['poetry publish -n', 'ask package-publish'],
    ['uv publish', 'ask package-publish'],
    ['gem push pkg/x-1.0.gem', 'ask package-publish'],
    ['mvn -B deploy', 'ask package-publish'],
    ['./gradlew publishToMavenCentral', 'ask package-publish'],
    ['dotnet nuget push pkg.nupkg', 'ask package-publish'],
    ['npm unpublish my-pkg@1.0.0', 'deny package-unpublish'],
    ['cargo yank --version 1.0.0', 'ask package-yank'],
    ['gem yank x -v 1.0', 'ask package-yank'],
    ['docker push registry.example.com/app:1.2', 'ask image-push'],
    ['docker -H tcp://builder:2375 push app:latest', 'ask image-push'],
    ['docker buildx build --push -t app .', 'ask image-push'],
    ['gh release create v1.0.0 dist/*', 'ask release-publish'],
    ['gh release delete v0.9', 'ask release-publish'],
  ])('%s → %s', (command, expected) => expectPublish(command, expected));

  it.each([
    ['npm publish --dry-run', null],
    ['cargo publish --dry-run', null],
    ['npm pack', null],
    ['npm install', null],
    ['cargo build --release', null],
    ['docker build -t app .', null],
    ['gh release create v1.0.0 --draft', null],
    ['gh release list', null],
    ['mvn test', null],
    ['cargo yank --version 1.0.0 --undo', null],
    ['git commit -m "npm publish"', null],
    ['grep "twine upload" Makefile', null],
  ])('not a publish: %s', (command, expected) => expectPublish(command, expected));
});
