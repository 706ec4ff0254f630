/**
 * The compiled catalogue's on-disk form (dist/catalog/), written by the build and read by table.ts: an index
 * the hot path searches as text, and one JSON text per program, so that a Bash call reads and parses the
 * entries of the programs it names and not the whole catalogue (≈ 0.5 MB, ≈ 1–3 ms to read and parse on a
 * process's first Bash call). Like the grammar table (grammar-codec.ts), every text is one slice of
 * ENTRIES_FILE named by offset, length and XXH64, and the index carries a checksum of its own rows: a
 * damaged, truncated or foreign table is detected, never half-read.
 *
 *   index.tsv      `hookwise-catalog \t FORMAT \t sha256 \t XXH64 of the rows \t version forms (ref or -)`,
 *                  then `program \t offset \t length \t XXH64` per name (aliases repeat their entry's ref), sorted
 *   entries.jsonl  one JSON text per line: a CompiledProgram, a large program's top-level subcommand, or the
 *                  version forms (CatalogTable.versionForms)
 *
 * A large program (git's entry alone is ≈ 90 KB) keeps each top-level subcommand as a text of its own, read
 * when a segment first walks into it: `git status` reads git's root and status, not git log's 200 options.
 */
import type { CatalogTable, CompiledNode, CompiledProgram } from './compile.js';
import { textRef, type TextRef } from './grammar-codec.js';

export const INDEX_FILE = 'index.tsv';
export const ENTRIES_FILE = 'entries.jsonl';
const INDEX_MAGIC = 'hookwise-catalog';

/** Bump when the files' layout changes (CATALOG_FORMAT covers the shape of a CompiledProgram). */
export const TABLE_LAYOUT = 1;

/** An entry whose text is larger than this keeps its top-level subcommands as texts of their own. */
export const SPLIT_BYTES = 8 * 1024;

/** A deferred subcommand in its program's text: its names, and where the rest of it lies. */
interface DeferredWire {
  names: string[];
  x: TextRef;
}

/** Everything of a CompiledNode but its names, read when first used (a deferred subcommand's body). */
export const NODE_BODY_KEYS = [
  'effects',
  'rule',
  'options',
  'optionIndex',
  'commands',
  'commandIndex',
  'args',
  'optionsBeforeArgs',
  'noClusters',
  'shortWords',
  'allOperands',
  'numericOption',
  'mayExpand',
  'responseFiles',
  'fileValues',
  'packageRunner',
  'optionCommands',
  'writesOperands',
  'treeSkips',
] as const satisfies readonly Exclude<keyof CompiledNode, 'names'>[];
// Every key of CompiledNode is named above: a key added to it and not here fails to compile.
type MissingBodyKey = Exclude<keyof CompiledNode, 'names' | (typeof NODE_BODY_KEYS)[number]>;
const everyBodyKey: [MissingBodyKey] extends [never] ? true : MissingBodyKey = true;
void everyBodyKey;

export interface SerializedCatalog {
  /** The index's text. */
  index: string;
  /** The entries' bytes. */
  entries: Buffer;
}

/** The table as dist/catalog/ stores it. `checksum` hashes bytes (XXH64, 16 hex digits). */
export function serializeCatalog(table: CatalogTable, checksum: (bytes: Buffer) => string): SerializedCatalog {
  const chunks: Buffer[] = [];
  let offset = 0;
  const append = (text: string): TextRef => {
    const bytes = Buffer.from(text, 'utf8');
    const ref: TextRef = [offset, bytes.length, checksum(bytes)];
    chunks.push(bytes, Buffer.from('\n'));
    offset += bytes.length + 1;
    return ref;
  };
  const refs = table.entries.map((program) => {
    const whole = JSON.stringify(program);
    if (Buffer.byteLength(whole) <= SPLIT_BYTES || program.root.commands.length === 0) return append(whole);
    const commands = program.root.commands.map((sub): DeferredWire => ({
      names: sub.names,
      x: append(JSON.stringify(sub)),
    }));
    return append(JSON.stringify({ ...program, root: { ...program.root, commands } }));
  });
  const forms = table.versionForms === undefined ? '-' : append(table.versionForms).join(',');
  for (const name of Object.keys(table.programs))
    if (!isProgramName(name)) throw new Error(`the catalogue cannot store the program name ${JSON.stringify(name)}`);
  const rows = Object.entries(table.programs)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, at]) => `\n${name}\t${refs[at]!.join('\t')}`)
    .join('')
    .concat('\n');
  const header = [INDEX_MAGIC, String(TABLE_LAYOUT), table.checksum, checksum(Buffer.from(rows, 'utf8')), forms];
  return { index: `${header.join('\t')}${rows}`, entries: Buffer.concat(chunks) };
}

// Program names come from the agent's command: one with a line break or tab could match across rows.
// eslint-disable-next-line no-control-regex
const NOT_A_NAME = /[\u0000-\u001f\u007f]/;

export function isProgramName(name: string): boolean {
  return name.length > 0 && !NOT_A_NAME.test(name);
}

export interface IndexHeader {
  /** The table's sha256 (CatalogTable.checksum). */
  checksum: string;
  /** XXH64 of the rows: the index's text after the header line, its final line break included. */
  rowsChecksum: string;
  versionForms?: TextRef;
}

/** The header of an index of this layout, or undefined for anything else. */
export function parseIndexHeader(line: string): IndexHeader | undefined {
  const [magic, layout, checksum, rowsChecksum, forms, extra] = line.split('\t');
  if (magic !== INDEX_MAGIC || layout !== String(TABLE_LAYOUT) || extra !== undefined) return undefined;
  if (!/^[0-9a-f]{64}$/.test(checksum ?? '') || !/^[0-9a-f]{16}$/.test(rowsChecksum ?? '')) return undefined;
  if (forms === '-') return { checksum: checksum!, rowsChecksum: rowsChecksum! };
  const ref = refOf(forms?.split(','));
  return ref === undefined ? undefined : { checksum: checksum!, rowsChecksum: rowsChecksum!, versionForms: ref };
}

function refOf(fields: readonly string[] | undefined): TextRef | undefined {
  if (fields?.length !== 3) return undefined;
  return textRef([Number(fields[0]), Number(fields[1]), fields[2]]);
}

/**
 * The ref of `name` in the index's rows (the text after the header line), or undefined when it has none.
 * 'damaged' when a row starts with the name but is not a well-formed row.
 */
export function findRow(rows: string, name: string): TextRef | 'damaged' | undefined {
  if (!isProgramName(name)) return undefined;
  const at = rows.indexOf(`\n${name}\t`);
  if (at < 0) return undefined;
  const end = rows.indexOf('\n', at + 1);
  const fields = rows.slice(at + name.length + 2, end < 0 ? undefined : end).split('\t');
  return refOf(fields) ?? 'damaged';
}

/** Every program name of the index's rows. */
export function rowNames(rows: string): string[] {
  return rows
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => line.slice(0, line.indexOf('\t')));
}

/** Reads a deferred subcommand's text (checked against its checksum); throws when it cannot. */
export type ReadText = (ref: TextRef, what: string) => string;

/** Thrown when a text of the table is not what the build wrote. */
export class CatalogTextDamaged extends Error {}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNames = (v: unknown): v is string[] =>
  Array.isArray(v) && v.length > 0 && v.every((n) => typeof n === 'string');

/**
 * A program from its text. The texts are the build's own output checked against their checksums, so only the
 * outline is checked here (a text of another shape is a table of another format); a deferred subcommand is
 * read from `read` when a matcher first asks for more than its names.
 */
export function decodeProgram(text: string, name: string, read: ReadText): CompiledProgram {
  const program = parseObject(text, name);
  const root = program.root;
  if (!isObject(root) || !isNames(root.names) || !Array.isArray(root.commands) || !isObject(program.source))
    throw new CatalogTextDamaged(`${name}'s entry is not a compiled program`);
  root.commands = root.commands.map((sub: unknown) => {
    if (!isObject(sub) || sub.x === undefined) return sub;
    const ref = textRef(sub.x);
    const names = sub.names;
    if (ref === undefined || !isNames(names))
      throw new CatalogTextDamaged(`${name}'s entry names a subcommand text that is not well-formed`);
    const what = `${name} ${names[0]!}`;
    return deferredNode(names, () => {
      const body = parseObject(read(ref, what), what);
      if (!isNames(body.names) || !Array.isArray(body.commands))
        throw new CatalogTextDamaged(`${what} is not a compiled subcommand`);
      return body as unknown as CompiledNode;
    });
  });
  return program as unknown as CompiledProgram;
}

function parseObject(text: string, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new CatalogTextDamaged(`${what}'s text is not JSON`);
  }
  if (!isObject(value)) throw new CatalogTextDamaged(`${what}'s text is not an object`);
  return value;
}

/** A subcommand whose names are known and whose body is read on first use (then kept). */
function deferredNode(names: string[], read: () => CompiledNode): CompiledNode {
  let body: CompiledNode | undefined;
  const node = { names } as CompiledNode;
  for (const key of NODE_BODY_KEYS)
    Object.defineProperty(node, key, { enumerable: true, get: () => (body ??= read())[key] });
  return node;
}

export type { TextRef };
