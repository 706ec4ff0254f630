/**
 * Recall and false positives of the sanitizer on a labelled corpus (JSON Lines rows
 * `{"text", "label": "secret" | "clean", "rule", "file"}`, e.g. ../shared/corpora/secrets.secretlint.jsonl,
 * optionally with `"kind"` and `"secrets": [...]`), or on hookwise's own generated corpus
 * (bench/corpora/secrets.ts), or on the held-out one (bench/corpora/secrets-holdout.ts). Run it from the built CLI:
 * `hookwise sanitize --eval [corpus.jsonl | builtin | holdout]`.
 *
 * A `secret` row that lists its `secrets` (the built-in corpus lists them for every row) is judged by exactly
 * those substrings: it passes when sanitize() redacted at least one span and none of them is left in the
 * output. A row without `secrets` is judged by the heuristic below.
 *
 * What counts as "the secret" of such a row is decided here by evaluation-only rules, deliberately simpler than
 * the sanitizer's, so the sanitizer is not graded by its own logic. A `secret` row passes when
 *   1. sanitize() redacted at least one span, and
 *   2. none of the row's credential candidates survives in the output:
 *      a. every run of `[A-Za-z0-9+_-]` (plus `=` padding) of ≥ 16 chars with a letter and a digit, or ≥ 24
 *         chars with both letter cases — random-looking tokens. `/` and `.` split runs, so URLs and paths
 *         are not candidates; neither are host names (runs after `@`, `//` or `.`), option names (runs
 *         starting with `-`) and lower-case identifiers (`client_x509_cert_url`: no upper case, every
 *         `_`/`-` segment ≤ 10 chars),
 *      b. the password of every `scheme://user:password@` (the text `:password@` must be gone),
 *      c. the value of every `key = value` / `key: value` whose key ends in password, passwd, pwd, pass, secret,
 *         token or key (the text `key<sep>value` must be gone), values of ≥ 3 chars that are not `${…}`/`$VAR`
 *         and not a documentation placeholder (`your_password`, `YOUR_KEY`, `REPLACE_ME`, `myPassword`).
 * A `clean` row is a false positive when sanitize() redacted anything at all.
 *
 * Besides the totals, the figures are broken down per kind (a row's `kind`, else its `rule`) and label.
 *
 * Rows of three secretlint rules hold no credential (toy text `THIS IS SECRET`, home-directory paths):
 * they are counted in the overall figure and excluded from the credential figure. Rows whose label holds only
 * under the snapshot's own secretlint config (an allow-list, a disabled option, a file-path glob — listed in
 * the corpus README's caveats) are reported apart and counted in neither the credential nor the clean figure.
 */
import { createRequire } from 'node:module';
import type RE2 from 're2';
import { buildHoldoutCorpus, HOLDOUT_SEED } from './corpora/secrets-holdout.js';
import { buildSecretCorpus, SECRET_CORPUS_SEED } from './corpora/secrets.js';

export interface CorpusRow {
  text: string;
  label: 'secret' | 'clean';
  rule: string;
  file: string;
  /** What the row is about (the built-in corpus: `github-pat`, `placeholder-literal`, …); the report groups by it, else by `rule`. */
  kind?: string;
  /** Exact substrings that must be gone from the sanitized text; a secret row with this list is judged by it alone. */
  secrets?: string[];
}

export interface SanitizeLike {
  (text: string): { text: string; findings: readonly { rule: string; start?: number; end?: number }[] };
}

export interface RowResult {
  rule: string;
  file: string;
  /** The row's kind, or its rule when it has none. */
  kind: string;
  label: CorpusRow['label'];
  /** How a secret row was judged: by its listed `secrets`, or by the candidate heuristic. */
  judged: 'secrets' | 'heuristic';
  /** secret rows: redacted and nothing survived; clean rows: nothing redacted. */
  pass: boolean;
  redactions: number;
  rules: string[];
  /** Masked descriptions of the candidates (or listed secrets) that survived (never the values themselves). */
  survivors: string[];
  /** Clean rows: masked descriptions of what was redacted (when the sanitizer reports spans). */
  redacted: string[];
  credential: boolean;
  /** The label depends on the snapshot's own config (isConfigDependent): in no credential / clean figure. */
  configDependent: boolean;
}

export interface KindResult {
  kind: string;
  label: CorpusRow['label'];
  rows: number;
  passed: number;
}

export interface SecretsEval {
  secretRows: number;
  secretPassed: number;
  credentialRows: number;
  credentialPassed: number;
  cleanRows: number;
  cleanFlagged: number;
  /** Clean rows not judged against their config-dependent label, and how many of them were redacted. */
  configRows: number;
  configFlagged: number;
  /** Per kind and label, worst pass rate first. */
  kinds: KindResult[];
  rows: RowResult[];
}

/** secretlint rules whose snapshots hold no credential (see the file comment). */
export const NON_CREDENTIAL_RULES = [
  'secretlint-rule-example',
  'secretlint-rule-filter-comments',
  'secretlint-rule-no-homedir',
] as const;

/**
 * Snapshots whose label holds only under their own `.secretlintrc`/options (../shared/corpora/README.md,
 * "Caveats"): `ok.allows` rows hold real-looking tokens that an allow-list suppresses, `enableIDScanRule-false`
 * turns a rule off, and every `secretlint-rule-pattern` row depends on that snapshot's configured patterns.
 */
export function isConfigDependent(rule: string, file: string): boolean {
  if (rule === 'secretlint-rule-pattern') return true;
  if (
    file === 'ok.allows' &&
    ['secretlint-rule-figma', 'secretlint-rule-groq', 'secretlint-rule-tailscale'].includes(rule)
  )
    return true;
  return (
    rule === 'secretlint-rule-aws' &&
    ['ng.AWS Access Key ID', 'ng.AWS Account ID', 'ok.AWS Access Key ID--enableIDScanRule-false'].includes(file)
  );
}

export function parseCorpus(text: string, source: string): CorpusRow[] {
  const rows: CorpusRow[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch (error) {
      throw new Error(`${source}:${i + 1}: not JSON (${(error as Error).message})`);
    }
    const r = row as Partial<Record<keyof CorpusRow, unknown>>;
    if (typeof r.text !== 'string' || (r.label !== 'secret' && r.label !== 'clean')) {
      throw new Error(`${source}:${i + 1}: expected {"text": string, "label": "secret" | "clean", …}`);
    }
    const parsed: CorpusRow = {
      text: r.text,
      label: r.label,
      rule: typeof r.rule === 'string' ? r.rule : '',
      file: typeof r.file === 'string' ? r.file : `line ${i + 1}`,
    };
    if (typeof r.kind === 'string') parsed.kind = r.kind;
    if (r.secrets !== undefined) {
      if (!Array.isArray(r.secrets) || !r.secrets.every((s): s is string => typeof s === 'string' && s !== '')) {
        throw new Error(`${source}:${i + 1}: "secrets" must be an array of non-empty strings`);
      }
      if (r.label === 'secret' && r.secrets.length === 0)
        throw new Error(
          `${source}:${i + 1}: a secret row's "secrets" lists nothing (leave it out to judge the row by the heuristic)`,
        );
      if (r.label === 'clean' && r.secrets.length > 0) throw new Error(`${source}:${i + 1}: a clean row lists secrets`);
      parsed.secrets = r.secrets;
    }
    rows.push(parsed);
  });
  return rows;
}

/** The name `--eval` takes for the built-in corpus. */
export const BUILTIN_CORPUS = 'builtin';
export const BUILTIN_SOURCE = `built-in corpus (bench/corpora/secrets.ts, seed ${SECRET_CORPUS_SEED})`;

/** hookwise's own corpus (bench/corpora/secrets.ts) as evaluator rows: rule = kind, file = the row's number within its kind. */
export function builtinCorpus(seed: number = SECRET_CORPUS_SEED): CorpusRow[] {
  return generatedRows(buildSecretCorpus(seed));
}

/** The name `--eval` takes for the held-out corpus. */
export const HOLDOUT_CORPUS = 'holdout';
export const HOLDOUT_SOURCE = `held-out corpus (bench/corpora/secrets-holdout.ts, seed ${HOLDOUT_SEED})`;

/** The held-out corpus (bench/corpora/secrets-holdout.ts: not used to tune the sanitizer) as evaluator rows, as builtinCorpus. */
export function holdoutCorpus(seed: number = HOLDOUT_SEED): CorpusRow[] {
  return generatedRows(buildHoldoutCorpus(seed));
}

function generatedRows(
  rows: readonly { text: string; label: CorpusRow['label']; kind: string; secrets: string[] }[],
): CorpusRow[] {
  const seen = new Map<string, number>();
  return rows.map((row) => {
    const n = (seen.get(row.kind) ?? 0) + 1;
    seen.set(row.kind, n);
    return { text: row.text, label: row.label, rule: row.kind, file: `#${n}`, kind: row.kind, secrets: row.secrets };
  });
}

export function evaluateSecrets(rows: readonly CorpusRow[], sanitize: SanitizeLike): SecretsEval {
  const results = rows.map((row): RowResult => {
    const { text, findings } = sanitize(row.text);
    const configDependent = isConfigDependent(row.rule, row.file);
    const credential = !(NON_CREDENTIAL_RULES as readonly string[]).includes(row.rule) && !configDependent;
    const judged: RowResult['judged'] =
      row.label === 'secret' && row.secrets !== undefined && row.secrets.length > 0 ? 'secrets' : 'heuristic';
    const base = {
      rule: row.rule,
      file: row.file,
      kind: row.kind ?? row.rule,
      label: row.label,
      judged,
      redactions: findings.length,
      rules: [...new Set(findings.map((f) => f.rule))],
      credential,
      configDependent,
    };
    if (row.label === 'clean') {
      const redacted = findings
        .filter((f) => f.start !== undefined && f.end !== undefined)
        .map((f) => maskClean(row.text.slice(f.start, f.end)));
      return { ...base, pass: findings.length === 0, survivors: [], redacted };
    }
    const survivors =
      judged === 'secrets'
        ? row.secrets!.filter((s) => text.includes(s)).map((s) => `secret ${mask(s)}`)
        : candidates(row.text)
            .filter((c) => text.includes(c.needle))
            .map((c) => `${c.kind} ${mask(c.value)}`);
    return { ...base, pass: findings.length > 0 && survivors.length === 0, survivors, redacted: [] };
  });
  const secret = results.filter((r) => r.label === 'secret');
  const credential = secret.filter((r) => r.credential);
  const clean = results.filter((r) => r.label === 'clean' && !r.configDependent);
  const config = results.filter((r) => r.configDependent);
  return {
    secretRows: secret.length,
    secretPassed: secret.filter((r) => r.pass).length,
    credentialRows: credential.length,
    credentialPassed: credential.filter((r) => r.pass).length,
    cleanRows: clean.length,
    cleanFlagged: clean.filter((r) => !r.pass).length,
    configRows: config.length,
    configFlagged: config.filter((r) => r.redactions > 0).length,
    kinds: byKind(results),
    rows: results,
  };
}

function byKind(results: readonly RowResult[]): KindResult[] {
  const kinds = new Map<string, KindResult>();
  for (const r of results) {
    const key = `${r.label}\0${r.kind}`;
    const k = kinds.get(key) ?? { kind: r.kind, label: r.label, rows: 0, passed: 0 };
    k.rows++;
    if (r.pass) k.passed++;
    kinds.set(key, k);
  }
  return [...kinds.values()].sort(
    (a, b) =>
      a.passed / a.rows - b.passed / b.rows ||
      b.rows - b.passed - (a.rows - a.passed) ||
      a.label.localeCompare(b.label) ||
      a.kind.localeCompare(b.kind),
  );
}

/** Secret rows not fully redacted, in percent (the `sanitize.miss-rate` bench row). */
export function missRate(e: SecretsEval): number {
  return e.secretRows === 0 ? Number.NaN : (100 * (e.secretRows - e.secretPassed)) / e.secretRows;
}

/** Clean rows with any redaction, in percent (the `sanitize.false-positive-rate` bench row). */
export function falsePositiveRate(e: SecretsEval): number {
  return e.cleanRows === 0 ? Number.NaN : (100 * e.cleanFlagged) / e.cleanRows;
}

const pct = (n: number, d: number): string => (d === 0 ? 'n/a' : `${((100 * n) / d).toFixed(1)}%`);

export function renderEval(e: SecretsEval, source: string, verbose: boolean): string {
  const lines = [
    `secrets corpus: ${source}`,
    `recall (secret rows, value gone from the output): ${e.secretPassed}/${e.secretRows} = ${pct(e.secretPassed, e.secretRows)}`,
    // Only when some rows hold no credential or depend on their config (the secretlint corpus); otherwise it repeats the line above.
    ...(e.credentialRows === e.secretRows
      ? []
      : [
          `recall on credential rows (without ${NON_CREDENTIAL_RULES.join(', ')} and the config-dependent rows): ${e.credentialPassed}/${e.credentialRows} = ${pct(e.credentialPassed, e.credentialRows)}`,
        ]),
    `false positives (clean rows with any redaction${e.configRows > 0 ? ', config-dependent rows apart' : ''}): ${e.cleanFlagged}/${e.cleanRows} = ${pct(e.cleanFlagged, e.cleanRows)}`,
  ];
  if (e.configRows > 0)
    lines.push(
      `rows labelled only under their own secretlint config (allow-lists, disabled options, pattern rules): ${e.configRows}, ${e.configFlagged} of them redacted`,
    );
  const listed = e.rows.filter((r) => r.label === 'secret' && r.judged === 'secrets').length;
  if (listed > 0)
    lines.push(
      `(${listed} of ${e.secretRows} secret rows judged by their listed secrets, the rest by the candidate heuristic)`,
    );
  if (e.kinds.length > 0) {
    const width = Math.max(4, ...e.kinds.map((k) => k.kind.length));
    lines.push(
      '',
      `per kind, worst first (${e.kinds.length} kinds):`,
      `  ${'label'.padEnd(6)} ${'kind'.padEnd(width)}  rows  passed      %`,
    );
    for (const k of e.kinds)
      lines.push(
        `  ${k.label.padEnd(6)} ${k.kind.padEnd(width)}  ${String(k.rows).padStart(4)}  ${String(k.passed).padStart(6)}  ${pct(k.passed, k.rows).padStart(6)}`,
      );
  }
  const shown = e.rows.filter((r) => verbose || !r.pass);
  if (shown.length > 0) lines.push('', verbose ? 'rows:' : 'rows that did not pass:');
  for (const r of shown) {
    const flagged =
      r.redacted.length > 0
        ? `redacted by ${r.rules.join(', ')}: ${r.redacted.join(', ')}`
        : `redacted by ${r.rules.join(', ')}`;
    const what =
      r.label === 'secret'
        ? r.redactions === 0
          ? 'nothing redacted'
          : `survived: ${r.survivors.join(', ')}`
        : r.pass
          ? 'nothing redacted'
          : flagged;
    const verdict = r.configDependent ? 'cfg ' : r.pass ? 'ok  ' : 'FAIL';
    lines.push(
      `  ${verdict}  ${r.label.padEnd(6)} ${r.rule} / ${r.file}: ${r.pass && r.label === 'secret' ? r.rules.join(', ') : what}`,
    );
  }
  return lines.join('\n');
}

/** First 3 characters and the length: enough to find the row, not enough to use the value. */
function mask(value: string): string {
  return `${value.slice(0, 3)}…(${value.length})`;
}

/** What was redacted in a clean row (no credential by its label): the first 6 characters and the length. */
function maskClean(value: string): string {
  return `${JSON.stringify(value.slice(0, 6)).slice(1, -1)}…(${value.length})`;
}

interface Candidate {
  kind: 'token' | 'url-password' | 'key-value';
  value: string;
  /** The text that must not appear in the output. */
  needle: string;
}

let re2: typeof RE2 | undefined;
function rx(source: string): InstanceType<typeof RE2> {
  re2 ??= createRequire(typeof __filename === 'string' ? __filename : import.meta.url)('re2') as typeof RE2;
  return new re2(source, 'g');
}

const TOKEN = String.raw`[A-Za-z0-9+_\-]{16,}={0,2}`;
const URL_USERINFO = String.raw`[A-Za-z][A-Za-z0-9+.\-]*://[^\s:/?#@"'<>]+:([^\s/?#"'<>]+)@`;
const KEY_VALUE = String.raw`(?i)([A-Za-z0-9_.\-]*(?:password|passwd|pwd|pass|secret|token|key))["']?\s*(?::=|=>|=|:)\s*["']?([^\s"',;]{3,})`;

function candidates(text: string): Candidate[] {
  const out: Candidate[] = [];
  for (const m of matches(TOKEN, text)) {
    const t = m[0];
    const before = text.charCodeAt(m.index - 1);
    if (
      before === 0x40 /* @ */ ||
      before === 0x2f /* / */ ||
      before === 0x2e /* . */ ||
      t.startsWith('-') ||
      isLowerIdentifier(t)
    )
      continue;
    const lower = has(t, 0x61, 0x7a);
    const upper = has(t, 0x41, 0x5a);
    const digit = has(t, 0x30, 0x39);
    const letter = lower || upper;
    const cases = lower && upper;
    if ((letter && digit) || (t.length >= 24 && cases)) out.push({ kind: 'token', value: t, needle: t });
  }
  for (const m of matches(URL_USERINFO, text)) {
    const password = m[1]!;
    if (!password.startsWith('$') && !password.startsWith('{'))
      out.push({ kind: 'url-password', value: password, needle: `:${password}@` });
  }
  for (const m of matches(KEY_VALUE, text)) {
    const value = m[2]!;
    if (value.startsWith('$') || value.startsWith('{') || value.startsWith('<') || isDocPlaceholder(value)) continue;
    out.push({ kind: 'key-value', value, needle: m[0] });
  }
  return out;
}

/** What documentation writes where a value goes: `your_password`, `YOUR_API_KEY`, `REPLACE_WITH_…`, `myPassword`. */
function isDocPlaceholder(value: string): boolean {
  const lower = value.toLowerCase();
  return (
    lower.startsWith('your_') ||
    lower.startsWith('your-') ||
    lower.startsWith('replace') ||
    ['password', 'mypassword', 'yourpassword'].includes(lower)
  );
}

/** No upper case, and every `_` / `-` separated segment is short: a host name or identifier, not a token. */
function isLowerIdentifier(token: string): boolean {
  if (has(token, 0x41, 0x5a)) return false;
  let segment = 0;
  for (let i = 0; i < token.length; i++) {
    const c = token.charCodeAt(i);
    segment = c === 0x5f || c === 0x2d ? 0 : segment + 1;
    if (segment > 10) return false;
  }
  return true;
}

function has(text: string, from: number, to: number): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= from && c <= to) return true;
  }
  return false;
}

function matches(source: string, text: string): RegExpExecArray[] {
  const re = rx(source);
  const out: RegExpExecArray[] = [];
  for (let m = re.exec(text); m !== null; m = re.exec(text)) out.push(m);
  return out;
}
