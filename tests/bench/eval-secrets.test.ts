/**
 * bench/eval-secrets.ts with fake sanitizers: a secret row that lists its `secrets` is judged by exactly those
 * substrings (all gone, at least one redaction), a row without them by the candidate heuristic as before; clean
 * rows fail on any redaction; figures are broken down per kind; nothing printed holds a listed secret.
 */
import { describe, expect, it } from 'vitest';
import {
  builtinCorpus,
  evaluateSecrets,
  falsePositiveRate,
  missRate,
  parseCorpus,
  renderEval,
  type CorpusRow,
  type SanitizeLike,
} from '../../bench/eval-secrets.js';
import { rnd } from '../sanitize/fakes.js';

/** A sanitizer that redacts every occurrence of the given strings, reporting each as a finding with its span. */
function redacting(...values: string[]): SanitizeLike {
  return (text) => {
    const spans: { rule: string; start: number; end: number }[] = [];
    for (const v of values)
      for (let i = text.indexOf(v); i >= 0; i = text.indexOf(v, i + 1))
        spans.push({ rule: 'fake', start: i, end: i + v.length });
    spans.sort((a, b) => a.start - b.start);
    let out = '';
    let at = 0;
    for (const s of spans) {
      if (s.start < at) continue;
      out += `${text.slice(at, s.start)}<REDACTED>`;
      at = s.end;
    }
    return { text: out + text.slice(at), findings: spans };
  };
}

const password = `${rnd(6, 'letters')}#${rnd(8)}`;
const [left, right] = password.split('#') as [string, string];
const token = rnd(40);
const gh = `ghp_${rnd(36)}`;

const urlRow: CorpusRow = {
  text: `psql 'postgres://admin:${password}@db/app'`,
  label: 'secret',
  rule: 'url-password',
  file: '#1',
  kind: 'url-password',
  secrets: [password, left, right],
};
const tokenRow: CorpusRow = {
  text: `export API_TOKEN=${token}`,
  label: 'secret',
  rule: 'env',
  file: '#1',
  kind: 'env-secret-assignment',
  secrets: [token],
};
const cleanRow: CorpusRow = {
  text: `git show ${rnd(40, 'hex')}`,
  label: 'clean',
  rule: 'git-sha',
  file: '#1',
  kind: 'git-sha',
  secrets: [],
};

describe('evaluateSecrets: rows that list their secrets', () => {
  it('passes a row when every listed secret is gone and something was redacted', () => {
    const e = evaluateSecrets([urlRow, tokenRow], redacting(password, token));
    expect(e.rows.map((r) => [r.judged, r.pass])).toEqual([
      ['secrets', true],
      ['secrets', true],
    ]);
    expect(e.secretPassed).toBe(2);
  });

  it('fails a row when a listed secret survives, even if something else was redacted, and reports it masked', () => {
    const e = evaluateSecrets([tokenRow], redacting('API_TOKEN'));
    const [r] = e.rows;
    expect(r).toMatchObject({
      pass: false,
      redactions: 1,
      survivors: [`secret ${token.slice(0, 3)}…(${token.length})`],
    });
    expect(JSON.stringify(e)).not.toContain(token);
  });

  it('fails a password cut short at a # (the piece after it survives)', () => {
    const e = evaluateSecrets([urlRow], redacting(`${left}#`));
    expect(e.rows[0]).toMatchObject({ pass: false, survivors: [`secret ${right.slice(0, 3)}…(${right.length})`] });
  });

  it('fails a row when nothing was redacted', () => {
    const e = evaluateSecrets([tokenRow], redacting());
    expect(e.rows[0]).toMatchObject({ pass: false, redactions: 0 });
    expect(renderEval(e, 'test', false)).toContain('env / #1: nothing redacted');
  });

  it('judges a secret row without a list by the heuristic, as before', () => {
    const row: CorpusRow = { text: `token = ${gh}`, label: 'secret', rule: 'secretlint-rule-github', file: 'ng.a' };
    expect(evaluateSecrets([row], redacting()).rows[0]).toMatchObject({ judged: 'heuristic', pass: false });
    expect(evaluateSecrets([row], redacting(gh)).rows[0]).toMatchObject({
      judged: 'heuristic',
      pass: true,
      kind: 'secretlint-rule-github',
    });
    expect(evaluateSecrets([row], redacting('token')).rows[0]).toMatchObject({
      pass: false,
      survivors: ['token ghp…(40)'],
    });
  });

  it('flags a clean row on any redaction and shows what was redacted, shortened', () => {
    const e = evaluateSecrets([cleanRow], redacting(cleanRow.text.slice(9)));
    expect(e.cleanFlagged).toBe(1);
    expect(e.rows[0]!.redacted).toEqual([`${cleanRow.text.slice(9, 15)}…(40)`]);
    expect(evaluateSecrets([cleanRow], redacting()).cleanFlagged).toBe(0);
  });
});

describe('evaluateSecrets: per kind and rates', () => {
  const rows = [urlRow, { ...urlRow, file: '#2' }, tokenRow, cleanRow, { ...cleanRow, file: '#2', text: 'ls -la' }];
  const e = evaluateSecrets(rows, redacting(token, cleanRow.text.slice(9)));

  it('counts rows and passes per kind and label, worst first', () => {
    expect(e.kinds).toEqual([
      { kind: 'url-password', label: 'secret', rows: 2, passed: 0 },
      { kind: 'git-sha', label: 'clean', rows: 2, passed: 1 },
      { kind: 'env-secret-assignment', label: 'secret', rows: 1, passed: 1 },
    ]);
    const text = renderEval(e, 'test', false);
    expect(text).toMatch(/per kind, worst first \(3 kinds\):/);
    expect(text).toMatch(/secret url-password\s+2\s+0\s+0\.0%/);
    expect(text).toMatch(/clean {2}git-sha\s+2\s+1\s+50\.0%/);
  });

  it('gives the miss rate over secret rows and the false-positive rate over clean rows, in percent', () => {
    expect(missRate(e)).toBeCloseTo((100 * 2) / 3);
    expect(falsePositiveRate(e)).toBe(50);
    expect(Number.isNaN(missRate(evaluateSecrets([], redacting())))).toBe(true);
  });

  it('never prints a listed secret, verbose or not', () => {
    for (const verbose of [false, true]) {
      const text = renderEval(e, 'test', verbose);
      for (const s of [password, left, right, token]) expect(text).not.toContain(s);
    }
  });
});

describe('parseCorpus with kinds and secrets', () => {
  const line = (row: object): string => JSON.stringify(row);

  it('reads "kind" and "secrets" when present and leaves them out otherwise', () => {
    const rows = parseCorpus(
      [
        line({ text: 'a x1', label: 'secret', kind: 'k', secrets: ['x1'] }),
        line({ text: 'b', label: 'clean', rule: 'r', file: 'f' }),
      ].join('\n'),
      'c.jsonl',
    );
    expect(rows).toEqual([
      { text: 'a x1', label: 'secret', rule: '', file: 'line 1', kind: 'k', secrets: ['x1'] },
      { text: 'b', label: 'clean', rule: 'r', file: 'f' },
    ]);
  });

  it('rejects malformed secret lists', () => {
    expect(() => parseCorpus(line({ text: 'a', label: 'secret', secrets: 'a' }), 'c.jsonl')).toThrow(
      /c\.jsonl:1: "secrets" must be an array/,
    );
    expect(() => parseCorpus(line({ text: 'a', label: 'secret', secrets: [''] }), 'c.jsonl')).toThrow(
      /non-empty strings/,
    );
    expect(() => parseCorpus(line({ text: 'a', label: 'secret', secrets: [] }), 'c.jsonl')).toThrow(/lists nothing/);
    expect(() => parseCorpus(line({ text: 'a', label: 'clean', secrets: ['a'] }), 'c.jsonl')).toThrow(
      /a clean row lists secrets/,
    );
  });
});

describe('builtinCorpus', () => {
  it('is the generated corpus as evaluator rows: kind as rule, numbered within the kind, secrets listed', () => {
    const rows = builtinCorpus();
    expect(rows.length).toBeGreaterThanOrEqual(600);
    expect(rows.every((r) => r.rule === r.kind && /^#\d+$/.test(r.file))).toBe(true);
    expect(rows.filter((r) => r.label === 'secret').every((r) => (r.secrets?.length ?? 0) > 0)).toBe(true);
    expect(
      rows
        .filter((r) => r.kind === rows[0]!.kind)
        .map((r) => r.file)
        .slice(0, 2),
    ).toEqual(['#1', '#2']);
  });

  it('with a sanitizer that redacts exactly the listed secrets: no miss; with one that redacts nothing: every secret row missed', () => {
    const rows = builtinCorpus();
    const all = [...new Set(rows.flatMap((r) => r.secrets ?? []))].sort((a, b) => b.length - a.length);
    const perfect = evaluateSecrets(rows, redacting(...all));
    expect(missRate(perfect)).toBe(0);
    expect(falsePositiveRate(perfect)).toBe(0);
    expect(missRate(evaluateSecrets(rows, redacting()))).toBe(100);
  });
});
