/** Known-not-secret judgements: placeholders and made-up values stay; random values next to the same words go. */
import { describe, expect, it } from 'vitest';
import { hasPlaceholderMarker, isPlaceholder } from '../../src/sanitize/heuristics.js';
import { findSecrets, sanitize } from '../../src/sanitize/index.js';
import { rnd } from './fakes.js';

const redacted = (text: string): boolean => findSecrets(text).length > 0;

describe('isPlaceholder', () => {
  it('knows what documentation writes where a secret goes', () => {
    for (const v of [
      'not_a_real_token',
      'fake-api-key-123',
      'dummy',
      'DUMMY',
      'changeme',
      'password',
      'myPassword',
      'your_password',
      '1111',
      '0000000',
      'abc',
      '123456',
      'MyExampleKey',
      'sample',
    ]) {
      expect(isPlaceholder(v), v).toBe(true);
    }
  });

  it('does not take a random value for a placeholder because it holds such a word', () => {
    for (const v of [
      `${rnd(20)}EXAMPLE${rnd(8)}`,
      `fake${rnd(24)}`,
      'Password1$',
      'secret',
      'pass',
      's3cur3K3y2024',
      'hunter2',
    ]) {
      expect(isPlaceholder(v), v).toBe(false);
    }
  });

  it('takes a dotted value for code only when its parts read as names (process.env.TOKEN, not Kx9q2LmZ7.tmzZ.W)', () => {
    for (const v of ['process.env.GITHUB_TOKEN', 'config.apiKey', 'settings.database.password'])
      expect(isPlaceholder(v), v).toBe(true);
    for (const v of [`${rnd(12)}.${rnd(4)}.${rnd(1, 'letters')}`, 'KohPgQ4kNbI4.tmzZ.W'])
      expect(isPlaceholder(v), v).toBe(false);
  });

  it('takes %NAME% for a Windows variable only when NAME is one (a password may be enclosed in percent signs)', () => {
    for (const v of ['%NUGET_PASSWORD%', '%ProgramFiles(x86)%', '%APPDATA%']) expect(isPlaceholder(v), v).toBe(true);
    for (const v of [`%${rnd(6)}!${rnd(2)}%`, `%${rnd(4)}%${rnd(4)}%`, '%%']) expect(isPlaceholder(v), v).toBe(false);
  });

  it('finds the markers case-insensitively', () => {
    expect(hasPlaceholderMarker('ops_DUMMYabc')).toBe(true);
    expect(hasPlaceholderMarker('NotARealKeyButLooksLikeOne')).toBe(true);
    expect(hasPlaceholderMarker(rnd(40, 'hex'))).toBe(false);
  });
});

describe('placeholders in context', () => {
  it('keeps made-up values in assignments and redacts real ones', () => {
    expect(redacted('DOCKER_TOKEN=not_a_real_token')).toBe(false);
    expect(redacted('{"private_key": "DUMMY"}')).toBe(false);
    expect(redacted(`DOCKER_TOKEN=${rnd(24)}`)).toBe(true);
    // A random value with EXAMPLE inside is still a value (AWS's documentation key has that shape).
    expect(redacted(`aws_secret_access_key=${rnd(30, 'b64')}EXAMPLEKEY`)).toBe(true);
  });

  it('keeps template and default URL credentials, redacts real ones', () => {
    for (const url of [
      'https://username:password@example.com/api',
      'postgres://postgres:postgres@localhost:5432/db',
      'https://user:1111@service.com',
      'https://user:abc@api.com',
      'mongodb://YOUR_USERNAME:YOUR_PASSWORD@cluster.mongodb.net/test',
    ]) {
      expect(redacted(url), url).toBe(false);
    }
    for (const url of [
      'ftp://user:pass@example.com',
      'jdbc:mysql://sandy:secret@db/x',
      `postgres://app:${rnd(14)}@db:5432/app`,
      'redis://:postgres@cache:6379',
    ]) {
      expect(sanitize(url).text, url).toContain('<REDACTED>');
    }
  });

  it('keeps a generic sk- string that says it is not real', () => {
    expect(redacted('sk-ant-api05-alsonotreal sk-ant-api02-notarealkey')).toBe(false);
    expect(redacted(`sk-${rnd(32, 'hex')}`)).toBe(true);
  });

  it('entropy: skips made-up blobs and values of keys that say they are public', () => {
    expect(redacted(`ops_DUMMY${rnd(60, 'b64url')}`)).toBe(false);
    expect(redacted(`DOTENV_PUBLIC_KEY="03${rnd(64, 'hex')}"`)).toBe(false);
    expect(redacted(`publicKey: ${rnd(44, 'b64')}`)).toBe(false);
    expect(redacted(`ops_${rnd(60, 'b64url')}`)).toBe(true);
    expect(redacted(`DOTENV_PRIVATE_KEY="${rnd(64, 'hex')}"`)).toBe(true);
    expect(redacted(`sha256 "${rnd(64, 'hex')}"`)).toBe(false); // bare hex is a digest; a hex secret has a name (above)
  });
});

describe('text quoted inside a JSON string, and whole-run exemptions', () => {
  it('reads assignments whose quotes are escaped (a file written by Write, as JSON)', () => {
    const pw = rnd(18);
    const content = JSON.stringify({ file_path: 'cypress.env.json', content: `{\n  "adminPassword": "${pw}"\n}` });
    expect(sanitize(content).text).not.toContain(pw);
    const key = rnd(48, 'hex');
    expect(sanitize(JSON.stringify({ content: `app.config['SECRET_KEY'] = '${key}'` })).text).not.toContain(key);
    const base = rnd(128, 'hex');
    expect(sanitize(`config.secret_key_base = "${base}"`).text).not.toContain(base);
  });

  it('keeps lockfile integrity, SealedSecret ciphertext and Ethereum addresses; redacts a long one-case token', () => {
    expect(redacted(`"integrity": "sha512-${rnd(40, 'b64')}/${rnd(40, 'b64')}=="`)).toBe(false);
    expect(redacted(`    password: AgB${rnd(200, 'b64')}/${rnd(200, 'b64')}`)).toBe(false);
    expect(redacted(`wallet 0x${rnd(40, 'hex')}`)).toBe(false);
    expect(redacted(`echo ${rnd(52, 'lowerDigits')} | az devops login`)).toBe(true);
  });

  it('a value starting with @ is a file reference only when it reads like a path', () => {
    expect(redacted('curl -d password=@./body.txt https://example.com')).toBe(false);
    expect(redacted("SECRET_KEY='@htn!ea)juqzm8rt*3vc(o6mg9c-uk@vaq'")).toBe(true);
  });
});
