/**
 * Secret-dense text for the sanitizer's throughput and linearity rows and its equivalence test: lines of
 * shell, config and log text in which most lines carry a secret of some kind — pattern matches, known
 * prefixes with odd bodies, high-entropy runs, hex near and far from `commit`, base64 / URL / escape
 * encodings of secrets and of prose, and secrets inside paths and inside each other. Generated from a
 * seed (bench/prng.ts), so the same size and seed give the same text, and no literal secret is stored.
 */
import { prng } from './prng.js';

const B62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const B64 = `${B62}+/`;
const B64URL = `${B62}-_`;
const HEX = '0123456789abcdef';
const UPPER_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const WORDS = [
  'build',
  'deploy',
  'config',
  'server',
  'release',
  'cache',
  'user',
  'token',
  'session',
  'output',
  'index',
  'report',
  'worker',
  'queue',
];

/** About `chars` characters (whole lines; at least one) of secret-dense text. */
export function secretDenseText(chars: number, seed = 1): string {
  const random = prng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const draw = (alphabet: string, length: number): string => {
    let out = '';
    for (let i = 0; i < length; i++) out += alphabet[Math.floor(random() * alphabet.length)]!;
    return out;
  };
  const word = (): string => pick(WORDS);
  const b64 = (text: string): string => Buffer.from(text).toString('base64');
  const percent = (text: string): string =>
    [...Buffer.from(text)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
  const hexEscapes = (text: string): string =>
    [...Buffer.from(text)].map((b) => `\\x${b.toString(16).padStart(2, '0')}`).join('');
  // Token shapes are assembled from parts, so this source holds no literal secret a scanner would flag.
  const github = (): string => `gh${'p'}_${draw(B62, 36)}`;
  const aws = (): string => `AK${'IA'}${draw(UPPER_DIGITS, 16)}`;
  const slack = (): string => `xo${'xb'}-${draw('0123456789', 12)}-${draw('0123456789', 12)}-${draw(B62, 24)}`;
  const anthropic = (): string => `sk-${'ant'}-api03-${draw(B64URL, 93)}AA`;
  const secret = (): string => pick([github, aws, slack, anthropic])();
  const lines: Array<() => string> = [
    () => `export GITHUB_TOKEN=${github()}`,
    () => `aws configure set aws_access_key_id ${aws()} && aws s3 ls s3://${word()}-${word()}`,
    () => `curl -H "Authorization: Bearer ${secret()}" https://api.example.com/v1/${word()}`,
    () => `psql postgres://${word()}:${draw(B62, 14)}@db.internal:5432/${word()}`,
    () => `${word()}_password = "${draw(B62, 18)}"`,
    () => `known prefix, odd body: gh${'p'}_${draw(B62, 50)} and gl${'pat'}-${draw(B64URL, 31)}.`,
    () => `random ${draw(B64, 44)} and ${draw(B64URL, 32)} then ${draw(B62, 20)}`,
    () => `git commit ${draw(HEX, 40)} (parent ${draw(HEX, 40)})`,
    () => `checksum-less hex ${draw(HEX, 64)} in a ${word()} line`,
    () => `echo ${b64(`token=${secret()}`)} | base64 -d`,
    () => `echo ${b64(`the ${word()} ${word()} is ready for the ${word()} and the ${word()}`)} | base64 -d`,
    () => `echo ${b64(b64(`key: ${github()}`))}`,
    () => `echo ${b64(`${word()}:${draw(B62, 12)}`)} > creds`,
    () => `url=https://x.test/?q=${percent(`secret=${secret()}`)}&page=2`,
    () => `printf "${hexEscapes(`pw=${draw(B62, 20)}`)}"`,
    () => `cat /home/${word()}/keys/${draw(B62, 32)}/${word()}.pem`,
    () => `nested ${draw(B62, 6)}${github()}${draw(B64, 30)} tail`,
    () =>
      `sha256:${draw(HEX, 64)} uuid ${draw(HEX, 8)}-${draw(HEX, 4)}-${draw(HEX, 4)}-${draw(HEX, 4)}-${draw(HEX, 12)}`,
    () => `plain ${word()} ${word()} ${word()} --flag=${word()} ./src/${word()}/${word()}.ts`,
  ];
  const out: string[] = [];
  let length = 0;
  do {
    const line = pick(lines)();
    out.push(line);
    length += line.length + 1;
  } while (length < chars);
  return out.join('\n');
}
