/**
 * A held-out secrets corpus: rows the sanitizer's developers have not tuned against, so its figure is an
 * honest one. Written from the providers' documented token formats and from what an AI coding agent's tool
 * calls look like (Bash commands, Write/Edit inputs as JSON, file contents, command output, prose).
 *
 * Every value is generated at run time from a seeded PRNG, so this file holds no secret-shaped literal: token
 * prefixes and PEM labels are written here, bodies never are. The same seed gives the same rows.
 *
 * A row: `{ text, label: 'secret' | 'clean', kind, secrets }` — `secrets` are the exact substrings that must be
 * gone from the sanitized text (a `secret` row passes when all of them are gone); a `clean` row holds nothing
 * that should be redacted (it fails on any redaction). Kinds name what the row is about: provider tokens and
 * structural secrets on one side; commit SHAs, digests, ids, public keys, placeholders, encrypted values and
 * other random-looking-but-harmless text on the other.
 *
 * Run: `hookwise sanitize --eval holdout`.
 */
import type { SecretCorpusRow, SecretLabel } from './secrets.js';
import { prng } from '../prng.js';

/** Rows have the development corpus's shape (the evaluator reads both); their content is written independently. */
export type HoldoutLabel = SecretLabel;
export type HoldoutRow = SecretCorpusRow;

export const HOLDOUT_SEED = 0x5eed_401d;

// ── random strings ───────────────────────────────────────────────────────────────────────────────────────

const UP = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LO = 'abcdefghijklmnopqrstuvwxyz';
const DG = '0123456789';
const AN = UP + LO + DG;
const HEX = '0123456789abcdef';
const B64 = `${AN}+/`;
const B64U = `${AN}-_`;
const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const BECH32 = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const NIX32 = '0123456789abcdfghijklmnpqrsvwxyz';
const WORDS = [
  'harbor',
  'maple',
  'orbit',
  'tundra',
  'falcon',
  'cobalt',
  'juniper',
  'quartz',
  'meadow',
  'saffron',
  'glacier',
  'lantern',
  'pepper',
  'walnut',
  'ember',
  'violet',
  'canyon',
  'nectar',
  'pixel',
  'rocket',
  'willow',
  'copper',
];

class Rand {
  private readonly next: () => number;
  constructor(seed: number) {
    this.next = prng(seed);
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }
  str(alphabet: string, n: number): string {
    let out = '';
    for (let i = 0; i < n; i++) out += alphabet[Math.floor(this.next() * alphabet.length)];
    return out;
  }
  /** Mixed-case letters and digits, with at least one of each class when n ≥ 3. */
  an(n: number): string {
    for (;;) {
      const s = this.str(AN, n);
      if (n < 3 || (/[A-Z]/.test(s) && /[a-z]/.test(s) && /[0-9]/.test(s))) return s;
    }
  }
  hex(n: number): string {
    return this.str(HEX, n);
  }
  HEX(n: number): string {
    return this.str(HEX.toUpperCase(), n);
  }
  b64(n: number): string {
    return this.str(B64, n);
  }
  b64u(n: number): string {
    return this.str(B64U, n);
  }
  letters(n: number): string {
    return this.str(UP + LO, n);
  }
  lo(n: number): string {
    return this.str(LO, n);
  }
  lan(n: number): string {
    return this.str(LO + DG, n);
  }
  uan(n: number): string {
    return this.str(UP + DG, n);
  }
  dig(n: number): string {
    return this.str('123456789', 1) + this.str(DG, n - 1);
  }
  uuid(): string {
    return `${this.hex(8)}-${this.hex(4)}-4${this.hex(3)}-${this.pick(['8', '9', 'a', 'b'])}${this.hex(3)}-${this.hex(12)}`;
  }
  word(): string {
    return this.pick(WORDS);
  }
  cap(word: string): string {
    return word[0]!.toUpperCase() + word.slice(1);
  }
  /** A password as people and generators make them; starts with a letter or digit, so it is safe unquoted in .env, YAML, argv, shell single quotes and XML. */
  pw(): string {
    switch (this.int(0, 4)) {
      case 0:
        return this.an(this.int(14, 24));
      case 1:
        return `${this.cap(this.word())}${this.cap(this.word())}${this.dig(4)}${this.pick(['!', '*', '%', '.', '^'])}`;
      case 2:
        for (;;) {
          const s = this.str(`${AN}!%^*-_=+.~`, this.int(16, 28));
          if (/^[A-Za-z0-9]/.test(s) && /[0-9]/.test(s) && /[A-Za-z]/.test(s)) return s;
        }
      case 3:
        return `${this.word()}-${this.cap(this.word())}-${this.word()}-${this.dig(2)}`;
      default:
        return this.b64(24);
    }
  }
  /** A password that can sit in a URL's userinfo unencoded (and in argv: it never starts with `-`). */
  upw(): string {
    switch (this.int(0, 3)) {
      case 0:
        return this.an(this.int(12, 24));
      case 1:
        return `${this.cap(this.word())}${this.dig(4)}${this.pick(['!', '*', '~', '_', '-'])}${this.cap(this.word())}`;
      case 2:
        for (;;) {
          const s = this.str(`${AN}-._~`, this.int(16, 26));
          if (/^[A-Za-z0-9]/.test(s) && /[0-9]/.test(s) && /[A-Za-z]/.test(s)) return s;
        }
      default:
        return `${this.word()}-${this.word()}-${this.dig(3)}-${this.word()}`;
    }
  }
}

// ── shapes ───────────────────────────────────────────────────────────────────────────────────────────────

interface Made {
  text: string;
  secrets: string[];
}
type Maker = (r: Rand) => Made;

const S = (text: string, ...secrets: string[]): Made => ({ text, secrets });
const C = (text: string): Made => ({ text, secrets: [] });

/** Tool inputs as a hook sees them. */
const bash = (command: string, description?: string): string =>
  JSON.stringify(description === undefined ? { command } : { command, description });
const write = (file_path: string, content: string): string => JSON.stringify({ file_path, content });
const edit = (file_path: string, old_string: string, new_string: string): string =>
  JSON.stringify({ file_path, old_string, new_string });
/** `${{ expr }}` of GitHub Actions, `${VAR}` of shells and compose, without template-literal clashes. */
const gha = (expr: string): string => `$\{{ ${expr} }}`;
const sh = (name: string): string => `$\{${name}}`;

const b64 = (s: string): string => Buffer.from(s).toString('base64');
const b64url = (s: string): string => Buffer.from(s).toString('base64url');
const b64json = (o: unknown): string => b64url(JSON.stringify(o));

const DASH5 = '-'.repeat(5);
function pemBlock(label: string, body: string, width = 64): { text: string; lines: string[] } {
  const lines: string[] = [];
  for (let i = 0; i < body.length; i += width) lines.push(body.slice(i, i + width));
  return { text: `${DASH5}BEGIN ${label}${DASH5}\n${lines.join('\n')}\n${DASH5}END ${label}${DASH5}`, lines };
}
/**
 * The body lines that must be gone (≥ 16 chars): all of them, except a first line that is entirely a fixed
 * header (`skip`: the openssh format's first 70 characters are the same in every unencrypted ed25519 key).
 */
const keyLines = (lines: readonly string[], skip = 0): string[] => lines.slice(skip).filter((l) => l.length >= 16);

const rsaPrivate = (r: Rand) => pemBlock('RSA PRIVATE KEY', `MIIEowIBAAKCAQEA${r.b64(1572)}`);
const pkcs8Private = (r: Rand) =>
  pemBlock('PRIVATE KEY', `MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ${r.b64(1566)}==`);
const ecPrivate = (r: Rand) =>
  pemBlock('EC PRIVATE KEY', `MHcCAQEEI${r.b64(43)}oAoGCCqGSM49AwEHoUQDQgAE${r.b64(86)}==`);
const opensshPrivate = (r: Rand) =>
  pemBlock(
    'OPENSSH PRIVATE KEY',
    `b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZWQyNTUxOQAAACA${r.b64(300)}=`,
    70,
  );
const publicKeyPem = (r: Rand) =>
  pemBlock('PUBLIC KEY', `MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA${r.b64(346)}IDAQAB`);
const certificatePem = (r: Rand) => pemBlock('CERTIFICATE', `MIID${r.b64(1)}TCCA${r.b64(1)}2gAwIBAgIU${r.b64(1200)}`);

function jwt(r: Rand, payload: Record<string, unknown>, alg = 'HS256'): string {
  const sig = alg.startsWith('RS') || alg.startsWith('PS') ? 342 : alg.startsWith('ES') ? 86 : 43;
  return `${b64json({ alg, typ: 'JWT' })}.${b64json(payload)}.${r.b64u(sig)}`;
}
const epoch = (r: Rand): number => 1_717_000_000 + r.int(0, 20_000_000);

// provider token shapes used by several kinds
const ghp = (r: Rand): string => `ghp_${r.an(36)}`;
const glpat = (r: Rand): string => `glpat-${r.b64u(20)}`;
const awsId = (r: Rand, prefix = 'AKIA'): string => `${prefix}${r.str(B32, 16)}`;
const awsSecret = (r: Rand): string => r.str(`${AN}/+`, 40);
const awsSession = (r: Rand): string => `IQoJb3JpZ2luX2VjE${r.b64(r.int(560, 720))}`;
const stripeLive = (r: Rand): string => `sk_live_51${r.an(97)}`;
const openaiProj = (r: Rand): string => `sk-proj-${r.b64u(74)}T3BlbkFJ${r.b64u(74)}`;
const anthropicKey = (r: Rand): string => `sk-ant-api03-${r.b64u(93)}AA`;
const slackBot = (r: Rand): string => `xoxb-${r.dig(12)}-${r.dig(13)}-${r.an(24)}`;
const slackHook = (r: Rand): string => `https://hooks.slack.com/services/T${r.uan(8)}/B${r.uan(10)}/${r.an(24)}`;
const adoPat = (r: Rand): string => r.str('abcdefghijklmnopqrstuvwxyz234567', 52);

// ── secret rows ──────────────────────────────────────────────────────────────────────────────────────────

const SECRET_KINDS: Record<string, Maker[]> = {
  'github-token': [
    (r) => {
      const t = `ghs_${r.an(36)}`;
      return S(bash(`git clone https://x-access-token:${t}@github.com/acme/platform-infra.git /tmp/infra`), t);
    },
    (r) => {
      const t = ghp(r);
      return S(bash(`export GITHUB_TOKEN=${t} && gh pr list --repo acme/web --state open --json number,title`), t);
    },
    (r) => {
      const t = ghp(r);
      return S(
        bash(
          `curl -sS -H "Authorization: token ${t}" -H "Accept: application/vnd.github+json" "https://api.github.com/repos/acme/api/actions/runs?per_page=5"`,
        ),
        t,
      );
    },
    (r) => {
      const t = `github_pat_${r.an(22)}_${r.an(59)}`;
      return S(
        write(
          '/home/dev/projects/release-bot/.env',
          `# release bot\nNODE_ENV=production\nGH_PAT=${t}\nRELEASE_BRANCH=main\n`,
        ),
        t,
      );
    },
    (r) => {
      const t = `gho_${r.an(36)}`;
      return S(
        `github.com:\n    users:\n        octo-dev:\n            oauth_token: ${t}\n    git_protocol: https\n    user: octo-dev\n    oauth_token: ${t}\n`,
        t,
      );
    },
  ],
  'gitlab-token': [
    (r) => {
      const t = glpat(r);
      return S(
        bash(
          `curl --silent --header "PRIVATE-TOKEN: ${t}" "https://gitlab.example.com/api/v4/projects/42/pipelines?status=failed"`,
        ),
        t,
      );
    },
    (r) => {
      const t = glpat(r);
      return S(
        bash(
          `git remote set-url origin https://oauth2:${t}@gitlab.com/northwind/billing-service.git && git push origin HEAD`,
        ),
        t,
      );
    },
    (r) => {
      const t = `glrt-${r.b64u(20)}`;
      return S(
        bash(
          `sudo gitlab-runner register --non-interactive --url https://gitlab.com/ --token ${t} --executor docker --docker-image alpine:3.19 --description "build-box-2"`,
        ),
        t,
      );
    },
    (r) => {
      const t = glpat(r);
      return S(
        write(
          'scripts/sync_labels.py',
          `import gitlab\n\ngl = gitlab.Gitlab("https://gitlab.com", private_token='${t}')\nproject = gl.projects.get("northwind/billing-service")\nfor label in project.labels.list(all=True):\n    print(label.name)\n`,
        ),
        t,
      );
    },
    (r) => {
      const t = `gldt-${r.b64u(20)}`;
      return S(bash(`docker login registry.gitlab.com -u gitlab+deploy-token-4417 -p ${t}`), t);
    },
  ],
  'slack-token': [
    (r) => {
      const t = slackBot(r);
      return S(
        write(
          'bot/app.py',
          `import os\nfrom slack_sdk import WebClient\n\nclient = WebClient(token="${t}")\nclient.chat_postMessage(channel="#deploys", text="Deploy finished")\n`,
        ),
        t,
      );
    },
    (r) => {
      const t = `xoxp-${r.dig(12)}-${r.dig(12)}-${r.dig(13)}-${r.hex(32)}`;
      return S(`SLACK_USER_TOKEN=${t}\nSLACK_CHANNEL=C04QK2L7N\n`, t);
    },
    (r) => {
      const t = `xapp-1-A${r.uan(10)}-${r.dig(13)}-${r.hex(64)}`;
      return S(
        write('config/slack.yaml', `slack:\n  app_token: "${t}"\n  socket_mode: true\n  channel: "#alerts"\n`),
        t,
      );
    },
    (r) => {
      const t = slackBot(r);
      return S(
        bash(
          `curl -s -X POST -H 'Authorization: Bearer ${t}' -H 'Content-type: application/json' --data '{"channel":"C0123ABCD","text":"build green"}' https://slack.com/api/chat.postMessage`,
        ),
        t,
      );
    },
    (r) => {
      const sign = r.hex(32);
      const t = slackBot(r);
      return S(bash(`SLACK_SIGNING_SECRET=${sign} SLACK_BOT_TOKEN=${t} node app.js`), sign, t);
    },
  ],
  'stripe-key': [
    (r) => {
      const t = stripeLive(r);
      return S(
        write(
          '.env.production',
          `NEXT_PUBLIC_SITE_URL=https://shop.acme.io\nSTRIPE_SECRET_KEY=${t}\nSTRIPE_PRICE_ID=price_1PQx${r.an(20)}\n`,
        ),
        t,
      );
    },
    (r) => {
      const t = `sk_test_51${r.an(97)}`;
      return S(
        write(
          'server/payments.js',
          `'use strict';\nconst stripe = require('stripe')('${t}');\n\nasync function createIntent(amount) {\n  return stripe.paymentIntents.create({ amount, currency: 'eur' });\n}\nmodule.exports = { createIntent };\n`,
        ),
        t,
      );
    },
    (r) => {
      const t = `rk_live_51${r.an(97)}`;
      return S(bash(`stripe listen --api-key ${t} --forward-to localhost:4242/webhooks/stripe`), t);
    },
    (r) => {
      const t = `whsec_${r.an(32)}`;
      return S(
        edit(
          'app/controllers/webhooks_controller.rb',
          `event = Stripe::Webhook.construct_event(payload, sig_header, ENV.fetch('STRIPE_WEBHOOK_SECRET'))`,
          `event = Stripe::Webhook.construct_event(payload, sig_header, '${t}')`,
        ),
        t,
      );
    },
    (r) => {
      const t = `sk_live_${r.an(24)}`;
      return S(
        bash(`curl https://api.stripe.com/v1/customers -u ${t}: -d email=jane@example.com -d name="Jane Roe"`),
        t,
      );
    },
  ],
  'aws-keys': [
    (r) => {
      const sk = awsSecret(r);
      return S(
        `[default]\naws_access_key_id = ${awsId(r)}\naws_secret_access_key = ${sk}\nregion = eu-west-1\n\n[staging]\nrole_arn = arn:aws:iam::${r.dig(12)}:role/deployer\nsource_profile = default\n`,
        sk,
      );
    },
    (r) => {
      const sk = awsSecret(r);
      const st = awsSession(r);
      return S(
        bash(
          `export AWS_ACCESS_KEY_ID=${awsId(r, 'ASIA')} AWS_SECRET_ACCESS_KEY=${sk} AWS_SESSION_TOKEN=${st}\naws s3 ls s3://acme-build-artifacts/`,
        ),
        sk,
        st,
      );
    },
    (r) => {
      const sk = awsSecret(r);
      return S(
        write(
          'infra/providers.tf',
          `provider "aws" {\n  region     = "us-east-1"\n  access_key = "${awsId(r)}"\n  secret_key = "${sk}"\n}\n`,
        ),
        sk,
      );
    },
    (r) => {
      const sk = awsSecret(r);
      return S(
        write(
          'etl/upload.py',
          `import boto3\n\ns3 = boto3.client(\n    "s3",\n    aws_access_key_id="${awsId(r)}",\n    aws_secret_access_key="${sk}",\n)\ns3.upload_file("out/report.parquet", "acme-analytics", "daily/report.parquet")\n`,
        ),
        sk,
      );
    },
    (r) => {
      const sk = awsSecret(r);
      return S(
        bash(`aws configure set aws_secret_access_key ${sk} --profile ci && aws sts get-caller-identity --profile ci`),
        sk,
      );
    },
  ],
  'gcp-credentials': [
    (r) => {
      const key = pkcs8Private(r);
      const json = JSON.stringify(
        {
          type: 'service_account',
          project_id: 'acme-prod-381204',
          private_key_id: r.hex(40),
          private_key: `${key.text}\n`,
          client_email: 'ci-deployer@acme-prod-381204.iam.gserviceaccount.com',
          client_id: r.dig(21),
          auth_uri: 'https://accounts.google.com/o/oauth2/auth',
          token_uri: 'https://oauth2.googleapis.com/token',
        },
        null,
        2,
      );
      return S(write('/home/dev/keys/ci-deployer.json', json), ...keyLines(key.lines));
    },
    (r) => {
      const t = `AIza${r.b64u(35)}`;
      return S(
        bash(
          `curl -s "https://maps.googleapis.com/maps/api/geocode/json?address=Alexanderplatz+Berlin&key=${t}" | jq '.results[0].geometry'`,
        ),
        t,
      );
    },
    (r) => {
      const t = `GOCSPX-${r.b64u(28)}`;
      const json = JSON.stringify({
        installed: {
          client_id: `${r.dig(12)}-${r.lan(32)}.apps.googleusercontent.com`,
          project_id: 'acme-desktop',
          auth_uri: 'https://accounts.google.com/o/oauth2/auth',
          token_uri: 'https://oauth2.googleapis.com/token',
          client_secret: t,
          redirect_uris: ['http://localhost'],
        },
      });
      return S(write('credentials/client_secret.json', json), t);
    },
    (r) => {
      const t = `ya29.a0${r.b64u(210)}`;
      return S(
        bash(
          `curl -H "Authorization: Bearer ${t}" "https://storage.googleapis.com/storage/v1/b/acme-exports/o?prefix=2024/"`,
        ),
        t,
      );
    },
    (r) => {
      const t = `AIza${r.b64u(35)}`;
      return S(write('.env.local', `GEMINI_API_KEY=${t}\nGEMINI_MODEL=gemini-1.5-pro\n`), t);
    },
  ],
  'azure-credentials': [
    (r) => {
      const k = `${r.b64(86)}==`;
      const json = JSON.stringify(
        {
          Logging: { LogLevel: { Default: 'Information' } },
          ConnectionStrings: {
            Blob: `DefaultEndpointsProtocol=https;AccountName=stacmeprod01;AccountKey=${k};EndpointSuffix=core.windows.net`,
          },
        },
        null,
        2,
      );
      return S(write('src/Api/appsettings.Production.json', json), k);
    },
    (r) => {
      const t = `${r.an(3)}${r.dig(1)}Q~${r.str(`${AN}_~.-`, 34)}`;
      return S(bash(`az login --service-principal -u ${r.uuid()} -p '${t}' --tenant ${r.uuid()}`), t);
    },
    (r) => {
      const t = `${r.an(3)}${r.dig(1)}Q~${r.str(`${AN}_~.-`, 34)}`;
      return S(`AZURE_TENANT_ID=${r.uuid()}\nAZURE_CLIENT_ID=${r.uuid()}\nAZURE_CLIENT_SECRET=${t}\n`, t);
    },
    (r) => {
      const k = `${r.b64(43)}=`;
      return S(
        write(
          'worker/local.settings.json',
          JSON.stringify(
            {
              IsEncrypted: false,
              Values: {
                FUNCTIONS_WORKER_RUNTIME: 'node',
                ServiceBusConnection: `Endpoint=sb://acme-orders.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=${k}`,
              },
            },
            null,
            2,
          ),
        ),
        k,
      );
    },
    (r) => {
      const t = adoPat(r);
      return S(bash(`echo ${t} | az devops login --organization https://dev.azure.com/acme`), t);
    },
  ],
  'openai-key': [
    (r) => {
      const t = openaiProj(r);
      return S(bash(`export OPENAI_API_KEY="${t}"\npython scripts/eval_prompts.py --model gpt-4o-mini`), t);
    },
    (r) => {
      const t = `sk-${r.an(20)}T3BlbkFJ${r.an(20)}`;
      return S(
        write(
          'notebooks/summarize.py',
          `import openai\n\nopenai.api_key = "${t}"\nresp = openai.ChatCompletion.create(model="gpt-3.5-turbo", messages=[{"role": "user", "content": "hi"}])\n`,
        ),
        t,
      );
    },
    (r) => {
      const t = openaiProj(r);
      return S(bash(`curl https://api.openai.com/v1/models -H "Authorization: Bearer ${t}"`), t);
    },
    (r) => {
      const t = `sk-svcacct-${r.b64u(74)}T3BlbkFJ${r.b64u(74)}`;
      return S(
        write(
          '/home/dev/.continue/config.json',
          JSON.stringify({ models: [{ title: 'GPT-4o', provider: 'openai', model: 'gpt-4o', apiKey: t }] }, null, 2),
        ),
        t,
      );
    },
  ],
  'anthropic-key': [
    (r) => {
      const t = anthropicKey(r);
      return S(`# local dev\nANTHROPIC_API_KEY=${t}\nLOG_LEVEL=debug\n`, t);
    },
    (r) => {
      const t = anthropicKey(r);
      return S(
        bash(
          `curl https://api.anthropic.com/v1/messages -H "x-api-key: ${t}" -H "anthropic-version: 2023-06-01" -H "content-type: application/json" -d @req.json`,
        ),
        t,
      );
    },
    (r) => {
      const t = anthropicKey(r);
      return S(
        write(
          'src/llm.ts',
          `import Anthropic from '@anthropic-ai/sdk';\n\nexport const client = new Anthropic({ apiKey: '${t}' });\n`,
        ),
        t,
      );
    },
    (r) => {
      const t = `sk-ant-admin01-${r.b64u(93)}AA`;
      return S(
        bash(
          `ANTHROPIC_ADMIN_KEY=${t} curl -s https://api.anthropic.com/v1/organizations/users -H "x-api-key: $ANTHROPIC_ADMIN_KEY" -H "anthropic-version: 2023-06-01"`,
        ),
        t,
      );
    },
  ],
  'huggingface-token': [
    (r) => {
      const t = `hf_${r.letters(34)}`;
      return S(bash(`huggingface-cli login --token ${t} --add-to-git-credential`), t);
    },
    (r) => {
      const t = `hf_${r.letters(34)}`;
      return S(
        write(
          'train/download.py',
          `from huggingface_hub import login, snapshot_download\n\nlogin(token="${t}")\nsnapshot_download("meta-llama/Llama-3.1-8B", local_dir="models/llama")\n`,
        ),
        t,
      );
    },
    (r) => {
      const t = `hf_${r.letters(34)}`;
      return S(
        bash(
          `docker run --gpus all -e HF_TOKEN=${t} -p 8080:80 ghcr.io/huggingface/text-generation-inference:2.0 --model-id mistralai/Mistral-7B-Instruct-v0.3`,
        ),
        t,
      );
    },
    (r) => {
      const t = `hf_${r.letters(34)}`;
      return S(bash(`git clone https://octo-dev:${t}@huggingface.co/datasets/acme/support-tickets`), t);
    },
  ],
  'npm-token': [
    (r) => {
      const t = `npm_${r.an(36)}`;
      return S(write('/home/dev/.npmrc', `//registry.npmjs.org/:_authToken=${t}\nsave-exact=true\n`), t);
    },
    (r) => {
      const t = `npm_${r.an(36)}`;
      return S(bash(`npm config set //registry.npmjs.org/:_authToken ${t} && npm publish --access public`), t);
    },
    (r) => {
      const t = `npm_${r.an(36)}`;
      return S(
        write(
          '.yarnrc.yml',
          `nodeLinker: node-modules\nnpmRegistryServer: "https://registry.npmjs.org"\nnpmAuthToken: "${t}"\nyarnPath: .yarn/releases/yarn-4.2.2.cjs\n`,
        ),
        t,
      );
    },
    (r) => {
      const t = `npm_${r.an(36)}`;
      return S(
        write(
          '.github/workflows/publish.yml',
          `name: publish\non:\n  release:\n    types: [published]\njobs:\n  publish:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - uses: actions/setup-node@v4\n        with:\n          node-version: 20\n          registry-url: https://registry.npmjs.org\n      - run: npm ci && npm publish\n        env:\n          NODE_AUTH_TOKEN: ${t}\n`,
        ),
        t,
      );
    },
  ],
  'pypi-token': [
    (r) => {
      const t = `pypi-AgEIcHlwaS5vcmc${r.b64u(r.int(140, 180))}`;
      return S(
        write(
          '/home/dev/.pypirc',
          `[distutils]\nindex-servers =\n    pypi\n\n[pypi]\nusername = __token__\npassword = ${t}\n`,
        ),
        t,
      );
    },
    (r) => {
      const t = `pypi-AgEIcHlwaS5vcmc${r.b64u(r.int(140, 180))}`;
      return S(bash(`python -m twine upload -u __token__ -p ${t} dist/*`), t);
    },
    (r) => {
      const t = `pypi-AgEIcHlwaS5vcmc${r.b64u(r.int(140, 180))}`;
      return S(bash(`poetry config pypi-token.pypi ${t} && poetry publish --build`), t);
    },
  ],
  'docker-hub-token': [
    (r) => {
      const t = `dckr_pat_${r.b64u(27)}`;
      return S(bash(`echo "${t}" | docker login -u acmebot --password-stdin`), t);
    },
    (r) => {
      const t = `dckr_pat_${r.b64u(27)}`;
      return S(bash(`docker login -u acmebot -p ${t} && docker push acme/api:1.8.0`), t);
    },
    (r) => {
      const t = `dckr_pat_${r.b64u(27)}`;
      return S(
        edit(
          '.github/workflows/image.yml',
          `          password: ${gha('secrets.DOCKERHUB_TOKEN')}`,
          `          password: ${t}`,
        ),
        t,
      );
    },
  ],
  twilio: [
    (r) => {
      const t = r.hex(32);
      return S(`TWILIO_ACCOUNT_SID=AC${r.hex(32)}\nTWILIO_AUTH_TOKEN=${t}\nTWILIO_FROM=+15005550006\n`, t);
    },
    (r) => {
      const sid = `AC${r.hex(32)}`;
      const t = r.hex(32);
      return S(
        bash(
          `curl -X POST "https://api.twilio.com/2010-04-01/Accounts/${sid}/Messages.json" --data-urlencode "Body=Your code is 481516" --data-urlencode "To=+15558675310" -u ${sid}:${t}`,
        ),
        t,
      );
    },
    (r) => {
      const t = r.hex(32);
      return S(
        write(
          'notify/sms.py',
          `from twilio.rest import Client\n\naccount_sid = "AC${r.hex(32)}"\nauth_token = "${t}"\nclient = Client(account_sid, auth_token)\n`,
        ),
        t,
      );
    },
    (r) => {
      const secret = r.an(32);
      return S(
        write(
          'config/twilio.json',
          JSON.stringify({ accountSid: `AC${r.hex(32)}`, apiKey: `SK${r.hex(32)}`, apiSecret: secret }, null, 2),
        ),
        secret,
      );
    },
  ],
  sendgrid: [
    (r) => {
      const t = `SG.${r.b64u(22)}.${r.b64u(43)}`;
      return S(`SENDGRID_API_KEY=${t}\nMAIL_FROM=no-reply@acme.io\n`, t);
    },
    (r) => {
      const t = `SG.${r.b64u(22)}.${r.b64u(43)}`;
      return S(
        write('mailer/send.py', `from sendgrid import SendGridAPIClient\n\nsg = SendGridAPIClient('${t}')\n`),
        t,
      );
    },
    (r) => {
      const t = `SG.${r.b64u(22)}.${r.b64u(43)}`;
      return S(
        bash(
          `curl --request POST --url https://api.sendgrid.com/v3/mail/send --header "Authorization: Bearer ${t}" --header 'Content-Type: application/json' --data @mail.json`,
        ),
        t,
      );
    },
  ],
  shopify: [
    (r) => {
      const t = `shpat_${r.hex(32)}`;
      return S(`SHOPIFY_STORE_DOMAIN=acme-outdoor.myshopify.com\nSHOPIFY_ADMIN_ACCESS_TOKEN=${t}\n`, t);
    },
    (r) => {
      const t = `shpat_${r.hex(32)}`;
      return S(
        bash(
          `curl -s -H "X-Shopify-Access-Token: ${t}" "https://acme-outdoor.myshopify.com/admin/api/2024-04/products.json?limit=5"`,
        ),
        t,
      );
    },
    (r) => {
      const t = `shpss_${r.hex(32)}`;
      return S(
        write(
          'shopify.app.toml',
          `client_id = "${r.hex(32)}"\nname = "acme-reviews"\napplication_url = "https://reviews.acme.io"\n\n[auth]\nredirect_urls = ["https://reviews.acme.io/auth/callback"]\napi_secret = "${t}"\n`,
        ),
        t,
      );
    },
  ],
  atlassian: [
    (r) => {
      const t = `ATATT3${r.b64u(180)}=${r.HEX(8)}`;
      return S(
        bash(
          `curl -s -u dev@acme.io:${t} -H "Accept: application/json" https://acme.atlassian.net/rest/api/3/issue/PLAT-1432`,
        ),
        t,
      );
    },
    (r) => {
      const t = `ATATT3${r.b64u(180)}=${r.HEX(8)}`;
      return S(`JIRA_URL=https://acme.atlassian.net\nJIRA_USER=dev@acme.io\nJIRA_API_TOKEN=${t}\n`, t);
    },
    (r) => {
      const t = `ATATT3${r.b64u(180)}=${r.HEX(8)}`;
      return S(
        write(
          'tools/jira_sync.py',
          `from jira import JIRA\n\njira = JIRA(server="https://acme.atlassian.net", basic_auth=("dev@acme.io", "${t}"))\n`,
        ),
        t,
      );
    },
  ],
  digitalocean: [
    (r) => {
      const t = `dop_v1_${r.hex(64)}`;
      return S(bash(`doctl auth init -t ${t} && doctl kubernetes cluster list`), t);
    },
    (r) => {
      const t = `dop_v1_${r.hex(64)}`;
      return S(
        write(
          'terraform/main.tf',
          `terraform {\n  required_providers {\n    digitalocean = { source = "digitalocean/digitalocean" }\n  }\n}\n\nprovider "digitalocean" {\n  token = "${t}"\n}\n`,
        ),
        t,
      );
    },
    (r) => {
      const t = `dop_v1_${r.hex(64)}`;
      return S(`export DIGITALOCEAN_ACCESS_TOKEN=${t}\n`, t);
    },
  ],
  heroku: [
    (r) => {
      const t = r.uuid();
      return S(bash(`HEROKU_API_KEY=${t} heroku releases -a acme-api-staging`), t);
    },
    (r) => {
      const t = r.uuid();
      return S(
        `machine api.heroku.com\n  login dev@acme.io\n  password ${t}\nmachine git.heroku.com\n  login dev@acme.io\n  password ${t}\n`,
        t,
      );
    },
    (r) => {
      const t = `HRKU-AA${r.b64u(58)}`;
      return S(
        write(
          '.github/workflows/deploy.yml',
          `jobs:\n  deploy:\n    runs-on: ubuntu-latest\n    env:\n      HEROKU_API_KEY: ${t}\n    steps:\n      - uses: actions/checkout@v4\n      - run: git push https://heroku:$HEROKU_API_KEY@git.heroku.com/acme-api.git HEAD:main\n`,
        ),
        t,
      );
    },
  ],
  postman: [
    (r) => {
      const t = `PMAK-${r.hex(24)}-${r.hex(34)}`;
      return S(bash(`postman login --with-api-key ${t} && postman collection run 12345678-${r.uuid()}`), t);
    },
    (r) => {
      const t = `PMAK-${r.hex(24)}-${r.hex(34)}`;
      return S(
        bash(`curl -s -H "X-Api-Key: ${t}" https://api.getpostman.com/collections | jq '.collections[].name'`),
        t,
      );
    },
    (r) => {
      const t = `PMAK-${r.hex(24)}-${r.hex(34)}`;
      return S(`POSTMAN_API_KEY=${t}\n`, t);
    },
  ],
  'discord-bot-token': [
    (r) => {
      const t = `${b64(`1${r.str(DG, 18)}`).replace(/=+$/, '')}.${r.b64u(6)}.${r.b64u(38)}`;
      return S(
        write(
          'bot/main.py',
          `import discord\n\nintents = discord.Intents.default()\nbot = discord.Client(intents=intents)\n\nbot.run("${t}")\n`,
        ),
        t,
      );
    },
    (r) => {
      const t = `${b64(`1${r.str(DG, 18)}`).replace(/=+$/, '')}.${r.b64u(6)}.${r.b64u(38)}`;
      return S(`DISCORD_TOKEN=${t}\nGUILD_ID=${r.dig(19)}\n`, t);
    },
    (r) => {
      const t = `${b64(`1${r.str(DG, 18)}`).replace(/=+$/, '')}.${r.b64u(6)}.${r.b64u(38)}`;
      return S(bash(`curl -H "Authorization: Bot ${t}" https://discord.com/api/v10/users/@me`), t);
    },
  ],
  telegram: [
    (r) => {
      const t = `${r.dig(10)}:AA${r.b64u(33)}`;
      return S(
        bash(`curl -s "https://api.telegram.org/bot${t}/sendMessage?chat_id=-1001234567890&text=deploy%20done"`),
        t,
      );
    },
    (r) => {
      const t = `${r.dig(10)}:AA${r.b64u(33)}`;
      return S(`TELEGRAM_BOT_TOKEN=${t}\nTELEGRAM_CHAT_ID=-1001987654321\n`, t);
    },
    (r) => {
      const t = `${r.dig(9)}:AA${r.b64u(33)}`;
      return S(
        write(
          'alerts/bot.py',
          `from telegram.ext import Application\n\napp = Application.builder().token("${t}").build()\n`,
        ),
        t,
      );
    },
  ],
  linear: [
    (r) => {
      const t = `lin_api_${r.an(40)}`;
      return S(`LINEAR_API_KEY=${t}\n`, t);
    },
    (r) => {
      const t = `lin_api_${r.an(40)}`;
      return S(
        bash(
          `curl -s https://api.linear.app/graphql -H "Content-Type: application/json" -H "Authorization: ${t}" --data '{"query":"{ viewer { id name } }"}'`,
        ),
        t,
      );
    },
    (r) => {
      const t = `lin_api_${r.an(40)}`;
      return S(
        write(
          '/home/dev/.claude.json',
          JSON.stringify(
            {
              mcpServers: { linear: { command: 'npx', args: ['-y', 'linear-mcp-server'], env: { LINEAR_API_KEY: t } } },
            },
            null,
            2,
          ),
        ),
        t,
      );
    },
  ],
  notion: [
    (r) => {
      const t = `secret_${r.an(43)}`;
      return S(`NOTION_TOKEN=${t}\nNOTION_DATABASE_ID=${r.hex(32)}\n`, t);
    },
    (r) => {
      const t = `ntn_${r.dig(11)}${r.an(35)}`;
      return S(
        write(
          'scripts/notion-export.mjs',
          `import { Client } from '@notionhq/client';\n\nconst notion = new Client({ auth: "${t}" });\nconst pages = await notion.search({ query: 'Runbook' });\n`,
        ),
        t,
      );
    },
    (r) => {
      const t = `ntn_${r.dig(11)}${r.an(35)}`;
      return S(
        bash(`curl https://api.notion.com/v1/users/me -H "Authorization: Bearer ${t}" -H "Notion-Version: 2022-06-28"`),
        t,
      );
    },
  ],
  'vault-token': [
    (r) => {
      const t = `hvs.${r.an(24)}`;
      return S(
        bash(
          `export VAULT_ADDR=https://vault.acme.internal:8200 VAULT_TOKEN=${t}; vault kv get -field=password secret/app/db`,
        ),
        t,
      );
    },
    (r) => {
      const t = `hvs.CAESI${r.b64u(86)}Gh4KHGh2cy4${r.an(24)}`;
      return S(bash(`vault login ${t}`), t);
    },
    (r) => {
      const t = `s.${r.an(24)}`;
      return S(
        bash(
          `curl -s -H "X-Vault-Token: ${t}" https://vault.acme.internal:8200/v1/secret/data/payments | jq .data.data`,
        ),
        t,
      );
    },
    (r) => {
      const t = `hvs.${r.an(24)}`;
      return S(write('/home/dev/.vault-token', t), t);
    },
  ],
  doppler: [
    (r) => {
      const t = `dp.st.prd.${r.an(40)}`;
      return S(bash(`DOPPLER_TOKEN=${t} doppler run -- npm start`), t);
    },
    (r) => {
      const t = `dp.pt.${r.an(43)}`;
      return S(bash(`doppler configure set token ${t} --scope /`), t);
    },
    (r) => {
      const t = `dp.st.stg.${r.an(40)}`;
      return S(
        write(
          'docker-compose.override.yml',
          `services:\n  api:\n    environment:\n      DOPPLER_TOKEN: ${t}\n      DOPPLER_PROJECT: api\n`,
        ),
        t,
      );
    },
  ],
  grafana: [
    (r) => {
      const t = `glsa_${r.an(32)}_${r.hex(8)}`;
      return S(`GRAFANA_URL=https://grafana.acme.io\nGRAFANA_SERVICE_ACCOUNT_TOKEN=${t}\n`, t);
    },
    (r) => {
      const t = `glsa_${r.an(32)}_${r.hex(8)}`;
      return S(bash(`curl -s -H "Authorization: Bearer ${t}" https://grafana.acme.io/api/dashboards/uid/k8s-nodes`), t);
    },
    (r) => {
      const t = `glc_${b64(JSON.stringify({ o: r.dig(6), n: `stack-${r.dig(6)}-hm-write-alloy`, k: r.an(24), m: { r: 'prod-eu-west-2' } })).replace(/=+$/, '')}`;
      return S(
        write(
          '/etc/alloy/config.alloy',
          `prometheus.remote_write "cloud" {\n  endpoint {\n    url = "https://prometheus-prod-24-prod-eu-west-2.grafana.net/api/prom/push"\n    basic_auth {\n      username = "${r.dig(7)}"\n      password = "${t}"\n    }\n  }\n}\n`,
        ),
        t,
      );
    },
  ],
  datadog: [
    (r) => {
      const t = r.hex(32);
      return S(
        bash(
          `docker run -d --name dd-agent -e DD_API_KEY=${t} -e DD_SITE="datadoghq.eu" -v /var/run/docker.sock:/var/run/docker.sock:ro gcr.io/datadoghq/agent:7`,
        ),
        t,
      );
    },
    (r) => {
      const t = r.hex(32);
      return S(
        write(
          '/etc/datadog-agent/datadog.yaml',
          `api_key: ${t}\nsite: datadoghq.com\nlogs_enabled: true\napm_config:\n  enabled: true\n`,
        ),
        t,
      );
    },
    (r) => {
      const a = r.hex(32);
      const b = r.hex(40);
      return S(
        bash(`curl -s "https://api.datadoghq.com/api/v1/monitor" -H "DD-API-KEY: ${a}" -H "DD-APPLICATION-KEY: ${b}"`),
        a,
        b,
      );
    },
  ],
  'new-relic': [
    (r) => {
      const t = `${r.hex(36)}NRAL`;
      return S(
        write(
          'newrelic.yml',
          `common: &default_settings\n  license_key: '${t}'\n  app_name: acme-checkout\n  distributed_tracing:\n    enabled: true\n`,
        ),
        t,
      );
    },
    (r) => {
      const t = `NRAK-${r.uan(27)}`;
      return S(`NEW_RELIC_API_KEY=${t}\nNEW_RELIC_ACCOUNT_ID=${r.dig(7)}\n`, t);
    },
    (r) => {
      const t = `NRAK-${r.uan(27)}`;
      return S(
        bash(
          `curl -s https://api.newrelic.com/graphql -H 'Content-Type: application/json' -H 'API-Key: ${t}' -d '{"query":"{ actor { user { name } } }"}'`,
        ),
        t,
      );
    },
  ],
  sentry: [
    (r) => {
      const t = `sntrys_${b64(JSON.stringify({ iat: epoch(r), url: 'https://sentry.io', region_url: 'https://us.sentry.io', org: 'acme' })).replace(/=+$/, '')}_${r.b64(43)}`;
      return S(
        write('.env.sentry-build-plugin', `# DO NOT commit this file to your repository!\nSENTRY_AUTH_TOKEN=${t}\n`),
        t,
      );
    },
    (r) => {
      const t = `sntryu_${r.hex(64)}`;
      return S(bash(`sentry-cli --auth-token ${t} releases new -p web 2024.06.1`), t);
    },
    (r) => {
      const t = `sntryu_${r.hex(64)}`;
      return S(`[defaults]\norg = acme\nproject = web\n\n[auth]\ntoken=${t}\n`, t);
    },
  ],
  planetscale: [
    (r) => {
      const pw = `pscale_pw_${r.b64u(43)}`;
      return S(`DATABASE_URL='mysql://${r.lan(12)}:${pw}@aws.connect.psdb.cloud/shop?sslaccept=strict'\n`, pw);
    },
    (r) => {
      const t = `pscale_tkn_${r.b64u(43)}`;
      return S(bash(`pscale database list --org acme --service-token ${t} --service-token-id ${r.lan(12)}`), t);
    },
    (r) => {
      const t = `pscale_tkn_${r.b64u(43)}`;
      return S(
        write(
          '.github/workflows/schema.yml',
          `jobs:\n  deploy-request:\n    runs-on: ubuntu-latest\n    env:\n      PLANETSCALE_SERVICE_TOKEN_ID: ${r.lan(12)}\n      PLANETSCALE_SERVICE_TOKEN: ${t}\n    steps:\n      - run: pscale deploy-request create shop main --org acme\n`,
        ),
        t,
      );
    },
  ],
  'supabase-service-key': [
    (r) => {
      const t = jwt(r, {
        iss: 'supabase',
        ref: r.lo(20),
        role: 'service_role',
        iat: 1_712_000_000,
        exp: 2_027_576_000,
      });
      return S(`NEXT_PUBLIC_SUPABASE_URL=https://${r.lo(20)}.supabase.co\nSUPABASE_SERVICE_ROLE_KEY=${t}\n`, t);
    },
    (r) => {
      const ref = r.lo(20);
      const t = jwt(r, { iss: 'supabase', ref, role: 'service_role', iat: 1_712_000_000, exp: 2_027_576_000 });
      return S(
        write(
          'supabase/functions/cleanup/index.ts',
          `import { createClient } from 'https://esm.sh/@supabase/supabase-js@2';\n\nconst admin = createClient('https://${ref}.supabase.co', '${t}');\n`,
        ),
        t,
      );
    },
    (r) => {
      const t = `sb_secret_${r.b64u(22)}_${r.b64u(8)}`;
      return S(
        bash(
          `curl "https://${r.lo(20)}.supabase.co/rest/v1/profiles?select=id" -H "apikey: ${t}" -H "Authorization: Bearer ${t}"`,
        ),
        t,
      );
    },
  ],
  pulumi: [
    (r) => {
      const t = `pul-${r.hex(40)}`;
      return S(bash(`PULUMI_ACCESS_TOKEN=${t} pulumi up --yes --stack acme/prod`), t);
    },
    (r) => {
      const t = `pul-${r.hex(40)}`;
      return S(
        write(
          '/home/dev/.pulumi/credentials.json',
          JSON.stringify(
            {
              current: 'https://api.pulumi.com',
              accessTokens: { 'https://api.pulumi.com': t },
              accounts: { 'https://api.pulumi.com': { accessToken: t, username: 'octo-dev' } },
            },
            null,
            4,
          ),
        ),
        t,
      );
    },
    (r) => {
      const t = `pul-${r.hex(40)}`;
      return S(`env:\n  PULUMI_ACCESS_TOKEN: ${t}\n  AWS_REGION: eu-central-1\n`, t);
    },
  ],
  'terraform-cloud': [
    (r) => {
      const t = `${r.an(14)}.atlasv1.${r.an(67)}`;
      return S(
        write(
          '/home/dev/.terraform.d/credentials.tfrc.json',
          JSON.stringify({ credentials: { 'app.terraform.io': { token: t } } }, null, 2),
        ),
        t,
      );
    },
    (r) => {
      const t = `${r.an(14)}.atlasv1.${r.an(67)}`;
      return S(`credentials "app.terraform.io" {\n  token = "${t}"\n}\n`, t);
    },
    (r) => {
      const t = `${r.an(14)}.atlasv1.${r.an(67)}`;
      return S(bash(`TF_TOKEN_app_terraform_io=${t} terraform init -upgrade`), t);
    },
  ],
  'fly-io': [
    (r) => {
      const t = `fm2_lJPECAAAAAAAA${r.b64(220)},fm2_lJPETg${r.b64(150)}`;
      return S(`FLY_API_TOKEN="FlyV1 ${t}"\n`, t);
    },
    (r) => {
      const t = `fo1_${r.b64u(43)}`;
      return S(bash(`flyctl deploy --remote-only --access-token ${t}`), t);
    },
    (r) => {
      const t = `fo1_${r.b64u(43)}`;
      return S(
        write(
          '.github/workflows/fly.yml',
          `name: Fly Deploy\non:\n  push:\n    branches: [main]\njobs:\n  deploy:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - uses: superfly/flyctl-actions/setup-flyctl@master\n      - run: flyctl deploy --remote-only\n        env:\n          FLY_API_TOKEN: ${t}\n`,
        ),
        t,
      );
    },
  ],
  netlify: [
    (r) => {
      const t = `nfp_${r.an(36)}`;
      return S(bash(`netlify deploy --prod --dir dist --site ${r.uuid()} --auth ${t}`), t);
    },
    (r) => {
      const t = `nfp_${r.an(36)}`;
      return S(`NETLIFY_AUTH_TOKEN=${t}\nNETLIFY_SITE_ID=${r.uuid()}\n`, t);
    },
    (r) => {
      const t = `nfp_${r.an(36)}`;
      return S(bash(`curl -H "Authorization: Bearer ${t}" https://api.netlify.com/api/v1/sites`), t);
    },
  ],
  vercel: [
    (r) => {
      const t = r.an(24);
      return S(bash(`vercel deploy --prod --token ${t} --scope acme`), t);
    },
    (r) => {
      const t = r.an(24);
      return S(`VERCEL_ORG_ID=team_${r.an(24)}\nVERCEL_PROJECT_ID=prj_${r.an(28)}\nVERCEL_TOKEN=${t}\n`, t);
    },
    (r) => {
      const t = r.an(24);
      return S(
        write(
          '.github/workflows/preview.yml',
          `jobs:\n  preview:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - uses: amondnet/vercel-action@v25\n        with:\n          vercel-token: ${t}\n          vercel-org-id: ${gha('secrets.ORG_ID')}\n`,
        ),
        t,
      );
    },
  ],
  cloudflare: [
    (r) => {
      const t = r.b64u(40);
      return S(`CLOUDFLARE_ACCOUNT_ID=${r.hex(32)}\nCLOUDFLARE_API_TOKEN=${t}\n`, t);
    },
    (r) => {
      const t = r.hex(37);
      return S(
        bash(
          `curl -s -H "X-Auth-Email: ops@acme.io" -H "X-Auth-Key: ${t}" "https://api.cloudflare.com/client/v4/zones?name=acme.io"`,
        ),
        t,
      );
    },
    (r) => {
      const t = r.b64u(40);
      return S(bash(`CF_API_TOKEN=${t} npx wrangler deploy --env production`), t);
    },
    (r) => {
      const t = b64(JSON.stringify({ a: r.hex(32), t: r.uuid(), s: r.b64(44) }));
      return S(bash(`cloudflared tunnel --no-autoupdate run --token ${t}`), t);
    },
  ],
  'ai-provider-key': [
    (r) => {
      const t = `gsk_${r.an(52)}`;
      return S(`GROQ_API_KEY=${t}\n`, t);
    },
    (r) => {
      const t = `sk-or-v1-${r.hex(64)}`;
      return S(
        bash(
          `curl https://openrouter.ai/api/v1/chat/completions -H "Authorization: Bearer ${t}" -H "Content-Type: application/json" -d '{"model":"meta-llama/llama-3.1-70b-instruct","messages":[{"role":"user","content":"ping"}]}'`,
        ),
        t,
      );
    },
    (r) => {
      const t = `r8_${r.an(37)}`;
      return S(
        bash(`export REPLICATE_API_TOKEN=${t}\nreplicate run stability-ai/sdxl prompt="a lighthouse at dusk"`),
        t,
      );
    },
    (r) => {
      const t = `xai-${r.an(80)}`;
      return S(write('agent/config.py', `XAI_API_KEY = "${t}"\nMODEL = "grok-2-latest"\n`), t);
    },
    (r) => {
      const t = `lsv2_pt_${r.hex(32)}_${r.hex(10)}`;
      return S(`LANGCHAIN_TRACING_V2=true\nLANGCHAIN_API_KEY=${t}\nLANGCHAIN_PROJECT=support-bot\n`, t);
    },
  ],
  'dev-saas-token': [
    (r) => {
      const t = `figd_${r.b64u(40)}`;
      return S(
        bash(`curl -H "X-Figma-Token: ${t}" "https://api.figma.com/v1/files/${r.an(22)}/images?ids=1:2&format=svg"`),
        t,
      );
    },
    (r) => {
      const t = `pat${r.an(14)}.${r.hex(64)}`;
      return S(
        write(
          'scripts/airtable_import.js',
          `const Airtable = require('airtable');\nconst base = new Airtable({ apiKey: '${t}' }).base('app${r.an(14)}');\n`,
        ),
        t,
      );
    },
    (r) => {
      const t = `dapi${r.hex(32)}`;
      return S(`[DEFAULT]\nhost = https://adb-${r.dig(16)}.7.azuredatabricks.net\ntoken = ${t}\n`, t);
    },
    (r) => {
      const t = `tskey-auth-${r.an(11)}CNTRL-${r.an(33)}`;
      return S(bash(`sudo tailscale up --authkey=${t} --ssh --advertise-tags=tag:ci`), t);
    },
    (r) => {
      const t = `CFPAT-${r.b64u(43)}`;
      return S(bash(`contentful space export --space-id ${r.lan(12)} --management-token ${t}`), t);
    },
    (r) => {
      const t = `key-${r.hex(32)}`;
      return S(
        bash(
          `curl -s --user 'api:${t}' https://api.mailgun.net/v3/mg.acme.io/messages -F from='Acme <noreply@mg.acme.io>' -F to=ops@acme.io -F subject=test -F text=hello`,
        ),
        t,
      );
    },
    (r) => {
      const t = `AGE-SECRET-KEY-1${r.str(BECH32.toUpperCase(), 58)}`;
      return S(`# created: 2024-05-02T10:11:12+02:00\n# public key: age1${r.str(BECH32, 58)}\n${t}\n`, t);
    },
  ],
  'db-url': [
    (r) => {
      const pw = r.upw();
      return S(
        bash(
          `psql "postgresql://app_rw:${pw}@pg-prod-01.${r.lan(12)}.eu-west-1.rds.amazonaws.com:5432/orders?sslmode=require" -c 'select count(*) from orders'`,
        ),
        pw,
      );
    },
    (r) => {
      const pw = r.upw();
      return S(`APP_ENV=local\nDATABASE_URL=mysql://root:${pw}@127.0.0.1:3306/shop\nCACHE_DRIVER=redis\n`, pw);
    },
    (r) => {
      const pw = r.upw();
      return S(
        write(
          'src/db.js',
          `const mongoose = require('mongoose');\n\nmongoose.connect('mongodb+srv://svc-api:${pw}@cluster0.${r.lan(5)}.mongodb.net/prod?retryWrites=true&w=majority');\n`,
        ),
        pw,
      );
    },
    (r) => {
      const pw = r.an(32);
      return S(
        write(
          'k8s/worker-config.yaml',
          `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: worker\ndata:\n  QUEUE: default\n  REDIS_URL: redis://:${pw}@redis-master.cache.svc.cluster.local:6379/0\n`,
        ),
        pw,
      );
    },
    (r) => {
      const pw = r.upw();
      return S(
        write(
          'consumer/main.py',
          `import pika\n\nparams = pika.URLParameters("amqps://orders:${pw}@b-${r.uuid()}.mq.us-east-1.amazonaws.com:5671")\nconnection = pika.BlockingConnection(params)\n`,
        ),
        pw,
      );
    },
    (r) => {
      const pw = `${r.cap(r.word())}%40${r.dig(4)}%23${r.an(4)}`;
      return S(bash(`pg_dump "postgres://backup:${pw}@10.20.0.15:5432/ledger" -Fc -f ledger.dump`), pw);
    },
  ],
  'connection-string': [
    (r) => {
      const pw = r.pw();
      return S(
        `spring.datasource.url=jdbc:postgresql://db.internal:5432/app?user=app&password=${pw}&ssl=true\nspring.jpa.hibernate.ddl-auto=validate\n`,
        pw,
      );
    },
    (r) => {
      const pw = r.pw();
      return S(
        write(
          'src/Orders/appsettings.json',
          JSON.stringify(
            {
              ConnectionStrings: {
                DefaultConnection: `Server=tcp:acme-sql.database.windows.net,1433;Initial Catalog=orders;User ID=orders_app;Password=${pw};Encrypt=True;TrustServerCertificate=False;`,
              },
            },
            null,
            2,
          ),
        ),
        pw,
      );
    },
    (r) => {
      const pw = r.upw();
      return S(
        write(
          'internal/store/db.go',
          `package store\n\nimport (\n\t"database/sql"\n\n\t_ "github.com/go-sql-driver/mysql"\n)\n\nfunc Open() (*sql.DB, error) {\n\tdsn := "inventory:${pw}@tcp(10.0.3.14:3306)/inventory?parseTime=true"\n\treturn sql.Open("mysql", dsn)\n}\n`,
        ),
        pw,
      );
    },
    (r) => {
      const pw = r.pw();
      return S(
        write(
          'reports/db.py',
          `import psycopg2\n\nconn = psycopg2.connect("host=db.internal dbname=reports user=reporter password=${pw} sslmode=verify-full")\n`,
        ),
        pw,
      );
    },
    (r) => {
      const pw = r.an(16);
      return S(bash(`sqlplus scott/${pw}@//ora-prd.acme.local:1521/ORCLPDB1 @migrate.sql`), pw);
    },
  ],
  'http-auth-header': [
    (r) => {
      const t = r.b64u(40);
      return S(bash(`curl -sf -H "Authorization: Bearer ${t}" https://internal-api.acme.io/v2/reports/daily`), t);
    },
    (r) => {
      const v = b64(`svc-reports:${r.pw()}`);
      return S(
        `### fetch report\nGET https://reports.acme.io/api/export?month=2024-05\nAuthorization: Basic ${v}\nAccept: text/csv\n`,
        v,
      );
    },
    (r) => {
      const t = r.an(32);
      return S(bash(`http GET https://api.acme.io/v1/orders status==open X-API-Key:${t}`), t);
    },
    (r) => {
      const t = r.b64u(48);
      return S(
        write(
          'web/src/api.ts',
          `export async function getJobs(): Promise<Response> {\n  return fetch('https://ci.acme.io/api/jobs', {\n    headers: { 'authorization': 'Bearer ${t}', accept: 'application/json' },\n  });\n}\n`,
        ),
        t,
      );
    },
    (r) => {
      const pw = r.pw();
      return S(bash(`curl -u admin:${pw} -X POST http://jenkins.acme.local:8080/job/deploy-prod/build`), pw);
    },
    (r) => {
      const v = b64(`proxyuser:${r.pw()}`);
      return S(
        `CONNECT registry.npmjs.org:443 HTTP/1.1\nHost: registry.npmjs.org:443\nProxy-Authorization: Basic ${v}\nUser-Agent: npm/10.5.0\n`,
        v,
      );
    },
  ],
  'cli-password': [
    (r) => {
      const pw = r.an(18);
      return S(bash(`mysql -h 10.0.1.20 -u root -p${pw} -e "SHOW DATABASES;"`), pw);
    },
    (r) => {
      const pw = r.pw();
      return S(
        bash(`sshpass -p '${pw}' ssh -o StrictHostKeyChecking=no deploy@10.0.4.12 'sudo systemctl restart app'`),
        pw,
      );
    },
    (r) => {
      const pw = r.pw();
      return S(bash(`PGPASSWORD='${pw}' pg_dump -h db.internal -U postgres -Fc orders > orders.dump`), pw);
    },
    (r) => {
      const pw = r.an(32);
      return S(bash(`redis-cli -h cache.internal -a ${pw} --no-auth-warning INFO replication`), pw);
    },
    (r) => {
      const a = r.pw();
      const b = r.pw();
      return S(
        bash(
          `keytool -importkeystore -srckeystore app.p12 -srcstoretype PKCS12 -srcstorepass '${a}' -destkeystore app.jks -deststorepass '${b}'`,
        ),
        a,
        b,
      );
    },
    (r) => {
      const pw = r.upw();
      return S(bash(`openssl pkcs12 -export -in cert.pem -inkey key.pem -out bundle.p12 -passout pass:${pw}`), pw);
    },
    (r) => {
      const pw = r.upw();
      return S(
        bash(
          `mongosh "mongodb://10.0.2.5:27017" --username admin --password ${pw} --authenticationDatabase admin --eval 'db.adminCommand({listDatabases: 1})'`,
        ),
        pw,
      );
    },
    (r) => {
      const pw = r.upw();
      return S(bash(`sudo htpasswd -b -c /etc/nginx/.htpasswd admin ${pw}`), pw);
    },
  ],
  'env-assignment': [
    (r) => {
      const k = r.str(`${LO}${DG}!@#%^&*(-_=+)`, 50);
      return S(`DEBUG=False\nSECRET_KEY='${k}'\nALLOWED_HOSTS=acme.io,www.acme.io\n`, k);
    },
    (r) => {
      const k = r.b64(64);
      return S(write('.env', `PORT=3000\nJWT_SECRET=${k}\nJWT_EXPIRES_IN=15m\n`), k);
    },
    (r) => {
      const pw = r.pw();
      return S(bash(`export DB_PASSWORD='${pw}' && ./gradlew bootRun`), pw);
    },
    (r) => {
      const k = `base64:${r.b64(43)}=`;
      return S(`APP_NAME=Acme\nAPP_ENV=production\nAPP_KEY=${k}\nAPP_DEBUG=false\n`, k);
    },
    (r) => {
      const pw = r.pw();
      return S(
        `$env:SQL_SA_PASSWORD = "${pw}"\ndocker run -e "ACCEPT_EULA=Y" -e "MSSQL_SA_PASSWORD=$env:SQL_SA_PASSWORD" -p 1433:1433 -d mcr.microsoft.com/mssql/server:2022-latest\n`,
        pw,
      );
    },
    (r) => {
      const k = `${r.word()} ${r.word()} ${r.word()} ${r.word()} ${r.dig(3)}`;
      return S(`SESSION_SECRET="${k}"\nCOOKIE_DOMAIN=.acme.io\n`, k);
    },
  ],
  'yaml-assignment': [
    (r) => {
      const pw = r.pw();
      return S(
        write(
          'src/main/resources/application.yml',
          `spring:\n  datasource:\n    url: jdbc:postgresql://db:5432/app\n    username: app\n    password: ${pw}\n  jpa:\n    open-in-view: false\n`,
        ),
        pw,
      );
    },
    (r) => {
      const a = r.pw();
      const b = r.pw();
      return S(
        write(
          'charts/app/values-prod.yaml',
          `postgresql:\n  enabled: true\n  auth:\n    postgresPassword: "${a}"\n    username: app\n    password: '${b}'\n    database: app\n`,
        ),
        a,
        b,
      );
    },
    (r) => {
      const pw = r.pw();
      return S(
        `---\nmysql_root_password: ${pw}\nmysql_databases:\n  - name: wordpress\nmysql_bind_address: 0.0.0.0\n`,
        pw,
      );
    },
    (r) => {
      const k = r.an(32);
      return S(
        edit(
          'config/settings.yml',
          `payments:\n  provider: adyen\n`,
          `payments:\n  provider: adyen\n  Api_Key: ${k}\n  merchant: AcmeECOM\n`,
        ),
        k,
      );
    },
    (r) => {
      const k = r.b64(44);
      return S(
        write(
          'config/services.yml',
          `smtp:\n  host: smtp.mailgun.org\n  port: 587\n  user: postmaster@mg.acme.io\n  pass: "${k}"\n`,
        ),
        k,
      );
    },
  ],
  'json-assignment': [
    (r) => {
      const k = r.b64u(40);
      return S(
        write(
          'config/default.json',
          JSON.stringify(
            { port: 8080, oauth: { clientId: 'acme-portal', clientSecret: k, issuer: 'https://login.acme.io' } },
            null,
            2,
          ),
        ),
        k,
      );
    },
    (r) => {
      const pw = r.upw();
      const brave = `BSA${r.an(28)}`;
      return S(
        JSON.stringify(
          {
            mcpServers: {
              postgres: {
                command: 'npx',
                args: ['-y', '@modelcontextprotocol/server-postgres', `postgresql://readonly:${pw}@localhost:5432/app`],
              },
              brave: {
                command: 'npx',
                args: ['-y', '@modelcontextprotocol/server-brave-search'],
                env: { BRAVE_API_KEY: brave },
              },
            },
          },
          null,
          2,
        ),
        pw,
        brave,
      );
    },
    (r) => {
      const pw = r.pw();
      return S(
        write('cypress.env.json', JSON.stringify({ adminUser: 'qa-admin@acme.io', adminPassword: pw }, null, 2)),
        pw,
      );
    },
    (r) => {
      const pw = r.pw();
      return S(
        write(
          '.vscode/settings.json',
          JSON.stringify(
            {
              'sqltools.connections': [
                {
                  name: 'staging',
                  driver: 'PostgreSQL',
                  server: 'staging-db.acme.io',
                  port: 5432,
                  database: 'app',
                  username: 'dev',
                  password: pw,
                },
              ],
            },
            null,
            4,
          ),
        ),
        pw,
      );
    },
    (r) => {
      const k = r.hex(64);
      return S(`{"level":"debug","msg":"loaded config","config":{"webhook_secret":"${k}","env":"staging"}}`, k);
    },
  ],
  'xml-assignment': [
    (r) => {
      const k = r.an(40);
      return S(
        write(
          'Web.config',
          `<?xml version="1.0" encoding="utf-8"?>\n<configuration>\n  <appSettings>\n    <add key="Environment" value="Production" />\n    <add key="PaymentApiKey" value="${k}" />\n  </appSettings>\n</configuration>\n`,
        ),
        k,
      );
    },
    (r) => {
      const pw = r.pw();
      return S(
        write(
          'src/main/resources/hibernate.cfg.xml',
          `<hibernate-configuration>\n  <session-factory>\n    <property name="hibernate.connection.url">jdbc:mysql://db:3306/shop</property>\n    <property name="hibernate.connection.username">shop</property>\n    <property name="hibernate.connection.password">${pw}</property>\n  </session-factory>\n</hibernate-configuration>\n`,
        ),
        pw,
      );
    },
    (r) => {
      const pw = r.pw();
      return S(
        `<Context>\n  <Resource name="jdbc/AppDB" auth="Container" type="javax.sql.DataSource"\n            username="app" password="${pw}"\n            driverClassName="org.postgresql.Driver" url="jdbc:postgresql://db:5432/app"/>\n</Context>\n`,
        pw,
      );
    },
    (r) => {
      const pw = r.pw();
      return S(
        edit(
          'conf/tomcat-users.xml',
          `<!-- <user username="admin" password="<must-be-changed>" roles="manager-gui"/> -->`,
          `<user username="admin" password="${pw}" roles="manager-gui,admin-gui"/>`,
        ),
        pw,
      );
    },
  ],
  'toml-ini-assignment': [
    (r) => {
      const pw = r.pw();
      return S(write('/home/dev/.my.cnf', `[client]\nuser=backup\npassword="${pw}"\nhost=db.internal\n`), pw);
    },
    (r) => {
      const pw = r.pw();
      return S(`[server]\nport = 8080\n\n[database]\nhost = "localhost"\nuser = "app"\npassword = '${pw}'\n`, pw);
    },
    (r) => {
      const pw = r.upw();
      return S(
        edit(
          'alembic.ini',
          `sqlalchemy.url = driver://user:pass@localhost/dbname`,
          `sqlalchemy.url = postgresql+psycopg2://alembic:${pw}@localhost/app`,
        ),
        pw,
      );
    },
    (r) => {
      const sk = awsSecret(r);
      return S(
        `[s3remote]\ntype = s3\nprovider = AWS\naccess_key_id = ${awsId(r)}\nsecret_access_key = ${sk}\nregion = eu-west-1\n`,
        sk,
      );
    },
    (r) => {
      const pw = r.pw();
      return S(
        write(
          '/etc/grafana/grafana.ini',
          `[server]\nhttp_port = 3000\n\n[security]\nadmin_user = admin\nadmin_password = ${pw}\n`,
        ),
        pw,
      );
    },
  ],
  'k8s-secret': [
    (r) => {
      const pw = b64(r.pw());
      const k = b64(stripeLive(r));
      return S(
        write(
          'k8s/secret.yaml',
          `apiVersion: v1\nkind: Secret\nmetadata:\n  name: api-secrets\ntype: Opaque\ndata:\n  DB_PASSWORD: ${pw}\n  STRIPE_KEY: ${k}\n`,
        ),
        pw,
        k,
      );
    },
    (r) => {
      const pw = r.pw();
      return S(
        `apiVersion: v1\nkind: Secret\nmetadata:\n  name: redis-auth\n  namespace: cache\nstringData:\n  password: "${pw}"\n`,
        pw,
      );
    },
    (r) => {
      const pw = r.pw();
      const t = r.an(32);
      return S(
        bash(
          `kubectl create secret generic app-secrets -n prod --from-literal=DB_PASSWORD='${pw}' --from-literal=API_TOKEN=${t}`,
        ),
        pw,
        t,
      );
    },
    (r) => {
      const t = jwt(
        r,
        {
          iss: 'kubernetes/serviceaccount',
          'kubernetes.io/serviceaccount/namespace': 'ci',
          'kubernetes.io/serviceaccount/service-account.name': 'deployer',
          sub: 'system:serviceaccount:ci:deployer',
        },
        'RS256',
      );
      return S(
        write(
          '/home/dev/.kube/config',
          `apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n    server: https://k8s.acme.internal:6443\n  name: prod\nusers:\n- name: deployer\n  user:\n    token: ${t}\ncontexts:\n- context:\n    cluster: prod\n    user: deployer\n  name: prod\ncurrent-context: prod\n`,
        ),
        t,
      );
    },
    (r) => {
      const key = b64(`${ecPrivate(r).text}\n`);
      return S(
        `users:\n- name: admin\n  user:\n    client-certificate-data: ${b64(`${certificatePem(r).text}\n`)}\n    client-key-data: ${key}\n`,
        key,
      );
    },
  ],
  npmrc: [
    (r) => {
      const t = ghp(r);
      return S(
        write('.npmrc', `@acme:registry=https://npm.pkg.github.com\n//npm.pkg.github.com/:_authToken=${t}\n`),
        t,
      );
    },
    (r) => {
      const v = b64(`ci:${r.pw()}`);
      return S(
        `registry=https://nexus.acme.io/repository/npm-group/\n_auth=${v}\nalways-auth=true\nemail=ci@acme.io\n`,
        v,
      );
    },
    (r) => {
      const v = b64(r.pw());
      return S(
        `//artifactory.acme.io/artifactory/api/npm/npm/:_password=${v}\n//artifactory.acme.io/artifactory/api/npm/npm/:username=ci\n//artifactory.acme.io/artifactory/api/npm/npm/:email=ci@acme.io\n//artifactory.acme.io/artifactory/api/npm/npm/:always-auth=true\n`,
        v,
      );
    },
    (r) => {
      const t = glpat(r);
      return S(
        bash(
          `echo "//gitlab.com/api/v4/projects/1234/packages/npm/:_authToken=${t}" >> .npmrc && npm install @acme/ui`,
        ),
        t,
      );
    },
  ],
  'pip-pypirc': [
    (r) => {
      const pw = r.upw();
      return S(
        write(
          '/home/dev/.config/pip/pip.conf',
          `[global]\nindex-url = https://ci:${pw}@nexus.acme.io/repository/pypi-all/simple\ntrusted-host = nexus.acme.io\n`,
        ),
        pw,
      );
    },
    (r) => {
      const pw = r.pw();
      return S(
        `[distutils]\nindex-servers = internal\n\n[internal]\nrepository = https://pypi.acme.io/\nusername = uploader\npassword = ${pw}\n`,
        pw,
      );
    },
    (r) => {
      const t = glpat(r);
      return S(
        bash(
          `PIP_EXTRA_INDEX_URL=https://__token__:${t}@gitlab.com/api/v4/projects/77/packages/pypi/simple pip install acme-utils==2.3.0`,
        ),
        t,
      );
    },
    (r) => {
      const pw = r.pw();
      return S(bash(`poetry config http-basic.acme uploader '${pw}'`), pw);
    },
  ],
  'netrc-git-credentials': [
    (r) => {
      const t = ghp(r);
      return S(
        write(
          '/home/dev/.netrc',
          `machine github.com\nlogin octo-dev\npassword ${t}\n\nmachine api.github.com\nlogin octo-dev\npassword ${t}\n`,
        ),
        t,
      );
    },
    (r) => {
      const a = ghp(r);
      const b = glpat(r);
      return S(`https://octo-dev:${a}@github.com\nhttps://oauth2:${b}@gitlab.com\n`, a, b);
    },
    (r) => {
      const t = `ATBB${r.an(32)}`;
      return S(
        bash(
          `git config --global credential.helper store && echo "https://ci-bot:${t}@bitbucket.org" >> ~/.git-credentials`,
        ),
        t,
      );
    },
    (r) => {
      const pw = r.pw();
      return S(`machine artifactory.acme.io login ci password ${pw}\n`, pw);
    },
  ],
  'maven-gradle-nuget': [
    (r) => {
      const pw = r.pw();
      return S(
        write(
          '/home/dev/.m2/settings.xml',
          `<settings>\n  <servers>\n    <server>\n      <id>acme-releases</id>\n      <username>deployer</username>\n      <password>${pw}</password>\n    </server>\n  </servers>\n</settings>\n`,
        ),
        pw,
      );
    },
    (r) => {
      const t = adoPat(r);
      return S(
        write(
          'NuGet.config',
          `<?xml version="1.0" encoding="utf-8"?>\n<configuration>\n  <packageSources>\n    <add key="acme" value="https://pkgs.dev.azure.com/acme/_packaging/feed/nuget/v3/index.json" />\n  </packageSources>\n  <packageSourceCredentials>\n    <acme>\n      <add key="Username" value="az" />\n      <add key="ClearTextPassword" value="${t}" />\n    </acme>\n  </packageSourceCredentials>\n</configuration>\n`,
        ),
        t,
      );
    },
    (r) => {
      const a = r.pw();
      const b = r.pw();
      return S(
        `org.gradle.jvmargs=-Xmx2g\nossrhUsername=acme-release\nossrhPassword=${a}\nsigning.keyId=${r.HEX(8)}\nsigning.password=${b}\n`,
        a,
        b,
      );
    },
    (r) => {
      const t = adoPat(r);
      return S(
        bash(
          `dotnet nuget add source https://pkgs.dev.azure.com/acme/_packaging/feed/nuget/v3/index.json --name acme --username az --password ${t} --store-password-in-clear-text`,
        ),
        t,
      );
    },
  ],
  'docker-config-auth': [
    (r) => {
      const v = b64(`octo-dev:${ghp(r)}`);
      return S(
        write(
          '/home/dev/.docker/config.json',
          JSON.stringify({ auths: { 'ghcr.io': { auth: v } }, credsStore: '' }, null, '\t'),
        ),
        v,
      );
    },
    (r) => {
      const inner = JSON.stringify({
        auths: { 'registry.acme.io': { username: 'ci', password: r.pw(), auth: b64(`ci:${r.pw()}`) } },
      });
      const v = b64(inner);
      return S(
        `apiVersion: v1\nkind: Secret\nmetadata:\n  name: regcred\ntype: kubernetes.io/dockerconfigjson\ndata:\n  .dockerconfigjson: ${v}\n`,
        v,
      );
    },
    (r) => {
      const pw = r.pw();
      return S(
        bash(
          `kubectl create secret docker-registry regcred --docker-server=registry.acme.io --docker-username=ci --docker-password='${pw}' --docker-email=ci@acme.io`,
        ),
        pw,
      );
    },
    (r) => {
      const v = b64(`AWS:${r.b64(400)}`);
      return S(JSON.stringify({ auths: { [`${r.dig(12)}.dkr.ecr.eu-west-1.amazonaws.com`]: { auth: v } } }), v);
    },
  ],
  'private-key': [
    (r) => {
      const k = opensshPrivate(r);
      return S(write('deploy/keys/id_ed25519', `${k.text}\n`), ...keyLines(k.lines, 1));
    },
    (r) => {
      const k = rsaPrivate(r);
      return S(`${k.text}\n`, ...keyLines(k.lines));
    },
    (r) => {
      const k = ecPrivate(r);
      return S(
        `JWT_ISSUER=https://auth.acme.io\nJWT_PRIVATE_KEY="${k.text.replaceAll('\n', '\\n')}"\n`,
        ...keyLines(k.lines),
      );
    },
    (r) => {
      const k = pkcs8Private(r);
      return S(
        write(
          'config/github-app.yml',
          `app_id: ${r.dig(6)}\nwebhook_url: https://bots.acme.io/github\nprivate_key: |\n  ${k.text.replaceAll('\n', '\n  ')}\n`,
        ),
        ...keyLines(k.lines),
      );
    },
    (r) => {
      const k = pemBlock('PGP PRIVATE KEY BLOCK', `lQVYBGYx${r.b64(1500)}`);
      const text = k.text.replace('\n', '\n\n');
      return S(
        bash(`cat > /tmp/signing.asc <<'EOF'\n${text}\nEOF\ngpg --batch --import /tmp/signing.asc`),
        ...keyLines(k.lines),
      );
    },
  ],
  'jwt-bearer': [
    (r) => {
      const t = jwt(r, { sub: r.uuid(), email: 'jane@acme.io', roles: ['admin'], iat: epoch(r), exp: epoch(r) + 3600 });
      return S(`GET /api/v1/me HTTP/1.1\nHost: app.acme.io\nAuthorization: Bearer ${t}\nAccept: application/json\n`, t);
    },
    (r) => {
      const t = jwt(r, { sub: 'qa-admin', tenant: 'acme', iat: epoch(r), exp: epoch(r) + 86400 });
      return S(
        write(
          'e2e/auth.setup.ts',
          `import { test as setup } from '@playwright/test';\n\nsetup('authenticate', async ({ page }) => {\n  await page.goto('/');\n  await page.evaluate(() => localStorage.setItem('access_token', '${t}'));\n});\n`,
        ),
        t,
      );
    },
    (r) => {
      const t = jwt(
        r,
        {
          iss: 'https://login.acme.io/',
          aud: 'api://orders',
          sub: r.uuid(),
          scp: 'orders.read orders.write',
          iat: epoch(r),
          exp: epoch(r) + 3600,
        },
        'RS256',
      );
      return S(bash(`curl -s https://orders.acme.io/api/orders?limit=10 -H "Authorization: Bearer ${t}"`), t);
    },
    (r) => {
      const t = jwt(r, { user_id: r.dig(6), exp: epoch(r) });
      return S(bash(`TOKEN=${t}\nhttp :8080/admin/users "Authorization:Bearer $TOKEN"`), t);
    },
  ],
  'session-cookie': [
    (r) => {
      const a = r.lan(32);
      const b = r.an(64);
      return S(bash(`curl -s -b "sessionid=${a}; csrftoken=${b}" https://admin.acme.io/admin/orders/`), a, b);
    },
    (r) => {
      const t = `${b64json({ alg: 'dir', enc: 'A256GCM' })}..${r.b64u(16)}.${r.b64u(420)}.${r.b64u(22)}`;
      return S(
        `HTTP/2 200\ncontent-type: text/html; charset=utf-8\nset-cookie: __Secure-next-auth.session-token=${t}; Path=/; Expires=Fri, 12 Jul 2024 10:00:00 GMT; HttpOnly; Secure; SameSite=Lax\n`,
        t,
      );
    },
    (r) => {
      const t = r.hex(32);
      return S(
        write(
          'scripts/scrape_mrs.py',
          `import requests\n\nresp = requests.get("https://gitlab.acme.io/api/v4/merge_requests", cookies={"_gitlab_session": "${t}"})\n`,
        ),
        t,
      );
    },
    (r) => {
      const t = `s%3A${r.b64u(32)}.${r.b64(43)}`;
      return S(`Cookie: connect.sid=${t}; theme=dark\n`, t);
    },
  ],
  'webhook-url': [
    (r) => {
      const u = slackHook(r);
      return S(
        bash(`curl -X POST -H 'Content-type: application/json' --data '{"text":"Release 3.2.0 is live"}' ${u}`),
        u.split('/').pop()!,
      );
    },
    (r) => {
      const secret = r.b64u(68);
      return S(
        write(
          'monitor/notify.py',
          `import requests\n\nWEBHOOK = "https://discord.com/api/webhooks/${r.dig(19)}/${secret}"\nrequests.post(WEBHOOK, json={"content": "disk usage above 90%"})\n`,
        ),
        secret,
      );
    },
    (r) => {
      const h = r.hex(32);
      return S(
        write(
          'alertmanager/teams.yml',
          `receivers:\n  - name: teams\n    msteams_configs:\n      - webhook_url: "https://acme.webhook.office.com/webhookb2/${r.uuid()}@${r.uuid()}/IncomingWebhook/${h}/${r.uuid()}"\n`,
        ),
        h,
      );
    },
    (r) => {
      const t = r.b64u(43);
      return S(
        `GOOGLE_CHAT_WEBHOOK=https://chat.googleapis.com/v1/spaces/AAAA${r.b64u(7)}/messages?key=AIzaSy${r.b64u(33)}&token=${t}\n`,
        t,
      );
    },
    (r) => {
      const u = slackHook(r);
      return S(`SLACK_WEBHOOK_URL=${u}\n`, u.split('/').pop()!);
    },
  ],
  'signed-url': [
    (r) => {
      const sig = r.hex(64);
      return S(
        bash(
          `curl -o app.tar.gz "https://acme-artifacts.s3.eu-west-1.amazonaws.com/builds/app-1.4.2.tar.gz?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=${awsId(r)}%2F20240611%2Feu-west-1%2Fs3%2Faws4_request&X-Amz-Date=20240611T101500Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature=${sig}"`,
        ),
        sig,
      );
    },
    (r) => {
      const sig = r.hex(64);
      const tok = encodeURIComponent(awsSession(r));
      return S(
        `https://acme-uploads.s3.amazonaws.com/u/42/avatar.png?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=${awsId(r, 'ASIA')}%2F20240611%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20240611T093000Z&X-Amz-Expires=900&X-Amz-Security-Token=${tok}&X-Amz-SignedHeaders=host&X-Amz-Signature=${sig}`,
        sig,
        tok,
      );
    },
    (r) => {
      const sig = r.hex(512);
      return S(
        bash(
          `wget -O report.csv 'https://storage.googleapis.com/acme-exports/report.csv?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=exporter%40acme-prod.iam.gserviceaccount.com%2F20240611%2Fauto%2Fstorage%2Fgoog4_request&X-Goog-Date=20240611T101500Z&X-Goog-Expires=900&X-Goog-SignedHeaders=host&X-Goog-Signature=${sig}'`,
        ),
        sig,
      );
    },
    (r) => {
      const sig = encodeURIComponent(`${r.b64(43)}=`);
      return S(
        bash(
          `azcopy copy "https://stacmeprod01.blob.core.windows.net/backups/db-2024-06-10.bak?sp=r&st=2024-06-11T10:00:00Z&se=2024-06-11T18:00:00Z&spr=https&sv=2022-11-02&sr=b&sig=${sig}" ./restore/`,
        ),
        sig,
      );
    },
    (r) => {
      const sig = r.str(`${AN}~-_`, 342);
      return S(
        `https://d111111abcdef8.cloudfront.net/videos/intro.mp4?Expires=1718100000&Signature=${sig}&Key-Pair-Id=K${r.uan(13)}`,
        sig,
      );
    },
  ],
  'api-key-in-url': [
    (r) => {
      const k = r.hex(32);
      return S(bash(`curl -s "https://api.openweathermap.org/data/2.5/weather?q=Berlin&units=metric&appid=${k}"`), k);
    },
    (r) => {
      const k = r.hex(32);
      return S(write('src/news.js', `const URL = 'https://newsapi.org/v2/top-headlines?country=us&apiKey=${k}';\n`), k);
    },
    (r) => {
      const k = r.an(40);
      return S(
        `[2024-06-11 10:15:02] INFO fetch https://api.acme-partner.com/v1/export?format=csv&access_token=${k} -> 200 (1.2s)\n`,
        k,
      );
    },
    (r) => {
      const k = r.b64u(48);
      return S(
        write('src/feed.ts', `const socket = new WebSocket('wss://stream.acme.io/feed?channel=prices&token=${k}');\n`),
        k,
      );
    },
  ],
  'shell-history': [
    (r) => {
      const pw = r.an(16);
      const t = ghp(r);
      return S(
        `  501  cd ~/src/api\n  502  git pull --rebase\n  503  mysql -u root -p${pw} shop < dump.sql\n  504  export GITHUB_TOKEN=${t}\n  505  gh release create v2.1.0 --generate-notes\n  506  history | tail\n`,
        pw,
        t,
      );
    },
    (r) => {
      const k = openaiProj(r);
      return S(
        `: 1718090001:0;ls -la\n: 1718090012:0;OPENAI_API_KEY=${k} python chat.py\n: 1718090044:0;git status\n`,
        k,
      );
    },
    (r) => {
      const sk = awsSecret(r);
      return S(
        `cd infra\nterraform plan\naws configure set aws_secret_access_key ${sk}\nterraform apply -auto-approve\n`,
        sk,
      );
    },
    (r) => {
      const pw = r.pw();
      return S(
        `$ grep -n 'psql' ~/.bash_history | tail -2\n1187:psql -h staging-db -U app --password\n1188:PGPASSWORD='${pw}' psql -h staging-db -U app\n`,
        pw,
      );
    },
  ],
  'ci-workflow-secret': [
    (r) => {
      const t = anthropicKey(r);
      return S(
        write(
          '.github/workflows/review.yml',
          `name: AI review\non: pull_request\njobs:\n  review:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - run: npx review-bot --pr ${gha('github.event.number')}\n        env:\n          ANTHROPIC_API_KEY: "${t}"\n          GITHUB_TOKEN: ${gha('secrets.GITHUB_TOKEN')}\n`,
        ),
        t,
      );
    },
    (r) => {
      const pw = r.pw();
      return S(
        write(
          '.gitlab-ci.yml',
          `variables:\n  POSTGRES_DB: test\n  POSTGRES_USER: runner\n  POSTGRES_PASSWORD: "${pw}"\n\ntest:\n  image: python:3.12\n  services:\n    - postgres:16\n  script:\n    - pytest -q\n`,
        ),
        pw,
      );
    },
    (r) => {
      const t = r.hex(40);
      return S(
        write(
          '.circleci/config.yml',
          `version: 2.1\njobs:\n  deploy:\n    docker:\n      - image: cimg/node:20.11\n    environment:\n      SONAR_TOKEN: ${t}\n    steps:\n      - checkout\n      - run: npx sonar-scanner\n`,
        ),
        t,
      );
    },
    (r) => {
      const t = r.an(32);
      return S(
        write(
          'Jenkinsfile',
          `pipeline {\n  agent any\n  stages {\n    stage('Deploy') {\n      steps {\n        withEnv(['DEPLOY_TOKEN=${t}']) {\n          sh './deploy.sh production'\n        }\n      }\n    }\n  }\n}\n`,
        ),
        t,
      );
    },
  ],
  'docker-compose-secret': [
    (r) => {
      const pw = r.pw();
      return S(
        write(
          'docker-compose.yml',
          `services:\n  db:\n    image: postgres:16\n    environment:\n      POSTGRES_USER: app\n      POSTGRES_PASSWORD: ${pw}\n    ports:\n      - "5432:5432"\n`,
        ),
        pw,
      );
    },
    (r) => {
      const pw = r.pw();
      return S(
        `services:\n  mysql:\n    image: mysql:8.4\n    environment:\n      - MYSQL_ROOT_PASSWORD=${pw}\n      - MYSQL_DATABASE=wordpress\n`,
        pw,
      );
    },
    (r) => {
      const a = r.pw();
      const b = r.pw();
      return S(
        write(
          'compose.yaml',
          `services:\n  minio:\n    image: quay.io/minio/minio\n    command: server /data --console-address ":9001"\n    environment:\n      MINIO_ROOT_USER: admin\n      MINIO_ROOT_PASSWORD: "${a}"\n  rabbit:\n    image: rabbitmq:3-management\n    environment:\n      RABBITMQ_DEFAULT_USER: app\n      RABBITMQ_DEFAULT_PASS: '${b}'\n`,
        ),
        a,
        b,
      );
    },
  ],
  'terraform-secret': [
    (r) => {
      const pw = r.pw();
      return S(
        write(
          'infra/rds.tf',
          `resource "aws_db_instance" "main" {\n  identifier        = "orders-prod"\n  engine            = "postgres"\n  instance_class    = "db.t4g.medium"\n  username          = "orders"\n  password          = "${pw}"\n  allocated_storage = 50\n}\n`,
        ),
        pw,
      );
    },
    (r) => {
      const pw = r.pw();
      const k = r.an(40);
      return S(`region      = "eu-west-1"\ndb_password = "${pw}"\ndatadog_app_key = "${k}"\n`, pw, k);
    },
    (r) => {
      const pw = r.pw();
      return S(bash(`terraform apply -var 'db_password=${pw}' -var env=prod -auto-approve`), pw);
    },
    (r) => {
      const pw = r.pw();
      return S(
        `{\n  "mode": "managed",\n  "type": "aws_db_instance",\n  "name": "main",\n  "instances": [\n    {\n      "attributes": {\n        "address": "orders-prod.${r.lan(12)}.eu-west-1.rds.amazonaws.com",\n        "password": "${pw}",\n        "username": "orders"\n      }\n    }\n  ]\n}\n`,
        pw,
      );
    },
  ],
  'code-literal-secret': [
    (r) => {
      const k = r.hex(48);
      return S(
        write(
          'app/__init__.py',
          `from flask import Flask\n\napp = Flask(__name__)\napp.config['SECRET_KEY'] = '${k}'\n`,
        ),
        k,
      );
    },
    (r) => {
      const k = r.hex(128);
      return S(
        edit(
          'config/environments/production.rb',
          `  config.secret_key_base = ENV["SECRET_KEY_BASE"]`,
          `  config.secret_key_base = "${k}"`,
        ),
        k,
      );
    },
    (r) => {
      const k = r.an(40);
      return S(
        write(
          'internal/payments/client.go',
          `package payments\n\nconst (\n\tbaseURL = "https://api.payments.example.net/v2"\n\tapiKey  = "${k}"\n)\n`,
        ),
        k,
      );
    },
    (r) => {
      const pw = r.pw();
      return S(
        write(
          'src/main/java/com/acme/db/Config.java',
          `package com.acme.db;\n\npublic final class Config {\n    public static final String DB_USER = "app";\n    private static final String DB_PASSWORD = "${pw}";\n}\n`,
        ),
        pw,
      );
    },
    (r) => {
      const k = r.b64u(48);
      return S(
        write(
          'src/auth.js',
          `const jwt = require('jsonwebtoken');\n\nfunction issue(user) {\n  return jwt.sign({ sub: user.id }, '${k}', { expiresIn: '1h' });\n}\n`,
        ),
        k,
      );
    },
    (r) => {
      const k = r.b64(44);
      return S(
        write(
          'Services/Crypto.cs',
          `namespace Acme.Services;\n\npublic static class Crypto\n{\n    private const string EncryptionKey = "${k}";\n}\n`,
        ),
        k,
      );
    },
  ],
  'prose-secret': [
    (r) => {
      const t = ghp(r);
      return S(`Here's the token for the staging bot so you can re-run the workflow: ${t} (it expires Friday).`, t);
    },
    (r) => {
      const pw = `${r.cap(r.word())}${r.pick(['!', '#', '$', '&'])}${r.cap(r.word())}${r.dig(2)}`;
      return S(`The admin login for the new Grafana is admin / ${pw} — please change it after the first login.`, pw);
    },
    (r) => {
      const k = anthropicKey(r);
      return S(
        `I added your key to the notes so we don't lose it:\n\n> ANTHROPIC key: \`${k}\`\n\nRemember to move it into 1Password.`,
        k,
      );
    },
    (r) => {
      const pw = r.an(20);
      return S(
        write(
          'docs/onboarding.md',
          `# Onboarding\n\n1. Connect to the VPN.\n2. The shared QA database password is \`${pw}\`.\n3. Run \`make dev\`.\n`,
        ),
        pw,
      );
    },
  ],
  'tool-output-secret': [
    (r) => {
      const t = r.hex(48);
      return S(
        `[I 2024-06-11 10:02:11.345 ServerApp] Jupyter Server 2.14.0 is running at:\n[I 2024-06-11 10:02:11.345 ServerApp] http://localhost:8888/lab?token=${t}\n[I 2024-06-11 10:02:11.345 ServerApp]     http://127.0.0.1:8888/lab?token=${t}\n`,
        t,
      );
    },
    (r) => {
      const pw = r.str(`${AN}*_=+-`, 20);
      return S(`Password for the [elastic] user successfully reset.\nNew value: ${pw}\n`, pw);
    },
    (r) => {
      const pw = r.b64u(16);
      return S(
        `$ argocd admin initial-password -n argocd\n${pw}\n\n This password must be only used for first time login. We strongly recommend you update the password using \`argocd account update-password\`.\n`,
        pw,
      );
    },
    (r) => {
      const pw = r.an(24);
      return S(
        `$ kubectl get secret grafana -n monitoring -o jsonpath="{.data.admin-password}" | base64 --decode\n${pw}\n`,
        pw,
      );
    },
  ],
};

// ── clean rows ───────────────────────────────────────────────────────────────────────────────────────────

const MESSAGES = [
  'fix(api): handle empty cart',
  'chore(deps): bump vite to 5.3.1',
  'feat: add CSV export',
  'docs: clarify setup',
  'refactor: split payment service',
  'test: cover retry path',
  'ci: cache pnpm store',
  'Merge pull request #482 from acme/feat/search',
];

const CLEAN_KINDS: Record<string, Maker[]> = {
  'commit-sha': [
    (r) => C(MESSAGES.map((m) => `${r.hex(7)} ${m}`).join('\n')),
    (r) =>
      C(
        write(
          '.github/workflows/ci.yml',
          `jobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@${r.hex(40)} # v4.1.7\n      - uses: actions/setup-node@${r.hex(40)} # v4.0.3\n        with:\n          node-version: 20\n      - run: npm ci && npm test\n`,
        ),
      ),
    (r) => C(bash(`git cherry-pick ${r.hex(40)} && git revert --no-edit ${r.hex(40)}`)),
    (r) =>
      C(
        `commit ${r.hex(40)}\nMerge: ${r.hex(7)} ${r.hex(7)}\nAuthor: Jane Roe <jane@acme.io>\nDate:   Tue Jun 11 10:15:02 2024 +0200\n\n    Merge branch 'release/2.4'\n`,
      ),
    (r) => C(`${r.hex(40)}\trefs/heads/main\n${r.hex(40)}\trefs/tags/v2.4.0\n${r.hex(40)}\trefs/tags/v2.4.0^{}\n`),
  ],
  'image-digest': [
    (r) =>
      C(
        write(
          'Dockerfile',
          `FROM node:20.14-alpine@sha256:${r.hex(64)} AS build\nWORKDIR /app\nCOPY package*.json ./\nRUN npm ci\nCOPY . .\nRUN npm run build\n\nFROM gcr.io/distroless/nodejs20-debian12@sha256:${r.hex(64)}\nCOPY --from=build /app/dist /app\nCMD ["/app/server.js"]\n`,
        ),
      ),
    (r) =>
      C(
        `REPOSITORY          TAG       DIGEST                                                                    IMAGE ID       CREATED        SIZE\nghcr.io/acme/api    1.8.0     sha256:${r.hex(64)}   ${r.hex(12)}   2 days ago     187MB\nredis               7.2       sha256:${r.hex(64)}   ${r.hex(12)}   3 weeks ago    117MB\n`,
      ),
    (r) =>
      C(
        `    containerStatuses:\n    - containerID: containerd://${r.hex(64)}\n      image: docker.io/library/nginx:1.27\n      imageID: docker.io/library/nginx@sha256:${r.hex(64)}\n      ready: true\n`,
      ),
    (r) =>
      C(
        bash(
          `cosign verify --certificate-identity-regexp 'https://github.com/acme/.*' --certificate-oidc-issuer https://token.actions.githubusercontent.com ghcr.io/acme/api@sha256:${r.hex(64)}`,
        ),
      ),
  ],
  'file-checksum': [
    (r) =>
      C(
        `${r.hex(64)}  dist/acme-cli-2.4.0-linux-amd64.tar.gz\n${r.hex(64)}  dist/acme-cli-2.4.0-darwin-arm64.tar.gz\n${r.hex(64)}  dist/acme-cli-2.4.0-windows-amd64.zip\n`,
      ),
    (r) =>
      C(
        write(
          '.terraform.lock.hcl',
          `provider "registry.terraform.io/hashicorp/aws" {\n  version     = "5.53.0"\n  constraints = "~> 5.0"\n  hashes = [\n    "h1:${r.b64(43)}=",\n    "zh:${r.hex(64)}",\n    "zh:${r.hex(64)}",\n  ]\n}\n`,
        ),
      ),
    (r) => C(bash(`echo "${r.hex(64)}  kubectl" | sha256sum --check`)),
    (r) => C(`MD5 (backup-2024-06-10.tar.zst) = ${r.hex(32)}\nSHA1 (backup-2024-06-10.tar.zst) = ${r.hex(40)}\n`),
  ],
  'lockfile-integrity': [
    (r) =>
      C(
        `    "node_modules/lodash": {\n      "version": "4.17.21",\n      "resolved": "https://registry.npmjs.org/lodash/-/lodash-4.17.21.tgz",\n      "integrity": "sha512-${r.b64(86)}==",\n      "license": "MIT"\n    },\n`,
      ),
    (r) =>
      C(
        `"@babel/core@^7.24.0":\n  version "7.24.7"\n  resolved "https://registry.yarnpkg.com/@babel/core/-/core-7.24.7.tgz#${r.hex(40)}"\n  integrity sha512-${r.b64(86)}==\n`,
      ),
    (r) =>
      C(
        `github.com/spf13/cobra v1.8.0 h1:${r.b64(43)}=\ngithub.com/spf13/cobra v1.8.0/go.mod h1:${r.b64(43)}=\ngolang.org/x/sys v0.21.0 h1:${r.b64(43)}=\n`,
      ),
    (r) =>
      C(
        `[[package]]\nname = "serde"\nversion = "1.0.203"\nsource = "registry+https://github.com/rust-lang/crates.io-index"\nchecksum = "${r.hex(64)}"\n`,
      ),
    (r) =>
      C(
        write(
          'requirements.txt',
          `requests==2.32.3 \\\n    --hash=sha256:${r.hex(64)} \\\n    --hash=sha256:${r.hex(64)}\nurllib3==2.2.1 \\\n    --hash=sha256:${r.hex(64)}\n`,
        ),
      ),
    (r) => C(`  /zod@3.23.8:\n    resolution: {integrity: sha512-${r.b64(86)}==}\n    dev: false\n`),
  ],
  'sri-hash': [
    (r) =>
      C(
        `<script src="https://cdn.jsdelivr.net/npm/bootstrap@5.3.3/dist/js/bootstrap.bundle.min.js" integrity="sha384-${r.b64(64)}" crossorigin="anonymous"></script>`,
      ),
    (r) =>
      C(
        edit(
          'public/index.html',
          `<link rel="stylesheet" href="/vendor/normalize.css">`,
          `<link rel="stylesheet" href="https://unpkg.com/normalize.css@8.0.1/normalize.css" integrity="sha256-${r.b64(43)}=" crossorigin="anonymous">`,
        ),
      ),
    (r) =>
      C(
        JSON.stringify(
          {
            'main.js': { src: '/assets/main.4b1e2f3a.js', integrity: `sha384-${r.b64(64)}` },
            'vendor.js': { src: '/assets/vendor.9c8d7e6f.js', integrity: `sha384-${r.b64(64)}` },
          },
          null,
          2,
        ),
      ),
  ],
  uuid: [
    (r) =>
      C(
        JSON.stringify(
          {
            data: [
              { id: r.uuid(), name: 'Starter', seats: 5 },
              { id: r.uuid(), name: 'Team', seats: 25 },
            ],
            request_id: r.uuid(),
          },
          null,
          2,
        ),
      ),
    (r) =>
      C(
        ` id                                   | email              | created_at\n--------------------------------------+--------------------+----------------------------\n ${r.uuid()} | jane@acme.io       | 2024-06-10 09:12:44.123+00\n ${r.uuid()} | omar@acme.io       | 2024-06-10 11:40:02.981+00\n(2 rows)\n`,
      ),
    (r) =>
      C(
        write(
          'migrations/20240611_add_plans.sql',
          `INSERT INTO plans (id, slug) VALUES\n  ('${r.uuid()}', 'starter'),\n  ('${r.uuid()}', 'team'),\n  ('${r.uuid()}', 'enterprise');\n`,
        ),
      ),
    (r) => C(bash(`az account set --subscription ${r.uuid()} && az group list -o table`)),
    (r) =>
      C(
        `<Project Sdk="Microsoft.NET.Sdk">\n  <PropertyGroup>\n    <ProjectGuid>{${r.uuid().toUpperCase()}}</ProjectGuid>\n    <UserSecretsId>${r.uuid()}</UserSecretsId>\n  </PropertyGroup>\n</Project>\n`,
      ),
  ],
  'ulid-nanoid': [
    (r) =>
      C(
        `{"level":"info","event_id":"01${r.str(CROCKFORD, 24)}","order_id":"01${r.str(CROCKFORD, 24)}","msg":"order paid"}`,
      ),
    (r) =>
      C(
        write(
          'tests/fixtures/users.json',
          JSON.stringify(
            [
              { id: r.b64u(21), name: 'Ada' },
              { id: r.b64u(21), name: 'Linus' },
              { id: r.b64u(21), name: 'Grace' },
            ],
            null,
            2,
          ),
        ),
      ),
    (r) => C(`segment ksuid: ${r.dig(1)}${r.an(26)}\ncreated: 2024-06-11T10:15:02Z\n`),
    (r) => C(bash(`psql -c "select * from invoices where id = 'c${r.lan(24)}'"`)),
  ],
  'build-cache-path': [
    (r) =>
      C(
        `Restored cache from key: node-cache-Linux-x64-npm-${r.hex(64)}\nCache Size: ~212 MB (222298113 B)\n/usr/bin/tar -xf /home/runner/work/_temp/${r.uuid()}/cache.tzst -P -C /home/runner/work/web/web --use-compress-program unzstd\n`,
      ),
    (r) =>
      C(
        `   Compiling serde v1.0.203\n   Compiling acme-cli v0.4.0 (/home/dev/src/acme-cli)\nwarning: unused variable: \`cfg\`\n --> src/main.rs:14:9\n    Finished \`dev\` profile [unoptimized + debuginfo] target(s) in 7.42s\n     Running \`target/debug/deps/acme_cli-${r.hex(16)}\`\n`,
      ),
    (r) =>
      C(
        `/nix/store/${r.str(NIX32, 32)}-openssl-3.0.13/lib/libssl.so.3\n/nix/store/${r.str(NIX32, 32)}-glibc-2.39-52/lib/libc.so.6\n`,
      ),
    (r) =>
      C(
        bash(
          `rm -rf node_modules/.cache/babel-loader/${r.hex(32)}.json ~/.gradle/caches/modules-2/files-2.1/com.google.guava/guava/33.2.1-jre/${r.hex(40)}`,
        ),
      ),
    (r) =>
      C(
        `Processing /home/dev/.cache/pip/wheels/${r.hex(2)}/${r.hex(2)}/${r.hex(56)}/pyyaml-6.0.1-cp312-cp312-linux_x86_64.whl\n`,
      ),
  ],
  'container-pod-name': [
    (r) =>
      C(
        `NAME                          READY   STATUS    RESTARTS   AGE\napi-${r.lan(10)}-${r.lan(5)}        1/1     Running   0          3d2h\nworker-${r.lan(9)}-${r.lan(5)}     1/1     Running   2          3d2h\nredis-master-0                1/1     Running   0          12d\n`,
      ),
    (r) =>
      C(
        `CONTAINER ID   IMAGE            COMMAND                  CREATED        STATUS        PORTS                    NAMES\n${r.hex(12)}   postgres:16      "docker-entrypoint.s…"   2 hours ago    Up 2 hours    0.0.0.0:5432->5432/tcp   app-db-1\n${r.hex(12)}   redis:7.2        "docker-entrypoint.s…"   2 hours ago    Up 2 hours    6379/tcp                 app-cache-1\n`,
      ),
    (r) => C(bash(`kubectl logs -n prod api-${r.lan(10)}-${r.lan(5)} -c api --since=15m | grep -i error`)),
    (r) => C(bash(`docker exec -it ${r.hex(64)} sh -c 'cat /etc/os-release'`)),
  ],
  'cloud-resource-id': [
    (r) =>
      C(
        bash(
          `aws ec2 describe-instances --instance-ids i-0${r.hex(16)} --query 'Reservations[].Instances[].State.Name'`,
        ),
      ),
    (r) =>
      C(
        write(
          'infra/network.tf',
          `resource "aws_instance" "bastion" {\n  ami                    = "ami-0${r.hex(16)}"\n  instance_type          = "t3.micro"\n  subnet_id              = "subnet-0${r.hex(16)}"\n  vpc_security_group_ids = ["sg-0${r.hex(16)}"]\n}\n`,
        ),
      ),
    (r) => C(`/subscriptions/${r.uuid()}/resourceGroups/rg-acme-prod/providers/Microsoft.Web/sites/acme-api-prod`),
    (r) =>
      C(
        bash(
          `gcloud compute instances describe ci-runner-${r.lan(4)} --project acme-prod-${r.dig(6)} --zone europe-west1-b --format='value(id)'`,
        ),
      ),
    (r) =>
      C(
        `{"VolumeId": "vol-0${r.hex(16)}", "SnapshotId": "snap-0${r.hex(16)}", "State": "completed", "Progress": "100%"}`,
      ),
  ],
  arn: [
    (r) => C(`arn:aws:iam::${r.dig(12)}:role/github-actions-deployer`),
    (r) =>
      C(
        write(
          'infra/iam.json',
          JSON.stringify(
            {
              Version: '2012-10-17',
              Statement: [
                { Effect: 'Allow', Action: ['s3:GetObject'], Resource: [`arn:aws:s3:::acme-artifacts-${r.dig(12)}/*`] },
                {
                  Effect: 'Allow',
                  Action: 'kms:Decrypt',
                  Resource: `arn:aws:kms:eu-west-1:${r.dig(12)}:key/${r.uuid()}`,
                },
              ],
            },
            null,
            2,
          ),
        ),
      ),
    (r) => C(`arn:aws:ecs:eu-west-1:${r.dig(12)}:task/prod-cluster/${r.hex(32)}`),
    (r) =>
      C(
        bash(
          `aws lambda invoke --function-name arn:aws:lambda:us-east-1:${r.dig(12)}:function:thumbnailer:7 /tmp/out.json`,
        ),
      ),
  ],
  'request-trace-id': [
    (r) => C(`traceparent: 00-${r.hex(32)}-${r.hex(16)}-01\ntracestate: rojo=${r.hex(16)}\n`),
    (r) =>
      C(
        `HTTP/1.1 403 Forbidden\nx-amz-request-id: ${r.uan(16)}\nx-amz-id-2: ${r.b64(76)}\nContent-Type: application/xml\n`,
      ),
    (r) =>
      C(`2024-06-11T10:15:02.118Z ERROR [req ${r.uuid()}] upstream timed out (cf-ray ${r.hex(16)}-FRA) after 30000ms`),
    (r) =>
      C(
        `{"error":{"type":"invalid_request_error","message":"No such customer"},"request_id":"req_${r.an(14)}","sentry_trace":"${r.hex(32)}-${r.hex(16)}-1"}`,
      ),
  ],
  'ssh-public-key': [
    (r) =>
      C(
        write(
          '/home/deploy/.ssh/authorized_keys',
          `ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI${r.b64(43)} jane@laptop\nssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQ${r.b64(540)}= ci@build-2\n`,
        ),
      ),
    (r) =>
      C(
        `Your identification has been saved in /home/dev/.ssh/id_ed25519\nYour public key has been saved in /home/dev/.ssh/id_ed25519.pub\nThe key fingerprint is:\nSHA256:${r.b64(43)} dev@workstation\n`,
      ),
    (r) =>
      C(
        `github.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI${r.b64(43)}\ngitlab.com ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBB${r.b64(87)}=\n`,
      ),
    (r) => C(bash(`echo "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI${r.b64(43)} omar@acme" >> ~/.ssh/authorized_keys`)),
  ],
  'public-key': [
    (r) => C(write('config/jwt-public.pem', `${publicKeyPem(r).text}\n`)),
    (r) =>
      C(
        JSON.stringify({
          keys: [{ kty: 'RSA', use: 'sig', kid: r.b64u(43), alg: 'RS256', n: r.b64u(342), e: 'AQAB' }],
        }),
      ),
    (r) =>
      C(
        `[Interface]\nAddress = 10.8.0.2/24\nDNS = 10.8.0.1\n\n[Peer]\nPublicKey = ${r.b64(43)}=\nEndpoint = vpn.acme.io:51820\nAllowedIPs = 10.8.0.0/16\n`,
      ),
    (r) => C(`creation_rules:\n  - path_regex: secrets/.*\\.yaml$\n    age: age1${r.str(BECH32, 58)}\n`),
    (r) => C(pemBlock('PGP PUBLIC KEY BLOCK', `mQINBGYx${r.b64(1200)}`).text.replace('\n', '\n\n')),
  ],
  certificate: [
    (r) => C(write('certs/ca.crt', `${certificatePem(r).text}\n`)),
    (r) =>
      C(
        `apiVersion: v1\nclusters:\n- cluster:\n    certificate-authority-data: ${b64(`${certificatePem(r).text}\n`)}\n    server: https://${r.HEX(32)}.gr7.eu-west-1.eks.amazonaws.com\n  name: prod\n`,
      ),
    (r) => C(`${certificatePem(r).text}\n${certificatePem(r).text}\n`),
    (r) =>
      C(
        `Certificate:\n    Data:\n        Version: 3 (0x2)\n        Serial Number:\n            ${Array.from({ length: 16 }, () => r.hex(2)).join(':')}\n        Signature Algorithm: sha256WithRSAEncryption\n        Issuer: C=US, O=Let's Encrypt, CN=R11\n        X509v3 Subject Key Identifier:\n            ${Array.from({ length: 20 }, () => r.HEX(2)).join(':')}\n`,
      ),
  ],
  'publishable-key': [
    (r) => C(`NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY=pk_live_51${r.an(97)}\nNEXT_PUBLIC_SITE_URL=https://shop.acme.io\n`),
    (r) =>
      C(
        write(
          'src/main.tsx',
          `import { ClerkProvider } from '@clerk/clerk-react';\n\nconst PUBLISHABLE_KEY = 'pk_test_${b64(`${r.word()}-${r.word()}-${r.int(10, 99)}.clerk.accounts.dev$`).replace(/=+$/, '')}';\n`,
        ),
      ),
    (r) => C(`mapboxgl.accessToken = 'pk.${b64json({ u: 'acme-maps', a: r.lan(25) })}.${r.b64u(22)}';`),
    (r) =>
      C(
        `<div class="g-recaptcha" data-sitekey="6L${r.b64u(38)}"></div>\n<div class="cf-turnstile" data-sitekey="0x4AAAAAAA${r.b64u(14)}"></div>`,
      ),
    (r) => C(`posthog.init('phc_${r.an(43)}', { api_host: 'https://eu.i.posthog.com' })`),
    (r) =>
      C(
        `VITE_SUPABASE_URL=https://${r.lo(20)}.supabase.co\nVITE_SUPABASE_PUBLISHABLE_KEY=sb_publishable_${r.b64u(22)}_${r.b64u(8)}\n`,
      ),
  ],
  'ci-secret-reference': [
    () =>
      C(
        write(
          '.github/workflows/deploy.yml',
          `jobs:\n  deploy:\n    runs-on: ubuntu-latest\n    environment: production\n    steps:\n      - uses: actions/checkout@v4\n      - run: ./deploy.sh\n        env:\n          AWS_SECRET_ACCESS_KEY: ${gha('secrets.AWS_SECRET_ACCESS_KEY')}\n          NPM_TOKEN: ${gha('secrets.NPM_TOKEN')}\n          DATABASE_URL: ${gha('secrets.DATABASE_URL')}\n`,
        ),
      ),
    () =>
      C(
        `deploy:\n  stage: deploy\n  script:\n    - echo "$CI_REGISTRY_PASSWORD" | docker login -u "$CI_REGISTRY_USER" --password-stdin "$CI_REGISTRY"\n    - curl --header "JOB-TOKEN: $CI_JOB_TOKEN" "$CI_API_V4_URL/projects/$CI_PROJECT_ID/packages"\n`,
      ),
    () =>
      C(
        `jobs:\n  call-release:\n    uses: acme/workflows/.github/workflows/release.yml@main\n    secrets: inherit\n    with:\n      token_name: RELEASE_TOKEN\n`,
      ),
    () =>
      C(
        `- name: Login to GHCR\n  uses: docker/login-action@v3\n  with:\n    registry: ghcr.io\n    username: ${gha('github.actor')}\n    password: ${gha('secrets.GITHUB_TOKEN')}\n`,
      ),
  ],
  'template-reference': [
    () =>
      C(
        write(
          'charts/app/templates/secret.yaml',
          `apiVersion: v1\nkind: Secret\nmetadata:\n  name: {{ include "app.fullname" . }}\nstringData:\n  DB_PASSWORD: {{ .Values.db.password | quote }}\n  API_KEY: {{ required "apiKey is required" .Values.apiKey }}\n`,
        ),
      ),
    () =>
      C(
        `services:\n  db:\n    image: postgres:16\n    environment:\n      POSTGRES_PASSWORD: ${sh('POSTGRES_PASSWORD:?set it in .env')}\n      POSTGRES_USER: ${sh('POSTGRES_USER:-app')}\n`,
      ),
    () =>
      C(
        `resource "aws_db_instance" "main" {\n  username = var.db_username\n  password = var.db_password\n}\n\nvariable "db_password" {\n  type      = string\n  sensitive = true\n}\n`,
      ),
    () => C(`spring:\n  datasource:\n    password: ${sh('DB_PASSWORD')}\n    username: ${sh('DB_USER:app')}\n`),
    () => C(`mysql_root_password: "{{ vault_mysql_root_password }}"\napi_token: "{{ lookup('env', 'API_TOKEN') }}"\n`),
    () =>
      C(
        `doctrine:\n    dbal:\n        password: '%env(DATABASE_PASSWORD)%'\nproduction:\n  password: <%= ENV["DATABASE_PASSWORD"] %>\n`,
      ),
  ],
  'placeholder-literal': [
    () =>
      C(
        write(
          '.env.example',
          `DATABASE_URL=postgres://user:password@localhost:5432/app\nOPENAI_API_KEY=<your-openai-key>\nSTRIPE_SECRET_KEY=sk_test_xxxxxxxxxxxxxxxxxxxxxxxx\nJWT_SECRET=changeme\n`,
        ),
      ),
    () =>
      C(
        `## Configuration\n\nSet your token before running:\n\n\`\`\`sh\nexport GITHUB_TOKEN=<TOKEN>\nexport API_KEY=your-api-key-here\n\`\`\`\n`,
      ),
    () => C(`password: "********"\napi_key: REPLACE_ME\nclient_secret: xxxx-xxxx-xxxx\n`),
    () => C(bash(`curl -H "Authorization: Bearer YOUR_ACCESS_TOKEN" https://api.example.com/v1/items`)),
    () => C(`aws_access_key_id = <ACCESS_KEY_ID>\naws_secret_access_key = <SECRET_ACCESS_KEY>\n`),
  ],
  'masked-output': [
    () =>
      C(
        `github.com\n  ✓ Logged in to github.com account octo-dev (keyring)\n  - Active account: true\n  - Git operations protocol: https\n  - Token: gho_************************************\n  - Token scopes: 'gist', 'read:org', 'repo', 'workflow'\n`,
      ),
    (r) =>
      C(
        `      Name                    Value             Type    Location\n      ----                    -----             ----    --------\n   profile                <not set>             None    None\naccess_key     ****************${r.uan(4)} shared-credentials-file\nsecret_key     ****************${r.an(4)} shared-credentials-file\n    region                eu-west-1      config-file    ~/.aws/config\n`,
      ),
    () =>
      C(
        `Name:         app-secrets\nNamespace:    prod\nType:  Opaque\n\nData\n====\nDB_PASSWORD:  24 bytes\nAPI_TOKEN:    40 bytes\n`,
      ),
    () =>
      C(
        `> Environment Variables found for acme/web [142ms]\n\n name                value               environments        created\n DATABASE_URL        Encrypted           Production          3d ago\n STRIPE_SECRET_KEY   Encrypted           Production          3d ago\n`,
      ),
    () => C(`[2024-06-11 10:15:02] INFO connecting to postgres://app:[REDACTED]@db.internal:5432/app\n`),
  ],
  'secret-reference-code': [
    () =>
      C(
        write(
          'app/settings.py',
          `import os\n\nDATABASES = {"default": {"ENGINE": "django.db.backends.postgresql", "PASSWORD": os.environ["DB_PASSWORD"], "HOST": os.getenv("DB_HOST", "localhost")}}\nSECRET_KEY = os.environ.get("DJANGO_SECRET_KEY")\n`,
        ),
      ),
    () =>
      C(
        `const stripe = new Stripe(process.env.STRIPE_SECRET_KEY!, { apiVersion: '2024-06-20' });\nconst token = process.env.GITHUB_TOKEN ?? '';\n`,
      ),
    () => C(`token := os.Getenv("GITHUB_TOKEN")\nif token == "" {\n\tlog.Fatal("GITHUB_TOKEN is not set")\n}\n`),
    () => C(`String password = System.getenv("DB_PASSWORD");\nconfig.secret_key_base = ENV.fetch("SECRET_KEY_BASE")\n`),
    () => C(bash(`export GITHUB_TOKEN=$(gh auth token) && export NPM_TOKEN="$(op read op://Private/npm/token)"`)),
  ],
  'secret-manager-reference': [
    (r) =>
      C(
        `{"valueFrom": "arn:aws:secretsmanager:eu-west-1:${r.dig(12)}:secret:prod/orders/db-${r.an(6)}:password::", "name": "DB_PASSWORD"}`,
      ),
    () =>
      C(
        `env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef:\n        name: orders-db\n        key: password\n`,
      ),
    (r) =>
      C(
        `DB_PASSWORD=@Microsoft.KeyVault(SecretUri=https://kv-acme-prod.vault.azure.net/secrets/db-password/${r.hex(32)})\nGITHUB_TOKEN=op://Engineering/GitHub Bot/token\n`,
      ),
    (r) =>
      C(
        bash(
          `gcloud secrets versions access latest --secret=db-password --project=acme-prod-${r.dig(6)} >/dev/null && vault kv get -mount=secret app/payments`,
        ),
      ),
  ],
  'sops-encrypted': [
    (r) =>
      C(
        `db:\n    password: ENC[AES256_GCM,data:${r.b64(24)},iv:${r.b64(43)}=,tag:${r.b64(22)}==,type:str]\n    user: ENC[AES256_GCM,data:${r.b64(4)},iv:${r.b64(43)}=,tag:${r.b64(22)}==,type:str]\nsops:\n    kms:\n        - arn: arn:aws:kms:eu-west-1:${r.dig(12)}:key/${r.uuid()}\n          created_at: "2024-06-11T10:15:02Z"\n          enc: AQICAHh${r.b64(300)}==\n          aws_profile: ""\n    lastmodified: "2024-06-11T10:15:03Z"\n    mac: ENC[AES256_GCM,data:${r.b64(88)},iv:${r.b64(43)}=,tag:${r.b64(22)}==,type:str]\n    version: 3.8.1\n`,
      ),
    (r) =>
      C(
        JSON.stringify(
          {
            api_token: `ENC[AES256_GCM,data:${r.b64(56)},iv:${r.b64(43)}=,tag:${r.b64(22)}==,type:str]`,
            sops: { lastmodified: '2024-06-11T10:15:03Z', version: '3.8.1' },
          },
          null,
          2,
        ),
      ),
    (r) => {
      const age = pemBlock('AGE ENCRYPTED FILE', `YWdlLWVuY3J5cHRpb24ub3JnL3YxCi0+IFgyNTUxOSAg${r.b64(260)}`);
      return C(
        `stringData:\n    token: ENC[AES256_GCM,data:${r.b64(40)},iv:${r.b64(43)}=,tag:${r.b64(22)}==,type:str]\nsops:\n    age:\n        - recipient: age1${r.str(BECH32, 58)}\n          enc: |\n            ${age.text.replaceAll('\n', '\n            ')}\n    version: 3.8.1\n`,
      );
    },
  ],
  'ansible-vault': [
    (r) => C(`$ANSIBLE_VAULT;1.1;AES256\n${Array.from({ length: 6 }, () => r.hex(80)).join('\n')}\n${r.hex(40)}\n`),
    (r) =>
      C(
        write(
          'group_vars/prod/vault.yml',
          `db_password: !vault |\n          $ANSIBLE_VAULT;1.1;AES256\n          ${Array.from({ length: 5 }, () => r.hex(64)).join('\n          ')}\n`,
        ),
      ),
    (r) => C(`$ANSIBLE_VAULT;1.2;AES256;prod\n${Array.from({ length: 4 }, () => r.hex(80)).join('\n')}\n`),
  ],
  'sealed-secret': [
    (r) =>
      C(
        `apiVersion: bitnami.com/v1alpha1\nkind: SealedSecret\nmetadata:\n  name: orders-db\n  namespace: prod\nspec:\n  encryptedData:\n    password: AgB${r.b64(680)}==\n    username: AgA${r.b64(680)}=\n`,
      ),
    (r) =>
      C(
        write(
          'k8s/sealed-api.yaml',
          `apiVersion: bitnami.com/v1alpha1\nkind: SealedSecret\nmetadata:\n  name: api-keys\nspec:\n  encryptedData:\n    STRIPE_SECRET_KEY: AgC${r.b64(720)}\n  template:\n    type: Opaque\n`,
        ),
      ),
    (r) => C(`spring.datasource.password=ENC(${r.b64(64)})\njasypt.encryptor.algorithm=PBEWITHHMACSHA512ANDAES_256\n`),
  ],
  'base64-text': [
    (r) =>
      C(
        JSON.stringify({
          name: 'README.md',
          path: 'README.md',
          sha: r.hex(40),
          size: 412,
          encoding: 'base64',
          content: b64(
            '# acme-web\n\nThe storefront.\n\n## Development\n\n    npm install\n    npm run dev\n\nOpen http://localhost:3000 in a browser.\n',
          ).replace(/(.{60})/g, '$1\n'),
        }),
      ),
    () =>
      C(
        bash(
          `echo '${b64(JSON.stringify({ logLevel: 'info', features: { search: true, checkout: false }, region: 'eu-west-1', retries: 3 }))}' | base64 -d | jq .`,
        ),
      ),
    () =>
      C(
        `<img alt="logo" src="data:image/svg+xml;base64,${b64('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path d="M12 2L2 7l10 5 10-5-10-5z" fill="#0f766e"/></svg>')}">`,
      ),
    () =>
      C(
        `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: nginx-extra\nbinaryData:\n  robots.txt: ${b64('User-agent: *\nDisallow: /admin/\nSitemap: https://acme.io/sitemap.xml\n')}\n`,
      ),
    () =>
      C(
        write(
          'infra/user-data.b64',
          b64(
            '#!/bin/bash\nset -euo pipefail\napt-get update\napt-get install -y nginx\nsystemctl enable --now nginx\n',
          ),
        ),
      ),
  ],
  'minified-asset': [
    (r) =>
      C(
        `vite v5.3.1 building for production...\n✓ 1432 modules transformed.\ndist/index.html                   0.46 kB │ gzip:  0.30 kB\ndist/assets/index-${r.b64u(8)}.css   24.91 kB │ gzip:  5.12 kB\ndist/assets/index-${r.b64u(8)}.js   143.20 kB │ gzip: 46.10 kB\n✓ built in 3.21s\n`,
      ),
    (r) =>
      C(
        `<script src="/_next/static/chunks/pages/_app-${r.hex(16)}.js" defer=""></script><script src="/_next/static/${r.b64u(21)}/_buildManifest.js" defer=""></script>`,
      ),
    (r) => C(`<link rel="stylesheet" href="/assets/application-${r.hex(64)}.css" data-turbo-track="reload" />`),
    (r) =>
      C(
        JSON.stringify(
          {
            'main.js': `static/js/main.${r.hex(8)}.js`,
            'main.css': `static/css/main.${r.hex(8)}.css`,
            'static/media/logo.svg': `static/media/logo.${r.hex(20)}.svg`,
          },
          null,
          2,
        ),
      ),
  ],
  'version-date': [
    () => C(`## [2.4.0-rc.1+build.517] - 2024-06-11\n### Fixed\n- Retry on 503 (#481)\n\n## [2.3.2] - 2024-05-28\n`),
    () =>
      C(
        write(
          'package.json',
          JSON.stringify(
            {
              name: '@acme/web',
              version: '3.12.0',
              engines: { node: '>=20.11.1' },
              dependencies: { react: '^18.3.1', 'react-dom': '^18.3.1', zod: '3.23.8' },
            },
            null,
            2,
          ),
        ),
      ),
    () => C(`2024-06-11T10:15:02.118+02:00 deploy started (release 20240611.3, build 8841, go1.22.4 linux/amd64)`),
    () => C(bash(`git tag -a v1.9.0-beta.2 -m "beta 2" && npm version 1.9.0-beta.2 --no-git-tag-version`)),
  ],
  'ip-email-host': [
    () =>
      C(
        `Connecting to 10.20.0.15:5432 (db-primary.internal) from 172.31.4.22\nfe80::1ff:fe23:4567:890a%eth0 reachable\n`,
      ),
    () =>
      C(
        `Author: Jane Roe <jane.roe@acme.io>\nCo-authored-by: Omar Haddad <12345678+ohaddad@users.noreply.github.com>\n`,
      ),
    () =>
      C(
        `server {\n    listen 443 ssl http2;\n    server_name api.acme.io api-eu-west-1.acme.io;\n    location / { proxy_pass http://127.0.0.1:8080; }\n}\n`,
      ),
    () => C(bash(`dig +short mx acme.io && ping -c 3 203.0.113.42 && nc -zv smtp.eu.mailgun.org 587`)),
  ],
  'prose-password': [
    () =>
      C(
        `Rotate the database password every 90 days and store it in Vault under secret/app/db; never paste it into tickets or chat.`,
      ),
    () => C(`The token expired, so the deploy failed with 401. Run \`gh auth login\` again and re-run the job.`),
    () =>
      C(
        write(
          'docs/security.md',
          `## Passwords\n\nPasswords must be at least 12 characters. We hash them with argon2id (m=64MiB, t=3, p=4). API keys are shown once at creation and can be revoked from Settings → API keys.\n`,
        ),
      ),
    () =>
      C(
        `I couldn't find the secret key in the repository, which is good — it should come from the environment. Shall I add a check that fails fast when STRIPE_SECRET_KEY is missing?`,
      ),
    () =>
      C(
        `Error: password authentication failed for user "app"\nHint: check that PGPASSWORD is set for the migration job.`,
      ),
  ],
  'secret-named-nonsecret': [
    () =>
      C(
        `auth:\n  password_min_length: 12\n  password_require_symbol: true\n  token_ttl_seconds: 3600\n  refresh_token_rotation: true\n  api_key_header: X-Api-Key\n`,
      ),
    () =>
      C(
        `PASSWORD_HASHERS = [\n    "django.contrib.auth.hashers.Argon2PasswordHasher",\n    "django.contrib.auth.hashers.PBKDF2PasswordHasher",\n]\nSESSION_COOKIE_NAME = "sessionid"\n`,
      ),
    () =>
      C(
        write(
          'src/i18n/en.json',
          JSON.stringify(
            {
              'auth.password.label': 'Password',
              'auth.password.reset': 'Reset your password',
              'auth.token.expired': 'Your session has expired. Please sign in again.',
            },
            null,
            2,
          ),
        ),
      ),
    () =>
      C(
        `envFrom:\n  - secretRef:\n      name: app-env\nsecret_name: prod-db-credentials\ntokenizer: cl100k_base\nkey: user_id\n`,
      ),
    () =>
      C(
        `export interface LoginForm {\n  username: string;\n  password: string;\n  rememberMe: boolean;\n}\nconst token: string | null = null;\nconst MAX_TOKEN_LENGTH = 4096;\n`,
      ),
  ],
  'key-fingerprint': [
    (r) =>
      C(
        `pub   ed25519 2024-01-15 [SC]\n      ${r.HEX(40)}\nuid           [ultimate] Jane Roe <jane@acme.io>\nsub   cv25519 2024-01-15 [E]\n`,
      ),
    (r) => C(`256 SHA256:${r.b64(43)} github.com (ED25519)\n3072 SHA256:${r.b64(43)} gitlab.com (RSA)\n`),
    (r) =>
      C(
        `gpg: Signature made Tue Jun 11 10:15:02 2024 CEST\ngpg:                using EDDSA key ${r.HEX(40)}\ngpg: Good signature from "Jane Roe <jane@acme.io>" [ultimate]\n`,
      ),
    (r) => C(`SHA256 Fingerprint=${Array.from({ length: 32 }, () => r.HEX(2)).join(':')}`),
  ],
  'object-id': [
    (r) => C(`db.orders.find({ _id: ObjectId("${r.hex(24)}"), customer: ObjectId("${r.hex(24)}") })`),
    (r) =>
      C(
        `{"id":"pi_3P${r.an(22)}","object":"payment_intent","customer":"cus_${r.an(14)}","invoice":"in_1P${r.an(22)}","status":"succeeded"}`,
      ),
    (r) => C(`https://docs.google.com/spreadsheets/d/1${r.b64u(43)}/edit#gid=0`),
    (r) =>
      C(
        `Slack channel C${r.uan(10)} (user U${r.uan(10)}), YouTube https://youtu.be/${r.b64u(11)}, wallet 0x${r.hex(40)}`,
      ),
  ],
  'log-output': [
    (r) =>
      C(
        `goroutine 1 [running]:\nmain.main()\n\t/app/cmd/server/main.go:42 +0x${r.hex(3)}\nexit status 2\npanic: runtime error: invalid memory address or nil pointer dereference\n[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x${r.hex(6)}]\n`,
      ),
    () =>
      C(
        `npm warn deprecated inflight@1.0.6: This module is not supported\nadded 1284 packages, and audited 1285 packages in 21s\n\n214 packages are looking for funding\n  run \`npm fund\` for details\n\nfound 0 vulnerabilities\n`,
      ),
    (r) =>
      C(
        `127.0.0.1 - - [11/Jun/2024:10:15:02 +0000] "GET /api/v1/orders?page=2&sort=desc HTTP/1.1" 200 5123 "-" "Mozilla/5.0" rt=0.042 uct="0.000" req_id=${r.hex(32)}`,
      ),
    (r) =>
      C(
        `Traceback (most recent call last):\n  File "/srv/app/.venv/lib/python3.12/site-packages/httpx/_client.py", line 1015, in send\nhttpx.ConnectTimeout: timed out\n<Response [504]> at 0x7f${r.hex(10)}\n`,
      ),
  ],
  'package-reference': [
    (r) =>
      C(
        `require (\n\tgithub.com/acme/internal-lib v0.0.0-20240611101502-${r.hex(12)}\n\tgolang.org/x/sync v0.7.0\n)\n`,
      ),
    () =>
      C(
        `<dependency>\n  <groupId>com.fasterxml.jackson.core</groupId>\n  <artifactId>jackson-databind</artifactId>\n  <version>2.17.1</version>\n</dependency>\n`,
      ),
    () =>
      C(bash(`pip install https://download.pytorch.org/whl/cu121/torch-2.3.1%2Bcu121-cp311-cp311-linux_x86_64.whl`)),
    (r) => C(`"resolved": "git+ssh://git@github.com/acme/design-tokens.git#${r.hex(40)}"`),
  ],
  'css-svg': [
    () =>
      C(
        `:root {\n  --color-primary: #0f766e;\n  --color-surface: #f8fafc;\n  --shadow: 0 1px 2px rgb(15 23 42 / 0.08);\n}\n`,
      ),
    () =>
      C(
        `<svg viewBox="0 0 24 24"><path d="M12 2C6.48 2 2 6.48 2 12s4.48 10 10 10 10-4.48 10-10S17.52 2 12 2zm-1 17.93c-3.95-.49-7-3.85-7-7.93 0-.62.08-1.21.21-1.79L9 15v1c0 1.1.9 2 2 2v1.93z"/></svg>`,
      ),
    () =>
      C(
        write(
          'tailwind.config.js',
          `module.exports = {\n  theme: {\n    extend: {\n      colors: { brand: { 50: '#f0fdfa', 500: '#14b8a6', 900: '#134e4a' } },\n    },\n  },\n};\n`,
        ),
      ),
  ],
  'cache-key': [
    (r) => C(`Cache restored successfully\nCache restored from key: Linux-pnpm-store-${r.hex(64)}\n`),
    (r) =>
      C(
        `• Running build in 14 packages\n@acme/ui:build: cache hit, replaying logs ${r.hex(16)}\n@acme/web:build: cache miss, executing ${r.hex(16)}\n`,
      ),
    () =>
      C(
        `- uses: actions/cache@v4\n  with:\n    path: ~/.cache/pip\n    key: ${gha('runner.os')}-pip-${gha("hashFiles('**/requirements*.txt')")}\n    restore-keys: ${gha('runner.os')}-pip-\n`,
      ),
    (r) => C(`INFO: From Compiling src/lib.rs: remote cache hit for action digest ${r.hex(64)}/${r.int(200, 900)}\n`),
  ],
  'etag-header': [
    (r) =>
      C(
        `HTTP/2 304\netag: W/"${r.hex(40)}"\ncache-control: public, max-age=0, must-revalidate\nx-vercel-id: fra1::${r.lan(5)}-${r.dig(13)}-${r.hex(12)}\n`,
      ),
    (r) => C(bash(`curl -sI https://cdn.acme.io/app.js -H 'If-None-Match: "${r.hex(32)}"'`)),
    (r) =>
      C(
        `{"ETag": "\\"${r.hex(32)}-${r.int(2, 9)}\\"", "Key": "builds/app-1.4.2.tar.gz", "VersionId": "${r.b64u(32)}"}`,
      ),
  ],
  'git-internals': [
    (r) =>
      C(
        `Counting objects: 100% (42/42), done.\nWriting objects: 100% (24/24), 8.31 KiB | 8.31 MiB/s, done.\nremote: Resolving deltas: 100% (17/17), completed with 9 local objects.\nTo github.com:acme/web.git\n   ${r.hex(7)}..${r.hex(7)}  feat/search -> feat/search\n`,
      ),
    (r) => C(bash(`ls .git/objects/pack/ && git verify-pack -v .git/objects/pack/pack-${r.hex(40)}.idx | head`)),
    (r) => C(`dangling commit ${r.hex(40)}\ndangling blob ${r.hex(40)}\nmissing tree ${r.hex(40)}\n`),
  ],
  'oauth-public-params': [
    (r) =>
      C(
        `https://login.acme.io/oauth2/authorize?response_type=code&client_id=${r.lan(20)}&redirect_uri=https%3A%2F%2Fapp.acme.io%2Fcallback&scope=openid%20profile&state=${r.b64u(32)}&code_challenge=${r.b64u(43)}&code_challenge_method=S256&nonce=${r.b64u(22)}`,
      ),
    () =>
      C(
        JSON.stringify({
          issuer: 'https://login.acme.io',
          authorization_endpoint: 'https://login.acme.io/oauth2/authorize',
          token_endpoint: 'https://login.acme.io/oauth2/token',
          jwks_uri: 'https://login.acme.io/.well-known/jwks.json',
          response_types_supported: ['code'],
          code_challenge_methods_supported: ['S256'],
        }),
      ),
    (r) =>
      C(
        `window.__CONFIG__ = { auth0Domain: 'acme.eu.auth0.com', auth0ClientId: '${r.an(32)}', audience: 'https://api.acme.io' };`,
      ),
  ],
};

// ── held-out rows for the classes of issue 30 ─────────────────────────────────────────────────────────────
// Written before the sanitizer was changed for these classes and never tuned on: the figure on them is the
// honest one for the fixes. Generated after every row above, so the older rows keep their values.

const SCANNER_CLASS_SECRET_KINDS: Record<string, Maker[]> = {
  'url-userinfo-holdout': [
    (r) => {
      const p = r.upw();
      return S(
        bash(
          `docker run --rm -e PGURL=postgresql://analyst:${p}@warehouse.acme.internal:6432/dw?application_name=etl acme/etl:3`,
        ),
        p,
      );
    },
    (r) => {
      const p = r.hex(32);
      return S(`[remote "mirror"]\n\turl = https://${r.hex(10)}:${p}@git.acme.io/mirror/web.git\n`, p);
    },
    (r) => {
      const p = r.upw();
      return S(write('/srv/celery/settings.py', `BROKER = "amqps://worker:${p}@mq.acme.io:5671/jobs"\n`), p);
    },
    (r) => {
      const p = r.an(18);
      return S(`cache:\n  url: redis://:${p}@10.2.0.5:6379/3\n`, p);
    },
    (r) => {
      const p = r.upw();
      return S(bash(`curl -T release.tgz "ftp://publisher:${p}@ftp.acme.io/pub/releases/"`), p);
    },
    (r) => {
      const p = r.an(22);
      return S(`MYSQL_DSN=mysql://shop_rw:${p}@tcp-mysql.acme.internal:3307/shop?parseTime=true&loc=UTC`, p);
    },
  ],
  'curl-user-quoted-holdout': [
    (r) => {
      const p = `${r.cap(r.word())}~${r.dig(2)}!${r.an(5)}`;
      return S(bash(`curl -fsS --user "release-bot:${p}" -F file=@dist.zip https://upload.acme.io/api/files`), p);
    },
    (r) => {
      const p = `${r.an(6)}!${r.an(6)}~`;
      return S(bash(`curl -u 'svc:${p}' https://grafana.acme.io/api/dashboards/home`), p);
    },
    (r) => {
      const p = r.pw();
      return S(bash(`wget --http-password='${p}' --http-user=archiver https://archive.acme.io/2023.tar`), p);
    },
    (r) => {
      const p = `${r.an(8)}#${r.dig(3)}`;
      return S(bash(`curl --user="jenkins:${p}" -X POST https://ci.acme.io/job/deploy/build`), p);
    },
  ],
  'auth-header-schemes-holdout': [
    (r) => {
      const c = b64(`${r.word()}:${r.pw()}`);
      return S(bash(`curl -s -H 'Authorization: Basic ${c}' https://es.acme.io:9200/_cat/indices`), c);
    },
    (r) => {
      const t = r.an(40);
      return S(bash(`curl --header "Authorization: Token token=${t}" https://api.acme.io/v2/incidents`), t);
    },
    (r) => {
      const t = r.b64u(48);
      return S(
        `HTTP request sent:\nPUT /objects/42 HTTP/1.1\nHost: store.acme.io\nAuthorization: Bearer ${t}\nContent-Length: 12\n`,
        t,
      );
    },
    (r) => {
      const t = r.hex(40);
      return S(
        write('/tmp/headers.conf', `header = "Accept: application/json"\nheader = "Authorization: Token ${t}"\n`),
        t,
      );
    },
  ],
  'k8s-secret-variants-holdout': [
    (r) => {
      const a = b64(r.pw());
      return S(
        `---\nkind: Secret\napiVersion: v1\nmetadata:\n\tname: smtp\n\tnamespace: mail\ndata:\n\tsmtp-password: ${a}\n`,
        a,
      );
    },
    (r) => {
      const a = b64(r.an(30));
      const b = b64(r.pw());
      return S(
        `apiVersion: v1\nkind: Secret\nmetadata:\n  name: oauth\ndata:\n  # OAuth client\n  client-id: ${a}\n  # keep in sync with the IdP\n  client-secret: ${b}\n`,
        a,
        b,
      );
    },
    (r) => {
      const a = b64(r.pw());
      return S(
        JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'ldap' }, data: { bindpw: a } }, null, 2),
        a,
      );
    },
    (r) => {
      const t = r.an(36);
      return S(
        `apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: a\n  stringData:\n    # note\n    webhook: ${t}\n`,
        t,
      );
    },
  ],
  'sourcegraph-token-holdout': [
    (r) => {
      const t = `sgp_${r.hex(40)}`;
      return S(bash(`SRC_ENDPOINT=https://sourcegraph.acme.io SRC_ACCESS_TOKEN=${t} src batch preview -f spec.yml`), t);
    },
    (r) => {
      const t = `sgp_${r.hex(16)}_${r.hex(40)}`;
      return S(write('/home/dev/.vscode/settings.json', `{\n  "sourcegraph.accessToken": "${t}"\n}\n`), t);
    },
    (r) => {
      const t = `sgp_local_${r.hex(40)}`;
      return S(`token=${t}`, t);
    },
  ],
  'vendor-named-assignment-holdout': [
    (r) => {
      const t = r.uuid();
      return S(`include common.mk\nSNYK_TOKEN ::= ${t}\n.PHONY: test\n`, t);
    },
    (r) => {
      const t = r.hex(40);
      return S(`ifeq ($(CI),)\n  SONAR_LOGIN ?= ${t}\nendif\n`, t);
    },
    (r) => {
      const t = r.uuid();
      return S(write('/srv/crm/config.toml', `[crm]\nhubspot_api_key = "${t}"\n`), t);
    },
    (r) => {
      const t = r.hex(40);
      return S(bash(`SONAR_LOGIN=${t} ./gradlew sonarqube`), t);
    },
    (r) => {
      const t = r.uuid();
      return S(`env:\n  HUBSPOT_DEV_KEY: ${t}\n`, t);
    },
    (r) => {
      const t = r.an(32);
      return S(`NPM_AUTH_TOKEN :::= ${t}`, t);
    },
  ],
  'xml-config-value-holdout': [
    (r) => {
      const p = `${r.an(5)}%${r.an(2)}${r.dig(2)}`;
      return S(
        write(
          '/home/dev/.nuget/NuGet/NuGet.Config',
          `<configuration>\n  <packageSourceCredentials>\n    <github>\n      <add key="Username" value="dev" />\n      <add key="ClearTextPassword" value="${p}" />\n    </github>\n  </packageSourceCredentials>\n</configuration>\n`,
        ),
        p,
      );
    },
    (r) => {
      const p = `%${r.an(4)}%${r.an(4)}%`;
      return S(`<add key="ClearTextPassword" value="${p}" />`, p);
    },
    (r) => {
      const t = r.an(28);
      return S(`<add key="SmtpPassword" value="${t}" xdt:Transform="SetAttributes" xdt:Locator="Match(key)" />`, t);
    },
    (r) => {
      const t = r.an(24);
      return S(`<param value="${t}" name="apiToken" />`, t);
    },
  ],
  'vendor-prefixed-id-holdout': [
    (r) => {
      const id = `su${r.an(12)}`;
      return S(bash(`export SUMO_ACCESS_ID=${id} SUMO_ACCESS_KEY=${r.an(64)} && terraform plan`), id);
    },
    (r) => {
      const id = `su${r.an(12)}`;
      return S(`sumologic:\n  accessId: ${id}\n  endpoint: https://api.sumologic.com/api/\n`, id);
    },
    (r) => {
      const id = `su${r.an(12)}`;
      return S(`SUMOLOGIC_ACCESS_ID="${id}"`, id);
    },
  ],
};

const SCANNER_CLASS_CLEAN_KINDS: Record<string, Maker[]> = {
  'class-lookalikes-holdout': [
    () => C(bash('curl -u "$JIRA_USER:$JIRA_TOKEN" https://acme.atlassian.net/rest/api/3/myself')),
    () => C('SONAR_HOST_URL ?= https://sonar.acme.io\nSONAR_PROJECT := acme-web'),
    () => C('<add key="ClearTextPassword" value="%FEED_PAT%" />'),
    () => C('{"apiVersion": "v1", "kind": "ConfigMap", "data": {"theme": "dark"}}'),
    () => C(bash('git remote set-url origin ssh://git@github.com/acme/web.git')),
    () => C('Authorization: Bearer ${ACCESS_TOKEN}'),
  ],
};

// A second held-out set for the same classes, written after the first one had been measured (and then used to
// fix the JSON-escaped quoting it exposed): measured once, not tuned on.
const SCANNER_CLASS_SECRET_KINDS_2: Record<string, Maker[]> = {
  'url-userinfo-holdout-2': [
    (r) => {
      const p = r.an(20);
      return S(
        write(
          '/srv/app/config/database.yml',
          `production:\n  url: "postgresql://app:${p}@db-primary.acme.internal/app_prod?pool=20"\n`,
        ),
        p,
      );
    },
    (r) => {
      const p = r.hex(24);
      return S(bash(`npm config set registry https://npm-ci:${p}@npm.acme.io/repository/npm-group/`), p);
    },
    (r) => {
      const p = r.upw();
      return S(
        `2024-05-02T10:11:12Z WARN retrying connection to redis://cache-user:${p}@10.1.4.20:6379/1 (attempt 3)`,
        p,
      );
    },
  ],
  'curl-user-quoted-holdout-2': [
    (r) => {
      const p = `${r.an(7)}!${r.dig(2)}~`;
      return S(
        write(
          '/home/dev/scripts/publish.sh',
          `#!/bin/sh\ncurl --fail --user "maven:${p}" --upload-file target/app.jar https://repo.acme.io/releases/app.jar\n`,
        ),
        p,
      );
    },
    (r) => {
      const p = `${r.cap(r.word())}^${r.dig(3)}~${r.an(3)}`;
      return S(bash(`curl -sku 'admin:${p}' https://10.0.0.5:9443/api/v1/health`), p);
    },
    (r) => {
      const p = r.pw();
      return S(bash(`wget --no-check-certificate --user=ops --password="${p}" https://intranet.acme.io/export.csv`), p);
    },
  ],
  'auth-header-schemes-holdout-2': [
    (r) => {
      const t = r.an(48);
      return S(
        bash(
          `curl -sS -H "Content-Type: application/json" -H "Authorization: Bot ${t}" https://discord.com/api/v10/users/@me`,
        ),
        t,
      );
    },
    (r) => {
      const c = b64(`${r.word()}@acme.io:${r.an(24)}`);
      return S(write('/home/dev/.config/http/headers', `Authorization: Basic ${c}\nX-Client: cli\n`), c);
    },
    (r) => {
      const t = r.b64u(40);
      return S(`requests.get(url, headers={'authorization': 'GenieKey ${t}'})`, t);
    },
  ],
  'k8s-secret-variants-holdout-2': [
    (r) => {
      const a = b64(r.pw());
      return S(
        write(
          '/srv/k8s/redis-secret.yaml',
          `apiVersion: v1\nkind: Secret\nmetadata:\n\tname: redis\ntype: Opaque\ndata:\n\t# auth for redis\n\tredis-password: ${a}\n`,
        ),
        a,
      );
    },
    (r) => {
      const t = r.an(40);
      return S(
        `$ kubectl get secret api -o json\n${JSON.stringify({ apiVersion: 'v1', data: { 'api-token': b64(t) }, kind: 'Secret', metadata: { name: 'api' }, type: 'Opaque' }, null, 4)}\n`,
        b64(t),
      );
    },
    (r) => {
      const p = r.upw();
      return S(
        `---\n# app secrets\napiVersion: v1\nkind: Secret\nmetadata:\n  name: app\nstringData:\n  # database\n  DATABASE_PASSWORD: ${p}\n---\napiVersion: apps/v1\nkind: Deployment\n`,
        p,
      );
    },
  ],
  'sourcegraph-token-holdout-2': [
    (r) => {
      const t = `sgp_${r.hex(16)}_${r.hex(40)}`;
      return S(
        bash(`curl -H "Authorization: token ${t}" https://sourcegraph.acme.io/.api/search/stream?q=repo:acme`),
        t,
      );
    },
    (r) => {
      const t = `sgp_${r.hex(40)}`;
      return S(`- name: SRC_ACCESS_TOKEN\n  value: ${t}\n`, t);
    },
    (r) => {
      const t = `sgd_${r.hex(64)}`;
      return S(`gateway access token: ${t}`, t);
    },
  ],
  'vendor-named-assignment-holdout-2': [
    (r) => {
      const t = r.uuid();
      return S(write('/home/dev/project/Makefile', `SNYK_API_TOKEN ?= ${t}\nsecurity:\n\tsnyk test\n`), t);
    },
    (r) => {
      const t = r.hex(40);
      return S(`sonar.host.url=https://sonar.acme.io\nsonar.login=${t}\nsonar.projectKey=acme-api\n`, t);
    },
    (r) => {
      const t = r.uuid();
      return S(`const client = new Client({ hubspotApiKey: '${t}' });`, t);
    },
  ],
  'xml-config-value-holdout-2': [
    (r) => {
      const p = `${r.an(3)}%${r.an(6)}`;
      return S(
        bash(
          `dotnet nuget update source acme --configfile nuget.config && sed -i 's|<add key="ClearTextPassword" value=".*" />|<add key="ClearTextPassword" value="${p}" />|' nuget.config`,
        ),
        p,
      );
    },
    (r) => {
      const t = r.an(32);
      return S(
        `<configuration>\n  <appSettings>\n    <add key="Twilio:AuthToken" value="${t}" />\n  </appSettings>\n</configuration>`,
        t,
      );
    },
    (r) => {
      const p = `${r.an(5)}%${r.dig(2)}`;
      return S(`<Credential name="ClearTextPassword" value='${p}'/>`, p);
    },
  ],
  'vendor-prefixed-id-holdout-2': [
    (r) => {
      const id = `su${r.an(12)}`;
      return S(bash(`export SUMOLOGIC_ACCESSID="${id}" && terraform apply -auto-approve`), id);
    },
    (r) => {
      const id = `su${r.an(12)}`;
      return S(
        write('/srv/collector/user.properties', `name = web-01\naccessid = ${id}\naccesskey = ${r.an(64)}\n`),
        id,
      );
    },
    (r) => {
      const id = `su${r.an(12)}`;
      return S(`{\n  "sumo_access_id": "${id}",\n  "sumo_endpoint": "https://api.us2.sumologic.com"\n}`, id);
    },
  ],
};

// A third held-out set, written after the second had been measured and used for one fix: measured once, not
// tuned on. Three rows per class, in contexts the other sets do not use.
const SCANNER_CLASS_SECRET_KINDS_3: Record<string, Maker[]> = {
  'url-userinfo-holdout-3': [
    (r) => {
      const p = r.an(16);
      return S(
        bash(`psql "postgres://readonly:${p}@analytics.acme.internal:5432/events" -c 'select count(*) from events'`),
        p,
      );
    },
    (r) => {
      const p = r.upw();
      return S(
        write(
          '/srv/app/.env.production',
          `QUEUE_URL=amqp://publisher:${p}@mq-1.acme.internal:5672/events\nLOG_LEVEL=warn\n`,
        ),
        p,
      );
    },
    (r) => {
      const p = r.hex(20);
      return S(
        `Cloning into 'infra'...\nfatal: unable to access 'https://ci-bot:${p}@git.acme.io/ops/infra.git/': Could not resolve host`,
        p,
      );
    },
  ],
  'curl-user-quoted-holdout-3': [
    (r) => {
      const p = `${r.an(5)}~${r.an(4)}!${r.dig(2)}`;
      return S(
        `#!/usr/bin/env bash\nset -euo pipefail\ncurl --silent --show-error --user 'registry:${p}' https://registry.acme.io/v2/_catalog | jq .\n`,
        p,
      );
    },
    (r) => {
      const p = `${r.cap(r.word())}!${r.dig(4)}`;
      return S(bash(`curl -X PUT -u "couch:${p}" http://127.0.0.1:5984/orders`), p);
    },
    (r) => {
      const p = r.an(14);
      return S(bash(`wget --proxy-user=corp --proxy-password=${p} -e use_proxy=yes https://example.org/pkg.tgz`), p);
    },
  ],
  'auth-header-schemes-holdout-3': [
    (r) => {
      const t = r.b64u(43);
      return S(
        bash(`curl -s https://api.acme.io/v3/me -H 'Accept: application/json' -H 'Authorization: Bearer ${t}'`),
        t,
      );
    },
    (r) => {
      const c = b64(`svc-report:${r.pw()}`);
      return S(
        `< HTTP/1.1 401 Unauthorized\n> GET /reports HTTP/1.1\n> Host: bi.acme.io\n> Authorization: Basic ${c}\n`,
        c,
      );
    },
    (r) => {
      const t = r.hex(40);
      return S(write('/home/dev/.config/gh-proxy/headers.txt', `authorization: token ${t}\n`), t);
    },
  ],
  'k8s-secret-variants-holdout-3': [
    (r) => {
      const a = b64(r.pw());
      const b = b64(r.word());
      return S(
        `kind: Secret\napiVersion: v1\nmetadata:\n\tname: ftp\n\tlabels:\n\t\tapp: ftp\ndata:\n\tuser: ${b}\n\tpass: ${a}\n`,
        a,
        b,
      );
    },
    (r) => {
      const t = r.an(32);
      return S(
        JSON.stringify({
          kind: 'List',
          apiVersion: 'v1',
          items: [{ kind: 'Secret', metadata: { name: 'hook' }, stringData: { url: `https://hooks.acme.io/${t}` } }],
        }),
        t,
      );
    },
    (r) => {
      const a = b64(r.an(24));
      return S(
        `apiVersion: v1\nkind: Secret\nmetadata:\n  name: gpg\ndata:\n  # exported with gpg --export-secret-keys\n  # do not commit\n  passphrase: ${a}\n`,
        a,
      );
    },
  ],
  'sourcegraph-token-holdout-3': [
    (r) => {
      const t = `sgp_local_${r.hex(40)}`;
      return S(bash(`src login http://localhost:7080 --token ${t}`), t);
    },
    (r) => {
      const t = `sgp_${r.hex(16)}_${r.hex(40)}`;
      return S(`{"mcpServers":{"sourcegraph":{"env":{"SRC_TOKEN":"${t}"}}}}`, t);
    },
    (r) => {
      const t = `slk_${r.hex(64)}`;
      return S(`license key token ${t} rotated`, t);
    },
  ],
  'vendor-named-assignment-holdout-3': [
    (r) => {
      const t = r.uuid();
      return S(`# tools.mk\nexport SNYK_TOKEN := ${t}\n`, t);
    },
    (r) => {
      const t = r.hex(40);
      return S(bash(`./gradlew sonar -Dsonar.login=${t} -Dsonar.host.url=https://sonar.acme.io`), t);
    },
    (r) => {
      const t = r.uuid();
      return S(`[default]\nhubspot_access_key = '${t}'\n`, t);
    },
  ],
  'xml-config-value-holdout-3': [
    (r) => {
      const p = `${r.an(4)}%${r.an(4)}!`;
      return S(
        `<?xml version="1.0"?>\n<configuration>\n  <packageSourceCredentials>\n    <internal>\n      <add key="Username" value="build" />\n      <add key="ClearTextPassword" value="${p}" />\n    </internal>\n  </packageSourceCredentials>\n</configuration>`,
        p,
      );
    },
    (r) => {
      const t = r.an(30);
      return S(`<add key="SendGridApiKey" value="${t}" />`, t);
    },
    (r) => {
      const p = r.pw();
      return S(`<Parameter Name="DbPassword" Value="${p}" />`, p);
    },
  ],
  'vendor-prefixed-id-holdout-3': [
    (r) => {
      const id = `su${r.an(12)}`;
      return S(`SUMO_ACCESSID=${id}\nSUMO_ACCESSKEY=${r.an(64)}\n`, id);
    },
    (r) => {
      const id = `su${r.an(12)}`;
      return S(
        `resource "sumologic_collector" "c" {}\nprovider "sumologic" {\n  access_id  = "${id}"\n  access_key = var.sumo_key\n}`,
        id,
      );
    },
    (r) => {
      const id = `su${r.an(12)}`;
      return S(write('/etc/sumo/sumo.conf', `{\n  "collector": "web",\n  "sumologic_access_id": "${id}"\n}\n`), id);
    },
  ],
};

/** The held-out corpus: the same rows for the same seed. Throws if a listed secret is missing from its text. */
export function buildHoldoutCorpus(seed: number = HOLDOUT_SEED): HoldoutRow[] {
  const r = new Rand(seed);
  const rows: HoldoutRow[] = [];
  const add = (label: HoldoutLabel, kinds: Record<string, Maker[]>): void => {
    for (const [kind, makers] of Object.entries(kinds)) {
      makers.forEach((make, i) => {
        const { text, secrets } = make(r);
        if (label === 'secret' && secrets.length === 0)
          throw new Error(`holdout ${kind} #${i}: a secret row lists no secret`);
        for (const s of secrets)
          if (s.length === 0 || !text.includes(s))
            throw new Error(`holdout ${kind} #${i}: a listed secret is not in the row's text`);
        rows.push({ text, label, kind, secrets: [...new Set(secrets)] });
      });
    }
  };
  add('secret', SECRET_KINDS);
  add('clean', CLEAN_KINDS);
  add('secret', SCANNER_CLASS_SECRET_KINDS);
  add('clean', SCANNER_CLASS_CLEAN_KINDS);
  add('secret', SCANNER_CLASS_SECRET_KINDS_2);
  add('secret', SCANNER_CLASS_SECRET_KINDS_3);
  return rows;
}
