import { describe, it } from 'vitest';
import { readOnlyPack } from '../../../src/policy/packs/read-only.js';
import { expectPack } from '../../support/packs.js';
import { seg } from '../../support/segments.js';

const expectRo = (command: Parameters<typeof expectPack>[1], expected: string | null) =>
  expectPack(readOnlyPack, command, expected);

describe('read-only pack: allowed', () => {
  it.each([
    ['ls -la', 'allow read-file'],
    ['pwd', 'allow inspect'],
    ['echo hello', 'allow inspect'],
    ['printf "%s\\n" done', 'allow inspect'],
    ['which node', 'allow inspect'],
    ['command -v rg', 'allow inspect'],
    ['printenv PATH', 'allow inspect'],
    ['date +%s', 'allow inspect'],
    ['wc -l src/a.ts', 'allow read-file'],
    // Writes it names: vouched for by the catalogue, each target judged by the shell tier's path policy.
    ['sort -o out.txt data.txt', 'allow write-named'],
    ['sort -no out.txt data.txt', 'allow write-named'],
    ['tree -o listing.txt', 'allow write-named'],
    ['uniq in.txt out.txt', 'allow write-named'],
    ['cd src', 'allow navigate'],
    ['cat README.md', 'allow read-file'],
    ['head -n 20 src/index.ts', 'allow read-file'],
    ['tail -f logs/dev.log', 'allow read-file'],
    ['sort data.txt', 'allow read-file'],
    ['cat src/*.ts', 'allow read-file'],
    ['jq .version package.json', 'allow read-file'],
    ['diff a.txt b.txt', 'allow read-file'],
    ['grep -rn "TODO" src', 'allow search'],
    ['rg -l useState', 'allow search'],
    ['find . -name "*.ts" -not -path "./node_modules/*"', 'allow search'],
    ['fd -e ts', 'allow search'],
    ['tree -L 2', 'allow search'],
    ['git status', 'allow git-read'],
    ['git log --oneline -n 20', 'allow git-read'],
    ['git diff HEAD~1 -- src', 'allow git-read'],
    ['git show HEAD:package.json', 'allow git-read'],
    ['git branch', 'allow git-read'],
    ['git branch -a -v', 'allow git-read'],
    ['git branch --list', 'allow git-read'],
    ['git remote -v', 'allow git-read'],
    ['git rev-parse --abbrev-ref HEAD', 'allow git-read'],
    ['git ls-files', 'allow git-read'],
    ['git blame src/a.ts', 'allow git-read'],
    ['git -C ../other log', 'allow git-read'],
    ['git stash list', 'allow git-read'],
    ['git config --get user.email', 'allow git-read'],
    ['npm test', 'allow test-runner'],
    ['npm t', 'allow test-runner'],
    ['npm run test:unit', 'allow test-runner'],
    ['npm run lint', 'allow lint'],
    // a check script by its name (the catalogue's script kind)
    ['pnpm run typecheck', 'allow test-runner'],
    ['make check', 'allow test-runner'],
    ['pnpm test', 'allow test-runner'],
    ['yarn test', 'allow test-runner'],
    ['bun test', 'allow test-runner'],
    ['npx vitest run', 'allow test-runner'],
    ['npx jest --coverage', 'allow test-runner'],
    ['vitest run tests/policy', 'allow test-runner'],
    ['pytest -q tests/', 'allow test-runner'],
    ['python -m pytest -k login', 'allow test-runner'],
    ['cargo test', 'allow test-runner'],
    ['go test ./...', 'allow test-runner'],
    ['make test', 'allow test-runner'],
    ['npx tsc --noEmit', 'allow lint'],
    ['tsc -p tsconfig.json --noEmit', 'allow lint'],
    ['npx eslint src', 'allow lint'],
    ['prettier --check .', 'allow lint'],
    ['ruff check .', 'allow lint'],
    ['black --check src', 'allow lint'],
    ['cargo clippy', 'allow lint'],
    ['gofmt -l .', 'allow lint'],
    ['shellcheck scripts/*.sh', 'allow lint'],
    ['node --version', 'allow version'],
    ['node -v', 'allow version'],
    ['python3 --version', 'allow version'],
    ['git --version', 'allow version'],
    ['terraform -h', 'allow version'],
    // a program's own --version / --help spellings, from its grammar (no entry needed)
    ['rustc -V', 'allow version'],
    ['java -version', 'allow version'],
    ['rm --help', 'allow version'],
    // an entry whose form writes still prints only its version
    ['tsc --version', 'allow version'],
  ])('%s → %s', (command, expected) => expectRo(command, expected));

  it.each([
    ['curl -s http://localhost:3000/health', 'allow local-fetch'],
    ['wget -qO- http://127.0.0.1:8080/metrics', 'allow local-fetch'],
    ['pip list --format=json', 'allow package-query'],
    ['terraform plan', 'allow dry-run'],
    ['terraform validate', 'allow lint'],
    ['terraform state list', 'allow cli-query'],
    ['kubectl apply -f k8s/deploy.yaml --dry-run=client', 'allow dry-run'],
    ['helm install app ./chart --dry-run', 'allow dry-run'],
    ['rsync -n -a src/ /tmp/x/', 'allow dry-run'],
    ['apt-get -s install nginx', 'allow dry-run'],
    ['npx ava --verbose', 'allow test-runner'],
    ['python -m pylint src/', 'allow lint'],
    ['python -m unittest -v', 'allow test-runner'],
  ])('the catalogue entry decides: %s → %s', (command, expected) => expectRo(command, expected));
});

describe('read-only pack: not vouched for', () => {
  it.each([
    ['yq -i ".a = 1" x.yaml', null],
    // an operand of `git branch` names a new branch, unless --list makes it a pattern: the entry does not
    // express that yet, so no operand is accounted for
    ['git branch --list "feat/*"', null],
    ['git branch feat/x', null],
    ['xxd -r dump.hex out.bin', null],
    ['rg --pre ./decompress.sh pattern', null],
    ['fd -e log -x rm', null],
    ['find . -name "*.tmp" -delete', null],
    ['find . -exec cat {} ;', null],
    ['find . -fprint files.txt', null],
    ['date -s "2020-01-01"', null],
    ['date 0101000020', null],
    ['hostname newname', null],
    ['cat .env', null],
    ['cat $FILE', null],
    ['cat .*', null],
    ['cat *', null],
    ['printenv', null],
    ['printenv GITHUB_TOKEN', null],
    ['echo $API_KEY', null],
    ['git push', null],
    ['git commit -m x', null],
    ['git branch new-feature', null],
    ['git branch -D old', null],
    ['git tag v1.0', null],
    ['git remote add origin url', null],
    ['git stash', null],
    ['git config user.name x', null],
    ['git -c core.pager="sh -c evil" log', null],
    ['git -c core.fsmonitor=./x status', null],
    ['git diff --output=patch.diff', null],
    ['git fetch', null],
    ['npm install', null],
    ['npm run build', null],
    ['npm run lint:fix', null],
    ['npm run test:update', null],
    ['npx some-random-tool', null],
    ['npx -p evil-pkg vitest', null],
    ['npx vitest -u', null],
    ['tsc', null],
    ['tsc --build', null],
    ['eslint --fix src', null],
    ['prettier --write .', null],
    ['ruff check --fix .', null],
    ['black src', null],
    ['cargo clippy --fix', null],
    ['gofmt -w .', null],
    ['make', null],
    ['make deploy', null],
    ['node script.js', null],
    ['node --version extra', null],
    ['python -v', null],
    ['./evil --version', null],
    ['python --version --x', null],
    ['rm --version extra', null],
    ['curl -s -d x=1 http://localhost:3000/api', null],
    ['pip install --dry-run requests', null],
    // a credentials file named only by an option's value, which the entry says the program loads
    ['aws sts get-caller-identity --cli-input-yaml file://.npmrc', null],
    ['curl -H @.netrc http://localhost:3000/', null],
    ['rm -rf build', null],
    ['curl https://example.com', null],
  ])('%s → not allowed by this pack', (command, expected) => expectRo(command, expected));

  it('words appended at run time (xargs, find -exec) are not accounted for, so nothing is vouched for', () => {
    expectRo([seg('cat', { context: 'xargs', flags: { appendsArgs: true } })], null);
    expectRo([seg('grep -l TODO', { context: 'xargs', flags: { appendsArgs: true } })], null);
  });
});

describe('read-only pack: cloud, cluster and service queries', () => {
  it.each([
    ['kubectl get pods -n prod', 'allow cli-query'],
    ['gcloud compute instances list', 'allow cli-query'],
    ['az vm show --name web-1', 'allow cli-query'],
    ['docker volume ls', 'allow cli-query'],
    ['docker ps -a', 'allow cli-query'],
    ['helm history my-release', 'allow cli-query'],
    ['gh pr view 12', 'allow cli-query'],
    ['systemctl status nginx', 'allow read-file'], // systemctl is a catalogue entry: its read verbs are allowed on knowledge
    ['aws ec2 describe-instances', 'allow cli-query'],
    ['aws s3 ls s3://bucket', 'allow cli-query'],
    ['docker compose logs web', 'allow cli-query'],
    ['kubectl logs deploy/api --tail=50', 'allow cli-query'],
    ['glab issue list', 'allow cli-query'],
    ['glab pipeline status --branch main', 'allow cli-query'],
    ['doctl compute droplet list', 'allow cli-query'],
    ['vercel domains ls', 'allow cli-query'],
    ['fly apps list', 'allow cli-query'],
    ['flyctl status --app web', 'allow cli-query'],
    ['gsutil ls gs://bucket', 'allow cli-query'],
  ])('%s → %s', (command, expected) => expectRo(command, expected));

  it.each([
    ['kubectl get secret db -o yaml'],
    ['netlify env:get API_KEY'],
    ['gcloud auth print-access-token'],
    ['aws s3api get-object --bucket b --key k out.bin'],
    ['aws secretsmanager list-secrets'],
    ['kubectl delete pod web-1'],
    ['docker run -it ubuntu bash'],
    ['systemctl stop nginx'],
    ['gh secret list'],
    ['kubectl get pods --output-file=pods.txt'],
    ['vercel env ls'],
    ['glab variable list'],
    ['gsutil cat gs://bucket/secret.txt'],
    ['doctl compute droplet list --access-token abc'],
  ])('%s → no opinion', (command) => expectRo(command, null));
});

describe('read-only pack: topic:verb CLIs', () => {
  it.each([
    ['heroku apps:list', 'allow cli-query'],
    ['heroku ps:kill web.1', null],
    ['heroku ps:restart', null],
  ])('%s → %s', (command, expected) => expectRo(command, expected));
});

describe('read-only pack: dry runs a program documents as changing nothing', () => {
  it.each([
    ['git add -n .'],
    ['git add --dry-run -A'],
    ['git rm -r -n build'],
    ['git mv -n a b'],
    ['git clean -n'],
    ['git clean -nd -x'],
    ['git push --dry-run origin feature/x'],
    ['git push -n'],
    ['git commit --dry-run'],
    ['make -n'],
    ['make -n build test'],
    ['make --dry-run -j4 all'],
    ['pulumi preview'],
    ['patch --dry-run -p1 < fix.patch'],
    ['npm install --dry-run'],
    ['npm ci --dry-run'],
    ['npm install --dry-run express'],
    ['npm publish --dry-run'],
    ['npm pack --dry-run'],
    ['pip install --dry-run --only-binary=:all: requests'],
  ])('%s', (command) => expectRo(command, 'allow dry-run'));

  it.each([
    // no dry-run flag, or one that means something else for this program
    ['git commit -n -m x'], // commit -n is --no-verify
    ['git clean -f'],
    ['cp -n a b'],
    ['mv -n a b'],
    ['rm -rf build'],
    // not truly no-write, or running programs
    ['git clean -fdn'],
    ['git clean -n -i'],
    ['git push --dry-run --receive-pack=/tmp/x origin'],
    ['git -c core.sshCommand=/tmp/x push --dry-run'],
    ["git fetch --dry-run 'ext::sh -c x'"],
    ['npm install --dry-run=false'],
    ['npm publish --dry-run --script-shell=/tmp/sh'],
    ['make -n deploy'],
    ['make -n install'],
    ['make -n -f /tmp/evil.mk'],
    ['make -n SHELL=/tmp/sh'],
    ["make -n 'X=$(shell rm -rf ~)'"],
    ['ansible-playbook site.yml --check'],
    ['patch -p1 < fix.patch'],
    ['npm install --dry-run $PKG'],
    ['npm install express'],
    ['pip install --dry-run requests'],
    // a dry run that builds or fetches is the workflow's (workflow.test.ts)
    ['git fetch --dry-run'],
    ['cargo publish --dry-run'],
    ['terragrunt run-all plan'],
  ])('%s → not vouched for', (command) => expectRo(command, null));
});

describe('read-only pack: sed that only prints', () => {
  it.each([
    ["sed -n '1,50p' src/index.ts"],
    ["sed -n '/function main/,/^}/p' src/main.ts"],
    ["sed 's/foo/bar/g' README.md"],
    ["sed -E 's|a/b|c|2; s/x/y/I' notes.txt"],
    ["sed -n -e '10p' -e '$p' a.txt"],
    ["sed '$!N;/^\\(.*\\)\\n\\1$/!P;D' a.txt"],
    ["sed -n '/start/,/end/{/x/p;}' a.txt"],
    ["sed 's/[/]/_/g' paths.txt"],
    ["sed '1i header' a.txt"],
    ["sed -n '0~4p' a.txt"],
  ])('%s → read-file', (command) => expectRo(command, 'allow read-file'));

  it.each([
    ["sed -i 's/a/b/' a.txt"],
    ["sed -ni 's/a/b/p' a.txt"],
    ["sed -i.bak 's/a/b/' a.txt"],
    ["sed --in-place 's/a/b/' a.txt"],
    ['sed -f script.sed a.txt'],
    ["sed '1w out.txt' a.txt"],
    ["sed -n 'W out' a.txt"],
    ["sed 's/a/b/w out.txt' a.txt"],
    ["sed 's/a/b/e' a.txt"],
    ["sed 's/a/b/gw out' a.txt"],
    ["sed '1e id' a.txt"],
    ["sed 'e id' a.txt"],
    ["sed 'r /etc/shadow' a.txt"],
    ["sed '1R .env' a.txt"],
    ["sed -n '1p' .env"],
    ['sed -n "$X" a.txt'],
    ["sed -n '1p' $FILE"],
    ["sed 's/[/]/x/;w out' a.txt"],
    ["sed -n '/a/{p' a.txt"],
  ])('%s → not vouched for', (command) => expectRo(command, null));
});

describe('read-only pack: package queries and system listings', () => {
  it.each([
    ['npm ls', 'allow package-query'],
    ['npm outdated', 'allow package-query'],
    ['npm info my-package', 'allow package-query'],
    ['npm audit', 'allow package-query'],
    ['pnpm why react', 'allow package-query'],
    ['yarn npm info my-package', 'allow package-query'],
    ['pgrep -f node', 'allow inspect'],
    ['lsof -i :3000', 'allow inspect'],
    ['crontab -l', 'allow inspect'],
    ['ssh-add -l', 'allow inspect'],
    ['iptables -L -n', 'allow inspect'],
    ['iptables -t nat -L', 'allow inspect'],
    ['ip6tables -nvL INPUT', 'allow inspect'],
    ['ssh-add -L', 'allow inspect'],
    ['nft list ruleset', 'allow inspect'],
    ['ufw status verbose', 'allow inspect'],
  ])('%s → %s', (command, expected) => expectRo(command, expected));

  it.each([
    ['npm audit fix'],
    ['npm audit --fix'],
    ['npm config get //registry.npmjs.org/:_authToken'],
    ['crontab -r'],
    ['ssh-add -D'],
    ['iptables -F'],
    ['iptables -L -F'],
    ['iptables -t nat -F'],
    ['iptables -L -Z'],
    ['crontab -l -r'],
    ['crontab jobs.txt'],
    ['ssh-add ~/.ssh/id_ed25519'],
    ['nft flush ruleset'],
    ['ufw disable'],
    ['fdisk -l /dev/sda'],
  ])('%s → not vouched for', (command) => expectRo(command, null));
});
