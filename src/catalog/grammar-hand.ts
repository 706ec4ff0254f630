/**
 * Our own grammar entries (src/catalog/grammar/*.yml) → GrammarNode, and the rule that merges one with
 * Fig's node for the same program. Build time only (grammar-build.ts).
 *
 * An entry is written the way a manual page writes options, so that it can be checked against one:
 *
 *   source: GNU coreutils 9.1, `wc --help` (Debian 12)   # required: where every line below comes from
 *   program: wc
 *   merge: replace        # replace: Fig's node is dropped; extend: ours is laid over Fig's (see mergeGrammar)
 *   options:
 *     - -c, --bytes                       # no value
 *     - --files0-from=F                   # a value: `--files0-from=F` or `--files0-from F`
 *     - -w, --width=COLS
 *     - --color[=WHEN]                    # optional value, only joined: `--color=always`
 *     - -i[SUFFIX], --in-place[=SUFFIX]   # optional value, joined (`-i.bak`, `--in-place=.bak`)
 *     - -e PATTERNS                       # a value, the next word or joined
 *     - { spec: --sort=WORD, values: [none, time, size] }   # extra fields: template, values, repeatable,
 *                                                          # persistent, valueCount, terminators (find -exec … ;),
 *                                                          # separator (dpkg --force-THING: "-")
 *   args: [{ name: file, template: filepaths, variadic: true, optional: true }]
 *   subcommands: [{ names: [status, st], options: [...], args: [...], subcommands: [...] }]
 *
 * A value placeholder ending in FILE or PATH (DATEFILE, <file>, F as in --files0-from=F) gives the option the
 * `filepaths` template, one naming a directory (DIR, <dir>) `folders`, unless the entry says `template:`.
 */
import { parse as parseYaml } from 'yaml';
import { byNames } from './grammar-codec.js';
import type { GrammarArg, GrammarNode, GrammarOption, GrammarTemplate } from './grammar.js';

export const MERGE_RULES = ['replace', 'extend'] as const;
export type MergeRule = (typeof MERGE_RULES)[number];

export interface HandEntry {
  program: string;
  merge: MergeRule;
  source: string;
  file: string;
  node: GrammarNode;
}

const TEMPLATES: readonly GrammarTemplate[] = ['filepaths', 'folders', 'history', 'help'];
const NODE_KEYS = ['names', 'name', 'options', 'args', 'subcommands', 'optionsBeforeArgs', 'noClusters'];
const ENTRY_KEYS = ['source', 'program', 'merge', ...NODE_KEYS.filter((k) => k !== 'names' && k !== 'name')];
const OPTION_KEYS = [
  'spec',
  'template',
  'values',
  'repeatable',
  'persistent',
  'valueCount',
  'terminators',
  'separator',
];
const ARG_KEYS = ['name', 'template', 'variadic', 'optional', 'isCommand', 'isScript', 'values'];

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One problem in one entry file: what, where, and (through `file`) which file. */
class EntryError extends Error {}

function fail(where: string, problem: string): never {
  throw new EntryError(`${where}: ${problem}`);
}

function onlyKeys(v: Obj, allowed: string[], where: string): void {
  for (const k of Object.keys(v))
    if (!allowed.includes(k)) fail(where, `unknown field "${k}" (known: ${allowed.join(', ')})`);
}

function word(v: unknown, where: string): string {
  if (typeof v !== 'string' || !/^[^\s\p{Cc}]+$/u.test(v)) fail(where, `expected one word, got ${JSON.stringify(v)}`);
  return v;
}

function words(v: unknown, where: string): string[] {
  if (!Array.isArray(v) || v.length === 0) fail(where, 'expected a non-empty list of words');
  return v.map((w, i) => word(w, `${where}[${i}]`));
}

function bool(v: unknown, where: string): boolean {
  if (v === undefined) return false;
  if (typeof v !== 'boolean') fail(where, 'expected true or false');
  return v;
}

function templateField(v: unknown, where: string): GrammarTemplate | undefined {
  if (v === undefined) return undefined;
  if (!TEMPLATES.includes(v as GrammarTemplate)) fail(where, `template is one of ${TEMPLATES.join(', ')}`);
  return v as GrammarTemplate;
}

function templateOfPlaceholder(placeholder: string): GrammarTemplate | undefined {
  const word = placeholder.replace(/[<>[\]=.]/g, '').toUpperCase();
  if (/DIR/.test(word)) return 'folders';
  // DATEFILE, FILES, <file>, PATH, F (GNU's --files0-from=F); not FILENUM (a number naming an operand).
  if (/(FILE|PATH)S?$|^F$/.test(word)) return 'filepaths';
  return undefined;
}

// One spelling as a manual prints it: `-x`, `--long`, `-x VALUE`, `--long=VALUE`, `--long[=VALUE]`, `-x[VALUE]`.
const SPELLING = /^([-+][^\s=[]*[^\s=[-]|[-+])(?:( |=|\[=|\[)(\S.*?)\]?)?$/;

/** `-f, --file=DATEFILE` → one option; throws on a line that is not a list of spellings. */
export function parseOptionSpec(spec: string, where: string): GrammarOption {
  const names: string[] = [];
  let value: 'none' | 'required' | 'optional' = 'none';
  let placeholder = '';
  for (const part of spec.split(/,\s*/)) {
    const m = SPELLING.exec(part.trim());
    if (!m) fail(where, `"${part}" is not an option spelling (-x, --long, -x VALUE, --long=VALUE, --long[=VALUE])`);
    const [, name, joint, ph] = m;
    if (!names.includes(name!)) names.push(name!);
    if (joint === undefined) continue;
    const kind = joint.startsWith('[') ? 'optional' : 'required';
    if (value !== 'none' && value !== kind)
      fail(where, `"${spec}": its spellings disagree on whether the value is optional`);
    value = kind;
    placeholder ||= ph ?? '';
  }
  const option: GrammarOption = { names, takesValue: value !== 'none' };
  // getopt joins an optional value only: `--color=always`, `-i.bak`; a separate word is an operand.
  if (value === 'optional') {
    option.valueOptional = true;
    option.requiresEquals = true;
  }
  const template = value === 'none' ? undefined : templateOfPlaceholder(placeholder);
  if (template) option.template = template;
  return option;
}

function option(v: unknown, where: string): GrammarOption {
  if (typeof v === 'string') return parseOptionSpec(v, where);
  if (!isObj(v)) fail(where, 'an option is a spelling line or { spec: …, template/values/repeatable/persistent }');
  onlyKeys(v, OPTION_KEYS, where);
  if (typeof v.spec !== 'string') fail(where, 'spec: the option spellings, e.g. "-f, --file=FILE"');
  const o = parseOptionSpec(v.spec, where);
  const template = templateField(v.template, `${where}.template`);
  if (template) o.template = template;
  if (v.values !== undefined) o.values = words(v.values, `${where}.values`);
  if (bool(v.repeatable, `${where}.repeatable`)) o.repeatable = true;
  if (bool(v.persistent, `${where}.persistent`)) o.persistent = true;
  if (v.valueCount !== undefined) {
    if (!Number.isInteger(v.valueCount) || (v.valueCount as number) < 2 || !o.takesValue)
      fail(`${where}.valueCount`, 'a whole number of at least 2, on an option that takes a value');
    o.valueCount = v.valueCount as number;
  }
  if (v.separator !== undefined) {
    // dpkg's --force-THING: the value is joined to the name by this string.
    if (!o.takesValue || typeof v.separator !== 'string' || v.separator.length !== 1 || v.separator === '=')
      fail(`${where}.separator`, 'one character other than "=" joining the value (--force-depends: "-")');
    o.separator = v.separator;
  }
  if (v.terminators !== undefined) {
    if (!o.takesValue) fail(`${where}.terminators`, 'only an option that takes a value ends at a terminator');
    o.valueTerminators = words(v.terminators, `${where}.terminators`);
  }
  return o;
}

function arg(v: unknown, where: string): GrammarArg {
  if (!isObj(v)) fail(where, 'an operand is { name, template, variadic, optional, isCommand, isScript, values }');
  onlyKeys(v, ARG_KEYS, where);
  const a: GrammarArg = {};
  if (v.name !== undefined) a.name = word(v.name, `${where}.name`);
  const template = templateField(v.template, `${where}.template`);
  if (template) a.template = template;
  if (bool(v.variadic, `${where}.variadic`)) a.variadic = true;
  if (bool(v.optional, `${where}.optional`)) a.optional = true;
  if (bool(v.isCommand, `${where}.isCommand`)) a.isCommand = true;
  if (bool(v.isScript, `${where}.isScript`)) a.isScript = true;
  if (v.values !== undefined) a.values = words(v.values, `${where}.values`);
  return a;
}

function list(v: unknown, where: string): unknown[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) fail(where, 'expected a list');
  return v;
}

function checkUnique(items: { names: string[] }[], what: string, where: string): void {
  const seen = new Set<string>();
  for (const item of items)
    for (const n of item.names) {
      if (seen.has(n)) fail(where, `${what} "${n}" is given twice`);
      seen.add(n);
    }
}

function node(v: Obj, names: string[], where: string): GrammarNode {
  const n: GrammarNode = {
    names,
    options: list(v.options, `${where}.options`).map((o, i) => option(o, `${where}.options[${i}]`)),
    subcommands: list(v.subcommands, `${where}.subcommands`).map((s, i) => subcommand(s, `${where}.subcommands[${i}]`)),
    args: list(v.args, `${where}.args`).map((a, i) => arg(a, `${where}.args[${i}]`)),
  };
  checkUnique(n.options, 'option', where);
  checkUnique(n.subcommands, 'subcommand', where);
  if (bool(v.optionsBeforeArgs, `${where}.optionsBeforeArgs`)) n.optionsBeforeArgs = true;
  if (bool(v.noClusters, `${where}.noClusters`)) n.noClusters = true;
  n.options.sort(byNames);
  n.subcommands.sort(byNames);
  return n;
}

function subcommand(v: unknown, where: string): GrammarNode {
  if (!isObj(v)) fail(where, 'a subcommand is { names: [...], options, args, subcommands }');
  onlyKeys(v, NODE_KEYS, where);
  const names = v.names !== undefined ? words(v.names, `${where}.names`) : [word(v.name, `${where}.name`)];
  return node(v, names, `${where}(${names[0]})`);
}

/** Parses one entry file; `errors` gets one line per problem (file and field named), and the entry is dropped. */
export function parseHandEntry(file: string, text: string, errors: string[]): HandEntry | undefined {
  try {
    const doc: unknown = parseYaml(text, { prettyErrors: false });
    if (!isObj(doc)) fail(file, 'an entry is a YAML mapping with source, program, merge');
    onlyKeys(doc, ENTRY_KEYS, file);
    if (typeof doc.source !== 'string' || doc.source.trim().length < 8)
      fail(`${file}: source`, 'say where the grammar comes from (manual page or --help of which version)');
    const program = word(doc.program, `${file}: program`);
    if (!MERGE_RULES.includes(doc.merge as MergeRule))
      fail(`${file}: merge`, `one of ${MERGE_RULES.join(', ')} (how this entry meets Fig's node for ${program})`);
    return { program, merge: doc.merge as MergeRule, source: doc.source, file, node: node(doc, [program], file) };
  } catch (error) {
    if (error instanceof EntryError) errors.push(error.message);
    else if (error instanceof Error && error.name.startsWith('YAML')) errors.push(`${file}: ${error.message}`);
    else throw error;
    return undefined;
  }
}

function mergeNode(fig: GrammarNode, ours: GrammarNode): GrammarNode {
  const ourNames = new Set(ours.options.flatMap((o) => o.names));
  const options = [...fig.options.filter((o) => !o.names.some((n) => ourNames.has(n))), ...ours.options];
  const subcommands = fig.subcommands.map((f) => {
    const match = ours.subcommands.find((o) => o.names.some((n) => f.names.includes(n)));
    return match ? mergeNode(f, match) : f;
  });
  for (const o of ours.subcommands)
    if (!fig.subcommands.some((f) => o.names.some((n) => f.names.includes(n)))) subcommands.push(o);
  const merged: GrammarNode = {
    names: [...ours.names, ...fig.names.filter((n) => !ours.names.includes(n))],
    options: options.sort(byNames),
    subcommands: subcommands.sort(byNames),
    args: ours.args.length > 0 ? ours.args : fig.args,
  };
  if (ours.optionsBeforeArgs || fig.optionsBeforeArgs) merged.optionsBeforeArgs = true;
  if (ours.noClusters || fig.noClusters) merged.noClusters = true;
  return merged;
}

/**
 * The merge rule. `replace`: ours is the program's grammar (Fig's describes another implementation, e.g.
 * BSD's wc, whose options differ). `extend`: Fig's node with ours laid over it, node by node: an option we
 * give replaces every Fig option sharing a spelling with it; a subcommand we give is merged with Fig's of
 * the same name, or added; our operands replace Fig's where we give any; everything else of Fig's stays.
 */
export function mergeGrammar(fig: GrammarNode | undefined, entry: HandEntry): GrammarNode {
  if (fig === undefined || entry.merge === 'replace') return entry.node;
  return mergeNode(fig, entry.node);
}
