/**
 * Known assignments: the variables whose `$NAME` later words of a command may take as literal text (see
 * knownAssignments), decided over the syntax tree before the walk (parse.ts).
 */
import { freshTempMarker, isFreshTempSubstitution } from './fresh-temp.js';
import type { Node } from './syntax.js';

export interface KnownValue {
  value: string;
  /** Source offset where the assignment ends: only expansions after it see the value. */
  after: number;
  /** Source offset where the value stops being known (a fresh-temp marker: the end of its `&&` list). */
  until: number;
  /** The value is a fresh-temp marker (`d=$(mktemp -d) && …`). */
  marker: boolean;
}

/** A value that means the same wherever it is expanded: no blanks, globs, quotes, `~`, braces or escapes. */
const PLAIN_VALUE = /^[A-Za-z0-9._/+:@%,=-]+$/;

/**
 * Variables bash sets or reads itself (their value changes behind the command's back, or changes how the
 * shell works): never resolved.
 */
const SPECIAL_VARIABLES = new Set([
  'HOME',
  'PWD',
  'OLDPWD',
  'CDPATH',
  'IFS',
  'PATH',
  'TMPDIR',
  'RANDOM',
  'SRANDOM',
  'SECONDS',
  'LINENO',
  'EPOCHSECONDS',
  'EPOCHREALTIME',
  'REPLY',
  'OPTIND',
  'OPTARG',
  'OPTERR',
  'PIPESTATUS',
  'FUNCNAME',
  'GROUPS',
  'HISTCMD',
  'DIRSTACK',
  'UID',
  'EUID',
  'PPID',
  'SHELLOPTS',
  'BASHOPTS',
  'HOSTNAME',
  'COLUMNS',
  'LINES',
  'ENV',
  'PS4',
  'GLOBIGNORE',
  'POSIXLY_CORRECT',
  '_',
]);

/** Builtins that assign a variable whose name is data (`read "$v"`), or run code in this very shell. */
const ASSIGNING_BUILTINS = new Set([
  'read',
  'mapfile',
  'readarray',
  'declare',
  'typeset',
  'local',
  'export',
  'readonly',
  'unset',
  'getopts',
  'let',
  'eval',
  'source',
  '.',
  'trap',
  'alias',
  'shopt',
  'enable',
  'fc',
  'coproc',
  'printf',
  'wait',
]);
/** Words that run the builtin named after them (`time read x`, `command read x`). */
const BUILTIN_PREFIXES = new Set(['builtin', 'command', 'time', 'exec']);
const ARITHMETIC_TEST = /(?:^|\s)-(?:eq|ne|lt|le|gt|ge)(?:\s|$)/;
/** `{fd}>file` assigns a descriptor number to `fd`. */
const NAMED_DESCRIPTOR = /\{[A-Za-z_][A-Za-z0-9_]*\}[<>]/;

/**
 * The variables whose value later words of the command may take as literal text. Conservative by
 * construction — a variable qualifies only when:
 *   - it is assigned exactly once in the whole command, by `NAME=value` as a statement of its own at top
 *     level (a direct statement of the command, or the first of a top-level `a && b` list; not in a loop,
 *     conditional, group, subshell, pipeline, background job or function, not `NAME+=`);
 *   - the value is literal plain text (PLAIN_VALUE), or exactly `$(mktemp [-d])` (a fresh-temp marker) at
 *     the head of a top-level list joined only by `&&` — and then only within that list: when mktemp fails
 *     the assignment fails and nothing after it runs, while after `;` or `||` the variable would be empty
 *     (`cd ""` succeeds and stays where it is);
 *   - every other mention of the name is a plain `$NAME` / `${NAME}` (no `${NAME:=x}`, `${NAME%/}`, `for NAME`);
 *   - it is not one of bash's own variables (SPECIAL_VARIABLES);
 *   - and nothing in the command can assign a variable without spelling its name, or run code in this
 *     shell: no read/mapfile/declare/local/export/unset/getopts/let/eval/source/trap/alias/printf -v/wait -p
 *     (also behind builtin/command/time), no function definition, no arithmetic (`((…))`, `$((…))`, array
 *     subscripts, `[[ a -eq b ]]` — all of which can assign through a variable's value), no `${x:=…}`,
 *     `${!x}`, `{fd}>` redirection, no unquoted heredoc with expansions (expanded when its command runs, though
 *     its text comes later), and no `IFS` (which would change how an unquoted expansion splits).
 * Uses are resolved only after the assignment and only in the top-level shell (parse.ts knownValue).
 */
export function knownAssignments(root: Node, source: string, freshTemp: boolean): Map<string, KnownValue> {
  const none = new Map<string, KnownValue>();
  if (!source.includes('=') || source.includes('IFS') || NAMED_DESCRIPTOR.test(source)) return none;
  const assignments = new Map<string, Node[]>();
  const spoiled = new Set<string>();
  let tainted = false;
  const text = (n: Node): string => source.slice(n.start, n.end);

  const visit = (node: Node, parent: Node | undefined): void => {
    if (tainted) return;
    switch (node.type) {
      case 'function_definition':
      case 'arithmetic_expansion':
      case 'subscript':
      case 'declaration_command':
      case 'unset_command':
      case 'c_style_for_statement':
        tainted = true;
        return;
      case 'compound_statement':
        if (node.children[0]?.type === '((') tainted = true;
        break;
      case 'test_command':
        if (ARITHMETIC_TEST.test(text(node))) tainted = true;
        break;
      case 'heredoc_body':
        // An unquoted heredoc is expanded when its command runs, though its text comes later in the source.
        if (node.children.some((c) => c.type !== 'heredoc_content')) tainted = true;
        break;
      case 'expansion':
        // `${x:=v}`, `${x=v}` assign; `${!x}` is indirection.
        if (node.children.some((c) => !c.named && (c.type.includes('=') || c.type === '!'))) tainted = true;
        break;
      case 'command':
        if (runsAssigningBuiltin(node, source)) tainted = true;
        break;
      case 'variable_assignment': {
        const name = node.children.find((c) => c.field === 'name');
        if (name === undefined || name.type !== 'variable_name') {
          tainted = true;
          return;
        }
        const list = assignments.get(text(name));
        if (list === undefined) assignments.set(text(name), [node]);
        else list.push(node);
        break;
      }
      case 'variable_name': {
        const name = text(node);
        const ok =
          (parent?.type === 'variable_assignment' && node.field === 'name') ||
          parent?.type === 'simple_expansion' ||
          (parent?.type === 'expansion' && text(parent) === `\${${name}}`);
        if (!ok) spoiled.add(name);
        return;
      }
      default:
        break;
    }
    for (const child of node.children) if (child.named) visit(child, node);
  };
  visit(root, undefined);
  if (tainted) return none;

  const known = new Map<string, KnownValue>();
  for (const { statement, andList } of topStatements(root)) {
    for (const assignment of statement.type === 'variable_assignments'
      ? statement.children.filter((c) => c.type === 'variable_assignment')
      : [statement]) {
      const nameNode = assignment.children.find((c) => c.field === 'name');
      if (nameNode === undefined) continue;
      const name = text(nameNode);
      if (
        SPECIAL_VARIABLES.has(name) ||
        name.startsWith('BASH') ||
        spoiled.has(name) ||
        assignments.get(name)?.length !== 1
      )
        continue;
      if (!assignment.children.some((c) => !c.named && c.type === '=')) continue; // `NAME+=x` appends to an unknown value
      const values = assignment.children.filter((c) => c.field === 'value');
      if (values.length !== 1) continue;
      const value = literalValue(values[0]!, source, freshTemp);
      if (value === undefined) continue;
      if (!value.marker) known.set(name, { ...value, after: assignment.end, until: Infinity });
      else if (andList !== undefined) known.set(name, { ...value, after: assignment.end, until: andList.end });
    }
  }
  return known;
}

/**
 * Statements that always run, in order, in the top-level shell: direct statements and the head of a
 * top-level list (with the list, when it is joined by `&&` only: what follows runs only if the head succeeded).
 */
function topStatements(root: Node): { statement: Node; andList?: Node }[] {
  const out: { statement: Node; andList?: Node }[] = [];
  root.children.forEach((node, i) => {
    if (!node.named) return;
    // `X=1 &` (or `X=1 && y &`) runs in a background subshell: nothing it assigns is seen here.
    const next = root.children.slice(i + 1).find((c) => c.type !== 'comment');
    if (next !== undefined && !next.named && next.type === '&') return;
    if (node.type === 'variable_assignment' || node.type === 'variable_assignments') out.push({ statement: node });
    else if (node.type === 'list') {
      const head = node.children.find((c) => c.named && c.type !== 'comment');
      if (head === undefined || (head.type !== 'variable_assignment' && head.type !== 'variable_assignments')) return;
      const andOnly = node.children.every((c) => c.named || c.type === '&&');
      out.push(andOnly ? { statement: head, andList: node } : { statement: head });
    }
  });
  return out;
}

function literalValue(node: Node, source: string, freshTemp: boolean): { value: string; marker: boolean } | undefined {
  const raw = source.slice(node.start, node.end);
  const plain = (value: string): { value: string; marker: boolean } | undefined =>
    PLAIN_VALUE.test(value) ? { value, marker: false } : undefined;
  switch (node.type) {
    case 'word':
    case 'number':
      return node.children.length === 0 ? plain(raw) : undefined;
    case 'raw_string':
      return plain(raw.slice(1, -1));
    case 'string':
      return node.children.every((c) => !c.named || c.type === 'string_content') ? plain(raw.slice(1, -1)) : undefined;
    case 'command_substitution':
      return freshTemp && isFreshTempSubstitution(raw)
        ? { value: freshTempMarker(node.start), marker: true }
        : undefined;
    default:
      return undefined;
  }
}

/** A simple command running a builtin that may assign a variable by a computed name, or run code here. */
function runsAssigningBuiltin(command: Node, source: string): boolean {
  const nameNode = command.children.find((c) => c.field === 'name');
  const head = nameNode?.children[0];
  if (nameNode === undefined) return false;
  // A quoted or computed command name (`$'\x72ead'`): assume the worst.
  if (nameNode.children.length !== 1 || head?.type !== 'word') return true;
  const bare = (n: Node): string => source.slice(n.start, n.end).replace(/\\/g, '');
  const words = [
    bare(head),
    ...command.children.filter((c) => c.field === 'argument').map((c) => (c.type === 'word' ? bare(c) : '')),
  ];
  const assigns = (name: string, args: readonly string[]): boolean => {
    if (name === 'printf') return args.some((a) => a.startsWith('-v'));
    if (name === 'wait') return args.some((a) => /^-[a-z]*p/.test(a));
    return ASSIGNING_BUILTINS.has(name);
  };
  if (assigns(words[0]!, words.slice(1))) return true;
  if (!BUILTIN_PREFIXES.has(words[0]!)) return false;
  return words.slice(1).some((w, i) => assigns(w, words.slice(i + 2)));
}
