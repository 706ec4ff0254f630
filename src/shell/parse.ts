/**
 * Bash → segments, with a real grammar: tree-sitter-bash's syntax tree (syntax.ts), walked in pure JS:
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
import { isShellParserLoaded, loadShellParser, syntaxTree, Unparseable, type Budget, type Node } from './syntax.js';
import { knownAssignments, type KnownValue } from './known-values.js';
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
import { decodeAnsiC, finishWord, unescapeDoubleQuoted, unquotedPieces, type Piece } from './words.js';

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

// ---------------------------------------------------------------------------------------------------------
// Entry point

export function parseCommand(command: string, options: ParseOptions = {}): ParseResult {
  if (!isShellParserLoaded()) {
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

/** `orElse`: where the shell is instead if a `cd` joined by `;` failed (`''`: the command's own directory). */
type Cwd = { known: true; dir: string; orElse?: string[] } | { known: false };
/** Directories one place may stand for before it is called unknown (each `cd … ;` may double them). */
const MAX_CWD_ALTERNATIVES = 4;
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

/** `CDPATH=…` as a statement, or `export`/`declare`/`typeset`/`readonly`/`local` of it (with or without a value). */
function setsCdpath(segment: Segment): boolean {
  if (segment.name === ':' && 'CDPATH' in segment.assignments) return true;
  if (!['export', 'declare', 'typeset', 'readonly', 'local'].includes(segment.name)) return false;
  return segment.argv.slice(1).some((w) => w === 'CDPATH' || w.startsWith('CDPATH='));
}

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
  /** An earlier segment set or exported CDPATH: a later `cd name` may land in any directory it lists. */
  private cdpath = false;
  /** `set -e` seen at the top level: a failing command (a `cd`) ends the script, so what follows runs only after it succeeded. */
  private errexit = false;
  /** Where the shell was before each `cd` of the statement being walked: where it stays if that `cd` fails. */
  private cwdsLeft: Cwd[] = [];

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
      const before = level.cwd.value;
      const outer = this.cwdsLeft;
      this.cwdsLeft = [];
      if (TRANSPARENT.has(node.type)) this.sequence(node.children, level, joined);
      else if (STATEMENTS.has(node.type)) this.statement(node, level, joined, []);
      else this.scan(node, level); // for/case words, arithmetic: only their substitutions run
      last = [from, this.segments.length];
      // A `cd` here may fail, and what follows a `;`, a newline or `&` runs anyway: in either directory.
      if (level.cwd.value !== before && !this.errexit && !exitsOnFailure(this.segments.slice(from)))
        level.cwd.value = this.cwdsLeft.reduce(eitherCwd, level.cwd.value);
      this.cwdsLeft = [...outer, ...this.cwdsLeft];
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
      case 'negated_command': {
        // `! cmd`: its status is inverted, so the `&&` after it runs when it failed.
        const from = this.segments.length;
        this.sequence(node.children, withInherited(level, tail), op);
        return this.markConditional(from);
      }
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
    const from = this.segments.length;
    this.sequence(children, level, op);
    this.markConditional(from);
    if (level.cwd.value !== before) level.cwd.value = { known: false };
  }

  /** Segments from `from` on run only when a condition holds, when a function is called, or negated (flags.conditional). */
  private markConditional(from: number): void {
    for (let i = from; i < this.segments.length; i++) this.segments[i]!.flags.conditional = true;
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
    const from = this.segments.length;
    if (body.type === 'compound_statement' && body.children[0]?.type === '{') this.sequence(body.children, inner, op);
    else this.statement(body, inner, op, []);
    this.markConditional(from);
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
    if (u.container !== undefined) {
      this.emitContainerExec(u, u.container, level, op, base);
      return;
    }
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

  /**
   * `docker exec -i db psql …`: the client's own command here (with the shell's redirects and stdin), then
   * what runs in the container, marked remote (its paths are the container's). The container's command reads
   * what the client forwards from its stdin, so it follows the client as a pipe does: a file or heredoc fed to
   * `docker exec -i` is what the database client inside reads.
   */
  private emitContainerExec(
    u: Unwrapped,
    container: NonNullable<Unwrapped['container']>,
    level: Level,
    op: Operator | undefined,
    base: EmitBase,
  ): void {
    const client = this.emit(level, {
      words: u.local!,
      wrappers: [...base.wrappers, ...u.wrappers.slice(0, container.localWrappers)],
      assignments: { ...base.assignments, ...container.localAssignments },
      redirects: [...level.inherited, ...base.redirects, ...u.redirects],
      text: base.text,
      op,
      context: base.context,
    });
    if (base.stdin[0] !== undefined) {
      this.stdinOf.set(client, base.stdin[0]);
      client.stdin = base.stdin.map((d) => d.body).join('');
    }
    const inside: Unwrapped = { ...u, redirects: [] };
    delete inside.container;
    delete inside.local;
    this.emitUnwrapped(inside, { ...level, remote: container.name, inherited: [] }, '|', {
      ...base,
      assignments: {},
      redirects: [],
    });
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
      else {
        if (cwd.dir !== '') segment.cwd = cwd.dir;
        if (cwd.orElse !== undefined) segment.cwdOrElse = [...cwd.orElse];
      }
    }
    this.segments.push(segment);
    if (segment.depth === 0 && segment.name === 'set') this.errexit = setsErrexit(segment.argv, this.errexit);
    if (level.remote === undefined) this.changeDirectory(segment, level, s.peeled ?? []);
    if (setsCdpath(segment)) this.cdpath = true;
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
    this.cwdsLeft.push(level.cwd.value);
    if (name === 'popd' || args.operands.length > 1 || (target !== undefined && /^[+-]/.test(target.text))) {
      level.cwd.value = { known: false };
    } else if (target === undefined) {
      // Bare `cd` goes home; bare `pushd` swaps the top two directories of the stack.
      level.cwd.value = name === 'cd' ? { known: true, dir: '~' } : { known: false };
    } else if ((this.cdpath || 'CDPATH' in segment.assignments) && !/^(?:[/~]|\.\.?(?:\/|$))/.test(target.text)) {
      // `CDPATH=/elsewhere cd src`: bash looks for src in CDPATH's directories first.
      level.cwd.value = { known: false };
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
  const to = (dir: string): string => (dir === '' ? t : joinPath(dir, t));
  const moved: Cwd = { known: true, dir: to(from.dir) };
  if (from.orElse !== undefined) moved.orElse = from.orElse.map(to);
  return moved;
}

/** The shell is in `after` if the `cd` that led there succeeded, else still in `before`. */
function eitherCwd(after: Cwd, before: Cwd): Cwd {
  if (!after.known || !before.known) return { known: false };
  const others = [...(after.orElse ?? []), before.dir, ...(before.orElse ?? [])];
  const orElse = [...new Set(others)].filter((d) => d !== after.dir);
  if (orElse.length > MAX_CWD_ALTERNATIVES) return { known: false };
  return orElse.length === 0 ? { known: true, dir: after.dir } : { known: true, dir: after.dir, orElse };
}

/** `cd x || exit 1`, `cd x || return`: when the `cd` fails, nothing after it runs. */
function exitsOnFailure(statement: readonly Segment[]): boolean {
  const last = statement.at(-1);
  return last !== undefined && last.operator === '||' && (last.name === 'exit' || last.name === 'return');
}

/** Whether `set …` leaves errexit on (`set -e`, `set -euo pipefail`, `set -o errexit`; `set +e` turns it off). */
function setsErrexit(argv: readonly string[], on: boolean): boolean {
  let errexit = on;
  for (let i = 1; i < argv.length; i++) {
    const w = argv[i]!;
    if ((w === '-o' || w === '+o') && argv[i + 1] === 'errexit') errexit = w === '-o';
    else if (/^-[a-zA-Z]*e/.test(w) && !w.startsWith('--')) errexit = true;
    else if (/^\+[a-zA-Z]*e/.test(w)) errexit = false;
    if (w === '-o' || w === '+o') i++;
  }
  return errexit;
}

/** Every occurrence of NAME in the command is inside `$NAME` / `${NAME}` (nothing assigns or reads it otherwise). */
function onlyExpansions(source: string, name: string): boolean {
  let all = 0;
  for (let i = source.indexOf(name); i !== -1; i = source.indexOf(name, i + 1)) all++;
  if (all === 0) return true;
  const expansions = source.match(new RegExp(`\\$${name}(?![A-Za-z0-9_])|\\$\\{${name}\\}`, 'g'))?.length ?? 0;
  return all === expansions;
}
