/**
 * Layer 2: RE2 patterns for known secret formats, written from the providers' documented token formats.
 *
 * Every pattern names the literal keywords one of which occurs in each of its matches; the Aho-Corasick
 * pass (keywords.ts) finds them, an optional cheap `confirm` check at the hit filters the common
 * non-secret occurrences (`token` in prose, `://` in a URL without credentials), and only then is the
 * pattern compiled (once per process) and run. `re2` itself — a native addon that costs milliseconds to
 * load — is loaded on the first confirmed hit, so a command without secrets never pays for it.
 *
 * Sources avoid counted repetitions with upper bounds (`{36,255}`): RE2 expands them, and one such pattern
 * costs half a millisecond to compile. Lower bounds stay small and unbounded (`{36,}`).
 */
import { re2Constructor } from '../util/re2.js';
import type RE2 from 're2';
import {
  hasPlaceholderMarker,
  isDocumentedExample,
  isFilledPlaceholder,
  isNumericId,
  isPlaceholder,
  isSecretName,
  namesPublicKey,
} from './heuristics.js';
import {
  cookieHeaderParts,
  curlCookieParts,
  fromLiteralParts,
  hasTokenChecksum,
  isMavenEncrypted,
  kubernetesSecretSpans,
  trimmedPart,
} from './structure.js';
import type { Finding } from './types.js';

export const FAMILIES = [
  'cloud',
  'vcs',
  'chat',
  'payment',
  'ai',
  'registry',
  'database',
  'crypto',
  'saas',
  'generic',
] as const;
export type Family = (typeof FAMILIES)[number];

/**
 * Cheap pre-checks at a keyword hit, each a superset of what its pattern can match there:
 * - `assign`: the keyword ends a key: optional closing quote, blanks, then `:`, `=`, `?=` or `+=` (`token: x`, `"password" = "x"`, `TOKEN ?= x`).
 * - `flag`: the keyword ends a `--long-flag` followed by `=` or by a value that is not another option, or `assign`.
 * - `tail`: at least `min` token characters `[A-Za-z0-9_-]` follow the keyword.
 * - `userinfo`: after `://`, an authority `user:pass@`: the user ends at the first `/ ? #` or blank, the
 *   password may hold `? #` (and, `quoted`, blanks and `/`).
 * - `userpass-arg`: the next shell word (after `-u`, `--user`; its quotes are part of it) contains a `:`.
 * - `line-has`: one of `needles` occurs after the keyword on the same line.
 * - `arg-has`: the next word (after blanks, '=' or a quote) contains `char` (`-b 'sid=…'`: cookies, not a file).
 * - `hex-before`: at least `min` hex digits end where the keyword starts (`<32 hex>-us6`).
 * - `tag-attribute`: the keyword is an attribute name inside an XML start tag (`="` or `='` follows, a `<` before it with no `>` between).
 */
export type Confirm =
  | { kind: 'assign' }
  | { kind: 'flag' }
  | { kind: 'tail'; min: number }
  | { kind: 'userinfo'; quoted?: boolean }
  | { kind: 'userpass-arg' }
  | { kind: 'line-has'; needles: readonly string[] }
  | { kind: 'arg-has'; char: string }
  | { kind: 'hex-before'; min: number }
  | { kind: 'tag-attribute' };

export interface PatternSpec {
  id: string;
  family: Family;
  /** What it finds, for `hookwise scan` output and docs. */
  description: string;
  /**
   * Where the format is documented (https): the provider's own page for a token format, the tool's or the
   * standard's page for a structural pattern. Where the provider does not document the format, the best
   * public source, and the description says so.
   */
  reference: string;
  /** ASCII literals, one of which occurs in every match. */
  keywords: readonly string[];
  /** Keywords match case-insensitively (ASCII). */
  ignoreCase: boolean;
  /** The keywords are literal token prefixes (`ghp_`): layer 1 redacts `prefix + long body` even when the pattern does not match. */
  prefix?: boolean;
  confirm?: Confirm;
  /** RE2 syntax. */
  source: string;
  /** Capture groups to redact (each that participated); 0 = the whole match. */
  redact: readonly number[];
  /**
   * Keep a captured value (return false) that is not a secret, e.g. a `$VAR` reference. `match` is the whole
   * match, `groups` every capture group of it (`groups[1]` …), e.g. the variable name beside the value.
   */
  accept?: (value: string, match: string, groups: readonly (string | undefined)[]) => boolean;
  /**
   * Redact only parts of an accepted capture: [start, end) offsets into it, flattened (a Cookie header's
   * values, not its names). A linear scan of the capture.
   */
  parts?: (value: string, match: string) => readonly number[];
  /**
   * A structural pattern: when `source` matches anywhere in the text (the gate), this linear scan of the
   * whole text reports the spans to redact instead (the values of a Kubernetes Secret, whose key names say
   * nothing). `redact` is then empty. Such a pattern always sees the whole text (see WHOLE_TEXT).
   */
  structure?: (text: string, push: (start: number, end: number) => void) => void;
}

const notPlaceholder = (v: string): boolean => !isPlaceholder(v);
/** A plain lower-case word (`Authorization: the administrator` is prose, not a scheme and its credential). */
const isLowerWord = (v: string): boolean => {
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c < 0x61 || c > 0x7a) return false;
  }
  return true;
};
/** A URL's password: not a placeholder, and not the user name again (`postgres://postgres:postgres@…`, a default). */
const urlPassword = (v: string, match: string): boolean => {
  if (isPlaceholder(v)) return false;
  const userStart = match.indexOf('://') + 3;
  const userEnd = match.indexOf(':', userStart);
  return userEnd < 0 || match.slice(userStart, userEnd) !== v;
};
/** A generic `sk-` key whose body says it is made up (`sk-ant-api05-notarealkey`) is not one. */
const notMadeUp = (v: string): boolean => !hasPlaceholderMarker(v);
const notPlaceholderOrId = (v: string): boolean => !isPlaceholder(v) && !isNumericId(v);
/**
 * For assignments found by key name: not a placeholder, not a URL (a URL's password is the url-credentials
 * pattern's to redact, and the rest of a URL is not secret), and not a key that says it is public.
 */
const assignedSecret = (v: string, match: string): boolean =>
  v.length >= 3 &&
  !isPlaceholder(v) &&
  !isNumericId(v.length <= 3 ? v : 'x') &&
  !v.includes('://') &&
  !namesPublicKey(match) &&
  !namesItself(v, match) &&
  !isSealedSecret(v);

/**
 * `key += value` in code builds a value piece by piece (`token += chunk`); make and shell variables, upper
 * case by convention, are assigned so (`DEPLOY_TOKEN += …`). The operator is the first one after the key.
 */
function appendsInCode(match: string): boolean {
  let i = 1; // the first character is the boundary before the key
  let lower = false;
  for (; i < match.length; i++) {
    const c = match.charCodeAt(i);
    if (c >= 0x61 && c <= 0x7a) lower = true;
    else if (!((c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x5f || c === 0x2e || c === 0x2d)) break;
  }
  while (i < match.length && ' \t"\'\\]'.includes(match[i]!)) i++;
  return lower && match.startsWith('+=', i);
}

/**
 * The `user:password` argument of curl -u and its kin: quoted as a whole (`"ci:p w"`, `'ci:p!w~'`), or the
 * password alone (`ci:'p!w'`, `$USER:"…"`), or bare. A bare user never starts with '+' (`date -u +%H:%M` is a
 * format) nor '/', and never holds '/' (`-u https://…` is a URL argument, not user:password). Groups: the
 * password in each form.
 */
const USER_PASSWORD = String.raw`(?:"[^"\n:]*:([^"\n]+)"|'[^'\n:]*:([^'\n]+)'|\\"[^"\\\n:]*:([^"\\\n]+)\\"|(?:"[^"\n:]*"|'[^'\n:]*'|[^\s:"'/{+\\][^\s:"'/{\\]*):(?:'([^'\n]+)'|"([^"\n]+)"|([^\s"'/\x60\\][^\s"'\x60\\]*)))`;
const USER_PASSWORD_GROUPS = [1, 2, 3, 4, 5, 6] as const;
/** A password of user:password: not a placeholder nor a numeric id (`-u 1000:1000` is a uid:gid), nor a URL's `//`. */
const userPassword = (v: string): boolean => notPlaceholderOrId(v) && !v.startsWith('//');

/** Code that passes a variable under its own name: `"token": token`, `password=password`. */
function namesItself(value: string, match: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i) | 0x20;
    if (!(c >= 0x61 && c <= 0x7a) && value.charCodeAt(i) !== 0x5f) return false; // letters and '_' only
  }
  // The key ends where the quotes, blanks and separator before the value begin (a scan, not a regex).
  let end = match.length - value.length;
  while (end > 0 && ' \t\r\n"\'`:=>'.includes(match[end - 1]!)) end--;
  return end >= value.length && match.slice(end - value.length, end).toLowerCase() === value.toLowerCase();
}

/** A Bitnami SealedSecret value (`encryptedData:`): ciphertext for the cluster's key, made to be committed. */
function isSealedSecret(value: string): boolean {
  return (
    value.length >= 300 &&
    (value.startsWith('AgA') || value.startsWith('AgB') || value.startsWith('AgC') || value.startsWith('AgD'))
  );
}

/** Endings of XML element names that hold a secret (`<password>`, `<keyPassword>`, `<apiKey>`, `<storepass>`). */
const XML_SECRET_NAME = String.raw`(?:password|passwd|passphrase|secret|token|api[_\-]?key|access[_\-]?key|secret[_\-]?key|private[_\-]?key|credentials?|storepass|keypass)`;
/** A value in an XML element named like a secret: not a placeholder, except that Maven's `{…}` encrypted form is a secret. */ // hookwise:allow
const xmlSecret = (v: string): boolean => {
  const t = v.trim();
  return t !== '' && (!isPlaceholder(t) || isMavenEncrypted(t));
};
/** The value of a name/value pair whose name (the first non-empty name group) says it holds a secret. */
const namedSecret =
  (...nameGroups: number[]) =>
  (v: string, _match: string, groups: readonly (string | undefined)[]): boolean => {
    const name = nameGroups.map((g) => groups[g]).find((n) => n !== undefined && n !== '') ?? '';
    return isSecretName(name) && !namesPublicKey(name) && !isPlaceholder(v) && !isNumericId(v.length <= 3 ? v : 'x');
  };

/**
 * Quoted or bare value after a separator; groups: "double", 'single', `backtick`, bare, and \"escaped\" (a
 * file's text inside a JSON string: `password: \"…\"`).
 */
// The bare form never starts with '=' (`token == x` is a comparison) nor with '\' (an escaped quote).
const VALUE = String.raw`(?:"([^"\n]*)"|'([^'\n]*)'|\x60([^\x60\n]*)\x60|([^\s"',;&|)\]}>\x60=\\][^\s"',;&|)\]}>\x60\\]*)|\\"([^"\\\n]*)\\")`;
const VALUE_GROUPS = [1, 2, 3, 4, 5] as const;

/**
 * Assignment operators of env files, shells, YAML / JSON / TOML, code and make: `=`, `:`, `=>`, and make's
 * `:=`, `::=`, `:::=`, `?=`, `+=` — longest first (RE2 prefers the first alternative that matches). Not `!=`:
 * make runs that value as a command, and elsewhere it is a comparison.
 */
const ASSIGN_OP = String.raw`(?::{1,3}=|[?+]=|=>|=|:)`;

/** Key-name endings that make `key = value` a secret (the generic assignment pattern). */
const SECRET_KEY_WORDS = [
  'password',
  'passwd',
  'passphrase',
  'pwd',
  'pass',
  'secret',
  'token',
  'apikey',
  'api_key',
  'api-key',
  'api.key',
  'access_key',
  'access-key',
  'accesskey',
  'secret_key',
  'secret_key_base',
  'secret-key',
  'secretkey',
  'private_key',
  'private-key',
  'privatekey',
  'auth_key',
  'auth-key',
  'authkey',
  'master_key',
  'master-key',
  'masterkey',
  'signing_key',
  'signing-key',
  'encryption_key',
  'encryption-key',
  'client_secret',
  'clientsecret',
  'credential',
  'credentials',
  'auth',
  'cookie',
] as const;
const SECRET_KEY_SOURCE = String.raw`(?:password|passwd|passphrase|pwd|pass|secret|token|api[_.\-]?key|access[_.\-]?key|secret[_.\-]?key(?:[_.\-]?base)?|private[_.\-]?key|auth[_.\-]?key|master[_.\-]?key|signing[_.\-]?key|encryption[_.\-]?key|client[_.\-]?secret|credentials?|auth|cookie)`;

/** Upper-case environment variable endings (`FOO_TOKEN=`, `PGPASSWORD=`): the `=` is part of the keyword. */
const ENV_SUFFIXES = [
  'PASSWORD',
  'PASSWD',
  'PASS',
  'PWD',
  'TOKEN',
  'SECRET',
  'KEY',
  'KEY_BASE',
  'APIKEY',
  'CREDENTIALS',
  'CREDENTIAL',
  'AUTH',
  'DSN',
  'PAT',
  'COOKIE',
  'SALT',
  'PASSPHRASE',
] as const;

const FLAG_WORDS = [
  'password',
  'passwd',
  'passphrase',
  'pass',
  'token',
  'api-key',
  'apikey',
  'secret',
  'secret-key',
  'access-key',
  'credentials',
  'credential',
] as const;

export const PATTERNS: readonly PatternSpec[] = [
  // ── cloud ──────────────────────────────────────────────────────────────────────────────────────────────
  {
    id: 'aws-access-key-id',
    family: 'cloud',
    description: 'AWS access key id (AKIA… long-term, ASIA… temporary)',
    reference: 'https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_identifiers.html#identifiers-unique-ids',
    keywords: ['AKIA', 'ASIA', 'ABIA', 'ACCA', 'A3T'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b((?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16})\b`,
    redact: [1],
  },
  {
    id: 'aws-secret-access-key',
    family: 'cloud',
    description: 'AWS secret access key (40 base64 characters) after a key name that says so',
    reference: 'https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_access-keys.html',
    keywords: ['secret_access_key', 'secretaccesskey', 'secret-access-key', 'aws_secret', 'aws-secret', 'awssecret'],
    ignoreCase: true,
    source: String.raw`(?i)(?:aws)?[_.\-]?secret[_.\-]?(?:access)?[_.\-]?key\\?["']?\s*(?:[:=]|=>|:=)?\s*\\?["']?([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`,
    redact: [1],
  },
  {
    id: 'aws-session-token',
    family: 'cloud',
    description: 'AWS session token after a key name that says so',
    reference: 'https://docs.aws.amazon.com/STS/latest/APIReference/API_Credentials.html',
    keywords: ['session_token', 'sessiontoken', 'session-token'],
    ignoreCase: true,
    source: String.raw`(?i)session[_\-]?token["']?\s*(?:[:=]|=>|:=)?\s*["']?([A-Za-z0-9/+=]{100,})`,
    redact: [1],
  },
  {
    id: 'gcp-api-key',
    family: 'cloud',
    description: 'Google Cloud / Firebase / Gemini API key (AIza + 35)',
    reference: 'https://cloud.google.com/docs/authentication/api-keys',
    keywords: ['AIza'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(AIza[0-9A-Za-z_\-]{35})(?:[^0-9A-Za-z_\-]|$)`,
    redact: [1],
  },
  {
    id: 'gcp-oauth-client-secret',
    family: 'cloud',
    description: 'Google OAuth client secret (GOCSPX-; Google documents the secret, not the prefix)',
    reference: 'https://developers.google.com/identity/protocols/oauth2',
    keywords: ['GOCSPX-'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(GOCSPX-[A-Za-z0-9_\-]{24,})`,
    redact: [1],
  },
  {
    id: 'google-oauth-token',
    family: 'cloud',
    description: 'Google OAuth access token (ya29.) or refresh token (1//0)',
    reference: 'https://developers.google.com/identity/protocols/oauth2',
    keywords: ['ya29.', '1//0'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(ya29\.[0-9A-Za-z_\-]{20,}|1//0[0-9A-Za-z_\-]{30,})`,
    redact: [1],
  },
  {
    id: 'azure-storage-account-key',
    family: 'cloud',
    description: 'Azure storage / Service Bus / Event Hubs key in a connection string (AccountKey=, SharedAccessKey=)',
    reference: 'https://learn.microsoft.com/en-us/azure/storage/common/storage-configure-connection-string',
    keywords: ['accountkey', 'sharedaccesskey'],
    ignoreCase: true,
    source: String.raw`(?i)(?:AccountKey|SharedAccessKey)\s*=\s*([A-Za-z0-9+/]{20,}={0,2})`,
    redact: [1],
  },
  {
    id: 'azure-sas-signature',
    family: 'cloud',
    description: 'Azure shared access signature (sig= in a SAS URL or connection string)',
    reference: 'https://learn.microsoft.com/en-us/rest/api/storageservices/create-service-sas',
    keywords: ['sig='],
    ignoreCase: true,
    source: String.raw`(?i)[?&;]sig=([A-Za-z0-9%+/=]{16,})`,
    redact: [1],
  },
  {
    id: 'azure-ad-client-secret',
    family: 'cloud',
    description:
      'Microsoft Entra ID (Azure AD) client secret (…Q~…; Microsoft does not document the format: linked is the gitleaks rule)',
    reference: 'https://github.com/gitleaks/gitleaks/blob/master/cmd/generate/config/rules/azure.go',
    keywords: ['Q~'],
    ignoreCase: false,
    source: String.raw`(?:^|[^A-Za-z0-9_~.\-])([A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.\-]{31,})`,
    redact: [1],
  },
  {
    id: 'alibaba-access-key-id',
    family: 'cloud',
    description: 'Alibaba Cloud AccessKey id (LTAI)',
    reference: 'https://www.alibabacloud.com/help/en/ram/user-guide/create-an-accesskey-pair',
    keywords: ['LTAI'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(LTAI[A-Za-z0-9]{12,})\b`,
    redact: [1],
  },
  {
    id: 'digitalocean-token',
    family: 'cloud',
    description: 'DigitalOcean personal / OAuth / refresh token (dop_v1_, doo_v1_, dor_v1_)',
    reference: 'https://docs.digitalocean.com/reference/api/api-reference/',
    keywords: ['dop_v1_', 'doo_v1_', 'dor_v1_'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(do[opr]_v1_[a-f0-9]{64})`,
    redact: [1],
  },
  {
    id: 'heroku-api-key',
    family: 'cloud',
    description: 'Heroku API key: HRKU- tokens, or a UUID after a heroku key name',
    reference: 'https://devcenter.heroku.com/articles/platform-api-quickstart#authentication',
    keywords: ['HRKU-', 'heroku'],
    ignoreCase: true,
    source: String.raw`(?i)\b(HRKU-[A-Za-z0-9_\-]{40,})|heroku[A-Za-z0-9_.\-]{0,20}["']?\s*[:=]\s*["']?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})`,
    redact: [1, 2],
  },
  {
    id: 'cloudflare-token',
    family: 'cloud',
    description: 'Cloudflare account / user API token or global key (cfat_, cfut_, cfk_), origin CA key (v1.0-)',
    reference: 'https://developers.cloudflare.com/fundamentals/api/get-started/token-formats/',
    keywords: ['cfat_', 'cfut_', 'cfk_', 'v1.0-'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(cf(?:at|ut|k)_[A-Za-z0-9]{40,}|v1\.0-[a-f0-9]{24}-[a-f0-9]{100,})`,
    redact: [1],
  },
  {
    id: 'vercel-token',
    family: 'cloud',
    description: 'Vercel tokens (vcp_, vci_, vca_, vcr_, vck_)',
    reference: 'https://vercel.com/changelog/new-token-formats-and-secret-scanning',
    keywords: ['vcp_', 'vci_', 'vca_', 'vcr_', 'vck_'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(vc[pciark]_[A-Za-z0-9]{24,})`,
    redact: [1],
  },
  {
    id: 'netlify-token',
    family: 'cloud',
    description: 'Netlify personal access token (nfp_)',
    reference: 'https://docs.netlify.com/api/get-started/#authentication',
    keywords: ['nfp_'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(nfp_[A-Za-z0-9]{36,})`,
    redact: [1],
  },
  {
    id: 'flyio-token',
    family: 'cloud',
    description: 'Fly.io tokens (fo1_, fm1r_/fm1a_/fm2_ macaroons)',
    reference: 'https://fly.io/docs/security/tokens/',
    keywords: ['fo1_', 'fm1r_', 'fm1a_', 'fm2_'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(fo1_[A-Za-z0-9_\-]{40,}|fm[12][ar]?_[A-Za-z0-9+/=_\-]{40,})`,
    redact: [1],
  },
  {
    id: 'supabase-token',
    family: 'cloud',
    description: 'Supabase access token (sbp_) and secret key (sb_secret_)',
    reference: 'https://supabase.com/docs/guides/api/api-keys',
    keywords: ['sbp_', 'sb_secret_'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(sbp_[a-f0-9]{40}|sb_secret_[A-Za-z0-9_\-]{20,})`,
    redact: [1],
  },
  {
    id: 'planetscale-token',
    family: 'database',
    description: 'PlanetScale service token / password / OAuth token (pscale_tkn_, pscale_pw_, pscale_oauth_)',
    reference: 'https://planetscale.com/docs/concepts/service-tokens',
    keywords: ['pscale_'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_\-.=]{32,})`,
    redact: [1],
  },
  {
    id: 'terraform-cloud-token',
    family: 'cloud',
    description: 'Terraform Cloud / HCP Terraform API token (….atlasv1.…)',
    reference: 'https://developer.hashicorp.com/terraform/cloud-docs/users-teams-organizations/api-tokens',
    keywords: ['.atlasv1.'],
    ignoreCase: false,
    source: String.raw`\b([A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=\-]{60,})`,
    redact: [1],
  },
  {
    id: 'pulumi-token',
    family: 'cloud',
    description: 'Pulumi access token (pul-)',
    reference: 'https://www.pulumi.com/docs/pulumi-cloud/access-management/access-tokens/',
    keywords: ['pul-'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(pul-[a-f0-9]{40})\b`,
    redact: [1],
  },
  {
    id: 'doppler-token',
    family: 'saas',
    description: 'Doppler tokens (dp.pt., dp.st., dp.sa., dp.ct., dp.scim., dp.audit.)',
    reference: 'https://docs.doppler.com/reference/auth-token-formats',
    keywords: ['dp.pt.', 'dp.st.', 'dp.sa.', 'dp.ct.', 'dp.scim.', 'dp.audit.'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,})`,
    redact: [1],
  },
  {
    id: 'vault-token',
    family: 'saas',
    description: 'HashiCorp Vault service / batch / recovery token (hvs., hvb., hvr.)',
    reference: 'https://developer.hashicorp.com/vault/docs/concepts/tokens#token-prefixes',
    keywords: ['hvs.', 'hvb.', 'hvr.'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(hv[sbr]\.[A-Za-z0-9_\-]{24,})`,
    redact: [1],
  },
  {
    id: 'onepassword-token',
    family: 'saas',
    description: '1Password service account token (ops_eyJ…) and account secret key (A3-…)',
    reference: 'https://developer.1password.com/docs/service-accounts/',
    keywords: ['ops_eyJ', 'A3-'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(ops_eyJ[A-Za-z0-9+/=_\-]{100,}|A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5})`,
    redact: [1],
  },
  {
    id: 'tailscale-key',
    family: 'saas',
    description: 'Tailscale auth / API / OAuth client / webhook / SCIM key (tskey-…)',
    reference: 'https://tailscale.com/kb/1085/auth-keys',
    keywords: ['tskey-'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`(?:^|[^A-Za-z])(tskey-[a-z]+-[A-Za-z0-9]{6,}-[A-Za-z0-9]{16,})`,
    redact: [1],
  },
  {
    id: 'databricks-token',
    family: 'saas',
    description: 'Databricks personal access token (dapi + 32 hex)',
    reference: 'https://docs.databricks.com/en/dev-tools/auth/pat.html',
    keywords: ['dapi'],
    ignoreCase: false,
    confirm: { kind: 'tail', min: 32 },
    source: String.raw`(?:^|[^A-Za-z])(dapi[a-fA-F0-9]{32}(?:-[0-9])?)(?:[^A-Za-z0-9]|$)`,
    redact: [1],
  },
  {
    id: 'grafana-token',
    family: 'saas',
    description: 'Grafana Cloud API token (glc_) and service account token (glsa_)',
    reference: 'https://grafana.com/docs/grafana/latest/administration/service-accounts/',
    keywords: ['glc_', 'glsa_'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(glc_[A-Za-z0-9+/]{32,}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})`,
    redact: [1],
  },
  {
    id: 'newrelic-key',
    family: 'saas',
    description: 'New Relic user / browser / ingest keys (NRAK-, NRJS-, NRII-)',
    reference: 'https://docs.newrelic.com/docs/apis/intro-apis/new-relic-api-keys/',
    keywords: ['NRAK-', 'NRJS-', 'NRII-'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(NR(?:AK|JS|II)-[A-Za-z0-9]{19,})`,
    redact: [1],
  },
  {
    id: 'datadog-key-header',
    family: 'saas',
    description: 'Datadog API / application key in a DD-API-KEY / DD-APPLICATION-KEY header',
    reference: 'https://docs.datadoghq.com/account_management/api-app-keys/',
    keywords: ['dd-api-key', 'dd-application-key'],
    ignoreCase: true,
    source: String.raw`(?i)dd-(?:api|application)-key["']?\s*[:=]\s*["']?([a-f0-9]{32,40})`,
    redact: [1],
  },
  {
    id: 'dynatrace-token',
    family: 'saas',
    description: 'Dynatrace API token (dt0c01.)',
    reference:
      'https://docs.dynatrace.com/docs/manage/identity-access-management/access-tokens-and-oauth-clients/access-tokens#token-format',
    keywords: ['dt0c01.'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(dt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64})`,
    redact: [1],
  },
  {
    id: 'sentry-dsn',
    family: 'saas',
    description: 'Sentry DSN key (https://<key>@….ingest.sentry.io/…)',
    reference: 'https://docs.sentry.io/concepts/key-terms/dsn-explainer/',
    keywords: ['sentry', 'ingest'],
    ignoreCase: true,
    source: String.raw`(?i)https?://([0-9a-f]{32}(?::[0-9a-f]{32})?)@[A-Za-z0-9.\-]*(?:sentry|ingest)`,
    redact: [1],
  },
  {
    id: 'sentry-token',
    family: 'saas',
    description: 'Sentry organization (sntrys_) and user (sntryu_) auth tokens',
    reference: 'https://docs.sentry.io/security-legal-pii/security/token-formats/',
    keywords: ['sntrys_', 'sntryu_'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(sntrys_eyJ[A-Za-z0-9+/=_\-]{50,}|sntryu_[a-f0-9]{64})`,
    redact: [1],
  },

  {
    id: 'kubernetes-secret',
    family: 'cloud',
    description:
      "Values under data: and stringData: of a Kubernetes Secret in YAML (block style, also indented with tabs; any key name; comments between keys; kind before or after data; multi-document files and List items; the last-applied-configuration annotation that copies them) or in JSON (kubectl get -o json, one object or a List). A ConfigMap's data is left alone",
    reference: 'https://kubernetes.io/docs/concepts/configuration/secret/',
    keywords: ['kind:', '"kind"'],
    ignoreCase: false,
    confirm: { kind: 'line-has', needles: ['Secret'] },
    // The gate: a real `kind: Secret` line (not SecretStore, not a comment), or a JSON "kind": "Secret". The scan does the rest.
    source: String.raw`(?m)^[ \t]*(?:-[ \t]+)?kind:[ \t]*["']?Secret["']?[ \t]*(?:#[^\n]*)?\r?$|"kind"[ \t\r\n]*:[ \t\r\n]*"Secret"`,
    redact: [],
    structure: kubernetesSecretSpans,
  },
  {
    id: 'kubectl-secret-literal',
    family: 'cloud',
    description:
      "Values given to kubectl / oc create secret as --from-literal=key=value, whatever the key is called (not a configmap's)", // hookwise:allow
    reference: 'https://kubernetes.io/docs/reference/kubectl/generated/kubectl_create/kubectl_create_secret_generic/',
    keywords: ['create secret'],
    ignoreCase: false,
    confirm: { kind: 'line-has', needles: ['--from-literal'] },
    source: String.raw`\b(?:kubectl|oc)\b[^\n|;&]*?\bcreate\s+secret\b([^\n|;&]*)`,
    redact: [1],
    parts: fromLiteralParts,
  },
  {
    id: 'aws-bedrock-api-key',
    family: 'cloud',
    description:
      'Amazon Bedrock API key: long-term (ABSK + base64 of "BedrockAPIKey-…:secret") and short-term (bedrock-api-key- + base64 of a presigned URL). AWS documents the keys, not the ABSK prefix',
    reference: 'https://docs.aws.amazon.com/bedrock/latest/userguide/api-keys.html',
    keywords: ['ABSK', 'bedrock-api-key-'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(ABSK[A-Za-z0-9+/]{60,}={0,2}|bedrock-api-key-[A-Za-z0-9+/]{60,}={0,2})`,
    redact: [1],
  },

  // ── version control ────────────────────────────────────────────────────────────────────────────────────
  {
    id: 'github-token',
    family: 'vcs',
    description:
      'GitHub personal / OAuth / user-to-server / server-to-server / refresh token (ghp_, gho_, ghu_, ghs_, ghr_)',
    reference: 'https://github.blog/engineering/platform-security/behind-githubs-new-authentication-token-formats/',
    keywords: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(gh[pousr]_[A-Za-z0-9]{36,}|ghs_[0-9]+_[A-Za-z0-9_.\-]{30,})`,
    redact: [1],
  },
  {
    id: 'github-token-checksum',
    family: 'vcs',
    description:
      'GitHub classic token (ghp_, gho_, ghu_, ghs_, ghr_) or npm token (npm_) whose last 6 characters are the base62 CRC-32 of its 30-character body, found also where github-token needs a word boundary: glued to the text before it (xghp_…, MY_TOKEN_ghp_…)',
    reference: 'https://github.blog/engineering/platform-security/behind-githubs-new-authentication-token-formats/',
    keywords: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'npm_'],
    ignoreCase: false,
    confirm: { kind: 'tail', min: 36 },
    // No leading boundary: the checksum (1 in 2^32 by chance) is what makes the match a token.
    source: String.raw`((?:gh[pousr]|npm)_[A-Za-z0-9]{36})(?:[^A-Za-z0-9]|$)`,
    redact: [1],
    accept: hasTokenChecksum,
  },
  {
    id: 'github-fine-grained-token',
    family: 'vcs',
    description: 'GitHub fine-grained personal access token (github_pat_)',
    reference:
      'https://docs.github.com/en/authentication/keeping-your-account-and-data-secure/about-authentication-to-github#githubs-token-formats',
    keywords: ['github_pat_'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(github_pat_[A-Za-z0-9_]{60,})`,
    redact: [1],
  },
  {
    id: 'gitlab-token',
    family: 'vcs',
    description:
      'GitLab tokens: personal / deploy / pipeline trigger / runner / CI job / feed / OAuth … (glpat-, gldt-, glptt-, glrt-, …), runner registration (GR1348941)',
    reference: 'https://docs.gitlab.com/security/tokens/#token-prefixes',
    keywords: [
      'glpat-',
      'gldt-',
      'glptt-',
      'glrt-',
      'glcbt-',
      'glimt-',
      'glagent-',
      'glsoat-',
      'glffct-',
      'gloas-',
      'glft-',
      'GR1348941',
    ],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(gl(?:pat|dt|ptt|rt|cbt|imt|agent|soat|ffct|oas|ft)-[A-Za-z0-9_\-.]{20,}|GR1348941[A-Za-z0-9_\-]{20,})`,
    redact: [1],
  },
  {
    id: 'bitbucket-app-password',
    family: 'vcs',
    description: 'Bitbucket app password (ATBB)',
    reference: 'https://support.atlassian.com/bitbucket-cloud/docs/app-passwords/',
    keywords: ['ATBB'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(ATBB[A-Za-z0-9_=.\-]{28,})`,
    redact: [1],
  },
  {
    id: 'atlassian-api-token',
    family: 'saas',
    description: 'Atlassian API token / Confluence-Jira token (ATATT3, ATCTT3)',
    reference: 'https://support.atlassian.com/atlassian-account/docs/manage-api-tokens-for-your-atlassian-account/',
    keywords: ['ATATT3', 'ATCTT3'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(AT[AC]TT3[A-Za-z0-9_\-=]{60,})`,
    redact: [1],
  },

  // ── chat ───────────────────────────────────────────────────────────────────────────────────────────────
  {
    id: 'slack-token',
    family: 'chat',
    description:
      'Slack bot / user / app-level / configuration / refresh tokens (xoxb-, xoxp-, xoxa-, xoxr-, xoxs-, xoxe-, xapp-)',
    reference: 'https://api.slack.com/authentication/token-types',
    keywords: ['xoxb-', 'xoxp-', 'xoxa-', 'xoxr-', 'xoxs-', 'xoxo-', 'xoxe-', 'xoxe.', 'xapp-'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(xox(?:[abeoprs]|e\.xox[bp])-[0-9A-Za-z\-]{10,}|xapp-[0-9]-[A-Za-z0-9\-]{10,})`,
    redact: [1],
  },
  {
    id: 'slack-webhook',
    family: 'chat',
    description: 'Slack incoming webhook / workflow URL (hooks.slack.com/services/…)',
    reference: 'https://api.slack.com/messaging/webhooks',
    keywords: ['hooks.slack.com'],
    ignoreCase: true,
    source: String.raw`(?i)hooks\.slack\.com/(?:services|workflows|triggers)/([A-Za-z0-9_/\-]{8,})`,
    redact: [1],
  },
  {
    id: 'discord-webhook',
    family: 'chat',
    description: 'Discord webhook token (discord.com/api/webhooks/<id>/<token>)',
    reference: 'https://discord.com/developers/docs/resources/webhook',
    keywords: ['discord.com/api/webhooks/', 'discordapp.com/api/webhooks/'],
    ignoreCase: true,
    source: String.raw`(?i)discord(?:app)?\.com/api/webhooks/[0-9]{5,}/([A-Za-z0-9_\-]{20,})`,
    redact: [1],
  },
  {
    id: 'discord-bot-token',
    family: 'chat',
    description: 'Discord bot token after a discord key name (the token itself has no prefix)',
    reference: 'https://discord.com/developers/docs/reference#authentication',
    keywords: ['discord'],
    ignoreCase: true,
    source: String.raw`(?i)discord[A-Za-z0-9_\-]{0,24}["']?\s*[:=]\s*["']?(?:Bot\s+)?([A-Za-z0-9_\-]{23,28}\.[A-Za-z0-9_\-]{6,7}\.[A-Za-z0-9_\-]{27,})`,
    redact: [1],
  },
  {
    id: 'telegram-bot-token',
    family: 'chat',
    description: 'Telegram bot token (<bot id>:AA…)',
    reference: 'https://core.telegram.org/bots/api#authorizing-your-bot',
    keywords: [':AA'],
    ignoreCase: false,
    // No \b before the id: the Bot API puts it right after "bot" (https://api.telegram.org/bot<token>/getMe).
    source: String.raw`(?:^|[^0-9])([0-9]{8,10}:AA[0-9A-Za-z_\-]{33})(?:[^0-9A-Za-z_\-]|$)`,
    redact: [1],
  },
  {
    id: 'teams-webhook',
    family: 'chat',
    description: 'Microsoft Teams incoming webhook URL (webhook.office.com/webhookb2/…)',
    reference:
      'https://learn.microsoft.com/en-us/microsoftteams/platform/webhooks-and-connectors/how-to/add-incoming-webhook',
    keywords: ['webhook.office.com'],
    ignoreCase: true,
    source: String.raw`(?i)webhook\.office\.com/webhookb2/([A-Za-z0-9@/\-]{20,})`,
    redact: [1],
  },

  // ── payment ────────────────────────────────────────────────────────────────────────────────────────────
  {
    id: 'stripe-key',
    family: 'payment',
    description:
      'Stripe secret / restricted keys (sk_live_, sk_test_, rk_live_, rk_test_) and webhook secrets (whsec_)',
    reference: 'https://docs.stripe.com/keys',
    keywords: ['sk_live_', 'sk_test_', 'rk_live_', 'rk_test_', 'whsec_'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b((?:sk|rk)_(?:live|test)_[0-9A-Za-z]{24,}|whsec_[A-Za-z0-9+/=]{32,})`,
    redact: [1],
  },
  {
    id: 'square-token',
    family: 'payment',
    description: 'Square access token (sq0atp-) and OAuth secret (sq0csp-)',
    reference: 'https://developer.squareup.com/docs/build-basics/access-tokens',
    keywords: ['sq0atp-', 'sq0csp-'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(sq0atp-[0-9A-Za-z_\-]{22,}|sq0csp-[0-9A-Za-z_\-]{43,})`,
    redact: [1],
  },
  {
    id: 'meta-access-token',
    family: 'payment',
    description:
      'Meta (Facebook/Instagram) access token and Square production token (EAA…; Meta documents the tokens, not the prefix)',
    reference: 'https://developers.facebook.com/docs/facebook-login/guides/access-tokens/',
    keywords: ['EAA'],
    ignoreCase: false,
    confirm: { kind: 'tail', min: 60 },
    source: String.raw`\b(EAA[A-Za-z0-9_\-+=]{60,})`,
    redact: [1],
  },
  {
    id: 'paypal-braintree-token',
    family: 'payment',
    description: 'PayPal / Braintree access token (access_token$production$…) and tokenization key',
    reference: 'https://developer.paypal.com/braintree/docs/guides/authorization/tokenization-key',
    keywords: ['access_token$', 'production_', 'sandbox_'],
    ignoreCase: false,
    confirm: { kind: 'tail', min: 8 },
    source: String.raw`(access_token\$(?:production|sandbox)\$[0-9a-z]{16}\$[0-9a-f]{32})|\b((?:production|sandbox)_[0-9a-z]{8}_[0-9a-z]{16})\b`,
    redact: [1, 2],
  },
  {
    id: 'twitter-bearer-token',
    family: 'saas',
    description: 'X / Twitter app bearer token (AAAAAAAAAAAAAAAAAAAAA…)',
    reference: 'https://docs.x.com/fundamentals/authentication/oauth-2-0/application-only',
    keywords: ['AAAAAAAAAAAAAAAAAAAAA'],
    ignoreCase: false,
    source: String.raw`\b(A{20,}[A-Za-z0-9%]{60,})`,
    redact: [1],
  },

  // ── AI APIs ────────────────────────────────────────────────────────────────────────────────────────────
  {
    id: 'anthropic-key',
    family: 'ai',
    description: 'Anthropic API / admin / OAuth key (sk-ant-…)',
    reference: 'https://docs.anthropic.com/en/api/getting-started#authentication',
    keywords: ['sk-ant-'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(sk-ant-[a-z0-9]{2,12}-[A-Za-z0-9_\-]{32,})`,
    redact: [1],
  },
  {
    id: 'openai-key',
    family: 'ai',
    description:
      'OpenAI project / service account / admin keys (sk-proj-, sk-svcacct-, sk-admin-) and legacy keys (…T3BlbkFJ…)',
    reference: 'https://platform.openai.com/docs/api-reference/authentication',
    keywords: ['sk-proj-', 'sk-svcacct-', 'sk-admin-', 'sk-None-', 'T3BlbkFJ'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_\-]{20,}|sk-[A-Za-z0-9_\-]{16,}T3BlbkFJ[A-Za-z0-9_\-]{16,})`,
    redact: [1],
  },
  {
    id: 'sk-api-key',
    family: 'ai',
    description: 'Other sk- API keys (DeepSeek, OpenRouter sk-or-, Moonshot, … and OpenAI variants)',
    reference: 'https://api-docs.deepseek.com/',
    keywords: ['sk-'],
    ignoreCase: false,
    confirm: { kind: 'tail', min: 20 },
    source: String.raw`(?:^|[^A-Za-z0-9_\-])(sk-[A-Za-z0-9][A-Za-z0-9_\-]{19,})`,
    redact: [1],
    accept: notMadeUp,
  },
  {
    id: 'groq-key',
    family: 'ai',
    description: 'Groq API key (gsk_)',
    reference: 'https://console.groq.com/docs/quickstart',
    keywords: ['gsk_'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(gsk_[A-Za-z0-9]{40,})`,
    redact: [1],
  },
  {
    id: 'huggingface-token',
    family: 'ai',
    description: 'Hugging Face user access token (hf_) and organization token (api_org_)',
    reference: 'https://huggingface.co/docs/hub/security-tokens',
    keywords: ['hf_', 'api_org_'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(hf_[A-Za-z0-9]{30,}|api_org_[A-Za-z0-9]{30,})`,
    redact: [1],
  },
  {
    id: 'replicate-token',
    family: 'ai',
    description: 'Replicate API token (r8_)',
    reference: 'https://replicate.com/docs/reference/http#authentication',
    keywords: ['r8_'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(r8_[A-Za-z0-9]{30,})`,
    redact: [1],
  },
  {
    id: 'perplexity-key',
    family: 'ai',
    description: 'Perplexity API key (pplx-)',
    reference: 'https://docs.perplexity.ai/guides/getting-started',
    keywords: ['pplx-'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(pplx-[A-Za-z0-9]{40,})`,
    redact: [1],
  },
  {
    id: 'xai-key',
    family: 'ai',
    description: 'xAI (Grok) API key (xai-)',
    reference: 'https://docs.x.ai/docs/overview',
    keywords: ['xai-'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(xai-[A-Za-z0-9]{50,})`,
    redact: [1],
  },
  {
    id: 'langsmith-key',
    family: 'ai',
    description: 'LangSmith personal / service key (lsv2_pt_, lsv2_sk_)',
    reference:
      'https://docs.smith.langchain.com/administration/how_to_guides/organization_management/create_account_api_key',
    keywords: ['lsv2_'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10})`,
    redact: [1],
  },
  {
    id: 'pinecone-key',
    family: 'ai',
    description: 'Pinecone API key (pcsk_)',
    reference: 'https://docs.pinecone.io/guides/projects/manage-api-keys',
    keywords: ['pcsk_'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(pcsk_[A-Za-z0-9_]{40,})`,
    redact: [1],
  },
  {
    id: 'cerebras-together-fireworks-key',
    family: 'ai',
    description: 'Cerebras (csk-), Together AI (tgp_v1_) and Fireworks (fw_) API keys',
    reference: 'https://inference-docs.cerebras.ai/quickstart',
    keywords: ['csk-', 'tgp_v1_', 'fw_'],
    ignoreCase: false,
    prefix: true,
    confirm: { kind: 'tail', min: 20 },
    source: String.raw`\b(csk-[a-z0-9]{40,}|tgp_v1_[A-Za-z0-9_\-]{30,}|fw_[A-Za-z0-9]{20,})`,
    redact: [1],
  },
  {
    id: 'ai-provider-key-assignment',
    family: 'ai',
    description:
      'Keys of AI APIs without a token prefix (Cohere, Mistral, Deepgram, AssemblyAI, ElevenLabs, Voyage) after a key name naming the provider',
    reference: 'https://docs.cohere.com/reference/about',
    keywords: ['cohere', 'mistral', 'deepgram', 'assemblyai', 'elevenlabs', 'voyage'],
    ignoreCase: true,
    source: String.raw`(?i)(?:cohere|mistral|deepgram|assemblyai|elevenlabs|voyage)[A-Za-z0-9_.\-]{0,24}["']?\s*(?:[:=]|=>)\s*["']?([A-Za-z0-9_\-]{24,})`,
    redact: [1],
  },

  {
    id: 'azure-openai-key',
    family: 'ai',
    description:
      'Azure OpenAI key after a key name naming it in any case or separator (azure_openai_key:, AzureOpenAIKey=, "azure-openai-api-key": …)',
    reference: 'https://learn.microsoft.com/en-us/azure/ai-services/openai/reference#authentication',
    keywords: ['azure_openai', 'azure-openai', 'azure.openai', 'azureopenai'],
    ignoreCase: true,
    source: String.raw`(?i)azure[_.\-]?openai[_.\-]?(?:api[_.\-]?)?key["']?\s*(?:[:=]|=>)\s*["']?([A-Za-z0-9]{32,})`,
    redact: [1],
  },

  // ── package registries ─────────────────────────────────────────────────────────────────────────────────
  {
    id: 'npm-token',
    family: 'registry',
    description: 'npm access token (npm_)',
    reference: 'https://github.blog/changelog/2021-09-23-npm-has-a-new-access-token-format/',
    keywords: ['npm_'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(npm_[A-Za-z0-9]{36,})`,
    redact: [1],
  },
  {
    id: 'npmrc-auth',
    family: 'registry',
    description: '.npmrc / .yarnrc credentials (_authToken=, _auth=, _password=, npmAuthToken:)',
    reference: 'https://docs.npmjs.com/cli/v10/configuring-npm/npmrc#auth-related-configuration',
    keywords: ['_authtoken', '_auth', '_password', 'npmauthtoken'],
    ignoreCase: true,
    confirm: { kind: 'assign' },
    source: String.raw`(?i)(?:^|[\s:"'])(?:_authToken|_auth|_password|npmAuthToken)["']?\s*[:=]\s*["']?([^\s"']+)`,
    redact: [1],
    accept: assignedSecret,
  },
  {
    id: 'pypi-token',
    family: 'registry',
    description: 'PyPI / TestPyPI API token (pypi-Ag…)',
    reference: 'https://pypi.org/help/#apitoken',
    keywords: ['pypi-Ag'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(pypi-Ag[A-Za-z0-9_\-]{50,})`,
    redact: [1],
  },
  {
    id: 'rubygems-key',
    family: 'registry',
    description: 'RubyGems API key (rubygems_)',
    reference: 'https://guides.rubygems.org/api-key-scopes/',
    keywords: ['rubygems_'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(rubygems_[a-f0-9]{48})`,
    redact: [1],
  },
  {
    id: 'nuget-key',
    family: 'registry',
    description: 'NuGet API key (oy2 + 43)',
    reference: 'https://learn.microsoft.com/en-us/nuget/nuget-org/scoped-api-keys',
    keywords: ['oy2'],
    ignoreCase: false,
    confirm: { kind: 'tail', min: 43 },
    source: String.raw`\b(oy2[a-z0-9]{43})\b`,
    redact: [1],
  },
  {
    id: 'docker-hub-token',
    family: 'registry',
    description: 'Docker Hub personal / organization access token (dckr_pat_, dckr_oat_)',
    reference: 'https://docs.docker.com/security/for-developers/access-tokens/',
    keywords: ['dckr_pat_', 'dckr_oat_'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(dckr_(?:pat|oat)_[A-Za-z0-9_\-]{24,})`,
    redact: [1],
  },
  {
    id: 'crates-io-token',
    family: 'registry',
    description:
      'crates.io API token (cio + 32; the prefix is undocumented by crates.io: linked is the issue that made its tokens scannable)',
    reference: 'https://github.com/rust-lang/crates.io/issues/3400',
    keywords: ['cio'],
    ignoreCase: false,
    confirm: { kind: 'tail', min: 32 },
    source: String.raw`\b(cio[A-Za-z0-9]{32})\b`,
    redact: [1],
  },
  {
    id: 'jfrog-token',
    family: 'registry',
    description: 'JFrog Artifactory API key (AKCp) and reference token (cmVmdGtu)',
    reference: 'https://jfrog.com/help/r/jfrog-platform-administration-documentation/access-tokens',
    keywords: ['AKCp', 'cmVmdGtu'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(AKCp[A-Za-z0-9]{60,}|cmVmdGtu[A-Za-z0-9]{40,})`,
    redact: [1],
  },
  {
    id: 'clojars-token',
    family: 'registry',
    description: 'Clojars deploy token (CLOJARS_)',
    reference: 'https://github.com/clojars/clojars-web/wiki/Deploy-Tokens',
    keywords: ['CLOJARS_'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(CLOJARS_[a-z0-9]{60})`,
    redact: [1],
  },

  {
    id: 'bundler-credentials',
    family: 'registry',
    description:
      'Bundler gem-source credentials, user and password both (Sidekiq Pro / Enterprise licence credentials are user:password): BUNDLE_<HOST>=user:password (BUNDLE_ENTERPRISE__CONTRIBSYS__COM, BUNDLE_GEMS__CONTRIBSYS__COM: any value), bundle config [--local] <host> user:password, and the user in https://user:pass@…contribsys.com',
    reference: 'https://bundler.io/man/bundle-config.1.html#CREDENTIALS-FOR-GEM-SOURCES',
    keywords: ['BUNDLE_', 'bundle config', 'contribsys.com'],
    ignoreCase: false,
    source: String.raw`(?:^|[^A-Za-z0-9_])BUNDLE_[A-Z0-9_]*?[A-Z0-9]__[A-Z0-9_]+(?:=|:[ \t]*)(?:"([^"\s]+)"|'([^'\s]+)'|([^\s"';&|]+))|\bbundle\s+config\s+(?:set\s+)?(?:--(?:local|global)\s+)?[A-Za-z0-9.\-]+\.[A-Za-z]{2,}[^\s]*\s+(?:"([^"\s]+)"|'([^'\s]+)'|([^\s"';&|]+))|://([^\s:/@"']+):[^\s@/"']*@(?:enterprise|gems)\.contribsys\.com`,
    redact: [1, 2, 3, 4, 5, 6, 7],
    // Any value for contribsys hosts; elsewhere only user:password (BUNDLE_BUILD__X, mirrors are settings).
    accept: (v, match) =>
      !isPlaceholder(v) &&
      (match.toLowerCase().includes('contribsys') || (v.includes(':') && !v.includes('//') && !v.startsWith('-'))),
  },
  {
    id: 'xml-key-value-secret',
    family: 'registry',
    description:
      'An XML element whose key or name attribute names a secret and whose value attribute holds it, in either order and any element: NuGet.config / web.config / app.config <add key="ClearTextPassword" value="…"/>, <setting name="ApiKey" value="…"/>, <property name="db.password" value="…"/>; $(X), %NAME% and ${X} values are kept',
    reference: 'https://learn.microsoft.com/en-us/nuget/reference/nuget-config-file#packagesourcecredentials',
    keywords: ['value'],
    ignoreCase: true,
    confirm: { kind: 'tag-attribute' },
    source: String.raw`(?i)<[A-Za-z_][\w:.\-]*\s+(?:[\w:.\-]+\s*=\s*(?:"[^"]*"|'[^'\n]*'|\\"[^"\\]*\\")\s+)*?(?:(?:key|name)\s*=\s*(?:"([^"]*)"|'([^'\n]*)'|\\"([^"\\]*)\\")\s+(?:[\w:.\-]+\s*=\s*(?:"[^"]*"|'[^'\n]*'|\\"[^"\\]*\\")\s+)*?value\s*=\s*(?:"([^"]*)"|'([^'\n]*)'|\\"([^"\\]*)\\")|value\s*=\s*(?:"([^"]*)"|'([^'\n]*)'|\\"([^"\\]*)\\")\s+(?:[\w:.\-]+\s*=\s*(?:"[^"]*"|'[^'\n]*'|\\"[^"\\]*\\")\s+)*?(?:key|name)\s*=\s*(?:"([^"]*)"|'([^'\n]*)'|\\"([^"\\]*)\\"))`,
    redact: [4, 5, 6, 7, 8, 9],
    accept: namedSecret(1, 2, 3, 10, 11, 12),
  },

  // ── SaaS and developer tools ───────────────────────────────────────────────────────────────────────────
  {
    id: 'sendgrid-key',
    family: 'saas',
    description: 'SendGrid API key (SG.<22>.<43>)',
    reference: 'https://www.twilio.com/docs/sendgrid/ui/account-and-settings/api-keys',
    keywords: ['SG.'],
    ignoreCase: false,
    prefix: true,
    // No leading \b: keys glued to a word are still keys.
    source: String.raw`(SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43})`,
    redact: [1],
  },
  {
    id: 'mailgun-key',
    family: 'saas',
    description: 'Mailgun API key (key- + 32 hex)',
    reference: 'https://documentation.mailgun.com/docs/mailgun/api-reference/authentication/',
    keywords: ['key-'],
    ignoreCase: false,
    confirm: { kind: 'tail', min: 32 },
    source: String.raw`\b(key-[0-9a-f]{32})\b`,
    redact: [1],
  },
  {
    id: 'twilio-credential-pair',
    family: 'saas',
    description:
      'Twilio auth token or API key secret next to its Account SID (AC…) or API key SID (SK…): AC…:token in curl -u / URLs, Client("AC…", "token"), twilio("SK…", "secret")',
    reference: 'https://www.twilio.com/docs/usage/requests-to-twilio',
    keywords: ['AC', 'SK'],
    ignoreCase: false,
    confirm: { kind: 'tail', min: 32 },
    source: String.raw`\b(?:AC|SK)[0-9a-fA-F]{32}(?::|["']?\s*,\s*["'])([A-Za-z0-9]{32})\b`,
    redact: [1],
    accept: notPlaceholder,
  },
  {
    id: 'mailchimp-api-key',
    family: 'saas',
    description: 'Mailchimp Marketing API key (32 hex + -us<data center>)',
    reference: 'https://mailchimp.com/developer/marketing/guides/quick-start/',
    keywords: ['-us'],
    ignoreCase: false,
    confirm: { kind: 'hex-before', min: 32 },
    source: String.raw`\b([0-9a-f]{32}-us[0-9]{1,2})\b`,
    redact: [1],
  },
  {
    id: 'hubspot-token',
    family: 'saas',
    description:
      'HubSpot private app access token (pat-na1-, pat-eu1-, … + UUID; HubSpot documents the tokens, shown masked, not their format)',
    reference: 'https://developers.hubspot.com/docs/api/private-apps',
    keywords: ['pat-na', 'pat-eu', 'pat-ap'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(pat-(?:na|eu|ap)[0-9]-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\b`,
    redact: [1],
  },
  {
    id: 'salesforce-access-token',
    family: 'saas',
    description: 'Salesforce access token / session id (<org id 00D…>!<token>): the part after the !',
    reference:
      'https://developer.salesforce.com/docs/atlas.en-us.sfdx_dev.meta/sfdx_dev/sfdx_dev_auth_existing_access_token.htm',
    keywords: ['00D'],
    ignoreCase: false,
    confirm: { kind: 'tail', min: 12 },
    source: String.raw`\b00D[A-Za-z0-9]{12}(?:[A-Za-z0-9]{3})?\\?!([A-Za-z0-9._]{40,})`,
    redact: [1],
  },
  {
    id: 'codecov-token-arg',
    family: 'saas',
    description:
      'Codecov upload token on a codecov / codecovcli command line (-t / --token), including the bash uploader',
    reference: 'https://docs.codecov.com/docs/codecov-cli',
    keywords: ['codecov'],
    ignoreCase: false,
    confirm: { kind: 'line-has', needles: [' -t', '--token'] },
    source: String.raw`\bcodecov(?:cli)?\b[^\n|;&]*?\s(?:-t|--token)(?:=|\s+)(?:"([^"\n]+)"|'([^'\n]+)'|([^\s"'\-][^\s"']*))`,
    redact: [1, 2, 3],
    accept: notPlaceholder,
  },
  {
    id: 'snyk-token-arg',
    family: 'saas',
    description:
      'Snyk API token given on the command line: snyk auth <token>, snyk config set api=<token> (a UUID: found only after those commands)',
    reference: 'https://docs.snyk.io/developer-tools/snyk-cli/commands/auth',
    keywords: ['snyk'],
    ignoreCase: false,
    source: String.raw`\bsnyk\s+(?:auth\s+|config\s+set\s+api=)(?:"([^"\n]+)"|'([^'\n]+)'|([^\s"'\-][^\s"']*))`,
    redact: [1, 2, 3],
    accept: notPlaceholder,
  },
  {
    id: 'sonar-login-token',
    family: 'saas',
    description:
      'Legacy SonarQube token (40 hex, no sq?_ prefix) in sonar.login= (mvn / gradle -D, sonar-project.properties)',
    reference: 'https://docs.sonarsource.com/sonarqube-server/latest/analyzing-source-code/analysis-parameters/',
    keywords: ['sonar.login'],
    ignoreCase: false,
    // No leading \b: it follows -D (-Dsonar.login=…).
    source: String.raw`sonar\.login\s*=\s*["']?([0-9a-f]{40})\b`,
    redact: [1],
  },
  {
    id: 'deepsource-dsn',
    family: 'saas',
    description: 'DeepSource DSN (the key in https://<key>@app.deepsource.com), which authenticates coverage uploads',
    reference: 'https://deepsource.io/docs/resources/glossary/',
    keywords: ['deepsource'],
    ignoreCase: true,
    source: String.raw`(?i)https?://([A-Za-z0-9]{16,})@(?:[A-Za-z0-9\-]+\.)*deepsource\.(?:io|com)`,
    redact: [1],
  },
  {
    id: 'twilio-api-key',
    family: 'saas',
    description: 'Twilio API key SID secret pair id (SK + 32 hex)',
    reference: 'https://www.twilio.com/docs/iam/api-keys',
    keywords: ['SK'],
    ignoreCase: false,
    confirm: { kind: 'tail', min: 32 },
    source: String.raw`\b(SK[0-9a-fA-F]{32})\b`,
    redact: [1],
  },
  {
    id: 'resend-key',
    family: 'saas',
    description: 'Resend API key (re_)',
    reference: 'https://resend.com/docs/dashboard/api-keys/introduction',
    keywords: ['re_'],
    ignoreCase: false,
    confirm: { kind: 'tail', min: 30 },
    source: String.raw`\b(re_[A-Za-z0-9]{8}_[A-Za-z0-9]{20,})`,
    redact: [1],
  },
  {
    id: 'postman-key',
    family: 'saas',
    description: 'Postman API key (PMAK-)',
    reference: 'https://learning.postman.com/docs/developer/postman-api/authentication/',
    keywords: ['PMAK-'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(PMAK-[a-f0-9]{24}-[a-f0-9]{34})`,
    redact: [1],
  },
  {
    id: 'mapbox-secret-token',
    family: 'saas',
    description: 'Mapbox secret token (sk.eyJ…)',
    reference: 'https://docs.mapbox.com/accounts/guides/tokens/',
    keywords: ['sk.eyJ'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(sk\.eyJ[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+)`,
    redact: [1],
  },
  {
    id: 'contentful-token',
    family: 'saas',
    description: 'Contentful personal access token (CFPAT-)',
    reference: 'https://www.contentful.com/developers/docs/references/authentication/',
    keywords: ['CFPAT-'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(CFPAT-[A-Za-z0-9_\-]{40,})`,
    redact: [1],
  },
  {
    id: 'sonar-token',
    family: 'saas',
    description: 'SonarQube / SonarCloud tokens (sqp_, squ_, sqa_)',
    reference: 'https://docs.sonarsource.com/sonarqube-server/latest/user-guide/managing-tokens/',
    keywords: ['sqp_', 'squ_', 'sqa_'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(sq[pua]_[a-f0-9]{40})`,
    redact: [1],
  },
  {
    id: 'sourcegraph-token',
    family: 'saas',
    description:
      'Sourcegraph access token (sgp_ + 40 hex; v3: sgp_<16-hex instance id or local>_<40 hex>) and its backend tokens (sgd_, sgs_, slk_ + 64 hex)',
    reference: 'https://sourcegraph.com/docs/dev/security/secret_formats',
    keywords: ['sgp_', 'sgd_', 'sgs_', 'slk_'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(sgp_(?:(?:[a-fA-F0-9]{16}|local)_)?[a-fA-F0-9]{40}|s(?:gd|gs|lk)_[a-fA-F0-9]{64})\b`,
    redact: [1],
  },
  {
    id: 'figma-token',
    family: 'saas',
    description: 'Figma personal access token (figd_)',
    reference: 'https://www.figma.com/developers/api#access-tokens',
    keywords: ['figd_'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(figd_[A-Za-z0-9_\-]{30,})`,
    redact: [1],
  },
  {
    id: 'linear-key',
    family: 'saas',
    description: 'Linear API key (lin_api_) and OAuth token (lin_oauth_)',
    reference: 'https://linear.app/developers/graphql#authentication',
    keywords: ['lin_api_', 'lin_oauth_'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(lin_api_[A-Za-z0-9]{40,}|lin_oauth_[a-f0-9]{64})`,
    redact: [1],
  },
  {
    id: 'notion-token',
    family: 'saas',
    description: 'Notion integration token (ntn_, legacy secret_)',
    reference: 'https://developers.notion.com/docs/authorization',
    keywords: ['ntn_', 'secret_'],
    ignoreCase: false,
    confirm: { kind: 'tail', min: 40 },
    source: String.raw`\b(ntn_[0-9]{11}[A-Za-z0-9]{35,}|secret_[A-Za-z0-9]{43})\b`,
    redact: [1],
  },
  {
    id: 'airtable-token',
    family: 'saas',
    description: 'Airtable personal access token (pat<14>.<64 hex>)',
    reference: 'https://airtable.com/developers/web/guides/personal-access-tokens',
    keywords: ['pat'],
    ignoreCase: false,
    confirm: { kind: 'tail', min: 14 },
    source: String.raw`\b(pat[A-Za-z0-9]{14}\.[a-f0-9]{64})`,
    redact: [1],
  },
  {
    id: 'shopify-token',
    family: 'payment',
    description: 'Shopify access tokens and shared secrets (shpat_, shpca_, shppa_, shpss_, shptka_)',
    reference:
      'https://shopify.dev/docs/apps/build/authentication-authorization/access-tokens/generate-app-access-tokens-admin',
    keywords: ['shpat_', 'shpca_', 'shppa_', 'shpss_', 'shptka_'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(shp(?:at|ca|pa|ss|tka)_[A-Za-z0-9]{32,})`,
    redact: [1],
  },

  // ── keys and tokens in standard formats ────────────────────────────────────────────────────────────────
  {
    id: 'private-key',
    family: 'crypto',
    description:
      'PEM / OpenSSH / PGP private key block (the body; also JSON-escaped, as in a GCP service-account file)',
    reference: 'https://www.rfc-editor.org/rfc/rfc7468',
    keywords: ['-----BEGIN'],
    ignoreCase: false,
    confirm: { kind: 'line-has', needles: ['PRIVATE KEY'] },
    // The body stops at the END line's dashes; without an END line, at the first non-key character.
    source: String.raw`-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----((?:\\[nrt]|[\sA-Za-z0-9+/=:,]|-[A-Za-z0-9])+)`,
    redact: [1],
  },
  {
    id: 'gcp-service-account-key-id',
    family: 'cloud',
    description: 'private_key_id of a Google service-account key file (names the key; kept with the key itself)',
    reference: 'https://cloud.google.com/iam/docs/keys-create-delete',
    keywords: ['private_key_id'],
    ignoreCase: false,
    source: String.raw`"private_key_id"\s*:\s*"([A-Za-z0-9]{16,})"`,
    redact: [1],
  },
  {
    id: 'putty-private-key',
    family: 'crypto',
    description: 'PuTTY private key file (the Private-Lines body)',
    reference: 'https://the.earth.li/~sgtatham/putty/latest/htmldoc/AppendixC.html',
    keywords: ['Private-Lines:'],
    ignoreCase: false,
    source: String.raw`Private-Lines:\s*[0-9]+\s*((?:[A-Za-z0-9+/=]+\s*)+)`,
    redact: [1],
  },
  {
    id: 'age-secret-key',
    family: 'crypto',
    description: 'age secret key (AGE-SECRET-KEY-1…)',
    reference: 'https://github.com/C2SP/C2SP/blob/main/age.md',
    keywords: ['AGE-SECRET-KEY-'],
    ignoreCase: false,
    prefix: true,
    source: String.raw`\b(AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58})`, // hookwise:allow (the bech32 alphabet)
    redact: [1],
  },
  {
    id: 'jwt',
    family: 'crypto',
    description: 'JSON Web Token (eyJ….….…)',
    reference: 'https://www.rfc-editor.org/rfc/rfc7519',
    keywords: ['eyJ'],
    ignoreCase: false,
    source: String.raw`\b(eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]*)`,
    redact: [1],
  },

  // ── credentials in URLs, headers, commands and assignments ─────────────────────────────────────────────
  {
    id: 'url-credentials',
    family: 'database',
    description:
      'Password in a URL: scheme://user:password@host (postgres, mysql, mongodb+srv, redis, amqp, ftp, https, …)', // hookwise:allow
    reference: 'https://www.rfc-editor.org/rfc/rfc3986#section-3.2.1',
    keywords: ['://'],
    ignoreCase: false,
    confirm: { kind: 'userinfo' },
    // The password may itself contain '@', '#' or '?' unencoded (people write them so): the greedy class backs
    // off to the last '@' before a host. The user may be empty (redis://:password@host).
    source: String.raw`[A-Za-z][A-Za-z0-9+.\-]*://[^\s:/?#@"'<>\x60]*:([^\s/"'<>\x60]+)@[A-Za-z0-9\[\]_.\-%]`,
    redact: [1],
    accept: urlPassword,
  },
  {
    id: 'url-credentials-quoted',
    family: 'database',
    description:
      "Password in a quoted URL, which may hold spaces and any punctuation: 'postgres://user:p#ss w0rd!@host/db'", // hookwise:allow
    reference: 'https://www.rfc-editor.org/rfc/rfc3986#section-3.2.1',
    keywords: ['://'],
    ignoreCase: false,
    confirm: { kind: 'userinfo', quoted: true },
    source: String.raw`['"][A-Za-z][A-Za-z0-9+.\-]*://[^\s:/?#@"'<>\x60]*:([^"'\n]*\s[^"'\n]*)@[A-Za-z0-9\[\]_.\-%]`,
    redact: [1],
    accept: urlPassword,
  },
  {
    id: 'authorization-header',
    family: 'generic',
    description:
      'Authorization / Proxy-Authorization header value: the credentials after any scheme (Bearer, Basic, Token, Bot, SSWS, OAuth, …) in curl -H / --header lines, raw HTTP and code',
    reference: 'https://www.rfc-editor.org/rfc/rfc9110#section-11.6.2',
    keywords: ['authorization'],
    ignoreCase: true,
    confirm: { kind: 'assign' },
    // A known scheme, then any credential; an unknown scheme (a word), then a token68 of 8 or more; else the value.
    source: String.raw`(?i)authorization["']?\s*[:=]\s*["']?(?:(?:bearer|basic|token|bot|digest|apikey|api-key|key|sso-key|hmac|negotiate|ntlm)\s+([^\s"',;)}\]]{4,})|[A-Za-z][A-Za-z0-9_.+\-]*[ \t]+([A-Za-z0-9\-._~+/]{8,}=*)(?:[^A-Za-z0-9\-._~+/=]|$)|([^\s"',;)}\]]{4,}))`,
    redact: [1, 2, 3],
    accept: (v, _match, groups) => notPlaceholder(v) && (groups[2] !== v || !isLowerWord(v)),
  },
  {
    id: 'authorization-header-params',
    family: 'generic',
    description:
      'Authorization header credentials written as auth-params (Digest username=…, response=…; AWS4-HMAC-SHA256 Credential=…, Signature=…; Token token=…): every parameter, to the end of the header',
    reference: 'https://www.rfc-editor.org/rfc/rfc9110#section-11.4',
    keywords: ['authorization'],
    ignoreCase: true,
    confirm: { kind: 'assign' },
    source: String.raw`(?i)authorization(?:\\?["'])?[ \t]*[:=][ \t]*(?:"[A-Za-z][\w.+\-]*[ \t]+([A-Za-z][\w\-]*[ \t]*=(?:[^"\\\r\n]|\\.)*)|'[A-Za-z][\w.+\-]*[ \t]+([A-Za-z][\w\-]*[ \t]*=[^'\r\n]*)|[A-Za-z][\w.+\-]*[ \t]+([A-Za-z][\w\-]*[ \t]*=(?:[^"'\\\r\n]|\\.)*))`,
    redact: [1, 2, 3],
    accept: notPlaceholder,
  },
  {
    id: 'bearer-token',
    family: 'generic',
    description: 'Bearer token anywhere (Bearer <token>)',
    reference: 'https://www.rfc-editor.org/rfc/rfc6750',
    keywords: ['bearer'],
    ignoreCase: true,
    source: String.raw`(?i)\bbearer\s+([A-Za-z0-9_\-.~+/]{8,}=*)`,
    redact: [1],
    accept: notPlaceholder,
  },
  {
    id: 'curl-user-password',
    family: 'generic',
    description:
      "user:password after -u / --user / --proxy-user (curl, wget, httpie), bare or quoted as a whole or in part ('a:b', \"a:b c\", a:'b', $USER:'b'), also in curl's combined short options (-su, -fsSLu)",
    reference: 'https://curl.se/docs/manpage.html#-u',
    keywords: ['-u', '--user', '--proxy-user'],
    ignoreCase: false,
    confirm: { kind: 'userpass-arg' },
    source: String.raw`(?:^|\s)(?:-u|--user|--proxy-user)(?:\s+|=)?${USER_PASSWORD}`,
    redact: USER_PASSWORD_GROUPS,
    accept: userPassword,
  },
  {
    id: 'curl-combined-user-password',
    family: 'generic',
    description: "user:password after curl's -u at the end of combined short options (curl -su 'ci:…', -fsSLu ci:…)",
    reference: 'https://curl.se/docs/manpage.html#-u',
    keywords: ['curl'],
    ignoreCase: false,
    confirm: { kind: 'line-has', needles: ['u ', "u'", 'u"'] },
    source: String.raw`\bcurl\b[^\n|;&]*?\s-[A-Za-z]+u(?:\s+|=)?${USER_PASSWORD}`,
    redact: USER_PASSWORD_GROUPS,
    accept: userPassword,
  },
  {
    id: 'db-cli-password',
    family: 'database',
    description:
      'Password on a database client command line: mysql -p<pw>, mongosh -p <pw>, redis-cli -a <pw>, sqlcmd -P <pw>',
    reference: 'https://dev.mysql.com/doc/refman/8.4/en/connection-options.html#option_general_password',
    keywords: ['mysql', 'mariadb', 'mongo', 'redis-cli', 'sqlcmd'],
    ignoreCase: false,
    confirm: { kind: 'line-has', needles: [' -p', ' -a', ' -P', '--pass', '--auth'] },
    source: String.raw`\b(?:(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mysqlsh|mariadb)\b[^\n|;&]*?\s-p(?:"([^"\n]+)"|'([^'\n]+)'|([^\s"'\-][^\s"']*))|(?:mongo|mongosh|mongodump|mongorestore|mongoimport|mongoexport)\b[^\n|;&]*?\s(?:-p|--password)(?:=|\s+)(?:"([^"\n]+)"|'([^'\n]+)'|([^\s"'\-][^\s"']*))|redis-cli\b[^\n|;&]*?\s(?:-a|--pass)\s+(?:"([^"\n]+)"|'([^'\n]+)'|([^\s"'\-][^\s"']*))|sqlcmd\b[^\n|;&]*?\s-P\s*(?:"([^"\n]+)"|'([^'\n]+)'|([^\s"'\-][^\s"']*)))`,
    redact: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
    accept: notPlaceholder,
  },
  {
    id: 'login-password-flag',
    family: 'registry',
    description: 'Password passed to a login command: docker/podman/helm/oras login -p <pw>, sshpass -p <pw>',
    reference: 'https://docs.docker.com/reference/cli/docker/login/',
    keywords: ['login', 'sshpass'],
    ignoreCase: false,
    confirm: { kind: 'line-has', needles: [' -p', '--password'] },
    source: String.raw`\b(?:login|sshpass)\b[^\n|;&]*?\s(?:-p|--password)(?:=|\s*)(?:"([^"\n]+)"|'([^'\n]+)'|([^\s"'\-][^\s"']*))`,
    redact: [1, 2, 3],
    accept: notPlaceholder,
  },
  {
    id: 'openssl-pass-arg',
    family: 'crypto',
    description: 'Inline passphrase in an OpenSSL pass phrase argument (-passin pass:…, -passout pass:…)', // hookwise:allow
    reference: 'https://docs.openssl.org/master/man1/openssl-passphrase-options/',
    keywords: ['pass:'],
    ignoreCase: false,
    source: String.raw`-pass(?:in|out|word)?\s+pass:([^\s"']+)`,
    redact: [1],
    accept: notPlaceholder,
  },
  {
    id: 'ssh-keygen-passphrase',
    family: 'crypto',
    description: 'Passphrase on an ssh-keygen command line (the new and old passphrase options)',
    reference: 'https://man.openbsd.org/ssh-keygen',
    keywords: ['ssh-keygen'],
    ignoreCase: false,
    confirm: { kind: 'line-has', needles: [' -N', ' -P'] },
    source: String.raw`ssh-keygen\b[^\n|;&]*?\s-[NP]\s*(?:"([^"\n]+)"|'([^'\n]+)'|([^\s"'\-][^\s"']*))`,
    redact: [1, 2, 3],
    accept: notPlaceholder,
  },
  {
    id: 'htpasswd-password',
    family: 'generic',
    description: 'Password given to htpasswd in batch mode (its -b flag)',
    reference: 'https://httpd.apache.org/docs/current/programs/htpasswd.html',
    keywords: ['htpasswd'],
    ignoreCase: false,
    // With -n there is no password file: user, then password (`htpasswd -Bbn registry pw`); without it, file, user, password.
    source: String.raw`htpasswd\b[^\n|;&]*?\s-[A-Za-z]*n[A-Za-z]*(?:\s+-[A-Za-z]+)*\s+[^\s\-][^\s]*\s+([^\s|;&<>]+)|htpasswd\b(?:\s+-[A-Za-z]+)*\s+-[A-Za-z]*b[A-Za-z]*(?:\s+-[A-Za-z]+)*\s+[^\s]+\s+[^\s]+\s+([^\s|;&<>]+)`,
    redact: [1, 2],
    accept: notPlaceholder,
  },
  {
    id: 'netrc-password',
    family: 'generic',
    description: '.netrc entry password (machine … login … password …)', // hookwise:allow
    reference: 'https://www.gnu.org/software/inetutils/manual/html_node/The-_002enetrc-file.html',
    keywords: ['machine'],
    ignoreCase: false,
    source: String.raw`\bmachine\s+[^\s]+\s+login\s+[^\s]+\s+password\s+([^\s]+)`,
    redact: [1],
    accept: notPlaceholder,
  },
  {
    id: 'xml-secret-element',
    family: 'generic',
    description:
      'Text of an XML element whose name says it holds a secret: Maven settings.xml <password> / <passphrase>, <apiKey>, <clientSecret>, <token>, <storepass>, also in CDATA or a Windows unattend <Value> child. ${env.X}, %X% and $(X) are kept; Maven {…} encrypted passwords are not (settings-security.xml decrypts them)', // hookwise:allow
    reference: 'https://maven.apache.org/settings.html#servers',
    keywords: [
      'password>',
      'passwd>',
      'passphrase>',
      'secret>',
      'token>',
      'apikey>',
      'api_key>',
      'api-key>',
      'accesskey>',
      'secretkey>',
      'privatekey>',
      'credential>',
      'credentials>',
      'storepass>',
      'keypass>',
    ],
    ignoreCase: true,
    // The text must be followed by a closing tag that names a secret too: `Promise<Token> { … }` is code, not XML.
    source: String.raw`(?i)<(?:[A-Za-z_][\w.\-]*:)?[\w.\-]*?${XML_SECRET_NAME}(?:\s[^<>]*[^<>/])?>\s*(?:<!\[CDATA\[([^\]]*)\]\]>\s*</|<Value>([^<]*)</|([^<]*)</)(?:[A-Za-z_][\w.\-]*:)?[\w.\-]*?(?:${XML_SECRET_NAME}|Value)\s*>`,
    redact: [1, 2, 3],
    accept: xmlSecret,
    parts: trimmedPart,
  },
  {
    id: 'cookie-header',
    family: 'generic',
    description:
      'Cookie values in a Cookie: or Set-Cookie: header (curl -H, raw HTTP and curl -v lines, httpie Cookie:…, JSON / code header maps) that holds name=value pairs: every value of a Cookie header, the first of a Set-Cookie header; cookie names and attributes are kept', // hookwise:allow
    reference: 'https://www.rfc-editor.org/rfc/rfc6265#section-4',
    keywords: ['cookie'],
    ignoreCase: true,
    // Quoted header ('Cookie: …' to the quote), header map ("Cookie": "…"), HTTP line (to the line end), httpie (Cookie:…).
    source: String.raw`(?i)['"](?:set-)?cookie[ \t]*:[ \t]*([^'"\r\n]*)|['"](?:set-)?cookie['"][ \t]*[:=][ \t]*['"]([^'"\r\n]*)|(?m:^)[ \t]*(?:[<>][ \t]+)?(?:set-)?cookie[ \t]*:[ \t]*([^\r\n]*)|\s(?:set-)?cookie:(?:'([^'\n]*)'|"([^"\n]*)"|([^\s'"]\S*))`,
    redact: [1, 2, 3, 4, 5, 6],
    parts: cookieHeaderParts,
  },
  {
    id: 'curl-cookie-arg',
    family: 'generic',
    description:
      'Cookie values given to curl -b / --cookie as name=value pairs (an argument without = is a cookie-jar file name and is kept); names kept',
    reference: 'https://curl.se/docs/manpage.html#-b',
    keywords: ['-b', '--cookie'],
    ignoreCase: false,
    confirm: { kind: 'arg-has', char: '=' },
    source: String.raw`(?:^|\s)(?:-b|--cookie)(?:\s+|=)(?:'([^'\n]*)'|"([^"\n]*)"|([^\s'"]+))`,
    redact: [1, 2, 3],
    parts: curlCookieParts,
  },
  {
    id: 'secret-env-name-value',
    family: 'generic',
    description:
      'An environment entry written as a name/value pair whose name says it holds a secret: Kubernetes / Compose env lists (- name: DB_PASSWORD ↵ value: …), ECS / JSON {"name": "STRIPE_API_KEY", "value": "…"}', // hookwise:allow
    reference: 'https://kubernetes.io/docs/tasks/inject-data-application/define-environment-variable-container/',
    keywords: ['name'],
    ignoreCase: false,
    confirm: { kind: 'assign' },
    source: String.raw`(?:^|[\s{,\-])["']?name["']?\s*:\s*["']?([A-Za-z_][A-Za-z0-9_.\-]*)["']?\s*,?\s*["']?value["']?\s*:\s*(?:"([^"\n]*)"|'([^'\n]*)'|([^\s"'#,}\]][^\s#,}\]]*))`,
    redact: [2, 3, 4],
    accept: namedSecret(1),
  },
  {
    id: 'env-setter-command',
    family: 'generic',
    description:
      'A secret-named environment variable set without NAME=value: Dockerfile ENV NAME value, setx NAME value (Windows), fish set -x / -gx / -Ux NAME value, launchctl setenv NAME value',
    reference: 'https://docs.docker.com/reference/dockerfile/#env',
    keywords: ['ENV ', 'setx', 'set -', 'setenv'],
    ignoreCase: false,
    source: String.raw`(?:^|[\s;&|(])(?:ENV|setx(?:[ \t]+/[Mm])?|set(?:[ \t]+-[A-Za-z]+|[ \t]+--(?:export|global|universal))+|launchctl[ \t]+setenv)[ \t]+([A-Za-z_][A-Za-z0-9_]*)[ \t]+(?:"([^"\n]*)"|'([^'\n]*)'|([^\s"'=][^\s"']*))`,
    redact: [2, 3, 4],
    accept: namedSecret(1),
  },
  {
    id: 'gh-secret-set',
    family: 'generic',
    description: 'The value given to gh secret set … --body / -b (a secret whatever its name)', // hookwise:allow
    reference: 'https://cli.github.com/manual/gh_secret_set',
    keywords: ['secret set'],
    ignoreCase: false,
    source: String.raw`\bgh\s+secret\s+set\b[^\n|;&]*?\s(?:--body(?:=|\s+)|-b\s*)(?:"([^"\n]*)"|'([^'\n]*)'|([^\s"'\-][^\s"']*))`,
    redact: [1, 2, 3],
    accept: notPlaceholder,
  },
  {
    id: 'env-setter-code',
    family: 'generic',
    description:
      'A secret-named environment variable set in code: os.environ["NAME"] = "…", ENV[\'NAME\'] = \'…\', process.env["NAME"] = "…", os.environ.setdefault / putenv / os.Setenv / [Environment]::SetEnvironmentVariable("NAME", "…")',
    reference: 'https://docs.python.org/3/library/os.html#os.environ',
    keywords: ['env[', 'environ[', 'setdefault(', 'putenv(', 'setenv(', 'setenvironmentvariable('],
    ignoreCase: true,
    source: String.raw`(?i)\b(?:environ|env)\[\s*["']([A-Za-z_][A-Za-z0-9_.\-]*)["']\s*\]\s*=\s*(?:"([^"\n]*)"|'([^'\n]*)')|\b(?:setdefault|putenv|setenv|setenvironmentvariable)\(\s*["']([A-Za-z_][A-Za-z0-9_.\-]*)["']\s*,\s*(?:"([^"\n]*)"|'([^'\n]*)')`,
    redact: [2, 3, 5, 6],
    accept: namedSecret(1, 4),
  },
  {
    id: 'keytool-password',
    family: 'generic',
    description: 'Java keytool keystore / key passwords (-storepass, -keypass, -srcstorepass, -deststorepass, …)',
    reference: 'https://docs.oracle.com/en/java/javase/21/docs/specs/man/keytool.html',
    keywords: ['storepass', 'keypass'],
    ignoreCase: false,
    // `-storepass:env VAR` / `:file` name where the password is: no blank right after `pass`, so not matched.
    source: String.raw`\s-(?:src|dest)?(?:store|key)pass\s+(?:"([^"\n]+)"|'([^'\n]+)'|([^\s"'\-][^\s"']*))`,
    redact: [1, 2, 3],
    accept: notPlaceholder,
  },
  {
    id: 'archive-password',
    family: 'generic',
    description: 'Archive passwords on the command line: zip / unzip / zipcloak -P <password>, 7z -p<password>',
    reference: 'https://linux.die.net/man/1/zip',
    keywords: ['zip', '7z'],
    ignoreCase: false,
    confirm: { kind: 'line-has', needles: [' -P', ' -p'] },
    source: String.raw`\b(?:zip|unzip|zipcloak)\b[^\n|;&]*?\s-P\s+(?:"([^"\n]+)"|'([^'\n]+)'|([^\s"'\-][^\s"']*))|\b7z[az]?\b[^\n|;&]*?\s-p([^\s"'\-][^\s"']*)`,
    redact: [1, 2, 3, 4],
    accept: notPlaceholder,
  },
  {
    id: 'httpie-auth',
    family: 'generic',
    description: 'user:password after httpie -a / --auth',
    reference: 'https://httpie.io/docs/cli/authentication',
    keywords: ['http', 'https'],
    ignoreCase: false,
    confirm: { kind: 'line-has', needles: [' -a', '--auth'] },
    source: String.raw`(?:^|[\s;&|(])(?:http|https|xh)\s(?:[^\n|;&]*?\s)?(?:-a|--auth)(?:\s+|=)["']?[^\s:"'/]+:([^\s"'\x60]+)`,
    redact: [1],
    accept: notPlaceholderOrId,
  },
  {
    id: 'redis-auth-command',
    family: 'database',
    description: 'redis-cli AUTH [user] <password> given as a command argument',
    reference: 'https://redis.io/docs/latest/commands/auth/',
    keywords: ['redis-cli'],
    ignoreCase: false,
    confirm: { kind: 'line-has', needles: [' AUTH ', ' auth ', ' Auth '] },
    source: String.raw`redis-cli\b[^\n|;&]*?[ \t](?i:auth)[ \t]+(?:[^\s|;&<>]+[ \t]+)?([^\s|;&<>]+)`,
    redact: [1],
    accept: notPlaceholder,
  },
  {
    id: 'pgpass-line',
    family: 'database',
    description: 'A .pgpass line (host:port:database:user:password) written to ~/.pgpass',
    reference: 'https://www.postgresql.org/docs/current/libpq-pgpass.html',
    keywords: ['pgpass'],
    ignoreCase: false,
    source: String.raw`["']?[^\s:"']+:(?:\d+|\*):[^\s:"']+:[^\s:"']+:([^\s"']+)["']?[^\n]*pgpass`,
    redact: [1],
    accept: notPlaceholder,
  },
  {
    id: 'poetry-credentials',
    family: 'registry',
    description: 'poetry config http-basic.<repo> <user> <password> and pypi-token.<repo> <token>',
    reference: 'https://python-poetry.org/docs/repositories/#configuring-credentials',
    keywords: ['http-basic.', 'pypi-token.'],
    ignoreCase: false,
    source: String.raw`\bconfig\s+(?:http-basic\.[^\s]+\s+[^\s]+|pypi-token\.[^\s]+)\s+([^\s|;&<>]+)`,
    redact: [1],
    accept: notPlaceholder,
  },
  {
    id: 'xml-named-secret-value',
    family: 'generic',
    description:
      'Text of a property / entry / param element whose name or key attribute says secret: <property name="hibernate.connection.password">…</property>, <entry key="jdbc.password">…</entry>',
    reference: 'https://docs.oracle.com/javase/8/docs/api/java/util/Properties.html#loadFromXML-java.io.InputStream-',
    keywords: ['</property>', '</entry>', '</param>', '</setting>', '</value>'],
    ignoreCase: true,
    source: String.raw`(?i)<(?:property|entry|param|setting|value)\b[^<>]*?\b(?:name|key)\s*=\s*["'][^"'<>]*(?:password|passwd|passphrase|secret|token|api[_.\-]?key|credential)s?["'][^<>]*>([^<]+)</`,
    redact: [1],
    accept: notPlaceholder,
  },
  {
    id: 'capitalized-password-option',
    family: 'generic',
    description:
      'PowerShell / NuGet / .NET style options: -Password <value>, -ApiKey <value>, -ClientSecret <value>, -Token <value>',
    reference: 'https://learn.microsoft.com/en-us/nuget/reference/cli-reference/cli-ref-sources',
    keywords: ['-Password', '-ApiKey', '-ClientSecret', '-Token', '-Secret', '-AccessToken'],
    ignoreCase: false,
    source: String.raw`\s-(?:Password|ApiKey|ClientSecret|Token|Secret|AccessToken)\s+(?:"([^"\n]+)"|'([^'\n]+)'|([^\s"'\-$(][^\s"']*))`,
    redact: [1, 2, 3],
    accept: assignedSecret,
  },
  {
    id: 'basic-auth-api-user',
    family: 'saas',
    description:
      'A key given as the password of the user "api" (Mailgun and others: requests auth=("api", key), -u api:key)',
    reference: 'https://documentation.mailgun.com/docs/mailgun/api-reference/authentication',
    keywords: ['"api"', "'api'"],
    ignoreCase: false,
    source: String.raw`["']api["']\s*,\s*["']([^"'\s]{16,})["']`,
    redact: [1],
    accept: notPlaceholder,
  },
  {
    id: 'go-mysql-dsn',
    family: 'database',
    description: 'Password in a Go MySQL driver DSN: user:password@tcp(host:port)/db (also unix(…))',
    reference: 'https://github.com/go-sql-driver/mysql#dsn-data-source-name',
    keywords: ['@tcp(', '@unix(', '@udp('],
    ignoreCase: false,
    source: String.raw`[A-Za-z0-9_.\-]+:([^\s@/"'\\]+)@(?:tcp|unix|udp)\(`,
    redact: [1],
    accept: notPlaceholder,
  },
  {
    id: 'vendor-named-secret',
    family: 'saas',
    description:
      'A value assigned, in any syntax (env, shell, make ?= := ::= :::= +=, YAML, JSON, TOML, code), to a name that says which vendor it authenticates to, for vendors whose keys have no prefix: snyk…token / key / auth (UUID), hubspot…key / token / secret (legacy UUID API keys), sumo…key / secret, sonar…token / password, and sonar…login when it holds a token (40 hex, also as login: under a sonar: block; a user name there is kept)',
    reference: 'https://docs.sonarsource.com/sonarqube-server/latest/analyzing-source-code/analysis-parameters/',
    keywords: ['sonar', 'snyk', 'hubspot', 'sumo'],
    ignoreCase: true,
    source: String.raw`(?i)(?:^|[^A-Za-z0-9$:])[A-Za-z0-9_.\-]*?(?:snyk[A-Za-z0-9_.\-]*?(?:token|key|auth)|hubspot[A-Za-z0-9_.\-]*?(?:key|token|secret)|sumo[A-Za-z0-9_.\-]*?(?:key|secret)|sonar[A-Za-z0-9_.\-]*?(?:token|password))(?:\\?["'])?\]?[ \t]*${ASSIGN_OP}[ \t]*${VALUE}|(?:^|[^A-Za-z0-9$:])[A-Za-z0-9_.\-]*?sonar[A-Za-z0-9_.\-]*?login(?:\\?["'])?\]?[ \t]*${ASSIGN_OP}[ \t]*\\?["']?((?:sq[pua]_)?[0-9a-f]{40})\b|(?m:^)[ \t]*sonar[ \t]*:[ \t]*\r?\n(?:[ \t]+[^\n]*\n)*?[ \t]+(?:login|token)[ \t]*:[ \t]*["']?((?:sq[pua]_)?[0-9a-f]{40})\b`,
    redact: [1, 2, 3, 4, 5, 6, 7],
    accept: (v, match) => assignedSecret(v, match) && !appendsInCode(match),
  },
  {
    id: 'sumologic-access-id',
    family: 'saas',
    description:
      'Sumo Logic access id (su + 12 alphanumerics, half of an access key pair) assigned to an access id name (SUMOLOGIC_ACCESSID=, accessId:, access_id = in a sumologic provider block)',
    reference: 'https://help.sumologic.com/docs/manage/security/access-keys/',
    keywords: ['accessid', 'access_id', 'access-id', 'access.id'],
    ignoreCase: true,
    confirm: { kind: 'assign' },
    source: String.raw`(?i)access[_.\-]?id(?:\\?["'])?\]?[ \t]*${ASSIGN_OP}[ \t]*\\?["']?((?-i:su)[A-Za-z0-9]{12})(?:[^A-Za-z0-9_\-]|$)`,
    redact: [1],
  },
  {
    id: 'secret-cli-flag',
    family: 'generic',
    description:
      'Secret passed as a long option: --password x, --token=x, --api-key x, --client-secret x, --db-password x, …',
    reference: 'https://cwe.mitre.org/data/definitions/214.html',
    keywords: FLAG_WORDS,
    ignoreCase: true,
    confirm: { kind: 'flag' },
    source: String.raw`(?i)--(?:[a-z0-9]+-)*(?:password|passwd|passphrase|pass|token|api-?key|secret|secret-key|access-key|credentials?)(?:=|\s+)(?:"([^"\n]*)"|'([^'\n]*)'|([^\s"'\-][^\s"']*))`,
    redact: [1, 2, 3],
    accept: assignedSecret,
  },
  {
    id: 'secret-env-var',
    family: 'generic',
    description:
      'Environment assignment to a variable whose name says it holds a secret (…_TOKEN, …_PASSWORD, PGPASSWORD, …_KEY, …)',
    reference: 'https://pubs.opengroup.org/onlinepubs/9799919799/basedefs/V1_chap08.html',
    keywords: ENV_SUFFIXES.map((s) => `${s}=`),
    ignoreCase: false,
    source: String.raw`(?:^|[^A-Za-z0-9_$])(?:[A-Z0-9]+_)*(?:[A-Z0-9]*PASSWORD|PASSWD|PASS|PWD|TOKEN|SECRET|KEY|KEY_BASE|APIKEY|CREDENTIALS?|AUTH|DSN|PAT|COOKIE|SALT|PASSPHRASE)=${VALUE}`,
    redact: VALUE_GROUPS,
    accept: assignedSecret,
  },
  {
    id: 'secret-assignment',
    family: 'generic',
    description:
      'Assignment to a key named like a secret, in env / JSON / YAML / TOML / code / header / make style: password = "…", "apiKey": "…", token: …, X-Api-Key: …, DB_PASSWORD ?= … (also :=, ::=, :::=, and += for upper-case make variables)',
    reference: 'https://github.com/gitleaks/gitleaks/blob/master/config/gitleaks.toml',
    keywords: SECRET_KEY_WORDS,
    ignoreCase: true,
    confirm: { kind: 'assign' },
    // A '$' before the key makes it an expansion ($PWD:/app), not an assignment.
    // Blanks, not line breaks, around the separator: `auth:` ending a YAML line is a mapping, not `auth: <next line>`.
    // A ':' before the key is an ARN or URN segment (`…:secret:prod/db`), not an assignment.
    source: String.raw`(?i)(?:^|[^A-Za-z0-9$:])[A-Za-z0-9_.\-]*${SECRET_KEY_SOURCE}(?:\\?["'])?\]?[ \t]*${ASSIGN_OP}[ \t]*${VALUE}`,
    redact: VALUE_GROUPS,
    accept: (v, match) => assignedSecret(v, match) && !appendsInCode(match),
  },
];

// The tables above are checked by tests: each id unique, each keyword in ASCII, each source compiles.
export const PATTERN_COUNT = PATTERNS.length;

// ── lazy RE2 ─────────────────────────────────────────────────────────────────────────────────────────────

type RE2Ctor = typeof RE2;
type RE2Regex = InstanceType<RE2Ctor>;

/** Start-up accounting: what loading and compiling cost in this process (reported by `hookwise sanitize` under HOOKWISE_DEBUG=1 and the bench). */
export interface PatternStats {
  re2LoadMs: number | null;
  compiled: number;
  compileMs: number;
}
const stats: PatternStats = { re2LoadMs: null, compiled: 0, compileMs: 0 };
export function patternStats(): Readonly<PatternStats> {
  return stats;
}

let re2Ctor: RE2Ctor | undefined;
function loadRe2(): RE2Ctor {
  if (re2Ctor !== undefined) return re2Ctor;
  const started = process.hrtime.bigint();
  // Loaded lazily (util/re2.ts): only a command whose keywords hit pays for the native addon.
  re2Ctor = re2Constructor();
  stats.re2LoadMs = Number(process.hrtime.bigint() - started) / 1e6;
  return re2Ctor;
}

const compiled: (RE2Regex | undefined)[] = new Array<RE2Regex | undefined>(PATTERNS.length);

/** The compiled RE2 for a pattern, compiled on first use. */
export function compiledPattern(index: number): RE2Regex {
  const existing = compiled[index];
  if (existing !== undefined) return existing;
  const Ctor = loadRe2();
  const spec = PATTERNS[index]!;
  const started = process.hrtime.bigint();
  // 'd': capture spans (the redacted group), 'g': iterate with lastIndex.
  const re = new Ctor(spec.source, spec.redact.every((g) => g === 0) ? 'g' : 'gd');
  stats.compileMs += Number(process.hrtime.bigint() - started) / 1e6;
  stats.compiled++;
  compiled[index] = re;
  return re;
}

/**
 * Texts longer than this run each pattern only on windows around its confirmed keyword hits: a large file
 * can hit most keywords, and a whole-text pass per pattern (~4 ms per pattern per MB) would dominate the
 * scan. A window reaches WINDOW_BEFORE chars before the keyword (a key name, a URL's scheme and user) and
 * WINDOW_AFTER after it (the value); a value longer than that is cut, and its remainder is still judged
 * by the entropy layer. Private-key bodies can be longer: those patterns always run on the whole text.
 */
export const WINDOWED_TEXT = 16 * 1024;
const WINDOW_BEFORE = 256;
const WINDOW_AFTER = 2048;
const WHOLE_TEXT = new Set(['private-key', 'putty-private-key', 'kubernetes-secret']);

/**
 * Runs the given patterns over the text and appends their findings. `hits` (flattened [pattern, end]
 * pairs from the keyword scan) selects windows for long texts; without it, every pattern sees all of it.
 */
export function runPatterns(text: string, patterns: Iterable<number>, into: Finding[], hits?: readonly number[]): void {
  const windowed = hits !== undefined && hits.length > 0 && text.length > WINDOWED_TEXT;
  // Each pattern's hit ends, in text order: one pass over the hits, not one per pattern.
  const hitEnds = new Map<number, number[]>();
  if (windowed) {
    for (let h = 0; h < hits.length; h += 2) {
      const list = hitEnds.get(hits[h]!);
      if (list === undefined) hitEnds.set(hits[h]!, [hits[h + 1]!]);
      else list.push(hits[h + 1]!);
    }
  }
  for (const index of patterns) {
    if (!windowed || WHOLE_TEXT.has(PATTERNS[index]!.id)) {
      matchInto(text, index, 0, text.length, into);
      continue;
    }
    // Hits arrive in text order, so the windows of one pattern merge in a single pass.
    let from = -1;
    let to = -1;
    for (const end of hitEnds.get(index) ?? []) {
      const start = Math.max(0, end - WINDOW_BEFORE);
      const stop = Math.min(text.length, end + WINDOW_AFTER);
      if (start <= to) {
        to = Math.max(to, stop);
        continue;
      }
      if (to > from) matchInto(text, index, from, to, into);
      from = start;
      to = stop;
    }
    if (to > from) matchInto(text, index, from, to, into);
  }
}

function matchInto(text: string, index: number, from: number, to: number, into: Finding[]): void {
  const spec = PATTERNS[index]!;
  const re = compiledPattern(index);
  const part = from === 0 && to === text.length ? text : text.slice(from, to);
  re.lastIndex = 0;
  if (spec.structure !== undefined) {
    // The source is only the gate: one match anywhere, then one structural scan of the whole part.
    if (re.exec(part) !== null)
      spec.structure(part, (start, end) =>
        into.push({ rule: spec.id, layer: 'pattern', start: from + start, end: from + end }),
      );
    re.lastIndex = 0;
    return;
  }
  for (let m = re.exec(part); m !== null; m = re.exec(part)) {
    if (m[0].length === 0) re.lastIndex++; // unreachable with these sources (each has a literal); never loop
    for (const g of spec.redact) {
      const span = g === 0 ? [m.index, m.index + m[0].length] : m.indices?.[g];
      const start = span?.[0];
      const end = span?.[1];
      if (start === undefined || end === undefined || end <= start) continue;
      const value = part.slice(start, end);
      if (isDocumentedExample(value) || isFilledPlaceholder(value)) continue;
      if (spec.accept !== undefined && !spec.accept(value, m[0], m)) continue;
      if (spec.parts === undefined) {
        into.push({ rule: spec.id, layer: 'pattern', start: from + start, end: from + end });
        continue;
      }
      const parts = spec.parts(value, m[0]);
      for (let p = 0; p + 1 < parts.length; p += 2) {
        if (parts[p + 1]! > parts[p]!)
          into.push({
            rule: spec.id,
            layer: 'pattern',
            start: from + start + parts[p]!,
            end: from + start + parts[p + 1]!,
          });
      }
    }
  }
}

// ── confirm checks (plain character scans) ───────────────────────────────────────────────────────────────

/** How far a `line-has` check looks for its needles after the keyword. */
const LINE_LIMIT = 4096;
const isBlank = (c: number): boolean => c === 0x20 || c === 0x09;
const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isTokenChar = (c: number): boolean =>
  (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f || c === 0x2d;
const isHexDigit = (c: number): boolean =>
  (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
const isFlagChar = (c: number): boolean =>
  (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x2d;

/** Whether a keyword hit ending at `end` (keyword length `length`) passes the pattern's pre-check. */
export function confirmHit(confirm: Confirm | undefined, text: string, end: number, length: number): boolean {
  if (confirm === undefined) return true;
  switch (confirm.kind) {
    case 'assign':
      return assignsAfter(text, end);
    case 'flag':
      return assignsAfter(text, end) || isFlagWithValue(text, end - length, end);
    case 'tail': {
      let n = 0;
      for (let i = end; i < text.length && n < confirm.min && isTokenChar(text.charCodeAt(i)); i++) n++;
      return n >= confirm.min;
    }
    case 'userinfo':
      return authorityHasUserinfo(text, end, confirm.quoted === true);
    case 'userpass-arg':
      return nextArgumentHas(text, end, 0x3a /* : */);
    case 'arg-has':
      return nextWordHas(text, end, confirm.char.charCodeAt(0));
    case 'hex-before': {
      let n = 0;
      for (let i = end - length - 1; i >= 0 && n < confirm.min && isHexDigit(text.charCodeAt(i)); i--) n++;
      return n >= confirm.min;
    }
    case 'tag-attribute':
      return isTagAttribute(text, end - length, end);
    case 'line-has': {
      // Bounded: an unbounded indexOf would search to the end of a large file at every hit.
      let lineEnd = end;
      while (lineEnd < text.length && lineEnd - end < LINE_LIMIT && text.charCodeAt(lineEnd) !== 0x0a) lineEnd++;
      const line = text.slice(end, lineEnd);
      return confirm.needles.some((needle) => line.includes(needle));
    }
  }
}

/** After a key: an optional closing quote, blanks, then ':', '=', '?=' or '+='. */
function assignsAfter(text: string, end: number): boolean {
  let i = end;
  if (text.charCodeAt(i) === 0x5c /* \ */ && text.charCodeAt(i + 1) === 0x22) i++; // \" inside a JSON string
  const q = text.charCodeAt(i);
  if (q === 0x22 || q === 0x27) i++;
  if (text.charCodeAt(i) === 0x5d /* ] */) i++; // config['SECRET_KEY'] = …
  for (let n = 0; n < 16 && i < text.length && isBlank(text.charCodeAt(i)); n++) i++;
  const c = text.charCodeAt(i);
  // make's `?=` and `+=` too (its `:=`, `::=`, `:::=` start with ':').
  const conditional = (c === 0x3f /* ? */ || c === 0x2b) /* + */ && text.charCodeAt(i + 1) === 0x3d;
  return c === 0x3a /* : */ || c === 0x3d /* = */ || conditional;
}

/** How far back `tag-attribute` looks for the `<` that opens the tag (the window a pattern sees before its keyword). */
const TAG_LIMIT = 256;

/**
 * An attribute inside a start tag: '=' and a quote follow (XML quotes every attribute value: `value = x` in
 * code and `value={x}` in JSX are not one), and a '<' precedes it with no '>' between.
 */
function isTagAttribute(text: string, start: number, end: number): boolean {
  let i = end;
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  if (text.charCodeAt(i) !== 0x3d /* = */) return false;
  i++;
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  if (text.charCodeAt(i) === 0x5c /* \ */) i++; // \" in JSON-encoded file contents
  if (text.charCodeAt(i) !== 0x22 && text.charCodeAt(i) !== 0x27) return false;
  for (let j = start - 1, n = 0; j >= 0 && n < TAG_LIMIT; j--, n++) {
    const c = text.charCodeAt(j);
    if (c === 0x3c /* < */) return true;
    if (c === 0x3e /* > */) return false;
  }
  return false;
}

/** `--[word-]*keyword` followed by '=' or blanks and a value that is not another option. */
function isFlagWithValue(text: string, start: number, end: number): boolean {
  let i = start;
  while (i > 0 && isFlagChar(text.charCodeAt(i - 1))) i--;
  if (!(text.charCodeAt(i) === 0x2d && text.charCodeAt(i + 1) === 0x2d)) return false;
  if (i > 0 && !isSpace(text.charCodeAt(i - 1)) && text.charCodeAt(i - 1) !== 0x22 && text.charCodeAt(i - 1) !== 0x27)
    return false;
  const after = text.charCodeAt(end);
  if (after === 0x3d) return true;
  if (!isBlank(after)) return false;
  let j = end;
  while (j < text.length && isBlank(text.charCodeAt(j))) j++;
  return j < text.length && text.charCodeAt(j) !== 0x2d && text.charCodeAt(j) !== 0x0a;
}

/** After '://': is there a ':' and then an '@' before the authority ends? */
function authorityHasUserinfo(text: string, end: number, quoted = false): boolean {
  let colon = -1;
  for (let i = end, n = 0; i < text.length && n < 512; i++, n++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 || c === 0x27 || c === 0x0a) return false;
    // The user part ends at ':'; the password may hold '?' and '#' (and, quoted, blanks and '/' too).
    const stops =
      colon < 0 ? c === 0x2f || c === 0x3f || c === 0x23 || isSpace(c) : !quoted && (c === 0x2f || isSpace(c));
    if (stops || c === 0x3c || c === 0x3e || c === 0x60) return false;
    if (c === 0x3a && colon < 0) colon = i;
    if (c === 0x40 && colon >= 0) return true;
  }
  return false;
}

/** The next shell word after the keyword (after blanks or '='; quoted parts belong to it: `"$U":'p w'`) contains `code`. */
function nextArgumentHas(text: string, end: number, code: number): boolean {
  let i = end;
  while (i < text.length && (isBlank(text.charCodeAt(i)) || text.charCodeAt(i) === 0x3d)) i++;
  let quote = 0;
  for (let n = 0; i < text.length && n < 512; i++, n++) {
    const c = text.charCodeAt(i);
    if (c === 0x0a || (quote === 0 && isSpace(c))) return false;
    if (quote === 0 && (c === 0x22 || c === 0x27)) quote = c;
    else if (c === quote) quote = 0;
    else if (c === code) return true;
  }
  return false;
}

/** The next word after the keyword (`-u`, `-b`; after blanks, '=' or a quote) contains the character `code`. */
function nextWordHas(text: string, end: number, code: number): boolean {
  let i = end;
  while (
    i < text.length &&
    (isBlank(text.charCodeAt(i)) ||
      text.charCodeAt(i) === 0x3d ||
      text.charCodeAt(i) === 0x22 ||
      text.charCodeAt(i) === 0x27)
  )
    i++;
  for (let n = 0; i < text.length && n < 512; i++, n++) {
    const c = text.charCodeAt(i);
    if (isSpace(c) || c === 0x22 || c === 0x27) return false;
    if (c === code) return true;
  }
  return false;
}
