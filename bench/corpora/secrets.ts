/**
 * hookwise's own labelled secret corpus: the independent ground truth the sanitizer is graded against
 * (`hookwise sanitize --eval builtin`, and the `sanitize.miss-rate` / `sanitize.false-positive-rate` bench rows).
 *
 * The repository holds no literal secret (GitHub push protection and hookwise's own `scan` would flag it, and a
 * corpus of real-looking literals is a leak waiting to happen): every row is built at run time from a template
 * and a seeded PRNG (bench/prng.ts), so the same seed gives the same corpus, byte for byte, everywhere. Values
 * have the prefix, length and alphabet their provider documents (the `doc` of each kind names the page the
 * format was checked against); none of them is, or was, a live credential.
 *
 * Each row is `{text, label, kind, secrets}`:
 *   - `text` is what an AI coding agent's tool call holds: a Bash command, a file written by Write/Edit, a config
 *     file, a JSON tool input, a log excerpt or prose;
 *   - `label` is `secret` (something in it must be redacted) or `clean` (nothing in it may be);
 *   - `kind` names what the row is about (`github-pat`, `url-password`, `k8s-secret-data`, `placeholder-literal`,
 *     `git-sha`, …; a kind belongs to one label);
 *   - `secrets` lists the exact substrings that must NOT survive sanitization (empty for clean rows). Where a
 *     sanitizer could plausibly cut a value short (a password holding `#`, `?`, `@` or a blank), the pieces past
 *     the cut are listed too, so a half-redacted password does not pass. What is listed is the credential
 *     itself: the user name of `user:pass`, a Twilio account SID or the constant header line of an OpenSSH key
 *     are not listed (redacting them is allowed, not required).
 *
 * Clean rows are hard negatives: placeholders, references to secrets, identifiers, digests, public keys and
 * prose that a sanitizer must leave alone, many of them random-looking or next to a secret-sounding key.
 */
import { prng } from '../prng.js';

export type SecretLabel = 'secret' | 'clean';

export interface SecretCorpusRow {
  text: string;
  label: SecretLabel;
  kind: string;
  /** Exact substrings of `text` that must be gone from the sanitized text; empty for clean rows. */
  secrets: string[];
}

/** The corpus's seed: change it only on purpose (every figure measured on the corpus changes with it). */
export const SECRET_CORPUS_SEED = 0x5ec2e7;

// ── generator ──────────────────────────────────────────────────────────────────────────────────────────

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';
const ALPHABETS = {
  b62: UPPER + LOWER + DIGITS,
  b64: `${UPPER}${LOWER}${DIGITS}+/`,
  b64url: `${UPPER}${LOWER}${DIGITS}-_`,
  hex: '0123456789abcdef',
  HEX: '0123456789ABCDEF',
  upper: UPPER,
  lower: LOWER,
  letters: UPPER + LOWER,
  digits: DIGITS,
  upperDigits: UPPER + DIGITS,
  lowerDigits: LOWER + DIGITS,
  /** AWS access key ids: RFC 4648 base32. */
  base32: `${UPPER}234567`,
  /** age keys (Bech32), upper case as age prints secret keys. */
  bech32Upper: 'QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L',
  bech32: 'qpzry9x8gf2tvdw0s3jn54khce6mua7l',
  /** Kubernetes generated-name suffixes (no vowels, no look-alikes). */
  k8s: 'bcdfghjklmnpqrstvwxz2456789',
  /** Nix store hashes (base32 without e, o, u, t). */
  nix: '0123456789abcdfghijklmnpqrsvwxyz',
  /** Crockford base32 (ULIDs). */
  crockford: '0123456789ABCDEFGHJKMNPQRSTVWXYZ',
  /** Generated passwords: letters, digits and the symbols that need no quoting in a URL, a shell word or JSON. */
  pw: `${UPPER}${LOWER}${DIGITS}!*^-_.~+=`,
  /** Django's get_random_secret_key() alphabet, without `$` (kept out of shell-ish contexts). */
  django: `${LOWER}${DIGITS}!@#%^&*(-_=+)`,
} as const;
type Alphabet = keyof typeof ALPHABETS;

const WORDS = [
  'harbor',
  'falcon',
  'maple',
  'orbit',
  'tundra',
  'copper',
  'velvet',
  'summit',
  'lantern',
  'quartz',
  'meadow',
  'ember',
  'glacier',
  'cobalt',
  'saffron',
  'willow',
  'thunder',
  'pepper',
  'nimbus',
  'granite',
  'juniper',
  'marble',
  'otter',
  'canyon',
];

/** The corpus's random source: every value of every row comes from here, in a fixed order. */
export class Gen {
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
  /** `n` characters of an alphabet; with n ≥ 3, every class it has (lower, upper, digit) occurs at least once. */
  str(n: number, alphabet: Alphabet = 'b62'): string {
    const chars = ALPHABETS[alphabet];
    const out = Array.from({ length: n }, () => chars[Math.floor(this.next() * chars.length)]!);
    if (n >= 3) {
      [/[a-z]/, /[A-Z]/, /[0-9]/]
        .filter((re) => re.test(chars))
        .forEach((re, i) => {
          if (out.some((c) => re.test(c))) return;
          const options = [...chars].filter((c) => re.test(c));
          out[(i * 7 + 1) % n] = options[Math.floor(this.next() * options.length)]!;
        });
    }
    return out.join('');
  }
  hex(n: number): string {
    return this.str(n, 'hex');
  }
  /** n digits, the first not 0. */
  digits(n: number): string {
    return `${this.int(1, 9)}${this.str(n - 1, 'digits')}`.slice(0, n);
  }
  uuid(): string {
    const h = this.hex(32);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${this.pick(['8', '9', 'a', 'b'])}${h.slice(17, 20)}-${h.slice(20)}`;
  }
  word(): string {
    return this.pick(WORDS);
  }
  Word(): string {
    const w = this.word();
    return w[0]!.toUpperCase() + w.slice(1);
  }
  /** A password as people and generators make them: `Harbor2291!`, 20 random symbols, a passphrase, 24 alphanumerics. */
  password(): string {
    switch (this.int(0, 3)) {
      case 0:
        return `${this.Word()}${this.digits(this.int(2, 4))}${this.pick(['!', '*', '.', '-', '_', '+'])}`;
      case 1:
        return this.str(this.int(16, 28), 'pw');
      case 2:
        return `${this.word()}-${this.word()}-${this.word()}-${this.int(2, 99)}`;
      default:
        return this.str(this.int(20, 32), 'b62');
    }
  }
  /** An opaque bearer token of no known provider. */
  opaque(): string {
    switch (this.int(0, 3)) {
      case 0:
        return this.str(this.int(32, 48), 'b62');
      case 1:
        return this.str(43, 'b64url');
      case 2:
        return this.hex(this.pick([40, 64]));
      default:
        return `${this.str(8, 'lowerDigits')}.${this.str(40, 'b62')}`;
    }
  }
  /** A 12-digit AWS account id. */
  account(): string {
    return this.digits(12);
  }
  host(): string {
    return this.pick([
      'db.internal',
      'db-prod.acme.internal',
      '10.0.3.7',
      'pg-main.acme.io',
      'postgres.svc.cluster.local',
      'localhost',
    ]);
  }
  isoTime(): string {
    const d = new Date(
      Date.UTC(2024, this.int(0, 11), this.int(1, 28), this.int(0, 23), this.int(0, 59), this.int(0, 59)),
    );
    return d.toISOString().replace('.000Z', 'Z');
  }
}

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');
const b64url = (text: string): string => Buffer.from(text, 'utf8').toString('base64url');

/** JSON inputs of the agent's tools, as a hook receives them. */
const bashTool = (command: string, description: string): string => JSON.stringify({ command, description });
const writeTool = (file_path: string, content: string): string => JSON.stringify({ file_path, content });
const editTool = (file_path: string, old_string: string, new_string: string): string =>
  JSON.stringify({ file_path, old_string, new_string });

/** Built from parts so that no source line spells a private-key armour line. */
const PRIVATE_KEY = ['PRIVATE', 'KEY'].join(' ');
const armour = (label: string, body: readonly string[]): string =>
  [`-----BEGIN ${label}-----`, ...body, `-----END ${label}-----`].join('\n');

interface Pem {
  label: string;
  body: string[];
  /** The body lines that hold key material (an OpenSSH key's first line is a constant header). */
  secret: string[];
  text: string;
}
function pemKey(g: Gen, kind: 'rsa' | 'ec' | 'openssh' | 'pkcs8' | 'pkcs8-rsa'): Pem {
  let label: string;
  let body: string[];
  let secret: string[];
  if (kind === 'rsa') {
    label = `RSA ${PRIVATE_KEY}`;
    const n = g.int(12, 25);
    body = [
      `MIIEow${g.pick(['IBAAKCAQEA', 'IBAAKCAQEAx'])}${g.str(48, 'b64')}`.slice(0, 64),
      ...Array.from({ length: n - 2 }, () => g.str(64, 'b64')),
      `${g.str(g.int(20, 60), 'b64')}==`,
    ];
    secret = body;
  } else if (kind === 'ec') {
    label = `EC ${PRIVATE_KEY}`;
    body = [
      `MHcCAQEEI${g.str(55, 'b64')}`,
      `${g.str(20, 'b64')}oAoGCCqGSM49AwEHoUQDQgAE${g.str(20, 'b64')}`,
      `${g.str(42, 'b64')}==`,
    ];
    secret = body;
  } else if (kind === 'openssh') {
    label = `OPENSSH ${PRIVATE_KEY}`;
    body = [
      'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW',
      ...Array.from({ length: g.int(3, 5) }, () => g.str(70, 'b64')),
      `${g.str(g.int(10, 40), 'b64')}=`,
    ];
    secret = body.slice(1);
  } else {
    label = PRIVATE_KEY;
    // PKCS #8 of an RSA key (26 lines, as gcloud writes them) or of a P-256 key (3 lines)
    const rsa = kind === 'pkcs8-rsa';
    const n = rsa ? 26 : 3;
    const first = rsa
      ? `MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ${g.str(14, 'b64')}`
      : `MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg${g.str(16, 'b64')}`;
    body = [
      first,
      ...Array.from({ length: n - 2 }, () => g.str(64, 'b64')),
      `${g.str(rsa ? g.int(8, 56) : 24, 'b64')}`,
    ];
    secret = body;
  }
  return { label, body, secret, text: armour(label, body) };
}

// ── kinds ──────────────────────────────────────────────────────────────────────────────────────────────

interface Made {
  text: string;
  secrets: string[];
}
type SecretTemplate = (g: Gen) => Made;
type CleanTemplate = (g: Gen) => string;

interface SecretKind {
  kind: string;
  /** Where the format was checked (provider documentation; for structural kinds the tool's manual or RFC). */
  doc: string;
  rows: SecretTemplate[];
}
interface CleanKind {
  kind: string;
  rows: CleanTemplate[];
}

/** One row per context: a fresh token from `make` placed in each context. */
function tokenRows(
  make: (g: Gen) => string,
  contexts: ReadonlyArray<(token: string, g: Gen) => string>,
): SecretTemplate[] {
  return contexts.map((context) => (g) => {
    const token = make(g);
    return { text: context(token, g), secrets: [token] };
  });
}

const ghp = (g: Gen): string => `ghp_${g.str(36)}`;
const awsKeyId = (g: Gen, prefix = 'AKIA'): string => `${prefix}${g.str(16, 'base32')}`;
const awsSecret = (g: Gen): string => g.str(40, 'b64');
const awsSession = (g: Gen): string => `IQoJb3JpZ2luX2Vj${g.str(g.int(300, 420), 'b64')}`;
const npmToken = (g: Gen): string => `npm_${g.str(36)}`;
const pypiToken = (g: Gen): string => `pypi-AgEIcHlwaS5vcmc${g.str(g.int(120, 160), 'b64url')}`;

const PROVIDER_KINDS: SecretKind[] = [
  {
    kind: 'github-pat',
    doc: 'https://github.blog/changelog/2021-03-31-authentication-token-format-updates-are-generally-available/',
    rows: tokenRows(ghp, [
      (t) => `export GITHUB_TOKEN=${t}\ngh repo clone acme/api && cd api && gh pr list --state open`,
      (t) => `git clone https://${t}@github.com/acme/infra.git /tmp/infra`,
      (t) =>
        writeTool('/home/dev/acme/web/.env', `NODE_ENV=development\nPORT=3000\nGITHUB_TOKEN=${t}\nLOG_LEVEL=debug\n`),
      (t) =>
        `curl -s -H "Authorization: token ${t}" "https://api.github.com/repos/acme/web/pulls?state=open&per_page=50" | jq '.[].title'`,
      (t) => bashTool(`echo ${t} | gh auth login --with-token`, 'Log gh in with the token the user pasted'),
      (t) =>
        `name: release\non: push\njobs:\n  publish:\n    runs-on: ubuntu-latest\n    env:\n      GH_TOKEN: ${t}\n    steps:\n      - uses: actions/checkout@v4\n      - run: gh release create v1.4.0 --generate-notes\n`,
    ]),
  },
  {
    kind: 'github-app-token',
    doc: 'https://docs.github.com/en/authentication/keeping-your-account-and-data-secure/about-authentication-to-github#githubs-token-formats',
    rows: [
      (g) => {
        const t = `gho_${g.str(36)}`;
        return {
          text: `github.com:\n    users:\n        dev-jane:\n            oauth_token: ${t}\n    git_protocol: https\n    oauth_token: ${t}\n    user: dev-jane\n`,
          secrets: [t],
        };
      },
      (g) => {
        const t = `ghs_${g.str(36)}`;
        return {
          text: `{"token":"${t}","expires_at":"${g.isoTime()}","permissions":{"contents":"read","metadata":"read","pull_requests":"write"},"repository_selection":"selected"}`,
          secrets: [t],
        };
      },
      (g) => {
        const access = `ghu_${g.str(36)}`;
        const refresh = `ghr_${g.str(76)}`;
        return {
          text: `{"access_token":"${access}","expires_in":28800,"refresh_token":"${refresh}","refresh_token_expires_in":15811200,"token_type":"bearer","scope":""}`,
          secrets: [access, refresh],
        };
      },
      (g) => {
        const t = `ghs_${g.str(36)}`;
        return {
          text: `git config --global url."https://x-access-token:${t}@github.com/".insteadOf "https://github.com/"`,
          secrets: [t],
        };
      },
      (g) => {
        const t = `gho_${g.str(36)}`;
        return {
          text: `import httpx\n\nheaders = {"Authorization": f"Bearer ${t}", "Accept": "application/vnd.github+json"}\nr = httpx.get("https://api.github.com/user/repos", headers=headers)\n`,
          secrets: [t],
        };
      },
    ],
  },
  {
    kind: 'github-fine-grained-pat',
    doc: 'https://github.blog/security/application-security/introducing-fine-grained-personal-access-tokens-for-github/',
    rows: tokenRows(
      (g) => `github_pat_${g.str(22)}_${g.str(59)}`,
      [
        (t) => `GH_TOKEN=${t} gh api /user --jq .login`,
        (t) => `github_token = "${t}"\ngithub_owner = "acme"\n`,
        (t) =>
          JSON.stringify(
            {
              mcpServers: {
                github: {
                  command: 'npx',
                  args: ['-y', '@modelcontextprotocol/server-github'],
                  env: { GITHUB_PERSONAL_ACCESS_TOKEN: t },
                },
              },
            },
            null,
            2,
          ),
        (t) => `Here's the token for the CI bot, it only has read access to acme/web: ${t}`,
        (t) => `docker login ghcr.io -u acme-bot --password ${t}`,
      ],
    ),
  },
  {
    kind: 'gitlab-token',
    doc: 'https://docs.gitlab.com/security/tokens/#token-prefixes',
    rows: [
      ...tokenRows(
        (g) => `glpat-${g.str(20, 'b64url')}`,
        [
          (t) =>
            `git remote set-url origin https://oauth2:${t}@gitlab.com/acme/platform/api.git && git push -u origin main`,
          (t) =>
            `curl --header "PRIVATE-TOKEN: ${t}" "https://gitlab.acme.io/api/v4/projects?membership=true&simple=true"`,
        ],
      ),
      ...tokenRows(
        (g) => `glpat-${g.str(27, 'b64url')}.01.${g.str(9, 'lowerDigits')}`,
        [(t) => `export GITLAB_TOKEN=${t}\nglab mr list --assignee=@me`],
      ),
      ...tokenRows(
        (g) => `glrt-${g.str(20, 'b64url')}`,
        [
          (t) =>
            `concurrent = 4\n\n[[runners]]\n  name = "docker-runner-01"\n  url = "https://gitlab.com/"\n  token = "${t}"\n  executor = "docker"\n  [runners.docker]\n    image = "alpine:3.20"\n`,
        ],
      ),
      ...tokenRows(
        (g) => `gldt-${g.str(20, 'b64url')}`,
        [(t) => `docker login registry.gitlab.com -u gitlab+deploy-token-4211 -p ${t}`],
      ),
    ],
  },
  {
    kind: 'aws-access-key-id',
    doc: 'https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_identifiers.html#identifiers-unique-ids',
    rows: [
      (g) => {
        const id = awsKeyId(g);
        return {
          text: `AWS_ACCESS_KEY_ID=${id} AWS_DEFAULT_REGION=eu-west-1 aws s3 ls s3://acme-backups/`,
          secrets: [id],
        };
      },
      (g) => {
        const id = awsKeyId(g);
        return { text: `aws configure set aws_access_key_id ${id} --profile ci`, secrets: [id] };
      },
      (g) => {
        const id = awsKeyId(g);
        const secret = awsSecret(g);
        return {
          text: `provider "aws" {\n  region     = "us-west-2"\n  access_key = "${id}"\n  secret_key = "${secret}"\n}\n`,
          secrets: [id, secret],
        };
      },
      (g) => {
        const id = awsKeyId(g);
        const secret = awsSecret(g);
        return {
          text: JSON.stringify(
            {
              AccessKey: {
                UserName: 'ci-deployer',
                AccessKeyId: id,
                Status: 'Active',
                SecretAccessKey: secret,
                CreateDate: g.isoTime(),
              },
            },
            null,
            4,
          ),
          secrets: [id, secret],
        };
      },
      (g) => {
        const id = awsKeyId(g);
        return {
          text: `The failing job used the key ${id} (user ci-deployer); I'll disable it with aws iam update-access-key before rotating.`,
          secrets: [id],
        };
      },
    ],
  },
  {
    kind: 'aws-secret-access-key',
    doc: 'https://docs.aws.amazon.com/cli/latest/userguide/cli-configure-files.html',
    rows: [
      (g) => {
        const s = awsSecret(g);
        return { text: `aws configure set aws_secret_access_key ${s} --profile ci`, secrets: [s] };
      },
      (g) => {
        const id = awsKeyId(g);
        const s = awsSecret(g);
        return {
          text: writeTool(
            '/home/dev/.aws/credentials',
            `[default]\naws_access_key_id = ${id}\naws_secret_access_key = ${s}\n\n[prod]\nrole_arn = arn:aws:iam::${g.account()}:role/admin\nsource_profile = default\n`,
          ),
          secrets: [id, s],
        };
      },
      (g) => {
        const id = awsKeyId(g);
        const s = awsSecret(g);
        return {
          text: `docker run --rm -e AWS_ACCESS_KEY_ID=${id} -e AWS_SECRET_ACCESS_KEY=${s} -e AWS_REGION=us-east-1 amazon/aws-cli sts get-caller-identity`,
          secrets: [id, s],
        };
      },
      (g) => {
        const id = awsKeyId(g);
        const s = awsSecret(g);
        return {
          text: `s3 = boto3.client(\n    "s3",\n    aws_access_key_id="${id}",\n    aws_secret_access_key="${s}",\n    region_name="us-east-1",\n)\n`,
          secrets: [id, s],
        };
      },
      (g) => {
        const s = awsSecret(g);
        return {
          text: `      - uses: aws-actions/configure-aws-credentials@v4\n        with:\n          aws-access-key-id: \${{ secrets.AWS_ACCESS_KEY_ID }}\n          aws-secret-access-key: ${s}\n          aws-region: us-east-1\n`,
          secrets: [s],
        };
      },
    ],
  },
  {
    kind: 'aws-session-token',
    doc: 'https://docs.aws.amazon.com/STS/latest/APIReference/API_AssumeRole.html',
    rows: [
      (g) => {
        const id = awsKeyId(g, 'ASIA');
        const s = awsSecret(g);
        const t = awsSession(g);
        return {
          text: `export AWS_ACCESS_KEY_ID=${id}\nexport AWS_SECRET_ACCESS_KEY=${s}\nexport AWS_SESSION_TOKEN=${t}\naws sts get-caller-identity`,
          secrets: [id, s, t],
        };
      },
      (g) => {
        const id = awsKeyId(g, 'ASIA');
        const s = awsSecret(g);
        const t = awsSession(g);
        const acct = g.account();
        return {
          text: JSON.stringify(
            {
              Credentials: { AccessKeyId: id, SecretAccessKey: s, SessionToken: t, Expiration: g.isoTime() },
              AssumedRoleUser: {
                AssumedRoleId: `AROA${g.str(17, 'upperDigits')}:ci`,
                Arn: `arn:aws:sts::${acct}:assumed-role/deploy/ci`,
              },
            },
            null,
            4,
          ),
          secrets: [id, s, t],
        };
      },
      (g) => {
        const t = awsSession(g);
        return {
          text: `[sso-dev]\naws_access_key_id = ${awsKeyId(g, 'ASIA')}\naws_secret_access_key = ${awsSecret(g)}\naws_session_token = ${t}\n`,
          secrets: [t],
        };
      },
      (g) => {
        const t = awsSession(g);
        return {
          text: `curl -s "https://sqs.us-east-1.amazonaws.com/?Action=ListQueues" -H "X-Amz-Security-Token: ${t}" -H "X-Amz-Date: 20240502T101112Z"`,
          secrets: [t],
        };
      },
    ],
  },
  {
    kind: 'aws-bedrock-api-key',
    doc: 'https://docs.aws.amazon.com/bedrock/latest/userguide/api-keys-use.html (long-term ABSK…, short-term bedrock-api-key-…)',
    rows: [
      ...tokenRows(
        (g) => `ABSK${b64(`BedrockAPIKey-${g.str(4, 'lowerDigits')}-at-${g.account()}:${g.str(40, 'b64')}`)}`,
        [
          (t) => `export AWS_BEARER_TOKEN_BEDROCK=${t}\nclaude -p "summarize the failing tests"`,
          (t) =>
            `curl -X POST "https://bedrock-runtime.us-east-1.amazonaws.com/model/us.anthropic.claude-3-5-haiku-20241022-v1:0/converse" -H "Content-Type: application/json" -H "Authorization: Bearer ${t}" -d '{"messages":[{"role":"user","content":[{"text":"Hello"}]}]}'`,
          (t) =>
            writeTool(
              '/home/dev/.claude/settings.json',
              JSON.stringify(
                { env: { CLAUDE_CODE_USE_BEDROCK: '1', AWS_REGION: 'us-east-1', AWS_BEARER_TOKEN_BEDROCK: t } },
                null,
                2,
              ),
            ),
        ],
      ),
      ...tokenRows(
        (g) =>
          `bedrock-api-key-${b64(`bedrock.amazonaws.com/?Action=CallWithBearerToken&X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=${awsKeyId(g, 'ASIA')}%2F20250101%2Fus-east-1%2Fbedrock%2Faws4_request&X-Amz-Date=20250101T000000Z&X-Amz-Expires=43200&X-Amz-Security-Token=${g.str(200, 'b64')}&X-Amz-Signature=${g.hex(64)}&X-Amz-SignedHeaders=host&Version=1`)}`,
        [
          (t) =>
            `import os\nos.environ['AWS_BEARER_TOKEN_BEDROCK'] = "${t}"\nclient = boto3.client(service_name="bedrock-runtime", region_name="us-east-1")\n`,
        ],
      ),
    ],
  },
  {
    kind: 'google-api-key',
    doc: 'https://cloud.google.com/docs/authentication/api-keys',
    rows: tokenRows(
      (g) => `AIza${g.str(35, 'b64url')}`,
      [
        (t) => `export GEMINI_API_KEY=${t}`,
        (t) =>
          `curl "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:generateContent?key=${t}" -H 'Content-Type: application/json' -X POST -d '{"contents":[{"parts":[{"text":"Explain how AI works"}]}]}'`,
        (t) =>
          `import google.generativeai as genai\n\ngenai.configure(api_key="${t}")\nmodel = genai.GenerativeModel("gemini-1.5-pro")\n`,
        (t) => `youtube:\n  api_key: ${t}\n  channel_id: UC_x5XG1OV2P6uZZ5FSM9Ttw\n`,
        (t) => `curl "https://maps.googleapis.com/maps/api/geocode/json?address=1600+Amphitheatre+Parkway&key=${t}"`,
      ],
    ),
  },
  {
    kind: 'gcp-service-account-key',
    doc: 'https://cloud.google.com/iam/docs/keys-create-delete#creating',
    rows: [0, 1, 2, 3].map((variant) => (g: Gen): Made => {
      const key = pemKey(g, 'pkcs8-rsa');
      const project = `acme-${g.pick(['prod', 'staging', 'data'])}-${g.digits(6)}`;
      const sa = {
        type: 'service_account',
        project_id: project,
        private_key_id: g.hex(40),
        private_key: `${key.text}\n`,
        client_email: `deployer@${project}.iam.gserviceaccount.com`,
        client_id: g.digits(21),
        auth_uri: 'https://accounts.google.com/o/oauth2/auth',
        token_uri: 'https://oauth2.googleapis.com/token',
        auth_provider_x509_cert_url: 'https://www.googleapis.com/oauth2/v1/certs',
        client_x509_cert_url: `https://www.googleapis.com/robot/v1/metadata/x509/deployer%40${project}.iam.gserviceaccount.com`,
        universe_domain: 'googleapis.com',
      };
      const pretty = JSON.stringify(sa, null, 2);
      const text =
        variant === 0
          ? `cat > /tmp/sa.json <<'EOF'\n${pretty}\nEOF\ngcloud auth activate-service-account --key-file=/tmp/sa.json`
          : variant === 1
            ? writeTool('/home/dev/acme/infra/credentials/terraform-sa.json', pretty)
            : variant === 2
              ? `GOOGLE_CREDENTIALS='${JSON.stringify(sa)}' terraform plan -out=tfplan`
              : `provider "google" {\n  project     = "${project}"\n  region      = "europe-west1"\n  credentials = <<EOF\n${pretty}\nEOF\n}\n`;
      return { text, secrets: key.secret };
    }),
  },
  {
    kind: 'azure-storage-account-key',
    doc: 'https://learn.microsoft.com/en-us/azure/storage/common/storage-configure-connection-string',
    rows: [0, 1, 2, 3].map((variant) => (g: Gen): Made => {
      const account = `acme${g.pick(['prod', 'logs', 'media', 'backup'])}${g.str(4, 'lowerDigits')}`;
      const key = `${g.str(86, 'b64')}==`;
      const cs = `DefaultEndpointsProtocol=https;AccountName=${account};AccountKey=${key};EndpointSuffix=core.windows.net`;
      const text =
        variant === 0
          ? `export AZURE_STORAGE_CONNECTION_STRING="${cs}"\naz storage container list -o table`
          : variant === 1
            ? writeTool(
                '/home/dev/acme/functions/local.settings.json',
                JSON.stringify(
                  { IsEncrypted: false, Values: { AzureWebJobsStorage: cs, FUNCTIONS_WORKER_RUNTIME: 'node' } },
                  null,
                  2,
                ),
              )
            : variant === 2
              ? `az storage blob upload --account-name ${account} --account-key ${key} --container-name backups --file db.sql.gz --name nightly/db.sql.gz`
              : `{\n  "Logging": { "LogLevel": { "Default": "Information" } },\n  "ConnectionStrings": {\n    "Blobs": "${cs}"\n  }\n}\n`;
      return { text, secrets: [key] };
    }),
  },
  {
    kind: 'azure-openai-key',
    doc: 'https://learn.microsoft.com/en-us/azure/ai-services/openai/reference#authentication',
    rows: tokenRows(
      (g) => g.hex(32),
      [
        (t) =>
          `AZURE_OPENAI_API_KEY=${t}\nAZURE_OPENAI_ENDPOINT=https://acme-oai.openai.azure.com/\nAZURE_OPENAI_DEPLOYMENT=gpt-4o\n`,
        (t) =>
          `curl "https://acme-oai.openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=2024-06-01" -H "Content-Type: application/json" -H "api-key: ${t}" -d '{"messages":[{"role":"user","content":"ping"}]}'`,
        (t) =>
          `client = AzureOpenAI(\n    api_key="${t}",\n    api_version="2024-06-01",\n    azure_endpoint="https://acme-oai.openai.azure.com",\n)\n`,
        (t) => `export AZURE_OPENAI_KEY=${t}`,
      ],
    ),
  },
  {
    kind: 'anthropic-api-key',
    doc: 'https://docs.anthropic.com/en/api/getting-started',
    rows: [
      ...tokenRows(
        (g) => `sk-ant-api03-${g.str(93, 'b64url')}AA`,
        [
          (t) => `export ANTHROPIC_API_KEY=${t}`,
          (t) =>
            `curl https://api.anthropic.com/v1/messages -H "x-api-key: ${t}" -H "anthropic-version: 2023-06-01" -H "content-type: application/json" -d '{"model":"claude-sonnet-4-5","max_tokens":1024,"messages":[{"role":"user","content":"Hello"}]}'`,
          (t) => `import anthropic\n\nclient = anthropic.Anthropic(api_key="${t}")\n`,
          (t) => writeTool('/home/dev/acme/agent/.env.local', `ANTHROPIC_API_KEY="${t}"\nMODEL=claude-sonnet-4-5\n`),
        ],
      ),
      ...tokenRows(
        (g) => `sk-ant-admin01-${g.str(93, 'b64url')}AA`,
        [
          (t) =>
            `curl "https://api.anthropic.com/v1/organizations/api_keys?limit=20" --header "anthropic-version: 2023-06-01" --header "x-api-key: ${t}"`,
        ],
      ),
    ],
  },
  {
    kind: 'openai-api-key',
    doc: 'https://platform.openai.com/docs/api-reference/authentication',
    rows: [
      ...tokenRows(
        (g) => `sk-proj-${g.str(74, 'b64url')}T3BlbkFJ${g.str(74, 'b64url')}`,
        [
          (t) => `OPENAI_API_KEY=${t} python scripts/embed.py --input docs/`,
          (t) => `curl https://api.openai.com/v1/models -H "Authorization: Bearer ${t}"`,
          (t) => `import OpenAI from "openai";\n\nconst openai = new OpenAI({ apiKey: "${t}" });\n`,
          (t) =>
            writeTool(
              '/home/dev/acme/web/.env.local',
              `NEXT_PUBLIC_APP_URL=http://localhost:3000\nOPENAI_API_KEY=${t}\n`,
            ),
        ],
      ),
      ...tokenRows(
        (g) => `sk-svcacct-${g.str(74, 'b64url')}T3BlbkFJ${g.str(74, 'b64url')}`,
        [(t) => `llm:\n  provider: openai\n  api_key: ${t}\n  model: gpt-4o-mini\n`],
      ),
    ],
  },
  {
    kind: 'groq-api-key',
    doc: 'https://console.groq.com/docs/quickstart',
    rows: tokenRows(
      (g) => `gsk_${g.str(52)}`,
      [
        (t) => `export GROQ_API_KEY=${t}`,
        (t) =>
          `curl https://api.groq.com/openai/v1/chat/completions -H "Authorization: Bearer ${t}" -H "Content-Type: application/json" -d '{"model":"llama-3.3-70b-versatile","messages":[{"role":"user","content":"hi"}]}'`,
        (t) => `from groq import Groq\n\nclient = Groq(api_key="${t}")\n`,
      ],
    ),
  },
  {
    kind: 'huggingface-token',
    doc: 'https://huggingface.co/docs/hub/security-tokens',
    rows: tokenRows(
      (g) => `hf_${g.str(34, 'letters')}`,
      [
        (t) => `huggingface-cli login --token ${t} --add-to-git-credential`,
        (t) => `export HF_TOKEN=${t}`,
        (t) => `git clone https://dev-jane:${t}@huggingface.co/acme/private-reranker`,
        (t) =>
          `from huggingface_hub import snapshot_download\n\nsnapshot_download("meta-llama/Llama-3.1-8B-Instruct", token="${t}")\n`,
      ],
    ),
  },
  {
    kind: 'mistral-api-key',
    doc: 'https://docs.mistral.ai/getting-started/quickstart/',
    rows: tokenRows(
      (g) => g.str(32),
      [
        (t) => `export MISTRAL_API_KEY=${t}`,
        (t) =>
          `curl --location "https://api.mistral.ai/v1/chat/completions" --header 'Content-Type: application/json' --header "Authorization: Bearer ${t}" --data '{"model":"mistral-large-latest","messages":[{"role":"user","content":"hi"}]}'`,
        (t) => writeTool('/home/dev/acme/rag/.env', `MISTRAL_API_KEY="${t}"\nEMBED_MODEL=mistral-embed\n`),
        (t) => `from mistralai import Mistral\n\nclient = Mistral(api_key="${t}")\n`,
      ],
    ),
  },
  {
    kind: 'cohere-api-key',
    doc: 'https://docs.cohere.com/reference/about',
    rows: tokenRows(
      (g) => g.str(40),
      [
        (t) => `export CO_API_KEY=${t}`,
        (t) => `COHERE_API_KEY=${t}\nRERANK_MODEL=rerank-v3.5\n`,
        (t) => `import cohere\n\nco = cohere.ClientV2(api_key="${t}")\n`,
        (t) =>
          `curl --request POST --url https://api.cohere.com/v2/chat --header 'accept: application/json' --header 'content-type: application/json' --header "Authorization: bearer ${t}" --data '{"model":"command-r-plus","messages":[]}'`,
      ],
    ),
  },
  {
    kind: 'stripe-secret-key',
    doc: 'https://docs.stripe.com/keys',
    rows: [
      ...tokenRows(
        (g) => `sk_live_51${g.str(97)}`,
        [
          (t) => `curl https://api.stripe.com/v1/charges?limit=3 -u ${t}:`,
          (t) => `STRIPE_SECRET_KEY=${t}\nSTRIPE_PRICE_ID=price_1PZ${g0(t)}\n`,
          (t) => `const stripe = require('stripe')('${t}');\n`,
          (t) => `stripe listen --api-key ${t} --forward-to localhost:3000/api/webhooks/stripe`,
        ],
      ),
      ...tokenRows((g) => `rk_live_51${g.str(97)}`, [(t) => `import stripe\n\nstripe.api_key = "${t}"\n`]),
    ],
  },
  {
    kind: 'stripe-webhook-secret',
    doc: 'https://docs.stripe.com/webhooks#verify-official-libraries',
    rows: tokenRows(
      (g) => `whsec_${g.str(32)}`,
      [
        (t) => `STRIPE_WEBHOOK_SECRET=${t}`,
        (t) => `const event = stripe.webhooks.constructEvent(req.body, sig, "${t}");`,
        (t) => `stripe:\n  webhook_secret: "${t}"\n`,
      ],
    ),
  },
  {
    kind: 'slack-token',
    doc: 'https://api.slack.com/concepts/token-types',
    rows: [
      ...tokenRows(
        (g) => `xoxb-${g.digits(12)}-${g.digits(13)}-${g.str(24)}`,
        [
          (t) =>
            `curl -X POST -H "Authorization: Bearer ${t}" -H 'Content-type: application/json' --data '{"channel":"C0123ABCD","text":"deploy finished"}' https://slack.com/api/chat.postMessage`,
          (t) => `slack:\n  token: ${t}\n  channel: "#deploys"\n`,
        ],
      ),
      (g) => {
        const bot = `xoxb-${g.digits(12)}-${g.digits(13)}-${g.str(24)}`;
        const app = `xapp-1-A${g.str(10, 'upperDigits')}-${g.digits(13)}-${g.hex(64)}`;
        return {
          text: `SLACK_BOT_TOKEN=${bot}\nSLACK_APP_TOKEN=${app}\nSLACK_SIGNING_SECRET_FILE=/run/secrets/slack\n`,
          secrets: [bot, app],
        };
      },
      ...tokenRows(
        (g) => `xoxp-${g.digits(12)}-${g.digits(12)}-${g.digits(13)}-${g.hex(32)}`,
        [(t) => `from slack_sdk import WebClient\n\nclient = WebClient(token="${t}")\n`],
      ),
    ],
  },
  {
    kind: 'slack-webhook',
    doc: 'https://api.slack.com/messaging/webhooks',
    rows: [0, 1, 2, 3].map((variant) => (g: Gen): Made => {
      const secret = g.str(24);
      const url = `https://hooks.slack.com/services/T${g.str(8, 'upperDigits')}/B${g.str(10, 'upperDigits')}/${secret}`;
      const text = [
        `curl -X POST -H 'Content-type: application/json' --data '{"text":"Build #512 failed on main"}' ${url}`,
        `SLACK_WEBHOOK_URL=${url}`,
        `receivers:\n  - name: slack\n    slack_configs:\n      - api_url: ${url}\n        channel: '#alerts'\n        send_resolved: true\n`,
        `await fetch("${url}", {\n  method: "POST",\n  headers: { "Content-Type": "application/json" },\n  body: JSON.stringify({ text: summary }),\n});\n`,
      ][variant]!;
      return { text, secrets: [secret] };
    }),
  },
  {
    kind: 'discord-webhook',
    doc: 'https://discord.com/developers/docs/resources/webhook#execute-webhook',
    rows: [0, 1, 2, 3].map((variant) => (g: Gen): Made => {
      const secret = g.str(68, 'b64url');
      const host = variant === 3 ? 'discordapp.com' : 'discord.com';
      const url = `https://${host}/api/webhooks/${g.digits(19)}/${secret}`;
      const text = [
        `curl -H "Content-Type: application/json" -d '{"username":"ci","content":"deploy ok"}' "${url}"`,
        `DISCORD_WEBHOOK=${url}`,
        `requests.post("${url}", json={"content": message})`,
        `notifications:\n  discord:\n    webhook_url: ${url}\n`,
      ][variant]!;
      return { text, secrets: [secret] };
    }),
  },
  {
    kind: 'telegram-bot-token',
    doc: 'https://core.telegram.org/bots/api#authorizing-your-bot',
    rows: tokenRows(
      (g) => `${g.digits(10)}:AA${g.str(33, 'b64url')}`,
      [
        (t) => `curl -s "https://api.telegram.org/bot${t}/sendMessage?chat_id=-1001234567890&text=deployed"`,
        (t) => `TELEGRAM_BOT_TOKEN=${t}`,
        (t) => `application = Application.builder().token("${t}").build()`,
        (t) => `telegram:\n  bot_token: "${t}"\n  chat_id: 48213377\n`,
      ],
    ),
  },
  {
    kind: 'twilio-credentials',
    doc: 'https://www.twilio.com/docs/iam/api-keys (account SID AC…, auth token, API key SK… + secret)',
    rows: [
      (g) => {
        const sid = `AC${g.hex(32)}`;
        const token = g.hex(32);
        return {
          text: `curl -X POST "https://api.twilio.com/2010-04-01/Accounts/${sid}/Messages.json" --data-urlencode "To=+15558675310" --data-urlencode "From=+15017122661" --data-urlencode "Body=Your code is 482913" -u ${sid}:${token}`,
          secrets: [token],
        };
      },
      (g) => {
        const token = g.hex(32);
        return {
          text: `TWILIO_ACCOUNT_SID=AC${g.hex(32)}\nTWILIO_AUTH_TOKEN=${token}\nTWILIO_FROM=+15017122661\n`,
          secrets: [token],
        };
      },
      (g) => {
        const secret = g.str(32);
        return {
          text: `from twilio.rest import Client\n\nclient = Client("SK${g.hex(32)}", "${secret}", "AC${g.hex(32)}")\n`,
          secrets: [secret],
        };
      },
      (g) => {
        const token = g.hex(32);
        return { text: `const client = require('twilio')('AC${g.hex(32)}', '${token}');`, secrets: [token] };
      },
    ],
  },
  {
    kind: 'sendgrid-api-key',
    doc: 'https://www.twilio.com/docs/sendgrid/ui/account-and-settings/api-keys',
    rows: tokenRows(
      (g) => `SG.${g.str(22, 'b64url')}.${g.str(43, 'b64url')}`,
      [
        (t) =>
          `curl --request POST --url https://api.sendgrid.com/v3/mail/send --header "Authorization: Bearer ${t}" --header 'Content-Type: application/json' --data @mail.json`,
        (t) => `SENDGRID_API_KEY=${t}`,
        (t) => `sgMail.setApiKey('${t}');`,
        (t) =>
          `EMAIL_HOST = "smtp.sendgrid.net"\nEMAIL_HOST_USER = "apikey"\nEMAIL_HOST_PASSWORD = "${t}"\nEMAIL_PORT = 587\n`,
      ],
    ),
  },
  {
    kind: 'mailgun-api-key',
    doc: 'https://documentation.mailgun.com/docs/mailgun/api-reference/authentication/',
    rows: [
      ...tokenRows(
        (g) => `key-${g.hex(32)}`,
        [
          (t) =>
            `curl -s --user 'api:${t}' https://api.mailgun.net/v3/mg.acme.io/messages -F from='Acme <noreply@mg.acme.io>' -F to=jane@acme.io -F subject='Hello' -F text='Testing'`,
        ],
      ),
      ...tokenRows(
        (g) => `${g.hex(32)}-${g.hex(8)}-${g.hex(8)}`,
        [
          (t) => `MAILGUN_API_KEY=${t}\nMAILGUN_DOMAIN=mg.acme.io\n`,
          (t) => `requests.post(url, auth=("api", "${t}"), data=payload)`,
        ],
      ),
    ],
  },
  {
    kind: 'mailchimp-api-key',
    doc: 'https://mailchimp.com/developer/marketing/guides/quick-start/',
    rows: tokenRows(
      (g) => `${g.hex(32)}-us${g.int(2, 21)}`,
      [
        (t) =>
          `curl -sS "https://${t.slice(t.lastIndexOf('-') + 1)}.api.mailchimp.com/3.0/ping" --user "anystring:${t}"`,
        (t) => `MAILCHIMP_API_KEY=${t}`,
        (t) => `mailchimp.setConfig({\n  apiKey: "${t}",\n  server: "${t.slice(t.lastIndexOf('-') + 1)}",\n});\n`,
      ],
    ),
  },
  {
    kind: 'hubspot-private-app-token',
    doc: 'https://developers.hubspot.com/docs/api/private-apps',
    rows: [
      ...tokenRows(
        (g) => `pat-na1-${g.uuid()}`,
        [
          (t) =>
            `curl --request GET --url "https://api.hubapi.com/crm/v3/objects/contacts?limit=10" --header 'authorization: Bearer ${t}'`,
          (t) => `from hubspot import HubSpot\n\napi_client = HubSpot(access_token="${t}")\n`,
        ],
      ),
      ...tokenRows((g) => `pat-eu1-${g.uuid()}`, [(t) => `HUBSPOT_ACCESS_TOKEN=${t}`]),
    ],
  },
  {
    kind: 'shopify-token',
    doc: 'https://shopify.dev/docs/apps/build/authentication-authorization/access-tokens/generate-app-access-tokens-admin',
    rows: [
      ...tokenRows(
        (g) => `shpat_${g.hex(32)}`,
        [
          (t) =>
            `curl -X GET "https://acme-store.myshopify.com/admin/api/2024-07/products.json?limit=5" -H "X-Shopify-Access-Token: ${t}"`,
          (t) => `session = ShopifyAPI::Auth::Session.new(shop: "acme-store.myshopify.com", access_token: "${t}")`,
        ],
      ),
      (g) => {
        const secret = `shpss_${g.hex(32)}`;
        const token = `shpat_${g.hex(32)}`;
        return {
          text: `SHOPIFY_API_KEY=${g.hex(32)}\nSHOPIFY_API_SECRET=${secret}\nSHOPIFY_ACCESS_TOKEN=${token}\nSCOPES=read_products,write_orders\n`,
          secrets: [secret, token],
        };
      },
    ],
  },
  {
    kind: 'npm-token',
    doc: 'https://docs.npmjs.com/about-access-tokens',
    rows: tokenRows(npmToken, [
      (t) => `npm config set //registry.npmjs.org/:_authToken ${t}`,
      (t) => `NPM_TOKEN=${t} npm publish --access public`,
      (t) => `echo "//registry.npmjs.org/:_authToken=${t}" > ~/.npmrc && npm whoami`,
      (t) => `npmRegistryServer: "https://registry.npmjs.org"\nnpmAuthToken: ${t}\n`,
    ]),
  },
  {
    kind: 'pypi-token',
    doc: 'https://pypi.org/help/#apitoken',
    rows: tokenRows(pypiToken, [
      (t) => `twine upload -u __token__ -p ${t} dist/*`,
      (t) => `export TWINE_PASSWORD=${t}\nexport TWINE_USERNAME=__token__\npython -m twine upload dist/*`,
      (t) => `poetry config pypi-token.pypi ${t}`,
      (t) => `uv publish --token ${t}`,
    ]),
  },
  {
    kind: 'docker-pat',
    doc: 'https://docs.docker.com/security/for-developers/access-tokens/',
    rows: tokenRows(
      (g) => `dckr_pat_${g.str(27, 'b64url')}`,
      [
        (t) => `echo ${t} | docker login -u acmebot --password-stdin`,
        (t) => `docker login -u acmebot -p ${t}`,
        (t) => `DOCKERHUB_USERNAME=acmebot\nDOCKERHUB_TOKEN=${t}\n`,
        (t) =>
          `curl -s -X POST https://hub.docker.com/v2/auth/token -H 'Content-Type: application/json' -d '{"identifier":"acmebot","secret":"${t}"}'`,
      ],
    ),
  },
  {
    kind: 'vault-token',
    doc: 'https://developer.hashicorp.com/vault/docs/concepts/tokens#token-prefixes',
    rows: [
      ...tokenRows(
        (g) => `hvs.CAESI${g.str(g.int(86, 100), 'b64url')}`,
        [
          (t) =>
            `export VAULT_ADDR=https://vault.acme.internal:8200\nexport VAULT_TOKEN=${t}\nvault kv get -mount=secret app/db`,
          (t) => `vault login ${t}`,
          (t) => `curl --header "X-Vault-Token: ${t}" https://vault.acme.internal:8200/v1/secret/data/app/config`,
        ],
      ),
      ...tokenRows((g) => `s.${g.str(24)}`, [(t) => `VAULT_TOKEN=${t} vault token lookup`]),
      ...tokenRows(
        (g) => `hvb.AAAAAQ${g.str(130, 'b64url')}`,
        [(t) => `vault:\n  address: https://vault.acme.internal:8200\n  token: ${t}\n`],
      ),
    ],
  },
  {
    kind: 'databricks-token',
    doc: 'https://docs.databricks.com/en/dev-tools/auth/pat.html',
    rows: tokenRows(
      (g) => `dapi${g.hex(32)}${g.pick(['', '-2', '-3'])}`,
      [
        (t) => `export DATABRICKS_HOST=https://adb-${g0(t)}.7.azuredatabricks.net\nexport DATABRICKS_TOKEN=${t}`,
        (t) => `[DEFAULT]\nhost  = https://dbc-a1b2c3d4-e5f6.cloud.databricks.com\ntoken = ${t}\n`,
        (t) =>
          `curl -s -H "Authorization: Bearer ${t}" https://dbc-a1b2c3d4-e5f6.cloud.databricks.com/api/2.0/clusters/list`,
      ],
    ),
  },
  {
    kind: 'sentry-auth-token',
    doc: 'https://docs.sentry.io/account/auth-tokens/',
    rows: [
      ...tokenRows(
        (g) =>
          `sntrys_${b64(JSON.stringify({ iat: 1714644672 + g.int(0, 1e6), url: 'https://sentry.io', region_url: 'https://us.sentry.io', org: 'acme' })).replace(/=+$/, '')}_${g.str(43, 'b64')}`,
        [
          (t) => `SENTRY_AUTH_TOKEN=${t} npx @sentry/cli sourcemaps upload --org acme --project web ./dist`,
          (t) => `export SENTRY_AUTH_TOKEN=${t}`,
        ],
      ),
      ...tokenRows(
        (g) => `sntryu_${g.hex(64)}`,
        [
          (t) => `[defaults]\norg = acme\nproject = api\n\n[auth]\ntoken = ${t}\n`,
          (t) => `curl -H 'Authorization: Bearer ${t}' https://sentry.io/api/0/organizations/acme/projects/`,
        ],
      ),
    ],
  },
  {
    kind: 'datadog-api-key',
    doc: 'https://docs.datadoghq.com/account_management/api-app-keys/',
    rows: [
      (g) => {
        const k = g.hex(32);
        return {
          text: `DD_API_KEY=${k} DD_SITE="datadoghq.eu" bash -c "$(curl -L https://install.datadoghq.com/scripts/install_script_agent7.sh)"`,
          secrets: [k],
        };
      },
      (g) => {
        const k = g.hex(32);
        const app = g.hex(40);
        return {
          text: `curl -X GET "https://api.datadoghq.com/api/v1/validate" -H "Accept: application/json" -H "DD-API-KEY: ${k}" -H "DD-APPLICATION-KEY: ${app}"`,
          secrets: [k, app],
        };
      },
      (g) => {
        const k = g.hex(32);
        return { text: `api_key: ${k}\nsite: datadoghq.com\nlogs_enabled: true\n`, secrets: [k] };
      },
      (g) => {
        const k = g.hex(32);
        return {
          text: `docker run -d --name dd-agent -e DD_API_KEY=${k} -e DD_SITE=datadoghq.com -v /var/run/docker.sock:/var/run/docker.sock:ro gcr.io/datadoghq/agent:7`,
          secrets: [k],
        };
      },
      (g) => {
        const app = g.hex(40);
        return { text: `export DD_APP_KEY=${app}`, secrets: [app] };
      },
    ],
  },
  {
    kind: 'sonarqube-token',
    doc: 'https://docs.sonarsource.com/sonarqube-server/latest/user-guide/managing-tokens/',
    rows: [
      ...tokenRows(
        (g) => `sqp_${g.hex(40)}`,
        [
          (t) =>
            `sonar-scanner -Dsonar.projectKey=acme-api -Dsonar.sources=src -Dsonar.host.url=https://sonar.acme.io -Dsonar.token=${t}`,
        ],
      ),
      ...tokenRows(
        (g) => `squ_${g.hex(40)}`,
        [(t) => `SONAR_TOKEN=${t}`, (t) => `curl -u ${t}: "https://sonar.acme.io/api/projects/search?ps=100"`],
      ),
      ...tokenRows(
        (g) => `sqa_${g.hex(40)}`,
        [(t) => `mvn verify sonar:sonar -Dsonar.host.url=https://sonar.acme.io -Dsonar.login=${t}`],
      ),
    ],
  },
  {
    kind: 'codecov-token',
    doc: 'https://docs.codecov.com/docs/codecov-tokens',
    rows: tokenRows(
      (g) => g.uuid(),
      [
        (t) => `codecovcli upload-process -t ${t} -f coverage/lcov.info`,
        (t) => `bash <(curl -s https://codecov.io/bash) -t ${t}`,
        (t) =>
          `      - uses: codecov/codecov-action@v4\n        with:\n          token: ${t}\n          files: ./coverage/lcov.info\n`,
        (t) => `export CODECOV_TOKEN=${t}`,
      ],
    ),
  },
  {
    kind: 'snyk-token',
    doc: 'https://docs.snyk.io/snyk-cli/authenticate-to-use-the-cli',
    rows: tokenRows(
      (g) => g.uuid(),
      [
        (t) => `snyk auth ${t}`,
        (t) => `SNYK_TOKEN=${t} snyk test --all-projects --severity-threshold=high`,
        (t) => `snyk config set api=${t}`,
        (t) => `    env:\n      SNYK_TOKEN: ${t}\n    steps:\n      - run: snyk monitor\n`,
      ],
    ),
  },
  {
    kind: 'linear-api-key',
    doc: 'https://linear.app/developers/graphql#personal-api-keys',
    rows: tokenRows(
      (g) => `lin_api_${g.str(40)}`,
      [
        (t) =>
          `curl -X POST https://api.linear.app/graphql -H "Content-Type: application/json" -H "Authorization: ${t}" --data '{"query":"{ viewer { id name } }"}'`,
        (t) => `LINEAR_API_KEY=${t}`,
        (t) => `import { LinearClient } from "@linear/sdk";\n\nconst linear = new LinearClient({ apiKey: "${t}" });\n`,
      ],
    ),
  },
  {
    kind: 'notion-token',
    doc: 'https://developers.notion.com/docs/authorization (internal integration tokens: ntn_…, legacy secret_…)',
    rows: [
      ...tokenRows(
        (g) => `ntn_${g.digits(11)}${g.str(35)}`,
        [
          (t) => `curl https://api.notion.com/v1/users -H "Authorization: Bearer ${t}" -H "Notion-Version: 2022-06-28"`,
          (t) => `const notion = new Client({ auth: "${t}" });`,
          (t) =>
            JSON.stringify(
              {
                mcpServers: {
                  notionApi: {
                    command: 'npx',
                    args: ['-y', '@notionhq/notion-mcp-server'],
                    env: {
                      OPENAPI_MCP_HEADERS: JSON.stringify({
                        Authorization: `Bearer ${t}`,
                        'Notion-Version': '2022-06-28',
                      }),
                    },
                  },
                },
              },
              null,
              2,
            ),
        ],
      ),
      ...tokenRows((g) => `secret_${g.str(43)}`, [(t) => `NOTION_TOKEN=${t}\nNOTION_DATABASE_ID=${g0(t)}\n`]),
    ],
  },
  {
    kind: 'figma-token',
    doc: 'https://www.figma.com/developers/api#access-tokens',
    rows: tokenRows(
      (g) => `figd_${g.str(40, 'b64url')}`,
      [
        (t) => `curl -H "X-Figma-Token: ${t}" "https://api.figma.com/v1/files/Xk3mP9qLr2TnV8wZ1bYc4d"`,
        (t) => `FIGMA_ACCESS_TOKEN=${t}`,
        (t) => `claude mcp add figma -e FIGMA_API_KEY=${t} -- npx -y figma-developer-mcp --stdio`,
      ],
    ),
  },
  {
    kind: 'cloudflare-token',
    doc: 'https://developers.cloudflare.com/fundamentals/api/get-started/token-formats/ (cfut_/cfat_/cfk_; older tokens are 40 opaque characters)',
    rows: [
      ...tokenRows(
        (g) => `cfut_${g.str(40)}${g.hex(8)}`,
        [(t) => `export CLOUDFLARE_API_TOKEN=${t}\nnpx wrangler whoami`],
      ),
      ...tokenRows(
        (g) => `cfat_${g.str(40)}${g.hex(8)}`,
        [(t) => `CLOUDFLARE_API_TOKEN=${t} npx wrangler deploy --env production`],
      ),
      ...tokenRows(
        (g) => g.str(40, 'b64url'),
        [
          (t) => `curl "https://api.cloudflare.com/client/v4/user/tokens/verify" -H "Authorization: Bearer ${t}"`,
          (t) => `provider "cloudflare" {\n  api_token = "${t}"\n}\n`,
        ],
      ),
      ...tokenRows(
        (g) => g.hex(37),
        [
          (t) =>
            `curl -X GET "https://api.cloudflare.com/client/v4/zones" -H "X-Auth-Email: ops@acme.io" -H "X-Auth-Key: ${t}" -H "Content-Type: application/json"`,
        ],
      ),
    ],
  },
  {
    kind: 'vercel-token',
    doc: 'https://vercel.com/changelog/new-token-formats-and-secret-scanning (vcp_/vci_/vca_/vcr_/vck_; older tokens are 24 opaque characters)',
    rows: [
      ...tokenRows(
        (g) => `vcp_${g.str(g.int(24, 56))}`,
        [
          (t) => `vercel deploy --prod --token ${t}`,
          (t) => `curl -s -H "Authorization: Bearer ${t}" https://api.vercel.com/v9/projects`,
        ],
      ),
      ...tokenRows((g) => g.str(24), [(t) => `VERCEL_TOKEN=${t} vercel pull --yes --environment=production`]),
      ...tokenRows(
        (g) => `vck_${g.str(g.int(40, 56))}`,
        [(t) => `AI_GATEWAY_API_KEY=${t}\nAI_MODEL=anthropic/claude-sonnet-4\n`],
      ),
    ],
  },
  {
    kind: 'jwt',
    doc: 'https://datatracker.ietf.org/doc/html/rfc7519',
    rows: [
      (g) => {
        const t = jwt(g, { sub: g.uuid(), email: 'jane@acme.io', role: 'admin', iat: 1714644672, exp: 1714648272 });
        return { text: `curl -H "Authorization: Bearer ${t}" https://api.acme.io/v1/me`, secrets: [t] };
      },
      (g) => {
        const t = jwt(g, {
          iss: 'supabase',
          ref: g.str(20, 'lower'),
          role: 'service_role',
          iat: 1714644672,
          exp: 2030220672,
        });
        return {
          text: `SUPABASE_URL=https://${g.str(20, 'lower')}.supabase.co\nSUPABASE_SERVICE_ROLE_KEY=${t}\n`,
          secrets: [t],
        };
      },
      (g) => {
        const t = jwt(g, { sub: 'u_4821', scope: 'read write', iat: 1714644672, exp: 1714648272 }, 'RS256');
        const refresh = g.str(64, 'b64url');
        return {
          text: JSON.stringify({ access_token: t, token_type: 'Bearer', expires_in: 3600, refresh_token: refresh }),
          secrets: [t, refresh],
        };
      },
      (g) => {
        const t = jwt(g, { sub: 'jane', aud: 'acme-web', nonce: g.str(16), iat: 1714644672, exp: 1714648272 }, 'RS256');
        return {
          text: `The id_token I got back from the login flow is ${t} — can you decode it and tell me why the audience check fails?`,
          secrets: [t],
        };
      },
    ],
  },
  {
    kind: 'pem-rsa-private-key',
    doc: 'https://datatracker.ietf.org/doc/html/rfc7468 (PKCS #1 RSA key, "RSA PRIVATE KEY")',
    rows: [0, 1, 2, 3].map((variant) => (g: Gen): Made => {
      const key = pemKey(g, 'rsa');
      const text = [
        `cat > ~/.ssh/deploy_key <<'EOF'\n${key.text}\nEOF\nchmod 600 ~/.ssh/deploy_key && ssh -i ~/.ssh/deploy_key deploy@10.0.4.12 uptime`,
        writeTool('/home/dev/acme/nginx/certs/server.key', `${key.text}\n`),
        `tls:\n  enabled: true\n  cert: /etc/tls/tls.crt\n  key: |\n${key.text
          .split('\n')
          .map((l) => `    ${l}`)
          .join('\n')}\n`,
        `JWT_PRIVATE_KEY="${key.text.split('\n').join('\\n')}"\nJWT_ISSUER=https://auth.acme.io\n`,
      ][variant]!;
      return { text, secrets: key.secret };
    }),
  },
  {
    kind: 'pem-ec-private-key',
    doc: 'https://datatracker.ietf.org/doc/html/rfc5915 (EC PRIVATE KEY)',
    rows: [0, 1, 2].map((variant) => (g: Gen): Made => {
      const key = pemKey(g, 'ec');
      const text = [
        `printf '%s\\n' '${key.text.split('\n').join("' '")}' > config/jwt/es256.pem`,
        writeTool('/home/dev/acme/api/config/jwt/es256.pem', `${key.text}\n`),
        JSON.stringify({ keyId: 'es256-2024', privateKey: `${key.text}\n` }, null, 2),
      ][variant]!;
      return { text, secrets: key.secret };
    }),
  },
  {
    kind: 'openssh-private-key',
    doc: 'https://github.com/openssh/openssh-portable/blob/master/PROTOCOL.key',
    rows: [0, 1, 2].map((variant) => (g: Gen): Made => {
      const key = pemKey(g, 'openssh');
      const text = [
        `cat > ~/.ssh/id_ed25519 <<'EOF'\n${key.text}\nEOF\nchmod 600 ~/.ssh/id_ed25519`,
        `      - uses: webfactory/ssh-agent@v0.9.0\n        with:\n          ssh-private-key: |\n${key.text
          .split('\n')
          .map((l) => `            ${l}`)
          .join('\n')}\n`,
        writeTool('/home/dev/.ssh/id_ed25519_ci', `${key.text}\n`),
      ][variant]!;
      return { text, secrets: key.secret };
    }),
  },
  {
    kind: 'pkcs8-private-key',
    doc: 'https://datatracker.ietf.org/doc/html/rfc5208 (PKCS #8 "PRIVATE KEY")',
    rows: [0, 1, 2].map((variant) => (g: Gen): Made => {
      const key = pemKey(g, 'pkcs8');
      const text = [
        `APNS_KEY_ID=${g.str(10, 'upperDigits')}\nAPNS_KEY="${key.text.split('\n').join('\\n')}"\n`,
        `kubectl create secret tls web-tls --cert=tls.crt --key=/dev/stdin <<'EOF'\n${key.text}\nEOF`,
        editTool(
          '/home/dev/acme/api/src/config/keys.ts',
          'export const SIGNING_KEY = process.env.SIGNING_KEY;',
          `export const SIGNING_KEY = \`${key.text}\`;`,
        ),
      ][variant]!;
      return { text, secrets: key.secret };
    }),
  },
  {
    kind: 'age-secret-key',
    doc: 'https://github.com/C2SP/C2SP/blob/main/age.md (AGE-SECRET-KEY-1 + Bech32)',
    rows: tokenRows(
      (g) => `AGE-SECRET-KEY-1${g.str(58, 'bech32Upper')}`,
      [
        (t, g) =>
          writeTool(
            '/home/dev/.config/sops/age/keys.txt',
            `# created: ${g.isoTime()}\n# public key: age1${g.str(58, 'bech32')}\n${t}\n`,
          ),
        (t) => `export SOPS_AGE_KEY=${t}\nsops -d secrets/prod.enc.yaml`,
        (t) => `echo ${t} > ~/.config/sops/age/keys.txt`,
      ],
    ),
  },
];

/** Header and payload as JSON, base64url; the signature is random bytes (nothing verifies it). */
function jwt(g: Gen, claims: Record<string, unknown>, alg: 'HS256' | 'RS256' = 'HS256'): string {
  return `${b64url(JSON.stringify({ alg, typ: 'JWT' }))}.${b64url(JSON.stringify(claims))}.${g.str(alg === 'HS256' ? 43 : 342, 'b64url')}`;
}

/** A number derived from a value (keeps rows deterministic without drawing from the generator). */
function g0(value: string): string {
  let h = 0;
  for (let i = 0; i < value.length; i++) h = (Math.imul(h, 31) + value.charCodeAt(i)) >>> 0;
  return String(h).padStart(10, '7').slice(0, 16);
}

/** A password with a character that ends the value for a naive parser, and the pieces around it. */
function splitPassword(g: Gen, sep: string): { password: string; pieces: string[] } {
  const left = `${g.Word()}${g.digits(2)}`;
  const right = `${g.word()}${g.str(4, 'pw')}`;
  return { password: `${left}${sep}${right}`, pieces: [left, right] };
}

const STRUCTURAL_KINDS: SecretKind[] = [
  {
    kind: 'url-password',
    doc: 'https://datatracker.ietf.org/doc/html/rfc3986#section-3.2.1 (userinfo); https://www.postgresql.org/docs/current/libpq-connect.html#LIBPQ-CONNSTRING-URIS',
    rows: [
      (g) => {
        const pw = g.password();
        return {
          text: `psql "postgresql://app_user:${pw}@prod-db.cluster-${g.str(12, 'lowerDigits')}.us-east-1.rds.amazonaws.com:5432/app?sslmode=require" -c '\\dt'`,
          secrets: [pw],
        };
      },
      (g) => {
        const pw = g.password();
        return { text: `DATABASE_URL=mysql://root:${pw}@127.0.0.1:3306/shop`, secrets: [pw] };
      },
      (g) => {
        const pw = g.password();
        return {
          text: `mongosh "mongodb+srv://admin:${pw}@cluster0.${g.str(5, 'lowerDigits')}.mongodb.net/test?retryWrites=true&w=majority"`,
          secrets: [pw],
        };
      },
      (g) => {
        const pw = g.password();
        return { text: `CELERY_BROKER_URL = "amqp://orders_svc:${pw}@rabbitmq.internal:5672/orders"`, secrets: [pw] };
      },
      (g) => {
        const pw = g.password();
        return { text: `git clone https://deploy:${pw}@git.acme.io/platform/infra.git`, secrets: [pw] };
      },
      (g) => {
        const pw = g.password();
        return {
          text: `services:\n  api:\n    image: acme/api:1.8.2\n    environment:\n      - DATABASE_URL=postgres://postgres:${pw}@db:5432/postgres\n    depends_on: [db]\n`,
          secrets: [pw],
        };
      },
      (g) => {
        const pw = g.password();
        return {
          text: `pip install --index-url https://ci:${pw}@pypi.acme.io/simple/ acme-internal==2.3.1`,
          secrets: [pw],
        };
      },
      (g) => {
        const pw = g.password();
        return { text: `curl -T dump.sql.gz ftp://backup:${pw}@files.acme.io/uploads/`, secrets: [pw] };
      },
      (g) => {
        const pw = g.password();
        return {
          text: `[alembic]\nscript_location = migrations\nsqlalchemy.url = postgresql+psycopg2://etl:${pw}@warehouse:5432/analytics\n`,
          secrets: [pw],
        };
      },
    ],
  },
  {
    kind: 'url-password-redis',
    doc: 'https://www.iana.org/assignments/uri-schemes/prov/redis (redis://[user[:password]@]host)',
    rows: [
      (g) => {
        const pw = g.password();
        return {
          text: `redis-cli -u redis://default:${pw}@redis-${g.digits(5)}.c1.us-east-1-2.ec2.cloud.redislabs.com:${g.digits(5)} PING`,
          secrets: [pw],
        };
      },
      (g) => {
        const pw = g.password();
        return { text: `REDIS_URL=redis://:${pw}@cache.internal:6379/0`, secrets: [pw] };
      },
      (g) => {
        const pw = g.password();
        return {
          text: `cache:\n  url: rediss://:${pw}@master.acme-cache.${g.str(6, 'lowerDigits')}.use1.cache.amazonaws.com:6379\n`,
          secrets: [pw],
        };
      },
      (g) => {
        const pw = g.password();
        return { text: `r = redis.from_url("redis://:${pw}@localhost:6379/1", decode_responses=True)`, secrets: [pw] };
      },
    ],
  },
  {
    kind: 'url-password-special-chars',
    doc: 'https://datatracker.ietf.org/doc/html/rfc3986#section-2.1 (people write #, ?, @ raw; %40 is an encoded @)',
    rows: [
      (g) => {
        const { password, pieces } = splitPassword(g, '#');
        return { text: `psql 'postgres://admin:${password}@db.internal/app'`, secrets: [password, ...pieces] };
      },
      (g) => {
        const { password, pieces } = splitPassword(g, '?');
        return {
          text: `DATABASE_URL=postgresql://svc:${password}@10.0.3.7:5432/orders`,
          secrets: [password, ...pieces],
        };
      },
      (g) => {
        const { password, pieces } = splitPassword(g, '@');
        return {
          text: `SQLALCHEMY_DATABASE_URI = "mysql+pymysql://root:${password}@localhost:3306/shop"`,
          secrets: [password, ...pieces],
        };
      },
      (g) => {
        const { password, pieces } = splitPassword(g, '%40');
        return { text: `AMQP_URL=amqp://app:${password}@mq.internal:5672/%2F`, secrets: [password, ...pieces] };
      },
      (g) => {
        const { password, pieces } = splitPassword(g, ' ');
        return {
          text: `psql "postgresql://admin:${password}@db.internal:5432/app" -f migrate.sql`,
          secrets: [password, ...pieces],
        };
      },
      (g) => {
        const { password, pieces } = splitPassword(g, '#');
        return {
          text: `MONGO_URI="mongodb://user:${password}@mongo-0.mongo:27017/app?replicaSet=rs0"`,
          secrets: [password, ...pieces],
        };
      },
    ],
  },
  {
    kind: 'jdbc-connection-string',
    doc: 'https://jdbc.postgresql.org/documentation/use/#connection-parameters; https://learn.microsoft.com/en-us/sql/connect/jdbc/building-the-connection-url',
    rows: [
      (g) => {
        const pw = g.password();
        return {
          text: `spring.datasource.url=jdbc:postgresql://db:5432/app?user=app&password=${pw}&ssl=true`,
          secrets: [pw],
        };
      },
      (g) => {
        const pw = g.password();
        return {
          text: `DB_URL="jdbc:sqlserver://sql.acme.local:1433;databaseName=Sales;user=sa;password=${pw};encrypt=true;trustServerCertificate=false"`,
          secrets: [pw],
        };
      },
      (g) => {
        const pw = g.password();
        return {
          text: `java -jar flyway.jar -url="jdbc:mysql://db.internal:3306/shop?user=shop&password=${pw}&useSSL=true" migrate`,
          secrets: [pw],
        };
      },
      (g) => {
        const pw = g.str(16, 'b62');
        return {
          text: `liquibase update --url="jdbc:oracle:thin:scott/${pw}@//ora.acme.local:1521/ORCLPDB1" --changelog-file=db/changelog.xml`,
          secrets: [pw],
        };
      },
    ],
  },
  {
    kind: 'odbc-connection-string',
    doc: 'https://learn.microsoft.com/en-us/sql/connect/odbc/dsn-connection-string-attribute',
    rows: [
      (g) => {
        const pw = g.password();
        return {
          text: `SQLCONN="Driver={ODBC Driver 18 for SQL Server};Server=tcp:acme.database.windows.net,1433;Database=sales;Uid=reporting;Pwd=${pw};Encrypt=yes;"`,
          secrets: [pw],
        };
      },
      (g) => {
        const pw = g.password();
        return {
          text: `conn = pyodbc.connect("DRIVER={PostgreSQL Unicode};SERVER=db;PORT=5432;DATABASE=app;UID=app;PWD=${pw}")`,
          secrets: [pw],
        };
      },
      (g) => {
        const pw = g.password();
        return {
          text: `[warehouse]\nDriver = SnowflakeDSIIDriver\nServer = acme.snowflakecomputing.com\nuid = etl\npwd = ${pw}\nwarehouse = COMPUTE_WH\n`,
          secrets: [pw],
        };
      },
    ],
  },
  {
    kind: 'adonet-connection-string',
    doc: 'https://learn.microsoft.com/en-us/dotnet/framework/data/adonet/connection-string-syntax',
    rows: [
      (g) => {
        const pw = g.password();
        return {
          text: JSON.stringify(
            {
              ConnectionStrings: {
                Default: `Server=sql01;Database=Orders;User Id=orders_app;Password=${pw};TrustServerCertificate=True`,
              },
            },
            null,
            2,
          ),
          secrets: [pw],
        };
      },
      (g) => {
        const pw = g.password();
        return {
          text: `using var conn = new SqlConnection("Data Source=tcp:acme.database.windows.net,1433;Initial Catalog=crm;User ID=crm;Password=${pw};");`,
          secrets: [pw],
        };
      },
      (g) => {
        const pw = g.password();
        return {
          text: `dotnet user-secrets set "ConnectionStrings:Db" "Host=localhost;Database=app;Username=postgres;Password=${pw}"`,
          secrets: [pw],
        };
      },
      (g) => {
        const pw = g.password();
        return {
          text: `<connectionStrings>\n  <add name="Main" connectionString="Server=db;Database=main;User Id=web;Password=${pw};" providerName="System.Data.SqlClient" />\n</connectionStrings>`,
          secrets: [pw],
        };
      },
    ],
  },
  {
    kind: 'curl-user-password',
    doc: 'https://curl.se/docs/manpage.html#-u',
    rows: [
      (g) => {
        const pw = g.password();
        return { text: `curl -u admin:${pw} https://jenkins.acme.io/api/json?pretty=true`, secrets: [pw] };
      },
      (g) => {
        const pw = g.password();
        return {
          text: `curl --user "ci-bot:${pw}" -X POST "https://nexus.acme.io/service/rest/v1/components?repository=maven-releases" -F maven2.asset1=@app.jar`,
          secrets: [pw],
        };
      },
      (g) => {
        const pw = g.password();
        return {
          text: `curl -fsSL -u deploy:${pw} -T app-1.4.2.war https://artifactory.acme.io/artifactory/libs-release/app/1.4.2/app-1.4.2.war`,
          secrets: [pw],
        };
      },
      (g) => {
        const pw = g.password();
        return { text: `wget --user=backup --password=${pw} https://files.acme.io/dumps/latest.tar.gz`, secrets: [pw] };
      },
      (g) => {
        const pw = g.password();
        return { text: `http -a admin:${pw} GET https://api.acme.io/health`, secrets: [pw] };
      },
    ],
  },
  {
    kind: 'bearer-header',
    doc: 'https://datatracker.ietf.org/doc/html/rfc6750#section-2.1',
    rows: tokenRows(
      (g) => g.opaque(),
      [
        (t) => `curl -H 'Authorization: Bearer ${t}' https://api.acme.io/v2/orders?status=open`,
        (t) => `curl -sS -X POST https://hooks.acme.io/deploy -H "authorization: bearer ${t}" -d '{"ref":"main"}'`,
        (t) =>
          `const res = await fetch(url, { headers: { Authorization: "Bearer ${t}", Accept: "application/json" } });`,
        (t) => `http GET api.acme.io/me "Authorization:Bearer ${t}"`,
        (t) => `resp = requests.get(f"{BASE}/v1/reports", headers={"Authorization": "Bearer ${t}"}, timeout=10)`,
      ],
    ),
  },
  {
    kind: 'basic-auth-header',
    doc: 'https://datatracker.ietf.org/doc/html/rfc7617',
    rows: [0, 1, 2, 3].map((variant) => (g: Gen): Made => {
      const user = g.pick(['ci', 'admin', 'deploy', 'jane']);
      const pw = g.password();
      const cred = b64(`${user}:${pw}`);
      const text = [
        `curl -H "Authorization: Basic ${cred}" https://registry.acme.io/v2/_catalog`,
        `location /metrics {\n    proxy_pass http://127.0.0.1:9100;\n    proxy_set_header Authorization "Basic ${cred}";\n}\n`,
        JSON.stringify({ auths: { 'registry.acme.io': { auth: cred } } }, null, 2),
        `GET /api/v1/status HTTP/1.1\r\nHost: grafana.acme.io\r\nAuthorization: Basic ${cred}\r\nAccept: */*\r\n\r\n`,
      ][variant]!;
      return { text, secrets: [cred] };
    }),
  },
  {
    kind: 'proxy-authorization',
    doc: 'https://datatracker.ietf.org/doc/html/rfc9110#name-proxy-authorization; https://curl.se/docs/manpage.html#-U',
    rows: [
      (g) => {
        const cred = b64(`alice:${g.password()}`);
        return {
          text: `curl -x http://proxy.corp.acme.io:3128 -H "Proxy-Authorization: Basic ${cred}" https://pypi.org/simple/requests/`,
          secrets: [cred],
        };
      },
      (g) => {
        const pw = g.password();
        return {
          text: `curl --proxy-user alice:${pw} -x http://proxy.corp.acme.io:8080 https://registry.npmjs.org/`,
          secrets: [pw],
        };
      },
      (g) => {
        const pw = g.password();
        return {
          text: `export https_proxy=http://alice:${pw}@proxy.corp.acme.io:8080\nexport no_proxy=localhost,127.0.0.1,.acme.internal`,
          secrets: [pw],
        };
      },
      (g) => {
        const t = g.opaque();
        return {
          text: `CONNECT api.openai.com:443 HTTP/1.1\r\nHost: api.openai.com:443\r\nProxy-Authorization: Bearer ${t}\r\n\r\n`,
          secrets: [t],
        };
      },
    ],
  },
  {
    kind: 'curl-oauth2-bearer',
    doc: 'https://curl.se/docs/manpage.html#--oauth2-bearer',
    rows: tokenRows(
      (g) => g.opaque(),
      [
        (t) => `curl --oauth2-bearer ${t} https://graph.microsoft.com/v1.0/me`,
        (t) => `curl -s --oauth2-bearer "${t}" --url "imaps://imap.gmail.com/INBOX" --user "jane@acme.io"`,
        (t) => `curl -sS --oauth2-bearer ${t} -X DELETE https://api.acme.io/v1/sessions/42`,
      ],
    ),
  },
  {
    kind: 'mysql-password-flag',
    doc: 'https://dev.mysql.com/doc/refman/8.4/en/connection-options.html#option_general_password',
    rows: [
      (g) => {
        const pw = g.str(g.int(12, 20), 'pw');
        return { text: `mysql -u root -p${pw} -h 127.0.0.1 shop < dump.sql`, secrets: [pw] };
      },
      (g) => {
        const pw = g.str(g.int(12, 20), 'pw');
        return {
          text: `mysqldump -uadmin -p${pw} --single-transaction --routines shop > shop-$(date +%F).sql`,
          secrets: [pw],
        };
      },
      (g) => {
        const pw = g.password();
        return { text: `docker exec -i db mysql -uroot -p${pw} -e "SHOW DATABASES;"`, secrets: [pw] };
      },
      (g) => {
        const pw = g.password();
        return {
          text: `mysql --user=app --password=${pw} --host=db.internal app -e 'select count(*) from orders'`,
          secrets: [pw],
        };
      },
    ],
  },
  {
    kind: 'pgpassword',
    doc: 'https://www.postgresql.org/docs/current/libpq-envars.html; https://www.postgresql.org/docs/current/libpq-pgpass.html',
    rows: [
      (g) => {
        const pw = g.password();
        return { text: `PGPASSWORD=${pw} psql -h db.internal -U postgres -d app -c 'select 1'`, secrets: [pw] };
      },
      (g) => {
        const pw = g.password();
        return { text: `PGPASSWORD='${pw}' pg_dump -h localhost -U app -Fc app > app.dump`, secrets: [pw] };
      },
      (g) => {
        const pw = g.password();
        return { text: `export PGPASSWORD=${pw}\npsql -h ${g.host()} -U app -d app -f schema.sql`, secrets: [pw] };
      },
      (g) => {
        const pw = g.password();
        return {
          text: `echo "db.internal:5432:app:app_user:${pw}" >> ~/.pgpass && chmod 600 ~/.pgpass`,
          secrets: [pw],
        };
      },
    ],
  },
  {
    kind: 'redis-cli-password',
    doc: 'https://redis.io/docs/latest/develop/tools/cli/#host-port-password-and-database',
    rows: [
      (g) => {
        const pw = g.password();
        return { text: `redis-cli -h cache.internal -p 6379 -a ${pw} INFO memory`, secrets: [pw] };
      },
      (g) => {
        const pw = g.password();
        return { text: `redis-cli -a '${pw}' --no-auth-warning --scan --pattern 'session:*' | head`, secrets: [pw] };
      },
      (g) => {
        const pw = g.password();
        return { text: `redis-cli --pass ${pw} -h 10.0.0.5 ping`, secrets: [pw] };
      },
      (g) => {
        const pw = g.password();
        return { text: `redis-cli -h redis.internal AUTH default ${pw}`, secrets: [pw] };
      },
    ],
  },
  {
    kind: 'mongo-cli-password',
    doc: 'https://www.mongodb.com/docs/mongodb-shell/reference/options/#std-option-mongosh.--password',
    rows: [
      (g) => {
        const pw = g.password();
        return {
          text: `mongosh --host mongo.internal -u admin -p ${pw} --authenticationDatabase admin`,
          secrets: [pw],
        };
      },
      (g) => {
        const pw = g.password();
        return { text: `mongosh "mongodb://mongo:27017/app" --username app --password '${pw}'`, secrets: [pw] };
      },
      (g) => {
        const pw = g.password();
        return {
          text: `mongodump --uri mongodb://localhost:27017 -u backup --password=${pw} --out /backups/$(date +%F)`,
          secrets: [pw],
        };
      },
      (g) => {
        const pw = g.password();
        return {
          text: `mongoimport --username etl --password ${pw} --db analytics --collection events --file events.json`,
          secrets: [pw],
        };
      },
    ],
  },
  {
    kind: 'registry-login-password',
    doc: 'https://docs.docker.com/reference/cli/docker/login/',
    rows: [
      (g) => {
        const pw = g.password();
        return { text: `docker login -u deploy -p ${pw} registry.acme.io`, secrets: [pw] };
      },
      (g) => {
        const pw = g.password();
        return { text: `docker login registry.gitlab.com --username ci --password ${pw}`, secrets: [pw] };
      },
      (g) => {
        const pw = g.password();
        return { text: `podman login -u admin -p ${pw} quay.acme.io`, secrets: [pw] };
      },
      (g) => {
        const pw = g.password();
        return { text: `helm registry login ghcr.io -u acme-bot -p ${pw}`, secrets: [pw] };
      },
    ],
  },
  {
    kind: 'htpasswd-password',
    doc: 'https://httpd.apache.org/docs/current/programs/htpasswd.html',
    rows: [
      (g) => {
        const pw = g.password();
        return { text: `htpasswd -b -c /etc/nginx/.htpasswd admin ${pw}`, secrets: [pw] };
      },
      (g) => {
        const pw = g.password();
        return { text: `htpasswd -bB auth/users prometheus ${pw}`, secrets: [pw] };
      },
      (g) => {
        const pw = g.password();
        return {
          text: `docker run --rm --entrypoint htpasswd httpd:2 -Bbn registry ${pw} > auth/htpasswd`,
          secrets: [pw],
        };
      },
    ],
  },
  {
    kind: 'env-secret-assignment',
    doc: 'https://12factor.net/config (secrets in environment variables and .env files, as named by convention)',
    rows: [
      (g) => {
        const pw = g.password();
        return {
          text: writeTool(
            '/home/dev/acme/api/.env',
            `APP_ENV=production\nDB_HOST=${g.host()}\nDB_USER=api\nDB_PASSWORD=${pw}\nDB_NAME=api\n`,
          ),
          secrets: [pw],
        };
      },
      (g) => {
        const t = g.opaque();
        return { text: `export API_KEY=${t}`, secrets: [t] };
      },
      (g) => {
        const t = g.str(40, 'b64url');
        return { text: `CLIENT_ID=${g.uuid()}\nCLIENT_SECRET="${t}"\n`, secrets: [t] };
      },
      (g) => {
        const t = g.str(64, 'b64');
        return { text: `Jwt__Issuer=https://auth.acme.io\nJwt__Secret=${t}\n`, secrets: [t] };
      },
      (g) => {
        const t = g.str(32, 'b62');
        return { text: `app.name=orders\napp.secretKey=${t}\nserver.port=8080\n`, secrets: [t] };
      },
      (g) => {
        const t = g.hex(128);
        return { text: `SECRET_KEY_BASE=${t} RAILS_ENV=production bin/rails assets:precompile`, secrets: [t] };
      },
      (g) => {
        const t = g.str(50, 'django');
        return {
          text: editTool(
            '/home/dev/acme/site/settings.py',
            "SECRET_KEY = os.environ['DJANGO_SECRET_KEY']",
            `SECRET_KEY = '${t}'`,
          ),
          secrets: [t],
        };
      },
      (g) => {
        const t = g.opaque();
        return { text: `$env:API_TOKEN = "${t}"\n.\\scripts\\sync.ps1 -Verbose`, secrets: [t] };
      },
      (g) => {
        const pw = g.password();
        return { text: `MYAPP_ADMIN_PASS=${pw} ./bin/setup --seed`, secrets: [pw] };
      },
      (g) => {
        const t = b64(g.str(32, 'b62'));
        return { text: `encryption-key=${t}\nencryption-algorithm=aes-256-gcm\n`, secrets: [t] };
      },
      (g) => {
        const t = g.opaque();
        return { text: `set -gx ACCESS_TOKEN ${t}`, secrets: [t] };
      },
    ],
  },
  {
    kind: 'yaml-secret-value',
    doc: 'https://yaml.org/spec/1.2.2/ (key: value mappings whose key names a secret)',
    rows: [
      (g) => {
        const pw = g.password();
        return {
          text: `database:\n  host: ${g.host()}\n  port: 5432\n  username: app\n  password: ${pw}\n`,
          secrets: [pw],
        };
      },
      (g) => {
        const pw = g.password();
        return { text: `smtp:\n  host: smtp.mailgun.org\n  user: mailer@acme.io\n  pass: "${pw}"\n`, secrets: [pw] };
      },
      (g) => {
        const t = g.str(40, 'b64url');
        return {
          text: `oauth:\n  client_id: ${g.hex(20)}\n  client_secret: ${t}\n  redirect_uri: https://app.acme.io/callback\n`,
          secrets: [t],
        };
      },
      (g) => {
        const pw = g.password();
        return {
          text: `services:\n  db:\n    image: postgres:16\n    environment:\n      POSTGRES_USER: app\n      POSTGRES_PASSWORD: ${pw}\n`,
          secrets: [pw],
        };
      },
      (g) => {
        const pw = g.password();
        const key = g.str(64, 'b64');
        return { text: `auth:\n  rootPassword: ${pw}\n  replicaSetKey: ${key}\n`, secrets: [pw, key] };
      },
      (g) => {
        const t = g.opaque();
        return { text: `integrations:\n  pagerduty:\n    api-key: '${t}'\n`, secrets: [t] };
      },
    ],
  },
  {
    kind: 'json-secret-value',
    doc: 'https://www.rfc-editor.org/rfc/rfc8259 ("key": "value" members whose key names a secret)',
    rows: [
      (g) => {
        const pw = g.password();
        return { text: JSON.stringify({ db: { host: g.host(), user: 'app', password: pw } }, null, 2), secrets: [pw] };
      },
      (g) => {
        const t = g.opaque();
        return {
          text: JSON.stringify(
            {
              Logging: { LogLevel: { Default: 'Warning' } },
              Payments: { ApiKey: t, BaseUrl: 'https://api.payments.example' },
            },
            null,
            2,
          ),
          secrets: [t],
        };
      },
      (g) => {
        const t = `GOCSPX-${g.str(28, 'b64url')}`;
        return {
          text: JSON.stringify({
            installed: {
              client_id: `${g.digits(12)}-${g.str(32, 'lowerDigits')}.apps.googleusercontent.com`,
              project_id: 'acme-tools',
              client_secret: t,
              redirect_uris: ['http://localhost'],
            },
          }),
          secrets: [t],
        };
      },
      (g) => {
        const t = g.opaque();
        return { text: `{"accessToken": "${t}", "expiresAt": "${g.isoTime()}", "user": {"id": 4821}}`, secrets: [t] };
      },
      (g) => {
        const t = g.str(32, 'b62');
        return {
          text: JSON.stringify(
            { webhooks: [{ url: 'https://api.acme.io/hooks/github', events: ['push'], secret: t }] },
            null,
            2,
          ),
          secrets: [t],
        };
      },
    ],
  },
  {
    kind: 'xml-secret-value',
    doc: 'https://www.w3.org/TR/xml/ (attributes and elements whose name names a secret)',
    rows: [
      (g) => {
        const pw = g.password();
        return { text: `<connection host="db.internal" port="5432" user="app" password="${pw}" />`, secrets: [pw] };
      },
      (g) => {
        const pw = g.password();
        return {
          text: `<property name="hibernate.connection.username">app</property>\n<property name="hibernate.connection.password">${pw}</property>`,
          secrets: [pw],
        };
      },
      (g) => {
        const t = g.opaque();
        return {
          text: `<service>\n  <endpoint>https://api.acme.io</endpoint>\n  <apiKey>${t}</apiKey>\n</service>`,
          secrets: [t],
        };
      },
      (g) => {
        const t = g.opaque();
        return {
          text: `<appSettings>\n  <add key="Environment" value="Production" />\n  <add key="PaymentsSecretKey" value="${t}" />\n</appSettings>`,
          secrets: [t],
        };
      },
      (g) => {
        const pw = g.password();
        return {
          text: `<properties>\n  <entry key="jdbc.user">app</entry>\n  <entry key="jdbc.password">${pw}</entry>\n</properties>`,
          secrets: [pw],
        };
      },
    ],
  },
  {
    kind: 'k8s-secret-data',
    doc: 'https://kubernetes.io/docs/concepts/configuration/secret/ (data: base64 values)',
    rows: [
      (g) => {
        const pw = b64(g.password());
        return {
          text: `apiVersion: v1\nkind: Secret\nmetadata:\n  name: db-credentials\n  namespace: prod\ntype: Opaque\ndata:\n  username: ${b64('app')}\n  password: ${pw}\n`,
          secrets: [pw],
        };
      },
      (g) => {
        const t = b64(g.opaque());
        return {
          text: `kubectl apply -f - <<EOF\napiVersion: v1\nkind: Secret\nmetadata:\n  name: api-token\ntype: Opaque\ndata:\n  api-key: ${t}\nEOF`,
          secrets: [t],
        };
      },
      (g) => {
        const cfg = b64(
          JSON.stringify({
            auths: { 'registry.acme.io': { username: 'ci', password: g.password(), auth: b64(`ci:${g.password()}`) } },
          }),
        );
        return {
          text: `apiVersion: v1\nkind: Secret\nmetadata:\n  name: regcred\ntype: kubernetes.io/dockerconfigjson\ndata:\n  .dockerconfigjson: ${cfg}\n`,
          secrets: [cfg],
        };
      },
      (g) => {
        const key = b64(`${pemKey(g, 'pkcs8').text}\n`);
        return {
          text: `apiVersion: v1\nkind: Secret\nmetadata:\n  name: web-tls\ntype: kubernetes.io/tls\ndata:\n  tls.crt: ${b64(`-----BEGIN CERTIFICATE-----\n${g.str(64, 'b64')}\n-----END CERTIFICATE-----\n`)}\n  tls.key: ${key}\n`,
          secrets: [key],
        };
      },
      (g) => {
        const t = b64(
          jwt(
            g,
            {
              iss: 'kubernetes/serviceaccount',
              'kubernetes.io/serviceaccount/namespace': 'ci',
              sub: 'system:serviceaccount:ci:deployer',
            },
            'RS256',
          ),
        );
        return {
          text: `$ kubectl get secret deployer-token -n ci -o yaml\napiVersion: v1\ndata:\n  namespace: ${b64('ci')}\n  token: ${t}\nkind: Secret\nmetadata:\n  name: deployer-token\n  namespace: ci\ntype: kubernetes.io/service-account-token\n`,
          secrets: [t],
        };
      },
    ],
  },
  {
    kind: 'k8s-secret-stringdata',
    doc: 'https://kubernetes.io/docs/concepts/configuration/secret/ (stringData: plain values)',
    rows: [
      (g) => {
        const pw = g.password();
        return {
          text: `apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\nstringData:\n  username: app\n  password: ${pw}\n`,
          secrets: [pw],
        };
      },
      (g) => {
        const t = g.opaque();
        return {
          text: `apiVersion: v1\nkind: Secret\nmetadata:\n  name: app-config\nstringData:\n  config.yaml: |\n    logLevel: info\n    apiKey: ${t}\n`,
          secrets: [t],
        };
      },
      (g) => {
        const t = g.opaque();
        return {
          text: `stringData:\n  SENTRY_DSN: https://public@o1.ingest.sentry.io/1\n  STRIPE_KEY: "${t}"\n`,
          secrets: [t],
        };
      },
    ],
  },
  {
    kind: 'kubectl-from-literal',
    doc: 'https://kubernetes.io/docs/reference/kubectl/generated/kubectl_create/kubectl_create_secret_generic/',
    rows: [
      (g) => {
        const t = g.opaque();
        const pw = g.password();
        return {
          text: `kubectl create secret generic app-secrets --from-literal=API_TOKEN=${t} --from-literal=DB_PASS=${pw} -n prod`,
          secrets: [t, pw],
        };
      },
      (g) => {
        const pw = g.password();
        return {
          text: `kubectl -n monitoring create secret generic grafana-admin --from-literal=admin-user=admin --from-literal=admin-password='${pw}'`,
          secrets: [pw],
        };
      },
      (g) => {
        const pw = g.password();
        return {
          text: `kubectl create secret docker-registry regcred --docker-server=registry.acme.io --docker-username=ci --docker-password=${pw} --docker-email=ci@acme.io`,
          secrets: [pw],
        };
      },
    ],
  },
  {
    kind: 'npmrc-auth',
    doc: 'https://docs.npmjs.com/cli/v10/configuring-npm/npmrc#auth-related-configuration',
    rows: [
      (g) => {
        const t = `NpmToken.${g.uuid()}`;
        return {
          text: `registry=https://nexus.acme.io/repository/npm-group/\n//nexus.acme.io/repository/npm-group/:_authToken=${t}\n`,
          secrets: [t],
        };
      },
      (g) => {
        const t = b64(`ci:${g.password()}`);
        return {
          text: writeTool('/home/dev/acme/web/.npmrc', `registry=https://npm.acme.io/\n_auth=${t}\nalways-auth=true\n`),
          secrets: [t],
        };
      },
      (g) => {
        const t = b64(g.password());
        return {
          text: `//artifactory.acme.io/artifactory/api/npm/npm/:username=ci\n//artifactory.acme.io/artifactory/api/npm/npm/:_password=${t}\n//artifactory.acme.io/artifactory/api/npm/npm/:email=ci@acme.io\n`,
          secrets: [t],
        };
      },
      (g) => {
        const t = `cmVmdGtuOjAxOj${g.str(50, 'b62')}`;
        return {
          text: `@acme:registry=https://acme.jfrog.io/artifactory/api/npm/npm-local/\n//acme.jfrog.io/artifactory/api/npm/npm-local/:_authToken=${t}\n`,
          secrets: [t],
        };
      },
    ],
  },
  {
    kind: 'pypirc-password',
    doc: 'https://packaging.python.org/en/latest/specifications/pypirc/',
    rows: [
      (g) => {
        const pw = g.password();
        return {
          text: `[distutils]\nindex-servers =\n    internal\n\n[internal]\nrepository = https://pypi.acme.io/\nusername = ci\npassword = ${pw}\n`,
          secrets: [pw],
        };
      },
      (g) => {
        const t = pypiToken(g);
        return {
          text: writeTool('/home/dev/.pypirc', `[testpypi]\nusername = __token__\npassword = ${t}\n`),
          secrets: [t],
        };
      },
      (g) => {
        const pw = g.password();
        return { text: `poetry config http-basic.internal ci ${pw}`, secrets: [pw] };
      },
    ],
  },
  {
    kind: 'nuget-cleartext-password',
    doc: 'https://learn.microsoft.com/en-us/nuget/reference/nuget-config-file#packagesourcecredentials',
    rows: [
      (g) => {
        const pw = g.password();
        return {
          text: `<?xml version="1.0" encoding="utf-8"?>\n<configuration>\n  <packageSources>\n    <add key="acme" value="https://nuget.acme.io/v3/index.json" />\n  </packageSources>\n  <packageSourceCredentials>\n    <acme>\n      <add key="Username" value="ci" />\n      <add key="ClearTextPassword" value="${pw}" />\n    </acme>\n  </packageSourceCredentials>\n</configuration>\n`,
          secrets: [pw],
        };
      },
      (g) => {
        const t = ghp(g);
        return {
          text: `dotnet nuget add source https://nuget.pkg.github.com/acme/index.json -n github -u acme-bot -p ${t} --store-password-in-clear-text`,
          secrets: [t],
        };
      },
      (g) => {
        const pw = g.password();
        return {
          text: `nuget sources add -Name internal -Source https://nuget.acme.io/v3/index.json -Username ci -Password ${pw}`,
          secrets: [pw],
        };
      },
    ],
  },
  {
    kind: 'maven-settings-password',
    doc: 'https://maven.apache.org/settings.html#servers',
    rows: [
      (g) => {
        const pw = g.password();
        return {
          text: `<settings>\n  <servers>\n    <server>\n      <id>nexus-releases</id>\n      <username>deployment</username>\n      <password>${pw}</password>\n    </server>\n  </servers>\n</settings>\n`,
          secrets: [pw],
        };
      },
      (g) => {
        const pw = g.password();
        return {
          text: `<server>\n  <id>ssh-repo</id>\n  <username>deploy</username>\n  <privateKey>\${user.home}/.ssh/id_ed25519</privateKey>\n  <passphrase>${pw}</passphrase>\n</server>`,
          secrets: [pw],
        };
      },
      (g) => {
        const pw = g.password();
        return {
          text: writeTool(
            '/home/dev/.m2/settings.xml',
            `<settings>\n  <mirrors>\n    <mirror><id>central-proxy</id><url>https://nexus.acme.io/repository/maven-public/</url><mirrorOf>central</mirrorOf></mirror>\n  </mirrors>\n  <servers>\n    <server><id>central-proxy</id><username>ci</username><password>${pw}</password></server>\n  </servers>\n</settings>\n`,
          ),
          secrets: [pw],
        };
      },
    ],
  },
  {
    kind: 'session-cookie',
    doc: 'https://datatracker.ietf.org/doc/html/rfc6265',
    rows: [
      (g) => {
        const s = g.str(32, 'lowerDigits');
        return {
          text: `curl -b 'sessionid=${s}; csrftoken=${g.str(32)}' https://admin.acme.io/admin/orders/`,
          secrets: [s],
        };
      },
      (g) => {
        const s = `s%3A${g.str(32, 'b64url')}.${g.str(43, 'b64')}`;
        return { text: `curl -H "Cookie: connect.sid=${s}; theme=dark" http://localhost:3000/dashboard`, secrets: [s] };
      },
      (g) => {
        const s = g.str(43, 'b64url');
        return {
          text: `HTTP/2 200\ncontent-type: text/html\nset-cookie: __Host-session=${s}; Path=/; Secure; HttpOnly; SameSite=Lax\n`,
          secrets: [s],
        };
      },
      (g) => {
        const s = g.str(40, 'b64url');
        return {
          text: `# Netscape HTTP Cookie File\n.acme.io\tTRUE\t/\tTRUE\t1767225600\tsession\t${s}\n.acme.io\tTRUE\t/\tFALSE\t1767225600\tlocale\ten-US\n`,
          secrets: [s],
        };
      },
      (g) => {
        const s = g.str(26, 'lowerDigits');
        return { text: `curl -H "Cookie: PHPSESSID=${s}" "http://localhost:8080/admin.php?page=users"`, secrets: [s] };
      },
    ],
  },
  {
    kind: 'bundler-credentials',
    doc: 'https://bundler.io/v2.5/man/bundle-config.1.html#CREDENTIALS-FOR-GEM-SOURCES; https://github.com/sidekiq/sidekiq/wiki/Commercial-FAQ',
    rows: [
      (g) => {
        const pass = g.hex(8);
        return {
          text: `export BUNDLE_ENTERPRISE__CONTRIBSYS__COM=${g.hex(8)}:${pass}\nbundle install`,
          secrets: [pass],
        };
      },
      (g) => {
        const pass = g.hex(8);
        return { text: `bundle config --global enterprise.contribsys.com ${g.hex(8)}:${pass}`, secrets: [pass] };
      },
      (g) => {
        const pw = g.password();
        return { text: `---\nBUNDLE_PATH: "vendor/bundle"\nBUNDLE_GEMS__ACME__IO: "ci:${pw}"\n`, secrets: [pw] };
      },
      (g) => {
        const t = `ghs_${g.str(36)}`;
        return { text: `BUNDLE_GITHUB__COM=x-access-token:${t} bundle install --jobs 4`, secrets: [t] };
      },
    ],
  },
  {
    kind: 'netrc-password',
    doc: 'https://everything.curl.dev/usingcurl/netrc.html',
    rows: [
      (g) => {
        const t = g.uuid();
        return {
          text: `machine api.heroku.com\n  login dev@acme.io\n  password ${t}\nmachine git.heroku.com\n  login dev@acme.io\n  password ${t}\n`,
          secrets: [t],
        };
      },
      (g) => {
        const t = ghp(g);
        return {
          text: `echo "machine github.com login acme-bot password ${t}" >> ~/.netrc && chmod 600 ~/.netrc`,
          secrets: [t],
        };
      },
      (g) => {
        const pw = g.password();
        return { text: `machine artifactory.acme.io login ci password ${pw}`, secrets: [pw] };
      },
    ],
  },
  {
    kind: 'sshpass-password',
    doc: 'https://linux.die.net/man/1/sshpass',
    rows: [
      (g) => {
        const pw = g.password();
        return {
          text: `sshpass -p '${pw}' ssh -o StrictHostKeyChecking=no deploy@10.0.4.12 'sudo systemctl restart app'`,
          secrets: [pw],
        };
      },
      (g) => {
        const pw = g.password();
        return { text: `sshpass -p ${pw} scp build.tar.gz ubuntu@bastion.acme.io:/tmp/`, secrets: [pw] };
      },
      (g) => {
        const pw = g.password();
        return {
          text: `sshpass -p "${pw}" rsync -avz --delete dist/ www@web01.acme.internal:/var/www/html/`,
          secrets: [pw],
        };
      },
    ],
  },
  {
    kind: 'cli-password-flag',
    doc: 'https://docs.openssl.org/3.0/man1/openssl-passphrase-options/; https://docs.oracle.com/en/java/javase/21/docs/specs/man/keytool.html',
    rows: [
      (g) => {
        const pw = g.password();
        return {
          text: `openssl pkcs12 -export -in cert.pem -inkey key.pem -out bundle.p12 -passout pass:${pw}`,
          secrets: [pw],
        };
      },
      (g) => {
        const pw = g.password();
        return {
          text: `keytool -importkeystore -srckeystore bundle.p12 -srcstoretype PKCS12 -destkeystore app.jks -deststorepass ${pw} -srcstorepass ${pw}`,
          secrets: [pw],
        };
      },
      (g) => {
        const pw = g.password();
        return {
          text: `gpg --batch --yes --pinentry-mode loopback --passphrase '${pw}' -d backup.tar.gz.gpg | tar xz`,
          secrets: [pw],
        };
      },
      (g) => {
        const pw = g.str(g.int(10, 16), 'b62');
        return { text: `zip -r -P ${pw} export.zip reports/`, secrets: [pw] };
      },
      (g) => {
        const pw = g.str(g.int(10, 16), 'b62');
        return { text: `7z a -p${pw} -mhe=on archive.7z data/`, secrets: [pw] };
      },
    ],
  },
  {
    kind: 'wireguard-private-key',
    doc: 'https://www.wireguard.com/quickstart/ (PrivateKey = 32 bytes, base64)',
    rows: [
      (g) => {
        const k = `${g.str(43, 'b64')}=`;
        return {
          text: writeTool(
            '/etc/wireguard/wg0.conf',
            `[Interface]\nPrivateKey = ${k}\nAddress = 10.8.0.2/24\nDNS = 10.8.0.1\n\n[Peer]\nPublicKey = ${g.str(43, 'b64')}=\nEndpoint = vpn.acme.io:51820\nAllowedIPs = 10.8.0.0/24\n`,
          ),
          secrets: [k],
        };
      },
      (g) => {
        const k = `${g.str(43, 'b64')}=`;
        return {
          text: `wg set wg0 private-key <(echo ${k}) peer ${g.str(43, 'b64')}= allowed-ips 10.8.0.0/24`,
          secrets: [k],
        };
      },
      (g) => {
        const k = `${g.str(43, 'b64')}=`;
        return { text: `echo ${k} | wg pubkey`, secrets: [k] };
      },
    ],
  },
];

// ── clean kinds: hard negatives ───────────────────────────────────────────────────────────────────────────

const sha = (g: Gen): string => g.hex(40);
const shortSha = (g: Gen): string => g.hex(g.pick([7, 7, 8, 10, 12]));
const podHash = (g: Gen): string => g.str(g.pick([9, 10]), 'k8s');
const podName = (g: Gen, app: string): string => `${app}-${podHash(g)}-${g.str(5, 'k8s')}`;
const awsId = (g: Gen, prefix: string): string => `${prefix}-0${g.hex(16)}`;

const CLEAN_KINDS: CleanKind[] = [
  {
    kind: 'placeholder-literal',
    rows: [
      () => 'export OPENAI_API_KEY=<your-api-key>',
      () => 'GITHUB_TOKEN=YOUR_GITHUB_TOKEN',
      () => 'database:\n  user: app\n  password: changeme\n',
      () => 'API_KEY=REPLACE_ME\nAPI_URL=https://api.acme.io\n',
      () => '{"apiKey": "xxx", "region": "us-east-1"}',
      () => 'DB_PASSWORD=********',
      () => 'api_key = "dummy"  # overridden in tests',
      () => 'STRIPE_SECRET_KEY=sk_live_...\nSTRIPE_PUBLISHABLE_KEY=pk_live_...\n',
      () => 'curl -H "Authorization: Bearer <token>" https://api.acme.io/v1/me',
      () => 'SECRET_KEY=your-secret-key-here',
      () => 'ANTHROPIC_API_KEY=sk-ant-...',
      () =>
        `aws configure set aws_access_key_id ${'AKIA'}IOSFODNN7${'EXAMPLE'}\naws configure set aws_secret_access_key wJalrXUtnFEMI/K7MDENG/bPxRfiCY${'EXAMPLE'}KEY`,
      () =>
        '"ConnectionStrings": { "Default": "Server=myServerAddress;Database=myDataBase;User Id=myUsername;Password=myPassword;" }',
      () => 'DATABASE_URL=postgresql://USER:PASSWORD@HOST:PORT/DATABASE',
      () => 'MONGO_URI=mongodb://<username>:<password>@cluster0.mongodb.net/<dbname>',
      () => 'token: example',
      () => 'password: ""\napi_key: null\n',
      () =>
        writeTool(
          '/home/dev/acme/api/.env.example',
          'DB_HOST=localhost\nDB_USER=app\nDB_PASSWORD=\nJWT_SECRET=\nSENTRY_DSN=\n',
        ),
    ],
  },
  {
    kind: 'placeholder-variable',
    rows: [
      () => 'database:\n  password: ${DB_PASSWORD}\n  host: ${DB_HOST:-localhost}\n',
      () => 'curl -u admin:$ADMIN_PASS https://jenkins.acme.io/api/json',
      () => 'docker login -u "$DOCKER_USER" -p "$DOCKER_TOKEN" registry.acme.io',
      () => 'mysql -u root -p$MYSQL_ROOT_PASSWORD -e "SHOW DATABASES;"',
      () => 'PGPASSWORD=$(cat /run/secrets/pg_password) psql -h db -U app app',
      () => 'DATABASE_URL=postgres://app:${DB_PASS}@db:5432/app',
      () =>
        'curl -H "Authorization: Bearer $(gcloud auth print-access-token)" https://run.googleapis.com/v2/projects/acme/locations/us-central1/services',
      () => 'env:\n  - name: API_TOKEN\n    value: {{ .Values.api.token | quote }}\n',
      () => '- name: create db user\n  mysql_user:\n    name: app\n    password: "{{ vault_mysql_password }}"\n',
      () => 'services:\n  api:\n    environment:\n      - API_KEY=${API_KEY:?API_KEY must be set}\n',
      () => '      - run: npm publish\n        env:\n          NODE_AUTH_TOKEN: ${{ secrets.NPM_TOKEN }}\n',
      () => 'connectionString: "Server=db;User Id=sa;Password=$(SA_PASSWORD);"',
      () => 'const client = new OpenAI({ apiKey: process.env.OPENAI_API_KEY });',
      () => 'SECRET_KEY = os.environ["DJANGO_SECRET_KEY"]',
      () => 'MasterUserPassword: !Ref DbPassword\nMasterUsername: admin\n',
      () => 'Password: "{{resolve:secretsmanager:prod/db:SecretString:password}}"',
      () => 'export GITHUB_TOKEN="$(gh auth token)"',
      () => 'aws_secret_access_key = %(AWS_SECRET_ACCESS_KEY)s',
    ],
  },
  {
    kind: 'placeholder-repeated',
    rows: [
      () => `GITHUB_TOKEN=ghp_${'x'.repeat(36)}`,
      () => `AWS_ACCESS_KEY_ID=AKIA${'X'.repeat(16)}`,
      () => 'password: aaaaaaaaaaaa',
      () => 'api_key=1234567890abcdef',
      () => 'TOKEN=abcdefghijklmnopqrstuvwxyz',
      () => `SLACK_BOT_TOKEN=xoxb-${'x'.repeat(12)}-${'x'.repeat(13)}-${'x'.repeat(24)}`,
      () => `GOOGLE_API_KEY=AIza${'X'.repeat(35)}`,
      () =>
        '      Name                    Value             Type    Location\n      ----                    -----             ----    --------\n   profile                <not set>             None    None\naccess_key     ****************QX7Z shared-credentials-file\nsecret_key     ****************f3Kp shared-credentials-file\n    region                us-east-1      config-file    ~/.aws/config\n',
      () =>
        `github.com\n  ✓ Logged in to github.com account dev-jane (keyring)\n  - Active account: true\n  - Git operations protocol: https\n  - Token: gho_${'*'.repeat(36)}\n  - Token scopes: 'gist', 'read:org', 'repo'\n`,
      () => `OPENAI_API_KEY=sk-proj-${'0'.repeat(48)}`,
      () => 'client_secret: 0000000000000000000000000000000000000000',
    ],
  },
  {
    kind: 'secret-reference',
    rows: [
      () =>
        'env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef:\n        name: db-credentials\n        key: password\n',
      () =>
        'secrets:\n  db_password:\n    file: ./secrets/db_password.txt\nservices:\n  db:\n    environment:\n      POSTGRES_PASSWORD_FILE: /run/secrets/db_password\n',
      () =>
        'aws secretsmanager get-secret-value --secret-id prod/app/db --query SecretString --output text | jq -r .password',
      () => 'op read "op://Engineering/Postgres Prod/password"',
      () => 'vault kv get -field=password secret/app/db',
      () => 'gcloud secrets versions access latest --secret=stripe-api-key --project=acme-prod',
      () => "kubectl get secret db-credentials -n prod -o jsonpath='{.data.password}' | base64 -d",
      () => 'az keyvault secret show --vault-name acme-kv --name DbPassword --query value -o tsv',
      () => 'doppler run --project api --config prd -- npm start',
      () => 'sops -d secrets/prod.enc.yaml | yq .database.password',
      () => '        envFrom:\n          - secretRef:\n              name: app-secrets\n',
      () => 'export DB_PASSWORD="$(pass show acme/db/prod)"',
      () => 'security find-generic-password -s github-token -w',
      () => 'printf "protocol=https\\nhost=github.com\\n" | git credential fill',
    ],
  },
  {
    kind: 'password-prompt-or-stdin',
    rows: [
      () => 'echo "$CR_PAT" | docker login ghcr.io -u acme-bot --password-stdin',
      (g) =>
        `aws ecr get-login-password --region us-east-1 | docker login --username AWS --password-stdin ${g.account()}.dkr.ecr.us-east-1.amazonaws.com`,
      () => 'mysql -u root -p -h 127.0.0.1 shop',
      () => 'psql -h db.internal -U postgres -W app',
      () => 'read -rs DB_PASSWORD && export DB_PASSWORD',
      () => 'htpasswd -c /etc/nginx/.htpasswd admin',
      () => 'ssh-keygen -t ed25519 -C "ci@acme.io" -N "" -f ~/.ssh/id_ci',
      () => 'gh auth login --with-token < ~/secrets/gh-token.txt',
      () => 'vault login -method=oidc role=dev',
      () => 'npm login --auth-type=web --registry https://registry.npmjs.org/',
      () => 'kubectl create secret generic db --from-file=password=./password.txt -n prod',
      () => 'restic -r s3:s3.amazonaws.com/acme-backups backup /srv --password-file /etc/restic/password',
      () => 'echo "$SUDO_PASSWORD" | sudo -S apt-get update',
      () => 'passwd deploy',
    ],
  },
  {
    kind: 'url-no-credentials',
    rows: [
      (g) => `open https://github.com/acme/web/pull/1423/files#diff-${g.hex(64)}`,
      () =>
        'curl -s "https://api.github.com/search/repositories?q=language:typescript+stars:>1000&sort=stars&order=desc&per_page=10"',
      (g) => `curl -O https://${g.str(14, 'lowerDigits')}.cloudfront.net/assets/app.${g.hex(8)}.js`,
      (g) => `gsutil cp gs://acme-builds/${sha(g)}/app.tar.gz .`,
      () => 'psql postgres://db.internal:5432/app -c "select now()"',
      () => 'REDIS_URL=redis://cache:6379/0',
      () =>
        'MONGO_URL=mongodb://mongo-0.mongo,mongo-1.mongo,mongo-2.mongo:27017/app?replicaSet=rs0&readPreference=secondaryPreferred',
      () => 'See https://docs.python.org/3/library/secrets.html#secrets.token_urlsafe for generating tokens.',
      (g) => `yt-dlp "https://www.youtube.com/watch?v=${g.str(11, 'b64url')}&t=42s"`,
      () => 'git clone https://github.com/acme/web.git && cd web',
      () => 'curl -fsSLO https://registry.npmjs.org/react/-/react-18.3.1.tgz',
      () =>
        'https://console.aws.amazon.com/cloudwatch/home?region=us-east-1#logsV2:log-groups/log-group/$252Faws$252Flambda$252Fthumbnailer',
      (g) => `https://acme.atlassian.net/browse/PLAT-${g.int(100, 9999)}?focusedCommentId=${g.digits(6)}`,
      () => 'proxy_pass http://127.0.0.1:8080/api/;',
    ],
  },
  {
    kind: 'ssh-target',
    rows: [
      () => 'ssh deploy@10.0.4.12 "sudo systemctl status app"',
      () => 'git clone git@github.com:acme/api.git',
      () => 'scp -i ~/.ssh/id_ed25519 app.tar.gz ubuntu@ec2-3-91-22-14.compute-1.amazonaws.com:/tmp/',
      () => 'rsync -avz --delete dist/ www-data@web01.acme.internal:/var/www/html/',
      () => 'ssh -J jump@bastion.acme.io admin@10.0.2.5',
      () => 'ssh-copy-id -i ~/.ssh/id_ed25519.pub pi@raspberrypi.local',
      () => 'git remote add origin ssh://git@gitlab.acme.io:2222/platform/infra.git',
      () => 'sftp -P 2022 backup@files.acme.io',
      () => 'Host prod\n  HostName 10.0.9.8\n  User deploy\n  IdentityFile ~/.ssh/prod_ed25519\n  ProxyJump bastion\n',
      () => 'ansible-playbook -i "web01.acme.internal," -u ubuntu site.yml --limit web',
      () => 'git push git@github.com:acme/web.git HEAD:refs/heads/fix/login-redirect',
    ],
  },
  {
    kind: 'email-address',
    rows: [
      () => 'git config user.email "jane.doe@acme.io" && git config user.name "Jane Doe"',
      (g) =>
        `commit ${sha(g)}\nAuthor: Jane Doe <jane@acme.io>\nDate:   Thu May 2 10:11:12 2024 +0200\n\n    fix(auth): refresh the session before it expires\n\n    Signed-off-by: Jane Doe <jane@acme.io>\n`,
      () =>
        '{\n  "name": "@acme/ui",\n  "author": "Acme Frontend <frontend@acme.io>",\n  "bugs": { "email": "bugs@acme.io" }\n}\n',
      () => '<a href="mailto:support@acme.io?subject=Access%20request">Contact support</a>',
      (g) => `Co-authored-by: dependabot[bot] <${g.digits(8)}+dependabot[bot]@users.noreply.github.com>`,
      () => 'spec:\n  acme:\n    email: ops@acme.io\n    server: https://acme-v02.api.letsencrypt.org/directory\n',
      (g) => `gcloud config set account deployer@acme-prod-${g.digits(6)}.iam.gserviceaccount.com`,
      () => 'git log --format="%h %ae %s" -n 5',
      () => 'Please send the report to security@acme.io and cc platform-oncall@acme.io.',
    ],
  },
  {
    kind: 'git-sha',
    rows: [
      (g) => `git show ${sha(g)} --stat`,
      (g) =>
        `${shortSha(g)} fix: handle empty cart\n${shortSha(g)} feat(api): paginate orders\n${shortSha(g)} chore(deps): bump vitest to 4.1\n${shortSha(g)} docs: explain the cache key\n`,
      (g) => `git rebase -i ${shortSha(g)}~3`,
      (g) => `git cherry-pick ${sha(g)}`,
      (g) => `git diff ${shortSha(g)}..${shortSha(g)} -- src/`,
      (g) => `git reset --hard ${shortSha(g)}`,
      (g) =>
        `diff --git a/src/index.ts b/src/index.ts\nindex ${g.hex(7)}..${g.hex(7)} 100644\n--- a/src/index.ts\n+++ b/src/index.ts\n`,
      (g) => `go get github.com/acme/lib@v0.0.0-20240501123456-${g.hex(12)}`,
      (g) => `pip install "git+https://github.com/acme/lib.git@${sha(g)}#egg=acme-lib"`,
      (g) => `      - uses: actions/checkout@${sha(g)} # v4.1.7`,
      (g) => `"resolved": "git+ssh://git@github.com/acme/ui.git#${sha(g)}"`,
      (g) => `commit ${sha(g)}\nMerge: ${g.hex(7)} ${g.hex(7)}\nAuthor: CI <ci@acme.io>\n`,
      (g) => `git bisect bad ${sha(g)} && git bisect good v2.3.0`,
      (g) => `HEAD is now at ${g.hex(7)} Merge pull request #1423 from acme/fix/login`,
    ],
  },
  {
    kind: 'digest',
    rows: [
      (g) => `${g.hex(64)}  node-v20.11.1-linux-x64.tar.xz`,
      (g) => `echo "${g.hex(64)}  kubectl" | sha256sum --check`,
      (g) =>
        `"node_modules/lodash": {\n  "version": "4.17.21",\n  "resolved": "https://registry.npmjs.org/lodash/-/lodash-4.17.21.tgz",\n  "integrity": "sha512-${g.str(86, 'b64')}=="\n}`,
      (g) => `docker pull nginx@sha256:${g.hex(64)}`,
      (g) => `image: ghcr.io/acme/api@sha256:${g.hex(64)}`,
      (g) => `"packageManager": "pnpm@9.1.0+sha512.${g.hex(128)}"`,
      (g) =>
        `github.com/stretchr/testify v1.9.0 h1:${g.str(43, 'b64')}=\ngithub.com/stretchr/testify v1.9.0/go.mod h1:${g.str(43, 'b64')}=\n`,
      (g) =>
        `[[package]]\nname = "serde"\nversion = "1.0.203"\nsource = "registry+https://github.com/rust-lang/crates.io-index"\nchecksum = "${g.hex(64)}"\n`,
      (g) =>
        `lodash@^4.17.21:\n  version "4.17.21"\n  resolved "https://registry.yarnpkg.com/lodash/-/lodash-4.17.21.tgz#${g.hex(40)}"\n  integrity sha512-${g.str(86, 'b64')}==\n`,
      (g) => `requests==2.32.3 \\\n    --hash=sha256:${g.hex(64)}`,
      (g) =>
        `<script src="https://cdn.jsdelivr.net/npm/bootstrap@5.3.3/dist/js/bootstrap.bundle.min.js" integrity="sha384-${g.str(64, 'b64')}" crossorigin="anonymous"></script>`,
      (g) => `latest: digest: sha256:${g.hex(64)} size: 1573`,
      (g) => `version https://git-lfs.github.com/spec/v1\noid sha256:${g.hex(64)}\nsize ${g.digits(7)}\n`,
      (g) =>
        `  url "https://github.com/acme/cli/releases/download/v1.2.0/cli-darwin-arm64.tar.gz"\n  sha256 "${g.hex(64)}"\n`,
      (g) => `md5sum backup.tar.gz\n${g.hex(32)}  backup.tar.gz`,
    ],
  },
  {
    kind: 'uuid-or-ulid',
    rows: [
      (g) => `az account set --subscription ${g.uuid()}`,
      (g) => `ARM_SUBSCRIPTION_ID=${g.uuid()}\nARM_TENANT_ID=${g.uuid()}\nARM_CLIENT_ID=${g.uuid()}\n`,
      (g) => `{"requestId": "${g.uuid()}", "status": 404, "message": "order not found"}`,
      (g) => `terraform import azurerm_resource_group.main /subscriptions/${g.uuid()}/resourceGroups/acme-prod`,
      (g) => `x-request-id: ${g.uuid()}`,
      (g) => `<ProjectGuid>{${g.uuid().toUpperCase()}}</ProjectGuid>`,
      (g) => `ls /var/lib/docker/volumes/${g.hex(64)}/_data`,
      (g) => `Correlation ID: ${g.uuid()}\nTimestamp: ${g.isoTime()}`,
      (g) => `ULID: 01${g.str(24, 'crockford')}`,
      (g) => `curl https://api.acme.io/v1/orders/${g.uuid()}/items`,
      (g) => `"id": "${g.uuid()}", "object": "invoice", "number": "ACME-0042"`,
      (g) => `databricks clusters get --cluster-id ${g.digits(4)}-${g.digits(6)}-${g.str(8, 'lowerDigits')}`,
    ],
  },
  {
    kind: 'version-string',
    rows: [
      () => 'npm install react@18.3.1 react-dom@18.3.1 --save-exact',
      () =>
        '"dependencies": {\n  "typescript": "~5.9.3",\n  "zod": "^3.23.8 || ^4.0.0-beta.20250424T163858",\n  "vite": ">=5.2.0 <6"\n}',
      () => 'requires-python = ">=3.10,<3.13"\ndependencies = ["fastapi>=0.111.0", "pydantic==2.7.4"]\n',
      () => 'node v20.11.1\nnpm 10.2.4\npnpm 9.1.0',
      () => 'image: postgres:16.3-alpine3.20',
      () => 'go 1.22.3\n\nrequire (\n\tgithub.com/spf13/cobra v1.8.1\n\tgolang.org/x/sync v0.7.0\n)\n',
      (g) => `Version: 1.8.2+build.20240502.sha.${g.hex(7)}`,
      (g) => `rustc 1.78.0 (${g.hex(9)} 2024-04-29)`,
      () => 'openssh-client/jammy-updates 1:8.9p1-3ubuntu0.10 amd64',
      () => '__version__ = "4.2.0rc1"',
      (g) =>
        `Client Version: version.Info{Major:"1", Minor:"30", GitVersion:"v1.30.2", GitCommit:"${g.hex(40)}", GitTreeState:"clean", GoVersion:"go1.22.4"}`,
      () => 'brew upgrade terraform@1.8 && terraform -version',
    ],
  },
  {
    kind: 'build-path',
    rows: [
      (g) => `dist/assets/index-${g.str(8, 'b64url')}.js   142.31 kB │ gzip: 45.87 kB`,
      (g) => `build/static/js/main.${g.hex(8)}.js\nbuild/static/css/main.${g.hex(8)}.css`,
      () => 'ls node_modules/.pnpm/@babel+core@7.24.0/node_modules/@babel/core/lib',
      () =>
        'cat node_modules/.pnpm/next@14.2.3_react-dom@18.3.1_react@18.3.1__react@18.3.1/node_modules/next/package.json',
      (g) => `cd /tmp/tmp.${g.str(10)} && tar xzf ~/Downloads/release.tgz`,
      (g) =>
        `rm -rf /var/folders/${g.str(2, 'lowerDigits')}/${g.str(30, 'lowerDigits')}/T/jest_${g.str(4, 'lowerDigits')}`,
      (g) => `ls /nix/store/${g.str(32, 'nix')}-nodejs-20.11.1/bin`,
      (g) => `open .next/static/${g.str(21, 'b64url')}/_buildManifest.js`,
      (g) => `bash /home/runner/work/_temp/${g.uuid()}.sh`,
      (g) => `ls ~/.vscode-server/bin/${sha(g)}/extensions`,
      (g) => `target/debug/deps/libserde-${g.hex(16)}.rlib`,
      (g) => `du -sh ~/.cache/go-build/${g.hex(2)}/${g.hex(64)}-d`,
      (g) => `cat "C:\\Users\\dev\\AppData\\Local\\Temp\\${g.uuid()}\\install.log"`,
      () => 'python -m py_compile app/__pycache__/models.cpython-312.pyc',
    ],
  },
  {
    kind: 'base64-text',
    rows: [
      () => `echo ${b64('hello world\n')} | base64 -d`,
      () =>
        JSON.stringify({
          name: 'README.md',
          path: 'README.md',
          encoding: 'base64',
          content: b64('# Acme Web\n\nThe storefront. Run `npm install` then `npm run dev`.\n'),
        }),
      () =>
        `<img src="data:image/svg+xml;base64,${b64('<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"><circle cx="8" cy="8" r="6" fill="#0a7"/></svg>')}" alt="ok">`,
      () => `echo "${b64('#!/bin/sh\nset -e\nnpm ci\nnpm run build\n')}" | base64 -d > build.sh && chmod +x build.sh`,
      () =>
        JSON.stringify(
          {
            LaunchTemplateData: {
              ImageId: 'ami-0abcdef1234567890',
              InstanceType: 't3.small',
              UserData: b64('#cloud-config\npackages:\n  - nginx\nruncmd:\n  - systemctl enable --now nginx\n'),
            },
          },
          null,
          2,
        ),
      () =>
        `Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64\n\n${b64('Hi team, the deploy window moves to Thursday 10:00 UTC. Thanks!')}\n`,
      () => `const banner = atob("${b64('Welcome back! Your order has shipped.')}");`,
      () =>
        `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: nginx-conf\nbinaryData:\n  default.conf: ${b64('server {\n  listen 80;\n  location / { root /usr/share/nginx/html; }\n}\n')}\n`,
      () => `kubectl get configmap app-config -o jsonpath='{.binaryData.logo\\.svg}' | base64 -d > logo.svg`,
      () => `echo '${b64(JSON.stringify({ theme: 'dark', locale: 'en-US', beta: false }))}' | base64 --decode | jq .`,
    ],
  },
  {
    kind: 'public-key',
    rows: [
      (g) => `ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI${g.str(43, 'b64')} jane@laptop`,
      (g) =>
        writeTool(
          '/home/deploy/.ssh/authorized_keys',
          `ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQ${g.str(514, 'b64')}= ci@acme.io\nssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI${g.str(43, 'b64')} jane@laptop\n`,
        ),
      (g) => `github.com ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBB${g.str(87, 'b64')}=`,
      (g) =>
        armour('PUBLIC KEY', [
          'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA',
          ...Array.from({ length: 5 }, () => g.str(64, 'b64')),
          `${g.str(6, 'b64')}IDAQAB`,
        ]),
      (g) =>
        writeTool(
          '/home/dev/acme/infra/certs/ca.crt',
          `${armour('CERTIFICATE', ['MIIDdzCCAl+gAwIBAgIE', ...Array.from({ length: 16 }, () => g.str(64, 'b64')), `${g.str(28, 'b64')}==`])}\n`,
        ),
      (g) =>
        `#/-------------------[DOTENV_PUBLIC_KEY]--------------------/\n#/            public-key encryption for .env files          /\n#/----------------------------------------------------------/\nDOTENV_PUBLIC_KEY="02${g.hex(64)}"\n`,
      (g) => `creation_rules:\n  - path_regex: secrets/.*\\.yaml$\n    age: age1${g.str(58, 'bech32')}\n`,
      (g) =>
        `pub   rsa4096/${g.str(16, 'HEX')} 2023-01-12 [SC]\n      ${g.str(40, 'HEX')}\nuid           [ultimate] Jane Doe <jane@acme.io>\n`,
      (g) => `256 SHA256:${g.str(43, 'b64')} jane@laptop (ED25519)`,
      (g) =>
        `[Peer]\nPublicKey = ${g.str(43, 'b64')}=\nEndpoint = vpn.acme.io:51820\nAllowedIPs = 10.8.0.0/24\nPersistentKeepalive = 25\n`,
      (g) =>
        JSON.stringify({
          keys: [
            { kty: 'RSA', use: 'sig', kid: g.str(16, 'b64url'), alg: 'RS256', n: g.str(342, 'b64url'), e: 'AQAB' },
          ],
        }),
    ],
  },
  {
    kind: 'publishable-key',
    rows: [
      (g) => `const stripe = await loadStripe("pk_live_51${g.str(97)}");`,
      (g) => `NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY=pk_live_51${g.str(97)}`,
      (g) =>
        `<script src="https://checkout.stripe.com/checkout.js" class="stripe-button" data-key="pk_test_51${g.str(97)}" data-amount="999"></script>`,
      (g) => `STRIPE_PUBLISHABLE_KEY=pk_test_51${g.str(97)}`,
      (g) => `<div class="g-recaptcha" data-sitekey="6L${g.str(38, 'b64url')}"></div>`,
      (g) => `gtag('config', 'G-${g.str(10, 'upperDigits')}');`,
    ],
  },
  {
    kind: 'secret-identifier',
    rows: [
      () =>
        'tokenizer = AutoTokenizer.from_pretrained("bert-base-uncased")\ntokens = tokenizer.encode(text, max_length=512, truncation=True)\n',
      () => 'password_reset_url = reverse("password_reset_confirm", kwargs={"uidb64": uid, "token": token})',
      () => 'const secretName = getSecretName(process.env.STAGE);',
      () => 'import { SecretsManagerClient, GetSecretValueCommand } from "@aws-sdk/client-secrets-manager";',
      () =>
        'def verify_password(plain_password: str, hashed_password: str) -> bool:\n    return pwd_context.verify(plain_password, hashed_password)\n',
      () => 'class ApiKeyAuthentication(BaseAuthentication):\n    keyword = "Api-Key"\n',
      () => 'response = client.messages.create(model="claude-sonnet-4-5", max_tokens=1024, messages=messages)',
      () => 'if (!process.env.API_KEY) throw new Error("API_KEY is required");',
      () => 'rg -n -i "api[_-]?key|secret|password" --type ts src/',
      () => 'git log -S "client_secret" --oneline -- config/',
      () => 'export async function rotateToken(tokenId: string): Promise<void> {',
      () => 'user.passwordHash = await bcrypt.hash(password, 12);',
      () => '{"usage": {"input_tokens": 1532, "output_tokens": 418, "cache_read_input_tokens": 0}}',
      () => "vi.mock('./auth/token-store');",
      () => 'mv src/auth/password_reset_token.py src/auth/reset_tokens.py',
    ],
  },
  {
    kind: 'secret-named-config',
    rows: [
      () => 'PASSWORD_MIN_LENGTH=12\nPASSWORD_REQUIRE_SYMBOL=true\n',
      () => 'auth:\n  token_ttl: 15m\n  refresh_token_ttl: 720h\n',
      () => 'JWT_ALGORITHM=HS256\nJWT_EXPIRES_IN=3600\n',
      () => 'api_key_header: X-API-Key',
      () => 'secret_name: prod/db-credentials',
      () => 'TOKEN_EXPIRY_SECONDS=3600',
      () => 'password_hash_algorithm: argon2id',
      () => '"passwordPolicy": {"minLength": 12, "requireSymbols": true, "maxAgeDays": 90}',
      () => 'KEY_ROTATION_DAYS=90',
      () => 'tokenEndpoint: https://login.microsoftonline.com/common/oauth2/v2.0/token',
      () => 'PASSWORD_HASHERS = ["django.contrib.auth.hashers.Argon2PasswordHasher"]',
      () => 'token_type: bearer',
      () => 'ssl_key_file: /etc/ssl/private/server.key\nssh_key_path: ~/.ssh/id_ed25519\n',
      () => 'primary_key: id\nsort_key: created_at\n',
      () => 'session:\n  cookie_secure: true\n  secret_rotation: weekly\n',
    ],
  },
  {
    kind: 'k8s-resource-name',
    rows: [
      (g) => `kubectl logs ${podName(g, 'web')} -c app --tail=200`,
      (g) =>
        `NAME                        READY   STATUS    RESTARTS   AGE\n${podName(g, 'api')}    1/1     Running   0          3h12m\n${podName(g, 'api')}    1/1     Running   1          3h12m\n${podName(g, 'worker')}  1/1     Running   0          47m\n`,
      (g) => `kubectl describe rs api-${podHash(g)} -n prod`,
      (g) => `kubectl delete pod ${podName(g, 'worker')} -n jobs`,
      (g) =>
        `NAME                  TYPE                                  DATA   AGE\ndefault-token-${g.str(5, 'k8s')}   kubernetes.io/service-account-token   3      12d\ndb-credentials        Opaque                                2      40d\n`,
      (g) =>
        `LAST SEEN   TYPE      REASON    OBJECT                          MESSAGE\n2m          Warning   BackOff   pod/${podName(g, 'web')}   Back-off restarting failed container\n`,
      (g) => `metadata:\n  labels:\n    app: web\n    pod-template-hash: ${podHash(g)}\n`,
      (g) => `docker logs -f ${g.hex(12)}`,
      (g) =>
        `CONTAINER ID   IMAGE          COMMAND                  STATUS         NAMES\n${g.hex(12)}   postgres:16    "docker-entrypoint.s…"   Up 2 hours     acme-db-1\n${g.hex(12)}   redis:7        "docker-entrypoint.s…"   Up 2 hours     acme-cache-1\n`,
      (g) => `kubectl get job report-${g.digits(8)} -o yaml`,
      (g) =>
        `argocd app history web | head -3\nID  DATE                           REVISION\n41  2024-05-02 10:11:12 +0000 UTC  ${g.hex(7)}\n`,
    ],
  },
  {
    kind: 'timestamp',
    rows: [
      (g) => `${g.isoTime()} INFO  server listening on :8080`,
      (g) => `[${g.isoTime()}] ERROR request failed: connect ECONNREFUSED 127.0.0.1:5432`,
      () => 'date -u +%Y-%m-%dT%H:%M:%SZ',
      () => 'Date: Thu, 02 May 2024 10:11:12 GMT\nLast-Modified: Wed, 01 May 2024 08:00:00 GMT\n',
      (g) => `kubectl logs deploy/api --since-time=${g.isoTime()}`,
      () => '"createdAt": 1714644672, "updatedAt": 1714648272123',
      () => 'X-Amz-Date: 20240502T101112Z',
      () => '0 3 * * 1-5 /usr/local/bin/backup.sh >> /var/log/backup.log 2>&1',
      (g) => `time="${g.isoTime()}" level=info msg="reconciled" duration=1.234567ms ts=1714644672123456789`,
      () => 'created: 2024-05-02T10:11:12.123456+02:00',
    ],
  },
  {
    kind: 'ip-address',
    rows: [
      () => 'ping -c 3 10.0.4.12',
      () => 'nmap -sV -p 22,80,443 192.168.1.0/24',
      () => 'ip -6 addr add 2001:db8:85a3::8a2e:370:7334/64 dev eth0',
      () =>
        '2: eth0@if12: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500\n    link/ether 02:42:ac:11:00:02 brd ff:ff:ff:ff:ff:ff\n    inet 172.17.0.2/16 brd 172.17.255.255 scope global eth0\n',
      () => 'curl -s http://169.254.169.254/latest/meta-data/instance-id',
      () => 'sudo ufw allow from 203.0.113.7 to any port 22 proto tcp',
      () => 'cidr_blocks = ["10.0.0.0/16", "10.1.0.0/16"]',
      () => '127.0.0.1   localhost\n::1         localhost ip6-localhost\n10.0.9.8    prod-db\n',
      () => 'LISTEN 0      4096       0.0.0.0:5432       0.0.0.0:*    users:(("postgres",pid=812,fd=6))',
    ],
  },
  {
    kind: 'aws-resource-id',
    rows: [
      (g) =>
        `aws iam get-role --role-name ci-deployer --query Role.Arn\n"arn:aws:iam::${g.account()}:role/ci-deployer"`,
      (g) =>
        `aws ec2 describe-instances --instance-ids ${awsId(g, 'i')} --query 'Reservations[].Instances[].State.Name'`,
      (g) =>
        `vpc_id            = "${awsId(g, 'vpc')}"\nsubnet_ids        = ["${awsId(g, 'subnet')}", "${awsId(g, 'subnet')}"]\nsecurity_group_id = "${awsId(g, 'sg')}"\nami               = "${awsId(g, 'ami')}"\n`,
      (g) =>
        `"Resource": ["arn:aws:s3:::acme-backups", "arn:aws:s3:::acme-backups/*", "arn:aws:lambda:us-east-1:${g.account()}:function:thumbnailer:$LATEST"]`,
      (g) =>
        `aws secretsmanager describe-secret --secret-id arn:aws:secretsmanager:us-east-1:${g.account()}:secret:prod/db-${g.str(6)}`,
      (g) => `aws cloudfront create-invalidation --distribution-id E${g.str(13, 'upperDigits')} --paths "/*"`,
      (g) => `aws route53 list-resource-record-sets --hosted-zone-id Z0${g.str(19, 'upperDigits')}`,
      (g) =>
        JSON.stringify(
          {
            User: {
              Path: '/',
              UserName: 'ci-deployer',
              UserId: `AIDA${g.str(17, 'upperDigits')}`,
              Arn: `arn:aws:iam::${g.account()}:user/ci-deployer`,
              CreateDate: g.isoTime(),
            },
          },
          null,
          4,
        ),
      (g) =>
        `REPORT RequestId: ${g.uuid()}\tDuration: 12.34 ms\tBilled Duration: 13 ms\tMemory Size: 512 MB\tMax Memory Used: 88 MB`,
      (g) => `aws kms describe-key --key-id arn:aws:kms:eu-west-1:${g.account()}:key/${g.uuid()}`,
      (g) => `docker push ${g.account()}.dkr.ecr.us-east-1.amazonaws.com/api:sha-${g.hex(7)}`,
      (g) => `aws ec2 create-snapshot --volume-id ${awsId(g, 'vol')} --description "pre-upgrade"`,
    ],
  },
  {
    kind: 'tool-use-id',
    rows: [
      (g) =>
        JSON.stringify({ type: 'tool_result', tool_use_id: `toolu_01${g.str(22)}`, content: 'ok', is_error: false }),
      (g) =>
        JSON.stringify({
          id: `call_${g.str(24)}`,
          type: 'function',
          function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
        }),
      (g) =>
        `{"id":"msg_01${g.str(22)}","type":"message","role":"assistant","model":"claude-sonnet-4-5","stop_reason":"tool_use"}`,
      (g) => `request-id: req_011C${g.str(20)}`,
      (g) => `{"id": "chatcmpl-${g.str(29)}", "object": "chat.completion", "created": 1714644672}`,
      (g) => `openai api runs.retrieve -t thread_${g.str(24)} -i run_${g.str(24)}`,
      (g) => `tail -n 50 ~/.claude/projects/-home-dev-acme-web/${g.uuid()}.jsonl`,
      (g) =>
        `{"session_id":"${g.uuid()}","transcript_path":"/home/dev/.claude/projects/-home-dev-acme/${g.uuid()}.jsonl","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"toolu_01${g.str(22)}"}`,
      (g) => `{"type":"server_tool_use","id":"srvtoolu_01${g.str(22)}","name":"web_search"}`,
      (g) =>
        `openai api files.retrieve -i file-${g.str(22)} && openai api batches.retrieve -i batch_${g.hex(32)} # assistant asst_${g.str(24)}`,
    ],
  },
  {
    kind: 'opaque-id',
    rows: [
      (g) => `db.orders.find({ _id: ObjectId("${g.hex(24)}") })`,
      (g) => `stripe customers retrieve cus_${g.str(14)} && stripe payment_intents retrieve pi_3${g.str(23)}`,
      (g) => `"price": "price_1P${g.str(22)}", "product": "prod_${g.str(14)}"`,
      (g) => `traceparent: 00-${g.hex(32)}-${g.hex(16)}-01`,
      (g) => `Sentry event ${g.hex(32)} captured for issue WEB-${g.int(100, 999)}`,
      (g) => `slack chat send --channel C${g.str(10, 'upperDigits')} --text "deploy started"`,
      (g) => `https://discord.com/channels/${g.digits(18)}/${g.digits(19)}`,
      (g) => `chrome-extension://${g.str(32, 'lower').replace(/[q-z]/g, 'a')}/popup.html`,
      (g) => `twilio api:core:messages:list --account-sid AC${g.hex(32)} --limit 5`,
      (g) => `const id = nanoid(); // e.g. "${g.str(21, 'b64url')}"`,
      (g) => `git lfs locks --id ${g.digits(6)} && gh run view ${g.digits(10)} --log-failed`,
    ],
  },
  {
    kind: 'encrypted-value',
    rows: [
      (g) =>
        `database:\n  password: ENC[AES256_GCM,data:${g.str(24, 'b64')}=,iv:${g.str(43, 'b64')}=,tag:${g.str(22, 'b64')}==,type:str]\nsops:\n  age:\n    - recipient: age1${g.str(58, 'bech32')}\n`,
      (g) => `$ANSIBLE_VAULT;1.1;AES256\n${Array.from({ length: 5 }, () => g.hex(80)).join('\n')}\n`,
      (g) =>
        `apiVersion: bitnami.com/v1alpha1\nkind: SealedSecret\nmetadata:\n  name: db\nspec:\n  encryptedData:\n    password: AgB${g.str(400, 'b64')}==\n`,
      (g) => `DATABASE_URL="encrypted:${g.str(180, 'b64')}="`,
      (g) => `ciphertext_blob = "AQICAHh${g.str(180, 'b64')}=="  # aws kms encrypt output, decrypted at boot`,
    ],
  },
  {
    kind: 'prose',
    rows: [
      () => 'Rotate the GitHub token before Friday; the old one is stored in 1Password under "CI bot".',
      () => 'Never commit .env files: add them to .gitignore and keep a .env.example with empty values.',
      () => 'The password must be at least 12 characters long and include a number and a symbol.',
      () => 'Tokens starting with ghp_ are classic personal access tokens; fine-grained ones start with github_pat_.',
      () => 'I moved the API key into an environment variable instead of hard-coding it in config.ts.',
      () => 'AWS access key IDs begin with AKIA for long-term keys and ASIA for temporary session credentials.',
      () =>
        'If the secret leaks, revoke it in the Stripe dashboard and create a new restricted key with fewer permissions.',
      () => 'fix(auth): refresh the access token 60 seconds before it expires instead of after a 401',
      () =>
        'Generate a session secret with `openssl rand -base64 32` and store it in the secret manager, not in the repo.',
      () => 'The JWT is signed with RS256; verify it against the JWKS endpoint and check the aud and exp claims.',
      () =>
        '## Configuration\n\nSet `API_KEY` to the key from your dashboard. The bearer token goes in the `Authorization` header.\n',
      () => 'Passwords are hashed with argon2id (t=3, m=64 MiB, p=4); we never store or log the plain text.',
      () => 'The login failed because the password had expired; I reset it through the admin console.',
      () => 'Make sure the private key file is chmod 600, otherwise ssh refuses to use it.',
    ],
  },
];

// ── classes an independent scanner's true positives showed (issue 30) ─────────────────────────────────
// Written here, not copied from any scanner: each kind is a class of misses, each row a context an agent's
// tool call really has. Generated after every row above (buildSecretCorpus), so adding them left the older
// rows byte for byte as they were.

/** A password with the punctuation people put in quoted shell words: `~`, `!`, `#`, `%`, `^`. */
function punctuatedPassword(g: Gen): string {
  return `${g.Word()}${g.pick(['~', '!', '#', '^', '%'])}${g.digits(3)}${g.pick(['!', '~', '*', '#'])}${g.str(g.int(4, 8), 'b62')}`;
}
const uuidV4 = (g: Gen): string => g.uuid();
/** A legacy SonarQube token (40 hex); sonar.login / SONAR_LOGIN carried it before sq?_ tokens. */
const sonarLegacy = (g: Gen): string => g.hex(40);
/** Sumo Logic access id: `su` and 12 alphanumerics. */
const sumoAccessId = (g: Gen): string => `su${g.str(12, 'b62')}`;
const sumoAccessKey = (g: Gen): string => g.str(64, 'b62');

const SCANNER_CLASS_KINDS: SecretKind[] = [
  {
    kind: 'url-userinfo',
    doc: 'https://datatracker.ietf.org/doc/html/rfc3986#section-3.2.1 (userinfo in any scheme)',
    rows: [
      (g) => {
        const pw = g.hex(24);
        return {
          text: `curl -s https://${g.hex(8)}:${pw}@api.acme.io:8443/v2/reports?from=2024-01-01&limit=50`,
          secrets: [pw],
        };
      },
      (g) => {
        const pw = g.password();
        return { text: `wget -q "http://backup:${pw}@10.0.7.12:8080/dumps/nightly.tar.gz?sig=none"`, secrets: [pw] };
      },
      (g) => {
        const pw = g.str(20, 'b62');
        return {
          text: `export DATABASE_URL=postgres://svc_orders:${pw}@pg.acme.internal:5432/orders?sslmode=verify-full`,
          secrets: [pw],
        };
      },
      (g) => {
        const pw = g.password();
        return {
          text: `spring.datasource.url=mysql://reporting:${pw}@mysql-ro.acme.internal:3306/reports?useSSL=true`,
          secrets: [pw],
        };
      },
      (g) => {
        const pw = g.str(32, 'b62');
        return { text: `REDIS_URL="rediss://default:${pw}@cache-7.acme.cloud:6380/2"`, secrets: [pw] };
      },
      (g) => {
        const pw = g.password();
        return { text: `broker_url: amqp://billing:${pw}@rabbit.acme.internal:5672/%2Fbilling`, secrets: [pw] };
      },
      (g) => {
        const pw = g.str(16, 'b62');
        return {
          text: writeTool(
            '/srv/app/.env',
            `MONGO_URI=mongodb+srv://app:${pw}@cluster1.${g.str(5, 'lowerDigits')}.mongodb.net/app?retryWrites=true\n`,
          ),
          secrets: [pw],
        };
      },
      (g) => {
        const pw = g.password();
        return { text: `lftp -e 'mirror -R build/ /www' ftp://deployer:${pw}@ftp.acme.io:21/`, secrets: [pw] };
      },
      (g) => {
        const pw = g.hex(32);
        return {
          text: `pip config set global.index-url https://${g.hex(12)}:${pw}@pkgs.acme.io/pypi/simple`,
          secrets: [pw],
        };
      },
      (g) => {
        const pw = g.password();
        return { text: `const SFTP = "sftp://uploader:${pw}@files.acme.io:2222/incoming";`, secrets: [pw] };
      },
    ],
  },
  {
    kind: 'curl-user-quoted',
    doc: 'https://curl.se/docs/manpage.html#-u; https://www.gnu.org/software/wget/manual/wget.html#Download-Options',
    rows: [
      (g) => {
        const pw = punctuatedPassword(g);
        return { text: `curl --user 'admin:${pw}' https://jenkins.acme.io/api/json`, secrets: [pw] };
      },
      (g) => {
        const pw = punctuatedPassword(g);
        return { text: `curl -sf -u "ci:${pw}" -X DELETE https://nexus.acme.io/repository/snapshots/x`, secrets: [pw] };
      },
      (g) => {
        const pw = g.password();
        return { text: `curl --user=deploy:${pw} -T build.zip https://dav.acme.io/drop/`, secrets: [pw] };
      },
      (g) => {
        const pw = punctuatedPassword(g);
        return {
          text: `curl -x http://proxy.acme.io:3128 --proxy-user 'svc-proxy:${pw}' https://example.org`,
          secrets: [pw],
        };
      },
      (g) => {
        const pw = punctuatedPassword(g);
        return { text: `wget --user=ops --password='${pw}' https://files.acme.io/reports/q3.csv`, secrets: [pw] };
      },
      (g) => {
        const pw = g.password();
        return {
          text: `wget --http-user=ops --http-password=${pw} https://files.acme.io/reports/q4.csv`,
          secrets: [pw],
        };
      },
      (g) => {
        const pw = punctuatedPassword(g);
        return { text: `wget --ftp-user=mirror --ftp-password "${pw}" ftp://mirror.acme.io/pub/`, secrets: [pw] };
      },
      (g) => {
        const pw = punctuatedPassword(g);
        return {
          text: bashTool(
            `curl -u 'jane.doe@acme.io:${pw}' https://acme.atlassian.net/rest/api/3/myself`,
            'check jira login',
          ),
          secrets: [pw],
        };
      },
      (g) => {
        const pw = punctuatedPassword(g);
        return { text: `curl -fsSLu 'svc:${pw}' https://repo.acme.io/api/storage/libs`, secrets: [pw] };
      },
      (g) => {
        const pw = `${g.word()} ${g.Word()} ${g.digits(3)}!`;
        return { text: `curl --user "backup:${pw}" https://dav.acme.io/`, secrets: [pw] };
      },
      (g) => {
        const pw = punctuatedPassword(g);
        return { text: `curl -u "$CI_USER":'${pw}' https://api.acme.io/v1/deploy`, secrets: [pw] };
      },
    ],
  },
  {
    kind: 'auth-header-schemes',
    doc: 'https://datatracker.ietf.org/doc/html/rfc9110#section-11.6.2; https://datatracker.ietf.org/doc/html/rfc7617',
    rows: [
      (g) => {
        const cred = b64(`deploy:${g.password()}`);
        return {
          text: `curl --header 'Authorization: Basic ${cred}' https://registry.acme.io/v2/_catalog`,
          secrets: [cred],
        };
      },
      (g) => {
        const t = g.hex(40);
        return { text: `curl -H "Authorization: Token ${t}" https://api.acme.io/v1/projects/`, secrets: [t] };
      },
      (g) => {
        const t = g.opaque();
        return { text: `curl -X POST -H 'authorization:Bearer ${t}' https://hooks.acme.io/run`, secrets: [t] };
      },
      (g) => {
        const t = g.str(40, 'b62');
        return { text: `curl --header="Authorization: token ${t}" https://git.acme.io/api/v1/user`, secrets: [t] };
      },
      (g) => {
        const cred = b64(`${g.word()}:${g.password()}`);
        return {
          text: `POST /v1/charges HTTP/1.1\nHost: pay.acme.io\nContent-Type: application/json\nAuthorization: Basic ${cred}\n\n{"amount": 100}`,
          secrets: [cred],
        };
      },
      (g) => {
        const t = g.opaque();
        return {
          text: `> GET /api/me HTTP/2\n> Host: api.acme.io\n> authorization: Bearer ${t}\n> accept: */*\n`,
          secrets: [t],
        };
      },
      (g) => {
        const t = g.str(32, 'b62');
        return {
          text: `headers.txt:\nAccept: application/json\nAuthorization: Token ${t}\nX-Request-Id: 42\n`,
          secrets: [t],
        };
      },
      (g) => {
        const t = `00${g.str(40, 'b62')}`;
        return { text: `curl -H "Authorization: SSWS ${t}" https://acme.okta.com/api/v1/users?limit=5`, secrets: [t] };
      },
      (g) => {
        const sig = g.hex(64);
        return {
          text: `curl -H "Authorization: AWS4-HMAC-SHA256 Credential=${awsKeyId(g)}/20240501/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-date, Signature=${sig}" https://s3.amazonaws.com/acme-logs`,
          secrets: [sig],
        };
      },
      (g) => {
        const r = g.hex(32);
        return {
          text: `curl -H "Authorization: Digest username=\\"ops\\", realm=\\"api\\", nonce=\\"${g.hex(16)}\\", response=\\"${r}\\"" https://api.acme.io/`,
          secrets: [r],
        };
      },
      (g) => {
        const cred = b64(`api:${g.str(24, 'b62')}`);
        return { text: `wget --header="Authorization: Basic ${cred}" https://files.acme.io/a.tgz`, secrets: [cred] };
      },
    ],
  },
  {
    kind: 'k8s-secret-variants',
    doc: 'https://kubernetes.io/docs/concepts/configuration/secret/; https://kubernetes.io/docs/reference/kubernetes-api/config-and-storage-resources/secret-v1/',
    rows: [
      (g) => {
        const a = b64(g.password());
        const b = b64(g.word());
        return {
          text: `apiVersion: v1\nkind: Secret\nmetadata:\n\tname: db\ntype: Opaque\ndata:\n\tusername: ${b}\n\tpassword: ${a}\n`,
          secrets: [a, b],
        };
      },
      (g) => {
        const a = b64(g.opaque());
        return {
          text: `apiVersion: v1\nkind: Secret\nmetadata:\n  name: api\ndata:\n  # rotated 2024-05\n  api-key: ${a} # from vault\n  # old:\n`,
          secrets: [a],
        };
      },
      (g) => {
        const pw = g.password();
        const t = g.opaque();
        return {
          text: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  mode: prod\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: app\nstringData:\n  # plain values\n  DB_PASS: ${pw}\n  session: ${t}\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: app\n`,
          secrets: [pw, t],
        };
      },
      (g) => {
        const a = b64(g.password());
        const c = b64(`postgres://app:${g.password()}@db:5432/app`);
        return {
          text: `{\n  "apiVersion": "v1",\n  "kind": "Secret",\n  "metadata": { "name": "db", "namespace": "prod" },\n  "type": "Opaque",\n  "data": {\n    "password": "${a}",\n    "url": "${c}"\n  }\n}\n`,
          secrets: [a, c],
        };
      },
      (g) => {
        const u = b64(g.word());
        const h = b64(`db-${g.int(1, 9)}.internal`);
        return {
          text: `{"kind": "Secret", "apiVersion": "v1", "metadata": {"name": "db"}, "data": {"user": "${u}", "host": "${h}"}}`,
          secrets: [u, h],
        };
      },
      (g) => {
        const t = g.opaque();
        return {
          text: `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"ci"},"stringData":{"token":"${t}","user":"ci-bot"}}`,
          secrets: [t],
        };
      },
      (g) => {
        const a = b64(g.str(32, 'b62'));
        return {
          text: `kind: Secret\napiVersion: v1\nmetadata:\n\t\tname: tls\ndata:\n\t\t# key below\n\t\tsigning.key: ${a}\n`,
          secrets: [a],
        };
      },
    ],
  },
  {
    kind: 'sourcegraph-token',
    doc: 'https://sourcegraph.com/docs/dev/security/secret_formats',
    rows: [
      (g) => {
        const t = `sgp_${g.hex(16)}_${g.hex(40)}`;
        return { text: `export SRC_ACCESS_TOKEN=${t}\nsrc search 'repo:acme/api lang:go'`, secrets: [t] };
      },
      (g) => {
        const t = `sgp_${g.hex(40)}`;
        return {
          text: `curl -H 'Authorization: token ${t}' -d '{"query":"{ currentUser { username } }"}' https://sg.acme.io/.api/graphql`,
          secrets: [t],
        };
      },
      (g) => {
        const t = `sgp_local_${g.hex(40)}`;
        return {
          text: writeTool('/home/dev/.config/cody/settings.json', `{"cody.accessToken": "${t}"}`),
          secrets: [t],
        };
      },
      (g) => {
        const t = `sgp_${g.hex(16)}_${g.hex(40)}`;
        return { text: `Found the token in the CI log: ${t} (expires in 90 days)`, secrets: [t] };
      },
      (g) => {
        const t = `sgs_${g.hex(64)}`;
        return { text: `license:\n  subscription_token: ${t}\n`, secrets: [t] };
      },
    ],
  },
  {
    kind: 'vendor-named-assignment',
    doc: 'https://www.gnu.org/software/make/manual/html_node/Setting.html; https://docs.snyk.io/snyk-cli/authenticate-to-use-the-cli; https://docs.sonarsource.com/sonarqube-server/latest/analyzing-source-code/analysis-parameters/',
    rows: [
      (g) => {
        const t = uuidV4(g);
        return { text: `# Makefile\nSNYK_TOKEN ?= ${t}\n\nscan:\n\tsnyk test --all-projects\n`, secrets: [t] };
      },
      (g) => {
        const t = sonarLegacy(g);
        return { text: `SONAR_LOGIN := ${t}\nsonar:\n\tsonar-scanner -Dsonar.login=$(SONAR_LOGIN)\n`, secrets: [t] };
      },
      (g) => {
        const t = uuidV4(g);
        return { text: `HUBSPOT_API_KEY ::= ${t}\n`, secrets: [t] };
      },
      (g) => {
        const t = uuidV4(g);
        return { text: `export HUBSPOT_PORTAL_KEY :::= ${t}\n`, secrets: [t] };
      },
      (g) => {
        const t = g.str(40, 'b62');
        return { text: `DEPLOY_TOKEN += ${t}\n`, secrets: [t] };
      },
      (g) => {
        const t = sonarLegacy(g);
        return { text: `export SONAR_LOGIN=${t}\nmvn -B verify sonar:sonar`, secrets: [t] };
      },
      (g) => {
        const t = sonarLegacy(g);
        return { text: `sonar:\n  host: https://sonar.acme.io\n  login: ${t}\n`, secrets: [t] };
      },
      (g) => {
        const t = uuidV4(g);
        return { text: `{\n  "snykToken": "${t}",\n  "org": "acme"\n}`, secrets: [t] };
      },
      (g) => {
        const t = uuidV4(g);
        return { text: `[hubspot]\nportal_id = 4412\nhubspot_key = "${t}"\n`, secrets: [t] };
      },
      (g) => {
        const t = sonarLegacy(g);
        return { text: `sonarLogin: "${t}"`, secrets: [t] };
      },
      (g) => {
        const t = uuidV4(g);
        return { text: `override SNYK_AUTH_TOKEN = ${t}`, secrets: [t] };
      },
      (g) => {
        const t = g.password();
        return { text: `DB_PASSWORD ?= ${t}\n`, secrets: [t] };
      },
    ],
  },
  {
    kind: 'xml-config-value',
    doc: 'https://learn.microsoft.com/en-us/nuget/reference/nuget-config-file#packagesourcecredentials; https://learn.microsoft.com/en-us/dotnet/framework/configure-apps/file-schema/appsettings/add-element-for-appsettings',
    rows: [
      (g) => {
        const pw = `${g.str(4, 'b62')}%${g.str(3, 'b62')}%${g.digits(2)}`;
        return { text: `<add key="ClearTextPassword" value="${pw}" />`, secrets: [pw] };
      },
      (g) => {
        const pw = `%${g.str(6, 'b62')}!${g.digits(2)}%`;
        return {
          text: `<packageSourceCredentials>\n  <acme>\n    <add key="Username" value="ci" />\n    <add key="ClearTextPassword" value="${pw}" />\n  </acme>\n</packageSourceCredentials>`,
          secrets: [pw],
        };
      },
      (g) => {
        const pw = `${g.Word()}%${g.digits(2)}${g.str(6, 'b62')}`;
        return { text: `<add value="${pw}" key="ClearTextPassword"/>`, secrets: [pw] };
      },
      (g) => {
        const t = g.str(32, 'b62');
        return { text: `<appSettings>\n  <setting name="PaymentApiKey" value="${t}" />\n</appSettings>`, secrets: [t] };
      },
      (g) => {
        const pw = g.password();
        return { text: `<property name="db.password" value="${pw}"/>`, secrets: [pw] };
      },
      (g) => {
        const pw = `${g.str(5, 'b62')}%${g.str(5, 'b62')}`;
        return { text: `<Password>%${pw}%</Password>`, secrets: [pw] };
      },
    ],
  },
  {
    kind: 'vendor-prefixed-id',
    doc: 'https://help.sumologic.com/docs/manage/security/access-keys/',
    rows: [
      (g) => {
        const id = sumoAccessId(g);
        const key = sumoAccessKey(g);
        return { text: `export SUMOLOGIC_ACCESSID=${id}\nexport SUMOLOGIC_ACCESSKEY=${key}`, secrets: [id, key] };
      },
      (g) => {
        const id = sumoAccessId(g);
        return { text: `provider "sumologic" {\n  access_id   = "${id}"\n  environment = "us2"\n}`, secrets: [id] };
      },
      (g) => {
        const id = sumoAccessId(g);
        return { text: `{"sumologicAccessId": "${id}", "region": "eu"}`, secrets: [id] };
      },
      (g) => {
        const id = sumoAccessId(g);
        return { text: `sumo_access_id: ${id}\n`, secrets: [id] };
      },
    ],
  },
];

const SCANNER_CLASS_CLEAN_KINDS: CleanKind[] = [
  {
    kind: 'url-without-password',
    rows: [
      () => 'git clone ssh://git@git.acme.io:2222/platform/api.git',
      (g) => `curl https://api.acme.io:8443/v2/users/${g.hex(24)}?fields=email&expand=team`,
      () => 'DATABASE_URL=postgres://${DB_USER}:${DB_PASSWORD}@db:5432/app',
      () => 'export REDIS_URL=redis://cache.internal:6379/0',
      () => 'see https://docs.acme.io/auth#user:pass@host for the URL form',
    ],
  },
  {
    kind: 'auth-header-reference',
    rows: [
      () => 'curl -H "Authorization: Bearer $GITHUB_TOKEN" https://api.github.com/user',
      () => "curl --header 'Authorization: Basic ${CREDS}' https://registry.acme.io/v2/",
      () => 'curl -H "Authorization: token $(gh auth token)" https://api.github.com/rate_limit',
      () => 'Authorization: Bearer <token>',
    ],
  },
  {
    kind: 'make-variable-reference',
    rows: [
      () => 'SNYK_TOKEN ?= $(shell cat ~/.config/snyk/token)',
      () => 'SONAR_LOGIN := ${SONAR_TOKEN}',
      () => 'HUBSPOT_API_KEY ?=\nAPI_URL := https://api.hubapi.com',
      () => 'IMAGE_TAG ?= $(shell git rev-parse --short HEAD)\nLDFLAGS += -X main.version=$(VERSION)',
    ],
  },
  {
    kind: 'k8s-configmap-variants',
    rows: [
      (g) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n\tname: cfg\ndata:\n\tmode: prod\n\tbuild: ${g.hex(12)}\n`,
      () =>
        '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cfg"},"data":{"LOG_LEVEL":"info","REGION":"eu-west-1"}}',
      () =>
        'apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\ndata: {}\n---\nkind: ConfigMap\napiVersion: v1\nmetadata:\n  name: x\ndata:\n  # comment\n  color: blue\n',
    ],
  },
  {
    kind: 'xml-config-reference',
    rows: [
      () => '<add key="ClearTextPassword" value="%NUGET_FEED_PASSWORD%" />',
      () => '<add key="ClearTextPassword" value="$(FeedPassword)" />',
      () => '<setting name="LogLevel" value="Information" />',
      () => '<property name="db.username" value="app"/>',
    ],
  },
];

// ── the corpus ─────────────────────────────────────────────────────────────────────────────────────────

/** The secret kinds with the page each format was checked against. */
export const SECRET_KINDS: ReadonlyArray<{ kind: string; doc: string }> = [
  ...PROVIDER_KINDS,
  ...STRUCTURAL_KINDS,
  ...SCANNER_CLASS_KINDS,
].map(({ kind, doc }) => ({ kind, doc }));
export const CLEAN_KIND_NAMES: readonly string[] = [...CLEAN_KINDS, ...SCANNER_CLASS_CLEAN_KINDS].map((k) => k.kind);

/**
 * Builds the corpus: every template of every kind once, in a fixed order, from one PRNG. Throws when a row
 * lists a secret its text does not contain (a template bug would otherwise grade the sanitizer on nothing).
 */
export function buildSecretCorpus(seed: number = SECRET_CORPUS_SEED): SecretCorpusRow[] {
  const g = new Gen(seed);
  const rows: SecretCorpusRow[] = [];
  const addSecrets = (kinds: readonly SecretKind[]): void => {
    for (const spec of kinds) {
      for (const template of spec.rows) {
        const { text, secrets } = template(g);
        const missing = secrets.filter((s) => s === '' || !text.includes(s));
        if (secrets.length === 0 || missing.length > 0)
          throw new Error(
            `secret corpus: a ${spec.kind} row lists ${secrets.length === 0 ? 'no secret' : 'a secret its text does not hold'}`,
          );
        rows.push({ text, label: 'secret', kind: spec.kind, secrets: [...new Set(secrets)] });
      }
    }
  };
  const addClean = (kinds: readonly CleanKind[]): void => {
    for (const spec of kinds) {
      for (const template of spec.rows) rows.push({ text: template(g), label: 'clean', kind: spec.kind, secrets: [] });
    }
  };
  addSecrets([...PROVIDER_KINDS, ...STRUCTURAL_KINDS]);
  addClean(CLEAN_KINDS);
  // Last, so that the rows above keep the values they had before these kinds were added.
  addSecrets(SCANNER_CLASS_KINDS);
  addClean(SCANNER_CLASS_CLEAN_KINDS);
  return rows;
}
