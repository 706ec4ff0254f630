/**
 * bench/corpora/secrets.ts, hookwise's own labelled secret corpus, is well formed: it builds the same rows from
 * the same seed, has enough rows of each label and of each kind, every secret row names substrings its text
 * really holds, clean rows hold none of the generated secrets, and the source file spells no secret itself.
 * How the sanitizer does on it is measured by `hookwise sanitize --eval builtin` and the bench, not asserted here.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  buildSecretCorpus,
  CLEAN_KIND_NAMES,
  SECRET_CORPUS_SEED,
  SECRET_KINDS,
  type SecretCorpusRow,
} from '../../../bench/corpora/secrets.js';

const rows = buildSecretCorpus();
const secretRows = rows.filter((r) => r.label === 'secret');
const cleanRows = rows.filter((r) => r.label === 'clean');

describe('the built-in secret corpus', () => {
  it('builds deterministically: the same seed gives the same rows, another seed other values in the same shape', () => {
    expect(buildSecretCorpus(SECRET_CORPUS_SEED)).toEqual(rows);
    const other = buildSecretCorpus(SECRET_CORPUS_SEED + 1);
    const shape = (rs: SecretCorpusRow[]): string[] => rs.map((r) => `${r.label} ${r.kind}`);
    expect(shape(other)).toEqual(shape(rows));
    expect(other.filter((r, i) => r.text !== rows[i]!.text).length).toBeGreaterThan(secretRows.length);
  });

  it('has at least 300 rows of each label', () => {
    expect(secretRows.length).toBeGreaterThanOrEqual(300);
    expect(cleanRows.length).toBeGreaterThanOrEqual(300);
  });

  it('lists, for every secret row, at least one non-empty secret that its text holds; clean rows list none', () => {
    for (const r of secretRows) {
      expect(r.secrets.length, r.kind).toBeGreaterThan(0);
      for (const s of r.secrets) {
        expect(s, r.kind).not.toBe('');
        expect(r.text.includes(s), `a ${r.kind} row lists a secret its text does not hold`).toBe(true);
      }
      expect(new Set(r.secrets).size, r.kind).toBe(r.secrets.length);
    }
    for (const r of cleanRows) expect(r.secrets, r.kind).toEqual([]);
  });

  it('has at least 3 rows of every kind, and each kind belongs to one label', () => {
    const counts = new Map<string, { labels: Set<string>; n: number }>();
    for (const r of rows) {
      const c = counts.get(r.kind) ?? { labels: new Set(), n: 0 };
      c.labels.add(r.label);
      c.n++;
      counts.set(r.kind, c);
    }
    for (const [kind, c] of counts) {
      expect(c.n, kind).toBeGreaterThanOrEqual(3);
      expect(c.labels.size, kind).toBe(1);
    }
    expect([...counts.keys()].sort()).toEqual([...SECRET_KINDS.map((k) => k.kind), ...CLEAN_KIND_NAMES].sort());
  });

  it('names the documentation each secret kind was checked against', () => {
    for (const { kind, doc } of SECRET_KINDS) expect(doc, kind).toMatch(/^https:\/\/\S+/);
  });

  it('covers the providers and structures it is meant to', () => {
    const kinds = new Set(rows.map((r) => r.kind));
    const required = [
      'github-pat',
      'github-app-token',
      'github-fine-grained-pat',
      'gitlab-token',
      'aws-access-key-id',
      'aws-secret-access-key',
      'aws-session-token',
      'aws-bedrock-api-key',
      'google-api-key',
      'gcp-service-account-key',
      'azure-storage-account-key',
      'azure-openai-key',
      'anthropic-api-key',
      'openai-api-key',
      'groq-api-key',
      'huggingface-token',
      'mistral-api-key',
      'cohere-api-key',
      'stripe-secret-key',
      'slack-token',
      'slack-webhook',
      'discord-webhook',
      'telegram-bot-token',
      'twilio-credentials',
      'sendgrid-api-key',
      'mailgun-api-key',
      'mailchimp-api-key',
      'hubspot-private-app-token',
      'shopify-token',
      'npm-token',
      'pypi-token',
      'docker-pat',
      'vault-token',
      'databricks-token',
      'sentry-auth-token',
      'datadog-api-key',
      'sonarqube-token',
      'codecov-token',
      'snyk-token',
      'linear-api-key',
      'notion-token',
      'figma-token',
      'cloudflare-token',
      'vercel-token',
      'jwt',
      'pem-rsa-private-key',
      'pem-ec-private-key',
      'openssh-private-key',
      'age-secret-key',
      'url-password',
      'url-password-redis',
      'url-password-special-chars',
      'jdbc-connection-string',
      'odbc-connection-string',
      'adonet-connection-string',
      'curl-user-password',
      'bearer-header',
      'basic-auth-header',
      'proxy-authorization',
      'curl-oauth2-bearer',
      'mysql-password-flag',
      'pgpassword',
      'redis-cli-password',
      'mongo-cli-password',
      'registry-login-password',
      'htpasswd-password',
      'env-secret-assignment',
      'yaml-secret-value',
      'json-secret-value',
      'xml-secret-value',
      'k8s-secret-data',
      'k8s-secret-stringdata',
      'npmrc-auth',
      'pypirc-password',
      'nuget-cleartext-password',
      'maven-settings-password',
      'session-cookie',
      'bundler-credentials',
      'placeholder-literal',
      'placeholder-variable',
      'placeholder-repeated',
      'secret-reference',
      'password-prompt-or-stdin',
      'url-no-credentials',
      'ssh-target',
      'email-address',
      'git-sha',
      'digest',
      'uuid-or-ulid',
      'version-string',
      'build-path',
      'base64-text',
      'public-key',
      'publishable-key',
      'secret-identifier',
      'k8s-resource-name',
      'timestamp',
      'ip-address',
      'aws-resource-id',
      'tool-use-id',
      'prose',
    ];
    expect(required.filter((k) => !kinds.has(k))).toEqual([]);
  });

  it('keeps the generated secrets out of the clean rows', () => {
    const generated = [...new Set(secretRows.flatMap((r) => r.secrets).filter((s) => s.length >= 12))];
    const leaks = cleanRows.filter((r) => generated.some((s) => r.text.includes(s))).map((r) => r.kind);
    expect(leaks).toEqual([]);
  });

  it('holds no secret in its source: every value is generated at run time', () => {
    const source = readFileSync(fileURLToPath(new URL('../../../bench/corpora/secrets.ts', import.meta.url)), 'utf8');
    const prefixed =
      /(?:ghp_|gho_|ghs_|github_pat_|glpat-|AKIA|ASIA|ABSK|AIza|sk-ant-|sk-proj-|sk_live_|rk_live_|xox[bpa]-|SG\.|npm_|pypi-|dckr_pat_|hvs\.|dapi|sntry[su]_|lin_api_|ntn_|figd_|shpat_|gsk_|hf_|AGE-SECRET-KEY-1)[A-Za-z0-9_-]{16,}/;
    expect(source.match(prefixed)?.[0]).toBeUndefined();
    expect(source).not.toMatch(/-----BEGIN [A-Z ]*PRIVATE KEY-----/);
  });
});
