import { describe, expect, it } from 'vitest';
import { compileCatalog } from '../../src/catalog/compile.js';
import {
  CatalogTextDamaged,
  decodeProgram,
  findRow,
  parseIndexHeader,
  rowNames,
  serializeCatalog,
  SPLIT_BYTES,
} from '../../src/catalog/table-codec.js';
import { xxh64BytesHex } from '../../src/util/xxhash.js';

/** A program with `subs` subcommands of `options` options each: large enough to be split at 40 × 40. */
function tool(subs: number, options: number): unknown {
  const commands: Record<string, unknown> = {};
  for (let s = 0; s < subs; s++) {
    const opts: Record<string, string> = {};
    for (let o = 0; o < options; o++) opts[`--option-${o}`] = 'flag';
    commands[`sub${s}`] = { effect: 'reads', options: opts };
  }
  return { program: ['tool', 'tool2'], effect: 'none', commands };
}

function serialized(entry: unknown) {
  const { table, problems } = compileCatalog([{ file: 'tool.yml', data: entry }], [], '\ntool\t--version\n');
  expect(problems).toEqual([]);
  return { table, ...serializeCatalog(table, xxh64BytesHex) };
}

/** The texts of the entries file, by offset. */
function texts(entries: Buffer): (ref: [number, number, string]) => string {
  return ([offset, length]) => entries.subarray(offset, offset + length).toString('utf8');
}

describe('catalogue table codec', () => {
  it('writes an index whose header and rows read back', () => {
    const { table, index, entries } = serialized(tool(2, 2));
    const headerEnd = index.indexOf('\n');
    const header = parseIndexHeader(index.slice(0, headerEnd))!;
    const rows = index.slice(headerEnd);
    expect(header.checksum).toBe(table.checksum);
    expect(header.rowsChecksum).toBe(xxh64BytesHex(Buffer.from(rows)));
    expect(texts(entries)(header.versionForms!)).toBe(table.versionForms);
    expect(rowNames(rows)).toEqual(['tool', 'tool2']);
    expect(findRow(rows, 'tool')).toEqual(findRow(rows, 'tool2'));
    expect(findRow(rows, 'too')).toBeUndefined();
    expect(findRow('\ntool\t1\tx\n', 'tool')).toBe('damaged');
  });

  it('refuses a header of another layout or with a malformed field', () => {
    const { index } = serialized(tool(1, 1));
    const header = index.slice(0, index.indexOf('\n'));
    expect(parseIndexHeader(header)).toBeDefined();
    expect(parseIndexHeader(header.replace('hookwise-catalog\t1', 'hookwise-catalog\t2'))).toBeUndefined();
    expect(parseIndexHeader(`${header}\textra`)).toBeUndefined();
    expect(parseIndexHeader(header.replace(/\t[0-9a-f]{16}\t/, '\tnot-hex\t'))).toBeUndefined();
  });

  it('keeps a small entry whole, and splits a large one into subcommands read on first use', () => {
    const small = serialized(tool(2, 2));
    const read: string[] = [];
    const smallRef = findRow(small.index.slice(small.index.indexOf('\n')), 'tool') as [number, number, string];
    const whole = decodeProgram(texts(small.entries)(smallRef), 'tool', (_ref, what) => {
      read.push(what);
      return '';
    });
    expect(whole).toEqual(small.table.entries[0]);
    expect(read).toEqual([]);

    const large = serialized(tool(40, 40));
    expect(JSON.stringify(large.table.entries[0]).length).toBeGreaterThan(SPLIT_BYTES);
    const ref = findRow(large.index.slice(large.index.indexOf('\n')), 'tool') as [number, number, string];
    expect(ref[1]).toBeLessThan(SPLIT_BYTES);
    const program = decodeProgram(texts(large.entries)(ref), 'tool', (sub, what) => {
      read.push(what);
      return texts(large.entries)(sub);
    });
    expect(program.root.commands.map((c) => c.names[0])).toHaveLength(40);
    expect(read).toEqual([]);
    expect(program.root.commands[3]!.options).toHaveLength(40);
    expect(read).toEqual(['tool sub3']);
    expect(program).toEqual(large.table.entries[0]);
  });

  it('a subcommand text that is not a compiled node throws when first used', () => {
    const large = serialized(tool(40, 40));
    const ref = findRow(large.index.slice(large.index.indexOf('\n')), 'tool') as [number, number, string];
    const program = decodeProgram(texts(large.entries)(ref), 'tool', () => '{"names":[]}');
    expect(program.root.commands[0]!.names).toEqual(['sub0']);
    expect(() => program.root.commands[0]!.options).toThrow(CatalogTextDamaged);
    expect(() => decodeProgram('[1]', 'tool', () => '')).toThrow(/tool's text is not an object/);
    expect(() => decodeProgram('{', 'tool', () => '')).toThrow(/tool's text is not JSON/);
  });
});
