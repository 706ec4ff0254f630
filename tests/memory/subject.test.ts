import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_STDIN_TEXT, MAX_SUBJECT } from '../../src/memory/subject.js';
import { makeProject } from '../support/project.js';
import { subjectFor } from '../support/memory.js';
import { CODE_PAIRS } from './code-pairs.js';

const bash = (command: string): Record<string, unknown> => ({ command });

describe('the subject (what the exact key is computed from)', () => {
  it('covers the stdin data a command reads: a heredoc body is part of the key', async () => {
    const p = makeProject();
    const select = await subjectFor(p, 'Bash', bash('psql -h db.internal app <<SQL\nSELECT 1;\nSQL'));
    const drop = await subjectFor(p, 'Bash', bash('psql -h db.internal app <<SQL\nDROP TABLE users;\nSQL'));
    expect(select.subject.text).toBe("psql -h db.internal app << SQL [stdin $'SELECT 1;\\n']");
    expect(drop.key).not.toBe(select.key);
    // The delimiter is spelling, not code.
    expect((await subjectFor(p, 'Bash', bash("psql -h db.internal app <<'END'\nSELECT 1;\nEND"))).subject.text).toBe(
      "psql -h db.internal app << END [stdin $'SELECT 1;\\n']",
    );
  });

  it('names where a command runs when not here: a container (`[in db]`), or a host reached by ssh', async () => {
    const p = makeProject();
    const inside = await subjectFor(p, 'Bash', bash("docker exec -i db psql -c 'SELECT 1'"));
    expect(inside.subject.text).toBe("docker exec -i db | [in db] docker exec psql -c 'SELECT 1'");
    const ssh = await subjectFor(p, 'Bash', bash('ssh db \'psql -c "SELECT 1"\''));
    expect(ssh.subject.text).toBe("ssh db ; [shell-string] [ssh db] ssh psql -c 'SELECT 1'");
  });

  it('covers the SQL files a client reads: another content is another key and another command for similarity', async () => {
    const p = makeProject();
    p.write('report.sql', 'SELECT 1;\n');
    const select = await subjectFor(p, 'Bash', bash('psql app -f report.sql'));
    expect(select.subject.text).toMatch(/^psql app -f report\.sql \[sql-files xxh3:[0-9a-f]{16}\]$/);
    p.write('report.sql', 'UPDATE accounts SET balance = 0 WHERE id = 7;\n');
    const update = await subjectFor(p, 'Bash', bash('psql app -f report.sql'));
    expect(update.key).not.toBe(select.key);
    expect(update.subject.commands).not.toEqual(select.subject.commands);
    // The same content is the same key.
    p.write('report.sql', 'SELECT 1;\n');
    expect((await subjectFor(p, 'Bash', bash('psql app -f report.sql'))).key).toBe(select.key);
  });

  it.each(CODE_PAIRS)('$kind: other code is another key', async ({ benign, other }) => {
    const p = makeProject();
    const a = await subjectFor(p, 'Bash', bash(benign));
    const b = await subjectFor(p, 'Bash', bash(other));
    expect(b.key).not.toBe(a.key);
    expect(b.subject.commands).not.toEqual(a.subject.commands);
  });

  it('after a `cd` hookwise cannot follow, only the exact call is remembered: no file there has a place', async () => {
    const p = makeProject();
    // `cat notes` ~ `cat credentials` would be a swap of one plain word for another, in a directory nobody knows.
    expect((await subjectFor(p, 'Bash', bash('cd "$D" && cat notes'))).subject.similar).toBe(false);
    expect((await subjectFor(p, 'Bash', bash('cd - && head -n 5 a.yml'))).subject.similar).toBe(false);
    expect((await subjectFor(p, 'Bash', bash('cd src && cat notes'))).subject.similar).toBe(true);
  });

  it('a here-string is in the key once: its redirect already spells it', async () => {
    const p = makeProject();
    expect((await subjectFor(p, 'Bash', bash("psql app <<< 'SELECT 1'"))).subject.text).toBe("psql app <<< 'SELECT 1'");
  });

  it('stays bounded: a long body joins as the digest of its sanitized text', async () => {
    const p = makeProject();
    const rows = (n: number): string =>
      Array.from({ length: 2000 }, (_, i) => `INSERT INTO t VALUES (${i}, ${n});`).join('\n');
    const a = await subjectFor(p, 'Bash', bash(`psql app <<SQL\n${rows(1)}\nSQL`));
    const b = await subjectFor(p, 'Bash', bash(`psql app <<SQL\n${rows(2)}\nSQL`));
    expect(a.subject.text).toMatch(/^psql app << SQL \[stdin xxh3:[0-9a-f]{16}\]$/);
    expect(a.subject.text.length).toBeLessThan(MAX_SUBJECT);
    expect(b.key).not.toBe(a.key);
    const short = await subjectFor(p, 'Bash', bash(`cat <<EOF\n${'x'.repeat(MAX_STDIN_TEXT - 10)}\nEOF`));
    expect(short.subject.text).toContain('[stdin $');
  });

  it('a secret in stdin data reaches neither the key nor the store: it is sanitized before it is quoted or digested', async () => {
    const p = makeProject();
    const secretA = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';
    const secretB = 'ghp_' + 'Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2';
    const short = (s: string): string => `psql app <<SQL\nUPDATE tokens SET value = '${s}';\nSQL`;
    const a = await subjectFor(p, 'Bash', bash(short(secretA)));
    expect(a.subject.text).toContain('<REDACTED>');
    expect(JSON.stringify(a.subject)).not.toContain(secretA);
    // Calls that differ only in a secret share a key (as everywhere in memory).
    expect((await subjectFor(p, 'Bash', bash(short(secretB)))).key).toBe(a.key);
    // A long body: the digest is of the sanitized text, so it is the same for both secrets.
    const long = (s: string): string =>
      `psql app <<SQL\n${'SELECT 1;\n'.repeat(100)}UPDATE tokens SET value = '${s}';\nSQL`;
    const la = await subjectFor(p, 'Bash', bash(long(secretA)));
    expect(la.subject.text).toMatch(/\[stdin xxh3:[0-9a-f]{16}\]$/);
    expect((await subjectFor(p, 'Bash', bash(long(secretB)))).key).toBe(la.key);
  });

  it('a secret in a heredoc approved at the prompt reaches neither the pending note nor the store', async () => {
    const p = makeProject();
    p.register('s1', 'coder');
    const secret = 'sk_live_' + '51HqLyjWDarjtT1zdp7dc9Zq8w3R4y6T';
    const command = `psql app <<SQL\nUPDATE billing SET key = '${secret}';\nSQL`;
    const pre = { ...p.pre('Bash', bash(command)), tool_use_id: 'toolu_s' };
    expect((await p.check(pre)).decision).toMatchObject({ verdict: 'ask', tier: 'default' });
    await p.check({ ...pre, hook_event_name: 'PostToolUse', tool_response: {} });
    const stored = readFileSync(join(p.configDir, 'user', 'rules.jsonl'), 'utf8');
    expect(stored).toContain('<REDACTED>');
    expect(stored).not.toContain(secret);
    expect((await p.check({ ...pre, tool_use_id: 'toolu_t' })).decision).toMatchObject({
      verdict: 'allow',
      tier: 'exact-cache',
    });
  });

  it('override patterns still see the segment as written (the data is the key’s, not the pattern’s)', async () => {
    const p = makeProject();
    expect((await subjectFor(p, 'Bash', bash('psql app <<SQL\nSELECT 1;\nSQL'))).subject.segments).toEqual([
      'psql app << SQL',
    ]);
  });
});
