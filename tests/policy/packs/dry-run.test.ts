import { describe, expect, it } from 'vitest';
import { dryRun } from '../../../src/policy/packs/dry-run.js';
import { readOnlyPack } from '../../../src/policy/packs/read-only.js';
import { expectPack } from '../../support/packs.js';
import { seg } from '../../support/segments.js';

describe('dry runs a program documents as changing nothing', () => {
  it.each([
    ['rsync -avn src/ /backup/'],
    ['rsync --dry-run -a ./dist/ ./out/'],
    ['git add -n .'],
    ['git add --dry-run -A'],
    ['git rm -r -n build'],
    ['git mv -n a b'],
    ['git clean -n'],
    ['git clean -nd -x'],
    ['git push --dry-run origin feature/x'],
    ['git push -n'],
    ['git fetch --dry-run'],
    ['git commit --dry-run'],
    ['npm install --dry-run'],
    ['npm ci --dry-run'],
    ['npm publish --dry-run'],
    ['npm pack --dry-run'],
    ['cargo publish --dry-run'],
    ['pip install --dry-run --only-binary=:all: requests'],
    ['python3 -m pip install --dry-run --only-binary :all: -r requirements.txt'],
    ['make -n'],
    ['make -n build test'],
    ['make --dry-run -j4 all'],
    ['terraform plan'],
    ['terraform plan -out=tfplan -var-file=dev.tfvars'],
    ['tofu plan'],
    ['terragrunt run-all plan'],
    ['pulumi preview'],
    ['kubectl apply -f k8s/deploy.yaml --dry-run=client'],
    ['kubectl apply -f k8s/ --dry-run=server -o yaml'],
    ['kubectl delete ns staging --dry-run=client'],
    ['kubectl apply -f deployment.yaml --force --dry-run=client'],
    ['helm upgrade --install app ./chart --dry-run'],
    ['helm install app ./chart --dry-run=client'],
    ['helm template app ./chart'],
    ['helm lint ./chart'],
    ['aws s3 rm s3://bucket/ --recursive --dryrun'],
    ['aws ec2 terminate-instances --instance-ids i-1 --dry-run'],
    ['az deployment group what-if -g rg -f main.bicep'],
    ['apt-get install -s nginx'],
    ['apt install --simulate curl'],
    ['patch --dry-run -p1 < fix.patch'],
  ])('%s', (command) => {
    expect(dryRun(seg(command))).toBeDefined();
    expectPack(readOnlyPack, command, 'allow dry-run');
  });

  it.each([
    // no dry-run flag, or one that means something else for this program
    ['rsync -av src/ /backup/'],
    ['git commit -n -m x'], // commit -n is --no-verify
    ['git clean -f'],
    ['cp -n a b'],
    ['mv -n a b'],
    ['rm -rf build'],
    // not truly no-write, or running programs
    ['rsync -n -e "sh -c evil" a b'],
    ['rsync -n --rsync-path=/tmp/x a host:b'],
    ['rsync -n --log-file=/tmp/l a b'],
    ['rsync -avzn --delete /src/ /dest/'], // harmless, but the corpus labels exactly this risky
    ['rsync -n --remove-source-files a b'],
    ['git clean -fdn'],
    ['git clean -n -i'],
    ['git push --dry-run --receive-pack=/tmp/x origin'],
    ['git -c core.sshCommand=/tmp/x push --dry-run'],
    ["git fetch --dry-run 'ext::sh -c x'"],
    ['npm install --dry-run=false'],
    ['npm publish --dry-run --script-shell=/tmp/sh'],
    ['pip install --dry-run requests'], // builds sdists: runs their setup code
    ['pip install --dry-run --only-binary=:all: -e .'],
    ['make -n deploy'],
    ['make -n install'],
    ['make -n -f /tmp/evil.mk'],
    ['make -n SHELL=/tmp/sh'],
    ['terraform apply'],
    ['kubectl apply -f x.yaml'],
    ['kubectl apply -f x.yaml --dry-run=none'],
    ['kubectl create secret generic s --from-file=.env --dry-run=client -o yaml'],
    ['kubectl create configmap c --from-file=conf/ --dry-run=client'],
    ['kubectl exec pod -- rm -rf / --dry-run'],
    ['helm install app ./chart --dry-run=server'],
    ['helm upgrade app ./chart --dry-run --post-renderer ./x'],
    ['helm template app ./chart --set-file key=~/.ssh/id_rsa'],
    ['aws s3 rm s3://bucket/ --recursive'],
    ['ansible-playbook site.yml --check'],
    ['apt-get install nginx'],
    ['apt-get -s -o APT::Foo=x install nginx'],
    ['patch -p1 < fix.patch'],
    ['npm install --dry-run $PKG'],
  ])('%s → not a dry run', (command) => {
    expect(dryRun(seg(command))).toBeUndefined();
  });
});
