import { appendFileSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendAudit, AuditGroupCommit, auditPath, readAudit, type AuditRecord } from '../../src/audit/log.js';
import { ensurePrivateDir } from '../../src/util/fs-safe.js';
import { sanitize, type Sanitized } from '../../src/sanitize/index.js';
import { makeProject } from '../support/project.js';

const record = (i: number): AuditRecord => ({
  ts: new Date(0).toISOString(),
  session: sanitize(`s${i}`).text,
  role: 'coder',
  host: 'claude',
  tool: sanitize('Write').text,
  verdict: 'allow',
  tier: 'path-policy',
  rule: 'r',
  latency_ms: 1,
  paths: [sanitize('/p/a').text],
  input: sanitize('write /p/a').text,
  secrets: 0,
  input_hash: '0',
});

describe('audit log', () => {
  it("records one line per decision: the sanitized command, a file tool's change and path, never content", async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    const token = 'ghp_' + 'x9Kq2'.repeat(7) + 'a';
    await p.check(p.pre('Write', { file_path: join(p.root, 'src/a.ts'), content: 'CONTENT-IS-NEVER-STORED' }));
    await p.check(p.pre('Bash', { command: `curl -H "Authorization: token ${token}" https://api.github.com` }));
    const text = readFileSync(auditPath(p.runtimeDir), 'utf8');
    expect(text).not.toMatch(/CONTENT-IS-NEVER-STORED/);
    expect(text).not.toContain(token);
    const { records } = readAudit(p.runtimeDir);
    expect(records.map((r) => [r.tool, r.verdict, r.tier, r.role])).toEqual([
      ['Write', 'allow', 'path-policy', 'coder'],
      ['Bash', 'ask', 'default', 'coder'],
    ]);
    expect(records[0]!.input).toBe(`write ${join(p.root, 'src/a.ts')}`);
    expect(records[1]!.input).toMatch(/^curl -H "Authorization: token <REDACTED>" https:\/\/api\.github\.com$/);
    expect(records[1]!.secrets).toBe(1);
    expect(records[0]!.input_hash).toMatch(/^[0-9a-f]{16}$/);
  });

  it('rotates by size and keeps every record across generations', () => {
    const p = makeProject();
    ensurePrivateDir(p.runtimeDir);
    for (let i = 0; i < 200; i++) appendAudit(p.runtimeDir, record(i), { maxBytes: 4096, keep: 50 });
    const { records, problems } = readAudit(p.runtimeDir);
    expect(problems).toEqual([]);
    expect(records.map((r) => r.session)).toEqual(Array.from({ length: 200 }, (_, i) => `s${i}`));
    expect(readFileSync(auditPath(p.runtimeDir, 1), 'utf8').length).toBeGreaterThan(4096);
  });

  it('drops the oldest generation beyond `keep`', () => {
    const p = makeProject();
    ensurePrivateDir(p.runtimeDir);
    for (let i = 0; i < 400; i++) appendAudit(p.runtimeDir, record(i), { maxBytes: 4096, keep: 2 });
    const { records } = readAudit(p.runtimeDir);
    expect(records.length).toBeLessThan(400);
    expect(records.at(-1)!.session).toBe('s399');
  });

  it('a corrupt line is skipped and reported with file:line; the rest is kept', () => {
    const p = makeProject();
    ensurePrivateDir(p.runtimeDir);
    appendAudit(p.runtimeDir, record(1), { maxBytes: 1e6, keep: 1 });
    appendFileSync(auditPath(p.runtimeDir), '{"torn": \n');
    appendAudit(p.runtimeDir, record(2), { maxBytes: 1e6, keep: 1 });
    const { records, problems } = readAudit(p.runtimeDir);
    expect(records.map((r) => r.session)).toEqual(['s1', 's2']);
    expect(problems).toEqual([expect.stringMatching(/audit\.jsonl:2: skipped unreadable audit line/)]);
  });
});

describe('audit log under faults', () => {
  const limits = { maxBytes: 10 * 1024 * 1024, keep: 2 };

  it('a torn last line (a crash mid-write) does not swallow the next record', () => {
    const dir = ensurePrivateDir(join(makeProject().runtimeDir, 'torn'));
    appendAudit(dir, record(1), limits);
    appendFileSync(auditPath(dir), '{"ts":"2026-01-01T00:00:00.000Z","sess');
    appendAudit(dir, record(2), limits);
    const { records, problems } = readAudit(dir);
    expect(records.map((r) => r.session)).toEqual(['s1', 's2']);
    expect(problems).toHaveLength(1);
  });

  it.each([
    // Under the sanitizer's 1 MiB scan: sanitized, then cut here.
    ['a 900 KB path is cut', 900 * 1024, /more characters\)$/],
    // Past it, one unbroken token is redacted whole by the sanitizer before it gets here.
    ['a 2 MB path is redacted whole', 2 * 1024 * 1024, /^<REDACTED>$/],
  ])('a line stays bounded whatever the call: %s, not copied twice', (_what, length, shown) => {
    const dir = ensurePrivateDir(join(makeProject().runtimeDir, 'long'));
    const huge = `/p/${'a'.repeat(length)}`;
    appendAudit(dir, { ...record(1), paths: [sanitize(huge).text], input: sanitize(`write ${huge}`).text }, limits);
    const size = readFileSync(auditPath(dir)).length;
    expect(size).toBeLessThan(16 * 1024);
    expect(readAudit(dir).records[0]!.paths[0]).toMatch(shown);
  });

  it('a symlink at the audit log is never followed: the record is refused, the target untouched', () => {
    const p = makeProject();
    const dir = ensurePrivateDir(join(p.runtimeDir, 'linked'));
    const victim = join(p.home, '.bashrc');
    writeFileSync(victim, 'original\n');
    symlinkSync(victim, auditPath(dir));
    expect(() => appendAudit(dir, record(1), limits)).toThrow();
    expect(readFileSync(victim, 'utf8')).toBe('original\n');
  });
});

describe('the audit log records what the host was given', () => {
  it("Gemini CLI's ask without a prompt is a deny, and is logged as one", async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    const r = await p.check(
      {
        session_id: 's1',
        cwd: p.root,
        hook_event_name: 'BeforeTool',
        tool_name: 'read_file',
        tool_input: { file_path: join(p.root, '.env.local') },
      },
      'gemini',
    );
    expect(JSON.parse(r.stdout)).toMatchObject({ decision: 'deny' });
    expect(readAudit(p.runtimeDir).records.at(-1)).toMatchObject({ verdict: 'deny', tier: 'path-policy' });
  });
});

describe('group commit (the daemon’s audit sink)', () => {
  const limits = { maxBytes: 1e6, keep: 1 };

  it('writes the lines of one turn in one append, and settles each line’s promise only once it is in the file', async () => {
    const p = makeProject();
    ensurePrivateDir(p.runtimeDir);
    const sink = new AuditGroupCommit();
    const written = [1, 2, 3].map((i) => appendAudit(p.runtimeDir, record(i), limits, sink));
    // Nothing is in the file before the turn ends: an answer sent now would have no record.
    expect(readAudit(p.runtimeDir).records).toEqual([]);
    let settled = false;
    void Promise.all(written).then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    await Promise.all(written);
    expect(readAudit(p.runtimeDir).records.map((r) => r.session)).toEqual(['s1', 's2', 's3']);
    // The next turn starts a new batch.
    await appendAudit(p.runtimeDir, record(4), limits, sink);
    expect(readAudit(p.runtimeDir).records.map((r) => r.session)).toEqual(['s1', 's2', 's3', 's4']);
  });

  it('a batch that cannot be written rejects every line in it (those calls are answered as failures), nothing half-written', async () => {
    const p = makeProject();
    const dir = ensurePrivateDir(join(p.runtimeDir, 'linked'));
    const victim = join(p.home, '.bashrc');
    writeFileSync(victim, 'original\n');
    symlinkSync(victim, auditPath(dir));
    const sink = new AuditGroupCommit();
    const written = [1, 2].map((i) => appendAudit(dir, record(i), limits, sink));
    for (const w of written) await expect(w).rejects.toThrow(/symbolic link/);
    expect(readFileSync(victim, 'utf8')).toBe('original\n');
  });

  it('flush() writes what is pending at once (the daemon stopping)', () => {
    const p = makeProject();
    ensurePrivateDir(p.runtimeDir);
    const sink = new AuditGroupCommit();
    void appendAudit(p.runtimeDir, record(1), limits, sink);
    sink.flush();
    expect(readAudit(p.runtimeDir).records.map((r) => r.session)).toEqual(['s1']);
  });

  it('refuses an unsanitized field before it is queued, as the direct writer does', () => {
    const p = makeProject();
    ensurePrivateDir(p.runtimeDir);
    const sink = new AuditGroupCommit();
    const token = 'ghp_' + 'x9Kq2'.repeat(7) + 'a';
    expect(() =>
      appendAudit(p.runtimeDir, { ...record(1), input: `curl ${token}` as Sanitized }, limits, sink),
    ).toThrow();
    sink.flush();
    expect(readAudit(p.runtimeDir).records).toEqual([]);
  });
});
