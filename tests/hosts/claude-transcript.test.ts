import { chmodSync, mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readClaudeTranscript, transcriptDirs } from '../../src/hosts/claude-transcript.js';
import { removeTestTree } from '../support/remove-tree.js';

const SESSION = '0b3f5a52-7d1e-4c55-9a40-1d2c3b4a5f60';
const bases: string[] = [];
afterAll(() => bases.forEach((b) => removeTestTree(b)));

function dir(): string {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'hookwise-transcript-')));
  bases.push(base);
  return base;
}

/** Transcript lines as Claude Code 2.1.330 writes them (the fields we read, and some we do not). */
const use = (id: string, name: string): string =>
  JSON.stringify({
    type: 'assistant',
    message: { role: 'assistant', content: [{ type: 'tool_use', id, name, input: {} }] },
  });
const result = (id: string, content: unknown, isError?: boolean): string =>
  JSON.stringify({
    type: 'user',
    message: {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: id, content, ...(isError === undefined ? {} : { is_error: isError }) },
      ],
    },
  });
const noise = JSON.stringify({ type: 'attachment', attachment: { kind: 'x', text: 'not a tool line' } });

function transcript(lines: string[], where = dir(), session = SESSION): string {
  const file = join(where, `${session}.jsonl`);
  writeFileSync(file, `${lines.join('\n')}\n`, { mode: 0o600 });
  return file;
}

describe('reading what became of tool calls from a Claude Code transcript', () => {
  it('finds each call’s tool and its result; an error result and a result without the flag are told apart', () => {
    const file = transcript([
      noise,
      use('toolu_a', 'Bash'),
      result('toolu_a', 'ASKME1', false),
      use('toolu_b', 'Bash'),
      result('toolu_b', 'Error: no thanks', true),
      use('toolu_c', 'Write'),
      result('toolu_c', [{ type: 'text', text: 'File created successfully' }]),
      noise,
    ]);
    const read = readClaudeTranscript(file, SESSION);
    expect(read.kind).toBe('read');
    if (read.kind !== 'read') return;
    expect(read.reading.toolUses.get('toolu_a')).toEqual(['Bash']);
    expect(read.reading.results.get('toolu_a')).toEqual([{ toolUseId: 'toolu_a', isError: false, text: 'ASKME1' }]);
    expect(read.reading.results.get('toolu_b')?.[0]?.isError).toBe(true);
    expect(read.reading.results.get('toolu_c')).toEqual([
      { toolUseId: 'toolu_c', isError: false, text: 'File created successfully' },
    ]);
    expect(read.reading.last?.toolUseId).toBe('toolu_c');
  });

  it('keeps both results of an id answered twice (the caller trusts neither), skips lines it cannot read', () => {
    const file = transcript([
      use('toolu_a', 'Bash'),
      result('toolu_a', 'Error: no thanks', true),
      '{"type":"user","message":{"content":[{"type":"tool_result",', // cut
      'not json at all "tool_result"',
      JSON.stringify({ type: 'user', message: { content: 'tool_result as text' } }),
      // A tool_use inside a user line and a result inside an assistant line are not what the host writes.
      JSON.stringify({ type: 'user', message: { content: [{ type: 'tool_use', id: 'toolu_x', name: 'Bash' }] } }),
      JSON.stringify({ type: 'assistant', message: { content: [{ type: 'tool_result', tool_use_id: 'toolu_a' }] } }),
      result('toolu_a', 'ok', false),
    ]);
    const read = readClaudeTranscript(file, SESSION);
    if (read.kind !== 'read') throw new Error(read.why);
    expect(read.reading.results.get('toolu_a')?.map((r) => r.isError)).toEqual([true, false]);
    expect(read.reading.toolUses.has('toolu_x')).toBe(false);
    expect(read.reading.results.size).toBe(1);
  });

  it('an is_error flag that is neither true, false nor absent counts as an error', () => {
    const line = JSON.stringify({
      type: 'user',
      message: { content: [{ type: 'tool_result', tool_use_id: 'toolu_a', content: 'x', is_error: 'no' }] },
    });
    const read = readClaudeTranscript(transcript([use('toolu_a', 'Bash'), line]), SESSION);
    if (read.kind !== 'read') throw new Error(read.why);
    expect(read.reading.results.get('toolu_a')?.[0]?.isError).toBe(true);
  });

  it('reads only the end of the file (bytes): a result further back is not found; a cut first line is dropped', () => {
    const filler = Array.from({ length: 200 }, () => noise);
    const file = transcript([
      use('toolu_old', 'Bash'),
      result('toolu_old', 'old', false),
      ...filler,
      use('toolu_new', 'Bash'),
      result('toolu_new', 'new', false),
    ]);
    const read = readClaudeTranscript(file, SESSION, 4096);
    if (read.kind !== 'read') throw new Error(read.why);
    expect([...read.reading.results.keys()]).toEqual(['toolu_new']);
  });

  it.each([
    [
      'another session’s file name',
      () => transcript([result('toolu_a', 'ok', false)], dir(), 'another-session'),
      /not named for this session/,
    ],
    ['a relative path', () => `${SESSION}.jsonl`, /not absolute/],
  ])('refuses %s', (_what, pathOf, why) => {
    const read = readClaudeTranscript(pathOf(), SESSION);
    expect(read).toMatchObject({ kind: 'refused', why: expect.stringMatching(why) });
  });

  it('refuses a link (to the file, or on the way), a file others may write, and a missing file', () => {
    const real = transcript([use('toolu_a', 'Bash'), result('toolu_a', 'ok', false)]);
    const links = dir();
    symlinkSync(real, join(links, `${SESSION}.jsonl`));
    expect(readClaudeTranscript(join(links, `${SESSION}.jsonl`), SESSION).kind).toBe('refused');
    const parent = dir();
    mkdirSync(join(parent, 'real'));
    const inside = transcript([result('toolu_a', 'ok', false)], join(parent, 'real'));
    symlinkSync(join(parent, 'real'), join(parent, 'via'));
    expect(inside.startsWith(join(parent, 'real'))).toBe(true);
    expect(readClaudeTranscript(join(parent, 'via', `${SESSION}.jsonl`), SESSION)).toMatchObject({
      kind: 'refused',
      why: expect.stringMatching(/link/),
    });
    const shared = transcript([result('toolu_a', 'ok', false)]);
    chmodSync(shared, 0o666);
    expect(readClaudeTranscript(shared, SESSION)).toMatchObject({
      kind: 'refused',
      why: expect.stringMatching(/writable by others/),
    });
    expect(readClaudeTranscript(join(dir(), `${SESSION}.jsonl`), SESSION).kind).toBe('refused');
  });
});

describe('where the host keeps its transcripts (transcriptDirs)', () => {
  it.each<[string, string | undefined, string | undefined, string[]]>([
    ['no transcript, no CLAUDE_CONFIG_DIR: the default', undefined, undefined, ['/h/.claude']],
    [
      'Claude Code’s layout: its directory and the config directory above it',
      '/cfg/projects/-work-app/s.jsonl',
      undefined,
      ['/h/.claude', '/cfg/projects/-work-app', '/cfg'],
    ],
    ['another layout: its directory only', '/var/t/s.jsonl', undefined, ['/h/.claude', '/var/t']],
    ['CLAUDE_CONFIG_DIR', undefined, '/opt/claude', ['/h/.claude', '/opt/claude']],
    ['a relative path names nothing', 'projects/x/s.jsonl', 'rel', ['/h/.claude']],
  ])('%s', (_what, transcript, configDir, expected) => {
    expect(transcriptDirs(transcript, '/h', configDir)).toEqual(expected);
  });
});
