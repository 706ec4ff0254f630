/**
 * Bash → segments, with a real grammar: tree-sitter-bash through the native `tree-sitter` binding.
 *
 * Why native and not web-tree-sitter (WASM): the parser loads in every `hookwise check` process that sees a
 * Bash call. Measured on the 2-core dev machine (fresh process): native ≈ 7–10 ms to load + 0.4 ms first
 * parse; WASM (web-tree-sitter 0.25 + the grammar's .wasm) ≈ 16 ms runtime init + 8 ms grammar compile +
 * 14 ms first parse (lazy wasm compilation), ~40 ms in all. Warm, a short command parses in ~35 µs.
 * The native module is loaded lazily (first parseCommand / loadShellParser), so other tool calls never pay.
 *
 * The tree is converted once into plain objects (one N-API call per cursor step is the dominant cost;
 * reading node properties lazily would cost several per node), then walked in pure JS:
 *   - one Segment per simple command, with the operator that joined it (`&& || ; | |& & newline`);
 *   - recursion into subshells, `{ }` groups, `$( )`, backticks, `<( )`/`>( )`, if/for/while/case bodies,
 *     functions, and heredocs/herestrings fed to a shell;
 *   - wrappers peeled by unwrap.ts; shell strings (`bash -c`, `eval`, `ssh`) parsed recursively, bounded;
 *   - words with quotes removed, brace expansion applied (`.en{v,}` → `.env` `.en`), expansions and globs
 *     marked dynamic; `$HOME`/`$PWD` at the start of a word resolved to `~`/`.` unless the command assigns them;
 *   - `$NAME` resolved to the literal value of an earlier top-level `NAME=value` of the same shell when
 *     nothing in the command could change it (see knownAssignments) — `d=$(mktemp -d) && …` to a
 *     fresh-temp marker (fresh-temp.ts);
 *   - the working directory after literal `cd`s, per segment.
 * Anything it cannot understand is `{ ok: false, reason }`: never a guess that could allow.
 */
import { createRequire } from 'node:module';
import type TreeSitter from 'tree-sitter';
import { freshTempMarker, isFreshTempSubstitution } from './fresh-temp.js';
import { commandName, joinPath, parseArgs, type Word } from './options.js';
import {
  REDIRECT_OPS,
  type Operator,
  type ParseResult,
  type Redirect,
  type RedirectOp,
  type Segment,
  type SegmentContext,
} from './types.js';
import { unwrap, UnwrapError, type Unwrapped } from './unwrap.js';

export interface ParseOptions {
  /** How deep shell strings may nest (`bash -c "eval 'sh -c …'"`); deeper is unparseable. Default 5. */
  maxShellDepth?: number;
  /** Longer commands are unparseable. Default 131072 characters. */
  maxLength?: number;
  /** Syntax nodes one command may have, nested shell strings included. Default 6000. */
  maxNodes?: number;
  /** Parser steps tree-sitter may take for one command, nested shell strings included (see below). Default 5000. */
  maxParseSteps?: number;
}

export const DEFAULT_MAX_SHELL_DEPTH = 5;
export const DEFAULT_MAX_LENGTH = 128 * 1024;
export const DEFAULT_MAX_NODES = 6_000;
export const DEFAULT_MAX_PARSE_STEPS = 5_000;

/*
 * Every bound on parsing counts work done — characters, parser steps, nodes, nesting — and none is a
 * clock, so parseCommand is a pure function of (command, options): a loaded machine, a daemon busy with
 * other requests or a slow CI runner cannot turn an ordinary command into "too complex" (another verdict).
 * No time limit remains even as a safety net: one that could fire would make the verdict depend on load.
 *
 * What tree-sitter costs (node binding 0.25; 2-core dev machine, at rest; CPU time):
 *   - Real commands: ~0.3 µs per parser step (a token processed by one parse version, or a rebalancing
 *     step), 0.4–1 step per character (the default fits ~7 KB of one-liners, 5–10 KB of script); heredoc
 *     bodies and quoted strings are a step or two whatever their length. A 128 KiB heredoc parses in ~2 ms.
 *   - Syntax errors: up to 20–30 µs per step (error handling tries every symbol), error recovery that
 *     rebuilds a growing ERROR node at every step (quadratic: `${#${#…`, `f() ${f() ${…`), and, at the end
 *     of the input, accepting a deep error stack (`^`>^`>…`: 1 s for 4 KiB unbounded). The progress
 *     callback's only other signal, hasError, stays false through most of it, so the step count is what
 *     bounds it: worst found ~135 ms at the default 5000 steps (`')')')…`, any length past ~5 KiB).
 *   - The lexer in error recovery can scan ahead to the end of the input for every token, without a step
 *     (quadratic in characters, ~20 ns each; `$[$[…` took 130 s at 128 KiB): the input is served in
 *     CHUNK-character pieces through an input function, and the characters served are bounded.
 * Only one parse per command can be expensive: a syntax error anywhere ends the analysis.
 * Sources of at most PROGRESS_ABOVE characters are parsed without a progress callback, because the
 * binding never frees what it allocates for one (~120 bytes a parse; the daemon parses for its whole
 * life). They are charged one step per character instead: the worst of them costs ~9 ms (`a`>a`>…`,
 * `.) .) …`), up to ~50 µs a character, the same order as a step at worst.
 */
/** tree-sitter calls the progress callback once per this many parser steps (OP_COUNT_PER_PARSER_TIMEOUT_CHECK). */
const STEPS_PER_PROGRESS = 100;
/** Longer sources are parsed with a progress callback counting steps; shorter ones are charged their length. */
const PROGRESS_ABOVE = 256;
/** Characters tree-sitter gets per call of the input function (the granularity of counting re-reads). */
const CHUNK = 1024;
/**
 * Characters the lexer may be served per character of source, re-reads after looking ahead included
 * (real commands and scripts: under 3), on top of an allowance for short sources, whose reads at the end count one each.
 */
const READS_PER_CHAR = 8;
const READ_ALLOWANCE = 4096;
/** Syntax-tree nesting beyond this is unparseable: bounds the walker's recursion (no stack overflow). */
const MAX_TREE_DEPTH = 256;
/** One word may brace-expand into at most this many words; beyond, it stays one dynamic word. */
const MAX_BRACE_WORDS = 256;
/** Words longer than this, or with more brace groups, are not brace-expanded (they stay one dynamic word). */
const MAX_BRACE_WORD_LENGTH = 4096;
const MAX_BRACE_GROUPS = 32;

// ---------------------------------------------------------------------------------------------------------
// Loading

let parser: TreeSitter | undefined;

/**
 * Load the native parser (idempotent, synchronous). parseCommand calls it on first use; call it yourself
 * to pay the cost at a moment of your choosing. Throws when the native module cannot be loaded.
 */
export function loadShellParser(): void {
  if (parser !== undefined) return;
  // Resolved at run time from wherever this code lives (dist/*.cjs or src/), never bundled.
  const load = createRequire(typeof __filename === 'string' ? __filename : import.meta.url);
  try {
    const Parser = load('tree-sitter') as typeof TreeSitter;
    const p = new Parser();
    p.setLanguage(loadGrammar(load));
    parser = p;
  } catch (error) {
    throw new Error(`cannot load the Bash parser (tree-sitter, tree-sitter-bash): ${(error as Error).message}`, {
      cause: error,
    });
  }
}

export function isShellParserLoaded(): boolean {
  return parser !== undefined;
}

/**
 * The grammar's compiled binding. Its package entry also reads a 50 KB node-types.json that only the
 * node-class API uses (we walk with a cursor), so load the binary directly when we can find it.
 */
function loadGrammar(load: NodeJS.Require): TreeSitter.Language {
  const root = load.resolve('tree-sitter-bash/package.json').replace(/package\.json$/, '');
  for (const file of [
    `build/Release/tree_sitter_bash_binding.node`,
    `prebuilds/${process.platform}-${process.arch}/tree-sitter-bash.node`,
  ]) {
    try {
      return load(root + file) as TreeSitter.Language;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // Not there, or built for another libc/ABI: fall back to the package's own resolution below.
      if (code !== 'MODULE_NOT_FOUND' && code !== 'ERR_DLOPEN_FAILED') throw error;
    }
  }
  return load('tree-sitter-bash') as TreeSitter.Language;
}

// ---------------------------------------------------------------------------------------------------------
// The syntax tree as plain data

interface Node {
  type: string;
  named: boolean;
  field: string | null;
  start: number;
  end: number;
  children: Node[];
}

/** Named node types of tree-sitter-bash that are terminals (anonymous nodes are tokens: never children). */
const LEAVES = new Set([
  'word',
  'raw_string',
  'ansi_c_string',
  'variable_name',
  'string_content',
  'heredoc_content',
  'heredoc_start',
  'heredoc_end',
  'special_variable_name',
  'file_descriptor',
  'test_operator',
  'comment',
  'regex',
  'extglob_pattern',
]);

/** Why the command cannot be analyzed. Thrown inside the walk, returned as `{ ok: false, reason }`. */
class Unparseable extends Error {
  override readonly name = 'Unparseable';
}

/** What one parseCommand may still spend on tree-sitter, across nested shell strings: counts of work, never time. */
interface Budget {
  nodes: number;
  steps: number;
  /** The whole step budget, for messages. */
  maxSteps: number;
}

/**
 * The work of the parse under way (tree-sitter parses synchronously, one at a time). Module-level, with
 * one progress function for every parse: the binding keeps a reference to the function it is given for
 * ever (see PROGRESS_ABOVE), so that function must not hold on to a command.
 */
const work = { steps: 0, stepLimit: 0, served: 0, readLimit: 0 };

function progress(): boolean {
  work.steps += STEPS_PER_PROGRESS;
  return work.served > work.readLimit || work.steps > work.stepLimit;
}

/**
 * Parse with tree-sitter, bounded by the work it does (see DEFAULT_MAX_PARSE_STEPS): parser steps and
 * characters read. The same source and budget always stop at the same point, whatever the load.
 */
function boundedParse(p: TreeSitter, source: string, where: string, budget: Budget): TreeSitter.Tree {
  const tooComplex = (): Unparseable =>
    new Unparseable(
      `${where} is too complex to analyze (more than the ${budget.maxSteps} parser steps allowed per command)`,
    );
  const counted = source.length > PROGRESS_ABOVE;
  if (!counted) {
    budget.steps -= source.length;
    if (budget.steps < 0) throw tooComplex();
  }
  work.steps = 0;
  work.stepLimit = budget.steps;
  work.served = 0;
  work.readLimit = READS_PER_CHAR * source.length + READ_ALLOWANCE;
  // Past the limit the input ends where the lexer stands (empty reads): the parse winds up at once, and
  // its tree is discarded.
  const input = (index: number): string => {
    if (work.served > work.readLimit) return '';
    const chunk = source.slice(index, index + CHUNK);
    // A read at the end (empty) counts too: the lexer backs up and reads again.
    work.served += chunk.length + 1;
    return work.served > work.readLimit ? '' : chunk;
  };
  // bufferSize holds one chunk and its terminator, so every read goes through `input`, counted.
  const options: TreeSitter.Options = counted
    ? { bufferSize: CHUNK + 1, progressCallback: progress }
    : { bufferSize: CHUNK + 1 };
  const tree = p.parse(input, null, options) as TreeSitter.Tree | null;
  // A stopped parse is kept to be resumed; start the next one afresh.
  if (tree === null) p.reset();
  if (work.served > work.readLimit)
    throw new Unparseable(
      `${where} is too complex to analyze (the parser would read it more than ${READS_PER_CHAR} times over)`,
    );
  if (work.steps > budget.steps) throw tooComplex();
  // Nothing else stops a parse; should the binding ever return no tree, fail closed.
  if (tree === null) throw new Unparseable(`${where} could not be parsed`);
  budget.steps -= work.steps;
  return tree;
}

function syntaxTree(source: string, where: string, budget: Budget): Node {
  if (parser === undefined) loadShellParser();
  const tree = boundedParse(parser!, source, where, budget);
  budget.nodes -= tree.rootNode.descendantCount;
  if (budget.nodes < 0) throw new Unparseable(`${where} is too large to analyze (more than the allowed syntax nodes)`);
  const cursor = tree.walk();
  const root: Node = {
    type: cursor.nodeType,
    named: true,
    field: null,
    start: cursor.startIndex,
    end: cursor.endIndex,
    children: [],
  };
  if (tree.rootNode.hasError) throw new Unparseable(describeError(cursor, source, where));
  const stack: Node[] = [root];
  if (!cursor.gotoFirstChild()) return root;
  for (;;) {
    const node: Node = {
      type: cursor.nodeType,
      named: cursor.nodeIsNamed,
      field: cursor.currentFieldName,
      start: cursor.startIndex,
      end: cursor.endIndex,
      children: [],
    };
    stack[stack.length - 1]!.children.push(node);
    // Every cursor step is a native call: do not ask tokens and terminals for children they cannot have.
    if (node.named && !LEAVES.has(node.type) && cursor.gotoFirstChild()) {
      stack.push(node);
      if (stack.length > MAX_TREE_DEPTH)
        throw new Unparseable(`${where} is nested more than ${MAX_TREE_DEPTH} levels deep`);
      continue;
    }
    while (!cursor.gotoNextSibling()) {
      if (!cursor.gotoParent()) return normalize(root);
      stack.pop();
      if (stack.length === 0) return normalize(root);
    }
  }
}

/**
 * Restore Bash precedence where tree-sitter-bash nests differently. A redirection after a list or pipeline
 * makes it the body of one redirected statement, and a pipe after that makes the whole list a pipeline
 * stage: `cd a && make 2>&1 | tee log` comes out as `(cd a && make 2>&1) | tee log`, while Bash runs
 * `cd a && (make 2>&1 | tee log)` (`|` binds tighter than `&&`, and a redirection belongs to the last
 * simple command). Rewritten bottom-up:
 *   redirected(list  a && b,  R)  → list(a && redirected(b, R))
 *   redirected(pipe  a | b,   R)  → pipe(a | redirected(b, R))
 *   pipe(list(a && b) | c)        → list(a && pipe(b | c));  pipe(c | list(a && b)) → list(pipe(c | a) && b)
 *   pipe(pipe(a | b) | c)         → pipe(a | b | c);         list(list(a && b) || c) → list(a && b || c)
 */
function normalize(node: Node): Node {
  for (let i = 0; i < node.children.length; i++) node.children[i] = normalize(node.children[i]!);
  return restructure(node);
}

function restructure(node: Node): Node {
  switch (node.type) {
    case 'redirected_statement': {
      const at = node.children.findIndex((c) => c.field === 'body');
      const body = node.children[at];
      if (body === undefined || (body.type !== 'list' && body.type !== 'pipeline')) return node;
      const last = lastStatement(body.children);
      if (last === -1) return node;
      const target = body.children[last]!;
      const inner = restructure({
        ...node,
        field: null,
        start: target.start,
        children: [{ ...target, field: 'body' }, ...node.children.filter((_, i) => i !== at)],
      });
      return restructure({
        ...body,
        field: node.field,
        end: node.end,
        children: [...body.children.slice(0, last), inner, ...body.children.slice(last + 1)],
      });
    }
    case 'pipeline': {
      const children = node.children.flatMap((c) => (c.type === 'pipeline' ? c.children : [c]));
      const stages = children.filter((c) => c.named && c.type !== 'comment');
      const first = stages[0];
      const final = stages[stages.length - 1];
      let head: Node[] = [];
      let tail: Node[] = [];
      if (first?.type === 'list') {
        const k = lastStatement(first.children);
        head = first.children.slice(0, k);
        children[children.indexOf(first)] = first.children[k]!;
      }
      if (final !== undefined && final !== first && final.type === 'list') {
        const k = firstStatement(final.children);
        tail = final.children.slice(k + 1);
        children[children.indexOf(final)] = final.children[k]!;
      }
      const named = children.filter((c) => c.named && c.type !== 'comment');
      const pipe: Node = {
        ...node,
        field: null,
        start: named[0]?.start ?? node.start,
        end: named[named.length - 1]?.end ?? node.end,
        children,
      };
      if (head.length === 0 && tail.length === 0)
        return { ...pipe, field: node.field, start: node.start, end: node.end };
      return restructure({
        type: 'list',
        named: true,
        field: node.field,
        start: node.start,
        end: node.end,
        children: [...head, restructure(pipe), ...tail],
      });
    }
    case 'list': {
      const k = firstStatement(node.children);
      const first = node.children[k];
      if (first?.type !== 'list') return node;
      return { ...node, children: [...node.children.slice(0, k), ...first.children, ...node.children.slice(k + 1)] };
    }
    default:
      return node;
  }
}

function lastStatement(children: readonly Node[]): number {
  for (let i = children.length - 1; i >= 0; i--) if (children[i]!.named && children[i]!.type !== 'comment') return i;
  return -1;
}

function firstStatement(children: readonly Node[]): number {
  return children.findIndex((c) => c.named && c.type !== 'comment');
}

/** The first ERROR or MISSING node, in words a user can act on. */
function describeError(cursor: TreeSitter.TreeCursor, source: string, where: string): string {
  for (;;) {
    if (cursor.nodeIsMissing) {
      const what = cursor.nodeType;
      return `${where} is incomplete: ${/^[a-z_]+$/.test(what) ? `a ${what.replace(/_/g, ' ')}` : `"${what}"`} is missing at character ${cursor.startIndex} (unbalanced quotes or brackets?)`;
    }
    if (cursor.nodeType === 'ERROR') {
      const at = cursor.startIndex;
      const near = source.slice(at, at + 24).split('\n')[0]!;
      return `${where} has a Bash syntax error at character ${at}${near === '' ? '' : ` near ${JSON.stringify(near)}`}`;
    }
    if (cursor.gotoFirstChild()) continue;
    while (!cursor.gotoNextSibling()) {
      if (!cursor.gotoParent()) return `${where} has a Bash syntax error`;
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// Entry point

export function parseCommand(command: string, options: ParseOptions = {}): ParseResult {
  if (parser === undefined) {
    // Loading is a one-off cost, not a property of the command.
    try {
      loadShellParser();
    } catch (error) {
      return {
        ok: false,
        reason: `hookwise cannot parse shell commands here: ${(error as Error).message}`,
        segments: [],
      };
    }
  }
  const maxSteps = options.maxParseSteps ?? DEFAULT_MAX_PARSE_STEPS;
  const budget: Budget = { nodes: options.maxNodes ?? DEFAULT_MAX_NODES, steps: maxSteps, maxSteps };
  const walker = new Walker(command, options.maxShellDepth ?? DEFAULT_MAX_SHELL_DEPTH, budget);
  const maxLength = options.maxLength ?? DEFAULT_MAX_LENGTH;
  try {
    if (command.length > maxLength)
      throw new Unparseable(`the command is ${command.length} characters long; hookwise analyzes at most ${maxLength}`);
    // Bash cannot pass a NUL byte in a command; the command the shell actually sees would be cut there.
    if (command.includes('\0'))
      throw new Unparseable('the command contains a NUL character, so the shell would not run it as written');
    walker.run();
    return { ok: true, segments: walker.segments };
  } catch (error) {
    if (error instanceof Unparseable || error instanceof UnwrapError)
      return { ok: false, reason: error.message, segments: walker.segments };
    // A bug here must not become an allow: fail closed, and say so.
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, reason: `hookwise could not analyze this command (${message})`, segments: walker.segments };
  }
}

// ---------------------------------------------------------------------------------------------------------
// The walk

type Cwd = { known: true; dir: string } | { known: false };
/** Shared by every level that runs in the same shell process; copied for subshells. */
interface CwdBox {
  value: Cwd;
}

interface Level {
  /** The source the current tree was parsed from (nested shell strings have their own). */
  src: string;
  depth: number;
  context: SegmentContext;
  /** Wrappers of enclosing shell strings (`bash -c`, `ssh`, …), prefixed to every segment's own. */
  wrappers: readonly string[];
  remote: string | undefined;
  shellDepth: number;
  cwd: CwdBox;
  /** Redirects of an enclosing group, compound or wrapper: they apply to every command inside. */
  inherited: readonly Redirect[];
  /** Describes this source in messages: `the command`, `the code run by bash -c`. */
  where: string;
}

/** stdin data attached to a command: heredoc or herestring. */
interface StdinData {
  body: string;
  /** The text is literal: quoted heredoc delimiter, or a herestring without expansions. */
  literal: boolean;
  via: '<<' | '<<<';
}

interface RedirectInfo {
  redirects: Redirect[];
  stdin: StdinData[];
  /** tree-sitter-bash puts words after a redirect target into the redirect (`echo a > f b`): they are arguments. */
  extraArgs: Node[];
  /** A heredoc's line continues: `cat <<EOF | sh`, `cat <<EOF && rm x`. */
  pipeTail: Node[];
  listTail: { op: Operator; node: Node }[];
}

interface Piece {
  text: string;
  /** Quoted or escaped: no globbing, no brace expansion, no tilde. */
  quoted: boolean;
  dynamic: boolean;
}

const STATEMENTS = new Set([
  'command',
  'redirected_statement',
  'list',
  'pipeline',
  'subshell',
  'compound_statement',
  'if_statement',
  'while_statement',
  'for_statement',
  'c_style_for_statement',
  'case_statement',
  'function_definition',
  'negated_command',
  'test_command',
  'declaration_command',
  'unset_command',
  'variable_assignment',
  'variable_assignments',
]);
/** Nodes whose children continue the enclosing sequence. */
const TRANSPARENT = new Set(['do_group', 'elif_clause', 'else_clause', 'case_item']);
const SUBSTITUTIONS = new Set(['command_substitution', 'process_substitution']);

class Walker {
  readonly segments: Segment[] = [];
  /** Interpreter segments that read their program from stdin, with its language. */
  private readonly stdinReaders = new Map<Segment, string>();
  /** Heredoc/herestring data of the segments that have some. */
  private readonly stdinOf = new Map<Segment, StdinData>();
  private readonly resolveHome: boolean;
  private readonly resolvePwd: boolean;
  /** `$(mktemp …)` names a fresh entry in the temp directory (unless the command mentions TMPDIR). */
  private readonly freshTemp: boolean;
  /** Variables with a known literal value from a top-level assignment (see knownAssignments). */
  private known: ReadonlyMap<string, KnownValue> = new Map();

  constructor(
    private readonly source: string,
    private readonly maxShellDepth: number,
    private readonly budget: Budget,
  ) {
    // `$HOME`/`$PWD` are resolved only when nothing in the command could have changed them.
    this.resolveHome = onlyExpansions(source, 'HOME');
    this.resolvePwd = onlyExpansions(source, 'PWD') && !/\bcd\b|\bpushd\b|\bpopd\b/.test(source);
    this.freshTemp = !source.includes('TMPDIR');
  }

  run(): void {
    const root = syntaxTree(this.source, 'the command', this.budget);
    this.known = knownAssignments(root, this.source, this.freshTemp);
    const level: Level = {
      src: this.source,
      depth: 0,
      context: 'command',
      wrappers: [],
      remote: undefined,
      shellDepth: 0,
      cwd: { value: { known: true, dir: '' } },
      inherited: [],
      where: 'the command',
    };
    this.sequence(root.children, level, undefined);
  }

  // --- statements --------------------------------------------------------------------------------------

  /** Statements separated by `;`, `&`, newlines (program, group bodies, if/loop/case bodies). */
  private sequence(nodes: readonly Node[], level: Level, op: Operator | undefined): void {
    let separator: Operator | undefined;
    let prevEnd = -1;
    let emitted = false;
    let last: [number, number] | undefined;
    for (const node of nodes) {
      if (!node.named) {
        if (node.type === '&') {
          separator = '&';
          if (last !== undefined) this.markBackground(last);
        } else if (node.type.startsWith(';')) {
          separator ??= ';';
        }
        continue;
      }
      if (node.type === 'comment') continue;
      const joined = !emitted
        ? op
        : (separator ?? (prevEnd >= 0 && level.src.slice(prevEnd, node.start).includes('\n') ? '\n' : ';'));
      const from = this.segments.length;
      if (TRANSPARENT.has(node.type)) this.sequence(node.children, level, joined);
      else if (STATEMENTS.has(node.type)) this.statement(node, level, joined, []);
      else this.scan(node, level); // for/case words, arithmetic: only their substitutions run
      last = [from, this.segments.length];
      // Substitutions run first but are not "this level": the next statement's separator joins it to this one.
      if (!emitted)
        emitted = this.segments
          .slice(from)
          .some(
            (s) => s.depth === level.depth || (s.context !== 'substitution' && s.context !== 'process-substitution'),
          );
      separator = undefined;
      prevEnd = node.end;
    }
  }

  /** `tail`: redirects that tree-sitter attached to an enclosing list or pipeline but belong here. */
  private statement(node: Node, level: Level, op: Operator | undefined, tail: readonly Redirect[]): void {
    switch (node.type) {
      case 'command':
        return this.command(node, node, level, op, this.emptyRedirects(tail));
      case 'redirected_statement':
        return this.redirected(node, level, op, tail);
      case 'list':
        return this.list(node, level, op, tail);
      case 'pipeline':
        return this.pipeline(
          node.children.filter((c) => c.named && c.type !== 'comment'),
          pipeOperators(node),
          level,
          op,
          tail,
        );
      case 'subshell':
        return this.group(node, level, op, tail, true);
      case 'compound_statement':
        if (node.children[0]?.type === '((') return this.testCommand(node, level, op, tail);
        return this.group(node, level, op, tail, false);
      case 'if_statement':
      case 'while_statement':
      case 'for_statement':
      case 'c_style_for_statement':
      case 'case_statement':
        return this.conditional(node, withInherited(level, tail), op);
      case 'function_definition':
        return this.functionDefinition(node, withInherited(level, tail), op);
      case 'negated_command':
        return this.sequence(node.children, withInherited(level, tail), op);
      case 'test_command':
        return this.testCommand(node, level, op, tail);
      case 'declaration_command':
      case 'unset_command':
        return this.declaration(node, level, op, tail);
      default: {
        // Bare assignments (`X=$(cmd)`): their substitutions run; and `X=1` alone changes the environment of
        // later commands when X is already exported (GIT_PAGER, PATH), so it is shown as `:` carrying the
        // assignments for effect analysis.
        const assignments: Record<string, string> = {};
        const pairs =
          node.type === 'variable_assignment'
            ? [node]
            : node.type === 'variable_assignments'
              ? node.children.filter((c) => c.type === 'variable_assignment')
              : [];
        if (pairs.length === 0) this.scan(node, level);
        for (const pair of pairs) {
          const [name, value] = this.assignment(pair, level);
          assignments[name] = value.text;
        }
        if (tail.length > 0 || pairs.length > 0) this.emitColon(node, level, op, tail, assignments);
      }
    }
  }

  private redirected(node: Node, level: Level, op: Operator | undefined, tail: readonly Redirect[]): void {
    const body = node.children.find((c) => c.field === 'body');
    const info = this.redirects(
      node.children.filter((c) => c.field === 'redirect' || c.type.endsWith('_redirect')),
      level,
    );
    const all = [...info.redirects, ...tail];
    const from = this.segments.length;
    if (body === undefined) {
      // `> file` alone truncates it: a command that is only its redirections, shown as `:`.
      this.emitColon(node, level, op, all);
    } else if (body.type === 'command') {
      this.command(body, node, level, op, { ...info, redirects: all });
    } else if (body.type === 'list' || body.type === 'pipeline' || body.type === 'redirected_statement') {
      // tree-sitter-bash attaches `a && b > f` / `a | b > f` redirects to the whole list; Bash, to `b`.
      this.statement(body, level, op, all);
    } else {
      this.statement(body, withInherited(level, all), op, []);
    }
    this.continuations(info, level, from);
  }

  /** After a heredoc: `cat <<EOF | sh` (pipe continues) and `cat <<EOF && rm x` (list continues). */
  private continuations(info: RedirectInfo, level: Level, from: number): void {
    if (info.pipeTail.length > 0) {
      const stages: Stage[] = [{ range: [from, this.segments.length] }];
      for (const node of info.pipeTail) {
        const ops = pipeOperators(node);
        node.children
          .filter((c) => c.named && c.type !== 'comment')
          .forEach((c, i) => stages.push({ node: c, op: ops[i] ?? '|' }));
      }
      this.pipelineStages(stages, level, undefined, []);
    }
    for (const { op, node } of info.listTail) this.statement(node, level, op, []);
  }

  private list(node: Node, level: Level, op: Operator | undefined, tail: readonly Redirect[]): void {
    const parts = node.children.filter((c) => c.type !== 'comment');
    const statements = parts.filter((c) => c.named);
    let joined = op;
    for (const part of parts) {
      if (!part.named) {
        joined = part.type === '||' ? '||' : '&&';
        continue;
      }
      const isLast = part === statements[statements.length - 1];
      const before = level.cwd.value;
      this.statement(part, level, joined, isLast ? tail : []);
      // The right side of `||` runs only when the left failed: a `cd` there may or may not have happened.
      if (joined === '||' && level.cwd.value !== before) level.cwd.value = { known: false };
    }
  }

  private pipeline(
    elements: readonly Node[],
    ops: readonly Operator[],
    level: Level,
    op: Operator | undefined,
    tail: readonly Redirect[],
  ): void {
    this.pipelineStages(
      elements.map((node, i) => ({ node, op: i === 0 ? op : (ops[i - 1] ?? '|') })),
      level,
      op,
      tail,
    );
  }

  /**
   * Pipeline stages run in subshells (a `cd` in one does not move the next). A stage that is an interpreter
   * reading its program from stdin marks itself and the stage feeding it `pipeToShell`.
   */
  private pipelineStages(
    stages: readonly Stage[],
    level: Level,
    op: Operator | undefined,
    tail: readonly Redirect[],
  ): void {
    let previous: [number, number] | undefined;
    stages.forEach((stage, i) => {
      let range: [number, number];
      if ('range' in stage) {
        range = stage.range;
      } else {
        const from = this.segments.length;
        const isolated: Level = stages.length > 1 ? { ...level, cwd: { value: level.cwd.value } } : level;
        this.statement(stage.node, isolated, i === 0 ? op : stage.op, i === stages.length - 1 ? tail : []);
        range = [from, this.segments.length];
      }
      if (previous !== undefined) {
        const reader = this.segments.slice(range[0], range[1]).find((s) => this.stdinReaders.has(s));
        if (reader !== undefined) {
          reader.flags.pipeToShell = true;
          const feeders = this.segments
            .slice(previous[0], previous[1])
            .filter((s) => s.context !== 'substitution' && s.context !== 'process-substitution');
          for (const s of feeders) s.flags.pipeToShell = true;
          // `cat <<'EOF' | sh`, `echo 'cmd' | bash`: the program is right here, so parse it too.
          const program = this.stdinReaders.get(reader) === 'shell' ? this.literalProgram(feeders) : undefined;
          if (program !== undefined) {
            this.nested(program, level, {
              where: `the code piped into ${reader.name}`,
              wrappers: [...reader.wrappers, `| ${reader.name}`],
              remote: level.remote,
              inherited: [],
              cwd: { value: level.cwd.value },
              context: 'heredoc',
              op: undefined,
              flags: {},
            });
          }
        }
      }
      previous = range;
    });
  }

  /** The text a lone `cat <<EOF`, `echo words` or `printf text` writes, when it is literal. */
  private literalProgram(feeders: readonly Segment[]): string | undefined {
    if (feeders.length !== 1) return undefined;
    const f = feeders[0]!;
    if (f.wrappers.length > 0 || f.dynamicArgs.length > 0) return undefined;
    if (f.name === 'cat' && (f.argv.length === 1 || (f.argv.length === 2 && f.argv[1] === '-'))) {
      const data = this.stdinOf.get(f);
      return data?.literal === true ? data.body : undefined;
    }
    if (f.name === 'echo') {
      let i = 1;
      while (f.argv[i] === '-n' || f.argv[i] === '-E') i++;
      return f.argv.slice(i).some((a) => /^-[neE]+$/.test(a)) ? undefined : f.argv.slice(i).join(' ');
    }
    if (f.name === 'printf' && f.argv.length === 2 && !/[%\\]/.test(f.argv[1]!)) return f.argv[1];
    return undefined;
  }

  /** `( … )` (own process: `cd` inside stays inside) and `{ …; }` (same shell). */
  private group(
    node: Node,
    level: Level,
    op: Operator | undefined,
    tail: readonly Redirect[],
    subshell: boolean,
  ): void {
    const inner: Level = {
      ...level,
      depth: level.depth + 1,
      context: 'subshell',
      cwd: subshell ? { value: level.cwd.value } : level.cwd,
      inherited: [...level.inherited, ...tail],
    };
    const from = this.segments.length;
    this.sequence(node.children, inner, op);
    if (tail.length > 0 && !this.segments.slice(from).some((s) => s.depth === inner.depth))
      this.emitColon(node, level, op, tail);
  }

  /** if/while/until/for/case: bodies may run or not (or many times), so a `cd` inside makes the cwd unknown after. */
  private conditional(node: Node, level: Level, op: Operator | undefined): void {
    const before = level.cwd.value;
    // `for ((i=0; …))`: the assignments are arithmetic, not statements (their substitutions still run).
    const children =
      node.type !== 'c_style_for_statement'
        ? node.children
        : node.children.filter((c) => c.type !== 'variable_assignment' || (this.scan(c, level), false));
    this.sequence(children, level, op);
    if (level.cwd.value !== before) level.cwd.value = { known: false };
  }

  /** The body runs when the function is called, perhaps later in this command: walk it, keep the cwd unknown if it moves. */
  private functionDefinition(node: Node, level: Level, op: Operator | undefined): void {
    const redirects = this.redirects(
      node.children.filter((c) => c.field === 'redirect'),
      level,
    ).redirects;
    const inner: Level = { ...level, cwd: { value: level.cwd.value }, inherited: [...level.inherited, ...redirects] };
    const body = node.children.find((c) => c.field === 'body');
    if (body === undefined) return;
    if (body.type === 'compound_statement' && body.children[0]?.type === '{') this.sequence(body.children, inner, op);
    else this.statement(body, inner, op, []);
    if (inner.cwd.value !== level.cwd.value) level.cwd.value = { known: false };
  }

  /** `[ … ]`, `[[ … ]]`, `(( … ))`: a segment named by the bracket, its words flattened. */
  private testCommand(node: Node, level: Level, op: Operator | undefined, tail: readonly Redirect[]): void {
    const words: Word[] = [];
    this.flatten(node, level, words);
    if (words.length === 0) return;
    this.emit(level, {
      words,
      wrappers: [],
      assignments: {},
      redirects: [...level.inherited, ...tail],
      text: level.src.slice(node.start, node.end),
      op,
    });
  }

  private flatten(node: Node, level: Level, out: Word[]): void {
    for (const child of node.children) {
      if (!child.named) out.push({ text: child.type, dynamic: false });
      else if (child.type.endsWith('_expression') || child.type === 'redirected_statement')
        this.flatten(child, level, out);
      else if (child.type !== 'comment') out.push(...this.words(child, level));
    }
  }

  /** `export A=1 B`, `local x=$(cmd)`, `declare -r y`, `unset z`: a segment with NAME=value words. */
  private declaration(node: Node, level: Level, op: Operator | undefined, tail: readonly Redirect[]): void {
    const words: Word[] = [];
    for (const child of node.children) {
      if (!child.named) {
        if (/^[a-z]+$/.test(child.type)) words.push({ text: child.type, dynamic: false });
      } else if (child.type === 'variable_assignment') {
        const [name, value] = this.assignment(child, level);
        words.push({ text: `${name}=${value.text}`, dynamic: value.dynamic });
      } else if (child.type !== 'comment') {
        words.push(...this.words(child, level));
      }
    }
    this.emit(level, {
      words,
      wrappers: [],
      assignments: {},
      redirects: [...level.inherited, ...tail],
      text: level.src.slice(node.start, node.end),
      op,
    });
  }

  // --- simple commands ---------------------------------------------------------------------------------

  /**
   * A simple command: prefix assignments, name, arguments, redirections. `outer` is the node whose text
   * the segment shows (the redirected statement around it, if any).
   */
  private command(node: Node, outer: Node, level: Level, op: Operator | undefined, given: RedirectInfo): void {
    const from = this.segments.length;
    const assignments: Record<string, string> = {};
    let nameNode: Node | undefined;
    const argNodes: Node[] = [];
    const redirectNodes: Node[] = [];
    for (const child of node.children) {
      if (child.field === 'name') nameNode = child;
      else if (child.field === 'redirect' || child.type.endsWith('_redirect')) redirectNodes.push(child);
      else if (child.type === 'variable_assignment') {
        const [name, value] = this.assignment(child, level);
        assignments[name] = value.text;
      } else if (child.field === 'argument') argNodes.push(child);
      else if (child.type !== 'comment') this.scan(child, level);
    }
    const own = this.redirects(redirectNodes, level);
    const info: RedirectInfo = {
      redirects: [...own.redirects, ...given.redirects],
      stdin: [...own.stdin, ...given.stdin],
      extraArgs: [...own.extraArgs, ...given.extraArgs],
      pipeTail: [...own.pipeTail, ...given.pipeTail],
      listTail: [...own.listTail, ...given.listTail],
    };
    const text = level.src.slice(outer.start, outer.end);
    if (nameNode === undefined) {
      if (info.redirects.length > 0) this.emitColon(outer, level, op, info.redirects);
      return;
    }
    const nameWords = this.words(nameNode, level);
    const name = nameWords[0];
    if (name === undefined || name.dynamic || nameWords.length > 1) {
      throw new Unparseable(
        `the command name ${level.src.slice(nameNode.start, nameNode.end)} is computed at run time (an expansion, substitution or glob), so hookwise cannot tell which program runs`,
      );
    }
    // Arguments in source order, including those tree-sitter filed under a redirect; adjacent nodes are one word.
    const args = mergeAdjacent(
      [...argNodes, ...info.extraArgs].sort((a, b) => a.start - b.start),
      level.src,
    );
    const words: Word[] = [...nameWords];
    for (const group of args) words.push(...this.wordsOf(group, level));
    let unwrapped: Unwrapped;
    try {
      unwrapped = unwrap(words);
    } catch (error) {
      if (error instanceof UnwrapError)
        throw new Unparseable(level.where === 'the command' ? error.message : `${level.where}: ${error.message}`);
      throw error;
    }
    this.emitUnwrapped(unwrapped, level, op, {
      assignments,
      redirects: info.redirects,
      stdin: info.stdin,
      text,
      wrappers: level.wrappers,
      context: level.context,
    });
    // Continuations of this command's own heredocs (the caller handles those of an enclosing statement).
    this.continuations(own, level, from);
  }

  private emitUnwrapped(u: Unwrapped, level: Level, op: Operator | undefined, base: EmitBase): void {
    const wrappers = [...base.wrappers, ...u.wrappers];
    const assignments = { ...base.assignments, ...u.assignments };
    const redirects = [...base.redirects, ...u.redirects];
    const cwd: CwdBox = u.chdir === undefined ? level.cwd : { value: moveCwd(level.cwd.value, u.chdir) };

    if (u.shell !== undefined) {
      let joined = op;
      if (u.local !== undefined) {
        this.emit(level, {
          words: u.local,
          wrappers,
          assignments,
          redirects: [...level.inherited, ...redirects],
          text: base.text,
          op,
          flags: u.flags,
          context: base.context,
        });
        joined = undefined;
      } else if (Object.keys(assignments).length > 0) {
        // `BASH_ENV=/tmp/rc bash -c '…'`: the environment is the shell's; shown as `:` so effects see it.
        this.emit(level, {
          words: [{ text: ':', dynamic: false }],
          wrappers,
          assignments,
          redirects: [],
          text: base.text,
          op,
          context: base.context,
        });
        joined = undefined;
      }
      this.nested(u.shell.source, level, {
        where: `the code run by ${u.shell.wrapper}`,
        wrappers: [...wrappers, u.shell.wrapper],
        remote: u.shell.remote ?? level.remote,
        // ssh: the redirects are local, on the ssh segment; otherwise they apply to everything the shell runs.
        inherited: u.local !== undefined ? [] : [...level.inherited, ...redirects],
        cwd: { value: cwd.value },
        context: 'shell-string',
        op: joined,
        flags: u.flags,
      });
      return;
    }

    const shellReader = u.stdinCode === 'shell' ? base.stdin[0] : undefined;
    if (shellReader !== undefined) {
      // `bash <<'EOF' … EOF`, `sh <<< 'cmd'`: the data is the program.
      if (!shellReader.literal) {
        throw new Unparseable(
          `a ${shellReader.via === '<<' ? 'heredoc' : 'herestring'} with expansions is fed to ${commandName(u.words[0]?.text ?? 'a shell')} as code; its value is only known at run time`,
        );
      }
      this.nested(shellReader.body, level, {
        where: `the code fed to ${commandName(u.words[0]?.text ?? 'the shell')} on stdin`,
        wrappers: [...wrappers, `${commandName(u.words[0]?.text ?? 'sh')} ${shellReader.via}`],
        remote: level.remote,
        // The heredoc itself is consumed as the program; the shell's other redirects apply to what it runs.
        inherited: [...level.inherited, ...redirects.filter((r) => r.op !== '<<' && r.op !== '<<-' && r.op !== '<<<')],
        cwd: { value: cwd.value },
        context: 'heredoc',
        op,
        flags: u.flags,
      });
      return;
    }

    const flags = { ...u.flags };
    if (u.stdinCode !== undefined && base.stdin.length > 0 && u.stdinCode !== 'shell') flags.inlineCode = u.stdinCode;
    const segment = this.emit(
      { ...level, cwd },
      {
        words: u.words,
        wrappers,
        assignments,
        redirects: [...level.inherited, ...redirects],
        text: base.text,
        op,
        flags,
        context: u.viaXargs ? 'xargs' : base.context,
        peeled: u.wrappers,
      },
    );
    if (u.stdinCode !== undefined && base.stdin.length === 0) this.stdinReaders.set(segment, u.stdinCode);
    if (base.stdin[0] !== undefined) {
      this.stdinOf.set(segment, base.stdin[0]);
      // What the command reads is part of what it does (`psql <<SQL`): memory keys and effects see it.
      segment.stdin = base.stdin.map((d) => d.body).join('');
    }

    for (const exec of u.execs) {
      let inner: Unwrapped;
      try {
        inner = unwrap(exec);
      } catch (error) {
        if (error instanceof UnwrapError) throw new Unparseable(`find -exec: ${error.message}`);
        throw error;
      }
      if (inner.words.length > 0 && inner.words[0]!.dynamic && inner.shell === undefined) {
        throw new Unparseable(`find -exec runs ${inner.words[0]!.text}, which is only known at run time`);
      }
      inner.flags.appendsArgs = true;
      this.emitUnwrapped(inner, { ...level, cwd: { value: cwd.value } }, undefined, {
        assignments: {},
        redirects: [],
        stdin: [],
        text: exec.map((w) => w.text).join(' '),
        wrappers: [...wrappers, 'find'],
        context: 'find-exec',
      });
    }
  }

  /** Parse shell code held in a string (bash -c, eval, ssh, heredoc fed to sh) one level deeper. */
  private nested(source: string, level: Level, opts: NestedOptions): void {
    if (level.shellDepth + 1 > this.maxShellDepth) {
      throw new Unparseable(
        `shell code is nested more than ${this.maxShellDepth} levels deep (${opts.wrappers.join(' → ')})`,
      );
    }
    const tree = syntaxTree(source, opts.where, this.budget);
    const inner: Level = {
      src: source,
      depth: level.depth + 1,
      context: opts.context,
      wrappers: opts.wrappers,
      remote: opts.remote,
      shellDepth: level.shellDepth + 1,
      cwd: opts.cwd,
      inherited: opts.inherited,
      where: opts.where,
    };
    const from = this.segments.length;
    this.sequence(tree.children, inner, opts.op);
    if (opts.flags.background === true) this.markBackground([from, this.segments.length]);
  }

  // --- emitting ----------------------------------------------------------------------------------------

  private emit(level: Level, s: EmitSpec): Segment {
    const argv = s.words.map((w) => w.text);
    const dynamicArgs: number[] = [];
    s.words.forEach((w, i) => {
      if (w.dynamic) dynamicArgs.push(i);
    });
    const segment: Segment = {
      argv,
      name: commandName(argv[0] ?? ''),
      dynamicArgs,
      wrappers: [...s.wrappers],
      assignments: s.assignments,
      redirects: s.redirects,
      context: s.context ?? level.context,
      depth: level.depth,
      flags: { ...s.flags },
      text: s.text,
    };
    if (s.op !== undefined) segment.operator = s.op;
    if (level.remote !== undefined) {
      segment.flags.remote = level.remote;
    } else {
      const cwd = level.cwd.value;
      if (!cwd.known) segment.flags.cwdUnknown = true;
      else if (cwd.dir !== '') segment.cwd = cwd.dir;
    }
    this.segments.push(segment);
    if (level.remote === undefined) this.changeDirectory(segment, level, s.peeled ?? []);
    return segment;
  }

  /** `> file` with no command: shown as `:` (the null command) carrying the redirections. */
  private emitColon(
    node: Node,
    level: Level,
    op: Operator | undefined,
    redirects: readonly Redirect[],
    assignments: Record<string, string> = {},
  ): void {
    this.emit(level, {
      words: [{ text: ':', dynamic: false }],
      wrappers: [],
      assignments,
      redirects: [...level.inherited, ...redirects],
      text: level.src.slice(node.start, node.end),
      op,
    });
  }

  /** A literal `cd`/`pushd`/`popd` in this shell moves the cwd of the segments after it. */
  private changeDirectory(segment: Segment, level: Level, peeled: readonly string[]): void {
    const name = segment.name;
    if (name !== 'cd' && name !== 'pushd' && name !== 'popd') return;
    if (segment.context === 'xargs' || segment.context === 'find-exec') return;
    if (!peeled.every((w) => w === 'builtin' || w === 'command')) return;
    const words = segment.argv.map((text, i) => ({ text, dynamic: segment.dynamicArgs.includes(i) }));
    const args = parseArgs(words, 1, { stopAtOperand: true });
    const target = args.operands[0];
    if (name === 'popd' || args.operands.length > 1 || (target !== undefined && /^[+-]/.test(target.text))) {
      level.cwd.value = { known: false };
    } else if (target === undefined) {
      // Bare `cd` goes home; bare `pushd` swaps the top two directories of the stack.
      level.cwd.value = name === 'cd' ? { known: true, dir: '~' } : { known: false };
    } else {
      level.cwd.value = moveCwd(level.cwd.value, target);
    }
  }

  private markBackground([from, to]: [number, number]): void {
    for (let i = from; i < to; i++) this.segments[i]!.flags.background = true;
  }

  // --- redirections ------------------------------------------------------------------------------------

  private emptyRedirects(tail: readonly Redirect[]): RedirectInfo {
    return { redirects: [...tail], stdin: [], extraArgs: [], pipeTail: [], listTail: [] };
  }

  private redirects(nodes: readonly Node[], level: Level): RedirectInfo {
    const info = this.emptyRedirects([]);
    for (const node of nodes) {
      if (node.type === 'file_redirect') this.fileRedirect(node, level, info);
      else if (node.type === 'heredoc_redirect') this.heredoc(node, level, info);
      else if (node.type === 'herestring_redirect') this.herestring(node, level, info);
      else this.scan(node, level);
    }
    return info;
  }

  private fileRedirect(node: Node, level: Level, info: RedirectInfo): void {
    let fd: number | undefined;
    let op: string | undefined;
    const destinations: Node[] = [];
    for (const child of node.children) {
      if (child.field === 'descriptor') fd = Number(level.src.slice(child.start, child.end));
      else if (child.field === 'destination') destinations.push(child);
      else if (!child.named) op = child.type;
      else this.scan(child, level);
    }
    let target: Word = { text: '', dynamic: false };
    if (op === '>&-' || op === '<&-') {
      // Closing a descriptor: `2>&-`.
      op = op.slice(0, 2);
      target = { text: '-', dynamic: false };
    } else {
      const [first, ...rest] = mergeAdjacent(destinations, level.src);
      if (first !== undefined) {
        const words = this.wordsOf(first, level);
        target =
          words.length === 1
            ? words[0]!
            : { text: level.src.slice(first[0]!.start, first[first.length - 1]!.end), dynamic: true };
      }
      for (const group of rest) info.extraArgs.push(...group);
    }
    if (op === undefined || !isRedirectOp(op))
      throw new Unparseable(
        `${level.where} uses a redirection hookwise does not understand (${level.src.slice(node.start, node.end)})`,
      );
    const redirect: Redirect = { op, target: target.text, dynamic: target.dynamic };
    if (fd !== undefined && Number.isFinite(fd)) redirect.fd = fd;
    info.redirects.push(redirect);
  }

  private heredoc(node: Node, level: Level, info: RedirectInfo): void {
    let op: RedirectOp = '<<';
    let delimiter = '';
    let quoted = false;
    let body: Node | undefined;
    let fd: number | undefined;
    let pendingOp: Operator | undefined;
    const nested: Node[] = [];
    for (const child of node.children) {
      if (!child.named) {
        if (child.type === '<<' || child.type === '<<-') op = child.type;
        else if (child.field === 'operator')
          pendingOp = child.type === '||' ? '||' : child.type === '&&' ? '&&' : child.type === '&' ? '&' : ';';
        continue;
      }
      switch (child.field ?? child.type) {
        case 'heredoc_start': {
          const raw = level.src.slice(child.start, child.end);
          quoted = /['"\\]/.test(raw);
          delimiter = raw.replace(/['"\\]/g, '');
          break;
        }
        case 'heredoc_body':
          body = child;
          break;
        case 'descriptor':
          fd = Number(level.src.slice(child.start, child.end));
          break;
        case 'redirect':
          nested.push(child);
          break;
        case 'argument':
          info.extraArgs.push(child);
          break;
        case 'right':
          info.listTail.push({ op: pendingOp ?? '&&', node: child });
          break;
        case 'pipeline':
          info.pipeTail.push(child);
          break;
        case 'heredoc_end':
          break;
        default:
          this.scan(child, level);
      }
    }
    const redirect: Redirect = { op, target: delimiter, dynamic: false };
    if (fd !== undefined && Number.isFinite(fd)) redirect.fd = fd;
    info.redirects.push(redirect);
    // An unquoted heredoc's substitutions run whatever reads it: `cat <<EOF` with `$(rm x)` inside runs rm.
    const expands = !quoted && body !== undefined && body.children.some((c) => c.type !== 'heredoc_content');
    if (expands) this.scan(body!, level);
    info.stdin.push({
      body: body === undefined ? '' : level.src.slice(body.start, body.end),
      literal: !expands,
      via: '<<',
    });
    const more = this.redirects(nested, level);
    info.redirects.push(...more.redirects);
    info.stdin.push(...more.stdin);
    info.extraArgs.push(...more.extraArgs);
  }

  private herestring(node: Node, level: Level, info: RedirectInfo): void {
    const parts = node.children.filter((c) => c.named && c.field !== 'descriptor');
    const words = mergeAdjacent(parts, level.src).flatMap((group) => this.wordsOf(group, level));
    const text = words.map((w) => w.text).join(' ');
    const dynamic = words.some((w) => w.dynamic);
    const descriptor = node.children.find((c) => c.field === 'descriptor');
    const redirect: Redirect = { op: '<<<', target: text, dynamic };
    if (descriptor !== undefined) redirect.fd = Number(level.src.slice(descriptor.start, descriptor.end));
    info.redirects.push(redirect);
    info.stdin.push({ body: `${text}\n`, literal: !dynamic, via: '<<<' });
  }

  // --- words -------------------------------------------------------------------------------------------

  /** Walk the substitutions inside a node (they run); nothing else in it is a command. */
  private scan(node: Node, level: Level): void {
    if (SUBSTITUTIONS.has(node.type)) {
      this.substitution(node, level);
      return;
    }
    for (const child of node.children) if (child.named) this.scan(child, level);
  }

  private substitution(node: Node, level: Level): void {
    const inner: Level = {
      ...level,
      depth: level.depth + 1,
      context: node.type === 'process_substitution' ? 'process-substitution' : 'substitution',
      cwd: { value: level.cwd.value },
      inherited: [],
    };
    this.sequence(
      node.children.filter((c) => c.field !== 'redirect'),
      inner,
      undefined,
    );
  }

  private assignment(node: Node, level: Level): [string, Word] {
    const name = node.children.find((c) => c.field === 'name');
    const value = node.children.filter((c) => c.field === 'value');
    const words =
      value.length === 0 ? [] : mergeAdjacent(value, level.src).flatMap((group) => this.wordsOf(group, level));
    const text = words.map((w) => w.text).join(' ');
    return [
      name === undefined ? '' : level.src.slice(name.start, name.end),
      { text, dynamic: words.some((w) => w.dynamic) },
    ];
  }

  private words(node: Node, level: Level): Word[] {
    return this.wordsOf([node], level);
  }

  /** Adjacent nodes forming one shell word → its words after brace expansion. */
  private wordsOf(nodes: readonly Node[], level: Level): Word[] {
    const pieces: Piece[] = [];
    nodes.forEach((node, i) => {
      // `$"…"` (a translated string) comes as a bare `$` token next to the string: the `$` is not text.
      const next = nodes[i + 1];
      if (!node.named && node.type === '$' && next?.type === 'string' && next.start === node.end) return;
      this.pieces(node, level, pieces);
    });
    return finishWord(pieces);
  }

  private pieces(node: Node, level: Level, out: Piece[]): void {
    const text = level.src.slice(node.start, node.end);
    if (!node.named) {
      out.push({ text, quoted: false, dynamic: false });
      return;
    }
    switch (node.type) {
      case 'word':
        unquotedPieces(text, out);
        return;
      case 'raw_string':
        out.push({ text: text.slice(1, -1), quoted: true, dynamic: false });
        return;
      case 'ansi_c_string':
        out.push({ text: decodeAnsiC(text.slice(2, -1)), quoted: true, dynamic: false });
        return;
      case 'string':
        this.doubleQuoted(node, level, out);
        return;
      case 'command_name':
      case 'translated_string':
      case 'concatenation':
        for (const child of node.children) this.pieces(child, level, out);
        return;
      case 'simple_expansion':
      case 'expansion': {
        const variable = /^\$(?:\{(HOME|PWD)\}|(HOME|PWD))$/.exec(text);
        const known = variable?.[1] ?? variable?.[2];
        if (out.length === 0 && ((known === 'HOME' && this.resolveHome) || (known === 'PWD' && this.resolvePwd))) {
          out.push({ text: known === 'HOME' ? '~' : '.', quoted: false, dynamic: false });
          return;
        }
        const value = this.knownValue(node, text, level, out);
        if (value !== undefined) {
          // The value is plain text (no blanks, globs or quotes): splitting and globbing leave it alone.
          out.push({ text: value, quoted: true, dynamic: false });
          return;
        }
        this.scan(node, level);
        out.push({ text, quoted: true, dynamic: true });
        return;
      }
      case 'command_substitution':
      case 'process_substitution':
        // Not even `$(mktemp -d)`: if mktemp fails the word is empty, and `cd ""` succeeds where it stands.
        this.substitution(node, level);
        out.push({ text, quoted: true, dynamic: true });
        return;
      case 'number':
      case 'brace_expression':
      case 'extglob_pattern':
      case 'regex':
      case 'test_operator':
      case 'variable_name':
      case 'special_variable_name':
      case 'file_descriptor':
        if (node.children.some((c) => c.named && c.type !== 'number')) {
          this.scan(node, level);
          out.push({ text, quoted: true, dynamic: true });
        } else {
          out.push({ text, quoted: false, dynamic: false });
        }
        return;
      default:
        // Arithmetic, arrays, anything else: its substitutions run; its value is not known here.
        this.scan(node, level);
        out.push({ text, quoted: true, dynamic: true });
    }
  }

  /**
   * `$NAME` / `${NAME}` of a variable with a known value (knownAssignments), used after the assignment and
   * in the shell that made it (the top-level command and its subshells and substitutions — not a nested
   * `bash -c` string, which runs in another process that does not see an unexported variable).
   */
  private knownValue(node: Node, text: string, level: Level, out: readonly Piece[]): string | undefined {
    if (level.shellDepth !== 0 || this.known.size === 0) return undefined;
    const name = /^\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))$/.exec(text);
    const known = name === null ? undefined : this.known.get(name[1] ?? name[2]!);
    if (known === undefined || node.start < known.after || node.start >= known.until) return undefined;
    // A fresh-temp marker is a whole path: only at the start of a word.
    if (known.marker && !out.every((p) => p.text === '')) return undefined;
    return known.value;
  }

  /** "…": backslash escapes only $ ` " \ and newline; expansions inside are dynamic. */
  private doubleQuoted(node: Node, level: Level, out: Piece[]): void {
    let at = node.start + 1;
    const end = node.end - 1;
    for (const child of node.children) {
      if (!child.named) continue; // the quotes
      if (child.start > at)
        out.push({ text: unescapeDoubleQuoted(level.src.slice(at, child.start)), quoted: true, dynamic: false });
      if (child.type === 'string_content') {
        out.push({ text: unescapeDoubleQuoted(level.src.slice(child.start, child.end)), quoted: true, dynamic: false });
      } else {
        const before = out.length;
        this.pieces(child, level, out);
        for (let i = before; i < out.length; i++) out[i]!.quoted = true;
      }
      at = child.end;
    }
    if (end > at) out.push({ text: unescapeDoubleQuoted(level.src.slice(at, end)), quoted: true, dynamic: false });
  }
}

interface EmitBase {
  assignments: Record<string, string>;
  redirects: Redirect[];
  stdin: StdinData[];
  text: string;
  wrappers: readonly string[];
  context: SegmentContext;
}

interface EmitSpec {
  words: readonly Word[];
  wrappers: readonly string[];
  assignments: Record<string, string>;
  redirects: Redirect[];
  text: string;
  op: Operator | undefined;
  flags?: Segment['flags'];
  context?: SegmentContext;
  /** Wrappers peeled from this very command (not inherited): decides whether a `cd` moves this shell. */
  peeled?: readonly string[];
}

interface NestedOptions {
  where: string;
  wrappers: string[];
  remote: string | undefined;
  inherited: Redirect[];
  cwd: CwdBox;
  context: SegmentContext;
  op: Operator | undefined;
  flags: Segment['flags'];
}

type Stage = { node: Node; op: Operator | undefined } | { range: [number, number] };

// ---------------------------------------------------------------------------------------------------------
// Helpers

function withInherited(level: Level, redirects: readonly Redirect[]): Level {
  return redirects.length === 0 ? level : { ...level, inherited: [...level.inherited, ...redirects] };
}

function pipeOperators(node: Node): Operator[] {
  return node.children
    .filter((c) => !c.named && (c.type === '|' || c.type === '|&'))
    .map((c) => (c.type === '|&' ? '|&' : '|'));
}

function isRedirectOp(op: string): op is RedirectOp {
  return (REDIRECT_OPS as readonly string[]).includes(op);
}

/**
 * Group nodes that touch into one shell word: `$"x"`, `a"b"`, and `a\<newline>b` (a line continuation
 * inside a word joins it; tree-sitter leaves it out as if it were a space).
 */
function mergeAdjacent(nodes: readonly Node[], src: string): Node[][] {
  const groups: Node[][] = [];
  for (const node of nodes) {
    const last = groups[groups.length - 1];
    const end = last?.[last.length - 1]!.end;
    if (
      last !== undefined &&
      end !== undefined &&
      (end === node.start || /^(?:\\\n)+$/.test(src.slice(end, node.start)))
    )
      last.push(node);
    else groups.push([node]);
  }
  return groups;
}

/** The directory after `cd target` from `from`. */
function moveCwd(from: Cwd, target: Word): Cwd {
  if (!from.known || target.dynamic || target.text === '-' || target.text === '') return { known: false };
  const t = target.text;
  if (t.startsWith('/') || t === '~' || t.startsWith('~/')) return { known: true, dir: t };
  return { known: true, dir: from.dir === '' ? t : joinPath(from.dir, t) };
}

/** Every occurrence of NAME in the command is inside `$NAME` / `${NAME}` (nothing assigns or reads it otherwise). */
function onlyExpansions(source: string, name: string): boolean {
  let all = 0;
  for (let i = source.indexOf(name); i !== -1; i = source.indexOf(name, i + 1)) all++;
  if (all === 0) return true;
  const expansions = source.match(new RegExp(`\\$${name}(?![A-Za-z0-9_])|\\$\\{${name}\\}`, 'g'))?.length ?? 0;
  return all === expansions;
}

// --- known assignments ------------------------------------------------------------------------------

interface KnownValue {
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
function knownAssignments(root: Node, source: string, freshTemp: boolean): Map<string, KnownValue> {
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

/** An unquoted word: `\x` is a quoted x, backslash-newline disappears. */
function unquotedPieces(text: string, out: Piece[]): void {
  if (!text.includes('\\')) {
    out.push({ text, quoted: false, dynamic: false });
    return;
  }
  let run = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c !== '\\') {
      run += c;
      continue;
    }
    const next = text[i + 1];
    i++;
    if (next === undefined || next === '\n') continue;
    if (run !== '') out.push({ text: run, quoted: false, dynamic: false });
    run = '';
    out.push({ text: next, quoted: true, dynamic: false });
  }
  if (run !== '') out.push({ text: run, quoted: false, dynamic: false });
}

function unescapeDoubleQuoted(text: string): string {
  if (!text.includes('\\')) return text;
  return text.replace(/\\([$`"\\\n])/g, (_, c: string) => (c === '\n' ? '' : c));
}

const ANSI_SIMPLE: Record<string, string> = {
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '?': '?',
};

/** $'…' (ANSI-C quoting). */
function decodeAnsiC(text: string): string {
  return text.replace(
    /\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|c.|.)/gs,
    (all, esc: string) => {
      const head = esc[0]!;
      if (head === 'x' || head === 'u' || head === 'U') {
        const code = parseInt(esc.slice(1), 16);
        return code <= 0x10ffff ? String.fromCodePoint(code) : all;
      }
      if (/[0-7]/.test(head)) return String.fromCharCode(parseInt(esc, 8) & 0xff);
      if (head === 'c' && esc.length === 2) return String.fromCharCode(esc.charCodeAt(1) & 0x1f);
      return ANSI_SIMPLE[head] ?? all;
    },
  );
}

// --- brace expansion, globs, tilde ----------------------------------------------------------------------

interface Unit {
  /** One character of unquoted text, or a whole quoted/dynamic piece. */
  text: string;
  /** Unquoted: may take part in brace expansion, globbing, tilde expansion. */
  active: boolean;
  dynamic: boolean;
}

function finishWord(pieces: readonly Piece[]): Word[] {
  const whole = (): Unit[] => pieces.map((p) => ({ text: p.text, active: !p.quoted, dynamic: p.dynamic }));
  if (!pieces.some((p) => !p.quoted && p.text.includes('{'))) return [wordOf(whole())];
  let length = 0;
  let groups = 0;
  for (const p of pieces) {
    length += p.text.length;
    if (!p.quoted) for (const c of p.text) if (c === '{') groups++;
  }
  // Bounded work: a pathological word stays one word, marked dynamic (judged as written, never expanded wrongly).
  if (length > MAX_BRACE_WORD_LENGTH || groups > MAX_BRACE_GROUPS)
    return [{ text: wordOf(whole()).text, dynamic: true }];
  const units: Unit[] = [];
  for (const p of pieces) {
    if (p.quoted) units.push({ text: p.text, active: false, dynamic: p.dynamic });
    else for (const c of p.text) units.push({ text: c, active: true, dynamic: false });
  }
  const budget = { left: MAX_BRACE_WORDS };
  const expanded = expandBraces(units, budget);
  if (expanded === undefined) {
    const word = wordOf(units);
    return [{ text: word.text, dynamic: true }];
  }
  return expanded.map(wordOf);
}

function wordOf(units: readonly Unit[]): Word {
  let text = '';
  let dynamic = false;
  for (let i = 0; i < units.length; i++) {
    const u = units[i]!;
    text += u.text;
    if (u.dynamic) dynamic = true;
    // Unquoted glob characters make the word a pattern.
    else if (u.active && /[*?[]/.test(u.text)) dynamic = true;
  }
  // `~user`, `~+`, `~-`: someone's home or a directory stack entry; `~` and `~/x` stay literal for the caller.
  const first = units[0];
  if (first !== undefined && first.active && first.text.startsWith('~') && !(text === '~' || text.startsWith('~/')))
    dynamic = true;
  return { text, dynamic };
}

/** Bash brace expansion over unquoted units; undefined when it would exceed the budget. */
function expandBraces(units: readonly Unit[], budget: { left: number }): Unit[][] | undefined {
  for (let open = 0; open < units.length; open++) {
    const u = units[open]!;
    if (!u.active || u.text !== '{') continue;
    // `${` is a parameter expansion, not a brace expansion.
    const before = units[open - 1];
    if (before !== undefined && before.active && before.text === '$') continue;
    let depth = 0;
    let close = -1;
    const commas: number[] = [];
    for (let j = open + 1; j < units.length; j++) {
      const v = units[j]!;
      if (!v.active) continue;
      if (v.text === '{') depth++;
      else if (v.text === '}') {
        if (depth === 0) {
          close = j;
          break;
        }
        depth--;
      } else if (v.text === ',' && depth === 0) commas.push(j);
    }
    if (close === -1) continue; // an unmatched `{` is literal
    let alternatives: Unit[][] | undefined;
    if (commas.length > 0) {
      alternatives = [];
      let from = open + 1;
      for (const comma of [...commas, close]) {
        alternatives.push(units.slice(from, comma));
        from = comma + 1;
      }
    } else {
      alternatives = sequence(units.slice(open + 1, close));
      if (alternatives === undefined) continue; // `{x}`, `{}`: literal
    }
    const prefix = units.slice(0, open);
    const suffix = units.slice(close + 1);
    const results: Unit[][] = [];
    for (const alt of alternatives) {
      const expanded = expandBraces([...alt, ...suffix], budget);
      if (expanded === undefined) return undefined;
      for (const e of expanded) {
        if (--budget.left < 0) return undefined;
        results.push([...prefix, ...e]);
      }
    }
    return results;
  }
  return [units.slice()];
}

/** `{1..5}`, `{a..e}`, `{01..10..2}` → the alternatives; undefined when not a sequence. */
function sequence(units: readonly Unit[]): Unit[][] | undefined {
  if (units.some((u) => !u.active)) return undefined;
  const m = /^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?$/.exec(units.map((u) => u.text).join(''));
  if (m === null) return undefined;
  const [, a, b, stepText] = m;
  const numeric = /\d/.test(a!) && /\d/.test(b!);
  if (!numeric && (/\d/.test(a!) || /\d/.test(b!))) return undefined;
  const from = numeric ? Number(a) : a!.charCodeAt(0);
  const to = numeric ? Number(b) : b!.charCodeAt(0);
  const step = Math.abs(Number(stepText ?? 1)) || 1;
  const count = Math.floor(Math.abs(to - from) / step) + 1;
  if (count > MAX_BRACE_WORDS) return [[{ text: `{${a}..${b}}`, active: false, dynamic: true }]];
  const width =
    numeric && (/^-?0\d/.test(a!) || /^-?0\d/.test(b!))
      ? Math.max(a!.replace('-', '').length, b!.replace('-', '').length)
      : 0;
  const out: Unit[][] = [];
  for (let i = 0, v = from; i < count; i++, v += from <= to ? step : -step) {
    const text = numeric ? (v < 0 ? '-' : '') + String(Math.abs(v)).padStart(width, '0') : String.fromCharCode(v);
    out.push([...text].map((c) => ({ text: c, active: true, dynamic: false })));
  }
  return out;
}
