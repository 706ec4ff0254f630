/** Layer 3: random tokens anywhere are redacted; identifiers, paths, ids and named digests are not. */
import { describe, expect, it } from 'vitest';
import { classify, collectRuns, runStats } from '../../src/sanitize/entropy.js';
import { findSecrets, sanitize } from '../../src/sanitize/index.js';
import { rnd, uuid } from './fakes.js';

const entropyRules = (text: string): string[] =>
  findSecrets(text)
    .filter((f) => f.layer === 'entropy')
    .map((f) => f.rule);

describe('runStats', () => {
  it('computes Shannon entropy in bits per character', () => {
    expect(runStats('aaaaaaaa', 0, 8).entropy).toBe(0);
    expect(runStats('abcdabcd', 0, 8).entropy).toBeCloseTo(2, 10);
  });

  it('does not count camelCase word starts as class switches', () => {
    expect(runStats('getUserAccessTokenFromEnvironment', 0, 33).switchRate).toBe(0);
    expect(runStats('aB3'.repeat(6), 0, 18).switchRate).toBe(1);
  });

  it('recognizes hex, base64 and base64url alphabets', () => {
    const hex = rnd(40, 'hex');
    expect(runStats(hex, 0, 40).hex).toBe(true);
    expect(classify(runStats(hex, 0, 40))).toBe('hex');
    const b64 = `${rnd(30, 'b62')}+/${rnd(8, 'b62')}`;
    expect(classify(runStats(b64, 0, b64.length))).toBe('base64');
  });
});

describe('collectRuns', () => {
  const runs = (text: string): string[] => {
    const pairs = collectRuns(text, 1);
    const out: string[] = [];
    for (let i = 0; i < pairs.length; i += 2) out.push(text.slice(pairs[i], pairs[i + 1]));
    return out;
  };
  it('splits at = unless it is trailing base64 padding', () => {
    expect(runs('KEY=value')).toEqual(['KEY', 'value']);
    expect(runs('x aGVsbG8= y')).toEqual(['x', 'aGVsbG8=', 'y']);
    expect(runs('aGk==.')).toEqual(['aGk==']);
  });
  it('splits at dots, colons, quotes and non-ASCII characters', () => {
    expect(runs('a.b:c"d\'eé f')).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
  });
});

describe('high-entropy tokens anywhere (not only after = or :)', () => {
  it.each([
    ['alnum, bare in prose', `the value ${rnd(32)} was rotated`, 'high-entropy:alnum'],
    ['base64 with + and /', `blob ${rnd(20, 'b64')}+${rnd(20, 'b64')}/x==`, 'high-entropy:base64'],
    ['base64url', `id ${rnd(24, 'b62')}-${rnd(20, 'b62')}_q`, 'high-entropy:base64url'],
    [
      'a private key in Ethereum form (0x + 64 hex digits)',
      `cast wallet address --private-key 0x${rnd(64, 'hex')}`,
      'high-entropy:hex',
    ],
    ['a 16–19 char token with all three classes', `pin ${rnd(18)} now`, 'high-entropy:alnum'],
    ['a token in a URL path segment', `curl https://api.example.com/v1/keys/${rnd(32)}/rotate`, 'high-entropy:alnum'],
    ['a token in a query string', `curl "https://api.example.com/x?sig=1&code=${rnd(28)}"`, 'high-entropy:alnum'],
  ])('%s', (_name, text, rule) => {
    expect(entropyRules(text)).toContain(rule);
  });
});

describe('allowances: obvious non-secrets stay', () => {
  it.each([
    ['a git SHA in a git command', `git checkout ${rnd(40, 'hex')}`],
    ['a sha256 digest after sha256:', `docker pull node@sha256:${rnd(64, 'hex')}`],
    ['a checksum line', `echo "${rnd(64, 'hex')}  app.tar.gz" | sha256sum -c`],
    ['an SRI integrity hash', `"integrity": "sha512-${rnd(86, 'b64')}=="`],
    ['a packageManager pin', `"packageManager": "pnpm@10.4.1+sha512.${rnd(128, 'hex')}"`],
    ['a go.sum line', `golang.org/x/text v0.3.7 h1:${rnd(43, 'b64')}=`],
    ['a UUID', `kubectl delete pod --uid ${uuid()}`],
    [
      'camelCase and snake_case identifiers',
      'getUserAccessTokenFromEnvironmentVariables AWS_SECRET_ACCESS_KEY_ID_NAME',
    ],
    ['file paths', 'cat /usr/local/lib/node_modules/typescript/lib/typescript.js ./src/cli/sanitize.ts'],
    ['a name made of short parts', 'ollama run orca-mini-3b-gguf2-q4_0 && ls session-2026-11-21T21-57-565f3077.jsonl'],
    ['words with version numbers', 'npm install @types/node@20.19.0 utf8-validator@2.1.0 ec2-instance-connect'],
    ['an agent tool-use id', `"tool_use_id": "toolu_01${rnd(22)}"`],
    ['a short random word', `x ${rnd(12)} y`],
    ['low-entropy filler', 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA 00000000000000000000000000000000'],
  ])('%s', (_name, text) => {
    expect(entropyRules(text)).toEqual([]);
  });

  it('redacts only the random segment of a path, keeping the rest', () => {
    const secret = rnd(32);
    expect(sanitize(`GET /api/v1/keys/${secret}/rotate`).text).toBe('GET /api/v1/keys/<REDACTED>/rotate');
  });

  it('keeps bare hex visible: a digest, commit or id; a hex secret comes with a name the patterns judge', () => {
    const id = rnd(40, 'hex');
    expect(entropyRules(`git show ${id}`)).toEqual([]);
    expect(entropyRules(`deploy ${id}`)).toEqual([]);
    expect(findSecrets(`export DEPLOY_TOKEN=${id}`).length).toBeGreaterThan(0);
    // 0x + 64 hex is a private key unless the line says it is a hash (a transaction hash has the same shape).
    expect(entropyRules(`tx hash 0x${rnd(64, 'hex')}`)).toEqual([]);
  });
});
