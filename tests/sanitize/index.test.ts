/** The sanitizer's entry points: sanitize, the Sanitized brand and its guard, JSON values, structural keys. */
import { describe, expect, it } from 'vitest';
import {
  keptOnPurpose,
  assertSanitized,
  findSecrets,
  redact,
  REDACTED,
  sanitize,
  sanitizedJson,
  sanitizeValue,
  structuralInput,
  type Finding,
  type Sanitized,
} from '../../src/sanitize/index.js';
import { b64, jwt, pemPrivateKey, rnd } from './fakes.js';

const gh = `ghp_${rnd(36)}`;
const password = rnd(14);

describe('sanitize', () => {
  it('keeps key names and redacts values', () => {
    expect(sanitize(`API_KEY=${rnd(24)} ./run`).text).toBe('API_KEY=<REDACTED> ./run');
    expect(sanitize(`psql postgres://app:${password}@db:5432/app`).text).toBe(
      'psql postgres://app:<REDACTED>@db:5432/app',
    );
    expect(sanitize(`curl -H "Authorization: Bearer ${gh}" https://api.github.com`).text).toBe(
      'curl -H "Authorization: Bearer <REDACTED>" https://api.github.com',
    );
  });

  it('reports findings with rule, layer and span in the original text, sorted by start', () => {
    const text = `a=1 GH=${gh} b`;
    const { findings } = sanitize(text);
    expect(findings.length).toBeGreaterThan(0);
    for (const f of findings) expect(text.slice(f.start, f.end)).toContain(gh.slice(4, 10));
    expect([...findings].sort((x, y) => x.start - y.start)).toEqual(findings);
  });

  it('returns text without secrets unchanged', () => {
    const text = 'git log --oneline -n 20 -- src/cli/check.ts | grep -i fix && npm run build';
    expect(sanitize(text)).toEqual({ text, findings: [] });
  });

  it.each([
    ['env exports', `export GITHUB_TOKEN=${gh} OPENAI_API_KEY=sk-proj-${rnd(40, 'b64url')}`], // hookwise:allow
    ['a private key', pemPrivateKey('OPENSSH', 4)],
    ['a JWT in a header', `curl -H "X-Id: ${jwt({ sub: 'x' })}"`],
    ['encoded secrets', `echo ${b64(gh)} | base64 -d`],
    ['JSON with secret fields', JSON.stringify({ password, nested: { token: rnd(30) } })],
    ['plain commands', 'npm test -- --reporter=dot && git push origin main'],
  ])('is idempotent on %s: the output holds nothing to find', (_name, text) => {
    const once = sanitize(text).text;
    expect(findSecrets(once)).toEqual([]);
    expect(sanitize(once).text).toBe(once);
  });
});

describe('redact', () => {
  const f = (start: number, end: number): Finding => ({ rule: 'r', layer: 'pattern', start, end });
  it('replaces the union of overlapping and touching spans with one marker each', () => {
    expect(redact('0123456789', [f(1, 3), f(2, 5), f(5, 6), f(8, 9)])).toBe(`0${REDACTED}67${REDACTED}9`);
  });
});

describe('the Sanitized brand', () => {
  it('cannot be produced from a plain string without sanitize (a type error)', () => {
    // @ts-expect-error a plain string is not Sanitized
    const bad: Sanitized = 'x';
    expect(bad).toBe('x');
    const good: Sanitized = sanitize('x').text;
    expect(good).toBe('x');
  });

  it('a text sanitized again (kept from an earlier call) gets the same answer, whatever the caller did with the first', () => {
    const text = `deploy --token ${gh}`;
    const first = sanitize(text);
    first.findings.length = 0;
    const again = sanitize(text);
    expect(again.text).toBe('deploy --token <REDACTED>');
    expect(again.findings).toHaveLength(1);
    expect(sanitize('git status')).toEqual({ text: 'git status', findings: [] });
    expect(sanitize('git status')).toEqual({ text: 'git status', findings: [] });
  });

  it('assertSanitized refuses a text with a secret also after sanitize() has seen that very text', () => {
    const raw = `t ${gh}`;
    sanitize(raw);
    expect(() => assertSanitized(raw as Sanitized, 'the audit log')).toThrow(/github-token/);
  });

  it('assertSanitized passes sanitized text and refuses a cast that still holds a secret', () => {
    expect(assertSanitized(sanitize(`t=${gh}`).text, 'the audit log')).toBe('t=<REDACTED>');
    expect(() => assertSanitized(`t ${gh}` as Sanitized, 'the audit log')).toThrow(
      /refusing to write to the audit log: .*github-token/,
    );
  });
});

describe('sanitizeValue (tool inputs)', () => {
  it('sanitizes strings in objects and arrays, with JSON-pointer paths', () => {
    const { value, findings } = sanitizeValue({
      command: `curl -H "Authorization: Bearer ${gh}"`,
      args: ['x', `--token=${rnd(24)}`],
      n: 3,
      ok: true,
      none: null,
    });
    expect(value).toEqual({
      command: 'curl -H "Authorization: Bearer <REDACTED>"',
      args: ['x', '--token=<REDACTED>'],
      n: 3,
      ok: true,
      none: null,
    });
    expect(findings.map((x) => x.path)).toEqual(['/command', '/args/1']);
  });

  it('redacts the whole string under a key that names a secret, which the value alone could not show', () => {
    const { value, findings } = sanitizeValue({
      headers: { 'X-Api-Key': 'plainword', Authorization: 'hunter2!' },
      db: { password: 'correct horse battery staple', user: 'app' },
    }); // hookwise:allow
    expect(value).toEqual({
      headers: { 'X-Api-Key': REDACTED, Authorization: REDACTED },
      db: { password: REDACTED, user: 'app' },
    });
    expect(findings.map((x) => `${x.path} ${x.rule}`)).toEqual([
      '/headers/X-Api-Key secret-field',
      '/headers/Authorization secret-field',
      '/db/password secret-field',
    ]);
  });

  it('keeps placeholders under secret keys, and leaves non-secret keys like max_tokens alone', () => {
    expect(sanitizeValue({ password: '${DB_PASSWORD}', max_tokens: 'many', token_count: '12' }).findings).toEqual([]);
  });

  it('sanitizes object keys too', () => {
    const { value, findings } = sanitizeValue({ [gh]: 1 });
    expect(value).toEqual({ [REDACTED]: 1 });
    expect(findings[0]).toMatchObject({ inKey: true, rule: 'github-token' });
  });

  it('replaces values nested deeper than any tool input as a whole', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 80; i++) deep = [deep];
    const { findings } = sanitizeValue(deep);
    expect(findings.some((x) => x.rule === 'too-deep')).toBe(true);
  });

  it('drops non-JSON leaves and maps non-finite numbers to null, as JSON.stringify does', () => {
    expect(sanitizeValue({ f: () => 1, u: undefined, n: Number.NaN }).value).toEqual({ n: null });
  });

  it('sanitizedJson is JSON of the sanitized value', () => {
    const { text } = sanitizedJson({ cmd: `echo ${gh}` });
    expect(JSON.parse(text)).toEqual({ cmd: 'echo <REDACTED>' });
  });
});

describe('structuralInput (file tools judged by path and change, never by content)', () => {
  const content = `const key = "${gh}";\n`;

  it.each([
    ['Write', { file_path: '/p/src/a.ts', content }, {}, 'write'],
    ['Write', { file_path: '/p/src/a.ts', content }, { exists: false }, 'create'],
    ['Write', { file_path: '/p/src/a.ts', content }, { exists: true }, 'overwrite'],
    ['Edit', { file_path: '/p/src/a.ts', old_string: 'a', new_string: content }, {}, 'edit'],
    ['Edit', { file_path: '/p/src/a.ts', old_string: 'a', new_string: content, replace_all: true }, {}, 'edit-all'],
    ['MultiEdit', { file_path: '/p/src/a.ts', edits: [{ old_string: 'a', new_string: content }] }, {}, 'multi-edit'],
    ['NotebookEdit', { notebook_path: '/p/n.ipynb', new_source: content, edit_mode: 'insert' }, {}, 'notebook-insert'],
    ['NotebookEdit', { notebook_path: '/p/n.ipynb', new_source: content }, {}, 'notebook-replace'],
  ] as const)('%s %o %o → %s', (tool, input, options, change) => {
    const s = structuralInput(tool, input, options)!;
    expect(s.key.change).toBe(change);
    expect(JSON.stringify(s.key)).not.toContain(gh);
    expect(Object.keys(s.key).sort()).toEqual(['change', 'path', 'tool']);
    expect(s.contentFindings.length).toBeGreaterThan(0);
    expect(s.contentFindings[0]!.path.startsWith('/')).toBe(true);
  });

  it('reports where in the content the secret was (for refusing to store it)', () => {
    const s = structuralInput('MultiEdit', { file_path: '/p/a', edits: [{ old_string: 'x', new_string: content }] })!;
    expect(s.contentFindings.map((x) => x.path)).toEqual(['/edits/0/new_string']);
  });

  it('returns undefined for tools that are not file edits', () => {
    expect(structuralInput('Bash', { command: 'ls' })).toBeUndefined();
  });
});

describe('keptOnPurpose (what sanitize left in the text on purpose, and why)', () => {
  const exampleId = ['AKIA', 'IOSFODNN7', 'EXAMPLE'].join('');
  it('names each documented example key the findings do not cover, with where it is published', () => {
    const text = `aws_access_key_id=${exampleId} # from the AWS docs`;
    const { findings } = sanitize(text);
    expect(keptOnPurpose(text, findings)).toEqual([
      {
        value: exampleId,
        start: 18,
        end: 38,
        why: expect.stringMatching(/documented example access key id, published at https:\/\/docs\.aws\.amazon\.com\//),
      },
    ]);
  });

  it('says nothing of a value that was redacted, or of one that is part of a longer token', () => {
    const text = `id ${exampleId}`;
    expect(keptOnPurpose(text, [{ rule: 'x', layer: 'pattern', start: 0, end: text.length }])).toEqual([]);
    expect(keptOnPurpose(`${exampleId}X`, [])).toEqual([]);
    expect(keptOnPurpose(`ls ${rnd(20)}`, [])).toEqual([]);
  });
});
