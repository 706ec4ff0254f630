/**
 * The Bash syntax tree as plain data: tree-sitter-bash through the native `tree-sitter` binding, parsed
 * under a budget of work, with Bash precedence restored where the grammar nests differently (normalize).
 *
 * Why native and not web-tree-sitter (WASM): the parser loads in every `hookwise check` process that sees a
 * Bash call. Measured on the 2-core dev machine (fresh process): native ≈ 7–10 ms to load + 0.4 ms first
 * parse; WASM (web-tree-sitter 0.25 + the grammar's .wasm) ≈ 16 ms runtime init + 8 ms grammar compile +
 * 14 ms first parse (lazy wasm compilation), ~40 ms in all. Warm, a short command parses in ~35 µs.
 * The native module is loaded lazily (first parseCommand / loadShellParser), so other tool calls never pay.
 *
 * The tree is converted once into plain objects (one N-API call per cursor step is the dominant cost;
 * reading node properties lazily would cost several per node); parse.ts walks them in pure JS.
 */
import type TreeSitter from 'tree-sitter';
import { loadNativeAddon, localRequire } from '../util/native-addons.js';

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

// ---------------------------------------------------------------------------------------------------------
// Loading

let parser: TreeSitter | undefined;

/**
 * Load the native parser (idempotent, synchronous). parseCommand calls it on first use; call it yourself
 * to pay the cost at a moment of your choosing. Throws when the native module cannot be loaded.
 */
export function loadShellParser(): void {
  if (parser !== undefined) return;
  const load = localRequire();
  try {
    // Bundled (dist/*.cjs): tree-sitter's JavaScript is dist/tree-sitter.cjs, one copy for every bundle (a
    // literal require, which the build routes there), its binding loaded from the file the build found
    // (util/native-addons.ts). From sources: the installed package.
    const bundled = typeof __filename === 'string' && __filename.endsWith('.cjs');
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- see above: only a literal is bundled
    const Parser = (bundled ? require('tree-sitter') : load('tree-sitter')) as typeof TreeSitter;
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
 * node-class API uses (we walk with a cursor), so load the binary directly: the file the build found, else
 * where the package keeps it.
 */
function loadGrammar(load: NodeJS.Require): TreeSitter.Language {
  return loadNativeAddon('tree-sitter-bash', () => loadGrammarFromPackage(load)) as TreeSitter.Language;
}

function loadGrammarFromPackage(load: NodeJS.Require): TreeSitter.Language {
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

export interface Node {
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
export class Unparseable extends Error {
  override readonly name = 'Unparseable';
}

/** What one parseCommand may still spend on tree-sitter, across nested shell strings: counts of work, never time. */
export interface Budget {
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
 * Parse with tree-sitter, bounded by the work it does (see the bounds above; defaults: parse.ts
 * DEFAULT_MAX_PARSE_STEPS): parser steps and characters read. The same source and budget always stop at the
 * same point, whatever the load.
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

export function syntaxTree(source: string, where: string, budget: Budget): Node {
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
