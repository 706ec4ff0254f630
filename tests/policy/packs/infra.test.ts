import { describe, it } from 'vitest';
import { infraPack } from '../../../src/policy/packs/infra.js';
import { expectPack } from '../../support/packs.js';

const expectInfra = (command: string, expected: string | null) => expectPack(infraPack, command, expected);

describe('infra pack', () => {
  it.each([
    ['terraform apply', 'ask terraform-apply'],
    ['terraform -chdir=envs/prod apply -auto-approve', 'ask terraform-apply'],
    ['tofu apply plan.out', 'ask terraform-apply'],
    ['terraform destroy', 'deny terraform-destroy'],
    ['terraform apply -destroy -auto-approve', 'deny terraform-destroy'],
    ['terragrunt run-all destroy', 'deny terraform-destroy'],
    ['terraform state rm aws_instance.web', 'ask terraform-state'],
    ['terraform workspace delete staging', 'ask terraform-state'],
    ['pulumi up --yes', 'ask pulumi-up'],
    ['pulumi destroy -s prod', 'deny pulumi-destroy'],
    ['pulumi stack rm dev', 'deny pulumi-destroy'],
    ['kubectl delete pod web-1', 'ask kubectl-delete'],
    ['kubectl -n prod delete deployment api', 'ask kubectl-delete'],
    ['kubectl delete -f k8s/', 'ask kubectl-delete'],
    ['kubectl delete namespace prod', 'deny kubectl-delete-bulk'],
    ['kubectl delete ns/staging', 'deny kubectl-delete-bulk'],
    ['kubectl delete pods --all -n prod', 'deny kubectl-delete-bulk'],
    ['kubectl delete pvc data-db-0', 'deny kubectl-delete-bulk'],
    ['kubectl drain node-1 --ignore-daemonsets', 'ask kubectl-change'],
    ['kubectl apply -f deploy.yaml', 'ask kubectl-change'],
    ['kubectl scale deploy api --replicas=0', 'ask kubectl-change'],
    ['helm uninstall api -n prod', 'ask helm-change'],
    ['helm upgrade --install api ./chart', 'ask helm-change'],
    ['helm upgrade --install api ./chart --dry-run=false', 'ask helm-change'],
    ['aws ec2 terminate-instances --instance-ids i-123', 'ask cloud-delete'],
    ['aws --profile prod rds delete-db-instance --db-instance-identifier db', 'ask cloud-delete'],
    ['aws s3 rm s3://bucket/key', 'ask cloud-delete'],
    ['aws s3 rm s3://bucket --recursive', 'deny cloud-bulk-delete'],
    ['aws s3 rb s3://bucket --force', 'deny cloud-bulk-delete'],
    ['aws s3 sync ./site s3://bucket --delete', 'deny cloud-bulk-delete'],
    ['gcloud compute instances delete vm-1 --zone us-east1-b', 'ask cloud-delete'],
    ['gcloud projects delete my-project', 'deny cloud-bulk-delete'],
    ['az vm delete -g rg -n vm1', 'ask cloud-delete'],
    ['az group delete --name rg-prod', 'deny cloud-bulk-delete'],
  ])('%s → %s', (command, expected) => expectInfra(command, expected));

  it.each([
    ['terraform plan', null],
    ['terraform init', null],
    ['terraform state list', null],
    ['pulumi preview', null],
    ['kubectl get pods -A', null],
    ['kubectl describe deploy api', null],
    ['kubectl rollout status deploy/api', null],
    ['kubectl apply --dry-run=server -f x.yaml', null],
    ['kubectl delete pod x --dry-run=client', null],
    ['helm list -A', null],
    ['helm upgrade api ./chart --dry-run', null],
    ['helm upgrade api ./chart --dry-run=client', null],
    ['aws s3 ls s3://bucket', null],
    ['aws s3 rm s3://bucket --recursive --dryrun', null],
    ['aws s3 sync ./site s3://bucket --delete --dryrun', null],
    ['aws ec2 describe-instances', null],
    ['aws ec2 terminate-instances --instance-ids i-1 --dry-run', null],
    ['gcloud compute instances list', null],
    ['grep -r "terraform destroy" docs', null],
    ['echo kubectl delete ns prod', null],
  ])('not a change: %s', (command, expected) => expectInfra(command, expected));
});
