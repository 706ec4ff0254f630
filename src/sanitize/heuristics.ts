/**
 * Small judgements on captured values and key names, written as character scans (no regular expressions:
 * they run on untrusted text, and a hand-written linear scan cannot backtrack).
 */
import { REDACTED } from './types.js';

const isIdentStart = (c: number): boolean =>
  (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f || c === 0x24;
const isIdentPart = (c: number): boolean => isIdentStart(c) || (c >= 0x30 && c <= 0x39);

/** Values that stand for a secret instead of holding one: types, literals, empty strings. */
const LITERALS = new Set([
  'null',
  'nil',
  'none',
  'true',
  'false',
  'undefined',
  '~',
  'string',
  'str',
  'number',
  'int',
  'integer',
  'bool',
  'boolean',
  'bytes',
  'any',
  'unknown',
  'object',
  'required',
  'optional',
  'secretstr',
  // Words that documentation puts where a value goes (`KEY=value`, `token: example`).
  'value',
  'example',
  'placeholder',
  'redacted',
  'foo',
  'bar',
  'baz',
  'dummy',
  'fake',
  'sample',
  'changeme',
  'changeit',
  // A password field filled with the word itself (`user:password@`, `password: password`) is a template.
  'password',
  'passwd',
  'mypassword',
  'yourpassword',
]);
/** The text up to the first blank. */
function firstWord(value: string): string {
  let i = 0;
  while (i < value.length && value.charCodeAt(i) !== 0x20 && value.charCodeAt(i) !== 0x09) i++;
  return value.slice(0, i);
}

/** YAML tags that stand for a value computed elsewhere (CloudFormation intrinsics, Ansible vault). */
const YAML_TAGS = new Set([
  '!Ref',
  '!Sub',
  '!GetAtt',
  '!ImportValue',
  '!Join',
  '!FindInMap',
  '!Select',
  '!If',
  '!Base64',
  '!Split',
  '!vault',
  '!unsafe',
  '!secret',
  '!env',
]);
const MASK_CHARS = new Set(['*', 'x', 'X', '.', '#', '-', '_', '•', '…']);

/**
 * True when a captured value is a reference or template, not a secret: `$VAR`, `${VAR}`, `$(cmd)`, `{{x}}`,
 * `{x}`, `<x>`, `[x]`, `@file`, `%VAR%`, code (`process.env.X`, `getToken()`), JSON/YAML literals and type names, masks
 * (`****`, `xxxx`), `YOUR_…`/`REPLACE_…` hints, and our own marker. Redacting these would gain nothing and
 * would make different commands that use the same variable look different to the cache.
 */
export function isPlaceholder(raw: string): boolean {
  const value = raw.trim();
  if (value === '' || value.includes(REDACTED)) return true;
  const first = value.charCodeAt(0);
  const last = value.charCodeAt(value.length - 1);
  if (first === 0x24 /* $ */) {
    // A shell or template expansion: $VAR, ${VAR}, $(cmd), $env:VAR — also when the capture ran past its end.
    const second = value.charCodeAt(1);
    return value.length === 1 || second === 0x7b /* { */ || second === 0x28 /* ( */ || isIdentStart(second);
  }
  // Templates and structure, closed or cut off by the capture: {{x}}, {x}, <x>, [x], and @file references.
  if (first === 0x7b /* { */ || first === 0x3c /* < */ || first === 0x5b /* [ */) return true;
  if (first === 0x40 /* @ */ && value.length > 1 && isPathLike(value.slice(1))) return true;
  // Code: a parenthesized or negated expression, `(a, b) => …`, `!(x)`.
  if (first === 0x28 /* ( */ || (first === 0x21 /* ! */ && value.charCodeAt(1) === 0x28)) return true;
  if (first === 0x25 /* % */ && last === 0x25 && isWindowsVariable(value.slice(1, -1))) return true;
  if (LITERALS.has(value.toLowerCase())) return true;
  if (isMask(value) || isAllSame(value) || isSequential(value) || isDocumentedExample(value)) return true;
  // Cut short for display (`sk_live_...`), a YAML tag (`!Ref DbPassword`), a Python %-format (`%(KEY)s`), or
  // what follows an escaped line break (`JWT_SECRET=\nNEXT=`: the value is empty).
  if (value.endsWith('...') || value.endsWith('…') || YAML_TAGS.has(firstWord(value))) return true;
  if (value.startsWith('%(') || value.startsWith('\\n') || value.startsWith('\\r') || value.startsWith('\\t'))
    return true;
  // A file path (`--from-file=password=./password.txt`): the file holds the secret, its name does not.
  if (value.startsWith('./') || value.startsWith('../') || value.startsWith('~/')) return true;
  if (hasPlaceholderMarker(value) && !looksRandom(value)) return true; // not_a_real_token, fake-api-key-1
  const upper = value.toUpperCase();
  if (
    upper.startsWith('YOUR_') ||
    upper.startsWith('YOUR-') ||
    upper.startsWith('REPLACE_') ||
    upper.startsWith('REPLACE-')
  )
    return true;
  return isCodeReference(value);
}

/**
 * Words people put in made-up values (`not_a_real_token`, `ops_DUMMY…`, `your-api-key`). Checked on the generic
 * layers only: a provider's format with such a word in it (AWS's own `…EXAMPLE` key) is still redacted.
 */
const PLACEHOLDER_MARKERS = [
  'example',
  'dummy',
  'fake',
  'sample',
  'placeholder',
  'notreal',
  'not_real',
  'not-real',
  'notareal',
  'not_a_real',
  'not-a-real',
  'changeme',
  'redacted',
  'replace_me',
  'replaceme',
  'your_',
  'your-',
];

export function hasPlaceholderMarker(value: string): boolean {
  const lower = value.toLowerCase();
  for (const marker of PLACEHOLDER_MARKERS) if (lower.includes(marker)) return true;
  return false;
}

/**
 * Character classes (lower, upper, digit) switch often, as in a random token, not as in words and numbers
 * (`not_a_real_token`, `fake-key-123`, `MyExampleKey`): at least one switch per five characters, not counting
 * the upper-to-lower step that starts a capitalized word.
 */
function looksRandom(value: string): boolean {
  let switches = 0;
  let counted = 0;
  let prev = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    const k = c >= 0x61 && c <= 0x7a ? 1 : c >= 0x41 && c <= 0x5a ? 2 : c >= 0x30 && c <= 0x39 ? 3 : 0;
    if (k === 0) continue;
    if (prev !== 0 && k !== prev && !(prev === 2 && k === 1)) switches++; // Upper→lower starts a word: not a switch
    prev = k;
    counted++;
  }
  return counted >= 8 && switches * 5 >= counted;
}

/** `1111`, `aaaa`, `0000`: one character repeated. */
function isAllSame(value: string): boolean {
  if (value.length < 3) return false;
  for (let i = 1; i < value.length; i++) if (value.charCodeAt(i) !== value.charCodeAt(0)) return false;
  return true;
}

/** `abc`, `123456`, `1234567890abcdef`: each character one above the last (9 → 0 → a counts as a step). */
function isSequential(value: string): boolean {
  if (value.length < 3) return false;
  for (let i = 1; i < value.length; i++) {
    const prev = value.charCodeAt(i - 1);
    const c = value.charCodeAt(i);
    if (c !== prev + 1 && !(prev === 0x39 && c === 0x30) && !(prev === 0x30 && c === 0x61 && i > 1)) return false;
  }
  return true;
}

/**
 * A token-shaped placeholder: one character fills most of it (`ghp_xxxx…`, `AKIAXXXX…`, `sk-proj-0000…`,
 * `gho_****…`, `xoxb-xxxx-xxxx`). A random token's most frequent character is a few percent of it.
 */
export function isFilledPlaceholder(value: string): boolean {
  if (value.length < 8) return false;
  const counts = new Map<number, number>();
  let top = 0;
  let counted = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === 0x2d || c === 0x5f || c === 0x2e) continue; // - _ . separate groups
    const n = (counts.get(c) ?? 0) + 1;
    counts.set(c, n);
    if (n > top) top = n;
    counted++;
  }
  return counted > 0 && top * 5 >= counted * 3;
}

/** Where AWS prints its example keys (every value below appears there and in its other guides). */
const AWS_EXAMPLE_KEYS_PAGE = 'https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_access-keys.html';

/**
 * Keys that providers print in their own documentation (AWS's), never issued to anyone: kept, so that code and
 * docs quoting them stay readable, and said so (`hookwise sanitize` notes each one it keeps, and why).
 */
export const DOCUMENTED_EXAMPLES: ReadonlyMap<string, { what: string; source: string }> = new Map([
  ['AKIAIOSFODNN7EXAMPLE', { what: "AWS's documented example access key id", source: AWS_EXAMPLE_KEYS_PAGE }],
  [
    'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    { what: "AWS's documented example secret access key", source: AWS_EXAMPLE_KEYS_PAGE },
  ],
  ['ASIAIOSFODNN7EXAMPLE', { what: "AWS's documented example temporary access key id", source: AWS_EXAMPLE_KEYS_PAGE }],
  ['AKIAI44QH8DHBEXAMPLE', { what: "AWS's documented example access key id", source: AWS_EXAMPLE_KEYS_PAGE }],
  [
    'je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY',
    { what: "AWS's documented example secret access key", source: AWS_EXAMPLE_KEYS_PAGE },
  ],
]);

export function isDocumentedExample(value: string): boolean {
  return DOCUMENTED_EXAMPLES.has(value);
}

/** A documented example key found in a text, at [start, end). */
export interface DocumentedExampleHit {
  value: string;
  start: number;
  end: number;
  what: string;
  source: string;
}

const isKeyChar = (c: number): boolean => isIdentPart(c) || c === 0x2f /* / */ || c === 0x2b; /* + */

/** Every documented example key standing alone in the text (not part of a longer token), in text order. */
export function documentedExamplesIn(text: string): DocumentedExampleHit[] {
  const hits: DocumentedExampleHit[] = [];
  for (const [value, { what, source }] of DOCUMENTED_EXAMPLES) {
    for (let at = text.indexOf(value); at >= 0; at = text.indexOf(value, at + value.length)) {
      const end = at + value.length;
      if ((at > 0 && isKeyChar(text.charCodeAt(at - 1))) || (end < text.length && isKeyChar(text.charCodeAt(end))))
        continue;
      hits.push({ value, start: at, end, what, source });
    }
  }
  return hits.sort((a, b) => a.start - b.start);
}

/**
 * The name in a Windows `%NAME%` reference (`%NUGET_PASSWORD%`, `%ProgramFiles(x86)%`): an identifier. A value
 * with other characters between its percent signs (`%Xk9!m2%Pq7%`) is a password that happens to hold them.
 */
function isWindowsVariable(name: string): boolean {
  if (name === '' || !isIdentStart(name.charCodeAt(0))) return false;
  for (let i = 1; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (!(isIdentPart(c) || c === 0x28 /* ( */ || c === 0x29) /* ) */) return false;
  }
  return true;
}

/** Only the characters of a file name or path (`@file`, `@./body.json`): a reference, not a value. */
function isPathLike(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (!(isIdentPart(c) || c === 0x2e || c === 0x2f || c === 0x2d || c === 0x7e)) return false;
  }
  return true;
}

function isMask(value: string): boolean {
  if (value.length < 3) return false;
  for (const ch of value) if (!MASK_CHARS.has(ch)) return false;
  return true;
}

/**
 * Code, not a literal: a member chain `a.b.c` of identifiers that reads as names (`process.env.TOKEN`,
 * `config.apiKey`), or a
 * call/index expression that starts with an identifier (`getToken()`, `os.environ["X"]`, `ENV['X']`).
 */
function isCodeReference(value: string): boolean {
  if (!isIdentStart(value.charCodeAt(0))) return false;
  let dots = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === 0x28 /* ( */ || c === 0x5b /* [ */) return i > 0;
    if (c === 0x2e /* . */) {
      if (i + 1 >= value.length || !isIdentStart(value.charCodeAt(i + 1))) return false;
      dots++;
    } else if (!isIdentPart(c)) {
      return false;
    }
  }
  // A chain of random-looking parts is a value that holds dots (`KohPgQAkNbI4.tmzZ.W`), not a member chain.
  return dots > 0 && !looksRandom(value);
}

/** Purely numeric `uid:gid`-style values, e.g. `docker run -u 1000:1000`. */
export function isNumericId(value: string): boolean {
  if (value === '') return false;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return value.length <= 10;
}

/** Last words of key names that name secrets (as in db_password, apiKey, X-Auth-Token, clientSecret). */
const SECRET_LAST_WORDS = new Set([
  'password',
  'passwd',
  'passphrase',
  'pwd',
  'pass',
  'secret',
  'token',
  'apikey',
  'credential',
  'credentials',
  'cookie',
  'auth',
  'authorization',
  'dsn',
  'pat',
  'privatekey',
]);
/** Two-word endings (joined, lower case) that name a secret where the last word alone does not. */
const SECRET_LAST_TWO = new Set([
  'apikey',
  'accesskey',
  'secretkey',
  'privatekey',
  'authkey',
  'masterkey',
  'signingkey',
  'encryptionkey',
  'clientkey',
  'appkey',
  'accountkey',
  'servicekey',
  'sessionkey',
  'sessiontoken',
  'webhookurl',
  'connectionstring',
]);

/** Lower-case words of an identifier: split on non-alphanumerics and camelCase boundaries. */
export function identifierWords(name: string): string[] {
  const words: string[] = [];
  let current = '';
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    const upper = c >= 0x41 && c <= 0x5a;
    const lower = c >= 0x61 && c <= 0x7a;
    const digit = c >= 0x30 && c <= 0x39;
    if (!upper && !lower && !digit) {
      if (current !== '') words.push(current);
      current = '';
      continue;
    }
    // A new word starts at an upper-case letter after a lower-case one, or before the last capital of an
    // acronym followed by lower case (`APIKey` → api, key).
    if (upper && current !== '') {
      const prev = name.charCodeAt(i - 1);
      const next = i + 1 < name.length ? name.charCodeAt(i + 1) : 0;
      const prevLower = (prev >= 0x61 && prev <= 0x7a) || (prev >= 0x30 && prev <= 0x39);
      const prevUpper = prev >= 0x41 && prev <= 0x5a;
      const nextLower = next >= 0x61 && next <= 0x7a;
      if (prevLower || (prevUpper && nextLower)) {
        words.push(current);
        current = '';
      }
    }
    current += String.fromCharCode(upper ? c + 0x20 : c);
  }
  if (current !== '') words.push(current);
  return words;
}

/** True when a JSON key / field name names a secret, so its whole string value is one. */
export function isSecretName(name: string): boolean {
  const words = identifierWords(name);
  const last = words[words.length - 1];
  if (last === undefined) return false;
  if (SECRET_LAST_WORDS.has(last)) return true;
  const lastTwo = words.length >= 2 ? `${words[words.length - 2]}${last}` : '';
  return SECRET_LAST_TWO.has(lastTwo) || last.endsWith('password') || last.endsWith('apikey');
}

/**
 * The key of a `KEY=value` / `key: value` match says its value is public: `DOTENV_PUBLIC_KEY`, `publicKey`,
 * `STRIPE_PUBLISHABLE_KEY`, `ssh_pubkey`. (The match starts at or just before the key.)
 */
export function namesPublicKey(match: string): boolean {
  let end = 0;
  while (end < match.length) {
    const c = match.charCodeAt(end);
    if (c === 0x3d || c === 0x3a || c === 0x20 || c === 0x09) break; // '=' ':' or blank ends the key
    end++;
  }
  const words = identifierWords(match.slice(0, end));
  return (
    words.includes('public') || words.includes('publishable') || words.includes('pubkey') || words.includes('sitekey')
  );
}
