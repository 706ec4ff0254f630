/**
 * Trains the shipped command-embedding model (workers/model/) from tldr-pages examples. Run through
 * `node scripts/train-embedding.mjs` (bundles this file with esbuild). Deterministic: one seeded PRNG.
 *
 * 1. Each tldr example (`tar {{[-x|--extract]}} {{[-f|--file]}} {{path/to/file.tar}}`, its page `tar` and its
 *    description) is realized a few times with concrete placeholder values (`-x` or `--extract`, `src/a.tar`
 *    or `~/a.tar`, a token-shaped secret the sanitizer redacts, …), parsed by hookwise's own shell parser and
 *    turned into the memory subject text (memory/subject.ts) — exactly what the model sees at run time —
 *    then into feature tokens (src/embed/featurize.ts).
 * 2. Token vectors are trained contrastively (in-batch InfoNCE, Adagrad): a command is pulled towards another
 *    command of the same page (another example, or another realization of the same one) and towards a bag of
 *    its description's words, and pushed from the rest of the batch (every other epoch the batch holds one
 *    program family's pages, so `git log` must differ from `git commit`). So commands with the same program and
 *    purpose land close, look-alike tools share description words, and the spelling of flags (`-x` /
 *    `--extract`) matters less than what they are. Argument kinds (`a:path-tmp`, `a:path-home`, …) are not
 *    trained but get fixed directions of their own (calibrateUnseen): where a command points stays visible.
 * 3. Evaluation on held-out data (never trained on): pages held out whole, and examples held out of seen pages;
 *    metric: is the nearest neighbour (cosine) from the same page. Baseline: TF-IDF cosine over the same tokens.
 * 4. The final model is trained on every page and written as ONNX + its vocabulary.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { ToolCall } from '../../src/core/tool-call.js';
import { callSubject } from '../../src/memory/subject.js';
import { resolvePath, type PathContext } from '../../src/paths/canonical.js';
import { prepareShell } from '../../src/shell/prepare.js';
import { CommandTokenizer, featureTokens, type CommandVocab } from '../../src/embed/featurize.js';
import { encodeStaticEmbeddingModel } from '../../src/embed/static-graph.js';
import { prng } from '../../bench/prng.js';

interface Options {
  corpus: string;
  out: string;
  seed: number;
  dim: number;
  epochs: number;
  realizations: number;
  evalOnly: boolean;
  skipEval: boolean;
  variants: boolean;
  kindStrength: number;
}

function parseArgs(argv: readonly string[], root: string): Options {
  const o: Options = {
    corpus: resolve(root, '..', 'shared', 'corpora', 'commands.tldr.jsonl'),
    out: join(root, 'workers', 'model'),
    seed: 20261126,
    dim: 64,
    epochs: 30,
    realizations: 4,
    evalOnly: false,
    skipEval: false,
    variants: false,
    kindStrength: 1,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const next = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === '--corpus') o.corpus = resolve(next());
    else if (a === '--out') o.out = resolve(next());
    else if (a === '--seed') o.seed = Number(next());
    else if (a === '--dim') o.dim = Number(next());
    else if (a === '--epochs') o.epochs = Number(next());
    else if (a === '--realizations') o.realizations = Number(next());
    else if (a === '--eval-only') o.evalOnly = true;
    else if (a === '--skip-eval') o.skipEval = true;
    else if (a === '--variants') o.variants = true;
    else if (a === '--kind-strength') o.kindStrength = Number(next());
    else throw new Error(`unknown option ${a} (see the header of scripts/embedding/train.ts)`);
  }
  return o;
}

// ---------------------------------------------------------------- PRNG
type Rng = () => number;
// The benchmarks' PRNG (mulberry32): one implementation for every seeded run.
const mulberry32 = (seed: number): Rng => prng(seed);
const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)]!;
function shuffle<T>(rng: Rng, xs: T[]): T[] {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [xs[i], xs[j]] = [xs[j]!, xs[i]!];
  }
  return xs;
}
function stableHash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

// ---------------------------------------------------------------- placeholder realization
/** Bump when realization changes (it keys the subjects cache). */
const REALIZATION_VERSION = '1';
const DIRS = ['src', 'lib', 'docs', 'build', 'tests', 'assets', 'config', 'data', 'scripts', 'app'];
const FILES = [
  'main.c',
  'notes.txt',
  'app.js',
  'data.csv',
  'README.md',
  'config.yaml',
  'index.ts',
  'report.pdf',
  'photo.jpg',
  'archive.tar.gz',
  'server.log',
  'script.py',
];
const WORDS = [
  'web',
  'api',
  'app',
  'demo',
  'worker',
  'backend',
  'prod',
  'staging',
  'mydb',
  'cache',
  'frontend',
  'alpha',
  'test1',
  'foo',
  'bar',
];
const GENERIC_NAMES = new Set([
  'name',
  'value',
  'string',
  'pattern',
  'target',
  'key',
  'tag',
  'message',
  'variable',
  'version',
  'text',
  'query',
  'id',
  'keyword',
  'word',
  'label',
  'title',
  'description',
  'comment',
  'content',
  'argument',
  'arguments',
  'args',
  'option',
  'options',
  'expression',
  'regex',
  'search',
  'filter',
]);
const SECRET_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function realizePath(spec: string, rng: Rng): string {
  let rest = spec.replace(/^(\/?path\/to\/)/, '');
  const isDir =
    /^(directory|dir|folder|output_directory|input_directory|target_directory|source_directory)\d*$/.test(rest) ||
    rest.endsWith('/');
  if (
    rest === 'file' ||
    /^file\d*$/.test(rest) ||
    rest === 'file_or_directory' ||
    rest === 'input_file' ||
    rest === 'output_file'
  )
    rest = pick(rng, FILES);
  else if (isDir) rest = pick(rng, DIRS);
  const r = rng();
  if (r < 0.5) return `${pick(rng, DIRS)}/${rest}`;
  if (r < 0.65) return rest;
  if (r < 0.75) return `./${rest}`;
  if (r < 0.85) return `/home/dev/project/${rest}`;
  if (r < 0.93) return `~/${rest}`;
  return `/tmp/${rest}`;
}

function realizePlaceholder(inner: string, rng: Rng): string {
  if (inner.startsWith('[') && inner.endsWith(']')) return pick(rng, inner.slice(1, -1).split('|'));
  if (inner.includes('|')) return pick(rng, inner.split('|'));
  const lower = inner.toLowerCase();
  if (/^https?:\/\//.test(lower) || /^[\w.-]+\.(com|org|net|io)(\/\S*)?$/.test(lower)) return inner;
  if (lower.includes('path/to') || lower.startsWith('/') || lower.startsWith('~/')) {
    return inner
      .split(' ')
      .filter((p) => p !== '...')
      .map((p) => (p.includes('path/to') ? realizePath(p, rng) : p))
      .join(' ');
  }
  if (/^\d+(\.\d+)?$/.test(lower)) return String(Math.floor(rng() * 1000));
  if (/(^|_)url$/.test(lower))
    return pick(rng, ['https://example.com/api', 'https://github.com/org/repo', 'http://localhost:8080/']);
  if (/password|passphrase|token|secret|api_?key|access_key|credential/.test(lower)) {
    let s = 'ghp_';
    for (let i = 0; i < 36; i++) s += SECRET_ALPHABET[Math.floor(rng() * SECRET_ALPHABET.length)];
    return s;
  }
  if (
    /(^|_)(n|number|count|port|width|height|size|seconds|timeout|pid|line|lines|line_number|depth|level|limit|interval|amount|percent|uid|gid|index|num|days|hours|minutes|bytes|delay|threads|jobs|year|month|day|speed|rate|quality)$/.test(
      lower,
    )
  )
    return String(1 + Math.floor(rng() * 999));
  if (/(^|_)(ip|ip_address|ipv4)$/.test(lower)) return pick(rng, ['10.0.0.5', '192.168.1.20']);
  if (/email/.test(lower)) return 'alice@example.com';
  if (/(^|_)(user|username|login|owner)$/.test(lower)) return pick(rng, ['alice', 'bob', 'deploy']);
  if (/(^|_)(host|hostname|domain|server|remote_host)$/.test(lower))
    return pick(rng, ['example.com', 'db.internal', 'server1']);
  if (/branch/.test(lower)) return pick(rng, ['main', 'develop', 'feature-login']);
  if (/(^|_)(package|module|library|dependency|gem|crate)(_name)?$/.test(lower))
    return pick(rng, ['lodash', 'requests', 'express', 'numpy']);
  if (/(^|_)image(_name)?$/.test(lower)) return pick(rng, ['ubuntu', 'nginx:latest', 'node:20']);
  if (lower === 'command') return pick(rng, ['ls -la', 'make', 'echo hello']);
  if (/\s/.test(inner)) return inner;
  if (lower.includes('_') || GENERIC_NAMES.has(lower)) return pick(rng, WORDS);
  return inner;
}

function realize(command: string, rng: Rng): string {
  return command.replace(/\{\{(.*?)\}\}/g, (_, inner: string) => realizePlaceholder(inner, rng));
}

// ---------------------------------------------------------------- subjects
const PROJECT = '/home/dev/project';
const PATHS: PathContext = { projectRoot: PROJECT, home: '/home/dev', cwd: PROJECT };

async function subjectOf(command: string): Promise<string | undefined> {
  const call: ToolCall = {
    host: 'claude',
    sessionId: 'train',
    cwd: PROJECT,
    hostTool: 'Bash',
    tool: 'Bash',
    action: 'shell',
    paths: [],
    input: { command },
  };
  const shell = await prepareShell(call, PATHS);
  return callSubject(
    call,
    call.paths.map((p) => resolvePath(p, PATHS)),
    shell,
  )?.text;
}

interface Example {
  page: string;
  description: string;
  /** Feature tokens of each realization that parsed. */
  tokens: string[][];
  subjects: string[];
}

const STOPWORDS = new Set(
  'a an the of to in on for from with and or by as at into its it is be that this all any given specific specified using use current which their your you can not only also via one more multiple new'.split(
    ' ',
  ),
);
function descriptionWords(description: string): string[] {
  const words =
    description
      .toLowerCase()
      .replace(/`[^`]*`/g, ' ')
      .match(/[a-z][a-z0-9+-]*/g) ?? [];
  return [
    ...new Set(
      words
        .filter((w) => w.length > 1 && !STOPWORDS.has(w))
        .map((w) => (w.length > 4 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w)),
    ),
  ];
}

async function loadExamples(o: Options, root: string): Promise<Example[]> {
  const rng = mulberry32(o.seed);
  const corpus = readFileSync(o.corpus, 'utf8');
  // Parsing ~80k realized commands takes minutes on a busy machine: keep the subjects between runs while
  // iterating (dist/ is build output, never committed; the key names the corpus, the options and this script).
  const key = createHash('sha256')
    .update(corpus)
    .update(JSON.stringify([o.seed, o.realizations]))
    .update(REALIZATION_VERSION)
    .digest('hex')
    .slice(0, 16);
  const cache = join(root, 'dist', `train-embedding-subjects-${key}.json`);
  if (existsSync(cache)) {
    const cached = JSON.parse(readFileSync(cache, 'utf8')) as Example[];
    for (const ex of cached) ex.tokens = ex.subjects.map((s) => featureTokens(s));
    return cached;
  }
  const rows = corpus
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { command: string; page: string; description: string });
  const examples: Example[] = [];
  for (const row of rows) {
    const tokens: string[][] = [];
    const subjects: string[] = [];
    for (let r = 0; r < o.realizations; r++) {
      const subject = await subjectOf(realize(row.command, rng));
      if (subject === undefined) continue;
      subjects.push(subject);
      tokens.push(featureTokens(subject));
    }
    if (tokens.length > 0) examples.push({ page: row.page, description: row.description, tokens, subjects });
  }
  console.error(
    `train-embedding: ${examples.length} of ${rows.length} tldr examples parsed into subjects (${o.realizations} realizations each)`,
  );
  mkdirSync(dirname(cache), { recursive: true });
  writeFileSync(cache, JSON.stringify(examples.map((ex) => ({ ...ex, tokens: [] }))));
  return examples;
}

// ---------------------------------------------------------------- model
const NGRAM_BUCKETS = 4096;
const OOV_BUCKETS = 2048;
const NGRAM_WEIGHT = 0.35;
/** Argument-kind tokens (`a:path-tmp`, `oa:num`, `wra:path-home`, `ec:key`, …): kept apart, never trained. */
const KIND_TOKEN = /^(o|r|wr|v|j)?(a|ec):/;
/** An unseen token's pull relative to the median trained program token (see calibrateUnseen). */
const UNSEEN_STRENGTH = 1;
const MIN_EXAMPLES = 2;
/** Half the epochs batch a program family's pages together (see train()). */
const HARD_NEGATIVES = true;
/** The description objective's weight next to the same-page one. */
const DESCRIPTION_WEIGHT = 0.5;

interface Trained {
  vocab: CommandVocab;
  tokenizer: CommandTokenizer;
  table: Float32Array;
  weights: Float32Array;
  dim: number;
}

function buildVocab(train: readonly Example[]): { vocab: CommandVocab; df: Map<string, number> } {
  const df = new Map<string, number>();
  for (const ex of train) for (const t of new Set(ex.tokens.flat())) df.set(t, (df.get(t) ?? 0) + 1);
  const tokens = [...df.entries()]
    .filter(([t, n]) => n >= MIN_EXAMPLES && !t.startsWith('g:'))
    .map(([t]) => t)
    .sort();
  return {
    vocab: {
      format: 'hookwise-command-vocab',
      version: 1,
      tokens,
      ngramBuckets: NGRAM_BUCKETS,
      oovBuckets: OOV_BUCKETS,
    },
    df,
  };
}

function idfWeights(tokenizer: CommandTokenizer, df: Map<string, number>, n: number): Float32Array {
  const w = new Float32Array(tokenizer.rows);
  const idf = (count: number): number => Math.log((n + 1) / (count + 1)) + 1;
  tokenizer.vocab.tokens.forEach((t, i) => (w[i + 1] = idf(df.get(t) ?? 0)));
  const ngramStart = 1 + tokenizer.vocabSize;
  const oovStart = ngramStart + NGRAM_BUCKETS;
  for (let r = ngramStart; r < oovStart; r++) w[r] = NGRAM_WEIGHT;
  // An unseen token is rare by definition: as heavy as the rarest known ones.
  for (let r = oovStart; r < tokenizer.rows; r++) w[r] = idf(1);
  return w;
}

interface Encoded {
  ids: Int32Array;
}

/** u = Σ w·E[id]; returns the unit vector and the norm (for the backward pass). */
function encode(ids: Int32Array, table: Float32Array, weights: Float32Array, dim: number, out: Float32Array): number {
  out.fill(0);
  for (const id of ids) {
    const w = weights[id]!;
    const base = id * dim;
    for (let k = 0; k < dim; k++) out[k] = out[k]! + w * table[base + k]!;
  }
  let n = 0;
  for (let k = 0; k < dim; k++) n += out[k]! * out[k]!;
  n = Math.max(Math.sqrt(n), 1e-9);
  for (let k = 0; k < dim; k++) out[k] = out[k]! / n;
  return n;
}

function train(examples: readonly Example[], o: Options, label: string): Trained {
  const rng = mulberry32(o.seed ^ 0x5eed);
  const { vocab, df } = buildVocab(examples);
  const tokenizer = new CommandTokenizer(vocab);
  const weights = idfWeights(tokenizer, df, examples.length);
  const dim = o.dim;
  const table = new Float32Array(tokenizer.rows * dim);
  for (let i = dim; i < table.length; i++) table[i] = (rng() - 0.5) * 0.2;

  // description word table (training only)
  const descIds = new Map<string, number>();
  const descOf = examples.map((ex) =>
    Int32Array.from(
      descriptionWords(ex.description).map((w) => {
        let id = descIds.get(w);
        if (id === undefined) descIds.set(w, (id = descIds.size));
        return id;
      }),
    ),
  );
  const words = new Float32Array(descIds.size * dim);
  for (let i = 0; i < words.length; i++) words[i] = (rng() - 0.5) * 0.2;
  const ones = new Float32Array(descIds.size).fill(1);

  const encoded: Encoded[][] = examples.map((ex) =>
    ex.tokens.map((t) => ({ ids: Int32Array.from(t.map((x) => tokenizer.id(x))) })),
  );
  const byPage = new Map<string, number[]>();
  examples.forEach((ex, i) => byPage.set(ex.page, [...(byPage.get(ex.page) ?? []), i]));
  const pages = [...byPage.keys()];

  const accT = new Float32Array(table.length);
  const accW = new Float32Array(words.length);
  const LR = 0.15;
  const TAU = 0.07;
  const B = 128;
  console.error(
    `train-embedding[${label}]: ${examples.length} examples, ${pages.length} pages, vocab ${vocab.tokens.length}, rows ${tokenizer.rows}, dim ${dim}`,
  );

  const a = Array.from({ length: B }, () => new Float32Array(dim));
  const p = Array.from({ length: B }, () => new Float32Array(dim));
  const d = Array.from({ length: B }, () => new Float32Array(dim));
  const ga = Array.from({ length: B }, () => new Float32Array(dim));
  const gp = Array.from({ length: B }, () => new Float32Array(dim));
  const gd = Array.from({ length: B }, () => new Float32Array(dim));
  const na = new Float32Array(B);
  const np = new Float32Array(B);
  const nd = new Float32Array(B);
  const aIds: Int32Array[] = [];
  const pIds: Int32Array[] = [];
  const dIds: Int32Array[] = [];

  /** In-batch InfoNCE both ways over rows x[i] · y[j] / τ; adds gradients to gx, gy; returns the loss. */
  const infoNce = (
    x: Float32Array[],
    y: Float32Array[],
    gx: Float32Array[],
    gy: Float32Array[],
    n: number,
    scale: number,
  ): number => {
    let loss = 0;
    const s = new Float64Array(n * n);
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++) {
        let dot = 0;
        for (let k = 0; k < dim; k++) dot += x[i]![k]! * y[j]![k]!;
        s[i * n + j] = dot / TAU;
      }
    const grad = new Float64Array(n * n);
    for (const dir of [0, 1]) {
      for (let i = 0; i < n; i++) {
        let max = -Infinity;
        for (let j = 0; j < n; j++) max = Math.max(max, dir === 0 ? s[i * n + j]! : s[j * n + i]!);
        let sum = 0;
        for (let j = 0; j < n; j++) sum += Math.exp((dir === 0 ? s[i * n + j]! : s[j * n + i]!) - max);
        for (let j = 0; j < n; j++) {
          const v = dir === 0 ? s[i * n + j]! : s[j * n + i]!;
          const prob = Math.exp(v - max) / sum;
          const g = ((prob - (i === j ? 1 : 0)) * scale) / (2 * n);
          if (dir === 0) grad[i * n + j]! += g;
          else grad[j * n + i]! += g;
        }
        loss -= (((dir === 0 ? s[i * n + i]! : s[i * n + i]!) - max - Math.log(sum)) * scale) / (2 * n);
      }
    }
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++) {
        const g = grad[i * n + j]! / TAU;
        if (g === 0) continue;
        for (let k = 0; k < dim; k++) {
          gx[i]![k] = gx[i]![k]! + g * y[j]![k]!;
          gy[j]![k] = gy[j]![k]! + g * x[i]![k]!;
        }
      }
    return loss;
  };

  /** Back through normalization and the weighted sum into Adagrad updates of the rows. */
  // Out-of-vocabulary buckets stay random: they give an unseen token an identity, not a meaning.
  const frozen = 1 + tokenizer.vocabSize + NGRAM_BUCKETS;
  const kindRows = new Set<number>();
  vocab.tokens.forEach((t, i) => {
    if (KIND_TOKEN.test(t)) kindRows.add(i + 1);
  });
  const update = (
    ids: Int32Array,
    e: Float32Array,
    g: Float32Array,
    norm: number,
    tbl: Float32Array,
    w: Float32Array,
    acc: Float32Array,
    frozenFrom = Infinity,
  ): void => {
    let dot = 0;
    for (let k = 0; k < dim; k++) dot += e[k]! * g[k]!;
    const gu = new Float32Array(dim);
    for (let k = 0; k < dim; k++) gu[k] = (g[k]! - e[k]! * dot) / norm;
    for (const id of ids) {
      if (id >= frozenFrom || (tbl === table && kindRows.has(id))) continue;
      const base = id * dim;
      const wt = w[id]!;
      for (let k = 0; k < dim; k++) {
        const gk = wt * gu[k]!;
        acc[base + k] = acc[base + k]! + gk * gk;
        tbl[base + k] = tbl[base + k]! - (LR * gk) / (Math.sqrt(acc[base + k]!) + 1e-8);
      }
    }
  };

  // Hard negatives: pages of one family (`git-log`, `git-commit`, `git`; `aws-s3`, …) share batches, so the
  // model must tell a program's subcommands apart, not only programs from each other.
  const families = new Map<string, string[]>();
  for (const page of pages) {
    const family = page.split('-')[0]!;
    families.set(family, [...(families.get(family) ?? []), page]);
  }
  const familyList = [...families.values()];
  for (let epoch = 0; epoch < o.epochs; epoch++) {
    if (HARD_NEGATIVES && epoch % 2 === 1)
      pages.splice(0, pages.length, ...shuffle(rng, familyList).flatMap((f) => shuffle(rng, [...f])));
    else shuffle(rng, pages);
    let total = 0;
    let batches = 0;
    for (let start = 0; start + 8 <= pages.length; start += B) {
      const batch = pages.slice(start, start + B);
      const n = batch.length;
      aIds.length = pIds.length = dIds.length = 0;
      for (const page of batch) {
        const members = byPage.get(page)!;
        const i = pick(rng, members);
        let j = i;
        if (members.length > 1 && rng() < 0.75) while (j === i) j = pick(rng, members);
        const ra = pick(rng, encoded[i]!);
        let rb = pick(rng, encoded[j]!);
        if (j === i && encoded[i]!.length > 1) while (rb === ra) rb = pick(rng, encoded[j]!);
        aIds.push(ra.ids);
        pIds.push(rb.ids);
        dIds.push(descOf[i]!);
      }
      for (let i = 0; i < n; i++) {
        na[i] = encode(aIds[i]!, table, weights, dim, a[i]!);
        np[i] = encode(pIds[i]!, table, weights, dim, p[i]!);
        nd[i] = encode(dIds[i]!, words, ones, dim, d[i]!);
        ga[i]!.fill(0);
        gp[i]!.fill(0);
        gd[i]!.fill(0);
      }
      total += infoNce(a, p, ga, gp, n, 1);
      total += infoNce(a, d, ga, gd, n, DESCRIPTION_WEIGHT);
      for (let i = 0; i < n; i++) {
        update(aIds[i]!, a[i]!, ga[i]!, na[i]!, table, weights, accT, frozen);
        update(pIds[i]!, p[i]!, gp[i]!, np[i]!, table, weights, accT, frozen);
        if (dIds[i]!.length > 0) update(dIds[i]!, d[i]!, gd[i]!, nd[i]!, words, ones, accW);
      }
      batches++;
    }
    if (epoch % 10 === 9 || epoch === o.epochs - 1)
      console.error(`train-embedding[${label}]: epoch ${epoch + 1} loss ${(total / batches).toFixed(4)}`);
  }
  calibrateUnseen(tokenizer, table, weights, dim, rng, o.kindStrength);
  return { vocab, tokenizer, table, weights, dim };
}

/**
 * An unseen token (an unknown program, subcommand or flag) is what most sets a novel command apart: its
 * out-of-vocabulary bucket gets a random direction as strong as a typical trained program token, so two calls
 * of the same unknown tool stay close and calls of different unknown tools do not.
 */
function calibrateUnseen(
  tokenizer: CommandTokenizer,
  table: Float32Array,
  weights: Float32Array,
  dim: number,
  rng: Rng,
  kindStrength: number,
): void {
  const target = medianProgramStrength(tokenizer, table, weights, dim);
  const rows: number[] = [];
  for (let r = 1 + tokenizer.vocabSize + NGRAM_BUCKETS; r < tokenizer.rows; r++) rows.push(r);
  randomRows(rows, target * UNSEEN_STRENGTH, table, weights, dim, rng);
  // Argument kinds were not trained (every example is realized with several path kinds, so training would
  // teach the model to ignore them): each keeps its own direction, so `rm -rf /tmp/x` and `rm -rf ~` differ.
  const kinds: number[] = [];
  tokenizer.vocab.tokens.forEach((t, i) => {
    if (KIND_TOKEN.test(t)) kinds.push(i + 1);
  });
  randomRows(kinds, target * kindStrength, table, weights, dim, rng);
}

function medianProgramStrength(
  tokenizer: CommandTokenizer,
  table: Float32Array,
  weights: Float32Array,
  dim: number,
): number {
  const strengths: number[] = [];
  tokenizer.vocab.tokens.forEach((t, i) => {
    if (!t.startsWith('p:')) return;
    let n = 0;
    for (let k = 0; k < dim; k++) n += table[(i + 1) * dim + k]! ** 2;
    strengths.push(Math.sqrt(n) * weights[i + 1]!);
  });
  strengths.sort((x, y) => x - y);
  return strengths[Math.floor(strengths.length / 2)] ?? 1;
}

/** Gives each row a random direction whose weighted length is `target`. */
function randomRows(
  rows: readonly number[],
  target: number,
  table: Float32Array,
  weights: Float32Array,
  dim: number,
  rng: Rng,
): void {
  for (const r of rows) {
    const v = new Float64Array(dim);
    let n = 0;
    for (let k = 0; k < dim; k++) {
      // Box–Muller: a uniformly random direction
      v[k] = Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
      n += v[k]! ** 2;
    }
    const scale = target / (Math.sqrt(n) * weights[r]!);
    for (let k = 0; k < dim; k++) table[r * dim + k] = v[k]! * scale;
  }
}

/**
 * Post-training adjustments measured by the evaluation: `unitRows` scales every learned row to unit length
 * (the token's weight alone then sets its pull, as in TF-IDF); `ngram` scales the spelling pieces.
 */
interface Adjust {
  unitRows: boolean;
  ngram: number;
  kindStrength: number;
}

function adjusted(m: Trained, a: Adjust): Trained {
  const table = m.table.slice();
  const ngramStart = 1 + m.tokenizer.vocabSize;
  const oovStart = ngramStart + NGRAM_BUCKETS;
  for (let r = 1; r < oovStart; r++) {
    let scale = r >= ngramStart ? a.ngram : 1;
    if (a.unitRows) {
      let n = 0;
      for (let k = 0; k < m.dim; k++) n += table[r * m.dim + k]! ** 2;
      scale /= Math.sqrt(n) || 1;
    }
    for (let k = 0; k < m.dim; k++) table[r * m.dim + k] = table[r * m.dim + k]! * scale;
  }
  const out = { ...m, table };
  calibrateUnseen(out.tokenizer, out.table, out.weights, out.dim, mulberry32(0x0ff), a.kindStrength);
  return out;
}

// ---------------------------------------------------------------- evaluation
type Embed = (tokens: readonly string[]) => Float32Array;

function modelEmbed(m: Trained): Embed {
  return (tokens) => {
    const out = new Float32Array(m.dim);
    encode(Int32Array.from(tokens.map((t) => m.tokenizer.id(t))), m.table, m.weights, m.dim, out);
    return out;
  };
}

/** TF-IDF cosine over the same feature tokens (no learning): the baseline. */
function tfidfEmbed(train: readonly Example[]): (tokens: readonly string[]) => Map<string, number> {
  const df = new Map<string, number>();
  for (const ex of train) for (const t of new Set(ex.tokens.flat())) df.set(t, (df.get(t) ?? 0) + 1);
  const n = train.length;
  return (tokens) => {
    const v = new Map<string, number>();
    let norm = 0;
    for (const t of tokens) {
      const w = Math.log((n + 1) / ((df.get(t) ?? 0) + 1)) + 1;
      v.set(t, w);
      norm += w * w;
    }
    norm = Math.sqrt(norm) || 1;
    for (const [t, w] of v) v.set(t, w / norm);
    return v;
  };
}

interface Retrieval {
  queries: number;
  top1: number;
  mrr10: number;
}

interface Item<V> {
  page: string;
  v: V;
  id: number;
}

/** For each query: rank the candidates (never itself) by `scores`; is the best one from the query's page? */
function retrieval<V>(
  queries: readonly Item<V>[],
  candidates: readonly Item<V>[],
  scores: (q: V) => Float64Array,
): Retrieval {
  let top1 = 0;
  let mrr = 0;
  for (const q of queries) {
    const s = scores(q.v);
    const top: number[] = [];
    for (let c = 0; c < candidates.length; c++) {
      if (candidates[c]!.id === q.id) continue;
      if (top.length < 10 || s[c]! > s[top[top.length - 1]!]!) {
        top.push(c);
        top.sort((x, y) => s[y]! - s[x]!);
        if (top.length > 10) top.pop();
      }
    }
    if (candidates[top[0]!]?.page === q.page) top1++;
    const rank = top.findIndex((c) => candidates[c]!.page === q.page);
    if (rank >= 0) mrr += 1 / (rank + 1);
  }
  return { queries: queries.length, top1: top1 / queries.length, mrr10: mrr / queries.length };
}

function denseScores(candidates: readonly Item<Float32Array>[]): (q: Float32Array) => Float64Array {
  return (q) => {
    const out = new Float64Array(candidates.length);
    for (let c = 0; c < candidates.length; c++) {
      const v = candidates[c]!.v;
      let dot = 0;
      for (let k = 0; k < q.length; k++) dot += q[k]! * v[k]!;
      out[c] = dot;
    }
    return out;
  };
}

function sparseScores(candidates: readonly Item<Map<string, number>>[]): (q: Map<string, number>) => Float64Array {
  const postings = new Map<string, [number, number][]>();
  candidates.forEach((c, i) => {
    for (const [t, w] of c.v) {
      let list = postings.get(t);
      if (list === undefined) postings.set(t, (list = []));
      list.push([i, w]);
    }
  });
  return (q) => {
    const out = new Float64Array(candidates.length);
    for (const [t, w] of q) for (const [i, cw] of postings.get(t) ?? []) out[i] = out[i]! + w * cw;
    return out;
  };
}

function evaluate(examples: readonly Example[], o: Options): void {
  const heldPage = (page: string): boolean => stableHash(`page:${page}`) % 10 === 0;
  const heldExample = (i: number): boolean => stableHash(`example:${i}`) % 10 === 0;
  const train_: Example[] = [];
  const heldPages: { ex: Example; id: number }[] = [];
  const heldExamples: { ex: Example; id: number }[] = [];
  examples.forEach((ex, id) => {
    if (heldPage(ex.page)) heldPages.push({ ex, id });
    else if (heldExample(id)) heldExamples.push({ ex, id });
    else train_.push(ex);
  });
  const trainIds = examples
    .map((ex, id) => ({ ex, id }))
    .filter(({ ex, id }) => !heldPage(ex.page) && !heldExample(id));
  const pageSize = new Map<string, number>();
  for (const { ex } of heldPages) pageSize.set(ex.page, (pageSize.get(ex.page) ?? 0) + 1);
  let t = performance.now();
  const model = train(train_, o, 'eval');
  console.error(`train-embedding: trained in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  t = performance.now();
  const variants: [string, Embed][] = [['learned', modelEmbed(model)]];
  // Measured and not better (see docs/embedding.md); kept to re-check after changes with --variants.
  for (const a of o.variants
    ? [
        { unitRows: true, ngram: 1, kindStrength: o.kindStrength },
        { unitRows: false, ngram: 0.5, kindStrength: o.kindStrength },
        { unitRows: false, ngram: 1, kindStrength: 0 },
        { unitRows: false, ngram: 1, kindStrength: o.kindStrength / 2 },
        { unitRows: false, ngram: 1, kindStrength: o.kindStrength * 2 },
      ]
    : []) {
    variants.push([
      `learned, rows ${a.unitRows ? 'unit' : 'as trained'}, n-grams ×${a.ngram}, kinds ×${a.kindStrength}`,
      modelEmbed(adjusted(model, a)),
    ]);
  }
  const baseline = tfidfEmbed(train_);
  // queries use a different realization than the indexed copy where there is one (last vs first)
  const first = (ex: Example): string[] => ex.tokens[0]!;
  const last = (ex: Example): string[] => ex.tokens[ex.tokens.length - 1]!;
  const pct = (r: Retrieval): string => `${(100 * r.top1).toFixed(1)} % (MRR@10 ${r.mrr10.toFixed(3)})`;
  const report = (name: string, queries: { ex: Example; id: number }[], index: { ex: Example; id: number }[]): void => {
    const parts: string[] = [];
    for (const [label, embed] of variants) {
      const modelIndex = index.map(({ ex, id }) => ({ page: ex.page, v: embed(first(ex)), id }));
      parts.push(
        `${label} ${pct(
          retrieval(
            queries.map(({ ex, id }) => ({ page: ex.page, v: embed(last(ex)), id })),
            modelIndex,
            denseScores(modelIndex),
          ),
        )}`,
      );
    }
    const baselineIndex = index.map(({ ex, id }) => ({ page: ex.page, v: baseline(first(ex)), id }));
    const b = retrieval(
      queries.map(({ ex, id }) => ({ page: ex.page, v: baseline(last(ex)), id })),
      baselineIndex,
      sparseScores(baselineIndex),
    );
    console.log(
      `${name}: ${queries.length} queries · nearest neighbour from the same page:\n  ${parts.join('\n  ')}\n  TF-IDF baseline (no learning) ${pct(b)}`,
    );
  };
  report('held-out examples of seen pages (index: training examples)', heldExamples, trainIds);
  const pageQueries = heldPages.filter(({ ex }) => (pageSize.get(ex.page) ?? 0) >= 2);
  report('held-out pages (index: training examples + the other held-out examples)', pageQueries, [
    ...trainIds,
    ...heldPages,
  ]);
}

// ---------------------------------------------------------------- main
async function main(): Promise<void> {
  const root = process.env.HOOKWISE_ROOT ?? process.cwd();
  const o = parseArgs(process.argv.slice(2), root);
  let t = performance.now();
  const lap = (what: string): void => {
    console.error(`train-embedding: ${what} in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    t = performance.now();
  };
  const examples = await loadExamples(o, root);
  lap('subjects');
  if (!o.skipEval) {
    evaluate(examples, o);
    lap('evaluation');
  }
  if (o.evalOnly) return;
  const m = train(examples, o, 'final');
  const vocabText = `${JSON.stringify(m.vocab)}\n`;
  const model = encodeStaticEmbeddingModel({
    table: m.table,
    weights: m.weights,
    rows: m.tokenizer.rows,
    dim: m.dim,
    metadata: { corpus: 'tldr-pages pages/common (CC-BY-4.0)', seed: String(o.seed), epochs: String(o.epochs) },
  });
  mkdirSync(o.out, { recursive: true });
  for (const [name, data] of [
    ['command-vocab.json', vocabText],
    ['command-embedding.onnx', model],
  ] as const) {
    const target = join(o.out, name);
    writeFileSync(`${target}.tmp`, data);
    renameSync(`${target}.tmp`, target);
  }
  console.error(
    `train-embedding: wrote ${join(o.out, 'command-embedding.onnx')} (${model.length} bytes) and command-vocab.json (${vocabText.length} bytes)`,
  );
}

main().catch((error: unknown) => {
  console.error(`train-embedding: ${error instanceof Error ? error.stack : String(error)}`);
  process.exitCode = 1;
});
