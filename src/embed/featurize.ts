/**
 * The shipped command-embedding model's tokenizer: a sanitized memory subject text (src/memory/subject.ts:
 * shell segments joined by operators, wrappers, `VAR=` assignments, redirections, `  # writes <paths>`; other
 * tools: a URL, `<change> <path>` or sanitized JSON) → feature tokens → ids for the ONNX graph.
 *
 * Tokens name what a command IS, not its literal text: the program (basename), its subcommands, its flags
 * (bundles split, `--opt=value` → flag + value kind), the KIND of each argument (path: relative / absolute /
 * home / tmp / device + extension class; number; URL + host kind; glob; <REDACTED>; quoted string; plain
 * word), operators, redirections, wrappers, and hashed character n-grams of the program and subcommand so an
 * unseen tool still lands near its look-alikes. Pure and bounded: at most MAX_TOKENS tokens from at most
 * MAX_INPUT characters of text (limits count work).
 */

/** Tokens per text (the model's sequence length cap). */
export const MAX_TOKENS = 128;
/** Characters of subject text read (a subject is at most 4096: memory/subject.ts MAX_SUBJECT). */
export const MAX_INPUT = 8192;
/** Arguments per segment that become tokens. */
const MAX_ARGS = 24;
/** Id 0 pads a batch: its row is zero and its weight 0. */
export const PAD_ID = 0;

/** The tokenizer file's shape (workers/model/command-vocab.json). */
export interface CommandVocab {
  format: 'hookwise-command-vocab';
  version: 1;
  /** Vocabulary tokens; token i has id i + 1. */
  tokens: string[];
  /** Hash buckets for character n-grams: ids tokens.length + 1 … + ngramBuckets. */
  ngramBuckets: number;
  /** Hash buckets for any other token not in the vocabulary: the ids after the n-gram buckets. */
  oovBuckets: number;
}

// Wrappers as shell/unwrap.ts peels them (written before the program in a subject).
const WRAPPERS = new Set([
  'sudo',
  'doas',
  'env',
  'command',
  'builtin',
  'exec',
  'nohup',
  'setsid',
  'coproc',
  'nice',
  'ionice',
  'taskset',
  'time',
  'timeout',
  'stdbuf',
  'xargs',
  'busybox',
  'eval',
  'su',
  'runuser',
  'watch',
  'flock',
]);
const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh', 'fish']);
const OPERATOR_WORDS = new Set(['&&', '||', ';', '|', '|&', '&']);
const REDIRECT = /^(\d*)(>>|>\||>&|>|&>>|&>|<<<|<<-|<<|<&|<>|<)$/;
/** Programs whose single-dash options are words (`find -name`, `java -jar`), not bundles of letters. */
const WORD_OPTIONS = new Set([
  'find',
  'java',
  'javac',
  'go',
  'ffmpeg',
  'ffprobe',
  'openssl',
  'gcc',
  'g++',
  'clang',
  'cc',
  'convert',
  'magick',
  'xdotool',
  'qemu-system-x86_64',
  'dd',
  'tcpdump',
  'iptables',
  'ip',
  'ps',
]);
const SUBCOMMAND = /^[a-z][a-z0-9_:-]{0,39}$/;
const NUMBER = /^[-+]?(\d+(\.\d+)?|\.\d+|0x[0-9a-f]+)([kmgtp]i?b?|[smhd]|ms|%)?$/i;
const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s;
const SCHEME = /^([a-z][a-z0-9+.-]{1,15}):\/\//i;
const USER_HOST = /^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+(:.*)?$/;
const IPV4 = /^\d{1,3}(\.\d{1,3}){3}(:\d+)?$/;

const EXTENSION_CLASS: Record<string, string> = {};
for (const [cls, exts] of Object.entries({
  code: 'c cc cpp cxx h hpp cs go rs java kt kts scala swift m mm py pyi rb php pl pm lua r jl dart ex exs erl hs ml clj js mjs cjs jsx ts mts cts tsx vue svelte zig nim',
  script: 'sh bash zsh fish ps1 bat cmd',
  config: 'json jsonc json5 yaml yml toml ini cfg conf env properties xml plist editorconfig lock',
  doc: 'md markdown rst txt adoc org tex pdf doc docx odt rtf html htm epub man 1',
  data: 'csv tsv parquet sqlite db sql ndjson jsonl avro arrow xls xlsx ods dat bin npy h5 pkl',
  archive: 'zip tar gz tgz bz2 xz zst 7z rar lz4 lzma deb rpm apk dmg iso whl gem jar war',
  image: 'png jpg jpeg gif bmp svg webp ico tif tiff heic psd xcf pbm pgm ppm pnm pam raw',
  media: 'mp3 mp4 mkv avi mov wav flac ogg webm m4a aac opus',
  key: 'pem key crt cer der p12 pfx pub gpg asc sig kdbx ovpn',
  log: 'log out err',
  build: 'o a so dylib dll exe class pyc wasm map',
})) {
  for (const ext of exts.split(' ')) EXTENSION_CLASS[ext] = cls;
}

interface Word {
  text: string;
  /** Any part was quoted or escaped: never an operator, redirection or marker. */
  quoted: boolean;
  /** Characters before the first quoted one (an assignment's `NAME=` must be among them). */
  plain: number;
}

/** Shell words of a subject text as memory/subject.ts writes them ('…', $'…', backslash escapes). */
function lex(input: string): Word[] {
  const words: Word[] = [];
  let i = 0;
  const n = input.length;
  while (i < n) {
    while (i < n && (input[i] === ' ' || input[i] === '\t' || input[i] === '\n')) i++;
    if (i >= n) break;
    let text = '';
    let quoted = false;
    let plain = -1;
    while (i < n && input[i] !== ' ' && input[i] !== '\t' && input[i] !== '\n') {
      const c = input[i]!;
      if (plain === -1 && (c === "'" || c === '\\' || (c === '$' && input[i + 1] === "'"))) plain = text.length;
      if (c === "'") {
        const end = input.indexOf("'", i + 1);
        const stop = end === -1 ? n : end;
        text += input.slice(i + 1, stop);
        quoted = true;
        i = stop + 1;
      } else if (c === '$' && input[i + 1] === "'") {
        i += 2;
        while (i < n && input[i] !== "'") {
          if (input[i] === '\\' && i + 1 < n) {
            text += input[i + 1];
            i += 2;
          } else text += input[i++];
        }
        quoted = true;
        i++;
      } else if (c === '\\' && i + 1 < n) {
        text += input[i + 1];
        quoted = true;
        i += 2;
      } else {
        text += c;
        i++;
      }
    }
    words.push({ text, quoted, plain: plain === -1 ? text.length : plain });
  }
  return words;
}

function extensionTokens(path: string, out: string[], prefix: string): void {
  const base = path.slice(path.lastIndexOf('/') + 1).toLowerCase();
  const dot = base.lastIndexOf('.');
  if (dot <= 0 || dot === base.length - 1) {
    if (base.startsWith('.') && base.length > 1) out.push(`${prefix}e:dotfile`);
    return;
  }
  const ext = base.slice(dot + 1);
  if (!/^[a-z0-9]{1,8}$/.test(ext)) return;
  out.push(`${prefix}e:${ext}`);
  const cls = EXTENSION_CLASS[ext];
  if (cls !== undefined) out.push(`${prefix}ec:${cls}`);
}

/** Whether a bare word reads as a file name (`notes.txt`, `Makefile` does not). */
function looksLikeFile(word: string): boolean {
  const dot = word.lastIndexOf('.');
  const ext = word.slice(dot + 1);
  return dot > 0 && /^[A-Za-z0-9]{1,8}$/.test(ext) && /[A-Za-z]/.test(ext);
}

function pathKind(path: string): string {
  if (path === '/dev/null') return 'path-devnull';
  if (
    path === '~' ||
    path.startsWith('~/') ||
    /^\/(home|Users)\/[^/]+(\/|$)/.test(path) ||
    path === '/root' ||
    path.startsWith('/root/')
  )
    return 'path-home';
  if (/^\/(tmp|var\/tmp|private\/tmp)(\/|$)/.test(path)) return 'path-tmp';
  if (/^\/(dev|proc|sys)(\/|$)/.test(path)) return 'path-device';
  if (/^\/(etc|usr|bin|sbin|lib|lib64|boot|opt|var|srv|System|Library)(\/|$)/.test(path) || path === '/')
    return 'path-system';
  if (path.startsWith('/')) return 'path-abs';
  if (path.startsWith('..')) return 'path-parent';
  return 'path-rel';
}

/** The kind tokens of one argument value (also `--opt=value` values and `VAR=value` values). */
function valueTokens(value: string, quoted: boolean, out: string[], prefix = ''): void {
  if (value === '') {
    out.push(`${prefix}a:empty`);
    return;
  }
  if (value.includes('<REDACTED>')) {
    out.push(`${prefix}a:redacted`);
    return;
  }
  const scheme = SCHEME.exec(value);
  if (scheme !== null) {
    out.push(`${prefix}a:url`, `${prefix}a:url:${scheme[1]!.toLowerCase()}`);
    const host = value
      .slice(scheme[0].length)
      .split(/[/?#]/)[0]!
      .replace(/^.*@/, '')
      .replace(/:\d+$/, '')
      .toLowerCase();
    if (host === 'localhost' || host.startsWith('127.') || host === '[::1]' || host === '0.0.0.0')
      out.push(`${prefix}a:host-local`);
    else if (/^[\d.]+$/.test(host) || host.startsWith('[')) out.push(`${prefix}a:host-ip`);
    else if (host !== '') out.push(`${prefix}a:host-name`);
    const rest = value.slice(scheme[0].length).split(/[?#]/)[0]!;
    const slash = rest.indexOf('/');
    if (slash !== -1) extensionTokens(rest.slice(slash), out, prefix);
    return;
  }
  if (value === '-') {
    out.push(`${prefix}a:stdio`);
    return;
  }
  if (NUMBER.test(value)) {
    out.push(`${prefix}a:num`);
    return;
  }
  if (IPV4.test(value)) {
    out.push(`${prefix}a:host-ip`);
    return;
  }
  const glob = /[*?]|\[[^\]]*\]/.test(value);
  const pathy = value.includes('/') || value === '~' || value === '.' || value === '..' || looksLikeFile(value);
  if (USER_HOST.test(value) && !value.includes('/')) {
    out.push(`${prefix}a:user-host`);
    return;
  }
  if (glob) out.push(`${prefix}a:glob`);
  if (pathy || glob) {
    out.push(`${prefix}a:${pathKind(value)}`);
    extensionTokens(value, out, prefix);
    return;
  }
  if (/\s/.test(value)) {
    out.push(`${prefix}a:string`);
    return;
  }
  const kv = /^([A-Za-z_][A-Za-z0-9_.-]*)[=:](.+)$/.exec(value);
  if (kv !== null) {
    out.push(`${prefix}a:key-value`, `${prefix}w:${kv[1]!.toLowerCase()}`);
    return;
  }
  out.push(`${prefix}a:${quoted ? 'string' : 'word'}`);
  if (/^[A-Za-z][A-Za-z0-9_.-]{0,39}$/.test(value)) out.push(`${prefix}w:${value.toLowerCase()}`);
}

/** Character n-grams (3 and 4) of `<word>`, as hashed-bucket tokens. */
function ngramTokens(word: string, out: string[]): void {
  const padded = `<${word.slice(0, 40)}>`;
  for (const size of [3, 4]) {
    for (let i = 0; i + size <= padded.length; i++) out.push(`g:${padded.slice(i, i + size)}`);
  }
}

function flagTokens(flag: string, program: string, out: string[]): string | undefined {
  // → the value that follows inside the flag word (`--opt=value`, `-n5`), if any
  if (flag.startsWith('--')) {
    const eq = flag.indexOf('=');
    const name = (eq === -1 ? flag : flag.slice(0, eq)).toLowerCase();
    out.push(`f:${program}:${name}`, `F:${name}`);
    return eq === -1 ? undefined : flag.slice(eq + 1);
  }
  const body = flag.slice(1);
  const eq = body.indexOf('=');
  if (eq > 0) {
    out.push(`f:${program}:-${body.slice(0, eq)}`);
    return body.slice(eq + 1);
  }
  if (!WORD_OPTIONS.has(program) && /^[A-Za-z]{2,5}$/.test(body)) {
    for (const letter of body) out.push(`f:${program}:-${letter}`);
    return undefined;
  }
  const attached = /^([A-Za-z])(\d+)$/.exec(body); // -n5
  if (attached !== null) {
    out.push(`f:${program}:-${attached[1]}`);
    return attached[2];
  }
  out.push(`f:${program}:-${body}`);
  return undefined;
}

function segmentTokens(words: readonly Word[], out: string[]): void {
  let i = 0;
  // context markers: [subshell], [ssh host], [find-exec], …
  while (i < words.length && !words[i]!.quoted && words[i]!.text.startsWith('[') && words[i]!.text !== '[') {
    const marker = words[i]!.text.replace(/^\[|\]$/g, '');
    out.push(`ctx:${marker}`);
    while (i < words.length && !words[i]!.text.endsWith(']')) i++;
    i++;
  }
  // wrappers (`sudo`, `bash -c`, the `find` of a find -exec command), then VAR=value assignments
  const findExec = out[out.length - 1] === 'ctx:find-exec';
  while (i + 1 < words.length && !words[i]!.quoted) {
    const w = words[i]!.text;
    if (WRAPPERS.has(w) || (findExec && w === 'find')) {
      out.push(`wrap:${w}`);
      i++;
    } else if (SHELLS.has(w) && words[i + 1]!.text === '-c') {
      out.push('wrap:shell-c');
      i += 2;
    } else break;
  }
  for (
    let m = ASSIGNMENT.exec(words[i]?.text ?? '');
    m !== null && i + 1 < words.length && words[i]!.plain > m[1]!.length;
    m = ASSIGNMENT.exec(words[i]?.text ?? '')
  ) {
    out.push('env', `env:${m[1]}`);
    valueTokens(m[2]!, words[i]!.quoted, out, 'v');
    i++;
  }
  if (i >= words.length) return;
  const argv0 = words[i]!.text;
  if (SCHEME.test(argv0)) {
    // a fetch-like tool's subject: the URL itself
    out.push('url-subject');
    valueTokens(argv0, false, out);
    return;
  }
  const program =
    argv0
      .replace(/^\\/, '')
      .slice(argv0.lastIndexOf('/') + 1)
      .toLowerCase() || argv0;
  out.push(`p:${program}`);
  if (argv0.includes('/')) out.push('pp:path', `pp:${pathKind(argv0)}`);
  ngramTokens(program, out);
  i++;
  let operands = 0;
  let sub: string | undefined;
  let expectSub = true;
  let args = 0;
  for (; i < words.length && args < MAX_ARGS; i++, args++) {
    const word = words[i]!;
    const redirect = word.quoted ? null : REDIRECT.exec(word.text);
    if (redirect !== null) {
      const target = words[i + 1];
      out.push(`r:${redirect[2]}`);
      if (redirect[1] !== '') out.push(`r:fd${redirect[1]}`);
      if (target !== undefined) {
        if (/^\d$/.test(target.text) && redirect[2]!.endsWith('&')) out.push('r:dup');
        else valueTokens(target.text, target.quoted, out, 'r');
        i++;
      }
      continue;
    }
    const text = word.text;
    if (text.length > 1 && text.startsWith('-') && !NUMBER.test(text)) {
      if (text === '--') continue;
      const value = flagTokens(text, program, out);
      if (value !== undefined) valueTokens(value, word.quoted, out, 'o');
      continue;
    }
    if (expectSub && !word.quoted && SUBCOMMAND.test(text) && !looksLikeFile(text)) {
      if (sub === undefined) {
        sub = text;
        out.push(`s:${program}:${text}`, `w:${text}`);
        ngramTokens(text, out);
      } else {
        out.push(`s:${program}:${sub}:${text}`, `w:${text}`);
        expectSub = false;
      }
      continue;
    }
    expectSub = false;
    operands++;
    valueTokens(text, word.quoted, out);
  }
  if (operands === 0 && sub === undefined) out.push('a:none');
}

/** JSON input of a tool other than a shell (MCP and the like): its keys and the kinds of its values. */
function jsonTokens(text: string, out: string[]): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return false; // not JSON (a subject truncated by nothing but its own shape): read it as words instead
  }
  out.push('json');
  let budget = 64;
  const walk = (value: unknown, key: string): void => {
    if (budget-- <= 0) return;
    if (Array.isArray(value)) {
      for (const v of value.slice(0, 8)) walk(v, key);
    } else if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        out.push(`k:${k.toLowerCase().slice(0, 40)}`);
        walk(v, k);
      }
    } else if (typeof value === 'string') {
      valueTokens(value, true, out, 'j');
    } else out.push(`ja:${typeof value}`);
  };
  walk(parsed, '');
  return true;
}

/** The feature tokens of one subject text, deduplicated in first-seen order, at most MAX_TOKENS. */
export function featureTokens(subject: string): string[] {
  const text = subject.slice(0, MAX_INPUT);
  const out: string[] = [];
  const trimmed = text.trimStart();
  if (!(trimmed.startsWith('{') || trimmed.startsWith('[')) || !jsonTokens(trimmed, out)) {
    const words = lex(text);
    let segment: Word[] = [];
    let writes = false;
    for (const word of words) {
      if (!word.quoted && word.text === '#' && !writes) {
        segmentTokens(segment, out);
        segment = [];
        writes = true;
        out.push('writes');
        continue;
      }
      if (writes) {
        if (word.text !== 'writes') valueTokens(word.text, true, out, 'wr');
        continue;
      }
      if (!word.quoted && OPERATOR_WORDS.has(word.text)) {
        segmentTokens(segment, out);
        segment = [];
        out.push(`op:${word.text}`);
        continue;
      }
      segment.push(word);
    }
    segmentTokens(segment, out);
  }
  const unique = [...new Set(out)];
  if (unique.length === 0) return ['empty'];
  return unique.slice(0, MAX_TOKENS);
}

/** FNV-1a over the UTF-16 code units: the hash that picks a token's bucket (stable across platforms). */
export function tokenHash(token: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < token.length; i++) {
    h ^= token.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Token → id lookup built once from the vocabulary file. */
export class CommandTokenizer {
  private readonly ids: Map<string, number>;
  readonly vocabSize: number;
  /** Rows in the model's tables: pad + vocabulary + n-gram buckets + out-of-vocabulary buckets. */
  readonly rows: number;

  constructor(readonly vocab: CommandVocab) {
    this.ids = new Map(vocab.tokens.map((t, i) => [t, i + 1]));
    this.vocabSize = vocab.tokens.length;
    this.rows = 1 + vocab.tokens.length + vocab.ngramBuckets + vocab.oovBuckets;
  }

  id(token: string): number {
    const known = this.ids.get(token);
    if (known !== undefined) return known;
    const h = tokenHash(token);
    if (token.startsWith('g:')) return 1 + this.vocabSize + (h % this.vocab.ngramBuckets);
    return 1 + this.vocabSize + this.vocab.ngramBuckets + (h % this.vocab.oovBuckets);
  }

  /** Ids of one text's feature tokens. */
  encode(subject: string): number[] {
    return featureTokens(subject).map((t) => this.id(t));
  }

  /** A padded batch: `input_ids` and `attention_mask`, row-major [texts.length, longest]. */
  batch(subjects: readonly string[]): { ids: BigInt64Array; mask: BigInt64Array; seq: number } {
    const encoded = subjects.map((s) => this.encode(s));
    const seq = Math.max(1, ...encoded.map((e) => e.length));
    const ids = new BigInt64Array(subjects.length * seq);
    const mask = new BigInt64Array(subjects.length * seq);
    encoded.forEach((row, r) => {
      row.forEach((id, c) => {
        ids[r * seq + c] = BigInt(id);
        mask[r * seq + c] = 1n;
      });
    });
    return { ids, mask, seq };
  }
}
